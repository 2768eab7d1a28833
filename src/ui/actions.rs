//! Applying the desktop's commands: opening files, following them, importing other tools'
//! recordings, running scenarios, exporting, quitting.
//!
//! File dialogs run on their own thread (`rfd` blocks while the dialog is open) and hand the
//! chosen path back through a channel the app polls each frame. Without a desktop portal
//! (no `DBUS_SESSION_BUS_ADDRESS`) there is no dialog: opening says to drop a file on the
//! window instead, and exports are written next to the trace.
//!
//! File > Import reads a file with [`crate::trace::import::import_file`], as `sightline import`
//! does, writes the trace to the data dir's `traces/` and opens it; what it skipped is listed
//! in the status bar's notice.

use std::path::{Path, PathBuf};

use super::app::SightlineApp;
use super::command::ExportFormat;
use super::desktop::Command;
use super::live::{self, LiveRun, RunStatus};
use super::status::Notice;
use super::store::{Source, TraceStore};
use crate::analysis::tokens::{Carried, Tiktoken};
use crate::host::scenario::Shipped;
use crate::i18n::Words;
use crate::trace::import::Format as ImportFormat;

/// What the desktop's actions say: texts in the app's language, and the status bar's notice.
/// (Here, beside their callers, because the browser's viewer runs no action.)
impl SightlineApp {
    /// The app's texts in its current language.
    pub(super) fn tr(&self) -> Words<'_> {
        Words {
            strings: &self.strings,
            lang: self.lang,
        }
    }

    /// Says `text` in the status bar (as an error when `is_error`) until the next notice.
    pub(super) fn set_notice(&mut self, text: String, is_error: bool) {
        self.notice = Some(Notice { text, is_error });
    }
}

/// Shows `store` instead of what was shown, from the top.
fn reset_view(app: &mut SightlineApp, store: TraceStore) {
    app.store = store;
    app.selected = None;
    app.replay.cursor = 0;
    app.replay.playing = false;
    app.notice = None;
}

/// Whether a native file dialog can be shown (the XDG desktop portal needs a session bus).
fn has_file_dialog() -> bool {
    std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|v| !v.is_empty())
}

pub(super) fn apply(app: &mut SightlineApp, command: Command) {
    match command {
        Command::Open(path) => open(app, &path),
        Command::Follow(path) => follow(app, &path),
        Command::OpenDialog => pick_file(app, Picking::Open),
        Command::ImportDialog(format) => pick_file(app, Picking::Import(format)),
        Command::Import {
            format,
            file,
            trace,
        } => import(app, format, &file, trace),
        Command::Run { scenario, options } => run(app, &scenario, *options),
        Command::CompareScenario(name) => super::compare_run::start(app, &name),
        Command::CompareWithDialog => pick_file(app, Picking::CompareWith),
        Command::CompareWith(path) => super::compare_with::compare_with(app, &path),
        Command::ReplayAgainstWindow => app.platform.replay_against.open = true,
        Command::ReplayAgainst(target) => super::compare_with::start_replay(app, &target),
        Command::Export(format) => export(app, format),
        Command::ExportOtlpFile => export_otlp_file(app),
        Command::ExportOtlpEndpoint => app.platform.otlp.open = true,
        Command::Quit => app.platform.quit = true,
    }
}

fn open(app: &mut SightlineApp, path: &Path) {
    match TraceStore::open(path) {
        Ok(store) => {
            // A live run keeps recording to its file; the app just stops showing it.
            app.platform.live = None;
            app.platform.following = None;
            // Load warnings stay in the status bar as long as the trace is shown.
            reset_view(app, store);
            app.platform.recent.push(path);
        }
        Err(e) => {
            load_failed(app, path, &e);
            if !path.exists() {
                app.platform.recent.remove(path);
            }
        }
    }
}

fn follow(app: &mut SightlineApp, path: &Path) {
    match super::follow::Following::start(path) {
        Ok((mut following, events)) => {
            app.platform.live = None;
            let mut store = TraceStore::new(
                following.title(),
                Source::Follow(path.to_path_buf()),
                events,
            );
            store.warnings = following.new_warnings();
            reset_view(app, store);
            app.platform.following = Some(following);
        }
        Err(e) => load_failed(app, path, &e),
    }
}

fn load_failed(app: &mut SightlineApp, path: &Path, error: &crate::trace::TraceError) {
    let error = crate::analysis::trace_error::said(error).say(app.tr());
    let text = app.tr().fmt(
        "app.load_failed",
        &[("path", &path.display().to_string()), ("error", &error)],
    );
    app.set_notice(text, true);
}

/// What a file dialog is picking a file for.
#[derive(Debug, Clone, Copy)]
pub(super) enum Picking {
    Open,
    /// A trace to compare the current one with.
    CompareWith,
    Import(ImportFormat),
}

