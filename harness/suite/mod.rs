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
//! | check | [`crate::check::check_case`] |
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
mod faults;
mod junit_report;
mod lesson_trial;
mod progress;
mod results;
mod trial;
mod verdict;
use verdict::sanitized;

use crate::case::Case;
use crate::console::TrialLines;
use crate::devices::{Lease, Pool};
use crate::gate::Policy;
use crate::gate::baseline::Baseline;
use crate::gpu::Gpu;
use crate::history;
use crate::history::revision::Revision;
use crate::ncu::profile::Profiled;
use crate::ncu::{run::CHILD_ENV, select};
use crate::record::{self, CaseResult, GitState};
use crate::report::junit::TrialOutcome;
use crate::{cases, check, config::Config, error::Error, report, resources, sass, source::SOURCES};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use std::path::{Path, PathBuf};
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
#[derive(Debug)]
pub struct Suite {
    /// Options.
    pub config: Config,
    /// Seed of this run's inputs.
    pub seed: u64,
    /// UTC start of the run, `YYYYMMDDTHHMMSSZ`; names its output files.
    pub run_id: String,
    /// The git state the run is recorded under: the binary's ([`history::built::reconcile`]).
    pub git: GitState,
    /// Where the tree the run started in differs from the binary's, one sentence each.
    git_warnings: Vec<String>,
    /// Where run files go.
    pub out_dir: PathBuf,
    /// The project root.
    pub root: PathBuf,
    /// Every case of the run (at `KERNELGATE_WORK_SCALE`).
    cases: Vec<Case>,
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
    /// The B side's kernels when `KERNELGATE_AB_B` names a revision (else this build's).
    ab_b: OnceLock<Revision>,
    /// Cases of this run that have a baseline (or, in A/B, that are timed): the `tests` of the
    /// family-wise correction.
    compared: AtomicUsize,
    timed: Mutex<Vec<Timed>>,
    /// The lesson trials judged, for the lessons CSV and the JUnit report.
    lessons: Mutex<Vec<crate::lesson_record::LessonRow>>,
    /// How each trial that ran ended, for the JUnit report.
    outcomes: Mutex<Vec<TrialOutcome>>,
    /// Trials that failed only their gate (performance or resources).
    gate_failures: AtomicUsize,
    stem: OnceLock<PathBuf>,
    /// What each compile trial's resource gate found, for the end-of-run report.
    resources: Mutex<Vec<resources::Checked>>,
    /// What each compile trial's SASS gate found, for the end-of-run report.
    sass: Mutex<Vec<sass::Checked>>,
    /// Why the SASS gate did not run (no nvdisasm), said once at the end of the run.
    sass_skipped: OnceLock<String>,
}

