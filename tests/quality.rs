//! `kernelgate history quality` on a history holding A/A controls: a run CSV of a same-run A/B run
//! whose control rows say `control: ...` in `decided_by` (rows of a real H200 run,
//! tests/fixtures/export/, rewritten so), imported, then the per-runner rates printed.

mod support;

use std::path::Path;

#[test]
fn the_controls_of_imported_ab_runs_give_each_runners_rates() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let mut rows = csv::Reader::from_path(root.join("tests/fixtures/export/run-62a8c02-excerpt.csv")).unwrap();
    let header = rows.headers().unwrap().clone();
    let at = |h: &str| header.iter().position(|c| c == h).unwrap();
    let (ab, decided, trial) = (at("ab_revision"), at("decided_by"), at("trial"));
    let csv_path = dir.path().join("runs").join("20261202T032222Z-62a8c02.csv");
    std::fs::create_dir_all(csv_path.parent().unwrap()).unwrap();
    let mut out = csv::Writer::from_path(&csv_path).unwrap();
    out.write_record(&header).unwrap();
    for row in rows.records().map(Result::unwrap) {
        let mut row: Vec<String> = row.iter().map(String::from).collect();
        row[ab] = "main".into();
        // Two of the four trials are controls; transpose/naive/8192x8192 (regressed) is one of them.
        if row[trial].starts_with("transpose/") {
            row[decided] = format!("control: {}", row[decided]);
        }
        out.write_record(&row).unwrap();
    }
    out.flush().unwrap();
    let history = dir.path().join("history");
    let run = |args: &[&str]| {
        let o = support::command(support::kernelgate_binary()).current_dir(root).args(args).output().unwrap();
        (o.status.code().unwrap_or(-1), String::from_utf8(o.stdout).unwrap(), String::from_utf8(o.stderr).unwrap())
    };
    let (code, _, err) = run(&["history", "import", csv_path.to_str().unwrap(), "--dir", history.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (code, text, err) = run(&["history", "quality", "--dir", history.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("GPU-40da5171-95e9-6ec0-def5-1406f8f7fca5: 2 controls in 1 A/B runs: false positives 50.0 % ("),
        "{text}"
    );
    let (code, json, err) = run(&["history", "quality", "--dir", history.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["runners"][0]["total"]["controls"], 2);
    assert_eq!(doc["runners"][0]["total"]["false_positives"], 1);
    // A history without controls says where they come from.
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let (code, text, _) = run(&["history", "quality", "--dir", empty.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(text.contains("KERNELGATE_AB_CONTROLS"), "{text}");
}
