//! The report of a same-run A/B run, for a pull request: a JSON document (schema
//! `harness/report/ab/ab-report.schema.json`, [`SCHEMA_VERSION`]), a Markdown comment and an HTML page made
//! from it. Pure: a plain [`AbReport`] in, text out.
//!
//! The Markdown starts with a hidden marker ([`MARKER`]) so that a bot can find and update its one
//! comment, then the status line, then the trials that did not come out `unchanged` with what
//! explains them (the counters that moved), then every trial in a collapsed table; it is cut to
//! [`MAX_CHARS`] (GitHub refuses a comment body over 65,536 characters) and every name in it goes
//! through [`super::markdown::escape`] (no mentions, autolinks or bidirectional controls).
//!
//! The HTML page ([`html`]) says the same in the same order with nothing cut: the status, the
//! trials not `unchanged`, every trial with its change's 95 % interval, the cases not timed. It is
//! one self-contained file (no script, no external resource), readable from 390 px wide, and tells
//! each verdict by word and by colour ([`VERDICT_COLOURS`]).

use serde::Serialize;
use std::fmt::Write as _;

/// The version of the JSON document's schema (`ab-report.schema.json`, beside this file): 2 added
/// each trial's `delta_ci_pct`, 3 the A/A `controls`.
pub const SCHEMA_VERSION: u32 = 3;

/// The first line of the Markdown: an HTML comment GitHub does not show, by which a bot finds the
/// comment it posted before and updates it instead of adding another.
pub const MARKER: &str = "<!-- kernelgate-ab-report -->";

/// Longest Markdown, characters: 60,000, under GitHub's 65,536-character limit of an issue or
/// pull-request comment body, with room for a bot's own lines (the same bound as
/// [`super::markdown::MAX_CHARS`]).
pub const MAX_CHARS: usize = super::markdown::MAX_CHARS;

/// The reason of a trial timed alone in a same-run A/B run because revision A lacks its kernel (a
/// kernel new since A): `absent` says what A lacks, as the run's log line does
/// (`kernels/blocksum.cu does not exist at HEAD`). Such a trial's verdict is `no-baseline`; the run
/// prints this sentence when it times the trial, and the JSON document, the Markdown comment and
/// the HTML page carry it as the trial's explanation.
pub fn new_since_a(absent: &str) -> String {
    format!("new since A: {absent}; timed alone, with no A to compare with")
}

/// One side of the comparison.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Side {
    /// What the kernels are: `kernels/ here` (the tree's, as read) or `kernels/ at <rev>`.
    pub label: String,
    /// The full commit id the kernels came from.
    pub commit: String,
}

/// The GPU the pairs were timed on.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct GpuIdentity {
    /// `NVIDIA H200`.
    pub name: String,
    /// The GPU key (`nvidia-h200-sm90`).
    pub key: String,
    /// NVML UUID of the physical GPU.
    pub uuid: String,
    /// Driver version.
    pub driver: String,
}

/// One trial's comparison.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct AbTrial {
    /// `family/variant/size`.
    pub trial: String,
    /// `improved`, `unchanged`, `regressed`, `ambiguous`, `invalid` or `no-baseline` (timed alone:
    /// new since A, [`new_since_a`]).
    pub verdict: String,
    /// What decided it: `time (A/B)`, `counter <metric> (A/B)`, `conditions`.
    pub decided_by: String,
    /// Median of A's samples, seconds (`None` when not paired).
    pub a_median_s: Option<f64>,
    /// Median of B's samples, seconds.
    pub b_median_s: f64,
    /// Median per-pair ratio B/A - 1, percent.
    pub delta_pct: Option<f64>,
    /// The 95 % confidence interval of `delta_pct`, percent, `[low, high]`
    /// ([`crate::gate::paired::delta_interval`]; `None` when not paired).
    pub delta_ci_pct: Option<[f64; 2]>,
    /// The one-sided Wilcoxon signed-rank p-value times the trials compared (Bonferroni).
    pub p_adjusted: Option<f64>,
    /// The effect floor applied, percent.
    pub effect_floor_pct: Option<f64>,
    /// Pairs (or samples) kept.
    pub samples: usize,
    /// Counters that moved past their tolerance, B against A (`metric +x.xx% (a -> b, class)`).
    pub counters_moved: Vec<String>,
    /// The verdict's sentence ([`new_since_a`]'s for a trial timed alone).
    pub reason: String,
}

