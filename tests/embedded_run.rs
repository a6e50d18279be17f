//! A run embedded in another program (`kernelgate::suite::run`), as a project that hands the run's
//! events to a reporter of its own does: what the reporter receives, without a GPU.

use kernelgate::report::events::{Event, Reporter};
use kernelgate::report::junit::Outcome;
use std::ffi::OsString;
use std::sync::{Arc, Mutex};

/// Keeps what a test checks of each event: its kind, and for an ended trial its name and outcome.
#[derive(Default)]
struct Kept(Mutex<Vec<String>>);

impl Reporter for Kept {
    fn report(&self, event: &Event<'_>) {
        let kept = match event {
            Event::Output { status_to_stderr } => format!("output to stderr: {status_to_stderr}"),
            Event::TrialsStarting { trial_lines } => format!("trials starting: {trial_lines:?}"),
            Event::TrialEnded { trial, outcome, .. } => match outcome {
                Outcome::Passed => format!("ended: {trial}: passed"),
                Outcome::Skipped(_) => format!("ended: {trial}: skipped"),
                Outcome::Failed(m) | Outcome::Error(m) => format!("ended: {trial}: failed: {m}"),
            },
            Event::TrialsEnded => "trials ended".into(),
            Event::Status(text) if text.starts_with("kernelgate: NVRTC") => "status: NVRTC".into(),
            Event::Status(text) if text.starts_with(WHERE_THE_TIME_WENT) => format!("status: {text}"),
            _ => return,
        };
        self.0.lock().unwrap().push(kept);
    }
}

/// The start of the run's line that says where its time went.
const WHERE_THE_TIME_WENT: &str = "kernelgate: where the time went (";

/// Of a "where the time went" line, the trials' wall time and the sum of the phases inside the
/// trials (all but ncu and the checked child, which run before them; "other" is the rest), seconds
/// as printed (to 0.1 s), and how many phases that sum adds.
fn trials_and_phases(line: &str) -> (f64, f64, usize) {
    let rest = line.strip_prefix(WHERE_THE_TIME_WENT).unwrap_or_else(|| panic!("{line}"));
    let (trials, rest) = rest.split_once(" s in trials): ").unwrap_or_else(|| panic!("{line}"));
    let inside = rest.split(';').next().unwrap_or_default();
    let phases: Vec<f64> = inside
        .split(", ")
        .filter_map(|part| part.strip_suffix(" s")?.rsplit_once(' '))
        .filter(|(name, _)| !["other", "ncu", "checked child"].contains(name))
        .map(|(_, seconds)| seconds.parse::<f64>().unwrap_or_else(|e| panic!("{line}: {e}")))
        .collect();
    (trials.parse().unwrap_or_else(|e| panic!("{line}: {e}")), phases.iter().sum(), phases.len())
}

/// One test in this binary: it sets the run's variables before any other thread runs.
#[test]
fn an_embedded_run_hands_its_events_to_the_callers_reporter() {
    let out = tempfile::tempdir().unwrap();
    // SAFETY: the only test of this binary sets them before the run starts its threads.
    unsafe {
        std::env::set_var("KERNELGATE_OUT_DIR", out.path());
        std::env::set_var("KERNELGATE_HISTORY", "off");
    }
    let kept = Arc::new(Kept::default());
    let args = ["kernels", "--exact", "compile/coalescing.cu/sm_90", "--format", "terse"].map(OsString::from);
    let code = kernelgate::suite::run(kernelgate_lessons::table(), args, kept.clone());
    let kept = kept.0.lock().unwrap().clone();
    assert_eq!(
        kept.first().map(String::as_str),
        Some("output to stderr: true"),
        "terse: stdout is libtest's: {kept:?}"
    );
    let ended: Vec<&String> = kept.iter().filter(|k| k.starts_with("ended: ")).collect();
    assert_eq!(ended.len(), 1, "the one trial --exact names: {kept:?}");
    // With NVRTC the compile trial passes against the blessed tables; without it, it is ignored.
    assert!(
        ["ended: compile/coalescing.cu/sm_90: passed", "ended: compile/coalescing.cu/sm_90: skipped"]
            .contains(&ended[0].as_str()),
        "{kept:?}"
    );
    if std::env::var_os("KERNELGATE_REQUIRE_NVRTC").is_some_and(|v| v == "1") {
        assert_eq!(ended[0], "ended: compile/coalescing.cu/sm_90: passed");
        assert!(kept.contains(&"status: NVRTC".to_string()), "the run says which NVRTC it compiles with: {kept:?}");
        assert_eq!(format!("{code:?}"), format!("{:?}", std::process::ExitCode::SUCCESS));
    }
    let order: Vec<&str> = kept
        .iter()
        .map(String::as_str)
        .filter(|k| k.starts_with("trials starting") || k.starts_with("ended: ") || *k == "trials ended")
        .collect();
    assert_eq!(order.len(), 3, "{kept:?}");
    assert!(order[0] == "trials starting: Stderr" && order[2] == "trials ended", "{kept:?}");

    // A trial libtest ignores before it runs (a GPU trial without a GPU) ends too, skipped.
    if kernelgate::gpu::gpu_available().is_err() {
        let kept = Arc::new(Kept::default());
        let args = ["kernels", "--exact", "coalescing/copy/67108864"].map(OsString::from);
        kernelgate::suite::run(kernelgate_lessons::table(), args, kept.clone());
        let kept = kept.0.lock().unwrap().clone();
        let ended: Vec<&String> = kept.iter().filter(|k| k.starts_with("ended: ")).collect();
        assert_eq!(ended, ["ended: coalescing/copy/67108864: skipped"], "{kept:?}");

        // A later run in the same process says where its own time went, not the earlier runs' as
        // well. The first run above spent its compile trial's time; this one runs the compile
        // trials of another file, and the GPU trials it names (ignored without a GPU; here run,
        // and skipped) make it say where the time went. Its phases are inside its trials, so they
        // sum to at most its trials' time, give or take 0.05 s per figure printed (rounding).
        let kept = Arc::new(Kept::default());
        let args = ["kernels", "--include-ignored", "transpose", "--format", "terse"].map(OsString::from);
        kernelgate::suite::run(kernelgate_lessons::table(), args, kept.clone());
        let kept = kept.0.lock().unwrap().clone();
        let said: Vec<&str> = kept
            .iter()
            .filter_map(|k| k.strip_prefix("status: "))
            .filter(|k| k.starts_with(WHERE_THE_TIME_WENT))
            .collect();
        if std::env::var_os("KERNELGATE_REQUIRE_NVRTC").is_some_and(|v| v == "1") {
            assert_eq!(said.len(), 1, "the compile trials' time is said: {kept:?}");
        }
        for line in said {
            let (trials, phases, added) = trials_and_phases(line);
            let rounding = 0.05 * (added + 1) as f64;
            assert!(phases <= trials + rounding, "an earlier run's time is in this run's: {line}");
        }
    }
}
