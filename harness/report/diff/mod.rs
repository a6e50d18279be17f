//! The diff report's model: two sides' measurements (two commits from the history, two runs, or a
//! baseline and a run) compared trial by trial. Pure: plain rows in, plain data out; the
//! [`markdown`](super::markdown) and [`html`](super::html) printers only format it.
//!
//! Per trial it holds the time (the run CSV's `median` statistic, seconds) old -> new and its
//! change, the new side's verdict, every other metric old -> new (a metric on one side only is kept
//! and shown as absent on the other), and "what explains it": the counters that moved most in the
//! same direction as the time (see [`explain`]). Also the plain data of the HTML page's charts:
//! [`Trend`] (a case's series across commits, with change points) and [`Bar`] (% of copy
//! bandwidth, old vs new). [`machines`] says whether two sides compare at all (one GPU model) and
//! what the report must note (another driver, another SM clock).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

pub mod change;
pub mod interval;
pub mod json;
pub mod machines;
pub mod roof;

pub use change::Change;
pub use interval::{Interval, RunTime};

pub use crate::model::{Measurement, Paired, Side, TIME_STATISTIC, Trend, TrendPoint, VendorReference};

/// The statistic the per-run bars show: effective bandwidth as % of the run's measured copy
/// bandwidth ([`crate::record::statistics`]).
pub const BANDWIDTH_METRIC: &str = "pct_of_copy_bandwidth";

/// A time change at or beyond this fraction (1 %) asks for an explanation, and a counter must move
/// by at least as much to be one. The threshold is the report's choice, not a statistical
/// decision: the verdict, which is the gate's decision, asks for an explanation at any size.
pub const EXPLAIN_THRESHOLD: f64 = 0.01;

/// At most this many counters explain a change: the top 3, ranked by how far each moved.
pub const EXPLAIN_TOP: usize = 3;

/// The statistics a run CSV holds for every trial ([`crate::record::statistics`]). They are shown
/// old -> new like counters, but never explain a time change: they are the time, or derived from it
/// or from the gate (bandwidth, delta, p-values). Every other metric is a counter (ncu's names, or
/// a derived counter such as `sectors_per_request`).
pub const RUN_STATISTICS: &[&str] = &crate::record::STATISTICS;

/// Whether a trial is on both sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// On both sides.
    Both,
    /// Only on the new side.
    Added,
    /// Only on the old side.
    Removed,
}

/// One metric of one kernel old -> new; `None` where a side has no row for it.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricDiff {
    /// The entry point the metric belongs to.
    pub kernel: String,
    /// The metric's name.
    pub metric: String,
    /// Its unit (the new side's where both have one).
    pub unit: String,
    /// The old side's value; the median where the side has several rows (repeated runs).
    pub old: Option<f64>,
    /// The new side's value, likewise.
    pub new: Option<f64>,
    /// A counter (explains time changes): not one of [`RUN_STATISTICS`] nor a ceiling's value the
    /// run measured ([`crate::model::Ceiling::value_statistic`]).
    pub counter: bool,
}

impl MetricDiff {
    /// `new / old - 1` (0.25 = 25 % more); `None` when a side is absent or `old` is 0.
    pub fn delta(&self) -> Option<f64> {
        relative_change(self.old, self.new)
    }
}

/// A counter that explains a time change: it moved in the same direction, by a factor
/// (`global_load_sectors 4.0x`) or from or to zero (`... 0 -> 31.5M`). Display gives that text.
#[derive(Debug, Clone, PartialEq)]
pub struct Factor {
    /// The counter's name (prefixed `kernel: ` where the trial launches several kernels).
    pub metric: String,
    /// Old value.
    pub old: f64,
    /// New value.
    pub new: f64,
}

impl Factor {
    /// How it moved: `4.0x`, `0.50x`, or from or to zero `0 -> 31.5M` (digits, letters, `.`, `-`,
    /// `>` and spaces only).
    pub fn change(&self) -> String {
        if self.old == 0.0 || self.new == 0.0 {
            format!("{} -> {}", compact(self.old), compact(self.new))
        } else {
            ratio_text(self.new / self.old)
        }
    }
}

impl fmt::Display for Factor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.metric, self.change())
    }
}

