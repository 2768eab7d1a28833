//! The dependency rules of docs/ARCHITECTURE.md, checked on the source: every `crate::<module>`
//! path in `src/**/*.rs` (comments aside) is an edge from the top-level module the file is in to
//! the one it names. The rules: no cycle between top-level modules; `trace`, `wire`, `servers`
//! and `i18n` use no other module; nothing but `cli` (and the crate root) uses `ui`. The layers
//! inside `ui` are `ui_layers`'s; the page's other checkable claims (where `anyhow` and each
//! kind of `cfg` may be) are `claims`'s.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod claims;
mod portable;
mod ui_layers;

/// Module -> the modules it uses.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// The modules that use no other module of the crate.
const LEAVES: [&str; 4] = ["trace", "wire", "servers", "i18n"];
/// The only module that may use `ui`.
const UI_USER: &str = "cli";

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module of a file under `src/` (`src/tap/http_proxy/mod.rs` -> `tap`);
/// `None` for the crate root (`lib.rs`, `main.rs`).
fn module_of(rel: &Path) -> Option<String> {
    let mut parts = rel.components();
    let first = parts.next()?.as_os_str().to_str()?;
    if parts.next().is_some() {
        return Some(first.to_string());
    }
    match first.strip_suffix(".rs")? {
        "lib" | "main" => None,
        name => Some(name.to_string()),
    }
}

/// The top-level modules named by `crate::` paths in `text`, comment lines (`//`, `//!`, `///`)
/// aside; `crate::{a, b::c}` names `a` and `b`.
fn used_modules(text: &str) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        // A trailing comment is not code either.
        let code = code.split(" //").next().unwrap_or(code);
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let before = rest[..at].chars().next_back();
            let after = &rest[at + "crate::".len()..];
            rest = after;
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            match after.strip_prefix('{') {
                Some(group) => {
                    let group = group.split('}').next().unwrap_or(group);
                    for item in group.split(',') {
                        let name = ident(item.trim());
                        if !name.is_empty() {
                            used.insert(name.to_string());
                        }
                    }
                }
                None => {
                    let name = ident(after);
                    if !name.is_empty() {
                        used.insert(name.to_string());
                    }
                }
            }
        }
    }
    used
}

fn ident(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The graph of the crate's top-level modules, read from `src`.
fn graph_of(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut graph = Graph::new();
    let mut files_of: Vec<(String, String)> = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(src).expect("under src");
        let Some(module) = module_of(rel) else {
            continue;
        };
        graph.entry(module.clone()).or_default();
        let text = std::fs::read_to_string(file)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        files_of.push((module, text));
    }
    for (module, text) in files_of {
        for used in used_modules(&text) {
            if used != module && graph.contains_key(&used) {
                graph.entry(module.clone()).or_default().insert(used);
            }
        }
    }
    graph
}

/// Every way `graph` breaks the rules, one sentence each.
fn violations(graph: &Graph) -> Vec<String> {
    let mut found = Vec::new();
    for leaf in LEAVES {
        if let Some(uses) = graph.get(leaf).filter(|u| !u.is_empty()) {
            found.push(format!(
                "`{leaf}` must use no other module, but uses {uses:?}"
            ));
        }
    }
    for (module, uses) in graph {
        if module != UI_USER && uses.contains("ui") {
            found.push(format!(
                "only `{UI_USER}` may use `ui`, but `{module}` does"
            ));
        }
    }
    for cycle in cycles(graph) {
        found.push(format!("a cycle between modules: {}", cycle.join(" -> ")));
    }
    found
}

/// One cycle per module that can reach itself, as the path back to it (each cycle reported
/// once, from its smallest module).
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let mut seen: BTreeSet<BTreeSet<String>> = BTreeSet::new();
    for start in graph.keys() {
        if let Some(path) = path_back(graph, start) {
            let members: BTreeSet<String> = path.iter().cloned().collect();
            if seen.insert(members) {
                found.push(path);
            }
        }
    }
    found
}

/// The shortest path `start -> ... -> start`, by breadth-first search.
fn path_back(graph: &Graph, start: &str) -> Option<Vec<String>> {
    let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(at) = queue.pop_front() {
        for next in graph.get(at).into_iter().flatten() {
            if next == start {
                let mut path = vec![start.to_string()];
                let mut back = at;
                while back != start {
                    path.push(back.to_string());
                    back = parent[back];
                }
                path[1..].reverse();
                path.push(start.to_string());
                return Some(path);
            }
            if !parent.contains_key(next.as_str()) {
                parent.insert(next, at);
                queue.push_back(next);
            }
        }
    }
    None
}

