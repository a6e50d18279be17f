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
