//! The end of a run: the table, the run CSV, the run record, the bless, the metrics CSV.

use super::{Suite, Timed};
use crate::gate::baseline::run::{Form, Measured, Provenance};
use crate::gate::baseline::{self};
use crate::history::of_run::{Counters, Trial};
use crate::history::{self, HistoryStore};
use crate::ncu::profile;
use crate::record::{self, CaseResult};
use crate::report::events::Event;
use crate::{error::Error, report};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Reports where the run's time went ([`crate::phases::render`]): its clock's sums per phase, in the
/// trials and beside them, against the trials' summed wall time. Nothing when no phase took 0.05 s
/// (no trial ran, or compile trials whose NVRTC work was made ahead).
pub(super) fn report_phases(suite: &Suite) {
    let trials_s: f64 =
        suite.collected.outcomes.lock().unwrap_or_else(|p| p.into_inner()).iter().map(|o| o.seconds).sum();
    let totals = suite.clock.totals();
    if totals.iter().any(|(_, s)| *s >= 0.05) {
        suite.report(&Event::Status(&crate::phases::render(&totals, &suite.clock.background_totals(), trials_s)));
    }
}

/// Prints the table and writes the run CSV, the run record, the history, the bless, the lessons
/// block and CSV, and the metrics CSV.
///
/// # Errors
/// The first output that could not be written: the run CSV, its line in `KERNELGATE_RUN_FILE`, the
/// metrics CSV or the bless (which stop what follows), or the run record, the lessons CSV and an explicitly named history (`KERNELGATE_HISTORY` set
/// to a folder), which are reported when they fail and returned after everything else is written.
/// The default history (`<root>/.kernelgate/history`) and git notes are optional: their failures
/// are warnings.
pub(super) fn write_results(suite: &Suite) -> crate::error::Result<()> {
    let mut later = None;
    let mut timed = suite.collected.timed.lock().unwrap_or_else(|p| p.into_inner()).clone();
    if !timed.is_empty() {
        let vendors = report::vendor::references(&suite.cases);
        let shares =
            report::vendor::pct_of_vendor(&timed.iter().map(|t| t.result.clone()).collect::<Vec<_>>(), &vendors);
        timed.iter_mut().zip(shares).for_each(|(t, share)| t.result.vendor = share);
        let results: Vec<CaseResult> = timed.iter().map(|t| t.result.clone()).collect();
        suite.report(&Event::Report(&report::table(&results, &vendors)));
        let stem = suite.stem()?;
        // One group of rows per GPU: each row carries the facts of the GPU its trial ran on.
        let mut rows = Vec::new();
        for t in &timed {
            let run = suite.run_info(&t.gpu.facts);
            rows.extend(record::rows(&run, std::slice::from_ref(&t.result)));
        }
        let path = with_suffix(&stem, ".csv");
        record::write_csv(&path, &rows)?;
        suite.report(&Event::Wrote { path: &path, holds: &format!("{} cases", results.len()) });
        if let Some(list) = &suite.config.run_file {
            crate::paths::note_run_csv(list, &path)?;
        }
        write_ceilings(suite, &timed, &stem)?;
        later = keep_run_record(suite, &timed, &stem).err();
        if let Err(e) = record_history(suite, &timed) {
            later = later.or(Some(e));
        }
        if suite.config.bless {
            bless(suite, &timed)?;
        }
        super::ab_report::write(suite, &timed)?;
    }
    if let Err(e) = super::lesson_trial::write_lessons(suite) {
        later = later.or(Some(e));
    }
    if let Some(Ok(profiled)) = suite.profiled.get() {
        let gpu_key = timed.first().map_or("unknown".to_string(), |t| t.gpu.facts.gpu_key.clone());
        let path = with_suffix(&suite.stem()?, "-metrics.csv");
        record::write_csv(&path, &profile::rows(profiled, &suite.run_id, &suite.git, &gpu_key))?;
        suite.report(&Event::Wrote { path: &path, holds: &format!("{} trials profiled", profiled.values.len()) });
    }
    if let Some(Err(e)) = suite.profiled.get() {
        suite.report(&Event::Status(&format!("kernelgate: ncu profiling failed: {e}")));
    }
    later.map_or(Ok(()), Err)
}

