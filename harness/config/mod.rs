//! Options of kernelgate's own, read from `KERNELGATE_*` environment variables in one place.
//!
//! libtest's flags (filters, `--list`, `--exact`, `--ignored`, `--test-threads`) stay libtest's;
//! everything kernelgate adds is an environment variable, as insta and trybuild do, so that
//! `cargo test --release` passes it through untouched. [`vars`] is the one table of them (name,
//! values, default, meaning, who reads it); `docs/options.md` is generated from it.

use std::path::PathBuf;

/// Which rule ends sampling once the minimum samples and time are reached
/// ([`crate::measure`] implements both).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Criterion {
    /// Stop once the 95 % confidence interval of the median is at most `fraction` of the effect
    /// floor the gate will apply to this trial (`KERNELGATE_STOP=precision`, the default;
    /// `KERNELGATE_PRECISION`, default 0.25): the samples answer the gate's question and no more.
    Precision {
        /// Largest CI half-width, as a fraction of the effect floor.
        fraction: f64,
    },
    /// nvbench's `stdrel` criterion: stop once stddev / mean is at most
    /// [`StoppingRule::max_noise_pct`] (`KERNELGATE_STOP=noise`).
    Noise,
}

/// When to stop taking timing samples of one case.
///
/// The minimum samples and the timeout are nvbench's defaults (`nvbench/detail/measure_cold.cuh`):
/// at least 10 samples, and 15 s of wall time end sampling whatever the [`Criterion`] says; the
/// minimum GPU time is half nvbench's 0.5 s ([`vars::MIN_TIME`] says why).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StoppingRule {
    /// What ends sampling after the minimums (`KERNELGATE_STOP`, default precision).
    pub criterion: Criterion,
    /// Fewest samples (`KERNELGATE_MIN_SAMPLES`, default 10).
    pub min_samples: usize,
    /// Least total GPU time of the samples, seconds (`KERNELGATE_MIN_TIME`, default 0.25).
    pub min_time_s: f64,
    /// Noise target of [`Criterion::Noise`]: stddev / mean, percent (`KERNELGATE_MAX_NOISE`,
    /// default 0.5, nvbench's).
    pub max_noise_pct: f64,
    /// Wall-clock limit for one case's timing loop, seconds (`KERNELGATE_TIMEOUT`, default 15).
    pub timeout_s: f64,
}

/// Default of `KERNELGATE_PRECISION`: the median's 95 % CI half-width may be a quarter of the
/// effect floor. kernelgate's choice: a run whose median is known that well adds little to the
/// between-run movement that the floor is set against (the H200's medians move 0.03-0.5 % between
/// runs, baselines/nvidia-h200-sm90/BENCHMARK.md), and the 1 % floor then needs the CI within
/// ±0.25 %, which a 54 us kernel with 1.5 % per-sample noise reaches in about 220 samples.
pub const DEFAULT_PRECISION: f64 = 0.25;

impl Default for StoppingRule {
    fn default() -> Self {
        StoppingRule {
            criterion: Criterion::Precision { fraction: DEFAULT_PRECISION },
            min_samples: vars::MIN_SAMPLES.whole_default(),
            min_time_s: vars::MIN_TIME.number_default(),
            max_noise_pct: vars::MAX_NOISE.number_default(),
            timeout_s: vars::TIMEOUT.number_default(),
        }
    }
}

/// Which GPUs a run uses (`KERNELGATE_DEVICES`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Devices {
    /// Every GPU the CUDA driver reports (`all`).
    All,
    /// These CUDA ordinals (`0,1`), in the order given, no repeats; default `[0]`.
    List(Vec<usize>),
}

