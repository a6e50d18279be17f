//! `kernelgate diff OLD NEW`: two sides resolved in the history (or run CSVs), compared, printed
//! as Markdown (and HTML) or as one JSON document (`kernelgate-diff`).

use super::{Format, print_json};
use kernelgate::history;
use kernelgate::report::diff::json::{SideFacts, SideRun, diff_json};
use kernelgate::{Error, Result};
use std::path::{Path, PathBuf};

/// What `kernelgate diff` writes: the Markdown to a file (else stdout), the HTML page, the format
/// of stdout.
pub(crate) struct Reports {
    /// `--markdown FILE`.
    pub markdown: Option<PathBuf>,
    /// `--html FILE`.
    pub html: Option<PathBuf>,
    /// `--format`.
    pub format: Format,
}

/// `kernelgate diff`: both sides resolved in the history folder (a run CSV side needs none),
/// refused when they ran on different GPU models, compared, the Markdown to stdout or `markdown`,
/// the HTML page to `html`. The HTML page's trend charts are optional: they are read from the store
/// of the new side's GPU key (the old side's where the new one has none) only when `html` is asked
/// for, and a store that cannot be read leaves them out with a warning, never the report. Every
/// report is written whole or not at all ([`kernelgate::report::write_whole`]).
pub(crate) fn diff_command(
    old: &str,
    new: &str,
    gpu: Option<&str>,
    reports: Reports,
    dir: Option<PathBuf>,
    history: &kernelgate::config::History,
    project: &kernelgate::project::Project,
) -> Result<()> {
    let Reports { markdown, html, format } = reports;
    // The reports' paths are checked before any work, as the suite checks KERNELGATE_JUNIT.
    for (flag, path, example) in [("--markdown", &markdown, "diff.md"), ("--html", &html, "diff.html")] {
        if let Some(path) = path {
            kernelgate::output::check(path, example)
                .map_err(|e| Error::io(path)(std::io::Error::other(format!("{flag}: {}", e.reason))))?;
        }
    }
    // Two run CSVs need no history: with KERNELGATE_HISTORY=off they are compared without trends
    // (an empty folder holds no store to draw them from).
    let files = [old, new].iter().all(|s| matches!(history::query::Spec::parse(s), Ok(history::query::Spec::File(_))));
    let mut none = None;
    let dir = match (dir, history) {
        (None, kernelgate::config::History::Off) if files => {
            let empty = tempfile::tempdir().map_err(Error::io(std::env::temp_dir()))?;
            none.insert(empty).path().to_path_buf()
        }
        (dir, history) => super::history::history_dir(dir, history, project, "diff")?,
    };
    let baselines = project.baselines_shown();
    use kernelgate::report::diff::machines::{self, Machine};
    // Two commits of which one has no run of its own (a pull request's head timed only in pairs, or
    // its base never timed alone): both sides from the A/B runs of NEW against OLD, when stored.
    let (a, b, pairs) = match (
        history::query::resolve_side(&dir, old, gpu, &baselines),
        history::query::resolve_side(&dir, new, gpu, &baselines),
    ) {
        (Ok(a), Ok(b)) => (a, b, None),
        (ra, rb) => {
            let alone = if ra.is_err() { old } else { new };
            match history::query::paired_sides(&dir, old, new, gpu, &baselines)? {
                Some((a, b, pairs)) => (a, b, Some((alone, pairs))),
                None => return Err(ra.and(rb).expect_err("one side failed")),
            }
        }
    };
    for w in a.left_out.iter().chain(&b.left_out) {
        kernelgate::errln!("kernelgate: warning: {w}");
    }
    let of = |side: &history::query::Resolved| -> Vec<Machine> {
        side.runs
            .iter()
            .map(|r| Machine {
                gpu_key: r.meta.gpu_key.clone(),
                gpu_name: r.meta.gpu_name.clone(),
                driver: r.meta.driver.clone(),
                cuda: r.meta.cuda.clone(),
            })
            .collect()
    };
    // Sides read from the pairs are one set of runs: the old side's machines are the new side's.
    let from_pairs = pairs.is_some();
    let old_machines = if from_pairs { of(&b) } else { of(&a) };
    let notes = machines::compare((&a.side, &old_machines, &a.rows), (&b.side, &of(&b), &b.rows))?;
    let mut diff = kernelgate::report::diff::diff(&a.side, &a.rows, &b.side, &b.rows);
    // The vendor references of the project's cases, as its test binary last wrote them; without
    // them (a machine that only reads the history) the report has no percentages of a vendor's.
    diff.vendors = kernelgate::case::facts::Facts::read(&project.out_dir)?.map(|f| f.vendors()).unwrap_or_default();
    match pairs {
        Some((alone, pairs)) => {
            diff.paired = pairs;
            diff.notes.push(format!(
                "{alone} has no run of its own in the history: both sides are read from the same-run A/B runs of {} \
                 against {} (the old side's times are A's medians over the pairs, the new side's B's; A's counters \
                 and other statistics were not recorded, so they show as absent)",
                b.side.label.split(' ').next().unwrap_or(new),
                a.side.label.split(' ').next().unwrap_or(old),
            ));
        }
        None => {
            diff.paired = history::query::paired_evidence(&a, &b);
            let pairs_here = !diff.paired.is_empty();
            diff.notes.extend(history::query::other_gpus_note(&a.runs, &b.runs).map(|n| {
                if pairs_here {
                    n.replace(", or use KERNELGATE_AB", ", or read the same-run A/B pairs below")
                } else {
                    n
                }
            }));
        }
    }
    diff.notes.extend(notes);
    diff.notes.extend(kernelgate::report::diff::paired_note(&diff));
    let text = kernelgate::report::markdown::render(&diff);
    let page = html.as_ref().map(|_| {
        let trials: Vec<&str> = diff.trials.iter().map(|t| t.trial.as_str()).collect();
        let found = history::query::trends(&dir, &b.gpu_key, &trials, &baselines).and_then(|t| {
            if t.is_empty() && a.gpu_key != b.gpu_key {
                history::query::trends(&dir, &a.gpu_key, &trials, &baselines)
            } else {
                Ok(t)
            }
        });
        match found {
            Ok(trends) => kernelgate::report::html::render(&diff, &trends),
            Err(e) => {
                let why = format!("the trend charts are left out: the history could not be read ({e})");
                kernelgate::errln!("kernelgate: warning: {why}");
                let mut shown = diff.clone();
                shown.notes.push(why);
                kernelgate::report::html::render(&shown, &[])
            }
        }
    });
    let mut files: Vec<(&Path, &[u8])> = Vec::new();
    if let Some(path) = &markdown {
        files.push((path, text.as_bytes()));
    }
    if let (Some(path), Some(page)) = (&html, &page) {
        files.push((path, page.as_bytes()));
    }
    kernelgate::report::write_whole(&files)?;
    // Data on stdout, what was written on stderr: `diff A B --html r.html > summary.md` is the
    // Markdown alone, `diff A B --format json` the JSON alone.
    match (&markdown, format) {
        (_, Format::Json) => {
            let facts = |spec: &str, side: &history::query::Resolved, runs: &history::query::Resolved| SideFacts {
                spec: spec.to_string(),
                gpu_key: side.gpu_key.clone(),
                runs: runs
                    .runs
                    .iter()
                    .map(|r| SideRun {
                        run_id: r.meta.run_id.clone(),
                        commit: r.meta.commit.clone(),
                        gpu_uuid: r.meta.gpu_uuid.clone(),
                        gpu_name: r.meta.gpu_name.clone(),
                        driver: r.meta.driver.clone(),
                        cuda: r.meta.cuda.clone(),
                    })
                    .collect(),
                from_pairs,
            };
            // Sides read from the pairs are one set of runs, the new side's A/B runs.
            let old_facts = facts(old, &a, if from_pairs { &b } else { &a });
            print_json(&diff_json(&diff, &old_facts, &facts(new, &b, &b)));
            if let Some(path) = &markdown {
                kernelgate::errln!("wrote {} ({})", path.display(), diff.summary());
            }
        }
        (Some(path), Format::Text) => kernelgate::errln!("wrote {} ({})", path.display(), diff.summary()),
        (None, Format::Text) => kernelgate::out!("{text}"),
    }
    if let Some(path) = &html {
        kernelgate::errln!("wrote {}", path.display());
    }
    Ok(())
}
