//! Tests of the history queries, on synthetic stores (made-up numbers, not measurements).

use super::*;

const KEY: &str = "nvidia-h200-sm90";

#[test]
fn sides_on_other_physical_gpus_are_named() {
    let a = run("20261130T000000Z", "GPU-aaaaaaaa-1", &"a".repeat(40), "s", 1e-4);
    let b = run("20261130T010000Z", "GPU-bbbbbbbb-2", &"b".repeat(40), "s", 1e-4);
    let note = other_gpus_note(std::slice::from_ref(&a), std::slice::from_ref(&b)).unwrap();
    assert!(note.contains("old: GPU-aaaaaaaa; new: GPU-bbbbbbbb"), "{note}");
    assert_eq!(other_gpus_note(std::slice::from_ref(&a), std::slice::from_ref(&a)), None);
}

#[test]
fn the_nightly_exit_code_keeps_the_kinds_apart() {
    assert_eq!(nightly_exit(0, Outcome::Pass).0, 0);
    assert_eq!(nightly_exit(0, Outcome::Regressed).0, EXIT_REGRESSED);
    assert_eq!(nightly_exit(0, Outcome::Invalid).0, EXIT_INVALID);
    assert_eq!(nightly_exit(3, Outcome::Pass).0, EXIT_REGRESSED);
    assert_eq!(nightly_exit(0, Outcome::NewGpu).0, EXIT_NEW_GPU);
    assert_eq!(nightly_exit(2, Outcome::Pass).0, 2);
    let (code, why) = nightly_exit(101, Outcome::Regressed);
    assert_eq!(code, 1);
    assert!(why.unwrap().contains("exit 101"));
}

/// A synthetic run (made-up numbers, not a measurement): trials `fam/k/1` and `fam/k/2`, each
/// with `median` (s), `noise` (%) and one counter; `fam/k/1`'s median is `median`.
fn run(run_id: &str, gpu_uuid: &str, commit: &str, subject: &str, median: f64) -> Run {
    let mut r = crate::history::tests::run(run_id, gpu_uuid, commit, 0);
    r.meta.subject = subject.into();
    for (trial, t) in [("fam/k/1", median), ("fam/k/2", 2e-4)] {
        for (metric, unit, value) in [("median", "s", t), ("noise", "%", 0.5), ("dram__bytes_read.sum", "byte", 1e6)] {
            r.values.push(Value {
                trial: trial.into(),
                kernel: "k".into(),
                metric: metric.into(),
                unit: unit.into(),
                value,
                ci_low: None,
                ci_high: None,
                verdict: "unchanged".into(),
                decided_by: "time".into(),
            });
        }
    }
    r
}

/// Synthetic noise in [0, 0.004): deterministic, not a measurement.
fn wobble(i: usize) -> f64 {
    0.004 * ((i * 7919) % 13) as f64 / 13.0
}

fn commit(i: usize) -> String {
    format!("c0f{i:02}{}", "e".repeat(35))
}

/// 30 commits, each run once on GPU-aaaa and once on GPU-bbbb (5 % slower machine); `fam/k/1`
/// becomes 30 % slower on both from commit 20 on. Run ids are in commit order.
fn store_with_step(dir: &Path) {
    let mut store = HistoryStore::open(dir, KEY, "baselines".as_ref()).unwrap();
    for i in 0..30 {
        for (g, uuid) in ["GPU-aaaa-0000-1111", "GPU-bbbb-0000-1111"].into_iter().enumerate() {
            let level = if i >= 20 { 1.3e-4 } else { 1e-4 };
            let value = level * (1.0 + 0.05 * g as f64 + wobble(i + g));
            let mut r = run(&format!("202611{:02}T000000Z", i + 1), uuid, &commit(i), &format!("change {i}"), value);
            r.meta.commit_time = Some(1_764_000_000 + i as i64);
            store.append(&r).unwrap();
        }
    }
}

