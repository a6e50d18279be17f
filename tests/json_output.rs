//! The machine-readable output of the `kernelgate` program on the committed run records
//! (baselines/nvidia-h200-sm90/runs/, imported into a temporary history): every query's `--format
//! json` is one JSON document alone on stdout, with its schema, version and typed fields, and the
//! exit code of the text form; `kernelgate export` writes what Bencher (its published BMF schema,
//! tests/fixtures/export/) and github-action-benchmark (its parser's rules) read, with the run's
//! own numbers.

mod support;

use serde_json::Value;
use std::path::Path;
use std::sync::OnceLock;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The committed run of 8c8c911 on one H200 (77 trials, with a baseline comparison and ncu).
const RUN_CSV: &str = "baselines/nvidia-h200-sm90/runs/20261201T165209Z-8c8c911.csv";
const RUN_ID: &str = "20261201T165209Z";

/// Runs `kernelgate args` in the project root with the history `KERNELGATE_HISTORY` unset;
/// returns the exit code, stdout and stderr.
fn kernelgate(args: &[&str]) -> (i32, String, String) {
    let out = support::command(support::kernelgate_binary())
        .current_dir(root())
        .args(args)
        .env_remove("KERNELGATE_HISTORY")
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).expect("output is UTF-8");
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// A history holding every committed run of the H200, imported once for all the tests.
fn history() -> &'static str {
    static DIR: OnceLock<(tempfile::TempDir, String)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("history").to_str().unwrap().to_string();
        let (code, _, err) = kernelgate(&["history", "--dir", &dir, "import", "baselines/nvidia-h200-sm90/runs"]);
        assert_eq!(code, 0, "{err}");
        (tmp, dir)
    })
    .1
}

/// Parses stdout as exactly one JSON document followed by nothing but whitespace (what a pipe
/// into `jq` or `json.load` needs), and checks its schema and version.
fn one_document(stdout: &str, schema: &str) -> Value {
    let mut docs = serde_json::Deserializer::from_str(stdout).into_iter::<Value>();
    let doc = docs.next().expect("a document").unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"));
    let rest = &stdout[docs.byte_offset()..];
    assert!(rest.trim().is_empty(), "more after the document: {rest:?}");
    if !schema.is_empty() {
        assert_eq!(doc["schema"], schema, "{doc}");
        assert_eq!(doc["schema_version"], 1, "{doc}");
    }
    doc
}

/// `doc[key]` is of JSON type `kind` (`string`, `number`, `bool`, `array`, `object`,
/// `string|null`, `number|null`, `object|null`).
fn typed(doc: &Value, key: &str, kind: &str) {
    let v = &doc[key];
    let ok = kind.split('|').any(|k| match k {
        "string" => v.is_string(),
        "number" => v.is_number(),
        "bool" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "null" => v.is_null(),
        _ => panic!("unknown kind {k}"),
    });
    assert!(ok, "{key} is not {kind} in {doc}");
}

/// A run's metadata object ([`kernelgate::history::RunMeta`]'s fields).
fn run_meta(run: &Value) {
    for key in ["run_id", "commit", "gpu_key", "gpu_name", "gpu_uuid", "driver", "cuda", "nvrtc", "ab_revision"] {
        typed(run, key, "string");
    }
    typed(run, "work_scale", "number");
    typed(run, "commit_time", "number|null");
}

