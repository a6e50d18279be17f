//! The robust statistics of one set of timing samples that the gate's comparisons stand on:
//! whether the samples can be compared at all ([`validate`]), their median, their relative spread
//! robust to outliers ([`relative_mad`], [`relative_spread`]), the timer's quantum they show
//! ([`quantum`]), and the 95 % confidence interval of their median ([`median_ci_half_width`]).
//! Pure: slices of seconds in, numbers out.

/// `1 / Φ⁻¹(3/4)`: scales the median absolute deviation to estimate the standard deviation of a
/// normal distribution (Rousseeuw & Croux 1993, "Alternatives to the Median Absolute Deviation",
/// JASA 88(424), eq. 1.1 and the constant b = 1.4826 there).
pub(super) const MAD_TO_SIGMA: f64 = 1.4826;

/// `√(π/2)`: the sample median of `n` normal samples with standard deviation σ has asymptotic
/// standard error `√(π/2) σ / √n` (the median's asymptotic variance `1 / (4 n f(m)²)`, f the density
/// at the median; Serfling 1980, "Approximation Theorems of Mathematical Statistics", §2.3.3).
const MEDIAN_SE_PER_SIGMA: f64 = 1.253_314_137_315_500_3;

/// The standard normal quantile of 0.975: a two-sided 95 % interval is ±1.96 standard errors.
const Z_95: f64 = 1.959_963_984_540_054;

/// What is wrong with `samples`, if anything, as a sentence fragment naming the index.
pub(super) fn problem(samples: &[f64]) -> Option<String> {
    if samples.is_empty() {
        return Some("the sample slice is empty; a comparison needs at least one timing".to_string());
    }
    let why = |i: usize, x: f64, what: &str| {
        format!("sample at index {i} is {x} ({what}); timings must be finite and > 0 s, so this is a timing bug")
    };
    samples.iter().enumerate().find_map(|(i, &x)| {
        if x.is_nan() {
            Some(why(i, x, "NaN"))
        } else if x.is_infinite() {
            Some(why(i, x, "infinite"))
        } else if x <= 0.0 {
            Some(why(i, x, "not positive"))
        } else {
            None
        }
    })
}

/// Checks that `samples` (seconds) can be compared: at least one sample, each finite and > 0.
///
/// # Errors
/// [`crate::Error::Samples`] naming the problem and, for a bad value, its 0-based index (the
/// first bad one): "the sample slice is empty ...", or "sample at index 3 is NaN (NaN) ...",
/// "... is inf (infinite) ...", "... is 0 (not positive) ...".
pub fn validate(samples: &[f64]) -> crate::error::Result<()> {
    match problem(samples) {
        Some(message) => Err(crate::error::Error::Samples(message)),
        None => Ok(()),
    }
}

/// [`crate::stats::median`] of `xs`, NaN for an empty slice (the gate's statistics of no samples
/// are NaN, which every comparison refuses).
pub(super) fn median(xs: &[f64]) -> f64 {
    if xs.is_empty() { f64::NAN } else { crate::stats::median(xs) }
}

/// Robust relative spread of `samples`: `1.4826 * MAD / median`, where MAD is the median of
/// `|x - median|`. The factor 1.4826 makes `1.4826 * MAD` estimate the standard deviation under
/// normality (Rousseeuw & Croux 1993, "Alternatives to the Median Absolute Deviation", JASA
/// 88(424)), so the result is comparable to stddev / mean, a fraction (0.01 = 1 %). Unlike
/// stddev / mean it ignores up to half the samples being outliers (breakdown point 50 %).
///
/// For samples that passed [`validate`]: 0 for one sample, or when more than half the samples are
/// equal (GPU event timings are quantized to about 0.5 us, so short kernels can get 0). NaN for an
/// empty slice; meaningless if the median is not positive.
pub fn relative_mad(samples: &[f64]) -> f64 {
    let m = median(samples);
    let deviations: Vec<f64> = samples.iter().map(|x| (x - m).abs()).collect();
    MAD_TO_SIGMA * median(&deviations) / m
}

