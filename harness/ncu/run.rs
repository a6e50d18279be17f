//! Running ncu: one ncu process re-runs the test binary over the whole selection, NVTX-filtered to
//! the selected trials' ranges, exporting a `.ncu-rep`; a second `ncu --import` prints its raw page
//! as CSV into a file, which [`super::parse`] reads. Nothing is parsed from the program's stdout.

use super::parse::{self, Report};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Environment variable that tells the test binary it is the profiled child: run the listed trials'
/// checked launch once each, inside their NVTX ranges, and time nothing.
pub const CHILD_ENV: &str = "KERNELGATE_PROFILE_TRIALS";

/// Marker the profiled child prints into ncu's log before each trial:
/// `kernelgate-ncu: begin <trial>`.
pub const BEGIN: &str = "kernelgate-ncu: begin ";

/// How far a profiling session is, from its log so far (pure; tested): the trials the child has
/// begun (of `trials`) with the last one's name, and the kernels ncu has profiled (its
/// `==PROF== Profiling "<kernel>" - <n>: ...` lines, ncu 2025.3.1's wording).
pub fn progress(log: &str, trials: usize) -> String {
    let begun: Vec<&str> = log.lines().filter_map(|l| l.strip_prefix(BEGIN)).collect();
    let kernels = log.lines().filter(|l| l.starts_with("==PROF== Profiling \"")).count();
    let profiled = crate::units::count(kernels, "kernel");
    match begun.last() {
        Some(last) => format!("trial {} of {trials} ({last}), {profiled} profiled", begun.len()),
        None => format!("starting the child, {profiled} profiled"),
    }
}

/// What one profiling session needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// The ncu executable.
    pub ncu: PathBuf,
    /// `--clock-control` value (`none` or `base`).
    pub clock_control: String,
    /// Metric names to collect (ncu names, verbatim).
    pub metrics: Vec<&'static str>,
    /// Trial names to profile; each becomes an `--nvtx-include "<name>/"` filter.
    pub trials: Vec<String>,
    /// Same-run A/B: each trial also gets the filter of its A side, `"<name>_A-side/"`
    /// ([`crate::measure::A_SIDE_SUFFIX`]).
    pub paired: bool,
    /// The `.ncu-rep` to write (must not exist).
    pub report: PathBuf,
}

/// Files one session leaves behind.
#[derive(Debug, Clone, PartialEq)]
pub struct Outputs {
    /// The report, for the Nsight Compute GUI.
    pub report: PathBuf,
    /// ncu's and the child's output while profiling.
    pub log: PathBuf,
    /// The raw page of the report as CSV (`--print-units base`).
    pub csv: PathBuf,
}

impl Session {
    /// Paths of the log and CSV written beside the report.
    pub fn outputs(&self) -> Outputs {
        let stem = self.report.with_extension("");
        let with = |suffix: &str| PathBuf::from(format!("{}{suffix}", stem.display()));
        Outputs { report: self.report.clone(), log: with("-ncu.log"), csv: with("-raw.csv") }
    }

    /// ncu's arguments for profiling `program` (pure; tested).
    pub fn profile_args(&self, program: &Path) -> Vec<String> {
        let mut args = vec!["--nvtx".to_string()];
        for trial in &self.trials {
            args.push("--nvtx-include".into());
            args.push(format!("{trial}/"));
            if self.paired {
                args.push("--nvtx-include".into());
                args.push(format!("{trial}{}/", crate::measure::A_SIDE_SUFFIX));
            }
        }
        args.extend([
            "--clock-control".into(),
            self.clock_control.clone(),
            "--metrics".into(),
            self.metrics.join(","),
            "--export".into(),
            self.report.display().to_string(),
            program.display().to_string(),
        ]);
        args
    }

    /// ncu's arguments for printing the report's raw page as CSV into `csv` (pure; tested).
    pub fn import_args(report: &Path, csv: &Path) -> Vec<String> {
        [
            "--import",
            &report.display().to_string(),
            "--csv",
            "--page",
            "raw",
            "--print-units",
            "base",
            "--log-file",
            &csv.display().to_string(),
        ]
        .map(String::from)
        .to_vec()
    }