impl Suite {
    /// A suite with `config`, rooted at the project root found from the current directory; the
    /// seed is `config.seed` or drawn from the clock.
    pub fn new(config: Config) -> Suite {
        let seed = config.seed.unwrap_or_else(|| {
            let nanos =
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
            check::mix(nanos, u64::from(std::process::id()))
        });
        let root = crate::paths::project_root(&std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")));
        let recorded = recorded_state(&root, config.commit.as_deref());
        Suite {
            out_dir: config.out_dir.clone().unwrap_or_else(|| root.join("target").join("kernelgate")),
            cases: cases::for_run(&config),
            no_gpu: crate::gpu::gpu_available().err().map(|e| e.to_string()),
            root,
            config,
            seed,
            run_id: chrono::Utc::now().format("%Y%m%dT%H%M%SZ").to_string(),
            git: recorded.git,
            git_warnings: recorded.warnings,
            pool: OnceLock::new(),
            bad_devices: OnceLock::new(),
            profiled: OnceLock::new(),
            sanitized: OnceLock::new(),
            baseline: OnceLock::new(),
            ab: OnceLock::new(),
            ab_b: OnceLock::new(),
            compared: AtomicUsize::new(0),
            timed: Mutex::new(Vec::new()),
            lessons: Mutex::new(Vec::new()),
            outcomes: Mutex::new(Vec::new()),
            gate_failures: AtomicUsize::new(0),
            stem: OnceLock::new(),
            resources: Mutex::new(Vec::new()),
            sass: Mutex::new(Vec::new()),
            sass_skipped: OnceLock::new(),
        }
    }

    /// The GPUs, found on first use; `Err` holds why there are none.
    fn pool(&self) -> Result<&Pool, String> {
        self.pool
            .get_or_init(|| {
                let pool = Pool::new(&self.config.devices, crate::compile::nvrtc_version, |gpu| {
                    crate::say!("{}", report::device(&gpu.facts));
                    report::ceilings(&gpu.ceilings).into_iter().for_each(|line| crate::say!("{line}"));
                })
                .map_err(|e| {
                    if matches!(e, Error::Config { .. }) {
                        let _ = self.bad_devices.set(e.to_string());
                    }
                    e.to_string()
                });
                if let (Err(reason), None) = (&pool, &self.no_gpu) {
                    crate::say!("kernelgate: the GPUs cannot be used: {reason}");
                }
                pool
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Borrows a GPU for one trial.
    fn lease(&self) -> Result<Lease<'_>, String> {
        self.pool()?.acquire()
    }

    /// Results of the trials that completed, in completion order.
    pub fn results(&self) -> Vec<CaseResult> {
        self.timed.lock().unwrap_or_else(|p| p.into_inner()).iter().map(|t| t.result.clone()).collect()
    }

    /// The gate's policy from the options.
    pub fn policy(&self) -> Policy {
        Policy { alpha: self.config.alpha, effect_floor: self.config.effect_floor_pct() / 100.0, ..Policy::default() }
    }

    /// This GPU's baseline folder: `<KERNELGATE_BASELINES or <root>/baselines>/<gpu key>`.
    pub fn baseline_dir(&self, gpu_key: &str) -> PathBuf {
        self.baselines().join(gpu_key)
    }

    /// The folder of baseline folders: `KERNELGATE_BASELINES`, or `<root>/baselines`.
    pub fn baselines(&self) -> PathBuf {
        self.config.baselines.clone().unwrap_or_else(|| self.root.join(crate::gate::baseline::BASELINES_DIR))
    }

    /// File stem of this run's outputs, claimed on first use ([`record::claim_stem`]).
    ///
    /// # Errors
    /// [`Error::Io`] if the runs folder cannot be written.
    pub fn stem(&self) -> crate::error::Result<PathBuf> {
        if let Some(stem) = self.stem.get() {
            return Ok(stem.clone());
        }
        let claimed = record::claim_stem(&self.out_dir, &self.run_id, &self.git)?;
        Ok(self.stem.get_or_init(|| claimed).clone())
    }

    /// What is the same for every row of this run on the GPU of `facts`.
    pub fn run_info(&self, facts: &crate::model::DeviceFacts) -> record::RunInfo {
        record::RunInfo {
            run_id: self.run_id.clone(),
            seed: self.seed,
            git: self.git.clone(),
            kernels_sha256: history::built::BUILT_KERNELS_SHA256.to_string(),
            facts: facts.clone(),
            work_scale: self.config.work_scale,
            // The commit A's kernels came from (a branch name given would move on).
            ab_revision: match self.ab.get() {
                Some(Ok(revision)) => revision.commit.clone(),
                _ => self.config.ab.clone().unwrap_or_default(),
            },
        }
    }

    /// What the B side of an A/B run is: `this build`, or `kernels/ at <rev> = <commit>` with
    /// `KERNELGATE_AB_B`.
    pub fn b_side(&self) -> String {
        self.ab_b.get().map_or_else(|| "this build".to_string(), |b| format!("kernels/ at {}", b.label()))
    }

    /// The number of trials compared in this run (at least 1).
    fn tests(&self) -> usize {
        self.compared.load(Ordering::Relaxed).max(1)
    }
}

/// The git state a run in `root` is recorded under: `KERNELGATE_COMMIT`'s (`given`), the tree's
/// when the binary was built in it from the same kernels, else the binary's; with warnings where
/// the tree here differs ([`history::built::reconcile`]).
fn recorded_state(root: &Path, given: Option<&str>) -> history::built::Recorded {
    use history::provenance;
    let here = provenance::read(root, None).expect("read without a revision always answers");
    let kernels_here = read_kernels(&root.join("kernels")).map(|files| {
        let refs: Vec<(&str, &str)> = files.iter().map(|(f, t)| (f.as_str(), t.as_str())).collect();
        provenance::kernels_sha256(&refs)
    });
    let given = given.map(|id| (id, provenance::read(root, Some(id))));
    history::built::reconcile(
        &history::built::built(),
        history::built::BUILT_KERNELS_SHA256,
        &here,
        kernels_here.as_deref(),
        same_folder(root, history::built::built_in()),
        given,
    )
}

/// Whether `a` and `b` name one folder (both canonicalized; `false` when either cannot be).
fn same_folder(a: &Path, b: &Path) -> bool {
    matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b)
}

/// `(file name, text)` of every `*.cu` in `dir`; `None` when the folder cannot be read.
fn read_kernels(dir: &Path) -> Option<Vec<(String, String)>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).ok()? {
        let path = entry.ok()?.path();
        if path.extension().is_some_and(|e| e == "cu") {
            files.push((path.file_name()?.to_string_lossy().into_owned(), std::fs::read_to_string(&path).ok()?));
        }
    }
    Some(files)
}

