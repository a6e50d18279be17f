//! The libtest-mimic suite: one trial per case (`family/variant/size`) plus one NVRTC compile trial
//! per kernel file and architecture (`compile/<file>/<arch>`), and the run around them.
//!
//! Trials run one at a time unless `--test-threads` says otherwise: a time taken while another
//! kernel runs on the same GPU is wrong. Kernels compile inside their trial, so `--exact` builds
//! only what it runs.
//!
//! Every timed trial is compared with the baseline of its GPU (`baselines/<gpu-key>/`) and gets a
//! verdict (`crate::compare`); `KERNELGATE_BLESS=1` writes the trials run into that baseline.
//!
//! With `KERNELGATE_NCU=1` the run starts with one ncu process over the whole selection: ncu
//! re-runs this binary as a child (`KERNELGATE_PROFILE_TRIALS`) that performs each selected
//! trial's checked launch once inside its NVTX ranges; the parent then runs the trials as usual and
//! each trial also checks its counter expectations against what ncu measured.

use crate::baseline::{self, Baseline, Entry};
use crate::case::{Case, HostData, Param};
use crate::check::{self, compare, describe, trial_seed};
use crate::compare::{self, Comparison, Policy, Verdict};
use crate::expect::{Outcome, check_all};
use crate::gpu::{DeviceData, Gpu};
use crate::measure::{Samples, measure_cold};
use crate::ncu::profile::{self, Profiled};
use crate::ncu::run::{CHILD_ENV, Session};
use crate::ncu::{metrics, run};
use crate::record::{self, CaseResult, GitState, RunInfo};
use crate::{Config, Error, SOURCES, cases, compile, report};
use cudarc::driver::CudaFunction;
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use std::collections::BTreeMap;
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

/// Exit code when every failed trial failed only its performance gate (a verdict listed in
/// `KERNELGATE_FAIL_ON`): a regression, told apart from wrong results and harness errors (101).
pub const EXIT_REGRESSION: u8 = 3;

/// State shared by the trials of one run.
#[derive(Debug)]
pub struct Suite {
    /// Options.
    pub config: Config,
    /// Seed of this run's inputs.
    pub seed: u64,
    /// UTC start of the run, `YYYYMMDDTHHMMSSZ`; names its output files.
    pub run_id: String,
    /// Commit and dirty flag of the working tree.
    pub git: GitState,
    /// Where run files go.
    pub out_dir: PathBuf,
    /// The project root.
    pub root: PathBuf,
    gpu: OnceLock<Result<Arc<Gpu>, String>>,
    profiled: OnceLock<Result<Profiled, String>>,
    baseline: OnceLock<Result<Baseline, String>>,
    /// Cases of this run that have a baseline: the `tests` of the family-wise correction.
    compared: AtomicUsize,
    results: Mutex<Vec<CaseResult>>,
    /// Kept samples (evenly spaced subset) per trial, for blessing.
    kept: Mutex<BTreeMap<String, Vec<f64>>>,
    /// Trials that failed only their performance gate.
    gate_failures: AtomicUsize,
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
        let root = record::project_root(&std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")));
        let git = record::git_state(&root, config.commit.as_deref()).unwrap_or_else(|reason| match &config.commit {
            // The GPU runner's copy of the repository may lack the commit's objects too.
            Some(given) => {
                eprintln!("kernelgate: recording KERNELGATE_COMMIT={given} as given, dirty unknown: {reason}");
                GitState { commit: given.clone(), dirty: None }
            }
            None => {
                eprintln!("kernelgate: commit recorded as unknown: {reason}");
                GitState::unknown()
            }
        });
        Suite {
            out_dir: config.out_dir.clone().unwrap_or_else(|| root.join("target").join("kernelgate")),
            root,
            config,
            seed,
            run_id: chrono::Utc::now().format("%Y%m%dT%H%M%SZ").to_string(),
            git,
            gpu: OnceLock::new(),
            profiled: OnceLock::new(),
            baseline: OnceLock::new(),
            compared: AtomicUsize::new(0),
            results: Mutex::new(Vec::new()),
            kept: Mutex::new(BTreeMap::new()),
            gate_failures: AtomicUsize::new(0),
        }
    }

