use super::*;
use crate::store::MANIFEST_FILE;

/// A test entry of `trial` and `metric` with `median` (the other fields plausible H200 values).
pub(crate) fn entry(trial: &str, metric: &str, median: f64) -> Entry {
    let time = metric == TIME_METRIC;
    Entry {
        trial: trial.into(),
        kernel: "transpose_naive".into(),
        metric: metric.into(),
        unit: if time { "s".into() } else { "byte".into() },
        n: if time { 1000 } else { 1 },
        median,
        mad: if time { median / 100.0 } else { 0.0 },
        mean: median,
        stddev: if time { median / 50.0 } else { 0.0 },
        min: median,
        commit: "a30cdc2a4a2c7df9899037e7124ad80bc48cb789".into(),
        date: "2026-11-30T03:22:13Z".into(),
        module_sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08".into(),
        sm_clock_mhz: if time { Some(1980.0) } else { None },
        gpu_name: "NVIDIA H200".into(),
        compute_capability: "9.0".into(),
        sm_count: 132,
        memory_mib: 143_771,
        driver: "580.159.04".into(),
        cuda: "13.0".into(),
        ecc: true,
        gpu_uuid: "GPU-20ce1a7a-fd28-021f-c48b-96e110fd8d88".into(),
        gpu_serial: "1653724057703".into(),
        vbios: "96.00.A5.00.1A".into(),
        pci_bus_id: "00000000:18:00.0".into(),
        invalid_reason: String::new(),
        nvrtc: "13.0".into(),
        ncu: String::new(),
    }
}

const A: &str = "transpose/naive/8192x8192";
const B: &str = "copy/vec4/16777216";

/// Two trials: A with time, a counter and samples; B with time and samples.
pub(crate) fn two_trials(dir: &Path) -> Baseline {
    let mut base = Baseline::empty(dir);
    let entries = vec![
        entry(A, TIME_METRIC, 968.8e-6),
        entry(A, "dram__bytes_read.sum", 268_435_456.0),
        entry(B, TIME_METRIC, 1.234e-4),
    ];
    let samples = BTreeMap::from([
        (A.to_string(), vec![968.8e-6, 970.1e-6, 0.000_967_5]),
        (B.to_string(), vec![1.234e-4, 1.25e-4]),
    ]);
    base.bless(entries, samples);
    base
}

