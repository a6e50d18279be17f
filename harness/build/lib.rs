//! kernelgate's build helper: one call in the `build.rs` of a crate that gates CUDA kernels with
//! [kernelgate](https://docs.rs/kernelgate).
//!
//! [`Build::run`] reads the project's kernel folders (`kernels` in its `kernelgate.toml`, default
//! `kernels/`), finds each `*.cu` file's `extern "C" __global__` entry points and kernel templates
//! ([`entry_scan`]) and each prebuilt `*.ptx` module's `.entry` kernels ([`kernel_file`]), reads
//! the git state of the tree being built ([`provenance`]), and writes `$OUT_DIR/kernelgate.rs`, which the crate includes with `kernelgate::kernels!()`:
//! - a module `k` with one submodule per kernel file (`kernels/transpose.cu` -> `k::transpose`) and
//!   one `kernelgate::Kernel` constant per entry point and `kernelgate::KernelTemplate` constant per
//!   template, so a case that names a kernel its file lacks fails to compile, naming the module;
//! - a static `BUILD: kernelgate::Build`: the commit the binary's code came from, the hash of that
//!   commit's kernels and of the files it was built from, which the test binary hands the library
//!   so that a run is keyed to the user's commit, not kernelgate's.
//!
//! The kernels' text is not built in: the library reads the kernel folders when a run starts, so
//! an edited kernel needs no rebuild. A `.cu` file with neither an entry point nor a kernel
//! template, two files that map to one module name, or a repeated entry name stops the build with a
//! message naming the file.
//!
//! # Example
//! `build.rs` of a crate whose kernels are in `kernels/` (or in the folders its `kernelgate.toml`
//! names):
//! ```no_run
//! # #![allow(clippy::needless_doctest_main)]
//! fn main() {
//!     kernelgate_build::Build::new().run();
//! }
//! ```
//! and in the crate (its library, or `tests/kernels.rs`):
//! ```ignore
//! kernelgate::kernels!(); // mod k { ... }, static BUILD
//! ```

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod cubin;
pub mod entry_scan;
mod error;
pub mod fatbin;
pub mod git;
pub mod kernel_file;
pub mod project_file;
pub mod provenance;

pub use error::{Error, ErrorKind};

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The name of the file [`Build::run`] writes into `$OUT_DIR`, which `kernelgate::kernels!()`
/// includes.
pub const OUT_FILE: &str = "kernelgate.rs";

/// The project file (`kernelgate.toml`) whose `kernels` key names the kernel folders; the library
/// reads the rest of it at run time.
pub const PROJECT_FILE: &str = "kernelgate.toml";

/// What a build script asks of the helper: the project root and the files the binary is built from.
///
/// # Example
/// A crate whose cases live in `harness/` and `cases/` rather than `src/` and `tests/`:
/// ```no_run
/// kernelgate_build::Build::new()
///     .inputs(["build.rs", "Cargo.lock", "Cargo.toml", "kernelgate.toml", "harness", "cases"])
///     .run();
/// ```
#[derive(Debug, Clone)]
pub struct Build {
    root: PathBuf,
    inputs: Vec<String>,
}

impl Default for Build {
    fn default() -> Self {
        Self::new()
    }
}

impl Build {
    /// The package being built (`CARGO_MANIFEST_DIR`) as the project root, with the default
    /// inputs ([`provenance::BUILD_INPUTS`]).
    ///
    /// # Panics
    /// Outside a build script (cargo sets `CARGO_MANIFEST_DIR` for it).
    pub fn new() -> Build {
        let root = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR for a build script");
        Build { root: PathBuf::from(root), inputs: provenance::BUILD_INPUTS.iter().map(|s| s.to_string()).collect() }
    }

    /// The files and folders (relative to the project root) the binary is built from: hashed into
    /// `BUILD` (a run whose HEAD holds the same files is keyed to HEAD) and watched
    /// (`cargo:rerun-if-changed`). Paths that do not exist are skipped. Default:
    /// [`provenance::BUILD_INPUTS`]. The kernel folders are watched too (an edited kernel file
    /// writes the kernel constants again), whatever the inputs.
    pub fn inputs<I: IntoIterator<Item = S>, S: Into<String>>(mut self, inputs: I) -> Build {
        self.inputs = inputs.into_iter().map(Into::into).collect();
        self
    }

