//! The run's JUnit report (`KERNELGATE_JUNIT`): where it goes (one file per process under
//! cargo-nextest), what each trial's outcome and kind are, what the run knew (the properties).

use super::Suite;
use super::verdict::{CounterCheck, check_counters, sanitize_failure};
use crate::report::events::Event;
use crate::report::junit::{self, Outcome, TrialOutcome};
use crate::{error::Error, report};
use std::path::{Path, PathBuf};

/// Failure kinds (the `type` of a JUnit `<failure>`), one per thing that can fail a judged trial;
/// a trial failed by several carries them joined by `+` in this order (`counter-expectation+regressed`).
/// A performance verdict that fails the trial (`KERNELGATE_FAIL_ON`: `regressed` by default, also
/// `invalid`, `ambiguous`, ...) is its own kind, named as the verdict is
/// (`crate::gate::Verdict::as_str`).
pub mod kind {
    /// A compile trial's resource gate (registers, spills, occupancy against `resources.csv`).
    pub const RESOURCE_GATE: &str = "resource-gate";
    /// A compile trial's other checks: the entry points `build.rs` listed, NVRTC's ptxas report.
    pub const COMPILE_CHECK: &str = "compile-check";
    /// A compile trial's SASS gate (instruction classes against `sass/opcodes.csv`).
    pub const SASS_GATE: &str = "sass-gate";
    /// A case's declared SASS expectation failed (`crate::sass::SassExpectation`).
    pub const SASS_EXPECTATION: &str = "sass-expectation";
    /// The check found a wrong result against the CPU reference (`crate::check`).
    pub const WRONG_RESULT: &str = "wrong-result";
    /// A counter expectation failed (`KERNELGATE_NCU=1`, `crate::expect`).
    pub const COUNTER_EXPECTATION: &str = "counter-expectation";
    /// A lesson trial's verdict that `KERNELGATE_FAIL_ON` lists: the ratio good / bad above its
    /// bound (`broken`), or, when listed, straddling it or not judged (`crate::gate::lesson`).
    pub const LESSON: &str = "lesson";
    /// compute-sanitizer reported the trial (`KERNELGATE_SANITIZE`).
    pub const SANITIZER: &str = "sanitizer";
    /// The trial faulted, died or hung in the checked child (`KERNELGATE_ISOLATE=1`).
    pub const CHECKED_CHILD: &str = "checked-child";
    /// An `<error>`: a trial that did not run (every GPU lost; no GPU under
    /// `KERNELGATE_REQUIRE_GPU=1`; a trial that cannot run here under cargo-nextest,
    /// `crate::suite::cannot_run`).
    pub const NOT_RUN: &str = "not-run";
    /// An `<error>`: any other harness fault (a driver error, NVRTC missing or failing, a baseline
    /// or table that cannot be read).
    pub const HARNESS: &str = "harness";
}