/// Writes `base` into its folder, replacing what is there.
pub(crate) fn save(base: &Baseline) -> Result<()> {
    Baseline::update(&base.dir, |b| {
        *b = Baseline { sealed: b.sealed, ..base.clone() };
        Ok(Some(()))
    })
    .map(|_| ())
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// The (file name, line, message) of an `Error::Baseline`.
fn baseline_error(result: Result<Baseline>) -> (String, Option<usize>, String) {
    match result {
        Err(Error::Baseline { path, line, message }) => {
            (path.file_name().unwrap().to_string_lossy().into_owned(), line, message)
        }
        other => panic!("expected Error::Baseline, got {other:?}"),
    }
}

#[test]
fn round_trip_through_a_sealed_folder() {
    let dir = tempfile::tempdir().unwrap();
    let key_dir = dir.path().join("baselines").join("nvidia-h200-sm90");
    assert_eq!(key_dir, dir.path().join("baselines/nvidia-h200-sm90"));
    let base = two_trials(&key_dir);
    save(&base).unwrap();
    let loaded = Baseline::load(&key_dir).unwrap();
    assert_eq!(loaded, Baseline { sealed: true, ..base });
    assert!(key_dir.join(MANIFEST_FILE).is_file());
    assert_eq!(loaded.trials(), vec![B, A]);
    assert_eq!(loaded.time(A).unwrap().median, 968.8e-6);
    assert_eq!(loaded.counters(A).map(|e| e.metric.as_str()).collect::<Vec<_>>(), ["dram__bytes_read.sum"]);
    assert_eq!(loaded.counters(B).count(), 0);
    assert_eq!(loaded.samples(B), Some(&[1.234e-4, 1.25e-4][..]));
    assert_eq!(loaded.samples("none/x/1"), None);
    let text = read(&key_dir.join(BASELINE_FILE));
    let mut lines = text.lines();
    assert_eq!(lines.next().unwrap(), ENTRY_COLUMNS.join(","));
    assert_eq!(
        lines.next().unwrap(),
        "3,copy/vec4/16777216,transpose_naive,time,s,1000,0.0001234,1.234e-6,0.0001234,2.468e-6,0.0001234,\
         a30cdc2a4a2c7df9899037e7124ad80bc48cb789,2026-11-30T03:22:13Z,\
         9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08,1980.0,NVIDIA H200,9.0,132,143771,\
         580.159.04,13.0,true,GPU-20ce1a7a-fd28-021f-c48b-96e110fd8d88,1653724057703,96.00.A5.00.1A,00000000:18:00.0,,\
         13.0,"
    );
    assert!(text.contains(",dram__bytes_read.sum,byte,1,268435456.0,0.0,268435456.0,0.0,268435456.0,"), "{text}");
    assert_eq!(
        read(&key_dir.join(SAMPLES_FILE)),
        "schema_version,trial,index,seconds\n1,copy/vec4/16777216,0,0.0001234\n1,copy/vec4/16777216,1,0.000125\n\
         1,transpose/naive/8192x8192,0,0.0009688\n1,transpose/naive/8192x8192,1,0.0009701\n\
         1,transpose/naive/8192x8192,2,0.0009675\n"
    );
    assert_eq!(read(&key_dir.join(RUN_TO_RUN_FILE)), "schema_version,trial,metric,module_sha256,runs,rsd,date\n");
    // A second write of the same baseline commits nothing.
    let manifest = read(&key_dir.join(MANIFEST_FILE));
    save(&loaded).unwrap();
    assert_eq!(read(&key_dir.join(MANIFEST_FILE)), manifest);
}

#[test]
fn bless_of_one_trial_leaves_the_others_rows_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    save(&two_trials(dir.path())).unwrap();
    let rows_of = |text: &str, trial: &str| -> Vec<String> {
        text.lines().filter(|l| l.contains(&format!(",{trial},"))).map(String::from).collect()
    };
    let (old_entries, old_samples) = (read(&dir.path().join(BASELINE_FILE)), read(&dir.path().join(SAMPLES_FILE)));
    let mut blessed = entry(A, TIME_METRIC, 960.0e-6);
    blessed.commit = "0123456789abcdef0123456789abcdef01234567".into();
    Baseline::update(dir.path(), |base| {
        Ok(Some(base.bless(vec![blessed], BTreeMap::from([(A.to_string(), vec![960.0e-6; 4])]))))
    })
    .unwrap();
    let (new_entries, new_samples) = (read(&dir.path().join(BASELINE_FILE)), read(&dir.path().join(SAMPLES_FILE)));
    assert_eq!(rows_of(&new_entries, B), rows_of(&old_entries, B));
    assert_eq!(rows_of(&new_entries, B).len(), 1);
    assert_eq!(rows_of(&new_samples, B), rows_of(&old_samples, B));
    assert_eq!(rows_of(&new_samples, B).len(), 2);
    assert_ne!(rows_of(&new_entries, A), rows_of(&old_entries, A));
    assert_eq!(rows_of(&new_samples, A).len(), 4);
    // A's counter was not among the blessed entries: it is gone.
    assert!(!new_entries.contains("dram__bytes_read.sum"));
}

#[test]
fn changes_list_new_changed_removed_and_omit_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let mut base = two_trials(dir.path());
    let c = "copy/plain/16777216";
    let changes = base.bless(
        vec![
            entry(A, TIME_METRIC, 960.0e-6),          // changed
            entry(A, "l1tex__t_sectors.sum", 1024.0), // new; dram__bytes_read.sum removed
            entry(B, TIME_METRIC, 1.234e-4),          // unchanged
            entry(c, TIME_METRIC, 2.5e-3),            // new trial
        ],
        BTreeMap::new(),
    );
    let shown: Vec<String> = changes.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "copy/plain/16777216 time: new 2.500 ms",
            "transpose/naive/8192x8192 dram__bytes_read.sum: removed",
            "transpose/naive/8192x8192 l1tex__t_sectors.sum: new 1024 byte",
            "transpose/naive/8192x8192 time: 968.8 us -> 960.0 us (-0.9%)",
        ]
    );
    assert_eq!(
        changes[3],
        Change {
            trial: A.into(),
            metric: "time".into(),
            unit: "s".into(),
            before: Some(968.8e-6),
            after: Some(960.0e-6)
        }
    );
    assert!(base.samples.is_empty(), "blessed trials without samples keep none");
    let up = Change { trial: A.into(), metric: "x".into(), unit: String::new(), before: Some(0.0), after: Some(2.0) };
    assert_eq!(up.to_string(), "transpose/naive/8192x8192 x: 0 -> 2");
    let up = Change { before: Some(4.0), after: Some(5.0), unit: "sector".into(), ..up };
    assert_eq!(up.to_string(), "transpose/naive/8192x8192 x: 4 sector -> 5 sector (+25.0%)");
}

