//! Counter expectations: bounds on ncu metrics (raw or derived) that a case must meet, written as
//! data next to the case. Evaluation is pure and tested on the CPU.
//!
//! Two kinds: a bound on the case's own value (`global_ld_bytes_per_sector` of a stride-8 read is
//! 4 of 32 bytes), and a bound on the ratio to another variant of the same family and size,
//! profiled in the same run (`gpu__time_duration.sum` of the padded transpose over the unpadded one),
//! which holds on any GPU where the lesson holds.

use std::collections::BTreeMap;
use std::fmt;

/// Metric values of one profiled trial, raw (ncu names, base units) and derived, by name.
pub type Values = BTreeMap<String, f64>;

/// One expectation. Build with [`Expectation::metric`] and the bound methods.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    /// ncu metric name verbatim, or a derived metric name (`crate::ncu::metrics::DERIVED`).
    pub metric: &'static str,
    /// When set, the bound applies to `value / value of this variant` (same family and size).
    pub relative_to: Option<&'static str>,
    /// Inclusive lower bound.
    pub min: Option<f64>,
    /// Inclusive upper bound.
    pub max: Option<f64>,
    /// The lesson, and where its number comes from.
    pub why: &'static str,
}

impl Expectation {
    /// An expectation on `metric` with no bound yet.
    pub fn metric(metric: &'static str) -> Expectation {
        Expectation { metric, relative_to: None, min: None, max: None, why: "" }
    }

    /// Bound the ratio to `variant`'s value instead of the value itself.
    pub fn relative_to(mut self, variant: &'static str) -> Expectation {
        self.relative_to = Some(variant);
        self
    }

    /// Value (or ratio) at least `min`.
    pub fn at_least(mut self, min: f64) -> Expectation {
        self.min = Some(min);
        self
    }

    /// Value (or ratio) at most `max`.
    pub fn at_most(mut self, max: f64) -> Expectation {
        self.max = Some(max);
        self
    }

    /// Value (or ratio) in `[min, max]`.
    pub fn between(self, min: f64, max: f64) -> Expectation {
        self.at_least(min).at_most(max)
    }

    /// The lesson this expectation encodes.
    pub fn because(mut self, why: &'static str) -> Expectation {
        self.why = why;
        self
    }

    /// What is compared: `metric`, or `metric / metric of <variant>`.
    pub fn quantity(&self) -> String {
        match self.relative_to {
            None => self.metric.to_string(),
            Some(v) => format!("{m} / {m} of {v}", m = self.metric),
        }
    }

    /// The bound as text: `in [a, b]`, `>= a`, `<= b`.
    pub fn bound(&self) -> String {
        match (self.min, self.max) {
            (Some(a), Some(b)) => format!("in [{a}, {b}]"),
            (Some(a), None) => format!(">= {a}"),
            (None, Some(b)) => format!("<= {b}"),
            (None, None) => "unbounded".to_string(),
        }
    }

    /// Checks this expectation against the trial's values and, for a ratio, the partner's.
    pub fn evaluate(&self, this: &Values, partner: Option<&Values>) -> Outcome {
        let Some(&value) = this.get(self.metric) else {
            return Outcome::Missing(format!("{} was not measured", self.metric));
        };
        let value = match self.relative_to {
            None => value,
            Some(variant) => match partner.map(|p| p.get(self.metric)) {
                None => return Outcome::Missing(format!("variant {variant} was not profiled in this run")),
                Some(None) => return Outcome::Missing(format!("{} was not measured for {variant}", self.metric)),
                Some(Some(&0.0)) => return Outcome::Missing(format!("{} of {variant} is 0", self.metric)),
                Some(Some(&p)) => value / p,
            },
        };
        if !value.is_finite() {
            // ncu writes `n/a` or NaN where a counter could not be collected: not a measurement.
            return Outcome::Missing(format!("{} is {value}, not a measured value", self.quantity()));
        }
        let ok = self.min.is_none_or(|a| value >= a) && self.max.is_none_or(|b| value <= b);
        if ok { Outcome::Pass(value) } else { Outcome::Fail(value) }
    }
}