    /// Writes `$OUT_DIR/kernelgate.rs` ([`OUT_FILE`]).
    ///
    /// # Errors
    /// Stops the build script (exit status 1, the message on stderr as `error: kernelgate build
    /// failed: <file>: ...`, which cargo shows) when a kernel folder cannot be read or holds no
    /// kernel file, a source is not UTF-8, a file declares no kernel or one name twice, a prebuilt
    /// module cannot be read, two files map to one module, or `kernelgate.toml` names a key kernelgate
    /// does not know or a malformed `kernels`. [`Build::generate`] returns the same as a value.
    ///
    /// # Panics
    /// Outside a build script (cargo sets `OUT_DIR` for it), or when `$OUT_DIR` cannot be written.
    pub fn run(self) {
        let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for a build script"));
        let text = self.generate().unwrap_or_else(|e| fail(&e));
        for path in self.watched() {
            println!("cargo:rerun-if-changed={path}");
        }
        let out = out_dir.join(OUT_FILE);
        std::fs::write(&out, text)
            .unwrap_or_else(|e| fail(&Error::new(ErrorKind::Io, format!("cannot write: {e}")).at(&out)));
    }

    /// What the build script is re-run for (`cargo:rerun-if-changed`), relative to the project
    /// root: the inputs that exist, then the kernel folders. The kernel constants are the folders'
    /// kernels, so a kernel added, renamed or removed must reach the cases that name it (else rustc
    /// says `cannot find value` for a kernel the file declares); the folders are watched, not
    /// hashed into `BUILD`: a run reads the kernels themselves when it starts.
    pub fn watched(&self) -> Vec<String> {
        let inputs = self.inputs.iter().filter(|input| self.root.join(input).exists()).cloned();
        let folders = kernel_folders(&self.root)
            .unwrap_or_default()
            .into_iter()
            .map(|folder| folder.strip_prefix(&self.root).unwrap_or(&folder).display().to_string());
        let mut watched: Vec<String> = Vec::new();
        for path in inputs.chain(folders) {
            if !watched.contains(&path) {
                watched.push(path);
            }
        }
        watched
    }

    /// The text of [`OUT_FILE`] for this project, without writing it.
    ///
    /// # Errors
    /// The error [`Build::run`] stops with, at the file ([`Error::place`]): of the kinds
    /// [`ErrorKind::ProjectFile`], [`ErrorKind::Io`], [`ErrorKind::NoKernelFiles`],
    /// [`ErrorKind::ModuleClash`], or a kernel file's ([`kernel_file::declared`]).
    pub fn generate(&self) -> Result<String, Error> {
        let folders = kernel_folders(&self.root)?;
        let mut text = kernel_constants(&self.root, &folders)?;
        let inputs: Vec<&str> = self.inputs.iter().map(String::as_str).collect();
        text.push_str(&build_static(&self.root, &folders, &inputs));
        Ok(text)
    }
}