/// Every trial: the cases and the lesson trials ([`cases::lessons`]) sorted by name, then the
/// compile trials for each file and [`COMPILE_ARCHS`], sorted by name.
/// Without a GPU the GPU trials are marked ignored here, at discovery, so that runners that list
/// ignored tests first (nextest) report them as skipped, not passed; the run prints the reason.
pub fn trials(suite: &Arc<Suite>) -> Vec<Trial> {
    let mut trials = Vec::new();
    // The planted family's kernels are compiled and gated in every run, so their launches count
    // whether or not KERNELGATE_PLANTED adds their cases.
    let mut gated = suite.cases.clone();
    if !suite.config.planted {
        gated.extend(cases::planted::cases());
    }
    let launches = Arc::new(resources::launches(&gated));
    let arities = Arc::new(resources::arities(&gated));
    let declared = Arc::new(sass::declared(&gated));
    for source in SOURCES {
        for arch in COMPILE_ARCHS {
            let name = format!("compile/{}/{arch}", source.file);
            let (s, l, a, d) = (Arc::clone(suite), Arc::clone(&launches), Arc::clone(&arities), Arc::clone(&declared));
            trials.push(Trial::ignorable_test(
                name.clone(),
                progress::noted(suite, name, move || {
                    crate::phases::time(crate::phases::Phase::CompileTrial, || {
                        compile_trial::run(&s, &l, &a, &d, source, arch)
                    })
                }),
            ));
        }
    }
    let no_gpu = !suite.config.require_gpu && suite.no_gpu.is_some();
    for (i, case) in suite.cases.iter().enumerate() {
        let s = Arc::clone(suite);
        let body = progress::noted(suite, case.name(), move || sanitized(&s, &s.cases[i], trial::run(&s, &s.cases[i])));
        trials.push(Trial::ignorable_test(case.name(), body).with_ignored_flag(no_gpu));
    }
    for lesson in cases::lessons::trials(&suite.cases) {
        let (s, name) = (Arc::clone(suite), lesson.name());
        let body = progress::noted(suite, name.clone(), move || lesson_trial::run(&s, &lesson));
        trials.push(Trial::ignorable_test(name, body).with_ignored_flag(no_gpu));
    }
    // The compile trials last: their NVRTC and nvdisasm work is made on the other cores while the
    // GPU trials run (compile_ahead), so that they only collect it.
    trials.sort_by(|a, b| {
        (a.name().starts_with("compile/"), a.name()).cmp(&(b.name().starts_with("compile/"), b.name()))
    });
    trials
}

