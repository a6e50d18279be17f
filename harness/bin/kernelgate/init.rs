//! `kernelgate init [DIR]`: scaffolds what a project needs to gate its kernels with kernelgate
//! (docs/adopting.md): `kernelgate.toml`, `build.rs`, `tests/kernels.rs` (the suite binary) over the
//! case table in `tests/kernel_cases/` with its checks without a GPU (`tests/kernel_cases_cpu.rs`),
//! an example kernel and its case (unless `--kernels` names existing kernel folders), `baselines/`, a `.gitignore` of what
//! runs leave (where there is none), and a GitHub Actions workflow for a GPU runner. In a Rust crate (DIR holds a `Cargo.toml`) it prints the lines to add
//! to that `Cargo.toml`; elsewhere (a CUDA C++ repository, a new folder) it writes a small crate's
//! `Cargo.toml` too. It never replaces a file: when one of them exists, it names every such file
//! and writes nothing.

use kernelgate::Error;
use std::path::{Path, PathBuf};

/// What `kernelgate init` was asked.
#[derive(Debug, Clone)]
pub struct Init {
    /// The crate's folder (created when missing).
    pub dir: PathBuf,
    /// Existing kernel folders, relative to `dir` (`../src/kernels`); empty: `kernels/` with an
    /// example kernel.
    pub kernels: Vec<String>,
    /// Where the crate takes kernelgate's crates from (until they are on crates.io).
    pub kernelgate: Source,
}

/// Where a project's `Cargo.toml` takes kernelgate's crates (`kernelgate`, `kernelgate-build`, and
/// the `nvtx-sys` patch) from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A kernelgate checkout on this machine. Inside the project's own git repository (a submodule,
    /// a vendored copy) it is named by a path relative to the crate, which a CI runner's checkout
    /// of the repository has too; elsewhere by its absolute path, which only this machine has.
    Checkout(PathBuf),
    /// A git repository cargo fetches (`git = URL`), at `rev` when given (a commit or tag).
    Git {
        /// The repository's URL, as `git clone` takes it.
        url: String,
        /// The revision, or `None` for the default branch's head (Cargo.lock pins it).
        rev: Option<String>,
    },
}

/// How the manifest names kernelgate's crates, worked out from a [`Source`] and the crate's folder.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Deps {
    /// `path = "<at>/harness"`; `absolute` when the checkout is outside the crate's repository.
    Path { at: String, absolute: bool, submodule: bool },
    /// `git = "<url>"`, `rev = "<rev>"` when given.
    Git { url: String, rev: Option<String> },
}

impl Deps {
    /// `checkout` (canonical) as the crate in `dir` names it: relative when both lie in one git
    /// repository's working tree, else absolute.
    fn of_checkout(checkout: &Path, dir: &Path) -> Deps {
        let submodule = checkout.join(".git").is_file();
        let here = canonical_future(dir);
        match repository_workdir(dir) {
            Some(top) if checkout.starts_with(&top) && here.starts_with(&top) => {
                Deps::Path { at: relative(&here, checkout), absolute: false, submodule }
            }
            _ => Deps::Path { at: checkout.display().to_string(), absolute: true, submodule },
        }
    }

    /// The dependency's location for the crate at `sub` of kernelgate's repository (`harness`,
    /// `harness/build`, `vendor/nvtx-sys`): `path = "..."`, or `git = "..."` with its `rev`.
    fn at(&self, sub: &str) -> String {
        match self {
            Deps::Path { at, .. } => format!("path = \"{at}/{sub}\""),
            Deps::Git { url, rev: Some(rev) } => format!("git = \"{url}\", rev = \"{rev}\""),
            Deps::Git { url, rev: None } => format!("git = \"{url}\""),
        }
    }
}

/// `path` with each `folder/..` pair removed, for showing (`gpu-tests/../.github` -> `.github`);
/// a leading `..` stays. Lexical: it reads no link.
fn tidy(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut kept: Vec<Component<'_>> = Vec::new();
    for part in path.components() {
        match (part, kept.last()) {
            (Component::ParentDir, Some(Component::Normal(_))) => {
                kept.pop();
            }
            (Component::CurDir, _) => {}
            _ => kept.push(part),
        }
    }
    if kept.is_empty() { PathBuf::from(".") } else { kept.iter().collect() }
}

