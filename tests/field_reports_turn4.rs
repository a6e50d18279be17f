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
    (
        o.status.code().unwrap_or(-1),
        format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)),
    )
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

/// R23: `scripts/nightly -- <filter>`, the documented form without OUT_DIR, hands the filter to
/// the suite and writes into the default folder (not a folder named `--`); `OUT -- <filter>` uses
/// OUT; an option in OUT_DIR's place is refused with the form.
#[test]
fn the_nightly_takes_its_documented_forms_and_refuses_an_option_for_a_folder() {
    use std::os::unix::fs::PermissionsExt as _;
    let tmp = tempfile::tempdir().unwrap();
    let bin = tmp.path().join(".gpu/bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(support::kernelgate_binary(), bin.join("kernelgate")).unwrap();
    // A stand-in suite that says what it was given and records no run.
    std::fs::write(
        bin.join("kernels"),
        "#!/usr/bin/env bash\nprintf '%s\\n' \"$@\" > suite-args.txt\necho \"$KERNELGATE_JUNIT\" > suite-junit.txt\n\
         exit $(cat suite-exit.txt 2>/dev/null || echo 0)\n",
    )
    .unwrap();
    std::fs::set_permissions(bin.join("kernels"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let nightly_with = |args: &[&str], env: &[(&str, &str)]| -> (i32, String) {
        let mut cmd = support::command("bash");
        cmd.envs(env.iter().copied());
        cmd.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/nightly")).args(args).current_dir(tmp.path());
        // Not a repository: the script works from the current folder.
        cmd.env("GIT_CEILING_DIRECTORIES", tmp.path().parent().unwrap());
        let o = cmd.output().unwrap();
        (
            o.status.code().unwrap_or(-1),
            format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)),
        )
    };
    let nightly = |args: &[&str]| nightly_with(args, &[]);
    let read = |name: &str| std::fs::read_to_string(tmp.path().join(name)).unwrap();

    let (code, text) = nightly(&["--", "coalescing/", "--exact"]);
    assert_eq!(code, 1, "no run CSV from the stand-in: {text}");
    assert_eq!(read("suite-args.txt"), "coalescing/\n--exact\n", "{text}");
    assert!(read("suite-junit.txt").starts_with("target/kernelgate/nightly/"), "{text}");
    assert!(!tmp.path().join("--").exists(), "no folder named --: {text}");
    assert!(text.contains("the suite did not name one run CSV in target/kernelgate/nightly/"), "{text}");

    let (code, text) = nightly(&["out", "--", "transpose/"]);
    assert_eq!(code, 1, "{text}");
    assert_eq!(read("suite-args.txt"), "transpose/\n");
    assert_eq!(read("suite-junit.txt"), "out/junit.xml\n");

    // A run file of the user's own keeps its lines; only a line the suite adds is read.
    std::fs::write(tmp.path().join("mine.txt"), "/runs/earlier.csv\n").unwrap();
    let (code, text) = nightly_with(&["out"], &[("KERNELGATE_RUN_FILE", "mine.txt")]);
    assert!(code == 1 && text.contains("(0 new lines; exit 0)"), "{text}");
    assert_eq!(read("mine.txt"), "/runs/earlier.csv\n");

    // Two nightlies without OUT_DIR, one after the other (maybe in one second): a folder each.
    let (_, first) = nightly(&[]);
    let (_, second) = nightly(&[]);
    let folder =
        |text: &str| text.split("run CSV in ").nth(1).and_then(|t| t.split("/run-csv.txt").next()).map(String::from);
    assert!(folder(&first).is_some() && folder(&first) != folder(&second), "{first}\n{second}");
    assert!(!first.contains("No such file or directory"), "no stray message on a first run: {first}");
    // The suite refusing an option (exit 2) is the nightly's exit 2.
    std::fs::write(tmp.path().join("suite-exit.txt"), "2").unwrap();
    let (code, text) = nightly(&["out"]);
    assert!(code == 2 && text.contains("the suite refused an option"), "{text}");
    std::fs::remove_file(tmp.path().join("suite-exit.txt")).unwrap();
    // An OUT_DIR that is a file: refused.
    std::fs::write(tmp.path().join("afile"), "x").unwrap();
    let (code, text) = nightly(&["afile"]);
    assert!(code == 2 && text.contains("OUT_DIR afile cannot be made"), "{text}");

    std::fs::remove_file(tmp.path().join("suite-args.txt")).unwrap();
    let (code, text) = nightly(&["--exact"]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("'--exact' is not a folder: the form is scripts/nightly [OUT_DIR] [-- libtest args]"),
        "{text}"
    );
    assert!(!tmp.path().join("suite-args.txt").exists(), "the suite did not run");
}

/// R10 and the non-UTF-8 value: a variable that is set is read or refused by name, whatever its
/// bytes (never taken as unset, so a path variable never falls back to its default folder), and
/// counts are bounded; both the suite and the `kernelgate` program refuse before doing anything.
#[test]
fn a_set_variable_is_read_or_refused_by_name_whatever_its_bytes_and_counts_are_bounded() {
    use std::os::unix::ffi::OsStrExt as _;
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let latin1 = std::ffi::OsStr::from_bytes(b"bl\xe9");
    for (name, value, says) in [
        ("KERNELGATE_WARMUP", std::ffi::OsStr::new("18446744073709551615"), "expected a whole number from 0 to 10000"),
        ("KERNELGATE_BASELINE_SAMPLES", std::ffi::OsStr::new("4294967297"), "expected a whole number from 1 to 100000"),
        ("KERNELGATE_MIN_SAMPLES", std::ffi::OsStr::new("100001"), "expected a whole number from 1 to 100000"),
        ("KERNELGATE_OUT_DIR", latin1, "the value is not valid UTF-8 (byte 0xe9 at offset 2)"),
    ] {
        let (code, text) = suite_selecting_nothing(&[(name, value)], &out);
        assert_eq!(code, 2, "{name}: {text}");
        assert!(text.contains(&format!("environment variable {name}=")) && text.contains(says), "{text}");
    }
    // The program: a baseline folder named in Latin-1 is refused, and the project's is untouched.
    let project = tmp.path().join("project");
    std::fs::create_dir_all(project.join("baselines/sm_90")).unwrap();
    let o = support::command(support::kernelgate_binary())
        .current_dir(&project)
        .args(["baseline", "reseal", "baselines/sm_90"])
        .env("KERNELGATE_BASELINES", latin1)
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(2), "{text}");
    assert!(
        text.contains(
            "environment variable KERNELGATE_BASELINES=\"bl\u{fffd}\" is invalid: the value is not valid UTF-8"
        ),
        "{text}"
    );
    assert_eq!(std::fs::read_dir(project.join("baselines/sm_90")).unwrap().count(), 0, "nothing written");
}

