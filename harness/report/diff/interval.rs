//! The 95 % confidence interval of a trial's change between the two sides of a diff (pure), from
//! what the history holds of each side: per run, the trial's median time and, where the run
//! recorded it, the 95 % confidence interval of that median (the run CSV's `median_ci_low_s` /
//! `median_ci_high_s`, [`crate::gate::median_ci_half_width`]). The history keeps no samples, so
//! nothing here resamples.
//!
//! The interval is of the ratio of the sides' times on the log scale, `ln(new / old)`, turned
//! back into a relative change (`exp(x) - 1`), so that it is not symmetric around the change and
//! never reaches -100 %. Each side contributes an estimate of its log time, a variance and the
//! degrees of freedom of that variance ([`side_estimate`]):
//!
//! - a side of two or more runs: the mean of its runs' log medians, with variance `s² / n` (`s²`
//!   the sample variance of the log medians over its `n` runs) on `n - 1` degrees of freedom. This
//!   between-run spread includes each run's own sampling noise and what moves from run to run (a
//!   GPU's clocks, another physical GPU), which one run's interval cannot see;
//! - a side of one run with its median's interval `[low, high]`: its log median, with variance
//!   `(ln(high / low) / 2 / 1.96)²` (the standard error recovered from a 95 % normal interval on
//!   the log scale: Altman & Bland, "How to obtain the P value from a confidence interval", BMJ
//!   2011;343:d2304; and their "Interaction revisited: the difference between two estimates", BMJ
//!   2003;326:219, which adds the two squared standard errors of independent estimates), on
//!   infinitely many degrees of freedom (the run's interval is a normal approximation, Serfling's);
//! - a side of several runs whose log medians are all equal (a timer's tick): no spread to see, so
//!   the mean of its runs' squared standard errors, as for one run, over `n`;
//! - otherwise (one run without an interval, or of one sample) no estimate, and no interval.
//!
//! The change's variance is the sum of the sides'; its degrees of freedom Welch–Satterthwaite's,
//! `v² / Σ(v_i² / df_i)` over the sides of finite df (B. L. Welch, "The generalization of
//! 'Student's' problem when several different population variances are involved", Biometrika
//! 34 (1947) 28–35; F. E. Satterthwaite, "An approximate distribution of estimates of variance
//! components", Biometrics Bulletin 2 (1946) 110–114; NIST/SEMATECH e-Handbook of Statistical
//! Methods, 1.3.5.3, <https://www.itl.nist.gov/div898/handbook/eda/section3/eda353.htm>). The
//! interval is `d ± t(0.975, df) · √v`, Student's t quantile, or the normal 1.96 when every side's df
//! is infinite.
//!
//! Its centre, `d`, is the difference of the sides' mean log medians: a side's geometric mean over
//! its runs, which for one or two runs is (nearly) the median of its runs' medians that the diff's
//! own change is computed from, and for more runs may differ from it by an outlying run.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// `z` of a two-sided 95 % normal interval (the 0.975 quantile of the standard normal).
const Z_95: f64 = 1.959_963_984_540_054;

/// One run's time of a trial: its median and, where the run recorded it, that median's 95 %
/// confidence interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunTime {
    /// The run's median time, seconds.
    pub median_s: f64,
    /// The 95 % confidence interval of `median_s`, `[low, high]` seconds; `None` when the run
    /// recorded none.
    pub ci_s: Option<[f64; 2]>,
}

/// How an interval was computed ([`change_interval`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Method {
    /// Student's t with Welch–Satterthwaite's degrees of freedom: at least one side has several
    /// runs whose medians differ.
    Welch {
        /// The degrees of freedom (not an integer in general).
        df: f64,
    },
    /// The normal 1.96: each side is one run (or runs of equal medians) with its median's interval.
    Normal,
}

impl Method {
    /// The method's name as the JSON and the docs spell it: `welch-t` or `normal`.
    pub fn name(self) -> &'static str {
        match self {
            Method::Welch { .. } => "welch-t",
            Method::Normal => "normal",
        }
    }
}

/// The 95 % confidence interval of a change `new / old - 1`, as relative changes (0.02 = +2 %).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// Lower end, a relative change (above -1).
    pub low: f64,
    /// Upper end, a relative change.
    pub high: f64,
    /// How it was computed.
    pub method: Method,
}

impl Interval {
    /// Whether the interval holds 0 (no change): the change is within the sides' noise.
    pub fn straddles_zero(&self) -> bool {
        self.low <= 0.0 && self.high >= 0.0
    }
}

/// What one side contributes: its mean log time, the variance of that mean, and the variance's
/// degrees of freedom (infinite for a normal approximation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Mean of the runs' `ln(median_s)`.
    pub log_mean: f64,
    /// Variance of `log_mean`.
    pub variance: f64,
    /// Degrees of freedom of `variance`; `f64::INFINITY` for a normal approximation.
    pub df: f64,
}