/// The outcome of a trial that cannot run here (no GPU, no NVRTC, no cuBLAS): ignored with the
/// reason; but under cargo-nextest (`NEXTEST=1`, which nextest sets in every test process) a
/// failure, since nextest runs an ignored trial only when asked to (`--run-ignored`), in a process
/// of its own, and counts a process that exits 0 as passed: `--run-ignored all` on a machine
/// without a GPU reported 485 passed, 0 skipped.
pub(crate) fn cannot_run(reason: String) -> Result<Completion, Failed> {
    if std::env::var_os("NEXTEST").is_some_and(|v| v == "1") {
        return Err(format!(
            "not run: {reason} (under cargo-nextest a trial that did not run fails instead of passing; leave \
             --run-ignored off to skip it)"
        )
        .into());
    }
    Ok(Completion::ignored_with(reason))
}

/// The `kernels` test binary's `main`: parse libtest flags, profile with ncu if asked, run the
/// trials, print the table, write the CSVs and the JUnit report.
///
/// Exit codes, one meaning each: 0 every trial passed (or was ignored); [`EXIT_CONFIG`] (2) a bad
/// option, `KERNELGATE_JUNIT` included (checked before any trial); [`EXIT_REGRESSION`] (3) every
/// failed trial failed its gate only, a performance verdict listed in `KERNELGATE_FAIL_ON` or the
/// resource gate (registers, spills, occupancy); libtest's 101 any other failed trial (a wrong
/// result, a counter expectation, the sanitizer, a harness fault in a trial); [`EXIT_HARNESS`] (1)
/// the run's own outputs could not be written (the run CSV, the JUnit report that was asked for),
/// whatever the trials did.
pub fn main() -> ExitCode {
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("kernelgate: {e}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    if let Ok(list) = std::env::var(CHILD_ENV) {
        return select::child(&config, &cases::for_run(&config), &list);
    }
    if let Ok(list) = std::env::var(crate::sanitize::CHILD_ENV) {
        return crate::sanitize::child(&config, &cases::for_checked_child(&config), &list);
    }
    let mut args = Arguments::from_args();
    // libtest's own output alone on stdout where a program reads it (JSON) or a line would break
    // its dots (terse).
    let pretty = !args.quiet && matches!(args.format, None | Some(libtest_mimic::FormatSetting::Pretty));
    crate::console::route_status(!pretty);
    if !args.list
        && let Some(path) = &config.junit
        && let Err(e) = junit_report::check_junit_path(path)
    {
        eprintln!("kernelgate: {e}");
        return ExitCode::from(EXIT_CONFIG);
    }
    if !args.list {
        // Which NVRTC this run compiles with, first (not for `--list`, whose output tools parse).
        crate::say!("{}", crate::nvrtc::run_header());
    }
    let suite = Arc::new(Suite::new(config));
    let trials = trials(&suite);
    let chosen = |t: &&Trial| !args.is_filtered_out(t) && !args.is_ignored(t);
    // The cases selected: what the checked child, the ncu session and the baseline count know.
    let selected: Vec<&str> = trials
        .iter()
        .filter(|t| !t.name().starts_with("compile/") && !cases::lessons::is_lesson(t.name()))
        .filter(chosen)
        .map(Trial::name)
        .collect();
    let lessons_selected = trials.iter().filter(chosen).any(|t| cases::lessons::is_lesson(t.name()));
    if !args.list
        && let Err(e) = announce(&suite, &selected)
    {
        eprintln!("kernelgate: {e}");
        return ExitCode::from(EXIT_CONFIG);
    }
    if !args.list && !selected.is_empty() {
        match prepare(&suite, &selected) {
            Ok(threads) => {
                // One trial per GPU unless the user asks otherwise.
                args.test_threads.get_or_insert(threads);
            }
            Err(e) => {
                eprintln!("kernelgate: {e}");
                return ExitCode::from(EXIT_CONFIG);
            }
        }
    }
    let threads = *args.test_threads.get_or_insert(1);
    crate::console::route_trial_lines(if pretty && threads == 1 { TrialLines::Inline } else { TrialLines::Stderr });
    if !args.list {
        let compiles = SOURCES.iter().flat_map(|s| COMPILE_ARCHS.iter().map(move |a| (s, *a)));
        let chosen = |(s, a): &(&'static crate::source::KernelSource, &'static str)| {
            trials.iter().any(|t| {
                t.name() == format!("compile/{}/{a}", s.file) && !args.is_filtered_out(t) && !args.is_ignored(t)
            })
        };
        compile_ahead::AHEAD.select(compiles.filter(chosen).collect());
    }
    let names: Vec<String> = trials.iter().filter(|t| !args.is_filtered_out(t)).map(|t| t.name().to_string()).collect();
    let any_selected = !selected.is_empty() || lessons_selected;
    // The next trials' inputs and references are made while the GPU times the current one.
    let prefetch = (!args.list && suite.pool().is_ok()).then(|| {
        let order = selected.iter().filter_map(|name| suite.cases.iter().find(|c| c.name() == *name)).cloned();
        crate::inputs::prefetch::Prefetch::start(order.collect(), suite.seed)
    });
    let conclusion = libtest_mimic::run(&args, trials);
    drop(prefetch);
    crate::console::flush_notes();
    let mut unwritten = Vec::new();
    if !args.list {
        if let Err(e) = junit_report::write_junit(&suite, &names) {
            unwritten.push(format!("the JUnit report (KERNELGATE_JUNIT) was not written: {e}"));
        }
        let report = resources::render(&suite.resources.lock().unwrap_or_else(|p| p.into_inner()));
        if !report.is_empty() {
            crate::say!("\n{report}");
        }
        let report = sass::render(&suite.sass.lock().unwrap_or_else(|p| p.into_inner()));
        if !report.is_empty() {
            crate::say!("\n{report}");
        }
        if let Some(reason) = suite.sass_skipped.get() {
            crate::say!("kernelgate: SASS gate not run: {reason}");
        }
    }
    if !args.list && any_selected {
        let trials_s: f64 = suite.outcomes.lock().unwrap_or_else(|p| p.into_inner()).iter().map(|o| o.seconds).sum();
        let totals = crate::phases::totals();
        // Nothing to say where no GPU trial ran (compile trials alone take no phase's time).
        if totals.iter().any(|(_, s)| *s >= 0.05) {
            crate::say!("{}", crate::phases::render(&totals, &crate::phases::background_totals(), trials_s));
        }
    }
    if let Err(e) = results::write_results(&suite) {
        unwritten.push(e.to_string());
    }
    if !args.list {
        progress::print_counts(&suite);
    }
    if !unwritten.is_empty() {
        for e in &unwritten {
            eprintln!("kernelgate: {e}");
        }
        eprintln!("kernelgate: exit code {EXIT_HARNESS}: an output the run was asked for is missing (see above)");
        return ExitCode::from(EXIT_HARNESS);
    }
    let gate_failures = suite.gate_failures.load(Ordering::Relaxed) as u64;
    if conclusion.has_failed() && conclusion.num_failed == gate_failures {
        crate::say!(
            "kernelgate: {gate_failures} trial(s) failed their performance or resource gate only; exit code \
             {EXIT_REGRESSION}"
        );
        return ExitCode::from(EXIT_REGRESSION);
    }
    conclusion.exit_code()
}

