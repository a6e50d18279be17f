//! Where a run's time goes: wall time summed per phase of the trials (compiling, drawing inputs,
//! CPU references, checked runs, sampling) and of the run (the ncu session, the checked child),
//! printed at the end of a run so that users see what a suite's minutes are made of.
//!
//! The sums are process-wide (atomics): trials on several GPUs add their time up, so with two GPUs
//! the sums can exceed the run's wall time. Work done beside the trials, ahead of them
//! ([`crate::inputs::prefetch`]), is summed apart ([`background`]): it overlaps the trials' time.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// A phase of a run whose wall time is summed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// NVRTC compiles and module loads of the trials' programs (both versions in A/B).
    Compile,
    /// Drawing the trials' random inputs on the CPU.
    Inputs,
    /// The CPU references (float64 where the case asks for it).
    Reference,
    /// Allocating the trials' device buffers, uploading their inputs, poisoning their outputs.
    Upload,
    /// The checked runs on the GPU: shared-memory fill, one run, download; and the re-check's
    /// download after timing ([`crate::recheck`]).
    Check,
    /// Comparing every element of the checked runs' results (and the re-check's) with the
    /// references, on the CPU.
    Compare,
    /// Timing samples (warm-up included), [`crate::measure`].
    Sampling,
    /// Judging a GPU trial's samples (the physics guard, the gate against its baseline) and
    /// recording its result.
    Verdict,
    /// The compile trials (`compile/<file>/<arch>`): waiting for NVRTC's and nvdisasm's work made
    /// ahead, then the resource and SASS gates.
    CompileTrial,
    /// The Nsight Compute session over the selection (`KERNELGATE_NCU=1`).
    Profile,
    /// The checked child (`KERNELGATE_SANITIZE`, `KERNELGATE_ISOLATE`).
    Child,
}

/// Every phase, in the order they are reported.
pub const ALL: [Phase; 11] = [
    Phase::Compile,
    Phase::Inputs,
    Phase::Reference,
    Phase::Upload,
    Phase::Check,
    Phase::Compare,
    Phase::Sampling,
    Phase::Verdict,
    Phase::CompileTrial,
    Phase::Profile,
    Phase::Child,
];

static NANOS: [AtomicU64; ALL.len()] = [const { AtomicU64::new(0) }; ALL.len()];
static BACKGROUND: [AtomicU64; ALL.len()] = [const { AtomicU64::new(0) }; ALL.len()];

impl Phase {
    /// The phase's name in the report.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Compile => "compile",
            Phase::Inputs => "inputs",
            Phase::Reference => "references",
            Phase::Upload => "uploads",
            Phase::Check => "checked runs",
            Phase::Compare => "comparisons",
            Phase::Sampling => "sampling",
            Phase::Verdict => "verdicts",
            Phase::CompileTrial => "compile trials",
            Phase::Profile => "ncu",
            Phase::Child => "checked child",
        }
    }

    fn index(self) -> usize {
        ALL.iter().position(|p| *p == self).expect("every phase is in ALL")
    }
}

/// Runs `f`, adding its wall time to `phase`.
pub fn time<T>(phase: Phase, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    add(phase, start.elapsed().as_secs_f64());
    out
}

/// Runs `f` beside the trials (ahead of them), adding its wall time to `phase`'s
/// [`background_totals`].
pub fn background<T>(phase: Phase, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    BACKGROUND[phase.index()].fetch_add((start.elapsed().as_secs_f64() * 1e9) as u64, Ordering::Relaxed);
    out
}

/// Adds `seconds` to `phase`.
pub fn add(phase: Phase, seconds: f64) {
    NANOS[phase.index()].fetch_add((seconds * 1e9) as u64, Ordering::Relaxed);
}

/// The seconds summed so far per phase, in [`ALL`]'s order.
pub fn totals() -> Vec<(Phase, f64)> {
    read(&NANOS)
}

/// The seconds summed so far per phase beside the trials ([`background`]), in [`ALL`]'s order.
pub fn background_totals() -> Vec<(Phase, f64)> {
    read(&BACKGROUND)
}

fn read(sums: &[AtomicU64; ALL.len()]) -> Vec<(Phase, f64)> {
    ALL.iter().map(|&p| (p, sums[p.index()].load(Ordering::Relaxed) as f64 / 1e9)).collect()
}

/// `where the time went (62.3 s of trials): compile 4.1 s, inputs 3.0 s, ...`: the phases that took
/// any time, and what the trials spent outside them (`other`: leases, results, printing), given
/// the trials' total wall time `trials_s`; then what was done beside them (`background`), which
/// overlapped their time. Pure.
pub fn render(totals: &[(Phase, f64)], background: &[(Phase, f64)], trials_s: f64) -> String {
    let inside: f64 = totals.iter().filter(|(p, _)| !matches!(p, Phase::Profile | Phase::Child)).map(|t| t.1).sum();
    let mut parts: Vec<String> =
        totals.iter().filter(|(_, s)| *s >= 0.05).map(|(p, s)| format!("{} {s:.1} s", p.name())).collect();
    let other = trials_s - inside;
    if other >= 0.05 {
        parts.push(format!("other {other:.1} s"));
    }
    let beside: Vec<String> =
        background.iter().filter(|(_, s)| *s >= 0.05).map(|(p, s)| format!("{} {s:.1} s", p.name())).collect();
    let beside = if beside.is_empty() {
        String::new()
    } else {
        format!("; made ahead, while the GPU worked: {}", beside.join(", "))
    };
    format!("kernelgate: where the time went ({trials_s:.1} s in trials): {}{beside}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_names_each_phase_that_took_time_and_the_rest() {
        let totals =
            [(Phase::Compile, 4.04), (Phase::Reference, 30.0), (Phase::Sampling, 60.0), (Phase::Profile, 90.0)];
        assert_eq!(
            render(&totals, &[], 100.0),
            "kernelgate: where the time went (100.0 s in trials): compile 4.0 s, references 30.0 s, sampling 60.0 s, \
             ncu 90.0 s, other 6.0 s"
        );
        assert!(!render(&[(Phase::Inputs, 0.01)], &[], 0.0).contains("inputs"), "a phase under 0.05 s is left out");
        let ahead = [(Phase::Inputs, 6.04), (Phase::Reference, 12.0), (Phase::Compare, 0.01)];
        assert!(
            render(&[(Phase::Sampling, 50.0)], &ahead, 55.0).ends_with(
                "sampling 50.0 s, other 5.0 s; made ahead, while the GPU worked: inputs 6.0 s, references 12.0 s"
            ),
            "work done ahead is said apart and not subtracted from the trials' time"
        );
    }

    #[test]
    fn time_adds_up() {
        let before = totals()[Phase::Inputs.index()].1;
        time(Phase::Inputs, || std::thread::sleep(std::time::Duration::from_millis(20)));
        let after = totals()[Phase::Inputs.index()].1;
        assert!(after - before >= 0.019, "{before} -> {after}");
    }
}
