//! A run in nvbench's JSON output format (pure): `kernelgate export --format nvbench`, for
//! nvbench's own readers (`python/scripts/nvbench_compare.py`, `nvbench_json/reader.py`).
//!
//! The layout is nvbench's `json_printer` (`nvbench/json_printer.cu`, file version 1.0.0):
//! `{"meta": {"version": {"json": …}}, "devices": [{"id", "name", …}], "benchmarks": [{"name",
//! "index", "devices", "axes", "states": [{"name", "device", "type_config_index", "axis_values",
//! "summaries": [{"tag", "name", "hint", "description", "hide"?, "data": [{"name", "type",
//! "value"}]}], "is_skipped"}]}]}`, every `int64` and `float64` value written as a string (as
//! nvbench does, so that JSON's doubles do not truncate an int64). The summaries' tags are those of
//! nvbench's cold measurement (`nvbench/detail/measure_cold.cu`: the L2 flushed, one launch timed
//! with CUDA events per sample), which is how kernelgate measures (`crate::measure::measure_cold`).
//!
//! One benchmark per case family (`transpose`), with two string axes, `variant` and `size`; one
//! state per trial (`transpose/naive/8192x8192`: `Device=0 variant=naive size=8192x8192`, as
//! nvbench's `state::get_axis_values_as_string` names states). One device, id 0: a run CSV's runs
//! are of one GPU (`kernelgate export` refuses others), and `id` is its place in this file, not
//! a CUDA ordinal. Only what the run holds is written: what maps to what is [`SUMMARIES`] and
//! docs/exports.md.

use super::Latency;
use crate::history::Run;
use serde_json::{Value as Json, json};
use std::collections::BTreeMap;

/// The nvbench JSON file version this writes: `meta.version.json`, which nvbench's reader checks
/// (`python/scripts/nvbench_json/version.py`'s `file_version`; a mismatch prints a warning).
pub const JSON_FILE_VERSION: (u32, u32, u32) = (1, 0, 0);

/// One run statistic as an nvbench summary: the run CSV's `statistic` and `unit`, nvbench's tag,
/// display name and hint (`nvbench/detail/measure_cold.cu`), whether nvbench hides it by default,
/// the type nvbench writes, the factor from the run's unit to nvbench's, and what the value is.
pub struct Summary {
    /// The run statistic (`crate::record::STATISTICS`).
    pub statistic: &'static str,
    /// Its unit in the run.
    pub unit: &'static str,
    /// nvbench's tag.
    pub tag: &'static str,
    /// nvbench's display name of the tag.
    pub name: &'static str,
    /// nvbench's hint (how its printers format the value): `duration` (seconds), `percentage` (a
    /// fraction), `sample_size`.
    pub hint: &'static str,
    /// nvbench sets `hide` on it ("Hidden by default.").
    pub hidden: bool,
    /// Written as `int64` (else `float64`).
    pub int64: bool,
    /// The run's value times this is nvbench's: 0.01 for a percentage (nvbench's relative noise is
    /// a fraction), 1 otherwise.
    pub scale: f64,
    /// The summary's `description`: what kernelgate measured.
    pub description: &'static str,
}

