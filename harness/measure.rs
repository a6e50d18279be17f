//! Measure stage: cold timing of one kernel with CUDA events, under a stopping rule.
//!
//! The recipe, after nvbench's `measure_cold`: warm-up launches; then per sample: flush L2, record
//! the start event, launch, record the stop event, wait, read the elapsed time. The rule that ends
//! sampling ([`StoppingRule::verdict`]) is pure and tested on the CPU.

use crate::config::StoppingRule;
use crate::gpu::Gpu;
use crate::stats::Running;
use crate::{Error, Result};
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
    /// Why sampling ended.
    pub stop: StopReason,
    /// Wall time of the sampling loop, seconds.
    pub wall_s: f64,
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
    let (start, stop) = (gpu.timing_event()?, gpu.timing_event()?);
    let begun = Instant::now();
    let mut running = Running::default();
    let mut seconds = Vec::new();
    loop {
        gpu.flush_l2()?;
        start.record(gpu.stream()).map_err(Error::driver(doing))?;
        launch()?;
        stop.record(gpu.stream()).map_err(Error::driver(doing))?;
        let s = f64::from(start.elapsed_ms(&stop).map_err(Error::driver(doing))?) / 1e3;
        seconds.push(s);
        running.push(s);
        let wall_s = begun.elapsed().as_secs_f64();
        if let Some(reason) = rule.verdict(&running, wall_s) {
            return Ok(Samples { seconds, stop: reason, wall_s });
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

    #[test]
    fn noise_target_is_inclusive() {
        // Two samples 1 and 1 + d: stddev = d / sqrt(2), mean = 1 + d / 2.
        let rule = StoppingRule { min_samples: 2, min_time_s: 0.0, max_noise_pct: 1.0, timeout_s: 1e9 };
        assert_eq!(rule.verdict(&run(&[1.0, 1.01]), 0.0), Some(StopReason::Converged));
        assert_eq!(rule.verdict(&run(&[1.0, 1.02]), 0.0), None);
    }
}
