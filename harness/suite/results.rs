//! The end of a run: the table, the run CSV, the run record, the bless, the metrics CSV.

use super::{Suite, Timed};
use crate::gate::baseline::run::{Form, Measured, Provenance};
use crate::gate::baseline::{self};
use crate::ncu::profile;
use crate::record::{self, CaseResult, RunInfo};
use crate::{Error, report};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Prints the table and writes the run CSV, the run record, the bless, and the metrics CSV.
pub(super) fn write_results(suite: &Suite) -> crate::Result<()> {
    let timed = suite.timed.lock().unwrap_or_else(|p| p.into_inner()).clone();
    if let Some(first) = timed.first() {
        let facts = &first.gpu.facts;
        let results: Vec<CaseResult> = timed.iter().map(|t| t.result.clone()).collect();
        println!("\n{}", report::table(&results, facts.copy_bandwidth_gbps));
        let stem = suite.stem()?;
        // One group of rows per GPU: each row carries the facts of the GPU its trial ran on.
        let mut rows = Vec::new();
        for t in &timed {
            let run = RunInfo {
                run_id: suite.run_id.clone(),
                seed: suite.seed,
                git: suite.git.clone(),
                kernels_sha256: crate::history::built::BUILT_KERNELS_SHA256.to_string(),
                facts: t.gpu.facts.clone(),
                work_scale: suite.config.work_scale,
                ab_revision: suite.config.ab.clone().unwrap_or_default(),
            };
            rows.extend(record::rows(&run, std::slice::from_ref(&t.result)));
        }
        let path = with_suffix(&stem, ".csv");
        record::write_csv(&path, &rows)?;
        println!("kernelgate: wrote {} ({} cases)", path.display(), results.len());
        keep_run_record(suite, &timed, &stem);
        if suite.config.bless {
            bless(suite, &timed)?;
        }
    }
    if let Some(Ok(profiled)) = suite.profiled.get() {
        let gpu_key = timed.first().map_or("unknown".to_string(), |t| t.gpu.facts.gpu_key.clone());
        let path = with_suffix(&suite.stem()?, "-metrics.csv");
        record::write_csv(&path, &profile::rows(profiled, &suite.run_id, &suite.git, &gpu_key))?;
        println!("kernelgate: wrote {} ({} trials profiled)", path.display(), profiled.values.len());
    }
    if let Some(Err(e)) = suite.profiled.get() {
        println!("kernelgate: ncu profiling failed: {e}");
    }
    Ok(())
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
        let at = Provenance { commit: &suite.git.commit, date: &date, facts: &t.gpu.facts };
        let (entries, samples) = baseline::run::entries(&at, &[m]);
        let slot = by_key.entry(t.gpu.facts.gpu_key.clone()).or_default();
        slot.0.extend(entries);
        slot.1.extend(samples);
    }
    by_key
}

/// Keeps this run's record in baseline form in `<stem>-baseline/` (`kernelgate compare`,
/// `kernelgate baseline calibrate`). A failure here is reported, not fatal: the run's CSV is
/// already written.
fn keep_run_record(suite: &Suite, timed: &[Timed], stem: &Path) {
    let dir = with_suffix(stem, "-baseline");
    let mut all: Form = (Vec::new(), BTreeMap::new());
    for (_, (entries, samples)) in in_baseline_form(suite, timed) {
        all.0.extend(entries);
        all.1.extend(samples);
    }
    match baseline::run::keep(&dir, all) {
        Ok(()) => println!("kernelgate: kept the run's samples in {} (kernelgate compare)", dir.display()),
        Err(e) => eprintln!("kernelgate: could not keep the run's samples: {e}"),
    }
}

/// Writes the trials run into their GPU's baseline ([`baseline::run::bless`]): trials measured
/// under bad conditions are not blessed (the run says why); a baseline that failed to load is
/// never rewritten.
fn bless(suite: &Suite, timed: &[Timed]) -> crate::Result<()> {
    if let Some(Err(e)) = suite.baseline.get() {
        let message = format!("not blessed, the baseline did not load: {e}");
        return Err(Error::Baseline { path: suite.out_dir.clone(), line: None, message });
    }
    for (key, form) in in_baseline_form(suite, timed) {
        let dir = suite.baseline_dir(&key);
        let blessed = form.1.len();
        let (changes, left_out) = baseline::run::bless(&dir, form)?;
        for (trial, why) in &left_out {
            println!("kernelgate: not blessed: {trial}: {why}");
        }
        let count = blessed - left_out.len();
        println!(
            "kernelgate: blessed {} into {} ({})",
            crate::units::count(count, "trial"),
            dir.display(),
            crate::units::count(changes.len(), "change")
        );
        for c in &changes {
            println!("  {c}");
        }
    }
    Ok(())
}

fn with_suffix(stem: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", stem.display()))
}
