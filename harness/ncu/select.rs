//! Which trials one ncu session profiles, and the profiled child's side of it.
//!
//! The suite starts one ncu process over the whole selection ([`profile()`]); ncu re-runs the test
//! binary with [`CHILD_ENV`] set, and that child ([`child`]) performs each listed trial's checked
//! launch once inside its NVTX ranges, timing nothing.
//!
//! The child draws its inputs from [`PROFILE_SEED`], not from the run's seed: counters that depend
//! on the data (the sectors of a gather over a permutation) then repeat from run to run. On the
//! H200 a fresh permutation per run moved them by 17 in 18.9 million, enough for an exact
//! comparison to call unchanged code a regression.

use super::metrics;
use super::profile::{self, Profiled};
use super::run::{CHILD_ENV, Session};
use crate::report::events::{Event, Reporter};
use crate::{
    case::Case,
    check,
    config::Config,
    error::{Error, Result},
    measure,
    source::Sources,
};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Seed of the profiled child's inputs: fixed, so that data-dependent counters repeat between runs.
pub const PROFILE_SEED: u64 = 0x6b65_726e_656c_6761; // "kernelga"

/// Runs one ncu session over the `selected` trials and the variants their ratio expectations name
/// (`all` is every case of the run), with the program `program` as the profiled child, which must
/// read the kernels this run read (`sources`, [`crate::source::same_as_parent`]); the report goes
/// to `report` (`<stem>.ncu-rep`).
///
/// # Errors
/// What [`Session::run`] and [`profile::collect`] return: ncu missing, an `==ERROR==` line, no
/// profiled kernel, a requested metric missing.
pub fn profile(
    config: &Config,
    sources: &Sources,
    all: &[Case],
    selected: &[&str],
    program: &Path,
    report: PathBuf,
    reporter: &dyn Reporter,
) -> Result<Profiled> {
    let mut names: Vec<String> = Vec::new();
    for case in all.iter().filter(|c| selected.contains(&c.name().as_str())) {
        names.push(case.name());
        names.extend(case.expectations.iter().filter_map(|e| e.relative_to).map(|v| case.sibling(v)));
    }
    names.sort();
    names.dedup();
    let profiled_cases: Vec<&Case> = all.iter().filter(|c| names.contains(&c.name())).collect();
    let mut metric_names: Vec<&'static str> = Vec::new();
    for case in &profiled_cases {
        for m in metrics::requested(case) {
            if !metric_names.contains(&m) {
                metric_names.push(m);
            }
        }
    }
    let session = Session {
        ncu: config.ncu_path.clone(),
        clock_control: config.ncu_clock_control.clone(),
        metrics: metric_names,
        trials: profiled_cases.iter().map(|c| c.name()).collect(),
        paired: config.ab.is_some(),
        report,
    };
    let started = std::time::Instant::now();
    reporter.report(&Event::Status(&format!(
        "kernelgate: profiling {} trials with ncu (--clock-control {}, inputs from seed {PROFILE_SEED})",
        session.trials.len(),
        session.clock_control
    )));
    let child_env =
        [(CHILD_ENV, session.trials.join("\n")), (crate::source::PARENT_KERNELS_ENV, sources.kernels_sha256())];
    let (outputs, parsed) = session.run(program, &child_env, reporter)?;
    let version = super::run::version(&session.ncu).unwrap_or_else(|e| format!("unknown ({e})"));
    let profiled = profile::collect(
        &parsed,
        &profiled_cases,
        &session.metrics,
        &outputs.csv,
        &version,
        &session.clock_control,
        &outputs.report,
    )?;
    if config.ab.is_some() {
        let missing: Vec<String> = profiled_cases
            .iter()
            .filter(|c| !c.kernels().is_empty() && !profiled.a_side.contains_key(&c.name()))
            .map(|c| c.name())
            .collect();
        if !missing.is_empty() {
            reporter.report(&Event::Warning(&format!(
                "kernelgate: warning: ncu profiled no A side (the revision's kernels, NVTX ranges ending {}) for {}: \
                 their A/B verdicts are decided by time alone",
                measure::A_SIDE_SUFFIX,
                missing.join(", ")
            )));
        }
    }
    reporter.report(&Event::Status(&format!(
        "kernelgate: ncu {version} profiled {} kernels of {} trials in {:.1} s; report {} (open it in the Nsight Compute GUI)",
        parsed.kernels.len(),
        profiled.values.len(),
        started.elapsed().as_secs_f64(),
        outputs.report.display()
    )));
    Ok(profiled)
}