#[test]
fn remove_drops_entries_samples_and_spreads_of_the_trials() {
    let dir = tempfile::tempdir().unwrap();
    let mut base = two_trials(dir.path());
    base.calibrate(&BTreeMap::from([((A.to_string(), TIME_METRIC.to_string()), vec![1e-3; 12])]));
    let changes = base.remove(&[A.to_string(), "not/there/1".to_string()]);
    let shown: Vec<String> = changes.iter().map(ToString::to_string).collect();
    assert_eq!(shown, [format!("{A} dram__bytes_read.sum: removed"), format!("{A} time: removed")]);
    assert_eq!(base.trials(), vec![B]);
    assert_eq!(base.samples.keys().collect::<Vec<_>>(), [B]);
    assert!(base.run_to_run.is_empty());
    save(&base).unwrap();
    assert_eq!(Baseline::load(dir.path()).unwrap(), Baseline { sealed: true, ..base });
}

#[test]
#[should_panic(expected = "samples given for trial copy/vec4/16777216")]
fn bless_refuses_samples_of_a_trial_not_blessed() {
    let mut base = Baseline::empty("unused");
    base.bless(vec![entry(A, TIME_METRIC, 1e-3)], BTreeMap::from([(B.to_string(), vec![1e-3])]));
}

/// Schema 1 files, as kernelgate wrote them before the physical GPU identity and validity columns.
const V1_ENTRIES: &str = "schema_version,trial,kernel,metric,unit,n,median,mad,mean,stddev,min,commit,date,\
module_sha256,sm_clock_mhz,gpu_name,compute_capability,sm_count,memory_mib,driver,cuda,ecc
1,copy/vec4/16777216,copy_vec4,time,s,1000,0.0001234,1.234e-6,0.0001234,2.468e-6,0.0001234,\
a30cdc2a4a2c7df9899037e7124ad80bc48cb789,2026-11-30T03:22:13Z,\
9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08,1980.0,NVIDIA H200,9.0,132,143771,580.159.04,13.0,true
";
const V1_SAMPLES: &str = "schema_version,trial,index,seconds\n1,copy/vec4/16777216,0,0.0001234\n";
const V1_SPREAD: &str = "schema_version,trial,module_sha256,runs,median_rsd,date
1,copy/vec4/16777216,9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08,19,0.001,2026-11-30T07:38:17Z
";

#[test]
fn schema_1_folders_load_and_migrate_at_their_first_write() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(BASELINE_FILE), V1_ENTRIES).unwrap();
    std::fs::write(dir.path().join(SAMPLES_FILE), V1_SAMPLES).unwrap();
    std::fs::write(dir.path().join(RUN_TO_RUN_FILE), V1_SPREAD).unwrap();
    let old = Baseline::load(dir.path()).unwrap();
    assert!(!old.sealed);
    let e = old.time(B).unwrap();
    assert_eq!((e.gpu_uuid.as_str(), e.invalid_reason.as_str(), e.median), ("", "", 1.234e-4));
    assert_eq!(old.run_to_run(B).map(|r| (r.metric.as_str(), r.runs, r.rsd)), Some(("time", 19, 0.001)));
    // A read changes nothing; the first write migrates every file and seals the folder.
    assert_eq!(read(&dir.path().join(BASELINE_FILE)), V1_ENTRIES);
    save(&old).unwrap();
    let new = Baseline::load(dir.path()).unwrap();
    assert_eq!(new, Baseline { sealed: true, ..old });
    assert!(read(&dir.path().join(BASELINE_FILE)).starts_with(&ENTRY_COLUMNS.join(",")));
    assert!(read(&dir.path().join(RUN_TO_RUN_FILE)).contains("\n2,copy/vec4/16777216,time,9f86"));
}

