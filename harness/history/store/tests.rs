//! Tests of the history store (synthetic runs, made-up numbers).

use super::*;
use crate::history::tests::run;

const KEY: &str = "nvidia-h200-sm90";

fn sorted(mut r: Run) -> Run {
    r.values.sort_by(|a, b| (&a.trial, &a.metric, &a.kernel, &a.unit).cmp(&(&b.trial, &b.metric, &b.kernel, &b.unit)));
    r
}

/// A run of an unknown commit time sorts by its start time, not last (a new user's trial: an
/// old run of commit `unknown` showed as the newest).
#[test]
fn a_run_without_commit_time_sorts_by_its_start() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap();
    let a = run("20260101T000000Z", "GPU-a", &"1".repeat(40), 2); // commit time 2023-11-14
    let mut old = run("20230101T000000Z", "GPU-a", "unknown", 2);
    old.meta.commit_time = None;
    let mut new = run("20260102T000000Z", "GPU-a", "unknown", 2);
    new.meta.commit_time = None;
    for r in [&new, &a, &old] {
        store.append(r).unwrap();
    }
    let order: Vec<String> = store.runs(None).unwrap().into_iter().map(|r| r.meta.run_id).collect();
    assert_eq!(order, ["20230101T000000Z", "20260101T000000Z", "20260102T000000Z"]);
}

#[test]
fn append_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap();
    assert!(store.path().ends_with("nvidia-h200-sm90.sqlite"));
    let mut a = run("20260101T000000Z", "GPU-a", "1111111111111111111111111111111111111111", 20);
    a.values[3].value = f64::NAN;
    let mut b = run("20260102T000000Z", "GPU-b", "2222222222222222222222222222222222222222", 20);
    b.meta.commit_time = None;
    assert_eq!(store.append(&b).unwrap(), 20);
    assert_eq!(store.append(&a).unwrap(), 20);
    let back = store.run("20260101T000000Z", "GPU-a").unwrap().unwrap();
    assert_eq!(back.meta, a.meta);
    let (back_nan, a_sorted) = (back.values.iter().filter(|v| v.value.is_nan()).count(), sorted(a.clone()));
    assert_eq!(back_nan, 1);
    let finite = |r: &Run| r.values.iter().filter(|v| !v.value.is_nan()).cloned().collect::<Vec<_>>();
    assert_eq!(finite(&back), finite(&a_sorted));
    assert_eq!(store.run("20260101T000000Z", "GPU-b").unwrap(), None);

    // Runs in chronological order: a known commit time first, unknown last.
    let runs = store.runs(None).unwrap();
    assert_eq!(
        runs.iter().map(|r| r.meta.run_id.as_str()).collect::<Vec<_>>(),
        ["20260101T000000Z", "20260102T000000Z"]
    );
    assert!(runs.iter().all(|r| r.values == 20));
    assert_eq!(store.runs(Some("2222")).unwrap().len(), 1);
    assert_eq!(store.runs(Some("3333")).unwrap().len(), 0);

    let trial = &a.values[0].trial;
    let series = store.series(trial, "median").unwrap();
    assert_eq!(series.len(), 2);
    assert_eq!(series[0].0.gpu_uuid, "GPU-a");
    assert_eq!(series[0].1, a.values[0]);

    let all = store.all_series().unwrap();
    assert_eq!(all.runs.len(), 2);
    assert_eq!(all.series.iter().map(|s| s.points.len()).sum::<usize>(), 40);
    let s = all.series.iter().find(|s| &s.trial == trial && s.metric == "median").unwrap();
    assert_eq!(s.points.iter().map(|p| all.runs[p.run].gpu_uuid.as_str()).collect::<Vec<_>>(), ["GPU-a", "GPU-b"]);
    assert_eq!(s.points[0].value, a.values[0].value);
    assert_eq!(s.points[0].ci_low, a.values[0].ci_low);

    // Reopened, the same.
    drop(store);
    let store = HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap();
    // (Compared as text: the NaN value is not equal to itself.)
    assert_eq!(format!("{:?}", store.all_series().unwrap()), format!("{all:?}"));
    assert_eq!(gpu_keys(dir.path()).unwrap(), [KEY]);
}