/// Every option kernelgate reads, completed from defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// When to stop sampling.
    pub stopping: StoppingRule,
    /// Untimed launches before the samples (`KERNELGATE_WARMUP`, default 1, as nvbench).
    pub warmup: usize,
    /// Seed of the input generator (`KERNELGATE_SEED`); `None` draws a new one per run, which is
    /// printed so a failure can be replayed.
    pub seed: Option<u64>,
    /// Where run CSVs go (`KERNELGATE_OUT_DIR`); `None` means `<project root>/target/kernelgate`.
    pub out_dir: Option<PathBuf>,
    /// Commit to record instead of the one the binary was built from (`KERNELGATE_COMMIT`, a hex id
    /// or any revision git2 can parse).
    pub commit: Option<String>,
    /// Profile the selected trials with Nsight Compute and check their counter expectations
    /// (`KERNELGATE_NCU=1`).
    pub ncu: bool,
    /// The ncu executable (`KERNELGATE_NCU_PATH`, default `ncu` on PATH).
    pub ncu_path: PathBuf,
    /// ncu's `--clock-control` (`KERNELGATE_NCU_CLOCK_CONTROL`, default `none`: leave the GPU's
    /// clocks as they are, as the runner's rules ask; ncu's own default, `base`, locks them).
    pub ncu_clock_control: String,
    /// Write the trials' results into the baseline (`KERNELGATE_BLESS=1`): only the trials run,
    /// and only those that passed their check and were measured under good conditions.
    pub bless: bool,
    /// Folder holding one baseline folder per GPU key (`KERNELGATE_BASELINES`, default
    /// `<project root>/baselines`).
    pub baselines: Option<PathBuf>,
    /// Raw samples kept per trial in a blessed baseline for the two-sample test
    /// (`KERNELGATE_BASELINE_SAMPLES`, default 1000, evenly spaced over the run).
    pub baseline_samples: usize,
    /// Family-wise significance level of the gate (`KERNELGATE_ALPHA`, default 0.05, criterion.rs's
    /// `significance_level`).
    pub alpha: f64,
    /// Smallest change ever called a regression, percent (`KERNELGATE_MIN_EFFECT`, at most
    /// [`MAX_MIN_EFFECT_PCT`]); `None` when not set: [`Config::effect_floor_pct`] then picks the
    /// default. The baseline's own noise can raise it.
    pub min_effect_pct: Option<f64>,
    /// Verdicts that fail a trial (`KERNELGATE_FAIL_ON`, comma-separated from `regressed`,
    /// `ambiguous`, `invalid`; default `regressed`; never empty).
    pub fail_on: Vec<String>,
    /// Compare `time` (seconds, default) or `cycles` (seconds x the SM clock NVML read after each
    /// sample), `KERNELGATE_COMPARE`.
    pub compare_cycles: bool,
    /// Fail GPU trials instead of ignoring them when no GPU is usable (`KERNELGATE_REQUIRE_GPU=1`);
    /// for GPU runners, where a broken driver must not pass as "ignored".
    pub require_gpu: bool,
    /// Fail the NVRTC compile trials instead of ignoring them when libnvrtc is missing
    /// (`KERNELGATE_REQUIRE_NVRTC=1`); CI sets it so the compile check cannot silently vanish.
    pub require_nvrtc: bool,
    /// Work multiplier for the gate's power benchmark (`KERNELGATE_WORK_SCALE`, default 1, from 0.5
    /// to 2): every case runs at its problem size times this factor under its nominal trial name,
    /// so it is judged against the nominal baseline (`crate::case::Table::cases` at the factor). A run with a factor
    /// other than 1 records it in the run CSV's `work_scale` column and cannot bless.
    pub work_scale: f64,
    /// The GPUs to run on, one trial per GPU at a time (`KERNELGATE_DEVICES`, default `0`).
    pub devices: Devices,
    /// Same-run A/B: the git revision whose `kernels/*.cu` are timed against the tree's (as read), in one
    /// process, samples interleaved (`KERNELGATE_AB`, e.g. `HEAD`, `main`, a commit id).
    pub ab: Option<String>,
    /// Time an A/B case whose two versions compile to the same PTX, or to the same SASS for the
    /// GPU's architecture, anyway (`KERNELGATE_AB_IDENTICAL=time`; default `skip`: such a case is
    /// reported as identical and not timed, since it runs the same machine code). Timing identical modules is how
    /// the A/B gate's false-alarm rate is measured (an A/A test).
    pub ab_time_identical: bool,
    /// A same-run A/B run's A/A controls: how many cases whose kernel files (and NVRTC options) are
    /// the same at both revisions are timed anyway, drawn at random with the run's input seed
    /// (`KERNELGATE_AB_CONTROLS`, default 4; 0: none). Their verdicts measure the gate's own false
    /// alarms on this runner, never fail the run, and are kept in the history
    /// (`kernelgate history quality`).
    pub ab_controls: usize,
    /// What a run's time is gated against (`KERNELGATE_REFERENCE`: `baseline`, default, or `gpu`).
    /// With `gpu` (a pool's nightly, docs/ci.md "A pool's nightly") a time verdict against the
    /// baseline is recorded but fails no trial: `kernelgate history gate --reference gpu` judges the
    /// time against the same GPU's own runs. Counter verdicts, counter expectations, the resource and
    /// SASS gates and the lessons gate as ever, and a same-run A/B run is unaffected.
    pub time_by_gpu_history: bool,
    /// The B side of an A/B run from a git revision's `kernels/*.cu` instead of the tree's
    /// (`KERNELGATE_AB_B`, only with `KERNELGATE_AB`): how `kernelgate bisect` times a commit
    /// against the good one without rebuilding.
    pub ab_b: Option<String>,
    /// Where every run is appended to the history (`KERNELGATE_HISTORY`: a folder, or `off`;
    /// default the project's, `crate::project::Project::history`).
    pub history: History,
    /// Also add the run to the git notes of its commit, `refs/notes/kernelgate`
    /// (`KERNELGATE_NOTES=1`; `crate::history::notes`), for `git push` to share.
    pub notes: bool,
    /// Write the run's JUnit XML here (`KERNELGATE_JUNIT`, a file path), for CI systems.
    pub junit: Option<PathBuf>,
    /// Append the path of the run CSV written to this file (`KERNELGATE_RUN_FILE`;
    /// `crate::paths::note_run_csv`), for scripts that read the run (`scripts/nightly`).
    pub run_file: Option<PathBuf>,
    /// Add the `planted/` family of deliberately buggy kernels to the run (`KERNELGATE_PLANTED=1`;
    /// `crate::case::planted`), to test crash isolation and the sanitizer mode.
    pub planted: bool,
    /// Run each selected trial's checked launch once under this compute-sanitizer tool, one
    /// sanitizer process for the run, and fail the trials it reports (`KERNELGATE_SANITIZE`:
    /// `memcheck`, `racecheck`, `synccheck` or `initcheck`; `crate::sanitize`).
    pub sanitize: Option<String>,
    /// The work of the cases the sanitizer's child checks, as a factor of the run's work
    /// (`KERNELGATE_SANITIZE_SCALE`, 1/64 to 1, default 1; only with `KERNELGATE_SANITIZE`):
    /// `crate::case::Table::cases` at `KERNELGATE_WORK_SCALE` times this factor, under the
    /// nominal trial names. racecheck tracks every shared-memory access: on the H200 it took 62 s
    /// over `matmul/cp_async/4000x4000x1000` (timed at 36.2 TFLOP/s, under 1 ms, without it), and
    /// the whole suite took 231 s at 1/64 (baselines/nvidia-h200-sm90/BENCHMARK.md, "Whole
    /// suite under each tool").
    pub sanitize_scale: f64,
    /// The compute-sanitizer executable (`KERNELGATE_SANITIZER_PATH`, default `compute-sanitizer`
    /// on PATH, else `/usr/local/cuda/bin/compute-sanitizer`).
    pub sanitizer_path: Option<PathBuf>,
    /// Longest one trial may take in the checked child (sanitizer mode, `KERNELGATE_ISOLATE`)
    /// before the child is killed and the trial fails, seconds (`KERNELGATE_KERNEL_TIMEOUT`; only
    /// with one of those; `None` when unset: [`DEFAULT_KERNEL_TIMEOUT_S`]). It counts from the
    /// child's begin marker of the trial to its end marker: the NVRTC compile, drawing the inputs,
    /// the CPU reference and the runs, not the kernel alone.
    pub kernel_timeout_s: Option<f64>,
    /// Check each selected trial once in a child process before the suite times it
    /// (`KERNELGATE_ISOLATE=1`; `crate::sanitize`, without a tool): a trial whose kernel faults,
    /// kills its process or runs past `KERNELGATE_KERNEL_TIMEOUT` fails alone and is not timed.
    pub isolate: bool,
}

