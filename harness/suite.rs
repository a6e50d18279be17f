//! The libtest-mimic suite: one trial per case (`family/variant/size`) plus one NVRTC compile trial
//! per kernel file and architecture (`compile/<file>/<arch>`), and the run around them.
//!
//! Trials run one at a time unless `--test-threads` says otherwise: a time taken while another
//! kernel runs on the same GPU is wrong. Kernels compile inside their trial, so `--exact` builds
//! only what it runs.
//!
//! With `KERNELGATE_NCU=1` the run starts with one ncu process over the whole selection: ncu
//! re-runs this binary as a child (`KERNELGATE_PROFILE_TRIALS`) that performs each selected
//! trial's checked launch once inside its NVTX ranges; the parent then runs the trials as usual and
//! each trial also checks its counter expectations against what ncu measured.

use crate::case::{Case, HostData, Param};
use crate::check::{self, compare, describe, trial_seed};
use crate::expect::{Outcome, check_all};
use crate::gpu::{DeviceData, Gpu};
use crate::measure::measure_cold;
use crate::ncu::profile::{self, Profiled};
use crate::ncu::run::{CHILD_ENV, Session};
use crate::ncu::{metrics, run};
use crate::record::{self, CaseResult, GitState, RunInfo};
use crate::{Config, Error, SOURCES, cases, compile, report};
use cudarc::driver::CudaFunction;
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, OnceLock};

/// Architectures every kernel must compile for, with or without a GPU: Ampere (sm_80) and Hopper
/// (sm_90), the two generations the suite's lessons were written for.
pub const COMPILE_ARCHS: [&str; 2] = ["sm_80", "sm_90"];

/// Exit code for a bad `KERNELGATE_*` value (libtest uses 101 for failed trials).
pub const EXIT_CONFIG: u8 = 2;

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
    gpu: OnceLock<Result<Arc<Gpu>, String>>,
    profiled: OnceLock<Result<Profiled, String>>,
    results: Mutex<Vec<CaseResult>>,
}

impl Suite {
    /// A suite with `config`, rooted at the project root found from the current directory; the
    /// seed is `config.seed` or drawn from the clock.
    pub fn new(config: Config) -> Suite {
        let seed = config.seed.unwrap_or_else(|| {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
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
            config,
            seed,
            run_id: chrono::Utc::now().format("%Y%m%dT%H%M%SZ").to_string(),
            git,
            gpu: OnceLock::new(),
            profiled: OnceLock::new(),
            results: Mutex::new(Vec::new()),
        }
    }

    /// The GPU, opened on first use (facts printed then); `Err` holds why there is none.
    pub fn gpu(&self) -> Result<Arc<Gpu>, String> {
        self.gpu
            .get_or_init(|| {
                let opened = Gpu::open().map(Arc::new).map_err(|e| e.to_string());
                match &opened {
                    Ok(gpu) => println!("{}", report::device(&gpu.facts)),
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
    for case in cases::all() {
        let suite = Arc::clone(suite);
        trials.push(Trial::ignorable_test(case.name(), move || run_case(&suite, &case)));
    }
    trials.sort_by(|a, b| a.name().cmp(b.name()));
    trials
}

/// One GPU trial: check, measurement, counter expectations, result.
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
    suite.results.lock().unwrap_or_else(|p| p.into_inner()).push(CaseResult {
        trial: case.name(),
        kernel: case.kernel.entry.to_string(),
        summary: crate::stats::summarize(&samples.seconds),
        stop: samples.stop,
        wall_s: samples.wall_s,
        bytes: case.bytes,
        flops: case.flops,
    });
    if suite.config.ncu {
        check_counters(suite, case).map_err(Failed::from)?;
    }
    Ok(Completion::Completed)
}

/// A case's kernel and device buffers after a passing check, ready to time.
struct Prepared {
    func: CudaFunction,
    buffers: Vec<DeviceData>,
}

/// Draws inputs, poisons outputs, launches once and compares every element with the reference.
/// `Ok(Err(message))` for a wrong result, `Err` for a harness or driver error.
fn check_case(gpu: &Gpu, case: &Case, run_seed: u64) -> crate::Result<Result<Prepared, String>> {
    let seed = trial_seed(run_seed, &case.name());
    let host: Vec<HostData> = case
        .params
        .iter()
        .enumerate()
        .filter_map(|(i, p)| check::draw(p, check::mix(seed, i as u64)))
        .collect();
    let buffer_params: Vec<(usize, &Param)> = case.params.iter().enumerate().filter(|(_, p)| p.is_buffer()).collect();
    let mut buffers = host.iter().map(|h| gpu.upload(h)).collect::<crate::Result<Vec<DeviceData>>>()?;
    for ((_, param), buffer) in buffer_params.iter().zip(buffers.iter_mut()) {
        if matches!(param, Param::Out { .. }) {
            gpu.poison(buffer)?;
        }
    }
    let func = gpu.function(case.kernel)?;
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
    Ok(Ok(Prepared { func, buffers }))
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
        let _ = suite.gpu();
        println!("kernelgate: input seed {} (KERNELGATE_SEED={} replays it)", suite.seed, suite.seed);
    }
    let conclusion = libtest_mimic::run(&args, trials);
    if let Err(e) = write_results(&suite) {
        eprintln!("kernelgate: {e}");
        return ExitCode::FAILURE;
    }
    conclusion.exit_code()
}

/// Runs the one ncu session over `selected` trials and the variants their ratio expectations name.
fn profile_selection(suite: &Suite, selected: &[&str]) -> crate::Result<Profiled> {
    let all = cases::all();
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
    println!("kernelgate: profiling {} trials with ncu (--clock-control {})", session.trials.len(), session.clock_control);
    let child_env = [(CHILD_ENV, session.trials.join("\n")), ("KERNELGATE_SEED", suite.seed.to_string())];
    let (outputs, parsed) = session.run(&program, &child_env)?;
    let version = run::version(&session.ncu).unwrap_or_else(|e| format!("unknown ({e})"));
    let profiled = profile::collect(&parsed, &profiled_cases, &session.metrics, &outputs.csv, &version, &session.clock_control, &outputs.report)?;
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
    let all = cases::all();
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
        let run = RunInfo { run_id: suite.run_id.clone(), seed: suite.seed, git: suite.git.clone(), facts: gpu.facts.clone() };
        let path = with_suffix(&suite.stem(), ".csv");
        record::write_csv(&path, &record::rows(&run, &results))?;
        println!("kernelgate: wrote {} ({} cases)", path.display(), results.len());
    }
    if let Some(Ok(profiled)) = suite.profiled.get() {
        let gpu_key = suite.gpu.get().and_then(|g| g.as_ref().ok()).map_or("unknown".to_string(), |g| g.facts.gpu_key.clone());
        let path = with_suffix(&suite.stem(), "-metrics.csv");
        record::write_csv(&path, &profile::rows(profiled, &suite.run_id, &suite.git, &gpu_key))?;
        println!("kernelgate: wrote {} ({} trials profiled)", path.display(), profiled.values.len());
    }
    if let Some(Err(e)) = suite.profiled.get() {
        println!("kernelgate: ncu profiling failed: {e}");
    }
    Ok(())
}

fn with_suffix(stem: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", stem.display()))
}