/// Appends the run to the history store of each GPU key (one run per physical GPU), and to the git
/// notes of its commit with `KERNELGATE_NOTES=1`. A same-run A/B run is appended as what it is, a
/// paired comparison (its `ab_revision` is A's commit; the store keeps it out of the series that
/// trends, change points and the nightly gate read, and `kernelgate diff A B` shows its pairs).
/// Power-benchmark runs (their times are not the commit's nominal cases) and A/B runs whose B is
/// another revision (`KERNELGATE_AB_B`: their kernels are not the built commit's) are not. A failure is reported and the other GPUs'
/// runs are still appended (the run CSV is written, and `kernelgate history import` can add it
/// later).
///
/// # Errors
/// The first store that could not be appended to, when `KERNELGATE_HISTORY` names the folder (a
/// history that was asked for); with the default folder a failure is a warning only.
fn record_history(suite: &Suite, timed: &[Timed]) -> crate::error::Result<()> {
    let Some(dir) = suite.project.history.clone() else { return Ok(()) };
    let asked = suite.project.history_named;
    let mut failed = None;
    if suite.config.work_scale != 1.0 {
        suite.report(&Event::Status("kernelgate: not recorded in history: a scaled-work run (KERNELGATE_WORK_SCALE)"));
        return Ok(());
    }
    if let Some(b) = &suite.config.ab_b {
        suite.report(&Event::Status(&format!(
            "kernelgate: not recorded in history: B is {} at {b} (KERNELGATE_AB_B), not the built commit's",
            suite.project.kernels_label()
        )));
        return Ok(());
    }
    let profiled = match suite.profiled.get() {
        Some(Ok(p)) => Some(p),
        _ => None,
    };
    let counters = profiled.map(|p| Counters { values: &p.values, units: &p.units, ncu_version: &p.ncu_version });
    let mut by_gpu: BTreeMap<String, Vec<&Timed>> = BTreeMap::new();
    for t in timed {
        by_gpu.entry(t.gpu.facts.uuid.clone()).or_default().push(t);
    }
    let repo = if suite.config.notes { git2::Repository::discover(&suite.project.root).ok() } else { None };
    for group in by_gpu.values() {
        let trials: Vec<Trial<'_>> =
            group.iter().map(|t| Trial { result: &t.result, median_ci: t.result.median_ci }).collect();
        let info = suite.run_info(&group[0].gpu.facts);
        let run = history::of_run::run_of(&info, &group[0].gpu.ceilings, &trials, counters);
        let baselines = suite.project.baselines_shown();
        let appended =
            HistoryStore::open(&dir, &info.facts.gpu_key, &baselines).and_then(|mut store| store.append(&run));
        match appended {
            Ok(rows) => suite.report(&Event::Recorded {
                commit: info.git.short(),
                against: (!info.ab_revision.is_empty()).then(|| &info.ab_revision[..info.ab_revision.len().min(12)]),
                values: rows,
                gpu: &info.facts.uuid,
                history: &dir,
            }),
            Err(e) => {
                suite.report(&Event::Status(&format!("kernelgate: not recorded in history: {e}")));
                if asked {
                    failed = failed.or(Some(e));
                }
            }
        }
        if suite.config.notes {
            match repo.as_ref().map(|r| history::write_run(r, &run)) {
                Some(Ok(lines)) => suite.report(&Event::Status(&format!(
                    "kernelgate: added {lines} lines to the git note of {} ({})",
                    info.git.short(),
                    history::NOTES_REF
                ))),
                Some(Err(e)) => {
                    suite.report(&Event::Warning(&format!("kernelgate: warning: no git note written: {e}")))
                }
                None => suite.report(&Event::Warning(&format!(
                    "kernelgate: warning: no git note written: no git repository at {}",
                    suite.project.root.display()
                ))),
            }
        }
    }
    failed.map_or(Ok(()), Err)
}

