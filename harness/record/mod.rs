//! Record stage: the run's CSV (the git state comes from [`crate::history::provenance`]).
//!
//! The CSV is long-form: one row per case and statistic, every value with its unit, every row
//! carrying the GPU facts and git state, so that rows from different runs and GPUs can be
//! concatenated and still read alone.

use crate::gate::{Comparison, Verdict};
use crate::model::{Bound, DeviceFacts, LaunchResources, StopReason};
use crate::stats::Summary;

mod files;

pub use files::{claim_stem, run_stem, write_csv};

/// Version of the run-CSV columns below; bumped when a column changes meaning. 2 added `verdict`
/// and `module_sha256` and the gate's statistics; 3 added `work_scale`, `throttle_reasons` and
/// `other_processes`; 4 added the physical GPU (`gpu_uuid`, `gpu_serial`, `vbios`, `pci_bus_id`),
/// `decided_by` (the evidence behind the verdict) and `ab_revision` (same-run A/B); 5 keys the run to
/// the commit the binary was built from (before, `commit` and `dirty` were read from the current
/// directory at run time) and adds `kernels_dirty`, `kernels_sha256`, `branch`, `commit_time`,
/// `subject` and `repo_state`; 6 writes `seed` as hex text ([`seed_text`]) and `pci_bus_id` with a
/// `pci:` prefix ([`pci_text`]), so that common loaders keep them as text, and adds the median's
/// 95 % confidence interval (`median_ci_low_s`, `median_ci_high_s`); 7 adds what built and fed the
/// module (`compile_options`, `element_types`).
pub const RUN_CSV_SCHEMA: u32 = 7;

/// The run CSV's header row of schema [`RUN_CSV_SCHEMA`]: [`Row`]'s fields in order, as the csv
/// crate writes them before the first row (a unit test holds the two together). It is the file's
/// schema: a run that writes no timed row (only lesson trials, or killed before it wrote) leaves
/// its run CSV holding this line alone ([`claim_stem`]), which CSV readers read as a table of no
/// rows.
pub const RUN_CSV_HEADER: &str = "schema_version,run_id,commit,dirty,kernels_dirty,kernels_sha256,branch,commit_time,\
subject,repo_state,gpu_key,gpu_name,compute_capability,sm_count,memory_mib,driver,cuda,nvrtc,ecc,gpu_uuid,gpu_serial,\
vbios,pci_bus_id,copy_bandwidth_gbps,seed,work_scale,trial,kernel,module_sha256,compile_options,element_types,verdict,\
decided_by,ab_revision,throttle_reasons,other_processes,median_ci_low_s,median_ci_high_s,statistic,value,unit";

pub use crate::model::{GitState, RepoState};

