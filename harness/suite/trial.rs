//! One GPU trial, as a recipe (after nvbench's `measure_cold`, whose `operator()` is a list of
//! named steps):
//!
//! ```text
//! lease -> compile -> check -> measure -> recheck -> judge -> result -> finish
//! ```
//!
//! `recheck` compares what the last timed launch left in the bound buffers with the check's
//! reference ([`crate::recheck`]); `judge` first holds the median to the device's ceilings
//! ([`crate::guard`]: a median faster than the hardware can be is `invalid`, decided by `physics`).
//!
//! A trial has one of two timing modes, and they differ only in what `measure` and `judge` do:
//! - [`Timing::Baseline`]: this build's program timed cold ([`measure_cold`]) and judged against
//!   the baseline of its GPU ([`verdict::judge`]); in a same-run A/B run whose revision lacks the
//!   case's kernel, [`Timing::NewSinceA`] times it so too, with no A to judge it against;
//! - [`Timing::Paired`] (same-run A/B, `KERNELGATE_AB=<rev>`): this build's program (B) and the
//!   revision's (A) timed in pairs in one process ([`measure_pairs`]), **both over one set of
//!   device buffers**, and judged on the pairs ([`crate::gate::paired::judge_pairs`]). Two
//!   allocations of one size land on different physical pages; timed over two bindings, the same
//!   PTX differed by up to 6 % on strided and odd-shaped kernels (../shared/gpu/README.md,
//!   2026-12-01), which no number of pairs averages away. Each version checks its result on its
//!   own fresh buffers first; a graph case captures one graph per version over the shared buffers
//!   ([`crate::program::Bound`]). A program that writes its inputs in place evolves them through
//!   both versions' launches alike, in the random order of the pairs.

use super::faults::{not_run, retire_on_fault, unfinished_in_child};
use super::verdict::{
    CounterCheck, check_counters, decided_by, effect_floor, fold_failures, judge, new_since_a, other_environment_note,
    other_gpu_note, sanitize_failure,
};
use super::{Suite, Timed};
use crate::case::Case;
use crate::devices::{Lease, Pool};
use crate::gate::paired::{PairedCounters, judge_pairs};
use crate::gate::{Decided, Judged, Verdict};
use crate::gpu::Gpu;
use crate::guard::{Ceilings, Claim};
use crate::history::revision::Revision;
use crate::inputs::Taken;
use crate::measure::{Pairs, Samples, Side, measure_cold, measure_pairs, nvtx_ranges};
use crate::phases::Phase;
use crate::program::{self, Bound, Compiled};
use crate::recheck::{self, Launches};
use crate::record::CaseResult;
use crate::report::events::Event;
use crate::source::Sources;
use crate::{check, error::Error};
use libtest_mimic::{Completion, Failed};
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// What a trial times and against what.
enum Timing<'r> {
    /// This build's program alone, judged against the baseline.
    Baseline,
    /// This build's program alone in a same-run A/B run whose revision lacks the case's kernel (a
    /// kernel new since A): timed as [`Timing::Baseline`], with no A and no baseline to judge it
    /// against. The sentence says what A lacks (`kernels/blocksum.cu does not exist at HEAD`); the
    /// trial's reason is [`crate::report::ab::new_since_a`]'s, as the run's log line.
    NewSinceA(String),
    /// This build's program (B) against `revision`'s (A), compiled as `a`; `control` when the two
    /// are the same module timed as an A/A control of the gate ([`super::controls`]).
    Paired { revision: &'r Revision, a: Compiled, control: bool },
}

/// What the measure step took.
enum Measured {
    /// Cold samples of this build's program.
    Cold(Samples),
    /// Pairs of both versions.
    Paired(Pairs),
}

impl Measured {
    /// This build's samples, with the conditions they were taken under (borrowed when cold).
    fn of_b(&self) -> std::borrow::Cow<'_, Samples> {
        match self {
            Measured::Cold(s) => std::borrow::Cow::Borrowed(s),
            Measured::Paired(p) => std::borrow::Cow::Owned(p.as_samples_of_b()),
        }
    }
}

