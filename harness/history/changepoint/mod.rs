//! Change points in one history series: the commits after which a kernel's time (or a counter)
//! settles at a new level. Pure: a slice of numbers in commit order in, change points out.
//!
//! The method is Hunter's (Fleming et al., "Hunter: Using Change Point Detection to Hunt for
//! Performance Regressions", ICPE 2023, arXiv:2301.03034; the code is now Apache Otava,
//! `otava/analysis.py`), which is E-divisive means (Matteson & James, "A Nonparametric Approach for
//! Multiple Change Point Analysis of Multivariate Data", JASA 2014, arXiv:1306.4933) with the
//! permutation test replaced by Student's t-test, which makes it deterministic and fast:
//!
//! 1. **Split.** The series is cut into overlapping windows of [`Options::window`] values (each
//!    window starts half a window after the previous one, or at the last change point found,
//!    whichever is later). In each window E-divisive splits recursively: the pair `(τ, κ)` that
//!    maximizes the divergence `Q̂(x[a..τ], x[τ..κ]; α = 1)` of Matteson & James (their eq. 4-5)
//!    over the interval `a..b` being split is tested with a two-sided Student's t-test, and `τ` is
//!    kept while the test passes a relaxed level (Hunter's "weak" change points, see
//!    [`Options::max_p_value`]).
//! 2. **Merge.** All weak change points of all windows are re-tested against the whole segments
//!    between their neighbours; the weakest (largest p-value; once all pass, the smallest
//!    magnitude) is removed and its neighbours re-tested, until every change point left has a
//!    p-value below [`Options::max_p_value`] and a magnitude above [`Options::min_magnitude`].
//!
//! Where this differs from Hunter (Otava at commit 1ceb153, April 2026), and why:
//! - The split step tests `x[a..τ]` against `x[τ..κ]`, the segments E-divisive chose, where Otava
//!   tests against `x[τ..b]`: a regression that a later commit undoes within a few runs is
//!   otherwise diluted by the runs after it and often never proposed.
//! - The merge step's p-value is Bonferroni-corrected for the choice of the split (multiplied by
//!   the number of places it could have been, see [`ChangePoint::p_value`]). Otava's plain t-test
//!   p-value at its default level reports change points in most long series of pure noise, since
//!   the split is put where the two sides differ most.
//! - Segments shorter than [`Options::min_segment`] are never proposed (Hunter allows one value,
//!   so that a single outlier run becomes two change points).
//! - The t-test uses the sample variance (n - 1) where Hunter passes NumPy's population standard
//!   deviation to SciPy's `ttest_ind_from_stats`; a step between two segments of equal values (a
//!   deterministic counter) has p-value 0, not SciPy's NaN.
//!
//! Cost: a window's pair-distance sums and its split search are each O(window²), with about two
//! windows per `window / 2` values, so the split is O(n · window); the merge is O(k²) for k weak
//! change points (k ≤ n / min_segment, about one per half window in noise).

use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::error::{Error, Result};

/// Name of the method, to be stored next to change points so that a later reader knows how they
/// were found.
pub const METHOD: &str = "E-divisive means with Student's t-test, windowed (Hunter, arXiv:2301.03034)";

/// What counts as a change point. The defaults are Apache Otava's (`AnalysisOptions` in
/// `otava/series.py` and `--window` in `otava/main.py`: window 50, p-value 0.001, magnitude 0),
/// except [`Options::min_segment`], which Otava does not have.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Options {
    /// Largest [`ChangePoint::p_value`] reported. In (0, 1]; default 0.001 (Otava's `max_pvalue`,
    /// though Otava compares it with an uncorrected p-value). The split step uses a relaxed level
    /// on the plain t-test, Otava's rule: ten times this below 0.05, twice this below 0.5, else this.
    pub max_p_value: f64,
    /// Smallest relative change reported, a fraction (0.01 = 1 %): a change point whose
    /// [`ChangePoint::magnitude`] is not above this is merged away, however significant. At least
    /// 0; default 0 (Otava's `min_magnitude`; Hunter's first release used 0.05). A performance gate
    /// sets its effect floor here.
    pub min_magnitude: f64,
    /// Values per window of the split step. At least `2 * min_segment`; default 50 (Otava's
    /// `--window`). Larger windows resist noise better but may merge a short-lived regression into
    /// its surroundings; Otava's advice is a window holding at most about one change.
    pub window: usize,
    /// Fewest values in a segment between two change points (and before the first, after the
    /// last). At least 1; default 3, kernelgate's own choice: with 1, a single outlier run is a
    /// regime of its own (Hunter's behaviour); with 3, a new level is reported once three runs
    /// show it, which delays detecting a change at the newest commit by two runs.
    pub min_segment: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options { max_p_value: 0.001, min_magnitude: 0.0, window: 50, min_segment: 3 }
    }
}

