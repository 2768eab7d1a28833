//! Applying the viewer's commands: selection, language, teaching mode, settings. They work the same on
//! the desktop and in the browser; the rest goes to [`super::platform::apply`].

use super::app::SightlineApp;
use super::command::Command;

pub(super) fn apply(app: &mut SightlineApp, command: Command) {
    match command {
        Command::Select(i) => select(app, i),
        Command::ShowEvents { filter, select: i } => {
            app.list.filter = super::store::search::Filter::of_text(filter);
            select(app, i);
        }
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
        Command::SetPresenting(on) => {
            if on && !app.present.active {
                app.present.was_teaching = app.replay.active;
            }
            app.present.active = on;
            if on && !app.replay.active {
                apply(app, Command::SetTeaching(true));
            }
        }
        Command::OpenSettings => app.settings_window.open = true,
        Command::SetUiScale(scale) => app.settings_window.set_scale(scale),
        Command::CloseCompare => app.compare = None,
        Command::Platform(command) => super::platform::apply(app, command),
    }
}

fn select(app: &mut SightlineApp, i: usize) {
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