/// The kernel folders of the project at `root`: `kernels` in its `kernelgate.toml` (a folder or a
/// list of folders, relative to `root`), else `<root>/kernels`, as the library reads them at run
/// time. A key the file's table does not take ([`project_file::unknown_key`]) is refused as the
/// library refuses it, so that a misspelt `kernels` is not read as the default folder.
///
/// # Errors
/// [`ErrorKind::ProjectFile`] at the project file (and the line, where it names one), saying what
/// is wrong: TOML that does not parse, a key it does not know, a malformed `kernels`.
pub fn kernel_folders(root: &Path) -> Result<Vec<PathBuf>, Error> {
    let file = root.join(PROJECT_FILE);
    let Ok(text) = std::fs::read_to_string(&file) else { return Ok(vec![root.join("kernels")]) };
    let shown = file.strip_prefix(root).unwrap_or(&file).display().to_string();
    let refused = |message: String| Error::new(ErrorKind::ProjectFile, message).at(Path::new(&shown));
    let table = text.parse::<toml::Table>().map_err(|e| refused(e.to_string()))?;
    if let Some(unknown) = project_file::unknown_key(&text) {
        let place = format!("{shown}:{}", unknown.line);
        return Err(Error::new(ErrorKind::ProjectFile, unknown.to_string()).at(Path::new(&place)));
    }
    // What `kernels` is refused for is said at its line, as the library says it.
    let line = text.lines().position(|l| l.trim_start().starts_with("kernels")).map_or(0, |i| i + 1);
    let refused = |message: &str| {
        Error::new(ErrorKind::ProjectFile, format!("kernels {message}")).at(Path::new(&format!("{shown}:{line}")))
    };
    let folder = |v: &toml::Value| {
        v.as_str().map(|f| root.join(f)).ok_or_else(|| {
            refused(
                "takes a folder or a list of folders, relative to the project root (`kernels = \"kernels\"`, or \
                 `kernels = [\"src/cuda\", \"kernels\"]`)",
            )
        })
    };
    match table.get("kernels") {
        None => Ok(vec![root.join("kernels")]),
        Some(toml::Value::Array(list)) if !list.is_empty() => {
            let folders: Vec<PathBuf> = list.iter().map(folder).collect::<Result<_, _>>()?;
            // `kernels` and `./kernels/` are one folder, whose files would each be read twice.
            let plain =
                |p: &PathBuf| -> PathBuf { p.components().filter(|c| *c != std::path::Component::CurDir).collect() };
            match folders.iter().enumerate().find(|(i, f)| folders[..*i].iter().any(|g| plain(g) == plain(f))) {
                Some((_, again)) => Err(refused(&format!(
                    "names the folder {} twice; name each folder once",
                    again.strip_prefix(root).unwrap_or(again).display()
                ))),
                None => Ok(folders),
            }
        }
        Some(toml::Value::Array(_)) => Err(refused("names no folder; name at least one")),
        Some(one) => Ok(vec![folder(one)?]),
    }
}

/// Why a kernel folder of the project at `root` could not be listed (`error`), where it was named
/// and the fix: at the line of `kernelgate.toml` that names it, or as the default folder.
fn unreadable_folder(root: &Path, error: &std::io::Error) -> String {
    let text = std::fs::read_to_string(root.join(PROJECT_FILE)).unwrap_or_default();
    match text.lines().position(|l| l.trim_start().starts_with("kernels")) {
        Some(i) => format!(
            "cannot read the kernel folder ({error}), which {PROJECT_FILE}:{} names in `kernels`; create it, or name \
             the folders that hold the project's kernel files there (relative to {PROJECT_FILE}'s folder)",
            i + 1
        ),
        None => format!(
            "cannot read the kernel folder ({error}), the default one (no `kernels` in {PROJECT_FILE}); create it, or \
             name the folders that hold the project's kernel files in {PROJECT_FILE} at the project root: `kernels = \
             [\"src/cuda\"]`"
        ),
    }
}