impl AbTrial {
    /// What explains the verdict in a few words, for the Markdown's table: up to three of the
    /// counters that moved, else what decided it, or for a trial timed alone (`no-baseline`) its
    /// reason, which says what A lacks ([`new_since_a`]).
    fn explains(&self) -> Vec<&str> {
        if !self.counters_moved.is_empty() {
            self.counters_moved.iter().take(3).map(String::as_str).collect()
        } else if self.verdict == "no-baseline" {
            vec![&self.reason]
        } else {
            vec![&self.decided_by]
        }
    }
}

/// A case that was not timed, and why (identical PTX, a kernel missing at a revision).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct NotTimed {
    /// `family/variant/size`.
    pub trial: String,
    /// The reason the run gave.
    pub reason: String,
}

/// Everything the A/B report says.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct AbReport {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The run id (`YYYYMMDDTHHMMSSZ`).
    pub run_id: String,
    /// The reference side (`KERNELGATE_AB`).
    pub a: Side,
    /// The side under test.
    pub b: Side,
    /// Where the pairs were timed.
    pub gpu: GpuIdentity,
    /// Whether ncu counters were compared too (`KERNELGATE_NCU=1`).
    pub counters: bool,
    /// The timed trials, sorted by name (the A/A controls apart).
    pub trials: Vec<AbTrial>,
    /// The A/A controls (`KERNELGATE_AB_CONTROLS`, [`crate::suite::controls`]), sorted by name: cases
    /// whose modules are the same at both revisions, timed in pairs as a check of the gate. A
    /// verdict other than `unchanged` is the gate's false alarm; it never fails the run. Empty in a
    /// document of schema version 2.
    #[serde(default)]
    pub controls: Vec<AbTrial>,
    /// The cases that were not timed, sorted by name.
    pub not_timed: Vec<NotTimed>,
}

impl AbReport {
    /// Trials per verdict, in the order improved, regressed, ambiguous, invalid, no-baseline,
    /// unchanged (those with none left out).
    pub fn counts(&self) -> Vec<(&'static str, usize)> {
        ["regressed", "improved", "ambiguous", "invalid", "no-baseline", "unchanged"]
            .into_iter()
            .map(|v| (v, self.trials.iter().filter(|t| t.verdict == v).count()))
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// Whether any trial regressed: the status the Markdown and the HTML lead with.
    pub fn regressed(&self) -> bool {
        self.trials.iter().any(|t| t.verdict == "regressed")
    }

    /// The JSON document, pretty-printed.
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).expect("the report serializes")
    }
}

/// `Controls (A/A): 4 of 4 unchanged.`, with each control that was not and its change; `None`
/// without controls.
pub fn controls_line(r: &AbReport) -> Option<String> {
    if r.controls.is_empty() {
        return None;
    }
    let unchanged = r.controls.iter().filter(|c| c.verdict == "unchanged").count();
    let others: Vec<String> = r
        .controls
        .iter()
        .filter(|c| c.verdict != "unchanged")
        .map(|c| {
            format!(
                "{} {}{}",
                super::markdown::escape(&c.trial),
                c.verdict,
                c.delta_pct.map(|d| format!(" {d:+.2} %")).unwrap_or_default()
            )
        })
        .collect();
    Some(format!(
        "Controls (A/A, the same modules on both sides, as a check of the gate): {unchanged} of {} unchanged{}.",
        r.controls.len(),
        if others.is_empty() { String::new() } else { format!(" ({}: false alarms of the gate)", others.join("; ")) }
    ))
}

/// `d0553db` from a commit id.
fn short(commit: &str) -> &str {
    &commit[..commit.len().min(7)]
}

fn time(s: Option<f64>) -> String {
    s.map_or_else(|| "-".to_string(), crate::units::duration)
}