/// Result of one expectation.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Met; the measured value (or ratio).
    Pass(f64),
    /// Not met; the measured value (or ratio).
    Fail(f64),
    /// Could not be evaluated (a metric not measured or not finite, a partner not profiled); why.
    /// Counts as a failure, of the harness rather than of the kernel: an expectation that silently
    /// does not run protects nothing.
    Missing(String),
}

/// One evaluated expectation, for the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked<'a> {
    /// The expectation.
    pub expectation: &'a Expectation,
    /// Its outcome.
    pub outcome: Outcome,
}

impl fmt::Display for Checked<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = self.expectation;
        let (mark, measured) = match &self.outcome {
            Outcome::Pass(v) => ("ok  ", format!("{v:.4}")),
            Outcome::Fail(v) => ("FAIL", format!("{v:.4}")),
            Outcome::Missing(why) => ("FAIL", format!("missing: {why}")),
        };
        write!(f, "{mark} {} = {measured}, expected {} ({})", e.quantity(), e.bound(), e.why)
    }
}

/// Evaluates every expectation; `partner(variant)` gives another variant's values.
pub fn check_all<'a>(
    expectations: &'a [Expectation],
    this: &Values,
    partner: impl Fn(&str) -> Option<&'a Values>,
) -> Vec<Checked<'a>> {
    expectations
        .iter()
        .map(|e| Checked { expectation: e, outcome: e.evaluate(this, e.relative_to.and_then(&partner)) })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(pairs: &[(&str, f64)]) -> Values {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn absolute_bounds_are_inclusive() {
        let v = values(&[("m", 4.0)]);
        assert_eq!(Expectation::metric("m").between(4.0, 4.0).evaluate(&v, None), Outcome::Pass(4.0));
        assert_eq!(Expectation::metric("m").at_least(4.1).evaluate(&v, None), Outcome::Fail(4.0));
        assert_eq!(Expectation::metric("m").at_most(3.9).evaluate(&v, None), Outcome::Fail(4.0));
    }

    #[test]
    fn ratio_to_a_partner() {
        let padded = values(&[("gpu__time_duration.sum", 150.0)]);
        let unpadded = values(&[("gpu__time_duration.sum", 300.0)]);
        let e = Expectation::metric("gpu__time_duration.sum").relative_to("shared").at_most(0.67);
        assert_eq!(e.evaluate(&padded, Some(&unpadded)), Outcome::Pass(0.5));
        assert_eq!(e.evaluate(&unpadded, Some(&padded)), Outcome::Fail(2.0));
        assert!(matches!(e.evaluate(&padded, None), Outcome::Missing(m) if m.contains("shared was not profiled")));
    }

    #[test]
    fn missing_metric_is_not_a_pass() {
        let e = Expectation::metric("absent").at_least(0.0);
        assert!(matches!(e.evaluate(&Values::new(), None), Outcome::Missing(_)));
        let nan = values(&[("absent", f64::NAN)]);
        assert!(matches!(e.evaluate(&nan, None), Outcome::Missing(m) if m == "absent is NaN, not a measured value"));
    }

    #[test]
    fn report_line_shows_measured_and_expected() {
        let e = Expectation::metric("shared_ld_wavefronts_per_inst")
            .between(0.9, 1.1)
            .because("padding removes the conflict");
        let v = values(&[("shared_ld_wavefronts_per_inst", 32.09)]);
        let checked = check_all(std::slice::from_ref(&e), &v, |_| None);
        assert_eq!(
            checked[0].to_string(),
            "FAIL shared_ld_wavefronts_per_inst = 32.0900, expected in [0.9, 1.1] (padding removes the conflict)"
        );
    }
}
