//! The gate: statistics and rules that turn a trial's measurements into a verdict against its
//! baseline. Pure: plain numbers in, verdicts out; no files, no CUDA, no processes (the baseline
//! store, [`baseline`], is the one part that reads and writes files, and only its own).
//!
//! | module | job |
//! |---|---|
//! | [`rank`] | Mann-Whitney U test, Holm and Benjamini-Hochberg adjustments |
//! | [`robust`] | one sample set's robust statistics: median, relative MAD, timer quantum, the median's CI |
//! | [`policy`] | the timing rule's numbers: significance level, minimum effect, the timer-tick floor |
//! | [`verdict`] | the verdict, and the rule that gives it from a comparison's numbers |
//! | [`timing`] | the timing verdict: effect floor, significance, too-noisy runs |
//! | [`counters`] | Nsight Compute counters: deterministic or not, tolerance, which moves gate |
//! | [`lesson`] | the time-only lessons: a same-run ratio good / bad against its bound |
//! | [`judge()`] | one trial's verdict from its conditions, timings and counters, with the reason |
//! | [`records`] | run records, and two records judged trial by trial (`kernelgate compare`) |
//! | [`calibrate`] | which run records calibrate a baseline's run-to-run spread |
//! | [`baseline`] | the per-GPU baseline store: its files, its lock and its atomic commit |

pub mod baseline;
pub mod calibrate;
pub mod counters;
pub mod judge;
pub mod lesson;
pub mod paired;
pub mod policy;
pub mod rank;
pub mod records;
pub mod robust;
pub mod timing;
pub mod verdict;

pub use baseline::Baseline;
pub use counters::{CounterBase, CounterClass, Moved, compare_counter, counter_class, counter_moves, distinct_kernels};
pub use judge::{Base, Decided, Judged, Now, TimeUnit, host_bound_verdict, judge, tool_invalid_verdict};
pub use rank::{benjamini_hochberg, holm, mann_whitney_greater, mann_whitney_less, wilcoxon_signed_rank};
pub use records::{CompareOptions, Compared, RunRecord, compare_records};
pub use timing::{Comparison, Known, Policy, Verdict, compare, compare_with, median_ci_half_width, quantum};

/// Deterministic test data and float helpers shared by the gate's tests.
#[cfg(test)]
pub(crate) mod testdata {

    /// Knuth's MMIX linear congruential generator: deterministic test data, no dependency.
    pub(crate) struct Lcg(pub(crate) u64);

    impl Lcg {
        /// Uniform in [0, 1), from the top 53 bits.
        pub(crate) fn uniform(&mut self) -> f64 {
            self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }

        /// Approximately standard normal: sum of 12 uniforms minus 6 (Irwin-Hall).
        pub(crate) fn normal(&mut self) -> f64 {
            (0..12).map(|_| self.uniform()).sum::<f64>() - 6.0
        }

        /// `n` log-normal timings with the given median and relative noise sigma (log scale).
        pub(crate) fn timings(&mut self, n: usize, median_s: f64, sigma: f64) -> Vec<f64> {
            (0..n).map(|_| median_s * (sigma * self.normal()).exp()).collect()
        }

        /// Fisher-Yates shuffle of a copy.
        pub(crate) fn shuffled(&mut self, xs: &[f64]) -> Vec<f64> {
            let mut v = xs.to_vec();
            for i in (1..v.len()).rev() {
                let j = (self.uniform() * (i + 1) as f64) as usize;
                v.swap(i, j);
            }
            v
        }
    }

    pub(crate) fn close(actual: f64, expected: f64, tolerance: f64) {
        assert!((actual - expected).abs() <= tolerance, "{actual} != {expected} +- {tolerance}");
    }
}
