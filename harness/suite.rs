//! The libtest-mimic suite: one trial per case (`family/variant/size`) plus one NVRTC compile trial
//! per kernel file and architecture (`compile/<file>/<arch>`), and the run around them.
//!
//! Trials run one at a time unless `--test-threads` says otherwise: a time taken while another
//! kernel runs on the same GPU is wrong. Kernels compile inside their trial, so `--exact` builds
//! only what it runs.

use crate::case::{Case, HostData, Param};
use crate::check::{self, compare, describe, trial_seed};
use crate::gpu::{DeviceData, Gpu};
use crate::measure::measure_cold;
use crate::record::{self, CaseResult, RunInfo};
use crate::{Config, Error, SOURCES, cases, compile, report};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
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
    gpu: OnceLock<Result<Arc<Gpu>, String>>,
    results: Mutex<Vec<CaseResult>>,
}

impl Suite {
    /// A suite with `config`; the seed is `config.seed` or drawn from the clock.
    pub fn new(config: Config) -> Suite {
        let seed = config.seed.unwrap_or_else(|| {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            check::mix(nanos, u64::from(std::process::id()))
        });
        Suite { config, seed, gpu: OnceLock::new(), results: Mutex::new(Vec::new()) }
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

/// One GPU trial: inputs, check, measurement, result.
fn run_case(suite: &Suite, case: &Case) -> Result<Completion, Failed> {
    let gpu = match suite.gpu() {
        Ok(gpu) => gpu,
        Err(reason) if suite.config.require_gpu => {
            return Err(format!("{reason} (KERNELGATE_REQUIRE_GPU=1 makes this a failure)").into());
        }
        Err(reason) => return Ok(Completion::ignored_with(reason)),
    };
    check_and_measure(suite, &gpu, case).map_err(|e| Failed::from(e.to_string()))?.map_err(Failed::from)?;
    Ok(Completion::Completed)
}

/// `Ok(Err(message))` for a wrong result, `Err` for a harness or driver error.
fn check_and_measure(suite: &Suite, gpu: &Gpu, case: &Case) -> crate::Result<Result<(), String>> {
    let name = case.name();
    let seed = trial_seed(suite.seed, &name);
    let host: Vec<HostData> = case
        .params
        .iter()
        .enumerate()
        .filter_map(|(i, p)| check::draw(p, check::mix(seed, i as u64)))
        .collect();
    let buffer_params: Vec<&Param> = case.params.iter().filter(|p| p.is_buffer()).collect();
    let mut device = host.iter().map(|h| gpu.upload(h)).collect::<crate::Result<Vec<DeviceData>>>()?;
    for (param, buffer) in buffer_params.iter().zip(device.iter_mut()) {
        if matches!(param, Param::Out { .. }) {
            gpu.poison(buffer)?;
        }
    }
    let func = gpu.function(case.kernel)?;

    // NVTX: one push/pop range per name component, nested, so that
    // `ncu --nvtx --nvtx-include "family/variant/size/"` selects exactly this trial (ncu reads `/`
    // in a filter as nesting: one range named "family/variant/size" matched nothing on the H200,
    // 2026-11-30). ASCII messages: wide-string ranges (`nvtx::Str::from_str_lossy`) matched nothing.
    let _ranges = nvtx_ranges(case);

    gpu.launch(&func, case, &device)?;
    gpu.synchronize()?;
    let expected = (case.reference)(&host);
    // (index in case.params, device buffer) of every compared buffer, in parameter order.
    let compared = case
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.is_buffer())
        .zip(&device)
        .filter(|((_, p), _)| p.is_compared())
        .map(|((index, _), buffer)| (index, buffer));
    for ((param_index, buffer), want) in compared.zip(&expected) {
        let got = gpu.download(buffer)?;
        if let Some(m) = compare(&got, want, case.tolerance) {
            return Ok(Err(describe(case, param_index, &m, suite.seed)));
        }
    }

    let samples = measure_cold(gpu, &suite.config.stopping, suite.config.warmup, || gpu.launch(&func, case, &device))?;
    let result = CaseResult {
        trial: name,
        kernel: case.kernel.entry.to_string(),
        summary: crate::stats::summarize(&samples.seconds),
        stop: samples.stop,
        wall_s: samples.wall_s,
        bytes: case.bytes,
        flops: case.flops,
    };
    suite.results.lock().unwrap_or_else(|p| p.into_inner()).push(result);
    Ok(Ok(()))
}

/// Pushes the trial's NVTX ranges (popped when the returned guards drop).
fn nvtx_ranges(case: &Case) -> Vec<nvtx::LocalRange> {
    let parts = [case.family.to_string(), case.variant.clone(), case.size.clone()];
    parts
        .into_iter()
        .map(|p| nvtx::LocalRange::new(nvtx::Str::from(std::ffi::CString::new(p).expect("case names hold no NUL"))))
        .collect()
}

/// The `kernels` test binary's `main`: parse libtest flags, run the trials, print the table, write
/// the CSV. Returns libtest's exit code, or [`EXIT_CONFIG`] for a bad option.
pub fn main() -> ExitCode {
    let mut args = Arguments::from_args();
    // One trial at a time per GPU unless the user asks for more.
    args.test_threads.get_or_insert(1);
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("kernelgate: {e}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    let suite = Arc::new(Suite::new(config));
    let trials = trials(&suite);
    let runs_gpu_trial = trials
        .iter()
        .any(|t| !t.name().starts_with("compile/") && !args.is_filtered_out(t) && !args.is_ignored(t));
    if !args.list && runs_gpu_trial {
        // Open the GPU (and measure copy bandwidth) before the first trial line is printed.
        let _ = suite.gpu();
        println!("kernelgate: input seed {} (KERNELGATE_SEED={} replays it)", suite.seed, suite.seed);
    }
    let conclusion = libtest_mimic::run(&args, trials);
    let results = suite.results();
    if let (false, Ok(gpu)) = (results.is_empty(), suite.gpu()) {
        if let Err(e) = write_results(&suite, &gpu, &results) {
            eprintln!("kernelgate: {e}");
            return ExitCode::FAILURE;
        }
    }
    conclusion.exit_code()
}

fn write_results(suite: &Suite, gpu: &Gpu, results: &[CaseResult]) -> crate::Result<()> {
    println!("\n{}", report::table(results, gpu.facts.copy_bandwidth_gbps));
    let cwd = std::env::current_dir().map_err(Error::io("."))?;
    let root = record::project_root(&cwd);
    let run = RunInfo {
        run_id: chrono::Utc::now().format("%Y%m%dT%H%M%SZ").to_string(),
        seed: suite.seed,
        git: record::git_state(&root, suite.config.commit.as_deref()).unwrap_or_else(|reason| {
            eprintln!("kernelgate: commit recorded as unknown: {reason}");
            record::GitState::unknown()
        }),
        facts: gpu.facts.clone(),
    };
    let out_dir = suite.config.out_dir.clone().unwrap_or_else(|| root.join("target").join("kernelgate"));
    let path = record::run_csv_path(&out_dir, &run);
    record::write_csv(&path, &record::rows(&run, results))?;
    println!("kernelgate: wrote {} ({} cases)", path.display(), results.len());
    Ok(())
}