/// One timed case's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseResult {
    /// Trial name, `family/variant/size`.
    pub trial: String,
    /// Entry point launched.
    pub kernel: String,
    /// Timing summary (seconds).
    pub summary: Summary,
    /// Why sampling stopped.
    pub stop: StopReason,
    /// Wall time of the sampling loop, s.
    pub wall_s: f64,
    /// Bytes the kernel must move (declared by the case).
    pub bytes: u64,
    /// FLOPs (declared by the case); 0 for data movement.
    pub flops: u64,
    /// SHA-256 of the module's PTX: the identity of the code timed.
    pub module_sha256: String,
    /// The NVRTC options of the trial's kernels beyond kernelgate's own (`--std=c++17 -lineinfo
    /// -arch=...`): the project's and the family's options and each build's `-D` definitions, the
    /// distinct non-empty groups of its builds joined by ` + ` (`-DBLOCK=256 + -DBLOCK=512`); empty
    /// when none or for a program with no kernel of its own.
    pub compile_options: String,
    /// The element types of the trial's buffers, each once, in parameter order, joined by spaces
    /// (`bf16 f32`); empty for a program with no buffer.
    pub element_types: String,
    /// Median SM clock over the samples (NVML), MHz.
    pub sm_clock_mhz: Option<f64>,
    /// Samples dropped as throttled.
    pub throttled: usize,
    /// Every NVML clock event reason seen after any sample ([`crate::measure::Samples::throttle_reasons`]).
    pub throttle_reasons: Vec<&'static str>,
    /// Other processes computing on the GPU when sampling began, by pid (NVML).
    pub other_processes: Vec<u32>,
    /// The gate's verdict.
    pub verdict: Verdict,
    /// What decided it: `time`, `counter <metric>`, `conditions` (see `crate::gate::Decided`).
    pub decided_by: String,
    /// The comparison with the baseline, when there was one.
    pub comparison: Option<Comparison>,
    /// Why the measurement is invalid, when it is.
    pub invalid_reason: Option<String>,
    /// What the driver says about the program's first launch (registers, local and shared memory,
    /// theoretical occupancy); `None` for a program with no kernel of its own.
    pub resources: Option<LaunchResources>,
    /// Half-width of the 95 % confidence interval of `summary.median_s`, relative to it (a
    /// fraction: the interval is `median × (1 ± median_ci)`), over all the trial's samples
    /// (`crate::gate::timing::median_ci_half_width`, Serfling's normal approximation); `None` when
    /// not known (no samples kept).
    pub median_ci: Option<f64>,
    /// The ceiling the trial is judged against on its GPU ([`crate::ceilings::bound`]); `None`
    /// when none applies or none was measured.
    pub bound: Option<Bound>,
    /// Its speed as a percentage of its family's vendor reference at its size, and the library
    /// (`(pct, "cuBLAS")`: [`crate::report::vendor::pct_of_vendor`], set once the run's trials are
    /// all timed); `None` without a reference timed in the run.
    pub vendor: Option<(f64, &'static str)>,
}

impl CaseResult {
    /// The achieved rate as a percentage of [`CaseResult::bound`] ([`crate::ceilings::pct_of`]).
    pub fn pct_of_bound(&self) -> Option<f64> {
        crate::ceilings::pct_of(self.bound.as_ref()?, self.bytes, self.flops, self.summary.median_s)
    }

    /// Effective bandwidth at the median time, GB/s (1e9 bytes/s).
    pub fn bandwidth_gbps(&self) -> f64 {
        self.bytes as f64 / self.summary.median_s / 1e9
    }

    /// Effective bandwidth as a percentage of the measured copy bandwidth.
    pub fn pct_of_copy(&self, copy_gbps: f64) -> f64 {
        100.0 * self.bandwidth_gbps() / copy_gbps
    }

    /// GFLOP/s at the median time; `None` for cases with no FLOPs.
    pub fn gflops(&self) -> Option<f64> {
        (self.flops > 0).then(|| self.flops as f64 / self.summary.median_s / 1e9)
    }
}

/// What is the same for every row of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunInfo {
    /// UTC start time, `YYYYMMDDTHHMMSSZ`.
    pub run_id: String,
    /// Seed of the input generator.
    pub seed: u64,
    /// The git state the run is recorded under.
    pub git: GitState,
    /// SHA-256 of the kernels measured ([`crate::source::kernels_sha256`] of the files the run read).
    pub kernels_sha256: String,
    /// The device.
    pub facts: DeviceFacts,
    /// `KERNELGATE_WORK_SCALE` of the run: 1 for every normal run ([`crate::Config::work_scale`]).
    pub work_scale: f64,
    /// The revision timed against in a same-run A/B run (`KERNELGATE_AB`); empty otherwise.
    pub ab_revision: String,
}

