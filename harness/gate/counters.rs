//! Nsight Compute counters against their baseline values: which metrics are deterministic, how
//! much the others may move, and which moves gate. Pure.
//!
//! Every metric falls in one of three classes ([`counter_class`]):
//!
//! - **Exact**: deterministic by construction for a fixed input: instructions executed, requests,
//!   the launch configuration and what the driver derives from it (registers, shared memory,
//!   occupancy limits, theoretical occupancy). Any worsening gates.
//! - **Count**: counts of hardware events that depend on arbitration, caching or the data: sectors,
//!   wavefronts, `l1tex__t_bytes`. They gate when they worsen by more than their tolerance: the
//!   one calibrated from their run-to-run spread (`kernelgate baseline calibrate` on records of
//!   runs with ncu), else [`COUNT_TOLERANCE`]. Never exact: on the H200 (2026-11-30) shared-memory
//!   wavefronts of unchanged transposes moved by up to 0.34 % between runs, and an exact comparison
//!   made a nightly gate fail one run in two (BENCHMARK.md, "A counter that was not exact").
//! - **Measured**: amounts and rates measured over time (durations, DRAM bytes, bank-conflict
//!   counters, which include arbitration on sm_80+, percentages, kernelgate's derived ratios):
//!   reported when they move past their tolerance, never gating; the timing gate judges time.

use super::timing::{Policy, Verdict};
use std::collections::BTreeMap;

/// Default tolerance of a [`CounterClass::Count`] metric without calibration: 1 % of the baseline
/// value, about three times the largest run-to-run move measured on the H200: over 11 whole-suite
/// runs with ncu on one GPU (GPU-5054e8bf, 2026-11-30; baselines/nvidia-h200-sm90/BENCHMARK.md),
/// shared-memory load wavefronts moved by up to 0.34 % and store wavefronts by 0.22 %, while global
/// sectors, requests and instructions did not move at all on the fixed profiling seed. Far below
/// the moves the suite's lessons make: a removed padding multiplies wavefronts by ~29.
pub const COUNT_TOLERANCE: f64 = 0.01;

/// Smallest tolerance a calibrated [`CounterClass::Count`] metric gets, 0.1 %: runs that happened
/// to repeat a count exactly (a spread of 0 over ten runs) do not make it exact.
pub const MIN_CALIBRATED_TOLERANCE: f64 = 0.001;

/// How one Nsight Compute metric is judged against its baseline value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CounterClass {
    /// Deterministic for a fixed input: equal up to f64 rounding (`|now - base| <= 1e-12 *
    /// max(|now|, |base|)`); any worsening gates.
    Exact,
    /// An event count that moves a little between runs: within this fraction of the baseline
    /// value by default ([`COUNT_TOLERANCE`]); a worsening beyond the tolerance gates.
    Count(f64),
    /// Measured over time: within this fraction is unchanged; beyond it the move is reported and
    /// never gates.
    Measured(f64),
}

impl CounterClass {
    /// Whether a worsening of this class fails the gate.
    pub fn gates(&self) -> bool {
        !matches!(self, CounterClass::Measured(_))
    }

    /// `exact`, `count` or `measured`.
    pub fn name(&self) -> &'static str {
        match self {
            CounterClass::Exact => "exact",
            CounterClass::Count(_) => "count",
            CounterClass::Measured(_) => "measured",
        }
    }
}

