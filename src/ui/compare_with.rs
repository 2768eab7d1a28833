//! File > Compare with... and File > Replay against...: `sightline diff` and `sightline
//! replay` in the app, shown in the compare view ([`super::compare`]).
//!
//! Compare with... opens the current trace and another side by side, matched calls aligned
//! by the compare view, and adds what `diff` finds as the view's notes (each selects its
//! events on both sides); a changed definition (a tool, prompt, resource or template, or what
//! the model was sent) is also drawn with the rug-pull diff view, both definitions in two
//! columns. Replay against... takes a server command or a Streamable HTTP URL, replays the
//! current trace's client session against it on its own thread (the UI stays live) into a new
//! trace in the data dir, then compares the recording with the replay the same way.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::Duration;

use super::app::SightlineApp;
use super::compare::{CompareView, Note};
use super::store::TraceStore;
use crate::analysis::diff::{self, ChangeKind, DiffOptions, Inventory};
use crate::analysis::findings::{RugPull, side_by_side};
use crate::export::diff as export_diff;
use crate::host::replay::{Target, plan, replay_to_file};
use crate::i18n::{Language, Said, Words};

/// How long each replayed request waits for its answer.
const REPLAY_TIMEOUT: Duration = Duration::from_secs(10);

/// The differences `diff` finds between `a` and `b`, as compare-view notes (events as indices
/// of each side) and side-by-side views of the changed definitions.
pub fn diff_notes(a: &TraceStore, b: &TraceStore) -> Result<(Vec<Note>, Vec<RugPull>), Said> {
    let (ia, ib) = (
        diff::inventory(&a.events, &a.report),
        diff::inventory(&b.events, &b.report),
    );
    let found = diff::diff(&ia, &ib, &DiffOptions::default()).map_err(|e| e.said())?;
    // A change names its events by `seq` alone (the last listing's, the last handshake's...):
    // the last event with it on its side.
    let index = |store: &TraceStore, seq: Option<u64>| -> Vec<usize> {
        seq.and_then(|s| store.index_of_seq(s))
            .into_iter()
            .collect()
    };
    let mut notes = Vec::new();
    let mut definitions = Vec::new();
    for c in &found.changes {
        let server = c.server.as_deref().unwrap_or("model");
        notes.push(Note {
            text: Said::each(|lang| note_text(c, Words::of(lang))),
            events: [index(a, c.a_seq), index(b, c.b_seq)],
        });
        if matches!(c.kind, ChangeKind::Changed | ChangeKind::Renamed)
            && let (Some(before), Some(after)) =
                (definition(&ia, c, true), definition(&ib, c, false))
        {
            let pretty =
                |v: &serde_json::Value| serde_json::to_string_pretty(v).unwrap_or_default();
            definitions.push(RugPull {
                server: server.to_string(),
                tool: c.name.clone(),
                before_seq: c.a_seq.unwrap_or_default(),
                after_seq: c.b_seq.unwrap_or_default(),
                headlines: Language::ALL.map(|lang| headline(c, Words::of(lang))),
                rows: side_by_side(&pretty(&before), &pretty(&after)),
            });
        }
    }
    Ok((notes, definitions))
}

/// What a change is about, in the language of `w`: `weather: tool get_weather changed`
/// (`model` for what the model was sent).
pub fn headline(c: &diff::Change, w: Words) -> String {
    let server = match c.server.as_deref() {
        Some(server) => server,
        None => w.get("compare_with_note.model"),
    };
    let kind = w.get(&export_diff::kind_key("kind", c.kind)).to_string();
    format!(
        "{server}: {} {} {kind}",
        export_diff::subject(w, c.subject),
        c.name
    )
}

/// A change as a compare-view note in the language of `w`: its [`headline`], then its first
/// field's values (and how many more fields changed), else its detail.
pub fn note_text(c: &diff::Change, w: Words) -> String {
    let mut text = headline(c, w);
    if let Some(first) = c.fields.first() {
        let pointer = if first.pointer.is_empty() {
            "/"
        } else {
            &first.pointer
        };
        text.push_str(&format!(": {pointer}: {}", first.values_line(w)));
        if c.fields.len() > 1 {
            let more = (c.fields.len() - 1).to_string();
            text.push_str(&w.fmt("compare_with_note.more", &[("count", &more)]));
        }
    } else if !c.detail.is_empty() {
        text.push_str(&format!(": {}", c.said.say(w)));
    }
    text
}