#[test]
fn append_is_idempotent_and_fills_in_but_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap();
    let full = run("20260101T000000Z", "GPU-a", "1111111111111111111111111111111111111111", 10);
    let mut partial = full.clone();
    partial.meta.branch.clear();
    partial.meta.subject.clear();
    for v in &mut partial.values {
        v.ci_low = None;
        v.ci_high = None;
    }
    partial.values.truncate(6);
    assert_eq!(store.append(&partial).unwrap(), 6);
    assert_eq!(store.append(&partial).unwrap(), 0);
    assert_eq!(store.append(&full).unwrap(), 4, "only the values it lacked");
    assert_eq!(store.append(&full).unwrap(), 0);
    assert_eq!(store.run("20260101T000000Z", "GPU-a").unwrap().unwrap(), sorted(full.clone()));
    assert_eq!(store.append(&partial).unwrap(), 0);
    assert_eq!(store.run("20260101T000000Z", "GPU-a").unwrap().unwrap(), sorted(full.clone()), "nothing overwritten");

    // A copy that disagrees is refused whole.
    let mut other = full.clone();
    other.values[9].value += 1.0;
    other.values.push(Value { trial: "new/one/1".into(), ..full.values[0].clone() });
    let err = store.append(&other).unwrap_err().to_string();
    assert!(
        err.contains("nvidia-h200-sm90.sqlite") && err.contains("stored already") && err.contains("value"),
        "{err}"
    );
    assert_eq!(store.run("20260101T000000Z", "GPU-a").unwrap().unwrap(), sorted(full.clone()));

    let mut elsewhere = full;
    elsewhere.meta.gpu_key = "nvidia-a100-sm80".into();
    let err = store.append(&elsewhere).unwrap_err().to_string();
    assert!(err.contains("nvidia-a100-sm80"), "{err}");
}

