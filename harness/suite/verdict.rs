//! The verdict side of a GPU trial: the effect floor, the judgement against the baseline, the
//! counter expectations, and the compute-sanitizer's findings folded into the trial's outcome.

use super::Suite;
use crate::case::Case;
use crate::expect::{Outcome, check_all};
use crate::gate::baseline::Baseline;
use crate::gate::{Base, CounterBase, Decided, Judged, Now, TimeUnit, Verdict};
use crate::gpu::Gpu;
use crate::measure::Samples;
use libtest_mimic::{Completion, Failed};

/// `result` with the trial's compute-sanitizer failure added, when the sanitizer mode found one
/// and [`finish`] has not already included it.
pub(super) fn sanitized(suite: &Suite, case: &Case, result: Result<Completion, Failed>) -> Result<Completion, Failed> {
    let Some(found) = sanitize_failure(suite, case) else { return result };
    match result {
        Err(f) if f.message().is_some_and(|m| m.contains(&found)) => Err(f),
        Err(f) => Err(format!("{}\n{found}", f.message().unwrap_or("failed")).into()),
        Ok(Completion::Ignored { reason }) if suite.no_gpu.is_some() => Ok(Completion::Ignored { reason }),
        Ok(_) => Err(found.into()),
    }
}

/// The compute-sanitizer failure of `case`, when `KERNELGATE_SANITIZE` is set and the tool
/// reported it (or the sanitizer run itself failed).
pub(super) fn sanitize_failure(suite: &Suite, case: &Case) -> Option<String> {
    if suite.config.sanitize.is_none() && !suite.config.isolate {
        return None;
    }
    match suite.sanitized.get() {
        None => {
            let why = suite.no_gpu.as_deref().unwrap_or("the GPUs could not be opened; see the run's first lines");
            Some(format!("{}: no checked child ran (KERNELGATE_SANITIZE or KERNELGATE_ISOLATE): {why}", case.name()))
        }
        Some(Err(e)) => Some(format!("{}: the checked child could not run: {e}", case.name())),
        Some(Ok(s)) => s.failures.get(&case.name()).cloned(),
    }
}

/// Whether a trial's `verdict`, decided by `decided_by` (the run CSV's word: `time`, `counter
/// <metric>`, ...), fails it: `KERNELGATE_FAIL_ON` lists it, the run does not bless, and it is not a
/// time verdict against the baseline where the time is gated against the GPU's own history instead
/// (`KERNELGATE_REFERENCE=gpu`, outside same-run A/B runs; [`crate::config::Config::time_by_gpu_history`]).
pub(super) fn verdict_fails(config: &crate::config::Config, verdict: &str, decided_by: &str) -> bool {
    let time_elsewhere = config.time_by_gpu_history && config.ab.is_none() && decided_by == "time";
    !config.bless && !time_elsewhere && config.fail_on.iter().any(|v| v == verdict)
}

/// `time`, `counter <metric>` or `conditions`: the run CSV's `decided_by`.
pub(super) fn decided_by(decided: &Decided) -> String {
    match decided {
        Decided::Conditions => "conditions".into(),
        Decided::Tool => "tool".into(),
        Decided::Time => "time".into(),
        Decided::Counter(m) => format!("counter {}", m.metric),
    }
}

/// Why `case` is host-bound ([`Case::host_bound`]) and has no calibrated run-to-run floor in the
/// baseline, when both hold: such a trial is measured and shown, sampled to the stopping rule's
/// minimums only, and does not gate ([`host_bound_verdict`]).
pub(super) fn uncalibrated_host_bound(suite: &Suite, case: &Case) -> Option<String> {
    let why = case.host_bound()?;
    let calibrated = matches!(suite.baseline.get(), Some(Ok(b)) if b.run_to_run(&case.name()).is_some());
    (!calibrated).then_some(why)
}

/// The effect floor the gate will judge `case` with, for the precision stopping rule: the
/// calibrated floor, else the baseline's per-sample floor, else `KERNELGATE_MIN_EFFECT`; infinite
/// for a host-bound trial without a calibrated floor ([`uncalibrated_host_bound`]), which no
/// number of samples would let gate, so it stops at the minimums.
pub(super) fn effect_floor(suite: &Suite, case: &Case, gpu: &Gpu) -> f64 {
    let policy = suite.policy();
    if uncalibrated_host_bound(suite, case).is_some() {
        return f64::INFINITY;
    }
    let Some(Ok(base)) = suite.baseline.get() else { return policy.effect_floor };
    let name = case.name();
    match (base.run_to_run(&name), base.samples(&name)) {
        (Some(r), _) => policy.run_to_run_floor(r.rsd, suite.tests()),
        (None, Some(samples)) if base.time(&name).is_some() && gpu.facts.gpu_key == key_of(base) => {
            policy.min_effect(samples)
        }
        _ => policy.effect_floor,
    }
}

