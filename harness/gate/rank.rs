//! Rank statistics of the gate: the Mann-Whitney U test and multiple-testing adjustments. Pure
//! functions on slices; no files, no CUDA.

use statrs::distribution::{ContinuousCDF, Normal};
use statrs::function::gamma::ln_gamma;

/// The Mann-Whitney U statistic of `a` against `b`, with what its null variance needs.
#[derive(Debug, Clone, Copy, PartialEq)]
struct UStatistic {
    /// `U_a = R_a - n (n + 1) / 2`, `R_a` the sum of `a`'s midranks in the pooled sample: the
    /// number of pairs (x in a, y in b) with x > y, ties counting 1/2.
    u: f64,
    /// `Σ (t³ - t)` over the groups of tied values (t = group size).
    ties: f64,
    /// Whether every pooled value is equal (a single tie group).
    all_tied: bool,
}

/// U statistic of non-empty, NaN-free `a` and `b`: pool, sort, give each tie group its midrank.
fn u_statistic(a: &[f64], b: &[f64]) -> UStatistic {
    let mut pooled: Vec<(f64, bool)> = a.iter().map(|&x| (x, true)).chain(b.iter().map(|&y| (y, false))).collect();
    pooled.sort_unstable_by(|p, q| p.0.total_cmp(&q.0));
    let (mut rank_sum_a, mut ties, mut groups) = (0.0f64, 0.0f64, 0usize);
    let mut start = 0;
    while start < pooled.len() {
        let mut end = start + 1;
        while end < pooled.len() && pooled[end].0 == pooled[start].0 {
            end += 1;
        }
        // 1-based ranks start + 1 ..= end share their mean.
        let midrank = (start + 1 + end) as f64 / 2.0;
        let in_a = pooled[start..end].iter().filter(|p| p.1).count();
        rank_sum_a += midrank * in_a as f64;
        let t = (end - start) as f64;
        ties += t * t * t - t;
        groups += 1;
        start = end;
    }
    let n = a.len() as f64;
    UStatistic { u: rank_sum_a - n * (n + 1.0) / 2.0, ties, all_tied: groups == 1 }
}

/// One-sided Mann-Whitney p-value; `greater` selects H1 "a tends to be larger than b".
fn mann_whitney(a: &[f64], b: &[f64], greater: bool) -> f64 {
    if a.iter().chain(b).any(|x| x.is_nan()) {
        return f64::NAN;
    }
    if a.is_empty() || b.is_empty() {
        return 1.0;
    }
    let s = u_statistic(a, b);
    if s.all_tied {
        return 1.0;
    }
    let (n, m) = (a.len() as f64, b.len() as f64);
    let total = n + m;
    let mean = n * m / 2.0;
    // Positive whenever there are two distinct values; max() only guards rounding.
    let variance = (n * m / 12.0 * ((total + 1.0) - s.ties / (total * (total - 1.0)))).max(f64::MIN_POSITIVE);
    let sd = variance.sqrt();
    let z = Normal::standard();
    let p = if greater { z.sf((s.u - mean - 0.5) / sd) } else { z.cdf((s.u - mean + 0.5) / sd) };
    // The exact null distribution gives each of the C(n+m, n) arrangements probability
    // 1 / C(n+m, n) (Mann & Whitney 1947), so no tail probability is smaller than that.
    let smallest = (-(ln_gamma(total + 1.0) - ln_gamma(n + 1.0) - ln_gamma(m + 1.0))).exp();
    p.clamp(smallest.min(1.0), 1.0)
}