    /// The GPU, opened on first use (facts printed then); `Err` holds why there is none.
    pub fn gpu(&self) -> Result<Arc<Gpu>, String> {
        self.gpu
            .get_or_init(|| {
                let opened = Gpu::open().map(Arc::new).map_err(|e| e.to_string());
                match &opened {
                    Ok(gpu) => println!("{}", report::device(&gpu.facts)),
                    Err(reason) if self.config.require_gpu => {
                        println!("kernelgate: GPU trials fail (KERNELGATE_REQUIRE_GPU=1): {reason}")
                    }
                    Err(reason) => println!("kernelgate: GPU trials are ignored: {reason}"),
                }
                opened
            })
            .clone()
    }

    /// Results of the trials that completed, in completion order.
    pub fn results(&self) -> Vec<CaseResult> {
        self.results.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The gate's policy from the options.
    pub fn policy(&self) -> Policy {
        Policy { alpha: self.config.alpha, effect_floor: self.config.min_effect_pct / 100.0, ..Policy::default() }
    }

    /// This GPU's baseline folder: `<KERNELGATE_BASELINES or <root>/baselines>/<gpu key>`.
    pub fn baseline_dir(&self, gpu_key: &str) -> PathBuf {
        match &self.config.baselines {
            Some(dir) => dir.join(gpu_key),
            None => Baseline::dir_for(&self.root, gpu_key),
        }
    }

    /// File stem of this run's outputs ([`record::run_stem`]).
    pub fn stem(&self) -> PathBuf {
        record::run_stem(&self.out_dir, &self.run_id, &self.git)
    }
}

/// Every trial, sorted by name: compile trials for each file and [`COMPILE_ARCHS`], then cases.
pub fn trials(suite: &Arc<Suite>) -> Vec<Trial> {
    let mut trials = Vec::new();
    for source in SOURCES {
        for arch in COMPILE_ARCHS {
            let require = suite.config.require_nvrtc;
            trials.push(Trial::ignorable_test(format!("compile/{}/{arch}", source.file), move || {
                match compile::check_compiles(source, arch) {
                    Ok(Ok(())) => Ok(Completion::Completed),
                    Ok(Err(mismatch)) => Err(mismatch.into()),
                    Err(Error::Unavailable(reason)) if !require => Ok(Completion::ignored_with(reason)),
                    Err(e) => Err(e.to_string().into()),
                }
            }));
        }
    }
    for case in cases::with_work_scale(suite.config.work_scale) {
        let suite = Arc::clone(suite);
        trials.push(Trial::ignorable_test(case.name(), move || run_case(&suite, &case)));
    }
    trials.sort_by(|a, b| a.name().cmp(b.name()));
    trials
}

/// One GPU trial: check, measurement, verdict against the baseline, counter expectations.
fn run_case(suite: &Suite, case: &Case) -> Result<Completion, Failed> {
    let gpu = match suite.gpu() {
        Ok(gpu) => gpu,
        Err(reason) if suite.config.require_gpu => {
            return Err(format!("{reason} (KERNELGATE_REQUIRE_GPU=1 makes this a failure)").into());
        }
        Err(reason) => return Ok(Completion::ignored_with(reason)),
    };
    let harness_error = |e: Error| Failed::from(e.to_string());
    let ranges = nvtx_ranges(case);
    let prepared = check_case(&gpu, case, suite.seed).map_err(harness_error)?.map_err(Failed::from)?;
    let samples = measure_cold(&gpu, &suite.config.stopping, suite.config.warmup, || {
        gpu.launch(&prepared.func, case, &prepared.buffers)
    })
    .map_err(harness_error)?;
    drop(ranges);

    let judged = judge(suite, case, &samples).map_err(Failed::from)?;
    let (kept, throttled) = samples.kept();
    let summary = crate::stats::summarize(if kept.is_empty() { &samples.seconds } else { &kept });
    suite
        .kept
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(case.name(), crate::stats::evenly_spaced(&kept, suite.config.baseline_samples));
    suite.results.lock().unwrap_or_else(|p| p.into_inner()).push(CaseResult {
        trial: case.name(),
        kernel: case.kernel.entry.to_string(),
        summary,
        stop: samples.stop,
        wall_s: samples.wall_s,
        bytes: case.bytes,
        flops: case.flops,
        module_sha256: prepared.module_sha256.clone(),
        sm_clock_mhz: samples.median_sm_mhz(),
        throttled,
        throttle_reasons: samples.throttle_reasons(),
        other_processes: samples.other_processes.clone(),
        verdict: judged.verdict,
        comparison: judged.comparison.clone(),
        invalid_reason: samples.invalid_reason().or_else(|| judged.comparison.as_ref().and_then(Comparison::too_noisy)),
    });
    if suite.config.ncu {
        check_counters(suite, case).map_err(Failed::from)?;
    }
    if !suite.config.bless && suite.config.fail_on.iter().any(|v| v == judged.verdict.as_str()) {
        suite.gate_failures.fetch_add(1, Ordering::Relaxed);
        return Err(judged.message.into());
    }
    Ok(Completion::Completed)
}

/// A verdict and what to say about it.
struct Judged {
    verdict: Verdict,
    comparison: Option<Comparison>,
    message: String,
}

/// Compares a trial's samples (and, with ncu, counters) with its baseline. `Err` when the baseline
/// cannot be used at all (a corrupt file): that is a harness error, not a verdict.
fn judge(suite: &Suite, case: &Case, samples: &Samples) -> Result<Judged, String> {
    let name = case.name();
    let plain = |verdict: Verdict, why: String| Judged {
        verdict,
        comparison: None,
        message: format!("{name}: {}: {why}", verdict.as_str()),
    };
    if let Some(reason) = samples.invalid_reason() {
        return Ok(plain(Verdict::Invalid, reason));
    }
    let baseline = match suite.baseline.get() {
        Some(Ok(b)) => b,
        Some(Err(e)) => return Err(e.clone()),
        None => return Ok(plain(Verdict::NoBaseline, "no baseline loaded".into())),
    };
    let (Some(entry), Some(base)) = (baseline.time(&name), baseline.samples(&name)) else {
        return Ok(plain(Verdict::NoBaseline, format!("no entry in {}", baseline.dir.display())));
    };
    let (kept, _) = samples.kept();
    // `base_unit`: the baseline's seconds in the unit compared.
    let (now, base_unit, unit) = if suite.config.compare_cycles {
        match (samples.kept_cycles(), entry.sm_clock_mhz) {
            // The baseline keeps seconds and its median SM clock: its cycles are approximate.
            (Some(now), Some(mhz)) => (now, mhz * 1e6, "cycles"),
            _ => {
                return Ok(plain(
                    Verdict::Invalid,
                    "KERNELGATE_COMPARE=cycles needs SM clocks (NVML) in this run and the baseline".into(),
                ));
            }
        }
    } else {
        (kept, 1.0, "time")
    };
    let base: Vec<f64> = base.iter().map(|s| s * base_unit).collect();
    let tests = suite.compared.load(Ordering::Relaxed).max(1);
    let spread = baseline.run_to_run(&name);
    // `delta` against the baseline run's full median (the kept samples are a subset).
    let known = compare::Known {
        baseline_median: Some(entry.median * base_unit),
        now_median: None,
        median_rsd: spread.map(|r| r.median_rsd),
    };
    let c = compare::compare_with(&now, &base, known, &suite.policy(), tests).map_err(|e| format!("{name}: {e}"))?;
    let floor_from = match spread {
        Some(r) => format!("the median's run-to-run spread, {:.3}% over {} runs", 100.0 * r.median_rsd, r.runs),
        None => "KERNELGATE_MIN_EFFECT or 2 x the baseline's relative MAD".to_string(),
    };

    if let Some(why) = c.too_noisy() {
        return Ok(Judged { verdict: c.verdict, message: format!("{name}: invalid: {why}"), comparison: Some(c) });
    }
    let (moved, counter_regressed) = counter_moves(suite, baseline, &name);
    let verdict = if counter_regressed && c.verdict != Verdict::Regressed { Verdict::Regressed } else { c.verdict };
    // `Comparison` holds seconds, or cycles with KERNELGATE_COMPARE=cycles.
    let show = |v: f64| if unit == "cycles" { format!("{v:.0} cycles") } else { report::duration(v) };
    let mut message = format!(
        "{name}: {}: median {} vs baseline {} ({:+.2}%), one-sided Mann-Whitney p = {:.2e}, \
         x{tests} cases (Bonferroni, Holm's first step) = {:.2e} against alpha {}, effect floor {:.2}% \
         (from {floor_from})",
        verdict.as_str(),
        show(c.median_s),
        show(c.baseline_median_s),
        100.0 * c.delta,
        c.p_value,
        c.p_adjusted,
        suite.config.alpha,
        100.0 * c.min_effect,
    );
    if !moved.is_empty() {
        message.push_str("; counters that moved most: ");
        message.push_str(&moved.join(", "));
    }
    Ok(Judged { verdict, comparison: Some(c), message })
}

/// [`compare::counter_moves`] of this trial, when ncu ran and profiled it.
fn counter_moves(suite: &Suite, baseline: &Baseline, trial: &str) -> (Vec<String>, bool) {
    match suite.profiled.get() {
        Some(Ok(profiled)) => match profiled.values.get(trial) {
            Some(values) => compare::counter_moves(baseline.counters(trial), values),
            None => (Vec::new(), false),
        },
        _ => (Vec::new(), false),
    }
}

/// A case's kernel and device buffers after a passing check, ready to time.
struct Prepared {
    func: CudaFunction,
    module_sha256: String,
    buffers: Vec<DeviceData>,
}

/// Draws inputs, poisons outputs, launches once and compares every element with the reference.
/// `Ok(Err(message))` for a wrong result, `Err` for a harness or driver error.
fn check_case(gpu: &Gpu, case: &Case, run_seed: u64) -> crate::Result<Result<Prepared, String>> {
    let seed = trial_seed(run_seed, &case.name());
    let host: Vec<HostData> =
        case.params.iter().enumerate().filter_map(|(i, p)| check::draw(p, check::mix(seed, i as u64))).collect();
    let buffer_params: Vec<(usize, &Param)> = case.params.iter().enumerate().filter(|(_, p)| p.is_buffer()).collect();
    let mut buffers = host.iter().map(|h| gpu.upload(h)).collect::<crate::Result<Vec<DeviceData>>>()?;
    for ((_, param), buffer) in buffer_params.iter().zip(buffers.iter_mut()) {
        if matches!(param, Param::Out { .. }) {
            gpu.poison(buffer)?;
        }
    }
    let (func, module_sha256) = gpu.function(case.kernel)?;
    gpu.launch(&func, case, &buffers)?;
    gpu.synchronize()?;
    let expected = (case.reference)(&host);
    let compared = buffer_params.iter().zip(&buffers).filter(|((_, p), _)| p.is_compared());
    for (((param_index, _), buffer), want) in compared.zip(&expected) {
        let got = gpu.download(buffer)?;
        if let Some(m) = compare(&got, want, case.tolerance) {
            return Ok(Err(describe(case, *param_index, &m, run_seed)));
        }
    }
    Ok(Ok(Prepared { func, module_sha256, buffers }))
}

/// Checks `case`'s counter expectations against this run's ncu values.
fn check_counters(suite: &Suite, case: &Case) -> Result<(), String> {
    let profiled = suite.profiled.get().ok_or("KERNELGATE_NCU=1 but no ncu session ran")?.as_ref()?;
    let name = case.name();
    let values = profiled.values.get(&name).ok_or_else(|| {
        format!("{name}: ncu profiled no kernel inside this trial's NVTX ranges (report {})", profiled.report.display())
    })?;
    let checked = check_all(&case.expectations, values, |variant| profiled.values.get(&case.sibling(variant)));
    if checked.iter().all(|c| matches!(c.outcome, Outcome::Pass(_))) {
        return Ok(());
    }
    let lines: Vec<String> = checked.iter().map(|c| format!("  {c}")).collect();
    Err(format!("{name}: counter expectations (ncu, report {}):\n{}", profiled.report.display(), lines.join("\n")))
}

/// Pushes the trial's NVTX ranges (popped when the returned guards drop): one push/pop range per
/// name component, nested, so that `ncu --nvtx --nvtx-include "family/variant/size/"` selects
/// exactly this trial (ncu reads `/` in a filter as nesting: a single range named
/// "family/variant/size" matched nothing on the H200, 2026-11-30). ASCII messages: wide-string
/// ranges (`nvtx::Str::from_str_lossy`) matched nothing either.
fn nvtx_ranges(case: &Case) -> Vec<nvtx::LocalRange> {
    [case.family, &case.variant, &case.size]
        .into_iter()
        .map(|p| nvtx::LocalRange::new(nvtx::Str::from(std::ffi::CString::new(p).expect("case names hold no NUL"))))
        .collect()
}

/// The `kernels` test binary's `main`: parse libtest flags, profile with ncu if asked, run the
/// trials, print the table, write the CSVs. Returns libtest's exit code, or [`EXIT_CONFIG`] for a
/// bad option.
pub fn main() -> ExitCode {
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("kernelgate: {e}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    if let Ok(list) = std::env::var(CHILD_ENV) {
        return profile_child(&config, &list);
    }
    let mut args = Arguments::from_args();
    // One trial at a time per GPU unless the user asks for more.
    args.test_threads.get_or_insert(1);
    let suite = Arc::new(Suite::new(config));
    let trials = trials(&suite);
    let selected: Vec<&str> = trials
        .iter()
        .filter(|t| !t.name().starts_with("compile/") && !args.is_filtered_out(t) && !args.is_ignored(t))
        .map(Trial::name)
        .collect();
    if !args.list && !selected.is_empty() {
        if suite.config.ncu {
            let _ = suite.profiled.set(profile_selection(&suite, &selected).map_err(|e| e.to_string()));
        }
        // Open the GPU (and measure copy bandwidth) before the first trial line is printed.
        if let Ok(gpu) = suite.gpu() {
            load_baseline(&suite, &gpu.facts.gpu_key, &selected);
        }
        println!("kernelgate: input seed {} (KERNELGATE_SEED={} replays it)", suite.seed, suite.seed);
        if suite.config.work_scale != 1.0 {
            println!(
                "kernelgate: KERNELGATE_WORK_SCALE={}: every case does about {}x its work under its nominal name \
                 (power benchmark; the run CSV's bytes rows hold the real work)",
                suite.config.work_scale, suite.config.work_scale
            );
        }
    }
    let conclusion = libtest_mimic::run(&args, trials);
    if let Err(e) = write_results(&suite) {
        eprintln!("kernelgate: {e}");
        return ExitCode::FAILURE;
    }
    let gate_failures = suite.gate_failures.load(Ordering::Relaxed) as u64;
    if conclusion.has_failed() && conclusion.num_failed == gate_failures {
        println!("kernelgate: {gate_failures} trial(s) failed the performance gate only; exit code {EXIT_REGRESSION}");
        return ExitCode::from(EXIT_REGRESSION);
    }
    conclusion.exit_code()
}

/// Loads this GPU's baseline and counts the selected trials it covers (the family-wise `tests`).
fn load_baseline(suite: &Suite, gpu_key: &str, selected: &[&str]) {
    let dir = suite.baseline_dir(gpu_key);
    let loaded = Baseline::load(&dir).map_err(|e| e.to_string());
    match &loaded {
        Ok(b) => {
            let covered = selected.iter().filter(|t| b.time(t).is_some()).count();
            suite.compared.store(covered, Ordering::Relaxed);
            println!(
                "kernelgate: baseline {}: {covered} of {} selected trials covered; verdicts fail on: {}",
                dir.display(),
                selected.len(),
                suite.config.fail_on.join(", ")
            );
        }
        Err(e) => println!("kernelgate: baseline unusable, every GPU trial fails: {e}"),
    }
    let _ = suite.baseline.set(loaded);
}

/// Runs the one ncu session over `selected` trials and the variants their ratio expectations name.
fn profile_selection(suite: &Suite, selected: &[&str]) -> crate::Result<Profiled> {
    let all = cases::with_work_scale(suite.config.work_scale);
    let mut names: Vec<String> = Vec::new();
    for case in all.iter().filter(|c| selected.contains(&c.name().as_str())) {
        names.push(case.name());
        names.extend(case.expectations.iter().filter_map(|e| e.relative_to).map(|v| case.sibling(v)));
    }
    names.sort();
    names.dedup();
    let profiled_cases: Vec<&Case> = all.iter().filter(|c| names.contains(&c.name())).collect();
    let mut metric_names: Vec<&'static str> = Vec::new();
    for case in &profiled_cases {
        for m in metrics::requested(case) {
            if !metric_names.contains(&m) {
                metric_names.push(m);
            }
        }
    }
    let session = Session {
        ncu: suite.config.ncu_path.clone(),
        clock_control: suite.config.ncu_clock_control.clone(),
        metrics: metric_names,
        trials: profiled_cases.iter().map(|c| c.name()).collect(),
        report: suite.stem().with_extension("ncu-rep"),
    };
    let program = std::env::current_exe().map_err(Error::io("the test executable"))?;
    let started = std::time::Instant::now();
    println!(
        "kernelgate: profiling {} trials with ncu (--clock-control {})",
        session.trials.len(),
        session.clock_control
    );
    let child_env = [(CHILD_ENV, session.trials.join("\n")), ("KERNELGATE_SEED", suite.seed.to_string())];
    let (outputs, parsed) = session.run(&program, &child_env)?;
    let version = run::version(&session.ncu).unwrap_or_else(|e| format!("unknown ({e})"));
    let profiled = profile::collect(
        &parsed,
        &profiled_cases,
        &session.metrics,
        &outputs.csv,
        &version,
        &session.clock_control,
        &outputs.report,
    )?;
    println!(
        "kernelgate: ncu {version} profiled {} kernels in {:.1} s; report {} (open it in the Nsight Compute GUI)",
        profiled.values.len(),
        started.elapsed().as_secs_f64(),
        outputs.report.display()
    );
    Ok(profiled)
}

/// The profiled child: each listed trial's checked launch, once, inside its NVTX ranges.
fn profile_child(config: &Config, list: &str) -> ExitCode {
    let gpu = match Gpu::open_with(false) {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("kernelgate (profiled child): {e}");
            return ExitCode::FAILURE;
        }
    };
    let seed = config.seed.unwrap_or(0);
    let all = cases::with_work_scale(config.work_scale);
    let mut failed = false;
    for name in list.lines().filter(|l| !l.is_empty()) {
        let Some(case) = all.iter().find(|c| c.name() == name) else {
            eprintln!("kernelgate (profiled child): no case named {name}");
            failed = true;
            continue;
        };
        let _ranges = nvtx_ranges(case);
        match check_case(&gpu, case, seed) {
            Ok(Ok(_)) => {}
            Ok(Err(message)) => {
                eprintln!("kernelgate (profiled child): {message}");
                failed = true;
            }
            Err(e) => {
                eprintln!("kernelgate (profiled child): {name}: {e}");
                failed = true;
            }
        }
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

/// Prints the table and writes the run CSV, and the metrics CSV when ncu ran.
fn write_results(suite: &Suite) -> crate::Result<()> {
    let results = suite.results();
    if let (false, Some(Ok(gpu))) = (results.is_empty(), suite.gpu.get()) {
        println!("\n{}", report::table(&results, gpu.facts.copy_bandwidth_gbps));
        let run = RunInfo {
            run_id: suite.run_id.clone(),
            seed: suite.seed,
            git: suite.git.clone(),
            facts: gpu.facts.clone(),
            work_scale: suite.config.work_scale,
        };
        let path = with_suffix(&suite.stem(), ".csv");
        record::write_csv(&path, &record::rows(&run, &results))?;
        println!("kernelgate: wrote {} ({} cases)", path.display(), results.len());
        keep_run_record(suite, gpu, &results);
        if suite.config.bless {
            bless(suite, gpu, &results)?;
        }
    }
    if let Some(Ok(profiled)) = suite.profiled.get() {
        let gpu_key =
            suite.gpu.get().and_then(|g| g.as_ref().ok()).map_or("unknown".to_string(), |g| g.facts.gpu_key.clone());
        let path = with_suffix(&suite.stem(), "-metrics.csv");
        record::write_csv(&path, &profile::rows(profiled, &suite.run_id, &suite.git, &gpu_key))?;
        println!("kernelgate: wrote {} ({} trials profiled)", path.display(), profiled.values.len());
    }
    if let Some(Err(e)) = suite.profiled.get() {
        println!("kernelgate: ncu profiling failed: {e}");
    }
    Ok(())
}

/// Writes the trials run into this GPU's baseline: the time entry with its kept samples, and every
/// requested and derived counter when ncu ran. Trials not run are untouched; a baseline that failed
/// to load is never rewritten.
fn bless(suite: &Suite, gpu: &Gpu, results: &[CaseResult]) -> crate::Result<()> {
    let dir = suite.baseline_dir(&gpu.facts.gpu_key);
    let mut base = match suite.baseline.get() {
        Some(Ok(b)) => b.clone(),
        Some(Err(e)) => {
            return Err(Error::Baseline {
                path: dir,
                line: None,
                message: format!("not blessed, the baseline did not load: {e}"),
            });
        }
        None => Baseline::load(&dir)?,
    };
    let (mut entries, samples) = run_record(suite, gpu, results);
    if !matches!(suite.profiled.get(), Some(Ok(_))) {
        // Without ncu this run, the trials' blessed counters stay as they were.
        for trial in samples.keys() {
            entries.extend(base.counters(trial).cloned());
        }
    }
    let changes = base.bless(entries, samples);
    base.save()?;
    println!("kernelgate: blessed {} trials into {} ({} changes)", results.len(), dir.display(), changes.len());
    for c in &changes {
        println!("  {c}");
    }
    Ok(())
}

/// This run's results in baseline form: per trial the time entry (n, median, MAD of the kept
/// samples, mean, stddev, min, commit, date, module hash, SM clock, GPU fingerprint) and, when ncu
/// ran, one entry per metric; and the kept samples (evenly spaced, at most
/// `KERNELGATE_BASELINE_SAMPLES`). What bless writes, and what `<stem>-baseline/` keeps of every run
/// for `kernelgate compare`.
fn run_record(suite: &Suite, gpu: &Gpu, results: &[CaseResult]) -> (Vec<Entry>, BTreeMap<String, Vec<f64>>) {
    let f = &gpu.facts;
    let date = baseline::utc_now();
    let kept = suite.kept.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let entry = |r: &CaseResult,
                 metric: &str,
                 unit: &str,
                 n: u64,
                 (median, mad, mean, stddev, min): (f64, f64, f64, f64, f64)| Entry {
        schema_version: baseline::BASELINE_SCHEMA,
        trial: r.trial.clone(),
        kernel: r.kernel.clone(),
        metric: metric.to_string(),
        unit: unit.to_string(),
        n,
        median,
        mad,
        mean,
        stddev,
        min,
        commit: suite.git.commit.clone(),
        date: date.clone(),
        module_sha256: r.module_sha256.clone(),
        sm_clock_mhz: r.sm_clock_mhz,
        gpu_name: f.name.clone(),
        compute_capability: f.compute_capability(),
        sm_count: f.sm_count,
        memory_mib: f.memory_mib(),
        driver: f.driver_version.clone(),
        cuda: f.cuda_driver_version.clone(),
        ecc: f.ecc,
    };
    let mut entries = Vec::new();
    let mut samples = BTreeMap::new();
    for r in results {
        let Some(subset) = kept.get(&r.trial).filter(|s| !s.is_empty()) else { continue };
        let s = &r.summary;
        let stats = (s.median_s, crate::stats::mad(subset), s.mean_s, s.stddev_s, s.min_s);
        entries.push(entry(r, baseline::TIME_METRIC, "s", s.n as u64, stats));
        samples.insert(r.trial.clone(), subset.clone());
        if let Some(Ok(p)) = suite.profiled.get() {
            for (metric, &value) in p.values.get(&r.trial).into_iter().flatten() {
                let unit = p.units.get(metric).map_or("", String::as_str);
                entries.push(entry(r, metric, unit, 1, (value, 0.0, value, 0.0, value)));
            }
        }
    }
    (entries, samples)
}

/// Keeps this run's record in baseline form in `<stem>-baseline/`, for `kernelgate compare` (a
/// run against the baseline or against another run). A failure here is reported, not fatal: the
/// run's CSV is already written.
fn keep_run_record(suite: &Suite, gpu: &Gpu, results: &[CaseResult]) {
    let dir = with_suffix(&suite.stem(), "-baseline");
    let (entries, samples) = run_record(suite, gpu, results);
    let mut record = Baseline::empty(&dir);
    record.bless(entries, samples);
    match record.save() {
        Ok(()) => println!("kernelgate: kept the run's samples in {} (kernelgate compare)", dir.display()),
        Err(e) => eprintln!("kernelgate: could not keep the run's samples: {e}"),
    }
}

fn with_suffix(stem: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", stem.display()))
}
