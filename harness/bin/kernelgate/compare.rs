//! `kernelgate compare BASE RUN`: two run records (or a baseline and a record) judged trial by
//! trial with the gate's rules ([`kernelgate::gate::compare_records`]), printed as a table or as
//! one JSON document.

use clap::ValueEnum;
use kernelgate::Result;
use kernelgate::gate::{CompareOptions, Compared, RunRecord, Verdict, compare_records};
use std::collections::BTreeMap;
use std::path::Path;

/// How `kernelgate compare`, `diff` and the history's queries print their result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// For people: a table, lines, or Markdown.
    Text,
    /// One JSON document on stdout, nothing else there (its schema: the option's help).
    Json,
}

/// What decided a compared trial's verdict, in words (`time`, `counter <metric>`, or the reason).
fn decided_by(j: &kernelgate::gate::Judged, cycles: bool) -> String {
    match &j.decided {
        kernelgate::gate::Decided::Time if cycles => "time, in SM cycles".to_string(),
        kernelgate::gate::Decided::Time => "time".to_string(),
        kernelgate::gate::Decided::Counter(m) => format!("counter {}", m.metric),
        kernelgate::gate::Decided::Conditions | kernelgate::gate::Decided::Tool => j.reason.clone(),
    }
}

/// `kernelgate compare --format json` (pure): schema `kernelgate-compare` version 1. Medians are
/// seconds (`unit` `s`) or SM cycles (`cycles` with `--cycles`); `delta_pct` and
/// `effect_floor_pct` are percent; a trial that could not be compared has them `null`.
fn compare_json(base: &Path, run: &Path, options: &CompareOptions, compared: &Compared) -> serde_json::Value {
    let trials: Vec<serde_json::Value> = compared
        .rows
        .iter()
        .map(|(trial, j)| {
            let c = j.comparison.as_ref();
            serde_json::json!({
                "trial": trial,
                "verdict": j.verdict.as_str(),
                "decided_by": decided_by(j, options.cycles),
                "base_median": c.map(|c| c.baseline_median_s),
                "run_median": c.map(|c| c.median_s),
                "delta_pct": c.map(|c| 100.0 * c.delta),
                "p_adjusted": c.map(|c| c.p_adjusted),
                "effect_floor_pct": c.map(|c| 100.0 * c.min_effect),
            })
        })
        .collect();
    serde_json::json!({
        "schema": "kernelgate-compare",
        "schema_version": 1,
        "base": base.display().to_string(),
        "run": run.display().to_string(),
        "scale": options.scale,
        "unit": if options.cycles { "cycles" } else { "s" },
        "alpha": options.policy.alpha,
        "warnings": compared.warnings,
        "only_in_one": compared.only_in_one.len(),
        "only_in_one_trials": compared.only_in_one,
        "verdicts": verdict_counts(compared),
        "trials": trials,
    })
}

pub(crate) fn compare_command(base: &Path, run: &Path, options: &CompareOptions, format: Format) -> Result<bool> {
    let (b, r) = (RunRecord::load(base)?, RunRecord::load(run)?);
    let compared = compare_records(&b, &r, options)?;
    let regressed = compared.rows.iter().any(|(_, j)| j.verdict == Verdict::Regressed);
    if format == Format::Json {
        let doc = compare_json(base, run, options, &compared);
        println!(
            "{}",
            kernelgate::console::json_shown(
                &serde_json::to_string_pretty(&doc).expect("a JSON value always serializes")
            )
        );
        return Ok(regressed);
    }
    for w in &compared.warnings {
        kernelgate::outln!("warning: {w}");
    }
    let width = compared.rows.iter().map(|(t, _)| t.len()).max().unwrap_or(5);
    kernelgate::outln!(
        "{:<width$}  {:>10}  {:>10}  {:>8}  {:>9}  {:>6}  verdict (decided by)",
        "trial",
        "base",
        "run",
        "delta",
        "p_adj",
        "floor"
    );
    let counts = verdict_counts(&compared);
    for (trial, j) in &compared.rows {
        let show = |v: f64| if options.cycles { format!("{v:.0} cyc") } else { kernelgate::units::duration(v) };
        let by = decided_by(j, options.cycles);
        match &j.comparison {
            Some(c) => kernelgate::outln!(
                "{trial:<width$}  {:>10}  {:>10}  {:>8}  {:>9.1e}  {:>5.2}%  {} ({by})",
                show(c.baseline_median_s),
                show(c.median_s),
                kernelgate::units::signed_pct(100.0 * c.delta),
                c.p_adjusted,
                100.0 * c.min_effect,
                j.verdict.as_str()
            ),
            None => kernelgate::outln!(
                "{trial:<width$}  {:>10}  {:>10}  {:>8}  {:>9}  {:>6}  {} ({by})",
                "-",
                "-",
                "-",
                "-",
                "-",
                j.verdict.as_str()
            ),
        }
    }
    let summary: Vec<String> = counts.iter().map(|(v, n)| format!("{n} {v}")).collect();
    let only = match compared.only_in_one.len() {
        0 => String::new(),
        n => format!("; {n} trial{} in only one record", if n == 1 { "" } else { "s" }),
    };
    let unit = if options.cycles { ", in SM cycles" } else { "" };
    kernelgate::outln!(
        "{} compared (scale {}{unit}): {}{only}",
        super::trials_count(compared.rows.len()),
        options.scale,
        summary.join(", ")
    );
    if !compared.only_in_one.is_empty() {
        kernelgate::outln!("in only one record (not compared): {}", compared.only_in_one.join(", "));
    }
    if !compared.warnings.is_empty() && compared.rows.iter().any(|(_, j)| j.verdict != Verdict::Unchanged) {
        kernelgate::outln!(
            "note: the verdicts above come from records of different machines or settings (warnings above)"
        );
    }
    Ok(regressed)
}

/// How many compared trials got each verdict, by verdict name.
fn verdict_counts(compared: &Compared) -> BTreeMap<&'static str, usize> {
    let mut counts = BTreeMap::new();
    for (_, j) in &compared.rows {
        *counts.entry(j.verdict.as_str()).or_insert(0) += 1;
    }
    counts
}