/// One GPU trial: the recipe of this module's documentation. Returns the libtest outcome: passed,
/// ignored with the reason (no GPU, no cuBLAS, A/B with identical modules), or failed with the
/// sentence (a wrong result, a harness error, a gating verdict, a failed counter expectation).
pub(super) fn run(suite: &Suite, case: &Case) -> Result<Completion, Failed> {
    let lease = match lease(suite, case)? {
        Ok(lease) => lease,
        Err(not_run) => return Ok(not_run),
    };
    let gpu = Arc::clone(lease.gpu());
    // The GPU is open and its ceilings measured: NVRTC's work made ahead may load the CPU now.
    suite.ahead.start(Some(&gpu.arch));
    let fault = |e: Error| retire_on_fault(suite, case, gpu.facts.ordinal, e);
    if let Some(why) = program::unavailable(case) {
        return super::cannot_run(why);
    }

    let clock = &suite.clock;
    let b = match clock.time(Phase::Compile, || compile_b(suite, case, &gpu)).map_err(fault)? {
        Ok(b) => b,
        Err(absent) => return Ok(Completion::ignored_with(absent)),
    };
    let timing = match timing(suite, case, &gpu, &b).map_err(fault)? {
        Ok(timing) => timing,
        Err(identical) => return Ok(Completion::ignored_with(identical)),
    };

    // Held until the re-check: the check's reference stays in the inputs cache (an entry held is
    // never the one let go), so the re-check compares with it instead of computing it again.
    let inputs = suite.prefetch.prepared(case, suite.seed);
    let mut bound = checked(suite, case, &gpu, &b, &timing, &inputs).map_err(fault)??;

    let ranges = nvtx_ranges(case);
    let measured =
        clock.time(Phase::Sampling, || measure(suite, case, &gpu, &b, &timing, &mut bound)).map_err(fault)?;
    drop(ranges);
    rechecked(suite, case, &gpu, &timing, &measured, &bound, inputs.reference()).map_err(fault)??;
    drop(inputs);
    drop(bound);
    drop(lease);

    clock.time(Phase::Verdict, || {
        let physics = impossible(&suite.sources, case, &gpu, &timing, &measured);
        let judged = guarded(judged(suite, case, &gpu, &timing, &measured)?, physics.as_deref());
        // A counter ncu printed as `nan` is the tool's failure, never the kernel's change.
        let profiled = suite.profiled.get().and_then(|p| p.as_ref().ok());
        let judged = match profiled.and_then(|p| p.tool_invalid(&case.name())) {
            Some(why) => crate::gate::tool_invalid_verdict(judged, &why),
            None => judged,
        };
        let (result, kept) = result(suite, case, &gpu, &b, &timing, &measured, &judged, physics);
        finish(suite, case, &gpu, result, &judged, kept)
    })
}

/// Borrows a GPU for the trial; `Ok(Err(outcome))` when the trial cannot run (no GPU: ignored
/// with the reason), `Err` when it must fail (every GPU lost, `KERNELGATE_REQUIRE_GPU=1`, or the
/// checked child did not finish it).
pub(super) fn lease<'s>(suite: &'s Suite, case: &Case) -> Result<Result<Lease<'s>, Completion>, Failed> {
    if let Some(Ok(s)) = suite.sanitized.get()
        && s.unfinished.contains(&case.name())
    {
        // It hung, died or faulted in the child; timing it here would do the same to the run.
        return Err(unfinished_in_child(suite, case));
    }
    match suite.lease() {
        Ok(lease) => Ok(Ok(lease)),
        Err(reason) => {
            if let Some(lost) = suite.pool().ok().and_then(Pool::lost) {
                return Err(not_run(suite, case, &lost));
            }
            if suite.config.require_gpu {
                return Err(format!("{reason} (KERNELGATE_REQUIRE_GPU=1 makes this a failure)").into());
            }
            super::cannot_run(reason).map(Err)
        }
    }
}

/// This build's program, or with `KERNELGATE_AB_B` the B revision's; `Ok(Err(sentence))` when
/// that revision lacks one of the case's kernel files.
///
/// # Errors
/// A compile or driver error.
fn compile_b(suite: &Suite, case: &Case, gpu: &Gpu) -> crate::error::Result<Result<Compiled, String>> {
    let Some(b) = suite.ab_b.get() else { return program::compile(gpu, &suite.sources, case).map(Ok) };
    Ok(program::compile_from(gpu, &suite.sources, case, |k| b.kernel(k.file))?.ok_or_else(|| {
        format!(
            "{} does not exist at {} (KERNELGATE_AB_B): not timed",
            list(&suite.sources, &case_files(case)),
            b.label()
        )
    }))
}

