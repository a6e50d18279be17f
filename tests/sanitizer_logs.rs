//! The compute-sanitizer mode's verdicts from the tool's output, through `kernelgate::sanitize::run`
//! (what the suite calls before its trials; no command reaches it without a GPU), with a stand-in
//! for compute-sanitizer (`KERNELGATE_SANITIZER_PATH`) that prints the logs of the turn-3 field
//! reports 46 and 47 (harness/tests/fixtures/field-reports/turn3/, which the library's unit tests
//! read too): every report fails a trial, and a trial checked after the tool's print limit was
//! spent is checked again, never passed unchecked.

use kernelgate::Config;
use kernelgate::sanitize::{self, Sanitized};
use kernelgate::source::Sources;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("harness/tests/fixtures/field-reports/turn3").join(path)
}

/// A stand-in for compute-sanitizer in `dir`: for each process it prints `first` when the trial
/// list (`KERNELGATE_SANITIZE_TRIALS`) starts with `first_trial`, else `then`.
fn fake_tool(dir: &Path, first_trial: &str, first: &Path, then: &str) -> PathBuf {
    let script = dir.join("compute-sanitizer");
    let text = format!(
        "#!/bin/sh\ncase \"$KERNELGATE_SANITIZE_TRIALS\" in\n  '{first_trial}'*) cat '{}' ;;\n  *) printf '%s' '{then}' ;;\nesac\n",
        first.display()
    );
    std::fs::write(&script, text).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

fn run(tool: &str, script: &Path, selected: &[&str], dir: &Path) -> Sanitized {
    let config = Config {
        sanitize: Some(tool.into()),
        sanitizer_path: Some(script.to_path_buf()),
        kernel_timeout_s: Some(60.0),
        ..Config::default()
    };
    // No kernels read: the stand-in ignores the hash its child would check.
    let sources = Sources::default();
    sanitize::run(
        &config,
        &sources,
        selected,
        Path::new("/bin/true"),
        dir.join("run.sanitize.log"),
        &kernelgate::report::events::Terminal::default(),
    )
    .unwrap()
}

#[test]
fn report_46_a_report_after_its_trials_end_marker_fails_that_trial() {
    let tmp = tempfile::tempdir().unwrap();
    let log = fixture("46-sanitizer-report-after-end-marker/s7-report-after-end.log");
    let script = fake_tool(tmp.path(), "coalescing/copy_misaligned/67108864", &log, "");
    let s = run("memcheck", &script, &["coalescing/copy_misaligned/67108864", "coalescing/copy/67108864"], tmp.path());
    let m = &s.failures["coalescing/copy_misaligned/67108864"];
    assert!(m.contains("compute-sanitizer --tool memcheck: 1 report") && m.contains("Invalid __global__ read"), "{m}");
    assert!(m.contains("came after the trial's end marker"), "{m}");
    assert_eq!((s.failures.len(), s.clean), (1, 1), "{s:?}");
}

#[test]
fn report_47_trials_after_a_spent_print_limit_are_checked_again_or_fail() {
    let tmp = tempfile::tempdir().unwrap();
    let log = fixture("47-sanitizer-print-limit-exhausted/s8-print-limit-initcheck.log");
    let (a, b) = ("reduction/two_pass/16777216", "histogram/privatized/268435456_uniform");
    // The second process checks B alone, and the tool finds nothing: B is clean.
    let alone = format!(
        "========= COMPUTE-SANITIZER\nkernelgate-sanitize: begin {b}\nkernelgate-sanitize: end {b}: ok\n========= ERROR SUMMARY: 0 errors\n"
    );
    let script = fake_tool(tmp.path(), a, &log, &alone);
    let s = run("initcheck", &script, &[a, b], tmp.path());
    assert!(s.failures[a].contains("100 reports"), "{}", s.failures[a]);
    assert!(!s.failures.contains_key(b), "checked again, clean: {s:?}");
    assert_eq!(s.clean, 1);
    let text = std::fs::read_to_string(tmp.path().join("run.sanitize.log")).unwrap();
    assert_eq!(text.matches("COMPUTE-SANITIZER").count(), 2, "two processes in the log");

    // Short of the limit again in its own process (another trial spent it first there): it fails
    // as not fully checked, in the tool's words, after one recheck.
    let spent = format!(
        "========= COMPUTE-SANITIZER\nkernelgate-sanitize: begin {b}\nkernelgate-sanitize: end {b}: ok\n\
         ========= ERROR SUMMARY: 256 errors\n========= ERROR SUMMARY: 256 errors were not printed. Use --print-limit \
         option to adjust the number of printed errors\n"
    );
    let tmp = tempfile::tempdir().unwrap();
    let script = fake_tool(tmp.path(), a, &log, &spent);
    let s = run("initcheck", &script, &[a, b], tmp.path());
    let m = &s.failures[b];
    assert!(m.starts_with(&format!("{b}: compute-sanitizer --tool initcheck: not fully checked, log ")), "{m}");
    assert!(m.contains("not fully checked: the tool's print limit was spent before this trial began: it says \"ERROR SUMMARY: 256 errors were not printed."), "{m}");
    assert_eq!(s.clean, 0);
}

/// A trial that hangs is ended after `KERNELGATE_KERNEL_TIMEOUT` with its whole process group (the
/// tool and what it started), by the shell's own `kill`: on a machine without procps' /bin/kill
/// (Debian's minbase) the run does not wait for the hung trial. The stand-in starts a `sleep` of
/// its own (the child a real tool would have), prints the trial's begin marker and waits.
#[test]
fn a_hung_trial_is_ended_with_its_process_group() {
    let tmp = tempfile::tempdir().unwrap();
    let pid_file = tmp.path().join("sleep.pid");
    let script = tmp.path().join("compute-sanitizer");
    let text = format!(
        "#!/bin/sh\nsleep 30 &\necho $! > '{}'\nprintf '%s\\n' 'kernelgate-sanitize: begin planted/hang/4096'\nwait\n",
        pid_file.display()
    );
    std::fs::write(&script, text).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = Config {
        sanitize: Some("memcheck".into()),
        sanitizer_path: Some(script),
        kernel_timeout_s: Some(1.0),
        ..Config::default()
    };
    let start = Instant::now();
    let log = tmp.path().join("run.sanitize.log");
    let s = sanitize::run(
        &config,
        &Sources::default(),
        &["planted/hang/4096"],
        Path::new("/bin/true"),
        log,
        &kernelgate::report::events::Terminal::default(),
    )
    .unwrap();
    assert!(start.elapsed() < Duration::from_secs(20), "the hung trial was waited for: {:?}", start.elapsed());
    let m = &s.failures["planted/hang/4096"];
    assert!(m.contains("killed after 1 s"), "{m}");
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    // Gone, or a zombie until init reaps it, within a few seconds (a process killed runs on until
    // it is scheduled to exit): never still sleeping.
    let stat = || std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).unwrap_or_default();
    let ended = |stat: &str| matches!(stat.rsplit_once(") ").map(|(_, rest)| &rest[..1]), None | Some("Z" | "X"));
    let deadline = Instant::now() + Duration::from_secs(5);
    while !ended(&stat()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(ended(&stat()), "the tool's child (pid {}) still runs: {}", pid.trim(), stat());
}
