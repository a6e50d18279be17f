//! Reading compute-sanitizer's output: which `=========` report belongs to which trial. Pure; no
//! I/O.
//!
//! The sanitized child prints [`BEGIN`] and [`END`] marker lines around each trial's checked run
//! (`crate::sanitize::child`), and compute-sanitizer writes its reports into the same stream. A
//! report is a header line `========= <text>` followed by indented detail lines
//! `=========     <text>` and ended by a bare `=========` (Compute Sanitizer user manual,
//! "Understanding Memcheck Errors" and "Racecheck Report Modes"); it belongs to the trial whose
//! begin marker came last before it. The tool's banner and summary lines are not reports.

use std::collections::BTreeMap;

/// The prefix of every line compute-sanitizer writes into the application's output.
pub const PREFIX: &str = "=========";
/// Marker the child prints before a trial's checked run: `kernelgate-sanitize: begin <trial>`.
pub const BEGIN: &str = "kernelgate-sanitize: begin ";
/// Marker the child prints after it: `kernelgate-sanitize: end <trial>: <outcome>`.
pub const END: &str = "kernelgate-sanitize: end ";

/// Lines of the tool's own that are not reports (their text after the prefix starts so).
const NOT_REPORTS: [&str; 7] = [
    "COMPUTE-SANITIZER",
    "ERROR SUMMARY",
    "RACECHECK SUMMARY",
    "LEAK SUMMARY",
    "Target application returned",
    "Tool is running",
    "Internal Sanitizer",
];

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
    /// The child's outcome after [`END`] (`ok`, `check failed: ...`, `error: ...`); `None` when
    /// the output stops inside the trial (the process died or was killed there).
    pub ended: Option<String>,
}

/// A whole output, split by trial.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    /// Trials in the order their begin markers came.
    pub order: Vec<String>,
    /// Each trial begun, by name.
    pub trials: BTreeMap<String, Trial>,
    /// Reports before any begin marker or after the last end marker (leaks at exit, API errors
    /// outside a trial).
    pub outside: Vec<Report>,
}

/// Splits `text` (the sanitizer process's stdout and stderr, interleaved as written) by trial.
pub fn parse(text: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let mut current: Option<String> = None;
    let mut open: Option<Report> = None;
    let close = |parsed: &mut Parsed, current: &Option<String>, open: &mut Option<Report>| {
        if let Some(report) = open.take() {
            match current.as_ref().and_then(|c| parsed.trials.get_mut(c)) {
                Some(trial) => trial.reports.push(report),
                None => parsed.outside.push(report),
            }
        }
    };
    for line in text.lines() {
        let line = line.trim_end();
        if let Some(name) = line.strip_prefix(BEGIN) {
            close(&mut parsed, &current, &mut open);
            let name = name.trim().to_string();
            parsed.order.push(name.clone());
            parsed.trials.insert(name.clone(), Trial::default());
            current = Some(name);
        } else if let Some(rest) = line.strip_prefix(END) {
            close(&mut parsed, &current, &mut open);
            let (name, outcome) = rest.split_once(": ").unwrap_or((rest, ""));
            if let Some(trial) = parsed.trials.get_mut(name.trim()) {
                trial.ended = Some(outcome.trim().to_string());
            }
            current = None;
        } else if let Some(body) = line.strip_prefix(PREFIX) {
            if body.trim().is_empty() {
                close(&mut parsed, &current, &mut open);
            } else if body.starts_with("  ") {
                // A detail line (the header's text follows one space; details are indented more).
                if let Some(report) = open.as_mut() {
                    report.details.push(body.trim().to_string());
                }
            } else {
                close(&mut parsed, &current, &mut open);
                let header = body.trim();
                if !NOT_REPORTS.iter().any(|n| header.starts_with(n)) {
                    open = Some(Report { header: header.to_string(), details: Vec::new() });
                }
            }
        }
    }
    close(&mut parsed, &current, &mut open);
    parsed
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
    }

    /// compute-sanitizer 2025 (CUDA 13.0) on the H200 (GPU-2091dd7f-482d-5f51-c911-c8fc95a0a971),
    /// `KERNELGATE_SANITIZE=memcheck KERNELGATE_PLANTED=1 KERNELGATE_KERNEL_TIMEOUT=10
    /// kernels planted/`: three processes (the hang was killed; each fault ended its child).
    const MEMCHECK: &str = include_str!("../../tests/fixtures/sanitize/memcheck-planted-h200.log");
    /// The same run's racecheck over the three trials that do not fault or hang.
    const RACECHECK: &str = include_str!("../../tests/fixtures/sanitize/racecheck-planted-h200.log");
    /// initcheck over them: it tracks global memory only, so the uninitialised shared read passes.
    const INITCHECK: &str = include_str!("../../tests/fixtures/sanitize/initcheck-planted-h200.log");

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
    }

    #[test]
    fn a_report_outside_every_trial_is_kept_apart() {
        let p = parse("========= Leaked 16 bytes at 0x7f00\n=========     Saved host backtrace\n=========\n");
        assert_eq!(p.outside.len(), 1);
        assert_eq!(p.outside[0].render(0), "Leaked 16 bytes at 0x7f00\n    ... 1 more lines in the log");
        assert!(p.trials.is_empty());
    }
}
