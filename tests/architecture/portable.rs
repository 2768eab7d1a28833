//! The crate builds on Linux, macOS and Windows: every call only Unix has sits behind a `cfg`
//! naming Unix (or in a `unix.rs` seam), and every call only Linux has behind one naming Linux.
//! Apple's SDK is not on this machine and CI cross-checks only Windows, so this is what keeps
//! macOS building: a source check that needs no SDK. The platform seams are where the
//! differences live (`tap::stdio::sys`, `tap::wrap::file::sys`, `tap::long_line`'s `sys`,
//! `cli::edges::signals`).

use std::path::Path;

use super::rust_files;

/// What only Unix has (Linux and macOS alike).
const UNIX_ONLY: &[&str] = &[
    "std::os::unix",
    "std::os::fd",
    "libc::",
    "signal_hook",
    "tokio::signal::unix",
    "UnixStream",
    "UnixListener",
];

/// What only Linux has (macOS does not).
const LINUX_ONLY: &[&str] = &[
    "std::os::linux",
    "O_TMPFILE",
    "F_SETPIPE_SZ",
    "gettid",
    "malloc_trim",
    "epoll",
    "inotify",
    "prctl",
    "\"/proc/",
];

/// The systems a `cfg` line keeps an item to: `unix`, `linux`, or neither.
fn guard_of(line: &str) -> Option<&'static str> {
    let line = line.trim();
    if !(line.starts_with("#[cfg(") || line.starts_with("#![cfg(")) || line.contains("not(") {
        return None;
    }
    if line.contains("target_os = \"linux\"") {
        Some("linux")
    } else if line.contains("unix") || line.contains("target_os = \"macos\"") {
        Some("unix")
    } else {
        None
    }
}

/// The Unix-only and Linux-only uses in `text` that no `cfg` keeps to their systems, as
/// `line: text`. A `cfg` guards the item after it: up to the `}` that closes the braces it
/// opens, or its `;` when it opens none.
fn unguarded(text: &str, whole_file_unix: bool) -> Vec<String> {
    let mut out = Vec::new();
    // (guard, the brace depth the guarded item started at, whether it opened a brace yet)
    let mut guards: Vec<(&'static str, i64, bool)> = Vec::new();
    let mut pending: Option<&'static str> = None;
    let mut depth: i64 = 0;
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        if let Some(g) = guard_of(code) {
            pending = Some(g);
            continue;
        }
        if let Some(g) = pending.take() {
            guards.push((g, depth, false));
        }
        let in_linux = guards.iter().any(|(g, ..)| *g == "linux");
        let in_unix = whole_file_unix || in_linux || !guards.is_empty();
        let uses = |list: &[&str]| list.iter().any(|t| code.contains(t));
        if uses(LINUX_ONLY) && !in_linux {
            out.push(format!("{}: {} (Linux only)", n + 1, line.trim()));
        } else if uses(UNIX_ONLY) && !in_unix {
            out.push(format!("{}: {} (Unix only)", n + 1, line.trim()));
        }
        for c in code.chars() {
            match c {
                '{' => {
                    depth += 1;
                    if let Some(last) = guards.last_mut() {
                        last.2 = true;
                    }
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        // An item ends where its braces close, or at its `;` when it has none.
        while let Some(&(_, start, opened)) = guards.last() {
            let ended = if opened {
                depth <= start
            } else {
                code.trim_end().ends_with(';') || code.trim_end().ends_with("},")
            };
            if ended {
                guards.pop();
            } else {
                break;
            }
        }
    }
    out
}

#[test]
fn no_call_only_unix_or_linux_has_is_outside_a_cfg() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("read a source file");
        let unix_file = file.file_name().is_some_and(|n| n == "unix.rs");
        for hit in unguarded(&text, unix_file) {
            found.push(format!(
                "{}:{hit}",
                file.strip_prefix(&src).unwrap_or(&file).display()
            ));
        }
    }
    assert!(
        found.is_empty(),
        "calls only Unix or Linux has, outside a cfg (move them into the module's platform \
         seam, or guard them):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_catches_an_unguarded_call_and_passes_a_guarded_one() {
    let planted = "fn a() {\n    unsafe { libc::kill(1, 15) };\n}\n";
    assert_eq!(unguarded(planted, false).len(), 1);
    assert!(
        unguarded(planted, true).is_empty(),
        "a unix.rs seam is Unix-only as a whole"
    );
    let guarded = "#[cfg(unix)]\nfn a() {\n    unsafe { libc::kill(1, 15) };\n}\nfn b() {}\n";
    assert!(unguarded(guarded, false).is_empty());
    let after = "#[cfg(unix)]\nfn a() {}\nfn b() {\n    use std::os::unix::fs::MetadataExt;\n}\n";
    assert_eq!(
        unguarded(after, false).len(),
        1,
        "the guard ends with its item"
    );
    let linux = "#[cfg(unix)]\nmod m {\n    const F: i32 = libc::F_SETPIPE_SZ;\n}\n";
    assert_eq!(
        unguarded(linux, false).len(),
        1,
        "Unix is not enough for a Linux-only call"
    );
    let statement = "fn a() {\n    #[cfg(target_os = \"linux\")]\n    let t = libc::gettid();\n    libc::kill(1, 15);\n}\n";
    assert_eq!(
        unguarded(statement, false).len(),
        1,
        "a statement's guard ends at its `;`"
    );
}