/// The run statistics written, in nvbench's order of its cold summaries. Not written: the
/// statistics nvbench has no tag for (verdicts, counters, ceilings, the gate's numbers), and those
/// nvbench defines otherwise (`bandwidth` is bytes over the median time, nvbench's
/// `nv/cold/bw/global/bytes_per_second` over the mean; the SM clock is kernelgate's median of
/// per-sample readings).
pub const SUMMARIES: [Summary; 8] = [
    Summary {
        statistic: "samples",
        unit: "count",
        tag: "nv/cold/sample_size",
        name: "Samples",
        hint: "sample_size",
        hidden: false,
        int64: true,
        scale: 1.0,
        description: "Number of timed launches (one launch per sample, L2 flushed before it)",
    },
    Summary {
        statistic: "sampling_wall",
        unit: "s",
        tag: "nv/cold/walltime",
        name: "Walltime",
        hint: "duration",
        hidden: true,
        int64: false,
        scale: 1.0,
        description: "Wall time of the sampling loop",
    },
    Summary {
        statistic: "min",
        unit: "s",
        tag: "nv/cold/time/gpu/min",
        name: "Min GPU Time",
        hint: "duration",
        hidden: true,
        int64: false,
        scale: 1.0,
        description: "Fastest sample (CUDA events around one launch)",
    },
    Summary {
        statistic: "max",
        unit: "s",
        tag: "nv/cold/time/gpu/max",
        name: "Max GPU Time",
        hint: "duration",
        hidden: true,
        int64: false,
        scale: 1.0,
        description: "Slowest sample (CUDA events around one launch)",
    },
    Summary {
        statistic: "mean",
        unit: "s",
        tag: "nv/cold/time/gpu/mean",
        name: "GPU Time",
        hint: "duration",
        hidden: false,
        int64: false,
        scale: 1.0,
        description: "Mean of the samples (CUDA events around one launch)",
    },
    Summary {
        statistic: "stddev",
        unit: "s",
        tag: "nv/cold/time/gpu/stdev/absolute",
        name: "Noise",
        hint: "duration",
        hidden: true,
        int64: false,
        scale: 1.0,
        description: "Sample standard deviation of the samples",
    },
    Summary {
        statistic: "noise",
        unit: "%",
        tag: "nv/cold/time/gpu/stdev/relative",
        name: "Noise",
        hint: "percentage",
        hidden: false,
        int64: false,
        scale: 0.01,
        description: "Relative standard deviation of the samples (standard deviation / mean)",
    },
    Summary {
        statistic: "median",
        unit: "s",
        tag: "nv/cold/time/gpu/median",
        name: "Median GPU Time",
        hint: "duration",
        hidden: true,
        int64: false,
        scale: 1.0,
        description: "Median of the samples (the time kernelgate's gate compares)",
    },
];

/// The tag of the median's 95 % confidence interval, which nvbench has no tag for: kernelgate's
/// own (nvbench's readers look summaries up by tag and pass over others). Its `data` is `low` and
/// `high`, seconds, `float64`.
pub const MEDIAN_CI_TAG: &str = "kernelgate/cold/time/gpu/median/ci95";

/// The nvbench JSON document of `run`'s trials in `latencies` (those with a time median:
/// `super::latencies`), per [`SUMMARIES`] and [`MEDIAN_CI_TAG`] (pure). A statistic the run does not
/// hold for a trial, or whose value is not finite, is left out of its state.
pub fn document(run: &Run, latencies: &[Latency]) -> Json {
    let mut stats: BTreeMap<&str, BTreeMap<&str, f64>> = BTreeMap::new();
    // The median's CI in seconds as the run holds it (the latencies' bounds are in ns).
    let mut cis: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    for v in &run.values {
        if SUMMARIES.iter().any(|s| s.statistic == v.metric && s.unit == v.unit) {
            stats.entry(&v.trial).or_default().entry(&v.metric).or_insert(v.value);
        }
        if let ("median", "s", Some(low), Some(high)) = (v.metric.as_str(), v.unit.as_str(), v.ci_low, v.ci_high) {
            cis.entry(&v.trial).or_insert((low, high));
        }
    }
    // Families in name order, each with its trials in name order (`latencies` is sorted).
    let mut families: BTreeMap<&str, Vec<&Latency>> = BTreeMap::new();
    for l in latencies {
        families.entry(family_and_axes(&l.trial).0).or_default().push(l);
    }
    let benchmarks: Vec<Json> = families
        .iter()
        .enumerate()
        .map(|(index, (family, trials))| {
            let mut axes: Vec<(&str, Vec<&str>)> = Vec::new();
            let states: Vec<Json> = trials
                .iter()
                .map(|l| {
                    let (_, axis_values) = family_and_axes(&l.trial);
                    for &(axis, value) in &axis_values {
                        match axes.iter_mut().find(|(a, _)| *a == axis) {
                            Some((_, values)) if values.contains(&value) => {}
                            Some((_, values)) => values.push(value),
                            None => axes.push((axis, vec![value])),
                        }
                    }
                    // The CI where `latencies` took it as the bounds (finite, around the median).
                    let ci = matches!(l.bounds, Some((_, _, super::Bounds::MedianCi95)))
                        .then(|| cis.get(l.trial.as_str()).copied())
                        .flatten();
                    state(&axis_values, stats.get(l.trial.as_str()), ci)
                })
                .collect();
            let axes: Vec<Json> = axes
                .iter()
                .map(|(name, values)| {
                    let values: Vec<Json> =
                        values.iter().map(|v| json!({ "input_string": v, "description": "", "value": v })).collect();
                    json!({ "name": name, "type": "string", "flags": "", "values": values })
                })
                .collect();
            json!({
                "name": family,
                "index": index,
                "devices": [0],
                "axes": if axes.is_empty() { Json::Null } else { Json::Array(axes) },
                "states": states,
            })
        })
        .collect();
    let (major, minor, patch) = JSON_FILE_VERSION;
    let m = &run.meta;
    json!({
        "meta": {
            "version": { "json": { "major": major, "minor": minor, "patch": patch, "string": format!("{major}.{minor}.{patch}") } },
            "kernelgate": {
                "run_id": m.run_id, "commit": m.commit, "gpu_uuid": m.gpu_uuid,
                "driver": m.driver, "cuda": m.cuda, "nvrtc": m.nvrtc,
            },
        },
        "devices": [{ "id": 0, "name": m.gpu_name }],
        "benchmarks": benchmarks,
    })
}

