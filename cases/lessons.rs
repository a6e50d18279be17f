//! The shipped suite's time-only lessons ([`kernelgate::case::lesson`]): each declared beside its
//! family's cases (`lessons()` in `launch.rs`, `transfers.rs`).

pub use kernelgate::case::lesson::{LessonTrial, TimeLesson, VS, is_lesson};

/// Every family's time-only lessons.
pub fn all() -> Vec<TimeLesson> {
    let mut lessons = super::launch::lessons();
    lessons.extend(super::transfers::lessons());
    lessons
}

/// The lesson trials of a run with `cases` ([`kernelgate::case::lesson::trials`] of [`all`]).
pub fn trials(cases: &[kernelgate::case::Case]) -> Vec<LessonTrial> {
    kernelgate::case::lesson::trials(&all(), cases)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernelgate::case::Case;

    #[test]
    fn each_lesson_pairs_two_cases_of_the_table_and_names_its_trial_after_them() {
        let cases = super::super::all();
        let trials = trials(&cases);
        let names: Vec<String> = trials.iter().map(LessonTrial::name).collect();
        assert_eq!(
            names,
            [
                "launch/graph_vs_one_by_one/4096x8",
                "transfers/d2h_pinned_vs_pageable/16777216",
                "transfers/h2d_pinned_vs_pageable/16777216",
                "transfers/pipeline_4_streams_vs_1_stream/16777216",
            ]
        );
        for t in &trials {
            for (case, variant) in [(&t.good, t.lesson.good), (&t.bad, t.lesson.bad)] {
                assert!(cases.iter().any(|c| c.name() == case.name()), "{}", case.name());
                assert_eq!((case.family, case.variant.as_str(), &case.size), (t.lesson.family, variant, &t.good.size));
            }
            assert_ne!(t.good.name(), t.bad.name());
            assert!(is_lesson(&t.name()) && !is_lesson(&t.good.name()) && !is_lesson(&t.bad.name()));
            assert!(t.lesson.bound > 0.0 && t.lesson.bound < 1.0, "{}: a lesson says good is faster", t.name());
            assert!(!t.lesson.why.is_empty() && !t.lesson.per.is_empty());
        }
        assert_eq!(trials.len(), all().len(), "every lesson has its cases at full size");
        assert!(cases.iter().all(|c| !c.variant.contains(VS)), "no case's variant reads as a lesson's");
        assert!(!is_lesson("compile/launch.cu/sm_90") && !is_lesson("a_vs_b"));
    }

    #[test]
    fn a_scaled_run_keeps_the_lesson_names_and_a_run_without_a_variant_has_no_trial_for_it() {
        let scaled = super::super::with_work_scale(1.05);
        let names: Vec<String> = trials(&scaled).iter().map(LessonTrial::name).collect();
        let nominal: Vec<String> = trials(&super::super::all()).iter().map(LessonTrial::name).collect();
        assert_eq!(names, nominal);
        let without: Vec<Case> = super::super::all().into_iter().filter(|c| c.variant != "one_by_one").collect();
        assert!(trials(&without).iter().all(|t| t.lesson.family != "launch"));
    }

    /// Each bound is the margin rule's over the lesson trial's own ratios in the committed H200
    /// runs (baselines/nvidia-h200-sm90/runs/lessons/, ten runs on GPU-6ac5c585).
    #[test]
    fn the_bounds_are_the_margin_rule_over_the_committed_runs() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("baselines/nvidia-h200-sm90/runs/lessons");
        let files = kernelgate::lesson_record::lessons_csvs(&[dir]).unwrap();
        assert_eq!(files.len(), 10, "{files:?}");
        let rows: Vec<_> = files.iter().flat_map(|f| kernelgate::lesson_record::read_lessons_csv(f).unwrap()).collect();
        let series = kernelgate::lesson_record::series(&rows);
        for l in all() {
            let prefix = format!("{}/{}/", l.family, l.variant());
            let s =
                series.iter().find(|s| s.trial.starts_with(&prefix)).unwrap_or_else(|| panic!("{prefix} not recorded"));
            assert_eq!(s.runs, 10, "{}", s.trial);
            let [_, _, largest] = s.ratios.expect("judged runs");
            assert_eq!(
                l.bound,
                kernelgate::gate::lesson::margin_bound(largest),
                "{}: largest ratio {largest}",
                s.trial
            );
        }
    }
}
