//! compute-sanitizer mode (`KERNELGATE_SANITIZE=memcheck|racecheck|synccheck|initcheck`; [compute-sanitizer's documentation](https://docs.nvidia.com/compute-sanitizer/ComputeSanitizer/index.html)).
//!
//! Like ncu mode ([`crate::ncu::select`]), the suite starts one `compute-sanitizer --tool <tool>`
//! process over the selected trials ([`run`]); it re-runs this test binary with [`CHILD_ENV`] set,
//! and that child ([`child`]) performs each listed trial's checked run once (`program::compile` and
//! `check::check_case`, not the timing loop), printing a marker line before and after it so that
//! the tool's reports can be attributed to trials ([`parse`]). The parent then fails each trial the
//! tool reported, with the report, and each trial the tool says it did not fully check (its own
//! warning lines, an `ERROR SUMMARY` the reports do not add up to), in the tool's words; its timing
//! runs as usual. Trials checked after the tool's print limit was spent (`N errors were not
//! printed`) are checked again in a new process, once; still short of it there, they fail.
//!
//! A trial whose kernel faults leaves the child's CUDA context unusable (a sticky error, CUDA C++
//! Programming Guide, "Error Checking"), so the child stops there, and the parent starts a new
//! sanitizer process for the trials not yet begun. A trial that runs past
//! `KERNELGATE_KERNEL_TIMEOUT` (default [`crate::config::DEFAULT_KERNEL_TIMEOUT_S`]) has its
//! process group killed, fails, and the rest go on in a new process.
//!
//! `KERNELGATE_ISOLATE=1` without a tool runs the same child directly, not under
//! compute-sanitizer: crash isolation. A trial that faults, kills its process or hangs fails alone,
//! with the CUDA error, and is not timed in the suite's own process; every other trial is timed
//! there as usual, so the table and the CSV stay whole. After a trial's check the isolated child
//! also runs its program [`TIMED_PATH_REPEATS`] times as the timing loop does. What it cannot
//! catch: a kernel that faults or hangs only after more runs than that; in the suite's own process
//! such a fault fails that trial and, with the context lost, every later trial on that GPU, each
//! naming the trial and the error (`crate::suite`).
//!
//! `KERNELGATE_SANITIZE_SCALE` shrinks the cases the sanitizer's child checks
//! ([`crate::case::Table::for_checked_child`]); the suite still times them at full size.

pub mod parse;

