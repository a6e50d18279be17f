//! Reading compute-sanitizer's output: which `=========` report belongs to which trial, and what
//! the tool says about its own checking. Pure; no I/O.
//!
//! The sanitized child prints [`BEGIN`] and [`END`] marker lines around each trial's checked run
//! (`crate::sanitize::child`), and compute-sanitizer writes its reports into the same stream. A
//! report is a header line `========= <text>` followed by indented detail lines
//! `=========     <text>` and ended by a bare `=========` (Compute Sanitizer user manual,
//! "Understanding Memcheck Errors" and "Racecheck Report Modes").
//!
//! Every report is attributed: to the trial whose begin marker came last before it; after that
//! trial's end marker (the tool's front end prints reports as it receives them, so one can land
//! after the marker), still to it, the trial that ended last, until the next begin marker. A report
//! before the first trial of its process (a process starts at the tool's `COMPUTE-SANITIZER`
//! banner) cannot be attributed: every trial of that process is then reported as not fully
//! checked, with the report.
//!
//! The tool's own lines are read too. `ERROR SUMMARY: N errors` is checked against the reports
//! read; `N errors were not printed` (its `--print-limit` spent) makes every trial begun after the
//! last printed report not fully checked ([`Trial::limit`]); the banner, the other summaries and
//! `Target application returned an error` (the child's exit status, which its end markers already
//! tell) say nothing about a trial. Any other line of the tool's that is not a report (a one-line
//! message: no detail lines, no closing `=========`), such as a warning that a check was skipped or
//! an internal error, is taken as the tool saying it checked less than it was asked: the trial it
//! falls in, or every trial of its process when it falls outside them, is not fully checked, in
//! the tool's words ([`Trial::caveats`]).

use std::collections::BTreeMap;

/// The prefix of every line compute-sanitizer writes into the application's output.
pub const PREFIX: &str = "=========";
/// Marker the child prints before a trial's checked run: `kernelgate-sanitize: begin <trial>`.
pub const BEGIN: &str = "kernelgate-sanitize: begin ";
/// Marker the child prints after it: `kernelgate-sanitize: end <trial>: <outcome>`.
pub const END: &str = "kernelgate-sanitize: end ";

/// The tool's banner, the first line of each of its processes.
const BANNER: &str = "COMPUTE-SANITIZER";

/// Lines of the tool's own that say nothing about what a trial's check covered (their text after
/// the prefix starts so): the summaries of racecheck and of the leak check, the target's exit
/// status, and the tool's mode line.
const SAY_NOTHING: [&str; 4] = ["RACECHECK SUMMARY", "LEAK SUMMARY", "Target application returned", "Tool is running"];

/// One report of the tool: its header and detail lines, prefix removed, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The header (`Invalid __global__ write of size 4 bytes`).
    pub header: String,
    /// Detail lines, trimmed (`at oob_write+0x90`, `by thread (255,0,0) in block (15,0,0)`, ...).
    pub details: Vec<String>,
}

impl Report {
    /// The report as the trial's failure shows it: the header, then up to `max_details` detail
    /// lines indented (host backtraces run to dozens of lines).
    pub fn render(&self, max_details: usize) -> String {
        let mut out = self.header.clone();
        for d in self.details.iter().take(max_details) {
            out += &format!("\n    {d}");
        }
        if self.details.len() > max_details {
            out += &format!("\n    ... {} more lines in the log", self.details.len() - max_details);
        }
        out
    }
}

/// What one trial's stretch of the output held.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trial {
    /// The tool's reports, in order.
    pub reports: Vec<Report>,
    /// How many of `reports` came after the trial's end marker (before the next begin marker).
    pub late: usize,
    /// The child's outcome after [`END`] (`ok`, `check failed: ...`, `error: ...`); `None` when
    /// the output stops inside the trial (the process died or was killed there).
    pub ended: Option<String>,
    /// Why the tool did not fully check this trial, one sentence each, quoting the tool: its lines
    /// that are neither reports nor summaries, in this trial's stretch or outside every trial of
    /// its process; reports before the first trial of its process; an `ERROR SUMMARY` count that
    /// the reports read do not reach.
    pub caveats: Vec<String>,
    /// Set when the tool's print limit was spent before this trial began (`N errors were not
    /// printed`): a sentence quoting the tool. A new process checks such a trial again.
    pub limit: Option<String>,
}