/// `git` in `dir` with a fixed identity; panics with git's words when it fails.
fn git(dir: &Path, args: &[&str]) -> String {
    let o = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"])
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn have_git() -> bool {
    Command::new("git").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// `kernelgate` in `dir` with `args`; exit code and output.
fn kernelgate(dir: &Path, args: &[&str]) -> (i32, String) {
    let o = support::command(support::kernelgate_binary()).current_dir(dir).args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)),
    )
}

/// A repository with `n` commits, each changing `kernels/a.cu`; the last one's subject is `last`.
fn kernel_repo(dir: &Path, n: usize, last: &str) {
    std::fs::create_dir_all(dir.join("kernels")).unwrap();
    git(dir, &["init", "-q"]);
    for i in 1..=n {
        std::fs::write(
            dir.join("kernels/a.cu"),
            format!("// {i}\nextern \"C\" __global__ void a(float* x) {{ x[0] = {i}; }}\n"),
        )
        .unwrap();
        git(dir, &["add", "-A"]);
        let subject = if i == n { last.to_string() } else { format!("change {i}") };
        git(dir, &["commit", "-q", "-m", &subject]);
    }
}

/// R04: text from data (a commit subject anyone can push) reaches the terminal with its control
/// characters escaped: no escape sequence is printed raw.
#[test]
fn commit_subjects_reach_the_terminal_with_control_characters_escaped() {
    if !have_git() {
        println!("skipped: no git program on this machine");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    kernel_repo(tmp.path(), 2, "fix \u{1b}]0;owned\u{7}\u{1b}[2J\u{1b}[31mred\u{9b}1m");
    let (_, text) = kernelgate(tmp.path(), &["bisect", "HEAD~1", "HEAD", "--suite", "/bin/true"]);
    assert!(text.contains(r"fix \u{1b}]0;owned\u{7}\u{1b}[2J\u{1b}[31mred\u{9b}1m"), "{text}");
    assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text:?}");
}

