//! Measure stage: cold timing of one kernel with CUDA events, under a stopping rule.
//!
//! The recipe, after nvbench's `measure_cold`: warm-up launches; then per sample: flush L2, record
//! the start event, launch, record the stop event, wait, read the elapsed time. The rule that ends
//! sampling ([`StoppingRule::verdict`]) is pure and tested on the CPU.

use crate::case::Case;
use crate::config::{Criterion, StoppingRule};
use crate::error::{Error, Result};
use crate::gpu::{ClockSample, Gpu};
use crate::model::StopReason;
use crate::stats::Running;
use nvml_wrapper::bitmasks::device::ThrottleReasons;
use std::time::Instant;

impl StoppingRule {
    /// Whether to stop after the samples counted in `p`, `wall_s` seconds into the loop; `ci` gives
    /// the relative half-width of the median's 95 % confidence interval of the samples so far
    /// ([`crate::gate::median_ci_half_width`]; called only when the minimums are met), and `floor`
    /// is the effect floor the gate will judge this trial with (a fraction).
    ///
    /// The minimums: `n >= min_samples` and `sum >= min_time_s`. Then [`Criterion::Precision`]
    /// stops once `ci() <= fraction * floor`, and [`Criterion::Noise`] once stddev / mean
    /// `<= max_noise_pct` (nvbench's `stdrel` criterion, without its noise-trend early exit).
    /// Otherwise [`StopReason::Timeout`] once `wall_s >= timeout_s` (after at least one sample),
    /// else `None`.
    pub fn verdict(&self, p: &Progress, ci: impl FnOnce() -> f64, wall_s: f64, floor: f64) -> Option<StopReason> {
        let enough = p.n >= self.min_samples && p.gpu_s >= self.min_time_s;
        let met = enough
            && match self.criterion {
                Criterion::Precision { fraction } => ci() <= fraction * floor,
                Criterion::Noise => p.noise_pct <= self.max_noise_pct,
            };
        if met {
            Some(StopReason::Converged)
        } else if wall_s >= self.timeout_s && p.n > 0 {
            Some(StopReason::Timeout)
        } else {
            None
        }
    }
}

/// Where a sampling loop stands, for [`StoppingRule::verdict`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Samples (or pairs) so far.
    pub n: usize,
    /// GPU time measured so far, seconds (both versions' in A/B).
    pub gpu_s: f64,
    /// stddev / mean of the samples (of the ratios in A/B), percent; infinite below two.
    pub noise_pct: f64,
}

impl From<&Running> for Progress {
    fn from(r: &Running) -> Progress {
        Progress { n: r.n(), gpu_s: r.sum(), noise_pct: r.noise_pct() }
    }
}

/// When the loop asks the stopping rule about the median's confidence interval, which costs O(n):
/// after every sample up to 64, then whenever the count has grown by 1/16 since the last look, so
/// the checks cost O(n) over the whole loop and overshoot the stopping point by at most 1/16.
#[derive(Debug, Clone, Copy, Default)]
struct Cadence {
    next: usize,
}

impl Cadence {
    fn due(&mut self, n: usize) -> bool {
        if n < self.next {
            return false;
        }
        self.next = if n < 64 { n + 1 } else { n + n / 16 };
        true
    }
}

/// Pushes the trial's NVTX ranges (popped when the returned guards drop): one push/pop range per
/// name component, nested, so that `ncu --nvtx --nvtx-include "family/variant/size/"` selects
/// exactly this trial (ncu reads `/` in a filter as nesting: a single range named
/// "family/variant/size" matched nothing on the H200, 2026-11-30). ASCII messages: wide-string
/// ranges (`nvtx::Str::from_str_lossy`) matched nothing either.
pub fn nvtx_ranges(case: &Case) -> Vec<nvtx::LocalRange> {
    ranges([case.family, &case.variant, &case.size])
}

/// The suffix of the innermost NVTX range of the A side of a same-run A/B trial (the revision's
/// kernels) in the profiled child: `family/variant/size_A-side`, a sibling of this build's
/// `family/variant/size`, not nested in it, so that each side has its own `--nvtx-include` filter.
/// Letters, `_` and `-` only: in ncu's filter syntax `@` separates a domain from its range (a
/// suffix `@A` matched no kernel on the H200, 2026-12-01), and `/` nests ranges.
pub const A_SIDE_SUFFIX: &str = "_A-side";