#[test]
fn other_schemas_name_the_file_the_line_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let future = V1_ENTRIES.replace("\n1,", "\n4,");
    std::fs::write(dir.path().join(BASELINE_FILE), &future).unwrap();
    let (file, line, message) = baseline_error(Baseline::load(dir.path()));
    assert_eq!((file.as_str(), line), (BASELINE_FILE, Some(2)));
    assert!(message.starts_with("written by a newer kernelgate (schema 4); this one reads up to 3"), "{message}");
    // A row of schema 2 in a schema-1 file.
    let mixed = format!("{V1_ENTRIES}{}", V1_ENTRIES.lines().nth(1).unwrap().replacen("1,copy", "2,copy", 1));
    std::fs::write(dir.path().join(BASELINE_FILE), mixed).unwrap();
    let (_, line, message) = baseline_error(Baseline::load(dir.path()));
    assert_eq!(line, Some(3));
    assert!(message.starts_with("this row has schema_version 2 but the file's first row has 1"), "{message}");
}

/// Writes the two-trial baseline without a manifest (as an older kernelgate did), applies `edit`
/// to `file`'s text, and returns the load error after checking that the failed load wrote nothing.
fn corrupted(file: &str, edit: impl Fn(&str) -> String) -> (String, Option<usize>, String) {
    let dir = tempfile::tempdir().unwrap();
    save(&two_trials(dir.path())).unwrap();
    std::fs::remove_file(dir.path().join(MANIFEST_FILE)).unwrap();
    let path = dir.path().join(file);
    let edited = edit(&read(&path));
    std::fs::write(&path, &edited).unwrap();
    let listing = |d: &Path| {
        let mut v: Vec<_> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name()).collect();
        v.sort();
        v
    };
    let files = listing(dir.path());
    let error = baseline_error(Baseline::load(dir.path()));
    assert_eq!(read(&path), edited, "a failed load never rewrites the file");
    assert_eq!(listing(dir.path()), files, "a failed load writes nothing");
    // A writer refuses too.
    let refused = Baseline::update(dir.path(), |_| Ok(Some(()))).unwrap_err().to_string();
    assert!(refused.contains(&error.2), "{refused}");
    assert_eq!(read(&path), edited);
    error
}

/// `text` with line `n` (1-based) replaced by `f(line)`.
fn edit_line(text: &str, n: usize, f: impl Fn(&str) -> String) -> String {
    text.lines().enumerate().map(|(i, l)| if i + 1 == n { f(l) } else { l.to_string() } + "\n").collect()
}

