//! Before the trials: what the run says first (the recorded commit, why GPU trials are ignored,
//! the A/B revision), the first GPU opened, the ncu session, and this GPU's baseline loaded.

use super::Suite;
use crate::case::Case;
use crate::devices::Pool;
use crate::error::Error;
use crate::gate::baseline::Baseline;
use crate::gpu::Gpu;
use crate::history::revision::Revision;
use crate::ncu::select;
use crate::report::events::Event;
use std::sync::atomic::Ordering;

/// What every run says before its trials, GPU or not: why the GPU trials are ignored (or fail),
/// which of the cases the filters `named` (ignored ones included) have a host call that cannot run
/// here, and the A/B revision, read (and so checked) even when nothing will be timed; `selected` are
/// the cases that will run.
///
/// # Errors
/// A `KERNELGATE_AB` revision that cannot be read, as a sentence (exit code 2).
pub(super) fn announce(suite: &Suite, named: &[&str], selected: &[&str]) -> Result<(), String> {
    let g = &suite.git;
    suite.report(&Event::Status(&format!(
        "kernelgate: recorded under commit {}{}{} ({}{})",
        g.short(),
        if g.kernels_dirty == Some(true) { " with edited kernels" } else { "" },
        if g.dirty == Some(true) { ", tree dirty" } else { "" },
        g.state.as_str(),
        if g.branch.is_empty() { String::new() } else { format!(" {}", g.branch) },
    )));
    for w in &suite.git_warnings {
        suite.report(&Event::Warning(&format!("kernelgate: warning: {w}")));
    }
    if let Some(reason) = &suite.no_gpu {
        if suite.config.require_gpu {
            suite.report(&Event::Status(&format!("kernelgate: GPU trials fail (KERNELGATE_REQUIRE_GPU=1): {reason}")));
        } else {
            suite.report(&Event::Status(&format!("kernelgate: GPU trials are ignored: {reason}")));
        }
        // What a GPU runner would ignore too, said here where it can be fixed before one runs: a
        // host call whose library is missing ([`crate::case::HostCall::needs`]).
        for case in suite.cases.iter().filter(|c| named.contains(&c.name().as_str())) {
            if let Some(why) = case.host_calls().find_map(|call| call.unavailable().map(|why| (call.name, why))) {
                suite.report(&Event::Warning(&format!(
                    "kernelgate: warning: {}: the host call {} cannot run here, and a GPU runner set up as \
                     this machine is would ignore the trial: {}",
                    case.name(),
                    why.0,
                    why.1
                )));
            }
        }
        if suite.config.ncu {
            suite.report(&Event::Status("kernelgate: KERNELGATE_NCU=1, but nothing is profiled: there is no GPU"));
        }
        if let Some(tool) = &suite.config.sanitize {
            suite.report(&Event::Status(&format!(
                "kernelgate: KERNELGATE_SANITIZE={tool}, but nothing is checked: there is no GPU"
            )));
        } else if suite.config.isolate {
            suite.report(&Event::Status("kernelgate: KERNELGATE_ISOLATE=1, but no child runs: there is no GPU"));
        }
    }
    if suite.config.isolate && suite.config.sanitize.is_some() {
        suite.report(&Event::Status(
            "kernelgate: KERNELGATE_ISOLATE=1 with KERNELGATE_SANITIZE: the sanitizer's child does the isolating \
             (it does not repeat the timed path)",
        ));
    }
    if let Some(rev) = &suite.config.ab {
        let revision = Revision::read(&suite.project, rev, suite.reporter()).map_err(|e| {
            Error::Config { name: "KERNELGATE_AB", value: rev.clone(), expected: e.to_string() }.to_string()
        })?;
        let b = match &suite.config.ab_b {
            Some(rev_b) => Some(Revision::read(&suite.project, rev_b, suite.reporter()).map_err(|e| {
                Error::Config { name: "KERNELGATE_AB_B", value: rev_b.clone(), expected: e.to_string() }.to_string()
            })?),
            None => None,
        };
        let (b_commit, b_what) =
            b.as_ref().map_or((suite.git.commit.clone(), "the built commit"), |b| (b.commit.clone(), "B at"));
        if let Some(b) = b {
            let _ = suite.ab_b.set(b);
        }
        // A revision given as a commit id is said once.
        let at = if revision.commit.starts_with(rev.as_str()) {
            revision.commit.clone()
        } else {
            format!("{rev} ({})", revision.commit)
        };
        suite.report(&Event::Status(&format!(
            "kernelgate: A/B: each case's kernels at {at} against {}, timed in pairs over one set of buffers",
            suite.b_side()
        )));
        if let Some(warning) = revision.cases_differ(&suite.project.root, &b_commit, b_what, suite.table.build.inputs) {
            suite.report(&Event::Warning(&format!("kernelgate: warning: {warning}")));
        }
        let controls = draw_controls(suite, &revision, selected);
        if !controls.is_empty() {
            suite.report(&Event::Status(&format!(
                "kernelgate: A/A controls: {} (their kernel files are the same at both revisions; timed as a check of \
                 the gate, they never fail the run; KERNELGATE_AB_CONTROLS={})",
                controls.iter().cloned().collect::<Vec<_>>().join(", "),
                suite.config.ab_controls
            )));
        }
        let _ = suite.controls.set(controls);
        let _ = suite.ab.set(Ok(revision));
        suite.collected.compared.store(selected.len(), Ordering::Relaxed);
    }
    Ok(())
}