#[test]
fn specs_are_told_apart() {
    assert_eq!(Spec::parse("runs/x.csv").unwrap(), Spec::File("runs/x.csv".into()));
    assert_eq!(
        Spec::parse("20261130T120000Z@GPU-20ce").unwrap(),
        Spec::Run { run_id: "20261130T120000Z".into(), gpu_uuid: Some("GPU-20ce".into()) }
    );
    assert_eq!(
        Spec::parse("20261130T120000Z-2").unwrap(),
        Spec::Run { run_id: "20261130T120000Z-2".into(), gpu_uuid: None }
    );
    assert_eq!(Spec::parse("C0FFEE").unwrap(), Spec::Commit("c0ffee".into()));
    for bad in ["abc", "main", "c0ffee@GPU"] {
        let err = Spec::parse(bad).unwrap_err().to_string();
        assert!(err.contains("neither a run CSV"), "{bad}: {err}");
    }
}

#[test]
fn sides_resolve_from_commits_and_run_ids() {
    let dir = tempfile::tempdir().unwrap();
    store_with_step(dir.path());
    // A commit: its runs on both GPUs.
    let side = resolve_side(dir.path(), &commit(3)[..10], None, "baselines".as_ref()).unwrap();
    assert_eq!(side.runs.len(), 2);
    assert_eq!(side.side.label, format!("{} change 3", &commit(3)[..7]));
    assert_eq!(side.side.gpu, KEY);
    assert_eq!(side.rows.len(), 12);
    // A run id on two GPUs is ambiguous until one is picked.
    let err = resolve_side(dir.path(), "20261104T000000Z", None, "baselines".as_ref()).unwrap_err().to_string();
    assert!(err.contains("several GPUs") && err.contains("20261104T000000Z@GPU-bbbb-0000-1111"), "{err}");
    let side = resolve_side(dir.path(), "20261104T000000Z@GPU-bbbb", Some(KEY), "baselines".as_ref()).unwrap();
    assert_eq!(side.runs.len(), 1);
    assert_eq!(side.side.gpu, format!("{KEY} (GPU-bbbb-000)"));
    // A prefix of several commits, and none.
    let err = resolve_side(dir.path(), "c0f1", None, "baselines".as_ref()).unwrap_err().to_string();
    assert!(
        err.contains("ambiguous") && err.contains("c0f10ee change 10") && err.contains("change 19\ngive more"),
        "{err}"
    );
    let err = resolve_side(dir.path(), "dead", None, "baselines".as_ref()).unwrap_err().to_string();
    assert!(err.contains("no run of a commit starting \"dead\"") && err.contains("change 29"), "{err}");
    assert!(err.contains("10 older commits not shown"), "{err}");
    let err = resolve_side(dir.path(), "20991231T000000Z", None, "baselines".as_ref()).unwrap_err().to_string();
    assert!(err.contains("no run \"20991231T000000Z\""), "{err}");
    // The same commit in two GPU keys needs --gpu.
    let mut other = HistoryStore::open(dir.path(), "nvidia-l4-sm89", "baselines".as_ref()).unwrap();
    let mut r = run("20261101T000000Z", "GPU-cccc", &commit(0), "change 0", 1e-4);
    r.meta.gpu_key = "nvidia-l4-sm89".into();
    other.append(&r).unwrap();
    let err = resolve_side(dir.path(), &commit(0), None, "baselines".as_ref()).unwrap_err().to_string();
    assert!(err.contains("several GPU keys (nvidia-h200-sm90, nvidia-l4-sm89); pass --gpu"), "{err}");
    assert_eq!(
        resolve_side(dir.path(), &commit(0), Some("nvidia-l4-sm89"), "baselines".as_ref()).unwrap().runs.len(),
        1
    );
    let err =
        resolve_side(dir.path(), &commit(0), Some("nvidia-a100-sm80"), "baselines".as_ref()).unwrap_err().to_string();
    assert!(err.contains("no history for GPU key \"nvidia-a100-sm80\""), "{err}");
}

