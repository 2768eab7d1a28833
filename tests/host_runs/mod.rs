//! The host end to end: the real `sightline run` binary as a black box, judged by its trace.
//!
//! Each test runs a scenario (the embedded scripted model, the built-in servers, no network and
//! no key) or points the host at a tiny canned HTTP server, then reads the trace back with the
//! library and checks what crossed, in which order, between which lanes. Expected values are
//! computed with `sightline::wire::convert` from what the servers actually sent.
//!
//! The harness is here: [`Run`], one finished `sightline run` with its trace loaded, and what
//! picks events out of it. Reading model bodies is in `bodies`; each test file is one concern.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::Value;
use sightline::trace::{Analysis, Channel, Event, Kind, Lane, LoadedTrace, Pairing};

use crate::util;

/// How long one `sightline run` may take before the test fails.
const RUN_LIMIT: Duration = Duration::from_secs(60);

/// Returns `Err(message)` from the enclosing function when `cond` is false.
macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(format!($($fmt)+));
        }
    };
}

mod bodies;
mod facts;
mod gemini;
mod invalid_tool_name;
pub(crate) mod provider_errors;
mod provider_shapes;
mod run_options;
mod scenarios;

use bodies::llm_body;

/// One finished `sightline run`, with its trace loaded and analyzed.
struct Run {
    output: Output,
    stdout: String,
    stderr: String,
    trace_path: PathBuf,
    trace: LoadedTrace,
    analysis: Analysis,
    /// Index of each event by its `seq`.
    by_seq: HashMap<u64, usize>,
    _dir: tempfile::TempDir,
}

/// Runs `sightline run SCENARIO --trace FILE ARGS...` with no API key in its environment
/// (plus `env`), bounded by [`RUN_LIMIT`].
fn sightline_run(scenario: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let dir = util::tempdir();
    let trace_path = dir.path().join("trace.jsonl");
    let mut cmd = Command::new(util::bin());
    cmd.arg("run")
        .arg(scenario)
        .arg("--trace")
        .arg(&trace_path)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("GEMINI_API_KEY")
        .env_remove("GOOGLE_API_KEY");
    for (name, value) in env {
        cmd.env(name, value);
    }
    let output = util::run(&mut cmd, RUN_LIMIT);
    let stdout = util::text(&output.stdout);
    let stderr = util::text(&output.stderr);
    let trace = sightline::trace::load(&trace_path).unwrap_or_else(|e| {
        panic!(
            "`sightline run {} {}` left no readable trace ({e}); status {}, stderr:\n{stderr}",
            scenario.display(),
            args.join(" "),
            output.status
        )
    });
    let analysis = sightline::trace::analyze(&trace.events);
    let by_seq = trace
        .events
        .iter()
        .enumerate()
        .map(|(i, e)| (e.seq, i))
        .collect();
    Run {
        output,
        stdout,
        stderr,
        trace_path,
        trace,
        analysis,
        by_seq,
        _dir: dir,
    }
}

impl Run {
    fn events(&self) -> &[Event] {
        &self.trace.events
    }

    /// The event with this `seq`.
    fn index_of(&self, seq: u64) -> Option<usize> {
        self.by_seq.get(&seq).copied()
    }

    /// The index of the event that answers the request at `index`, per `trace::analyze`.
    fn answer_of(&self, index: usize) -> Option<usize> {
        match self.analysis.derived[index].pairing {
            Pairing::AnsweredBy(seq) => self.index_of(seq),
            _ => None,
        }
    }