fn shown(graph: &Graph) -> String {
    graph
        .iter()
        .map(|(m, uses)| {
            let uses: Vec<&str> = uses.iter().map(String::as_str).collect();
            format!(
                "{m} -> {}",
                if uses.is_empty() {
                    "nothing".into()
                } else {
                    uses.join(", ")
                }
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_modules_keep_the_dependency_rules() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = graph_of(&src);
    // The reader must have found the modules, or the rules would hold vacuously.
    for module in [
        "analysis", "cli", "export", "host", "i18n", "servers", "tap", "trace", "ui", "wire",
    ] {
        assert!(
            graph.contains_key(module),
            "no module `{module}` in\n{}",
            shown(&graph)
        );
    }
    assert!(
        graph["cli"].contains("ui") && graph["tap"].contains("trace"),
        "edges the crate certainly has are missing:\n{}",
        shown(&graph)
    );
    eprintln!("{}", shown(&graph));
    let found = violations(&graph);
    assert!(
        found.is_empty(),
        "{}\n\nthe graph:\n{}",
        found.join("\n"),
        shown(&graph)
    );
}

fn graph(edges: &[(&str, &str)]) -> Graph {
    let mut g = Graph::new();
    for (from, to) in edges {
        g.entry(from.to_string())
            .or_default()
            .insert(to.to_string());
        g.entry(to.to_string()).or_default();
    }
    g
}

/// docs/ARCHITECTURE.md's graph (the block after `<!-- graph -->`) is the code's: a new edge
/// between modules is a decision the page must show.
#[test]
fn the_architecture_page_shows_the_graph_the_code_has() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).expect("the page");
    let block: Vec<&str> = page
        .split("<!-- graph -->")
        .nth(1)
        .expect("docs/ARCHITECTURE.md has a `<!-- graph -->` block")
        .lines()
        .skip_while(|l| !l.starts_with("```"))
        .skip(1)
        .take_while(|l| !l.starts_with("```"))
        .collect();
    // Modules that use nothing are left off the page.
    let code: Vec<String> = shown(&graph_of(&root.join("src")))
        .lines()
        .filter(|l| !l.ends_with("-> nothing"))
        .map(str::to_string)
        .collect();
    assert_eq!(
        block,
        code,
        "docs/ARCHITECTURE.md's graph is not the code's; the code's is:\n{}",
        code.join("\n")
    );
}

#[test]
fn the_checker_catches_a_planted_cycle_a_trace_edge_and_a_ui_user() {
    let good = graph(&[
        ("tap", "trace"),
        ("analysis", "trace"),
        ("ui", "analysis"),
        ("cli", "ui"),
    ]);
    assert!(violations(&good).is_empty(), "{:?}", violations(&good));

    let cycle = graph(&[
        ("tap", "trace"),
        ("host", "tap"),
        ("tap", "export"),
        ("export", "host"),
    ]);
    assert_eq!(
        violations(&cycle),
        ["a cycle between modules: export -> host -> tap -> export"]
    );

    let trace_up = graph(&[("tap", "trace"), ("trace", "wire")]);
    assert_eq!(
        violations(&trace_up),
        ["`trace` must use no other module, but uses {\"wire\"}"]
    );

    let wire_up = graph(&[("wire", "i18n"), ("i18n", "trace")]);
    assert_eq!(violations(&wire_up).len(), 2, "{:?}", violations(&wire_up));

    let ui_user = graph(&[("export", "ui"), ("cli", "ui")]);
    assert_eq!(
        violations(&ui_user),
        ["only `cli` may use `ui`, but `export` does"]
    );
}

#[test]
fn edges_come_from_code_not_comments() {
    let text = "//! uses crate::ui in a sentence\n\
                /// see [`crate::host`]\n\
                    // crate::export::svg, commented out\n\
                use crate::trace::{Event, Lane};\n\
                use crate::{wire::sse, i18n};\n\
                let x = crate::analysis::report(&e); // not crate::tap\n\
                $crate::servers::run();\n\
                other_crate::cli::run();\n";
    let used: Vec<String> = used_modules(text).into_iter().collect();
    assert_eq!(used, ["analysis", "i18n", "trace", "wire"]);
    assert_eq!(
        module_of(Path::new("tap/http_proxy/mod.rs")).as_deref(),
        Some("tap")
    );
    assert_eq!(module_of(Path::new("wire.rs")).as_deref(), Some("wire"));
    assert_eq!(module_of(Path::new("lib.rs")), None);
}