#[test]
fn a_run_csv_is_a_side_with_its_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let header = "schema_version,run_id,commit,dirty,gpu_key,gpu_name,compute_capability,sm_count,memory_mib,\
        driver,cuda,nvrtc,ecc,gpu_uuid,gpu_serial,vbios,pci_bus_id,copy_bandwidth_gbps,seed,work_scale,trial,\
        kernel,module_sha256,verdict,decided_by,ab_revision,throttle_reasons,other_processes,statistic,value,unit";
    let c = "a".repeat(40);
    let row = format!(
        "4,20260101T000000Z,{c},false,{KEY},Test GPU,9.0,1,1,d,c,n,true,GPU-x,s,v,p,1.0,7,1.0,fam/k/1,k,h,regressed,time,,,"
    );
    let csv = dir.path().join("20260101T000000Z.csv");
    std::fs::write(&csv, format!("{header}\n{row},median,0.25,s\n{row},noise,1.5,%\n")).unwrap();
    std::fs::write(
        dir.path().join("20260101T000000Z-metrics.csv"),
        format!(
            "schema_version,run_id,commit,dirty,gpu_key,ncu_version,clock_control,chip,trial,kernel,metric,value,unit\n\
             4,20260101T000000Z,{c},false,{KEY},2025.3,none,384,fam/k/1,k,dram__bytes_read.sum,100.0,byte\n"
        ),
    )
    .unwrap();
    let side = resolve_side(&dir.path().join("no-history"), csv.to_str().unwrap(), None, "baselines".as_ref()).unwrap();
    assert_eq!(side.side.label, "20260101T000000Z.csv (aaaaaaa)");
    assert_eq!(side.gpu_key, KEY);
    let metrics: Vec<&str> = side.rows.iter().map(|m| m.metric.as_str()).collect();
    assert!(metrics.contains(&"median") && metrics.contains(&"dram__bytes_read.sum"), "{metrics:?}");
    assert!(side.rows.iter().all(|m| m.verdict == "regressed"));
    let err = resolve_side(dir.path(), "missing.csv", None, "baselines".as_ref()).unwrap_err().to_string();
    assert!(err.contains("missing.csv"), "{err}");
}

/// A run CSV of its header alone (a run that timed no trial of the run CSV: `record::claim_stem`)
/// is named as such where one run is wanted, as a side or as `--run`.
#[test]
fn a_run_csv_of_its_header_alone_is_no_side() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("20260101T000000Z-aaaaaaa.csv");
    std::fs::write(&csv, format!("{}\n", crate::record::RUN_CSV_HEADER)).unwrap();
    let side = resolve_side(&dir.path().join("no-history"), csv.to_str().unwrap(), None, "baselines".as_ref());
    let run = run_id_of(csv.to_str().unwrap());
    for err in [side.map(|_| ()).unwrap_err(), run.map(|_| ()).unwrap_err()] {
        let err = err.to_string();
        assert!(err.contains("20260101T000000Z-aaaaaaa.csv: holds no run: it is a run CSV's header alone"), "{err}");
    }
}