#[test]
fn corrupt_files_are_errors_naming_file_and_line() {
    // Truncated: the last row cut short, as by a full disk.
    let (file, line, message) = corrupted(BASELINE_FILE, |t| t[..t.len() - 40].to_string());
    assert_eq!((file.as_str(), line), (BASELINE_FILE, Some(4)));
    assert!(message.contains("fields but the header on line 1 has 29"), "{message}");
    assert!(
        message.contains("restore it from a copy (/") && message.contains("/baseline.csv is not in a git work tree)"),
        "{message}"
    );
    assert!(
        message.contains("KERNELGATE_BLESS=1") && message.contains("then `kernelgate baseline reseal /"),
        "{message}"
    );
    // A median that is not a number.
    let (file, line, message) =
        corrupted(BASELINE_FILE, |t| edit_line(t, 3, |l| l.replacen(",268435456.0,", ",12x,", 1)));
    assert_eq!((file.as_str(), line), (BASELINE_FILE, Some(3)));
    assert!(message.starts_with("column `median` holds \"12x\", not a number"), "{message}");
    // NaN, infinity, negative and zero values.
    let (_, line, message) = corrupted(BASELINE_FILE, |t| edit_line(t, 4, |l| l.replacen(",0.0009688,", ",NaN,", 1)));
    assert_eq!(line, Some(4));
    assert!(message.starts_with("column `median` holds NaN; values must be finite"), "{message}");
    let (_, line, message) = corrupted(BASELINE_FILE, |t| edit_line(t, 2, |l| l.replacen(",1980.0,", ",inf,", 1)));
    assert_eq!(line, Some(2));
    assert!(message.starts_with("column `sm_clock_mhz` holds inf"), "{message}");
    let (_, line, message) =
        corrupted(BASELINE_FILE, |t| edit_line(t, 2, |l| l.replacen(",0.0001234,1.234e-6", ",-0.0001234,1.234e-6", 1)));
    assert_eq!(line, Some(2));
    assert!(message.starts_with("column `median` is -0.0001234; durations, counts and spreads are never negative"));
    let (_, _, message) =
        corrupted(BASELINE_FILE, |t| edit_line(t, 2, |l| l.replacen(",0.0001234,1.234e-6", ",0.0,1.234e-6", 1)));
    assert!(message.starts_with("column `median` is 0 s; a time entry's median and mean are positive"), "{message}");
    let (_, _, message) = corrupted(BASELINE_FILE, |t| edit_line(t, 2, |l| l.replacen(",1980.0,", ",0,", 1)));
    assert!(message.starts_with("column `sm_clock_mhz` is 0; a clock is positive"), "{message}");
    // The same (trial, metric) twice.
    let (_, line, message) = corrupted(BASELINE_FILE, |t| {
        let row = t.lines().nth(1).unwrap().to_string();
        format!("{t}{row}\n")
    });
    assert_eq!(line, Some(5));
    assert!(message.contains("metric time appears a second time (first on line 2)"), "{message}");
    // Samples of a trial with no time entry; a negative sample.
    let (file, line, message) = corrupted(SAMPLES_FILE, |t| format!("{t}1,gone/x/1,0,0.001\n"));
    assert_eq!((file.as_str(), line), (SAMPLES_FILE, Some(7)));
    assert!(message.starts_with("samples of trial \"gone/x/1\", which has no time entry"), "{message}");
    let (_, line, message) = corrupted(SAMPLES_FILE, |t| edit_line(t, 3, |l| l.replacen(",0.000125", ",-0.000125", 1)));
    assert_eq!(line, Some(3));
    assert!(message.starts_with("column `seconds` holds -0.000125; a timing sample is never negative"), "{message}");
    // A header column missing (and the rows still full width).
    let (file, line, message) = corrupted(BASELINE_FILE, |t| edit_line(t, 1, |l| l.replace(",mad,", ",")));
    assert_eq!((file.as_str(), line), (BASELINE_FILE, Some(1)));
    assert!(message.starts_with("the header is not kernelgate's: column `mad` is missing."), "{message}");
    assert!(message.ends_with("delete the folder's files and re-bless with KERNELGATE_BLESS=1"), "{message}");
    // No schema_version column at all.
    let (_, line, message) = corrupted(SAMPLES_FILE, |t| edit_line(t, 1, |l| l.replace("schema_version", "version")));
    assert_eq!(line, Some(1));
    assert!(message.starts_with("the header has no `schema_version` column"), "{message}");
    // A gap in the sample indices.
    let (_, line, message) = corrupted(SAMPLES_FILE, |t| edit_line(t, 5, |l| l.replacen(",1,", ",2,", 1)));
    assert_eq!(line, Some(5));
    assert!(message.starts_with("sample index 2 where 1 was expected"), "{message}");
    // An empty file.
    let (_, line, message) = corrupted(BASELINE_FILE, |_| String::new());
    assert_eq!(line, None);
    assert!(message.starts_with("the file is empty"), "{message}");
    // Not RFC 3339.
    let (_, line, message) = corrupted(BASELINE_FILE, |t| t.replacen("2026-11-30T03:22:13Z", "20261130T032213Z", 1));
    assert_eq!(line, Some(2));
    assert!(message.starts_with("column `date` holds \"20261130T032213Z\""), "{message}");
}

#[test]
fn a_sample_of_zero_seconds_loads_for_the_gate_to_judge() {
    let dir = tempfile::tempdir().unwrap();
    let mut base = two_trials(dir.path());
    base.samples.insert(B.to_string(), vec![1.024e-6, 0.0, 1.024e-6]);
    base.entries.iter_mut().filter(|e| e.trial == B).for_each(|e| e.min = 0.0);
    save(&base).unwrap();
    assert_eq!(Baseline::load(dir.path()).unwrap().samples(B), Some(&[1.024e-6, 0.0, 1.024e-6][..]));
}

