//! Measure stage: cold timing of one kernel with CUDA events, under a stopping rule.
//!
//! The recipe, after nvbench's `measure_cold`: warm-up launches; then per sample: flush L2, record
//! the start event, launch, record the stop event, wait, read the elapsed time. The rule that ends
//! sampling ([`StoppingRule::verdict`]) is pure and tested on the CPU.

use crate::config::StoppingRule;
use crate::gpu::{ClockSample, Gpu};
use crate::stats::Running;
use crate::{Error, Result};
use nvml_wrapper::bitmasks::device::ThrottleReasons;
use std::time::Instant;

/// Why sampling ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum StopReason {
    /// Enough samples and time, and noise at or under the target.
    Converged,
    /// The wall-clock limit passed first; the noise target was not met.
    Timeout,
}

impl StopReason {
    /// `converged` or `timeout`.
    pub fn as_str(&self) -> &'static str {
        match self {
            StopReason::Converged => "converged",
            StopReason::Timeout => "timeout",
        }
    }
}

impl StoppingRule {
    /// Whether to stop after the samples in `running`, `wall_s` seconds into the loop.
    ///
    /// Converged once `n >= min_samples`, `sum >= min_time_s` and noise (stddev / mean)
    /// `<= max_noise_pct`; otherwise Timeout once `wall_s >= timeout_s` (after at least one
    /// sample); otherwise `None`. nvbench's `stdrel` criterion, without its noise-trend early exit.
    pub fn verdict(&self, running: &Running, wall_s: f64) -> Option<StopReason> {
        let enough = running.n() >= self.min_samples && running.sum() >= self.min_time_s;
        if enough && running.noise_pct() <= self.max_noise_pct {
            Some(StopReason::Converged)
        } else if wall_s >= self.timeout_s && running.n() > 0 {
            Some(StopReason::Timeout)
        } else {
            None
        }
    }
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
}

/// Largest share of throttled samples a measurement may have and still be compared (10 %).
/// kernelgate's own threshold: beyond it the kept samples are a biased selection of the run.
pub const MAX_THROTTLED_FRACTION: f64 = 0.10;

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

/// Cold measurement: `warmup` untimed launches, then samples of one launch each with the L2
/// flushed before it, until `rule` says stop. `launch` enqueues one launch on `gpu`'s stream.
///
/// # Errors
/// Whatever `launch` or the driver returns (an illegal address surfaces at the event wait).
pub fn measure_cold(
    gpu: &Gpu,
    rule: &StoppingRule,
    warmup: usize,
    mut launch: impl FnMut() -> Result<()>,
) -> Result<Samples> {
    let doing = "timing a sample";
    for _ in 0..warmup {
        gpu.flush_l2()?;
        launch()?;
    }
    gpu.synchronize()?;
    let other_processes = gpu.other_processes();
    let (start, stop) = (gpu.timing_event()?, gpu.timing_event()?);
    let begun = Instant::now();
    let mut running = Running::default();
    let mut seconds = Vec::new();
    let mut clocks = Vec::new();
    loop {
        gpu.flush_l2()?;
        start.record(gpu.stream()).map_err(Error::driver(doing))?;
        launch()?;
        stop.record(gpu.stream()).map_err(Error::driver(doing))?;
        let s = f64::from(start.elapsed_ms(&stop).map_err(Error::driver(doing))?) / 1e3;
        seconds.push(s);
        clocks.push(gpu.clock_sample());
        running.push(s);
        let wall_s = begun.elapsed().as_secs_f64();
        if let Some(reason) = rule.verdict(&running, wall_s) {
            return Ok(Samples { seconds, clocks, other_processes, stop: reason, wall_s });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(xs: &[f64]) -> Running {
        let mut r = Running::default();
        xs.iter().for_each(|&x| r.push(x));
        r
    }

    #[test]
    fn needs_min_samples_and_min_time() {
        let rule = StoppingRule { min_samples: 10, min_time_s: 0.5, max_noise_pct: 0.5, timeout_s: 15.0 };
        assert_eq!(rule.verdict(&run(&[0.1; 9]), 1.0), None, "9 samples < 10");
        assert_eq!(rule.verdict(&run(&[0.01; 20]), 1.0), None, "0.2 s < 0.5 s");
        assert_eq!(rule.verdict(&run(&[0.1; 10]), 1.0), Some(StopReason::Converged));
    }

    #[test]
    fn noisy_samples_run_until_timeout() {
        let rule = StoppingRule { min_samples: 2, min_time_s: 0.0, max_noise_pct: 0.5, timeout_s: 3.0 };
        let noisy = run(&[1.0, 2.0, 1.0, 2.0]);
        assert_eq!(rule.verdict(&noisy, 2.9), None);
        assert_eq!(rule.verdict(&noisy, 3.0), Some(StopReason::Timeout));
        assert_eq!(rule.verdict(&run(&[]), 100.0), None, "never stop with no sample");
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
        let rule = StoppingRule { min_samples: 2, min_time_s: 0.0, max_noise_pct: 1.0, timeout_s: 1e9 };
        assert_eq!(rule.verdict(&run(&[1.0, 1.01]), 0.0), Some(StopReason::Converged));
        assert_eq!(rule.verdict(&run(&[1.0, 1.02]), 0.0), None);
    }
}