/// As [`nvtx_ranges`], for the A side of an A/B trial ([`A_SIDE_SUFFIX`]).
pub fn nvtx_ranges_of_a(case: &Case) -> Vec<nvtx::LocalRange> {
    ranges([case.family, &case.variant, &format!("{}{A_SIDE_SUFFIX}", case.size)])
}

fn ranges(parts: [&str; 3]) -> Vec<nvtx::LocalRange> {
    parts
        .into_iter()
        .map(|p| nvtx::LocalRange::new(nvtx::Str::from(std::ffi::CString::new(p).expect("case names hold no NUL"))))
        .collect()
}

/// The samples of one case.
#[derive(Debug, Clone, PartialEq)]
pub struct Samples {
    /// Kernel time of each sample, seconds (CUDA event resolution is about 0.5 us).
    pub seconds: Vec<f64>,
    /// SM clock and throttle state read through NVML right after each sample (same length as
    /// `seconds`); `None` where NVML is missing.
    pub clocks: Vec<Option<ClockSample>>,
    /// Other processes computing on the GPU when sampling began (NVML), by pid.
    pub other_processes: Vec<u32>,
    /// Why sampling ended.
    pub stop: StopReason,
    /// Wall time of the sampling loop, seconds.
    pub wall_s: f64,
    /// Untimed warm-up launches made before the samples: the count asked for, or fewer when the
    /// warm-up reached the timeout.
    pub warmed: usize,
}

pub use crate::model::MAX_THROTTLED_FRACTION;

impl Samples {
    /// The samples that count: those not flagged throttled ([`crate::gpu::THROTTLING`], read right
    /// after the sample), with how many were dropped.
    pub fn kept(&self) -> (Vec<f64>, usize) {
        let throttled = |i: usize| self.clocks.get(i).copied().flatten().is_some_and(|c| c.throttled());
        let kept: Vec<f64> = self.seconds.iter().enumerate().filter(|(i, _)| !throttled(*i)).map(|(_, s)| *s).collect();
        let dropped = self.seconds.len() - kept.len();
        (kept, dropped)
    }

    /// Median SM clock over the samples, MHz; `None` without NVML readings.
    pub fn median_sm_mhz(&self) -> Option<f64> {
        let mhz: Vec<f64> = self.clocks.iter().flatten().map(|c| f64::from(c.sm_mhz)).collect();
        (!mhz.is_empty()).then(|| crate::stats::median(&mhz))
    }

    /// Every clock event ("throttle") reason NVML reported after any sample, by NVML's name
    /// (`SW_POWER_CAP`, `GPU_IDLE`, ...): recorded with the run whether or not it marks a sample
    /// throttled ([`crate::gpu::THROTTLING`]).
    pub fn throttle_reasons(&self) -> Vec<&'static str> {
        let seen = self.clocks.iter().flatten().fold(ThrottleReasons::empty(), |all, c| all | c.reasons);
        crate::gpu::reason_names(seen)
    }

    /// Why these samples cannot be compared, if they cannot: other processes on the GPU, or more
    /// than [`MAX_THROTTLED_FRACTION`] of the samples throttled.
    pub fn invalid_reason(&self) -> Option<String> {
        let (kept, dropped) = self.kept();
        if !self.other_processes.is_empty() {
            Some(format!("other processes computed on the GPU (pids {:?})", self.other_processes))
        } else if kept.is_empty() || dropped as f64 > MAX_THROTTLED_FRACTION * self.seconds.len() as f64 {
            Some(format!("{dropped} of {} samples throttled (power or thermal)", self.seconds.len()))
        } else {
            None
        }
    }

    /// Each kept sample in SM cycles (seconds x SM clock read after it); `None` unless every kept
    /// sample has a clock reading.
    pub fn kept_cycles(&self) -> Option<Vec<f64>> {
        self.seconds
            .iter()
            .zip(&self.clocks)
            .filter(|(_, c)| !c.is_some_and(|c| c.throttled()))
            .map(|(s, c)| c.map(|c| s * f64::from(c.sm_mhz) * 1e6))
            .collect()
    }
}