/// The timing mode of the trial: paired when the run is an A/B run and the revision has the
/// case's kernels, else baseline. `Ok(Err(sentence))` when the two versions compile to the same
/// PTX, or to other PTX but the same SASS for the GPU's architecture ([`same_machine_code`]: a
/// comment moves every `-lineinfo` line of the PTX), and `KERNELGATE_AB_IDENTICAL` is not `time`:
/// nothing to time (the same machine code).
///
/// # Errors
/// A compile or driver error of the revision's kernels.
fn timing<'r>(
    suite: &'r Suite,
    case: &Case,
    gpu: &Gpu,
    b: &Compiled,
) -> crate::error::Result<Result<Timing<'r>, String>> {
    let Some(Ok(revision)) = suite.ab.get() else { return Ok(Ok(Timing::Baseline)) };
    let files = case_files(case);
    let alone = |absent: String| {
        suite.report(&Event::TrialNote(&format!(
            "kernelgate: {}: {}",
            case.name(),
            crate::report::ab::new_since_a(&absent)
        )));
        Ok(Ok(Timing::NewSinceA(absent)))
    };
    if let Some(missing) = files.iter().find(|f| revision.source(f).is_none()) {
        return alone(format!("{} does not exist at {}", suite.sources.path_of(missing), revision.rev));
    }
    let compile_a = || program::compile_from(gpu, &suite.sources, case, |k| revision.kernel(k.file));
    let a = match suite.clock.time(Phase::Compile, compile_a) {
        Ok(a) => a.expect("every file exists at the revision (checked above)"),
        Err(Error::Driver { .. }) => {
            return alone(format!(
                "{} at {} lacks an entry point of {}",
                list(&suite.sources, &files),
                revision.rev,
                case.kernel_names()
            ));
        }
        // A's kernel takes other parameters than the case passes (`program::compile_from`'s
        // argument check): said with the revision, whose file it is.
        Err(Error::Kernels { path, message }) => {
            return Err(Error::Kernels { path, message: format!("at {}: {message}", revision.label()) });
        }
        Err(e) => return Err(e),
    };
    let same_ptx = a.module_sha256 == b.module_sha256;
    let same_sass = !same_ptx && !files.is_empty() && same_machine_code(suite, revision, case, &gpu.arch)?;
    let identical = same_ptx || same_sass;
    let what = if files.is_empty() {
        // cuBLAS or copies only: A/B swaps kernel sources, so both versions are the same program.
        "launches no kernel of its own (cuBLAS or copies only), so A and B are the same program".to_string()
    } else if same_sass {
        // A cubin or fatbin is its bytes, not PTX: they differ (nvcc's internal names, a build path).
        let (other, differs) = match files.iter().all(|f| crate::kernel_file::is_binary(f)) {
            true => ("other bytes", "the files differ in names or notes only"),
            false => ("other PTX", "the PTX differs in line numbers or names only"),
        };
        format!(
            "{} at {} compiles to {other} but the same SASS for {} as {} (nvdisasm: the instructions are equal, \
             function by function; {differs})",
            list(&suite.sources, &files),
            revision.label(),
            gpu.arch,
            suite.b_side()
        )
    } else {
        format!(
            "{} at {} compiles to the same PTX as {}",
            list(&suite.sources, &files),
            revision.label(),
            suite.b_side()
        )
    };
    let control = identical && suite.controls.get().is_some_and(|c| c.contains(&case.name()));
    if identical && !suite.config.ab_time_identical && !control {
        return Ok(Err(format!("{what}: not timed (KERNELGATE_AB_IDENTICAL=time times it)")));
    }
    if control {
        suite.report(&Event::TrialNote(&format!(
            "kernelgate: {}: {what}; timed as an A/A control of the gate (KERNELGATE_AB_CONTROLS)",
            case.name()
        )));
    } else if files.is_empty() {
        suite.report(&Event::TrialNote(&format!(
            "kernelgate: {}: {what}; timed (KERNELGATE_AB_IDENTICAL=time)",
            case.name()
        )));
    } else {
        suite.report(&Event::TrialNote(&format!(
            "kernelgate: {}: A = {} at {} (module {}), B = {} (module {}){}",
            case.name(),
            list(&suite.sources, &files),
            revision.rev,
            short(&a.module_sha256),
            suite.b_side(),
            short(&b.module_sha256),
            if identical { "; identical, timed (KERNELGATE_AB_IDENTICAL=time)" } else { "" }
        )));
    }
    Ok(Ok(Timing::Paired { revision, a, control }))
}