/// One trial compared.
#[derive(Debug, Clone, PartialEq)]
pub struct TrialDiff {
    /// Trial name.
    pub trial: String,
    /// On both sides, or added/removed.
    pub presence: Presence,
    /// Old median time, seconds; `None` when the old side has no `median` row.
    pub old_s: Option<f64>,
    /// New median time, seconds.
    pub new_s: Option<f64>,
    /// The new side's verdict (the old side's for a removed trial); the most severe one where the
    /// side has several runs (order: [`severity`]).
    pub verdict: String,
    /// What decided `verdict`.
    pub decided_by: String,
    /// Every metric but the time, old -> new, sorted by kernel and name; none dropped.
    pub metrics: Vec<MetricDiff>,
    /// The counters that explain the time change, strongest first, at most [`EXPLAIN_TOP`]; empty
    /// when nothing asks for an explanation or no counter moved with the time.
    pub explanation: Vec<Factor>,
    /// The old side's time per run (its [`TIME_STATISTIC`] rows, in row order), with each median's
    /// interval where the run recorded one; empty when the side has none.
    pub old_runs: Vec<RunTime>,
    /// The new side's, likewise.
    pub new_runs: Vec<RunTime>,
}

impl TrialDiff {
    /// Time change `new / old - 1`; `None` without both times.
    pub fn delta(&self) -> Option<f64> {
        relative_change(self.old_s, self.new_s)
    }

    /// A metric's name as the report shows it: prefixed `kernel: ` where the trial's metrics come
    /// from several kernels.
    pub fn metric_name(&self, m: &MetricDiff) -> String {
        if self.metrics.iter().any(|o| o.kernel != m.kernel) {
            format!("{}: {}", m.kernel, m.metric)
        } else {
            m.metric.clone()
        }
    }

    /// Whether the trial belongs in the "changed" table: added, removed, a time change of at least
    /// [`EXPLAIN_THRESHOLD`], or a verdict other than `unchanged`/`no-baseline`.
    pub fn changed(&self) -> bool {
        self.presence != Presence::Both
            || self.delta().is_some_and(|d| d.abs() >= EXPLAIN_THRESHOLD)
            || !matches!(self.verdict.as_str(), "unchanged" | "no-baseline")
    }
}

/// Two sides compared: every trial of either side, the slower ones first.
#[derive(Debug, Clone, PartialEq)]
pub struct Diff {
    /// The old side.
    pub old: Side,
    /// The new side.
    pub new: Side,
    /// One per trial on either side; order by the diff's own [`Change`]: slower, then faster, then
    /// the rest (an `invalid` verdict first), each by |time change| (largest first; trials without
    /// one last), then by name.
    pub trials: Vec<TrialDiff>,
    /// [`BANDWIDTH_METRIC`] of every trial that has it on either side, by trial name.
    pub bars: Vec<Bar>,
    /// Sentences the reader must see before the numbers (e.g. the sides ran on other physical
    /// GPUs); empty from [`diff`], added by the caller that knows.
    pub notes: Vec<String>,
    /// Same-run A/B comparisons of the old side's commit (A) against the new side's (B), by trial:
    /// paired evidence beside the diff's comparison of medians; empty from [`diff`], added by the
    /// caller that found them in the history.
    pub paired: BTreeMap<String, Vec<Paired>>,
    /// The vendor references of the case table the runs came from (the reports give a trial's
    /// time as a share of its reference's, `crate::report::vendor::diff_text`); empty from
    /// [`diff`], added by the caller that knows the table.
    pub vendors: Vec<VendorReference>,
}