use crate::gpu::Gpu;
use crate::program::{Bound, Compiled};
use crate::report::events::{Event, Reporter};
use crate::{
    case::Case,
    check,
    config::Config,
    error::{Error, Result},
    source::Sources,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

/// The compute-sanitizer tools `KERNELGATE_SANITIZE` accepts (Compute Sanitizer user manual,
/// "Compute Sanitizer Tools"); the variables' table holds them ([`crate::config::vars::SANITIZE`]).
pub const TOOLS: [&str; 4] = crate::config::vars::SANITIZE_TOOLS;

/// Environment variable that tells the test binary it is the sanitized child: the listed trials
/// (one per line), checked once each (`KERNELGATE_SANITIZE_TRIALS`, [`crate::config::vars`]).
pub const CHILD_ENV: &str = crate::config::vars::SANITIZE_TRIALS.name;

/// Exit code of a child that stopped after a CUDA error (its context may be unusable).
pub const EXIT_CUDA_ERROR: i32 = 3;

/// Reports shown per trial in its failure message; the log holds them all.
const SHOWN_REPORTS: usize = 3;
/// Detail lines shown per report.
const SHOWN_DETAILS: usize = 6;

/// The outcome of one sanitized run over the selection.
#[derive(Debug, Clone, PartialEq)]
pub struct Sanitized {
    /// The tool; `None` for an isolated child without one (`KERNELGATE_ISOLATE=1`).
    pub tool: Option<String>,
    /// The log of every sanitizer process of the run, one after another.
    pub log: PathBuf,
    /// Each selected trial's failure message; absent when the tool found nothing in it.
    pub failures: BTreeMap<String, String>,
    /// How many trials were checked clean.
    pub clean: usize,
    /// Trials the child did not finish (killed past the timeout, died, or stopped on a CUDA
    /// error): the suite does not time them in its own process, where they would hang it or
    /// leave its CUDA context unusable.
    pub unfinished: std::collections::BTreeSet<String>,
}

/// How the checks of `tool` are named in messages: `compute-sanitizer --tool <tool>`, or
/// `isolated child` without one.
pub fn label(tool: Option<&str>) -> String {
    tool.map_or_else(|| "isolated child".to_string(), |t| format!("compute-sanitizer --tool {t}"))
}

/// compute-sanitizer's arguments for sanitizing `program` with `tool` (pure; tested).
/// `--print-limit 100` caps the reports per process; `--show-backtrace device` leaves out the
/// host frames, which name the harness, not the kernel.
pub fn args(tool: &str, program: &Path) -> Vec<String> {
    ["--tool", tool, "--print-limit", "100", "--show-backtrace", "device"]
        .map(String::from)
        .into_iter()
        .chain([program.display().to_string()])
        .collect()
}

/// The failure message of one trial from what its stretch of the output held, or `None` when
/// the tool reported nothing, said nothing that limits its checking ([`parse::Trial::caveats`],
/// [`parse::Trial::limit`]) and the child finished the trial (pure; tested). `exit` says how the
/// process ended, for a trial it did not finish.
pub fn failure(tool: Option<&str>, name: &str, trial: &parse::Trial, exit: &str, log: &Path) -> Option<String> {
    let mut lines = Vec::new();
    for r in trial.reports.iter().take(SHOWN_REPORTS) {
        lines.push(r.render(SHOWN_DETAILS));
    }
    if trial.reports.len() > SHOWN_REPORTS {
        lines.push(format!("... {} more reports", trial.reports.len() - SHOWN_REPORTS));
    }
    if trial.late > 0 {
        lines.push(format!(
            "({} of these came after the trial's end marker and before the next trial began: the tool prints reports \
             as it receives them, so they are attributed to the trial that ended last)",
            trial.late
        ));
    }
    match trial.ended.as_deref() {
        None => lines.push(format!("the child did not finish this trial: {exit}")),
        Some(outcome) if outcome.starts_with("error") => lines.push(format!("the checked run: {outcome}")),
        _ => {}
    }
    for why in trial.caveats.iter().chain(&trial.limit) {
        lines.push(format!("not fully checked: {why}"));
    }
    if lines.is_empty() {
        return None;
    }
    let count = trial.reports.len();
    let reports = match tool {
        Some(_) if count > 0 || trial.fully_checked() => {
            format!("{count} report{}, ", if count == 1 { "" } else { "s" })
        }
        Some(_) => "not fully checked, ".to_string(),
        None => String::new(),
    };
    Some(format!(
        "{name}: {}: {reports}log {}:\n  {}",
        label(tool),
        log.display(),
        lines.join("\n").replace('\n', "\n  ")
    ))
}

/// Whether a trial's only reason to fail is the spent print limit: it is then checked again in a
/// new process, where the limit starts afresh.
fn only_the_limit(trial: &parse::Trial) -> bool {
    trial.limit.is_some()
        && trial.reports.is_empty()
        && trial.caveats.is_empty()
        && trial.ended.as_deref().is_some_and(|e| !e.starts_with("error"))
}

/// The compute-sanitizer executable: `KERNELGATE_SANITIZER_PATH`, else `compute-sanitizer` on
/// PATH, else the CUDA toolkit's default install path.
fn executable(config: &Config) -> PathBuf {
    if let Some(p) = &config.sanitizer_path {
        return p.clone();
    }
    let on_path = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join("compute-sanitizer").is_file()));
    if on_path { PathBuf::from("compute-sanitizer") } else { PathBuf::from("/usr/local/cuda/bin/compute-sanitizer") }
}