/// One CSV row.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Row {
    /// [`RUN_CSV_SCHEMA`].
    pub schema_version: u32,
    /// Run start, UTC.
    pub run_id: String,
    /// The commit the measured kernels came from ([`crate::history::built::reconcile`]).
    pub commit: String,
    /// A tracked file differed from `commit` (when the binary was built, or the kernels when the
    /// run read them): `true`/`false`/`unknown`.
    pub dirty: String,
    /// The kernels the run read differ from `commit`'s: `true`/`false`/`unknown`.
    pub kernels_dirty: String,
    /// SHA-256 of the kernels the run read ([`crate::history::provenance::kernels_sha256`]).
    pub kernels_sha256: String,
    /// Branch at build time; empty when detached or unknown.
    pub branch: String,
    /// Committer time of `commit`, Unix seconds; empty when unknown.
    pub commit_time: String,
    /// First line of `commit`'s message.
    pub subject: String,
    /// What the state was read from ([`RepoState::as_str`]).
    pub repo_state: String,
    /// Baseline folder key.
    pub gpu_key: String,
    /// Device name.
    pub gpu_name: String,
    /// Compute capability, `9.0`.
    pub compute_capability: String,
    /// SM count.
    pub sm_count: u32,
    /// Device memory, MiB.
    pub memory_mib: u64,
    /// Driver version (NVML).
    pub driver: String,
    /// Driver's CUDA version.
    pub cuda: String,
    /// NVRTC version.
    pub nvrtc: String,
    /// ECC on.
    pub ecc: bool,
    /// NVML UUID of the physical GPU (`unknown` without NVML).
    pub gpu_uuid: String,
    /// Board serial number (NVML).
    pub gpu_serial: String,
    /// VBIOS version (NVML).
    pub vbios: String,
    /// PCI bus id, [`pci_text`] of NVML's.
    pub pci_bus_id: String,
    /// Measured copy bandwidth of this run, GB/s.
    pub copy_bandwidth_gbps: f64,
    /// Input seed, [`seed_text`]: `0x` and 16 hex digits.
    pub seed: String,
    /// Work multiplier of a power benchmark run (`KERNELGATE_WORK_SCALE`); 1 otherwise.
    pub work_scale: f64,
    /// Trial name.
    pub trial: String,
    /// Entry point.
    pub kernel: String,
    /// SHA-256 of the module's PTX.
    pub module_sha256: String,
    /// [`CaseResult::compile_options`].
    pub compile_options: String,
    /// [`CaseResult::element_types`].
    pub element_types: String,
    /// The gate's verdict for the trial.
    pub verdict: &'static str,
    /// What decided the verdict (`time`, `counter <metric>`, `conditions`).
    pub decided_by: String,
    /// `KERNELGATE_AB`'s revision in a same-run A/B run; empty otherwise.
    pub ab_revision: String,
    /// NVML clock event reasons seen during the trial's sampling, `|`-separated (`GPU_IDLE|SW_POWER_CAP`);
    /// empty when none or without NVML.
    pub throttle_reasons: String,
    /// Pids of other processes computing on the GPU when the trial's sampling began,
    /// space-separated; empty when none (or without NVML).
    pub other_processes: String,
    /// Lower end of the 95 % confidence interval of the trial's median time, seconds (the
    /// `median` row's unit): `median × (1 − h)`, `h` = [`CaseResult::median_ci`]; empty when not
    /// known. The same on every row of the trial.
    pub median_ci_low_s: Option<f64>,
    /// Upper end, seconds: `median × (1 + h)`; empty when not known.
    pub median_ci_high_s: Option<f64>,
    /// Statistic name.
    pub statistic: &'static str,
    /// Value.
    pub value: f64,
    /// Unit of `value`.
    pub unit: &'static str,
}

/// The name of every statistic [`statistics`] can write for a case, in the order it writes them:
/// the one list of them (the diff report, the history's value checks and the tests read it).
pub const STATISTICS: [&str; 31] = [
    "samples",
    "median",
    "mean",
    "stddev",
    "min",
    "max",
    "noise",
    "timed_out",
    "sampling_wall",
    "throttled_samples",
    "bytes",
    "bandwidth",
    "pct_of_copy_bandwidth",
    "pct_of_dram_read_ceiling",
    "pct_of_dram_write_ceiling",
    "pct_of_copy_ceiling",
    "pct_of_fma_ceiling",
    "pct_of_shared_ceiling",
    "flops",
    "throughput",
    "pct_of_vendor",
    "sm_clock",
    "registers",
    "local_bytes",
    "shared_static_bytes",
    "theoretical_occupancy",
    "baseline_median",
    "delta",
    "p_value",
    "p_adjusted",
    "min_effect",
];