/// The module `k`: one submodule per kernel file (`*.cu`, `*.ptx`) of `folders`, one constant per
/// kernel.
fn kernel_constants(root: &Path, folders: &[PathBuf]) -> Result<String, Error> {
    // Places as cargo's user reads them: from the project root.
    let rel = |path: &Path| path.strip_prefix(root).unwrap_or(path).to_path_buf();
    let io = |path: &Path, message: String| Error::new(ErrorKind::Io, message).at(&rel(path));
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in folders {
        let listed = std::fs::read_dir(dir).map_err(|e| io(dir, unreadable_folder(root, &e)))?;
        files.extend(
            listed
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|p| kernel_file::kind_of(&p.to_string_lossy()).is_some()),
        );
    }
    files.sort_by_key(|p| p.file_name().map(|n| n.to_os_string()));
    if files.is_empty() {
        return Err(Error::new(
            ErrorKind::NoKernelFiles,
            "no .cu, .ptx, .cubin or .fatbin files found; kernelgate needs at least one kernel source or prebuilt module",
        )
        .at(&rel(&folders[0])));
    }

    let mut modules = String::from(
        "/// The project's kernels: one module per kernel file, one constant per kernel (kernelgate_build).\n\
         #[allow(non_upper_case_globals, dead_code)]\npub mod k {\n",
    );
    let mut seen_modules: Vec<(String, String)> = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).map_err(|e| io(path, format!("cannot read: {e}")))?;
        let file = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let shown = rel(path).display().to_string();
        let text = kernel_file::kernel_text(&file, bytes, &shown).map_err(|e| e.at(&rel(path)))?;
        let module = entry_scan::module_name(&file);
        if let Some((_, other)) = seen_modules.iter().find(|(m, _)| *m == module) {
            return Err(Error::new(
                ErrorKind::ModuleClash,
                format!("maps to module `{module}`, like {other}; rename one of them"),
            )
            .at(&rel(path)));
        }
        seen_modules.push((module.clone(), shown.clone()));
        let declared = kernel_file::declared(&file, &text).map_err(|e| e.at(&rel(path)))?;

        writeln!(modules, "    /// Entry points of `{shown}`.").unwrap();
        writeln!(modules, "    pub mod {module} {{").unwrap();
        for (name, line) in &declared.entries {
            match line {
                0 => writeln!(modules, "        /// `{name}`, a kernel of `{shown}`.").unwrap(),
                _ => writeln!(modules, "        /// `{name}`, declared at `{shown}:{line}`.").unwrap(),
            }
            writeln!(
                modules,
                "        pub const {name}: ::kernelgate::Kernel = ::kernelgate::Kernel::new({file:?}, {name:?});"
            )
            .unwrap();
        }
        for (name, line) in &declared.templates {
            writeln!(
                modules,
                "        /// The kernel template `{name}`, declared at `{shown}:{line}`: a case launches \
                 `{name}.with(\"<template arguments>\")`."
            )
            .unwrap();
            writeln!(
                modules,
                "        pub const {name}: ::kernelgate::KernelTemplate = ::kernelgate::KernelTemplate {{ file: {file:?}, name: {name:?} }};"
            )
            .unwrap();
        }
        writeln!(modules, "    }}").unwrap();
    }
    modules.push_str("}\n");
    Ok(modules)
}

/// The static `BUILD`: the git state of the tree being built ([`provenance::read`]), the hash of
/// that commit's kernels ([`provenance::kernels_at_head`]) and of the files it was built from
/// ([`provenance::files_sha256`] of `inputs`). Not re-read on a commit or checkout: watching git's
/// HEAD and refs would rebuild the crate after every `git commit`; a run whose HEAD holds the files
/// this binary was built from is keyed to HEAD at run time instead.
fn build_static(root: &Path, kernels: &[PathBuf], inputs: &[&str]) -> String {
    let git = provenance::read(root, None, kernels).expect("read without a revision always answers");
    let opt = |o: Option<bool>| o.map_or("None".to_string(), |b| format!("Some({b})"));
    format!(
        "/// Where this binary's code came from (kernelgate_build): handed to the library with the case table.\n\
         #[allow(dead_code)]\n\
         pub static BUILD: ::kernelgate::Build = ::kernelgate::Build {{\n    \
         commit: {:?},\n    dirty: {},\n    kernels_dirty: {},\n    branch: {:?},\n    commit_time: {:?},\n    \
         subject: {:?},\n    state: {:?},\n    commit_kernels_sha256: {:?},\n    inputs: &{:?},\n    \
         inputs_sha256: {:?},\n}};\n",
        git.commit,
        opt(git.dirty),
        opt(git.kernels_dirty),
        git.branch,
        git.commit_time,
        git.subject,
        git.state.as_str(),
        provenance::kernels_at_head(root, kernels),
        inputs,
        provenance::files_sha256(&provenance::inputs_on_disk(root, inputs)),
    )
}

