//! The fourth batch of field reports (`../shared/fixtures/field-reports/turn4/`, inputs copied into
//! `tests/fixtures/field-reports/turn4/` where a test needs one), one test per kind of fault rather
//! than per file: outputs at odd paths, text from data handed to programs or terminals, variables
//! that cannot be read, values checked only late, one bad item stopping or flooding a command,
//! messages with the wrong cause, runs that share a key, the nightly's documented form.

mod support;

use std::os::unix::fs::FileTypeExt as _;
use std::path::Path;
use std::process::Command;

/// The suite binary with `env`, a filter that selects no trial (so no GPU nor NVRTC is needed), in
/// the project root; returns the exit code and the output.
fn suite_selecting_nothing(env: &[(&str, &std::ffi::OsStr)], out: &Path) -> (i32, String) {
    let mut cmd = support::command(support::kernels_binary());
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("zzz-selects-no-trial")
        .env("KERNELGATE_HISTORY", "off")
        .env("KERNELGATE_OUT_DIR", out);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap();
    (o.status.code().unwrap_or(-1), format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)))
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().is_ok_and(|s| s.success());
    assert!(ok, "mkfifo {} (coreutils)", path.display());
}

fn is_root() -> bool {
    std::fs::metadata("/proc/self").map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0).unwrap_or(false)
}

/// R11, R12: an output path that is a device, a FIFO or a link to one is written in place and
/// never replaced; one that would fail later (a folder, a missing folder, the full device) is
/// refused when the run starts, naming the variable.
#[test]
fn outputs_at_devices_fifos_and_links_are_written_in_place_and_bad_ones_refused_at_start() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    // A link to /dev/null: renamed over, the link would become a regular file.
    let link = tmp.path().join("junit.xml");
    std::os::unix::fs::symlink("/dev/null", &link).unwrap();
    let (code, text) = suite_selecting_nothing(&[("KERNELGATE_JUNIT", link.as_os_str())], &out);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains(&format!("kernelgate: wrote to {} (JUnit, 0 testcases)", link.display())), "{text}");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link is still a link");
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    if is_root() {
        // As a CI container runs: a device node of our own, so the real /dev is never at risk.
        let null = tmp.path().join("null");
        let made = Command::new("mknod").arg(&null).args(["c", "1", "3"]).status().is_ok_and(|s| s.success());
        if made {
            let (code, text) = suite_selecting_nothing(&[("KERNELGATE_JUNIT", null.as_os_str())], &out);
            assert_eq!(code, 0, "{text}");
            assert!(std::fs::metadata(&null).unwrap().file_type().is_char_device(), "still a device: {text}");
        } else {
            println!("skipped the mknod case: mknod failed here (a container without CAP_MKNOD)");
        }
    }
    // A FIFO with a reader gets the report.
    let fifo = tmp.path().join("junit.fifo");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let (code, text) = suite_selecting_nothing(&[("KERNELGATE_JUNIT", fifo.as_os_str())], &out);
    assert_eq!(code, 0, "{text}");
    let xml = reader.join().unwrap();
    assert!(xml.starts_with("<?xml") && xml.contains("<testsuite"), "{xml}");
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());

    let folder = tmp.path().join("adir");
    std::fs::create_dir(&folder).unwrap();
    let missing = tmp.path().join("no/such/dir/run.txt");
    let full = Path::new("/dev/full");
    for var in ["KERNELGATE_JUNIT", "KERNELGATE_RUN_FILE"] {
        let mut bad = vec![(folder.as_path(), "it names a folder"), (missing.as_path(), "does not exist; create it")];
        if full.exists() {
            bad.push((full, "every write to it fails with 'No space left on device'"));
        }
        for (path, says) in bad {
            let (code, text) = suite_selecting_nothing(&[(var, path.as_os_str())], &out);
            assert_eq!(code, 2, "{var}={}: {text}", path.display());
            assert!(text.contains(&format!("environment variable {var}=")) && text.contains(says), "{text}");
            assert!(!text.contains("running 0 tests"), "refused before any trial: {text}");
        }
    }
    // A FIFO as the run file is accepted at start (it is written in place when the run ends).
    let (code, text) = suite_selecting_nothing(&[("KERNELGATE_RUN_FILE", fifo.as_os_str())], &out);
    assert_eq!(code, 0, "{text}");
}