/// The statistics written per case: name, unit, value (names from [`STATISTICS`]). Times in seconds.
/// Of the `pct_of_<ceiling>_ceiling` statistics, a trial writes the one of its bound
/// ([`CaseResult::bound`]), which names the ceiling; `pct_of_copy_bandwidth` is written for every
/// trial, as before the ceilings. `pct_of_vendor` (%) is [`CaseResult::vendor`]'s percentage: 100 x
/// the median of the vendor reference of the trial's family and size (the case marked
/// `Case::vendor_reference`: `reduction/cub/<size>`, `matmul/cublas/<size>`, ...) over the trial's
/// median, written where that reference was timed in the run (the reference itself reads 100).
pub fn statistics(r: &CaseResult, copy_gbps: f64) -> Vec<(&'static str, &'static str, f64)> {
    let s = &r.summary;
    let mut v = vec![
        ("samples", "count", s.n as f64),
        ("median", "s", s.median_s),
        ("mean", "s", s.mean_s),
        ("stddev", "s", s.stddev_s),
        ("min", "s", s.min_s),
        ("max", "s", s.max_s),
        ("noise", "%", s.noise_pct),
        ("timed_out", "bool", f64::from(u8::from(r.stop == StopReason::Timeout))),
        ("sampling_wall", "s", r.wall_s),
        ("throttled_samples", "count", r.throttled as f64),
        ("bytes", "byte", r.bytes as f64),
        ("bandwidth", "GB/s", r.bandwidth_gbps()),
        ("pct_of_copy_bandwidth", "%", r.pct_of_copy(copy_gbps)),
    ];
    if let (Some(b), Some(pct)) = (&r.bound, r.pct_of_bound()) {
        v.push((b.ceiling.pct_statistic().expect("a bound is a rate"), "%", pct));
    }
    if let Some(g) = r.gflops() {
        v.push(("flops", "flop", r.flops as f64));
        v.push(("throughput", "GFLOP/s", g));
    }
    if let Some((pct, _)) = r.vendor {
        v.push(("pct_of_vendor", "%", pct));
    }
    if let Some(mhz) = r.sm_clock_mhz {
        v.push(("sm_clock", "MHz", mhz));
    }
    if let Some(res) = &r.resources {
        v.push(("registers", "count", f64::from(res.registers)));
        v.push(("local_bytes", "byte", f64::from(res.local_bytes)));
        v.push(("shared_static_bytes", "byte", f64::from(res.shared_static_bytes)));
        v.push(("theoretical_occupancy", "%", res.occupancy_pct));
    }
    if let Some(c) = &r.comparison {
        v.push(("baseline_median", "s", c.baseline_median_s));
        v.push(("delta", "%", 100.0 * c.delta));
        v.push(("p_value", "1", c.p_value));
        v.push(("p_adjusted", "1", c.p_adjusted));
        v.push(("min_effect", "%", 100.0 * c.min_effect));
    }
    v
}

/// Builds the rows of a run (pure).
pub fn rows(run: &RunInfo, results: &[CaseResult]) -> Vec<Row> {
    let f = &run.facts;
    let mut out = Vec::new();
    for r in results {
        let ci = r.median_ci.filter(|h| h.is_finite());
        for (statistic, unit, value) in statistics(r, f.copy_bandwidth_gbps) {
            out.push(Row {
                schema_version: RUN_CSV_SCHEMA,
                run_id: run.run_id.clone(),
                commit: run.git.commit.clone(),
                dirty: flag(run.git.dirty),
                kernels_dirty: flag(run.git.kernels_dirty),
                kernels_sha256: run.kernels_sha256.clone(),
                branch: run.git.branch.clone(),
                commit_time: run.git.commit_time.map_or(String::new(), |t| t.to_string()),
                subject: run.git.subject.clone(),
                repo_state: run.git.state.as_str().to_string(),
                gpu_key: f.gpu_key.clone(),
                gpu_name: f.name.clone(),
                compute_capability: f.compute_capability(),
                sm_count: f.sm_count,
                memory_mib: f.memory_mib(),
                driver: f.driver_version.clone(),
                cuda: f.cuda_driver_version.clone(),
                nvrtc: f.nvrtc_version.clone(),
                ecc: f.ecc,
                gpu_uuid: f.uuid.clone(),
                gpu_serial: f.serial.clone(),
                vbios: f.vbios.clone(),
                pci_bus_id: pci_text(&f.pci_bus_id),
                copy_bandwidth_gbps: f.copy_bandwidth_gbps,
                seed: seed_text(run.seed),
                work_scale: run.work_scale,
                trial: r.trial.clone(),
                kernel: r.kernel.clone(),
                module_sha256: r.module_sha256.clone(),
                compile_options: r.compile_options.clone(),
                element_types: r.element_types.clone(),
                verdict: r.verdict.as_str(),
                decided_by: r.decided_by.clone(),
                ab_revision: run.ab_revision.clone(),
                throttle_reasons: r.throttle_reasons.join("|"),
                other_processes: r.other_processes.iter().map(u32::to_string).collect::<Vec<_>>().join(" "),
                median_ci_low_s: ci.map(|h| r.summary.median_s * (1.0 - h)),
                median_ci_high_s: ci.map(|h| r.summary.median_s * (1.0 + h)),
                statistic,
                value,
                unit,
            });
        }
    }
    out
}