/// The definition a change is about, on side A (`a`) or B.
fn definition(inv: &Inventory, c: &diff::Change, a: bool) -> Option<serde_json::Value> {
    let seq = if a { c.a_seq } else { c.b_seq }?;
    if c.subject == "model tool" {
        let (_, tools) = inv.model_tools.as_ref()?;
        return tools
            .iter()
            .find(|(n, _)| *n == c.name)
            .map(|(_, v)| v.clone());
    }
    let server = inv.server(c.server.as_deref()?)?;
    let entries = server.lists.get(c.subject)?;
    // A rename's B side is under the new name: the one entry of that listing not in A.
    entries
        .iter()
        .find(|e| e.seq == seq && e.key == c.name)
        .or_else(|| {
            entries
                .iter()
                .find(|e| e.seq == seq && c.detail.contains(&e.key))
        })
        .map(|e| e.definition.clone())
}

/// The compare view of two stores, with `diff`'s findings.
pub fn compare_view(a: TraceStore, b: TraceStore) -> Result<CompareView, Said> {
    let (notes, definitions) = diff_notes(&a, &b)?;
    let mut view = CompareView::new(a, b);
    view.notes = notes;
    view.definitions = definitions;
    Ok(view)
}

/// Opens the comparison of the current trace with `other`.
pub(super) fn compare_with(app: &mut SightlineApp, other: &Path) {
    let Some(current) = app.store.source.path().map(Path::to_path_buf) else {
        let text = app.tr().get("compare_with.no_path").to_string();
        return app.set_notice(text, true);
    };
    open_comparison(app, &current, other);
}

fn open_comparison(app: &mut SightlineApp, a: &Path, b: &Path) {
    let open = |p: &Path| {
        TraceStore::open(p).map_err(|e| {
            Said::new("cli_error.in_file")
                .with("path", p.display())
                .with_said("problem", crate::analysis::trace_error::said(&e))
        })
    };
    match open(a)
        .and_then(|a| Ok((a, open(b)?)))
        .and_then(|(a, b)| compare_view(a, b))
    {
        Ok(view) => {
            app.compare = Some(view);
            app.notice = None;
        }
        Err(e) => {
            let error = e.say(app.tr());
            let text = app.tr().fmt("compare_with.failed", &[("error", &error)]);
            app.set_notice(text, true);
        }
    }
}

/// File > Replay against...: the window's field, and the replay under way.
#[derive(Default)]
pub struct ReplayAgainst {
    pub open: bool,
    pub target: String,
    running: Option<Running>,
}

struct Running {
    recorded: PathBuf,
    replay: PathBuf,
    target: String,
    done: Receiver<Result<(), Said>>,
}

impl ReplayAgainst {
    /// Whether a replay is under way.
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// The window: the target field and the button; returns the target to replay against.
    pub fn window_ui(&mut self, ctx: &egui::Context, tr: Words<'_>) -> Option<String> {
        let mut start = None;
        let mut open = self.open;
        egui::Window::new(tr.get("compare_with.replay_title"))
            .open(&mut open)
            .collapsible(false)
            .show(ctx, |ui| {
                ui.label(tr.get("compare_with.replay_hint"));
                let field = ui.add(
                    egui::TextEdit::singleline(&mut self.target)
                        .hint_text("node build/server.js")
                        .desired_width(420.0),
                );
                field.widget_info(|| {
                    egui::WidgetInfo::labeled(egui::Role::TextInput, true, "replay target")
                });
                let ready = !self.target.trim().is_empty() && self.running.is_none();
                ui.horizontal(|ui| {
                    if ui
                        .add_enabled(ready, egui::Button::new(tr.get("compare_with.replay_run")))
                        .clicked()
                    {
                        start = Some(self.target.trim().to_string());
                    }
                    if self.running.is_some() {
                        ui.spinner();
                    }
                });
            });
        self.open = open && start.is_none();
        start
    }
}

/// Starts replaying the current trace against `target` on its own thread.
pub(super) fn start_replay(app: &mut SightlineApp, target: &str) {
    let Some(recorded) = app.store.source.path().map(Path::to_path_buf) else {
        let text = app.tr().get("compare_with.no_path").to_string();
        return app.set_notice(text, true);
    };
    let planned = plan(&app.store.events, &app.store.report.rpc, None);
    let plan = match planned {
        Ok(p) => p,
        Err(e) => {
            let error = crate::host::said::plan(&e).say(app.tr());
            let text = app
                .tr()
                .fmt("compare_with.replay_failed", &[("error", &error)]);
            return app.set_notice(text, true);
        }
    };
    let name = plan
        .lane
        .as_ref()
        .and_then(|l| l.server_name())
        .unwrap_or("server")
        .to_string();
    let Some(parsed) = Target::parse(target, &name) else {
        return;
    };
    let replay = super::live::trace_path_for(&format!("replay-{name}"));
    let (tx, done) = mpsc::channel();
    let wake = app.platform.wake.clone();
    let out = replay.clone();
    let title = format!("sightline replay {}", recorded.display());
    let spawned = std::thread::Builder::new()
        .name("sightline-replay".into())
        .spawn(move || {
            let header = crate::trace::Header::new(title);
            let result = match replay_to_file(&plan, &parsed, &out, &header, REPLAY_TIMEOUT) {
                Err(e) => Err(crate::analysis::trace_error::said(&e)),
                Ok(r) => match r.replayed {
                    Err(e) => Err(crate::host::said::replay(&e)),
                    Ok(done) => match done.failure {
                        Some(failure) => Err(failure),
                        None => Ok(()),
                    },
                },
            };
            let _ = tx.send(result);
            wake();
        });
    if let Err(e) = spawned {
        let text = app
            .tr()
            .fmt("compare_with.replay_failed", &[("error", &e.to_string())]);
        return app.set_notice(text, true);
    }
    let text = app
        .tr()
        .fmt("compare_with.replay_running", &[("target", target)]);
    app.set_notice(text, false);
    app.platform.replay_against.running = Some(Running {
        recorded,
        replay,
        target: target.to_string(),
        done,
    });
}