/// The A/A controls ([`super::controls::draw`]) among the `selected` cases that launch kernels of
/// their own, every file of which has the same text and NVRTC options at `revision` (A) as on the B
/// side: the same module, so the pair is an A/A comparison.
fn draw_controls(suite: &Suite, revision: &Revision, selected: &[&str]) -> std::collections::BTreeSet<String> {
    if suite.config.ab_controls == 0 || suite.config.ab_time_identical {
        return Default::default();
    }
    let b_side = |file: &str| -> Option<(&str, &[&str])> {
        match suite.ab_b.get() {
            Some(b) => b.kernel(file).map(|(text, options)| (text, options as &[&str])),
            None => suite.sources.get(file).map(|s| (s.source, s.options)),
        }
    };
    let candidates: Vec<String> = suite
        .cases
        .iter()
        .filter(|c| selected.contains(&c.name().as_str()))
        .filter(|c| {
            let mut files: Vec<&str> = c.kernels().iter().map(|k| k.file).collect();
            files.dedup();
            !files.is_empty()
                && files.iter().all(|f| match (revision.kernel(f), b_side(f)) {
                    (Some((a, a_options)), Some((b, b_options))) => a == b && a_options == b_options,
                    _ => false,
                })
        })
        .map(|c| c.name())
        .collect();
    super::controls::draw(&candidates, suite.config.ab_controls, suite.seed)
}

