//! The time-only lessons judged as same-run ratios: a good and a bad program of one family timed in
//! pairs in one trial ([`crate::measure::measure_pairs`]), and the per-pair ratio good / bad held
//! against the lesson's bound (declared beside the cases, [`crate::case::lesson`]). Pure.
//!
//! The ratio and its interval are the paired gate's ([`super::paired::compare_paired`] with the
//! bad program as the reference A and the good one as B): the median of the per-pair log ratios
//! `ln(good_i / bad_i)`, back-transformed, and its 95 % confidence interval
//! ([`super::paired::delta_interval`]). Only that estimate is used: the paired gate's own verdict
//! (a change against the effect floor) answers another question.
//!
//! The rule, decided by the interval rather than by the median alone, so that a ratio sitting on
//! its bound does not pass one run and fail the next:
//! - [`LessonVerdict::Holds`] when the whole interval is at or below the bound;
//! - [`LessonVerdict::Broken`] when the whole interval is above it (the lesson no longer holds);
//! - [`LessonVerdict::Unclear`] when the interval straddles the bound: these pairs cannot say on
//!   which side the ratio lies. A counter ratio expectation (`Expectation::relative_to(..)
//!   .at_most(..)`, [`crate::expect`]) compares one profiled value with its bound and has no
//!   interval; a timed ratio has one, and a point rule would flip with the noise;
//! - [`LessonVerdict::Invalid`] when the conditions were bad (throttled, another process on the
//!   GPU), a sample read 0 s, or the interval is not finite.
//!
//! Which of them fail the trial follows `KERNELGATE_FAIL_ON` through the baseline gate's words
//! ([`LessonVerdict::fail_on_word`]): broken as `regressed` (failed by default), unclear as
//! `ambiguous`, invalid as `invalid` (reported by default, failed when listed).

use super::paired::{compare_paired, delta_interval};
use super::timing::Policy;

/// What a lesson trial found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LessonVerdict {
    /// The ratio's 95 % interval is at or below the bound.
    Holds,
    /// The ratio's 95 % interval is above the bound: the lesson no longer holds.
    Broken,
    /// The interval straddles the bound.
    Unclear,
    /// The pairs cannot be judged (conditions, a 0 s sample, no finite interval).
    Invalid,
}

impl LessonVerdict {
    /// `holds`, `broken`, `unclear` or `invalid`, as the lessons CSV writes them.
    pub fn as_str(&self) -> &'static str {
        match self {
            LessonVerdict::Holds => "holds",
            LessonVerdict::Broken => "broken",
            LessonVerdict::Unclear => "unclear",
            LessonVerdict::Invalid => "invalid",
        }
    }

    /// The verdict of [`as_str`](Self::as_str)'s word; `None` for any other text.
    pub fn parse(word: &str) -> Option<LessonVerdict> {
        [LessonVerdict::Holds, LessonVerdict::Broken, LessonVerdict::Unclear, LessonVerdict::Invalid]
            .into_iter()
            .find(|v| v.as_str() == word)
    }

    /// The `KERNELGATE_FAIL_ON` word that fails a trial with this verdict, as for the baseline
    /// gate's verdicts: `regressed` (broken), `ambiguous` (unclear), `invalid`; `None` for holds.
    pub fn fail_on_word(&self) -> Option<&'static str> {
        match self {
            LessonVerdict::Holds => None,
            LessonVerdict::Broken => Some("regressed"),
            LessonVerdict::Unclear => Some("ambiguous"),
            LessonVerdict::Invalid => Some("invalid"),
        }
    }
}

/// The fewest runs a lesson's bound is set from: 10 H200 runs of its lesson trial (docs/lessons.md says how a bound is set).
pub const MIN_RUNS_FOR_A_BOUND: usize = 10;

/// The margin rule that sets a lesson's bound from the worst (largest) ratio good / bad measured
/// over its runs: halfway between it and 1.0, rounded up to the next hundredth (0.658 gives 0.83).
/// kernelgate's choice: a ratio of 1.0 is no lesson at all, and halfway leaves as much room for
/// the ratio to drift as the lesson's own effect, so a bound trips only when half the lesson is
/// lost. The shipped suite's bounds (its `cases/launch.rs` and `transfers.rs`) follow it.
pub fn margin_bound(worst: f64) -> f64 {
    // A hair under the hundredth first, so that a halfway point on a hundredth (0.75) is not
    // pushed up by its binary representation.
    (((worst + 1.0) / 2.0 * 100.0) - 1e-9).ceil() / 100.0
}

/// The two programs of a lesson, for its sentences: `graph` and `one_by_one`, and what one
/// launch of a program is (`time per step`, `time per copy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LessonNames<'a> {
    /// The good program's variant.
    pub good: &'a str,
    /// The bad program's variant.
    pub bad: &'a str,
    /// What one timed launch of a program is, e.g. `time per step`.
    pub per: &'a str,
}