/// Runs the `selected` trials' checked runs under `config.sanitize`'s tool, or (without one) as
/// an isolated child, with `program` (this test binary) as the child, which must read the kernels
/// this run read (`sources`, [`crate::source::same_as_parent`]); the processes' output goes to
/// `log`.
///
/// # Errors
/// [`Error::Unavailable`] when compute-sanitizer cannot be started (with the fix); [`Error::Io`]
/// for the log.
pub fn run(
    config: &Config,
    sources: &Sources,
    selected: &[&str],
    program: &Path,
    log: PathBuf,
    reporter: &dyn Reporter,
) -> Result<Sanitized> {
    let tool = config.sanitize.clone();
    let exe = match tool {
        Some(_) => executable(config),
        None => program.to_path_buf(),
    };
    let limit = Duration::from_secs_f64(config.kernel_timeout_s.unwrap_or(crate::config::DEFAULT_KERNEL_TIMEOUT_S));
    if let Some(dir) = log.parent() {
        std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
    }
    let started = Instant::now();
    let kernels_sha256 = sources.kernels_sha256();
    let scale = match (&tool, config.sanitize_scale) {
        (Some(_), f) if f != 1.0 => format!(" at {f} of their work (KERNELGATE_SANITIZE_SCALE)"),
        _ => String::new(),
    };
    reporter.report(&Event::Status(&format!(
        "kernelgate: checking {} trials, {}{scale} (log {})",
        selected.len(),
        label(tool.as_deref()),
        log.display()
    )));
    let mut remaining: Vec<String> = selected.iter().map(|s| s.to_string()).collect();
    let mut failures = BTreeMap::new();
    let mut clean = 0;
    let mut checks_failed = 0;
    let mut unfinished = std::collections::BTreeSet::new();
    let mut rechecked = std::collections::BTreeSet::new();
    let mut text_so_far = String::new();
    let mut processes = 0;
    while !remaining.is_empty() {
        let part = log.with_extension(format!("part{processes}"));
        processes += 1;
        let (text, exit) =
            one_process(&exe, tool.as_deref(), program, &remaining, &part, limit, &kernels_sha256, reporter)?;
        let _ = std::fs::remove_file(&part);
        text_so_far += &text;
        std::fs::write(&log, &text_so_far).map_err(Error::io(&log))?;
        let parsed = parse::parse(&text);
        if parsed.order.is_empty() {
            let why =
                format!("{} ended ({exit}) before it began a trial; see {}", label(tool.as_deref()), log.display());
            for name in remaining.drain(..) {
                unfinished.insert(name.clone());
                failures.insert(name.clone(), format!("{name}: {why}"));
            }
            break;
        }
        let mut again = Vec::new();
        for name in &parsed.order {
            let trial = &parsed.trials[name];
            let ended = trial.ended.as_deref();
            if ended.is_none_or(|e| e.starts_with("error")) {
                unfinished.insert(name.clone());
            }
            // Checked after the tool stopped printing: once more, in a process of its own limit.
            if only_the_limit(trial) && rechecked.insert(name.clone()) {
                reporter.report(&Event::Status(&format!(
                    "kernelgate: {name}: checked after {}'s print limit was spent; checking it again in a new process",
                    label(tool.as_deref())
                )));
                again.push(name.clone());
                continue;
            }
            match failure(tool.as_deref(), name, trial, &exit, &log) {
                Some(message) => {
                    failures.insert(name.clone(), message);
                }
                None if ended.is_some_and(|e| e.starts_with("check failed")) => checks_failed += 1,
                None => clean += 1,
            }
        }
        remaining.retain(|n| !parsed.trials.contains_key(n));
        again.append(&mut remaining);
        remaining = again;
        if !parsed.outside.is_empty() {
            let shown: Vec<String> = parsed.outside.iter().map(|r| r.render(2)).collect();
            reporter.report(&Event::Status(&format!(
                "kernelgate: {} reported before any trial of its process began (every trial of that process fails \
                 as not fully checked):\n  {}",
                label(tool.as_deref()),
                shown.join("\n  ")
            )));
        }
    }
    reporter.report(&Event::Status(&format!(
        "kernelgate: {}: {} of {} trials failed, {checks_failed} more failed their check (the suite reports \
         those), in {:.1} s",
        label(tool.as_deref()),
        failures.len(),
        selected.len(),
        started.elapsed().as_secs_f64()
    )));
    Ok(Sanitized { tool, log, failures, clean, unfinished })
}

