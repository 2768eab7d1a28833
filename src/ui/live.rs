//! A scenario running while the app watches: the host loop on a background thread.
//!
//! The run gets its own thread and tokio runtime so the UI thread never blocks on the network
//! or on a server. It records through one [`Recorder`] into two sinks: a [`TraceWriter`] (the
//! run is saved like any `sightline run`) and a [`MemorySink`] the app polls once per frame with
//! [`LiveRun::poll`], copying only the events it has not seen yet.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use crate::analysis::trace_error;
use crate::host::agent::{self, RunOptions};
use crate::host::scenario::Scenario;
use crate::i18n::{Said, Words};
use crate::tap::{MemorySink, Recorder};
use crate::trace::{Event, Header, TraceWriter};

/// Where a live run is in its life.
#[derive(Debug, Clone, PartialEq)]
pub enum RunStatus {
    Running,
    /// Finished: the model's final answer.
    Done(String),
    /// Ended with an error (the trace still holds everything up to it), said in the app's
    /// language when shown.
    Failed(Said),
}

#[derive(Debug)]
struct Shared {
    status: RunStatus,
    /// The host's progress lines, as `sightline run` prints them.
    progress: Vec<String>,
}

/// A scenario being run on a background thread.
pub struct LiveRun {
    /// The scenario's title.
    pub title: String,
    /// The trace file the run writes.
    pub trace_path: PathBuf,
    sink: MemorySink,
    seen: usize,
    shared: Arc<Mutex<Shared>>,
    thread: Option<JoinHandle<()>>,
}

impl LiveRun {
    /// Starts `scenario` with `options`, writing the trace to `trace_path`. `wake` is called
    /// whenever the run makes progress (the app passes a repaint request). An error is said in
    /// the app's language when shown.
    pub fn start(
        scenario: Scenario,
        scenario_name: &str,
        options: RunOptions,
        trace_path: PathBuf,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> Result<LiveRun, Said> {
        let mut header = Header::new(scenario.title.clone());
        header
            .extra
            .insert("scenario".into(), serde_json::json!(scenario_name));
        let writer =
            TraceWriter::create(&trace_path, &header).map_err(|e| trace_error::said(&e))?;
        let sink = MemorySink::default();
        let recorder = Recorder::start(vec![Box::new(writer), Box::new(sink.clone())]);
        let shared = Arc::new(Mutex::new(Shared {
            status: RunStatus::Running,
            progress: Vec::new(),
        }));
        let title = scenario.title.clone();
        let thread = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("sightline-live-run".into())
                .spawn(move || {
                    let status = run_blocking(&scenario, &options, recorder, &shared, &*wake);
                    lock(&shared).status = status;
                    wake();
                })
                .map_err(|e| Said::new("app.run_thread").with_said("why", Said::io(&e)))?
        };
        Ok(LiveRun {
            title,
            trace_path,
            sink,
            seen: 0,
            shared,
            thread: Some(thread),
        })
    }

    /// The events recorded since the last poll.
    pub fn poll(&mut self) -> Vec<Event> {
        let new = self.sink.events_since(self.seen);
        self.seen += new.len();
        new
    }

    pub fn status(&self) -> RunStatus {
        lock(&self.shared).status.clone()
    }

    pub fn is_running(&self) -> bool {
        self.status() == RunStatus::Running
    }

    /// The last progress line of the host, for the status bar.
    pub fn last_progress(&self) -> Option<String> {
        lock(&self.shared).progress.last().cloned()
    }

    /// Waits for the run to end (tests; the app never blocks on it).
    pub fn wait(&mut self) -> RunStatus {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        self.status()
    }
}

fn lock(shared: &Mutex<Shared>) -> std::sync::MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

fn run_blocking(
    scenario: &Scenario,
    options: &RunOptions,
    recorder: Arc<Recorder>,
    shared: &Mutex<Shared>,
    wake: &(dyn Fn() + Send + Sync),
) -> RunStatus {
    let runtime = match crate::tap::runtime::pool(None) {
        Ok(rt) => rt,
        Err(e) => {
            let said = Said::new("app.run_runtime").with_said("why", Said::io(&e));
            return RunStatus::Failed(said);
        }
    };
    let mut progress = |line: &str| {
        lock(shared).progress.push(line.to_string());
        wake();
    };
    let outcome = runtime.block_on(agent::run(
        scenario,
        options,
        recorder.clone(),
        &mut progress,
    ));
    let report = recorder.finish();
    drop(runtime);
    match outcome {
        Ok(done) if report.errors.is_empty() => RunStatus::Done(done.answer),
        Ok(_) => RunStatus::Failed(Said::each(|lang| {
            let said: Vec<String> = report
                .errors
                .iter()
                .map(|e| trace_error::said(e).say(Words::of(lang)))
                .collect();
            said.join("; ")
        })),
        Err(e) => RunStatus::Failed(crate::host::said::run(&e)),
    }
}

pub use crate::tap::paths::data_dir;

/// A fresh trace path for a live run of `name`, under the data dir's `traces/`.
pub fn trace_path_for(name: &str) -> PathBuf {
    crate::tap::paths::default_trace_path(name)
}

/// Whether `path` looks like a trace file (for drag and drop).
pub fn is_trace_file(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl") || e.eq_ignore_ascii_case("json"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Language;

    /// A live run whose server does not start fails with a notice the app says in its
    /// language: the English is the run error's own, the Portuguese and Spanish are not.
    #[test]
    fn a_failed_live_run_is_said_in_the_apps_language() {
        let dir = tempfile::tempdir().expect("temp dir");
        let text = "title = \"t\"\nprompt = \"p\"\n\n[[servers]]\nname = \"gone\"\ncommand = \"/nonexistent/mcp-server\"\n";
        let path = dir.path().join("gone.toml");
        let scenario = Scenario::parse(text, &path).expect("a valid scenario");
        let trace = dir.path().join("gone.jsonl");
        let mut run = LiveRun::start(
            scenario,
            "gone",
            RunOptions::default(),
            trace,
            Arc::new(|| {}),
        )
        .unwrap_or_else(|e| panic!("{}", e.english()));
        let RunStatus::Failed(said) = run.wait() else {
            panic!("the run did not fail");
        };
        let en = said.english();
        assert!(
            en.starts_with("cannot start server `/nonexistent/mcp-server`: "),
            "{en}"
        );
        for (lang, start) in [
            (
                Language::Pt,
                "não foi possível iniciar o servidor `/nonexistent/mcp-server`: ",
            ),
            (
                Language::Es,
                "no se pudo iniciar el servidor `/nonexistent/mcp-server`: ",
            ),
        ] {
            let text = said.say(Words::of(lang));
            assert!(text.starts_with(start), "{lang:?}: {text}");
            assert!(!text.contains("No such file"), "{lang:?}: {text}");
        }
    }
}