/// Stops the build with a message that names the file.
fn fail(e: &Error) -> ! {
    // Cargo shows a failed build script's stderr; a panic would add a backtrace to it.
    eprintln!("error: kernelgate build failed: {e}");
    std::process::exit(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    /// [`Build::generate`] of the project at `dir`, its error as (file, kind, message).
    fn generate(dir: &Path) -> Result<String, (PathBuf, ErrorKind, String)> {
        Build { root: dir.to_path_buf(), inputs: vec!["build.rs".into()] }
            .generate()
            .map_err(|e| (PathBuf::from(e.place().expect("at a file")), e.kind(), e.message().to_string()))
    }

    #[test]
    fn a_missing_kernel_folder_is_named_where_it_was_named() {
        let dir = project(&[("kernelgate.toml", "# the GPU code\nkernels = [\"gpu\"]\n")]);
        let (file, kind, message) = generate(dir.path()).unwrap_err();
        assert_eq!((file, kind), (PathBuf::from("gpu"), ErrorKind::Io));
        assert!(message.starts_with("cannot read the kernel folder ("), "{message}");
        assert!(message.contains("which kernelgate.toml:2 names in `kernels`; create it"), "{message}");
        let dir = project(&[("build.rs", "fn main() {}\n")]);
        let (file, _, message) = generate(dir.path()).unwrap_err();
        assert_eq!(file, PathBuf::from("kernels"));
        assert!(message.contains("the default one (no `kernels` in kernelgate.toml)"), "{message}");
        assert!(message.contains("`kernels = [\"src/cuda\"]`"), "{message}");
    }

    #[test]
    fn the_kernel_folders_are_watched_beside_the_inputs_that_exist() {
        let dir = project(&[
            ("gpu/sum.cu", "extern \"C\" __global__ void sum(float* a) { }\n"),
            ("src/cuda/copy.cu", "extern \"C\" __global__ void copy(float* a) { }\n"),
            ("kernelgate.toml", "kernels = [\"gpu\", \"./src/cuda\"]\n"),
            ("build.rs", "fn main() {}\n"),
        ]);
        let build = Build { root: dir.path().to_path_buf(), inputs: vec!["build.rs".into(), "tests".into()] };
        // `tests` does not exist: not watched. A kernel folder that is also an input is said once.
        assert_eq!(build.watched(), ["build.rs", "gpu", "src/cuda"]);
        let build = Build { root: dir.path().to_path_buf(), inputs: vec!["gpu".into()] };
        assert_eq!(build.watched(), ["gpu", "src/cuda"]);
        let plain = project(&[("kernels/copy.cu", "extern \"C\" __global__ void copy(float* a) { }\n")]);
        let build = Build { root: plain.path().to_path_buf(), inputs: vec!["build.rs".into()] };
        assert_eq!(build.watched(), ["kernels"], "the default folder, without a kernelgate.toml");
    }

    #[test]
    fn each_file_is_a_module_of_constants_and_the_build_state_follows() {
        let dir = project(&[
            ("kernels/copy.cu", "extern \"C\" __global__ void copy(float* a) { }\n"),
            ("gpu/sum.cu", "template <int B> __global__ void block_sum(float* a) { }\n"),
            ("kernelgate.toml", "kernels = [\"kernels\", \"gpu\"]\n"),
            ("build.rs", "fn main() {}\n"),
        ]);
        let text = generate(dir.path()).unwrap();
        assert!(text.contains("pub mod copy {"), "{text}");
        assert!(
            text.contains("pub const copy: ::kernelgate::Kernel = ::kernelgate::Kernel::new(\"copy.cu\", \"copy\");")
        );
        assert!(text.contains("pub const block_sum: ::kernelgate::KernelTemplate"), "{text}");
        assert!(text.contains("declared at `gpu/sum.cu:1`"), "{text}");
        assert!(text.contains("state: \"no repository\""), "{text}");
        assert!(text.contains("inputs: &[\"build.rs\"]"), "{text}");
    }

    #[test]
    fn a_prebuilt_ptx_module_is_a_module_of_its_entries_and_a_bad_one_stops_the_build() {
        let ptx = ".version 9.0\n.target sm_80\n.address_size 64\n\n.visible .entry softmax_warp(\n\t.param .u64 p0\n)\n{\n\tret;\n}\n";
        let dir = project(&[
            ("kernels/copy.cu", "extern \"C\" __global__ void copy(float* a) { }\n"),
            ("kernels/softmax.ptx", ptx),
        ]);
        let text = generate(dir.path()).unwrap();
        assert!(text.contains("pub mod softmax {"), "{text}");
        assert!(text.contains(
            "pub const softmax_warp: ::kernelgate::Kernel = ::kernelgate::Kernel::new(\"softmax.ptx\", \"softmax_warp\");"
        ), "{text}");
        assert!(text.contains("declared at `kernels/softmax.ptx:5`"), "{text}");
        // A .ptx and a .cu of one stem would be one module.
        let both = project(&[
            ("kernels/softmax.cu", "extern \"C\" __global__ void s(float* a) { }\n"),
            ("kernels/softmax.ptx", ptx),
        ]);
        let (path, kind, message) = generate(both.path()).unwrap_err();
        assert!(path.ends_with("kernels/softmax.ptx") && message.contains("module `softmax`"), "{message}");
        assert_eq!(kind, ErrorKind::ModuleClash);
        let not_ptx = project(&[("kernels/notes.ptx", "extern \"C\" __global__ void s(float* a) { }\n")]);
        let (path, kind, message) = generate(not_ptx.path()).unwrap_err();
        assert!(path.ends_with("kernels/notes.ptx") && message.contains("is not a PTX module"), "{message}");
        assert_eq!(kind, ErrorKind::NotModule);
    }

    #[test]
    fn a_bad_kernel_file_or_project_file_stops_the_build_naming_it() {
        let empty = project(&[("kernels/none.cu", "// nothing here\n")]);
        let (path, kind, message) = generate(empty.path()).unwrap_err();
        assert!(path.ends_with("kernels/none.cu"), "{}", path.display());
        assert_eq!(kind, ErrorKind::NoKernel);
        assert!(!message.is_empty());

        let twice = project(&[
            ("a/x.cu", "extern \"C\" __global__ void one() { }\n"),
            ("b/x.cu", "extern \"C\" __global__ void two() { }\n"),
            ("kernelgate.toml", "kernels = [\"a\", \"b\"]\n"),
        ]);
        let (path, _, message) = generate(twice.path()).unwrap_err();
        assert!(path.ends_with("b/x.cu") && message.contains("module `x`"), "{}: {message}", path.display());
        assert!(message.contains("like a/x.cu;"), "the other file is named: {message}");

        let malformed = project(&[("kernelgate.toml", "\nkernels = 3\n")]);
        let (path, kind, message) = generate(malformed.path()).unwrap_err();
        assert_eq!((kind, path), (ErrorKind::ProjectFile, PathBuf::from("kernelgate.toml:2")));
        assert!(message.starts_with("kernels takes a folder or a list of folders"), "{message}");
        assert!(message.contains("`kernels = [\"src/cuda\", \"kernels\"]`"), "the two forms: {message}");

        let again = project(&[
            ("kernels/a.cu", "extern \"C\" __global__ void a() { }\n"),
            ("kernelgate.toml", "kernels = [\"kernels\", \"./kernels/\"]\n"),
        ]);
        let (path, kind, message) = generate(again.path()).unwrap_err();
        assert!(path.ends_with("kernelgate.toml:1") && kind == ErrorKind::ProjectFile, "{}", path.display());
        assert!(message.contains("names the folder kernels twice"), "{message}");

        let none = project(&[("kernelgate.toml", "kernels = []\n")]);
        assert!(generate(none.path()).unwrap_err().2.contains("no folder"));
    }

    /// A misspelt `kernels` is refused, as the run refuses it, rather than read as the default
    /// folder (which here holds a kernel file, so the build would otherwise go on).
    #[test]
    fn an_unknown_key_of_the_project_file_stops_the_build_naming_its_line() {
        let dir = project(&[
            ("kernels/a.cu", "extern \"C\" __global__ void a() { }\n"),
            ("src/cuda/b.cu", "extern \"C\" __global__ void b() { }\n"),
            ("kernelgate.toml", "# the GPU code\nkernel = [\"src/cuda\"]\n"),
        ]);
        let (path, kind, message) = generate(dir.path()).unwrap_err();
        assert_eq!((kind, path), (ErrorKind::ProjectFile, PathBuf::from("kernelgate.toml:2")));
        assert!(
            message.starts_with("unknown key `kernel`; did you mean `kernels`? kernelgate.toml takes"),
            "{message}"
        );
        assert!(message.contains("rename the key, or remove it"), "the fix: {message}");
        let nested = project(&[
            ("kernels/a.cu", "extern \"C\" __global__ void a() { }\n"),
            ("kernelgate.toml", "[nvrtc]\nflags = [\"-DX=1\"]\n"),
        ]);
        let (path, _, message) = generate(nested.path()).unwrap_err();
        assert_eq!(path, PathBuf::from("kernelgate.toml:2"));
        assert!(message.starts_with("unknown key `flags` in [nvrtc]"), "{message}");
    }
}