/// One sanitizer process over `trials`, output into `part`, its child handed `parent_kernels`
/// (the run's [`Sources::kernels_sha256`], [`crate::source::PARENT_KERNELS_ENV`]); kills its
/// process group when one trial runs past `limit`. Returns the output and how the process ended,
/// in words.
#[allow(clippy::too_many_arguments)] // what one child process needs, each used once
fn one_process(
    exe: &Path,
    tool: Option<&str>,
    program: &Path,
    trials: &[String],
    part: &Path,
    limit: Duration,
    parent_kernels: &str,
    reporter: &dyn Reporter,
) -> Result<(String, String)> {
    use std::os::unix::process::CommandExt;
    let file = std::fs::File::create(part).map_err(Error::io(part))?;
    let err = file.try_clone().map_err(Error::io(part))?;
    let mut command = Command::new(exe);
    // The child checks that it reads the kernels this process read.
    command.env(crate::source::PARENT_KERNELS_ENV, parent_kernels);
    let mut child = command
        .args(tool.map(|t| args(t, program)).unwrap_or_default())
        .env(CHILD_ENV, trials.join("\n"))
        .stdout(Stdio::from(file))
        .stderr(Stdio::from(err))
        .process_group(0)
        .spawn()
        .map_err(|e| {
            Error::Unavailable(format!(
                "{} could not be started ({e}); for KERNELGATE_SANITIZE install the CUDA toolkit's \
                 compute-sanitizer or set KERNELGATE_SANITIZER_PATH",
                exe.display()
            ))
        })?;
    let mut last_begin: (usize, Instant) = (0, Instant::now());
    let mut ticker = crate::console::Ticker::new(crate::console::HEARTBEAT);
    let exit = loop {
        if let Some(status) = child.try_wait().map_err(Error::io(exe))? {
            break format!("{status}");
        }
        std::thread::sleep(Duration::from_millis(100));
        let text = std::fs::read_to_string(part).unwrap_or_default();
        let begun = text.matches(parse::BEGIN).count();
        if ticker.due() {
            let (what, status) = (label(tool), progress(&text, trials.len()));
            reporter.report(&Event::Progress { what: &what, status: &status, elapsed_s: ticker.elapsed_s() });
        }
        if begun != last_begin.0 {
            last_begin = (begun, Instant::now());
        } else if begun > 0 && last_begin.1.elapsed() > limit {
            // The whole process group this function created: compute-sanitizer and the child under it.
            // The shell's own `kill` (POSIX: `kill -s KILL -- -PGID`), not a kill program: procps'
            // /bin/kill is not in every machine (Debian's minbase has none), and without it the wait
            // below would last as long as the hung trial. The tool itself is killed in any case.
            let group = format!("-{}", child.id());
            let _ = Command::new("sh").args(["-c", "kill -s KILL -- \"$1\"", "sh", &group]).status();
            let _ = child.kill();
            let _ = child.wait();
            break format!("killed after {:.0} s in one trial (KERNELGATE_KERNEL_TIMEOUT)", limit.as_secs_f64());
        }
    };
    let mut text = std::fs::read_to_string(part).map_err(Error::io(part))?;
    if exit.starts_with("killed") {
        // The log says why the last trial has no end marker.
        text += &format!("kernelgate: the child was {exit}\n");
    }
    Ok((text, exit))
}

/// How far a checked child is, from its output so far (pure; tested): `trial 3 of 77
/// (<the last trial begun>)`, from its [`parse::BEGIN`] lines.
fn progress(text: &str, trials: usize) -> String {
    let begun: Vec<&str> = text.lines().filter_map(|l| l.split_once(parse::BEGIN).map(|(_, name)| name)).collect();
    match begun.last() {
        Some(last) => format!("trial {} of {trials} ({last})", begun.len()),
        None => format!("starting the child ({trials} trials to check)"),
    }
}

/// Runs of the timed path an isolated child makes after a trial's check: the program as the timing
/// loop runs it (the same bound buffers, the graph replayed), so that a fault that needs the state
/// one run leaves for the next, or a graph replay, happens in the child and not in the suite's
/// own process. A fault that needs more runs than this still takes the suite's process down; its
/// later trials then fail with the lost context named (`crate::suite`).
pub const TIMED_PATH_REPEATS: usize = 3;

/// [`TIMED_PATH_REPEATS`] runs of `case`'s program on `bound`, then a wait for the GPU.
///
/// # Errors
/// [`Error::Driver`] from the run that failed, or from the wait (a fault surfaces there).
fn repeat_timed_path(gpu: &Gpu, case: &Case, compiled: &Compiled, bound: &mut Bound) -> Result<()> {
    for _ in 0..TIMED_PATH_REPEATS {
        crate::program::run(gpu, case, compiled, bound)?;
    }
    gpu.synchronize()
}