/// A field of [`Options`] out of its documented range ([`Options::validate`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct OutOfRange {
    /// The field's name (`max_p_value`, `min_magnitude`, `min_segment`, `window`).
    pub field: &'static str,
    /// A sentence naming the field, its value and the valid range.
    pub message: String,
}

impl Options {
    /// Checks the ranges documented on each field.
    ///
    /// # Errors
    /// [`OutOfRange`] naming the first field out of its range, its value and the valid range.
    pub fn validate(&self) -> std::result::Result<(), OutOfRange> {
        let out = |field: &'static str, message: String| Err(OutOfRange { field, message });
        if !(self.max_p_value > 0.0 && self.max_p_value <= 1.0) {
            return out(
                "max_p_value",
                format!("max_p_value {} is not in (0, 1]; Otava's default is 0.001", self.max_p_value),
            );
        }
        if !(self.min_magnitude >= 0.0 && self.min_magnitude.is_finite()) {
            return out(
                "min_magnitude",
                format!("min_magnitude {} is not a finite fraction >= 0 (0.01 = 1 %)", self.min_magnitude),
            );
        }
        if self.min_segment == 0 {
            return out("min_segment", "min_segment 0 is not at least 1".to_string());
        }
        if self.window < 2 * self.min_segment {
            return out(
                "window",
                format!(
                    "window {} cannot hold two segments of min_segment {}; use a window of at least {}",
                    self.window,
                    self.min_segment,
                    2 * self.min_segment
                ),
            );
        }
        Ok(())
    }

    /// The split step's relaxed level (Otava's `first_pass_pvalue` in `compute_change_points`).
    fn weak_p_value(&self) -> f64 {
        let p = self.max_p_value;
        if p < 0.05 {
            p * 10.0
        } else if p < 0.5 {
            p * 2.0
        } else {
            p
        }
    }
}

/// One change point: the series settles at `after` from `index` on.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ChangePoint {
    /// 0-based position in the series of the first value of the new regime (the first commit
    /// measured at the new level). Never 0: a change needs values before it.
    pub index: usize,
    /// Mean of the segment before `index` (from the previous change point, or the start), in the
    /// series' unit.
    pub before: f64,
    /// Mean of the segment from `index` to the next change point (or the end), in the series' unit.
    pub after: f64,
    /// Relative change `(after - before) / before`: +0.1 is 10 % higher (slower, for a time).
    /// Infinite, with the sign of `after`, when `before` is 0 (a counter that starts counting).
    pub change: f64,
    /// Two-sided p-value of Student's t-test (pooled variance) between the segments before and
    /// after, times the number of places a split of their `n` values could have been
    /// (`n - 2 * min_segment + 1`, Bonferroni's bound for having chosen the split), at most 1.
    pub p_value: f64,
}

impl ChangePoint {
    /// Hunter's magnitude of the change, the larger of the forward and backward relative changes:
    /// `|after - before| / min(|before|, |after|)`, a fraction; infinite when either mean is 0 and
    /// the other is not. [`Options::min_magnitude`] is compared with this.
    pub fn magnitude(&self) -> f64 {
        magnitude(self.before, self.after)
    }
}