/// Checks the files and folders the run was asked to write before any trial runs, as every other
/// option is checked: `KERNELGATE_JUNIT`, `KERNELGATE_RUN_FILE` and, in an A/B run,
/// `GITHUB_STEP_SUMMARY` ([`crate::output::check`]: not a folder, its folder exists and can be
/// written, not a device every write to fails, a name a file system takes; a device or FIFO is
/// accepted and written in place), and `KERNELGATE_OUT_DIR`, `KERNELGATE_HISTORY`
/// ([`crate::output::check_folder`]: a folder, or one that can be made), or the `out_dir` and
/// `history` that `kernelgate.toml` names where the variables do not. A CI job that asked for a
/// report learns at once (exit code 2) rather than after the run.
///
/// # Errors
/// [`Error::Config`] naming the first variable that fails, its value and the fix;
/// [`Error::Project`] naming `kernelgate.toml` and the key for a folder it names.
pub(super) fn check_output_paths(
    config: &crate::config::Config,
    project: &crate::project::Project,
) -> crate::error::Result<()> {
    use crate::config::{History, vars};
    let refuse = |name: &'static str, path: &Path| {
        let value = path.display().to_string();
        move |expected| Error::Config { name, value, expected }
    };
    let outputs = [(&vars::JUNIT, &config.junit, "junit.xml"), (&vars::RUN_FILE, &config.run_file, "run.txt")];
    for (var, path, example) in outputs {
        if let Some(path) = path {
            crate::output::check(path, example).map_err(|e| refuse(var.name, path)(e.reason))?;
        }
    }
    let history = match &config.history {
        History::Dir(dir) => Some(dir),
        History::Default | History::Off => None,
    };
    for (var, dir) in [(&vars::OUT_DIR, config.out_dir.as_ref()), (&vars::HISTORY, history)] {
        if let Some(dir) = dir {
            crate::output::check_folder(dir).map_err(|e| refuse(var.name, dir)(e.reason))?;
        }
    }
    if let Some(file) = &project.file {
        // A variable set was checked above; the folders the file named (or the defaults) here.
        let history = project.history.as_ref().filter(|_| matches!(config.history, History::Default));
        let from_file = [("out_dir", config.out_dir.is_none().then_some(&project.out_dir)), ("history", history)];
        for (key, dir) in from_file {
            if let Some(dir) = dir {
                crate::output::check_folder(dir).map_err(|e| Error::Project {
                    path: file.clone(),
                    line: None,
                    message: format!("{key} = {:?}: {}", dir.display().to_string(), e.reason),
                })?;
            }
        }
    }
    // KERNELGATE_BASELINES names an existing folder; a bless makes it.
    if let Some(dir) = &config.baselines {
        if config.bless {
            crate::output::check_folder(dir).map_err(|e| refuse(vars::BASELINES.name, dir)(e.reason))?;
        } else if !dir.is_dir() {
            let what = if dir.exists() { "it names a file, not a folder" } else { "no such folder" };
            return Err(refuse(vars::BASELINES.name, dir)(format!(
                "{what}: name the folder of the per-GPU baselines (a run with KERNELGATE_BLESS=1 makes it), or unset \
                 it for the project's (`baselines` in kernelgate.toml, default <project root>/baselines)"
            )));
        }
    }
    // The A/B report's summary for GitHub's job page (crate::suite::ab_report), appended to.
    if config.ab.is_some()
        && let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|s| !s.is_empty())
    {
        let path = Path::new(&summary);
        crate::output::check(path, "summary.md").map_err(|e| refuse("GITHUB_STEP_SUMMARY", path)(e.reason))?;
    }
    Ok(())
}

/// The file one process writes its JUnit report to (pure). Outside cargo-nextest, `path` itself.
/// Under nextest (`nextest` true: `NEXTEST=1`, which nextest sets in every test process) each
/// process runs one trial, and a shared `path` would keep only the last process's: there the
/// report goes to `<stem>.<trial>.<ext>` beside it (`ci/junit.xml` -> `ci/junit.transpose+naive+4096x4096.xml`),
/// the trial's name with `/` as `+` and any character outside `[A-Za-z0-9._-]` as `_` (trial names
/// hold none), or `<stem>.pid-<pid>.<ext>` when the process runs other than exactly one trial. A
/// retry of a trial (nextest's `--retries`) writes over its earlier attempt's file. CI systems
/// read such files by a glob (`ci/junit.*.xml`; docs/ci.md).
pub(super) fn process_path(path: &Path, nextest: bool, trials: &[String], pid: u32) -> PathBuf {
    if !nextest {
        return path.to_path_buf();
    }
    let tag = match trials {
        [one] => one
            .chars()
            .map(|c| match c {
                '/' => '+',
                c if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') => c,
                _ => '_',
            })
            .collect(),
        _ => format!("pid-{pid}"),
    };
    let stem = path.file_stem().map_or_else(|| "junit".into(), |s| s.to_string_lossy().into_owned());
    let name = match path.extension() {
        Some(ext) => format!("{stem}.{tag}.{}", ext.to_string_lossy()),
        None => format!("{stem}.{tag}"),
    };
    path.with_file_name(name)
}

