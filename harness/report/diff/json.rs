//! `kernelgate diff --format json` (pure): a [`Diff`] as one JSON document, schema `kernelgate-diff`
//! version [`DIFF_JSON_VERSION`], documented in docs/history.md ("Machine-readable output").
//!
//! Times are seconds (`_s`), changes percent (`_pct`), other values in the `unit` beside them; a
//! number that is not finite is `null` (JSON has none, RFC 8259 section 6). The diff compares two
//! sides' medians; each trial carries its change's 95 % confidence interval where the sides' runs
//! give one ([`super::interval`]), and its sides' per-run medians; the paired evidence, where the
//! history holds it, carries the paired test's adjusted p-value.

use super::{Diff, Presence, severity};
use serde_json::{Value as Json, json};
use std::collections::BTreeMap;

/// The `schema_version` of `kernelgate-diff` documents. Raised when a field changes meaning or
/// goes; fields may be added within a version.
pub const DIFF_JSON_VERSION: u32 = 1;

/// One run a side is made of, as the document names it.
#[derive(Debug, Clone, PartialEq)]
pub struct SideRun {
    /// Run id, `YYYYMMDDTHHMMSSZ`.
    pub run_id: String,
    /// Full commit id the run's kernels came from (`unknown` when not known).
    pub commit: String,
    /// The physical GPU's NVML UUID (`unknown` when not known).
    pub gpu_uuid: String,
    /// Device name, e.g. `NVIDIA H200`.
    pub gpu_name: String,
    /// Driver version.
    pub driver: String,
    /// The driver's CUDA version.
    pub cuda: String,
}

/// What a side of the diff is, beside its [`super::Side`]: what the user named, its GPU key, its
/// runs, and whether its times were read from same-run A/B pairs (then `runs` are the A/B runs).
#[derive(Debug, Clone, PartialEq)]
pub struct SideFacts {
    /// The side as given on the command line (a commit, a run id, a run CSV, `before:<run id>`).
    pub spec: String,
    /// The GPU key of its runs.
    pub gpu_key: String,
    /// Its runs (several for a commit run more than once: the diff takes medians).
    pub runs: Vec<SideRun>,
    /// Its times are A's or B's medians over the pairs of same-run A/B runs.
    pub from_pairs: bool,
}

fn side_json(side: &super::Side, facts: &SideFacts) -> Json {
    let runs: Vec<Json> = facts
        .runs
        .iter()
        .map(|r| {
            json!({
                "run_id": r.run_id,
                "commit": r.commit,
                "gpu_uuid": r.gpu_uuid,
                "gpu_name": r.gpu_name,
                "driver": r.driver,
                "cuda": r.cuda,
            })
        })
        .collect();
    let mut commits: Vec<&str> = facts.runs.iter().map(|r| r.commit.as_str()).collect();
    commits.dedup();
    let mut gpus: Vec<&str> = facts.runs.iter().map(|r| r.gpu_uuid.as_str()).collect();
    gpus.sort_unstable();
    gpus.dedup();
    json!({
        "spec": facts.spec,
        "label": side.label,
        "gpu": side.gpu,
        "gpu_key": facts.gpu_key,
        "from_pairs": facts.from_pairs,
        "n_runs": facts.runs.len(),
        "gpus": gpus,
        "commits": commits,
        "runs": runs,
    })
}

fn presence(p: Presence) -> &'static str {
    match p {
        Presence::Both => "both",
        Presence::Added => "added",
        Presence::Removed => "removed",
    }
}

/// `diff` as one JSON document (pure): both sides ([`SideFacts`] beside each [`super::Side`]), the
/// one-line summary and the notes the Markdown shows, the count of the new side's verdicts over
/// the trials on both sides, every trial (medians, change, verdict, the counters that explain
/// the change, every metric whose value moved or that one side lacks), and the paired evidence.
pub fn diff_json(diff: &Diff, old: &SideFacts, new: &SideFacts) -> Json {
    let mut verdicts: BTreeMap<(usize, &str), usize> = BTreeMap::new();
    for t in diff.trials.iter().filter(|t| t.presence == Presence::Both) {
        *verdicts.entry((severity(&t.verdict), t.verdict.as_str())).or_default() += 1;
    }
    let verdicts: serde_json::Map<String, Json> =
        verdicts.into_iter().map(|((_, v), n)| (v.to_string(), json!(n))).collect();
    let trials: Vec<Json> = diff
        .trials
        .iter()
        .map(|t| {
            let explanation: Vec<Json> = t
                .explanation
                .iter()
                .map(|f| json!({ "metric": f.metric, "old": f.old, "new": f.new, "change": f.change() }))
                .collect();
            let moved: Vec<Json> = t
                .metrics
                .iter()
                .filter(|m| match (m.old, m.new) {
                    (Some(a), Some(b)) => a.to_bits() != b.to_bits() && !(a.is_nan() && b.is_nan()),
                    _ => true,
                })
                .map(|m| {
                    json!({
                        "kernel": m.kernel,
                        "metric": m.metric,
                        "unit": m.unit,
                        "old": m.old,
                        "new": m.new,
                        "delta_pct": m.delta().map(|d| 100.0 * d),
                        "counter": m.counter,
                    })
                })
                .collect();
            let interval = t.interval();
            let per_run = |runs: &[super::RunTime]| -> Vec<Json> { runs.iter().map(|r| json!(r.median_s)).collect() };
            json!({
                "trial": t.trial,
                "presence": presence(t.presence),
                "old_median_s": t.old_s,
                "new_median_s": t.new_s,
                "delta_pct": t.delta().map(|d| 100.0 * d),
                "delta_ci_pct": interval.map(|i| [100.0 * i.low, 100.0 * i.high]),
                "delta_ci_method": interval.map(|i| i.method.name()),
                "delta_ci_df": interval.and_then(|i| match i.method {
                    super::interval::Method::Welch { df } => Some(df),
                    super::interval::Method::Normal => None,
                }),
                "within_noise": interval.map(|i| i.straddles_zero()),
                "old_run_medians_s": per_run(&t.old_runs),
                "new_run_medians_s": per_run(&t.new_runs),
                "change": t.change().word(),
                "changed": t.changed(),
                "verdict": t.verdict,
                "decided_by": t.decided_by,
                "explanation": explanation,
                "metrics_moved": moved,
                "metrics_unchanged": t.metrics.len() - moved.len(),
            })
        })
        .collect();
    let paired: Vec<Json> = diff
        .paired
        .iter()
        .flat_map(|(trial, runs)| {
            runs.iter().map(move |p| {
                json!({
                    "trial": trial,
                    "run": p.run,
                    "a_median_s": p.a_median_s,
                    "b_median_s": p.b_median_s,
                    "delta_pct": p.delta_pct,
                    "p_adjusted": p.p_adjusted,
                    "pairs": p.pairs,
                    "verdict": p.verdict,
                    "decided_by": p.decided_by,
                })
            })
        })
        .collect();
    json!({
        "schema": "kernelgate-diff",
        "schema_version": DIFF_JSON_VERSION,
        "old": side_json(&diff.old, old),
        "new": side_json(&diff.new, new),
        "summary": diff.summary(),
        "notes": diff.notes,
        "verdicts": verdicts,
        "trials": trials,
        "paired": paired,
    })
}