/// A seed as the run CSV writes it: `0x` and 16 lowercase hex digits (`0x000000000000002a` for
/// 42). A decimal u64 is a number to every CSV loader, and loaders that read a column of such
/// numbers as float64 round it to 53 bits, so that a seed copied from them replays other inputs:
/// pandas 3.1.1 reads one file's seed as uint64 or int64, and `pd.concat` of the committed run CSVs
/// (seeds on both sides of 2^63) turns the column into float64. pandas keeps `0x` text as text;
/// DuckDB 2.0.1 reads it as an exact integer (BIGINT or HUGEINT). `KERNELGATE_SEED` takes this
/// form and the decimal one.
pub fn seed_text(seed: u64) -> String {
    format!("{seed:#018x}")
}

/// A PCI bus id as the run CSV writes it: NVML's (`00000000:18:00.0`, domain:bus:device.function
/// in hex, as `nvidia-smi --query-gpu=pci.bus_id` prints it) after `pci:`
/// (`pci:00000000:18:00.0`); `unknown` or empty as they are. NVML's form alone is digits, colons
/// and a dot whenever the bus number has no hex letter, which DuckDB's CSV sniffer reads as a TIME
/// (`00000000:18:00.0` -> 00:18:00, measured with DuckDB 2.0.1 on the committed run CSVs) and any loader may take for a number
/// or a time; no form of digits and colons is safe, so the prefix, which no type parses, makes it
/// text everywhere. Remove `pci:` to get NVML's string back.
pub fn pci_text(bus_id: &str) -> String {
    if bus_id.is_empty() || bus_id == "unknown" { bus_id.to_string() } else { format!("pci:{bus_id}") }
}

