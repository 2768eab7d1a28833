//! The rules inside `ui`, checked on the source: its files and folders stand in layers, and a
//! file uses only what stands in its own layer or lower. At the bottom, what every part shares
//! and that knows no trace (the commands, colours, escapes, system calls); then the store and
//! the questions it answers (search); then the panels, which read the store and return
//! commands; at the top the shell: the app, its chrome and the platform it runs on (which
//! holds the app's state and acts on it, so those may use one another). Below the shell no two
//! parts use each other, directly or around a cycle, so the store never learns of a panel.
//!
//! A use is a `crate::ui::<part>` or `super::…::<part>` path in code (comments aside) that
//! reaches `ui` itself; a name `ui/mod.rs` re-exports counts as the part it comes from, and
//! `platform` as both platforms. Tests are left out: a panel's test may build the whole app.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::rust_files;

/// `ui`'s parts (a file `x.rs` with its folder `x/`), bottom to top.
const LAYERS: [(&str, &[&str]); 4] = [
    (
        "base",
        &[
            "budget", "command", "lanes", "rowset", "sys", "theme", "visible",
        ],
    ),
    ("store", &["store"]),
    (
        "panels",
        &[
            "badges",
            "compare",
            "diagram",
            "diagram_fit",
            "diagram_paint",
            "doctor_panel",
            "inspector",
            "json_tree",
            "legend",
            "list",
            "model_view",
            "present",
            "replay",
            "settings_window",
            "stats_panel",
        ],
    ),
    (
        "shell",
        &[
            "actions",
            "app",
            "compare_run",
            "compare_with",
            "desktop",
            "elicit",
            "follow",
            "language",
            "live",
            "menu",
            "menu_bar",
            "otlp_export",
            "recent",
            "settings",
            "status",
            "view_actions",
            "web",
        ],
    ),
];

/// The layer whose parts may use one another.
const TIED: &str = "shell";

/// Part -> the parts it uses.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// The layer of each part, by its index in [`LAYERS`].
fn layer_of() -> BTreeMap<&'static str, usize> {
    let mut of = BTreeMap::new();
    for (at, (_, parts)) in LAYERS.iter().enumerate() {
        for part in *parts {
            assert!(of.insert(*part, at).is_none(), "`{part}` is in two layers");
        }
    }
    of
}

/// The module path of a file under `src/ui` (`store/search/scan.rs` -> `store::search::scan`,
/// `list/mod.rs` -> `list`); empty for `mod.rs` itself.
fn module_path(rel: &Path) -> Vec<String> {
    let mut path: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if path.last().is_some_and(|l| l == "mod") {
        path.pop();
    }
    path
}

/// Whether a file holds tests only (`tests.rs`, or anything under a `tests/` folder).
fn is_test_file(path: &[String]) -> bool {
    path.iter().skip(1).any(|p| p == "tests")
}

/// The first names of a path's rest: one (`store::TraceStore`), or each item's of a group
/// (`{store::{Source, TraceStore}, theme}` names `store` and `theme`).
fn names(after: &str) -> Vec<String> {
    let ident = |t: &str| -> String {
        t.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let Some(group) = after.strip_prefix('{') else {
        return Some(ident(after))
            .filter(|n| !n.is_empty())
            .into_iter()
            .collect();
    };
    let mut found = Vec::new();
    let (mut depth, mut item_starts) = (0, true);
    for (at, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => item_starts = true,
            c if item_starts && !c.is_whitespace() => {
                item_starts = false;
                found.push(ident(&group[at..]));
            }
            _ => {}
        }
    }
    found.retain(|n| !n.is_empty());
    found
}

/// The names a line of code in module `path` reaches `ui` itself with: `crate::ui::x`, or
/// `super::` as many times as it takes to climb out of `path` (`depth` counts the inline
/// modules the line is in).
fn ui_names(code: &str, path: &[String], depth: usize) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(['c', 's']) {
        let before = rest[..at].chars().next_back();
        let tail = &rest[at..];
        rest = &rest[at + 1..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':' || c == '$') {
            continue;
        }
        if let Some(after) = tail.strip_prefix("crate::ui::") {
            found.extend(names(after));
            continue;
        }
        let mut ups = 0;
        let mut after = tail;
        while let Some(next) = after.strip_prefix("super::") {
            ups += 1;
            after = next;
        }
        if ups > 0 && ups == path.len() + depth {
            found.extend(names(after));
        }
    }
    found
}