/// What every run says before its trials, GPU or not: why the GPU trials are ignored (or fail),
/// and the A/B revision, read (and so checked) even when nothing will be timed.
///
/// # Errors
/// A `KERNELGATE_AB` revision that cannot be read, as a sentence (exit code 2).
fn announce(suite: &Suite, selected: &[&str]) -> Result<(), String> {
    let g = &suite.git;
    crate::say!(
        "kernelgate: recorded under commit {}{}{} ({}{})",
        g.short(),
        if g.kernels_dirty == Some(true) { " with edited kernels" } else { "" },
        if g.dirty == Some(true) { ", tree dirty when built" } else { "" },
        g.state.as_str(),
        if g.branch.is_empty() { String::new() } else { format!(" {}", g.branch) },
    );
    for w in &suite.git_warnings {
        crate::say!("kernelgate: warning: {w}");
    }
    if let Some(reason) = &suite.no_gpu {
        if suite.config.require_gpu {
            crate::say!("kernelgate: GPU trials fail (KERNELGATE_REQUIRE_GPU=1): {reason}");
        } else {
            crate::say!("kernelgate: GPU trials are ignored: {reason}");
        }
        if suite.config.ncu {
            crate::say!("kernelgate: KERNELGATE_NCU=1, but nothing is profiled: there is no GPU");
        }
        if let Some(tool) = &suite.config.sanitize {
            crate::say!("kernelgate: KERNELGATE_SANITIZE={tool}, but nothing is checked: there is no GPU");
        } else if suite.config.isolate {
            crate::say!("kernelgate: KERNELGATE_ISOLATE=1, but no child runs: there is no GPU");
        }
    }
    if suite.config.isolate && suite.config.sanitize.is_some() {
        crate::say!(
            "kernelgate: KERNELGATE_ISOLATE=1 with KERNELGATE_SANITIZE: the sanitizer's child does the isolating \
             (it does not repeat the timed path)"
        );
    }
    if let Some(rev) = &suite.config.ab {
        let revision = Revision::read(&suite.root, rev)
            .map_err(|e| Error::Config { name: "KERNELGATE_AB", value: rev.clone(), expected: e }.to_string())?;
        let b = match &suite.config.ab_b {
            Some(rev_b) => Some(Revision::read(&suite.root, rev_b).map_err(|e| {
                Error::Config { name: "KERNELGATE_AB_B", value: rev_b.clone(), expected: e }.to_string()
            })?),
            None => None,
        };
        let (b_commit, b_what) =
            b.as_ref().map_or((suite.git.commit.clone(), "the built commit"), |b| (b.commit.clone(), "B at"));
        if let Some(b) = b {
            let _ = suite.ab_b.set(b);
        }
        // A revision given as a commit id is said once.
        let at = if revision.commit.starts_with(rev.as_str()) {
            revision.commit.clone()
        } else {
            format!("{rev} ({})", revision.commit)
        };
        crate::say!(
            "kernelgate: A/B: each case's kernels at {at} against {}, timed in pairs over one set of buffers",
            suite.b_side()
        );
        if let Some(warning) = revision.cases_differ(&suite.root, &b_commit, b_what) {
            crate::say!("kernelgate: warning: {warning}");
        }
        let _ = suite.ab.set(Ok(revision));
        suite.compared.store(selected.len(), Ordering::Relaxed);
    }
    Ok(())
}