/// The class of an ncu metric, or of one of kernelgate's derived metrics
/// ([`crate::ncu::metrics::DERIVED`]), by name. Rules, first match wins:
///
/// | name | class | why |
/// |---|---|---|
/// | contains `gpu__time_duration` | measured 10 % | a single profiled launch with clocks not locked (`--clock-control none`): several % run to run |
/// | contains `bank_conflicts` | measured 5 % | on sm_80+ the counter includes arbitration, which depends on timing (ncu docs, "Shared memory bank conflicts") |
/// | starts with `dram__bytes` | measured 5 % | DRAM traffic depends on what L2 holds and on other clients (1-3 % on the H200) |
/// | no `__`, contains `_per_` or `overfetch` (derived) | measured 2 % | ratios of counts, or of ncu percentages printed with 2 decimals; the counts behind them gate |
/// | starts with `launch__` | exact | launch configuration, registers, shared memory and occupancy limits: decided before the kernel runs |
/// | `sm__maximum_warps_per_active_cycle_pct` | exact | theoretical occupancy, from the launch configuration |
/// | contains `.pct`, `pct_of_peak` or `sm__warps_active` | measured 5 % | percentages of a peak, and achieved occupancy: measured over time |
/// | contains `inst_executed` or `requests` | exact | instructions and requests: fixed by the code and the inputs' sizes |
/// | contains `sectors` or `wavefronts`, or starts with `l1tex__t_bytes` | count ([`COUNT_TOLERANCE`]) | depend on arbitration (wavefronts) and on the addresses, so on the data (sectors of a gather) |
/// | anything else | measured 5 % | unknown metrics: the tolerance of the measured amounts above |
///
/// In a trial of several distinct kernels, [`calibrated_class`] first applies [`blended_class`]: a
/// raw metric other than a `.sum`, `.max` or `.min` is then a duration-weighted blend, measured.
pub fn counter_class(metric: &str) -> CounterClass {
    use CounterClass::{Count, Exact, Measured};
    let has = |s: &str| metric.contains(s);
    if has("gpu__time_duration") {
        Measured(0.10)
    } else if has("bank_conflicts") || metric.starts_with("dram__bytes") {
        Measured(0.05)
    } else if !has("__") && (has("_per_") || has("overfetch")) {
        Measured(0.02)
    } else if metric.starts_with("launch__") || metric == "sm__maximum_warps_per_active_cycle_pct" {
        Exact
    } else if has(".pct") || has("pct_of_peak") || has("sm__warps_active") {
        Measured(0.05)
    } else if has("inst_executed") || has("requests") {
        Exact
    } else if has("sectors") || has("wavefronts") || metric.starts_with("l1tex__t_bytes") {
        Count(COUNT_TOLERANCE)
    } else {
        Measured(0.05)
    }
}

/// Tolerance of a launch attribute or per-instruction ratio of a program of several distinct
/// kernels ([`blended_class`]): 5 %, the measured class's default. Its combined value is the mean
/// of the kernels' values weighted by their durations ([`crate::ncu::profile::combine`]), so it
/// moves with their durations: `launch__occupancy_limit_registers` of `reduction/two_pass`
/// (8 and 16 blocks for its two kernels) read 8.41563, 8.41766 and 8.42427 in three runs with ncu
/// on the H200 (2026-12-01, GPU-91adb1dc and GPU-fb1811f5), and gated exactly it failed every
/// nightly.
pub const BLENDED_TOLERANCE: f64 = 0.05;

/// How many distinct kernels a combined value's kernel label names: the label is the kernels
/// joined by `+` in launch order (`reduce_partials+reduce_final`: 2; `k+k+k`, one kernel launched
/// three times: 1; `copy`: 1). Pure.
pub fn distinct_kernels(label: &str) -> usize {
    label.split('+').filter(|k| !k.is_empty()).collect::<std::collections::BTreeSet<_>>().len().max(1)
}

/// The class of `metric` for a trial whose values combine the launches of `kernels` distinct
/// kernels ([`distinct_kernels`]): a raw ncu metric that is not a count (`.sum`), maximum or
/// minimum is combined as a duration-weighted mean ([`crate::ncu::profile::combine`]), so over two
/// or more kernels it is a measured blend, [`CounterClass::Measured`] at [`BLENDED_TOLERANCE`],
/// whatever its class for one kernel (registers, occupancy limits, threads per instruction).
/// Each kernel's own registers and shared memory still gate in the compile trials' resource gate,
/// and its own values are the metrics CSV's per-launch rows. Other metrics keep `class`.
pub fn blended_class(metric: &str, class: CounterClass, kernels: usize) -> CounterClass {
    let combined_by_weight = metric.contains("__") && ![".sum", ".max", ".min"].iter().any(|s| metric.ends_with(s));
    match class {
        CounterClass::Exact | CounterClass::Count(_) if kernels > 1 && combined_by_weight => {
            CounterClass::Measured(BLENDED_TOLERANCE)
        }
        class => class,
    }
}

