//! The history queries as JSON documents (pure): `kernelgate history runs|show|changes|gate|previous
//! --format json`. Each document is one object with `schema` (`kernelgate-history-<command>`) and
//! `schema_version` ([`HISTORY_JSON_VERSION`]); the fields are documented in docs/history.md
//! ("Machine-readable output"). A run is [`RunMeta`] as serde writes it (its field names; times in
//! unix seconds); values are in the `unit` beside them; a number that is not finite (a change from
//! 0, a value no run measured) is `null`, as JSON has no NaN or infinity (RFC 8259, section 6).

use super::*;
use serde_json::{Value as Json, json};

/// The `schema_version` of every `kernelgate-history-*` document. Raised when a field changes
/// meaning or goes; fields may be added within a version.
pub const HISTORY_JSON_VERSION: u32 = 1;

/// The common head of a history document: `schema` `kernelgate-history-<command>` and its version.
fn head(command: &str) -> serde_json::Map<String, Json> {
    let mut m = serde_json::Map::new();
    m.insert("schema".into(), json!(format!("kernelgate-history-{command}")));
    m.insert("schema_version".into(), json!(HISTORY_JSON_VERSION));
    m
}

/// A run's metadata as JSON: [`RunMeta`]'s fields by their names.
pub fn run_json(meta: &RunMeta) -> Json {
    serde_json::to_value(meta).expect("a RunMeta always serializes")
}

/// A change point of a series of `unit` as JSON, at the run `at` (the first of the new regime):
/// its GPU, run id, commit and subject, the means before and after (in `unit`), the change in
/// percent (`null` when the mean before is 0) and the p-value.
pub fn change_point_json(at: &RunMeta, cp: &ChangePoint, unit: &str) -> Json {
    json!({
        "gpu_uuid": at.gpu_uuid,
        "run_id": at.run_id,
        "commit": at.commit,
        "subject": at.subject,
        "unit": unit,
        "before": cp.before,
        "after": cp.after,
        "change_pct": 100.0 * cp.change,
        "p_value": cp.p_value,
    })
}

/// The change-point settings every query uses, as JSON: the method and the smallest magnitude, %.
fn method() -> Json {
    json!({ "method": changepoint::METHOD, "min_magnitude_pct": 100.0 * GATE_MIN_MAGNITUDE, "per": "gpu_uuid" })
}

/// `kernelgate history runs --format json` (`kernelgate-history-runs`): `dir` and, per GPU key
/// ([`super::super::runs_by_key`]'s answer), its runs: each run's metadata and `values`, the
/// number of values stored for it.
pub fn runs_json(dir: &Path, keys: &[(String, Vec<RunSummary>)]) -> Json {
    let mut doc = head("runs");
    doc.insert("dir".into(), json!(dir.display().to_string()));
    let keys: Vec<Json> = keys
        .iter()
        .map(|(key, runs)| {
            let runs: Vec<Json> = runs
                .iter()
                .map(|r| {
                    let mut run = run_json(&r.meta);
                    run["values"] = json!(r.values);
                    run
                })
                .collect();
            json!({ "gpu_key": key, "runs": runs })
        })
        .collect();
    doc.insert("gpu_keys".into(), json!(keys));
    Json::Object(doc)
}

/// `kernelgate history show --format json` (`kernelgate-history-show`): the trial, the metric,
/// the change-point method, and per GPU key ([`show_series`]'s answer) every point (the run, the
/// value in its unit, the 95 % confidence interval where stored, the run's verdict and what
/// decided it) and the change points ([`series_change_points`]).
pub fn show_json(trial: &str, metric: &str, keys: &[(String, Vec<(RunMeta, Value)>)]) -> Json {
    let mut doc = head("show");
    doc.insert("trial".into(), json!(trial));
    doc.insert("metric".into(), json!(metric));
    doc.insert("change_points_by".into(), method());
    let keys: Vec<Json> = keys
        .iter()
        .map(|(key, series)| {
            let points: Vec<Json> = series
                .iter()
                .map(|(m, v)| {
                    json!({
                        "run": run_json(m),
                        "value": v.value,
                        "unit": v.unit,
                        "ci_low": v.ci_low,
                        "ci_high": v.ci_high,
                        "verdict": v.verdict,
                        "decided_by": v.decided_by,
                    })
                })
                .collect();
            let unit = series.first().map_or("", |(_, v)| v.unit.as_str());
            let found: Vec<Json> = series_change_points(series)
                .iter()
                .map(|(i, cp)| {
                    let mut c = change_point_json(&series[*i].0, cp, unit);
                    c["point"] = json!(i);
                    c
                })
                .collect();
            json!({ "gpu_key": key, "points": points, "change_points": found })
        })
        .collect();
    doc.insert("gpu_keys".into(), json!(keys));
    Json::Object(doc)
}