/// Writes the JUnit XML of the run to `KERNELGATE_JUNIT` ([`process_path`] under nextest), whole
/// or not at all ([`report::write_whole`]): one testcase per trial in `names` (those not filtered
/// out), in that order; a trial that never ran (ignored at discovery) is skipped with the reason; a
/// failure is a `<failure>` or an `<error>` as [`junit_outcome`] tells them apart, with its kind;
/// the `<testsuite>` has the run's start, the host and [`properties`]. Does nothing without
/// `KERNELGATE_JUNIT`.
///
/// # Errors
/// [`Error::Io`] naming the report's path when it could not be written (the previous report is
/// left as it was): a report that was asked for and not written fails the run.
pub(super) fn write_junit(suite: &Suite, names: &[String]) -> crate::error::Result<()> {
    let Some(asked) = &suite.config.junit else { return Ok(()) };
    let nextest = std::env::var_os("NEXTEST").is_some_and(|v| v == "1");
    // A device or FIFO is the one sink of every process (its reader gets each report in turn).
    let sink = crate::output::at(&crate::output::resolve(asked)).in_place();
    let path = process_path(asked, nextest && !sink, names, std::process::id());
    let ran = suite.collected.outcomes.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let reason = suite.no_gpu.clone().unwrap_or_else(|| "not run".to_string());
    let trials: Vec<TrialOutcome> = names
        .iter()
        .map(|name| match ran.iter().find(|t| &t.name == name) {
            Some(t) => junit_outcome(suite, t),
            None => TrialOutcome::new(name.clone(), 0.0, Outcome::Skipped(reason.clone())),
        })
        .collect();
    let run = junit::Run {
        name: "kernelgate".into(),
        timestamp: junit::timestamp(&suite.run_id),
        hostname: hostname(),
        properties: properties(suite),
    };
    let xml = junit::render(&run, &trials);
    report::write_whole(&[(&path, xml.as_bytes())])?;
    let holds = format!("JUnit, {} testcases", trials.len());
    match sink {
        // A FIFO or a device (`/dev/stdout`): written to, not a file the run leaves.
        true => suite.report(&Event::Status(&format!("kernelgate: wrote to {} ({holds})", path.display()))),
        false => suite.report(&Event::Wrote { path: &path, holds: &holds }),
    }
    Ok(())
}

/// This machine's host name, from Linux's `/proc/sys/kernel/hostname` (the kernel's, as
/// `uname -n` gives it; proc(5)); `None` where it cannot be read or is empty.
fn hostname() -> Option<String> {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").ok()?;
    Some(name.trim().to_string()).filter(|n| !n.is_empty())
}

/// What the run knows about itself when the report is written, as JUnit `<property>` pairs, in this
/// order: `kernelgate.version` (the crate's), `run_id`, `commit`, `branch`, `dirty` and
/// `kernels_dirty` (as the run CSV writes them), `kernels_sha256`, `seed` (decimal, as
/// `KERNELGATE_SEED` takes it), `nvrtc` (major.minor of the NVRTC loaded), `ab_revision`; then, of
/// the GPUs trials were timed on (in CUDA ordinal order, several joined by `, `), `gpu.key`,
/// `gpu.name`, `gpu.uuid`, `gpu.pci_bus_id`, `driver`, `cuda`. A fact the run does not know (no
/// commit, no NVRTC, no GPU timed on) is left out, never written as a placeholder.
pub(super) fn properties(suite: &Suite) -> Vec<(String, String)> {
    let g = &suite.git;
    let known = |v: &str| !v.is_empty() && v != "unknown";
    let mut p: Vec<(String, String)> = vec![("kernelgate.version".into(), env!("CARGO_PKG_VERSION").into())];
    let mut put = |name: &str, value: String| {
        if known(&value) {
            p.push((name.into(), value));
        }
    };
    put("run_id", suite.run_id.clone());
    put("commit", g.commit.clone());
    put("branch", g.branch.clone());
    put("dirty", crate::record::flag(g.dirty));
    put("kernels_dirty", crate::record::flag(g.kernels_dirty));
    put("kernels_sha256", suite.kernels_sha256.clone());
    put("seed", suite.seed.to_string());
    if let Ok(nvrtc) = crate::nvrtc::load() {
        put("nvrtc", format!("{}.{}", nvrtc.version.0, nvrtc.version.1));
    }
    put(
        "ab_revision",
        match suite.ab.get() {
            Some(Ok(revision)) => revision.commit.clone(),
            _ => suite.config.ab.clone().unwrap_or_default(),
        },
    );
    let timed = suite.collected.timed.lock().unwrap_or_else(|e| e.into_inner());
    let mut gpus: Vec<&crate::model::DeviceFacts> = timed.iter().map(|t| &t.gpu.facts).collect();
    gpus.sort_by_key(|f| f.ordinal);
    gpus.dedup_by_key(|f| f.ordinal);
    let joined = |field: fn(&crate::model::DeviceFacts) -> &str| {
        let mut values: Vec<&str> = gpus.iter().map(|f| field(f)).filter(|v| known(v)).collect();
        values.dedup();
        values.join(", ")
    };
    put("gpu.key", joined(|f| &f.gpu_key));
    put("gpu.name", joined(|f| &f.name));
    put("gpu.uuid", joined(|f| &f.uuid));
    put("gpu.pci_bus_id", joined(|f| &f.pci_bus_id));
    put("driver", joined(|f| &f.driver_version));
    put("cuda", joined(|f| &f.cuda_driver_version));
    p
}

