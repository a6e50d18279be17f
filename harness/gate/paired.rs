//! Same-run A/B: paired timings of two versions of a kernel, taken in one process on one GPU with
//! the order of each pair drawn at random, judged on the per-pair log ratios. Pure.
//!
//! Why paired: the two versions see the same clocks, temperature and machine within a few
//! microseconds of each other, so what moves a whole run (another physical GPU, another day) moves
//! both alike and cancels in the ratio (Kalibera & Jones 2013 measure the between-run variation that
//! unpaired comparisons must absorb; the H200 pool shows -5.8 to +2.9 % per kernel between two
//! machines, baselines/nvidia-h200-sm90/BENCHMARK.md). What is left is judged with the baseline
//! gate's rules: the same effect floor, the same family-wise correction, and `invalid` when the
//! estimate is less precise than the floor.

use super::rank::wilcoxon_signed_rank;
use super::robust::{MAD_TO_SIGMA, median};
use super::timing::{Comparison, Policy, QUANTUM_TICKS, decide, quantum};
use statrs::distribution::{ContinuousCDF, Normal};
use std::collections::BTreeMap;

/// `√(π/2)`, the median's asymptotic standard error per σ (Serfling 1980, §2.3.3).
const MEDIAN_SE_PER_SIGMA: f64 = 1.253_314_137_315_500_3;

/// Half-width of the 95 % confidence interval of the median of the log ratios `d` (natural log,
/// so about a relative change): `1.96 √(π/2) σ / √n`, σ estimated as `max(1.4826 MAD(d), r)`
/// with `r` the smallest log-ratio step the timer can make (its quantum over the median time),
/// so that all-equal ratios of a quantized timer do not shrink the interval to zero.
pub fn median_ratio_ci(d: &[f64], resolution: f64) -> f64 {
    if d.is_empty() {
        return f64::INFINITY;
    }
    let m = median(d);
    let deviations: Vec<f64> = d.iter().map(|x| (x - m).abs()).collect();
    let sigma = (MAD_TO_SIGMA * median(&deviations)).max(resolution / 12f64.sqrt());
    Normal::standard().inverse_cdf(0.975) * MEDIAN_SE_PER_SIGMA * sigma / (d.len() as f64).sqrt()
}

/// The 95 % confidence interval of a paired comparison's `delta` (B/A - 1, a fraction), as
/// `[low, high]`: `exp(m ± h) - 1`, with `m = ln(1 + delta)` the median log ratio and `h` its
/// half-width [`median_ratio_ci`] (`c.median_ci` of a [`compare_paired`] result), so the interval
/// is not symmetric about `delta`. `None` when the half-width is not finite. Meant for the
/// comparisons [`compare_paired`] makes: a baseline comparison's `median_ci` is the interval of
/// one side's median, not of a ratio.
pub fn delta_interval(c: &Comparison) -> Option<[f64; 2]> {
    let m = c.delta.ln_1p();
    c.median_ci.is_finite().then(|| [(m - c.median_ci).exp_m1(), (m + c.median_ci).exp_m1()])
}