/// `true`/`false`/`unknown`.
pub fn flag(b: Option<bool>) -> String {
    b.map_or("unknown".into(), |d| d.to_string())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    pub(crate) fn facts() -> DeviceFacts {
        DeviceFacts {
            name: "NVIDIA H200".into(),
            gpu_key: "nvidia-h200-sm90".into(),
            cc_major: 9,
            cc_minor: 0,
            sm_count: 132,
            memory_bytes: 143_771 << 20,
            l2_bytes: 50 << 20,
            driver_version: "580.159.04".into(),
            cuda_driver_version: "13.0".into(),
            nvrtc_version: "13.0".into(),
            ecc: true,
            copy_bandwidth_gbps: 4000.0,
            memory_clock_khz: 0,
            memory_bus_bits: 0,
            sm_clock_max_khz: 0,
            ordinal: 0,
            uuid: "GPU-20ce1a7a-fd28-021f-c48b-96e110fd8d88".into(),
            serial: "1653724057703".into(),
            vbios: "96.00.A5.00.1A".into(),
            pci_bus_id: "00000000:18:00.0".into(),
        }
    }

    pub(crate) fn result(trial: &str, median_s: f64, bytes: u64, flops: u64) -> CaseResult {
        CaseResult {
            trial: trial.into(),
            kernel: "k".into(),
            summary: Summary {
                n: 100,
                median_s,
                mean_s: median_s,
                stddev_s: median_s / 1000.0,
                min_s: median_s * 0.99,
                max_s: median_s * 1.01,
                noise_pct: 0.1,
            },
            stop: StopReason::Converged,
            wall_s: 1.0,
            bytes,
            flops,
            module_sha256: "ab12".into(),
            compile_options: "--use_fast_math -DBLOCK=256".into(),
            element_types: "bf16 f32".into(),
            sm_clock_mhz: None,
            throttled: 0,
            throttle_reasons: vec!["GPU_IDLE", "SW_POWER_CAP"],
            other_processes: vec![4242, 4343],
            verdict: Verdict::NoBaseline,
            decided_by: "conditions".into(),
            comparison: None,
            invalid_reason: None,
            resources: None,
            median_ci: None,
            bound: None,
            vendor: None,
        }
    }

    pub(crate) fn run() -> RunInfo {
        RunInfo {
            run_id: "20261130T030000Z".into(),
            seed: 7,
            git: GitState {
                commit: "0123456789abcdef".into(),
                dirty: Some(false),
                kernels_dirty: Some(true),
                branch: "main".into(),
                commit_time: Some(1_764_460_800),
                subject: "Pad, then \"swizzle\"".into(),
                state: RepoState::Branch,
            },
            kernels_sha256: "feed".into(),
            facts: facts(),
            work_scale: 1.0,
            ab_revision: String::new(),
        }
    }

    /// A case with every optional part (FLOPs, a clock, resources, a comparison) writes exactly
    /// [`STATISTICS`], in order: the one list cannot fall behind the rows.
    #[test]
    fn a_full_case_writes_every_statistic_of_the_list_in_order() {
        let mut r = result("t/v/1", 1e-3, 4096, 8192);
        r.sm_clock_mhz = Some(1980.0);
        r.resources = Some(LaunchResources {
            registers: 32,
            local_bytes: 0,
            shared_static_bytes: 4096,
            blocks_per_sm: 8,
            occupancy_pct: 100.0,
        });
        r.comparison = Some(crate::gate::Comparison {
            verdict: Verdict::Unchanged,
            baseline_median_s: 1e-3,
            median_s: 1e-3,
            delta: 0.0,
            p_value: 0.5,
            p_adjusted: 1.0,
            min_effect: 0.01,
            median_ci: 0.001,
            quantum_s: 0.0,
        });
        r.bound =
            crate::ceilings::bound(Some(crate::model::Ceiling::Fma), 4096, 8192, &crate::ceilings::tests::fixture());
        r.vendor = Some((50.0, "cuBLAS"));
        let names: Vec<&str> = statistics(&r, 4000.0).into_iter().map(|(n, _, _)| n).collect();
        // Of the ceilings' statistics, the one of the trial's bound.
        let others =
            ["pct_of_dram_read_ceiling", "pct_of_dram_write_ceiling", "pct_of_copy_ceiling", "pct_of_shared_ceiling"];
        let expected: Vec<&str> = STATISTICS.into_iter().filter(|s| !others.contains(s)).collect();
        assert_eq!(names, expected);
        for c in crate::model::Ceiling::ALL.into_iter().filter_map(crate::model::Ceiling::pct_statistic) {
            assert!(STATISTICS.contains(&c), "{c} is in the list");
        }
    }

    #[test]
    fn seeds_and_bus_ids_are_written_as_text_no_loader_takes_for_a_number_or_a_time() {
        assert_eq!(seed_text(9_999_971_317_511_862_815), "0x8ac708ee6063ba1f");
        assert_eq!(seed_text(42), "0x000000000000002a");
        assert_eq!(seed_text(u64::MAX), "0xffffffffffffffff");
        assert_eq!(pci_text("00000000:18:00.0"), "pci:00000000:18:00.0");
        assert_eq!((pci_text("unknown").as_str(), pci_text("").as_str()), ("unknown", ""));
    }

    /// The median's interval is on every row of its trial, in seconds; empty when not known.
    #[test]
    fn the_median_interval_columns() {
        let with = CaseResult { median_ci: Some(0.5), ..result("t/v/1", 2e-3, 8, 0) };
        let rows = rows(&run(), &[with, result("t/v/2", 1e-3, 8, 0)]);
        let one: Vec<_> = rows.iter().filter(|r| r.trial == "t/v/1").collect();
        assert!(one.iter().all(|r| r.median_ci_low_s == Some(1e-3) && r.median_ci_high_s == Some(3e-3)));
        let two: Vec<_> = rows.iter().filter(|r| r.trial == "t/v/2").collect();
        assert!(!two.is_empty() && two.iter().all(|r| r.median_ci_low_s.is_none() && r.median_ci_high_s.is_none()));
    }

    #[test]
    fn derived_rates() {
        let r = result("a/b/1", 1e-3, 2_000_000_000, 1_000_000_000);
        assert!((r.bandwidth_gbps() - 2000.0).abs() < 1e-9);
        assert!((r.pct_of_copy(4000.0) - 50.0).abs() < 1e-9);
        assert!((r.gflops().unwrap() - 1000.0).abs() < 1e-9);
        assert_eq!(result("a/b/1", 1e-3, 8, 0).gflops(), None);
    }

    #[test]
    fn csv_golden() {
        let dir = tempfile::tempdir().unwrap();
        let run = run();
        let path = run_stem(dir.path(), &run.run_id, &run.git).with_extension("csv");
        assert!(path.ends_with("runs/20261130T030000Z-0123456.csv"));
        let rows = rows(&run, &[result("copy/x/4", 0.5e-3, 2_000_000_000, 0)]);
        write_csv(&path, &rows).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        assert_eq!(text.lines().next().unwrap(), RUN_CSV_HEADER, "the header constant is Row's fields in order");
        assert_eq!(
            lines.next().unwrap(),
            "schema_version,run_id,commit,dirty,kernels_dirty,kernels_sha256,branch,commit_time,subject,repo_state,gpu_key,gpu_name,compute_capability,sm_count,memory_mib,\
             driver,cuda,nvrtc,ecc,gpu_uuid,gpu_serial,vbios,pci_bus_id,copy_bandwidth_gbps,seed,work_scale,trial,\
             kernel,module_sha256,compile_options,element_types,verdict,decided_by,ab_revision,throttle_reasons,\
             other_processes,median_ci_low_s,median_ci_high_s,statistic,value,unit"
        );
        assert_eq!(
            lines.next().unwrap(),
            "7,20261130T030000Z,0123456789abcdef,false,true,feed,main,1764460800,\"Pad, then \"\"swizzle\"\"\",branch,nvidia-h200-sm90,NVIDIA H200,9.0,132,143771,\
             580.159.04,13.0,13.0,true,GPU-20ce1a7a-fd28-021f-c48b-96e110fd8d88,1653724057703,96.00.A5.00.1A,\
             pci:00000000:18:00.0,4000.0,0x0000000000000007,1.0,copy/x/4,k,ab12,--use_fast_math -DBLOCK=256,bf16 f32,\
             no-baseline,conditions,,\
             GPU_IDLE|SW_POWER_CAP,4242 4343,,,samples,100.0,count"
        );
        assert!(text.contains(",bandwidth,4000.0,GB/s\n"));
        assert!(text.contains(",pct_of_copy_bandwidth,100.0,%\n"));
        assert!(!text.contains("throughput"), "no FLOPs, no throughput row");
        assert_eq!(text.lines().count(), 1 + 13);
        #[cfg(unix)]
        {
            // The permissions of a normally created file (0o666 less the umask), not tempfile's 0o600.
            use std::os::unix::fs::PermissionsExt as _;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            let plain = dir.path().join("plain");
            std::fs::File::create(&plain).unwrap();
            assert_eq!(mode(&path), mode(&plain), "{:o}", mode(&path));
        }
        // A second write to the same path is refused: nothing recorded is overwritten.
        let err = write_csv(&path, &rows).unwrap_err().to_string();
        assert!(err.contains("20261130T030000Z-0123456.csv") && err.contains("never overwritten"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        // Runs that start in the same second get stems of their own.
        let claimed = claim_stem(dir.path(), &run.run_id, &run.git).unwrap();
        assert!(claimed.ends_with("runs/20261130T030000Z-0123456-2"), "{}", claimed.display());
        let third = claim_stem(dir.path(), &run.run_id, &run.git).unwrap();
        assert!(third.ends_with("runs/20261130T030000Z-0123456-3"));
        write_csv(&PathBuf::from(format!("{}.csv", claimed.display())), &rows).unwrap();
    }
}