/// The JUnit form of a trial's outcome, with its kind ([`kind`]) and its own lines.
///
/// A failure stays a `<failure>` where the trial was judged (a compile trial whose resource gate or
/// entry-point check ran; a GPU trial that was timed, or whose check found a wrong result, or that
/// faulted or hung in the checked child), and becomes an `<error>` where a harness fault stopped it
/// before (a compile trial that returned an error: no NVRTC under `KERNELGATE_REQUIRE_NVRTC=1`, an
/// NVRTC failure, a resource table that cannot be read; a GPU trial stopped by a driver error, a
/// lost GPU, a baseline that cannot be used). The suite keeps no kind with a failure, so both are
/// read from what it kept: the compile trials' results ([`Suite::resources`]), the timed results
/// and their verdicts, the counter expectations and the sanitizer's findings (computed again from
/// the run's ncu and sanitizer results), and the check's own sentence (`replay with
/// KERNELGATE_SEED=`, `crate::check`). A judged failure none of these explains gets no kind.
///
/// `<system-out>`: a timed trial's verdict (`<verdict> (<decided by>): <reason>`) and each counter
/// that moved past its tolerance; a lesson trial's (`<verdict>: <reason>`); a compile trial's resource-gate and SASS-gate notes and blessed
/// rows. The lines
/// a trial prints while it runs go to the process's stdout as they come (libtest-mimic does not
/// capture them per trial), so they are not in the report.
fn junit_outcome(suite: &Suite, t: &TrialOutcome) -> TrialOutcome {
    let name = t.name.as_str();
    let mut out = t.clone();
    let mut kinds: Vec<String> = Vec::new();
    let judged = if let Some(rest) = name.strip_prefix("compile/") {
        let checked = suite.collected.resources.lock().unwrap_or_else(|p| p.into_inner());
        let found = checked.iter().find(|c| rest == format!("{}/{}", c.file, c.arch));
        if let Some(c) = found {
            let lines: Vec<&str> = c.notes.iter().chain(c.blessed.iter().flatten()).map(String::as_str).collect();
            out.output = Some(lines.join("\n"));
            if c.failures.iter().any(|f| !crate::resources::gate::is_gate_failure(f)) {
                kinds.push(kind::COMPILE_CHECK.into());
            }
            if c.failures.iter().any(|f| crate::resources::gate::is_gate_failure(f)) {
                kinds.push(kind::RESOURCE_GATE.into());
            }
        }
        let sass = suite.collected.sass.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(c) = sass.iter().find(|c| rest == format!("{}/{}", c.file, c.arch)) {
            let notes = c.notes.iter().chain(c.blessed.iter().flatten()).map(String::as_str);
            let lines: Vec<&str> = out.output.as_deref().into_iter().filter(|o| !o.is_empty()).chain(notes).collect();
            out.output = Some(lines.join("\n"));
            if c.failures.iter().any(|f| !crate::resources::gate::is_gate_failure(f)) {
                kinds.push(kind::SASS_EXPECTATION.into());
            }
            if c.failures.iter().any(|f| crate::resources::gate::is_gate_failure(f)) {
                kinds.push(kind::SASS_GATE.into());
            }
        }
        found.is_some()
    } else {
        let timed = suite.collected.timed.lock().unwrap_or_else(|p| p.into_inner());
        let this = timed.iter().find(|t| t.result.trial == name);
        let case = suite.cases.iter().find(|c| c.name() == name);
        let unfinished = matches!(suite.sanitized.get(), Some(Ok(s)) if s.unfinished.contains(name));
        let message = match &t.outcome {
            Outcome::Failed(m) => m.as_str(),
            _ => "",
        };
        if message.contains("replay with KERNELGATE_SEED=") {
            kinds.push(kind::WRONG_RESULT.into());
        }
        if let (Some(case), Some(_)) = (case, this)
            && suite.config.ncu
            && check_counters(suite, case) != CounterCheck::Met
        {
            kinds.push(kind::COUNTER_EXPECTATION.into());
        }
        if let Some(case) = case
            && sanitize_failure(suite, case).is_some()
        {
            kinds.push(if suite.config.sanitize.is_some() { kind::SANITIZER } else { kind::CHECKED_CHILD }.into());
        }
        if let Some(t) = this {
            let verdict = t.result.verdict.as_str();
            if super::verdict::verdict_fails(&suite.config, verdict, &t.result.decided_by) {
                kinds.push(verdict.into());
            }
            let mut lines = vec![format!("{verdict} ({}): {}", t.result.decided_by, t.reason)];
            lines.extend(t.moved.iter().map(|m| format!("  moved: {m}")));
            out.output = Some(lines.join("\n"));
        }
        let lesson = super::lesson_trial::recorded(suite, name);
        if let Some((line, fails)) = &lesson {
            if *fails {
                kinds.push(kind::LESSON.into());
            }
            out.output = Some(line.clone());
        }
        this.is_some() || lesson.is_some() || unfinished || kinds.iter().any(|k| k == kind::WRONG_RESULT)
    };
    match &t.outcome {
        Outcome::Failed(message) if !judged => {
            let not_run = message.starts_with("not run: ")
                || message.contains(": not run: ")
                || message.ends_with("(KERNELGATE_REQUIRE_GPU=1 makes this a failure)");
            out.outcome = Outcome::Error(message.clone());
            out.kind = Some(if not_run { kind::NOT_RUN } else { kind::HARNESS }.into());
        }
        Outcome::Failed(_) => out.kind = (!kinds.is_empty()).then(|| kinds.join("+")),
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn under_nextest_each_process_writes_a_file_of_its_own() {
        let p = Path::new("ci/junit.xml");
        let one = ["transpose/naive/4096x4096".to_string()];
        assert_eq!(process_path(p, false, &one, 42), p);
        assert_eq!(process_path(p, true, &one, 42), Path::new("ci/junit.transpose+naive+4096x4096.xml"));
        let compile = ["compile/a.cu/sm_90".to_string()];
        assert_eq!(process_path(p, true, &compile, 42), Path::new("ci/junit.compile+a.cu+sm_90.xml"));
        let odd = ["a b/c*".to_string()];
        assert_eq!(process_path(p, true, &odd, 42), Path::new("ci/junit.a_b+c_.xml"));
        assert_eq!(process_path(p, true, &[], 42), Path::new("ci/junit.pid-42.xml"));
        assert_eq!(process_path(p, true, &[one[0].clone(), compile[0].clone()], 7), Path::new("ci/junit.pid-7.xml"));
        assert_eq!(process_path(Path::new("report"), true, &one, 1), Path::new("report.transpose+naive+4096x4096"));
    }
}