/// A trial's family (the benchmark) and its axis values (pure): `family/variant/size` gives
/// `family` and `[("variant", variant), ("size", size)]`; a `/` in the size stays in it, and a name
/// with fewer parts has fewer axes.
fn family_and_axes(trial: &str) -> (&str, Vec<(&'static str, &str)>) {
    let mut parts = trial.splitn(3, '/');
    let family = parts.next().unwrap_or(trial);
    (family, ["variant", "size"].into_iter().zip(parts).collect())
}

/// One trial's state: its name as nvbench writes it (`Device=0 variant=v size=s`), its axis values,
/// the summaries of the statistics in `stats` (the run's, by statistic name) and of the median's
/// 95 % CI `ci` (seconds) where there is one.
fn state(axis_values: &[(&str, &str)], stats: Option<&BTreeMap<&str, f64>>, ci: Option<(f64, f64)>) -> Json {
    let mut name = String::from("Device=0");
    for (axis, value) in axis_values {
        name += &format!(" {axis}={value}");
    }
    let mut summaries: Vec<Json> = SUMMARIES
        .iter()
        .filter_map(|s| {
            let v = *stats?.get(s.statistic)?;
            let value = if s.int64 {
                (v.is_finite() && v.fract() == 0.0).then(|| named("value", "int64", format!("{}", v as i64)))?
            } else {
                let v = v * s.scale;
                v.is_finite().then(|| named("value", "float64", format!("{v}")))?
            };
            let mut summary = json!({ "tag": s.tag, "name": s.name, "hint": s.hint, "description": s.description });
            if s.hidden {
                summary["hide"] = json!("Hidden by default.");
            }
            summary["data"] = json!([value]);
            Some(summary)
        })
        .collect();
    if let Some((low, high)) = ci {
        summaries.push(json!({
            "tag": MEDIAN_CI_TAG,
            "name": "Median 95 % CI",
            "hint": "duration",
            "description": "95 % confidence interval of the median (kernelgate's median_ci_half_width)",
            "hide": "Hidden by default.",
            "data": [named("low", "float64", format!("{low}")), named("high", "float64", format!("{high}"))],
        }));
    }
    let axis_values: Vec<Json> =
        axis_values.iter().map(|(axis, value)| named(axis, "string", value.to_string())).collect();
    json!({
        "name": name,
        "device": 0,
        "type_config_index": 0,
        "axis_values": if axis_values.is_empty() { Json::Null } else { Json::Array(axis_values) },
        "summaries": summaries,
        "is_skipped": false,
    })
}

/// One of nvbench's named values: `{"name", "type", "value"}`, the value a string.
fn named(name: &str, kind: &str, value: String) -> Json {
    json!({ "name": name, "type": kind, "value": value })
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

    fn summary<'a>(state: &'a Json, tag: &str) -> Option<&'a Json> {
        state["summaries"].as_array().unwrap().iter().find(|s| s["tag"] == tag)
    }

    /// Per family one benchmark whose axes are the variants and sizes of its trials; per trial one
    /// state named as nvbench names them; values as strings (`int64` for the samples, `float64`
    /// for times in seconds, the noise as a fraction); a statistic the run lacks, or one that is
    /// not finite, is no summary; the CI is one only where the run has it.
    #[test]
    fn families_are_benchmarks_and_trials_states_with_typed_string_values() {
        let mut run = crate::history::tests::run("20261201T000000Z", "GPU-a", "c0ffee", 0);
        let mut median = value("f/a/1", "median", "s", 2e-6);
        (median.ci_low, median.ci_high) = (Some(1.5e-6), Some(2.5e-6));
        run.values = vec![
            median,
            value("f/a/1", "samples", "count", 500.0),
            value("f/a/1", "mean", "s", 2.25e-6),
            value("f/a/1", "noise", "%", 1.5),
            value("f/b/2", "median", "s", 4e-6),
            value("f/b/2", "stddev", "s", f64::NAN),
            value("g/x/n/m", "median", "s", 8e-6),
        ];
        let (l, _) = super::super::latencies(&run);
        let doc = document(&run, &l);
        assert_eq!(doc["meta"]["version"]["json"]["string"], "1.0.0");
        assert_eq!(doc["devices"], json!([{ "id": 0, "name": run.meta.gpu_name }]));
        let benches = doc["benchmarks"].as_array().unwrap();
        assert_eq!(benches.iter().map(|b| b["name"].as_str().unwrap()).collect::<Vec<_>>(), ["f", "g"]);
        assert_eq!((&benches[0]["index"], &benches[1]["index"]), (&json!(0), &json!(1)));
        let f = &benches[0];
        assert_eq!(f["axes"][0]["name"], "variant");
        let values = |axis: usize| f["axes"][axis]["values"].as_array().unwrap().iter().map(|v| v["value"].clone());
        assert_eq!(values(0).collect::<Vec<_>>(), [json!("a"), json!("b")]);
        assert_eq!(values(1).collect::<Vec<_>>(), [json!("1"), json!("2")]);
        let a = &f["states"][0];
        assert_eq!(a["name"], "Device=0 variant=a size=1");
        assert_eq!(a["axis_values"][1], json!({ "name": "size", "type": "string", "value": "1" }));
        let data = |s: &Json, tag: &str| summary(s, tag).unwrap_or_else(|| panic!("{tag} in {s}"))["data"].clone();
        assert_eq!(data(a, "nv/cold/sample_size"), json!([{ "name": "value", "type": "int64", "value": "500" }]));
        let float = |s: &Json, tag: &str, i: usize| {
            let d = data(s, tag);
            assert_eq!(d[i]["type"], "float64");
            d[i]["value"].as_str().expect("a string").parse::<f64>().unwrap()
        };
        assert_eq!(float(a, "nv/cold/time/gpu/mean", 0), 2.25e-6);
        assert_eq!(float(a, "nv/cold/time/gpu/median", 0), 2e-6);
        assert!((float(a, "nv/cold/time/gpu/stdev/relative", 0) - 0.015).abs() < 1e-15);
        assert_eq!((float(a, MEDIAN_CI_TAG, 0), float(a, MEDIAN_CI_TAG, 1)), (1.5e-6, 2.5e-6), "the run's seconds");
        assert_eq!(summary(a, "nv/cold/time/gpu/mean").unwrap().get("hide"), None, "shown, as nvbench shows it");
        let b = &f["states"][1];
        assert!(summary(b, "nv/cold/time/gpu/stdev/absolute").is_none(), "NaN is no summary: {b}");
        assert!(summary(b, MEDIAN_CI_TAG).is_none() && summary(b, "nv/cold/sample_size").is_none(), "{b}");
        assert_eq!(benches[1]["states"][0]["name"], "Device=0 variant=x size=n/m");
    }
}