/// Names `ui/mod.rs` re-exports, with the part each comes from (`pub use app::{SightlineApp,
/// Tab}`; `pub use desktop as platform`).
fn reexports(root: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut text = String::new();
    for line in root.lines() {
        let line = line.trim();
        if line.starts_with("pub use ") || !text.is_empty() {
            text.push_str(line);
            text.push(' ');
            if !line.ends_with(';') {
                continue;
            }
            let statement = std::mem::take(&mut text);
            let body = statement["pub use ".len()..].trim().trim_end_matches(';');
            let (part, rest) = body.split_once("::").unwrap_or((body, ""));
            let part = part.split_whitespace().next().unwrap_or(part).to_string();
            if part == "crate" {
                continue;
            }
            if let Some((_, alias)) = body.split_once(" as ").filter(|_| rest.is_empty()) {
                out.entry(alias.trim().to_string())
                    .or_default()
                    .insert(part);
                continue;
            }
            for item in rest.trim_matches(|c| c == '{' || c == '}').split(',') {
                let name = item.split(" as ").last().unwrap_or(item).trim();
                if !name.is_empty() {
                    out.entry(name.to_string())
                        .or_default()
                        .insert(part.clone());
                }
            }
        }
    }
    out
}

/// The graph of `ui`'s parts, read from `src/ui`.
fn graph_of(ui: &Path) -> Graph {
    let root = std::fs::read_to_string(ui.join("mod.rs")).expect("src/ui/mod.rs");
    let mut aliases = reexports(&root);
    // Each build has one platform; the source has both.
    aliases.insert(
        "platform".into(),
        ["desktop".to_string(), "web".to_string()].into(),
    );
    let mut files = Vec::new();
    rust_files(ui, &mut files);
    let mut graph = Graph::new();
    for file in files {
        let rel = file.strip_prefix(ui).expect("under src/ui");
        let path = module_path(rel);
        let Some(part) = path.first().cloned() else {
            continue;
        };
        let uses = graph.entry(part.clone()).or_default();
        if is_test_file(&path) {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("a source file");
        for used in uses_in(&text, &path) {
            let parts = aliases.get(&used).cloned().unwrap_or_else(|| [used].into());
            uses.extend(parts.into_iter().filter(|p| *p != part));
        }
    }
    graph
}

/// The names of `ui` a file in module `path` uses, its inline test modules aside.
fn uses_in(text: &str, path: &[String]) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    let mut inline: Option<&str> = None;
    let mut cfg_test = false;
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        // rustfmt closes a top-level inline module with a `}` alone at the start of a line.
        if inline.is_some() {
            if line == "}" {
                inline = None;
            } else if inline != Some("tests") {
                let code = code.split(" //").next().unwrap_or(code);
                used.extend(ui_names(code, path, 1));
            }
            continue;
        }
        if code.starts_with("#[cfg(test)]") {
            cfg_test = true;
            continue;
        }
        let unqualified = match code.strip_prefix("pub(") {
            Some(rest) => rest.split_once(") ").map_or(rest, |(_, r)| r),
            None => code.trim_start_matches("pub "),
        };
        let declared = unqualified
            .strip_prefix("mod ")
            .and_then(|m| m.strip_suffix(" {"));
        if let Some(name) = declared {
            inline = Some(if cfg_test { "tests" } else { name });
            cfg_test = false;
            continue;
        }
        if !code.starts_with("#[") {
            cfg_test = false;
        }
        let code = code.split(" //").next().unwrap_or(code);
        used.extend(ui_names(code, path, 0));
    }
    used
}

