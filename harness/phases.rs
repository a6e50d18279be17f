//! Where a run's time goes: wall time summed per phase of the trials (compiling, drawing inputs,
//! CPU references, checked runs, sampling) and of the run (the ncu session, the checked child),
//! printed at the end of a run so that users see what a suite's minutes are made of.
//!
//! The sums are a [`Clock`], one per run, handed down to what the run does: the suite holds it,
//! every GPU the run leases carries it ([`crate::gpu::Gpu::clock`]), and the run's inputs cache and
//! prefetcher get it when made ([`crate::inputs::Prefetch::new`]). A second run in the same
//! process (an embedded run, [`crate::suite::run`]) starts from zero. Trials on several GPUs add
//! their time up, so with two GPUs the sums can exceed the run's wall time. Work done beside the
//! trials, ahead of them ([`crate::inputs::prefetch`]), is summed apart ([`Clock::background`]): it
//! overlaps the trials' time.

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

/// The wall time of one run, summed per phase: in the trials ([`Clock::time`], [`Clock::add`]) and
/// beside them ([`Clock::background`]). Made once per run and shared (`Arc<Clock>`) by everything
/// the run does, from any thread; nanoseconds in relaxed atomics (a sum read at the end of a run,
/// after its threads are joined).
#[derive(Debug, Default)]
pub struct Clock {
    /// Nanoseconds per phase in the trials, in [`ALL`]'s order.
    nanos: [AtomicU64; ALL.len()],
    /// Nanoseconds per phase beside the trials, in [`ALL`]'s order.
    background: [AtomicU64; ALL.len()],
}

impl Clock {
    /// A clock at zero in every phase.
    pub fn new() -> Clock {
        Clock::default()
    }

    /// Runs `f`, adding its wall time to `phase`.
    pub fn time<T>(&self, phase: Phase, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        self.add(phase, start.elapsed().as_secs_f64());
        out
    }

    /// Runs `f` beside the trials (ahead of them), adding its wall time to `phase`'s
    /// [`Clock::background_totals`].
    pub fn background<T>(&self, phase: Phase, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        self.background[phase.index()].fetch_add(nanos(start.elapsed().as_secs_f64()), Ordering::Relaxed);
        out
    }

    /// Adds `seconds` (non-negative; a negative or NaN value adds nothing) to `phase`.
    pub fn add(&self, phase: Phase, seconds: f64) {
        self.nanos[phase.index()].fetch_add(nanos(seconds), Ordering::Relaxed);
    }

    /// The seconds summed so far per phase, in [`ALL`]'s order.
    pub fn totals(&self) -> Vec<(Phase, f64)> {
        read(&self.nanos)
    }

    /// The seconds summed so far per phase beside the trials ([`Clock::background`]), in [`ALL`]'s
    /// order.
    pub fn background_totals(&self) -> Vec<(Phase, f64)> {
        read(&self.background)
    }
}

/// `seconds` as whole nanoseconds (`as` saturates: a negative or NaN value is 0).
fn nanos(seconds: f64) -> u64 {
    (seconds * 1e9) as u64
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
        let clock = Clock::new();
        clock.time(Phase::Inputs, || std::thread::sleep(std::time::Duration::from_millis(20)));
        let after = clock.totals()[Phase::Inputs.index()].1;
        assert!(after >= 0.019, "{after}");
        clock.add(Phase::Inputs, 1.5);
        assert!((clock.totals()[Phase::Inputs.index()].1 - after - 1.5).abs() < 1e-9);
        clock.background(Phase::Reference, || std::thread::sleep(std::time::Duration::from_millis(20)));
        assert!(clock.background_totals()[Phase::Reference.index()].1 >= 0.019);
        assert_eq!(clock.totals()[Phase::Reference.index()].1, 0.0, "work beside the trials is summed apart");
    }

    #[test]
    fn two_clocks_are_independent() {
        // Two runs in one process: what one run times is not in the other's sums.
        let (first, second) = (Clock::new(), Clock::new());
        first.time(Phase::Compile, || std::thread::sleep(std::time::Duration::from_millis(10)));
        first.add(Phase::Sampling, 2.0);
        first.background(Phase::Inputs, || ());
        assert!(second.totals().iter().chain(&second.background_totals()).all(|(_, s)| *s == 0.0));
        second.add(Phase::Sampling, 1.0);
        assert_eq!(first.totals()[Phase::Sampling.index()].1, 2.0);
        assert_eq!(second.totals()[Phase::Sampling.index()].1, 1.0);
    }
}
