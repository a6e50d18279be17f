//! What a run says while it works, as values: the runner emits [`Event`]s and one [`Reporter`]
//! prints them, so that a project can embed a run ([`crate::suite::main_with`]) and see its
//! trials, warnings and files as they come. The model is nextest's runner and reporter
//! (`nextest-runner/src/reporter/events.rs`: the runner sends `TestEvent`s, the reporter alone
//! writes) and criterion's `Report` trait (`src/report.rs`).
//!
//! The suite's own reporter is [`Terminal`]: it prints each event as the line the suite has always
//! printed, where libtest's output format wants it (stdout beside libtest's lines, or stderr under
//! `--format json` and `--format terse`), with control characters from data shown escaped
//! ([`crate::console::shown_lines`]).
//!
//! Protocol lines a child process writes for its parent (the sanitizer child's markers) and the
//! `kernelgate` program's own output are not events.

use crate::console::{HEARTBEAT, Ticker, TrialLines, shown_lines};
use std::io::Write as _;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// One thing a run says, in the order it happens. Each variant's `Display` is the text the
/// [`Terminal`] prints (the run's facts start `kernelgate: `).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Event<'a> {
    /// Where the run's lines go, set once libtest's flags are read: `status_to_stderr` under
    /// libtest's `--format json` or `terse` (stdout is libtest's alone there), or `--quiet`.
    /// Prints nothing.
    Output {
        /// Whether status lines go to stderr.
        status_to_stderr: bool,
    },
    /// The trials are about to run: how each trial's own line is shown ([`TrialLines`]: inline
    /// between libtest's `test <name> ...` and its outcome when one trial runs at a time in the
    /// pretty format, else on stderr). Prints nothing.
    TrialsStarting {
        /// How trial lines are shown.
        trial_lines: TrialLines,
    },
    /// A fact of the run: before the trials (the NVRTC it compiles with, the input seed, the
    /// baseline and what it covers, A/B's two sides), or after them (a history not recorded, the
    /// git note added). The text as printed.
    Status(&'a str),
    /// Something that fails nothing but asks for the user's attention (`kernelgate: warning: …`,
    /// `kernelgate: WARNING: …`). The text as printed.
    Warning(&'a str),
    /// A long phase that waits on a child process (the ncu session, the sanitizer's or the
    /// isolated child) is still going: said every [`HEARTBEAT`] ([`wait_saying`]).
    Progress {
        /// The phase (`ncu`, `compute-sanitizer --tool memcheck`, `isolated child`).
        what: &'a str,
        /// How far it is, from the child's log (`trial 3 of 77 (coalescing/copy/67108864)`).
        status: &'a str,
        /// Seconds since the phase began.
        elapsed_s: f64,
    },
    /// A block of a report the run prints whole (the results table, the resource and SASS gates'
    /// reports, the lesson table, the time per phase), after a blank line.
    Report(&'a str),
    /// A file the run wrote and leaves: the run CSV, its metrics and ceilings CSVs, the JUnit report,
    /// the lessons CSV. (The A/B report is [`Event::AbReport`], the bless [`Event::Blessed`]; a JUnit
    /// report written to a FIFO or device a [`Event::Status`] line.)
    Wrote {
        /// The file.
        path: &'a Path,
        /// What it holds, counted (`86 cases`, `JUnit, 120 testcases`).
        holds: &'a str,
    },
    /// A same-run A/B run wrote its report, in three forms.
    AbReport {
        /// The report as JSON (`kernelgate merge` folds several jobs' into one).
        json: &'a Path,
        /// The report as Markdown, for a pull request's comment.
        markdown: &'a Path,
        /// The report as a page of HTML.
        html: &'a Path,
    },
    /// The run was appended to the history of one GPU key (one per GPU model the run timed on).
    Recorded {
        /// The commit the measured code came from, abbreviated as the run's other lines show it.
        commit: &'a str,
        /// In a same-run A/B run, the commit of the A side (its first 12 hex digits); else `None`.
        against: Option<&'a str>,
        /// The rows appended (one per trial and statistic).
        values: usize,
        /// The physical GPU the run timed on (NVML's UUID, `GPU-…`).
        gpu: &'a str,
        /// The history folder.
        history: &'a Path,
    },
    /// A trial the bless left out of its baseline (measured under bad conditions), and why.
    NotBlessed {
        /// The trial's name.
        trial: &'a str,
        /// Why it was left out.
        why: &'a str,
    },
    /// The bless wrote the run's trials into one GPU key's baseline folder. A summary of its changes
    /// and the file that lists every change follow as [`Event::Status`] lines.
    Blessed {
        /// The trials blessed.
        trials: usize,
        /// The baseline folder (`baselines/<GPU key>`).
        dir: &'a Path,
        /// How many entries the bless changed (added, moved or removed).
        changes: usize,
    },
    /// A trial ended, with its own line ([`crate::report::trial_line`]: median, change, verdict
    /// and wall time; a lesson trial's ratio and verdict). Compile trials and trials not run have
    /// no line.
    TrialFinished {
        /// The trial's name (`transpose/shared_padded/4096x4096`).
        trial: &'a str,
        /// Its own line.
        line: &'a str,
    },
    /// A trial ended, however it did (every trial the filters name: compile trials, failures and
    /// ignored ones included), after its [`Event::TrialFinished`] line where it has one; a trial
    /// libtest ignored before it ran (without a GPU, every GPU trial) ends after the others, with
    /// the reason. Prints nothing: libtest prints each outcome itself.
    TrialEnded {
        /// The trial's name.
        trial: &'a str,
        /// How it ended, with the failure's message or the reason it was ignored: passed, failed
        /// (any failure: the JUnit report tells a harness error apart by its message) or skipped.
        outcome: &'a crate::report::junit::Outcome,
        /// Its wall time.
        seconds: f64,
    },
    /// A note a trial makes while it runs (`kernelgate: <trial>: not re-checked after timing: …`).
    /// Where trial lines are inline, the [`Terminal`] keeps it for [`Event::TrialsEnded`] so that
    /// it does not cut a trial's line in two.
    TrialNote(&'a str),
    /// Every trial has ended (libtest has printed its summary).
    TrialsEnded,
}

impl std::fmt::Display for Event<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Event::Output { .. } | Event::TrialsStarting { .. } | Event::TrialEnded { .. } | Event::TrialsEnded => {
                Ok(())
            }
            Event::Status(text) | Event::Warning(text) | Event::TrialNote(text) => f.write_str(text),
            Event::Report(text) => write!(f, "\n{text}"),
            Event::Progress { what, status, elapsed_s } => {
                write!(f, "kernelgate: {what}: {status}, {elapsed_s:.0} s so far")
            }
            Event::Wrote { path, holds } => write!(f, "kernelgate: wrote {} ({holds})", path.display()),
            Event::AbReport { json, markdown, html } => write!(
                f,
                "kernelgate: wrote {}, {} and {} (the A/B report: JSON, Markdown for the pull request, HTML)",
                json.display(),
                markdown.display(),
                html.display()
            ),
            Event::Recorded { commit, against, values, gpu, history } => {
                write!(f, "kernelgate: recorded in history: {commit}")?;
                if let Some(against) = against {
                    write!(f, ", a same-run A/B comparison against {against}")?;
                }
                write!(f, " ({values} values, GPU {gpu}) in {}", history.display())
            }
            Event::NotBlessed { trial, why } => write!(f, "kernelgate: not blessed: {trial}: {why}"),
            Event::Blessed { trials, dir, changes } => write!(
                f,
                "kernelgate: blessed {} into {} ({})",
                crate::units::count(*trials, "trial"),
                dir.display(),
                crate::units::count(*changes, "change")
            ),
            Event::TrialFinished { trial, line } => write!(f, "kernelgate: {trial}: {line}"),
        }
    }
}