/// The run's timed trials in baseline form, per GPU key (one key per GPU model).
fn in_baseline_form(suite: &Suite, timed: &[Timed]) -> BTreeMap<String, Form> {
    let date = baseline::utc_now();
    let profiled = match suite.profiled.get() {
        Some(Ok(p)) => Some(p),
        _ => None,
    };
    let mut by_key: BTreeMap<String, Form> = BTreeMap::new();
    for t in timed {
        let r = &t.result;
        let counters = profiled.and_then(|p| p.values.get(&r.trial).map(|v| (v, &p.units)));
        let m = Measured {
            trial: &r.trial,
            kernel: &r.kernel,
            summary: &r.summary,
            kept: &t.kept,
            module_sha256: &r.module_sha256,
            sm_clock_mhz: r.sm_clock_mhz,
            invalid_reason: r.invalid_reason.as_deref(),
            counters,
        };
        let ncu = profiled.map(|p| p.ncu_version.as_str());
        let at = Provenance { commit: &suite.git.commit, date: &date, facts: &t.gpu.facts, ncu };
        let (entries, samples) = baseline::run::entries(&at, &[m]);
        let slot = by_key.entry(t.gpu.facts.gpu_key.clone()).or_default();
        slot.0.extend(entries);
        slot.1.extend(samples);
    }
    by_key
}

/// Keeps this run's record in baseline form in `<stem>-baseline/` (`kernelgate compare`,
/// `kernelgate baseline calibrate`, `kernelgate baseline bless`).
///
/// # Errors
/// [`Error::Baseline`] naming the record's folder and the cause (the run's CSV is already written;
/// the caller goes on with the history and the bless, and fails the run at the end).
fn keep_run_record(suite: &Suite, timed: &[Timed], stem: &Path) -> crate::error::Result<()> {
    let dir = with_suffix(stem, "-baseline");
    let mut all: Form = (Vec::new(), BTreeMap::new());
    for (_, (entries, samples)) in in_baseline_form(suite, timed) {
        all.0.extend(entries);
        all.1.extend(samples);
    }
    match baseline::run::keep(&dir, all) {
        Ok(()) => {
            suite.report(&Event::Status(&format!(
                "kernelgate: kept the run's samples in {} (kernelgate compare)",
                dir.display()
            )));
            Ok(())
        }
        Err(e) => Err(Error::Baseline {
            path: dir.clone(),
            line: None,
            message: format!("the run's samples (its record for kernelgate compare and bless) were not kept: {e}"),
        }),
    }
}

/// Writes the trials run into their GPU's baseline ([`baseline::run::bless`]): trials measured
/// under bad conditions are not blessed (the run says why); a baseline that failed to load is
/// never rewritten.
fn bless(suite: &Suite, timed: &[Timed]) -> crate::error::Result<()> {
    if let Some(Err(e)) = suite.baseline.get() {
        let message = format!("not blessed, the baseline did not load: {e}");
        return Err(Error::Baseline { path: suite.project.out_dir.clone(), line: None, message });
    }
    for (key, form) in in_baseline_form(suite, timed) {
        let dir = suite.baseline_dir(&key);
        let blessed = form.1.len();
        let (changes, left_out) = baseline::run::bless(&dir, form)?;
        for (trial, why) in &left_out {
            suite.report(&Event::NotBlessed { trial, why });
        }
        suite.report(&Event::Blessed { trials: blessed - left_out.len(), dir: &dir, changes: changes.len() });
        // The whole list in a file beside the run's CSV; a summary here.
        let list = with_suffix(&suite.stem()?, &format!("-blessed-{key}.txt"));
        let text: String = changes.iter().map(|c| format!("{c}\n")).collect();
        report::write_whole(&[(&list, text.as_bytes())])?;
        for line in baseline::summary::summarize(&changes, BLESS_SHOWN) {
            suite.report(&Event::Status(&format!("  {line}")));
        }
        suite.report(&Event::Status(&format!("  every change: {}", list.display())));
    }
    Ok(())
}

/// Time changes a bless prints, the largest first; the others are in its list file.
const BLESS_SHOWN: usize = 10;