#[test]
fn two_appenders_at_once_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap();
    let writers: Vec<_> = ["GPU-a", "GPU-b"]
        .into_iter()
        .map(|uuid| {
            let dir = dir.path().to_path_buf();
            std::thread::spawn(move || {
                let mut store = HistoryStore::open(&dir, KEY, "baselines".as_ref()).unwrap();
                for i in 0..60 {
                    // The same run ids on both GPUs: runs are (run_id, gpu_uuid).
                    let r = run(&format!("20260101T0000{i:02}Z"), uuid, "1111111111111111111111111111111111111111", 25);
                    assert_eq!(store.append(&r).unwrap(), 25);
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let store = HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap();
    let runs = store.runs(None).unwrap();
    assert_eq!(runs.len(), 120);
    assert!(runs.iter().all(|r| r.values == 25));
}

/// The child of `killed_writer_leaves_whole_runs`: appends large runs until killed. Does nothing
/// unless started by that test (the environment variable names its store).
#[test]
#[ignore = "run by killed_writer_leaves_whole_runs as a child process"]
fn killed_writer_child() {
    let Some(dir) = std::env::var_os("KERNELGATE_TEST_HISTORY_CHILD") else { return };
    let mut store = HistoryStore::open(Path::new(&dir), KEY, "baselines".as_ref()).unwrap();
    for i in 0.. {
        store
            .append(&run(&format!("child-{i:06}"), "GPU-c", "1111111111111111111111111111111111111111", 5000))
            .unwrap();
    }
}

#[test]
fn killed_writer_leaves_whole_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap();
    store.append(&run("before", "GPU-a", "1111111111111111111111111111111111111111", 10)).unwrap();

    // A writer that dies inside its transaction (here: its connection dropped uncommitted).
    {
        let conn = Connection::open(store.path()).unwrap();
        conn.execute_batch(
            "BEGIN IMMEDIATE; INSERT INTO runs (run_id, gpu_uuid, commit_id, kernels_sha256, branch, \
             subject, gpu_key, gpu_name, driver, cuda, nvrtc, ncu, ab_revision, work_scale) \
             VALUES ('torn', 'GPU-a', 'c', '', '', '', 'k', '', '', '', '', '', '', 1);",
        )
        .unwrap();
        conn.execute(
            "INSERT INTO vals (run, series, value, verdict, decided_by) VALUES (last_insert_rowid(), 1, 1.0, '', '')",
            [],
        )
        .unwrap();
    }
    assert_eq!(store.run("torn", "GPU-a").unwrap(), None);

    // A writer process killed (SIGKILL) at a random point of its appends.
    let exe = std::env::current_exe().unwrap();
    let mut child = std::process::Command::new(exe)
        .args(["--exact", "history::store::tests::killed_writer_child", "--ignored", "--quiet"])
        .env("KERNELGATE_TEST_HISTORY_CHILD", dir.path())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while store.runs(None).unwrap().len() < 4 {
        assert!(start.elapsed() < Duration::from_secs(120), "the child appended nothing");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(37));
    child.kill().unwrap();
    child.wait().unwrap();
    drop(store);
    let mut store = HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap();
    let runs = store.runs(None).unwrap();
    assert!(runs.len() >= 4, "{}", runs.len());
    for r in &runs {
        let whole = if r.meta.run_id == "before" { 10 } else { 5000 };
        assert_eq!(r.values, whole, "run {} is whole", r.meta.run_id);
    }
    // And the store still takes appends.
    assert_eq!(store.append(&run("after", "GPU-a", "1111111111111111111111111111111111111111", 3)).unwrap(), 3);
}

#[test]
fn unknown_schema_and_foreign_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap().path().to_path_buf();
    Connection::open(&path).unwrap().execute_batch("PRAGMA user_version = 99").unwrap();
    let err = HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap_err().to_string();
    assert!(err.contains(&path.display().to_string()) && err.contains("version 99") && err.contains("newer"), "{err}");

    let other = dir.path().join("nvidia-a100-sm80.sqlite");
    Connection::open(&other).unwrap().execute_batch("CREATE TABLE t (x)").unwrap();
    let err = HistoryStore::open(dir.path(), "nvidia-a100-sm80", "baselines".as_ref()).unwrap_err().to_string();
    assert!(err.contains("not a kernelgate history"), "{err}");

    let text = dir.path().join("nvidia-l4-sm89.sqlite");
    std::fs::write(&text, "trial,median\n".repeat(100)).unwrap();
    let err = HistoryStore::open(dir.path(), "nvidia-l4-sm89", "baselines".as_ref()).unwrap_err().to_string();
    assert!(err.contains("nvidia-l4-sm89.sqlite") && err.contains("not a SQLite database"), "{err}");
    assert_eq!(std::fs::read_to_string(&text).unwrap(), "trial,median\n".repeat(100), "left as it was");

    let err = HistoryStore::open(dir.path(), "../x", "baselines".as_ref()).unwrap_err().to_string();
    assert!(err.contains("cannot name a history file"), "{err}");
    let missing = path.with_file_name("nvidia-h100-sm90.sqlite");
    let err = HistoryStore::open_file(&missing, None, "baselines".as_ref()).unwrap_err().to_string();
    assert!(err.contains("no history store here"), "{err}");
    assert!(!missing.exists(), "no file created");
    std::fs::write(&missing, "").unwrap();
    let err = HistoryStore::open_file(&missing, None, "baselines".as_ref()).unwrap_err().to_string();
    assert!(err.contains("no history store here"), "an empty file is no store: {err}");
    let copy = dir.path().join("copy.sqlite");
    HistoryStore::open_file(&copy, Some(KEY), "baselines".as_ref()).unwrap();
    let err = HistoryStore::open_file(&copy, Some("nvidia-l4-sm89"), "baselines".as_ref()).unwrap_err().to_string();
    assert!(err.contains("not of \"nvidia-l4-sm89\""), "{err}");
}

/// `append_each` leaves out a run that disagrees with its stored copy, alone; the others land, and
/// a series the refused run added is not reused under a stale id.
#[test]
fn append_each_leaves_out_only_the_refused_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap();
    let a = run("20260101T000000Z", "GPU-a", &"1".repeat(40), 4);
    store.append(&a).unwrap();
    let mut moved = a.clone();
    moved.values[0].value *= 2.0;
    moved.values.push(Value { trial: "only/in/refused".into(), ..a.values[0].clone() });
    let mut after = run("20260102T000000Z", "GPU-a", &"2".repeat(40), 4);
    after.values.push(Value { trial: "only/in/after".into(), ..a.values[0].clone() });
    let (new, refused) = store.append_each(&[moved, after.clone()]).unwrap();
    assert_eq!(new, 5);
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].0, 0);
    assert!(refused[0].1.to_string().contains("stored already"), "{}", refused[0].1);
    assert_eq!(store.run("20260101T000000Z", "GPU-a").unwrap().unwrap(), sorted(a));
    assert_eq!(store.run("20260102T000000Z", "GPU-a").unwrap().unwrap(), sorted(after));
    assert!(store.series("only/in/refused", "median").unwrap().is_empty());
}