/// What receives a run's events ([`Event`]), from every trial's thread: the suite's
/// [`Terminal`], or a project's own (a log, a dashboard, a test that checks what a run says).
///
/// # Example
/// A reporter that prints as the suite does and counts the trials that ended, handed to
/// [`crate::suite::main_with`] in a project's test binary:
/// ```no_run
/// use kernelgate::report::events::{Event, Reporter, Terminal};
/// use std::sync::atomic::{AtomicUsize, Ordering};
///
/// #[derive(Default)]
/// struct Counting {
///     terminal: Terminal,
///     ended: AtomicUsize,
/// }
///
/// impl Reporter for Counting {
///     fn report(&self, event: &Event<'_>) {
///         if let Event::TrialEnded { .. } = event {
///             self.ended.fetch_add(1, Ordering::Relaxed);
///         }
///         self.terminal.report(event);
///     }
/// }
///
/// # fn cases(_scale: f64) -> Vec<kernelgate::Case> { Vec::new() }
/// fn main() -> std::process::ExitCode {
///     // In a project: `kernelgate::kernels!();` and `Table::new(cases, &BUILD)`.
///     let table = kernelgate::case::Table::new(cases, &kernelgate::Build::UNKNOWN);
///     kernelgate::suite::main_with(table, std::sync::Arc::new(Counting::default()))
/// }
/// ```
pub trait Reporter: Send + Sync {
    /// Receives one event. Called from the thread that made it, in the order each thread makes
    /// them; it must not panic.
    fn report(&self, event: &Event<'_>);
}

/// The suite's reporter: each event as the line the suite prints, on stdout beside libtest's lines
/// or on stderr where libtest's output format needs stdout alone ([`Event::Output`]), trial lines
/// inline or on stderr ([`Event::TrialsStarting`]), and trials' notes kept until the trials end
/// where trial lines are inline. Before [`Event::Output`], status lines go to stdout and trial lines
/// inline.
#[derive(Debug, Default)]
pub struct Terminal {
    status_to_stderr: AtomicBool,
    trial_lines_to_stderr: AtomicBool,
    notes: Mutex<Vec<String>>,
}

/// Where a [`Terminal`] writes one piece of text ([`Terminal::render`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// A line (or block) on stdout.
    Stdout(String),
    /// A line (or block) on stderr.
    Stderr(String),
    /// Text on stdout without a line end: a trial's line between libtest's `test <name> ...` and
    /// its outcome.
    Inline(String),
}