/// Before the trials: open the first GPU (its facts and copy bandwidth print before the first
/// trial line), profile with ncu, load the baseline (not in A/B runs). Returns how many trials may
/// run at once (the pool's GPUs).
///
/// # Errors
/// A bad `KERNELGATE_DEVICES`, as a sentence (exit code 2).
pub(super) fn prepare(suite: &Suite, selected: &[&str]) -> Result<usize, String> {
    let gpu = suite.pool().ok().and_then(|pool| pool.first().ok());
    if let Some(bad) = suite.bad_devices.get() {
        return Err(bad.clone());
    }
    if let Some(gpu) = &gpu {
        // The checked child first: a trial that faults or hangs there is left out of the ncu
        // session, whose child has no timeout and would hang or fail on it too.
        if suite.config.sanitize.is_some() || suite.config.isolate {
            let sanitized = std::env::current_exe()
                .map_err(Error::io("the test executable"))
                .and_then(|program| {
                    let log =
                        suite.stem()?.with_extension(if suite.config.isolate && suite.config.sanitize.is_none() {
                            "isolate.log"
                        } else {
                            "sanitize.log"
                        });
                    suite.clock.time(crate::phases::Phase::Child, || {
                        crate::sanitize::run(&suite.config, &suite.sources, selected, &program, log, suite.reporter())
                    })
                })
                .map_err(|e| e.to_string());
            let _ = suite.sanitized.set(sanitized);
        }
        if suite.config.ncu {
            let unfinished = match suite.sanitized.get() {
                Some(Ok(s)) => s.unfinished.clone(),
                _ => Default::default(),
            };
            let cases: Vec<Case> = suite.cases.iter().filter(|c| !unfinished.contains(&c.name())).cloned().collect();
            let profiled = std::env::current_exe()
                .map_err(Error::io("the test executable"))
                .and_then(|program| {
                    let report = suite.stem()?.with_extension("ncu-rep");
                    suite.clock.time(crate::phases::Phase::Profile, || {
                        select::profile(
                            &suite.config,
                            &suite.sources,
                            &cases,
                            selected,
                            &program,
                            report,
                            suite.reporter(),
                        )
                    })
                })
                .map_err(|e| e.to_string());
            let _ = suite.profiled.set(profiled);
        }
        if suite.config.ab.is_none() {
            load_baseline(suite, gpu, selected);
        }
    }
    suite.report(&Event::Status(&format!(
        "kernelgate: input seed {} (KERNELGATE_SEED={} replays it)",
        suite.seed, suite.seed
    )));
    // The project's own NVRTC options, where it has any: part of each module's identity.
    for source in suite.sources.iter().filter(|s| !s.options.is_empty()) {
        suite.report(&Event::Status(&format!(
            "kernelgate: NVRTC options of {}: {} (kernelgate.toml [nvrtc])",
            source.path,
            source.options.join(" ")
        )));
    }
    if suite.config.work_scale != 1.0 {
        suite.report(&Event::Status(&format!(
            "kernelgate: KERNELGATE_WORK_SCALE={}: every case does about {}x its work under its nominal name \
             (power benchmark; the run CSV's bytes rows hold the real work)",
            suite.config.work_scale, suite.config.work_scale
        )));
    }
    Ok(suite.pool().map_or(1, Pool::len))
}