impl Diff {
    /// The one-line summary: `1 slower, 30 within 1 %, 1 only in the new runs, 1 only in the old runs
    /// (33 trials); new runs' verdicts: ...`. Verdicts are counted for trials on both sides, in
    /// [`severity`] order; a trial one side lacks is counted as "only in" the other (it was added or
    /// removed, or a filter left it out of a run: the runs cannot tell which).
    pub fn summary(&self) -> String {
        let mut by_verdict: BTreeMap<(usize, &str), usize> = BTreeMap::new();
        let (mut added, mut removed, mut slower, mut faster, mut same) = (0, 0, 0, 0, 0);
        for t in &self.trials {
            match t.presence {
                Presence::Added => added += 1,
                Presence::Removed => removed += 1,
                Presence::Both => *by_verdict.entry((severity(&t.verdict), t.verdict.as_str())).or_default() += 1,
            }
            match t.delta() {
                Some(d) if d >= EXPLAIN_THRESHOLD => slower += 1,
                Some(d) if d <= -EXPLAIN_THRESHOLD => faster += 1,
                Some(_) => same += 1,
                None => {}
            }
        }
        // The time change between the sides first; then the verdicts the new side's runs were given
        // (against their baseline or A/B revision), which are not the same question.
        let mut moved = Vec::new();
        for (n, what) in [(slower, "slower"), (faster, "faster"), (same, "within 1 %")] {
            if n > 0 {
                moved.push(format!("{n} {what}"));
            }
        }
        let verdicts: Vec<String> = by_verdict
            .into_iter()
            .map(|((_, v), n)| format!("{n} {}", if v.is_empty() { "without verdict" } else { v }))
            .collect();
        let mut parts = moved;
        // "Only in": a trial one side lacks was added or removed, or left out by a filter; the
        // runs cannot tell which.
        if added > 0 {
            parts.push(format!("{added} only in the new runs"));
        }
        if removed > 0 {
            parts.push(format!("{removed} only in the old runs"));
        }
        if parts.is_empty() {
            return "no trials on either side".into();
        }
        let mut text = format!("{} ({})", parts.join(", "), crate::units::count(self.trials.len(), "trial"));
        if !verdicts.is_empty() {
            text += &format!("; new runs' verdicts: {}", verdicts.join(", "));
        }
        text
    }

    /// The trials of the "changed" table ([`TrialDiff::changed`]), in report order.
    pub fn changed(&self) -> impl Iterator<Item = &TrialDiff> {
        self.trials.iter().filter(|t| t.changed())
    }
}

/// The columns of the paired-evidence table of both printers ([`paired_rows`]).
pub const PAIRED_COLUMNS: [&str; 6] = ["trial", "A -> B (medians)", "paired change", "pairs", "verdict", "A/B run"];

/// The paired evidence of `diff` as plain text cells, one row per (trial, A/B run)
/// ([`PAIRED_COLUMNS`]): regressed first, then invalid, then the rest, each by |paired change|
/// (largest first), then by name; the printers escape them.
pub fn paired_rows(diff: &Diff) -> Vec<[String; 6]> {
    let mut all: Vec<(&String, &Paired)> =
        diff.paired.iter().flat_map(|(t, runs)| runs.iter().map(move |p| (t, p))).collect();
    let group = |p: &Paired| match p.verdict.as_str() {
        "regressed" => 0,
        "invalid" => 1,
        _ => 2,
    };
    all.sort_by(|(ta, a), (tb, b)| {
        group(a).cmp(&group(b)).then(b.delta_pct.abs().total_cmp(&a.delta_pct.abs())).then(ta.cmp(tb))
    });
    let mut rows = Vec::new();
    for (trial, p) in all {
        {
            let by = if p.decided_by.is_empty() { String::new() } else { format!(", {}", p.decided_by) };
            // Three decimals down to 0.001, then two significant digits in E notation.
            let p_text = p.p_adjusted.map_or(String::new(), |v| {
                if v >= 1e-3 { format!(", adj. p {v:.3}") } else { format!(", adj. p {v:.1e}") }
            });
            rows.push([
                trial.clone(),
                format!("{} -> {}", crate::units::duration(p.a_median_s), crate::units::duration(p.b_median_s)),
                format!("{}{p_text}", crate::units::signed_pct(p.delta_pct)),
                p.pairs.map_or(String::new(), |n| n.to_string()),
                format!("{}{by}", p.verdict),
                p.run.clone(),
            ]);
        }
    }
    rows
}

/// The note a diff with paired evidence carries: what the pairs are and why they weigh more.
pub fn paired_note(diff: &Diff) -> Option<String> {
    let runs: BTreeSet<&str> = diff.paired.values().flatten().map(|p| p.run.as_str()).collect();
    (!runs.is_empty()).then(|| {
        format!(
            "{} of the new commit against the old one {} in the history ({}): {} timed in pairs in one \
             process, on one GPU, over one set of buffers, which a comparison of two runs' medians is not; see \
             \"Same-run A/B\" below",
            crate::units::count(runs.len(), "same-run A/B run"),
            if runs.len() == 1 { "is" } else { "are" },
            runs.into_iter().collect::<Vec<_>>().join(", "),
            crate::units::count(diff.paired.len(), "trial")
        )
    })
}

/// One trial's [`BANDWIDTH_METRIC`] (% of the run's copy bandwidth) on each side.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// Trial name.
    pub trial: String,
    /// Old side's value, %; `None` when the old side has none.
    pub old: Option<f64>,
    /// New side's value, %.
    pub new: Option<f64>,
}