impl Trial {
    /// Whether the tool's silence on this trial means nothing was found: no caveat, no spent
    /// print limit.
    pub fn fully_checked(&self) -> bool {
        self.caveats.is_empty() && self.limit.is_none()
    }
}

/// What one sanitizer process said about itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Process {
    /// The trials begun in it, in order.
    pub trials: Vec<String>,
    /// Its reports before its first trial began.
    pub outside: Vec<Report>,
    /// `N` of its `ERROR SUMMARY: N errors` line.
    pub error_summary: Option<u64>,
    /// `N` of its `N errors were not printed` line, with the line.
    pub not_printed: Option<(u64, String)>,
    /// Its reports, all of them (in trials and outside).
    pub reports: u64,
    /// Its lines that are neither reports nor summaries, outside every trial (before the first
    /// began or after the last ended), in the tool's words.
    pub notices: Vec<String>,
}

/// A whole output, split by trial.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    /// Trials in the order their begin markers came.
    pub order: Vec<String>,
    /// Each trial begun, by name.
    pub trials: BTreeMap<String, Trial>,
    /// Reports before the first trial of their process (API errors before any trial): each makes
    /// every trial of that process not fully checked.
    pub outside: Vec<Report>,
    /// The tool's processes, in order (a log may hold several, one after another).
    pub processes: Vec<Process>,
}

/// The first whole number in `text` (digits, `,` as a thousands separator allowed).
fn first_number(text: &str) -> Option<u64> {
    let start = text.find(|c: char| c.is_ascii_digit())?;
    let digits: String =
        text[start..].chars().take_while(|c| c.is_ascii_digit() || *c == ',').filter(|c| *c != ',').collect();
    digits.parse().ok()
}

/// Where the parser is in the output.
#[derive(Default)]
struct State {
    parsed: Parsed,
    /// The trial between its begin and end markers.
    current: Option<String>,
    /// The trial that ended last, until the next begin marker or banner.
    ended_last: Option<String>,
    /// A header not yet known to be a report (it is one once a detail line or a bare prefix
    /// follows) or a one-line message of the tool's.
    open: Option<Report>,
    open_has_body: bool,
    /// Messages after the last end marker: the next trial's predecessor's if a begin marker
    /// follows, else the whole process's.
    after_end: Vec<String>,
    /// Where the process's last report went: `None` none yet, `Some(None)` before its first trial,
    /// `Some(Some(i))` its `i`-th trial.
    last_report: Option<Option<usize>>,
}

impl State {
    fn process(&mut self) -> &mut Process {
        if self.parsed.processes.is_empty() {
            self.parsed.processes.push(Process::default());
        }
        self.parsed.processes.last_mut().expect("one process at least")
    }

    /// Files the open header as a report (it had a body) or as the tool's message.
    fn close(&mut self) {
        let Some(report) = self.open.take() else { return };
        if !self.open_has_body && report.details.is_empty() {
            self.message(report.header);
            return;
        }
        self.process().reports += 1;
        let target = self.current.clone().map(|c| (c, false)).or(self.ended_last.clone().map(|e| (e, true)));
        match target {
            Some((name, late)) => {
                let index = self.process().trials.iter().position(|t| *t == name);
                self.last_report = Some(index);
                let trial = self.parsed.trials.get_mut(&name).expect("begun trials are kept");
                trial.reports.push(report);
                trial.late += usize::from(late);
            }
            None => {
                self.last_report = Some(None);
                self.process().outside.push(report.clone());
                self.parsed.outside.push(report);
            }
        }
    }

    /// One line of the tool's that is not a report.
    fn message(&mut self, text: String) {
        if text.contains("not printed") {
            self.process().not_printed = Some((first_number(&text).unwrap_or(0), text));
        } else if let Some(rest) = text.strip_prefix("ERROR SUMMARY:") {
            self.process().error_summary = first_number(rest);
        } else if SAY_NOTHING.iter().any(|n| text.starts_with(n)) {
        } else if let Some(name) = self.current.clone() {
            self.parsed.trials.get_mut(&name).expect("begun").caveats.push(said(&text));
        } else if self.ended_last.is_some() {
            self.after_end.push(text);
        } else {
            self.process().notices.push(text);
        }
    }