/// Cold measurement: `warmup` untimed launches (fewer when they reach `rule`'s timeout), then
/// samples of one launch each with the L2 flushed before it, until `rule` says stop; `floor` is the effect floor the gate will apply (for
/// [`Criterion::Precision`]). `launch` enqueues one launch on `gpu`'s stream.
///
/// # Errors
/// Whatever `launch` or the driver returns (an illegal address surfaces at the event wait).
pub fn measure_cold(
    gpu: &Gpu,
    rule: &StoppingRule,
    warmup: usize,
    floor: f64,
    mut launch: impl FnMut() -> Result<()>,
) -> Result<Samples> {
    let doing = "timing a sample";
    // Under the trial's timeout too: a warm-up count with a typo must not hold the GPU.
    let warming = Instant::now();
    let mut warmed = 0;
    while warmed < warmup && warming.elapsed().as_secs_f64() < rule.timeout_s {
        gpu.flush_l2()?;
        launch()?;
        warmed += 1;
    }
    gpu.synchronize()?;
    let other_processes = gpu.other_processes();
    let (start, stop) = (gpu.timing_event()?, gpu.timing_event()?);
    let begun = Instant::now();
    let mut running = Running::default();
    let mut seconds = Vec::new();
    let mut clocks = Vec::new();
    let mut cadence = Cadence::default();
    loop {
        gpu.flush_l2()?;
        // The error is built inside a closure, only on failure: an allocation between the launch and
        // the stop event would be timed whenever the GPU finishes first (tiny programs).
        start.record(gpu.stream()).map_err(|e| Error::driver(doing)(e))?;
        launch()?;
        stop.record(gpu.stream()).map_err(|e| Error::driver(doing)(e))?;
        let s = f64::from(start.elapsed_ms(&stop).map_err(|e| Error::driver(doing)(e))?) / 1e3;
        seconds.push(s);
        clocks.push(gpu.clock_sample());
        running.push(s);
        let wall_s = begun.elapsed().as_secs_f64();
        // The interval only where the rule will read it, and at the cadence's checkpoints.
        let due = cadence.due(seconds.len());
        let ci = || if due { crate::gate::median_ci_half_width(&seconds) } else { f64::INFINITY };
        if let Some(reason) = rule.verdict(&Progress::from(&running), ci, wall_s, floor) {
            return Ok(Samples { seconds, clocks, other_processes, stop: reason, wall_s, warmed });
        }
    }
}

/// Two versions of one kernel timed in pairs ([`measure_pairs`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Pairs {
    /// Times of the reference version (the A/B revision's), seconds, one per pair.
    pub a: Vec<f64>,
    /// Times of the version under test (the tree's kernels), seconds, one per pair.
    pub b: Vec<f64>,
    /// Whether A ran first in each pair (drawn at random per pair).
    pub a_first: Vec<bool>,
    /// SM clock and throttle state read after each pair.
    pub clocks: Vec<Option<ClockSample>>,
    /// Other processes computing on the GPU when sampling began.
    pub other_processes: Vec<u32>,
    /// Why sampling ended.
    pub stop: StopReason,
    /// Wall time of the sampling loop, seconds.
    pub wall_s: f64,
    /// Untimed warm-up launches of each version: the count asked for, or fewer when the warm-up
    /// reached the timeout.
    pub warmed: usize,
}

impl Pairs {
    /// The pairs that count (not throttled), as (a, b), with how many were dropped.
    pub fn kept(&self) -> (Vec<f64>, Vec<f64>, usize) {
        let throttled = |i: usize| self.clocks.get(i).copied().flatten().is_some_and(|c| c.throttled());
        let keep: Vec<usize> = (0..self.a.len()).filter(|&i| !throttled(i)).collect();
        let a = keep.iter().map(|&i| self.a[i]).collect();
        let b = keep.iter().map(|&i| self.b[i]).collect();
        (a, b, self.a.len() - keep.len())
    }

