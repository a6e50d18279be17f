//! The libtest-mimic suite: one trial per case (`family/variant/size`) plus one NVRTC compile trial
//! per kernel file and architecture (`compile/<file>/<arch>`), and the run around them. Wiring
//! only: each stage lives in its own module.
//!
//! One GPU trial is one recipe, in `suite/trial.rs`: lease, compile, check, measure, recheck, judge,
//! result, finish; a baseline run and a same-run A/B run differ only in its measure and judge steps.
//!
//! | stage | module |
//! |---|---|
//! | GPUs, one trial per GPU | [`crate::devices`] |
//! | check | `check::check_case` |
//! | measure | [`crate::measure::measure_cold`], [`crate::measure::measure_pairs`] |
//! | recheck | [`crate::recheck::recheck`] |
//! | physics guard | [`crate::guard::impossible`] |
//! | profile (ncu) | [`crate::ncu::select`] |
//! | gate | [`crate::gate::judge()`], [`crate::gate::baseline`] |
//! | record, report | [`crate::record`], [`crate::report`] |
//!
//! Trials run one per GPU at a time (`KERNELGATE_DEVICES`; one GPU by default): a time taken while
//! another kernel runs on the same GPU is wrong. Kernels compile inside their trial, so `--exact`
//! builds only what it runs.

mod ab_report;
mod compile_ahead;
mod compile_trial;
pub mod controls;
mod faults;
mod junit_report;
mod lesson_trial;
mod partition;
mod plan;
mod prepare;
mod progress;
mod recorded;
mod results;
mod trial;
mod verdict;
pub(crate) use plan::cannot_run;
pub use plan::trials;

use crate::case::Case;
use crate::console::TrialLines;
use crate::devices::{Lease, Pool};
use crate::gate::Policy;
use crate::gate::baseline::Baseline;
use crate::gpu::Gpu;
use crate::history::revision::Revision;
use crate::inputs::Prefetch;
use crate::ncu::profile::Profiled;
use crate::ncu::{run::CHILD_ENV, select};
use crate::phases::Clock;
use crate::project::Project;
use crate::record::{self, CaseResult, GitState};
use crate::report::events::{Event, Reporter, Terminal};
use crate::report::junit::TrialOutcome;
use crate::source::{KernelSource, Sources};
use crate::{check, config::Config, error::Error, report, resources, sass};
use libtest_mimic::{Arguments, Trial};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Architectures every kernel must compile for, with or without a GPU: Ampere (sm_80) and Hopper
/// (sm_90), the two generations the suite's lessons were written for.
pub const COMPILE_ARCHS: [&str; 2] = ["sm_80", "sm_90"];

/// Exit code for a bad `KERNELGATE_*` value (libtest uses 101 for failed trials, which kernelgate
/// keeps for wrong results and harness errors).
pub const EXIT_CONFIG: u8 = 2;

/// Exit code when every failed trial failed only its gate: a performance verdict listed in
/// `KERNELGATE_FAIL_ON`, or the resource gate (a compile trial whose only failures are
/// [`resources::gate::is_gate_failure`] lines). A regression, told apart from wrong results and
/// harness errors in trials (101).
pub const EXIT_REGRESSION: u8 = 3;

/// Exit code when the run's own outputs could not be written (the run CSV, the JUnit report that
/// `KERNELGATE_JUNIT` asked for): a harness or I/O error is never 0, and never reads as a
/// regression.
pub const EXIT_HARNESS: u8 = 1;

/// One timed trial's result with what its record and bless need.
#[derive(Debug, Clone)]
struct Timed {
    result: CaseResult,
    /// The verdict's sentence.
    reason: String,
    /// Counters that moved past their tolerance, as the verdict lists them.
    moved: Vec<String>,
    /// Kept samples (evenly spaced subset), seconds.
    kept: Vec<f64>,
    /// The GPU it ran on.
    gpu: Arc<Gpu>,
}

