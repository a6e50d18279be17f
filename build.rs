//! Build script: names the kernels of every `*.cu` of the kernel folders (`kernels` in
//! `kernelgate.toml`, default `kernels/`) for the case table.
//!
//! For each file it finds the `extern "C" __global__` entry points and the kernel templates at
//! global scope (`harness/entry_scan.rs`, which skips comments, strings, directives and `#if 0`
//! blocks) and writes `$OUT_DIR/kernels.rs`: one module per file (`kernels/transpose.cu` ->
//! `mod transpose`) holding one `Kernel` constant per entry point and one `KernelTemplate` constant
//! per template. The case table names kernels through these constants, so a case that names a
//! kernel missing from its file is a compile error naming that file's module.
//!
//! The kernels' text is not built in: the library reads the kernel folders when a run starts
//! (`harness/source.rs`), so an edited kernel needs no rebuild. This script does not watch them
//! either (a re-run rebuilds the whole crate): it re-runs when the crate's own sources or
//! `kernelgate.toml` change, which is when a case can start naming a new kernel. A kernel renamed or removed since
//! then is found at run time, by the trial that launches it.
//!
//! A `.cu` file with neither an entry point nor a kernel template, two files that map to one
//! module name, or a repeated entry name stops the build with a message naming the file.

#[path = "harness/entry_scan.rs"]
#[allow(dead_code)] // The library's uses of it (`kernel_macros`), not this script's.
mod entry_scan;
#[path = "harness/model/git.rs"]
#[allow(dead_code)]
mod git;
#[path = "harness/history/provenance.rs"]
#[allow(dead_code)]
mod provenance;
/// `provenance.rs`'s types, where it finds them in the library (`crate::model`).
mod model {
    pub use super::git::{GitState, RepoState, folder_in_repository, kernels_sha256};
}

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let folders = kernel_folders(&root);

    let mut files: Vec<PathBuf> = Vec::new();
    for dir in &folders {
        let listed =
            std::fs::read_dir(dir).unwrap_or_else(|e| fail(dir, &format!("cannot read the kernel folder: {e}")));
        files.extend(
            listed
                .map(|entry| entry.expect("readable directory entry").path())
                .filter(|p| p.extension().is_some_and(|e| e == "cu")),
        );
    }
    files.sort_by_key(|p| p.file_name().map(|n| n.to_os_string()));
    if files.is_empty() {
        fail(&folders[0], "no .cu files found; kernelgate needs at least one kernel source");
    }

    let mut modules = String::new();
    let mut seen_modules: Vec<String> = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).unwrap_or_else(|e| fail(path, &format!("cannot read: {e}")));
        let text =
            entry_scan::utf8_text(bytes, &path.display().to_string()).unwrap_or_else(|message| fail(path, &message));
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let shown = path.strip_prefix(&root).unwrap_or(path).display().to_string();
        let module = entry_scan::module_name(&file);
        if seen_modules.contains(&module) {
            fail(path, &format!("maps to module `{module}`, like another file; rename one of them"));
        }
        seen_modules.push(module.clone());
        let declared = entry_scan::declared(&text).unwrap_or_else(|message| fail(path, &message));

        writeln!(modules, "/// Entry points of `{shown}`.").unwrap();
        writeln!(modules, "#[allow(non_upper_case_globals)]\npub mod {module} {{").unwrap();
        for (name, line) in &declared.entries {
            writeln!(modules, "    /// `{name}`, declared at `{shown}:{line}`.").unwrap();
            writeln!(
                modules,
                "    pub const {name}: crate::Kernel = crate::Kernel {{ file: {file:?}, entry: {name:?} }};"
            )
            .unwrap();
        }
        for (name, line) in &declared.templates {
            writeln!(
                modules,
                "    /// The kernel template `{name}`, declared at `{shown}:{line}`: a case launches \
                 `{name}.with(\"<template arguments>\")`."
            )
            .unwrap();
            writeln!(
                modules,
                "    pub const {name}: crate::KernelTemplate = crate::KernelTemplate {{ file: {file:?}, name: {name:?} }};"
            )
            .unwrap();
        }
        writeln!(modules, "}}").unwrap();
    }

    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let out = out_dir.join("kernels.rs");
    std::fs::write(&out, modules).unwrap_or_else(|e| fail(&out, &format!("cannot write: {e}")));

    let out = out_dir.join("built.rs");
    std::fs::write(&out, built_state(&root, &folders)).unwrap_or_else(|e| fail(&out, &format!("cannot write: {e}")));
}