/// The Markdown comment: [`MARKER`], the status, the trials not `unchanged` with what explains them,
/// then every trial (collapsed) and the cases not timed, within [`MAX_CHARS`].
pub fn markdown(r: &AbReport) -> String {
    use super::markdown::escape;
    let status = if r.regressed() { "❌ regressions" } else { "✅ no regression" };
    let counts: Vec<String> = r.counts().iter().map(|(v, n)| format!("{n} {v}")).collect();
    let mut out = format!(
        "{MARKER}\n### kernelgate A/B: {status}\n\n**{}** of {} timed trials{}. B = {} (`{}`) against A = {} \
         (`{}`), timed in pairs on one {} ({}, driver {}){}; run {}.\n",
        if counts.is_empty() { "nothing".to_string() } else { counts.join(", ") },
        r.trials.len(),
        if r.not_timed.is_empty() { String::new() } else { format!(", {} not timed", r.not_timed.len()) },
        escape(&r.b.label),
        short(&r.b.commit),
        escape(&r.a.label),
        short(&r.a.commit),
        escape(&r.gpu.name),
        escape(&r.gpu.uuid),
        escape(&r.gpu.driver),
        if r.counters { ", with ncu counters" } else { "" },
        escape(&r.run_id),
    );
    if let Some(line) = controls_line(r) {
        out += &format!("\n{line}\n");
    }
    let changed: Vec<&AbTrial> = r.trials.iter().filter(|t| t.verdict != "unchanged").collect();
    let footer_room = 2_000;
    if !changed.is_empty() {
        out += "\n| trial | A | B | change | verdict | what explains it |\n| --- | ---: | ---: | ---: | --- | --- |\n";
        for (i, t) in changed.iter().enumerate() {
            let explains = t.explains().into_iter().map(escape).collect::<Vec<_>>().join("; ");
            let row = format!(
                "| {} | {} | {} | {} | **{}** | {} |\n",
                escape(&t.trial),
                time(t.a_median_s),
                time(Some(t.b_median_s)),
                t.delta_pct.map_or_else(|| "-".to_string(), crate::units::signed_pct),
                escape(&t.verdict),
                explains
            );
            if out.chars().count() + row.chars().count() + footer_room > MAX_CHARS {
                out += &format!(
                    "\n{} more trials left out to keep this comment under {MAX_CHARS} characters; the JSON report \
                     lists every trial.\n",
                    changed.len() - i
                );
                return out;
            }
            out += &row;
        }
    }
    let mut details = format!(
        "\n<details><summary>All {} timed trials</summary>\n\n| trial | change | verdict |\n| --- | ---: | --- |\n",
        r.trials.len()
    );
    let mut left = 0;
    for t in &r.trials {
        let row = format!(
            "| {} | {} | {} |\n",
            escape(&t.trial),
            t.delta_pct.map_or_else(|| "-".to_string(), crate::units::signed_pct),
            escape(&t.verdict)
        );
        if out.chars().count() + details.chars().count() + row.chars().count() + footer_room > MAX_CHARS {
            left += 1;
            continue;
        }
        details += &row;
    }
    if left > 0 {
        details += &format!("\n{left} rows left out (the comment's size limit); the JSON report lists them.\n");
    }
    details += "\n</details>\n";
    out += &details;
    if !r.not_timed.is_empty() {
        out += &format!(
            "\n{} cases not timed (their two versions compile to the same PTX, or a kernel is missing on one side).\n",
            r.not_timed.len()
        );
    }
    out
}

mod html;
pub use html::{VERDICT_COLOURS, html};

#[cfg(test)]
mod tests {
    use super::*;

    /// A synthetic report (every number and identifier is made up): `trials` trials named
    /// `fam/v<i>/@octocat`, the first regressed by a counter, the rest unchanged; one case not timed.
    pub(crate) fn report(trials: usize) -> AbReport {
        AbReport {
            schema_version: SCHEMA_VERSION,
            run_id: "20261201T113233Z".into(),
            a: Side { label: "kernels/ at main = d0553db3a1da".into(), commit: "d0553db3a1da32d5e3ede3189718fcb140a0a9e2".into() },
            b: Side { label: "kernels/ here".into(), commit: "c5522fd0000000000000000000000000000000000".into() },
            gpu: GpuIdentity {
                name: "NVIDIA H200".into(),
                key: "nvidia-h200-sm90".into(),
                uuid: "GPU-831f4952-8e33-380c-a667-3d73fb0c06c6".into(),
                driver: "580.159.04".into(),
            },
            counters: true,
            trials: (0..trials)
                .map(|i| AbTrial {
                    trial: format!("fam/v{i}/@octocat"),
                    verdict: if i == 0 { "regressed".into() } else { "unchanged".into() },
                    decided_by: if i == 0 { "counter l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum (A/B)".into() } else { "time (A/B)".into() },
                    a_median_s: Some(1.5e-4),
                    b_median_s: 1.5e-4,
                    delta_pct: Some(0.02),
                    delta_ci_pct: Some([-0.03, 0.07]),
                    p_adjusted: Some(1.0),
                    effect_floor_pct: Some(0.5),
                    samples: 1603,
                    counters_moved: if i == 0 {
                        vec!["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum +96.68% (2236763 -> 4399212, count, tolerance 1.00%)".into()]
                    } else {
                        Vec::new()
                    },
                    reason: "…".into(),
                })
                .collect(),
            controls: Vec::new(),
            not_timed: vec![NotTimed { trial: "fam/same/1".into(), reason: "identical".into() }],
        }
    }