    /// Every JSON-RPC request with `method` on stdio, host -> server or server -> host.
    fn requests(&self, method: &str, from_server: bool) -> Vec<(usize, Value)> {
        self.events()
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                if from_server {
                    server_to_host(e)
                } else {
                    host_to_server(e)
                }
            })
            .filter_map(|(i, e)| Some((i, stdio_json(e)?)))
            .filter(|(_, m)| m.get("id").is_some() && m["method"] == method)
            .collect()
    }

    /// Every notification with `method` on stdio from a server to the host.
    fn server_notifications(&self, method: &str) -> Vec<(usize, Value)> {
        self.events()
            .iter()
            .enumerate()
            .filter(|(_, e)| server_to_host(e))
            .filter_map(|(i, e)| Some((i, stdio_json(e)?)))
            .filter(|(_, m)| m.get("id").is_none() && m["method"] == method)
            .collect()
    }

    /// Every result a server sent to a host request with `method` (by the analysis' pairing).
    fn results_of(&self, method: &str) -> Vec<(usize, Value)> {
        self.events()
            .iter()
            .enumerate()
            .filter(|(i, e)| {
                server_to_host(e)
                    && self.analysis.derived[*i].kind == Kind::Response
                    && self.analysis.derived[*i].method.as_deref() == Some(method)
            })
            .filter_map(|(i, e)| Some((i, stdio_json(e)?)))
            .collect()
    }

    /// Every LLM request body (host -> llm), in order.
    fn llm_requests(&self) -> Vec<(usize, Value)> {
        self.events()
            .iter()
            .enumerate()
            .filter(|(_, e)| is_llm_request(e))
            .map(|(i, e)| (i, llm_body(e)))
            .collect()
    }

    /// Every LLM response body (llm -> host), in order; streamed ones reassembled.
    fn llm_responses(&self) -> Vec<(usize, Value)> {
        self.events()
            .iter()
            .enumerate()
            .filter(|(_, e)| is_llm_response(e))
            .map(|(i, e)| (i, llm_body(e)))
            .collect()
    }

    /// Every note from `from` to `to`, with its text.
    fn notes(&self, from: &Lane, to: &Lane) -> Vec<(usize, String)> {
        self.events()
            .iter()
            .enumerate()
            .filter(|(_, e)| e.channel == Channel::Note && &e.from == from && &e.to == to)
            .map(|(i, e)| (i, e.text().into_owned()))
            .collect()
    }

    /// What went wrong for a run that should have succeeded: status and stderr.
    fn describe(&self) -> String {
        format!(
            "status {}, trace {}, stderr:\n{}",
            self.output.status,
            self.trace_path.display(),
            self.stderr
        )
    }
}

fn host_to_server(e: &Event) -> bool {
    e.channel == Channel::Stdio && e.from == Lane::Host && e.to.is_server()
}

fn server_to_host(e: &Event) -> bool {
    e.channel == Channel::Stdio && e.from.is_server() && e.to == Lane::Host
}

fn is_llm_request(e: &Event) -> bool {
    e.channel == Channel::LlmHttp && e.from == Lane::Host && e.to == Lane::Llm
}

fn is_llm_response(e: &Event) -> bool {
    e.channel == Channel::LlmHttp && e.from == Lane::Llm && e.to == Lane::Host
}

/// The JSON-RPC message of a stdio event.
fn stdio_json(e: &Event) -> Option<Value> {
    serde_json::from_str(e.raw.as_deref()?).ok()
}

/// The first index after `after` whose event satisfies `pred`.
fn next_after(run: &Run, after: usize, pred: impl Fn(&Event) -> bool) -> Option<usize> {
    run.events()
        .iter()
        .enumerate()
        .skip(after + 1)
        .find(|(_, e)| pred(e))
        .map(|(i, _)| i)
}

/// No event between the model and a server, either way.
fn assert_no_model_server_traffic(run: &Run, what: &str) {
    let direct: Vec<String> = run
        .events()
        .iter()
        .filter(|e| {
            (e.from == Lane::Llm && e.to.is_server()) || (e.from.is_server() && e.to == Lane::Llm)
        })
        .map(|e| format!("#{} {} -> {} ({})", e.seq, e.from, e.to, e.channel.as_str()))
        .collect();
    assert!(
        direct.is_empty(),
        "{what}: the model and a server talked directly: {direct:?}"
    );
}
