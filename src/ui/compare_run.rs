//! View > Compare on the desktop: a shipped scenario run under both revisions, then shown side
//! by side in the compare view ([`super::compare`]).
//!
//! The two runs are ordinary live runs ([`LiveRun`], each on its own thread, each saved as a
//! trace in the data dir like any run from the app); the app polls them every frame and opens
//! the comparison when both have finished. `sightline open A B` opens two saved traces the
//! same way without running anything.

use std::path::Path;

use egui::Ui;

use super::app::SightlineApp;
use super::compare::CompareView;
use super::desktop::Command;
use super::live::{self, LiveRun, RunStatus};
use super::store::TraceStore;
use crate::host::agent::RunOptions;
use crate::host::scenario::Protocol;
use crate::host::scenario::shipped::{SHIPPED, Shipped};
use crate::i18n::Said;
use crate::i18n::Words;

/// The two revisions compared, in the order they are drawn (left, right): the two the host
/// speaks.
pub const COMPARED: [Protocol; 2] = Protocol::SPOKEN;

/// The two runs of a comparison being made.
pub struct CompareRuns {
    /// The shipped scenario's name.
    pub scenario: String,
    pub runs: [LiveRun; 2],
}

/// View > Compare: the shipped scenarios that run under both revisions.
pub fn view_menu_ui(ui: &mut Ui, tr: Words<'_>) -> Option<Command> {
    let mut command = None;
    ui.menu_button(tr.get("compare.menu"), |ui| {
        ui.weak(tr.get("compare.menu_hint"));
        for shipped in SHIPPED {
            let both = shipped
                .load()
                .is_ok_and(|s| COMPARED.iter().all(|r| s.revisions.contains(r)));
            if both && ui.button(shipped.name).clicked() {
                command = Some(Command::CompareScenario(shipped.name.to_string()));
            }
        }
    });
    command
}

/// Starts the two runs of `name`.
pub(super) fn start(app: &mut SightlineApp, name: &str) {
    let started = (|| -> Result<[LiveRun; 2], Said> {
        let shipped =
            Shipped::find(name).ok_or_else(|| Said::new("app.no_scenario").with("name", name))?;
        let run = |protocol: Protocol| -> Result<LiveRun, Said> {
            let scenario = shipped.load().map_err(|e| e.said())?;
            let options = RunOptions {
                protocol: Some(protocol),
                lang: app.lang,
                ..RunOptions::default()
            };
            let path = live::trace_path_for(&format!("{name}-{}", protocol.as_str()));
            LiveRun::start(scenario, name, options, path, app.platform.wake.clone())
        };
        Ok([run(COMPARED[0])?, run(COMPARED[1])?])
    })();
    match started {
        Ok(runs) => {
            app.platform.comparing = Some(CompareRuns {
                scenario: name.to_string(),
                runs,
            });
            let text = app.tr().fmt("compare.running", &[("scenario", name)]);
            app.set_notice(text, false);
        }
        Err(e) => {
            let error = e.say(app.tr());
            let text = app.tr().fmt("compare.failed", &[("error", &error)]);
            app.set_notice(text, true);
        }
    }
}

/// Opens the comparison once both runs have ended.
pub(super) fn poll(app: &mut SightlineApp, ctx: &egui::Context) {
    let Some(comparing) = app.platform.comparing.as_ref() else {
        return;
    };
    if comparing.runs.iter().any(LiveRun::is_running) {
        ctx.request_repaint_after(std::time::Duration::from_millis(50));
        return;
    }
    let Some(mut comparing) = app.platform.comparing.take() else {
        return;
    };
    let failed: Vec<String> = comparing
        .runs
        .iter_mut()
        .filter_map(|r| match r.wait() {
            RunStatus::Failed(e) => Some(e.say(app.tr())),
            _ => None,
        })
        .collect();
    if !failed.is_empty() {
        let text = app
            .tr()
            .fmt("compare.failed", &[("error", &failed.join("; "))]);
        return app.set_notice(text, true);
    }
    let [a, b] = &comparing.runs;
    let open = |p: &Path| {
        TraceStore::open(p).map_err(|e| {
            Said::new("cli_error.in_file")
                .with("path", p.display())
                .with_said("problem", crate::analysis::trace_error::said(&e))
        })
    };
    match open(&a.trace_path).and_then(|a| Ok(CompareView::new(a, open(&b.trace_path)?))) {
        Ok(view) => {
            app.compare = Some(view);
            app.notice = None;
        }
        Err(e) => {
            let error = e.say(app.tr());
            let text = app.tr().fmt("compare.failed", &[("error", &error)]);
            app.set_notice(text, true);
        }
    }
}

/// The compare view of two saved traces.
pub fn open_pair(a: &Path, b: &Path) -> anyhow::Result<CompareView> {
    let open = |p: &Path| TraceStore::open(p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()));
    Ok(CompareView::new(open(a)?, open(b)?))
}

impl SightlineApp {
    /// The app comparing two saved traces side by side (`sightline open A B`); the first is
    /// the app's trace when the comparison is closed.
    pub fn compare_traces(a: &Path, b: &Path) -> anyhow::Result<SightlineApp> {
        let mut app = SightlineApp::from_trace(a)?;
        app.compare = Some(open_pair(a, b)?);
        Ok(app)
    }

    /// Whether the two runs of View > Compare are under way.
    pub fn comparing(&self) -> bool {
        self.platform.comparing.is_some()
    }
}