/// Whether every kernel file of `case` (with its instances) makes the same machine code for `arch` at `revision` (A) as on
/// the B side (this build's, or `KERNELGATE_AB_B`'s), by [`crate::sass::same::compare`]; a file
/// whose texts are equal is the same. `false` when any differs or cannot be compared (no
/// nvdisasm: said once per trial on stdout, and the case is timed).
///
/// # Errors
/// A compile error of either text.
fn same_machine_code(suite: &Suite, revision: &Revision, case: &Case, arch: &str) -> crate::error::Result<bool> {
    use crate::sass::same::{Code, compare};
    for (file, defines) in &case_builds(case) {
        let instances: Vec<&str> = case
            .kernels()
            .iter()
            .filter(|k| k.file == *file && k.defines == *defines && k.is_instance())
            .map(|k| k.entry)
            .collect();
        let (a_text, a_options) = revision.kernel(file).unwrap_or_default();
        let (b_text, b_options) = match suite.ab_b.get() {
            Some(b) => b.kernel(file).unwrap_or_default(),
            None => suite.sources.get(file).map_or(("", &[][..]), |s| (s.source, s.options)),
        };
        let (a_options, b_options) =
            (crate::source::build_options(a_options, defines), crate::source::build_options(b_options, defines));
        let (a, b) = ((a_text, a_options.as_slice()), (b_text, b_options.as_slice()));
        if a == b {
            continue;
        }
        let shown = suite.sources.path_of(file);
        let root = suite.sources.root();
        match suite.clock.time(Phase::Compile, || compare(file, shown, a, b, arch, &instances, root))? {
            Code::Same => {}
            Code::Differs(_) => return Ok(false),
            Code::Unknown(why) => {
                suite.report(&Event::TrialNote(&format!(
                    "kernelgate: {}: PTX differs and the SASS could not be compared ({why}); timed",
                    shown
                )));
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// The first 12 hex digits of a module hash (the `+`-joined hashes of a program of several
/// modules are cut the same way).
fn short(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

/// The builds of kernel files `case` launches from (each file with the definitions of its kernels,
/// [`crate::Kernel::defines`]), sorted, each once.
fn case_builds(case: &Case) -> Vec<(&'static str, &'static [&'static str])> {
    let mut builds: Vec<(&'static str, &'static [&'static str])> =
        case.kernels().iter().map(|k| (k.file, k.defines)).collect();
    builds.sort_unstable();
    builds.dedup();
    builds
}

/// The kernel files `case` launches from, sorted, each once.
fn case_files(case: &Case) -> Vec<&'static str> {
    let mut files: Vec<&'static str> = case.kernels().iter().map(|k| k.file).collect();
    files.sort_unstable();
    files.dedup();
    files
}

/// `kernels/a.cu, kernels/b.cu`: each as the run read it (`sources`, [`Sources::path_of`]).
fn list(sources: &Sources, files: &[&str]) -> String {
    files.iter().map(|f| sources.path_of(f)).collect::<Vec<_>>().join(", ")
}

/// The check: the revision's program (A/B) on its own fresh buffers, then this build's, both on
/// `inputs` (the trial's entry of the run's inputs cache); returns this build's bound buffers, on
/// which both versions are then timed. `Ok(Err(failed))` for a wrong result (the message names the
/// version).
///
/// # Errors
/// A harness or driver error.
fn checked(
    suite: &Suite,
    case: &Case,
    gpu: &Gpu,
    b: &Compiled,
    timing: &Timing,
    inputs: &Taken,
) -> crate::error::Result<Result<Bound, Failed>> {
    let start = check::SharedStart::Poisoned;
    if let Timing::Paired { revision, a, .. } = timing
        && let Err(wrong) = check::check_case(gpu, case, a, inputs, suite.seed, start)?
    {
        return Ok(Err(format!("A ({} at {}): {wrong}", list(&suite.sources, &case_files(case)), revision.rev).into()));
    }
    Ok(check::check_case(gpu, case, b, inputs, suite.seed, start)?.map_err(Failed::from))
}

/// The measure step: cold samples of this build's program, or pairs of both versions over `bound`.
///
/// # Errors
/// A launch or driver error (an illegal address surfaces at an event wait).
fn measure(
    suite: &Suite,
    case: &Case,
    gpu: &Gpu,
    b: &Compiled,
    timing: &Timing,
    bound: &mut Bound,
) -> crate::error::Result<Measured> {
    let config = &suite.config;
    match timing {
        Timing::Baseline | Timing::NewSinceA(_) => {
            let floor = effect_floor(suite, case, gpu);
            measure_cold(gpu, &config.stopping, config.warmup, floor, || program::run(gpu, case, b, bound))
                .map(Measured::Cold)
        }
        Timing::Paired { a, .. } => {
            let floor = config.effect_floor_pct() / 100.0;
            let seed = check::trial_seed(suite.seed, &case.name());
            measure_pairs(gpu, &config.stopping, config.warmup, floor, seed, |side| match side {
                Side::A => program::run(gpu, case, a, bound),
                Side::B => program::run(gpu, case, b, bound),
            })
            .map(Measured::Paired)
        }
    }
}

/// The re-check step: what the last timed launch left in `bound` against the check's reference
/// `want` ([`recheck::recheck`]); `Ok(Err(failed))` for a wrong result, with how many launches
/// ran and, in A/B, whose was last. A program that writes its inputs in place is not re-checked,
/// and a line says so ([`recheck::not_rechecked`]).
///
/// # Errors
/// A driver error of the download.
fn rechecked(
    suite: &Suite,
    case: &Case,
    gpu: &Gpu,
    timing: &Timing,
    measured: &Measured,
    bound: &Bound,
    want: &[crate::case::HostData],
) -> crate::error::Result<Result<(), Failed>> {
    if let Some(why) = recheck::not_rechecked(case) {
        suite.report(&Event::TrialNote(&format!("kernelgate: {why}")));
        return Ok(Ok(()));
    }
    let launches = match (timing, measured) {
        (_, Measured::Cold(samples)) => Launches { warmup: samples.warmed, timed: samples.seconds.len(), last: None },
        (Timing::Paired { revision, .. }, Measured::Paired(pairs)) => Launches {
            warmup: 2 * pairs.warmed,
            timed: 2 * pairs.a.len(),
            last: pairs.last_side().map(|side| match side {
                Side::A => format!("A ({} at {})", list(&suite.sources, &case_files(case)), revision.rev),
                Side::B => format!("B ({})", suite.b_side()),
            }),
        },
        (Timing::Baseline | Timing::NewSinceA(_), Measured::Paired(_)) => {
            unreachable!("pairs are measured in paired timing only")
        }
    };
    Ok(match recheck::recheck(gpu, case, bound, want, &launches, suite.seed)? {
        None => Ok(()),
        Some(wrong) => Err(wrong.into()),
    })
}

/// Why this build's median, or in same-run A/B the reference version's, is physically impossible
/// on `gpu`, when it is ([`crate::guard`]): the kept samples' median, at the slow end of its 95 %
/// confidence interval, against the device's ceilings. The reference version is named by its files
/// as the run read them (`sources`).
fn impossible(sources: &Sources, case: &Case, gpu: &Gpu, timing: &Timing, measured: &Measured) -> Option<String> {
    let claim = |samples: &Samples| {
        let (kept, _) = samples.kept();
        (!kept.is_empty())
            .then(|| Claim::of(case, crate::stats::median(&kept), Some(crate::gate::median_ci_half_width(&kept))))
    };
    let ceilings = Ceilings::of(&gpu.facts);
    let b = claim(&measured.of_b())?;
    match (timing, measured) {
        (Timing::Paired { revision, .. }, Measured::Paired(pairs)) => {
            let Some(a) = claim(&pairs.as_samples_of_a()) else { return crate::guard::impossible(&b, &ceilings) };
            let label = format!("A ({} at {})", list(sources, &case_files(case)), revision.rev);
            crate::guard::impossible_paired(&b, &a, &label, &ceilings)
        }
        _ => crate::guard::impossible(&b, &ceilings),
    }
}

/// `judged`, or `invalid` with `physics` as the reason when the median is impossible: no
/// comparison of such a median means anything (the counters that moved are kept).
fn guarded(judged: Judged, physics: Option<&str>) -> Judged {
    match physics {
        None => judged,
        Some(why) => Judged {
            verdict: Verdict::Invalid,
            decided: Decided::Conditions,
            comparison: None,
            moved: judged.moved,
            reason: why.to_string(),
        },
    }
}

/// The judge step: against the baseline, or on the pairs.
///
/// # Errors
/// A baseline that cannot be used at all, or pairs the paired gate refuses: a harness error.
fn judged(suite: &Suite, case: &Case, gpu: &Gpu, timing: &Timing, measured: &Measured) -> Result<Judged, Failed> {
    match (timing, measured) {
        (Timing::Paired { revision, .. }, Measured::Paired(pairs)) => {
            let (a, b, _) = pairs.kept();
            let invalid = pairs.as_samples_of_b().invalid_reason();
            let counters = match suite.profiled.get() {
                Some(Ok(p)) => p.values.get(&case.name()).zip(p.a_side.get(&case.name())).map(|(b, a)| {
                    let kernels = p.kernels.get(&case.name()).map_or(1, |k| crate::gate::distinct_kernels(k));
                    PairedCounters { a, b, kernels }
                }),
                _ => None,
            };
            let versions = format!("B ({}) vs A ({})", suite.b_side(), revision.label());
            judge_pairs(&a, &b, invalid, counters, &suite.policy(), suite.tests(), &versions)
                .map_err(|e| Failed::from(format!("{}: {e}", case.name())))
        }
        (Timing::NewSinceA(absent), Measured::Cold(samples)) => {
            judge(suite, case, samples, gpu).map(|j| new_since_a(j, absent)).map_err(Failed::from)
        }
        (_, Measured::Cold(samples)) => judge(suite, case, samples, gpu).map_err(Failed::from),
        (Timing::Baseline | Timing::NewSinceA(_), Measured::Paired(_)) => {
            unreachable!("pairs are measured in paired timing only")
        }
    }
}

/// The trial's row of the run: this build's summary (kept samples), the verdict and what decided
/// it (`physics` when the guard found the median impossible: its reason is the row's invalid
/// reason, so the bless leaves it out), the driver's resources; and the kept samples (evenly
/// spaced) for the record and the bless.
#[allow(clippy::too_many_arguments)]
fn result(
    suite: &Suite,
    case: &Case,
    gpu: &Gpu,
    b: &Compiled,
    timing: &Timing,
    measured: &Measured,
    judged: &Judged,
    physics: Option<String>,
) -> (CaseResult, Vec<f64>) {
    let samples = measured.of_b();
    let (kept, throttled) = samples.kept();
    let summary = crate::stats::summarize(if kept.is_empty() { &samples.seconds } else { &kept });
    let decided = match timing {
        _ if physics.is_some() => "physics".to_string(),
        Timing::Paired { control: true, .. } => format!(
            "{}{}{}",
            super::controls::DECIDED_BY_PREFIX,
            decided_by(&judged.decided),
            if judged.verdict == Verdict::Invalid { "" } else { " (A/A)" }
        ),
        Timing::Paired { .. } if judged.verdict != Verdict::Invalid => format!("{} (A/B)", decided_by(&judged.decided)),
        _ => decided_by(&judged.decided),
    };
    let result = CaseResult {
        trial: case.name(),
        kernel: case.kernel_names(),
        summary,
        stop: samples.stop,
        wall_s: samples.wall_s,
        bytes: case.bytes,
        flops: case.flops,
        module_sha256: b.module_sha256.clone(),
        compile_options: compile_options(&suite.sources, case),
        element_types: element_types(case),
        sm_clock_mhz: samples.median_sm_mhz(),
        throttled,
        throttle_reasons: samples.throttle_reasons(),
        other_processes: samples.other_processes.clone(),
        verdict: judged.verdict,
        decided_by: decided,
        comparison: judged.comparison.clone(),
        invalid_reason: physics.or_else(|| samples.invalid_reason()),
        resources: program::resources(gpu, case, b),
        // Of the samples the summary is of (the kept ones).
        median_ci: (!kept.is_empty()).then(|| crate::gate::median_ci_half_width(&kept)),
        bound: crate::ceilings::bound(case.bound, case.bytes, case.flops, &gpu.ceilings),
        vendor: None,
    };
    (result, crate::stats::evenly_spaced(&kept, suite.config.baseline_samples))
}

/// Records a timed trial, checks its counter expectations, and fails it on a gating verdict.
fn finish(
    suite: &Suite,
    case: &Case,
    gpu: &Arc<Gpu>,
    result: CaseResult,
    judged: &Judged,
    kept: Vec<f64>,
) -> Result<Completion, Failed> {
    let verdict = result.verdict;
    // An A/A control measures the gate; its verdict is reported, never a failure of the run.
    let control = result.decided_by.starts_with(super::controls::DECIDED_BY_PREFIX);
    let moved = judged.moved.iter().map(ToString::to_string).collect();
    let timed_decided_by = result.decided_by.clone();
    let timed = Timed { result, reason: judged.reason.clone(), moved, kept, gpu: Arc::clone(gpu) };
    suite.collected.timed.lock().unwrap_or_else(|p| p.into_inner()).push(timed);
    let counters = if suite.config.ncu { check_counters(suite, case) } else { CounterCheck::Met };
    let gate =
        (!control && super::verdict::verdict_fails(&suite.config, verdict.as_str(), &timed_decided_by)).then(|| {
            // Another driver or tool than the baseline's is said first: the environment moved, not only the code.
            let environment = other_environment_note(suite, case, gpu).map(|n| format!("{n}; ")).unwrap_or_default();
            let mut message = format!("{}: {environment}{}", case.name(), judged.message_lines());
            if let Some(note) = other_gpu_note(suite, case, gpu) {
                message += &format!("; {note}");
            }
            message
        });
    let (outcome, gate_only) = fold_failures(counters, sanitize_failure(suite, case), gate);
    if gate_only {
        suite.collected.gate_failures.fetch_add(1, Ordering::Relaxed);
    }
    outcome
}

/// The NVRTC options of `case`'s kernels beyond kernelgate's own, as the run CSV records them
/// ([`CaseResult::compile_options`]): each distinct build's options (its file's as the run read it,
/// `sources`, and its `-D` definitions) joined by spaces, the builds joined by ` + `.
fn compile_options(sources: &Sources, case: &Case) -> String {
    let mut builds: Vec<String> = Vec::new();
    for (kernel, _) in case.launches() {
        let options = kernel.options(sources.options_of(kernel.file)).join(" ");
        if !builds.contains(&options) {
            builds.push(options);
        }
    }
    builds.retain(|b| !b.is_empty());
    builds.join(" + ")
}

/// The element types of `case`'s buffers, each once in parameter order, joined by spaces
/// ([`CaseResult::element_types`]).
fn element_types(case: &Case) -> String {
    let mut types: Vec<String> = Vec::new();
    for elem in case.params.iter().filter_map(crate::case::Param::elem) {
        let name = elem.to_string();
        if !types.contains(&name) {
            types.push(name);
        }
    }
    types.join(" ")
}

#[cfg(test)]
mod tests {
    use super::{compile_options, element_types};
    use crate::case::{Case, Elem, Launch, Param};
    use crate::source::k;

    /// What the run CSV records of a trial's builds and buffers (schema 7).
    #[test]
    fn the_run_csv_names_the_builds_options_and_the_buffers_types() {
        let sources = crate::source::for_tests();
        let compile_options = |case: &Case| compile_options(sources, case);
        let copy = k::coalescing::copy_coalesced;
        let plain = Case::new("t", "plain", "8", copy).params([Param::input(8), Param::output(8)]);
        assert_eq!((compile_options(&plain), element_types(&plain)), (String::new(), "f32".to_string()));
        let defined = Case::new("t", "block", "8", copy.define("BLOCK", 256)).params([
            Param::input(8).of(Elem::BF16),
            Param::output(8),
            Param::input(8).of(Elem::BF16),
        ]);
        assert_eq!(compile_options(&defined), "-DBLOCK=256");
        assert_eq!(element_types(&defined), "bf16 f32", "each type once, in parameter order");
        let two = Case::new("t", "two", "8", copy.define("BLOCK", 256))
            .params([Param::input(8), Param::output(8)])
            .launch_with(copy.define("BLOCK", 256), Launch::linear(8, 32), [0, 1])
            .launch_with(copy.define("BLOCK", 512), Launch::linear(8, 32), [0, 1]);
        assert_eq!(compile_options(&two), "-DBLOCK=256 + -DBLOCK=512");
    }
}