/// The profiled child: each trial named in `list` (one per line), its checked launch once inside
/// its NVTX ranges, on inputs from [`PROFILE_SEED`], on the first device of
/// `KERNELGATE_DEVICES`, compiled from the kernels the child read (`sources`); in a same-run A/B
/// run (`KERNELGATE_AB`), then the revision's program on the same inputs inside the A side's ranges
/// ([`measure::nvtx_ranges_of_a`]), where the revision has the trial's kernel files. Exit code 1
/// when a trial is unknown, fails its check or errs.
pub fn child(
    config: &Config,
    project: &crate::project::Project,
    sources: &Sources,
    all: &[Case],
    list: &str,
) -> ExitCode {
    let Some(gpu) = crate::devices::open_child_gpu(config, "profiled child", crate::compile::nvrtc_version) else {
        return ExitCode::FAILURE;
    };
    let read = |name: &str, rev: Option<&str>| match rev
        .map(|rev| crate::history::revision::Revision::read(project, rev, &crate::report::events::Terminal::default()))
    {
        Some(Err(e)) => {
            crate::errln!("kernelgate (profiled child): {name}: {e}");
            Err(ExitCode::FAILURE)
        }
        Some(Ok(r)) => Ok(Some(r)),
        None => Ok(None),
    };
    let (revision, revision_b) =
        match (read("KERNELGATE_AB", config.ab.as_deref()), read("KERNELGATE_AB_B", config.ab_b.as_deref())) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(code), _) | (_, Err(code)) => return code,
        };
    let mut failed = false;
    let order = list.lines().filter_map(|name| all.iter().find(|c| c.name() == name)).cloned().collect();
    // The child's own inputs, made ahead on its own prefetcher (on the GPU's clock, which no one reads).
    let prefetch = crate::inputs::Prefetch::new(std::sync::Arc::clone(gpu.clock()));
    prefetch.start(order, PROFILE_SEED);
    let _entered = prefetch.enter();
    for name in list.lines().filter(|l| !l.is_empty()) {
        // Into ncu's log, where the session's heartbeat reads how far the child is.
        println!("{}{name}", super::run::BEGIN);
        let Some(case) = all.iter().find(|c| c.name() == name) else {
            crate::errln!("kernelgate (profiled child): no case named {name}");
            failed = true;
            continue;
        };
        let _ranges = measure::nvtx_ranges(case);
        // B: this build's kernels, or with KERNELGATE_AB_B a revision's (none there: not profiled).
        let compiled = match &revision_b {
            Some(b) => crate::program::compile_from(&gpu, sources, case, |k| b.kernel(k.file)),
            None => crate::program::compile(&gpu, sources, case).map(Some),
        };
        let checked = match compiled {
            Ok(None) => Ok(Ok(())),
            Ok(Some(compiled)) => {
                let inputs = prefetch.prepared(case, PROFILE_SEED);
                check::check_case(&gpu, case, &compiled, &inputs, PROFILE_SEED, check::SharedStart::AsLeft)
                    .map(|r| r.map(|_| ()))
            }
            Err(e) => Err(e),
        };
        drop(_ranges);
        let a_side = revision.as_ref().filter(|_| !case.kernels().is_empty()).and_then(|revision| {
            let compiled =
                crate::program::compile_from(&gpu, sources, case, |k| revision.kernel(k.file)).transpose()?;
            let _ranges = measure::nvtx_ranges_of_a(case);
            Some(compiled.and_then(|a| {
                let inputs = prefetch.prepared(case, PROFILE_SEED);
                check::check_case(&gpu, case, &a, &inputs, PROFILE_SEED, check::SharedStart::AsLeft)
                    .map(|r| r.map(|_| ()))
            }))
        });
        // The A side's own failures are the trial's to report (its check runs there too); here
        // they only leave the trial without A-side counters.
        for (side, checked) in [("", Some(checked)), (" (A side)", a_side)] {
            let problem = match checked {
                None | Some(Ok(Ok(_))) => continue,
                Some(Ok(Err(message))) => message,
                Some(Err(e)) => format!("{name}: {e}"),
            };
            crate::errln!("kernelgate (profiled child){side}: {problem}");
            failed |= side.is_empty();
        }
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

/// The error for a run that asked for ncu on a machine without a usable GPU.
pub fn no_gpu(reason: &str) -> Error {
    Error::Unavailable(format!("KERNELGATE_NCU=1 but there is no GPU to profile: {reason}"))
}