/// State shared by the trials of one run.
pub struct Suite {
    /// Options.
    pub config: Config,
    /// Seed of this run's inputs.
    pub seed: u64,
    /// UTC start of the run, `YYYYMMDDTHHMMSSZ`; names its output files.
    pub run_id: String,
    /// The git state the run is recorded under ([`crate::history::built::reconcile`]).
    pub git: GitState,
    /// Where the tree the run started in differs from the binary's, one sentence each.
    git_warnings: Vec<String>,
    /// SHA-256 of the project's kernels this run read ([`Sources::project_kernels_sha256`]).
    pub kernels_sha256: String,
    /// Where the project keeps things: kernel folders, baselines, history, run files.
    pub project: Project,
    /// The kernel files this run read where it started ([`Sources::read`]): the project's and the
    /// library's own. Every trial compiles from them, and the child processes check that they read
    /// the same ([`crate::source::same_as_parent`]).
    pub sources: Sources,
    /// Every case of the run (at `KERNELGATE_WORK_SCALE`), from [`Suite::table`].
    cases: Vec<Case>,
    /// The suite's case table, as its entry handed it ([`main`]).
    table: crate::case::Table,
    /// Why there is no usable GPU, found when the suite starts (before the trials are listed).
    no_gpu: Option<String>,
    pool: OnceLock<Result<Pool, String>>,
    /// Set when `KERNELGATE_DEVICES` names a device that does not exist (exit code 2).
    bad_devices: OnceLock<String>,
    profiled: OnceLock<Result<Profiled, String>>,
    /// What compute-sanitizer found, when `KERNELGATE_SANITIZE` is set.
    sanitized: OnceLock<Result<crate::sanitize::Sanitized, String>>,
    baseline: OnceLock<Result<Baseline, String>>,
    /// The A/B revision's kernels, when `KERNELGATE_AB` is set.
    ab: OnceLock<Result<Revision, String>>,
    /// The B side's kernels when `KERNELGATE_AB_B` names a revision (else the tree's, as read).
    ab_b: OnceLock<Revision>,
    /// The A/A controls of an A/B run ([`controls`]): case names, drawn once the revision is read.
    controls: OnceLock<std::collections::BTreeSet<String>>,
    stem: OnceLock<PathBuf>,
    /// What the trials hand back while they run, for the end of the run.
    collected: Collected,
    /// Where the run's events go ([`Suite::report`]).
    reporter: Arc<dyn Reporter>,
    /// NVRTC's work for the selected trials, made ahead on worker threads.
    ahead: Arc<compile_ahead::Ahead>,
    /// Where this run's time went, per phase: the run's own sums, which its GPUs carry and its
    /// end-of-run line reads ([`crate::phases`]).
    clock: Arc<Clock>,
    /// The run's inputs and references ([`crate::inputs::Cache`]) and the worker that makes the
    /// next trials' while the GPU times this one: started before the trials, stopped after them.
    prefetch: Prefetch,
}

impl std::fmt::Debug for Suite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Suite")
            .field("run_id", &self.run_id)
            .field("seed", &self.seed)
            .field("git", &self.git)
            .field("project", &self.project)
            .finish_non_exhaustive()
    }
}

/// What the trials of one run hand back while they run (each appends its own, from its own
/// thread), read once at the end of the run: its records, reports and exit code.
#[derive(Debug, Default)]
struct Collected {
    /// Cases of this run that have a baseline (or, in A/B, that are timed): the `tests` of the
    /// family-wise correction.
    compared: AtomicUsize,
    /// The timed trials' results.
    timed: Mutex<Vec<Timed>>,
    /// The lesson trials judged, for the lessons CSV and the JUnit report.
    lessons: Mutex<Vec<crate::lesson_record::LessonRow>>,
    /// How each trial that ran ended, for the JUnit report.
    outcomes: Mutex<Vec<TrialOutcome>>,
    /// Trials that failed only their gate (performance or resources).
    gate_failures: AtomicUsize,
    /// What each compile trial's resource gate found, for the end-of-run report.
    resources: Mutex<Vec<resources::Checked>>,
    /// What each compile trial's SASS gate found, for the end-of-run report.
    sass: Mutex<Vec<sass::Checked>>,
    /// Why the SASS gate did not run (no nvdisasm), said once at the end of the run.
    sass_skipped: OnceLock<String>,
}