/// The GPU key of a baseline: its folder's name.
pub(super) fn key_of(base: &Baseline) -> String {
    base.dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// A trial's verdict against its baseline. `Err` when the baseline cannot be used at all (a
/// corrupt file): that is a harness error, not a verdict.
pub(super) fn judge(suite: &Suite, case: &Case, samples: &Samples, gpu: &Gpu) -> Result<Judged, String> {
    let name = case.name();
    let (kept, _) = samples.kept();
    let invalid = samples.invalid_reason();
    let counters = match suite.profiled.get() {
        Some(Ok(p)) => p.values.get(&name),
        _ => None,
    };
    let baseline = match suite.baseline.get() {
        Some(Ok(b)) => Some(b),
        Some(Err(e)) => return Err(e.clone()),
        None => None,
    };
    let entry = baseline.and_then(|b| Some((b, b.time(&name)?, b.samples(&name)?)));
    let cycles = suite.config.compare_cycles;
    let (now, base_unit) = match (cycles, samples.kept_cycles(), entry.and_then(|(_, e, _)| e.sm_clock_mhz)) {
        (false, _, _) => (kept, 1.0),
        // The baseline keeps seconds and its median SM clock: its cycles are approximate.
        (true, Some(now), Some(mhz)) => (now, mhz * 1e6),
        (true, ..) => {
            let why = "KERNELGATE_COMPARE=cycles needs SM clocks (NVML) in this run and the baseline";
            return Ok(Judged {
                verdict: Verdict::Invalid,
                decided: Decided::Conditions,
                comparison: None,
                moved: Vec::new(),
                reason: why.into(),
            });
        }
    };
    let base_samples: Vec<f64> = entry.map(|(_, _, s)| s.iter().map(|x| x * base_unit).collect()).unwrap_or_default();
    let reference = entry.map(|(b, e, _)| Base {
        samples: &base_samples,
        median: e.median * base_unit,
        spread: b.run_to_run(&name).map(|r| (r.rsd, r.runs)),
        counters: b
            .counters(&name)
            .map(|c| CounterBase {
                metric: &c.metric,
                value: c.median,
                rsd: b.spread(&name, &c.metric).map(|s| s.rsd),
                kernels: crate::gate::distinct_kernels(&c.kernel),
            })
            .collect(),
        invalid: None,
    });
    let now = Now { samples: &now, median: None, invalid: invalid.as_deref(), counters };
    let unit = if cycles { TimeUnit::Cycles } else { TimeUnit::Seconds };
    let host_bound = uncalibrated_host_bound(suite, case);
    crate::gate::judge(&now, reference.as_ref(), &suite.policy(), suite.tests(), unit)
        .map_err(|e| format!("{name}: {e}"))
        .map(|j| if entry.is_some() { j } else { no_baseline(j, baseline, &name, gpu) })
        .map(|j| match &host_bound {
            Some(why) => crate::gate::host_bound_verdict(j, why),
            None => j,
        })
}

/// A timed trial's failures folded into its libtest outcome, and whether it counts as a gate
/// failure (exit code 3) rather than a wrong result or harness error (101):
/// `gate` is the failing verdict's sentence (a verdict in `KERNELGATE_FAIL_ON`), `counters` the
/// counter expectations' check, `sanitizer` the checked child's finding. A broken counter
/// expectation is a performance verdict, as a regression is (`docs/reading-results.md`, "Exit
/// codes"): a trial whose only failures are those two is a gate failure, in baseline and A/B mode
/// alike, so that `kernelgate bisect` with `KERNELGATE_NCU=1` reads such a step as bad. Every
/// failure is shown, counters first.
pub(super) fn fold_failures(
    counters: CounterCheck,
    sanitizer: Option<String>,
    gate: Option<String>,
) -> (Result<Completion, Failed>, bool) {
    let (counters, counters_are_verdict) = match counters {
        CounterCheck::Met | CounterCheck::ToolInvalid(_) => (None, true),
        CounterCheck::Broken(text) => (Some(text), true),
        CounterCheck::Unchecked(text) => (Some(text), false),
    };
    let gate_only = counters_are_verdict && sanitizer.is_none() && (gate.is_some() || counters.is_some());
    let lines: Vec<String> = [counters, sanitizer, gate].into_iter().flatten().collect();
    if lines.is_empty() { (Ok(Completion::Completed), false) } else { (Err(lines.join("\n").into()), gate_only) }
}

#[cfg(test)]
mod tests {
    use super::verdict_fails;
    use crate::config::Config;

    #[test]
    fn a_pools_nightly_leaves_time_against_the_baseline_to_the_gpus_history() {
        let base = Config::default();
        assert!(verdict_fails(&base, "regressed", "time"));
        assert!(!verdict_fails(&base, "unchanged", "time") && !verdict_fails(&base, "invalid", "conditions"));
        let pool = Config { time_by_gpu_history: true, ..Config::default() };
        assert!(!verdict_fails(&pool, "regressed", "time"), "the GPU's own history judges time");
        assert!(verdict_fails(&pool, "regressed", "counter l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"));
        let ab = Config { ab: Some("main".into()), ..pool.clone() };
        assert!(verdict_fails(&ab, "regressed", "time"), "a same-run A/B run gates its own time");
        let blessing = Config { bless: true, ..Config::default() };
        assert!(!verdict_fails(&blessing, "regressed", "time"));
    }

    use super::*;

    fn failed(outcome: &Result<Completion, Failed>) -> String {
        match outcome {
            Err(f) => f.message().unwrap_or("").to_string(),
            Ok(_) => String::new(),
        }
    }

    /// A broken counter expectation is a gate failure (exit 3) alone or beside a regression; one
    /// that could not be evaluated, or a sanitizer finding, makes the trial a harness failure (101).
    #[test]
    fn a_broken_counter_expectation_is_a_gate_failure_and_an_unchecked_one_is_not() {
        let broken = || CounterCheck::Broken("c: counter expectations: FAIL wavefronts = 2.0".into());
        let gate = || Some("c: regressed (counter l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum)".to_string());
        assert!(matches!(fold_failures(CounterCheck::Met, None, None), (Ok(Completion::Completed), false)));
        let (outcome, gate_only) = fold_failures(broken(), None, None);
        assert!(gate_only && failed(&outcome).contains("FAIL wavefronts"));
        let (outcome, gate_only) = fold_failures(broken(), None, gate());
        assert!(gate_only, "a broken expectation beside a regression is still a gate failure");
        assert_eq!(failed(&outcome).lines().count(), 2, "both are shown: {}", failed(&outcome));
        let (_, gate_only) = fold_failures(CounterCheck::Met, None, gate());
        assert!(gate_only);
        let (outcome, gate_only) = fold_failures(CounterCheck::Unchecked("no ncu session ran".into()), None, gate());
        assert!(!gate_only && failed(&outcome).starts_with("no ncu session ran"));
        let (_, gate_only) = fold_failures(broken(), Some("memcheck: 1 error".into()), None);
        assert!(!gate_only, "a sanitizer finding is not a verdict");
    }

    /// A kernel new since A, timed alone in an A/B run (which loads no baseline), reads as new
    /// since A, not as a missing baseline; an invalid measurement keeps its own reason.
    #[test]
    fn a_kernel_new_since_a_says_so() {
        let judged = |verdict, reason: &str| Judged {
            verdict,
            decided: Decided::Conditions,
            comparison: None,
            moved: Vec::new(),
            reason: reason.into(),
        };
        let absent = "kernels/blocksum.cu does not exist at HEAD";
        let j = new_since_a(judged(Verdict::NoBaseline, "no baseline loaded for nvidia-h200-sm90"), absent);
        assert_eq!(
            j.reason,
            "new since A: kernels/blocksum.cu does not exist at HEAD; timed alone, with no A to compare with"
        );
        let j = new_since_a(judged(Verdict::Invalid, "too noisy"), absent);
        assert_eq!((j.verdict, j.reason.as_str()), (Verdict::Invalid, "too noisy"));
    }
}

/// A no-baseline verdict's reason, naming the folder looked in.
pub(super) fn no_baseline(mut j: Judged, baseline: Option<&Baseline>, name: &str, gpu: &Gpu) -> Judged {
    if j.verdict == Verdict::NoBaseline {
        j.reason = match baseline {
            Some(b) => format!("no entry for {name} in {}", b.dir.display()),
            None => format!("no baseline loaded for {}", gpu.facts.gpu_key),
        };
    }
    j
}

/// A verdict of a trial timed alone in a same-run A/B run because revision A lacks its kernel
/// (`absent` says what A lacks): a no-baseline verdict's reason says so
/// ([`crate::report::ab::new_since_a`], the run's log line), where the judge, which loaded no
/// baseline in an A/B run, would say that no baseline was loaded; other verdicts (an invalid
/// measurement) keep theirs.
pub(super) fn new_since_a(mut j: Judged, absent: &str) -> Judged {
    if j.verdict == Verdict::NoBaseline {
        j.reason = crate::report::ab::new_since_a(absent);
    }
    j
}

/// When the baseline entry of `case` was blessed on another physical GPU than `gpu`, a sentence
/// saying so (one baseline holds for the GPU it was blessed on: baselines/nvidia-h200-sm90/
/// BENCHMARK.md, "A second machine").
pub(super) fn other_gpu_note(suite: &Suite, case: &Case, gpu: &Gpu) -> Option<String> {
    let Some(Ok(base)) = suite.baseline.get() else { return None };
    let entry = base.time(&case.name())?;
    (entry.gpu_uuid != gpu.facts.uuid).then(|| {
        let blessed = if entry.gpu_uuid.is_empty() { "an unrecorded GPU".to_string() } else { entry.gpu_uuid.clone() };
        format!(
            "the baseline was blessed on another physical GPU ({blessed}; this run: {}): medians of one kernel \
             differed by -5.8 to +2.9 % between two H200s; bless on the machine that gates, or use KERNELGATE_AB",
            gpu.facts.uuid
        )
    })
}

/// When the baseline entry of `case` was measured under another driver, CUDA or NVRTC than `gpu`'s
/// ([`crate::gate::baseline::Entry::other_environment`]), or its counters by another ncu than this
/// run's ([`crate::gate::baseline::Entry::other_ncu`]), a sentence naming both sides: said first in
/// a failing trial's message, since the tools moved as well as the code.
pub(super) fn other_environment_note(suite: &Suite, case: &Case, gpu: &Gpu) -> Option<String> {
    let Some(Ok(base)) = suite.baseline.get() else { return None };
    let name = case.name();
    let mut changed: Vec<String> = Vec::new();
    if let Some(entry) = base.time(&name) {
        changed.extend(entry.other_environment(&crate::gate::baseline::Environment::of(&gpu.facts)));
    }
    if let Some(Ok(p)) = suite.profiled.get() {
        changed.extend(base.counters(&name).find_map(|e| e.other_ncu(&p.ncu_version)));
    }
    (!changed.is_empty()).then(|| {
        format!("{}: re-bless after a driver or tool change, or gate with KERNELGATE_AB=<rev>", changed.join("; "))
    })
}

/// What checking a case's counter expectations found ([`check_counters`]).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum CounterCheck {
    /// Every expectation met, or nothing to check (a program of copies only).
    Met,
    /// Every expectation was evaluated and at least one was not met: a performance verdict, as a
    /// `regressed` one is (exit code 3; `docs/reading-results.md`, "Exit codes"). The sentence
    /// names each expectation with its measured value.
    Broken(String),
    /// Some expectation could not be evaluated (no ncu session, no kernel profiled in the trial's
    /// NVTX range, a metric missing): a harness error, never a verdict.
    Unchecked(String),
    /// ncu printed a metric of the trial as not finite (`nan`): the tool's values are in question,
    /// not the kernel, so the expectations are neither met nor broken. The trial's verdict is
    /// `invalid` and says so ([`crate::gate::tool_invalid_verdict`]); it fails the trial only where
    /// `KERNELGATE_FAIL_ON` lists `invalid`.
    ToolInvalid(String),
}