/// Before the trials: open the first GPU (its facts and copy bandwidth print before the first
/// trial line), profile with ncu, load the baseline (not in A/B runs). Returns how many trials may
/// run at once (the pool's GPUs).
///
/// # Errors
/// A bad `KERNELGATE_DEVICES`, as a sentence (exit code 2).
fn prepare(suite: &Suite, selected: &[&str]) -> Result<usize, String> {
    let gpu = suite.pool().ok().and_then(|pool| pool.first().ok());
    if let Some(bad) = suite.bad_devices.get() {
        return Err(bad.clone());
    }
    if let Some(gpu) = &gpu {
        // The checked child first: a trial that faults or hangs there is left out of the ncu
        // session, whose child has no timeout and would hang or fail on it too.
        if suite.config.sanitize.is_some() || suite.config.isolate {
            let sanitized = std::env::current_exe()
                .map_err(Error::io("the test executable"))
                .and_then(|program| {
                    let log =
                        suite.stem()?.with_extension(if suite.config.isolate && suite.config.sanitize.is_none() {
                            "isolate.log"
                        } else {
                            "sanitize.log"
                        });
                    crate::phases::time(crate::phases::Phase::Child, || {
                        crate::sanitize::run(&suite.config, selected, &program, log)
                    })
                })
                .map_err(|e| e.to_string());
            let _ = suite.sanitized.set(sanitized);
        }
        if suite.config.ncu {
            let unfinished = match suite.sanitized.get() {
                Some(Ok(s)) => s.unfinished.clone(),
                _ => Default::default(),
            };
            let cases: Vec<Case> = suite.cases.iter().filter(|c| !unfinished.contains(&c.name())).cloned().collect();
            let profiled = std::env::current_exe()
                .map_err(Error::io("the test executable"))
                .and_then(|program| {
                    let report = suite.stem()?.with_extension("ncu-rep");
                    crate::phases::time(crate::phases::Phase::Profile, || {
                        select::profile(&suite.config, &cases, selected, &program, report)
                    })
                })
                .map_err(|e| e.to_string());
            let _ = suite.profiled.set(profiled);
        }
        if suite.config.ab.is_none() {
            load_baseline(suite, gpu, selected);
        }
    }
    crate::say!("kernelgate: input seed {} (KERNELGATE_SEED={} replays it)", suite.seed, suite.seed);
    if suite.config.work_scale != 1.0 {
        crate::say!(
            "kernelgate: KERNELGATE_WORK_SCALE={}: every case does about {}x its work under its nominal name \
             (power benchmark; the run CSV's bytes rows hold the real work)",
            suite.config.work_scale,
            suite.config.work_scale
        );
    }
    Ok(suite.pool().map_or(1, Pool::len))
}