/// Every way `graph` breaks the layers, one sentence each.
fn violations(graph: &Graph) -> Vec<String> {
    let layer = layer_of();
    let mut found = Vec::new();
    for (part, uses) in graph {
        let Some(&at) = layer.get(part.as_str()) else {
            found.push(format!(
                "`ui::{part}` stands in no layer: add it to one in tests/architecture/ui_layers.rs"
            ));
            continue;
        };
        for used in uses {
            let Some(&to) = layer.get(used.as_str()) else {
                found.push(format!(
                    "`ui::{part}` uses `{used}`, which is no part of `ui`: name the file it is in"
                ));
                continue;
            };
            if to > at {
                found.push(format!(
                    "`ui::{part}` ({}) uses `ui::{used}` ({}), a layer above it",
                    LAYERS[at].0, LAYERS[to].0
                ));
            }
        }
    }
    let below: Graph = graph
        .iter()
        .filter(|(part, _)| {
            layer
                .get(part.as_str())
                .is_some_and(|&l| LAYERS[l].0 != TIED)
        })
        .map(|(part, uses)| (part.clone(), uses.clone()))
        .collect();
    for cycle in super::cycles(&below) {
        found.push(format!("a cycle inside `ui`: {}", cycle.join(" -> ")));
    }
    found
}

#[test]
fn the_parts_of_ui_keep_their_layers() {
    let ui = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ui");
    let graph = graph_of(&ui);
    // Edges the app certainly has, or the reader found none and the rules hold vacuously.
    for (part, used) in [("app", "store"), ("diagram", "theme"), ("store", "sys")] {
        assert!(
            graph.get(part).is_some_and(|u| u.contains(used)),
            "`{part}` -> `{used}` is missing from\n{}",
            super::shown(&graph)
        );
    }
    let found = violations(&graph);
    assert!(
        found.is_empty(),
        "{}\n\nthe parts of `ui`:\n{}",
        found.join("\n"),
        super::shown(&graph)
    );
}

#[test]
fn the_checker_catches_a_use_upwards_a_cycle_below_the_shell_and_a_stray_part() {
    use super::graph;
    let good = graph(&[
        ("app", "diagram"),
        ("desktop", "app"),
        ("app", "desktop"),
        ("diagram", "store"),
        ("store", "sys"),
    ]);
    assert!(violations(&good).is_empty(), "{:?}", violations(&good));

    let up = graph(&[("store", "badges"), ("badges", "theme")]);
    assert_eq!(
        violations(&up),
        ["`ui::store` (store) uses `ui::badges` (panels), a layer above it"]
    );

    let cycle = graph(&[("diagram", "legend"), ("legend", "diagram")]);
    assert_eq!(
        violations(&cycle),
        ["a cycle inside `ui`: diagram -> legend -> diagram"]
    );

    let stray = graph(&[("app", "widgets")]);
    assert_eq!(
        violations(&stray),
        [
            "`ui::app` uses `widgets`, which is no part of `ui`: name the file it is in",
            "`ui::widgets` stands in no layer: add it to one in tests/architecture/ui_layers.rs"
        ]
    );
}

#[test]
fn uses_are_read_from_paths_that_reach_ui() {
    let path = |p: &str| module_path(Path::new(p));
    assert_eq!(path("store/search/scan.rs"), ["store", "search", "scan"]);
    assert_eq!(path("list/mod.rs"), ["list"]);
    let text = "//! [`super::app`] in a comment\n\
                use super::theme::Palette;\n\
                use super::{command::Command, store};\n\
                use search::ByteSets;\n\
                use crate::ui::{store::{Source, TraceStore}, theme};\n\
                let x = crate::ui::visible::escape(t); // not super::app\n\
                let y = other::super::app::f();\n\
                #[cfg(test)]\n\
                mod tests {\n    use super::super::app::SightlineApp;\n}\n";
    let used: Vec<String> = uses_in(text, &path("store.rs")).into_iter().collect();
    assert_eq!(used, ["command", "store", "theme", "visible"]);
    let nested: Vec<String> = uses_in(
        "use super::super::rowset::Lines;\nuse super::Canvas;\n",
        &path("diagram/keys.rs"),
    )
    .into_iter()
    .collect();
    assert_eq!(nested, ["rowset"]);
    let root = "pub use app::{SightlineApp, Tab};\npub use crate::i18n::Words;\n\
                pub use desktop as platform;\npub use desktop::{Command as DesktopCommand, launch};\n";
    let aliases = reexports(root);
    assert_eq!(aliases["SightlineApp"], ["app".to_string()].into());
    assert_eq!(aliases["DesktopCommand"], ["desktop".to_string()].into());
    assert_eq!(aliases["platform"], ["desktop".to_string()].into());
    assert!(!aliases.contains_key("Words"));
}