#[test]
fn run_to_run_calibration_round_trips_and_is_used_only_when_it_fits() {
    let dir = tempfile::tempdir().unwrap();
    let mut base = two_trials(dir.path());
    save(&base).unwrap();
    // A: 10 medians 1 % apart in pairs; B: only 3 runs; A's counter: 10 runs.
    let a: Vec<f64> = (0..10).map(|i| if i % 2 == 0 { 99.0e-6 } else { 101.0e-6 }).collect();
    let key = |t: &str, m: &str| (t.to_string(), m.to_string());
    let counter: Vec<f64> = (0..10).map(|i| 268_435_456.0 + f64::from(i)).collect();
    let (set, said) = base.calibrate(&BTreeMap::from([
        (key(A, TIME_METRIC), a),
        (key(B, TIME_METRIC), vec![1e-4; 3]),
        (key(A, "dram__bytes_read.sum"), counter),
        (key(A, "wild.sum"), (0..10).map(|i| f64::from(i % 2) + 0.1).collect()),
    ]));
    assert_eq!(set, vec![key(A, "dram__bytes_read.sum"), key(A, TIME_METRIC)], "{said:?}");
    assert!(said.iter().any(|s| s.contains("3 runs of the blessed code, 10 needed")), "{said:?}");
    assert!(said.iter().any(|s| s.contains("wild.sum: not calibrated: no entry")), "{said:?}");
    let rsd = base.run_to_run(A).unwrap().rsd;
    assert!((rsd - 0.01 * (10.0f64 / 9.0).sqrt()).abs() < 1e-12, "sample stddev / mean: {rsd}");
    assert!(base.spread(A, "dram__bytes_read.sum").is_some());
    assert!(base.run_to_run(B).is_none());
    save(&base).unwrap();
    let text = read(&dir.path().join(RUN_TO_RUN_FILE));
    assert!(text.starts_with("schema_version,trial,metric,module_sha256,runs,rsd,date\n2,transpose/naive/8192x8192,"));
    let loaded = Baseline::load(dir.path()).unwrap();
    assert_eq!(loaded, Baseline { sealed: true, ..base });
    // A re-bless of other code makes the calibration stale: kept on disk, not used.
    let mut rebless = loaded.clone();
    let mut other = entry(A, TIME_METRIC, 900e-6);
    other.module_sha256 = "0".repeat(64);
    rebless.bless(vec![other], BTreeMap::from([(A.to_string(), vec![900e-6])]));
    assert!(rebless.run_to_run(A).is_none() && rebless.run_to_run.contains_key(&key(A, TIME_METRIC)));
    // A spread too wide to gate with is refused, not taken as a floor.
    let mut unstable = loaded.clone();
    let (set, said) =
        unstable.calibrate(&BTreeMap::from([(key(B, TIME_METRIC), (0..10).map(|i| f64::from(1 + i % 2)).collect())]));
    assert!(set.is_empty());
    assert!(said[0].contains("too unstable on this runner to gate"), "{said:?}");
}

#[test]
fn corrupt_run_to_run_rows_name_file_and_line_and_are_not_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let mut base = two_trials(dir.path());
    base.calibrate(&BTreeMap::from([((A.to_string(), TIME_METRIC.to_string()), vec![1e-3; 12])]));
    save(&base).unwrap();
    std::fs::remove_file(dir.path().join(MANIFEST_FILE)).unwrap();
    let path = dir.path().join(RUN_TO_RUN_FILE);
    let good = read(&path);
    for (edit, line, says) in [
        (good.replace(",12,", ",1,"), 2, "runs is 1"),
        (good.replace(",0.0,", ",-0.5,"), 2, "rsd is -0.5"),
        (good.replace(",0.0,", ",1.7e308,"), 2, "rsd is 170000000"),
        (good.replace(",0.0,", ",0.25,"), 2, "rsd is 0.25"),
        (format!("{good}2,gone/x/1,time,ab,12,0.01,2026-11-30T03:22:13Z\n"), 3, "no entry"),
    ] {
        std::fs::write(&path, &edit).unwrap();
        let (file, at, message) = baseline_error(Baseline::load(dir.path()));
        assert_eq!((file.as_str(), at), (RUN_TO_RUN_FILE, Some(line)), "{message}");
        assert!(message.contains(says), "{message}");
        assert_eq!(read(&path), edit, "a failed load writes nothing");
    }
}