/// Loads this GPU's baseline and counts the selected trials it covers (the family-wise `tests`);
/// says when it was blessed on another physical GPU.
fn load_baseline(suite: &Suite, gpu: &Gpu, selected: &[&str]) {
    let dir = suite.baseline_dir(&gpu.facts.gpu_key);
    let loaded = match &suite.config.baselines {
        // A misspelt path would otherwise read as "no baseline" and pass every trial.
        Some(folder) if !folder.is_dir() && !suite.config.bless => Err(format!(
            "KERNELGATE_BASELINES={} names no folder; check the path, or unset it for the project's (`baselines` in kernelgate.toml, default <project root>/baselines)",
            folder.display()
        )),
        _ => Baseline::load(&dir).map_err(|e| e.to_string()),
    };
    match &loaded {
        Ok(b) => {
            let covered = selected.iter().filter(|t| b.time(t).is_some()).count();
            suite.collected.compared.store(covered, Ordering::Relaxed);
            suite.report(&Event::Status(&format!(
                "kernelgate: baseline {}: {covered} of {} selected trials covered; verdicts fail on: {}",
                dir.display(),
                selected.len(),
                suite.config.fail_on.join(", ")
            )));
            // Another driver or NVRTC first: it moves every time by itself (its own PTX compiler).
            let now = crate::gate::baseline::Environment::of(&gpu.facts);
            let mut drivers: Vec<String> =
                selected.iter().filter_map(|t| b.time(t)).filter_map(|e| e.other_environment(&now)).collect();
            drivers.sort_unstable();
            drivers.dedup();
            for changed in &drivers {
                suite.report(&Event::Warning(&format!(
                    "kernelgate: WARNING: {changed}: a driver brings its own PTX compiler and scheduling, and an \
                     NVRTC its own PTX, so verdicts against this baseline judge the tools as well as the code; \
                     re-bless after a driver or toolkit change, or gate with KERNELGATE_AB=<rev>"
                )));
            }
            let mut others: Vec<&str> = selected
                .iter()
                .filter_map(|t| b.time(t))
                .map(|e| e.gpu_uuid.as_str())
                .filter(|u| *u != gpu.facts.uuid)
                .collect();
            others.sort_unstable();
            others.dedup();
            if !others.is_empty() && suite.config.time_by_gpu_history {
                // A pool's nightly: the baseline's times fail nothing, so the machine offset is no hazard.
                suite.report(&Event::Status(&format!(
                    "kernelgate: the baseline's times were blessed on {} other physical GPU(s); with \
                     KERNELGATE_REFERENCE=gpu their verdicts are recorded but fail no trial: `kernelgate history \
                     gate --reference gpu` judges this run's times against {}'s own runs",
                    others.len(),
                    gpu.facts.uuid
                )));
            } else if !others.is_empty() {
                let shown: Vec<&str> = others.iter().map(|u| if u.is_empty() { "unrecorded" } else { u }).collect();
                suite.report(&Event::Warning(&format!(
                    "kernelgate: WARNING: the baseline was blessed on another physical GPU ({}) than this run's ({}); \
                     medians of one kernel differed by -5.8 to +2.9 % between two H200s, so regressions may be the \
                     machine's: bless on the machine that gates, or gate with KERNELGATE_AB=<rev>",
                    shown.join(", "),
                    gpu.facts.uuid
                )));
            }
        }
        Err(e) => suite.report(&Event::Status(&format!("kernelgate: baseline unusable, every GPU trial fails: {e}"))),
    }
    let _ = suite.baseline.set(loaded);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{HostCall, Param, Step};
    use crate::config::{Config, History};
    use std::sync::Arc;

    /// A case whose host call needs a library this machine lacks.
    fn vendor_cases(_scale: f64) -> Vec<Case> {
        let call = HostCall::new("vendor_sum", [0], |_| Ok(()))
            .needs(|| Err("libvendor.so not found; build it with make".into()));
        vec![Case::program("sum", "vendor", "1K").params([Param::output(1024)]).step(Step::Host(call))]
    }

    #[test]
    fn without_a_gpu_a_host_call_that_cannot_run_is_named_before_the_trials() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config { out_dir: Some(dir.path().join("out")), history: History::Off, ..Config::default() };
        let project = crate::project::Project::discover(&crate::source::fixture_path("project"), &config).unwrap();
        let table = crate::case::Table::new(vendor_cases, &crate::Build::UNKNOWN);
        let said = Arc::new(crate::report::events::Lines::default());
        let mut suite = Suite::new(config, project, crate::source::for_tests().clone(), table, said.clone());
        suite.no_gpu = Some("no CUDA driver".into());
        announce(&suite, &["sum/vendor/1K"], &[]).unwrap();
        let said = said.take();
        assert!(said.iter().any(|l| l == "kernelgate: GPU trials are ignored: no CUDA driver"), "{said:?}");
        assert!(
            said.iter()
                .any(|l| l.starts_with("kernelgate: warning: sum/vendor/1K: the host call vendor_sum cannot run")
                    && l.ends_with(": libvendor.so not found; build it with make")),
            "{said:?}"
        );
        // Not selected: not named.
        let said2 = Arc::new(crate::report::events::Lines::default());
        suite.reporter = said2.clone();
        announce(&suite, &[], &[]).unwrap();
        assert!(!said2.take().iter().any(|l| l.contains("vendor_sum")));
    }
}
