//! A trial that did not run never passes, whatever runs it: under cargo-nextest (which runs an
//! ignored test in a process of its own only with `--run-ignored`, and counts exit 0 as passed) a
//! GPU trial run on a machine without a GPU fails with the reason; under libtest it stays ignored.

mod support;

/// One GPU trial run explicitly (`--include-ignored --exact`), with or without nextest's marker.
fn run_one(nextest: bool) -> (i32, String) {
    let out = tempfile::tempdir().unwrap();
    let mut cmd = support::command(support::kernels_binary());
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["coalescing/copy/67108864", "--exact", "--include-ignored"])
        .env("KERNELGATE_HISTORY", "off")
        .env("KERNELGATE_OUT_DIR", out.path())
        .env_remove("KERNELGATE_JUNIT")
        .env_remove("KERNELGATE_REQUIRE_GPU")
        .env_remove("NEXTEST");
    if nextest {
        cmd.env("NEXTEST", "1");
    }
    let o = cmd.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)),
    )
}

#[test]
fn a_gpu_trial_without_a_gpu_fails_under_nextest_and_is_ignored_under_libtest() {
    let (code, text) = run_one(false);
    if !text.contains("GPU trials are ignored") {
        eprintln!("skipped: this machine has a GPU, so the trial runs ({code})");
        return;
    }
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("coalescing/copy/67108864 ... ignored"), "{text}");
    let (code, text) = run_one(true);
    assert_eq!(code, 101, "{text}");
    assert!(text.contains("not run: ") && text.contains("under cargo-nextest"), "{text}");
}

/// Under nextest every trial runs in a process of its own, each with the same `KERNELGATE_JUNIT`:
/// each process writes a file of its own beside it, named by its trial, and none writes the named
/// file, which would keep only the last process's testcase.
#[test]
fn under_nextest_each_process_writes_its_own_junit_file() {
    let tmp = tempfile::tempdir().unwrap();
    let xml = tmp.path().join("junit.xml");
    let trials = ["compile/transpose.cu/sm_80", "compile/reduction.cu/sm_90"];
    let children: Vec<_> = trials
        .iter()
        .map(|name| {
            support::command(support::kernels_binary())
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .args(["--exact", name])
                .env("KERNELGATE_HISTORY", "off")
                .env("KERNELGATE_OUT_DIR", tmp.path().join("out"))
                .env("KERNELGATE_JUNIT", &xml)
                .env("NEXTEST", "1")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (name, child) in trials.iter().zip(children) {
        let o = child.wait_with_output().unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        let own = tmp.path().join(format!("junit.{}.xml", name.replace('/', "+")));
        let report = std::fs::read_to_string(&own).unwrap_or_else(|e| panic!("{}: {e}\n{text}", own.display()));
        assert!(text.contains(&format!("kernelgate: wrote {} (JUnit, 1 testcases)", own.display())), "{text}");
        let (class, rest) = name.split_once('/').unwrap();
        assert!(report.contains(&format!("<testcase classname=\"{class}\" name=\"{rest}\"")), "{report}");
        assert_eq!(report.matches("<testcase ").count(), 1, "{report}");
    }
    assert!(!xml.exists(), "the shared path is not written under nextest");
}

/// The lesson trials (`family/<good>_vs_<bad>/size`, `_vs_` selects them) are GPU trials like the
/// cases: listed, ignored at discovery without a GPU under libtest (and in the JUnit report, skipped
/// with the reason), failed with the reason when nextest runs one.
#[test]
fn the_lesson_trials_are_listed_and_never_pass_without_a_gpu() {
    let out = tempfile::tempdir().unwrap();
    let (code, list) = support::kernels(&["_vs_", "--list"], &[], out.path());
    assert_eq!(code, 0, "{list}");
    let listed: Vec<&str> = list.lines().filter_map(|l| l.strip_suffix(": test")).collect();
    assert_eq!(
        listed,
        [
            "launch/graph_vs_one_by_one/4096x8",
            "transfers/d2h_pinned_vs_pageable/16777216",
            "transfers/h2d_pinned_vs_pageable/16777216",
            "transfers/pipeline_4_streams_vs_1_stream/16777216",
        ],
        "{list}"
    );
    let xml = out.path().join("junit.xml");
    let (code, text) = support::kernels(&["_vs_"], &[("KERNELGATE_JUNIT", &xml)], out.path());
    if !text.contains("GPU trials are ignored") {
        eprintln!("skipped: this machine has a GPU, so the lesson trials run ({code})");
        return;
    }
    assert_eq!(code, 0, "{text}");
    for name in &listed {
        let ignored = text.lines().any(|l| {
            l.strip_prefix("test ").and_then(|l| l.strip_prefix(name)).is_some_and(|l| l.trim_start() == "... ignored")
        });
        assert!(ignored, "{name}: {text}");
    }
    let report = std::fs::read_to_string(&xml).unwrap();
    assert_eq!(report.matches("<skipped message=").count(), 4, "{report}");
    assert!(report.contains("<testcase classname=\"launch\" name=\"graph_vs_one_by_one/4096x8\""), "{report}");
    let nextest = [("NEXTEST", std::path::Path::new("1"))];
    let args = ["launch/graph_vs_one_by_one/4096x8", "--exact", "--include-ignored"];
    let (code, text) = support::kernels(&args, &nextest, out.path());
    assert_eq!(code, 101, "{text}");
    assert!(text.contains("not run: ") && text.contains("under cargo-nextest"), "{text}");
}

/// The compile trials come after every GPU trial, so that the NVRTC and nvdisasm work they take
/// from the workers (made on the other cores while the GPU trials run) is done when they start;
/// each group is sorted by name.
#[test]
fn the_compile_trials_are_listed_after_the_gpu_trials() {
    let out = tempfile::tempdir().unwrap();
    let (code, list) = support::kernels(&["--list"], &[], out.path());
    assert_eq!(code, 0, "{list}");
    let listed: Vec<&str> = list.lines().filter_map(|l| l.strip_suffix(": test")).collect();
    let first_compile = listed.iter().position(|t| t.starts_with("compile/")).expect("compile trials are listed");
    assert!(first_compile > 0, "GPU trials come first: {list}");
    assert!(listed[first_compile..].iter().all(|t| t.starts_with("compile/")), "{list}");
    for group in [&listed[..first_compile], &listed[first_compile..]] {
        assert!(group.is_sorted(), "each group sorted by name: {group:?}");
    }
}