/// Compares two sides' rows trial by trial (pure).
///
/// Several rows for one (trial, kernel, metric) on a side (a commit run more than once) are
/// summarised by their median. A trial's time is its [`TIME_STATISTIC`] row; its verdict the new
/// side's (the most severe of several). An explanation is sought when the time moved by at least
/// [`EXPLAIN_THRESHOLD`] or the verdict is `regressed`/`improved` (see [`explain`]). Non-finite
/// values are kept and shown as they are; they never explain anything.
pub fn diff(old: &Side, old_rows: &[Measurement], new: &Side, new_rows: &[Measurement]) -> Diff {
    let old_side = collect(old_rows);
    let new_side = collect(new_rows);
    let names: BTreeSet<&str> = old_side.keys().chain(new_side.keys()).copied().collect();
    let mut trials: Vec<TrialDiff> =
        names.into_iter().map(|name| trial_diff(name, old_side.get(name), new_side.get(name))).collect();
    trials.sort_by(|a, b| {
        // By the diff's own change: slower first, then faster; then the rest, invalid first.
        let group = |t: &TrialDiff| match (t.change(), t.verdict.as_str()) {
            (Change::Slower, _) => 0,
            (Change::Faster, _) => 1,
            (_, "invalid") => 2,
            _ => 3,
        };
        let size = |t: &TrialDiff| t.delta().filter(|d| d.is_finite()).map(f64::abs);
        group(a)
            .cmp(&group(b))
            .then_with(|| match (size(a), size(b)) {
                (Some(x), Some(y)) => y.total_cmp(&x),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            })
            .then_with(|| a.trial.cmp(&b.trial))
    });
    Diff {
        old: old.clone(),
        new: new.clone(),
        trials,
        bars: bars(old_rows, new_rows),
        notes: Vec::new(),
        paired: BTreeMap::new(),
        vendors: Vec::new(),
    }
}

/// The bars of [`BANDWIDTH_METRIC`], one per trial that has it on either side, by trial name
/// (pure; several rows on a side: their median).
pub fn bars(old_rows: &[Measurement], new_rows: &[Measurement]) -> Vec<Bar> {
    let pick = |rows: &[Measurement]| -> BTreeMap<String, f64> {
        let mut values: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for r in rows.iter().filter(|r| r.metric == BANDWIDTH_METRIC) {
            values.entry(r.trial.clone()).or_default().push(r.value);
        }
        values.into_iter().map(|(t, v)| (t, crate::stats::median(&v))).collect()
    };
    let (old, new) = (pick(old_rows), pick(new_rows));
    let trials: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    trials.into_iter().map(|t| Bar { trial: t.clone(), old: old.get(t).copied(), new: new.get(t).copied() }).collect()
}

/// The severity order of verdicts, most severe first: `regressed`, `invalid`, `ambiguous`,
/// `improved`, `unchanged`, `no-baseline`, then anything else.
pub fn severity(verdict: &str) -> usize {
    ["regressed", "invalid", "ambiguous", "improved", "unchanged", "no-baseline"]
        .iter()
        .position(|v| *v == verdict)
        .unwrap_or(6)
}

/// ncu's own measures of a kernel's duration (`gpu__time_duration.sum`, `sm__cycles_elapsed.avg`,
/// `gpc__cycles_elapsed.max`, ...): they restate a time change, they do not explain it.
pub fn restates_time(metric: &str) -> bool {
    metric.contains("time_duration") || metric.contains("cycles_elapsed")
}