impl Terminal {
    /// What `event` makes this terminal write, in order, updating its routing and kept notes.
    /// Pure but for that state: [`Reporter::report`] writes what it returns.
    pub fn render(&self, event: &Event<'_>) -> Vec<Written> {
        let status = |text: String| {
            let text = shown_lines(&text).into_owned();
            if self.status_to_stderr.load(Ordering::Relaxed) { Written::Stderr(text) } else { Written::Stdout(text) }
        };
        let inline = !self.trial_lines_to_stderr.load(Ordering::Relaxed);
        match event {
            Event::Output { status_to_stderr } => {
                self.status_to_stderr.store(*status_to_stderr, Ordering::Relaxed);
                Vec::new()
            }
            Event::TrialsStarting { trial_lines } => {
                self.trial_lines_to_stderr.store(*trial_lines == TrialLines::Stderr, Ordering::Relaxed);
                Vec::new()
            }
            Event::TrialFinished { line, .. } if inline => vec![Written::Inline(format!("{}  ", shown_lines(line)))],
            Event::TrialFinished { .. } => vec![Written::Stderr(shown_lines(&event.to_string()).into_owned())],
            Event::TrialNote(note) if inline => {
                self.notes.lock().unwrap_or_else(|p| p.into_inner()).push(note.to_string());
                Vec::new()
            }
            Event::TrialEnded { .. } => Vec::new(),
            Event::TrialsEnded => {
                let notes = std::mem::take(&mut *self.notes.lock().unwrap_or_else(|p| p.into_inner()));
                if notes.is_empty() {
                    return Vec::new();
                }
                vec![status(format!("\nnotes from the trials:\n{}", notes.join("\n")))]
            }
            _ => vec![status(event.to_string())],
        }
    }
}

impl Reporter for Terminal {
    fn report(&self, event: &Event<'_>) {
        for written in self.render(event) {
            match written {
                Written::Stdout(text) => println!("{text}"),
                Written::Stderr(text) => eprintln!("{text}"),
                Written::Inline(text) => {
                    let mut out = std::io::stdout().lock();
                    let _ = write!(out, "{text}");
                    let _ = out.flush();
                }
            }
        }
    }
}

