//! The fuzz crate (`fuzz/`, run by `.ci/fuzz`) compiles product source files by path; a move
//! of one of them shows up here, in the normal suite, not only when the fuzzers next run.

use std::path::Path;

#[test]
fn every_source_file_the_fuzz_crate_compiles_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = std::fs::read_to_string(root.join("fuzz/src/lib.rs")).expect("fuzz/src/lib.rs");
    let paths: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("#[path = \""))
        .filter_map(|l| l.strip_suffix("\"]"))
        .collect();
    assert!(paths.len() >= 5, "{paths:?}");
    for path in paths {
        let file = root.join("fuzz/src").join(path);
        assert!(
            file.is_file(),
            "fuzz/src/lib.rs compiles {path}, which is not there: update fuzz/src/lib.rs"
        );
    }
}