    /// The A/A controls are said in one line after the status: how many came out unchanged, and
    /// each false alarm with its change; they are not counted among the trials.
    #[test]
    fn the_controls_are_one_line_naming_each_false_alarm() {
        let mut r = report(2);
        assert!(!markdown(&r).contains("Controls"), "no line without controls");
        let mut control = r.trials[1].clone();
        control.trial = "fam/ctl/1".into();
        control.decided_by = "control: time (A/A)".into();
        r.controls = vec![control.clone(), AbTrial { verdict: "improved".into(), delta_pct: Some(-1.3), ..control }];
        r.controls[1].trial = "fam/ctl/2".into();
        let md = markdown(&r);
        assert!(
            md.contains("Controls (A/A, the same modules on both sides, as a check of the gate): 1 of 2 unchanged"),
            "{md}"
        );
        assert!(md.contains("fam/ctl/2 improved -1.30 %: false alarms of the gate"), "{md}");
        assert!(md.contains("of 2 timed trials"), "controls are not trials: {md}");
        assert!(html(&r).contains("1 of 2 unchanged"), "the page says it too");
    }

    #[test]
    fn the_comment_starts_with_its_marker_and_status_and_explains_the_changed_trials() {
        let md = markdown(&report(3));
        assert!(md.starts_with("<!-- kernelgate-ab-report -->\n### kernelgate A/B: ❌ regressions\n"), "{md}");
        assert!(md.contains("**1 regressed, 2 unchanged** of 3 timed trials, 1 not timed"), "{md}");
        assert!(md.contains("| **regressed** | l1tex\\_\\_data\\_pipe"), "the counter explains it: {md}");
        assert!(!md.contains("@octocat"), "no live mention: {md}");
        assert!(md.contains("<details><summary>All 3 timed trials</summary>"), "{md}");
    }

    #[test]
    fn a_large_run_keeps_the_comment_limit() {
        let mut r = report(20_000);
        for t in r.trials.iter_mut().step_by(2) {
            t.verdict = "regressed".into();
        }
        let md = markdown(&r);
        assert!(md.chars().count() <= MAX_CHARS, "{} characters", md.chars().count());
        assert!(md.contains("more trials left out to keep this comment under 60000 characters"), "tail cut");
    }

    /// The document validates against its published schema, and the schema refuses a document
    /// that breaks it (so the check can fail).
    #[test]
    fn the_json_document_validates_against_its_schema() {
        let schema: serde_json::Value = serde_json::from_str(include_str!("ab-report.schema.json")).unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&report(3).json()).unwrap();
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{errors:?}");
        let mut bad = doc.clone();
        bad["trials"][0]["verdict"] = "slower".into();
        bad["trials"][1]["b_median_s"] = (-1.0).into();
        bad["trials"][2]["delta_ci_pct"] = serde_json::json!([1.0]);
        assert_eq!(validator.iter_errors(&bad).count(), 3);
    }

    #[test]
    fn the_json_document_carries_the_schema_version_units_and_identity() {
        let v: serde_json::Value = serde_json::from_str(&report(2).json()).unwrap();
        assert_eq!(v["schema_version"], 3);
        assert_eq!(v["controls"], serde_json::json!([]));
        assert_eq!(v["trials"][0]["delta_ci_pct"], serde_json::json!([-0.03, 0.07]));
        assert_eq!(v["gpu"]["uuid"], "GPU-831f4952-8e33-380c-a667-3d73fb0c06c6");
        assert_eq!(v["trials"][0]["a_median_s"], 1.5e-4);
        assert_eq!(v["a"]["commit"], "d0553db3a1da32d5e3ede3189718fcb140a0a9e2");
    }
}
