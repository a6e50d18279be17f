//! What the tests that run the suite binary share: finding it, running it without a GPU, and the
//! switches that make a missing tool a failure in CI instead of a skipped check; [`chromium`] for
//! the tests that open a report in a browser, [`github`] for those that render a comment as GitHub
//! would, [`markdown`] for those that read the docs.

#![allow(dead_code)]

pub mod chromium;
pub mod github;
pub mod markdown;

use std::path::{Path, PathBuf};
use std::process::Command;

/// A command for one of this crate's programs, without the `KERNELGATE_*` variables of the
/// environment `cargo test` ran in, but `KERNELGATE_NVRTC` and `KERNELGATE_NVDISASM` (where the
/// compile tools are) and the
/// `KERNELGATE_REQUIRE_*` switches of CI: each test sets what it needs, and a variable the user
/// set for the suite (`KERNELGATE_NCU=1`) or mistyped (a misspelt name, which every program
/// refuses with exit 2) does not change what a test's child does. The suite itself
/// (`tests/kernels.rs`) still reads them, and refuses the typo with its message.
pub fn command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut cmd = Command::new(program);
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy();
        let kept = k == "KERNELGATE_NVRTC" || k == "KERNELGATE_NVDISASM" || k.starts_with("KERNELGATE_REQUIRE_");
        if k.starts_with("KERNELGATE_") && !kept {
            cmd.env_remove(k.as_ref());
        }
    }
    cmd
}

/// The suite binary (`cargo test --release --test kernels`'s executable, `kernels-<hash>` beside
/// this test's own executable in `target/<profile>/deps/`), the newest if there are several.
///
/// # Panics
/// When there is none (a `cargo test --test <this test>` alone does not build it): the message
/// names the command that builds it; an older binary than the newest library is only noted.
pub fn kernels_binary() -> PathBuf {
    let me = std::env::current_exe().unwrap();
    let deps = me.parent().unwrap();
    let newest = |prefix: &str, suffix: &str| newest_in(deps, prefix, suffix);
    let build = "cargo test --release --test kernels --no-run (a whole `cargo test --release` builds it too)";
    let (built, kernels) =
        newest("kernels-", "").unwrap_or_else(|| panic!("no suite binary in {}; {build}", deps.display()));
    // A warning, not a failure: `cargo build` next to `cargo test` writes a second library of
    // another hash (the dev-dependencies change the features), newer than a suite binary that is
    // up to date.
    if let Some((lib, _)) = newest("libkernelgate-", ".rlib")
        && built < lib
    {
        eprintln!("note: {} is older than the newest kernelgate library; if it is stale: {build}", kernels.display());
    }
    kernels
}

/// The newest file of `deps` named `<prefix>...<suffix>` (without a `.` when `suffix` has none), and
/// when it was written; examples/adopter's suite binary, which .ci/run builds into this target
/// folder under the same name, is left out (its dep-info names the example's build output).
fn newest_in(deps: &Path, prefix: &str, suffix: &str) -> Option<(std::time::SystemTime, PathBuf)> {
    std::fs::read_dir(deps)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with(prefix) && name.ends_with(suffix) && (suffix.contains('.') || !name.contains('.'))
        })
        .filter(|e| {
            let info = e.path().with_extension("d");
            !std::fs::read_to_string(info).is_ok_and(|d| d.contains("kernelgate-example-adopter"))
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max()
}

/// The `kernelgate` program (the library package's binary, `target/<profile>/kernelgate`, which a
/// `cargo test` of the workspace builds), as a path for [`command`].
///
/// # Panics
/// When it is not built: the message names the command that builds it.
pub fn kernelgate_binary() -> &'static str {
    static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        let me = std::env::current_exe().unwrap();
        let profile = me.parent().and_then(Path::parent).unwrap();
        let program = profile.join("kernelgate");
        let build = "`cargo build --release -p kernelgate --bin kernelgate` builds it (a whole `cargo test --release` \
                     builds it too; `cargo test --test <one>` of this package does not)";
        assert!(program.is_file(), "no kernelgate program at {}; {build}", program.display());
        // A warning, as for the suite binary: a program older than the library it was built from
        // runs yesterday's code.
        let written = std::fs::metadata(&program).and_then(|m| m.modified()).ok();
        if let (Some(program_time), Some((lib_time, _))) =
            (written, newest_in(&profile.join("deps"), "libkernelgate-", ".rlib"))
            && program_time < lib_time
        {
            eprintln!(
                "note: {} is older than the newest kernelgate library; if it is stale: {build}",
                program.display()
            );
        }
        program.display().to_string()
    })
}