/// Judges paired samples: `a[i]` and `b[i]` timed back to back (seconds; `b` the version under
/// test, `a` the reference), `tests` the cases compared in the run.
///
/// - `delta = exp(median(ln(b_i / a_i))) - 1`: the typical per-pair ratio, +0.02 = B 2 % slower;
/// - p: the one-sided Wilcoxon signed-rank test of the log ratios in the direction of `delta`
///   ([`wilcoxon_signed_rank`]), times `tests` (Bonferroni, as the baseline gate);
/// - the minimum effect is [`Policy::effect_floor`], and at least [`QUANTUM_TICKS`] timer ticks of
///   the reference's median;
/// - the verdict follows the baseline gate's rule ([`decide`]), `median_ci` being
///   [`median_ratio_ci`].
///
/// The returned [`Comparison`] holds the medians of `b` and `a` as `median_s` and
/// `baseline_median_s`.
///
/// # Errors
/// [`crate::Error::Samples`] when the slices differ in length or are empty, or a sample is not
/// positive and finite (a zero sample is judged invalid by the caller first).
pub fn compare_paired(a: &[f64], b: &[f64], policy: &Policy, tests: usize) -> crate::error::Result<Comparison> {
    if a.len() != b.len() || a.is_empty() {
        return Err(crate::error::Error::Samples(format!("paired samples of lengths {} and {}", a.len(), b.len())));
    }
    if let Some((i, x)) = a.iter().chain(b).enumerate().find(|(_, x)| !(x.is_finite() && **x > 0.0)) {
        return Err(crate::error::Error::Samples(format!(
            "paired sample {i} is {x}; timings must be finite and > 0 s"
        )));
    }
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| (y / x).ln()).collect();
    let m = median(&d);
    let delta = m.exp() - 1.0;
    let p_value = wilcoxon_signed_rank(&d, delta >= 0.0);
    let p_adjusted = (p_value * tests.max(1) as f64).min(1.0);
    let (median_a, median_b) = (median(a), median(b));
    let quantum_s = quantum(a).max(quantum(b));
    let min_effect = policy.effect_floor.max(QUANTUM_TICKS * quantum_s / median_a);
    let median_ci = median_ratio_ci(&d, quantum_s / median_a);
    let verdict = decide(delta, p_adjusted <= policy.alpha, min_effect, median_ci);
    Ok(Comparison {
        verdict,
        baseline_median_s: median_a,
        median_s: median_b,
        delta,
        p_value,
        p_adjusted,
        min_effect,
        median_ci,
        quantum_s,
    })
}

/// The ncu values of both sides of an A/B trial, by metric name (raw ncu names in base units and
/// derived metrics), each profiled once on the same fixed inputs.
#[derive(Debug, Clone, Copy)]
pub struct PairedCounters<'a> {
    /// The reference version's (the revision's kernels).
    pub a: &'a BTreeMap<String, f64>,
    /// The version under test's (the tree's kernels, as read).
    pub b: &'a BTreeMap<String, f64>,
    /// How many distinct kernels the values combine ([`super::distinct_kernels`]).
    pub kernels: usize,
}

