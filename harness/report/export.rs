//! A run's trial times in the formats of continuous-benchmarking dashboards (pure): `kernelgate
//! export --format bmf|github-action-benchmark|nvbench`.
//!
//! - **BMF**, Bencher Metric Format (<https://bencher.dev/docs/reference/bencher-metric-format/>,
//!   its JSON schema <https://bencher.dev/bmf.json>): `{"<benchmark>": {"<measure>": {"value",
//!   "lower_value", "upper_value"}}}`. The measure is `latency`, the slug of Bencher's built-in
//!   Latency measure, whose unit is nanoseconds (Bencher's `lib/bencher_json/src/project/measure/
//!   built_in.rs`); a benchmark name is 1 to 1024 bytes (`lib/bencher_valid/src/benchmark_name.rs`).
//! - **github-action-benchmark**'s `customSmallerIsBetter` tool
//!   (<https://github.com/benchmark-action/github-action-benchmark>, README "Examples", and its
//!   parser `src/extract.ts`): a non-empty array of `{"name", "unit", "value", "range"?, "extra"?}`,
//!   `range` and `extra` strings. A `range` of the form `± <number>` is the one the action reads as
//!   a number (`src/extractRangeInfo.ts`) and rescales with the unit.
//! - **nvbench**'s JSON output (<https://github.com/NVIDIA/nvbench>, `nvbench/json_printer.cu`):
//!   [`nvbench`], the run's statistics as nvbench's cold-measurement summaries, in seconds.
//!
//! In BMF and github-action-benchmark, one entry per trial, named by the trial (`family/variant/size`), its value the trial's median
//! time in nanoseconds. Its bounds ([`Bounds`]) are what the run holds: the 95 % confidence
//! interval of the median where the run recorded one (runs the suite appended to the history, and
//! run CSVs of schema 6 on, whose `median_ci_low_s`, `median_ci_high_s` the import puts on the
//! median: `crate::history::import`), else the fastest and slowest sample (`min`, `max`: every run
//! CSV has them), else none. Users read docs/exports.md.

pub mod nvbench;

use crate::history::Run;
use serde_json::{Value as Json, json};
use std::collections::BTreeMap;

/// What a [`Latency`]'s lower and upper bounds are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bounds {
    /// The 95 % confidence interval of the median (the history's `ci_low`, `ci_high` of the
    /// `median`, or a schema-6 run CSV's `median_ci_low_s`, `median_ci_high_s`:
    /// `crate::gate::median_ci_half_width` over the run's samples).
    MedianCi95,
    /// The fastest and the slowest sample (the run's `min` and `max` statistics).
    MinMax,
}

impl Bounds {
    /// Its name in `extra` and in the docs: `95 % CI of the median`, `min .. max of the samples`.
    pub fn as_str(self) -> &'static str {
        match self {
            Bounds::MedianCi95 => "95 % CI of the median",
            Bounds::MinMax => "min .. max of the samples",
        }
    }
}

/// One trial's time as the exports give it: nanoseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Latency {
    /// Trial name, `family/variant/size`.
    pub trial: String,
    /// Median time, ns.
    pub value_ns: f64,
    /// Lower and upper bound, ns, and what they are; `None` when the run holds neither.
    pub bounds: Option<(f64, f64, Bounds)>,
    /// Samples the median is of (the run's `samples`), when recorded.
    pub samples: Option<f64>,
    /// The run's verdict for the trial (`""` when none) and what decided it.
    pub verdict: (String, String),
}

/// The trials of `run` with a time ([`Latency`]), by name, and a warning for each trial left out
/// (pure): a trial without a `median` in `s`, or whose median is not a finite positive number (no
/// JSON number holds NaN, and BMF's `value` is a required number).
pub fn latencies(run: &Run) -> (Vec<Latency>, Vec<String>) {
    let mut by_trial: BTreeMap<&str, BTreeMap<&str, &crate::history::Value>> = BTreeMap::new();
    for v in &run.values {
        if v.unit == "s" || v.metric == "samples" {
            by_trial.entry(&v.trial).or_default().entry(&v.metric).or_insert(v);
        } else {
            by_trial.entry(&v.trial).or_default();
        }
    }
    let (mut out, mut warnings) = (Vec::new(), Vec::new());
    for (trial, stats) in by_trial {
        let Some(median) = stats.get("median").filter(|m| m.value.is_finite() && m.value > 0.0) else {
            warnings.push(format!("{trial} has no finite time median in seconds; left out"));
            continue;
        };
        let ns = |s: f64| s * 1e9;
        let finite = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if a.is_finite() && b.is_finite() && a <= median.value && median.value <= b => {
                Some((a, b))
            }
            _ => None,
        };
        let ci = finite(median.ci_low, median.ci_high).map(|(a, b)| (ns(a), ns(b), Bounds::MedianCi95));
        let min_max = finite(stats.get("min").map(|v| v.value), stats.get("max").map(|v| v.value))
            .map(|(a, b)| (ns(a), ns(b), Bounds::MinMax));
        out.push(Latency {
            trial: trial.to_string(),
            value_ns: ns(median.value),
            bounds: ci.or(min_max),
            samples: stats.get("samples").map(|v| v.value),
            verdict: (median.verdict.clone(), median.decided_by.clone()),
        });
    }
    (out, warnings)
}

