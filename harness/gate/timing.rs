//! The regression gate's statistics: one case's timing samples against the baseline's, and one
//! Nsight Compute counter against its baseline value. Pure: no files, no CUDA; tested on the CPU.
//!
//! A timing comparison ([`compare`]) asks two questions of the two sample sets:
//!
//! 1. Is the change large enough to matter? The relative change of the medians, `delta`, must
//!    reach the minimum effect: a fixed floor (1 %, criterion.rs's) raised for noisy baselines —
//!    by how far the baseline's median moves between runs when that was measured
//!    ([`Policy::run_to_run_floor`], `kernelgate baseline calibrate`), otherwise by the spread of
//!    its samples ([`Policy::min_effect`]).
//! 2. Is it real? A one-sided Mann-Whitney U test ([`mann_whitney_greater`],
//!    [`mann_whitney_less`]) in the direction of `delta`, Bonferroni-adjusted for the number of
//!    cases in the run, must be significant at [`Policy::alpha`].
//!
//! Before either question, the run must be able to answer them at all: if the 95 % confidence
//! interval of its own median ([`median_ci_half_width`]) is wider than the minimum effect, the
//! measurement is too noisy to tell a change of that size from noise, and the verdict is
//! [`Verdict::Invalid`].
//!
//! Why both: with the thousands of samples a run takes, the U test finds shifts far below 1 %,
//! and it assumes independent samples drawn from one distribution per run. Timing samples are
//! neither: clocks and temperature drift within a run, and the whole distribution moves a little
//! between runs of the same code, which no within-run test can see (Kalibera & Jones 2013,
//! "Rigorous Benchmarking in Reasonable Time", ISMM '13: between-execution variation often
//! dominates within-execution variation). The effect floor is what keeps an A/A comparison (same
//! code, new run) from raising alarms; the test is what keeps a few noisy samples from doing so.

use super::rank::{mann_whitney_greater, mann_whitney_less};
use super::robust::{median, problem};

pub use super::policy::{Policy, QUANTUM_TICKS};
pub use super::robust::{median_ci_half_width, quantum, relative_mad, relative_spread, validate};
pub use super::verdict::{Verdict, decide};

/// One case's timing comparison, from [`compare`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Comparison {
    /// The decision.
    pub verdict: Verdict,
    /// Median of the baseline's samples, s.
    pub baseline_median_s: f64,
    /// Median of this run's samples, s.
    pub median_s: f64,
    /// Relative change of the median, `median_s / baseline_median_s - 1`: +0.02 = 2 % slower.
    pub delta: f64,
    /// Raw one-sided Mann-Whitney p-value in the direction of `delta`:
    /// [`mann_whitney_greater`]`(now, baseline)` if `delta >= 0`, else [`mann_whitney_less`].
    pub p_value: f64,
    /// `min(1, p_value * tests)`: the Bonferroni bound, which is the first step of Holm's
    /// procedure (Holm 1979). A per-case verdict cannot see the other cases' p-values, so it uses
    /// this bound; it controls the family-wise error rate at alpha over the `tests` cases of the
    /// run under any dependence. A run-level [`super::rank::holm`] over all p-values rejects everything this
    /// rejects, and possibly more.
    pub p_adjusted: f64,
    /// The minimum effect applied, a fraction: [`Policy::min_effect`] of the baseline, or
    /// [`Policy::run_to_run_floor`] when calibrated, and never under [`QUANTUM_TICKS`] timer ticks.
    pub min_effect: f64,
    /// [`median_ci_half_width`] of this run's samples, a fraction; the verdict is
    /// [`Verdict::Invalid`] (too noisy) when it exceeds `min_effect`.
    pub median_ci: f64,
    /// The timer's quantum seen in either sample set ([`quantum`]), seconds; 0 when the samples
    /// show none. `min_effect` is at least [`QUANTUM_TICKS`] quanta of the baseline median.
    pub quantum_s: f64,
}

