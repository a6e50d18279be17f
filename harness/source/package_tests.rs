//! The library's tests read only files of its package (this folder, as `cargo package` ships it),
//! so that they pass from the published crate as they do in the repository: their fixtures are in
//! `tests/fixtures/` ([`super::fixture_path`]).

use std::path::{Component, Path, PathBuf};

/// Sources that reach above the package on purpose, for something that is not a test file, and
/// why. Nothing else may.
const ALLOWED: &[(&str, &str)] = &[
    (
        "bin/kernelgate/init.rs",
        "`kernelgate init` defaults to the kernelgate checkout the program was built from (the folder above \
         this one); its test asserts that default where there is one, and reads no file there",
    ),
    (
        "bin/kernelgate/init/tests.rs",
        "the tests of bin/kernelgate/init.rs, moved beside it: the test that asserts that default",
    ),
    (
        "tests/any_project.rs",
        "the integration test uses the checkout's NVRTC (`.nvrtc/`, from scripts/get-nvrtc) where \
         KERNELGATE_NVRTC is unset and that folder exists; a tool, not a test file",
    ),
    (
        "tests/mistyped_params.rs",
        "as tests/any_project.rs: the checkout's NVRTC (`.nvrtc/lib`) where KERNELGATE_NVRTC is unset and that \
         folder exists; a tool, not a test file",
    ),
];

/// Every `.rs` file under `dir`, sorted, leaving out build outputs (`target/`), hidden folders and
/// the packages nested in this one (`build/`, the build helper: a crate of its own).
fn sources(dir: &Path, top: bool, found: &mut Vec<PathBuf>) {
    if !top && (dir.join("Cargo.toml").is_file() || dir.file_name().is_some_and(|n| n == "target")) {
        return;
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        let hidden = path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if path.is_dir() && !hidden {
            sources(&path, false, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// `path` with `.` and `folder/..` taken out, without asking the file system.
fn tidy(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The string literals that `include_str!` and `include_bytes!` name in `text` (the macro's
/// argument when it is one literal; `concat!` and the like are left to the next check).
fn included(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    for mac in ["include_str!(", "include_bytes!("] {
        for (at, _) in text.match_indices(mac) {
            let rest = text[at + mac.len()..].trim_start();
            if let Some(literal) = rest.strip_prefix('"') {
                found.push(&literal[..literal.find('"').unwrap()]);
            }
        }
    }
    found
}

/// A source under the package that names the repository's test helper of old, includes a file
/// outside the package (or one missing), or walks up from `CARGO_MANIFEST_DIR` (with `..` or
/// `.parent()` in the statement that names it, on its line or the next) fails this test, with its
/// file and what it does.
#[test]
fn the_library_reads_no_test_file_outside_its_package() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(root, true, &mut files);
    assert!(files.len() > 100 && files.iter().any(|f| f.ends_with("source/package_tests.rs")), "{files:?}");
    let (old_helper, manifest_dir) = ("repository_for_tests", "CARGO_MANIFEST_DIR");
    let mut faults = Vec::new();
    for file in &files {
        let name = file.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        if name == "source/package_tests.rs" {
            continue; // this file, which names what it looks for
        }
        let text = std::fs::read_to_string(file).unwrap();
        if text.contains(old_helper) {
            faults.push(format!("{name}: names {old_helper} (the repository above the package)"));
        }
        for literal in included(&text) {
            let target = tidy(&file.parent().unwrap().join(literal));
            if !target.starts_with(root) {
                faults.push(format!("{name}: includes {literal}, outside the package"));
            } else if !target.is_file() {
                faults.push(format!("{name}: includes {literal}, which is not there"));
            }
        }
        if ALLOWED.iter().any(|(allowed, _)| name == *allowed) {
            continue;
        }
        for (at, _) in text.match_indices(manifest_dir) {
            // Its line and the next, up to the end of the statement.
            let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
            let next_line = text[at..].match_indices('\n').nth(1).map_or(text.len(), |(n, _)| at + n);
            let statement = &text[start..text[at..].find(';').map_or(text.len(), |n| at + n).min(next_line)];
            if ["\"..", "/..", ".parent()"].iter().any(|up| statement.contains(up)) {
                faults.push(format!("{name}: walks up from {manifest_dir}: {}", statement.trim()));
            }
        }
    }
    for (allowed, _) in ALLOWED {
        assert!(root.join(allowed).is_file(), "ALLOWED names {allowed}, which is not there");
    }
    assert!(faults.is_empty(), "test files outside the package:\n{}", faults.join("\n"));
}

/// The check finds what it looks for.
#[test]
fn the_check_sees_an_include_and_a_tidy_path() {
    let text = "const A: &str = include_str!(\n    \"../../x/a.md\"\n);\nlet b = include_bytes!(\"b.bin\");";
    assert_eq!(included(text), ["../../x/a.md", "b.bin"]);
    assert_eq!(tidy(Path::new("/p/harness/ncu/../../tests/x")), Path::new("/p/tests/x"));
    assert_eq!(tidy(Path::new("/p/harness/ncu/../tests/./x")), Path::new("/p/harness/tests/x"));
}