#[test]
fn change_points_are_found_per_gpu_and_mapped_back() {
    // Synthetic: GPU a and b interleaved, b 5 % slower; a steps up 30 % at its 12th value; a
    // NaN on a is skipped.
    let (mut gpus, mut values) = (Vec::new(), Vec::new());
    for i in 0..24 {
        gpus.push("a");
        values.push(if i >= 12 { 1.3 } else { 1.0 } + wobble(i));
        gpus.push("b");
        values.push(1.05 + wobble(i + 5));
    }
    values[2] = f64::NAN;
    let found = per_gpu_change_points(&gpus, &values, &options());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, 24, "the 12th value of GPU a is point 24");
    assert!((found[0].1.change - 0.3).abs() < 0.01, "{:?}", found[0].1);
    // Mixed into one series, the machine offset alone is a change point: why they are split.
    let mixed: Vec<f64> = (0..48).map(|i| if i < 24 { 1.0 } else { 1.05 } + wobble(i)).collect();
    assert!(!changepoint::detect(&mixed, &options()).unwrap().is_empty());
    let found =
        per_gpu_change_points(&vec!["a"; 24].into_iter().chain(vec!["b"; 24]).collect::<Vec<_>>(), &mixed, &options());
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn trends_and_show_mark_the_step_on_each_gpu() {
    let dir = tempfile::tempdir().unwrap();
    store_with_step(dir.path());
    let trends = trends(dir.path(), KEY, &["fam/k/1", "fam/k/2", "fam/none/1"], "baselines".as_ref()).unwrap();
    assert_eq!(trends.len(), 2, "a trial without history has no trend");
    let t = &trends[0];
    assert_eq!((t.trial.as_str(), t.unit.as_str(), t.points.len()), ("fam/k/1", "s", 60));
    let at: Vec<(&str, &str)> =
        t.change_points.iter().map(|&i| (t.points[i].label.as_str(), t.points[i].gpu.as_str())).collect();
    assert_eq!(at, [(&commit(20)[..7], "GPU-aaaa-000"), (&commit(20)[..7], "GPU-bbbb-000")]);
    assert!(trends[1].change_points.is_empty());

    let text = show(dir.path(), None, "fam/k/1", "median", "baselines".as_ref()).unwrap();
    assert!(text.starts_with("fam/k/1 median on nvidia-h200-sm90: 60 runs\n"), "{text}");
    assert!(
        text.contains(&format!("  {}  20261101T000000Z   GPU-aaaa-000       100.0 us  unchanged\n", &commit(0)[..7])),
        "{text}"
    );
    let cps: Vec<&str> = text.lines().filter(|l| l.contains("change point at")).collect();
    assert_eq!(cps.len(), 2, "{text}");
    assert!(
        cps[0].starts_with(&format!("  GPU-aaaa-000: change point at {} (change 20): +3", &commit(20)[..7])),
        "{text}"
    );
    let err = show(dir.path(), None, "fam/k/9", "median", "baselines".as_ref()).unwrap_err().to_string();
    assert!(err.contains("no median of trial \"fam/k/9\""), "{err}");
}

#[test]
fn changes_are_newest_first_and_since_filters() {
    let dir = tempfile::tempdir().unwrap();
    store_with_step(dir.path());
    let text = changes(dir.path(), None, None, None, "baselines".as_ref()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("nvidia-h200-sm90: 2 change points ("), "{text}");
    assert!(lines[1].starts_with("  GPU-bbbb-000 fam/k/1 median 20261121T000000Z at "), "{text}");
    assert!(lines[2].starts_with("  GPU-aaaa-000 fam/k/1 median 20261121T000000Z at "), "{text}");
    let text = changes(dir.path(), Some(KEY), Some("median"), Some(&commit(21)[..12]), "baselines".as_ref()).unwrap();
    assert!(text.starts_with("nvidia-h200-sm90: 0 change points"), "{text}");
    let err = changes(dir.path(), None, None, Some("c0f1"), "baselines".as_ref()).unwrap_err().to_string();
    assert!(err.contains("more than one commit"), "{err}");
}

