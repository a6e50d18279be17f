//! Field reports 07, 08 and 09 (tests/fixtures/field-reports/, from ../shared/fixtures): each kind
//! of fault, as a user meets it through `kernelgate`.

mod support;
use std::path::{Path, PathBuf};
use support::copy;

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/field-reports").join(path)
}

/// Runs `kernelgate args` in `dir`; returns the exit code and stdout + stderr.
fn kernelgate(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> (i32, String) {
    let mut cmd = support::command(support::kernelgate_binary());
    cmd.current_dir(dir).args(args).env_remove("KERNELGATE_MIN_EFFECT").env_remove("KERNELGATE_ALPHA");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn report_07_another_model_is_refused_another_clock_is_named_and_cycles_compare_it_out() {
    let dir = fixture("07-other-gpu-or-clock");
    let (code, text) = kernelgate(&dir, &["compare", "base_h200", "run_a100"], &[]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("NVIDIA A100-SXM4-80GB (compute capability 8.0)") && text.contains("not comparable"),
        "{text}"
    );
    let (code, text) = kernelgate(&dir, &["compare", "base_h200", "run_h200_base_clock"], &[]);
    assert_eq!(code, 3, "{text}");
    assert!(text.contains("warning: another SM clock: base 1980 MHz vs run 1590 MHz (-19.7%)"), "{text}");
    assert!(text.contains("--cycles compares cycles") && text.contains("note: the verdicts above"), "{text}");
    let (code, text) = kernelgate(&dir, &["compare", "--cycles", "base_h200", "run_h200_base_clock"], &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("2 trials compared (scale 1, in SM cycles): 2 unchanged"), "{text}");
}

#[test]
fn compare_prints_one_json_document_for_scripts_with_the_same_verdicts_and_exit_code() {
    let dir = fixture("07-other-gpu-or-clock");
    let out = support::command(support::kernelgate_binary())
        .current_dir(&dir)
        .args(["compare", "--format", "json", "base_h200", "run_h200_base_clock"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "a regression exits 3 in JSON too");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is one JSON document");
    assert_eq!((doc["schema"].as_str(), doc["schema_version"].as_u64()), (Some("kernelgate-compare"), Some(1)));
    assert_eq!(doc["unit"], "s");
    let warnings = doc["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w.as_str().unwrap().starts_with("another SM clock: base 1980 MHz vs run 1590")),
        "{doc}"
    );
    let trials = doc["trials"].as_array().unwrap();
    assert_eq!(trials.len(), 2);
    let regressed = trials.iter().filter(|t| t["verdict"] == "regressed").count();
    assert!(regressed >= 1 && doc["verdicts"]["regressed"].as_u64() == Some(regressed as u64), "{doc}");
    for t in trials {
        let (base, run, delta) =
            (t["base_median"].as_f64().unwrap(), t["run_median"].as_f64().unwrap(), t["delta_pct"].as_f64().unwrap());
        assert!(base > 0.0 && run > 0.0 && t["decided_by"] == "time", "{t}");
        assert!((100.0 * (run / base - 1.0) - delta).abs() < 1.0, "delta is the medians' change in percent: {t}");
    }
}

#[test]
fn report_08_a_contended_run_is_invalid_and_calibration_skips_it() {
    let tmp = tempfile::tempdir().unwrap();
    copy(&fixture("08-contended-run-records"), tmp.path());
    let records: Vec<String> = std::fs::read_dir(tmp.path().join("runs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with("-baseline"))
        .map(|n| format!("runs/{n}"))
        .collect();
    assert_eq!(records.len(), 10);
    let mut args = vec!["baseline", "calibrate"];
    args.extend(records.iter().map(String::as_str));
    let baselines = tmp.path().join("baselines");
    let (code, text) = kernelgate(tmp.path(), &args, &[("KERNELGATE_BASELINES", &baselines)]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("skipped transpose/shared_padded/8192x8192 of runs/20261201T004000Z-abcdef0-baseline: invalid: other processes computed on the GPU (pids 4242 4243"), "{text}");
    // Without the contended run the median moves 0.04 %, not the 2.4 % the file held.
    assert!(text.contains("median moves 0.043% between 10 runs (was 2.375% over 11 runs)"), "{text}");
    let (code, text) = kernelgate(
        tmp.path(),
        &["compare", "baselines/nvidia-h200-sm90", "runs/20261201T004000Z-abcdef0-baseline"],
        &[],
    );
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("invalid (other processes computed on the GPU (pids 4242 4243"), "{text}");
}

#[test]
fn report_09_a_zero_sample_invalidates_its_trial_and_the_others_are_judged() {
    let dir = fixture("09-zero-duration-sample");
    let (code, text) = kernelgate(&dir, &["compare", "base", "run"], &[]);
    assert_eq!(code, 3, "{text}");
    assert!(
        text.contains("reduce/block_sum/1024")
            && text.contains("invalid (10 of 200 of this run's samples read 0 s, below the timer's resolution"),
        "{text}"
    );
    assert!(text.contains("+9.97%") && text.contains("regressed (time)"), "{text}");
    assert!(text.contains("1 invalid, 1 regressed"), "{text}");
}