#[test]
fn missing_folder_or_files_are_an_empty_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("baselines/nvidia-h200-sm90");
    assert_eq!(Baseline::load(&missing).unwrap(), Baseline::empty(&missing));
    // A folder of run records only.
    std::fs::create_dir_all(missing.join("runs")).unwrap();
    std::fs::write(missing.join("README.md"), "runs\n").unwrap();
    assert_eq!(Baseline::load(&missing).unwrap(), Baseline::empty(&missing));
    assert_eq!(gpu_keys(&dir.path().join("baselines")).unwrap(), Vec::<String>::new());
    save(&Baseline::empty(dir.path().join("baselines/b-sm80"))).unwrap();
    save(&two_trials(&dir.path().join("baselines/a-sm90"))).unwrap();
    assert_eq!(gpu_keys(&dir.path().join("baselines")).unwrap(), ["a-sm90", "b-sm80"]);
    assert_eq!(gpu_keys(&dir.path().join("nowhere")).unwrap(), Vec::<String>::new());
}

#[test]
fn update_refuses_what_load_would_refuse_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    save(&two_trials(dir.path())).unwrap();
    let snapshot = || {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| e.file_name() != crate::store::LOCK_FILE)
            .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
            .collect();
        v.sort();
        v
    };
    let before = snapshot();
    type Edit = Box<dyn Fn(&mut Baseline)>;
    let cases: Vec<(Edit, &str, &str)> = vec![
        (Box::new(|b| drop(b.bless(vec![entry(A, TIME_METRIC, f64::NAN)], BTreeMap::new()))), BASELINE_FILE, "is NaN"),
        (Box::new(|b| drop(b.bless(vec![entry(A, TIME_METRIC, -1e-3)], BTreeMap::new()))), BASELINE_FILE, "negative"),
        (
            Box::new(|b| {
                drop(b.bless(vec![entry(A, TIME_METRIC, 1e-3), entry(A, TIME_METRIC, 2e-3)], BTreeMap::new()))
            }),
            BASELINE_FILE,
            "two entries for metric time",
        ),
        (
            Box::new(|b| drop(b.bless(vec![entry(A, "x.sum", 1.0)], BTreeMap::from([(A.to_string(), vec![1e-3])])))),
            SAMPLES_FILE,
            "no time entry",
        ),
        (Box::new(|b| drop(b.samples.insert(B.to_string(), vec![-1.0]))), SAMPLES_FILE, "not a number of seconds >= 0"),
    ];
    for (edit, file, says) in cases {
        match Baseline::update(dir.path(), |b| {
            edit(b);
            Ok(Some(()))
        }) {
            Err(Error::Baseline { path, line: None, message }) => {
                assert_eq!(path, dir.path().join(file));
                assert!(message.starts_with("not saved: ") && message.contains(says), "{message}");
            }
            other => panic!("expected Error::Baseline, got {other:?}"),
        }
        assert_eq!(snapshot(), before, "{says}: nothing written");
    }
}

#[test]
fn a_cut_file_in_a_sealed_folder_is_named_with_both_sizes() {
    let dir = tempfile::tempdir().unwrap();
    save(&two_trials(dir.path())).unwrap();
    let path = dir.path().join(SAMPLES_FILE);
    let text = read(&path);
    // Cut at a line boundary: still valid CSV, but not what the manifest vouches for.
    let cut: String = text.lines().take(3).map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, &cut).unwrap();
    match Baseline::load(dir.path()) {
        Err(Error::Store { path: p, message, .. }) => {
            assert_eq!(p, path);
            assert!(message.contains(&format!("holds {} bytes (3 lines", cut.len())), "{message}");
            assert!(message.contains("vouches for") && message.contains("(6 lines"), "{message}");
            assert!(message.contains("kernelgate baseline reseal"), "{message}");
        }
        other => panic!("expected Error::Store, got {other:?}"),
    }
    // Reseal refuses nothing here (the cut file is valid CSV) and vouches for it on request.
    std::fs::write(&path, &text).unwrap();
    assert!(Baseline::load(dir.path()).is_ok());
}

