//! The case table as a value: what a suite hands the library's entry ([`crate::suite::main`]),
//! so that no stage of the library names a family. The shipped suite's is
//! `kernelgate::cases::table()`; the library adds its own self-test family
//! ([`super::planted`]) where `KERNELGATE_PLANTED=1` asks for it.

use super::Case;
use super::lesson::{LessonTrial, TimeLesson};
use crate::config::Config;

/// A suite's cases and time-only lessons.
///
/// # Example
/// ```
/// use kernelgate::case::Table;
/// fn cases(_scale: f64) -> Vec<kernelgate::Case> {
///     Vec::new() // Case::new(...) for each kernel, at `scale` times its work
/// }
/// let table = Table { cases, lessons: Vec::new };
/// assert!(table.all().is_empty());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Table {
    /// Every case doing `scale` times its nominal work (`1.0`: nominal) under its nominal name
    /// (`KERNELGATE_WORK_SCALE`, the power benchmark's planted slowdowns), sorted by name. The
    /// shipped suite's: `kernelgate::cases::with_work_scale`.
    pub cases: fn(f64) -> Vec<Case>,
    /// The time-only lessons over those cases ([`super::lesson`]); `Vec::new` for none.
    pub lessons: fn() -> Vec<TimeLesson>,
}

impl Table {
    /// Every case at its nominal work.
    pub fn all(&self) -> Vec<Case> {
        (self.cases)(1.0)
    }

    /// The cases of a run with `config`: [`Table::cases`] at `KERNELGATE_WORK_SCALE`, plus the
    /// library's planted family ([`super::planted`], never scaled) with `KERNELGATE_PLANTED=1`;
    /// sorted by name.
    pub fn for_run(&self, config: &Config) -> Vec<Case> {
        let mut cases = (self.cases)(config.work_scale);
        if config.planted {
            cases.extend(super::planted::cases());
            cases.sort_by_key(Case::name);
        }
        cases
    }

    /// The cases a checked child ([`crate::sanitize::child`]) looks its trials up in:
    /// [`Table::for_run`], with the work further scaled by `KERNELGATE_SANITIZE_SCALE` under
    /// compute-sanitizer. An isolated child without a tool checks the cases at the size the suite
    /// times.
    pub fn for_checked_child(&self, config: &Config) -> Vec<Case> {
        if config.sanitize.is_none() || config.sanitize_scale == 1.0 {
            return self.for_run(config);
        }
        let scaled = Config { work_scale: config.work_scale * config.sanitize_scale, ..config.clone() };
        self.for_run(&scaled)
    }

    /// The lesson trials of a run with `cases` ([`super::lesson::trials`] of [`Table::lessons`]).
    pub fn lesson_trials(&self, cases: &[Case]) -> Vec<LessonTrial> {
        super::lesson::trials(&(self.lessons)(), cases)
    }
}