/// One side's [`Estimate`] from its runs' times (the rules in the module's doc); `None` when it has
/// none: no run, a median that is not finite and positive, or one run without a usable interval
/// (none, not around a positive median, or of zero width: one sample).
pub fn side_estimate(runs: &[RunTime]) -> Option<Estimate> {
    if runs.is_empty() || runs.iter().any(|r| !(r.median_s.is_finite() && r.median_s > 0.0)) {
        return None;
    }
    let n = runs.len() as f64;
    let logs: Vec<f64> = runs.iter().map(|r| r.median_s.ln()).collect();
    let log_mean = logs.iter().sum::<f64>() / n;
    if runs.len() >= 2 {
        let s2 = logs.iter().map(|l| (l - log_mean).powi(2)).sum::<f64>() / (n - 1.0);
        if s2 > 0.0 {
            return Some(Estimate { log_mean, variance: s2 / n, df: n - 1.0 });
        }
    }
    // One run, or runs of one median: the runs' own intervals, each a normal 95 % interval.
    let mut sum = 0.0;
    for r in runs {
        let [low, high] = r.ci_s?;
        if !(low > 0.0 && high > low && high.is_finite()) {
            return None;
        }
        sum += ((high / low).ln() / 2.0 / Z_95).powi(2);
    }
    Some(Estimate { log_mean, variance: sum / n / n, df: f64::INFINITY })
}

/// The 95 % confidence interval of the change from `old`'s runs to `new`'s (the module's doc);
/// `None` when a side has no [`side_estimate`] or the combined variance is 0.
pub fn change_interval(old: &[RunTime], new: &[RunTime]) -> Option<Interval> {
    let (a, b) = (side_estimate(old)?, side_estimate(new)?);
    let variance = a.variance + b.variance;
    if !(variance > 0.0 && variance.is_finite()) {
        return None;
    }
    let finite: f64 = [a, b].iter().filter(|e| e.df.is_finite()).map(|e| e.variance.powi(2) / e.df).sum();
    let (quantile, method) = if finite > 0.0 {
        let df = variance.powi(2) / finite;
        let t = StudentsT::new(0.0, 1.0, df).expect("df > 0").inverse_cdf(0.975);
        (t, Method::Welch { df })
    } else {
        (Z_95, Method::Normal)
    };
    let d = b.log_mean - a.log_mean;
    let half = quantile * variance.sqrt();
    Some(Interval { low: (d - half).exp_m1(), high: (d + half).exp_m1(), method })
}

impl super::TrialDiff {
    /// The 95 % confidence interval of the time change ([`change_interval`] of the two sides'
    /// runs); `None` for a trial of one side, or when a side lacks what it needs.
    pub fn interval(&self) -> Option<Interval> {
        match self.presence {
            super::Presence::Both => change_interval(&self.old_runs, &self.new_runs),
            _ => None,
        }
    }
}