/// One-sided Mann-Whitney U test (Mann & Whitney 1947, "On a test of whether one of two random
/// variables is stochastically larger than the other", Ann. Math. Statist. 18(1)): the p-value
/// for H1 "values in `a` tend to be LARGER than values in `b`" (H0: same distribution).
///
/// `a` and `b` are samples of any unit, of sizes n and m. Method (Lehmann 1975, "Nonparametrics:
/// Statistical Methods Based on Ranks", ch. 1: the Wilcoxon rank-sum / Mann-Whitney statistic,
/// its normal approximation, and ties):
/// - `U = R_a - n(n+1)/2`, `R_a` the sum of `a`'s ranks in the pooled sample, tied values getting
///   their midrank;
/// - under H0 `E[U] = nm/2` and, with tie groups of sizes t,
///   `Var[U] = nm/12 · ((N+1) - Σ(t³-t) / (N(N-1)))`, N = n + m;
/// - `p = 1 - Φ((U - nm/2 - 1/2) / sd)`, the 1/2 being the continuity correction.
///
/// This is what SciPy's `mannwhitneyu(a, b, alternative="greater", method="asymptotic",
/// use_continuity=True)` computes. Two additions: the p-value is never below `1 / C(N, n)`, the
/// smallest probability any outcome has under the exact null distribution (without ties), and is
/// 1 when all N values are equal (no ordering information at all).
///
/// Limits of the approximation: it is good for n, m >= 8 or so (Lehmann); below that the p-value
/// is approximate only, in either direction: n = m = 5 fully separated gives 0.0061 against the
/// exact 1/252 = 0.0040; n = m = 3 fully separated gives 0.040, raised by the floor to the exact
/// 1/20 = 0.05. One sample each gives at best 0.5. Samples are assumed independent; timing samples
/// are autocorrelated, which makes p-values too small, one reason [`super::timing::compare`] also needs a minimum
/// effect. Returns 1 if either slice is empty, NaN if either holds a NaN. O(N log N).
pub fn mann_whitney_greater(a: &[f64], b: &[f64]) -> f64 {
    mann_whitney(a, b, true)
}

/// One-sided Mann-Whitney U test for H1 "values in `a` tend to be SMALLER than values in `b`":
/// `p = Φ((U - nm/2 + 1/2) / sd)`, the mirror of [`mann_whitney_greater`] (same method, sources
/// and limits); `mann_whitney_less(a, b) == mann_whitney_greater(b, a)`.
pub fn mann_whitney_less(a: &[f64], b: &[f64]) -> f64 {
    mann_whitney(a, b, false)
}

/// p-values made usable: NaN becomes 1 (no evidence), the rest clamped into [0, 1].
fn sanitized(p: &[f64]) -> Vec<f64> {
    p.iter().map(|&x| if x.is_nan() { 1.0 } else { x.clamp(0.0, 1.0) }).collect()
}

/// Indices of `p` in ascending order of value (stable, so equal p-values keep input order).
fn ascending(p: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]));
    order
}