/// A folder holding the shipped suite's case facts (`kernelgate::case::facts`), as a run of the
/// suite binary writes them into its output folder: the `kernelgate` program's `compile`,
/// `compare`, `diff`, `bisect` and `history gate` read them from `KERNELGATE_OUT_DIR`. Written once
/// per test process.
pub fn case_facts_dir() -> &'static Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        write_case_facts(dir.path());
        dir
    })
    .path()
}

/// Writes the shipped suite's case facts into the output folder `out_dir`, as a run of the suite
/// binary there would.
pub fn write_case_facts(out_dir: &Path) {
    let mut every = kernelgate_lessons::all();
    every.extend(kernelgate::case::planted::cases());
    kernelgate::case::facts::Facts::of(&every, kernelgate_lessons::BUILD.inputs).write(out_dir).unwrap();
}

/// The suite binary run from the project root with `args` and `env`, without history or notes,
/// its outputs under `out`; returns the exit code and stdout + stderr.
pub fn kernels(args: &[&str], env: &[(&str, &Path)], out: &Path) -> (i32, String) {
    let mut cmd = command(kernels_binary());
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .env("KERNELGATE_HISTORY", "off")
        .env("KERNELGATE_OUT_DIR", out)
        .env_remove("KERNELGATE_JUNIT")
        .env_remove("KERNELGATE_BASELINES")
        .env_remove("KERNELGATE_BLESS")
        .env_remove("KERNELGATE_NOTES");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)),
    )
}

/// Whether `KERNELGATE_REQUIRE_<what>` asks for a tool to be there: unset or `0` no, `1` yes.
///
/// # Panics
/// On any other value.
pub fn required(what: &str) -> bool {
    let name = format!("KERNELGATE_REQUIRE_{what}");
    match std::env::var(&name).as_deref() {
        Err(_) | Ok("0") => false,
        Ok("1") => true,
        Ok(other) => panic!("{name}={other:?} is invalid: use 1 (fail without it) or 0"),
    }
}

/// A check that cannot run here for want of a tool the README's prerequisites do not name
/// (python3, xmllint, chromium, NVRTC): fails the test under `KERNELGATE_REQUIRE_<what>=1` (CI
/// sets them), else says `why` on stderr and the test goes on without the check. Written straight
/// to stderr: libtest captures a passing test's `eprintln!`, and a skipped check must be seen.
///
/// # Panics
/// Under `KERNELGATE_REQUIRE_<what>=1`, with `why`.
pub fn skip_without(what: &str, why: &str) {
    use std::io::Write as _;
    assert!(!required(what), "{why} (KERNELGATE_REQUIRE_{what}=1 makes this a failure)");
    let _ = writeln!(std::io::stderr().lock(), "skipped: {why}; set KERNELGATE_REQUIRE_{what}=1 to fail instead");
}

/// Whether `python3` runs here; without it, [`skip_without`] says that `check` was skipped, or
/// fails the test under `KERNELGATE_REQUIRE_PYTHON=1` (CI). python3 is not one of the README's
/// prerequisites (`.ci/run` installs it).
pub fn python3_found(check: &str) -> bool {
    match Command::new("python3").arg("--version").output() {
        Ok(o) if o.status.success() => true,
        Ok(o) => {
            skip_without("PYTHON", &format!("python3 --version failed ({}), so {check} did not run", o.status));
            false
        }
        Err(e) => {
            skip_without("PYTHON", &format!("python3 could not be run ({e}), so {check} did not run"));
            false
        }
    }
}

/// Whether NVRTC can be loaded; without it, says why on stderr, or fails the test under
/// `KERNELGATE_REQUIRE_NVRTC=1` (CI).
pub fn nvrtc_found() -> bool {
    match kernelgate::compile::nvrtc_available() {
        Ok(()) => true,
        Err(e) => {
            skip_without("NVRTC", &e.to_string());
            false
        }
    }
}

/// Whether NVRTC and nvdisasm (the SASS gate's tools) can be used; without them, says why on
/// stderr, or fails the test under `KERNELGATE_REQUIRE_NVRTC=1` (CI), which requires both.
pub fn compile_tools_found() -> bool {
    if !nvrtc_found() {
        return false;
    }
    match kernelgate::sass::nvdisasm::load() {
        Ok(_) => true,
        Err(e) => {
            skip_without("NVRTC", &e.to_string());
            false
        }
    }
}

/// A copy of the folder `from` at `to`.
pub fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}