/// The verdict of paired samples (`a` the reference, `b` the version under test, seconds; the kept
/// pairs), with the sentence that explains it: `invalid` with `invalid`'s reason when the
/// conditions were bad, or when a sample read 0 s (below the timer's resolution); otherwise
/// [`compare_paired`] with `tests` cases in the family-wise correction. `versions` names both
/// sides at the start of the sentence (`B (kernels/ here) vs A (main = 0123456789ab)`).
///
/// With `counters` (an A/B run with `KERNELGATE_NCU=1`), B's counters are judged against A's
/// with the classes the baseline gate uses ([`super::counter_moves`]: exact, count with its
/// tolerance, measured and only reported), and a gating counter that got worse makes the verdict
/// `regressed`, decided by that counter, as in the baseline gate ([`super::judge()`]).
///
/// # Errors
/// As [`compare_paired`].
pub fn judge_pairs(
    a: &[f64],
    b: &[f64],
    invalid: Option<String>,
    counters: Option<PairedCounters<'_>>,
    policy: &Policy,
    tests: usize,
    versions: &str,
) -> crate::error::Result<super::Judged> {
    use super::{CounterBase, Decided, Judged, Verdict, counter_moves};
    let plain = |reason: String| Judged {
        verdict: Verdict::Invalid,
        decided: Decided::Conditions,
        comparison: None,
        moved: Vec::new(),
        reason,
    };
    if let Some(why) = invalid {
        return Ok(plain(why));
    }
    let zeros = a.iter().chain(b).filter(|&&x| x == 0.0).count();
    if zeros > 0 {
        return Ok(plain(format!(
            "{zeros} samples read 0 s, below the timer's resolution: the kernel is too short to time alone"
        )));
    }
    let c = compare_paired(a, b, policy, tests)?;
    let reason = match c.too_noisy() {
        Some(why) => why,
        None => format!(
            "{versions}: median per-pair ratio {} over {} pairs (medians {} vs {}), \
             one-sided Wilcoxon signed-rank p = {:.2e}, x{tests} cases (Bonferroni) = {:.2e} against alpha {}, \
             effect floor {:.2}%",
            crate::units::signed_pct(100.0 * c.delta),
            a.len(),
            crate::units::duration(c.median_s),
            crate::units::duration(c.baseline_median_s),
            c.p_value,
            c.p_adjusted,
            policy.alpha,
            100.0 * c.min_effect
        ),
    };
    let moved = counters.map_or_else(Vec::new, |k| {
        let base: Vec<CounterBase> =
            k.a.iter().map(|(metric, &value)| CounterBase { metric, value, rsd: None, kernels: k.kernels }).collect();
        counter_moves(&base, k.b, policy, tests)
    });
    if c.verdict == Verdict::Invalid {
        return Ok(Judged { verdict: c.verdict, decided: Decided::Conditions, comparison: Some(c), moved, reason });
    }
    Ok(super::judge::with_counters(c, moved, reason, " (B vs A)"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::testdata::{Lcg, close};
    use crate::gate::timing::Verdict;

    /// `n` pairs: a common per-pair drift (clock, temperature) times independent noise, B = A x
    /// (1 + shift).
    fn pairs(seed: u64, n: usize, shift: f64, drift: f64, noise: f64) -> (Vec<f64>, Vec<f64>) {
        let mut rng = Lcg(seed);
        let mut a = Vec::new();
        let mut b = Vec::new();
        for i in 0..n {
            let common = 1e-4 * (1.0 + drift * ((i as f64) / n as f64 - 0.5)) * (1.0 + 0.01 * rng.normal());
            a.push(common * (1.0 + noise * rng.normal()));
            b.push(common * (1.0 + shift) * (1.0 + noise * rng.normal()));
        }
        (a, b)
    }

    #[test]
    fn a_a_pairs_are_unchanged_even_with_drift_that_would_fool_an_unpaired_test() {
        for seed in 0..20 {
            let (a, b) = pairs(seed, 2000, 0.0, 0.05, 0.002);
            let c = compare_paired(&a, &b, &Policy::default(), 35).unwrap();
            assert_eq!(c.verdict, Verdict::Unchanged, "seed {seed}: {c:?}");
            assert!(c.delta.abs() < 0.001, "{c:?}");
        }
    }

    #[test]
    fn shifts_above_the_floor_are_detected_both_ways() {
        let (a, b) = pairs(1, 2000, 0.02, 0.05, 0.002);
        let c = compare_paired(&a, &b, &Policy::default(), 35).unwrap();
        assert_eq!(c.verdict, Verdict::Regressed, "{c:?}");
        close(c.delta, 0.02, 0.0005);
        let (a, b) = pairs(2, 2000, -0.05, 0.05, 0.002);
        assert_eq!(compare_paired(&a, &b, &Policy::default(), 35).unwrap().verdict, Verdict::Improved);
    }

    #[test]
    fn the_interval_of_delta_holds_the_shift_and_is_the_log_ratio_interval_back_transformed() {
        let (a, b) = pairs(1, 2000, 0.02, 0.05, 0.002);
        let c = compare_paired(&a, &b, &Policy::default(), 35).unwrap();
        let [low, high] = delta_interval(&c).unwrap();
        assert!(low < c.delta && c.delta < high && low < 0.02 && 0.02 < high, "{low} {high} {c:?}");
        close((1.0 + high).ln() - (1.0 + low).ln(), 2.0 * c.median_ci, 1e-12);
        assert!(high - low < 0.002, "2000 pairs with 0.2 % noise: a narrow interval, {low}..{high}");
        assert_eq!(delta_interval(&Comparison { median_ci: f64::INFINITY, ..c }), None);
    }

    #[test]
    fn too_few_noisy_pairs_are_invalid_and_bad_input_is_refused() {
        let (a, b) = pairs(3, 20, 0.02, 0.0, 0.05);
        assert_eq!(compare_paired(&a, &b, &Policy::default(), 35).unwrap().verdict, Verdict::Invalid);
        assert!(compare_paired(&a, &b[..10], &Policy::default(), 1).is_err());
        assert!(compare_paired(&[1.0, 0.0], &[1.0, 1.0], &Policy::default(), 1).is_err());
    }

    #[test]
    fn pairs_are_judged_with_a_sentence_naming_both_versions() {
        let a: Vec<f64> = (0..400).map(|i| 1e-4 * (1.0 + 0.001 * f64::from(i % 7))).collect();
        let b: Vec<f64> = a.iter().map(|x| x * 1.05).collect();
        let j = judge_pairs(&a, &b, None, None, &Policy::default(), 35, "B (kernels/ here) vs A (main = 0123456789ab)")
            .unwrap();
        assert_eq!(j.verdict, Verdict::Regressed);
        assert!(
            j.reason.starts_with(
                "B (kernels/ here) vs A (main = 0123456789ab): median per-pair ratio +5.00% over 400 pairs"
            ),
            "{}",
            j.reason
        );
        let lines = j.message_lines();
        assert!(
            lines.contains(" vs ") && lines.contains("\n  evidence: one-sided Wilcoxon signed-rank p = "),
            "{lines}"
        );
        let busy = Some("other processes computed on the GPU (pids [3])".to_string());
        let j = judge_pairs(&a, &b, busy, None, &Policy::default(), 35, "main").unwrap();
        assert_eq!((j.verdict, j.comparison.is_none()), (Verdict::Invalid, true));
        let mut zero = a.clone();
        zero[3] = 0.0;
        let j = judge_pairs(&zero, &b, None, None, &Policy::default(), 35, "main").unwrap();
        assert!(j.verdict == Verdict::Invalid && j.reason.starts_with("1 samples read 0 s"), "{}", j.reason);
    }

    /// A 2-way bank conflict that costs no time: the pairs say unchanged, the shared-memory
    /// wavefronts (a count) say regressed, and the verdict is the counter's. Durations are measured
    /// and only reported.
    #[test]
    fn a_counter_that_got_worse_decides_an_a_b_verdict() {
        let (a, b) = pairs(4, 2000, 0.0, 0.05, 0.002);
        const WAVEFRONTS: &str = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
        let side = |wavefronts: f64, ns: f64| {
            BTreeMap::from([(WAVEFRONTS.to_string(), wavefronts), ("gpu__time_duration.sum".to_string(), ns)])
        };
        let (before, after) = (side(1_048_576.0, 150_000.0), side(2_097_152.0, 150_300.0));
        let counters = PairedCounters { a: &before, b: &after, kernels: 1 };
        let j = judge_pairs(&a, &b, None, Some(counters), &Policy::default(), 35, "main").unwrap();
        assert_eq!(j.verdict, Verdict::Regressed, "{}", j.reason);
        assert!(matches!(&j.decided, crate::gate::Decided::Counter(m) if m.metric == WAVEFRONTS), "{:?}", j.decided);
        assert!(j.reason.contains("(unchanged by time alone)"), "{}", j.reason);
        let same = PairedCounters { a: &before, b: &before, kernels: 1 };
        let j = judge_pairs(&a, &b, None, Some(same), &Policy::default(), 35, "main").unwrap();
        assert_eq!((j.verdict, j.moved.len()), (Verdict::Unchanged, 0), "{}", j.reason);
        let slower_only = side(1_048_576.0, 180_000.0);
        let j = judge_pairs(
            &a,
            &b,
            None,
            Some(PairedCounters { a: &before, b: &slower_only, kernels: 1 }),
            &Policy::default(),
            35,
            "main",
        )
        .unwrap();
        assert_eq!(j.verdict, Verdict::Unchanged, "a measured duration reports, never gates: {}", j.reason);
        assert!(j.reason.contains("counters that moved (B vs A): gpu__time_duration.sum"), "{}", j.reason);
    }

    #[test]
    fn quantized_equal_pairs_keep_an_interval() {
        // A 1.024 us kernel on a 32 ns tick: every ratio exactly 1.
        let a = vec![1.024e-6; 500];
        let c = compare_paired(&a, &a, &Policy::default(), 1);
        // All ties in one value: not quantized by the distinct-value rule, so no tick floor; the
        // interval is 0 and the verdict unchanged.
        assert_eq!(c.unwrap().verdict, Verdict::Unchanged);
        let b: Vec<f64> = (0..500).map(|i| 1.024e-6 + if i % 2 == 0 { 32e-9 } else { 0.0 }).collect();
        let c = compare_paired(&a, &b, &Policy::default(), 1).unwrap();
        assert!(c.min_effect >= 2.0 * 32e-9 / 1.024e-6 - 1e-12, "{c:?}");
        assert_eq!(c.verdict, Verdict::Unchanged, "half the pairs one tick apart: {c:?}");
    }
}