/// The class of `metric` once its run-to-run spread is known: a [`CounterClass::Count`] metric's
/// tolerance becomes `max(MIN_CALIBRATED_TOLERANCE, Policy::run_to_run_floor(rsd) without its 1 %
/// floor)`: z·√2·rsd, z the normal quantile of `1 - alpha / tests` (the reasoning of
/// [`Policy::run_to_run_floor`] for medians applies to any per-run value). Other classes are
/// unchanged: exact metrics stay exact, measured ones never gate. `kernels`: as
/// [`blended_class`], which applies first.
pub fn calibrated_class(metric: &str, rsd: Option<f64>, kernels: usize, policy: &Policy, tests: usize) -> CounterClass {
    match (blended_class(metric, counter_class(metric), kernels), rsd) {
        (CounterClass::Count(_), Some(rsd)) => {
            let unfloored = Policy { effect_floor: 0.0, ..*policy }.run_to_run_floor(rsd, tests);
            CounterClass::Count(unfloored.max(MIN_CALIBRATED_TOLERANCE))
        }
        (class, _) => class,
    }
}

/// Verdict for one counter value `now` against the baseline's `base` (same metric, same unit).
///
/// [`Verdict::Unchanged`] within the class's tolerance (a zero baseline tolerates only zero);
/// otherwise [`Verdict::Regressed`] if the value moved the bad way and [`Verdict::Improved`] if
/// the good way. For most of kernelgate's metrics more is worse (more instructions, traffic,
/// time: `higher_is_better = false`); for achieved occupancy and bytes-used-per-sector style
/// metrics more is better. [`Verdict::Invalid`] if either value is NaN or infinite.
pub fn compare_counter(now: f64, base: f64, class: CounterClass, higher_is_better: bool) -> Verdict {
    if !now.is_finite() || !base.is_finite() {
        return Verdict::Invalid;
    }
    let allowed = match class {
        CounterClass::Exact => 1e-12 * now.abs().max(base.abs()),
        CounterClass::Count(r) | CounterClass::Measured(r) => r * base.abs(),
    };
    if (now - base).abs() <= allowed {
        Verdict::Unchanged
    } else if (now > base) != higher_is_better {
        Verdict::Regressed
    } else {
        Verdict::Improved
    }
}

/// Metrics where a larger value is better: bytes used per sector and occupancy (achieved and
/// theoretical). Every other metric of kernelgate's set counts work or traffic, where more is worse.
pub fn higher_is_better(metric: &str) -> bool {
    metric.contains("bytes_per_sector") || metric.contains("warps_active") || metric.contains("maximum_warps")
}

/// One baseline counter, with its run-to-run spread when calibrated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CounterBase<'a> {
    /// The metric's name, verbatim.
    pub metric: &'a str,
    /// Its baseline value, in ncu's base unit.
    pub value: f64,
    /// Its run-to-run relative standard deviation, when calibrated (`run_to_run.csv`).
    pub rsd: Option<f64>,
    /// How many distinct kernels its value combines ([`distinct_kernels`] of its kernel label).
    pub kernels: usize,
}

/// A counter that moved past its tolerance.
#[derive(Debug, Clone, PartialEq)]
pub struct Moved {
    /// The metric's name.
    pub metric: String,
    /// Baseline value.
    pub base: f64,
    /// This run's value.
    pub now: f64,
    /// The class it was judged in (with the tolerance used).
    pub class: CounterClass,
    /// [`Verdict::Regressed`] or [`Verdict::Improved`] (or [`Verdict::Invalid`] for a non-number).
    pub verdict: Verdict,
}