/// The longest benchmark name Bencher takes, bytes (`lib/bencher_valid/src/benchmark_name.rs`):
/// a document holding a longer one is refused whole.
pub const BMF_NAME_MAX_BYTES: usize = 1024;

/// The Bencher Metric Format document of `latencies` (pure): `{"<trial>": {"latency": {"value":
/// ns, "lower_value": ns, "upper_value": ns}}}`, the bounds left out where there are none; and a
/// warning for each trial left out because Bencher would refuse its name (longer than
/// [`BMF_NAME_MAX_BYTES`]), which would refuse the whole upload.
pub fn bmf(latencies: &[Latency]) -> (Json, Vec<String>) {
    let (fits, too_long): (Vec<&Latency>, Vec<&Latency>) =
        latencies.iter().partition(|l| l.trial.len() <= BMF_NAME_MAX_BYTES);
    let warnings = too_long
        .iter()
        .map(|l| {
            let start: String = l.trial.chars().take(60).collect();
            format!(
                "{}…: a name of {} bytes, and Bencher takes names of at most {BMF_NAME_MAX_BYTES} bytes (it would \
                 refuse the whole document); left out of the BMF export",
                crate::console::shown(&start),
                l.trial.len()
            )
        })
        .collect();
    let doc: serde_json::Map<String, Json> = fits
        .into_iter()
        .map(|l| {
            let mut metric = json!({ "value": l.value_ns });
            if let Some((low, high, _)) = l.bounds {
                metric["lower_value"] = json!(low);
                metric["upper_value"] = json!(high);
            }
            (l.trial.clone(), json!({ "latency": metric }))
        })
        .collect();
    (Json::Object(doc), warnings)
}