    /// The end of a process (a banner or the end of the output): its outside notices and reports,
    /// summary and print limit become the caveats of its trials.
    fn end_process(&mut self) {
        self.close();
        let after = std::mem::take(&mut self.after_end);
        self.process().notices.extend(after);
        self.current = None;
        self.ended_last = None;
        let last_report = self.last_report.take();
        let Some(p) = self.parsed.processes.last().cloned() else { return };
        let mut whole: Vec<String> = p.notices.iter().map(|n| said(n)).collect();
        for r in &p.outside {
            whole.push(format!(
                "the tool reported before the first trial of its process began, so the report cannot be told apart \
                 from this trial's: \"{}\"",
                r.header
            ));
        }
        let unprinted = p.not_printed.as_ref().map_or(0, |(n, _)| *n);
        if let Some(n) = p.error_summary
            && n > p.reports + unprinted
        {
            whole.push(format!(
                "the tool says \"ERROR SUMMARY: {n} errors\" for its process, but {} were read from its output{}, so \
                 some were not attributed to a trial",
                p.reports,
                if unprinted > 0 { format!(" and {unprinted} were not printed") } else { String::new() }
            ));
        }
        // The print limit was spent at the last printed report: the trials after it were checked
        // with nothing printed any more.
        let first_unprinted = match last_report {
            Some(Some(i)) => i + 1,
            _ => 0,
        };
        for (i, name) in p.trials.iter().enumerate() {
            let trial = self.parsed.trials.get_mut(name).expect("begun");
            trial.caveats.extend(whole.iter().cloned());
            if let Some((_, line)) = p.not_printed.as_ref().filter(|(n, _)| *n > 0)
                && i + 1 == first_unprinted
            {
                trial.caveats.push(format!(
                    "the tool's print limit was spent in this trial, so more of its errors may be among those the tool \
                     did not print: it says \"{line}\""
                ));
            }
            if let Some((_, line)) = p.not_printed.as_ref().filter(|(n, _)| *n > 0)
                && i >= first_unprinted
            {
                trial.limit = Some(format!(
                    "the tool's print limit was spent before this trial began: it says \"{line}\" (and \"ERROR \
                     SUMMARY: {} errors\")",
                    p.error_summary.map_or("?".to_string(), |n| n.to_string())
                ));
            }
        }
    }
}

/// `the tool says "<text>"`.
fn said(text: &str) -> String {
    format!("the tool says \"{text}\"")
}