impl Moved {
    /// Relative change, `now / base - 1` (infinite for a zero baseline).
    pub fn relative(&self) -> f64 {
        if self.base != 0.0 { self.now / self.base - 1.0 } else { f64::INFINITY }
    }

    /// Whether this move fails the gate: a worsening of a class that gates.
    pub fn gates(&self) -> bool {
        self.verdict == Verdict::Regressed && self.class.gates()
    }
}

impl std::fmt::Display for Moved {
    /// `metric +x.xx% (base -> now, exact)` or `(…, count: tolerance 1.00%)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let class = match self.class {
            CounterClass::Exact => "exact".to_string(),
            CounterClass::Count(t) => format!("count, tolerance {:.2}%", 100.0 * t),
            CounterClass::Measured(t) => format!("measured, tolerance {:.0}%, not gating", 100.0 * t),
        };
        // For people (the A/B comment, the trial's message): at most 6 significant digits, not an
        // f32's every binary digit (`1.0650482177734375`); the CSVs keep every digit.
        let (base, now) = (crate::units::significant(self.base), crate::units::significant(self.now));
        write!(f, "{} {:+.2}% ({base} -> {now}, {class})", self.metric, 100.0 * self.relative())
    }
}

/// Every baseline counter that moved past its tolerance against this run's values (`now`, by
/// metric name), largest relative change first. Metrics missing from `now` are skipped.
pub fn counter_moves(
    base: &[CounterBase<'_>],
    now: &BTreeMap<String, f64>,
    policy: &Policy,
    tests: usize,
) -> Vec<Moved> {
    let mut moved: Vec<Moved> = base
        .iter()
        .filter_map(|b| {
            let &value = now.get(b.metric)?;
            let class = calibrated_class(b.metric, b.rsd, b.kernels, policy, tests);
            let verdict = compare_counter(value, b.value, class, higher_is_better(b.metric));
            (verdict != Verdict::Unchanged).then(|| Moved {
                metric: b.metric.to_string(),
                base: b.value,
                now: value,
                class,
                verdict,
            })
        })
        .collect();
    moved.sort_by(|a, b| b.relative().abs().total_cmp(&a.relative().abs()));
    moved
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_metric_of_the_set_has_its_class() {
        use CounterClass::{Count, Exact, Measured};
        let table = [
            ("gpu__time_duration.sum", Measured(0.10)),
            ("dram__bytes_read.sum", Measured(0.05)),
            ("dram__bytes_write.sum", Measured(0.05)),
            ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", Measured(0.05)),
            ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", Count(0.01)),
            ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", Count(0.01)),
            ("l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum", Count(0.01)),
            ("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", Exact),
            ("l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", Exact),
            ("smsp__sass_inst_executed_op_shared_ld.sum", Exact),
            ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", Exact),
            ("launch__registers_per_thread", Exact),
            ("launch__occupancy_limit_shared_mem", Exact),
            ("launch__shared_mem_per_block_static", Exact),
            ("sm__maximum_warps_per_active_cycle_pct", Exact),
            ("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", Measured(0.05)),
            ("sm__warps_active.avg.pct_of_peak_sustained_active", Measured(0.05)),
            ("shared_ld_wavefronts_per_inst", Measured(0.02)),
            ("global_ld_bytes_per_sector", Measured(0.02)),
            ("global_ld_sectors_per_request", Measured(0.02)),
            ("atomics_per_element", Measured(0.02)),
            ("dram_overfetch", Measured(0.02)),
            ("smsp__cycles_elapsed.avg.per_second", Measured(0.05)),
            ("something__new.sum", Measured(0.05)),
        ];
        for (metric, want) in table {
            assert_eq!(counter_class(metric), want, "{metric}");
        }
    }

    #[test]
    fn calibration_sets_the_tolerance_of_counts_only() {
        let p = Policy::default();
        let wavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
        // z(0.05 / 35) = 2.98270; 0.0004 * sqrt(2) * 2.98270 = 0.16873 %.
        match calibrated_class(wavefronts, Some(0.0004), 1, &p, 35) {
            CounterClass::Count(t) => assert!((t - 2.982_704 * std::f64::consts::SQRT_2 * 0.0004).abs() < 1e-8),
            other => panic!("{other:?}"),
        }
        assert_eq!(calibrated_class(wavefronts, Some(0.0), 1, &p, 35), CounterClass::Count(MIN_CALIBRATED_TOLERANCE));
        assert_eq!(calibrated_class(wavefronts, None, 1, &p, 35), CounterClass::Count(COUNT_TOLERANCE));
        assert_eq!(calibrated_class("launch__registers_per_thread", Some(0.5), 1, &p, 35), CounterClass::Exact);
        assert_eq!(calibrated_class("dram__bytes_read.sum", Some(0.0), 1, &p, 35), CounterClass::Measured(0.05));
    }

    #[test]
    fn launch_attributes_of_several_kernels_are_measured_blends() {
        let p = Policy::default();
        assert_eq!(distinct_kernels("reduce_partials+reduce_final"), 2);
        assert_eq!(distinct_kernels("tiny_scale+tiny_add+tiny_scale"), 2);
        assert_eq!(distinct_kernels("copy+copy+copy"), 1);
        assert_eq!(distinct_kernels("copy"), 1);
        assert_eq!(distinct_kernels(""), 1);
        let limit = "launch__occupancy_limit_registers";
        assert_eq!(calibrated_class(limit, None, 1, &p, 77), CounterClass::Exact);
        assert_eq!(calibrated_class(limit, None, 2, &p, 77), CounterClass::Measured(BLENDED_TOLERANCE));
        let ratio = "smsp__thread_inst_executed_per_inst_executed.ratio";
        assert_eq!(calibrated_class(ratio, None, 2, &p, 77), CounterClass::Measured(BLENDED_TOLERANCE));
        // Counts add up over launches whatever their kernels: they stay what they are.
        let inst = "smsp__sass_inst_executed_op_shared_ld.sum";
        assert_eq!(calibrated_class(inst, None, 2, &p, 77), CounterClass::Exact);
        let sectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
        assert_eq!(calibrated_class(sectors, None, 2, &p, 77), CounterClass::Count(COUNT_TOLERANCE));
        // Derived metrics are computed from the combined values and keep their class.
        assert_eq!(calibrated_class("atomics_per_element", None, 2, &p, 77), CounterClass::Measured(0.02));

        // reduction/two_pass/67108864 on the H200: blessed 8.415633937082935 (run
        // 20261201T165209Z-8c8c911, GPU-91adb1dc), 8.42427138079312 in a nightly on GPU-fb1811f5
        // (20261201T214442Z-4e767ac): no move past 5 %; before, this regressed the trial exactly.
        let base = [CounterBase { metric: limit, value: 8.415633937082935, rsd: None, kernels: 2 }];
        let now: BTreeMap<String, f64> = [(limit.to_string(), 8.42427138079312)].into();
        assert!(counter_moves(&base, &now, &p, 77).is_empty());
        let alone = [CounterBase { kernels: 1, ..base[0] }];
        let moved = counter_moves(&alone, &now, &p, 77);
        assert!(moved[0].gates(), "one kernel's launch attribute stays exact: {moved:?}");
    }

    #[test]
    fn compare_counter_directions() {
        use CounterClass::{Count, Exact, Measured};
        assert_eq!(compare_counter(32768.0, 32768.0, Exact, false), Verdict::Unchanged);
        assert_eq!(compare_counter(32769.0, 32768.0, Exact, false), Verdict::Regressed);
        assert_eq!(compare_counter(32767.0, 32768.0, Exact, false), Verdict::Improved);
        assert_eq!(compare_counter(1e11 + 1.0, 1e11, Exact, false), Verdict::Regressed, "one unit in 1e11");
        // Tolerances: inclusive at the edge, relative to the baseline.
        assert_eq!(compare_counter(105.0, 100.0, Measured(0.05), false), Verdict::Unchanged);
        assert_eq!(compare_counter(95.0, 100.0, Measured(0.05), false), Verdict::Unchanged);
        assert_eq!(compare_counter(105.5, 100.0, Measured(0.05), false), Verdict::Regressed);
        assert_eq!(compare_counter(94.5, 100.0, Count(0.05), false), Verdict::Improved);
        // Higher is better (achieved occupancy, bytes used per sector): directions flip.
        assert_eq!(compare_counter(40.0, 50.0, Measured(0.05), true), Verdict::Regressed);
        assert_eq!(compare_counter(60.0, 50.0, Measured(0.05), true), Verdict::Improved);
        // A zero baseline tolerates only zero: new spills are a regression.
        assert_eq!(compare_counter(0.0, 0.0, Count(0.01), false), Verdict::Unchanged);
        assert_eq!(compare_counter(16.0, 0.0, Count(0.01), false), Verdict::Regressed);
        assert_eq!(compare_counter(f64::NAN, 1.0, Exact, false), Verdict::Invalid);
        assert_eq!(compare_counter(1.0, f64::INFINITY, Measured(0.05), false), Verdict::Invalid);
    }

    fn now(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn moves_of_the_h200_a_a_runs_do_not_gate_and_a_removed_padding_does() {
        // Wavefronts and gather sectors as they moved between unchanged H200 runs (BENCHMARK.md, "A counter that was not exact").
        let wavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
        let sectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
        let inst = "smsp__sass_inst_executed_op_shared_ld.sum";
        let base = [
            CounterBase { metric: wavefronts, value: 1_051_646.0, rsd: None, kernels: 1 },
            CounterBase { metric: sectors, value: 18_874_254.0, rsd: None, kernels: 1 },
            CounterBase { metric: inst, value: 32_768.0, rsd: None, kernels: 1 },
            CounterBase { metric: "gpu__time_duration.sum", value: 100.0, rsd: None, kernels: 1 },
            CounterBase { metric: "absent_now", value: 1.0, rsd: None, kernels: 1 },
        ];
        let p = Policy::default();
        let a_a = counter_moves(
            &base,
            &now(&[(wavefronts, 1_051_646.0 * 1.0011), (sectors, 18_874_271.0), (inst, 32_768.0)]),
            &p,
            35,
        );
        assert!(a_a.is_empty(), "{a_a:?}");
        // The padding removed: ~29x the wavefronts; the ncu duration up 20 % is reported only.
        let planted = counter_moves(
            &base,
            &now(&[(wavefronts, 32.46 * 32_768.0 * 29.0), (inst, 32_768.0), ("gpu__time_duration.sum", 120.0)]),
            &p,
            35,
        );
        assert_eq!(planted.len(), 2);
        assert_eq!(planted[0].metric, wavefronts);
        assert!(planted[0].gates() && !planted[1].gates(), "{planted:?}");
        assert_eq!(
            planted[1].to_string(),
            "gpu__time_duration.sum +20.00% (100 -> 120, measured, tolerance 10%, not gating)"
        );
        // One more instruction: an exact count got worse.
        let one_more = counter_moves(&base, &now(&[(inst, 32_769.0)]), &p, 35);
        assert!(one_more[0].gates());
        assert!(one_more[0].to_string().ends_with("(32768 -> 32769, exact)"), "{}", one_more[0]);
        // A ratio read from an f32 is shown to 6 significant digits, not every binary digit.
        let ratio = Moved {
            metric: "dram_overfetch".into(),
            base: 1.0,
            now: f64::from(1.065_048_2_f32),
            class: CounterClass::Count(0.01),
            verdict: Verdict::Regressed,
        };
        assert_eq!(ratio.to_string(), "dram_overfetch +6.50% (1 -> 1.06505, count, tolerance 1.00%)");
        // Fewer instructions are an improvement, not a regression.
        let fewer = counter_moves(&base, &now(&[(inst, 8192.0)]), &p, 35);
        assert_eq!((fewer[0].verdict, fewer[0].gates()), (Verdict::Improved, false));
        assert!(higher_is_better("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"));
        assert!(!higher_is_better("dram__bytes_read.sum"));
    }
}