/// An interval as the reports print it: `[+1.8, +2.4]` (percent, one decimal, signed; two
/// decimals where one would print both ends alike or an end as zero; an end that still rounds to
/// zero prints `0.00`, unsigned).
pub fn text(interval: &Interval) -> String {
    let (low, high) = (100.0 * interval.low, 100.0 * interval.high);
    let one = |v: f64| format!("{v:+.1}");
    let zero = |t: &str| t.trim_start_matches(['+', '-']).chars().all(|c| c == '0' || c == '.');
    let decimals = if one(low) == one(high) || zero(&one(low)) || zero(&one(high)) { 2 } else { 1 };
    let end = |v: f64| {
        let t = format!("{v:+.decimals$}");
        if zero(&t) { t.trim_start_matches(['+', '-']).to_string() } else { t }
    };
    format!("[{}, {}]", end(low), end(high))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b}");
    }

    /// A run of median `m` and interval `m (1 ± h)` (made-up numbers).
    fn run(m: f64, h: f64) -> RunTime {
        RunTime { median_s: m, ci_s: Some([m * (1.0 - h), m * (1.0 + h)]) }
    }

    #[test]
    fn one_run_a_side_combines_the_two_medians_intervals_on_the_log_scale() {
        let (old, new) = ([run(100e-6, 0.01)], [run(110e-6, 0.01)]);
        let i = change_interval(&old, &new).unwrap();
        assert_eq!(i.method, Method::Normal);
        // Each side: se = ln(1.01/0.99) / 2 / 1.96; the change's: √2 times that, times 1.96.
        let half = 2f64.sqrt() * (1.01f64 / 0.99).ln() / 2.0;
        close(i.low, (1.1f64.ln() - half).exp_m1(), 1e-12);
        close(i.high, (1.1f64.ln() + half).exp_m1(), 1e-12);
        assert!(i.low > 0.08 && i.high < 0.12 && !i.straddles_zero());
        // The interval is about ln(new/old): symmetric there, not around +10 %.
        close((1.0 + i.low).ln() + (1.0 + i.high).ln(), 2.0 * 1.1f64.ln(), 1e-12);
    }

    #[test]
    fn a_wider_run_interval_widens_the_change_and_can_straddle_zero() {
        let narrow = change_interval(&[run(100e-6, 0.002)], &[run(101e-6, 0.002)]).unwrap();
        let wide = change_interval(&[run(100e-6, 0.02)], &[run(101e-6, 0.02)]).unwrap();
        assert!(!narrow.straddles_zero(), "{narrow:?}");
        assert!(wide.straddles_zero(), "{wide:?}");
        assert!(wide.high - wide.low > 5.0 * (narrow.high - narrow.low));
    }

    #[test]
    fn several_runs_use_the_spread_of_their_medians_with_welch_df() {
        let old = [run(100e-6, 0.001), run(102e-6, 0.001), run(98e-6, 0.001)];
        let new = [run(120e-6, 0.001), run(121e-6, 0.001), run(119e-6, 0.001)];
        let i = change_interval(&old, &new).unwrap();
        let var = |xs: &[f64]| {
            let m = xs.iter().sum::<f64>() / xs.len() as f64;
            xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (xs.len() as f64 - 1.0) / xs.len() as f64
        };
        let lo: Vec<f64> = old.iter().map(|r| r.median_s.ln()).collect();
        let ln: Vec<f64> = new.iter().map(|r| r.median_s.ln()).collect();
        let (va, vb) = (var(&lo), var(&ln));
        let df = (va + vb).powi(2) / (va * va / 2.0 + vb * vb / 2.0);
        let Method::Welch { df: got } = i.method else { panic!("{i:?}") };
        close(got, df, 1e-9);
        assert!(got > 2.0 && got < 4.0, "between n-1 = 2 and 2(n-1) = 4: {got}");
        // The runs' own narrow intervals do not narrow it: the medians' spread decides.
        let t = StudentsT::new(0.0, 1.0, df).unwrap().inverse_cdf(0.975);
        let d = ln.iter().sum::<f64>() / 3.0 - lo.iter().sum::<f64>() / 3.0;
        close(i.low, (d - t * (va + vb).sqrt()).exp_m1(), 1e-12);
        close(i.high, (d + t * (va + vb).sqrt()).exp_m1(), 1e-12);
        assert!(i.high - i.low > 0.03, "{i:?}");
    }

    #[test]
    fn one_run_against_several_gets_the_single_sides_df_dropped() {
        let old = [run(100e-6, 0.01)];
        let new = [run(120e-6, 0.0), run(122e-6, 0.0)];
        let i = change_interval(&old, &new).unwrap();
        let b = side_estimate(&new).unwrap();
        let a = side_estimate(&old).unwrap();
        assert_eq!((a.df, b.df), (f64::INFINITY, 1.0));
        let Method::Welch { df } = i.method else { panic!("{i:?}") };
        close(df, (a.variance + b.variance).powi(2) / b.variance.powi(2), 1e-9);
        assert!(df > 1.0);
    }

    #[test]
    fn runs_of_one_median_fall_back_to_their_own_intervals() {
        let tied = [run(100e-6, 0.01), run(100e-6, 0.01)];
        let e = side_estimate(&tied).unwrap();
        assert_eq!(e.df, f64::INFINITY);
        let one = side_estimate(&tied[..1]).unwrap();
        close(e.variance, one.variance / 2.0, 1e-18);
    }

    #[test]
    fn no_interval_without_what_it_needs() {
        let bare = RunTime { median_s: 100e-6, ci_s: None };
        assert_eq!(change_interval(&[bare], &[run(100e-6, 0.01)]), None, "one run without its interval");
        assert_eq!(change_interval(&[], &[run(100e-6, 0.01)]), None, "an empty side");
        assert_eq!(change_interval(&[run(100e-6, 0.0)], &[run(101e-6, 0.0)]), None, "one sample each: width 0");
        let nan = RunTime { median_s: f64::NAN, ci_s: None };
        assert_eq!(change_interval(&[nan, nan], &[run(100e-6, 0.01)]), None, "a median that is not finite");
        // Two runs without intervals still have a spread.
        let two = [RunTime { median_s: 100e-6, ci_s: None }, RunTime { median_s: 101e-6, ci_s: None }];
        assert!(change_interval(&two, &two).is_some_and(|i| i.straddles_zero()));
    }

    #[test]
    fn the_text_is_signed_percent() {
        let i = Interval { low: 0.018, high: 0.024, method: Method::Normal };
        assert_eq!(text(&i), "[+1.8, +2.4]");
        assert_eq!(text(&Interval { low: -0.0031, high: 0.0012, ..i }), "[-0.3, +0.1]");
        assert_eq!(text(&Interval { low: 0.00101, high: 0.00139, ..i }), "[+0.10, +0.14]");
        assert_eq!(text(&Interval { low: -0.0002, high: 0.0011, ..i }), "[-0.02, +0.11]", "no -0.0");
        assert_eq!(text(&Interval { low: -0.00001, high: 0.0011, ..i }), "[0.00, +0.11]");
        assert_eq!(Method::Welch { df: 3.0 }.name(), "welch-t");
    }
}