#[test]
fn the_gate_decides_on_verdicts_and_change_points() {
    let none: HostBound = &|_| None;
    let texts = |d: &Decision| d.reasons.iter().map(|r| r.text.clone()).collect::<Vec<_>>();
    let base = run("20261201T000000Z", "GPU-a", &commit(5), "s", 1e-4);
    assert_eq!(decide(&base, &[], none).outcome, Outcome::Pass);
    let mut invalid = base.clone();
    invalid.values[3].verdict = "invalid".into();
    let d = decide(&invalid, &[], none);
    assert_eq!((d.outcome, d.outcome.exit_code()), (Outcome::Invalid, 4));
    assert_eq!(texts(&d), ["invalid: fam/k/2 (decided by time)"]);
    assert_eq!(
        (d.reasons[0].finding, d.reasons[0].trial.as_str(), &d.reasons[0].not_gating),
        (Finding::Invalid, "fam/k/2", &None)
    );
    let mut regressed = invalid.clone();
    regressed.values[0].verdict = "regressed".into();
    let d = decide(&regressed, &[], none);
    assert_eq!((d.outcome, d.outcome.exit_code()), (Outcome::Regressed, 3));
    assert_eq!(texts(&d), ["regressed: fam/k/1 (decided by time)", "invalid: fam/k/2 (decided by time)"]);

    let cp = ChangePoint { index: 5, before: 1e-4, after: 1.3e-4, change: 0.3, p_value: 1e-9 };
    let here = base.meta.clone();
    let d = decide(&base, &[("fam/k/1".into(), here.clone(), cp)], none);
    assert_eq!(d.outcome, Outcome::Regressed);
    assert!(
        d.reasons[0].text.starts_with("change point: fam/k/1 at c0f05ee (s): +30.0 % (mean 100.0 us -> 130.0 us)")
            && d.reasons[0].finding == Finding::ChangePoint,
        "{:?}",
        d.reasons
    );
    let faster = ChangePoint { before: 1.3e-4, after: 1e-4, change: -0.23, ..cp };
    assert_eq!(decide(&base, &[("fam/k/1".into(), here.clone(), faster)], none).outcome, Outcome::Pass);
    let elsewhere = RunMeta { commit: commit(4), ..here.clone() };
    assert_eq!(decide(&base, &[("fam/k/1".into(), elsewhere, cp)], none).outcome, Outcome::Pass);
    let other_gpu = RunMeta { gpu_uuid: "GPU-b".into(), ..here };
    assert_eq!(decide(&base, &[("fam/k/1".into(), other_gpu, cp)], none).outcome, Outcome::Pass);

    // A host-bound trial: its invalid runs and change points are listed and do not gate; its own
    // regressed verdict (past a calibrated floor) still does.
    let pageable: HostBound =
        &|t: &str| (t == "fam/k/2" || t == "fam/k/1").then(|| "host-bound: pageable copies".to_string());
    let d = decide(&invalid, &[], pageable);
    assert_eq!(d.outcome, Outcome::Pass, "{:?}", d.reasons);
    assert_eq!(texts(&d), ["not gating: invalid: fam/k/2 (decided by time); host-bound: pageable copies"]);
    assert_eq!(d.reasons[0].not_gating.as_deref(), Some("host-bound: pageable copies"));
    let d = decide(&base, &[("fam/k/1".into(), base.meta.clone(), cp)], pageable);
    assert_eq!(d.outcome, Outcome::Pass);
    assert!(d.reasons[0].text.starts_with("not gating: change point: fam/k/1 at c0f05ee"), "{:?}", d.reasons);
    assert_eq!(decide(&regressed, &[], pageable).outcome, Outcome::Regressed);
}

#[test]
fn append_many_is_all_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap();
    let a = run("20261101T000000Z", "GPU-a", &commit(0), "s", 1e-4);
    let b = run("20261102T000000Z", "GPU-a", &commit(1), "s", 1e-4);
    assert_eq!(store.append_many(&[a.clone(), b.clone()]).unwrap(), 12);
    assert_eq!(store.append_many(std::slice::from_ref(&a)).unwrap(), 0, "idempotent as append");
    let c = run("20261103T000000Z", "GPU-a", &commit(2), "s", 1e-4);
    let mut changed = b;
    changed.values[0].value = 2e-4;
    let err = store.append_many(&[c, changed]).unwrap_err().to_string();
    assert!(err.contains("stored already"), "{err}");
    assert_eq!(store.runs(None).unwrap().len(), 2, "the run before the conflict was not appended either");
}