/// A store of 20 runs of 300 values, closed; its file.
fn filled(dir: &Path) -> PathBuf {
    let mut store = HistoryStore::open(dir, KEY, "baselines".as_ref()).unwrap();
    let runs: Vec<Run> =
        (0..20).map(|i| run(&format!("2026010{}T0000{i:02}Z", i % 10), "GPU-a", &"1".repeat(40), 300)).collect();
    store.append_many(&runs).unwrap();
    store.path().to_path_buf()
}

/// Both ways of opening refuse a damaged file, name it and the fix, and change nothing in it.
fn refused_both_ways(dir: &Path, path: &Path, what: &str) {
    let before = std::fs::read(path).unwrap();
    // The fix names the project's baselines folder, whose run CSVs rebuild the history.
    let baselines = Path::new("perf/baselines");
    for err in [
        HistoryStore::open(dir, KEY, baselines).unwrap_err(),
        HistoryStore::open_read(dir, KEY, baselines).unwrap_err(),
    ] {
        let err = err.to_string();
        assert!(err.starts_with(&path.display().to_string()), "{what}: {err}");
        assert!(err.contains("damaged") && err.contains("nothing was written"), "{what}: {err}");
        assert!(
            err.contains("(`kernelgate history import perf/baselines/*/runs`)") && err.contains(".recover"),
            "{what}: {err}"
        );
    }
    assert_eq!(std::fs::read(path).unwrap(), before, "{what}: the file is left as it was");
}

/// Field report turn3/04: one page of random bytes inside the file (here every page after the
/// schema's, one at a time) is found before anything is read or written.
#[test]
fn a_damaged_page_is_refused_before_use() {
    let dir = tempfile::tempdir().unwrap();
    let path = filled(dir.path());
    let pristine = std::fs::read(&path).unwrap();
    let pages = pristine.len() / 4096;
    assert!(pages > 10, "{pages} pages");
    for page in 3..pages {
        let mut bytes = pristine.clone();
        // A deterministic scramble (not zeros: SQLite reads a zeroed page as a valid empty one).
        for (i, b) in bytes[page * 4096..(page + 1) * 4096].iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(37).wrapping_add(page as u8) ^ 0x5a;
        }
        std::fs::write(&path, &bytes).unwrap();
        refused_both_ways(dir.path(), &path, &format!("page {}", page + 1));
    }
    std::fs::write(&path, &pristine).unwrap();
    assert_eq!(HistoryStore::open_read(dir.path(), KEY, "baselines".as_ref()).unwrap().runs(None).unwrap().len(), 20);
}

/// Field report turn3/03: a copy cut short (disk full, partial rsync) is refused with the fix.
#[test]
fn a_cut_file_is_refused_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let path = filled(dir.path());
    let len = std::fs::metadata(&path).unwrap().len();
    for cut in [len / 3, len / 2, len - 4096] {
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(cut).unwrap();
        refused_both_ways(dir.path(), &path, &format!("cut to {cut} of {len} bytes"));
    }
}

/// Field report turn3/07: a reader opens read-only: it writes nothing, creates nothing, and a
/// missing store is not created.
#[test]
fn a_reader_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = filled(dir.path());
    let names = |d: &Path| {
        let mut n: Vec<String> =
            std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        n.sort();
        n
    };
    let (before, listed) = (std::fs::read(&path).unwrap(), names(dir.path()));
    let mut store = HistoryStore::open_read(dir.path(), KEY, "baselines".as_ref()).unwrap();
    assert_eq!(store.runs(None).unwrap().len(), 20);
    assert_eq!(store.all_series().unwrap().runs.len(), 20);
    let err = store.append(&run("new", "GPU-a", &"1".repeat(40), 1)).unwrap_err().to_string();
    assert!(err.contains("readonly"), "{err}");
    drop(store);
    assert_eq!(std::fs::read(&path).unwrap(), before);
    // SQLite may leave its -wal and -shm files (WAL readers share them); nothing else appears.
    let extra: Vec<String> = names(dir.path()).into_iter().filter(|n| !listed.contains(n)).collect();
    assert!(extra.iter().all(|n| n.ends_with("-wal") || n.ends_with("-shm")), "{extra:?}");
    let err = HistoryStore::open_read(dir.path(), "nvidia-l4-sm89", "baselines".as_ref()).unwrap_err().to_string();
    assert!(err.contains("no history store here"), "{err}");
    assert!(!dir.path().join("nvidia-l4-sm89.sqlite").exists());
}

