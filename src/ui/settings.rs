//! What the user chose, kept from one run of the app to the next, apart from the state of this
//! run (the trace, the selection, a live run or followed files, the replay's cursor, notices).
//!
//! One struct, `#[serde(default)]`: a file written by an older or newer Sightline still loads,
//! missing fields take their defaults and unknown ones are ignored. The desktop saves it with
//! eframe's storage, as egui's demo app does (`eframe::App::save`, restored from
//! `CreationContext::storage`), in `app.ron` in the data dir (`SIGHTLINE_DATA_DIR` moves it);
//! eframe keeps the window's size and place and egui's memory (panel widths) in the same file.
//! The browser keeps nothing: a page shows what its config says.
//!
//! A new setting is a field here with its default, read in [`SightlineApp::settings`] and taken
//! up in [`SightlineApp::with_settings`].

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::app::{SightlineApp, Tab};
use super::command::Command;
use super::diagram::{DiagramView, ZOOM};
use super::list::saved::{ColourRule, SavedFilter};
use super::present::{DEFAULT_SCALE, SCALES};
use super::replay::{Replay, SPEEDS};
use super::settings_window::{DEFAULT_UI_SCALE, is_ui_scale};
use crate::i18n::Language;

/// The user's choices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// The language of the UI and the narration.
    pub language: Language,
    /// The diagram's zoom (1 = 26 px rows).
    pub zoom: f32,
    /// Teaching mode (replay with narration) is on.
    pub teaching: bool,
    /// Replay steps per second while playing.
    pub replay_speed: f32,
    /// The right-hand panel's tab.
    pub tab: Tab,
    /// Traces opened or recorded, most recent first (the desktop's File menu).
    pub recent: Vec<PathBuf>,
    /// The global scale of presentation mode (`+` and `-` while presenting), one of
    /// [`SCALES`]: the room the teacher last presented in.
    pub present_scale: f32,
    /// The global scale of the interface outside presentation mode (View > Settings…), one
    /// of [`super::settings_window::UI_SCALES`].
    pub ui_scale: f32,
    /// The message list's saved filters and colouring rules.
    pub saved_filters: Vec<SavedFilter>,
    pub colour_rules: Vec<ColourRule>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            language: Language::default(),
            zoom: DiagramView::default().zoom,
            teaching: false,
            replay_speed: Replay::default().speed,
            tab: Tab::Inspector,
            recent: Vec::new(),
            present_scale: DEFAULT_SCALE,
            ui_scale: DEFAULT_UI_SCALE,
            saved_filters: Vec::new(),
            colour_rules: Vec::new(),
        }
    }
}

impl SightlineApp {
    /// The user's choices as they stand now (what eframe saves).
    pub fn settings(&self) -> Settings {
        Settings {
            language: self.lang,
            zoom: self.diagram.zoom,
            teaching: self.replay.active,
            replay_speed: self.replay.speed,
            tab: self.tab,
            recent: self.platform.recent_paths(),
            present_scale: self.present.scale,
            ui_scale: self.settings_window.ui_scale,
            saved_filters: self.list.saved.filters.clone(),
            colour_rules: self.list.saved.rules.clone(),
        }
    }

    /// The app with `settings` (an earlier run's) taken up. A value out of range (a file
    /// edited by hand) keeps the default.
    pub fn with_settings(mut self, settings: Settings) -> SightlineApp {
        let defaults = Settings::default();
        self.lang = settings.language;
        self.tab = settings.tab;
        self.diagram.zoom = if ZOOM.contains(&settings.zoom) {
            settings.zoom
        } else {
            defaults.zoom
        };
        self.replay.speed = if SPEEDS.contains(&settings.replay_speed) {
            settings.replay_speed
        } else {
            defaults.replay_speed
        };
        self.present.scale = if SCALES.contains(&settings.present_scale) {
            settings.present_scale
        } else {
            defaults.present_scale
        };
        self.settings_window
            .set_scale(if is_ui_scale(settings.ui_scale) {
                settings.ui_scale
            } else {
                defaults.ui_scale
            });
        self.platform.set_recent_paths(settings.recent);
        self.list.saved.filters = settings.saved_filters;
        self.list.saved.rules = settings.colour_rules;
        if settings.teaching != self.replay.active {
            self.apply(Command::SetTeaching(settings.teaching));
        }
        self
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use std::collections::HashMap;

    use super::*;

    /// eframe's storage interface over a map (what eframe writes to `app.ron`).
    #[derive(Default)]
    struct Memory(HashMap<String, String>);

    impl eframe::Storage for Memory {
        fn get_string(&self, key: &str) -> Option<String> {
            self.0.get(key).cloned()
        }
        fn set_string(&mut self, key: &str, value: String) {
            self.0.insert(key.to_string(), value);
        }
        fn remove_string(&mut self, key: &str) {
            self.0.remove(key);
        }
        fn flush(&mut self) {}
    }

    fn restored(storage: &Memory) -> Option<Settings> {
        eframe::get_value(storage, eframe::APP_KEY)
    }

    #[test]
    fn the_choices_survive_a_restart_through_eframes_storage() {
        let mut app = SightlineApp::from_events("t", Vec::new());
        assert_eq!(app.settings(), Settings::default());
        app.apply(Command::SetLanguage(Language::Pt));
        app.apply(Command::SetTeaching(true));
        app.set_tab(Tab::Doctor);
        app.diagram.zoom = 1.44;
        app.replay.speed = 4.0;
        app.present.scale = 2.5;
        app.apply(Command::SetUiScale(1.25));
        app.platform
            .set_recent_paths(vec![PathBuf::from("/t/b.jsonl"), "/t/a.jsonl".into()]);
        app.list
            .saved
            .save_filter("method:tools/call and latency:>100ms");
        app.list.saved.add_rule("kind:error");
        let chosen = app.settings();
        assert_eq!(chosen.colour_rules.len(), 1);

        let mut storage = Memory::default();
        eframe::App::save(&mut app, &mut storage);
        let stored = restored(&storage).expect("the settings were saved");
        assert_eq!(stored, chosen);

        let again = SightlineApp::from_events("t", Vec::new()).with_settings(stored);
        assert_eq!(again.settings(), chosen);
        assert_eq!(again.language(), Language::Pt);
        assert_eq!(again.tab(), Tab::Doctor);
        assert!(again.replay().active);
    }

    #[test]
    fn an_older_or_hand_edited_file_still_loads() {
        let mut storage = Memory::default();
        storage
            .0
            .insert(eframe::APP_KEY.into(), "(zoom: 2.0, gone: true)".into());
        let s = restored(&storage).expect("missing fields default, unknown ones are ignored");
        assert_eq!(
            s,
            Settings {
                zoom: 2.0,
                ..Settings::default()
            }
        );

        storage.0.insert(
            eframe::APP_KEY.into(),
            "(zoom: 99.0, replay_speed: 3.0, present_scale: 40.0)".into(),
        );
        let app = SightlineApp::from_events("t", Vec::new())
            .with_settings(restored(&storage).expect("loads"));
        assert_eq!(
            app.settings(),
            Settings::default(),
            "out of range keeps the default"
        );
    }
}