#[test]
fn the_gate_reads_the_latest_run() {
    let dir = tempfile::tempdir().unwrap();
    let err = gate(dir.path(), None, None, &|_| None, "perf/baselines".as_ref()).unwrap_err().to_string();
    assert!(err.contains("no history here"), "{err}");
    // The fix names the project's baselines folder, as handed down.
    assert!(err.contains("`kernelgate history import perf/baselines/*/runs` fills it from run CSVs"), "{err}");
    store_with_step(dir.path());
    let (text, outcome) = gate(dir.path(), None, None, &|_| None, "baselines".as_ref()).unwrap();
    assert_eq!(outcome, Outcome::Pass, "{text}");
    assert_eq!(text.lines().count(), 2, "both GPUs of the latest run id: {text}");
    // The runs of the step's commit: its change point is an increase there.
    let (text, outcome) =
        gate(dir.path(), Some(KEY), Some("20261121T000000Z"), &|_| None, "baselines".as_ref()).unwrap();
    assert_eq!(outcome, Outcome::Regressed, "{text}");
    assert!(text.contains("REGRESSED\n  change point: fam/k/1 at "), "{text}");
    let err =
        gate(dir.path(), None, Some("20991231T000000Z"), &|_| None, "baselines".as_ref()).unwrap_err().to_string();
    assert!(err.contains("no run \"20991231T000000Z\""), "{err}");
}

/// The history's load benchmark: 1,001,000 synthetic values (35 trials x 20 metrics x 1,430 runs, on two
/// physical GPUs; made-up numbers with a 5 % step in one trial) stored in bulk, then timed:
/// open + load every series + change points of every series per GPU (2 threads). Prints the
/// seconds. `cargo test --release --lib history::query::tests::bench_changes -- --ignored --nocapture`.
#[test]
#[ignore = "benchmark: prints timings"]
fn bench_changes() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap();
    let start = std::time::Instant::now();
    let runs: Vec<Run> = (0..1430)
        .map(|i| {
            let uuid = if i % 2 == 0 { "GPU-aaaa" } else { "GPU-bbbb" };
            let mut r = run(&format!("run-{i:05}"), uuid, &format!("{i:040x}"), "synthetic", 0.0);
            r.meta.commit_time = Some(1_700_000_000 + i as i64);
            r.values.clear();
            for t in 0..35 {
                for m in 0..20 {
                    let step = if t == 0 && i >= 1000 { 1.05 } else { 1.0 };
                    r.values.push(Value {
                        trial: format!("fam/k{t}/1"),
                        kernel: "k".into(),
                        metric: if m == 0 { "median".into() } else { format!("counter_{m}.sum") },
                        unit: if m == 0 { "s".into() } else { "".into() },
                        value: (1.0 + m as f64) * step * (1.0 + wobble(i * 31 + t * 7 + m)),
                        ci_low: None,
                        ci_high: None,
                        verdict: "unchanged".into(),
                        decided_by: "time".into(),
                    });
                }
            }
            r
        })
        .collect();
    assert_eq!(store.append_many(&runs).unwrap(), 1_001_000);
    println!("append_many of 1,001,000 values: {:.2} s", start.elapsed().as_secs_f64());
    drop(store);
    let start = std::time::Instant::now();
    let store = HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap();
    let all = store.all_series().unwrap();
    let loaded = start.elapsed().as_secs_f64();
    let found = all_change_points(&all, None, &options(), 2);
    let total = start.elapsed().as_secs_f64();
    println!(
        "open + load {} values in {} series: {loaded:.3} s; + change points per GPU ({} found): {total:.3} s",
        all.series.iter().map(|s| s.points.len()).sum::<usize>(),
        all.series.len(),
        found.len()
    );
    // The step is in every metric of fam/k0/1, on both GPUs; nothing else moves.
    assert_eq!(found.len(), 40);
    assert!(found.iter().all(|f| all.series[f.series].trial == "fam/k0/1"
        && ["run-01000", "run-01001"].contains(&all.runs[f.run].run_id.as_str())));
}
