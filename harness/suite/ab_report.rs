//! The end of a same-run A/B run: the comparison as a JSON document, a Markdown comment and an
//! HTML page ([`crate::report::ab`]) beside the run CSV, and the Markdown appended to the GitHub Actions job
//! summary when the run is a step of one (`GITHUB_STEP_SUMMARY`, GitHub's documented variable).

use super::{Suite, Timed};
use crate::gate::paired::delta_interval;
use crate::report::ab::{AbReport, AbTrial, GpuIdentity, NotTimed, SCHEMA_VERSION, Side, html, markdown};
use crate::report::events::Event;
use crate::report::junit::Outcome;
use crate::{error::Error, report};
use std::io::Write as _;

/// The plain report of this A/B run, from its timed trials and the outcomes of the rest.
fn build(suite: &Suite, timed: &[Timed]) -> Option<AbReport> {
    let revision = suite.ab.get()?.as_ref().ok()?;
    let first = timed.first()?;
    let b_commit = suite.ab_b.get().map_or_else(|| suite.git.commit.clone(), |r| r.commit.clone());
    let b = Side { label: suite.b_side(), commit: b_commit };
    let mut trials: Vec<AbTrial> = timed
        .iter()
        .map(|t| {
            let c = t.result.comparison.as_ref();
            AbTrial {
                trial: t.result.trial.clone(),
                verdict: t.result.verdict.as_str().to_string(),
                decided_by: t.result.decided_by.clone(),
                a_median_s: c.map(|c| c.baseline_median_s),
                b_median_s: c.map_or(t.result.summary.median_s, |c| c.median_s),
                delta_pct: c.map(|c| 100.0 * c.delta),
                delta_ci_pct: c.and_then(delta_interval).map(|ci| ci.map(|x| 100.0 * x)),
                p_adjusted: c.map(|c| c.p_adjusted),
                effect_floor_pct: c.map(|c| 100.0 * c.min_effect),
                samples: t.result.summary.n,
                counters_moved: t.moved.clone(),
                reason: t.reason.clone(),
            }
        })
        .collect();
    trials.sort_by(|x, y| x.trial.cmp(&y.trial));
    let (controls, trials): (Vec<AbTrial>, Vec<AbTrial>) =
        trials.into_iter().partition(|t| t.decided_by.starts_with(super::controls::DECIDED_BY_PREFIX));
    let mut not_timed: Vec<NotTimed> = suite
        .collected
        .outcomes
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .filter(|o| !o.name.starts_with("compile/"))
        .filter_map(|o| match &o.outcome {
            Outcome::Skipped(reason) => Some(NotTimed { trial: o.name.clone(), reason: reason.clone() }),
            _ => None,
        })
        .collect();
    not_timed.sort_by(|x, y| x.trial.cmp(&y.trial));
    let facts = &first.gpu.facts;
    Some(AbReport {
        schema_version: SCHEMA_VERSION,
        run_id: suite.run_id.clone(),
        a: Side {
            label: format!("{} at {}", suite.project.kernels_label(), revision.label()),
            commit: revision.commit.clone(),
        },
        b,
        gpu: GpuIdentity {
            name: facts.name.clone(),
            key: facts.gpu_key.clone(),
            uuid: facts.uuid.clone(),
            driver: facts.driver_version.clone(),
        },
        counters: suite.config.ncu,
        trials,
        controls,
        not_timed,
    })
}

/// Writes `<stem>-ab.json`, `<stem>-ab.md` and `<stem>-ab.html` (all whole or none) and appends
/// the Markdown to `GITHUB_STEP_SUMMARY` when set; nothing outside an A/B run.
///
/// # Errors
/// [`Error::Io`] naming the file that could not be written.
pub(super) fn write(suite: &Suite, timed: &[Timed]) -> crate::error::Result<()> {
    let Some(report) = build(suite, timed) else { return Ok(()) };
    let stem = suite.stem()?;
    let path = |suffix: &str| stem.with_file_name(format!("{}-ab.{suffix}", name(&stem)));
    let (json, md, page) = (path("json"), path("md"), path("html"));
    let text = markdown(&report);
    report::write_whole(&[
        (&json, report.json().as_bytes()),
        (&md, text.as_bytes()),
        (&page, html(&report).as_bytes()),
    ])?;
    suite.report(&Event::AbReport { json: &json, markdown: &md, html: &page });
    if let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|s| !s.is_empty()) {
        let path = std::path::PathBuf::from(summary);
        let real = crate::output::resolve(&path);
        let mut file = if crate::output::at(&real).in_place() {
            crate::output::open_in_place(&real, true)
        } else {
            std::fs::OpenOptions::new().append(true).create(true).open(&real)
        }
        .map_err(Error::io(&path))?;
        file.write_all(text.as_bytes()).map_err(Error::io(&path))?;
        suite.report(&Event::Status(&format!(
            "kernelgate: appended the A/B report to the job summary ({})",
            path.display()
        )));
    }
    Ok(())
}

/// The file name of a stem (`20261201T113233Z-d0553db`).
fn name(stem: &std::path::Path) -> String {
    stem.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}