impl Comparison {
    /// Why the verdict is [`Verdict::Invalid`], when it is: the run's median is too uncertain.
    pub fn too_noisy(&self) -> Option<String> {
        (self.verdict == Verdict::Invalid).then(|| {
            format!(
                "too noisy: the 95 % confidence interval of this run's median is ±{:.2}%, wider than the \
                 effect floor {:.2}%; take more samples (KERNELGATE_TIMEOUT, KERNELGATE_MIN_SAMPLES) or quiet the GPU",
                100.0 * self.median_ci,
                100.0 * self.min_effect
            )
        })
    }
}

/// Compares this run's timing samples `now` with the `baseline`'s (both seconds, any sizes >= 1;
/// kernelgate keeps at most ~1000 baseline samples and takes up to hundreds of thousands now).
///
/// `delta` = relative change of the medians; p = one-sided Mann-Whitney p-value in the direction
/// of `delta`, adjusted to `min(1, p * tests)` (Bonferroni; see [`Comparison::p_adjusted`]);
/// `min_effect` = [`Policy::min_effect`] of the baseline. Then:
/// - [`Verdict::Invalid`] if [`median_ci_half_width`]`(now) > min_effect`: too noisy to judge
///   ([`Comparison::too_noisy`] says so);
/// - [`Verdict::Regressed`] if `delta >= min_effect` and `p_adjusted <= alpha`;
/// - [`Verdict::Improved`] if `delta <= -min_effect` and `p_adjusted <= alpha`;
/// - [`Verdict::Unchanged`] if `|delta| < min_effect`, significant or not;
/// - [`Verdict::Ambiguous`] otherwise: a large change that is not significant (too few or too
///   noisy samples; with n = m = 3 the smallest possible p is 0.05, so any `tests >= 2` makes
///   every large change of three samples ambiguous).
///
/// `tests` is the number of cases compared in this run (>= 1; 0 is taken as 1).
///
/// # Errors
/// [`crate::Error::Samples`] if either slice fails [`validate`]; the message says which
/// ("this run's" or "baseline") and the index.
pub fn compare(now: &[f64], baseline: &[f64], policy: &Policy, tests: usize) -> crate::error::Result<Comparison> {
    compare_with(now, baseline, Known::default(), policy, tests)
}

/// What a comparison knows besides the two sample sets ([`compare_with`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Known {
    /// The median of all of the baseline run's samples, seconds: the reference for `delta`.
    /// `None`: the median of the samples given. Why it matters: a baseline keeps an evenly spaced
    /// subset (about 1000) of its samples, and a subset's median can sit far from the run's when
    /// the timings are bimodal. On the H200 the short strided reads have two modes about 2 %
    /// apart with about half the samples each; the kept subset's median was 0.33 % (stride 1) and
    /// 0.41 % (stride 2) under the full run's (baselines/nvidia-h200-sm90, 2026-11-30).
    pub baseline_median: Option<f64>,
    /// The median of all of this run's samples, seconds, when `now` is a kept subset (a run
    /// record); `None`: the median of `now`.
    pub now_median: Option<f64>,
    /// How far the baseline's median moves between runs (relative stddev, a fraction;
    /// [`crate::gate::baseline::RunToRun`]): the minimum effect is then [`Policy::run_to_run_floor`]
    /// instead of [`Policy::min_effect`] of the baseline's samples.
    pub median_rsd: Option<f64>,
}