    /// The version whose launch was the last of the loop (the second of the last pair); `None`
    /// before any pair.
    pub fn last_side(&self) -> Option<Side> {
        self.a_first.last().map(|&a_first| if a_first { Side::B } else { Side::A })
    }

    /// The reference version's samples as [`Samples`], with the pairs' conditions (for the
    /// physics guard of that side).
    pub fn as_samples_of_a(&self) -> Samples {
        Samples { seconds: self.a.clone(), ..self.as_samples_of_b() }
    }

    /// The version under test's samples as [`Samples`] (for the summary, the record and the
    /// validity of the conditions).
    pub fn as_samples_of_b(&self) -> Samples {
        Samples {
            seconds: self.b.clone(),
            clocks: self.clocks.clone(),
            other_processes: self.other_processes.clone(),
            stop: self.stop,
            wall_s: self.wall_s,
            warmed: self.warmed,
        }
    }
}

/// Which version of a program a paired launch runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The reference version (the A/B revision's kernels).
    A,
    /// The version under test (the tree's kernels).
    B,
}

/// The order of one pair's two launches, drawn from `rng` (`A, B` or `B, A`, each with
/// probability 1/2): the random order of [`measure_pairs`], so that what runs first in a pair
/// (a warmer clock, a TLB or L2 state the other left) falls on A and B alike and cancels in the
/// per-pair ratios (randomized paired design, as in Kalibera and Jones, "Rigorous Benchmarking in
/// Reasonable Time", ISMM 2013).
pub fn pair_order(rng: &mut impl rand::Rng) -> [Side; 2] {
    use rand::RngExt;
    if rng.random::<bool>() { [Side::A, Side::B] } else { [Side::B, Side::A] }
}

