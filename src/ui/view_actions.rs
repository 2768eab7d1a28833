//! Applying the viewer's commands: selection, language, teaching mode. They work the same on
//! the desktop and in the browser; the rest goes to [`super::platform::apply`].

use super::Tr;
use super::app::{Notice, SightlineApp};
use super::command::Command;
use super::store::TraceStore;

pub(super) fn apply(app: &mut SightlineApp, command: Command) {
    match command {
        Command::Select(i) => select(app, i),
        Command::SetLanguage(lang) => app.lang = lang,
        Command::SetTeaching(on) => {
            app.replay.active = on;
            app.replay.playing = false;
            if on {
                app.replay.cursor = app.selected.unwrap_or(0);
                if !app.store.is_empty() {
                    select(app, app.replay.cursor);
                }
            }
        }
        Command::Platform(command) => super::platform::apply(app, command),
    }
}

pub(super) fn tr(app: &SightlineApp) -> Tr<'_> {
    Tr {
        strings: &app.strings,
        lang: app.lang,
    }
}

pub(super) fn notice(app: &mut SightlineApp, text: String, is_error: bool) {
    app.notice = Some(Notice { text, is_error });
}

pub(super) fn select(app: &mut SightlineApp, i: usize) {
    if i >= app.store.len() {
        return;
    }
    app.selected = Some(i);
    app.diagram.reveal(i);
    app.list.reveal(i);
    // Jumping ahead in teaching mode (to a response, along a chain) reveals up to there.
    if app.replay.active && i > app.replay.cursor {
        app.replay.cursor = i;
    }
}

/// Shows `store` instead of what was shown, from the top.
pub(super) fn reset_view(app: &mut SightlineApp, store: TraceStore) {
    app.store = store;
    app.selected = None;
    app.replay.cursor = 0;
    app.replay.playing = false;
    app.notice = None;
}