impl Suite {
    /// A suite with `config` in `project`, whose kernel files `sources` were read where the run
    /// started ([`Sources::read`]), running the cases of `table` and telling `reporter` what it
    /// does; the seed is `config.seed` or drawn from the clock.
    pub fn new(
        config: Config,
        project: Project,
        sources: Sources,
        table: crate::case::Table,
        reporter: Arc<dyn Reporter>,
    ) -> Suite {
        let seed = config.seed.unwrap_or_else(|| {
            let nanos =
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
            check::mix(nanos, u64::from(std::process::id()))
        });
        let (recorded, kernels_sha256) =
            recorded::recorded_state(&project, table.build, config.commit.as_deref(), &sources);
        let clock = Arc::new(Clock::new());
        // Every compile of the run searches the header folders of the project its files are of.
        let ahead = Arc::new(compile_ahead::Ahead::new(sources.root()));
        Suite {
            cases: table.for_run(&config),
            table,
            no_gpu: crate::gpu::gpu_available().err().map(|e| e.to_string()),
            project,
            sources,
            config,
            seed,
            run_id: chrono::Utc::now().format("%Y%m%dT%H%M%SZ").to_string(),
            git: recorded.git,
            git_warnings: recorded.warnings,
            kernels_sha256,
            pool: OnceLock::new(),
            bad_devices: OnceLock::new(),
            profiled: OnceLock::new(),
            sanitized: OnceLock::new(),
            baseline: OnceLock::new(),
            ab: OnceLock::new(),
            ab_b: OnceLock::new(),
            controls: OnceLock::new(),
            stem: OnceLock::new(),
            collected: Collected::default(),
            reporter,
            ahead,
            prefetch: Prefetch::new(Arc::clone(&clock)),
            clock,
        }
    }

    /// Hands `event` to the run's reporter ([`crate::report::events`]).
    pub fn report(&self, event: &Event<'_>) {
        self.reporter.report(event);
    }

    /// The run's reporter, for the stages that say what they do themselves (the sanitizer, the ncu
    /// session, a revision's build command).
    pub fn reporter(&self) -> &dyn Reporter {
        &*self.reporter
    }

    /// The GPUs, found on first use; `Err` holds why there are none.
    fn pool(&self) -> Result<&Pool, String> {
        self.pool
            .get_or_init(|| {
                let reporter = Arc::clone(&self.reporter);
                let clock = Arc::clone(&self.clock);
                let pool = Pool::new(&self.config.devices, crate::compile::nvrtc_version, clock, move |gpu| {
                    reporter.report(&Event::Status(&report::device(&gpu.facts)));
                    report::ceilings(&gpu.ceilings).iter().for_each(|line| reporter.report(&Event::Status(line)));
                })
                .map_err(|e| {
                    if matches!(e, Error::Config { .. }) {
                        let _ = self.bad_devices.set(e.to_string());
                    }
                    e.to_string()
                });
                if let (Err(reason), None) = (&pool, &self.no_gpu) {
                    self.report(&Event::Status(&format!("kernelgate: the GPUs cannot be used: {reason}")));
                }
                pool
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Borrows a GPU for one trial.
    fn lease(&self) -> Result<Lease<'_>, String> {
        self.pool()?.acquire().map_err(|e| e.to_string())
    }

    /// Results of the trials that completed, in completion order.
    pub fn results(&self) -> Vec<CaseResult> {
        self.collected.timed.lock().unwrap_or_else(|p| p.into_inner()).iter().map(|t| t.result.clone()).collect()
    }

    /// The gate's policy from the options.
    pub fn policy(&self) -> Policy {
        Policy { alpha: self.config.alpha, effect_floor: self.config.effect_floor_pct() / 100.0, ..Policy::default() }
    }

    /// This GPU's baseline folder: `<the project's baselines>/<gpu key>`.
    pub fn baseline_dir(&self, gpu_key: &str) -> PathBuf {
        self.baselines().join(gpu_key)
    }

    /// The folder of baseline folders ([`Project::baselines`]).
    pub fn baselines(&self) -> PathBuf {
        self.project.baselines.clone()
    }

    /// File stem of this run's outputs, claimed on first use ([`record::claim_stem`]).
    ///
    /// # Errors
    /// [`Error::Io`] if the runs folder cannot be written.
    pub fn stem(&self) -> crate::error::Result<PathBuf> {
        if let Some(stem) = self.stem.get() {
            return Ok(stem.clone());
        }
        let claimed = record::claim_stem(&self.project.out_dir, &self.run_id, &self.git)?;
        Ok(self.stem.get_or_init(|| claimed).clone())
    }

    /// What is the same for every row of this run on the GPU of `facts`.
    pub fn run_info(&self, facts: &crate::model::DeviceFacts) -> record::RunInfo {
        record::RunInfo {
            run_id: self.run_id.clone(),
            seed: self.seed,
            git: self.git.clone(),
            kernels_sha256: self.kernels_sha256.clone(),
            facts: facts.clone(),
            work_scale: self.config.work_scale,
            // The commit A's kernels came from (a branch name given would move on).
            ab_revision: match self.ab.get() {
                Some(Ok(revision)) => revision.commit.clone(),
                _ => self.config.ab.clone().unwrap_or_default(),
            },
        }
    }

    /// What the B side of an A/B run is: `kernels/ here` (the tree's kernel folders, as the run read
    /// them, [`Project::kernels_label`]), or `kernels/ at <rev> = <commit>` with `KERNELGATE_AB_B`.
    pub fn b_side(&self) -> String {
        let folders = self.project.kernels_label();
        self.ab_b.get().map_or_else(|| format!("{folders} here"), |b| format!("{folders} at {}", b.label()))
    }

    /// The number of trials compared in this run (at least 1).
    fn tests(&self) -> usize {
        self.collected.compared.load(Ordering::Relaxed).max(1)
    }
}

/// A suite binary's `main` (a `[[test]]` with `harness = false`): the cases of `table`, the
/// suite's own, as libtest trials. Parses libtest flags, profiles with ncu if asked, runs the
/// trials, prints the table, writes the CSVs and the JUnit report.
///
/// ```ignore
/// // tests/kernels.rs of a project (`kernelgate::main!` writes the same)
/// kernelgate::kernels!();
/// fn cases(_scale: f64) -> Vec<kernelgate::Case> { Vec::new() }
/// fn main() -> std::process::ExitCode {
///     kernelgate::suite::main(kernelgate::case::Table::new(cases, &BUILD))
/// }
/// ```
///
/// [`crate::case::assert_program_fits`] of every case of `cases`, its panic as an error: the
/// sentence naming the case and the fix.
fn programs_fit(cases: &[crate::case::Case]) -> Result<(), String> {
    let hook = std::panic::take_hook();
    // The sentence is returned, not printed by the default hook with a place inside the library.
    std::panic::set_hook(Box::new(|_| {}));
    let fits = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        cases.iter().for_each(crate::case::assert_program_fits);
    }));
    std::panic::set_hook(hook);
    fits.map_err(|panic| {
        panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a case does not fit its program".into())
    })
}