/// Same-run A/B measurement: `warmup` untimed launches of each version (fewer when they reach
/// `rule`'s timeout), then pairs: per pair the
/// order of A and B is drawn at random (seeded by `seed`, so a run replays), and each launch is
/// timed cold as in [`measure_cold`] (L2 flushed, events around the launch). `launch(side)`
/// enqueues one launch of that version; both versions run over the same buffers (the caller's
/// one binding), so that what the pair compares is the code alone. Stops by `rule` on the pairs:
/// the minimums count pairs and the GPU time of both versions; the precision criterion reads the
/// confidence interval of the median log ratio ([`crate::gate::paired::median_ratio_ci`]) against
/// `floor`, the noise criterion the spread of the ratios.
///
/// # Errors
/// Whatever a launch or the driver returns.
pub fn measure_pairs(
    gpu: &Gpu,
    rule: &StoppingRule,
    warmup: usize,
    floor: f64,
    seed: u64,
    mut launch: impl FnMut(Side) -> Result<()>,
) -> Result<Pairs> {
    use rand::SeedableRng;
    let doing = "timing an A/B pair";
    let warming = Instant::now();
    let mut warmed = 0;
    while warmed < warmup && warming.elapsed().as_secs_f64() < rule.timeout_s {
        gpu.flush_l2()?;
        launch(Side::A)?;
        gpu.flush_l2()?;
        launch(Side::B)?;
        warmed += 1;
    }
    gpu.synchronize()?;
    let other_processes = gpu.other_processes();
    let (start, stop) = (gpu.timing_event()?, gpu.timing_event()?);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let mut time = |side: Side| -> Result<f64> {
        gpu.flush_l2()?;
        start.record(gpu.stream()).map_err(|e| Error::driver(doing)(e))?;
        launch(side)?;
        stop.record(gpu.stream()).map_err(|e| Error::driver(doing)(e))?;
        Ok(f64::from(start.elapsed_ms(&stop).map_err(|e| Error::driver(doing)(e))?) / 1e3)
    };
    let begun = Instant::now();
    let (mut a, mut b, mut a_first, mut clocks) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut ratios = Running::default();
    let mut log_ratios = Vec::new();
    let mut gpu_s = 0.0;
    let mut cadence = Cadence::default();
    loop {
        let first = pair_order(&mut rng) == [Side::A, Side::B];
        let (ta, tb) = if first {
            let ta = time(Side::A)?;
            (ta, time(Side::B)?)
        } else {
            let tb = time(Side::B)?;
            (time(Side::A)?, tb)
        };
        a.push(ta);
        b.push(tb);
        a_first.push(first);
        clocks.push(gpu.clock_sample());
        ratios.push(tb / ta);
        log_ratios.push((tb / ta).ln());
        gpu_s += ta + tb;
        let wall_s = begun.elapsed().as_secs_f64();
        let progress = Progress { n: a.len(), gpu_s, noise_pct: ratios.noise_pct() };
        let due = cadence.due(a.len());
        let ci = || {
            if !due {
                return f64::INFINITY;
            }
            let resolution = crate::gate::quantum(&a) / crate::stats::median(&a);
            crate::gate::paired::median_ratio_ci(&log_ratios, resolution)
        };
        if let Some(reason) = rule.verdict(&progress, ci, wall_s, floor) {
            return Ok(Pairs { a, b, a_first, clocks, other_processes, stop: reason, wall_s, warmed });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_runs_each_version_once_in_a_balanced_random_order_that_replays() {
        use rand::SeedableRng;
        let orders = |seed: u64| {
            let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
            (0..10_000).map(|_| pair_order(&mut rng)).collect::<Vec<_>>()
        };
        let drawn = orders(7);
        assert!(drawn.iter().all(|o| o == &[Side::A, Side::B] || o == &[Side::B, Side::A]));
        // A first in 50 % of pairs: 10,000 fair coin flips fall within 50 % +- 1.5 % with
        // probability 1 - 3e-9 (3 sigma of a binomial is 150 here, so 6 sigma).
        let a_first = drawn.iter().filter(|o| o[0] == Side::A).count();
        assert!((4850..=5150).contains(&a_first), "A first in {a_first} of 10000 pairs");
        // Not alternating: runs of one order happen (an alternating design would not cancel a
        // period-2 effect of the GPU).
        assert!(drawn.windows(2).any(|w| w[0] == w[1]));
        assert_eq!(drawn, orders(7), "a seed replays its order");
        assert_ne!(drawn, orders(8));
    }

    fn run(xs: &[f64]) -> Running {
        let mut r = Running::default();
        xs.iter().for_each(|&x| r.push(x));
        r
    }

    fn noise_rule(min_samples: usize, min_time_s: f64, max_noise_pct: f64, timeout_s: f64) -> StoppingRule {
        StoppingRule { criterion: Criterion::Noise, min_samples, min_time_s, max_noise_pct, timeout_s }
    }

    /// The noise rule's verdict (no interval, no floor).
    fn noise_verdict(rule: &StoppingRule, r: &Running, wall_s: f64) -> Option<StopReason> {
        rule.verdict(&Progress::from(r), || panic!("the noise rule reads no interval"), wall_s, 0.01)
    }

    #[test]
    fn needs_min_samples_and_min_time() {
        let rule = noise_rule(10, 0.5, 0.5, 15.0);
        assert_eq!(noise_verdict(&rule, &run(&[0.1; 9]), 1.0), None, "9 samples < 10");
        assert_eq!(noise_verdict(&rule, &run(&[0.01; 20]), 1.0), None, "0.2 s < 0.5 s");
        assert_eq!(noise_verdict(&rule, &run(&[0.1; 10]), 1.0), Some(StopReason::Converged));
    }

    #[test]
    fn noisy_samples_run_until_timeout() {
        let rule = noise_rule(2, 0.0, 0.5, 3.0);
        let noisy = run(&[1.0, 2.0, 1.0, 2.0]);
        assert_eq!(noise_verdict(&rule, &noisy, 2.9), None);
        assert_eq!(noise_verdict(&rule, &noisy, 3.0), Some(StopReason::Timeout));
        assert_eq!(noise_verdict(&rule, &run(&[]), 100.0), None, "never stop with no sample");
    }

    #[test]
    fn precision_rule_stops_when_the_median_is_known_to_a_fraction_of_the_floor() {
        let rule =
            StoppingRule { criterion: Criterion::Precision { fraction: 0.25 }, ..noise_rule(10, 0.0, 0.5, 15.0) };
        let r = Progress::from(&run(&[1e-4; 20]));
        // Floor 1 %: stop at a CI of 0.25 %, not at 0.26 %; the interval is read only past the minimums.
        assert_eq!(rule.verdict(&r, || 0.0025, 0.1, 0.01), Some(StopReason::Converged));
        assert_eq!(rule.verdict(&r, || 0.0026, 0.1, 0.01), None);
        assert_eq!(rule.verdict(&Progress::from(&run(&[1e-4; 5])), || panic!("under the minimum"), 0.1, 0.01), None);
        assert_eq!(rule.verdict(&r, || 0.0026, 15.0, 0.01), Some(StopReason::Timeout));
        // A wider floor stops sooner: the same interval is enough at a 2 % floor.
        assert_eq!(rule.verdict(&r, || 0.004, 0.1, 0.02), Some(StopReason::Converged));
    }

    #[test]
    fn the_interval_is_read_at_a_geometric_cadence() {
        let mut cadence = Cadence::default();
        let looks: Vec<usize> = (1..=10_000).filter(|&n| cadence.due(n)).collect();
        assert_eq!(&looks[..3], &[1, 2, 3]);
        assert!(
            looks.contains(&64) && looks.len() < 64 + 90,
            "{} looks: about 64 + ln(10000/64) / ln(17/16)",
            looks.len()
        );
        assert!(looks.windows(2).all(|w| w[1] - w[0] <= 1 + w[0] / 16), "at most 1/16 overshoot");
    }

    fn samples(clocks: &[Option<(u32, bool)>], others: &[u32]) -> Samples {
        Samples {
            seconds: (1..=clocks.len()).map(|i| i as f64 * 1e-4).collect(),
            clocks: clocks
                .iter()
                .map(|c| {
                    c.map(|(sm_mhz, throttled)| ClockSample {
                        sm_mhz,
                        reasons: if throttled { ThrottleReasons::SW_POWER_CAP } else { ThrottleReasons::empty() },
                    })
                })
                .collect(),
            other_processes: others.to_vec(),
            stop: StopReason::Converged,
            wall_s: 1.0,
            warmed: 1,
        }
    }

    #[test]
    fn throttled_samples_are_dropped_and_too_many_invalidate() {
        let mut c = vec![Some((1980, false)); 20];
        c[3] = Some((1500, true));
        let s = samples(&c, &[]);
        let (kept, dropped) = s.kept();
        assert_eq!((kept.len(), dropped), (19, 1));
        assert!(!kept.contains(&4e-4));
        assert_eq!(s.invalid_reason(), None, "1 of 20 is under 10 %");
        assert_eq!(s.median_sm_mhz(), Some(1980.0));
        c[4] = Some((1500, true));
        c[5] = Some((1500, true));
        assert!(samples(&c, &[]).invalid_reason().unwrap().contains("3 of 20 samples throttled"));
        assert_eq!(samples(&c, &[]).throttle_reasons(), vec!["SW_POWER_CAP"]);
    }

    #[test]
    fn other_processes_invalidate_and_cycles_need_clocks() {
        let s = samples(&[Some((1000, false)), Some((2000, false))], &[4242]);
        assert!(s.invalid_reason().unwrap().contains("4242"));
        assert_eq!(s.kept_cycles(), Some(vec![1e-4 * 1e9, 2e-4 * 2e9]));
        let no_nvml = samples(&[None, None], &[]);
        assert_eq!(no_nvml.kept_cycles(), None);
        assert_eq!(no_nvml.median_sm_mhz(), None);
        assert_eq!(no_nvml.invalid_reason(), None, "no NVML: nothing known to be wrong");
        assert!(no_nvml.throttle_reasons().is_empty());
    }

    #[test]
    fn noise_target_is_inclusive() {
        // Two samples 1 and 1 + d: stddev = d / sqrt(2), mean = 1 + d / 2.
        let rule = noise_rule(2, 0.0, 1.0, 1e9);
        assert_eq!(noise_verdict(&rule, &run(&[1.0, 1.01]), 0.0), Some(StopReason::Converged));
        assert_eq!(noise_verdict(&rule, &run(&[1.0, 1.02]), 0.0), None);
    }
}