/// The counters among `metrics` that explain a time change in direction `up` (slower) or down:
/// those present on both sides (not [`restates_time`]) with non-negative finite values that moved the same way by at least
/// [`EXPLAIN_THRESHOLD`], ranked by |ln(new/old)| (a move from or to zero ranks first, larger
/// non-zero value first), then by name; the top [`EXPLAIN_TOP`]. `several_kernels` prefixes each
/// name with its kernel.
pub fn explain(metrics: &[MetricDiff], up: bool, several_kernels: bool) -> Vec<Factor> {
    let mut candidates: Vec<(f64, f64, &MetricDiff, f64, f64)> = metrics
        .iter()
        .filter(|m| m.counter && !restates_time(&m.metric))
        .filter_map(|m| {
            let (old, new) = (m.old?, m.new?);
            if !(old.is_finite() && new.is_finite()) || old < 0.0 || new < 0.0 || old == new {
                return None;
            }
            let strength = if old == 0.0 || new == 0.0 { f64::INFINITY } else { (new / old).ln().abs() };
            let moved_up = new > old;
            (moved_up == up && strength >= (1.0 + EXPLAIN_THRESHOLD).ln()).then_some((
                strength,
                old.max(new),
                m,
                old,
                new,
            ))
        })
        .collect();
    candidates.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(b.1.total_cmp(&a.1))
            .then_with(|| (&a.2.kernel, &a.2.metric).cmp(&(&b.2.kernel, &b.2.metric)))
    });
    candidates
        .into_iter()
        .take(EXPLAIN_TOP)
        .map(|(_, _, m, old, new)| Factor {
            metric: if several_kernels { format!("{}: {}", m.kernel, m.metric) } else { m.metric.clone() },
            old,
            new,
        })
        .collect()
}

/// A count the way people read it: three significant digits and a k/M/G suffix (`31.5M`, `4.1k`,
/// `0.25`, `0`).
pub fn compact(value: f64) -> String {
    if !value.is_finite() {
        return format!("{value}");
    }
    let (scaled, suffix) = match value.abs() {
        a if a >= 1e12 => (value / 1e12, "T"),
        a if a >= 1e9 => (value / 1e9, "G"),
        a if a >= 1e6 => (value / 1e6, "M"),
        a if a >= 1e3 => (value / 1e3, "k"),
        _ => (value, ""),
    };
    format!("{}{suffix}", three_digits(scaled))
}

/// A relative change as a signed percentage with two decimals (`+25.00%`, `-3.10%`).
pub fn percent(delta: f64) -> String {
    crate::units::signed_pct(100.0 * delta)
}

/// `x` with three significant digits, trailing zeros dropped (`31.5`, `4`, `0.25`, `125`).
fn three_digits(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let magnitude = x.abs().log10().floor() as i32;
    let decimals = usize::try_from(2 - magnitude).unwrap_or(0);
    let text = format!("{x:.decimals$}");
    if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_string() } else { text }
}

/// A ratio as a factor: `12x`, `4.0x`, `1.25x`, `0.25x`.
fn ratio_text(r: f64) -> String {
    // A fall past 1/10 reads better as its inverse: `1/264x`, not `0.00x`.
    if r > 0.0 && r < 0.095 {
        return format!("1/{:.0}x", 1.0 / r);
    }
    if r >= 9.95 {
        format!("{r:.0}x")
    } else if r >= 1.995 {
        format!("{r:.1}x")
    } else {
        format!("{r:.2}x")
    }
}

fn relative_change(old: Option<f64>, new: Option<f64>) -> Option<f64> {
    let (old, new) = (old?, new?);
    (old != 0.0).then(|| new / old - 1.0)
}

/// One side's rows of one trial: values per (kernel, metric) with their unit; verdicts seen.
#[derive(Default)]
struct TrialRows<'a> {
    values: BTreeMap<(&'a str, &'a str), (&'a str, Vec<f64>)>,
    verdicts: Vec<(&'a str, &'a str)>,
    /// The [`TIME_STATISTIC`] rows per kernel, with their intervals.
    times: BTreeMap<&'a str, Vec<RunTime>>,
}

/// One trial's metrics with the rows whose kernel label changed between the sides paired (pure):
/// where a metric has exactly one row on the old side only and one on the new side only, they are
/// one metric, shown under the new side's label. kernelgate's own labels changed between versions
/// (a program of copies only: empty, then the copy's CUDA call; a program of several launches:
/// every launch joined by `+`, then each kernel once), and unpaired they read as a metric lost and
/// another gained (`launch/one_by_one`, 72a91c3 against 8c8c911: 113 `absent` rows). Rows that
/// still have a partner of their own label are paired by label, as before.
fn pair_relabelled(metrics: Vec<MetricDiff>) -> Vec<MetricDiff> {
    let names: BTreeSet<String> = metrics.iter().map(|m| m.metric.clone()).collect();
    let mut metrics: Vec<Option<MetricDiff>> = metrics.into_iter().map(Some).collect();
    for name in names {
        let at = |old: bool| -> Vec<usize> {
            metrics
                .iter()
                .enumerate()
                .filter_map(|(i, m)| m.as_ref().map(|m| (i, m)))
                .filter(|(_, m)| m.metric == name && m.old.is_some() == old && m.new.is_some() != old)
                .map(|(i, _)| i)
                .collect()
        };
        if let ([o], [n]) = (&at(true)[..], &at(false)[..]) {
            let old = metrics[*o].take().expect("found above");
            let new = metrics[*n].as_mut().expect("found above");
            new.old = old.old;
        }
    }
    metrics.into_iter().flatten().collect()
}

