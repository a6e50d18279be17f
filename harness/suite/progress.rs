//! What the suite keeps and says of its trials as they end (outcome and wall time for the JUnit
//! report, each trial's own line) and at the end of the run (the verdicts counted);
//! [`crate::console`] prints them.

use super::Suite;
use crate::report;
use crate::report::events::Event;
use crate::report::junit::{self, TrialOutcome};
use libtest_mimic::{Completion, Failed};
use std::sync::Arc;

/// The run's verdicts counted, last before the exit code's line: `kernelgate: 80 timed trials: 78
/// unchanged, 1 regressed, 1 ambiguous; 4 lesson trials: 4 holds`. Nothing where no GPU trial was judged.
pub(super) fn print_counts(suite: &Suite) {
    let timed = suite.collected.timed.lock().unwrap_or_else(|p| p.into_inner());
    let lessons = suite.collected.lessons.lock().unwrap_or_else(|p| p.into_inner());
    let parts: Vec<String> = [
        crate::console::verdict_counts(timed.iter().map(|t| t.result.verdict.as_str()), "timed trial"),
        crate::console::verdict_counts(lessons.iter().map(|l| l.verdict.as_str()), "lesson trial"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !parts.is_empty() {
        suite.report(&Event::Status(&format!("kernelgate: {}", parts.join("; "))));
    }
    // An invalid trial does not fail by default, so its reason is said nowhere else: the tool's
    // failure, once for all the trials it touched.
    let tool: Vec<&str> = timed.iter().filter(|t| t.result.decided_by == "tool").map(|t| t.reason.as_str()).collect();
    if let Some(first) = tool.first() {
        let why = first.split_once("; time alone:").map_or(*first, |(why, _)| why);
        suite.report(&Event::Warning(&format!("kernelgate: WARNING: {} trial(s) invalid (tool): {why}", tool.len())));
    }
}

/// A finished trial's own line ([`report::trial_line`]): for a case, its median,
/// change and verdict, or its time alone where it failed before a result; for a lesson trial its
/// ratio and verdict; `None` for a compile trial (it takes no time worth a line) and a trial not
/// run.
pub(super) fn own_line(suite: &Suite, name: &str, seconds: f64) -> Option<String> {
    if name.starts_with("compile/") {
        return None;
    }
    if crate::case::lesson::is_lesson(name) {
        let lessons = suite.collected.lessons.lock().unwrap_or_else(|p| p.into_inner());
        return lessons.iter().rev().find(|l| l.trial == name).map(|l| format!("{}  {seconds:.1} s", l.summary()));
    }
    let timed = suite.collected.timed.lock().unwrap_or_else(|p| p.into_inner());
    let result = timed.iter().rev().find(|t| t.result.trial == name).map(|t| &t.result);
    Some(report::trial_line(result, seconds))
}

/// `body`, with its outcome and wall time kept for the JUnit report ([`Suite::outcomes`]), run on
/// a thread that entered the run's prefetcher ([`crate::inputs::Prefetch::enter`]: the CPU work of
/// the trial leaves two cores free while the prefetcher works, [`crate::inputs::threads`]).
pub(super) fn noted<F>(
    suite: &Arc<Suite>,
    name: String,
    body: F,
) -> impl FnOnce() -> Result<Completion, Failed> + Send + 'static
where
    F: FnOnce() -> Result<Completion, Failed> + Send + 'static,
{
    let suite = Arc::clone(suite);
    move || {
        let start = std::time::Instant::now();
        let entered = suite.prefetch.enter();
        let result = body();
        drop(entered);
        let outcome = match &result {
            Ok(Completion::Completed) => junit::Outcome::Passed,
            Ok(Completion::Ignored { reason }) => junit::Outcome::Skipped(reason.clone().unwrap_or_default()),
            Err(failed) => junit::Outcome::Failed(failed.message().unwrap_or("failed").to_string()),
        };
        let seconds = start.elapsed().as_secs_f64();
        let ran = !matches!(result, Ok(Completion::Ignored { .. }));
        if let Some(text) = own_line(&suite, &name, seconds).filter(|_| ran) {
            suite.report(&Event::TrialFinished { trial: &name, line: &text });
        }
        suite.report(&Event::TrialEnded { trial: &name, outcome: &outcome, seconds });
        suite
            .collected
            .outcomes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(TrialOutcome::new(name, seconds, outcome));
        // libtest prints the message as it is: a kernel file's or a tool's control characters in
        // it are shown escaped (the JUnit report above escapes for XML itself).
        result.map_err(|failed| match failed.message() {
            Some(m) if crate::console::shown_lines(m) != m => crate::console::shown_lines(m).into_owned().into(),
            _ => failed,
        })
    }
}
