//! Field reports turn3 on the history, its notes and the stores' locks
//! (tests/fixtures/field-reports/turn3/, from ../shared/fixtures/field-reports/turn3/), and the
//! history that travels in git notes (several runners, a fresh clone, the nightly: docs/history.md): each
//! kind of fault as a user meets it through `kernelgate`. Every test checks the message, the exit
//! code and that what a user recorded is unchanged.

mod support;
use std::io::{BufRead as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::copy;

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/field-reports/turn3").join(path)
}

/// The run CSVs committed with the project (6 runs of the H200 baseline's history).
fn committed_runs() -> PathBuf {
    // The six runs of 2026-11-30 these tests were written against, copied once per test process:
    // runs committed beside them later (the blessing run of 2026-12-01) change nothing they read.
    static COPY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    COPY.get_or_init(|| {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("baselines/nvidia-h200-sm90/runs");
        let to = Path::new(env!("CARGO_TARGET_TMPDIR")).join("committed-runs-20261130");
        let _ = std::fs::remove_dir_all(&to);
        std::fs::create_dir_all(&to).unwrap();
        for entry in std::fs::read_dir(&from).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().unwrap().to_string_lossy().starts_with("20261130T") {
                std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
            }
        }
        to
    })
    .clone()
}

/// `kernelgate args` in `dir` with `env` added (and no KERNELGATE_* variable of the caller's);
/// the exit code, stdout and stderr.
fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = support::command(support::kernelgate_binary());
    cmd.current_dir(dir).args(args);
    for (k, _) in std::env::vars() {
        if k.starts_with("KERNELGATE_") {
            cmd.env_remove(k);
        }
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// [`run`] with stdout and stderr together.
fn kernelgate(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let (code, out, err) = run(dir, args, env);
    (code, format!("{out}{err}"))
}

/// Every file under `dir` with its bytes, sorted by path: to check that nothing changed.
fn contents(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    if let Ok(listing) = std::fs::read_dir(dir) {
        for e in listing {
            let p = e.unwrap().path();
            if p.is_dir() {
                out.extend(contents(&p));
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// A history of the committed runs in `dir/hist`; the store file.
fn committed_history(dir: &Path) -> PathBuf {
    let runs = committed_runs();
    let (code, text) = kernelgate(dir, &["history", "--dir", "hist", "import", runs.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{text}");
    dir.join("hist/nvidia-h200-sm90.sqlite")
}

#[test]
fn report_02_an_empty_run_csv_is_skipped_and_named_and_the_folder_imports() {
    let tmp = tempfile::tempdir().unwrap();
    copy(&fixture("02-empty-run-csv"), &tmp.path().join("runs"));
    let (code, out, err) = run(tmp.path(), &["history", "--dir", "hist", "import", "runs"], &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("kernelgate: warning: runs/20261130T163927Z-5f47389.csv: the file is empty (0 bytes)")
            && err.contains("a run that recorded nothing")
            && err.contains("skipped"),
        "{err}"
    );
    assert!(out.contains("imported 1 run, 40 new rows (from 1 file) into hist"), "{out}");
    // Imported again: nothing is added, and the line says why instead of "imported ... 0 new rows".
    let (code, out, _) = run(tmp.path(), &["history", "--dir", "hist", "import", "runs"], &[]);
    assert!(
        code == 0 && out.contains("read 1 run, 0 new rows (from 1 file) into hist: every row was there already"),
        "{out}"
    );
    let (code, text) = kernelgate(tmp.path(), &["history", "--dir", "hist", "runs"], &[]);
    assert!(code == 0 && text.contains("nvidia-h200-sm90: 1 run") && text.contains("20261130T135841Z"), "{text}");
    // A diff of the empty side says what the file is.
    let args = ["diff", "--dir", "hist", "runs/20261130T163927Z-5f47389.csv", "runs/20261130T135841Z-72a91c3.csv"];
    let (code, text) = kernelgate(tmp.path(), &args, &[]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("20261130T163927Z-5f47389.csv: the file is empty (0 bytes)"), "{text}");
}

/// Damage of any kind (a cut copy, a page of random bytes) is refused by every command before it
/// reads or writes, naming the file and the fix; the file is left as it was.
fn refused_everywhere(dir: &Path, store: &Path, what: &str) {
    let before = std::fs::read(store).unwrap();
    let one = committed_runs().join("20261130T135841Z-72a91c3.csv");
    let commands: [&[&str]; 5] = [
        &["history", "--dir", "hist", "runs"],
        &["history", "--dir", "hist", "changes"],
        &["history", "--dir", "hist", "gate"],
        &["diff", "--dir", "hist", "64fef93", "72a91c3"],
        &["history", "--dir", "hist", "import", one.to_str().unwrap()],
    ];
    for args in commands {
        let (code, text) = kernelgate(dir, args, &[]);
        assert_eq!(code, 1, "{what}, {args:?}: {text}");
        assert!(text.contains("hist/nvidia-h200-sm90.sqlite") && text.contains("damaged"), "{what}: {text}");
        assert!(
            text.contains("nothing was written to it")
                && text.contains("kernelgate history import baselines/*/runs")
                && text.contains("sqlite3 hist/nvidia-h200-sm90.sqlite.damaged .recover"),
            "{what}: {text}"
        );
    }
    assert_eq!(std::fs::read(store).unwrap(), before, "{what}: the file is unchanged");
}

#[test]
fn report_03_a_store_cut_short_is_refused_with_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let store = committed_history(tmp.path());
    let len = std::fs::metadata(&store).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&store).unwrap().set_len(len * 2 / 5).unwrap();
    refused_everywhere(tmp.path(), &store, "cut short");
}

#[test]
fn report_04_a_damaged_page_is_found_before_use() {
    let tmp = tempfile::tempdir().unwrap();
    let store = committed_history(tmp.path());
    let pristine = std::fs::read(&store).unwrap();
    let pages = pristine.len() / 4096;
    for page in [pages / 4, pages / 2, pages - 2] {
        let mut bytes = pristine.clone();
        for (i, b) in bytes[page * 4096..(page + 1) * 4096].iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(151).wrapping_add(page as u8) ^ 0xa5;
        }
        std::fs::write(&store, &bytes).unwrap();
        refused_everywhere(tmp.path(), &store, &format!("page {} of {pages}", page + 1));
    }
}

/// A store the user may only read (a folder of mode 0555, a file of 0444) is listed, gated, diffed
/// and shown, and a command that would write to it is told what it needs. As root, who may write
/// anywhere, the program runs as user 65534 (nobody): a copy of it, and every file it reads, in
/// the test's temporary folder, so that nothing depends on where the checkout lies (a CI home is
/// 0700) or who owns it. The user is switched by the standard library's `CommandExt::uid` and
/// `gid` (setgid, setuid, and setgroups(0) for root: no program such as setpriv is needed).
#[test]
fn report_07_a_store_the_user_may_only_read_is_listed_gated_and_diffed() {
    use std::os::unix::fs::PermissionsExt as _;
    use std::os::unix::process::CommandExt as _;
    let tmp = tempfile::tempdir().unwrap();
    let store = committed_history(tmp.path());
    let root = unsafe_uid() == 0;
    if root {
        for dir in tmp.path().ancestors().skip(1) {
            let mode = std::fs::metadata(dir).unwrap().permissions().mode();
            assert!(
                mode & 0o001 != 0,
                "{} (mode {:o}) is closed to other users, so user 65534 cannot reach this test's temporary folder \
                 {}: set TMPDIR to a folder every user may enter (/tmp)",
                dir.display(),
                mode & 0o7777,
                tmp.path().display()
            );
        }
    }
    let perms = |p: &Path, mode: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    perms(tmp.path(), 0o755);
    // What the reader reads, besides the store: the program and a run CSV to import.
    let program = tmp.path().join("kernelgate");
    std::fs::copy(support::kernelgate_binary(), &program).unwrap();
    perms(&program, 0o755);
    let one = tmp.path().join("20261130T135841Z-72a91c3.csv");
    std::fs::copy(committed_runs().join("20261130T135841Z-72a91c3.csv"), &one).unwrap();
    perms(&one, 0o644);
    perms(&tmp.path().join("hist"), 0o555);
    perms(&store, 0o444);
    let before = contents(&tmp.path().join("hist"));
    let as_reader = |args: &[&str]| -> (i32, String) {
        let mut cmd = support::command(&program);
        if root {
            cmd.uid(65534).gid(65534);
        }
        let out = cmd.current_dir(tmp.path()).args(args).output().unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        (out.status.code().unwrap_or(-1), text)
    };
    let (code, text) = as_reader(&["history", "--dir", "hist", "runs"]);
    assert!(code == 0 && text.contains("nvidia-h200-sm90: 6 runs"), "{text}");
    let (code, text) = as_reader(&["history", "--dir", "hist", "gate"]);
    assert!(code == 3 && text.contains("20261130T135841Z GPU-1c2e7f54 72a91c3: REGRESSED"), "{text}");
    let (code, text) = as_reader(&["diff", "--dir", "hist", "20261130T034703Z", "20261130T135841Z"]);
    assert!(code == 0 && text.starts_with("### kernelgate diff:"), "{text}");
    let (code, text) = as_reader(&["history", "--dir", "hist", "show", "transpose/naive/8192x8192"]);
    assert!(code == 0 && text.contains("transpose/naive/8192x8192 median on nvidia-h200-sm90"), "{text}");
    assert_eq!(contents(&tmp.path().join("hist")), before, "a reader writes nothing");
    // A writer is told what it needs: the run CSV it may read, the store it may not write.
    let (code, text) = as_reader(&["history", "--dir", "hist", "import", one.to_str().unwrap()]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("writable") && !text.contains("Permission denied"), "{text}");
    assert_eq!(contents(&tmp.path().join("hist")), before, "a refused import writes nothing");
    perms(&tmp.path().join("hist"), 0o755);
}

/// The effective user id of this process.
fn unsafe_uid() -> u32 {
    // Read from /proc rather than through libc: this test file uses no unsafe code.
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|u| u.parse().ok())
        .unwrap_or(u32::MAX)
}

#[test]
/// Field reports turn3/12 and 22, with turn4/R33's rule: a value no run measures leaves its trial
/// out, with one warning naming file and line, and the rest of the file (and folder) is read.
fn report_12_and_22_values_no_run_measures_leave_their_trial_out_with_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    copy(&fixture("12-non-finite"), &tmp.path().join("nonfinite"));
    let mut cases: Vec<(PathBuf, &str)> = vec![
        ("20261206T000000Z-0606060.csv", "is inf s, not a finite number"),
        ("20261207T000000Z-0707070.csv", "is NaN s, not a finite number"),
        ("20261208T000000Z-0808080.csv", "is -inf s, not a finite number"),
        ("20261209T000000Z-0909090.csv", "is inf s, not a finite number"),
    ]
    .into_iter()
    .map(|(f, says)| (tmp.path().join("nonfinite").join(f), says))
    .collect();
    // Field report 22's medians of 0 s, 1e-300 s and -100 us, one file each.
    let text = std::fs::read_to_string(fixture("22-zero-negative-tiny/20261201T000000Z-3030303.csv")).unwrap();
    let (header, rows) = text.split_once('\n').unwrap();
    std::fs::create_dir_all(tmp.path().join("tiny")).unwrap();
    for (trial, says) in [
        ("fam/zero_then_up/1", "is 0.0 s, and a time's median is at least 1 ns"),
        ("fam/tiny/1", "is 1e-300 s, and a time's median is at least 1 ns"),
        ("fam/neg/1", "is -0.0001 s, and a time's median is at least 1 ns"),
    ] {
        let kept: Vec<&str> = rows.lines().filter(|l| l.contains(trial) || l.contains("fam/constant/1")).collect();
        let path = tmp.path().join("tiny").join(format!("{}.csv", trial.replace('/', "_")));
        std::fs::write(&path, format!("{header}\n{}\n", kept.join("\n"))).unwrap();
        cases.push((path, says));
    }
    let good = tmp.path().join("nonfinite/20261205T000000Z-0505050.csv");
    let (code, text) = kernelgate(tmp.path(), &["history", "--dir", "h", "import", good.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{text}");
    for (path, says) in &cases {
        let p = path.to_str().unwrap();
        let (code, text) = kernelgate(tmp.path(), &["history", "--dir", "h", "import", p], &[]);
        assert_eq!(code, 0, "{text}");
        assert!(text.contains(&format!("{p}:")) && text.contains(says), "{says}: {text}");
        assert!(text.contains("leaves this trial of the run out") && text.contains("reads the rest"), "{text}");
        // And diff never counts it: the trial is not on the new side.
        let (code, text) = kernelgate(tmp.path(), &["diff", "--dir", "h", good.to_str().unwrap(), p], &[]);
        assert!(code == 0 && text.contains(says), "{text}");
    }
    // No stored run holds a trial whose value no run measures.
    for trial in ["fam/nonfinite/1", "fam/zero_then_up/1", "fam/tiny/1", "fam/neg/1"] {
        let (_, text) = kernelgate(tmp.path(), &["history", "--dir", "h", "show", trial], &[]);
        assert!(!text.contains("20261206T000000Z") && !text.contains("20261201T000000Z"), "{trial}: {text}");
    }
    // The folder as a whole: its good trials imported, each bad one named once.
    let (code, text) = kernelgate(tmp.path(), &["history", "--dir", "h2", "import", "nonfinite"], &[]);
    assert!(code == 0 && text.contains("20261206T000000Z-0606060.csv:2:"), "{text}");
    assert_eq!(text.matches("leaves this trial of the run out").count(), 4, "{text}");
}

#[test]
fn report_13_a_row_given_twice_is_refused_naming_the_csv_and_both_lines() {
    let tmp = tempfile::tempdir().unwrap();
    for (file, values) in [("dup-diff.csv", "(0.00020287999510765076) and here (0.000999)"), ("dup-same.csv", "")] {
        let path = fixture("13-duplicate-rows").join(file);
        let p = path.to_str().unwrap();
        let (code, text) = kernelgate(tmp.path(), &["history", "--dir", "h", "import", p], &[]);
        assert_eq!(code, 1, "{text}");
        assert!(
            text.contains(&format!(
                "{p}:42: coalescing/copy/67108864 median (s) of run 20261130T135841Z is given twice, on line 3"
            )),
            "{text}"
        );
        assert!(text.contains(values) && text.contains("nothing was averaged"), "{text}");
        assert!(!text.contains("sqlite") && !text.contains("stored already"), "names the CSV, not the store: {text}");
        let (code, text) = kernelgate(tmp.path(), &["history", "--dir", "h", "runs"], &[]);
        assert!(code == 0 && text.starts_with("no history under h"), "{text}");
    }
    let (a, b) = (fixture("13-duplicate-rows/dup-diff.csv"), fixture("13-duplicate-rows/dup-same.csv"));
    let (code, text) = kernelgate(tmp.path(), &["diff", "--dir", "h", a.to_str().unwrap(), b.to_str().unwrap()], &[]);
    assert!(code == 1 && text.contains("given twice"), "never an average of two rows: {text}");
}

#[test]
fn report_24_every_history_and_diff_command_honours_kernelgate_history() {
    let tmp = tempfile::tempdir().unwrap();
    // A project folder of its own (the default history would be <it>/.kernelgate/history).
    let project = tmp.path().join("proj");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("Cargo.toml"), "[package]\nname = \"p\"\n").unwrap();
    let runs = committed_runs();
    let mine = tmp.path().join("myhist");
    let (code, text) =
        kernelgate(&project, &["history", "--dir", mine.to_str().unwrap(), "import", runs.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{text}");
    let env = [("KERNELGATE_HISTORY", mine.to_str().unwrap())];
    let (code, text) = kernelgate(&project, &["history", "runs"], &env);
    assert!(code == 0 && text.contains("nvidia-h200-sm90: 6 runs"), "{text}");
    let (code, text) = kernelgate(&project, &["history", "gate"], &env);
    assert!(code == 3 && text.contains("REGRESSED"), "{text}");
    let (code, text) = kernelgate(&project, &["diff", "64fef93", "72a91c3"], &env);
    assert!(code == 0 && text.starts_with("### kernelgate diff"), "{text}");
    let (code, text) = kernelgate(&project, &["history", "previous", "--run", "20261130T135841Z"], &env);
    assert!(code == 0 && text.starts_with("64fef93"), "{text}");
    let one = runs.join("20261130T135841Z-72a91c3.csv");
    let (code, text) = kernelgate(&project, &["history", "import", one.to_str().unwrap()], &env);
    assert!(code == 0 && text.contains(&format!("into {}", mine.display())), "{text}");
    assert!(!project.join(".kernelgate").exists(), "nothing written to the default folder");
    // `off` is refused by every command that needs a history, naming the variable.
    let off = [("KERNELGATE_HISTORY", "off")];
    for args in [&["history", "runs"][..], &["history", "gate"], &["diff", "64fef93", "72a91c3"]] {
        let (code, text) = kernelgate(&project, args, &off);
        assert_eq!(code, 2, "{args:?}: {text}");
        assert!(text.contains("KERNELGATE_HISTORY=\"off\" is invalid") && text.contains("--dir"), "{text}");
    }
    assert!(!project.join(".kernelgate").exists(), "and it falls back to no default folder");
    // Two run CSVs need no history.
    let (a, b) = (runs.join("20261130T034547Z-64fef93.csv"), runs.join("20261130T034703Z-64fef93.csv"));
    let (code, text) = kernelgate(&project, &["diff", a.to_str().unwrap(), b.to_str().unwrap()], &off);
    assert!(code == 0 && text.starts_with("### kernelgate diff"), "{text}");
}

#[test]
fn report_25_the_history_names_the_previous_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = fixture("25-previous-commit");
    let (code, text) = kernelgate(tmp.path(), &["history", "--dir", "h", "import", runs.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{text}");
    let (_, listing) = kernelgate(tmp.path(), &["history", "--dir", "h", "runs"], &[]);
    assert!(listing.contains("2222222+ 20261202T000000Z"), "the listing's decoration: {listing}");
    let csv = runs.join("20261203T000000Z-3333333.csv");
    for given in ["20261203T000000Z", csv.to_str().unwrap()] {
        let (code, out, err) = run(tmp.path(), &["history", "--dir", "h", "previous", "--run", given], &[]);
        assert_eq!((code, out.as_str(), err.as_str()), (0, "2222222222222222222222222222222222222222\n", ""));
    }
    let (code, out, _) = run(tmp.path(), &["history", "--dir", "h", "previous", "--run", "20261202T000000Z"], &[]);
    assert_eq!((code, out.as_str()), (0, "1111111111111111111111111111111111111111\n"));
    let (code, out, err) = run(tmp.path(), &["history", "--dir", "h", "previous", "--run", "20261201T000000Z"], &[]);
    assert!(code == 0 && out.is_empty() && err.contains("no commit is stored before 1111111"), "{out}{err}");
    let (code, text) = kernelgate(tmp.path(), &["history", "--dir", "h", "previous", "--run", "20261209T000000Z"], &[]);
    assert!(code == 1 && text.contains("no run \"20261209T000000Z\""), "{text}");
    // A key with runs of this commit only.
    let (code, _) = kernelgate(tmp.path(), &["history", "--dir", "h2", "import", csv.to_str().unwrap()], &[]);
    assert_eq!(code, 0);
    let (code, out, err) =
        run(tmp.path(), &["history", "--dir", "h2", "previous", "--run", csv.to_str().unwrap()], &[]);
    assert!(code == 0 && out.is_empty() && err.contains("nothing to compare it with"), "{out}{err}");
    // The gate takes the run CSV too.
    let (code, text) = kernelgate(tmp.path(), &["history", "--dir", "h", "gate", "--run", csv.to_str().unwrap()], &[]);
    assert!(code == 0 && text.contains("20261203T000000Z GPU-1c2e7f54 3333333: pass"), "{text}");
}

/// Signs `lock` as a holder would, and holds it until the file is dropped.
fn hold(lock: &Path, signature: &str) -> std::fs::File {
    let mut file = std::fs::OpenOptions::new().create(true).truncate(true).write(true).read(true).open(lock).unwrap();
    file.lock().unwrap();
    file.write_all(signature.as_bytes()).unwrap();
    file
}

/// Starts `kernelgate args` and returns it with its first stderr line that contains `waiting`.
fn first_wait(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (std::process::Child, String) {
    let mut cmd = support::command(support::kernelgate_binary());
    cmd.current_dir(dir).args(args).stdout(Stdio::null()).stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains("waiting") {
                let _ = send.send(line);
                return;
            }
        }
    });
    let line = receive.recv_timeout(Duration::from_secs(30)).unwrap_or_default();
    (child, line)
}

#[test]
fn report_26_a_process_waiting_for_a_lock_names_the_holder_and_the_bound() {
    let tmp = tempfile::tempdir().unwrap();
    let key = tmp.path().join("baselines/nvidia-h200-sm90");
    copy(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/store"), &key);
    let before = contents(&key);
    let baselines = tmp.path().join("baselines");
    let env = [("KERNELGATE_BASELINES", baselines.to_str().unwrap())];
    let signature =
        format!("pid {} since 2026-12-01T10:00:00Z: kernelgate baseline calibrate rec/a\n", std::process::id());
    let holder = hold(&key.join(".kernelgate.lock"), &signature);
    let start = Instant::now();
    for (args, says) in [
        (&["baseline", "list"][..], "kernelgate: waiting to read"),
        (&["baseline", "remove", "copy/vec4/1048576"][..], "kernelgate: waiting for the lock on"),
    ] {
        let (mut child, line) = first_wait(tmp.path(), args, &env);
        let _ = child.kill();
        let _ = child.wait();
        assert!(line.starts_with(says) && line.contains("baselines/nvidia-h200-sm90"), "{args:?}: {line:?}");
        assert!(
            line.contains(&format!(
                "held by pid {} since 2026-12-01T10:00:00Z: kernelgate baseline calibrate",
                std::process::id()
            )),
            "{line}"
        );
        assert!(line.contains("giving up after 120 s"), "{line}");
        assert!(!line.contains("committing"), "nothing claims a commit is in progress: {line}");
    }
    assert!(start.elapsed() < Duration::from_secs(60));
    drop(holder);
    let (code, text) = kernelgate(tmp.path(), &["baseline", "list"], &env);
    assert!(code == 0 && text.contains("3 trials"), "{text}");
    let mut after = contents(&key);
    after.retain(|(p, _)| !p.ends_with(".kernelgate.lock"));
    let mut expected = before;
    expected.retain(|(p, _)| !p.ends_with(".kernelgate.lock"));
    assert_eq!(after, expected, "the stopped writers changed nothing");
}

#[test]
fn report_53_a_metrics_csv_alone_joins_its_run_whichever_comes_first() {
    let (a, b) = (fixture("53-metrics-alone/a"), fixture("53-metrics-alone/b"));
    for order in [[&a, &b], [&b, &a]] {
        let tmp = tempfile::tempdir().unwrap();
        for dir in order {
            let (code, text) = kernelgate(tmp.path(), &["history", "--dir", "h", "import", dir.to_str().unwrap()], &[]);
            assert_eq!(code, 0, "{text}");
        }
        let (code, text) = kernelgate(tmp.path(), &["history", "--dir", "h", "runs"], &[]);
        assert!(code == 0 && text.contains("nvidia-h200-sm90: 1 run\n"), "{text}");
        assert!(text.contains("20261130T135841Z     GPU-1c2e7f54     112 rows") && !text.contains("unknown"), "{text}");
        // The case facts a suite run leaves (the host-bound trials the gate reads).
        let facts = [("KERNELGATE_OUT_DIR", support::case_facts_dir().to_str().unwrap())];
        let (code, text) = kernelgate(tmp.path(), &["history", "--dir", "h", "gate"], &facts);
        assert!(code == 0 && text.lines().count() == 1, "one run gated: {text}");
        let (code, text) = kernelgate(tmp.path(), &["diff", "--dir", "h", "20261130T135841Z", "72a91c3"], &[]);
        assert!(code == 0 && text.starts_with("### kernelgate diff"), "{text}");
    }
}

// ---- History that travels: git notes of several runners, a fresh clone, the nightly ----

/// `git args` in `dir`, with a fixed identity and `env` added; panics with git's words on failure.
/// git is one of the README's prerequisites (to clone); these tests use only what Debian 12's git
/// (2.39) has.
fn git_with(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=runner", "-c", "user.email=runner@example.com"])
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap_or_else(|e| panic!("git could not be run ({e}); it is one of the README's prerequisites"));
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `git args` in `dir` ([`git_with`]).
fn git(dir: &Path, args: &[&str]) -> String {
    git_with(dir, args, &[])
}

/// A commit on `dir`'s current branch at unix time `at`; its full id.
fn commit_at(dir: &Path, message: &str, at: i64) -> String {
    let date = format!("@{at} +0000");
    let dates = [("GIT_COMMITTER_DATE", date.as_str()), ("GIT_AUTHOR_DATE", date.as_str())];
    let author = ["-c", "user.name=dev", "-c", "user.email=dev@example.com"];
    git_with(dir, &[&author[..], &["commit", "-q", "--allow-empty", "-m", message]].concat(), &dates);
    git(dir, &["rev-parse", "HEAD"]).trim().to_string()
}

/// Appends `line` to the note of `commit` under refs/notes/kernelgate in `dir`, with no blank line
/// before it, as a runner's own note line would be. (`git notes append --no-separator` does this
/// from git 2.42 on; Debian 12 has 2.39, so the note is rewritten whole with `add -f -F`.)
fn append_note_line(dir: &Path, commit: &str, line: &str) {
    let note = git(dir, &["notes", "--ref=kernelgate", "show", commit]);
    let file = dir.join(".git/kernelgate-note");
    std::fs::write(&file, format!("{}\n{line}\n", note.trim_end())).unwrap();
    git(dir, &["notes", "--ref=kernelgate", "add", "-f", "-F", file.to_str().unwrap(), commit]);
    std::fs::remove_file(&file).unwrap();
    let after = git(dir, &["notes", "--ref=kernelgate", "show", commit]);
    assert_eq!(after, format!("{}\n{line}\n", note.trim_end()), "the note as written");
}

/// The run of the 25-previous-commit fixture's last CSV, as runner `gpu` ran it at `commit`
/// (committed at `time`) with run id `run_id`, and its median `median`.
fn runner_run(run_id: &str, commit: &str, time: i64, gpu: &str, median: f64) -> kernelgate::history::Run {
    let path = fixture("25-previous-commit/20261203T000000Z-3333333.csv");
    let mut runs =
        kernelgate::history::import::parse_csv(&std::fs::read_to_string(&path).unwrap(), &path).unwrap().runs;
    let mut r = runs.remove(0);
    r.meta.run_id = run_id.into();
    r.meta.commit = commit.into();
    r.meta.commit_time = Some(time);
    r.meta.gpu_uuid = gpu.into();
    for v in &mut r.values {
        if v.metric == "median" {
            v.value = median;
        }
    }
    r
}

/// Notes the runs in `clone` (as `KERNELGATE_NOTES=1` does), then shares them as docs/history.md tells
/// runners to: fetch the origin's notes, merge them with cat_sort_uniq, push.
fn note_and_share(clone: &Path, runs: &[kernelgate::history::Run]) {
    let repo = git2::Repository::open(clone).unwrap();
    for r in runs {
        kernelgate::history::write_run(&repo, r).unwrap();
    }
    if !git(clone, &["ls-remote", "origin", "refs/notes/kernelgate"]).trim().is_empty() {
        git(clone, &["fetch", "-q", "origin", "+refs/notes/kernelgate:refs/notes/kernelgate-origin"]);
        git(clone, &["notes", "--ref=kernelgate", "merge", "-s", "cat_sort_uniq", "refs/notes/kernelgate-origin"]);
    }
    git(clone, &["push", "-q", "origin", "refs/notes/kernelgate"]);
}

/// An origin with three commits (c1 < c2 < c3 in time) on main and one on a branch, and the
/// commits' ids and times.
fn origin_with_commits(tmp: &Path) -> (PathBuf, Vec<(String, i64)>) {
    let origin = tmp.join("origin.git");
    git(tmp, &["init", "-q", "--bare", "-b", "main", origin.to_str().unwrap()]);
    let work = tmp.join("work");
    git(tmp, &["clone", "-q", origin.to_str().unwrap(), work.to_str().unwrap()]);
    git(&work, &["checkout", "-q", "-b", "main"]);
    let mut commits = Vec::new();
    for (i, at) in [1_764_500_000, 1_764_510_000, 1_764_520_000].into_iter().enumerate() {
        commits.push((commit_at(&work, &format!("change {}", i + 1), at), at));
    }
    git(&work, &["push", "-q", "origin", "main"]);
    git(&work, &["checkout", "-q", "-b", "feature", &commits[1].0]);
    commits.push((commit_at(&work, "a branch's change", 1_764_515_000), 1_764_515_000));
    git(&work, &["push", "-q", "origin", "feature"]);
    (origin, commits)
}

/// Field report 40: a person's line under refs/notes/kernelgate (`git notes add -m "LGTM"`) on one
/// commit beside kernelgate's note on the next: `history sync` reads every run and names the line;
/// a run of the annotated commit is noted after the person's text, which stays as it was.
#[test]
fn report_40_a_foreign_note_line_is_kept_and_skipped_with_commit_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let (origin, c) = origin_with_commits(tmp.path());
    let repo_dir = tmp.path().join("repo");
    git(tmp.path(), &["clone", "-q", origin.to_str().unwrap(), repo_dir.to_str().unwrap()]);
    let path = fixture("40-notes-foreign-line/run.csv");
    let runs = kernelgate::history::import::parse_csv(&std::fs::read_to_string(&path).unwrap(), &path).unwrap().runs;
    let mut on_head = runs[0].clone();
    on_head.meta.commit = c[2].0.clone();
    let repo = git2::Repository::open(&repo_dir).unwrap();
    kernelgate::history::write_run(&repo, &on_head).unwrap();
    let human = "LGTM: numbers checked by hand on the H200 (alice)";
    git(&repo_dir, &["notes", "--ref=kernelgate", "add", "-m", human, &c[1].0]);
    let (code, out, err) = run(&repo_dir, &["history", "sync"], &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("synced 1 run in the notes, 40 new rows"), "{out}");
    assert!(
        err.contains(&format!(
            "kernelgate: warning: git note of {}, line 1: \"{human}\" is not a line kernelgate writes",
            c[1].0
        )) && err.contains(&format!("`git notes --ref=kernelgate edit {}`", c[1].0)),
        "{err}"
    );
    let mut on_annotated = runs[0].clone();
    on_annotated.meta.commit = c[1].0.clone();
    on_annotated.meta.run_id = "20261130T140000Z".into();
    // One R1 line, 40 V1 lines (its values) and one M1 line per trial (its module).
    let lines = 1 + 40 + on_annotated.modules.len();
    assert_eq!(on_annotated.modules.len(), 2, "the run CSV names the module of each of its 2 trials");
    assert_eq!(kernelgate::history::write_run(&repo, &on_annotated).unwrap(), lines);
    let note = git(&repo_dir, &["notes", "--ref=kernelgate", "show", &c[1].0]);
    assert!(note.starts_with(&format!("{human}\n")) && note.lines().count() == lines + 1, "{note}");
    let (code, out, _) = run(&repo_dir, &["history", "sync"], &[]);
    assert!(code == 0 && out.contains("synced 2 runs in the notes, 40 new rows"), "{out}");
}

/// More than one runner: three runners (two physical GPUs on main, a third on a
/// branch) note their runs, each merging the others' notes as docs/history.md says, and one person adds
/// a note by hand; a fresh clone's `kernelgate history sync --fetch origin` has every run, names
/// the person's line, and a second sync adds nothing.
#[test]
fn notes_of_several_runners_merge_into_one_readable_history() {
    let tmp = tempfile::tempdir().unwrap();
    let (origin, c) = origin_with_commits(tmp.path());
    let clone = |name: &str| {
        let dir = tmp.path().join(name);
        git(tmp.path(), &["clone", "-q", origin.to_str().unwrap(), dir.to_str().unwrap()]);
        git(&dir, &["fetch", "-q", "origin", "feature:feature"]);
        dir
    };
    let (a, b, f) = (clone("runner-a"), clone("runner-b"), clone("runner-f"));
    let gpu_a = "GPU-aaaaaaaa-0000-0000-0000-000000000001";
    let gpu_b = "GPU-bbbbbbbb-0000-0000-0000-000000000002";
    // Runner A: c1 and c2; runner B: c1, c2, c3, starting in the same seconds as A (runs are
    // (run id, GPU)); runner F: the branch's commit.
    note_and_share(
        &a,
        &[
            runner_run("20261201T000000Z", &c[0].0, c[0].1, gpu_a, 1e-4),
            runner_run("20261202T000000Z", &c[1].0, c[1].1, gpu_a, 1e-4),
        ],
    );
    note_and_share(
        &b,
        &[
            runner_run("20261201T000000Z", &c[0].0, c[0].1, gpu_b, 1.02e-4),
            runner_run("20261202T000000Z", &c[1].0, c[1].1, gpu_b, 1.02e-4),
            runner_run("20261203T000000Z", &c[2].0, c[2].1, gpu_b, 1.02e-4),
        ],
    );
    let mut on_branch = runner_run("20261202T120000Z", &c[3].0, c[3].1, gpu_a, 1e-4);
    on_branch.meta.branch = "feature".into();
    note_and_share(&f, &[on_branch]);
    // A person's note on c3, shared from runner A after it merged everything.
    git(&a, &["fetch", "-q", "origin", "+refs/notes/kernelgate:refs/notes/kernelgate-origin"]);
    git(&a, &["notes", "--ref=kernelgate", "merge", "-s", "cat_sort_uniq", "refs/notes/kernelgate-origin"]);
    git(&a, &["notes", "--ref=kernelgate", "append", "-m", "LGTM: numbers checked by hand (alice)", &c[2].0]);
    git(&a, &["push", "-q", "origin", "refs/notes/kernelgate"]);

    let fresh = clone("fresh");
    let (code, out, err) = run(&fresh, &["history", "sync", "--fetch", "origin"], &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("fetched origin's refs/notes/kernelgate into refs/notes/kernelgate-origin"), "{out}");
    assert!(out.contains("synced 6 runs in the notes,"), "{out}");
    assert!(
        err.contains(&format!("kernelgate: warning: git note of {}, line", c[2].0))
            && err.contains("\"LGTM: numbers checked by hand (alice)\" is not a line kernelgate writes")
            && err.lines().count() == 1,
        "{err}"
    );
    let (code, text) = kernelgate(&fresh, &["history", "runs"], &[]);
    assert!(code == 0 && text.contains("nvidia-h200-sm90: 6 runs"), "{text}");
    for (run_id, gpu) in [
        ("20261201T000000Z", "GPU-aaaaaaaa"),
        ("20261201T000000Z", "GPU-bbbbbbbb"),
        ("20261202T000000Z", "GPU-aaaaaaaa"),
        ("20261202T000000Z", "GPU-bbbbbbbb"),
        ("20261202T120000Z", "GPU-aaaaaaaa"),
        ("20261203T000000Z", "GPU-bbbbbbbb"),
    ] {
        assert!(text.lines().any(|l| l.contains(run_id) && l.contains(gpu)), "{run_id} {gpu}: {text}");
    }
    // The history reads as one, in commit-time order across branches: the commit stored before
    // c3's run is the branch's (committed between c2 and c3).
    let (code, out, _) = run(&fresh, &["history", "previous", "--run", "20261203T000000Z"], &[]);
    assert_eq!((code, out.trim()), (0, c[3].0.as_str()), "the newest commit stored before c3's, by commit time");
    let (code, out, err) = run(&fresh, &["history", "sync", "--fetch", "origin"], &[]);
    assert!(code == 0 && out.contains("6 runs in the notes, 0 new rows"), "{out}{err}");
    // A runner whose copy of a run disagrees (a hand-edited value) keeps no one else out.
    let mut torn = runner_run("20261203T000000Z", &c[2].0, c[2].1, gpu_b, 9e-4);
    torn.values.retain(|v| v.metric == "median");
    let line = kernelgate::history::notes::lines(&torn).unwrap().into_iter().find(|l| l.starts_with("V1")).unwrap();
    git(&b, &["fetch", "-q", "origin", "+refs/notes/kernelgate:refs/notes/kernelgate-origin"]);
    git(&b, &["notes", "--ref=kernelgate", "merge", "-s", "cat_sort_uniq", "refs/notes/kernelgate-origin"]);
    append_note_line(&b, &c[2].0, &line);
    git(&b, &["push", "-q", "origin", "refs/notes/kernelgate"]);
    let another = clone("another");
    let (code, out, err) = run(&another, &["history", "sync", "--fetch", "origin"], &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("disagree") && err.contains("left out"), "{err}");
    assert!(out.contains("synced 6 runs"), "the run keeps its other values: {out}{err}");
}

/// The nightly on the CPU: `scripts/nightly` on a fresh clone of a repository whose notes
/// hold earlier runs rebuilds the history from the notes, gates the new run, and writes the diff
/// report against the previous commit. The suite is a stand-in (`.gpu/bin/kernels`) that writes the
/// run CSV a GPU run would, names it in `KERNELGATE_RUN_FILE` as the suite does, and records it in
/// the history; beside it another run's CSV appears in the same runs folder, which the nightly
/// must not take for its own.
#[test]
fn the_nightly_on_a_fresh_clone_rebuilds_the_history_from_notes_and_reports() {
    let tmp = tempfile::tempdir().unwrap();
    let (origin, c) = origin_with_commits(tmp.path());
    let runner = tmp.path().join("runner");
    git(tmp.path(), &["clone", "-q", origin.to_str().unwrap(), runner.to_str().unwrap()]);
    let gpu = "GPU-1c2e7f54-12d2-81fb-f3bb-e68e916447fc";
    note_and_share(
        &runner,
        &[
            runner_run("20261201T000000Z", &c[0].0, c[0].1, gpu, 1e-4),
            runner_run("20261202T000000Z", &c[1].0, c[1].1, gpu, 1e-4),
        ],
    );
    let fresh = tmp.path().join("fresh");
    git(tmp.path(), &["clone", "-q", origin.to_str().unwrap(), fresh.to_str().unwrap()]);
    assert_eq!(git(&fresh, &["rev-parse", "HEAD"]).trim(), c[2].0);
    let bin = fresh.join(".gpu/bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(support::kernelgate_binary(), bin.join("kernelgate")).unwrap();
    let template = std::fs::read_to_string(fixture("25-previous-commit/20261203T000000Z-3333333.csv")).unwrap();
    let csv =
        template.replace("3333333333333333333333333333333333333333", &c[2].0).replace(",,synthetic,", ",,change 3,");
    std::fs::write(tmp.path().join("run.csv"), csv).unwrap();
    let suite = format!(
        "#!/usr/bin/env bash\n# A stand-in for the suite: the run CSV and the history record a GPU run leaves.\n\
         mkdir -p target/kernelgate/runs\n\
         cp {run} target/kernelgate/runs/20261203T000000Z-{short}.csv\n\
         echo 'kernelgate: wrote target/kernelgate/runs/20261203T000000Z-{short}.csv (1 cases)'\n\
         printf '%s\\n' \"$PWD/target/kernelgate/runs/20261203T000000Z-{short}.csv\" >> \"$KERNELGATE_RUN_FILE\"\n\
         cp {run} target/kernelgate/runs/20261203T000001Z-another-run.csv\n\
         .gpu/bin/kernelgate history import target/kernelgate/runs/20261203T000000Z-{short}.csv\n",
        run = tmp.path().join("run.csv").display(),
        short = &c[2].0[..7]
    );
    std::fs::write(bin.join("kernels"), suite).unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(bin.join("kernels"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let nightly = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/nightly");
    let mut cmd = Command::new("bash");
    cmd.arg(&nightly).arg("out").current_dir(&fresh);
    for (k, _) in std::env::vars() {
        if k.starts_with("KERNELGATE_") {
            cmd.env_remove(k);
        }
    }
    let out = cmd.output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{text}");
    let sync = std::fs::read_to_string(fresh.join("out/sync.txt")).unwrap();
    assert!(sync.contains("synced 2 runs in the notes"), "{sync}");
    let gate = std::fs::read_to_string(fresh.join("out/gate.txt")).unwrap();
    assert!(gate.contains(&format!("20261203T000000Z GPU-1c2e7f54 {}: pass", &c[2].0[..7])), "{gate}");
    let report = std::fs::read_to_string(fresh.join("out/report.md")).unwrap();
    assert!(report.contains(&format!("old: {} ", &c[1].0[..7])), "the previous commit: {report}");
    assert!(fresh.join("out/report.html").is_file());
    assert!(text.contains("nightly: exit 0"), "{text}");
    let named = std::fs::read_to_string(fresh.join("out/run-csv.txt")).unwrap();
    assert!(named.trim_end().ends_with(&format!("runs/20261203T000000Z-{}.csv", &c[2].0[..7])), "{named}");
}