/// The change points of `series` (values in commit order, oldest first), sorted by index. Any
/// length is accepted; a series shorter than `2 * options.min_segment`, or one whose values are
/// all equal, has none.
///
/// # Errors
/// [`Error::Samples`] if a value is NaN or infinite, naming its index: a run that measured
/// nothing must be dropped from the series (or repaired in the record it came from) before
/// detection, because the method has no notion of a missing value.
///
/// # Panics
/// If `options` fails [`Options::validate`] (a caller's bug: validate user input first).
pub fn detect(series: &[f64], options: &Options) -> Result<Vec<ChangePoint>> {
    if let Err(message) = options.validate() {
        panic!("invalid change-point options: {message}");
    }
    if let Some((index, value)) = series.iter().enumerate().find(|(_, x)| !x.is_finite()) {
        return Err(Error::Samples(format!(
            "value {index} (0-based, in commit order) of the series is {value}; change points need finite values, \
             so drop that run from the series or repair the record it came from"
        )));
    }
    if series.len() < 2 * options.min_segment {
        return Ok(Vec::new());
    }
    let weak = split(series, options);
    Ok(merge(series, &weak, options))
}

/// Count, mean and sum of squared deviations from the mean of a segment.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Moments {
    n: usize,
    mean: f64,
    m2: f64,
}

impl Moments {
    /// Two passes, the first shifted by the first value, so that a segment of equal values has
    /// exactly that mean and exactly 0 spread (segments of equal values must compare as equal).
    fn of(xs: &[f64]) -> Moments {
        let Some(&first) = xs.first() else { return Moments { n: 0, mean: 0.0, m2: 0.0 } };
        let n = xs.len();
        let mean = first + xs.iter().map(|x| x - first).sum::<f64>() / n as f64;
        let m2 = xs.iter().map(|x| (x - mean) * (x - mean)).sum();
        Moments { n, mean, m2 }
    }

    /// The moments of two adjacent segments joined: Chan, Golub & LeVeque's pairwise update
    /// ("Updating formulae and a pairwise algorithm for computing sample variances", 1979), exact
    /// for segments of one and the same value.
    fn join(a: Moments, b: Moments) -> Moments {
        let n = a.n + b.n;
        if a.n == 0 || b.n == 0 {
            return if a.n == 0 { b } else { a };
        }
        let delta = b.mean - a.mean;
        let (na, nb, nn) = (a.n as f64, b.n as f64, n as f64);
        Moments { n, mean: a.mean + delta * nb / nn, m2: a.m2 + b.m2 + delta * delta * na * nb / nn }
    }
}

/// Two-sided p-value of Student's two-sample t-test (pooled variance) of `a` against `b`.
/// 1 when there are no degrees of freedom or the means are equal; 0 when both segments are
/// constant at different values.
fn t_test(a: Moments, b: Moments) -> f64 {
    let dof = (a.n + b.n).saturating_sub(2);
    if a.n == 0 || b.n == 0 || dof == 0 || a.mean == b.mean {
        return 1.0;
    }
    let pooled = (a.m2 + b.m2) / dof as f64;
    if pooled <= 0.0 {
        return 0.0;
    }
    let t = (b.mean - a.mean) / (pooled * (1.0 / a.n as f64 + 1.0 / b.n as f64)).sqrt();
    let students_t = StudentsT::new(0.0, 1.0, dof as f64).expect("dof >= 1");
    (2.0 * students_t.sf(t.abs())).min(1.0)
}

/// [`t_test`]'s p-value times the number of places the split between `a` and `b` could have been
/// (Bonferroni's bound): the split was chosen where the two sides differ most, so the plain t-test
/// overstates the evidence, the more so the longer the segments.
fn split_p_value(a: Moments, b: Moments, min_segment: usize) -> f64 {
    let places = (a.n + b.n + 1).saturating_sub(2 * min_segment).max(1);
    (t_test(a, b) * places as f64).min(1.0)
}