/// Holm's step-down adjusted p-values (Holm 1979, "A simple sequentially rejective multiple test
/// procedure", Scand. J. Statist. 6(2)), in the order of `p`.
///
/// With the k p-values sorted ascending, `p(1) <= ... <= p(k)`, the adjusted value of the i-th is
/// `max over j <= i of min(1, (k - j + 1) p(j))`: rejecting where it is `<= alpha` controls the
/// family-wise error rate at alpha under any dependence. Each output is capped at 1 and, in sorted
/// order, non-decreasing. NaN inputs count as 1; an empty input gives an empty output.
/// Example: `[0.01, 0.04, 0.03, 0.005]` -> `[0.03, 0.06, 0.06, 0.02]`.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let p = sanitized(p);
    let k = p.len();
    let mut adjusted = vec![0.0; k];
    let mut running = 0.0f64;
    for (j, &i) in ascending(&p).iter().enumerate() {
        running = running.max(((k - j) as f64 * p[i]).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

/// Benjamini-Hochberg adjusted p-values, or q-values (Benjamini & Hochberg 1995, "Controlling the
/// false discovery rate: a practical and powerful approach to multiple testing", JRSS B 57(1)), in
/// the order of `p`.
///
/// With the k p-values sorted ascending, the adjusted value of the i-th is
/// `min over j >= i of min(1, k p(j) / j)`: rejecting where it is `<= q` controls the false
/// discovery rate at q for independent (or positively dependent) tests. Capped at 1, and
/// non-decreasing in sorted order. NaN inputs count as 1; an empty input gives an empty output.
/// Example: `[0.01, 0.04, 0.03, 0.005]` -> `[0.02, 0.04, 0.04, 0.02]`.
pub fn benjamini_hochberg(p: &[f64]) -> Vec<f64> {
    let p = sanitized(p);
    let k = p.len();
    let mut adjusted = vec![0.0; k];
    let mut running = 1.0f64;
    for (j, &i) in ascending(&p).iter().enumerate().rev() {
        running = running.min((k as f64 * p[i] / (j + 1) as f64).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

/// One-sided Wilcoxon signed-rank test (Wilcoxon 1945, "Individual comparisons by ranking
/// methods", Biometrics Bulletin 1(6)) of paired differences `d` (any unit; kernelgate passes log
/// ratios): the p-value for H1 "the differences tend to be positive" when `greater`, else
/// "negative" (H0: symmetric about 0).
///
/// Method (Hollander, Wolfe & Chicken 2014, "Nonparametric Statistical Methods", 3rd ed., §3.1):
/// zero differences are dropped (Wilcoxon's own treatment); the n remaining `|d|` are ranked,
/// ties getting their midrank; `W+` is the sum of the ranks of positive differences; under H0
/// `E[W+] = n(n+1)/4` and `Var[W+] = n(n+1)(2n+1)/24 - Σ(t³-t)/48` over tie groups of size t;
/// `p = 1 - Φ((W+ - E - 1/2) / sd)` for `greater`, `Φ((W+ - E + 1/2) / sd)` otherwise, with the
/// continuity correction. As SciPy's `wilcoxon(d, zero_method="wilcox", correction=True,
/// method="approx")`. The p-value is never below `2^-n`, the smallest probability of any outcome
/// under the exact null distribution; 1 when no difference is non-zero; NaN when one is NaN.
/// O(n log n).
pub fn wilcoxon_signed_rank(d: &[f64], greater: bool) -> f64 {
    if d.iter().any(|x| x.is_nan()) {
        return f64::NAN;
    }
    let mut nonzero: Vec<f64> = d.iter().copied().filter(|&x| x != 0.0).collect();
    if nonzero.is_empty() {
        return 1.0;
    }
    nonzero.sort_unstable_by(|a, b| a.abs().total_cmp(&b.abs()));
    let (mut w_plus, mut ties) = (0.0f64, 0.0f64);
    let mut start = 0;
    while start < nonzero.len() {
        let mut end = start + 1;
        while end < nonzero.len() && nonzero[end].abs() == nonzero[start].abs() {
            end += 1;
        }
        let midrank = (start + 1 + end) as f64 / 2.0;
        w_plus += midrank * nonzero[start..end].iter().filter(|&&x| x > 0.0).count() as f64;
        let t = (end - start) as f64;
        ties += t * t * t - t;
        start = end;
    }
    let n = nonzero.len() as f64;
    let mean = n * (n + 1.0) / 4.0;
    let variance = (n * (n + 1.0) * (2.0 * n + 1.0) / 24.0 - ties / 48.0).max(f64::MIN_POSITIVE);
    let sd = variance.sqrt();
    let z = Normal::standard();
    let p = if greater { z.sf((w_plus - mean - 0.5) / sd) } else { z.cdf((w_plus - mean + 0.5) / sd) };
    p.clamp((-n * std::f64::consts::LN_2).exp().min(1.0), 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::testdata::close;

    #[test]
    fn wilcoxon_signed_rank_known_answers() {
        // d = 1..5, all positive: W+ = 15, E = 7.5, Var = 5*6*11/24 = 13.75, sd = 3.70810;
        // greater: z = (15 - 7.5 - 0.5) / 3.70810 = 1.88776, p = 0.029530, raised to the exact
        // 1/32 = 0.03125. less: z = (15 - 7.5 + 0.5) / 3.70810 = 2.15744, p = 0.984514.
        let d = [1.0, 2.0, 3.0, 4.0, 5.0];
        close(wilcoxon_signed_rank(&d, true), 0.03125, 1e-12);
        close(wilcoxon_signed_rank(&d, false), 0.984_514, 1e-6);
        // 20 differences, ties and a zero: d = [-3, -2, -1, 0, 1, 1, 2, 2, 3, 3, 3, 4, 4, 5, 5, 5, 6, 6, 7, 8].
        // Dropping the zero, n = 19. |d| ranks: 1 x3 -> 2, 2 x3 -> 5, 3 x4 -> 8.5, 4 x2 -> 11.5,
        // 5 x3 -> 14, 6 x2 -> 16.5, 7 -> 18, 8 -> 19. W- = 8.5 + 5 + 2 = 15.5, W+ = 190 - 15.5 =
        // 174.5. E = 95, ties: 3x(27-3) + (64-4) + 2x(8-2) = 72 + 60 + 12 = 144; Var = 19*20*39/24 -
        // 144/48 = 617.5 - 3 = 614.5, sd = 24.7891; z = (174.5 - 95 - 0.5) / 24.7891 = 3.18688;
        // p = 1 - Φ(3.18688) = 0.000719.
        let d = [-3.0, -2.0, -1.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 4.0, 4.0, 5.0, 5.0, 5.0, 6.0, 6.0, 7.0, 8.0];
        close(wilcoxon_signed_rank(&d, true), 0.000_719, 2e-6);
        assert_eq!(wilcoxon_signed_rank(&[0.0; 4], true), 1.0, "no non-zero difference");
        assert!(wilcoxon_signed_rank(&[1.0, f64::NAN], true).is_nan());
    }

    #[test]
    fn mann_whitney_separated_samples_known_answer() {
        // a = [1..5], b = [6..10]: a's ranks are 1..5, R_a = 15, U = 15 - 5*6/2 = 0.
        // E[U] = 12.5, Var[U] = 25/12 * 11 = 22.917, sd = 4.7871.
        // less:    z = (0 - 12.5 + 0.5) / 4.7871 = -2.5067, p = Φ(-2.5067) = 0.0060929
        //          (exact: 1 / C(10, 5) = 1/252 = 0.0039683).
        // greater: z = (0 - 12.5 - 0.5) / 4.7871 = -2.7156, p = 1 - Φ(-2.7156) = 0.9966923.
        let a = [1.0, 2.0, 3.0, 4.0, 5.0];
        let b = [6.0, 7.0, 8.0, 9.0, 10.0];
        assert_eq!(u_statistic(&a, &b).u, 0.0);
        assert_eq!(u_statistic(&b, &a).u, 25.0);
        close(mann_whitney_less(&a, &b), 0.006_092_890, 1e-8);
        close(mann_whitney_greater(&a, &b), 0.996_692_325, 1e-8);
        assert_eq!(mann_whitney_greater(&b, &a), mann_whitney_less(&a, &b), "mirror");
        assert_eq!(mann_whitney_less(&b, &a), mann_whitney_greater(&a, &b), "mirror");
    }

    #[test]
    fn mann_whitney_ties_known_answer() {
        // Pooled, sorted: 1a 2a 2a 2b 3a 3b 3b 4b. Midranks: 1 -> 1, 2 -> 3, 3 -> 6, 4 -> 8.
        // R_a = 1 + 3 + 3 + 6 = 13, U = 13 - 10 = 3, E[U] = 8.
        // Ties: two groups of 3, Σ(t³ - t) = 48; Var = 16/12 * (9 - 48/56) = 10.857, sd = 3.2950.
        // less: z = (3 - 8 + 0.5) / 3.2950 = -1.3657, p = 0.086017.
        // greater: z = (3 - 8 - 0.5) / 3.2950 = -1.6692, p = 0.952460.
        let a = [1.0, 2.0, 2.0, 3.0];
        let b = [2.0, 3.0, 3.0, 4.0];
        let s = u_statistic(&a, &b);
        assert_eq!((s.u, s.ties, s.all_tied), (3.0, 48.0, false));
        close(mann_whitney_less(&a, &b), 0.086_016_854, 1e-8);
        close(mann_whitney_greater(&a, &b), 0.952_459_807, 1e-8);
    }

    #[test]
    fn mann_whitney_degenerate_inputs_are_sane() {
        // All values equal: no ordering information, p = 1 either way, never NaN.
        assert_eq!(mann_whitney_greater(&[2.0; 7], &[2.0; 5]), 1.0);
        assert_eq!(mann_whitney_less(&[2.0; 7], &[2.0; 5]), 1.0);
        // One sample each: U = 1, E = 0.5, sd = 0.5; greater z = 0, p = 0.5 (exact: 0.5).
        close(mann_whitney_greater(&[2.0], &[1.0]), 0.5, 1e-12);
        close(mann_whitney_less(&[2.0], &[1.0]), 0.977_249_868, 1e-8); // Φ(2)
        // n = m = 3 fully separated: normal approximation 0.0404, floor 1 / C(6, 3) = 0.05 (exact).
        close(mann_whitney_greater(&[4.0, 5.0, 6.0], &[1.0, 2.0, 3.0]), 0.05, 1e-12);
        assert_eq!(mann_whitney_greater(&[], &[1.0]), 1.0);
        assert!(mann_whitney_less(&[1.0, f64::NAN], &[1.0]).is_nan());
    }

    #[test]
    fn holm_and_bh_textbook_examples() {
        let p = [0.01, 0.04, 0.03, 0.005];
        // Sorted 0.005, 0.01, 0.03, 0.04; Holm: 4*0.005 = 0.02, 3*0.01 = 0.03, 2*0.03 = 0.06,
        // 1*0.04 = 0.04 -> running max 0.06.
        let h = holm(&p);
        for (got, want) in h.iter().zip([0.03, 0.06, 0.06, 0.02]) {
            close(*got, want, 1e-15);
        }
        // BH: 4/1*0.005 = 0.02, 4/2*0.01 = 0.02, 4/3*0.03 = 0.04, 4/4*0.04 = 0.04 (running min from top).
        let q = benjamini_hochberg(&p);
        for (got, want) in q.iter().zip([0.02, 0.04, 0.04, 0.02]) {
            close(*got, want, 1e-15);
        }
        // Benjamini & Hochberg (1995)'s worked example, 15 p-values: at 0.05, BH rejects the 4
        // smallest (0.0095 <= 4/15*0.05 = 0.0133), Holm the 3 smallest (12 * 0.0095 = 0.114 > 0.05).
        let bh95 = [
            0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.3240, 0.4262, 0.5719, 0.6528,
            0.7590, 1.000,
        ];
        assert_eq!(benjamini_hochberg(&bh95).iter().filter(|&&q| q <= 0.05).count(), 4);
        assert_eq!(holm(&bh95).iter().filter(|&&q| q <= 0.05).count(), 3);
        // Capped at 1, monotone in sorted order, NaN as 1, empty stays empty.
        assert_eq!(holm(&[0.5, 0.6]), vec![1.0, 1.0]);
        assert_eq!(benjamini_hochberg(&[0.5, 0.6]), vec![0.6, 0.6]);
        assert_eq!(holm(&[f64::NAN, 0.01]), vec![1.0, 0.02]);
        assert!(holm(&[]).is_empty() && benjamini_hochberg(&[]).is_empty());
        for adjusted in [holm(&bh95), benjamini_hochberg(&bh95)] {
            assert!(adjusted.windows(2).all(|w| w[0] <= w[1]), "{adjusted:?}");
            assert!(adjusted.iter().zip(&bh95).all(|(a, p)| a >= p && *a <= 1.0));
        }
    }
}
