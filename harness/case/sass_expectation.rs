//! What a case declares about its kernels' machine code, checked by the SASS gate
//! ([`crate::sass`]) without a GPU. Plain data: the case table builds it in `const` context.

/// What a case declares about its kernels' code: a bound on one class's count, checked in every
/// compile trial of the kernel's file, bless included (a bless must not record a lesson that no
/// longer holds). Build with [`SassExpectation::class`] and the bound methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SassExpectation {
    /// The class, a name of [`crate::sass::CLASSES`].
    pub class: &'static str,
    /// Inclusive lower bound, instructions.
    pub min: Option<u64>,
    /// Inclusive upper bound, instructions.
    pub max: Option<u64>,
    /// The lesson.
    pub why: &'static str,
}

impl SassExpectation {
    /// An expectation on `class` with no bound yet.
    pub const fn class(class: &'static str) -> SassExpectation {
        SassExpectation { class, min: None, max: None, why: "" }
    }

    /// At least one instruction of the class.
    pub const fn present(self) -> SassExpectation {
        SassExpectation { min: Some(1), ..self }
    }

    /// No instruction of the class.
    pub const fn absent(self) -> SassExpectation {
        SassExpectation { max: Some(0), ..self }
    }

    /// At most `max` instructions of the class.
    pub const fn at_most(self, max: u64) -> SassExpectation {
        SassExpectation { max: Some(max), ..self }
    }

    /// The lesson this expectation encodes.
    pub const fn because(self, why: &'static str) -> SassExpectation {
        SassExpectation { why, ..self }
    }

    /// `None` when `count` (the class's instructions in one function) meets the bounds, else the
    /// failure: `global_ld.128: 0 instruction(s), expected at least 1 (float4 loads are ...)`.
    pub fn check(&self, count: u64) -> Option<String> {
        let low = self.min.is_some_and(|m| count < m);
        let high = self.max.is_some_and(|m| count > m);
        if !low && !high {
            return None;
        }
        let expected = match (self.min, self.max) {
            (Some(a), Some(b)) if a == b => format!("exactly {a}"),
            (Some(a), Some(b)) => format!("{a} to {b}"),
            (Some(a), None) => format!("at least {a}"),
            (None, Some(0)) => "none".to_string(),
            (None, Some(b)) => format!("at most {b}"),
            (None, None) => unreachable!("a bound was crossed"),
        };
        let why = if self.why.is_empty() { String::new() } else { format!(" ({})", self.why) };
        Some(format!("{}: {count} instruction(s), expected {expected}{why}", self.class))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expectations_name_the_class_the_count_and_the_bound() {
        let float4 = SassExpectation::class("global_ld.128").present().because("float4 loads are LDG.E.128");
        assert_eq!(float4.check(1), None);
        assert_eq!(
            float4.check(0).unwrap(),
            "global_ld.128: 0 instruction(s), expected at least 1 (float4 loads are LDG.E.128)"
        );
        let no_spills = SassExpectation::class("local_ld").absent();
        assert_eq!(no_spills.check(0), None);
        assert_eq!(no_spills.check(26).unwrap(), "local_ld: 26 instruction(s), expected none");
        assert_eq!(
            SassExpectation::class("barrier").at_most(1).check(2).unwrap(),
            "barrier: 2 instruction(s), expected at most 1"
        );
    }
}