/// See [`ChangePoint::magnitude`]; 0 when both are 0.
fn magnitude(before: f64, after: f64) -> f64 {
    if before == after {
        return 0.0;
    }
    let floor = before.abs().min(after.abs());
    if floor == 0.0 { f64::INFINITY } else { (after - before).abs() / floor }
}

/// Scratch space of one window, reused from window to window.
#[derive(Default)]
struct Window {
    /// Row-major `(len + 1)²`: `within[i * (len + 1) + j]` is `Σ_{i <= p < q < j} |x_p - x_q|`, the
    /// pair-distance sum of the window's values `i..j` (0 unless `j >= i + 2`).
    within: Vec<f64>,
    /// `1 / k` for k in 0..=len (entry 0 unused).
    inv: Vec<f64>,
    /// `1 / (k - 1)` for k in 0..=len, 0 for k <= 1 (a one-value segment has no pairs).
    inv_pairs: Vec<f64>,
    len: usize,
}

impl Window {
    /// Fills the pair-distance sums of `x`: row i from row i + 1, O(len²).
    fn load(&mut self, x: &[f64]) {
        let len = x.len();
        let stride = len + 1;
        self.len = len;
        self.within.clear();
        self.within.resize(stride * stride, 0.0);
        self.inv.clear();
        self.inv.extend((0..=len).map(|k| if k == 0 { 0.0 } else { 1.0 / k as f64 }));
        self.inv_pairs.clear();
        self.inv_pairs.extend((0..=len).map(|k| if k <= 1 { 0.0 } else { 1.0 / (k - 1) as f64 }));
        for i in (0..len.saturating_sub(1)).rev() {
            // within(i, j) = within(i + 1, j) + Σ_{i < q < j} |x_i - x_q|
            let (upper, lower) = self.within.split_at_mut((i + 1) * stride);
            let (row, next) = (&mut upper[i * stride..], &lower[..stride]);
            let mut run = 0.0;
            for j in i + 2..=len {
                run += (x[i] - x[j - 1]).abs();
                row[j] = next[j] + run;
            }
        }
    }

    /// The split `τ` of the interval `a..b` (window positions) and its divergence: the `τ` of the
    /// pair `(τ, κ)`, `a + min_segment <= τ`, `τ + min_segment <= κ <= b`, that maximizes Matteson &
    /// James's `Q̂(x[a..τ], x[τ..κ]; α = 1)`, the first in (τ, κ) order on ties. None when the
    /// interval is shorter than two segments.
    fn best_split(&self, a: usize, b: usize, min_segment: usize) -> Option<(usize, usize, f64)> {
        if b - a < 2 * min_segment {
            return None;
        }
        let stride = self.len + 1;
        let row_a = &self.within[a * stride..(a + 1) * stride];
        let mut best: Option<(usize, usize, f64)> = None;
        let mut best_q = f64::NEG_INFINITY;
        for tau in a + min_segment..=b - min_segment {
            let n = tau - a;
            let (nf, within_x) = (n as f64, row_a[tau]);
            let row_tau = &self.within[tau * stride..(tau + 1) * stride];
            for kappa in tau + min_segment..=b {
                let m = kappa - tau;
                let within_y = row_tau[kappa];
                let between = row_a[kappa] - within_x - within_y;
                // Q̂ = (2 / (n + m)) · (between - m / (n - 1) · W_X - n / (m - 1) · W_Y)
                let q = 2.0
                    * self.inv[n + m]
                    * (between - m as f64 * self.inv_pairs[n] * within_x - nf * self.inv_pairs[m] * within_y);
                if q > best_q {
                    best_q = q;
                    best = Some((tau, kappa, q));
                }
            }
        }
        best
    }
}