/// Field report turn3/53: a run's metrics imported alone (GPU unknown) and the run with its GPU
/// are one run, whichever comes first; with the run on several GPUs the copy without one is refused.
#[test]
fn a_copy_without_its_gpu_joins_the_run() {
    let commit = "1".repeat(40);
    let full = run("20260101T000000Z", "GPU-a", &commit, 10);
    let mut metrics_only = full.clone();
    metrics_only.meta.gpu_uuid = "unknown".into();
    metrics_only.meta.ncu = "2025.3".into();
    metrics_only.values.retain(|v| v.metric != "median");
    for v in &mut metrics_only.values {
        v.verdict.clear();
        v.decided_by.clear();
    }
    for order in [[&metrics_only, &full], [&full, &metrics_only]] {
        let dir = tempfile::tempdir().unwrap();
        let mut store = HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap();
        let added: usize = order.iter().map(|r| store.append(r).unwrap()).sum();
        assert_eq!(added, 10);
        let runs = store.runs(None).unwrap();
        assert_eq!(runs.len(), 1, "one run, not one per GPU");
        assert_eq!(
            (runs[0].meta.gpu_uuid.as_str(), runs[0].meta.ncu.as_str(), runs[0].values),
            ("GPU-a", "2025.3", 10)
        );
        let back = store.run("20260101T000000Z", "GPU-a").unwrap().unwrap();
        assert!(back.values.iter().all(|v| v.verdict == "unchanged"), "verdicts kept or filled in");

        let mut b = full.clone();
        b.meta.gpu_uuid = "GPU-b".into();
        store.append(&b).unwrap();
        let err = store.append(&metrics_only).unwrap_err().to_string();
        assert!(err.contains("several GPUs (GPU-a, GPU-b)") && err.contains("run CSV beside it"), "{err}");
    }
}

/// 1,000,000 synthetic values (1,000 runs of 1,000): prints the seconds to append them one run per
/// transaction (as runs append themselves), to append them in one transaction (as `history import`
/// and `history sync` do), and to open the store (with its integrity check) and load every series.
/// `cargo test --release --lib bench_million_rows -- --ignored --nocapture`.
#[test]
#[ignore = "benchmark: prints timings"]
fn bench_million_rows() {
    let runs: Vec<Run> = (0..1000)
        .map(|i| {
            let mut r = run(&format!("run-{i:04}"), "GPU-a", &format!("{i:040}"), 1000);
            r.meta.commit_time = Some(1_700_000_000 + i);
            r
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let mut store = HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap();
    let start = std::time::Instant::now();
    for r in &runs {
        store.append(r).unwrap();
    }
    println!("append 1,000,000 values, one transaction per run: {:.2} s", start.elapsed().as_secs_f64());
    drop(store);

    let bulk = tempfile::tempdir().unwrap();
    let mut store = HistoryStore::open(bulk.path(), KEY, "baselines".as_ref()).unwrap();
    let start = std::time::Instant::now();
    assert_eq!(store.append_many(&runs).unwrap(), 1_000_000);
    println!("append 1,000,000 values, one transaction: {:.2} s", start.elapsed().as_secs_f64());
    drop(store);

    let start = std::time::Instant::now();
    let store = HistoryStore::open_read(bulk.path(), KEY, "baselines".as_ref()).unwrap();
    let opened = start.elapsed().as_secs_f64();
    let all = store.all_series().unwrap();
    println!(
        "open (quick_check: {opened:.3} s) + all_series of {} values in {} series: {:.3} s",
        all.series.iter().map(|s| s.points.len()).sum::<usize>(),
        all.series.len(),
        start.elapsed().as_secs_f64()
    );
    assert_eq!(all.series.iter().map(|s| s.points.len()).sum::<usize>(), 1_000_000);
}

/// The flat view: one row per stored value with its run's fields, NaN as NULL; created again in a
/// store made before it (dropped here) at the next open for writing, and absent from nothing else.
#[test]
fn the_flat_view_has_one_row_per_run_trial_and_metric() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap();
    let mut a = run("20260101T000000Z", "GPU-a", &"1".repeat(40), 6);
    a.values[1].value = f64::NAN;
    let b = run("20260102T030405Z", "GPU-b", &"2".repeat(40), 4);
    store.append(&a).unwrap();
    store.append(&b).unwrap();
    let path = store.path().to_path_buf();
    drop(store);
    let conn = Connection::open(&path).unwrap();
    let count: i64 = conn.query_row(&format!("SELECT count(*) FROM {FLAT_VIEW}"), [], |r| r.get(0)).unwrap();
    assert_eq!(count, 10);
    type Row = (String, String, String, String, String, Option<f64>, Option<f64>, Option<f64>, String, i64);
    let row = |metric: &str, trial: &str, run_id: &str| -> Row {
        conn.query_row(
            "SELECT started_utc, gpu_uuid, commit_id, kernel, unit, value, ci_low, ci_high, verdict, dirty FROM flat \
             WHERE metric = ?1 AND trial = ?2 AND run_id = ?3",
            [metric, trial, run_id],
            |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                    r.get(8)?,
                    r.get(9)?,
                ))
            },
        )
        .unwrap()
    };
    let median = row("median", "synthetic/k0/0", "20260102T030405Z");
    assert_eq!(
        median,
        (
            "2026-01-02 03:04:05".to_string(),
            "GPU-b".to_string(),
            "2".repeat(40),
            "kern,\"quoted\"".to_string(),
            "s".to_string(),
            Some(1e-4),
            Some(0.9e-4),
            Some(1.1e-4),
            "unchanged".to_string(),
            0
        )
    );
    let nan = row("dram__bytes_read.sum", "synthetic/k1/0", "20260101T000000Z");
    assert_eq!((nan.4.as_str(), nan.5, nan.6), ("byte", None, None), "NaN is NULL, no interval");

    // A store from before the view: it comes back at the next open for writing, values untouched.
    conn.execute_batch("DROP VIEW flat").unwrap();
    drop(conn);
    assert!(HistoryStore::open_read(dir.path(), KEY, "baselines".as_ref()).is_ok(), "a reader needs no view");
    drop(HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap());
    let conn = Connection::open(&path).unwrap();
    let count: i64 = conn.query_row("SELECT count(*) FROM flat", [], |r| r.get(0)).unwrap();
    assert_eq!(count, 10);
    let version: u32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version, HISTORY_SCHEMA);
}

