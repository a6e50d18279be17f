//! The case table as a value: what a project's test binary hands the library's entry
//! ([`crate::main!`], [`crate::suite::main`]), so that no stage of the library names a family. The
//! shipped lesson suite's is `kernelgate_lessons::table()`; the library adds its own self-test
//! family ([`super::planted`]) where `KERNELGATE_PLANTED=1` asks for it.

use super::Case;
use super::lesson::{LessonTrial, TimeLesson};
use crate::config::Config;
use crate::history::built::Build;

/// A suite's cases and time-only lessons, and where its binary was built from.
///
/// # Example
/// ```
/// use kernelgate::case::Table;
/// fn cases(_scale: f64) -> Vec<kernelgate::Case> {
///     Vec::new() // Case::new(...) for each kernel, at `scale` times its work
/// }
/// // In a project: `kernelgate::kernels!();` and `Table::new(cases, &BUILD)`.
/// let table = Table::new(cases, &kernelgate::Build::UNKNOWN);
/// assert!(table.all().is_empty());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Table {
    /// Every case doing `scale` times its nominal work (`1.0`: nominal) under its nominal name
    /// (`KERNELGATE_WORK_SCALE`, the power benchmark's planted slowdowns), sorted by name. The
    /// shipped suite's: `kernelgate_lessons::with_work_scale`.
    pub cases: fn(f64) -> Vec<Case>,
    /// The time-only lessons over those cases ([`super::lesson`]); `Vec::new` for none.
    pub lessons: fn() -> Vec<TimeLesson>,
    /// Where the test binary was built from (the static `BUILD` of [`crate::kernels!`]): a run is
    /// keyed to this commit of the project unless HEAD holds the same files.
    pub build: &'static Build,
    /// Whether the library's own kernel files (the ceiling probes and the planted family,
    /// [`crate::source::own`]) get compile trials in this suite's runs, gated by its resource and
    /// SASS tables: kernelgate's own suite sets it ([`Table::with_self_test`]); a project's table
    /// leaves it off, so its tables hold its kernels alone.
    pub self_test: bool,
}

impl Table {
    /// A table of `cases` without lessons, built as `build`.
    pub const fn new(cases: fn(f64) -> Vec<Case>, build: &'static Build) -> Table {
        Table { cases, lessons: Vec::new, build, self_test: false }
    }

    /// This table with the library's own kernel files compiled and gated too ([`Table::self_test`]).
    pub const fn with_self_test(self) -> Table {
        Table { self_test: true, ..self }
    }

    /// This table with the time-only lessons `lessons` ([`super::lesson`]).
    pub const fn with_lessons(self, lessons: fn() -> Vec<TimeLesson>) -> Table {
        Table { lessons, ..self }
    }

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