/// The github-action-benchmark `customSmallerIsBetter` array of `latencies` from `run` (pure):
/// per trial `name` (the trial), `unit` `ns`, `value` (the median, ns), `range` (`± <half width>`
/// for the median's CI, which is symmetric; `<min> .. <max>` for the samples' extremes; left out
/// without bounds) and `extra`: the run, commit and GPU, the samples, the verdict, and what the
/// range is, one per line.
pub fn github_action_benchmark(run: &Run, latencies: &[Latency]) -> Json {
    let m = &run.meta;
    let entries: Vec<Json> = latencies
        .iter()
        .map(|l| {
            let mut lines = vec![format!(
                "run {} of {} on {} {}",
                m.run_id,
                m.commit.get(..7).unwrap_or(&m.commit),
                m.gpu_name,
                m.gpu_uuid
            )];
            if let Some(n) = l.samples {
                lines.push(format!("samples: {n}"));
            }
            if !l.verdict.0.is_empty() {
                let by = if l.verdict.1.is_empty() { String::new() } else { format!(" (decided by {})", l.verdict.1) };
                lines.push(format!("verdict: {}{by}", l.verdict.0));
            }
            let mut entry = json!({ "name": l.trial, "unit": "ns", "value": l.value_ns });
            if let Some((low, high, what)) = l.bounds {
                entry["range"] = json!(match what {
                    Bounds::MedianCi95 => format!("± {}", (high - low) / 2.0),
                    Bounds::MinMax => format!("{low} .. {high}"),
                });
                lines.push(format!("range: {}", what.as_str()));
            }
            entry["extra"] = json!(lines.join("\n"));
            entry
        })
        .collect();
    Json::Array(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::Value;

    fn value(trial: &str, metric: &str, unit: &str, v: f64) -> Value {
        Value {
            trial: trial.into(),
            kernel: "k".into(),
            metric: metric.into(),
            unit: unit.into(),
            value: v,
            ci_low: None,
            ci_high: None,
            verdict: "unchanged".into(),
            decided_by: "time".into(),
        }
    }

    /// A run with the median's CI (`ci_low`, `ci_high`: from the suite, or a schema-6 run CSV):
    /// the bounds are that, in ns, and github-action-benchmark's range is `± <half width>`, the
    /// form its `extractRangeInfo` reads. Without a CI, min and max; with neither, no bounds.
    /// A trial without a finite median is left out with a warning.
    #[test]
    fn bounds_are_the_median_ci_where_the_run_has_one_else_min_max() {
        let mut run = crate::history::tests::run("20261201T000000Z", "GPU-a", "c0ffee", 0);
        let mut median = value("f/ci/1", "median", "s", 2e-6);
        (median.ci_low, median.ci_high) = (Some(1.5e-6), Some(2.5e-6));
        run.values = vec![
            median,
            value("f/ci/1", "min", "s", 1e-6),
            value("f/ci/1", "max", "s", 3e-6),
            value("f/ci/1", "samples", "count", 500.0),
            value("f/minmax/1", "median", "s", 4e-6),
            value("f/minmax/1", "min", "s", 3e-6),
            value("f/minmax/1", "max", "s", 6e-6),
            value("f/bare/1", "median", "s", 8e-6),
            value("f/nan/1", "median", "s", f64::NAN),
            value("f/counter/1", "dram__bytes_read.sum", "byte", 1e6),
        ];
        let (l, warnings) = latencies(&run);
        let names: Vec<&str> = l.iter().map(|l| l.trial.as_str()).collect();
        assert_eq!(names, ["f/bare/1", "f/ci/1", "f/minmax/1"]);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].starts_with("f/counter/1 has no finite time median"), "{warnings:?}");
        let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-9 * b.abs(), "{a} != {b}");
        let (lo, hi, what) = l[1].bounds.unwrap();
        assert_eq!(what, Bounds::MedianCi95);
        close(lo, 1500.0);
        close(hi, 2500.0);
        close(l[1].value_ns, 2000.0);
        assert_eq!(l[2].bounds.map(|b| b.2), Some(Bounds::MinMax));
        assert_eq!(l[0].bounds, None);

        let (doc, warnings) = bmf(&l);
        assert!(warnings.is_empty());
        assert!(doc["f/bare/1"]["latency"].get("lower_value").is_none(), "{doc}");
        close(doc["f/ci/1"]["latency"]["upper_value"].as_f64().unwrap(), 2500.0);
        let ghab = github_action_benchmark(&run, &l);
        let range = ghab[1]["range"].as_str().unwrap();
        let half: f64 = range.strip_prefix("± ").expect("± form").parse().unwrap();
        close(half, 500.0);
        let extra = ghab[1]["extra"].as_str().unwrap();
        assert!(extra.contains("\nsamples: 500\n") && extra.ends_with("\nrange: 95 % CI of the median"), "{extra}");
        let (lo, hi) = ghab[2]["range"].as_str().unwrap().split_once(" .. ").expect("min .. max");
        close(lo.parse().unwrap(), 3000.0);
        close(hi.parse().unwrap(), 6000.0);
        assert!(ghab[0].get("range").is_none(), "no bounds, no range: {}", ghab[0]);
    }

    /// Field report turn4/R34: a trial whose name Bencher would refuse (over 1024 bytes) is left out
    /// of the BMF document with a warning, and the other trials are exported.
    #[test]
    fn a_name_bencher_refuses_is_left_out_of_bmf_with_a_warning() {
        let latency = |trial: String| Latency {
            trial,
            value_ns: 1000.0,
            bounds: None,
            samples: None,
            verdict: (String::new(), String::new()),
        };
        let long = format!("a/{}/1", "x".repeat(2000));
        let edge = format!("a/{}/1", "y".repeat(BMF_NAME_MAX_BYTES - 4));
        assert_eq!(edge.len(), BMF_NAME_MAX_BYTES);
        let (doc, warnings) = bmf(&[latency("fam/ünï\"cødé 🚀/1".into()), latency(long), latency(edge.clone())]);
        let names: Vec<&String> = doc.as_object().unwrap().keys().collect();
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(doc.get(&edge).is_some() && doc.get("fam/ünï\"cødé 🚀/1").is_some());
        let [w] = warnings.as_slice() else { panic!("{warnings:?}") };
        assert!(w.contains("a name of 2004 bytes, and Bencher takes names of at most 1024 bytes"), "{w}");
    }
}
