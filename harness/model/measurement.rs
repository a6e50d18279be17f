//! What the history and the run CSVs hand the diff report: measured values, the side they belong
//! to, and a case's series across commits for a trend chart.

/// The statistic that is a trial's time: the median of its samples, seconds (the run CSV's
/// `median` row, [`crate::record::statistics`]; the history's metric of the same name).
/// `baseline.csv` names that time `time` (`gate::baseline::TIME_METRIC`).
pub const TIME_STATISTIC: &str = "median";

/// One measured value (what the history and the run CSVs hold), plain data.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// Trial name, `family/kernel/size`.
    pub trial: String,
    /// The kernel's entry point (a trial's program may launch several).
    pub kernel: String,
    /// A run statistic ([`RUN_STATISTICS`](crate::report::diff::RUN_STATISTICS)) or a counter (ncu's
    /// metric name).
    pub metric: String,
    /// Unit of `value` (`s`, `%`, `sector`, ...).
    pub unit: String,
    /// The value, in `unit`.
    pub value: f64,
    /// The gate's verdict for the trial (`regressed`, `improved`, `unchanged`, `ambiguous`,
    /// `invalid`, `no-baseline`: [`crate::gate::Verdict::as_str`]).
    pub verdict: String,
    /// What decided the verdict (`time`, `counter <metric>`, `conditions`).
    pub decided_by: String,
    /// The 95 % confidence interval of `value`, `[low, high]` in `unit`, where the run knows it
    /// (the [`TIME_STATISTIC`] row: the run CSV's `median_ci_low_s`/`median_ci_high_s`); `None`
    /// otherwise.
    pub ci: Option<[f64; 2]>,
}

/// One side of a diff.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Side {
    /// What was measured: `commit:7` and subject, a run id, or `baseline`.
    pub label: String,
    /// The GPU it was measured on (GPU key, or the physical GPU).
    pub gpu: String,
    /// How many runs the side pools (a commit run more than once: their medians); 0 where unknown
    /// (rows handed over without their runs).
    pub runs: usize,
    /// The physical GPUs its runs ran on (the start of each NVML UUID, `GPU-a9499cb2`, or
    /// `unknown`), sorted, each once; empty where unknown.
    pub gpus: Vec<String>,
}

/// A case's series across commits, for a trend chart: one metric, points in commit order, and the
/// change points found in it (by the history's change-point detection; this module only carries
/// them).
#[derive(Debug, Clone, PartialEq)]
pub struct Trend {
    /// Trial name.
    pub trial: String,
    /// The metric (`median` for time).
    pub metric: String,
    /// Its unit (`s` for time).
    pub unit: String,
    /// The series, oldest first. Points of several GPUs may share a label (one commit measured on
    /// two GPUs); each GPU gets its own line.
    pub points: Vec<TrendPoint>,
    /// Indices into `points` of the first point of each new regime.
    pub change_points: Vec<usize>,
}

/// One point of a [`Trend`].
#[derive(Debug, Clone, PartialEq)]
pub struct TrendPoint {
    /// Where it was measured: `commit:7` (the x axis's label).
    pub label: String,
    /// The value, in the trend's unit.
    pub value: f64,
    /// The GPU it was measured on.
    pub gpu: String,
}

/// One trial of a same-run A/B run of the two sides' commits: both versions timed in pairs in
/// one process, on one GPU, over one set of buffers (what the A/B run recorded in the history).
#[derive(Debug, Clone, PartialEq)]
pub struct Paired {
    /// `run_id@GPU-…` of the A/B run.
    pub run: String,
    /// A's median over the kept pairs, seconds (the run's `baseline_median`).
    pub a_median_s: f64,
    /// B's median, seconds (the run's `median`).
    pub b_median_s: f64,
    /// The median per-pair ratio B/A - 1, percent (the run's `delta`).
    pub delta_pct: f64,
    /// The one-sided Wilcoxon signed-rank p-value times the trials compared (Bonferroni).
    pub p_adjusted: Option<f64>,
    /// Pairs kept.
    pub pairs: Option<usize>,
    /// The paired gate's verdict.
    pub verdict: String,
    /// What decided it.
    pub decided_by: String,
}

/// A vendor reference of a run: its trial name (`family/variant/size`) and the library it times
/// (`"CUB"`); a case marked with `Case::vendor_reference` is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VendorReference {
    /// The reference's trial name, `reduction/cub/67108864`.
    pub trial: String,
    /// The library, as the table prints it: `CUB`, `cuBLAS`.
    pub vendor: &'static str,
}