/// `dir` made absolute with its symbolic links resolved, also when it does not exist yet (its
/// nearest existing folder is resolved, the missing tail kept as given).
fn canonical_future(dir: &Path) -> PathBuf {
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let Some(existing) = absolute.ancestors().find(|a| a.is_dir()) else { return absolute };
    let tail = absolute.strip_prefix(existing).unwrap_or(Path::new(""));
    std::fs::canonicalize(existing).unwrap_or_else(|_| existing.to_path_buf()).join(tail)
}

/// The working tree (canonical) of the git repository holding `dir` (or its nearest existing
/// folder), if any.
fn repository_workdir(dir: &Path) -> Option<PathBuf> {
    let here = canonical_future(dir);
    let existing = here.ancestors().find(|a| a.is_dir())?;
    let repo = git2::Repository::discover(existing).ok()?;
    repo.workdir().and_then(|w| std::fs::canonicalize(w).ok())
}

/// The path from folder `from` to `to`, both absolute and canonical: `../third_party/kernelgate`;
/// `.` when they are the same folder.
fn relative(from: &Path, to: &Path) -> String {
    let common = from.components().zip(to.components()).take_while(|(a, b)| a == b).count();
    let up = from.components().count() - common;
    let parts: Vec<String> = std::iter::repeat_n("..".to_string(), up)
        .chain(to.components().skip(common).map(|c| c.as_os_str().to_string_lossy().into_owned()))
        .collect();
    if parts.is_empty() { ".".into() } else { parts.join("/") }
}

/// The kernelgate checkout `given`, else the one this program runs from (the folder three above
/// `<checkout>/target/<profile>/kernelgate`), else the one it was built from (`cargo install
/// --path <checkout>/harness` copies the program out of the checkout): the first that holds
/// `harness/Cargo.toml`.
///
/// # Errors
/// [`Error::Flag`] when none is given and neither checkout is there (a staged copy, or a checkout
/// moved since the build), naming `--kernelgate`.
pub fn checkout(given: Option<PathBuf>) -> kernelgate::Result<PathBuf> {
    if let Some(given) = given {
        return Ok(given);
    }
    let exe = std::env::current_exe().and_then(std::fs::canonicalize).ok();
    let built_from = Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf);
    exe.as_deref()
        .and_then(|e| e.ancestors().nth(3))
        .map(Path::to_path_buf)
        .into_iter()
        .chain(built_from)
        .find(|c| c.join("harness/Cargo.toml").is_file())
        .ok_or_else(|| Error::Flag {
            flag: "--kernelgate",
            value: "(not given)".into(),
            expected: format!(
                "the folder of your kernelgate clone: this program ({}) does not run from one's target/ folder, and \
                 the clone it was built from ({}) is not there any more, so name it",
                exe.map_or_else(|| "unknown".to_string(), |e| e.display().to_string()),
                Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new("?")).display()
            ),
        })
}

/// One file to write: its path under the crate and its text.
type File = (PathBuf, String);