/// E-divisive within one window `x` (its own positions): recursively split the interval whose
/// best split diverges most, while its t-test passes `level`. Returns the splits, sorted.
fn e_divisive(x: &[f64], window: &mut Window, min_segment: usize, level: f64) -> Vec<usize> {
    window.load(x);
    // (start, end, best split of start..end)
    let mut intervals = vec![(0, x.len(), window.best_split(0, x.len(), min_segment))];
    let mut splits = Vec::new();
    loop {
        let mut chosen: Option<(usize, usize, usize, f64)> = None;
        for (k, &(_, _, best)) in intervals.iter().enumerate() {
            if let Some((tau, kappa, q)) = best
                && chosen.is_none_or(|(_, _, _, best_q)| q > best_q)
            {
                chosen = Some((k, tau, kappa, q));
            }
        }
        let Some((k, tau, kappa, _)) = chosen else { break };
        let (a, b, _) = intervals[k];
        if t_test(Moments::of(&x[a..tau]), Moments::of(&x[tau..kappa])) > level {
            break;
        }
        splits.push(tau);
        intervals[k] = (a, tau, window.best_split(a, tau, min_segment));
        intervals.insert(k + 1, (tau, b, window.best_split(tau, b, min_segment)));
    }
    splits.sort_unstable();
    splits
}

/// Hunter's split step: weak change points from overlapping windows, sorted and at least
/// `min_segment` apart (each window starts at or after the last change point found, and proposes
/// none closer than `min_segment` to its start).
fn split(series: &[f64], options: &Options) -> Vec<usize> {
    let level = options.weak_p_value();
    let step = (options.window / 2).max(1);
    let mut window = Window::default();
    let mut weak = Vec::new();
    let mut start = 0;
    while start < series.len() {
        let end = (start + options.window).min(series.len());
        let found = e_divisive(&series[start..end], &mut window, options.min_segment, level);
        let last = found.last().map_or(0, |&tau| start + tau);
        weak.extend(found.into_iter().map(|tau| start + tau));
        start = last.max(start + step);
    }
    weak
}

/// Hunter's merge step: re-test each weak change point against the whole segments between its
/// neighbours; remove the weakest (largest p-value, then smallest magnitude) until all pass.
fn merge(series: &[f64], weak: &[usize], options: &Options) -> Vec<ChangePoint> {
    let test = |a: Moments, b: Moments| split_p_value(a, b, options.min_segment);
    let bounds: Vec<usize> = std::iter::once(0).chain(weak.iter().copied()).chain([series.len()]).collect();
    let mut segments: Vec<Moments> = bounds.windows(2).map(|w| Moments::of(&series[w[0]..w[1]])).collect();
    let mut points: Vec<usize> = weak.to_vec();
    // p_values[i] belongs to points[i], between segments[i] and segments[i + 1].
    let mut p_values: Vec<f64> = (0..points.len()).map(|i| test(segments[i], segments[i + 1])).collect();
    while !points.is_empty() {
        let mut weakest = first_extreme(&p_values, |p, q| p > q);
        if p_values[weakest] < options.max_p_value {
            let magnitudes: Vec<f64> =
                (0..points.len()).map(|i| magnitude(segments[i].mean, segments[i + 1].mean)).collect();
            weakest = first_extreme(&magnitudes, |m, n| m < n);
            if magnitudes[weakest] > options.min_magnitude {
                break;
            }
        }
        segments[weakest] = Moments::join(segments[weakest], segments[weakest + 1]);
        segments.remove(weakest + 1);
        points.remove(weakest);
        p_values.remove(weakest);
        if weakest > 0 {
            p_values[weakest - 1] = test(segments[weakest - 1], segments[weakest]);
        }
        if weakest < points.len() {
            p_values[weakest] = test(segments[weakest], segments[weakest + 1]);
        }
    }
    points
        .iter()
        .enumerate()
        .map(|(i, &index)| {
            let (before, after) = (segments[i].mean, segments[i + 1].mean);
            let change = if before == 0.0 { f64::INFINITY.copysign(after) } else { (after - before) / before };
            ChangePoint { index, before, after, change, p_value: p_values[i] }
        })
        .collect()
}

/// Index of the first value `v` for which no other `w` has `better(w, v)`; `values` is non-empty.
fn first_extreme(values: &[f64], better: impl Fn(f64, f64) -> bool) -> usize {
    let mut best = 0;
    for (i, &v) in values.iter().enumerate().skip(1) {
        if better(v, values[best]) {
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests;