/// Waits for `child`, polling every 100 ms, and tells `reporter` how far it is every
/// [`HEARTBEAT`] ([`Event::Progress`]: `kernelgate: <what>: <status()>, <s> s so far`); `status`
/// reads how far the child is (from its log, say).
///
/// # Errors
/// The I/O error of `try_wait`.
pub fn wait_saying(
    child: &mut std::process::Child,
    what: &str,
    reporter: &dyn Reporter,
    mut status: impl FnMut() -> String,
) -> std::io::Result<std::process::ExitStatus> {
    let mut ticker = Ticker::new(HEARTBEAT);
    loop {
        if let Some(exit) = child.try_wait()? {
            return Ok(exit);
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        if ticker.due() {
            let status = status();
            reporter.report(&Event::Progress { what, status: &status, elapsed_s: ticker.elapsed_s() });
        }
    }
}

/// A reporter that keeps each event's text (the line [`Terminal`] would print, control characters
/// as they are) in order, printing nothing: for a test of what a run says.
///
/// # Example
/// ```
/// use kernelgate::report::events::{Event, Lines, Reporter};
/// let lines = Lines::default();
/// lines.report(&Event::Warning("kernelgate: warning: no git note written"));
/// lines.report(&Event::TrialsEnded);
/// assert_eq!(lines.take(), ["kernelgate: warning: no git note written"]);
/// ```
#[derive(Debug, Default)]
pub struct Lines(Mutex<Vec<String>>);

impl Lines {
    /// The lines kept so far, leaving none.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

impl Reporter for Lines {
    fn report(&self, event: &Event<'_>) {
        let text = event.to_string();
        if !text.is_empty() {
            self.0.lock().unwrap_or_else(|p| p.into_inner()).push(text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines_follow_libtests_format_and_escape_control_characters() {
        let t = Terminal::default();
        assert_eq!(
            t.render(&Event::Status("kernelgate: input seed 7")),
            [Written::Stdout("kernelgate: input seed 7".into())]
        );
        assert!(t.render(&Event::Output { status_to_stderr: true }).is_empty());
        let path = Path::new("target/kernelgate/run.csv");
        assert_eq!(
            t.render(&Event::Wrote { path, holds: "86 cases" }),
            [Written::Stderr("kernelgate: wrote target/kernelgate/run.csv (86 cases)".into())]
        );
        assert_eq!(
            t.render(&Event::Warning("kernelgate: warning: a \u{1b}[2J")),
            [Written::Stderr(r"kernelgate: warning: a \u{1b}[2J".into())]
        );
        assert_eq!(t.render(&Event::Report("| table |")), [Written::Stderr("\n| table |".into())]);
        let progress = Event::Progress { what: "ncu", status: "kernel 3 of 8", elapsed_s: 10.4 };
        assert_eq!(t.render(&progress), [Written::Stderr("kernelgate: ncu: kernel 3 of 8, 10 s so far".into())]);
    }

    #[test]
    fn inline_trial_lines_keep_notes_for_the_end_and_stderr_lines_do_not() {
        let t = Terminal::default();
        t.render(&Event::TrialsStarting { trial_lines: TrialLines::Inline });
        let finished = Event::TrialFinished { trial: "copy/x/4", line: "1.00 us  unchanged  0.3 s" };
        assert_eq!(t.render(&finished), [Written::Inline("1.00 us  unchanged  0.3 s  ".into())]);
        assert!(t.render(&Event::TrialNote("kernelgate: copy/x/4: not re-checked")).is_empty());
        assert!(t.render(&Event::TrialNote("kernelgate: copy/y/4: not re-checked")).is_empty());
        assert_eq!(
            t.render(&Event::TrialsEnded),
            [Written::Stdout(
                "\nnotes from the trials:\nkernelgate: copy/x/4: not re-checked\nkernelgate: copy/y/4: not re-checked"
                    .into()
            )]
        );
        assert!(t.render(&Event::TrialsEnded).is_empty(), "the notes are printed once");

        let t = Terminal::default();
        t.render(&Event::TrialsStarting { trial_lines: TrialLines::Stderr });
        assert_eq!(t.render(&finished), [Written::Stderr("kernelgate: copy/x/4: 1.00 us  unchanged  0.3 s".into())]);
        assert_eq!(t.render(&Event::TrialNote("kernelgate: n")), [Written::Stdout("kernelgate: n".into())]);
        assert!(t.render(&Event::TrialsEnded).is_empty());
    }

    #[test]
    fn what_a_run_leaves_is_typed_and_prints_the_lines_it_always_did() {
        let history = Path::new(".kernelgate/history");
        let recorded = |against| Event::Recorded {
            commit: "ec2944f",
            against,
            values: 688,
            gpu: "GPU-046f4107-311a-4d96-9aa4-2cf0c014c298",
            history,
        };
        assert_eq!(
            recorded(None).to_string(),
            "kernelgate: recorded in history: ec2944f (688 values, GPU GPU-046f4107-311a-4d96-9aa4-2cf0c014c298) \
             in .kernelgate/history"
        );
        assert_eq!(
            recorded(Some("094b787a1c2d")).to_string(),
            "kernelgate: recorded in history: ec2944f, a same-run A/B comparison against 094b787a1c2d (688 values, \
             GPU GPU-046f4107-311a-4d96-9aa4-2cf0c014c298) in .kernelgate/history"
        );
        let dir = Path::new("baselines/nvidia-h200-sm90");
        assert_eq!(
            Event::Blessed { trials: 1, dir, changes: 3 }.to_string(),
            "kernelgate: blessed 1 trial into baselines/nvidia-h200-sm90 (3 changes)"
        );
        assert_eq!(
            Event::NotBlessed { trial: "copy/x/4", why: "its clock was throttled" }.to_string(),
            "kernelgate: not blessed: copy/x/4: its clock was throttled"
        );
        let (json, markdown, html) = (Path::new("r-ab.json"), Path::new("r-ab.md"), Path::new("r-ab.html"));
        assert_eq!(
            Event::AbReport { json, markdown, html }.to_string(),
            "kernelgate: wrote r-ab.json, r-ab.md and r-ab.html (the A/B report: JSON, Markdown for the pull \
             request, HTML)"
        );
        let t = Terminal::default();
        assert_eq!(t.render(&Event::Blessed { trials: 2, dir, changes: 1 }).len(), 1, "a status line");
    }
}