/// The modules a run's trials ran from are kept with the run, merged like its values (a copy
/// without them adds them, a copy that names another module is refused), and a store made before
/// kernelgate kept modules reads as having none until it is next opened for writing.
#[test]
fn modules_are_kept_merged_and_absent_in_an_old_store() {
    let dir = tempfile::tempdir().unwrap();
    let bare = run("20260101T000000Z", "GPU-a", &"1".repeat(40), 6);
    let full = crate::history::tests::with_modules(bare.clone());
    assert_eq!(full.modules.len(), 6);
    {
        let mut store = HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap();
        store.append(&bare).unwrap();
        assert!(store.run(&bare.meta.run_id, "GPU-a").unwrap().unwrap().modules.is_empty());
        store.append(&full).unwrap();
        let back = store.run(&bare.meta.run_id, "GPU-a").unwrap().unwrap();
        assert_eq!(back.modules, full.modules, "the copy with modules completes the stored run");
        assert_eq!(back.trial_module("synthetic/k3/0"), Some("3".repeat(64)));
        let mut other = full.clone();
        other.modules[0].module_sha256 = "f".repeat(64);
        let err = store.append(&other).unwrap_err().to_string();
        assert!(err.contains("ran from module") && err.contains("nothing of it was appended"), "{err}");
        assert_eq!(store.run(&bare.meta.run_id, "GPU-a").unwrap().unwrap().modules, full.modules);
    }
    // A store of before the table: drop it, as a kernelgate without modules made the file.
    let path = store_path(dir.path(), KEY).unwrap();
    Connection::open(&path).unwrap().execute_batch("DROP TABLE modules").unwrap();
    let read = HistoryStore::open_read(dir.path(), KEY, "baselines".as_ref()).unwrap();
    let back = read.run(&bare.meta.run_id, "GPU-a").unwrap().unwrap();
    assert!(back.modules.is_empty() && back.values.len() == 6, "read as before: values, no modules");
    drop(read);
    let mut store = HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap();
    store.append(&full).unwrap();
    assert_eq!(
        store.run(&bare.meta.run_id, "GPU-a").unwrap().unwrap().modules,
        full.modules,
        "added at the next write"
    );
}