    /// Profiles `program` (this test binary) with `child_env` added to its environment, imports the
    /// report, parses it and checks that every requested metric is there for every kernel.
    ///
    /// # Errors
    /// [`Error::Ncu`] when ncu is missing, exits non-zero, prints `==ERROR==` (including
    /// ERR_NVGPUCTRPERM, with the fix), profiles no kernel, or leaves out a requested metric;
    /// [`Error::Io`] for the output files.
    pub fn run(
        &self,
        program: &Path,
        child_env: &[(&str, String)],
        reporter: &dyn crate::report::events::Reporter,
    ) -> Result<(Outputs, Report)> {
        let out = self.outputs();
        if let Some(dir) = out.report.parent() {
            std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
        }
        let log = std::fs::File::create(&out.log).map_err(Error::io(&out.log))?;
        let log_err = log.try_clone().map_err(Error::io(&out.log))?;
        let mut profile = Command::new(&self.ncu);
        profile.args(self.profile_args(program)).stdout(Stdio::from(log)).stderr(Stdio::from(log_err));
        for (k, v) in child_env {
            profile.env(k, v);
        }
        let mut child = profile.spawn().map_err(|e| self.spawn_error(e))?;
        let status = crate::report::events::wait_saying(&mut child, "ncu", reporter, || {
            progress(&std::fs::read_to_string(&out.log).unwrap_or_default(), self.trials.len())
        })
        .map_err(Error::io(&out.log))?;
        let log_text = std::fs::read_to_string(&out.log).map_err(Error::io(&out.log))?;
        // ==ERROR== lines (ERR_NVGPUCTRPERM among them) are reported by the parser with their fix.
        if log_text.contains("==ERROR==") {
            parse::parse_csv(&log_text, &out.log)?;
        }
        if !status.success() {
            return Err(Error::Ncu {
                origin: out.log.clone(),
                line: None,
                message: format!(
                    "ncu exited with {status} while profiling; the end of its log:\n{}",
                    tail(&log_text, 20)
                ),
            });
        }
        let mut import = Command::new(&self.ncu)
            .args(Self::import_args(&out.report, &out.csv))
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| self.spawn_error(e))?;
        let status = crate::report::events::wait_saying(&mut import, "ncu --import", reporter, || {
            format!("printing the report's raw page into {}", out.csv.display())
        })
        .map_err(Error::io(&out.report))?;
        if !status.success() {
            return Err(Error::Ncu {
                origin: out.report.clone(),
                line: None,
                message: format!(
                    "`ncu --import` exited with {status}; open the report in the Nsight Compute GUI to inspect it"
                ),
            });
        }
        let report = parse::parse_file(&out.csv)?;
        parse::require_metrics(&report, &self.metrics, &out.csv)?;
        Ok((out, report))
    }

    fn spawn_error(&self, e: std::io::Error) -> Error {
        let hint = if e.kind() == std::io::ErrorKind::NotFound {
            "is not installed or not on PATH; install Nsight Compute or set KERNELGATE_NCU_PATH to the ncu executable"
        } else {
            "could not be started"
        };
        Error::Ncu { origin: self.ncu.clone(), line: None, message: format!("ncu {hint} ({e})") }
    }
}

/// The version line of `ncu --version` (`Version 2025.3.1.0 (build ...)`), or the error.
pub(crate) fn version(ncu: &Path) -> std::result::Result<String, String> {
    let out = Command::new(ncu).arg("--version").output().map_err(|e| e.to_string())?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find(|l| l.starts_with("Version"))
        .map(|l| l.trim_start_matches("Version").trim().to_string())
        .ok_or_else(|| "`ncu --version` printed no Version line".to_string())
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_counts_the_trials_begun_and_the_kernels_profiled() {
        // ncu's lines as ncu 2025.3.1 wrote them on the H200 (benchmark/b41.txz, the -ncu.log).
        let log = "==PROF== Connected to process 7544 (/work/main/.gpu/bin/kernels)\n\
                   kernelgate-ncu: begin coalescing/copy/67108864\n\
                   ==PROF== Profiling \"copy_coalesced\" - 0: 0%....50%....100% - 7 passes\n\
                   ==PROF== Profiling \"copy_coalesced\" - 1: 0%....50%....100% - 7 passes\n\
                   kernelgate-ncu: begin coalescing/gather_random/16777216\n";
        assert_eq!(progress(log, 80), "trial 2 of 80 (coalescing/gather_random/16777216), 2 kernels profiled");
        assert_eq!(progress(&log[..65], 80), "starting the child, 0 kernels profiled");
    }

    fn session() -> Session {
        Session {
            ncu: PathBuf::from("ncu"),
            clock_control: "none".into(),
            metrics: vec!["gpu__time_duration.sum", "dram__bytes_read.sum"],
            trials: vec!["transpose/shared/8192x8192".into(), "transpose/shared_padded/8192x8192".into()],
            paired: false,
            report: PathBuf::from("/out/runs/20261130T030000Z-0123456.ncu-rep"),
        }
    }

    #[test]
    fn profile_command_filters_each_trial_by_nvtx() {
        let args = session().profile_args(Path::new("/bin/kernels"));
        assert_eq!(
            args.join(" "),
            "--nvtx --nvtx-include transpose/shared/8192x8192/ --nvtx-include transpose/shared_padded/8192x8192/ \
             --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum \
             --export /out/runs/20261130T030000Z-0123456.ncu-rep /bin/kernels"
        );
    }

    #[test]
    fn a_paired_session_filters_each_trial_and_its_a_side() {
        let s = Session { paired: true, trials: vec!["transpose/shared/8192x8192".into()], ..session() };
        let args = s.profile_args(Path::new("/bin/kernels")).join(" ");
        assert!(
            args.starts_with(
                "--nvtx --nvtx-include transpose/shared/8192x8192/ --nvtx-include transpose/shared/8192x8192_A-side/ "
            ),
            "{args}"
        );
    }

    #[test]
    fn import_prints_the_raw_page_in_base_units_into_a_file() {
        let out = session().outputs();
        assert_eq!(out.log, PathBuf::from("/out/runs/20261130T030000Z-0123456-ncu.log"));
        assert_eq!(out.csv, PathBuf::from("/out/runs/20261130T030000Z-0123456-raw.csv"));
        let args = Session::import_args(&out.report, &out.csv).join(" ");
        assert_eq!(
            args,
            "--import /out/runs/20261130T030000Z-0123456.ncu-rep --csv --page raw --print-units base \
             --log-file /out/runs/20261130T030000Z-0123456-raw.csv"
        );
    }

    #[test]
    fn a_missing_ncu_says_how_to_fix_it() {
        let mut s = session();
        s.ncu = PathBuf::from("/nonexistent/ncu");
        let dir = tempfile::tempdir().unwrap();
        s.report = dir.path().join("r.ncu-rep");
        let err = s.run(Path::new("/bin/true"), &[], &crate::report::events::Lines::default()).unwrap_err().to_string();
        assert!(err.contains("KERNELGATE_NCU_PATH"), "{err}");
        assert!(version(Path::new("/nonexistent/ncu")).is_err());
    }
}