/// Writes the scaffold and prints what was written and what is left to do. Returns 0.
///
/// # Errors
/// [`Error::Config`] naming every file that exists already (nothing is written then), a kernel
/// folder that does not exist, or a kernelgate checkout without `harness/Cargo.toml`;
/// [`Error::Io`] when a file cannot be written.
pub fn init_command(init: &Init) -> kernelgate::Result<u8> {
    let deps = match &init.kernelgate {
        Source::Checkout(given) => {
            let checkout = std::fs::canonicalize(given).unwrap_or_else(|_| given.clone());
            if !checkout.join("harness/Cargo.toml").is_file() {
                return Err(Error::Flag {
                    flag: "--kernelgate",
                    value: given.display().to_string(),
                    expected: "a kernelgate checkout (no harness/Cargo.toml there): name the folder of your clone of \
                               kernelgate, whose crates the project depends on by path, or give --git URL"
                        .into(),
                });
            }
            Deps::of_checkout(&checkout, &init.dir)
        }
        Source::Git { url, rev } => {
            // Cargo takes a URL (https://, ssh://, file://) and, for `rev`, a commit id: anything else
            // fails only at the first build, far from this command.
            if !url.contains("://") {
                return Err(Error::Flag {
                    flag: "--git",
                    value: url.clone(),
                    expected: "a URL cargo can fetch: https://host/owner/kernelgate.git, ssh://git@host/owner/\
                               kernelgate.git (not scp's git@host:owner/kernelgate), or file:///path/to/clone"
                        .into(),
                });
            }
            if let Some(rev) = rev
                && (!(7..=40).contains(&rev.len()) || !rev.chars().all(|c| c.is_ascii_hexdigit()))
            {
                return Err(Error::Flag {
                    flag: "--rev",
                    value: rev.clone(),
                    expected: "a commit id, 7 to 40 hex digits (git rev-parse HEAD in your kernelgate clone); \
                               for a tag or a branch, write tag = or branch = in Cargo.toml instead"
                        .into(),
                });
            }
            Deps::Git { url: url.clone(), rev: rev.clone() }
        }
    };
    for folder in &init.kernels {
        let named = tidy(&init.dir.join(folder));
        if !named.is_dir() {
            return Err(Error::Flag {
                flag: "--kernels",
                value: folder.clone(),
                expected: format!(
                    "a kernel folder, relative to the crate's folder {}: it names {}, which is not a folder; name the \
                     kernel folders relative to the crate's folder, e.g. ../src/kernels",
                    init.dir.display(),
                    named.display()
                ),
            });
        }
    }
    let rust_crate = init.dir.join("Cargo.toml").is_file();
    let files = scaffold(init, &deps, rust_crate);
    let existing: Vec<String> = files
        .iter()
        .filter(|(path, _)| init.dir.join(path).exists())
        .map(|(path, _)| path.display().to_string())
        .collect();
    if !existing.is_empty() {
        return Err(Error::Project {
            path: init.dir.clone(),
            line: None,
            message: format!(
                "{} already exist{} here: kernelgate init never replaces a file; move {} aside, or add what \
                 docs/adopting.md shows by hand (nothing was written)",
                existing.join(", "),
                if existing.len() == 1 { "s" } else { "" },
                if existing.len() == 1 { "it" } else { "them" }
            ),
        });
    }
    for (path, text) in &files {
        let path = init.dir.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(Error::io(parent))?;
        }
        std::fs::write(&path, text).map_err(Error::io(&path))?;
        kernelgate::outln!("kernelgate init: wrote {}", tidy(&path).display());
    }
    if !files.iter().any(|(p, _)| p.as_path() == Path::new(".gitignore")) {
        kernelgate::outln!(
            "kernelgate init: add to {} (init does not edit it):\n{GITIGNORE}",
            init.dir.join(".gitignore").display()
        );
    }
    if rust_crate {
        kernelgate::outln!(
            "kernelgate init: add to {} (init does not edit it):\n{}",
            init.dir.join("Cargo.toml").display(),
            manifest_sections(&deps)
        );
    }
    if let Deps::Path { at, absolute: true, .. } = &deps {
        let whose = if repository_workdir(&init.dir).is_some() {
            "outside this crate's git repository"
        } else {
            "and this crate is in no git repository yet"
        };
        kernelgate::outln!(
            "kernelgate init: note: Cargo.toml names kernelgate's crates by the absolute path {at}, {whose}: a CI \
             runner's checkout will not find them there. To make it portable, edit the three `path = \"{at}/...\"` \
             entries: to a path relative to the crate once kernelgate is in the repository (git submodule add \
             <kernelgate's URL> third_party/kernelgate), or to `git = \"<URL>\", rev = \"<commit>\"` \
             (docs/adopting.md, \"Where the crates come from\"); init never rewrites a file, so running it again \
             with --kernelgate or --git needs the files it wrote moved aside first"
        );
    }
    let get_nvrtc = match &deps {
        Deps::Path { at, .. } => format!("{at}/scripts/get-nvrtc"),
        Deps::Git { url, .. } => format!("<a clone of {url}>/scripts/get-nvrtc"),
    };
    kernelgate::outln!(
        "kernelgate init: next, in {}: {get_nvrtc} . (once: NVRTC for the compile trials), then \
         KERNELGATE_BLESS=1 cargo test --release --test kernels -- compile/ (blesses the kernels' resource and \
         SASS tables: a kernel never blessed fails its compile trials), then cargo test --release --test kernels \
         (docs/adopting.md)",
        init.dir.display(),
    );
    Ok(0)
}