/// R03: bisect in a shallow clone names the cause (the clone's history was cut) and the fix, both
/// when GOOD is missing and when the walk from BAD ends before GOOD.
#[test]
fn bisect_in_a_shallow_clone_says_the_history_was_cut_and_how_to_fetch_it() {
    if !have_git() {
        println!("skipped: no git program on this machine");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let origin = tmp.path().join("origin");
    kernel_repo(&origin, 6, "change 6");
    let good = git(&origin, &["rev-parse", "HEAD~5"]).trim().to_string();
    let url = format!("file://{}", origin.display());
    git(tmp.path(), &["clone", "-q", "--depth", "2", &url, "shallow"]);
    let shallow = tmp.path().join("shallow");
    let (code, text) = kernelgate(&shallow, &["bisect", &good, "HEAD", "--suite", "/bin/true"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("this clone is shallow") && text.contains("git fetch --unshallow"), "{text}");
    git(&shallow, &["fetch", "-q", "--depth", "1", "origin", &good]);
    let (code, text) = kernelgate(&shallow, &["bisect", &good, "HEAD", "--suite", "/bin/true"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("where this shallow clone was cut") && text.contains("git fetch --unshallow"), "{text}");
    assert!(!text.contains("not an ancestor"), "not the wrong cause: {text}");
}

/// R48: text from a flag never reaches git as an option: a remote that begins with `-` is refused
/// before git runs (`--upload-pack=<command>` would run the command).
#[test]
fn a_remote_that_reads_as_an_option_is_refused_before_git_runs() {
    if !have_git() {
        println!("skipped: no git program on this machine");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    kernel_repo(&repo, 1, "one");
    let marker = tmp.path().join("PWNED");
    let fetch = format!("--fetch=--upload-pack=touch {};false", marker.display());
    let (code, text) = kernelgate(&repo, &["history", "--dir", tmp.path().join("h").to_str().unwrap(), "sync", &fetch]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("is not a remote: name one from `git remote -v`"), "{text}");
    assert!(!marker.exists(), "the command in the option did not run");
}

/// R51: a capture printed with `ncu --print-summary per-kernel` (a public repository's, SOURCE.txt)
/// is named as a summary, with the fix, not as "no kernel was profiled".
#[test]
fn an_ncu_summary_capture_is_named_as_a_summary_with_the_fix() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/field-reports/turn4/R51-ncu-print-summary");
    let (code, text) = kernelgate(&dir, &["import-ncu", "summary.csv"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("summary.csv:1: this is ncu's `--print-summary` output"), "{text}");
    assert!(text.contains("without `--print-summary`") && !text.contains("no kernel was profiled"), "{text}");
}

/// R39: a kernel file with a byte that is not UTF-8 is named with its line and column and the fix.
#[test]
fn a_kernel_file_that_is_not_utf8_is_named_with_line_column_and_fix() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("latin1.cu"),
        b"// caf\xe9 (Latin-1)\nextern \"C\" __global__ void a(float* x) { x[0] = 1; }\n",
    )
    .unwrap();
    let (code, text) = kernelgate(tmp.path(), &["compile", "latin1.cu", "--arch", "sm_90"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("latin1.cu:1:7: byte 0xe9 is not UTF-8"), "{text}");
    assert!(text.contains("iconv -f latin1 -t utf-8 latin1.cu"), "{text}");
}

/// A kernel declared twice in a file `kernelgate compile` is given is said once, with both lines,
/// not as NVRTC's error for each architecture.
#[test]
fn a_kernel_declared_twice_is_named_once_with_both_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let kernel = "extern \"C\" __global__ void k(float* x) { x[0] = 1; }\n";
    std::fs::write(tmp.path().join("twice.cu"), format!("{kernel}// between\n{kernel}")).unwrap();
    let (code, text) = kernelgate(tmp.path(), &["compile", "twice.cu"]);
    assert_eq!(code, 1, "{text}");
    assert_eq!(
        text.matches(
            "kernelgate: twice.cu: line 3: kernel `k` is declared twice (first at line 1); remove or rename one"
        )
        .count(),
        1,
        "{text}"
    );
    assert!(!text.contains("NVRTC failed"), "the scan answers before NVRTC: {text}");
}

/// A probe of R48's kind (text read as an option), in NVRTC: a kernel file whose name begins with
/// `-` compiles; its name is not read as an NVRTC option (`-Ifoo.cu`).
#[test]
fn a_kernel_file_named_like_an_option_is_compiled_as_a_file() {
    if !support::nvrtc_found() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("-Ifoo.cu");
    std::fs::write(&file, "extern \"C\" __global__ void a(float* x) { x[0] = 1; }\n").unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (code, text) = kernelgate(root, &["compile", "--arch", "sm_90", "--", file.to_str().unwrap()]);
    assert!(text.contains("-Ifoo/a") && text.contains("every check passed"), "{text}");
    assert!(code == 0 || (code == 1 && text.contains("SASS gate not run")), "{text}");
}

/// A probe of R12's kind: `/dev/stdout` as an output, with stdout a log the shell opened for
/// appending (`>> log`), appends the report to the log; what the log held stays.
#[test]
fn dev_stdout_as_an_output_appends_to_a_redirected_log() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("log.txt");
    std::fs::write(&log, "PRECIOUS earlier lines\n").unwrap();
    let appended = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    let status = support::command(support::kernels_binary())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("zzz-selects-no-trial")
        .env("KERNELGATE_HISTORY", "off")
        .env("KERNELGATE_OUT_DIR", tmp.path().join("out"))
        .env("KERNELGATE_JUNIT", "/dev/stdout")
        .stdout(appended)
        .status()
        .unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(status.success(), "{text}");
    assert!(text.starts_with("PRECIOUS earlier lines\n"), "the log's lines stay: {text}");
    assert!(text.contains("<testsuite") && text.contains("kernelgate: wrote to /dev/stdout"), "{text}");
}