/// Writes `<stem>-ceilings.csv` (every GPU's measured ceilings, [`crate::ceilings::file`]) and the
/// roofline of each GPU's trials ([`report::roofline`]): `<stem>-roofline.svg`, or
/// `<stem>-roofline-gpu<ordinal>.svg` per GPU when the run used several. Nothing when no GPU
/// measured its ceilings.
///
/// # Errors
/// [`Error::Io`] or [`Error::Csv`] naming the file that could not be written.
fn write_ceilings(suite: &Suite, timed: &[Timed], stem: &Path) -> crate::error::Result<()> {
    // By ordinal: unique in a process, where the UUID is `unknown` without NVML.
    let mut by_gpu: BTreeMap<usize, Vec<&Timed>> = BTreeMap::new();
    for t in timed.iter().filter(|t| !t.gpu.ceilings.measured.is_empty()) {
        by_gpu.entry(t.gpu.facts.ordinal).or_default().push(t);
    }
    if by_gpu.is_empty() {
        return Ok(());
    }
    let rows: Vec<_> = by_gpu
        .values()
        .flat_map(|g| crate::ceilings::file::rows(&suite.run_id, &g[0].gpu.facts, &g[0].gpu.ceilings))
        .collect();
    let path = with_suffix(stem, "-ceilings.csv");
    record::write_csv(&path, &rows)?;
    let holds = format!("{} ceilings of {}", rows.len(), crate::units::count(by_gpu.len(), "GPU"));
    suite.report(&Event::Wrote { path: &path, holds: &holds });
    for group in by_gpu.values() {
        let gpu = &group[0].gpu;
        let results: Vec<CaseResult> = group.iter().map(|t| t.result.clone()).collect();
        let points = report::roofline::points(&results);
        let title = format!("{} on {} ({}), run {}", suite.git.short(), gpu.facts.name, gpu.facts.uuid, suite.run_id);
        let svg = report::roofline::svg(&title, &gpu.ceilings, &points);
        let suffix = if by_gpu.len() == 1 {
            "-roofline.svg".to_string()
        } else {
            format!("-roofline-gpu{}.svg", gpu.facts.ordinal)
        };
        let path = with_suffix(stem, &suffix);
        report::write_whole(&[(&path, svg.as_bytes())])?;
        suite.report(&Event::Wrote { path: &path, holds: &format!("{} cases placed", points.len()) });
    }
    Ok(())
}

fn with_suffix(stem: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", stem.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, History};
    use std::sync::Arc;

    /// A run whose trials are all lesson trials times no trial of the run CSV, yet claims its stem
    /// for the lessons CSV: the run CSV it leaves is the header row alone, which CSV readers read as
    /// a table of no rows, not an empty file (which pandas' `read_csv` refuses); the lessons CSV is
    /// beside it, and importing the folder imports nothing and warns of nothing.
    #[test]
    fn a_lesson_only_run_leaves_a_run_csv_of_its_header_alone() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let config = Config { out_dir: Some(out.clone()), history: History::Off, ..Config::default() };
        let root = crate::source::fixture_path("project");
        let project = crate::project::Project::discover(&root, &config).unwrap();
        let table = crate::case::Table::new(|_| Vec::new(), &crate::Build::UNKNOWN);
        let said = Arc::new(crate::report::events::Lines::default());
        let suite = Suite::new(config, project, crate::source::for_tests().clone(), table, said.clone());
        let mut lesson = crate::lesson_record::tests::row("launch/graph_vs_one_by_one/4096x8", "holds", None);
        lesson.run_id = suite.run_id.clone();
        suite.collected.lessons.lock().unwrap().push(lesson);
        write_results(&suite).unwrap();

        let stem = suite.stem().unwrap();
        let run_csv = with_suffix(&stem, ".csv");
        assert_eq!(std::fs::read_to_string(&run_csv).unwrap(), format!("{}\n", record::RUN_CSV_HEADER));
        let lessons = std::fs::read_to_string(with_suffix(&stem, crate::lesson_record::LESSONS_CSV_SUFFIX)).unwrap();
        assert_eq!(lessons.lines().count(), 2, "the header and the lesson trial: {lessons}");
        let said = said.take();
        assert_eq!(said.len(), 2, "the lesson table and the lessons CSV: {said:?}");
        assert!(said[0].starts_with("\n") && said[0].contains("launch/graph_vs_one_by_one/4096x8"), "{said:?}");
        let lessons_csv = with_suffix(&stem, crate::lesson_record::LESSONS_CSV_SUFFIX);
        assert_eq!(said[1], format!("kernelgate: wrote {} (1 lesson trial)", lessons_csv.display()));
        let imported =
            crate::history::import(&[out.join("runs")], &dir.path().join("history"), None, "baselines".as_ref())
                .unwrap();
        assert_eq!((imported.runs, imported.warnings.len()), (0, 0), "{:?}", imported.warnings);
    }
}
