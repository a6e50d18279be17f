//! Time-only lessons: where ncu cannot see a lesson (gaps between launches, copies), a family
//! declares it as a [`TimeLesson`], a good and a bad variant of one size and the largest ratio
//! good / bad of their times at which the lesson holds; the suite times both programs in pairs in
//! one trial per lesson and size ([`LessonTrial`]) and judges the ratio ([`crate::gate::lesson`]).
//! The lessons themselves are a suite's, handed to the library with its cases
//! ([`super::table::Table`]).
//!
//! A lesson trial is named `family/<good>_vs_<bad>/size`, `<bad>` without the `_`-separated words
//! it shares with `<good>` at its start ([`TimeLesson::variant`]): `launch/graph_vs_one_by_one/4096x8`,
//! `transfers/h2d_pinned_vs_pageable/16777216`, `transfers/pipeline_4_streams_vs_1_stream/16777216`.
//! It sorts beside the two cases it pairs, `_vs_` selects every lesson trial
//! (`cargo test --release --test kernels -- _vs_`), and no case's variant holds `_vs_`.

use super::Case;

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

/// A lesson at one size: the two cases it times.
#[derive(Debug, Clone)]
pub struct LessonTrial {
    /// The lesson.
    pub lesson: TimeLesson,
    /// The good variant's case.
    pub good: Case,
    /// The bad variant's case.
    pub bad: Case,
}

impl LessonTrial {
    /// The trial's name, `family/<good>_vs_<bad>/size`.
    pub fn name(&self) -> String {
        format!("{}/{}/{}", self.lesson.family, self.lesson.variant(), self.good.size)
    }
}

/// The lesson trials of a run with `cases`: each of `lessons` at every size where both its
/// variants are among `cases`, sorted by name; a lesson whose variants are not both there has no
/// trial at that size.
pub fn trials(lessons: &[TimeLesson], cases: &[Case]) -> Vec<LessonTrial> {
    let mut trials = Vec::new();
    for lesson in lessons {
        let family = lesson.family;
        let of = |variant: &'static str| cases.iter().filter(move |c| c.family == family && c.variant == variant);
        for good in of(lesson.good) {
            if let Some(bad) = of(lesson.bad).find(|b| b.size == good.size) {
                trials.push(LessonTrial { lesson: lesson.clone(), good: good.clone(), bad: bad.clone() });
            }
        }
    }
    trials.sort_by_key(LessonTrial::name);
    trials
}

/// Whether `name` is a lesson trial's name (its variant holds [`VS`]).
pub fn is_lesson(name: &str) -> bool {
    name.split('/').nth(1).is_some_and(|variant| variant.contains(VS))
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
