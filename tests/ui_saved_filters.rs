//! The message list's saved filters and colouring rules, driven headless like `ui_app`: kept
//! in the settings, a saved filter put back in the box with a click, the box's filter saved
//! and made a colouring rule, and the rows it keeps coloured.

use egui_kittest::kittest::Queryable;
use sightline::ui::list::saved::{ColourRule, SavedFilter};
use sightline::ui::settings::Settings;
use sightline::ui::{Language, SightlineApp};

use crate::ui_app::{record, text};
use crate::util::{self, harness};

#[test]
fn saved_filters_and_colouring_rules_come_back_with_the_settings_and_work() {
    let dir = util::tempdir();
    let trace = record(dir.path(), "weather");
    let settings = Settings {
        saved_filters: vec![SavedFilter {
            name: "weather calls".into(),
            text: "tool:get_weather".into(),
        }],
        colour_rules: vec![ColourRule {
            text: "method:tools/call".into(),
            colour: [200, 40, 40],
        }],
        ..Settings::default()
    };
    let app = SightlineApp::from_trace(&trace)
        .expect("open trace")
        .with_settings(settings.clone());
    let mut h = harness(app);
    h.get_by_label(&text(Language::En, "filter.saved")).click();
    h.run();
    h.get_by_label("weather calls").click();
    h.run();
    assert_eq!(h.state_mut().list_mut().filter.text, "tool:get_weather");

    // The box's filter saved, and made a colouring rule.
    h.state_mut().list_mut().filter.text = "kind:notification".into();
    h.run();
    h.get_by_label(&text(Language::En, "filter.save")).click();
    h.run();
    h.get_by_label(&text(Language::En, "filter.colour")).click();
    h.run();
    let now = h.state().settings();
    assert_eq!(now.saved_filters.len(), 2);
    assert_eq!(now.saved_filters[1].text, "kind:notification");
    let rules: Vec<&str> = now.colour_rules.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(rules, ["method:tools/call", "kind:notification"]);

    // The rows each rule keeps take its colour.
    let app = h.state_mut();
    let mut coloured: Vec<(String, Option<egui::Color32>)> = Vec::new();
    for i in 0..app.store().len() {
        let e = app.store().events[i].clone();
        let d = app.store().report.rpc.derived[i].clone();
        let method = d.method.as_deref().unwrap_or("").to_string();
        coloured.push((method, app.list_mut().saved.colour_of(&e, &d)));
    }
    let red = Some(egui::Color32::from_rgb(200, 40, 40));
    assert!(coloured.iter().any(|(m, c)| m == "tools/call" && *c == red));
    assert!(
        coloured
            .iter()
            .filter(|(m, _)| m == "notifications/initialized")
            .all(|(_, c)| c.is_some() && *c != red)
    );
    assert!(coloured.iter().any(|(_, c)| c.is_none()));
}
