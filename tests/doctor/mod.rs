//! `sightline doctor`: one test per reason code, each against a real process (the misbehaving
//! servers in `tests/peers/doctor/`, the built-in servers through scenarios) or, for codes only
//! an odd host produces, a trace written by hand. Each test checks the code, the `seq` it
//! points at (and that the event there is the one that proves it) and the exit status.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};
use sightline::analysis::doctor::{self, Code, DoctorOptions};
use sightline::trace::{Analysis, Channel, Event, Header, Kind, Lane, ProcessInfo, write_trace};
use sightline::wire::api::ApiShape;

use crate::util::{self, repo};

mod hosts;
mod output;
mod server;
mod tools;

const LIMIT: Duration = Duration::from_secs(120);

fn doctor_peer(script: &str) -> String {
    util::peers()
        .join("doctor")
        .join(script)
        .display()
        .to_string()
}

/// One `sightline doctor --json` run, with the trace it read.
struct Doctor {
    status: Option<i32>,
    stdout: String,
    stderr: String,
    records: Vec<Value>,
    events: Vec<Event>,
    analysis: Analysis,
    _dir: tempfile::TempDir,
}

/// Runs `sightline doctor --json ARGS...`; a scenario or a probe records into a temp trace.
fn doctor(args: &[&str]) -> Doctor {
    let dir = util::tempdir();
    let recorded = dir.path().join("doctor.jsonl");
    let mut cmd = Command::new(util::bin());
    cmd.arg("doctor")
        .arg("--json")
        .arg("--trace")
        .arg(&recorded)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY");
    let out = util::run(&mut cmd, LIMIT);
    let stdout = util::text(&out.stdout);
    let stderr = util::text(&out.stderr);
    let records = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    // A trace given as input is read in place; otherwise the one recorded.
    let read = args
        .iter()
        .take_while(|a| **a != "--")
        .find(|a| a.ends_with(".jsonl"))
        .map_or(recorded, PathBuf::from);
    let events = if read.exists() {
        util::load(&read).events
    } else {
        Vec::new()
    };
    let analysis = sightline::trace::analyze(&events);
    Doctor {
        status: out.status.code(),
        stdout,
        stderr,
        records,
        events,
        analysis,
        _dir: dir,
    }
}

/// `sightline doctor --json ARGS -- python3 tests/peers/doctor/SCRIPT`.
fn probe(script: &str, args: &[&str]) -> Doctor {
    let peer = doctor_peer(script);
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--", "python3", &peer]);
    doctor(&all)
}

impl Doctor {
    fn describe(&self) -> String {
        format!(
            "status {:?}\nstdout:\n{}\nstderr:\n{}",
            self.status, self.stdout, self.stderr
        )
    }

    fn record(&self, kind: &str, key: &str, name: &str) -> &Value {
        self.records
            .iter()
            .find(|r| r["record"] == kind && r[key] == name)
            .unwrap_or_else(|| panic!("no {kind} record for {name}:\n{}", self.describe()))
    }

    fn tool(&self, name: &str) -> &Value {
        self.record("tool", "tool", name)
    }

    fn server(&self, name: &str) -> &Value {
        self.record("server", "server", name)
    }

    fn index(&self, seq: &Value) -> usize {
        let seq = seq
            .as_u64()
            .unwrap_or_else(|| panic!("no seq ({seq}):\n{}", self.describe()));
        self.events
            .iter()
            .position(|e| e.seq == seq)
            .unwrap_or_else(|| panic!("no event #{seq} in the trace"))
    }

    /// Asserts `record` has `code` and points at an event satisfying `proves`.
    fn expect(&self, record: &Value, code: &str, proves: impl Fn(&Event, usize) -> bool) {
        assert_eq!(record["code"], code, "{record}\n{}", self.describe());
        let i = self.index(&record["seq"]);
        assert!(
            proves(&self.events[i], i),
            "#{} does not prove {code}: {:?}\n{}",
            self.events[i].seq,
            self.events[i],
            self.describe()
        );
    }

    fn kind(&self, i: usize) -> Kind {
        self.analysis.derived[i].kind
    }

    fn method(&self, i: usize) -> Option<&str> {
        self.analysis.derived[i].method.as_deref()
    }

    fn is_note(&self, i: usize, text: &str) -> bool {
        let e = &self.events[i];
        e.channel == Channel::Note && e.from == Lane::Host && e.text().contains(text)
    }

    fn is_llm_request(&self, i: usize) -> bool {
        let e = &self.events[i];
        e.channel == Channel::LlmHttp && e.from == Lane::Host && e.to == Lane::Llm
    }
}

/// A shipped scenario with `[host]` (or another table) changed, written to a temp file.
fn variant(dir: &Path, scenario: &str, table: &str, key: &str, value: toml::Value) -> PathBuf {
    let path = repo(scenario);
    let mut doc: toml::Table = std::fs::read_to_string(&path)
        .expect("read scenario")
        .parse()
        .expect("scenario is TOML");
    doc.entry(table)
        .or_insert_with(|| toml::Value::Table(toml::Table::new()))
        .as_table_mut()
        .expect("a table")
        .insert(key.into(), value);
    let out = dir.join(path.file_name().expect("file name"));
    std::fs::write(&out, toml::to_string(&doc).expect("serialize")).expect("write variant");
    out
}