/// Loads this GPU's baseline and counts the selected trials it covers (the family-wise `tests`);
/// says when it was blessed on another physical GPU.
fn load_baseline(suite: &Suite, gpu: &Gpu, selected: &[&str]) {
    let dir = suite.baseline_dir(&gpu.facts.gpu_key);
    let loaded = match &suite.config.baselines {
        // A misspelt path would otherwise read as "no baseline" and pass every trial.
        Some(folder) if !folder.is_dir() && !suite.config.bless => Err(format!(
            "KERNELGATE_BASELINES={} names no folder; check the path, or unset it for <project root>/baselines",
            folder.display()
        )),
        _ => Baseline::load(&dir).map_err(|e| e.to_string()),
    };
    match &loaded {
        Ok(b) => {
            let covered = selected.iter().filter(|t| b.time(t).is_some()).count();
            suite.compared.store(covered, Ordering::Relaxed);
            crate::say!(
                "kernelgate: baseline {}: {covered} of {} selected trials covered; verdicts fail on: {}",
                dir.display(),
                selected.len(),
                suite.config.fail_on.join(", ")
            );
            let mut others: Vec<&str> = selected
                .iter()
                .filter_map(|t| b.time(t))
                .map(|e| e.gpu_uuid.as_str())
                .filter(|u| *u != gpu.facts.uuid)
                .collect();
            others.sort_unstable();
            others.dedup();
            if !others.is_empty() {
                let shown: Vec<&str> = others.iter().map(|u| if u.is_empty() { "unrecorded" } else { u }).collect();
                crate::say!(
                    "kernelgate: WARNING: the baseline was blessed on another physical GPU ({}) than this run's ({}); \
                     medians of one kernel differed by -5.8 to +2.9 % between two H200s, so regressions may be the \
                     machine's: bless on the machine that gates, or gate with KERNELGATE_AB=<rev>",
                    shown.join(", "),
                    gpu.facts.uuid
                );
            }
        }
        Err(e) => crate::say!("kernelgate: baseline unusable, every GPU trial fails: {e}"),
    }
    let _ = suite.baseline.set(loaded);
}
