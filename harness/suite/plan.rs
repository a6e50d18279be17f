//! The run's trials, as libtest-mimic lists them: the compile trials of every kernel file and
//! architecture, one trial per case, the lesson trials; and the outcome of a trial that cannot
//! run here.

use super::{COMPILE_ARCHS, Suite, compile_trial, lesson_trial, progress, trial, verdict::sanitized};
use crate::{resources, sass};
use libtest_mimic::{Completion, Failed, Trial};
use std::sync::Arc;

/// Every trial: the cases and the lesson trials ([`crate::case::Table::lesson_trials`]) sorted by name, then the
/// compile trials for each file and [`COMPILE_ARCHS`] (the library's own files only for a
/// [`crate::case::Table::self_test`] table), sorted by name.
/// Without a GPU the GPU trials are marked ignored here, at discovery, so that runners that list
/// ignored tests first (nextest) report them as skipped, not passed; the run prints the reason.
pub fn trials(suite: &Arc<Suite>) -> Vec<Trial> {
    let mut trials = Vec::new();
    let gated = gated(suite);
    let launches = Arc::new(resources::launches(&gated));
    let arities = Arc::new(resources::arities(&gated));
    let declared = Arc::new(sass::declared(&gated));
    for source in suite.sources.iter().filter(|s| suite.table.self_test || !s.is_own()) {
        for arch in COMPILE_ARCHS {
            // Each trial owns its copy of the file's handle (its text and names live as long as the process).
            let source = *source;
            let name = format!("compile/{}/{arch}", source.file);
            let (s, l, a, d) = (Arc::clone(suite), Arc::clone(&launches), Arc::clone(&arities), Arc::clone(&declared));
            trials.push(Trial::ignorable_test(
                name.clone(),
                progress::noted(suite, name, move || {
                    s.clock
                        .time(crate::phases::Phase::CompileTrial, || compile_trial::run(&s, &l, &a, &d, &source, arch))
                }),
            ));
        }
    }
    let no_gpu = !suite.config.require_gpu && suite.no_gpu.is_some();
    for (i, case) in suite.cases.iter().enumerate() {
        let s = Arc::clone(suite);
        let body = progress::noted(suite, case.name(), move || sanitized(&s, &s.cases[i], trial::run(&s, &s.cases[i])));
        trials.push(Trial::ignorable_test(case.name(), body).with_ignored_flag(no_gpu));
    }
    for lesson in suite.table.lesson_trials(&suite.cases) {
        let (s, name) = (Arc::clone(suite), lesson.name());
        let body = progress::noted(suite, name.clone(), move || lesson_trial::run(&s, &lesson));
        trials.push(Trial::ignorable_test(name, body).with_ignored_flag(no_gpu));
    }
    // The compile trials last: their NVRTC and nvdisasm work is made on the other cores while the
    // GPU trials run (compile_ahead), so that they only collect it.
    trials.sort_by(|a, b| {
        (a.name().starts_with("compile/"), a.name()).cmp(&(b.name().starts_with("compile/"), b.name()))
    });
    trials
}

/// The cases whose kernels the compile trials gate: the run's, and the planted family's, which are
/// compiled and gated in every run whether or not `KERNELGATE_PLANTED` adds their cases.
pub(super) fn gated(suite: &Suite) -> Vec<crate::case::Case> {
    let mut gated = suite.cases.clone();
    if !suite.config.planted {
        gated.extend(crate::case::planted::cases());
    }
    gated
}

/// The outcome of a trial that cannot run here (no GPU, no NVRTC, no cuBLAS): ignored with the
/// reason; but under cargo-nextest (`NEXTEST=1`, which nextest sets in every test process) a
/// failure, since nextest runs an ignored trial only when asked to (`--run-ignored`), in a process
/// of its own, and counts a process that exits 0 as passed: `--run-ignored all` on a machine
/// without a GPU reported 485 passed, 0 skipped.
pub(crate) fn cannot_run(reason: String) -> Result<Completion, Failed> {
    if std::env::var_os("NEXTEST").is_some_and(|v| v == "1") {
        return Err(format!(
            "not run: {reason} (under cargo-nextest a trial that did not run fails instead of passing; leave \
             --run-ignored off to skip it)"
        )
        .into());
    }
    Ok(Completion::ignored_with(reason))
}