/// Runs the suite over the case table `table` with libtest's flags (the process's arguments) and
/// kernelgate's variables, printing as the suite does ([`Terminal`]); a project's test binary calls
/// it through [`crate::main!`]. [`main_with`] hands the run's events to a reporter of the caller's.
///
/// Exit codes, one meaning each: 0 every trial passed (or was ignored); [`EXIT_CONFIG`] (2) a bad
/// option, `KERNELGATE_JUNIT` included (checked before any trial); [`EXIT_REGRESSION`] (3) every
/// failed trial failed its gate only: a performance verdict listed in `KERNELGATE_FAIL_ON`, a
/// counter expectation measured and not met (baseline and A/B mode alike), or the resource gate
/// (registers, spills, occupancy); libtest's 101 any other failed trial (a wrong result, a counter
/// expectation that could not be evaluated, the sanitizer, a harness fault in a trial); [`EXIT_HARNESS`] (1)
/// the run's own outputs could not be written (the run CSV, the JUnit report that was asked for),
/// whatever the trials did.
pub fn main(table: crate::case::Table) -> ExitCode {
    main_with(table, Arc::new(Terminal::default()))
}

/// [`main`], with the run's events ([`crate::report::events::Event`]: its facts, warnings, each
/// trial's line, the files it wrote) handed to `reporter` instead of the suite's [`Terminal`]: a
/// project that embeds the run (a log of its own, a dashboard) or checks what it says. Messages that
/// stop the run before it starts (a bad variable, an unreadable kernel file) go to stderr, as do a
/// child process's.
///
/// # Example
/// See [`Reporter`].
pub fn main_with(table: crate::case::Table, reporter: Arc<dyn Reporter>) -> ExitCode {
    run(table, std::env::args_os(), reporter)
}