/// Half-width of the 95 % confidence interval of the median of `samples`, relative to the median
/// (a fraction): `1.96 * √(π/2) * σ / √n / median`, with σ estimated robustly as
/// `max(1.4826 MAD, q / √12)` ([`relative_spread`], `q` the timer's quantum seen in the samples,
/// [`quantum`]); the normal approximation of the median's standard error is Serfling's (see
/// `MEDIAN_SE_PER_SIGMA`). For one sample of a continuous timer, 0; NaN for an empty slice.
///
/// What it is for: a run whose median is this uncertain cannot resolve a change smaller than it,
/// so [`compare`](super::timing::compare) calls such a run [`Verdict::Invalid`](super::Verdict::Invalid)
/// (too noisy) when this exceeds the minimum effect, and the precision stopping rule stops sampling
/// once it is small enough.
pub fn median_ci_half_width(samples: &[f64]) -> f64 {
    Z_95 * MEDIAN_SE_PER_SIGMA * relative_spread(samples, quantum(samples)) / (samples.len() as f64).sqrt()
}

/// The timer's resolution as the samples show it, seconds: when the samples are quantized (at most
/// half as many distinct values as samples, as CUDA event timings of short kernels are: "a
/// resolution of around 0.5 microseconds", CUDA Runtime API, `cudaEventElapsedTime`; 32 ns steps
/// on the H200), the smallest gap between two distinct values; otherwise 0 (no sign of a
/// quantum). Gaps under 1 ns are float rounding of the timer's float milliseconds, not ticks.
pub fn quantum(samples: &[f64]) -> f64 {
    let mut v: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_unstable_by(f64::total_cmp);
    v.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
    if v.len() < 2 || 2 * v.len() > samples.len() {
        return 0.0;
    }
    v.windows(2).map(|w| w[1] - w[0]).fold(f64::INFINITY, f64::min)
}

/// Robust relative spread of quantized samples: `max(1.4826 MAD, q / √12) / median`. `q / √12` is
/// the standard deviation of the rounding error of a quantizer of step `q` (Widrow & Kollár 2008,
/// "Quantization Noise", ch. 5: uniform rounding noise of variance q²/12), a floor under the MAD,
/// which is 0 when more than half the samples fall on one tick: an all-ties sample set must not
/// shrink the effect floor or the confidence interval to zero. With `q = 0`, exactly
/// [`relative_mad`].
pub fn relative_spread(samples: &[f64], q: f64) -> f64 {
    let m = median(samples);
    relative_mad(samples).max(q / 12f64.sqrt() / m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::testdata::{Lcg, close};

    #[test]
    fn median_and_relative_mad_known_answers() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&[]).is_nan());
        // median 3, |x - 3| = [2, 1, 0, 1, 97], MAD 1: 1.4826 * 1 / 3.
        close(relative_mad(&[1.0, 2.0, 3.0, 4.0, 100.0]), 1.4826 / 3.0, 1e-15);
        assert_eq!(relative_mad(&[5e-6]), 0.0);
        assert_eq!(relative_mad(&[1.0, 1.0, 1.0, 2.0]), 0.0, "more than half equal");
        assert!(relative_mad(&[]).is_nan());
        // Log-normal with sigma 0.03: 1.4826 MAD / median estimates ~0.03.
        close(relative_mad(&Lcg(7).timings(20_000, 1e-4, 0.03)), 0.03, 0.001);
    }

    #[test]
    fn median_confidence_interval_known_answer() {
        // Deviations from the median 10: 0, 1, 1, 2, 2 -> MAD 1; relative MAD 1.4826 / 10.
        let xs = [8.0, 9.0, 10.0, 11.0, 12.0];
        close(median_ci_half_width(&xs), 1.959_964 * 1.253_314 * 0.148_26 / 5f64.sqrt(), 1e-6);
        assert_eq!(median_ci_half_width(&[1.0]), 0.0);
        // 100 x the samples: the interval narrows by 10.
        let many: Vec<f64> = xs.iter().cycle().take(500).copied().collect();
        close(median_ci_half_width(&many), median_ci_half_width(&xs) / 10.0, 1e-12);
    }
}