/// Per-trial limit of a checked child (sanitizer mode, `KERNELGATE_ISOLATE`) when `KERNELGATE_KERNEL_TIMEOUT` is unset, seconds: 300.
/// kernelgate's choice: the suite's checked runs take under a second each on the H200, and
/// compute-sanitizer slows kernels by a large factor that depends on the tool and the kernel's
/// memory accesses (the user manual gives no figure); five minutes leaves room for that.
pub const DEFAULT_KERNEL_TIMEOUT_S: f64 = 300.0;

/// Where runs are recorded (`KERNELGATE_HISTORY`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum History {
    /// `<project root>/.kernelgate/history` (unset).
    #[default]
    Default,
    /// A folder of history stores.
    Dir(PathBuf),
    /// `off`: nothing is recorded.
    Off,
}

/// Default family-wise significance level of the gate (`KERNELGATE_ALPHA`, `kernelgate compare
/// --alpha`, [`crate::gate::Policy`]): 0.05, criterion.rs's `significance_level` default.
pub const DEFAULT_ALPHA: f64 = 0.05;

/// Default effect floor against a baseline, percent: 1, criterion.rs's `noise_threshold` of 0.01.
/// Across runs (and, with a baseline blessed elsewhere, across GPUs) medians move by up to a few
/// tenths of a percent (baselines/nvidia-h200-sm90/BENCHMARK.md, "A/A").
pub const DEFAULT_MIN_EFFECT_PCT: f64 = 1.0;