/// The files of the scaffold, paths relative to the crate.
fn scaffold(init: &Init, deps: &Deps, rust_crate: bool) -> Vec<File> {
    let mut files: Vec<File> = Vec::new();
    if !rust_crate {
        let name = init
            .dir
            .canonicalize()
            .ok()
            .or_else(|| Some(init.dir.clone()))
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .map(|n| n.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect())
            .filter(|n: &String| !n.is_empty() && !n.starts_with('-'))
            .unwrap_or_else(|| "kernel-tests".into());
        files.push((
            "Cargo.toml".into(),
            format!(
                "# The kernel tests of this repository (kernelgate init): `cargo test --release --test kernels`.\n\
                 [package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
                 # Its own workspace, whatever surrounds it.\n[workspace]\n\n{}",
                manifest_sections(deps)
            ),
        ));
        files.push(("src/lib.rs".into(), "//! The kernel tests live in tests/kernels.rs.\n".into()));
    }
    let kernels = if init.kernels.is_empty() {
        files.push(("kernels/scale.cu".into(), EXAMPLE_KERNEL.into()));
        "kernels = \"kernels\"".to_string()
    } else {
        format!("kernels = [{}]", init.kernels.iter().map(|k| format!("{k:?}")).collect::<Vec<_>>().join(", "))
    };
    files.push((
        "kernelgate.toml".into(),
        format!(
            "# Where this project keeps its kernels, baselines, history and run files (docs/running.md, \
             \"The project:\n# kernelgate.toml\"); every key is optional.\n{kernels}\n# baselines = \"baselines\"\n\
             # history = \".kernelgate/history\"\n# out_dir = \"target/kernelgate\"\n"
        ),
    ));
    files.push((
        "build.rs".into(),
        "//! Names the kernels of the folders kernelgate.toml lists, for tests/kernels.rs.\nfn main() {\n    \
         kernelgate_build::Build::new().run();\n}\n"
            .into(),
    ));
    files.push(("tests/kernels.rs".into(), SUITE.into()));
    files.push((
        "tests/kernel_cases/mod.rs".into(),
        if init.kernels.is_empty() { EXAMPLE_CASES } else { EMPTY_CASES }.into(),
    ));
    files.push(("tests/kernel_cases_cpu.rs".into(), CPU_CHECKS.into()));
    files.push(("baselines/.gitkeep".into(), String::new()));
    if !init.dir.join(".gitignore").exists() {
        files.push((".gitignore".into(), GITIGNORE.into()));
    }
    let (top, inside) = repository_top(&init.dir);
    let mut workflow = WORKFLOW.to_string();
    if let Deps::Path { submodule: true, absolute: false, .. } = deps {
        // kernelgate is a submodule of the repository: the runner's checkout needs it too.
        workflow = workflow.replace(
            "      - uses: actions/checkout@v4\n",
            "      - uses: actions/checkout@v4\n        with:\n          submodules: true\n",
        );
    }
    if !inside.is_empty() {
        workflow = workflow.replace(
            "    runs-on: [self-hosted, gpu]\n",
            &format!(
                "    runs-on: [self-hosted, gpu]\n    defaults:\n      run:\n        working-directory: {inside}\n"
            ),
        );
    }
    files.push((top.join(".github/workflows/kernelgate.yml"), workflow));
    files
}

/// Where GitHub reads workflows for a crate in `dir`: the path from `dir` to the top folder of the
/// git repository holding it (`../..`; empty outside a repository or at its top), and `dir` as the
/// repository names it (`tests/gpu`; empty at the top). `dir` may not exist yet: its nearest
/// existing folder is asked.
fn repository_top(dir: &Path) -> (PathBuf, String) {
    let Some(top) = repository_workdir(dir) else { return (PathBuf::new(), String::new()) };
    let here = canonical_future(dir);
    let Ok(inside) = here.strip_prefix(&top) else { return (PathBuf::new(), String::new()) };
    let depth = inside.components().count();
    let up: PathBuf = std::iter::repeat_n("..", depth).collect();
    (up, inside.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"))
}

/// The `Cargo.toml` sections a crate needs: the two crates from where `deps` says, the test
/// binary, and nvtx-sys with checked-in bindings (no libclang; docs/adopting.md, "Building without
/// libclang").
fn manifest_sections(deps: &Deps) -> String {
    format!(
        "[dev-dependencies]\nkernelgate = {{ {} }}\n\n\
         [build-dependencies]\nkernelgate-build = {{ {} }}\n\n\
         [[test]]\nname = \"kernels\"\npath = \"tests/kernels.rs\"\nharness = false\n\n\
         [profile.release]\ndebug = \"line-tables-only\"\n\n\
         [patch.crates-io]\nnvtx-sys = {{ {} }}\n",
        deps.at("harness"),
        deps.at("harness/build"),
        deps.at("vendor/nvtx-sys")
    )
}

/// What runs leave that is not the project's to commit: NVRTC and nvdisasm (`scripts/get-nvrtc`),
/// the history stores, the baseline folders' lock files, the run files.
const GITIGNORE: &str = ".nvrtc/\n.kernelgate/\n.kernelgate.lock\ntarget/\n";

/// The example kernel: `x[i] *= a`, one thread per element.
const EXAMPLE_KERNEL: &str = r#"// An example kernel (kernelgate init): replace it with your own.
extern "C" __global__ void scale(const float* x, float* out, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = a * x[i];
    }
}
"#;

