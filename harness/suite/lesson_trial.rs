//! One lesson trial ([`crate::case::lesson`]): the good and the bad program of a time-only lesson,
//! each checked on its own fresh buffers and then timed in pairs in random order, each over its own
//! binding (they are different programs, not two versions of one), with the same-run A/B loop
//! ([`crate::measure::measure_pairs`]: the bad program is its A, the good one its B). The ratio
//! good / bad is judged against the lesson's bound ([`crate::gate::lesson`]).
//!
//! The recipe is the GPU trial's (`suite/trial.rs`): lease, compile, check, measure, judge,
//! record, finish. The stopping rule is the run's with its own precision target and a wall-time
//! cap ([`lesson_rule`]), so a trial over host-bound pageable copies costs seconds. A lesson trial
//! times this build's kernels, in A/B runs too; it is not profiled, not checked in the checked
//! child, not blessed and not in the history: its record is the lessons CSV
//! ([`crate::lesson_record`]), the block after the run's table and its JUnit testcase.

use super::Suite;
use super::faults::{retire_on_fault, unfinished_in_child};
use crate::case::lesson::LessonTrial;
use crate::config::{Criterion, StoppingRule};
use crate::gate::lesson::{LessonJudged, LessonNames, LessonVerdict, judge_lesson};
use crate::lesson_record::{LESSONS_CSV_SCHEMA, LESSONS_CSV_SUFFIX, LessonRow};
use crate::measure::{Pairs, Side, measure_pairs};
use crate::phases::Phase;
use crate::report::events::Event;
use crate::{check, program};
use libtest_mimic::{Completion, Failed};
use std::sync::atomic::Ordering;

/// The half-width a lesson trial's pairs aim for: the 95 % interval of the median log ratio within
/// ±0.01 (the ratio known to about ±1 %). kernelgate's choice: under a twentieth of the smallest
/// distance from a measured ratio to its bound (ln(0.83 / 0.658) = 0.23, launch), so the interval decides,
/// and fine enough that the ratios of 10 runs show their spread rather than their noise.
pub const LESSON_HALF_WIDTH: f64 = 0.01;

/// The longest a lesson trial's pairs loop runs, seconds (or `KERNELGATE_TIMEOUT` when smaller).
/// kernelgate's choice: pageable copies are host-bound and noisy (their trial in run
/// `20261130T135841Z-72a91c3` ran its 15 s timeout at 19.5 % noise), and 3 s holds at most about 245
/// pairs of the 10.9 ms pageable copy with its 1.26 ms pinned partner (flushes aside), enough for
/// a ±1 % interval at 6 % per-pair noise (1.96 x 1.2533 x 0.06 / √245 = 0.0094).
pub const LESSON_TIMEOUT_S: f64 = 3.0;

/// A lesson trial's stopping rule from the run's: its minimums (samples, GPU time), the precision
/// criterion at [`LESSON_HALF_WIDTH`] whatever `KERNELGATE_STOP` says (the noise criterion reads
/// the spread of the ratios, which says nothing of the ratio's interval), and the run's timeout
/// capped at [`LESSON_TIMEOUT_S`]. [`measure_pairs`] is called with floor [`LESSON_HALF_WIDTH`]:
/// with fraction 1 the rule stops once the interval's half-width is at most it.
pub fn lesson_rule(run: &StoppingRule) -> StoppingRule {
    StoppingRule {
        criterion: Criterion::Precision { fraction: 1.0 },
        timeout_s: run.timeout_s.min(LESSON_TIMEOUT_S),
        ..*run
    }
}

