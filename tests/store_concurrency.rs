//! Concurrent writers of one baseline folder, as separate processes: `kernelgate baseline remove`
//! twice, `calibrate` and `bless` from a run record, started together, 100 rounds. Every round
//! ends with a folder that loads and holds exactly the four committed changes: nothing lost,
//! nothing corrupt (without a lock, 15 of 20 double removals lost one).

mod support;

use kernelgate::gate::baseline::{Baseline, Entry, TIME_METRIC};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;

const TRIALS: [&str; 6] = ["f/a/1", "f/b/1", "f/c/1", "f/d/1", "f/e/1", "f/f/1"];
const MODULE: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

fn entry(trial: &str, median: f64) -> Entry {
    Entry {
        trial: trial.into(),
        kernel: "k".into(),
        metric: TIME_METRIC.into(),
        unit: "s".into(),
        n: 100,
        median,
        mad: median / 1000.0,
        mean: median,
        stddev: median / 500.0,
        min: median * 0.99,
        commit: "2ecd649bb702038ebe38bf39119245925f0e22af".into(),
        date: "2026-11-30T08:37:11Z".into(),
        module_sha256: MODULE.into(),
        sm_clock_mhz: Some(1980.0),
        gpu_name: "NVIDIA H200".into(),
        compute_capability: "9.0".into(),
        sm_count: 132,
        memory_mib: 143_155,
        driver: "580.159.04".into(),
        cuda: "13.0".into(),
        ecc: true,
        gpu_uuid: "GPU-cd3639b2-5aae-bb6c-2a9f-6934de51e138".into(),
        gpu_serial: String::new(),
        vbios: String::new(),
        pci_bus_id: String::new(),
        invalid_reason: String::new(),
        nvrtc: String::new(),
        ncu: String::new(),
    }
}

/// Writes a record or baseline folder with every trial at `median` (x its index), plus the run
/// CSV beside it when `stem` names one.
fn write_record(dir: &Path, scale: f64) {
    Baseline::update(dir, |b| {
        let entries = TRIALS.iter().enumerate().map(|(i, t)| entry(t, 1e-4 * (1.0 + i as f64) * scale)).collect();
        let samples = TRIALS
            .iter()
            .enumerate()
            .map(|(i, t)| {
                (t.to_string(), (0..50).map(|k| 1e-4 * (1.0 + i as f64) * scale * (1.0 + 1e-4 * k as f64)).collect())
            })
            .collect();
        b.bless(entries, samples);
        Ok(Some(()))
    })
    .unwrap();
    let stem = dir.file_name().unwrap().to_str().unwrap().strip_suffix("-baseline").map(str::to_string);
    if let Some(stem) = stem {
        std::fs::write(dir.with_file_name(format!("{stem}.csv")), "schema_version,work_scale,trial\n4,1,f/a/1\n")
            .unwrap();
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn remove_remove_calibrate_and_bless_at_once_lose_nothing() {
    // On tmpfs where there is one: the same code, without waiting on a disk's fsync (35 ms a commit
    // on CI's disk, 14 s for the 400 commits).
    let shm = Path::new("/dev/shm");
    let tmp = if shm.is_dir() { tempfile::tempdir_in(shm) } else { tempfile::tempdir() }.unwrap();
    let template = tmp.path().join("template");
    write_record(&template, 1.0);
    let runs = tmp.path().join("runs");
    let records: Vec<String> = (0..9)
        .map(|i| {
            let dir = runs.join(format!("20261130T0{i}0000Z-2ecd649-baseline"));
            write_record(&dir, 1.0 + 0.001 * (i as f64 - 4.0));
            dir.to_string_lossy().into_owned()
        })
        .collect();
    let blessed_from = runs.join("20261130T100000Z-2ecd649-baseline");
    write_record(&blessed_from, 1.5);
    let bin = support::kernelgate_binary();
    let baselines = tmp.path().join("baselines");
    let dir = baselines.join("nvidia-h200-sm90");
    for round in 0..100 {
        let _ = std::fs::remove_dir_all(&dir);
        copy_dir(&template, &dir);
        let g0 = Baseline::load(&dir).map(|_| ()).and(Ok(generation(&dir))).unwrap();
        let mut calibrate = vec!["baseline", "calibrate"];
        calibrate.extend(records.iter().map(String::as_str));
        let commands: Vec<Vec<&str>> = vec![
            vec!["baseline", "remove", "f/a/1"],
            vec!["baseline", "remove", "f/b/1"],
            calibrate,
            vec!["baseline", "bless", blessed_from.to_str().unwrap(), "f/c/1"],
        ];
        let children: Vec<_> = commands
            .iter()
            .map(|args| {
                support::command(bin)
                    .args(args)
                    .env("KERNELGATE_BASELINES", &baselines)
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for (child, args) in children.into_iter().zip(&commands) {
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success(), "round {round}: {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        }
        let base = Baseline::load(&dir).unwrap_or_else(|e| panic!("round {round}: the folder no longer loads: {e}"));
        assert_eq!(generation(&dir), g0 + 4, "round {round}: one commit per command");
        assert!(base.time("f/a/1").is_none() && base.time("f/b/1").is_none(), "round {round}: both removals kept");
        assert_eq!(base.time("f/c/1").unwrap().median, 1e-4 * 3.0 * 1.5, "round {round}: the bless kept");
        for t in ["f/d/1", "f/e/1", "f/f/1"] {
            assert!(base.run_to_run(t).is_some(), "round {round}: the calibration of {t} kept");
        }
        let leftovers: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".new"))
            .collect();
        assert!(leftovers.is_empty(), "round {round}: {leftovers:?}");
    }
}

/// The generation of a sealed folder's manifest.
fn generation(dir: &Path) -> u64 {
    let text = std::fs::read_to_string(dir.join("manifest.json")).unwrap();
    let m: BTreeMap<String, serde_json::Value> = serde_json::from_str(&text).unwrap();
    m["generation"].as_u64().unwrap()
}