/// A lesson trial's judgement.
#[derive(Debug, Clone, PartialEq)]
pub struct LessonJudged {
    /// The verdict.
    pub verdict: LessonVerdict,
    /// The median per-pair ratio good / bad (`exp(median(ln(good_i / bad_i)))`); `None` when no
    /// ratio was computed (bad conditions, a 0 s sample).
    pub ratio: Option<f64>,
    /// The ratio's 95 % confidence interval `[low, high]`; `None` where `ratio` is, or when the
    /// interval is not finite.
    pub interval: Option<[f64; 2]>,
    /// The good program's median, seconds (`None` without pairs).
    pub good_median_s: Option<f64>,
    /// The bad program's median, seconds.
    pub bad_median_s: Option<f64>,
    /// The pairs judged.
    pub pairs: usize,
    /// The sentence: the ratio, its interval, the bound, and what follows.
    pub reason: String,
}

/// Judges a lesson's pairs: `bad[i]` and `good[i]` timed back to back (seconds, the kept pairs),
/// `bound` the largest ratio good / bad at which the lesson holds, `invalid` why the conditions
/// make the pairs unusable (from [`crate::measure::Samples::invalid_reason`]). The rule is the
/// module's.
///
/// # Errors
/// [`crate::Error::Samples`] when the slices differ in length or are empty, or a sample is
/// negative or not finite ([`compare_paired`]'s errors).
pub fn judge_lesson(
    bad: &[f64],
    good: &[f64],
    bound: f64,
    invalid: Option<String>,
    names: LessonNames<'_>,
) -> crate::error::Result<LessonJudged> {
    let medians =
        (!good.is_empty() && !bad.is_empty()).then(|| (crate::stats::median(good), crate::stats::median(bad)));
    let plain = |reason: String| LessonJudged {
        verdict: LessonVerdict::Invalid,
        ratio: None,
        interval: None,
        good_median_s: medians.map(|m| m.0),
        bad_median_s: medians.map(|m| m.1),
        pairs: good.len(),
        reason,
    };
    if let Some(why) = invalid {
        return Ok(plain(format!("not judged: {why}")));
    }
    let zeros = bad.iter().chain(good).filter(|&&x| x == 0.0).count();
    if zeros > 0 {
        return Ok(plain(format!("not judged: {zeros} samples read 0 s, below the timer's resolution")));
    }
    // Both programs' medians and the quantum come from the comparison; the effect floor and the
    // family-wise correction do not enter the ratio or its interval.
    let c = compare_paired(bad, good, &Policy::default(), 1)?;
    let ratio = 1.0 + c.delta;
    let interval = delta_interval(&c).map(|[low, high]| [1.0 + low, 1.0 + high]);
    let LessonNames { good: g, bad: b, per } = names;
    let stated = |interval: &str| {
        format!(
            "{g} {ratio:.3} of {b}'s {per}{interval} over {} pairs (medians {} vs {}), bound {bound}",
            good.len(),
            crate::units::duration(c.median_s),
            crate::units::duration(c.baseline_median_s),
        )
    };
    let Some([low, high]) = interval else {
        return Ok(LessonJudged {
            ratio: Some(ratio),
            good_median_s: Some(c.median_s),
            bad_median_s: Some(c.baseline_median_s),
            ..plain(format!("not judged: {}, with no finite 95 % interval", stated("")))
        });
    };
    let stated = stated(&format!(" (95 % CI {low:.3}-{high:.3})"));
    let (verdict, reason) = if high <= bound {
        (LessonVerdict::Holds, format!("the lesson holds: {stated}"))
    } else if low > bound {
        (LessonVerdict::Broken, format!("the lesson no longer holds: {stated}; the whole interval is above the bound"))
    } else {
        (
            LessonVerdict::Unclear,
            format!(
                "unclear: {stated}; the interval straddles the bound, so these pairs cannot tell whether the lesson \
                 holds (a rerun, or more pairs with a longer KERNELGATE_TIMEOUT, decides)"
            ),
        )
    };
    Ok(LessonJudged {
        verdict,
        ratio: Some(ratio),
        interval: Some([low, high]),
        good_median_s: Some(c.median_s),
        bad_median_s: Some(c.baseline_median_s),
        pairs: good.len(),
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::testdata::{Lcg, close};

    const NAMES: LessonNames<'static> = LessonNames { good: "graph", bad: "one_by_one", per: "time per step" };

    /// `n` pairs: bad ~16 us, good = bad x `ratio`, each with its own log-normal noise `sigma`.
    fn pairs(seed: u64, n: usize, ratio: f64, sigma: f64) -> (Vec<f64>, Vec<f64>) {
        let mut rng = Lcg(seed);
        let bad = rng.timings(n, 16e-6, sigma);
        let good = rng.timings(n, 16e-6 * ratio, sigma);
        (bad, good)
    }

    #[test]
    fn a_ratio_well_below_its_bound_holds_with_an_interval_around_it() {
        let (bad, good) = pairs(1, 2000, 0.66, 0.02);
        let j = judge_lesson(&bad, &good, 0.83, None, NAMES).unwrap();
        assert_eq!(j.verdict, LessonVerdict::Holds, "{}", j.reason);
        let ratio = j.ratio.unwrap();
        close(ratio, 0.66, 0.003);
        let [low, high] = j.interval.unwrap();
        assert!(low < ratio && ratio < high && low < 0.66 && 0.66 < high, "{low} {high}");
        assert!(high - low < 0.01, "2000 pairs at 2 % noise: {low}..{high}");
        assert_eq!(j.pairs, 2000);
        assert!(j.reason.starts_with("the lesson holds: graph 0.66"), "{}", j.reason);
        assert!(j.reason.contains("of one_by_one's time per step (95 % CI 0.6"), "{}", j.reason);
        assert!(j.reason.ends_with("bound 0.83"), "{}", j.reason);
    }

    #[test]
    fn a_ratio_clearly_above_its_bound_is_broken() {
        let (bad, good) = pairs(2, 500, 0.91, 0.02);
        let j = judge_lesson(&bad, &good, 0.80, None, NAMES).unwrap();
        assert_eq!(j.verdict, LessonVerdict::Broken, "{}", j.reason);
        assert!(j.interval.unwrap()[0] > 0.80);
        assert!(j.reason.starts_with("the lesson no longer holds: graph 0.91"), "{}", j.reason);
        assert!(j.reason.contains("the whole interval is above the bound"), "{}", j.reason);
        // The same pairs against a bound above the interval hold.
        assert_eq!(judge_lesson(&bad, &good, 0.95, None, NAMES).unwrap().verdict, LessonVerdict::Holds);
    }

    #[test]
    fn an_interval_that_straddles_the_bound_is_unclear_not_a_coin_flip() {
        // 20 pairs at 10 % noise: the interval spans several percent; a bound at the ratio itself
        // lies inside it, whichever side of it the median fell.
        let (bad, good) = pairs(3, 20, 0.80, 0.10);
        let j = judge_lesson(&bad, &good, 0.80, None, NAMES).unwrap();
        let [low, high] = j.interval.unwrap();
        assert!(low < 0.80 && 0.80 < high, "{low}..{high}");
        assert_eq!(j.verdict, LessonVerdict::Unclear, "{}", j.reason);
        assert!(j.reason.contains("straddles the bound"), "{}", j.reason);
        // The median alone sits on one side or the other; the verdict does not follow it.
        let m = j.ratio.unwrap();
        for bound in [m - 1e-9, m + 1e-9] {
            assert_eq!(judge_lesson(&bad, &good, bound, None, NAMES).unwrap().verdict, LessonVerdict::Unclear);
        }
        // A bound exactly at the interval's top holds (at most, inclusive); just under it does not.
        assert_eq!(judge_lesson(&bad, &good, high, None, NAMES).unwrap().verdict, LessonVerdict::Holds);
        assert_eq!(judge_lesson(&bad, &good, low, None, NAMES).unwrap().verdict, LessonVerdict::Unclear);
    }

    #[test]
    fn bad_conditions_and_zero_samples_are_invalid_and_bad_input_is_refused() {
        let (bad, good) = pairs(4, 100, 0.5, 0.01);
        let busy = Some("other processes computed on the GPU (pids [7])".to_string());
        let j = judge_lesson(&bad, &good, 0.8, busy, NAMES).unwrap();
        assert_eq!((j.verdict, j.ratio, j.interval), (LessonVerdict::Invalid, None, None));
        assert!(j.reason.starts_with("not judged: other processes"), "{}", j.reason);
        assert_eq!(j.good_median_s, Some(crate::stats::median(&good)));
        let mut zero = good.clone();
        zero[0] = 0.0;
        let j = judge_lesson(&bad, &zero, 0.8, None, NAMES).unwrap();
        assert_eq!(j.verdict, LessonVerdict::Invalid);
        assert!(j.reason.contains("1 samples read 0 s"), "{}", j.reason);
        assert!(judge_lesson(&bad, &good[..5], 0.8, None, NAMES).is_err());
        assert!(judge_lesson(&[], &[], 0.8, None, NAMES).is_err());
        assert!(judge_lesson(&[1.0, f64::NAN], &[1.0, 1.0], 0.8, None, NAMES).is_err());
    }

    #[test]
    fn the_margin_rule_is_halfway_to_one_rounded_up_to_a_hundredth() {
        assert_eq!(margin_bound(0.6582), 0.83);
        assert_eq!(margin_bound(0.5), 0.75);
        assert_eq!(margin_bound(0.501), 0.76);
        assert_eq!(margin_bound(0.0), 0.5);
    }

    #[test]
    fn verdict_words_round_trip_and_map_onto_fail_on() {
        for v in [LessonVerdict::Holds, LessonVerdict::Broken, LessonVerdict::Unclear, LessonVerdict::Invalid] {
            assert_eq!(LessonVerdict::parse(v.as_str()), Some(v));
        }
        assert_eq!(LessonVerdict::parse("regressed"), None);
        let words: Vec<Option<&str>> =
            [LessonVerdict::Holds, LessonVerdict::Broken, LessonVerdict::Unclear, LessonVerdict::Invalid]
                .iter()
                .map(LessonVerdict::fail_on_word)
                .collect();
        assert_eq!(words, [None, Some("regressed"), Some("ambiguous"), Some("invalid")]);
    }
}