#[test]
fn reseal_seals_a_record_from_before_run_to_run_csv_with_all_three_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(BASELINE_FILE), V1_ENTRIES).unwrap();
    std::fs::write(dir.path().join(SAMPLES_FILE), V1_SAMPLES).unwrap();
    assert_eq!(Baseline::reseal(dir.path()).unwrap(), 1);
    assert_eq!(read(&dir.path().join(RUN_TO_RUN_FILE)), RUN_TO_RUN_COLUMNS.join(",") + "\n");
    let loaded = Baseline::load(dir.path()).unwrap();
    assert!(loaded.sealed && loaded.time(B).is_some());
    assert_eq!(read(&dir.path().join(BASELINE_FILE)), V1_ENTRIES, "reseal vouches for the files as they are");
    // A second reseal, and a write, work on it.
    assert_eq!(Baseline::reseal(dir.path()).unwrap(), 2);
    Baseline::update(dir.path(), |b| Ok(Some(b.remove(&[B.to_string()])))).unwrap();
}

#[test]
fn a_baseline_of_another_driver_or_nvrtc_is_named_with_both() {
    let e = entry(A, TIME_METRIC, 1e-3);
    let now = |driver, cuda, nvrtc| Environment { driver, cuda, nvrtc };
    assert_eq!(e.other_environment(&now("580.159.04", "13.0", "13.0")), None);
    assert_eq!(
        e.other_environment(&now("590.48.01", "13.1", "13.0")).as_deref(),
        Some(
            "the baseline was measured with driver 580.159.04 (CUDA 13.0, NVRTC 13.0), this run with 590.48.01 \
             (CUDA 13.1, NVRTC 13.0)"
        )
    );
    assert!(e.other_environment(&now("580.159.04", "13.1", "13.0")).is_some(), "the same driver version, another CUDA");
    assert!(e.other_environment(&now("580.159.04", "13.0", "13.2")).is_some(), "the same driver, another NVRTC");
    let unrecorded = Entry { driver: String::new(), cuda: String::new(), nvrtc: String::new(), ..e.clone() };
    assert_eq!(unrecorded.other_environment(&now("590.48.01", "13.1", "13.2")), None);
    let schema2 = Entry { nvrtc: String::new(), ..e };
    assert_eq!(
        schema2.other_environment(&now("590.48.01", "13.0", "13.2")).as_deref(),
        Some("the baseline was measured with driver 580.159.04 (CUDA 13.0), this run with 590.48.01 (CUDA 13.0)"),
        "an NVRTC the entry did not record is not compared"
    );
    let counter =
        Entry { metric: "dram__bytes_read.sum".into(), ncu: "2025.3.1.0".into(), ..entry(A, TIME_METRIC, 1.0) };
    assert_eq!(counter.other_ncu("2025.3.1.0"), None);
    assert_eq!(
        counter.other_ncu("2026.2.0.0").as_deref(),
        Some("the baseline's counters were measured with ncu 2025.3.1.0, this run's with 2026.2.0.0")
    );
}

/// The release each GPU folder's runners load PTX of: the oldest `cuda` among its entries; a
/// folder without a `baseline.csv` (an architecture's tables) is no GPU folder.
#[test]
fn runner_cuda_is_each_gpu_folders_oldest_driver_release() {
    let dir = tempfile::tempdir().unwrap();
    let write = |key: &str, rows: &[&str]| {
        std::fs::create_dir_all(dir.path().join(key)).unwrap();
        let text = std::iter::once("trial,cuda").chain(rows.iter().copied()).collect::<Vec<_>>().join("\n");
        std::fs::write(dir.path().join(key).join(BASELINE_FILE), text + "\n").unwrap();
    };
    write("nvidia-h200-sm90", &["a,13.0", "b,12.9", "c,13.1"]);
    write("nvidia-b200-sm100", &["a,", "b,13.1"]);
    write("no-release", &["a,"]);
    std::fs::create_dir_all(dir.path().join("sm_90")).unwrap();
    let found = runner_cuda(dir.path(), Path::new("/elsewhere")).unwrap();
    let at = |key: &str| dir.path().join(key).display().to_string();
    assert_eq!(found, [(at("nvidia-b200-sm100"), "13.1".to_string()), (at("nvidia-h200-sm90"), "12.9".to_string())]);
    // Under the project's root, named from it.
    let found = runner_cuda(dir.path(), dir.path().parent().unwrap()).unwrap();
    let name = dir.path().file_name().unwrap().to_string_lossy();
    assert_eq!(found[1].0, format!("{name}/nvidia-h200-sm90"));
    assert!(runner_cuda(&dir.path().join("missing"), dir.path()).unwrap().is_empty());
}