/// `kernelgate history changes --format json` (`kernelgate-history-changes`): the metric (`null`
/// for every metric), `since`, the change-point method, and per GPU key ([`find_changes`]'s
/// answer) its change points at or after `since`, newest first, each with its trial, metric and
/// unit.
pub fn changes_json(metric: Option<&str>, since: Option<&str>, keys: &[KeyChanges]) -> Json {
    let mut doc = head("changes");
    doc.insert("metric".into(), json!(metric));
    doc.insert("since".into(), json!(since));
    doc.insert("change_points_by".into(), method());
    let keys: Vec<Json> = keys
        .iter()
        .map(|k| {
            let found: Vec<Json> = k
                .found
                .iter()
                .filter(|f| f.run >= k.from)
                .map(|f| {
                    let s = &k.all.series[f.series];
                    let mut c = change_point_json(&k.all.runs[f.run], &f.change, &s.unit);
                    c["trial"] = json!(s.trial);
                    c["metric"] = json!(s.metric);
                    c
                })
                .collect();
            json!({ "gpu_key": k.gpu_key, "change_points": found })
        })
        .collect();
    doc.insert("gpu_keys".into(), json!(keys));
    Json::Object(doc)
}

/// `kernelgate history gate --format json` (`kernelgate-history-gate`): the process's
/// `exit_code` and why it is not the history's (`exit_reason`, [`nightly_exit`]), the
/// `suite_exit` given (null when none was: not a passing suite), the history's `outcome` ([`worst`]), and per run gated its key, metadata,
/// outcome and reasons (what was found, the trial, whether it gates, the text line), and with
/// `--reference gpu` every trial judged against its GPU's own runs (verdict, median and reference
/// in s, their runs, delta and floor in %, whether its module changed).
pub fn gate_json(gated: &[Gated], suite_exit: Option<u8>, exit_code: u8, exit_reason: Option<&str>) -> Json {
    let mut doc = head("gate");
    doc.insert("exit_code".into(), json!(exit_code));
    doc.insert("exit_reason".into(), json!(exit_reason));
    doc.insert("suite_exit".into(), json!(suite_exit));
    doc.insert("outcome".into(), json!(worst(gated).as_str()));
    let runs: Vec<Json> = gated
        .iter()
        .map(|g| {
            let reasons: Vec<Json> = g
                .decision
                .reasons
                .iter()
                .map(|r| {
                    json!({
                        "finding": r.finding.as_str(),
                        "trial": r.trial,
                        "gating": r.finding != Finding::Note && r.not_gating.is_none(),
                        "not_gating_because": r.not_gating,
                        "text": r.text,
                    })
                })
                .collect();
            let trials: Vec<Json> = g
                .trials
                .iter()
                .map(|t| {
                    json!({
                        "trial": t.trial,
                        "judgement": t.judgement.as_str(),
                        "median_s": t.median,
                        "reference_s": t.reference,
                        "reference_runs": t.reference_runs,
                        "delta_pct": t.delta.map(|d| d * 100.0),
                        "floor_pct": t.floor.map(|f| f * 100.0),
                        "calibrated_min_effect_pct": t.calibrated.map(|f| f * 100.0),
                        "module_changed": t.module_changed,
                    })
                })
                .collect();
            json!({
                "gpu_key": g.gpu_key,
                "run": run_json(&g.run),
                "outcome": g.decision.outcome.as_str(),
                "ab_against": g.decision.ab_against,
                "reasons": reasons,
                "trials": trials,
            })
        })
        .collect();
    doc.insert("runs".into(), json!(runs));
    Json::Object(doc)
}

/// `kernelgate history previous --format json` (`kernelgate-history-previous`): the GPU key, the
/// run asked about, and the run of the commit stored before its commit (`null` when none).
pub fn previous_json(found: &Previous) -> Json {
    let mut doc = head("previous");
    doc.insert("gpu_key".into(), json!(found.gpu_key));
    doc.insert("run".into(), run_json(&found.run));
    doc.insert("previous".into(), found.previous.as_ref().map_or(Json::Null, run_json));
    Json::Object(doc)
}
