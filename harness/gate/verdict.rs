//! A case's [`Verdict`], and the rule that gives it from a comparison's numbers ([`decide`]), which
//! the baseline comparison ([`super::timing`]) and same-run A/B ([`super::paired`]) share. Pure.

/// A case's verdict, from timings ([`compare`](super::timing::compare)) or one counter
/// ([`super::counters::compare_counter`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Faster (or less work), by at least the minimum effect, significantly.
    Improved,
    /// Within the minimum effect (timings) or the tolerance (counters).
    Unchanged,
    /// Slower (or more work), by at least the minimum effect, significantly.
    Regressed,
    /// A change of at least the minimum effect that is not significant: too few or too noisy
    /// samples to tell. Take more samples (or rerun) before believing either way.
    Ambiguous,
    /// The baseline has no entry for this case on this GPU (set by the caller; never returned
    /// here).
    NoBaseline,
    /// The measurement cannot be judged: the run is too noisy ([`compare`](super::timing::compare):
    /// the 95 % confidence interval of its median is wider than the minimum effect), was throttled
    /// or shared the GPU (set by the caller from [`crate::measure::Samples::invalid_reason`]), or a
    /// counter value is not a number ([`super::counters::compare_counter`]). NaN, infinite or
    /// non-positive timings are an error of [`compare`](super::timing::compare), not this verdict.
    Invalid,
}

impl Verdict {
    /// `improved`, `unchanged`, `regressed`, `ambiguous`, `no-baseline` or `invalid`, as in
    /// `KERNELGATE_FAIL_ON` and the run CSVs; also the serde form.
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::Improved => "improved",
            Verdict::Unchanged => "unchanged",
            Verdict::Regressed => "regressed",
            Verdict::Ambiguous => "ambiguous",
            Verdict::NoBaseline => "no-baseline",
            Verdict::Invalid => "invalid",
        }
    }
}

/// The gate's rule, shared by the baseline comparison and same-run A/B: [`Verdict::Invalid`] when
/// the median's confidence interval (`median_ci`) is wider than `min_effect`; otherwise
/// regressed or improved when `|delta| >= min_effect` and the test was `significant`, unchanged
/// when `|delta| < min_effect`, and ambiguous for a large change that is not significant.
pub fn decide(delta: f64, significant: bool, min_effect: f64, median_ci: f64) -> Verdict {
    if median_ci > min_effect {
        Verdict::Invalid
    } else if delta >= min_effect && significant {
        Verdict::Regressed
    } else if delta <= -min_effect && significant {
        Verdict::Improved
    } else if delta.abs() < min_effect {
        Verdict::Unchanged
    } else {
        Verdict::Ambiguous
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_names() {
        let all = [
            (Verdict::Improved, "improved"),
            (Verdict::Unchanged, "unchanged"),
            (Verdict::Regressed, "regressed"),
            (Verdict::Ambiguous, "ambiguous"),
            (Verdict::NoBaseline, "no-baseline"),
            (Verdict::Invalid, "invalid"),
        ];
        for (verdict, name) in all {
            assert_eq!(verdict.as_str(), name);
            let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(vec![]);
            w.serialize(verdict).unwrap();
            assert_eq!(String::from_utf8(w.into_inner().unwrap()).unwrap(), format!("{name}\n"), "serde form");
        }
    }
}
