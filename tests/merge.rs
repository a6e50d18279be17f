//! `kernelgate merge` of the results of a pool's jobs, read from files as CI leaves them: real run
//! CSVs (excerpts of two H200 runs, tests/fixtures/export/) and an A/B JSON of another GPU kind,
//! with the plan the jobs ran. A shard that regressed fails the merge (exit 3), one that did not
//! report is named with its `--partition` value (exit 4, never a pass), and each GPU kind is a
//! column.

mod support;

use kernelgate::report::ab::{AbReport, AbTrial, GpuIdentity, Side};
use std::path::Path;

const RUN: &str = "tests/fixtures/export/run-62a8c02-excerpt.csv";
const TRIALS: [&str; 4] = [
    "coalescing/copy/67108864",
    "coalescing/copy_misaligned/67108864",
    "transpose/naive/4096x16384",
    "transpose/naive/8192x8192",
];
const H200: &str = "nvidia-h200-sm90";
const B200: &str = "nvidia-b200-sm100";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `kernelgate merge args`; the exit code, stdout and stderr.
fn merge(args: &[&str]) -> (i32, String, String) {
    let o =
        support::command(support::kernelgate_binary()).current_dir(root()).arg("merge").args(args).output().unwrap();
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
    (o.status.code().unwrap_or(-1), text(&o.stdout), text(&o.stderr))
}

/// The plan of the four trials (and a compile trial, which leaves no row) in 2 shards per GPU kind,
/// written to `dir/plan.json`.
fn plan(dir: &Path, gpus: &[&str]) -> (std::path::PathBuf, kernelgate::pool::plan::Plan) {
    let mut listed: Vec<String> = TRIALS.iter().map(|t| t.to_string()).collect();
    listed.push("compile/transpose.cu/sm_90".into());
    let gpus: Vec<_> = gpus.iter().map(|g| kernelgate::pool::plan::GpuKind::new(*g, 2)).collect();
    let plan = kernelgate::pool::plan::plan(listed, &gpus).unwrap();
    let path = dir.join("plan.json");
    std::fs::write(&path, serde_json::to_string(&plan).unwrap()).unwrap();
    (path, plan)
}

/// A job's output folder holding the run CSV's rows of `trials` (its header, and those rows).
fn run_job(dir: &Path, name: &str, trials: &[&str]) {
    let mut rows = csv::Reader::from_path(root().join(RUN)).unwrap();
    let header = rows.headers().unwrap().clone();
    let trial_at = header.iter().position(|c| c == "trial").unwrap();
    let runs = dir.join(name).join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    let mut out = csv::Writer::from_path(runs.join("20261202T032222Z-62a8c02.csv")).unwrap();
    out.write_record(&header).unwrap();
    for row in rows.records().map(Result::unwrap).filter(|r| trials.contains(&&r[trial_at])) {
        out.write_record(&row).unwrap();
    }
    out.flush().unwrap();
    // A run folder holds other CSVs beside the run CSV: the GPU's ceilings (its header as a run
    // writes it), the ncu metrics. They are not job results.
    std::fs::write(
        runs.join("20261202T032222Z-62a8c02-ceilings.csv"),
        "schema_version,run_id,gpu_key,gpu_uuid,ordinal,ceiling,value,unit,spread,samples,work,work_unit,l2_flushed\n",
    )
    .unwrap();
    std::fs::write(
        runs.join("20261202T032222Z-62a8c02-lessons.csv"),
        "schema_version,run_id,commit,gpu_key,gpu_uuid,trial,good,bad,bound,pairs\n",
    )
    .unwrap();
}

/// An A/B job's output folder on a B200, every trial unchanged.
fn ab_job(dir: &Path, name: &str) {
    let trial = |t: &str| AbTrial {
        trial: t.into(),
        verdict: "unchanged".into(),
        decided_by: "time (A/B)".into(),
        a_median_s: Some(1e-3),
        b_median_s: 1e-3,
        delta_pct: Some(0.05),
        delta_ci_pct: Some([-0.1, 0.2]),
        p_adjusted: Some(1.0),
        effect_floor_pct: Some(1.0),
        samples: 30,
        counters_moved: vec![],
        reason: "unchanged".into(),
    };
    let report = AbReport {
        schema_version: kernelgate::report::ab::SCHEMA_VERSION,
        run_id: "20261204T010000Z".into(),
        a: Side { label: "kernels/ at main".into(), commit: "a".repeat(40) },
        b: Side { label: "kernels/ here".into(), commit: "b".repeat(40) },
        gpu: GpuIdentity {
            name: "NVIDIA B200".into(),
            key: B200.into(),
            uuid: "GPU-b200".into(),
            driver: "580".into(),
        },
        counters: false,
        trials: TRIALS.iter().map(|t| trial(t)).collect(),
        controls: vec![],
        not_timed: vec![],
    };
    let runs = dir.join(name).join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    std::fs::write(runs.join("20261204T010000Z-bbbbbbb-ab.json"), report.json()).unwrap();
}