/// The suite binary (`[[test]] harness = false`): the case table of `tests/kernel_cases/`.
const SUITE: &str = r#"//! This project's kernel trials (kernelgate init): `cargo test --release --test kernels` compiles
//! every kernel file, and on a GPU checks, times and gates every case of tests/kernel_cases/
//! (docs/adopting.md). tests/kernel_cases_cpu.rs checks the same cases without a GPU.

mod kernel_cases;

kernelgate::main!(kernelgate::case::Table::new(kernel_cases::cases, &kernel_cases::BUILD));
"#;

/// The table's checks that need no GPU, a test target of its own (libtest's harness: `#[test]`
/// runs), sharing the cases with the suite binary.
const CPU_CHECKS: &str = r#"//! The case table's checks that need no GPU (kernelgate init): `cargo test --release --test
//! kernel_cases_cpu`, in every CI job. Each case's reference runs on inputs drawn as a run draws
//! them and must return one buffer per compared parameter, of its length and type, and every
//! program step must fit its slots.

mod kernel_cases;

#[test]
fn every_reference_returns_the_buffers_its_case_compares() {
    // At the sizes the suite runs; give `cases` a size to check large tables at small ones.
    kernelgate::case::assert_references_fit(&kernel_cases::cases(1.0));
}
"#;

/// The example kernel's case.
const EXAMPLE_CASES: &str = r#"//! This project's cases (kernelgate init), shared by tests/kernels.rs (the GPU suite) and
//! tests/kernel_cases_cpu.rs (their checks without a GPU); docs/adding-kernels.md.

use kernelgate::case::{Case, Launch, Param};

kernelgate::kernels!(); // mod k: one module per kernel file, one constant per kernel; static BUILD

/// Every case; `_scale` is `KERNELGATE_WORK_SCALE` (1.0 unless a power benchmark asks for more work).
pub fn cases(_scale: f64) -> Vec<Case> {
    let n = 1 << 24;
    vec![
        Case::new("scale", "plain", "16M", k::scale::scale)
            .launch(Launch::linear(n, 256))
            .params([Param::input(n), Param::output(n), Param::F32(2.0), Param::I32(n as i32)])
            .reference(|inputs| vec![inputs[0].f32().iter().map(|x| 2.0 * x).collect()])
            .bytes(8 * n as u64),
    ]
}
"#;

/// The case table for existing kernel folders: none yet; the compile trials gate every file.
const EMPTY_CASES: &str = r#"//! This project's cases (kernelgate init), shared by tests/kernels.rs (the GPU suite) and
//! tests/kernel_cases_cpu.rs (their checks without a GPU). `cargo test --release --test kernels`
//! compiles every file of the kernel folders kernelgate.toml names (the compile trials), and on a
//! GPU checks, times and gates every case below (docs/adopting.md, docs/adding-kernels.md).

use kernelgate::case::Case;

kernelgate::kernels!(); // mod k: one module per kernel file, one constant per kernel; static BUILD

/// Every case: `Case::new(family, variant, size, k::<file>::<kernel>)` with its launch, parameters,
/// CPU reference and bytes (docs/adding-kernels.md). None yet: the compile trials run alone.
pub fn cases(_scale: f64) -> Vec<Case> {
    Vec::new()
}
"#;