/// [`compare`], with what else is known of the two runs ([`Known`]): their full-run medians for
/// `delta`, and the baseline's run-to-run spread for the minimum effect. The samples serve the rank
/// test and the noise checks as in [`compare`].
///
/// # Errors
/// As [`compare`]; also [`crate::Error::Samples`] if a given median is not a positive finite number.
pub fn compare_with(
    now: &[f64],
    baseline: &[f64],
    known: Known,
    policy: &Policy,
    tests: usize,
) -> crate::error::Result<Comparison> {
    for (samples, which) in [(now, "this run's"), (baseline, "baseline")] {
        if let Some(message) = problem(samples) {
            return Err(crate::error::Error::Samples(format!("{which} samples: {message}")));
        }
    }
    for (given, which) in [(known.now_median, "this run's"), (known.baseline_median, "baseline")] {
        if let Some(m) = given.filter(|m| !(m.is_finite() && *m > 0.0)) {
            return Err(crate::error::Error::Samples(format!(
                "{which} median is {m}, not a positive number of seconds"
            )));
        }
    }
    let baseline_median_s = known.baseline_median.unwrap_or_else(|| median(baseline));
    let median_s = known.now_median.unwrap_or_else(|| median(now));
    let delta = median_s / baseline_median_s - 1.0;
    let p_value = if delta >= 0.0 { mann_whitney_greater(now, baseline) } else { mann_whitney_less(now, baseline) };
    let p_adjusted = (p_value * tests.max(1) as f64).min(1.0);
    // Medians of quantized timings move in whole ticks: a move of one or two ticks is a few ties
    // changing sides, not a change of the kernel.
    let quantum_s = quantum(now).max(quantum(baseline));
    let ticks = QUANTUM_TICKS * quantum_s / baseline_median_s;
    let min_effect = match known.median_rsd {
        Some(rsd) => policy.run_to_run_floor(rsd, tests),
        None => policy.min_effect(baseline),
    }
    .max(ticks);
    let median_ci = median_ci_half_width(now);
    let verdict = decide(delta, p_adjusted <= policy.alpha, min_effect, median_ci);
    Ok(Comparison {
        verdict,
        baseline_median_s,
        median_s,
        delta,
        p_value,
        p_adjusted,
        min_effect,
        median_ci,
        quantum_s,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::gate::testdata::{Lcg, close};

    fn compared(now: &[f64], baseline: &[f64], tests: usize) -> Comparison {
        compare(now, baseline, &Policy::default(), tests).unwrap()
    }

    fn samples_error(r: crate::error::Result<impl std::fmt::Debug>) -> String {
        match r {
            Err(Error::Samples(message)) => message,
            other => panic!("expected Error::Samples, got {other:?}"),
        }
    }

    #[test]
    fn validate_names_the_problem_and_index() {
        validate(&[1e-3, 2e-3]).unwrap();
        for (bad, word) in
            [(f64::NAN, "NaN"), (f64::INFINITY, "infinite"), (0.0, "not positive"), (-1e-3, "not positive")]
        {
            let message = samples_error(validate(&[1e-3, 1e-3, bad, 1e-3]));
            assert!(message.contains("index 2") && message.contains(word), "{message}");
        }
        assert!(samples_error(validate(&[])).contains("empty"));
        let message = samples_error(compare(&[1.0], &[1.0, f64::NEG_INFINITY], &Policy::default(), 1));
        assert!(message.starts_with("baseline samples: sample at index 1 is -inf (infinite)"), "{message}");
        let message = samples_error(compare(&[], &[1.0], &Policy::default(), 1));
        assert!(message.starts_with("this run's samples: the sample slice is empty"), "{message}");
    }

    #[test]
    fn identical_samples_are_unchanged() {
        let base = Lcg(1).timings(1000, 1e-4, 0.01);
        let c = compared(&base, &base, 1);
        assert_eq!((c.verdict, c.delta), (Verdict::Unchanged, 0.0));
        assert!(c.p_value > 0.5, "{}", c.p_value);
        assert_eq!(c.baseline_median_s, c.median_s);
    }

    #[test]
    fn five_percent_shifts_are_detected_both_ways() {
        // base = 1 ms + deterministic jitter of at most 0.5 %; now = base * 1.05 or * 0.95.
        let mut rng = Lcg(2);
        let base: Vec<f64> = (0..200).map(|_| 1e-3 * (1.0 + 0.005 * rng.uniform())).collect();
        let slower: Vec<f64> = base.iter().map(|x| x * 1.05).collect();
        let faster: Vec<f64> = base.iter().map(|x| x * 0.95).collect();
        let c = compared(&slower, &base, 35);
        assert_eq!(c.verdict, Verdict::Regressed);
        close(c.delta, 0.05, 1e-12);
        assert_eq!(c.min_effect, 0.01);
        assert!(c.p_adjusted < 1e-30, "{}", c.p_adjusted);
        let c = compared(&faster, &base, 35);
        assert_eq!(c.verdict, Verdict::Improved);
        close(c.delta, -0.05, 1e-12);
        assert!(c.p_adjusted < 1e-30, "{}", c.p_adjusted);
    }

    #[test]
    fn shift_under_the_floor_is_unchanged_even_if_significant() {
        let mut rng = Lcg(3);
        let base: Vec<f64> = (0..1000).map(|_| 1e-3 * (1.0 + 0.002 * rng.uniform())).collect();
        let now: Vec<f64> = base.iter().map(|x| x * 1.005).collect();
        let c = compared(&now, &base, 1);
        assert_eq!(c.verdict, Verdict::Unchanged);
        close(c.delta, 0.005, 1e-12);
        assert!(c.p_value < 1e-10, "significant, but under the 1 % floor: {}", c.p_value);
    }

    #[test]
    fn three_samples_each_are_ambiguous() {
        let base = [1.000e-3, 1.001e-3, 1.002e-3];
        let now: Vec<f64> = base.iter().map(|x| x * 1.03).collect();
        // Fully separated: p = 1 / C(6, 3) = 0.05 at best; any correction makes it too large.
        let c = compared(&now, &base, 2);
        assert_eq!(c.verdict, Verdict::Ambiguous);
        close(c.p_value, 0.05, 1e-12);
        close(c.p_adjusted, 0.1, 1e-12);
        assert_eq!(compared(&now, &base, 35).verdict, Verdict::Ambiguous);
        // Alone in its run (tests = 1), p = 0.05 <= alpha: the exact test would say the same.
        assert_eq!(compared(&now, &base, 1).verdict, Verdict::Regressed);
    }

    #[test]
    fn calibrated_floor_replaces_the_per_sample_mad() {
        // A short kernel: 1.5 % per-sample noise (floor 3 % from the MAD), median quiet between runs.
        let mut rng = Lcg(5);
        let base = rng.timings(1000, 54e-6, 0.015);
        let slower = rng.timings(10_000, 54e-6 * 1.02, 0.015);
        let by_mad = compare(&slower, &base, &Policy::default(), 35).unwrap();
        assert_eq!(by_mad.verdict, Verdict::Unchanged, "{by_mad:?}");
        assert!(by_mad.min_effect > 0.025);
        let calibrated = Known { median_rsd: Some(0.001), ..Known::default() };
        let calibrated = compare_with(&slower, &base, calibrated, &Policy::default(), 35).unwrap();
        assert_eq!((calibrated.verdict, calibrated.min_effect), (Verdict::Regressed, 0.01), "{calibrated:?}");
        // A median that moves a lot between runs raises the floor above the MAD's.
        let loose = Known { median_rsd: Some(0.02), ..Known::default() };
        let loose = compare_with(&slower, &base, loose, &Policy::default(), 35).unwrap();
        assert_eq!(loose.verdict, Verdict::Unchanged);
        assert!(loose.min_effect > 0.08, "{}", loose.min_effect);
    }

    #[test]
    fn full_run_medians_set_delta_when_known() {
        // A bimodal baseline: the kept subset's median sits in the lower mode, the run's did not.
        let base: Vec<f64> = (0..1000).map(|i| if i % 2 == 0 { 53.0e-6 } else { 54.1e-6 }).collect();
        let now = vec![54.1e-6; 100];
        let by_subset = compare(&now, &base, &Policy::default(), 1).unwrap();
        close(by_subset.delta, 54.1 / 53.55 - 1.0, 1e-9);
        let known = Known { baseline_median: Some(54.0e-6), ..Known::default() };
        let c = compare_with(&now, &base, known, &Policy::default(), 1).unwrap();
        close(c.delta, 54.1 / 54.0 - 1.0, 1e-9);
        assert_eq!(c.baseline_median_s, 54.0e-6);
        let bad = Known { now_median: Some(f64::NAN), ..Known::default() };
        let message = samples_error(compare_with(&now, &base, bad, &Policy::default(), 1));
        assert!(message.contains("this run's median is NaN"), "{message}");
    }

    #[test]
    fn too_noisy_runs_are_invalid_whatever_the_shift() {
        let mut rng = Lcg(11);
        let base = rng.timings(1000, 100e-6, 0.002);
        // 20 samples with 10 % noise: the median is known to about ±5.5 %, past the 1 % floor.
        for shift in [1.0, 1.05] {
            let noisy = rng.timings(20, 100e-6 * shift, 0.10);
            let c = compared(&noisy, &base, 35);
            assert_eq!(c.verdict, Verdict::Invalid, "shift {shift}: {c:?}");
            let why = c.too_noisy().unwrap();
            assert!(why.contains("too noisy") && why.contains("effect floor 1.00%"), "{why}");
        }
        // The same noise over 20,000 samples pins the median to ±0.17 %: judged again.
        let many = rng.timings(20_000, 105e-6, 0.10);
        let c = compared(&many, &base, 35);
        assert_eq!(c.verdict, Verdict::Regressed, "{c:?}");
        assert_eq!(c.too_noisy(), None);
    }

    #[test]
    fn one_sample_each_does_not_panic() {
        let c = compared(&[1.05e-3], &[1.0e-3], 1);
        assert_eq!(c.verdict, Verdict::Ambiguous, "5 % apart, but p = 0.5");
        close(c.p_value, 0.5, 1e-12);
        assert_eq!(compared(&[0.95e-3], &[1.0e-3], 1).verdict, Verdict::Ambiguous);
        let c = compared(&[1.0e-3], &[1.0e-3], 1);
        assert_eq!((c.verdict, c.delta, c.p_value, c.min_effect), (Verdict::Unchanged, 0.0, 1.0, 0.01));
    }

    #[test]
    fn bonferroni_scales_with_tests() {
        // n = m = 5, fully separated, +5 %: p = 0.0060929 (see the Mann-Whitney known answer).
        let base = [1.000e-3, 1.001e-3, 1.002e-3, 1.003e-3, 1.004e-3];
        let now: Vec<f64> = base.iter().map(|x| x * 1.05).collect();
        let alone = compared(&now, &base, 1);
        assert_eq!(alone.verdict, Verdict::Regressed);
        assert_eq!(alone.p_adjusted, alone.p_value);
        close(alone.p_value, 0.006_092_890, 1e-8);
        // 35 cases: 35 * 0.0060929 = 0.21325 > 0.05.
        let in_35 = compared(&now, &base, 35);
        assert_eq!(in_35.verdict, Verdict::Ambiguous);
        close(in_35.p_adjusted, 0.213_251_156, 1e-8);
        assert_eq!(compared(&now, &base, 0), alone, "tests = 0 counts as 1");
        // 1000 capped at 1.
        assert_eq!(compared(&now, &base, 1000).p_adjusted, 1.0);
    }

    #[test]
    fn min_effect_is_floor_or_twice_the_noise() {
        let policy = Policy::default();
        assert_eq!(policy, Policy { alpha: 0.05, effect_floor: 0.01, noise_multiplier: 2.0 });
        let quiet = Lcg(4).timings(1000, 1e-4, 0.002);
        assert_eq!(policy.min_effect(&quiet), 0.01);
        let noisy = Lcg(5).timings(1000, 1e-4, 0.03);
        assert_eq!(policy.min_effect(&noisy), 2.0 * relative_mad(&noisy));
        close(policy.min_effect(&noisy), 0.06, 0.006);
        assert_eq!(policy.min_effect(&[]), 0.01);
        // A noisy baseline widens the dead band: +5 % against 3 % noise is unchanged.
        let now: Vec<f64> = noisy.iter().map(|x| x * 1.05).collect();
        assert_eq!(compared(&now, &noisy, 1).verdict, Verdict::Unchanged);
    }

    #[test]
    fn outliers_move_neither_median_nor_mad() {
        // 1000 samples 1.0 +- 0.2 %, every 20th (5 %) an outlier at 3.0.
        let mut rng = Lcg(6);
        let clean: Vec<f64> = (0..1000).map(|_| 1.0 + 0.004 * (rng.uniform() - 0.5)).collect();
        let heavy: Vec<f64> = clean.iter().enumerate().map(|(i, &x)| if i % 20 == 0 { 3.0 } else { x }).collect();
        let mean = heavy.iter().sum::<f64>() / heavy.len() as f64;
        assert!(mean > 1.09, "the mean moves by 10 %: {mean}");
        close(median(&heavy), 1.0, 0.001);
        let (with, without) = (relative_mad(&heavy), relative_mad(&clean));
        assert!((with / without - 1.0).abs() < 0.15, "relative MAD {with} vs {without}");
        let c = compared(&rng.shuffled(&heavy), &heavy, 1);
        assert_eq!((c.verdict, c.delta), (Verdict::Unchanged, 0.0));
        assert!(c.p_value > 0.5, "{}", c.p_value);
        assert_eq!(c.min_effect, 0.01);
    }

    fn simulate(seed: u64, trials: usize, n: usize, sigma: f64, shift: f64, tests: usize) -> [usize; 4] {
        let mut rng = Lcg(seed);
        let mut counts = [0; 4];
        for _ in 0..trials {
            let base = rng.timings(1000, 1e-4, sigma);
            let now = rng.timings(n, 1e-4 * (1.0 + shift), sigma);
            let slot = match compared(&now, &base, tests).verdict {
                Verdict::Improved => 0,
                Verdict::Unchanged => 1,
                Verdict::Regressed => 2,
                _ => 3,
            };
            counts[slot] += 1;
        }
        counts
    }

    #[test]
    fn a_a_comparisons_raise_no_alarm() {
        // 200 A/A pairs, 1000 samples each, 1 % noise, alone in the run (no Bonferroni help):
        // the median moves by ~0.06 % (sd), far under the 2 % minimum effect.
        assert_eq!(simulate(10, 200, 1000, 0.01, 0.0, 1), [0, 200, 0, 0]);
        // The test itself is calibrated: about alpha = 5 % of A/A pairs have p <= 0.05.
        let mut rng = Lcg(11);
        let significant = (0..200)
            .filter(|_| {
                let (a, b) = (rng.timings(1000, 1e-4, 0.01), rng.timings(1000, 1e-4, 0.01));
                mann_whitney_greater(&a, &b) <= 0.05
            })
            .count();
        assert!((3..=20).contains(&significant), "{significant} of 200 significant, expected ~10");
    }

    #[test]
    fn power_to_detect_shifts() {
        // At the 0.5 % noise target the minimum effect is the 1 % floor: +2 % is always caught,
        // even among 35 cases, with baseline-sized and 10x larger runs.
        assert_eq!(simulate(20, 50, 1000, 0.005, 0.02, 35), [0, 0, 50, 0]);
        assert_eq!(simulate(21, 20, 10_000, 0.005, 0.02, 35), [0, 0, 20, 0]);
        // +5 % is caught at 1 % noise too (minimum effect ~2 %).
        assert_eq!(simulate(22, 50, 1000, 0.01, 0.05, 35), [0, 0, 50, 0]);
        // +1 % at 0.4 % noise sits on the floor: caught about half the time, else unchanged.
        let [improved, unchanged, regressed, other] = simulate(23, 50, 1000, 0.004, 0.01, 35);
        assert_eq!((improved, other), (0, 0));
        assert!((15..=35).contains(&regressed), "{regressed} of 50, unchanged {unchanged}");
        // The documented price of noise_multiplier = 2: at 1 % noise, +2 % is on the minimum
        // effect and caught only about half the time; never called an improvement or ambiguous.
        let [improved, _, regressed, other] = simulate(24, 50, 1000, 0.01, 0.02, 35);
        assert_eq!((improved, other), (0, 0));
        assert!((10..=40).contains(&regressed), "{regressed} of 50");
    }
}
