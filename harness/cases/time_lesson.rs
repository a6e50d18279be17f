//! A time-only lesson as data, declared beside its family's cases (`lessons()` in
//! `harness/cases/launch.rs`, `transfers.rs`) and made into trials by [`super::lessons`].

/// The marker of a lesson trial's variant, which no case's variant holds.
pub const VS: &str = "_vs_";

/// One time-only lesson of a family: `good`'s time is at most `bound` times `bad`'s.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeLesson {
    /// The family of both variants.
    pub family: &'static str,
    /// The variant that follows the lesson.
    pub good: &'static str,
    /// The variant that does not.
    pub bad: &'static str,
    /// What one timed launch of a program is, for the sentences (`time per step`).
    pub per: &'static str,
    /// Largest median per-pair ratio good / bad (its whole 95 % interval) at which the lesson
    /// holds; the family's module gives the figures it comes from.
    pub bound: f64,
    /// The lesson, in words.
    pub why: &'static str,
}

impl TimeLesson {
    /// The lesson trial's variant: `<good>_vs_<bad>`, `<bad>`'s leading words shared with `<good>`
    /// dropped (`h2d_pinned` and `h2d_pageable`: `h2d_pinned_vs_pageable`).
    pub fn variant(&self) -> String {
        let good: Vec<&str> = self.good.split('_').collect();
        let bad: Vec<&str> = self.bad.split('_').collect();
        let shared = good.iter().zip(&bad).take_while(|(g, b)| g == b).count().min(bad.len() - 1);
        format!("{}{VS}{}", self.good, bad[shared..].join("_"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variant_drops_the_words_the_bad_name_shares_with_the_good_one() {
        let lesson = |good, bad| TimeLesson { family: "f", good, bad, per: "time", bound: 0.5, why: "w" };
        assert_eq!(lesson("graph", "one_by_one").variant(), "graph_vs_one_by_one");
        assert_eq!(lesson("h2d_pinned", "h2d_pageable").variant(), "h2d_pinned_vs_pageable");
        assert_eq!(lesson("pipeline_4_streams", "pipeline_1_stream").variant(), "pipeline_4_streams_vs_1_stream");
        // A bad name that is all shared words keeps its last one.
        assert_eq!(lesson("a_b_c", "a_b").variant(), "a_b_c_vs_b");
    }
}