/// The kernel folders of the project at `root`: `kernels` in its `kernelgate.toml` (a folder or a
/// list of folders, relative to `root`), else `<root>/kernels`, as `harness/project.rs` reads them
/// at run time (which also refuses the keys it does not know; this reads `kernels` alone).
fn kernel_folders(root: &Path) -> Vec<PathBuf> {
    let file = root.join("kernelgate.toml");
    let Ok(text) = std::fs::read_to_string(&file) else { return vec![root.join("kernels")] };
    let table = text.parse::<toml::Table>().unwrap_or_else(|e| fail(&file, &e.to_string()));
    let folder = |v: &toml::Value| {
        v.as_str().map(|f| root.join(f)).unwrap_or_else(|| fail(&file, "kernels: give a folder or a list of folders"))
    };
    match table.get("kernels") {
        None => vec![root.join("kernels")],
        Some(toml::Value::Array(list)) if !list.is_empty() => list.iter().map(folder).collect(),
        Some(toml::Value::Array(_)) => fail(&file, "kernels names no folder; name at least one"),
        Some(one) => vec![folder(one)],
    }
}

/// The git state of the tree being built, as Rust (`harness/history/built.rs` includes it): which
/// commit the binary's code came from, for a binary that runs in a copy of the tree without its
/// repository (a GPU runner's), and the hash of that commit's kernels, which the kernels a run
/// reads are compared with. Not re-read on a commit or checkout: watching git's HEAD and refs would
/// rebuild the crate after every `git commit`. A run where HEAD's commit holds the files this
/// binary was built from (`BUILT_INPUTS_SHA256`) is keyed to HEAD at run time instead
/// (`history::built::reconcile`), and `scripts/stage` touches this script so that a staged binary
/// carries the state it was staged at.
fn built_state(root: &Path, kernels: &[PathBuf]) -> String {
    // An edit of the library's code rebuilds the crate anyway; re-reading the dirty flag with it
    // costs nothing. Edits elsewhere (kernels/, tests/, baselines/, scripts/) are seen at the next
    // rebuild: watching them would rebuild the library after editing a kernel or a test, or after
    // every bless. A folder makes cargo re-run this script when any file below it changes, is added
    // or is removed.
    for path in provenance::BUILD_INPUTS {
        if root.join(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    let git = provenance::read(root, None, kernels).expect("read without a revision always answers");
    let opt = |o: Option<bool>| o.map_or("None".to_string(), |b| format!("Some({b})"));
    format!(
        "/// SHA-256 of the kernels of the commit this binary was built from \
         (provenance::kernels_at_head), None without a commit.\n\
         pub const COMMIT_KERNELS_SHA256: Option<&str> = {:?};\n\
         /// SHA-256 of every file this binary was built from (provenance::BUILD_INPUTS).\n\
         pub const BUILT_INPUTS_SHA256: &str = {:?};\n\
         /// The git state read by build.rs.\n\
         pub fn built() -> GitState {{\n    GitState {{ commit: {:?}.into(), dirty: {}, kernels_dirty: {}, branch: {:?}.into(), \
         commit_time: {:?}, subject: {:?}.into(), state: RepoState::parse({:?}).expect(\"a state name\") }}\n}}\n",
        provenance::kernels_at_head(root, kernels),
        provenance::files_sha256(&provenance::inputs_on_disk(root)),
        git.commit,
        opt(git.dirty),
        opt(git.kernels_dirty),
        git.branch,
        git.commit_time,
        git.subject,
        git.state.as_str(),
    )
}

/// Stops the build with a message that names the file.
fn fail(path: &Path, message: &str) -> ! {
    eprintln!("error: {}: {message}", path.display());
    panic!("kernelgate build failed: {}: {message}", path.display());
}