#[test]
fn history_runs_json_lists_every_imported_run_with_its_metadata() {
    let (code, out, err) = kernelgate(&["history", "--dir", history(), "runs", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let doc = one_document(&out, "kernelgate-history-runs");
    let keys = doc["gpu_keys"].as_array().unwrap();
    assert_eq!(keys.len(), 1);
    assert_eq!(keys[0]["gpu_key"], "nvidia-h200-sm90");
    let runs = keys[0]["runs"].as_array().unwrap();
    // The 7 run CSVs under baselines/nvidia-h200-sm90/runs/ (the import says "7 runs").
    assert_eq!(runs.len(), 7);
    for r in runs {
        run_meta(r);
        assert!(r["values"].as_u64().unwrap() > 0, "{r}");
    }
    let ours = runs.iter().find(|r| r["run_id"] == RUN_ID).unwrap();
    assert_eq!(ours["commit"], "8c8c911ae03c7551918fedb64c5339be32b79d06");
    assert_eq!(ours["gpu_uuid"], "GPU-91adb1dc-23b8-e3ac-93c8-ecf483e8bf62");
}

#[test]
fn history_show_json_holds_the_series_and_its_change_points() {
    let trial = "coalescing/copy/67108864";
    let (code, out, err) = kernelgate(&["history", "--dir", history(), "show", trial, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let doc = one_document(&out, "kernelgate-history-show");
    assert_eq!((doc["trial"].as_str(), doc["metric"].as_str()), (Some(trial), Some("median")));
    typed(&doc["change_points_by"], "method", "string");
    typed(&doc["change_points_by"], "min_magnitude_pct", "number");
    let key = &doc["gpu_keys"][0];
    let points = key["points"].as_array().unwrap();
    assert!(points.len() >= 2, "{key}");
    for p in points {
        run_meta(&p["run"]);
        typed(p, "value", "number");
        assert_eq!(p["unit"], "s");
        typed(p, "ci_low", "number|null");
        typed(p, "verdict", "string");
    }
    let ours = points.iter().find(|p| p["run"]["run_id"] == RUN_ID).unwrap();
    // The run CSV's median of the trial: coalescing/copy/67108864,...,median,0.0002027519941329956,s
    assert_eq!(ours["value"], 0.0002027519941329956);
    typed(key, "change_points", "array");
    // A missing trial is an error, as in the text form, and stdout stays empty.
    let (code, out, err) = kernelgate(&["history", "--dir", history(), "show", "no/such/1", "--format", "json"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("no median of trial \"no/such/1\""), "{err}");
}

#[test]
fn history_changes_and_previous_json() {
    let (code, out, err) =
        kernelgate(&["history", "--dir", history(), "changes", "--metric", "all", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let doc = one_document(&out, "kernelgate-history-changes");
    assert!(doc["metric"].is_null(), "all metrics: null");
    for cp in doc["gpu_keys"][0]["change_points"].as_array().unwrap() {
        for key in ["trial", "metric", "unit", "gpu_uuid", "run_id", "commit"] {
            typed(cp, key, "string");
        }
        typed(cp, "before", "number");
        typed(cp, "change_pct", "number|null");
        typed(cp, "p_value", "number");
    }
    let (code, out, err) =
        kernelgate(&["history", "--dir", history(), "previous", "--run", RUN_ID, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let doc = one_document(&out, "kernelgate-history-previous");
    run_meta(&doc["run"]);
    assert_eq!(doc["run"]["run_id"], RUN_ID);
    // The commit imported before 8c8c911's run: 72a91c3 (20261130T135841Z).
    assert_eq!(doc["previous"]["commit"], "72a91c3");
}

#[test]
fn history_gate_json_keeps_the_exit_codes() {
    // The latest run (8c8c911's) has two `regressed` verdicts: exit 3 in both forms.
    let (text_code, text, _) = kernelgate(&["history", "--dir", history(), "gate"]);
    let (code, out, err) = kernelgate(&["history", "--dir", history(), "gate", "--format", "json"]);
    assert_eq!((text_code, code), (3, 3), "{text}{err}");
    let doc = one_document(&out, "kernelgate-history-gate");
    assert_eq!((doc["exit_code"].as_u64(), doc["outcome"].as_str()), (Some(3), Some("regressed")));
    assert!(doc["suite_exit"].is_null(), "no --suite-exit given is not a passing suite: {}", doc["suite_exit"]);
    let run = &doc["runs"][0];
    run_meta(&run["run"]);
    let reasons = run["reasons"].as_array().unwrap();
    let texts: Vec<&str> = reasons.iter().map(|r| r["text"].as_str().unwrap()).collect();
    for t in &texts {
        assert!(text.contains(t), "the JSON's reason {t:?} is a line of the text:\n{text}");
    }
    for r in reasons {
        assert!(["regressed", "change_point", "invalid"].contains(&r["finding"].as_str().unwrap()), "{r}");
        typed(r, "trial", "string");
        typed(r, "gating", "bool");
    }
    // The suite's own exit code decides as in the text form: 2 stays 2, with the reason.
    let (code, out, _) = kernelgate(&["history", "--dir", history(), "gate", "--suite-exit", "2", "--format", "json"]);
    assert_eq!(code, 2);
    let doc = one_document(&out, "kernelgate-history-gate");
    assert_eq!((doc["exit_code"].as_u64(), doc["suite_exit"].as_u64()), (Some(2), Some(2)));
    typed(&doc, "exit_reason", "string");
}

#[test]
fn diff_json_holds_the_sides_medians_verdicts_and_moved_counters() {
    let (code, out, err) = kernelgate(&["diff", "--dir", history(), "72a91c3", "8c8c911", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let doc = one_document(&out, "kernelgate-diff");
    for side in ["old", "new"] {
        let s = &doc[side];
        for key in ["spec", "label", "gpu", "gpu_key"] {
            typed(s, key, "string");
        }
        assert_eq!(s["n_runs"], 1, "{s}");
        assert_eq!(s["gpus"].as_array().unwrap().len(), 1, "one run, one GPU: {s}");
        assert_eq!(s["runs"].as_array().unwrap().len(), 1);
        typed(&s["runs"][0], "gpu_uuid", "string");
    }
    assert_eq!(doc["new"]["runs"][0]["run_id"], RUN_ID);
    let trials = doc["trials"].as_array().unwrap();
    assert_eq!(trials.len(), 77, "both runs have 77 trials");
    let mut with_interval = 0;
    for t in trials {
        typed(t, "old_median_s", "number|null");
        typed(t, "delta_pct", "number|null");
        let change = t["change"].as_str().unwrap();
        let expected = match t["delta_pct"].as_f64() {
            Some(d) if d >= 1.0 => "slower",
            Some(d) if d <= -1.0 => "faster",
            Some(_) => "within 1 %",
            None => change,
        };
        assert_eq!(change, expected, "the diff's own change, by its 1 % threshold: {t}");
        assert!(["both", "added", "removed"].contains(&t["presence"].as_str().unwrap()));
        // One run a side: each side's one median is its median; an interval, where the runs give
        // one, would be the normal combination of their medians' intervals.
        typed(t, "delta_ci_pct", "array|null");
        typed(t, "within_noise", "bool|null");
        if t["presence"] == "both" {
            assert_eq!(t["old_run_medians_s"], serde_json::json!([t["old_median_s"]]), "{t}");
            assert_eq!(t["new_run_medians_s"], serde_json::json!([t["new_median_s"]]), "{t}");
        }
        if let Some([low, high]) =
            t["delta_ci_pct"].as_array().map(|a| [a[0].as_f64().unwrap(), a[1].as_f64().unwrap()])
        {
            with_interval += 1;
            assert!(low < high && low > -100.0, "{t}");
            assert_eq!(t["within_noise"], low <= 0.0 && high >= 0.0, "{t}");
            assert_eq!(t["delta_ci_method"], "normal", "{t}");
            assert!(t["delta_ci_df"].is_null());
        } else {
            assert!(t["delta_ci_method"].is_null() && t["within_noise"].is_null(), "{t}");
        }
        for m in t["metrics_moved"].as_array().unwrap() {
            assert_ne!(m["old"], m["new"], "only moved metrics: {m}");
            typed(m, "counter", "bool");
        }
    }
    // 72a91c3's run CSV predates the median-interval columns: one run without an interval gives
    // no interval of the change (docs/history.md, "The interval of a diff's change").
    assert_eq!(with_interval, 0, "no interval from a run that recorded none");
    let copy = trials.iter().find(|t| t["trial"] == "coalescing/copy/67108864").unwrap();
    assert_eq!(copy["new_median_s"], 0.0002027519941329956, "the run CSV's median");
    // The verdict counts are those of the summary line.
    let summary = doc["summary"].as_str().unwrap();
    for (verdict, n) in doc["verdicts"].as_object().unwrap() {
        assert!(summary.contains(&format!("{n} {verdict}")), "{summary}");
    }
    // Two run CSVs, no history: the same document's form.
    let old = "baselines/nvidia-h200-sm90/runs/20261130T135841Z-72a91c3.csv";
    let (code, out, err) = kernelgate(&["diff", "--dir", "/nonexistent", old, RUN_CSV, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(one_document(&out, "kernelgate-diff")["trials"].as_array().unwrap().len(), 77);
}

/// The statistic `name` of `trial` in the committed run CSV, seconds.
fn from_csv(trial: &str, name: &str) -> f64 {
    let mut rows = csv::Reader::from_path(root().join(RUN_CSV)).unwrap();
    let headers = rows.headers().unwrap().clone();
    let at = |h: &str| headers.iter().position(|x| x == h).unwrap();
    let (t, s, v) = (at("trial"), at("statistic"), at("value"));
    rows.records().map(|r| r.unwrap()).find(|r| &r[t] == trial && &r[s] == name).map(|r| r[v].parse().unwrap()).unwrap()
}

#[test]
fn bmf_export_of_a_committed_run_validates_against_bencher_schema_in_nanoseconds() {
    let (code, out, err) = kernelgate(&["export", "--format", "bmf", RUN_CSV]);
    assert_eq!(code, 0, "{err}");
    let doc = one_document(&out, "");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("tests/fixtures/export/bmf.schema.json")).unwrap())
            .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    // The schema can fail: a value that is not a number, a metric without a value.
    let mut bad = doc.clone();
    bad["coalescing/copy/67108864"]["latency"]["value"] = "fast".into();
    bad["coalescing/copy/67108864"]["throughput"] = serde_json::json!({ "lower_value": 1.0 });
    assert_eq!(validator.iter_errors(&bad).count(), 2);
    // Bencher's other rules: a benchmark name is 1 to 1024 bytes (bencher_valid's BenchmarkName);
    // `latency` is its built-in measure, in ns; lower <= value <= upper.
    let benchmarks = doc.as_object().unwrap();
    assert_eq!(benchmarks.len(), 77);
    for (name, measures) in benchmarks {
        assert!(!name.is_empty() && name.len() <= 1024, "{name}");
        let keys: Vec<&String> = measures.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["latency"]);
        let m = &measures["latency"];
        let (v, lo, hi) =
            (m["value"].as_f64().unwrap(), m["lower_value"].as_f64().unwrap(), m["upper_value"].as_f64().unwrap());
        assert!(lo <= v && v <= hi, "{name}: {m}");
        // A schema-5 run CSV holds no CI of the median: the bounds are the fastest and slowest
        // samples (tests/exports.rs has a schema-6 one's CI).
        assert_eq!(v, from_csv(name, "median") * 1e9, "{name}");
        assert_eq!((lo, hi), (from_csv(name, "min") * 1e9, from_csv(name, "max") * 1e9), "{name}");
    }
}

#[test]
fn github_action_benchmark_export_follows_its_parser_rules() {
    let (code, out, err) = kernelgate(&["export", "--format", "github-action-benchmark", RUN_CSV]);
    assert_eq!(code, 0, "{err}");
    let doc = one_document(&out, "");
    // github-action-benchmark src/extract.ts: BenchmarkResults = z.array(z.object({ name: string,
    // value: number, range?: string, unit: string, extra?: string })), and an empty array fails.
    let entries = doc.as_array().unwrap();
    assert_eq!(entries.len(), 77);
    for e in entries {
        let keys: Vec<&String> = e.as_object().unwrap().keys().collect();
        assert!(keys.iter().all(|k| ["name", "unit", "value", "range", "extra"].contains(&k.as_str())), "{e}");
        typed(e, "name", "string");
        typed(e, "value", "number");
        assert_eq!(e["unit"], "ns", "a unit the action rescales (src/normalizeValueByUnit.ts)");
        typed(e, "range", "string");
        typed(e, "extra", "string");
        let name = e["name"].as_str().unwrap();
        assert_eq!(e["value"].as_f64().unwrap(), from_csv(name, "median") * 1e9);
        let range = format!("{} .. {}", from_csv(name, "min") * 1e9, from_csv(name, "max") * 1e9);
        assert_eq!(e["range"], range.as_str());
        let extra = e["extra"].as_str().unwrap();
        assert!(extra.contains(RUN_ID) && extra.contains("range: min .. max of the samples"), "{extra}");
    }
    // By run id from the history: the same entries.
    let (code, by_id, err) = kernelgate(&["export", "--dir", history(), "--format", "github-action-benchmark", RUN_ID]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(one_document(&by_id, ""), doc);
}

#[test]
fn export_refuses_what_is_not_one_run() {
    let (code, out, err) = kernelgate(&["export", "--dir", history(), "--format", "bmf", "8c8c911"]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("names a commit; export takes one run"), "{err}");
    let metrics = RUN_CSV.replace(".csv", "-metrics.csv");
    let (code, out, err) = kernelgate(&["export", "--format", "bmf", &metrics]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("is the ncu metrics CSV of a run"), "{err}");
}

/// Every query with `--format json` prints one JSON document and nothing else on stdout: what
/// `kernelgate … | jq` needs. Status lines and warnings go to stderr.
#[test]
fn stdout_of_every_json_command_pipes_cleanly() {
    let h = history();
    let commands: Vec<Vec<&str>> = vec![
        vec!["history", "--dir", h, "runs"],
        vec!["history", "--dir", h, "show", "transpose/naive/8192x8192"],
        vec!["history", "--dir", h, "changes"],
        vec!["history", "--dir", h, "changes", "--metric", "all", "--since", "72a91c3"],
        vec!["history", "--dir", h, "gate"],
        vec!["history", "--dir", h, "gate", "--run", RUN_CSV],
        vec!["history", "--dir", h, "previous", "--run", RUN_ID],
        vec!["diff", "--dir", h, "72a91c3", "8c8c911"],
        vec!["diff", "--dir", h, "before:20261201T165209Z", RUN_ID],
        vec!["compare", "baselines/nvidia-h200-sm90", "baselines/nvidia-h200-sm90"],
    ];
    for mut args in commands {
        args.extend(["--format", "json"]);
        let (code, out, err) = kernelgate(&args);
        assert!([0, 3].contains(&code), "{args:?}: exit {code}\n{err}");
        one_document(&out, "");
    }
    for format in ["bmf", "github-action-benchmark", "nvbench"] {
        let (code, out, err) = kernelgate(&["export", "--format", format, RUN_CSV]);
        assert_eq!(code, 0, "{err}");
        one_document(&out, "");
        assert!(err.contains("exported 77 trials"), "the status goes to stderr: {err}");
    }
}