/// Splits `text` (the sanitizer processes' stdout and stderr, interleaved as written) by trial,
/// and reads what the tool says about its own checking (see the module's documentation).
pub fn parse(text: &str) -> Parsed {
    let mut s = State::default();
    for line in text.lines() {
        let line = line.trim_end();
        if let Some(name) = line.strip_prefix(BEGIN) {
            s.close();
            let name = name.trim().to_string();
            let after = std::mem::take(&mut s.after_end);
            if let Some(previous) = s.ended_last.take() {
                let t = s.parsed.trials.get_mut(&previous).expect("begun");
                t.caveats.extend(after.iter().map(|a| said(a)));
            }
            s.parsed.order.push(name.clone());
            s.parsed.trials.insert(name.clone(), Trial::default());
            s.process().trials.push(name.clone());
            s.current = Some(name);
        } else if let Some(rest) = line.strip_prefix(END) {
            s.close();
            let (name, outcome) = rest.split_once(": ").unwrap_or((rest, ""));
            let name = name.trim().to_string();
            if let Some(trial) = s.parsed.trials.get_mut(&name) {
                trial.ended = Some(outcome.trim().to_string());
                s.ended_last = Some(name);
            }
            s.current = None;
        } else if let Some(body) = line.strip_prefix(PREFIX) {
            if body.trim().is_empty() {
                s.open_has_body = true;
                s.close();
            } else if body.starts_with("  ") {
                // A detail line (the header's text follows one space; details are indented more).
                if let Some(report) = s.open.as_mut() {
                    report.details.push(body.trim().to_string());
                }
            } else {
                s.close();
                let header = body.trim();
                if header.starts_with(BANNER) {
                    let started = s.parsed.processes.last().is_some_and(|p| *p != Process::default());
                    if started {
                        s.end_process();
                        s.parsed.processes.push(Process::default());
                    }
                    s.process();
                } else {
                    s.open = Some(Report { header: header.to_string(), details: Vec::new() });
                    s.open_has_body = false;
                }
            }
        }
    }
    s.end_process();
    s.parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Synthetic output in the shape the user manual shows, with two trials and a leak at exit.
    const SYNTHETIC: &str = "\
========= COMPUTE-SANITIZER
kernelgate-sanitize: begin planted/oob_write/4096
========= Invalid __global__ write of size 4 bytes
=========     at oob_write+0x90
=========     by thread (255,0,0) in block (15,0,0)
=========     Address 0x7f0000004000 is out of bounds
=========
kernelgate-sanitize: end planted/oob_write/4096: ok
kernelgate-sanitize: begin transpose/naive/64x64
kernelgate-sanitize: end transpose/naive/64x64: ok
kernelgate-sanitize: begin planted/illegal_address/4096
========= Program hit CUDA_ERROR_ILLEGAL_ADDRESS (error 700) on CUDA API call to cuStreamSynchronize.
=========     Saved host backtrace up to driver entry point at error
=========
========= ERROR SUMMARY: 2 errors
";

    #[test]
    fn reports_go_to_the_trial_whose_marker_came_last() {
        let p = parse(SYNTHETIC);
        assert_eq!(p.order, ["planted/oob_write/4096", "transpose/naive/64x64", "planted/illegal_address/4096"]);
        let oob = &p.trials["planted/oob_write/4096"];
        assert_eq!(oob.ended.as_deref(), Some("ok"));
        assert_eq!(oob.reports.len(), 1);
        assert_eq!(oob.reports[0].header, "Invalid __global__ write of size 4 bytes");
        assert_eq!(oob.reports[0].details[0], "at oob_write+0x90");
        assert!(p.trials["transpose/naive/64x64"].reports.is_empty());
        let fault = &p.trials["planted/illegal_address/4096"];
        assert_eq!(fault.ended, None, "the output stopped inside it");
        assert!(fault.reports[0].header.starts_with("Program hit CUDA_ERROR_ILLEGAL_ADDRESS"));
        assert!(p.outside.is_empty(), "banner and summary are not reports: {:?}", p.outside);
        assert!(p.trials.values().all(Trial::fully_checked), "{p:?}");
        assert_eq!(p.processes.len(), 1);
        assert_eq!((p.processes[0].error_summary, p.processes[0].reports), (Some(2), 2));
    }

    /// compute-sanitizer 2025 (CUDA 13.0) on the H200 (GPU-2091dd7f-482d-5f51-c911-c8fc95a0a971),
    /// `KERNELGATE_SANITIZE=memcheck KERNELGATE_PLANTED=1 KERNELGATE_KERNEL_TIMEOUT=10
    /// kernels planted/`: three processes (the hang was killed; each fault ended its child).
    const MEMCHECK: &str = include_str!("../tests/fixtures/sanitize/memcheck-planted-h200.log");
    /// The same run's racecheck over the three trials that do not fault or hang.
    const RACECHECK: &str = include_str!("../tests/fixtures/sanitize/racecheck-planted-h200.log");
    /// initcheck over them: it tracks global memory only, so the uninitialised shared read passes.
    const INITCHECK: &str = include_str!("../tests/fixtures/sanitize/initcheck-planted-h200.log");

    #[test]
    fn memcheck_on_the_h200_names_each_planted_bug() {
        let p = parse(MEMCHECK);
        let t = |name: &str| &p.trials[&format!("planted/{name}/4096")];
        assert_eq!(t("hang").ended, None, "killed inside it");
        assert!(t("hang").reports.is_empty());
        let oob = t("oob_write");
        assert_eq!(oob.reports[0].header, "Invalid __global__ write of size 4 bytes");
        assert!(oob.reports[0].details.iter().any(|d| d.contains("is out of bounds")), "{:?}", oob.reports[0]);
        assert!(oob.reports[0].details[0].starts_with("at oob_write+"), "{:?}", oob.reports[0]);
        let misaligned = &t("misaligned_load").reports[0];
        assert_eq!(misaligned.header, "Invalid __global__ read of size 16 bytes");
        assert!(misaligned.details.iter().any(|d| d.ends_with("is misaligned")), "{misaligned:?}");
        assert_eq!(t("illegal_address").reports.len(), 100, "--print-limit 100");
        for faulted in ["misaligned_load", "illegal_address", "oob_write"] {
            assert!(t(faulted).ended.as_deref().is_some_and(|e| e.starts_with("error:")), "{faulted}");
        }
        // Each begun trial is found once, however many processes the run took.
        assert_eq!(p.order.len(), p.trials.len());
        // Five processes; each summary adds up to the reports read and those not printed.
        assert_eq!(p.processes.len(), 5);
        let counts: Vec<(Option<u64>, u64, u64)> = p
            .processes
            .iter()
            .map(|q| (q.error_summary, q.reports, q.not_printed.as_ref().map_or(0, |n| n.0)))
            .collect();
        assert_eq!(
            counts,
            [(None, 0, 0), (Some(4101), 100, 4001), (Some(4101), 100, 4001), (Some(6), 6, 0), (Some(0), 0, 0)]
        );
        // The print limit was spent in the one trial of its process: no later trial to doubt.
        assert!(p.trials.values().all(|t| t.limit.is_none()), "{p:?}");
        assert_eq!(t("illegal_address").caveats.len(), 1, "more of its errors went unprinted");
        assert!(t("oob_write").caveats.is_empty() && t("uninit_shared").caveats.is_empty());
        // oob_write's process: the API errors after its end marker are its own.
        assert_eq!((oob.reports.len(), oob.late), (6, 2));
    }

    #[test]
    fn racecheck_on_the_h200_reports_the_missing_barrier_only() {
        let p = parse(RACECHECK);
        let race = &p.trials["planted/missing_sync/4096"].reports;
        assert_eq!(race.len(), 1);
        assert!(race[0].header.starts_with("Error: Race reported between Write access at reverse_no_sync"));
        assert!(race[0].details[0].starts_with("and Read access at reverse_no_sync"), "{:?}", race[0]);
        assert!(p.trials["planted/oob_write/4096"].reports.is_empty());
        assert!(p.trials["planted/uninit_shared/4096"].reports.is_empty());
        assert!(p.outside.is_empty(), "the summary is not a report: {:?}", p.outside);
        let i = parse(INITCHECK);
        assert_eq!(i.order.len(), 3);
        assert!(i.trials.values().all(|t| t.reports.is_empty() && t.ended.is_some()));
        assert!(p.trials.values().chain(i.trials.values()).all(Trial::fully_checked), "{p:?} {i:?}");
    }

    #[test]
    fn a_report_before_every_trial_leaves_each_trial_of_its_process_not_fully_checked() {
        let p = parse("========= Leaked 16 bytes at 0x7f00\n=========     Saved host backtrace\n=========\n");
        assert_eq!(p.outside.len(), 1);
        assert_eq!(p.outside[0].render(0), "Leaked 16 bytes at 0x7f00\n    ... 1 more lines in the log");
        assert!(p.trials.is_empty());
        let p = parse(
            "========= COMPUTE-SANITIZER\n========= Program hit CUDA_ERROR_INVALID_VALUE on cuInit.\n=========\n\
             kernelgate-sanitize: begin a/b/1\nkernelgate-sanitize: end a/b/1: ok\n========= ERROR SUMMARY: 1 error\n\
             ========= COMPUTE-SANITIZER\nkernelgate-sanitize: begin c/d/1\nkernelgate-sanitize: end c/d/1: ok\n\
             ========= ERROR SUMMARY: 0 errors\n",
        );
        assert_eq!(
            p.trials["a/b/1"].caveats,
            ["the tool reported before the first trial of its process began, so the report cannot be told apart from \
              this trial's: \"Program hit CUDA_ERROR_INVALID_VALUE on cuInit.\""]
        );
        assert!(p.trials["c/d/1"].fully_checked(), "another process: {:?}", p.trials["c/d/1"]);
    }

    /// Field report 46 (turn 3): a memcheck report after the first trial's end marker, before the
    /// second's begin marker.
    const LATE: &str = include_str!(
        "../tests/fixtures/field-reports/turn3/46-sanitizer-report-after-end-marker/s7-report-after-end.log"
    );
    /// Field report 47 (turn 3): initcheck's print limit spent on the first trial; the second
    /// follows; the summary says 256 errors were not printed.
    const LIMIT: &str = include_str!(
        "../tests/fixtures/field-reports/turn3/47-sanitizer-print-limit-exhausted/s8-print-limit-initcheck.log"
    );

    #[test]
    fn a_report_after_an_end_marker_is_the_trial_that_ended_last() {
        let p = parse(LATE);
        let first = &p.trials["coalescing/copy_misaligned/67108864"];
        assert_eq!((first.reports.len(), first.late), (1, 1));
        assert_eq!(first.reports[0].header, "Invalid __global__ read of size 4 bytes");
        assert!(p.trials["coalescing/copy/67108864"].reports.is_empty());
        assert!(p.outside.is_empty());
        assert!(p.trials.values().all(Trial::fully_checked), "the summary (1 error) adds up: {p:?}");
        // After the last end marker: still the trial that ended last.
        let p = parse(
            "kernelgate-sanitize: begin a/b/1\nkernelgate-sanitize: end a/b/1: ok\n========= Leaked 16 bytes\n=========\n",
        );
        assert_eq!(p.trials["a/b/1"].late, 1);
    }

    #[test]
    fn trials_after_a_spent_print_limit_are_not_fully_checked() {
        let p = parse(LIMIT);
        let a = &p.trials["reduction/two_pass/16777216"];
        assert_eq!(a.reports.len(), 100);
        assert!(a.limit.is_none(), "its reports were printed: {:?}", a.limit);
        assert!(a.caveats[0].starts_with("the tool's print limit was spent in this trial"), "{:?}", a.caveats);
        let b = &p.trials["histogram/privatized/268435456_uniform"];
        assert!(b.reports.is_empty());
        assert_eq!(
            b.limit.as_deref(),
            Some(
                "the tool's print limit was spent before this trial began: it says \"ERROR SUMMARY: 256 errors were not \
                 printed. Use --print-limit option to adjust the number of printed errors\" (and \"ERROR SUMMARY: 356 \
                 errors\")"
            )
        );
        assert!(!b.fully_checked());
    }

    #[test]
    fn the_tools_other_lines_and_a_short_summary_are_caveats() {
        // A one-line message of the tool's inside a trial (no details, no closing prefix), one outside
        // every trial, and a summary that counts more errors than were read.
        let p = parse(
            "========= COMPUTE-SANITIZER\nkernelgate-sanitize: begin a/b/1\n========= Warning: checking was skipped for \
             this launch\nkernelgate-sanitize: end a/b/1: ok\nkernelgate-sanitize: begin c/d/1\n\
             kernelgate-sanitize: end c/d/1: ok\n========= Internal Sanitizer Error: the tool stopped\n\
             ========= ERROR SUMMARY: 3 errors\n",
        );
        let a = &p.trials["a/b/1"].caveats;
        assert_eq!(a[0], "the tool says \"Warning: checking was skipped for this launch\"");
        assert!(a.contains(&"the tool says \"Internal Sanitizer Error: the tool stopped\"".to_string()), "{a:?}");
        let c = &p.trials["c/d/1"].caveats;
        assert!(
            c.iter().any(|w| w
                == "the tool says \"ERROR SUMMARY: 3 errors\" for its process, but 0 were read from its output, so some \
                    were not attributed to a trial"),
            "{c:?}"
        );
        assert!(!c.iter().any(|w| w.contains("Warning: checking")), "a trial's own line stays its own: {c:?}");
    }
}