#[test]
fn a_shard_that_did_not_report_is_named_and_exits_4() {
    let dir = tempfile::tempdir().unwrap();
    let (plan_path, plan) = plan(dir.path(), &[H200]);
    let first: Vec<&str> =
        plan.jobs[0].trials.iter().map(String::as_str).filter(|t| !t.starts_with("compile/")).collect();
    // Shard 1's two trials both reported; shard 2 did not report at all.
    assert_eq!(first.len(), 2, "{first:?}");
    run_job(dir.path(), "job-1", &first);
    let (code, stdout, stderr) = merge(&["--plan", plan_path.to_str().unwrap(), dir.path().to_str().unwrap()]);
    assert_eq!(code, 4, "{stdout}{stderr}");
    assert!(stdout.starts_with("<!-- kernelgate-merge-report -->"), "{stdout}");
    assert!(stdout.contains("incomplete: 1 shard did not report"), "{stdout}");
    assert!(stdout.contains(&format!("{H200} shard 2/2 (2 trials, none reported)")), "{stdout}");
    assert!(stdout.contains(&plan.jobs[1].partition), "{stdout}");
    // Shard 1 with one of its trials missing (its check failed: no row) is named with the trial.
    let dir = tempfile::tempdir().unwrap();
    let (plan_path, _) = super_plan(dir.path());
    run_job(dir.path(), "job-1", &first[..1]);
    let (code, stdout, _) = merge(&["--plan", plan_path.to_str().unwrap(), dir.path().to_str().unwrap()]);
    assert_eq!(code, 4, "{stdout}");
    assert!(
        stdout.contains(&format!(
            "shard 1/2 (1 of its 2 trials did not report (failed their check, or the job stopped): {})",
            first[1].replace('_', "\\_")
        )),
        "{stdout}"
    );
}

fn super_plan(dir: &Path) -> (std::path::PathBuf, kernelgate::pool::plan::Plan) {
    plan(dir, &[H200])
}

#[test]
fn a_regression_on_one_gpu_kind_fails_the_merge_with_a_column_per_kind() {
    let dir = tempfile::tempdir().unwrap();
    let (plan_path, _) = plan(dir.path(), &[H200, B200]);
    run_job(dir.path(), "h200-all", &TRIALS);
    ab_job(dir.path(), "b200-all");
    let (md, html, json) = (dir.path().join("m.md"), dir.path().join("m.html"), dir.path().join("m.json"));
    let (code, stdout, stderr) = merge(&[
        "--plan",
        plan_path.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        dir.path().join("h200-all").to_str().unwrap(),
        dir.path().join("b200-all").to_str().unwrap(),
    ]);
    assert_eq!(code, 3, "{stdout}{stderr}");
    assert!(stdout.is_empty(), "the Markdown went to its file: {stdout}");
    let md = std::fs::read_to_string(md).unwrap();
    assert!(md.contains("❌ regressions") && md.contains(&format!("| trial | {H200} | {B200} |")), "{md}");
    assert!(md.contains("| transpose/naive/8192x8192 | regressed | unchanged +0.05 % |"), "{md}");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    assert_eq!((doc["schema"].as_str(), doc["status"].as_str()), (Some("kernelgate-merge"), Some("regressed")));
    assert_eq!(doc["missing"].as_array().unwrap().len(), 0);
    assert_eq!(doc["jobs"].as_array().unwrap().len(), 2);
    assert!(std::fs::read_to_string(html).unwrap().contains("regressed"));
}

#[test]
fn a_file_that_is_not_a_report_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("x-ab.json");
    std::fs::write(&bad, "{\"not\": 1}").unwrap();
    let (code, _, stderr) = merge(&[bad.to_str().unwrap()]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("x-ab.json") && stderr.contains("not a kernelgate A/B report"), "{stderr}");
    let (code, _, stderr) = merge(&[dir.path().join("absent").to_str().unwrap()]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("absent"), "{stderr}");
}
