//! Pure statistics over timing samples (seconds). No CUDA, no files: tested on the CPU.

use statrs::statistics::{Data, Distribution, Max, Min, OrderStatistics};

/// Summary of one case's samples. Times in seconds.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Number of samples.
    pub n: usize,
    /// Median, s.
    pub median_s: f64,
    /// Arithmetic mean, s.
    pub mean_s: f64,
    /// Sample standard deviation (n - 1), s; 0 for one sample.
    pub stddev_s: f64,
    /// Fastest sample, s.
    pub min_s: f64,
    /// Slowest sample, s.
    pub max_s: f64,
    /// Relative spread: stddev / mean, percent (nvbench's "Noise" column).
    pub noise_pct: f64,
}

/// Summarizes samples.
///
/// # Panics
/// If `samples` is empty or holds a NaN or infinity (a timing bug, never a measurement).
pub fn summarize(samples: &[f64]) -> Summary {
    assert!(!samples.is_empty(), "no samples to summarize");
    assert!(samples.iter().all(|s| s.is_finite()), "non-finite timing sample");
    let mut data = Data::new(samples.to_vec());
    let mean = data.mean().expect("non-empty");
    let stddev = if samples.len() > 1 { data.std_dev().expect("n > 1") } else { 0.0 };
    Summary {
        n: samples.len(),
        median_s: data.median(),
        mean_s: mean,
        stddev_s: stddev,
        min_s: data.min(),
        max_s: data.max(),
        noise_pct: if mean > 0.0 { 100.0 * stddev / mean } else { 0.0 },
    }
}

/// Median of `samples` (mean of the two middle values for even n): the one median of the crate
/// (the gate's, the diff's and the summaries'). O(n) selection on a copy (`select_nth_unstable`);
/// NaNs order last (`f64::total_cmp`).
///
/// # Panics
/// If `samples` is empty.
pub fn median(samples: &[f64]) -> f64 {
    assert!(!samples.is_empty(), "median of no samples");
    let mut v = samples.to_vec();
    let k = v.len() / 2;
    let (lower, &mut upper_mid, _) = v.select_nth_unstable_by(k, f64::total_cmp);
    if samples.len() % 2 == 1 {
        upper_mid
    } else {
        let lower_mid = lower.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lower_mid + upper_mid) / 2.0
    }
}

/// Median absolute deviation from the median, unscaled, in the samples' unit.
///
/// # Panics
/// If `samples` is empty.
pub fn mad(samples: &[f64]) -> f64 {
    let m = median(samples);
    let deviations: Vec<f64> = samples.iter().map(|x| (x - m).abs()).collect();
    median(&deviations)
}

/// Relative standard deviation: sample standard deviation (n - 1) / mean, a fraction; 0 for one
/// value or equal values (zeros included). For a handful of per-run medians (the run-to-run spread of a baseline).
///
/// # Panics
/// If `values` is empty.
pub fn relative_stddev(values: &[f64]) -> f64 {
    assert!(!values.is_empty(), "relative stddev of no values");
    let s = summarize(values);
    // Equal values do not move, whatever their mean: a counter that is 0 in every run has spread 0,
    // not 0 / 0.
    if values.len() < 2 || s.stddev_s == 0.0 { 0.0 } else { s.stddev_s / s.mean_s }
}

/// At most `k` samples, evenly spaced over `samples` (first kept, order preserved): the subset a
/// baseline keeps for the two-sample test.
pub fn evenly_spaced(samples: &[f64], k: usize) -> Vec<f64> {
    if samples.len() <= k {
        return samples.to_vec();
    }
    (0..k).map(|i| samples[i * samples.len() / k]).collect()
}

/// Running mean and variance (Welford, 1962, "Note on a method for calculating corrected sums of
/// squares and products", Technometrics 4(3)); lets the stopping rule read the noise after every
/// sample in O(1).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Running {
    n: usize,
    mean: f64,
    m2: f64,
    sum: f64,
}

impl Running {
    /// Adds one sample.
    pub fn push(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        let delta = x - self.mean;
        self.mean += delta / self.n as f64;
        self.m2 += delta * (x - self.mean);
    }

    /// Samples so far.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Sum of the samples.
    pub fn sum(&self) -> f64 {
        self.sum
    }

    /// stddev / mean in percent; infinite below two samples (unknown noise never meets a target).
    pub fn noise_pct(&self) -> f64 {
        if self.n < 2 || self.mean <= 0.0 {
            return f64::INFINITY;
        }
        100.0 * (self.m2 / (self.n - 1) as f64).sqrt() / self.mean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_samples() {
        let s = summarize(&[4.0, 1.0, 3.0, 2.0]);
        assert_eq!(s.n, 4);
        assert_eq!(s.median_s, 2.5);
        assert_eq!(s.mean_s, 2.5);
        assert!((s.stddev_s - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!((s.min_s, s.max_s), (1.0, 4.0));
        assert!((s.noise_pct - 100.0 * (5.0f64 / 3.0).sqrt() / 2.5).abs() < 1e-9);
    }

    #[test]
    fn one_sample_has_zero_spread() {
        let s = summarize(&[1e-3]);
        assert_eq!((s.median_s, s.stddev_s, s.noise_pct), (1e-3, 0.0, 0.0));
    }

    #[test]
    #[should_panic(expected = "non-finite")]
    fn nan_is_rejected() {
        summarize(&[1.0, f64::NAN]);
    }

    #[test]
    fn relative_stddev_known_answer() {
        // Mean 10, sample variance (1 + 1) / 1 = 2 for [9, 11]: stddev 1.4142.
        assert!((relative_stddev(&[9.0, 11.0]) - 2f64.sqrt() / 10.0).abs() < 1e-12);
        assert_eq!(relative_stddev(&[5.0]), 0.0);
        assert_eq!(relative_stddev(&[0.0; 12]), 0.0, "a counter that is 0 in every run does not move");
    }

    #[test]
    fn mad_and_even_spacing() {
        assert_eq!(mad(&[1.0, 2.0, 3.0, 4.0, 100.0]), 1.0);
        assert_eq!(evenly_spaced(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], 3), vec![0.0, 2.0, 4.0]);
        assert_eq!(evenly_spaced(&[1.0, 2.0], 5), vec![1.0, 2.0]);
    }

    #[test]
    fn running_matches_batch() {
        let xs = [1.0e-4, 1.1e-4, 0.9e-4, 1.05e-4, 0.98e-4];
        let mut r = Running::default();
        assert!(r.noise_pct().is_infinite());
        xs.iter().for_each(|&x| r.push(x));
        let s = summarize(&xs);
        assert!((r.noise_pct() - s.noise_pct).abs() < 1e-9);
        assert!((r.sum() - xs.iter().sum::<f64>()).abs() < 1e-15);
        assert_eq!(r.n(), 5);
    }
}