/// Checks `case`'s counter expectations against this run's ncu values.
pub(super) fn check_counters(suite: &Suite, case: &Case) -> CounterCheck {
    if case.kernels().is_empty() && !case.calls_libraries() {
        // A program of copies only: ncu profiles kernels, so there is nothing to check.
        return CounterCheck::Met;
    }
    let profiled = match suite.profiled.get() {
        None => return CounterCheck::Unchecked("KERNELGATE_NCU=1 but no ncu session ran".into()),
        Some(Err(e)) => return CounterCheck::Unchecked(e.clone()),
        Some(Ok(p)) => p,
    };
    let name = case.name();
    if let Some(why) = profiled.tool_invalid(&name) {
        return CounterCheck::ToolInvalid(format!("{name}: counter expectations: {why}"));
    }
    let Some(values) = profiled.values.get(&name) else {
        return CounterCheck::Unchecked(format!(
            "{name}: ncu profiled no kernel inside this trial's NVTX ranges (report {})",
            profiled.report.display()
        ));
    };
    let checked = check_all(&case.expectations, values, |variant| profiled.values.get(&case.sibling(variant)));
    classify(&name, &profiled.report, &checked)
}

/// [`CounterCheck`] of evaluated expectations: met when all pass, broken when every one was
/// evaluated and some failed, unchecked when any could not be evaluated.
fn classify(name: &str, report: &std::path::Path, checked: &[crate::expect::Checked<'_>]) -> CounterCheck {
    if checked.iter().all(|c| matches!(c.outcome, Outcome::Pass(_))) {
        return CounterCheck::Met;
    }
    let lines: Vec<String> = checked.iter().map(|c| format!("  {c}")).collect();
    let text = format!("{name}: counter expectations (ncu, report {}):\n{}", report.display(), lines.join("\n"));
    if checked.iter().any(|c| matches!(c.outcome, Outcome::Missing(_))) {
        CounterCheck::Unchecked(text)
    } else {
        CounterCheck::Broken(text)
    }
}