/// A GitHub Actions workflow for a self-hosted GPU runner (docs/ci.md, docs/pull-requests.md).
const WORKFLOW: &str = r#"# kernelgate (kernelgate init): the kernel trials, and the case table's checks without a GPU, on a
# self-hosted GPU runner with Rust and a CUDA toolkit (NVRTC is found there); a runner labelled `gpu`. Pull requests: docs/pull-requests.md
# has the same-run A/B recipe; nightlies and history: docs/ci.md.
name: kernelgate
on: [push, pull_request]
jobs:
  kernels:
    runs-on: [self-hosted, gpu]
    env:
      # On the GPU runner, no GPU or no NVRTC fails the job: without them the trials would be
      # ignored and the job green with nothing checked (docs/options.md).
      KERNELGATE_REQUIRE_GPU: "1"
      KERNELGATE_REQUIRE_NVRTC: "1"
    steps:
      - uses: actions/checkout@v4
      - run: cargo test --release
"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn checkout() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("harness")).unwrap();
        std::fs::write(dir.path().join("harness/Cargo.toml"), "").unwrap();
        dir
    }

    #[test]
    fn a_new_folder_gets_a_crate_and_an_example_and_nothing_is_replaced() {
        let (kg, dir) = (checkout(), tempfile::tempdir().unwrap());
        let at = dir.path().join("gpu-tests");
        let init = Init { dir: at.clone(), kernels: Vec::new(), kernelgate: Source::Checkout(kg.path().into()) };
        assert_eq!(init_command(&init).unwrap(), 0);
        for f in [
            "Cargo.toml",
            "src/lib.rs",
            "kernelgate.toml",
            "build.rs",
            "tests/kernels.rs",
            "tests/kernel_cases/mod.rs",
            "tests/kernel_cases_cpu.rs",
            "kernels/scale.cu",
            ".gitignore",
        ] {
            assert!(at.join(f).is_file(), "{f}");
        }
        let manifest = std::fs::read_to_string(at.join("Cargo.toml")).unwrap();
        assert!(manifest.contains("name = \"gpu-tests\"") && manifest.contains("harness = false"), "{manifest}");
        assert!(manifest.contains(&format!("{}/harness", kg.path().canonicalize().unwrap().display())), "{manifest}");
        let cases = std::fs::read_to_string(at.join("tests/kernel_cases/mod.rs")).unwrap();
        assert!(cases.contains("k::scale::scale") && cases.contains("pub fn cases"), "{cases}");
        let suite = std::fs::read_to_string(at.join("tests/kernels.rs")).unwrap();
        assert!(suite.contains("mod kernel_cases;") && suite.contains("kernelgate::main!"), "{suite}");
        let cpu = std::fs::read_to_string(at.join("tests/kernel_cases_cpu.rs")).unwrap();
        assert!(cpu.contains("#[test]") && cpu.contains("assert_references_fit(&kernel_cases::cases(1.0))"), "{cpu}");
        // A second init (now in a crate) names what exists and writes nothing.
        std::fs::remove_file(at.join("build.rs")).unwrap();
        let err = init_command(&init).unwrap_err().to_string();
        for f in ["kernels/scale.cu", "kernelgate.toml", "tests/kernels.rs", ".github/workflows/kernelgate.yml"] {
            assert!(err.contains(f), "{f}: {err}");
        }
        assert!(!err.contains("build.rs"), "{err}");
        assert!(err.contains("never replaces a file") && err.contains("nothing was written"), "{err}");
        assert!(!at.join("build.rs").exists(), "nothing written");
    }

    #[test]
    fn a_rust_crate_with_kernel_folders_gets_no_manifest_and_no_example() {
        let (kg, dir) = (checkout(), tempfile::tempdir().unwrap());
        std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"mine\"\n").unwrap();
        std::fs::create_dir_all(dir.path().join("src/cuda")).unwrap();
        let init = Init {
            dir: dir.path().into(),
            kernels: vec!["src/cuda".into()],
            kernelgate: Source::Checkout(kg.path().into()),
        };
        init_command(&init).unwrap();
        assert_eq!(std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap(), "[package]\nname = \"mine\"\n");
        assert!(!dir.path().join("kernels").exists() && !dir.path().join("src/lib.rs").exists());
        let toml = std::fs::read_to_string(dir.path().join("kernelgate.toml")).unwrap();
        assert!(toml.contains("kernels = [\"src/cuda\"]"), "{toml}");
        assert!(std::fs::read_to_string(dir.path().join("tests/kernel_cases/mod.rs")).unwrap().contains("Vec::new()"));
    }

    #[test]
    fn in_a_repository_the_workflow_goes_to_its_top_and_runs_in_the_crate() {
        let (kg, dir) = (checkout(), tempfile::tempdir().unwrap());
        git2::Repository::init(dir.path()).unwrap();
        let at = dir.path().join("tests/gpu");
        let init = Init { dir: at.clone(), kernels: Vec::new(), kernelgate: Source::Checkout(kg.path().into()) };
        init_command(&init).unwrap();
        let workflow = std::fs::read_to_string(dir.path().join(".github/workflows/kernelgate.yml")).unwrap();
        assert!(workflow.contains("working-directory: tests/gpu"), "{workflow}");
        assert!(!at.join(".github").exists());
        // A runner that lost its GPU or NVRTC fails the job rather than passing with every trial ignored.
        for required in ["KERNELGATE_REQUIRE_GPU: \"1\"", "KERNELGATE_REQUIRE_NVRTC: \"1\""] {
            assert!(workflow.contains(required), "{workflow}");
        }
    }

    /// kernelgate inside the project's repository (a submodule): the manifest names it by a path
    /// relative to the crate, which the runner's checkout has too, and the workflow checks out
    /// submodules.
    #[test]
    fn a_checkout_inside_the_repository_is_named_by_a_relative_path() {
        let dir = tempfile::tempdir().unwrap();
        git2::Repository::init(dir.path()).unwrap();
        let kg = dir.path().join("third_party/kernelgate");
        std::fs::create_dir_all(kg.join("harness")).unwrap();
        std::fs::write(kg.join("harness/Cargo.toml"), "").unwrap();
        std::fs::write(kg.join(".git"), "gitdir: ../../.git/modules/kernelgate\n").unwrap();
        let at = dir.path().join("tests/gpu");
        init_command(&Init { dir: at.clone(), kernels: Vec::new(), kernelgate: Source::Checkout(kg) }).unwrap();
        let manifest = std::fs::read_to_string(at.join("Cargo.toml")).unwrap();
        for line in [
            "kernelgate = { path = \"../../third_party/kernelgate/harness\" }",
            "kernelgate-build = { path = \"../../third_party/kernelgate/harness/build\" }",
            "nvtx-sys = { path = \"../../third_party/kernelgate/vendor/nvtx-sys\" }",
        ] {
            assert!(manifest.contains(line), "{line}: {manifest}");
        }
        let workflow = std::fs::read_to_string(dir.path().join(".github/workflows/kernelgate.yml")).unwrap();
        assert!(workflow.contains("actions/checkout@v4\n        with:\n          submodules: true\n"), "{workflow}");
    }

    /// A checkout outside the crate's repository stays absolute (only this machine has it), and
    /// the workflow does not ask for submodules.
    #[test]
    fn a_checkout_outside_the_repository_is_named_by_its_absolute_path() {
        let (kg, dir) = (checkout(), tempfile::tempdir().unwrap());
        git2::Repository::init(dir.path()).unwrap();
        init_command(&Init {
            dir: dir.path().into(),
            kernels: Vec::new(),
            kernelgate: Source::Checkout(kg.path().into()),
        })
        .unwrap();
        let manifest = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
        let at = kg.path().canonicalize().unwrap();
        assert!(manifest.contains(&format!("kernelgate = {{ path = \"{}/harness\" }}", at.display())), "{manifest}");
        let workflow = std::fs::read_to_string(dir.path().join(".github/workflows/kernelgate.yml")).unwrap();
        assert!(!workflow.contains("submodules"), "{workflow}");
    }

    #[test]
    fn a_git_source_names_the_repository_and_its_revision() {
        let dir = tempfile::tempdir().unwrap();
        let git = Source::Git { url: "https://example.com/kernelgate.git".into(), rev: Some("b24550b".into()) };
        init_command(&Init { dir: dir.path().into(), kernels: Vec::new(), kernelgate: git }).unwrap();
        let manifest = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
        for name in ["kernelgate", "kernelgate-build", "nvtx-sys"] {
            let line = format!("{name} = {{ git = \"https://example.com/kernelgate.git\", rev = \"b24550b\" }}");
            assert!(manifest.contains(&line), "{line}: {manifest}");
        }
        assert!(!manifest.contains("{ path"), "{manifest}");
        let deps = Deps::Git { url: "u".into(), rev: None };
        assert_eq!(deps.at("harness"), "git = \"u\"");
    }

    #[test]
    fn a_git_url_or_revision_cargo_cannot_take_is_refused_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let init = |url: &str, rev: Option<&str>| Init {
            dir: dir.path().into(),
            kernels: Vec::new(),
            kernelgate: Source::Git { url: url.into(), rev: rev.map(Into::into) },
        };
        let err = init_command(&init("git@github.com:o/kernelgate", None)).unwrap_err().to_string();
        assert!(err.contains("--git") && err.contains("a URL cargo can fetch"), "{err}");
        let err = init_command(&init("https://example.com/kernelgate.git", Some("HEAD"))).unwrap_err().to_string();
        assert!(err.contains("--rev") && err.contains("a commit id, 7 to 40 hex digits"), "{err}");
        assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none(), "nothing written");
        init_command(&init("https://example.com/kernelgate.git", Some("b24550be"))).unwrap();
    }

    #[test]
    fn shown_paths_lose_their_folder_and_parent_pairs() {
        assert_eq!(
            tidy(Path::new("gpu-tests/../.github/workflows/kernelgate.yml")),
            Path::new(".github/workflows/kernelgate.yml")
        );
        assert_eq!(tidy(Path::new("../a/./b/../c")), Path::new("../a/c"));
        assert_eq!(tidy(Path::new("a/..")), Path::new("."));
    }

    #[test]
    fn relative_paths_climb_to_the_common_folder() {
        assert_eq!(relative(Path::new("/r/tests/gpu"), Path::new("/r/third_party/kg")), "../../third_party/kg");
        assert_eq!(relative(Path::new("/r"), Path::new("/r/kg")), "kg");
        assert_eq!(relative(Path::new("/r/a"), Path::new("/r")), "..");
        assert_eq!(relative(Path::new("/r"), Path::new("/r")), ".");
    }

    /// A program that does not run from a checkout's `target/<profile>/` (this test binary runs from
    /// `target/release/deps/`, as `cargo install` puts one in `~/.cargo/bin/`) finds the checkout
    /// it was built from; one built from the published crate, which no checkout holds, asks for
    /// `--kernelgate`.
    #[test]
    fn the_checkout_defaults_to_the_one_the_program_was_built_from() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        if repo.join("harness/Cargo.toml").is_file() {
            assert_eq!(super::checkout(None).unwrap(), repo);
        } else {
            let err = super::checkout(None).unwrap_err().to_string();
            assert!(err.contains("--kernelgate") && err.contains("so name it"), "{err}");
        }
        assert_eq!(super::checkout(Some("/elsewhere".into())).unwrap(), Path::new("/elsewhere"));
    }

    #[test]
    fn a_missing_kernel_folder_or_checkout_is_refused_by_name() {
        let (kg, dir) = (checkout(), tempfile::tempdir().unwrap());
        let init = Init {
            dir: dir.path().into(),
            kernels: vec!["../nowhere".into()],
            kernelgate: Source::Checkout(kg.path().into()),
        };
        let err = init_command(&init).unwrap_err().to_string();
        assert!(err.contains("--kernels \"../nowhere\" is invalid: a kernel folder, relative to the crate's"), "{err}");
        let init =
            Init { dir: dir.path().into(), kernels: Vec::new(), kernelgate: Source::Checkout(dir.path().join("x")) };
        let err = init_command(&init).unwrap_err().to_string();
        assert!(
            err.contains("--kernelgate") && err.contains("a kernelgate checkout (no harness/Cargo.toml there)"),
            "{err}"
        );
        assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none(), "nothing written");
        // A crate's folder that init is to create: its kernel folder is named from it all the same.
        let repo = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(repo.path().join("src/kernels")).unwrap();
        let init = Init {
            dir: repo.path().join("gpu-tests"),
            kernels: vec!["../src/kernels".into()],
            kernelgate: Source::Checkout(kg.path().into()),
        };
        init_command(&init).unwrap();
        assert!(repo.path().join("gpu-tests/kernelgate.toml").is_file());
    }
}