/// Runs one lesson trial: the module's recipe. Ignored without a GPU (with the reason), failed on
/// a wrong result of either program, a harness error, or a verdict `KERNELGATE_FAIL_ON` lists
/// ([`LessonVerdict::fail_on_word`]; not when blessing, as for every verdict).
pub(super) fn run(suite: &Suite, t: &LessonTrial) -> Result<Completion, Failed> {
    if let Some(Ok(s)) = suite.sanitized.get()
        && let Some(case) = [&t.good, &t.bad].into_iter().find(|c| s.unfinished.contains(&c.name()))
    {
        return Err(unfinished_in_child(suite, case));
    }
    let lease = match super::trial::lease(suite, &t.good)? {
        Ok(lease) => lease,
        Err(not_run) => return Ok(not_run),
    };
    let gpu = std::sync::Arc::clone(lease.gpu());
    let fault = |e: crate::error::Error| retire_on_fault(suite, &t.good, gpu.facts.ordinal, e);
    if let Some(why) = program::unavailable(&t.good).or_else(|| program::unavailable(&t.bad)) {
        return super::cannot_run(why);
    }
    let clock = &suite.clock;
    let compile = |case| clock.time(Phase::Compile, || program::compile(&gpu, &suite.sources, case));
    let (good, bad) = (compile(&t.good).map_err(fault)?, compile(&t.bad).map_err(fault)?);
    let start = check::SharedStart::Poisoned;
    let check = |case, compiled| {
        let inputs = suite.prefetch.prepared(case, suite.seed);
        check::check_case(&gpu, case, compiled, &inputs, suite.seed, start).map_err(fault)?.map_err(Failed::from)
    };
    let mut bad_bound = check(&t.bad, &bad)?;
    let mut good_bound = check(&t.good, &good)?;

    let config = &suite.config;
    let seed = check::trial_seed(suite.seed, &t.name());
    let rule = lesson_rule(&config.stopping);
    let pairs = clock
        .time(Phase::Sampling, || {
            measure_pairs(&gpu, &rule, config.warmup, LESSON_HALF_WIDTH, seed, |side| match side {
                Side::A => program::run(&gpu, &t.bad, &bad, &mut bad_bound),
                Side::B => program::run(&gpu, &t.good, &good, &mut good_bound),
            })
        })
        .map_err(fault)?;
    drop((bad_bound, good_bound, lease));

    let judged = judged(t, &pairs).map_err(|e| Failed::from(format!("{}: {e}", t.name())))?;
    let row = row(suite, t, &gpu.facts, &pairs, &judged);
    suite.collected.lessons.lock().unwrap_or_else(|p| p.into_inner()).push(row);
    finish(suite, t, &judged)
}

/// The judge step: the kept pairs (bad as A, good as B) against the bound.
///
/// # Errors
/// Pairs the paired gate refuses (a harness error).
fn judged(t: &LessonTrial, pairs: &Pairs) -> crate::error::Result<LessonJudged> {
    let (bad, good, _) = pairs.kept();
    let invalid = pairs.as_samples_of_b().invalid_reason();
    let names = LessonNames { good: t.lesson.good, bad: t.lesson.bad, per: t.lesson.per };
    judge_lesson(&bad, &good, t.lesson.bound, invalid, names)
}

/// The trial's row of the lessons CSV.
fn row(
    suite: &Suite,
    t: &LessonTrial,
    facts: &crate::model::DeviceFacts,
    pairs: &Pairs,
    j: &LessonJudged,
) -> LessonRow {
    LessonRow {
        schema_version: LESSONS_CSV_SCHEMA,
        run_id: suite.run_id.clone(),
        commit: suite.git.commit.clone(),
        gpu_key: facts.gpu_key.clone(),
        gpu_uuid: facts.uuid.clone(),
        trial: t.name(),
        good: t.good.name(),
        bad: t.bad.name(),
        bound: t.lesson.bound,
        pairs: pairs.a.len(),
        throttled_pairs: pairs.kept().2,
        good_median_s: j.good_median_s,
        bad_median_s: j.bad_median_s,
        ratio: j.ratio,
        ratio_low: j.interval.map(|i| i[0]),
        ratio_high: j.interval.map(|i| i[1]),
        verdict: j.verdict.as_str().to_string(),
        stop: pairs.stop.as_str().to_string(),
        wall_s: pairs.wall_s,
        reason: j.reason.clone(),
    }
}

/// Whether a lesson verdict fails its trial under `fail_on` (`KERNELGATE_FAIL_ON`), not blessing.
fn fails(verdict: LessonVerdict, fail_on: &[String], bless: bool) -> bool {
    !bless && verdict.fail_on_word().is_some_and(|w| fail_on.iter().any(|f| f == w))
}