/// Default effect floor of a same-run A/B run (`KERNELGATE_AB`), percent: 0.5. Pairs timed
/// interleaved in one process share the GPU, its clock and its drift, so their ratio is tighter than
/// a median against a stored baseline: in 245 A/A comparisons on an H200 (35 cases x 7 whole-suite
/// runs, identical code at both revisions) the paired delta moved at most 0.25 %; 0.5 % is twice
/// that, and lets the gate see a change of about 1 % (BENCHMARK.md, "A/B's effect floor: 0.5 %":
/// a plant that cost 0.93 % was never detected under a 1 % floor).
pub const DEFAULT_AB_MIN_EFFECT_PCT: f64 = 0.5;

/// Largest `KERNELGATE_MIN_EFFECT`, percent: 50. A floor of half the time would call a 1.5x
/// slowdown unchanged; beyond it the gate is off in all but name.
pub const MAX_MIN_EFFECT_PCT: f64 = 50.0;

impl Config {
    /// The effect floor of this run, percent: `KERNELGATE_MIN_EFFECT` when set, else
    /// [`DEFAULT_AB_MIN_EFFECT_PCT`] in a same-run A/B run and [`DEFAULT_MIN_EFFECT_PCT`] against
    /// a baseline.
    pub fn effect_floor_pct(&self) -> f64 {
        self.min_effect_pct.unwrap_or(if self.ab.is_some() {
            DEFAULT_AB_MIN_EFFECT_PCT
        } else {
            DEFAULT_MIN_EFFECT_PCT
        })
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            stopping: StoppingRule::default(),
            warmup: vars::WARMUP.whole_default(),
            seed: None,
            out_dir: None,
            commit: None,
            ncu: false,
            ncu_path: PathBuf::from("ncu"),
            ncu_clock_control: "none".to_string(),
            bless: false,
            baselines: None,
            baseline_samples: vars::BASELINE_SAMPLES.whole_default(),
            alpha: DEFAULT_ALPHA,
            min_effect_pct: None,
            fail_on: vec!["regressed".to_string()],
            compare_cycles: false,
            require_gpu: false,
            require_nvrtc: false,
            work_scale: vars::WORK_SCALE.number_default(),
            devices: Devices::List(vec![0]),
            ab: None,
            time_by_gpu_history: false,
            ab_time_identical: false,
            ab_controls: vars::AB_CONTROLS.whole_default(),
            ab_b: None,
            history: History::Default,
            notes: false,
            junit: None,
            run_file: None,
            planted: false,
            sanitize: None,
            sanitize_scale: vars::SANITIZE_SCALE.number_default(),
            sanitizer_path: None,
            kernel_timeout_s: None,
            isolate: false,
        }
    }
}

mod entry;
pub(crate) mod env;
pub mod vars;