fn collect(rows: &[Measurement]) -> BTreeMap<&str, TrialRows<'_>> {
    let mut out: BTreeMap<&str, TrialRows<'_>> = BTreeMap::new();
    for r in rows {
        let t = out.entry(r.trial.as_str()).or_default();
        t.values.entry((r.kernel.as_str(), r.metric.as_str())).or_insert((r.unit.as_str(), Vec::new())).1.push(r.value);
        t.verdicts.push((r.verdict.as_str(), r.decided_by.as_str()));
        if r.metric == TIME_STATISTIC {
            t.times.entry(r.kernel.as_str()).or_default().push(RunTime { median_s: r.value, ci_s: r.ci });
        }
    }
    out
}

/// The most severe verdict among a side's rows, with what decided it.
fn verdict_of(rows: &TrialRows<'_>) -> (String, String) {
    rows.verdicts
        .iter()
        .min_by_key(|(v, d)| (severity(v), *v, *d))
        .map(|(v, d)| (v.to_string(), d.to_string()))
        .unwrap_or_default()
}

fn trial_diff(name: &str, old: Option<&TrialRows<'_>>, new: Option<&TrialRows<'_>>) -> TrialDiff {
    let presence = match (old, new) {
        (Some(_), Some(_)) => Presence::Both,
        (None, _) => Presence::Added,
        (_, None) => Presence::Removed,
    };
    let (verdict, decided_by) = new.or(old).map(verdict_of).unwrap_or_default();
    let keys: BTreeSet<(&str, &str)> = old.into_iter().chain(new).flat_map(|t| t.values.keys().copied()).collect();
    let value =
        |side: Option<&TrialRows<'_>>, key| side.and_then(|t| t.values.get(&key)).map(|(_, v)| crate::stats::median(v));
    let unit = |side: Option<&TrialRows<'_>>, key| side.and_then(|t| t.values.get(&key)).map(|(u, _)| u.to_string());
    let (mut old_s, mut new_s) = (None, None);
    let (mut old_runs, mut new_runs) = (Vec::new(), Vec::new());
    let times = |side: Option<&TrialRows<'_>>, kernel| side.and_then(|t| t.times.get(kernel)).cloned();
    let mut metrics = Vec::new();
    for key @ (kernel, metric) in keys {
        if metric == TIME_STATISTIC {
            // The first kernel with a time, as for the medians themselves.
            if old_s.is_none() {
                old_runs = times(old, kernel).unwrap_or_default();
            }
            if new_s.is_none() {
                new_runs = times(new, kernel).unwrap_or_default();
            }
            old_s = old_s.or(value(old, key));
            new_s = new_s.or(value(new, key));
            continue;
        }
        metrics.push(MetricDiff {
            kernel: kernel.to_string(),
            metric: metric.to_string(),
            unit: unit(new, key).or(unit(old, key)).unwrap_or_default(),
            old: value(old, key),
            new: value(new, key),
            counter: !RUN_STATISTICS.contains(&metric) && crate::model::Ceiling::from_value_statistic(metric).is_none(),
        });
    }
    let metrics = pair_relabelled(metrics);
    let mut t = TrialDiff {
        trial: name.to_string(),
        presence,
        old_s,
        new_s,
        verdict,
        decided_by,
        metrics,
        explanation: vec![],
        old_runs,
        new_runs,
    };
    let moved = t.delta().filter(|d| d.is_finite() && d.abs() >= EXPLAIN_THRESHOLD);
    let up = match (moved, t.verdict.as_str()) {
        (Some(d), _) => Some(d > 0.0),
        (None, "regressed") => Some(true),
        (None, "improved") => Some(false),
        _ => None,
    };
    if let (Some(up), Presence::Both) = (up, presence) {
        let kernels: BTreeSet<&str> = t.metrics.iter().map(|m| m.kernel.as_str()).collect();
        t.explanation = explain(&t.metrics, up, kernels.len() > 1);
    }
    t
}

#[cfg(test)]
pub(crate) mod tests;