/// Shows the native file dialog on its own thread; [`poll_dialog`] acts on its answer.
fn pick_file(app: &mut SightlineApp, picking: Picking) {
    if !has_file_dialog() {
        let key = match picking {
            Picking::Open => "app.no_file_dialog",
            Picking::CompareWith => "compare_with.no_dialog",
            Picking::Import(_) => "app.no_import_dialog",
        };
        let text = app.tr().get(key).to_string();
        app.set_notice(text, false);
        return;
    }
    let (what, extensions): (&str, &[&str]) = match picking {
        Picking::Open | Picking::CompareWith => ("Sightline trace", &["jsonl", "json"]),
        Picking::Import(ImportFormat::ClaudeDesktop) => ("Claude Desktop MCP log", &["log"]),
        Picking::Import(ImportFormat::Inspector) => ("MCP Inspector export", &["json"]),
        Picking::Import(ImportFormat::Har) => ("HAR", &["har", "json"]),
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let wake = app.platform.wake.clone();
    let spawned = std::thread::Builder::new()
        .name("sightline-file-dialog".into())
        .spawn(move || {
            let picked = rfd::FileDialog::new()
                .add_filter(what, extensions)
                .pick_file();
            let _ = tx.send(picked);
            wake();
        });
    if spawned.is_ok() {
        app.platform.dialog = Some((picking, rx));
    }
}

/// Opens or imports the file the dialog returned, once it has.
pub(super) fn poll_dialog(app: &mut SightlineApp) {
    let Some((picking, rx)) = &app.platform.dialog else {
        return;
    };
    let picking = *picking;
    match rx.try_recv() {
        Ok(picked) => {
            app.platform.dialog = None;
            match (picked, picking) {
                (Some(path), Picking::Open) => open(app, &path),
                (Some(path), Picking::CompareWith) => {
                    super::compare_with::compare_with(app, &path);
                }
                (Some(path), Picking::Import(format)) => import(app, format, &path, None),
                (None, _) => {}
            }
        }
        Err(std::sync::mpsc::TryRecvError::Empty) => {}
        Err(std::sync::mpsc::TryRecvError::Disconnected) => app.platform.dialog = None,
    }
}

/// Imports `file` into a trace (`trace`, else a new one in the data dir) and opens it.
fn import(app: &mut SightlineApp, format: ImportFormat, file: &Path, trace: Option<PathBuf>) {
    let out = trace.unwrap_or_else(|| live::trace_path_for(&format!("import-{}", format.as_str())));
    let written = crate::trace::import::import_file(
        format,
        file,
        None,
        crate::host::provider::import_hooks(),
    )
    .map_err(|e| e.to_string())
    .and_then(|f| {
        crate::trace::write_trace(&out, &f.header, &f.imported.events)
            .map(|()| f.imported)
            .map_err(|e| crate::analysis::trace_error::said(&e).say(app.tr()))
    });
    let imported = match written {
        Ok(imported) => imported,
        Err(error) => {
            let text = app.tr().fmt(
                "app.import_failed",
                &[("path", &file.display().to_string()), ("error", &error)],
            );
            return app.set_notice(text, true);
        }
    };
    open(app, &out);
    if app.store.source.path() != Some(out.as_path()) {
        return; // opening failed and said why
    }
    let tr = app.tr();
    let mut text = tr.fmt(
        "app.imported",
        &[
            ("count", &imported.events.len().to_string()),
            ("path", &file.display().to_string()),
            ("trace", &out.display().to_string()),
        ],
    );
    if !imported.warnings.is_empty() {
        let mut list: Vec<String> = imported
            .warnings
            .iter()
            .take(3)
            .map(ToString::to_string)
            .collect();
        if imported.warnings.len() > 3 {
            list.push("…".into());
        }
        text.push(' ');
        text.push_str(&tr.fmt(
            "app.import_skipped",
            &[
                ("count", &imported.warnings.len().to_string()),
                ("list", &list.join("; ")),
            ],
        ));
    }
    if imported.synthetic_times {
        text.push(' ');
        text.push_str(tr.get("app.import_synthetic_times"));
    }
    app.set_notice(text, false);
}

/// Opens a trace dropped on the window.
pub(super) fn take_dropped_files(app: &mut SightlineApp, ctx: &egui::Context) {
    let dropped: Vec<PathBuf> = ctx.input(|i| {
        i.raw
            .dropped_files
            .iter()
            .map(|f| f.path().to_path_buf())
            .filter(|p| !p.as_os_str().is_empty())
            .collect()
    });
    if let Some(path) = dropped.into_iter().find(|p| live::is_trace_file(p)) {
        open(app, &path);
    }
}

fn run(app: &mut SightlineApp, name: &str, options: crate::host::agent::RunOptions) {
    let scenario = match Shipped::find(name).map(|s| s.load()) {
        Some(Ok(s)) => s,
        Some(Err(e)) => {
            let error = e.said().say(app.tr());
            let text = app.tr().fmt("app.run_failed", &[("error", &error)]);
            return app.set_notice(text, true);
        }
        None => return,
    };
    let path = live::trace_path_for(name);
    let title = scenario.title.clone();
    // The person at the app answers the servers' elicitation questions (a dialog).
    let (user, questions) =
        crate::host::user::UserLane::channel(crate::host::user::DEFAULT_ANSWER_TIMEOUT);
    let options = crate::host::agent::RunOptions {
        user: Some(user),
        ..options
    };
    match LiveRun::start(
        scenario,
        name,
        options,
        path.clone(),
        app.platform.wake.clone(),
    ) {
        Ok(run) => {
            reset_view(
                app,
                TraceStore::new(
                    title,
                    Source::Live {
                        scenario: name.to_string(),
                        path,
                    },
                    Vec::new(),
                ),
            );
            app.platform.live = Some(run);
            app.platform.elicit.listen(questions);
            app.platform.following = None;
            let text = app.tr().fmt("app.running", &[("scenario", name)]);
            app.set_notice(text, false);
        }
        Err(e) => {
            let error = e.say(app.tr());
            let text = app.tr().fmt("app.run_failed", &[("error", &error)]);
            app.set_notice(text, true);
        }
    }
}

/// Called once when a live run ends.
pub(super) fn run_finished(app: &mut SightlineApp, title: &str, path: &Path, status: RunStatus) {
    app.platform.recent.push(path);
    let text = match status {
        RunStatus::Failed(error) => {
            let error = error.say(app.tr());
            let text = app.tr().fmt("app.run_failed", &[("error", &error)]);
            return app.set_notice(text, true);
        }
        _ => app.tr().fmt(
            "app.run_done",
            &[
                ("scenario", title),
                ("count", &app.store.len().to_string()),
                ("path", &path.display().to_string()),
            ],
        ),
    };
    app.set_notice(text, false);
}

/// Where an export goes when there is no dialog: next to the trace, or in the data dir.
pub fn default_export_path(source: &Source, format: ExportFormat) -> PathBuf {
    beside_trace(source, format.extension())
}

/// The trace's path with `extension`, or `trace.EXTENSION` in the data dir's `exports/` when
/// the trace has no file.
fn beside_trace(source: &Source, extension: &str) -> PathBuf {
    match source.path() {
        Some(p) => p.with_extension(extension),
        None => live::data_dir()
            .join("exports")
            .join(format!("trace.{extension}")),
    }
}

/// Where to save: what the user picks in a save dialog that starts at `default` (`None` when
/// they cancel), or `default` itself where there is no dialog. A save dialog is modal anyway;
/// the trace is not changing under it.
fn save_path(default: PathBuf) -> Option<PathBuf> {
    if !has_file_dialog() {
        return Some(default);
    }
    let mut dialog = rfd::FileDialog::new().set_file_name(
        default
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
    );
    if let Some(dir) = default.parent() {
        dialog = dialog.set_directory(dir);
    }
    dialog.save_file()
}

fn export(app: &mut SightlineApp, format: ExportFormat) {
    let s = &app.store;
    let text = match format {
        ExportFormat::Mermaid => crate::export::mermaid::render(&s.diagram, &s.events, &s.report),
        ExportFormat::Svg => crate::export::svg::render(&s.diagram, &s.events, &s.report),
        ExportFormat::Html => match html_page(s, app.lang) {
            Ok(page) => page,
            Err(e) => {
                let text = app
                    .tr()
                    .fmt("app.export_failed", &[("error", &e.to_string())]);
                return app.set_notice(text, true);
            }
        },
    };
    let Some(path) = save_path(default_export_path(&app.store.source, format)) else {
        return;
    };
    let written = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(&path, text));
    let (text, failed) = match written {
        Ok(()) => (
            app.tr()
                .fmt("app.exported", &[("path", &path.display().to_string())]),
            false,
        ),
        Err(e) => (
            app.tr().fmt(
                "app.export_failed",
                &[("error", &crate::i18n::Said::io(&e).say(app.tr()))],
            ),
            true,
        ),
    };
    app.set_notice(text, failed);
}