/// [`main_with`] with the command line `args` (the program's name first, then libtest's flags
/// and filters, and `--partition`) instead of the process's: a run embedded in another program,
/// or in a test of what a run says. The options still come from the `KERNELGATE_*` variables, and
/// libtest prints its own lines (`running 8 tests`, each outcome) on stdout.
///
/// # Example
/// ```no_run
/// use kernelgate::report::events::Lines;
/// # fn cases(_scale: f64) -> Vec<kernelgate::Case> { Vec::new() }
/// let table = kernelgate::case::Table::new(cases, &kernelgate::Build::UNKNOWN);
/// let lines = std::sync::Arc::new(Lines::default());
/// let args = ["kernels", "--list"].map(std::ffi::OsString::from);
/// let _code = kernelgate::suite::run(table, args, lines.clone());
/// ```
pub fn run(
    table: crate::case::Table,
    args: impl IntoIterator<Item = std::ffi::OsString>,
    reporter: Arc<dyn Reporter>,
) -> ExitCode {
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            crate::errln!("kernelgate: {e}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    // Where the project keeps things, and its kernels as they are now: read once, before any
    // trial (a bad kernelgate.toml or kernel file stops the run here).
    let project = match Project::current(&config) {
        Ok(project) => project,
        Err(e) => {
            crate::errln!("kernelgate: {e}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    let read = Sources::read(&project);
    // A child process (ncu's profiled child, the sanitizer's or the isolated child) reads its own
    // and stops when they are not the run's.
    let not_read = |e: &Error| {
        crate::errln!("kernelgate (child): {e}");
        ExitCode::FAILURE
    };
    if let Ok(parent) = std::env::var(crate::source::PARENT_KERNELS_ENV) {
        match &read {
            Ok(sources) => {
                if let Err(e) = crate::source::same_as_parent(sources, &parent) {
                    return not_read(&e);
                }
            }
            Err(e) => return not_read(e),
        }
    }
    if let Ok(list) = std::env::var(CHILD_ENV) {
        return match &read {
            Ok(sources) => select::child(&config, &project, sources, &table.for_run(&config), &list),
            Err(e) => not_read(e),
        };
    }
    if let Ok(list) = std::env::var(crate::sanitize::CHILD_ENV) {
        return match &read {
            Ok(sources) => crate::sanitize::child(&config, sources, &table.for_checked_child(&config), &list),
            Err(e) => not_read(e),
        };
    }
    // `--partition count:K/N` is kernelgate's (nextest's syntax), the rest libtest's.
    let mut argv: Vec<std::ffi::OsString> = args.into_iter().collect();
    if argv.iter().skip(1).any(|a| a == "--help" || a == "-h") {
        // libtest's help follows (it exits there); kernelgate's own flag and options first.
        crate::outln!("{}", partition::HELP);
    }
    let partition = match partition::Partition::take(&mut argv) {
        Ok(p) => p,
        Err(e) => {
            crate::errln!("kernelgate: {e}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    let mut args = Arguments::from_iter(argv);
    let sources = match read {
        Ok(sources) => sources,
        Err(e) => {
            crate::errln!("kernelgate: {e}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    // What the `kernelgate` program's commands need of the case table ([`crate::case::facts`]),
    // written by every run, `--list` included; a folder that cannot take it costs those commands
    // their host-bound reasons, vendor references and launches, not this run.
    let mut every = table.all();
    // Every program against its slots, as a project's CPU tests of its table check them: a step
    // that names a slot it cannot take stops the run here, not in the middle of a GPU trial.
    if let Err(why) = programs_fit(&every) {
        crate::errln!("kernelgate: the case table: {why}");
        return ExitCode::from(EXIT_CONFIG);
    }
    every.extend(crate::case::planted::cases());
    let mut facts = crate::case::facts::Facts::of(&every, table.build.inputs).built_from(table.build.inputs_sha256);
    // libtest's own output alone on stdout where a program reads it (JSON) or a line would break
    // its dots (terse).
    let pretty = !args.quiet && matches!(args.format, None | Some(libtest_mimic::FormatSetting::Pretty));
    reporter.report(&Event::Output { status_to_stderr: !pretty });
    if !args.list
        && let Err(e) = junit_report::check_output_paths(&config, &project)
    {
        crate::errln!("kernelgate: {e}");
        return ExitCode::from(EXIT_CONFIG);
    }
    if !args.list {
        // Which NVRTC this run compiles with, first (not for `--list`, whose output tools parse).
        let cuda_sources = sources.iter().any(|s| !s.is_own() && !s.is_prebuilt());
        reporter.report(&Event::Status(&crate::nvrtc::run_header(cuda_sources)));
        // The project's own NVRTC options, where it has any: part of each module's identity.
        for source in sources.iter().filter(|s| !s.options.is_empty()) {
            reporter.report(&Event::Status(&format!(
                "kernelgate: NVRTC options of {}: {} (kernelgate.toml [nvrtc])",
                source.path,
                source.options.join(" ")
            )));
        }
    }
    let suite = Arc::new(Suite::new(config, project, sources, table, reporter));
    let mut trials = trials(&suite);
    // Every trial as the binary lists it, for `kernelgate plan`; written by every run, `--list`
    // included.
    facts.listed = trials.iter().map(|t| t.name().to_string()).collect();
    facts.commit = suite.git.commit.clone();
    if let Err(e) = facts.write(&suite.project.out_dir) {
        suite.report(&Event::Warning(&format!(
            "kernelgate: warning: the case facts for the kernelgate program were not written: {e}"
        )));
    }
    if let Some(shard) = &partition {
        // This shard's trials among those the filters select (counted in the listed order, or as
        // the plan assigned every listed trial); the other shards' are left out of the run, and
        // those the filters leave out stay for libtest to count as filtered out.
        let listed: Vec<&str> = trials.iter().map(Trial::name).collect();
        if let Err(e) = shard.fits(&listed) {
            crate::errln!("kernelgate: {e}");
            return ExitCode::from(EXIT_CONFIG);
        }
        let selected = trials.iter().filter(|t| !args.is_filtered_out(t)).count();
        let (mut position, mut listed_position) = (0, 0);
        trials.retain(|t| {
            listed_position += 1;
            if args.is_filtered_out(t) {
                return true;
            }
            position += 1;
            shard.holds(listed_position - 1, position - 1)
        });
        if !args.list {
            suite.report(&Event::Status(&format!(
                "kernelgate: --partition {}: {} of the {selected} selected trials",
                shard.label(),
                trials.iter().filter(|t| !args.is_filtered_out(t)).count()
            )));
        }
    }
    let chosen = |t: &&Trial| !args.is_filtered_out(t) && !args.is_ignored(t);
    // The cases selected: what the checked child, the ncu session and the baseline count know.
    let selected: Vec<&str> = trials
        .iter()
        .filter(|t| !t.name().starts_with("compile/") && !crate::case::lesson::is_lesson(t.name()))
        .filter(chosen)
        .map(Trial::name)
        .collect();
    let lessons_selected = trials.iter().filter(chosen).any(|t| crate::case::lesson::is_lesson(t.name()));
    // The cases the filters name, ignored ones included (without a GPU, every GPU trial is).
    let named: Vec<&str> = trials
        .iter()
        .filter(|t| !args.is_filtered_out(t) && !t.name().starts_with("compile/"))
        .map(Trial::name)
        .collect();
    if !args.list
        && let Err(e) = prepare::announce(&suite, &named, &selected)
    {
        crate::errln!("kernelgate: {e}");
        return ExitCode::from(EXIT_CONFIG);
    }
    if !args.list && !selected.is_empty() {
        match prepare::prepare(&suite, &selected) {
            Ok(threads) => {
                // One trial per GPU unless the user asks otherwise.
                args.test_threads.get_or_insert(threads);
            }
            Err(e) => {
                crate::errln!("kernelgate: {e}");
                return ExitCode::from(EXIT_CONFIG);
            }
        }
    }
    let threads = *args.test_threads.get_or_insert(1);
    let trial_lines = if pretty && threads == 1 { TrialLines::Inline } else { TrialLines::Stderr };
    suite.report(&Event::TrialsStarting { trial_lines });
    if !args.list {
        let launches = crate::resources::launches(&plan::gated(&suite));
        let compiles = suite.sources.iter().flat_map(|s| COMPILE_ARCHS.iter().map(move |a| (s, *a)));
        let chosen = |(s, a): &(&KernelSource, &'static str)| {
            trials.iter().any(|t| {
                t.name() == format!("compile/{}/{a}", s.file) && !args.is_filtered_out(t) && !args.is_ignored(t)
            })
        };
        let jobs = compiles
            .filter(chosen)
            .flat_map(|(s, a)| crate::resources::builds(&launches, s.file).into_iter().map(move |b| (*s, a, b)));
        let modules = compile_ahead::modules(
            &suite.sources,
            selected.iter().filter_map(|name| suite.cases.iter().find(|c| c.name() == *name)),
        );
        suite.ahead.select(modules, jobs.collect());
    }
    let names: Vec<String> = trials.iter().filter(|t| !args.is_filtered_out(t)).map(|t| t.name().to_string()).collect();
    if !args.list
        && names.is_empty()
        && let Some(filter) = &args.filter
    {
        // libtest passes a run that selects nothing; a mistyped filter in CI would gate nothing.
        suite.report(&Event::Warning(&format!(
            "kernelgate: warning: the filter {filter:?} selects none of the {} trials (names are \
             <family>/<variant>/<size> and compile/<file>.cu/<arch>; --list lists them)",
            trials.len()
        )));
    }
    let any_selected = !selected.is_empty() || lessons_selected;
    // The next trials' inputs and references are made while the GPU times the current one.
    if !args.list && suite.pool().is_ok() {
        let order = selected.iter().filter_map(|name| suite.cases.iter().find(|c| c.name() == *name)).cloned();
        suite.prefetch.start(order.collect(), suite.seed);
    }
    let conclusion = libtest_mimic::run(&args, trials);
    suite.prefetch.stop();
    if !args.list {
        // The trials libtest ignored before they ran (without a GPU, every GPU trial) end too, with
        // the reason the JUnit report gives them.
        let ran: Vec<String> =
            suite.collected.outcomes.lock().unwrap_or_else(|p| p.into_inner()).iter().map(|o| o.name.clone()).collect();
        let skipped = report::junit::Outcome::Skipped(suite.no_gpu.clone().unwrap_or_else(|| "not run".to_string()));
        for name in names.iter().filter(|n| !ran.contains(n)) {
            suite.report(&Event::TrialEnded { trial: name, outcome: &skipped, seconds: 0.0 });
        }
    }
    suite.report(&Event::TrialsEnded);
    let mut unwritten = Vec::new();
    if !args.list {
        if let Err(e) = junit_report::write_junit(&suite, &names) {
            unwritten.push(format!("the JUnit report (KERNELGATE_JUNIT) was not written: {e}"));
        }
        let report = resources::render(&suite.collected.resources.lock().unwrap_or_else(|p| p.into_inner()));
        if !report.is_empty() {
            suite.report(&Event::Report(&report));
        }
        let report = sass::render(&suite.collected.sass.lock().unwrap_or_else(|p| p.into_inner()));
        if !report.is_empty() {
            suite.report(&Event::Report(&report));
        }
        if let Some(reason) = suite.collected.sass_skipped.get() {
            suite.report(&Event::Status(&format!("kernelgate: SASS gate not run: {reason}")));
        }
    }
    if !args.list && any_selected {
        results::report_phases(&suite);
    }
    if let Err(e) = results::write_results(&suite) {
        unwritten.push(e.to_string());
    }
    if !args.list {
        progress::print_counts(&suite);
    }
    if !unwritten.is_empty() {
        for e in &unwritten {
            crate::errln!("kernelgate: {e}");
        }
        crate::errln!("kernelgate: exit code {EXIT_HARNESS}: an output the run was asked for is missing (see above)");
        return ExitCode::from(EXIT_HARNESS);
    }
    let gate_failures = suite.collected.gate_failures.load(Ordering::Relaxed) as u64;
    if conclusion.has_failed() && conclusion.num_failed == gate_failures {
        suite.report(&Event::Status(&format!(
            "kernelgate: {gate_failures} trial(s) failed their performance or resource gate only; exit code \
             {EXIT_REGRESSION}"
        )));
        return ExitCode::from(EXIT_REGRESSION);
    }
    conclusion.exit_code()
}

#[cfg(test)]
mod tests {
    use crate::case::{Case, HostCall, Param, Step};

    #[test]
    fn a_program_that_does_not_fit_its_slots_stops_the_run_with_the_case_named() {
        let call = HostCall::new("scalar_call", [1], |_| Ok(()));
        let bad = Case::program("sum", "scalar", "8").params([Param::input(8), Param::I32(8)]).step(Step::Host(call));
        let why = super::programs_fit(&[bad]).unwrap_err();
        assert!(
            why.starts_with("sum/scalar/8: the host call scalar_call takes slot 1, which is not a device buffer"),
            "{why}"
        );
        assert_eq!(super::programs_fit(&crate::case::planted::cases()), Ok(()));
    }
}