/// Passes the trial, or fails it as a gate failure (exit code 3 when every failure is one).
fn finish(suite: &Suite, t: &LessonTrial, j: &LessonJudged) -> Result<Completion, Failed> {
    if !fails(j.verdict, &suite.config.fail_on, suite.config.bless) {
        return Ok(Completion::Completed);
    }
    suite.collected.gate_failures.fetch_add(1, Ordering::Relaxed);
    Err(format!("{}: {}; {}", t.name(), j.reason, t.lesson.why).into())
}

/// What the JUnit report says of the lesson trial `name`, when it was judged: its verdict line for
/// `<system-out>`, and whether the verdict failed it.
pub(super) fn recorded(suite: &Suite, name: &str) -> Option<(String, bool)> {
    let rows = suite.collected.lessons.lock().unwrap_or_else(|p| p.into_inner());
    let row = rows.iter().find(|r| r.trial == name)?;
    let verdict = LessonVerdict::parse(&row.verdict)?;
    Some((format!("{}: {}", row.verdict, row.reason), fails(verdict, &suite.config.fail_on, suite.config.bless)))
}

/// Prints the lessons block and writes `<run stem>-lessons.csv`; nothing when no lesson trial was
/// judged.
///
/// # Errors
/// The stem cannot be claimed or the file cannot be written ([`crate::lesson_record::write_lessons_csv`]).
pub(super) fn write_lessons(suite: &Suite) -> crate::error::Result<()> {
    let mut rows = suite.collected.lessons.lock().unwrap_or_else(|p| p.into_inner()).clone();
    if rows.is_empty() {
        return Ok(());
    }
    rows.sort_by(|a, b| a.trial.cmp(&b.trial));
    suite.report(&Event::Report(&crate::report::lessons::lessons(&rows)));
    let path = std::path::PathBuf::from(format!("{}{LESSONS_CSV_SUFFIX}", suite.stem()?.display()));
    crate::lesson_record::write_lessons_csv(&path, &rows)?;
    suite.report(&Event::Wrote { path: &path, holds: &crate::units::count(rows.len(), "lesson trial") });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lesson_rule_keeps_the_minimums_and_caps_the_time() {
        let run = StoppingRule { criterion: Criterion::Noise, timeout_s: 15.0, ..StoppingRule::default() };
        let rule = lesson_rule(&run);
        assert_eq!(rule.criterion, Criterion::Precision { fraction: 1.0 });
        assert_eq!((rule.min_samples, rule.min_time_s, rule.timeout_s), (run.min_samples, run.min_time_s, 3.0));
        assert_eq!(lesson_rule(&StoppingRule { timeout_s: 1.5, ..run }).timeout_s, 1.5, "a shorter timeout is kept");
        // Stops on the interval at the minimums, and at the cap whatever the interval.
        let p = crate::measure::Progress { n: 500, gpu_s: 1.0, noise_pct: 30.0 };
        let stop = |ci: f64, wall_s: f64| rule.verdict(&p, || ci, wall_s, LESSON_HALF_WIDTH);
        assert_eq!(stop(0.009, 0.5), Some(crate::model::StopReason::Converged));
        assert_eq!(stop(0.011, 0.5), None);
        assert_eq!(stop(0.011, 3.0), Some(crate::model::StopReason::Timeout));
    }

    #[test]
    fn a_verdict_fails_when_fail_on_lists_its_word_and_never_when_blessing() {
        let on = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        let default = on(&["regressed"]);
        assert!(fails(LessonVerdict::Broken, &default, false));
        assert!(!fails(LessonVerdict::Broken, &default, true));
        assert!(!fails(LessonVerdict::Unclear, &default, false));
        assert!(!fails(LessonVerdict::Invalid, &default, false));
        assert!(!fails(LessonVerdict::Holds, &on(&["regressed", "ambiguous", "invalid"]), false));
        assert!(fails(LessonVerdict::Unclear, &on(&["regressed", "ambiguous"]), false));
        assert!(fails(LessonVerdict::Invalid, &on(&["invalid"]), false));
        assert!(!fails(LessonVerdict::Broken, &on(&["invalid"]), false));
    }
}