/// The checked child: each trial named in `list` (one per line), compiled from the kernels the
/// child read (`sources`) and checked once on the first device of `KERNELGATE_DEVICES`, between [`parse::BEGIN`] and [`parse::END`] lines;
/// without a tool (crash isolation) its program then runs [`TIMED_PATH_REPEATS`] more times.
/// Stops with [`EXIT_CUDA_ERROR`] after a trial that ends in a CUDA error: the context may be
/// unusable, and the parent goes on in a new process.
pub fn child(config: &Config, sources: &Sources, all: &[Case], list: &str) -> ExitCode {
    use std::io::Write;
    let Some(gpu) = crate::devices::open_child_gpu(config, "sanitized child", crate::compile::nvrtc_version) else {
        return ExitCode::FAILURE;
    };
    let order = list.lines().filter_map(|name| all.iter().find(|c| c.name() == name)).cloned().collect();
    // The child's own inputs, made ahead on its own prefetcher (on the GPU's clock, which no one reads).
    let prefetch = crate::inputs::Prefetch::new(std::sync::Arc::clone(gpu.clock()));
    prefetch.start(order, crate::ncu::select::PROFILE_SEED);
    let _entered = prefetch.enter();
    for name in list.lines().filter(|l| !l.is_empty()) {
        crate::outln!("{}{name}", parse::BEGIN);
        let Some(case) = all.iter().find(|c| c.name() == name) else {
            crate::outln!("{}{name}: error: no case of this name", parse::END);
            continue;
        };
        let checked = crate::program::compile(&gpu, sources, case).and_then(|compiled| {
            let seed = crate::ncu::select::PROFILE_SEED;
            let inputs = prefetch.prepared(case, seed);
            let mut checked = check::check_case(&gpu, case, &compiled, &inputs, seed, check::SharedStart::Poisoned)?;
            if let (Ok(bound), None) = (&mut checked, &config.sanitize) {
                repeat_timed_path(&gpu, case, &compiled, bound)?;
            }
            Ok(checked.map(drop))
        });
        let (outcome, stop) = match checked {
            Ok(Ok(())) => ("ok".to_string(), false),
            Ok(Err(message)) => (format!("check failed: {}", message.replace('\n', " ")), false),
            Err(e) => (format!("error: {}", e.to_string().replace('\n', " ")), true),
        };
        crate::outln!("{}{name}: {outcome}", parse::END);
        let _ = std::io::stdout().flush();
        // compute-sanitizer's front end writes the reports into the same file as this process:
        // a pause lets a report of this trial land before the next trial's marker. An isolated
        // child (no tool) has no front end and does not pause.
        if config.sanitize.is_some() {
            std::thread::sleep(Duration::from_millis(200));
        }
        if stop {
            return ExitCode::from(EXIT_CUDA_ERROR as u8);
        }
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_names_the_last_trial_begun() {
        let text = format!(
            "{}a/b/1\n{}a/b/1: ok\n========= COMPUTE-SANITIZER\n{}c/d/2\n",
            parse::BEGIN,
            parse::END,
            parse::BEGIN
        );
        assert_eq!(progress(&text, 77), "trial 2 of 77 (c/d/2)");
        assert_eq!(progress("", 77), "starting the child (77 trials to check)");
    }

    #[test]
    fn the_command_names_the_tool_and_the_program() {
        let a = args("racecheck", Path::new("/bin/kernels")).join(" ");
        assert_eq!(a, "--tool racecheck --print-limit 100 --show-backtrace device /bin/kernels");
    }

    #[test]
    fn a_trial_fails_with_its_reports_or_when_it_did_not_finish() {
        let log = Path::new("/out/r-sanitize.log");
        let clean = parse::Trial { reports: vec![], ended: Some("ok".into()), ..Default::default() };
        assert_eq!(failure(Some("memcheck"), "a/b/1", &clean, "exit status: 0", log), None);
        let checked_wrong = parse::Trial {
            reports: vec![],
            ended: Some("check failed: a/b/1: 3 of 4 differ".into()),
            ..Default::default()
        };
        assert_eq!(
            failure(Some("memcheck"), "a/b/1", &checked_wrong, "exit status: 0", log),
            None,
            "the suite's check says it"
        );
        let reported = parse::Trial {
            reports: vec![parse::Report {
                header: "Invalid __global__ write of size 4 bytes".into(),
                details: vec!["at oob_write+0x90".into()],
            }],
            ended: Some("ok".into()),
            ..Default::default()
        };
        let m = failure(Some("memcheck"), "planted/oob_write/4096", &reported, "exit status: 0", log).unwrap();
        assert_eq!(
            m,
            "planted/oob_write/4096: compute-sanitizer --tool memcheck: 1 report, log /out/r-sanitize.log:\n  \
             Invalid __global__ write of size 4 bytes\n      at oob_write+0x90"
        );
        let killed = parse::Trial { reports: vec![], ended: None, ..Default::default() };
        let m = failure(Some("memcheck"), "planted/hang/4096", &killed, "killed after 5 s", log).unwrap();
        assert!(m.ends_with("the child did not finish this trial: killed after 5 s"), "{m}");
        let died = parse::Trial {
            reports: vec![],
            ended: Some("error: CUDA_ERROR_MISALIGNED_ADDRESS".into()),
            ..Default::default()
        };
        let m = failure(None, "planted/misaligned_load/4096", &died, "exit status: 3", log).unwrap();
        assert!(m.starts_with("planted/misaligned_load/4096: isolated child: log /out/"), "{m}");
        assert!(m.ends_with("the checked run: error: CUDA_ERROR_MISALIGNED_ADDRESS"), "{m}");
    }
}