/// Opens the recording and its replay side by side once the replay has ended.
pub(super) fn poll(app: &mut SightlineApp, ctx: &egui::Context) {
    let Some(running) = app.platform.replay_against.running.as_ref() else {
        return;
    };
    let result = match running.done.try_recv() {
        Ok(result) => result,
        Err(TryRecvError::Empty) => {
            ctx.request_repaint_after(Duration::from_millis(100));
            return;
        }
        Err(TryRecvError::Disconnected) => Err(Said::new("app.replay_thread_stopped")),
    };
    let Some(running) = app.platform.replay_against.running.take() else {
        return;
    };
    match result {
        Ok(_) => open_comparison(app, &running.recorded, &running.replay),
        Err(e) => {
            let error = app.tr().fmt(
                "compare_with.replay_failed_at",
                &[
                    ("error", &e.say(app.tr())),
                    ("target", &running.target),
                    ("path", &running.replay.display().to_string()),
                ],
            );
            let text = app
                .tr()
                .fmt("compare_with.replay_failed", &[("error", &error)]);
            app.set_notice(text, true);
        }
    }
}

impl SightlineApp {
    /// Compares the app's trace with `other` (File > Compare with..., without the dialog).
    pub fn compare_with(&mut self, other: &Path) {
        compare_with(self, other);
    }

    /// Replays the app's trace against `target` (File > Replay against..., without the
    /// window); [`Self::replay_finished`] says when it has ended.
    pub fn replay_against(&mut self, target: &str) {
        start_replay(self, target);
    }

    /// Whether a replay started from the app is over (its comparison opened, or its error
    /// in the notice); takes in its end when it is.
    pub fn replay_finished(&mut self, ctx: &egui::Context) -> bool {
        poll(self, ctx);
        !self.platform.replay_against.is_running()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Channel, Event, Lane};
    use crate::ui::store::Source;

    /// A session with server `s` (its `seq`s from 0): a handshake if `handshake`, then a
    /// listing of one tool `w` described as `description`.
    fn session(handshake: bool, description: &str) -> Vec<Event> {
        let mut lines = Vec::new();
        if handshake {
            lines.push(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#.into());
            lines.push(
                r#"{"jsonrpc":"2.0","id":0,"result":{"serverInfo":{"name":"s"}}}"#.to_string(),
            );
        }
        lines.push(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.to_string());
        lines.push(format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"tools":[{{"name":"w","description":"{description}","inputSchema":{{"type":"object"}}}}]}}}}"#
        ));
        let server = Lane::server("s");
        let lanes = [(Lane::Host, server.clone()), (server, Lane::Host)];
        lines
            .into_iter()
            .enumerate()
            .map(|(n, line)| {
                let (from, to) = lanes[n % 2].clone();
                let (seq, t) = (n as u64, crate::trace::now());
                Event::with_bytes(seq, t, from, to, Channel::Stdio, line.into_bytes())
            })
            .collect()
    }

    /// Side A holds two sessions appended to one file, each counting its `seq`s from 0: the
    /// changed tool's note selects A's last listing, the last event with its `seq` (a binary
    /// search over A's `seq`s selected the first session's handshake answer).
    #[test]
    fn a_note_selects_the_last_event_with_its_seq_on_a_side_whose_seqs_start_again() {
        let a = [session(true, "old"), session(false, "old")].concat();
        let b = session(true, "new");
        let store = |events| TraceStore::new("t".into(), Source::Memory, events);
        let (notes, _) = diff_notes(&store(a), &store(b)).expect("a diff");
        let events: Vec<&[Vec<usize>; 2]> = notes.iter().map(|n| &n.events).collect();
        assert_eq!(events, [&[vec![5], vec![3]]], "{notes:#?}");
    }
}