/// File > Export > OpenTelemetry (file): where to (a dialog, or next to the trace), then the
/// mapping and the writing on their own thread.
fn export_otlp_file(app: &mut SightlineApp) {
    let Some(path) = save_path(beside_trace(&app.store.source, "otlp.json")) else {
        return;
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        let text = app.tr().fmt(
            "app.export_failed",
            &[("error", &format!("{}: {e}", dir.display()))],
        );
        return app.set_notice(text, true);
    }
    let wake = app.platform.wake.clone();
    let target = super::otlp_export::Target::File(path);
    app.platform.otlp.start(&app.store, target, wake);
}

/// The viewer and the shown trace in one page: a saved trace's file as it is, otherwise the
/// events shown (a live run, a followed session), in the app's language.
fn html_page(store: &TraceStore, lang: crate::i18n::Language) -> Result<String, String> {
    let bundle = crate::export::html::bundle().map_err(|e| e.to_string())?;
    let bytes = match &store.source {
        Source::File(path) => {
            std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?
        }
        _ => crate::trace::trace_bytes(
            &crate::trace::Header::new(store.title.clone()),
            &store.events,
        ),
    };
    let tokens = Carried::of(&store.events, &Tiktoken);
    Ok(crate::export::html::render(
        bundle,
        &crate::export::html::Page {
            title: &store.title,
            lang: Some(lang.code()),
            trace: Some(&bytes),
            live: None,
            tokens: Some(&tokens),
        },
    ))
}
