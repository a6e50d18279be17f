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
    // kernelgate as a submodule of the repository: the runner's checkout needs it too.
    let submodules = matches!(deps, Deps::Path { submodule: true, absolute: false, .. });
    files.push((top.join(".github/workflows/kernelgate.yml"), workflow(submodules, &inside)));
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
    // Small sizes: each reference runs on the CPU over every case's inputs.
    kernelgate::case::assert_references_fit(&kernel_cases::sized(1 << 12));
}
"#;

/// The example kernel's case.
const EXAMPLE_CASES: &str = r#"//! This project's cases (kernelgate init), shared by tests/kernels.rs (the GPU suite) and
//! tests/kernel_cases_cpu.rs (their checks without a GPU); docs/adding-kernels.md.

use kernelgate::case::{Case, Launch, Param};

kernelgate::kernels!(); // mod k: one module per kernel file, one constant per kernel; static BUILD

/// Every case, as the suite runs them; `_scale` is `KERNELGATE_WORK_SCALE` (1.0 unless a power
/// benchmark asks for more work).
pub fn cases(_scale: f64) -> Vec<Case> {
    sized(1 << 24)
}

/// Every case at `n` elements: the suite's size above, a small one for the checks without a GPU
/// (tests/kernel_cases_cpu.rs), whose references run on the CPU.
pub fn sized(n: usize) -> Vec<Case> {
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

/// Every case, as the suite runs them; `_scale` is `KERNELGATE_WORK_SCALE` (1.0 unless a power
/// benchmark asks for more work).
pub fn cases(_scale: f64) -> Vec<Case> {
    sized(1 << 24)
}

/// Every case at `n` elements (the suite's size above; a small one for the checks without a GPU,
/// tests/kernel_cases_cpu.rs): `Case::new(family, variant, size, k::<file>::<kernel>)` with its
/// launch, parameters, CPU reference and bytes (docs/adding-kernels.md). None yet: the compile
/// trials run alone.
pub fn sized(_n: usize) -> Vec<Case> {
    Vec::new()
}
"#;

/// A GitHub Actions workflow for a self-hosted GPU runner labelled `gpu` (docs/ci.md,
/// docs/pull-requests.md): a push checks, times and gates every case against the baseline; a pull
/// request times both sides in one process, a same-run A/B against the merge base, which needs no
/// baseline and cancels the runner's offset. The build (`CARGO_TARGET_DIR`) and the history
/// (`KERNELGATE_HISTORY`) are kept in the runner's tool cache, per repository: `actions/checkout`
/// deletes the checkout's ignored folders before each job. `submodules` when kernelgate is a
/// submodule of the repository; `inside` is the crate's folder in the repository (`tests/gpu`;
/// empty at its top), where every step runs and the run files are.
fn workflow(submodules: bool, inside: &str) -> String {
    let submodules = if submodules { "          submodules: true\n" } else { "" };
    let (defaults, runs) = match inside {
        "" => (String::new(), "target/kernelgate/runs/".to_string()),
        _ => (
            format!("    defaults:\n      run:\n        working-directory: {inside}\n"),
            format!("{inside}/target/kernelgate/runs/"),
        ),
    };
    format!(
        r#"# kernelgate (kernelgate init): the kernel trials on a self-hosted GPU runner labelled `gpu`, with
# Rust and a CUDA toolkit whose NVRTC is no newer than the driver (docs/adopting.md). A push is
# gated against baselines/ (bless the runner's GPU first: docs/baselines.md); a pull request is a
# same-run A/B against its merge base (docs/pull-requests.md: the report as a comment, and why a
# public repository's forks must not run on a self-hosted runner). Nightlies, pools: docs/ci.md.
name: kernelgate
on: [push, pull_request]
permissions:
  contents: read
jobs:
  kernels:
    runs-on: [self-hosted, gpu]
{defaults}    env:
      # On the GPU runner, no GPU or no NVRTC fails the job: without them the trials would be
      # ignored and the job green with nothing checked (docs/options.md).
      KERNELGATE_REQUIRE_GPU: "1"
      KERNELGATE_REQUIRE_NVRTC: "1"
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0 # A/B reads the merge base's kernels, and runs are keyed to commits
{submodules}      - name: Keep the build and the history on the runner
        run: |
          keep="$RUNNER_TOOL_CACHE/kernelgate/$GITHUB_REPOSITORY"
          echo "CARGO_TARGET_DIR=$keep/target" >> "$GITHUB_ENV"
          echo "KERNELGATE_HISTORY=$keep/history" >> "$GITHUB_ENV"
      - name: Check, time and gate against the baseline
        if: github.event_name == 'push'
        run: cargo test --release
      - name: Same-run A/B against the merge base
        if: github.event_name == 'pull_request'
        run: |
          cargo test --release --test kernel_cases_cpu
          KERNELGATE_AB="$(git merge-base "origin/$GITHUB_BASE_REF" HEAD)" cargo test --release --test kernels
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: kernelgate
          path: {runs}
"#
    )
}

#[cfg(test)]
mod tests;
