//! `kernelgate export` of real run CSVs of schema 6 (tests/fixtures/export/, excerpts of two H200
//! runs): the bounds are the median's 95 % confidence interval the CSV carries; `--format nvbench`
//! is read by nvbench's own `nvbench_compare.py` and `nvbench_json` reader (vendored in
//! tests/fixtures/export/nvbench/), run under python3 by `nvbench_check.py`.
//!
//! Without python3 the nvbench check says why on stderr and passes; `KERNELGATE_REQUIRE_PYTHON=1`
//! makes its absence a failure.

mod support;

use serde_json::Value;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Excerpt of the run of 62a8c02 (four trials; tests/fixtures/export/README.md).
const RUN_62A8C02: &str = "tests/fixtures/export/run-62a8c02-excerpt.csv";
/// Excerpt of the run of 3fa6bf8 (the same four trials, another H200).
const RUN_3FA6BF8: &str = "tests/fixtures/export/run-3fa6bf8-excerpt.csv";

/// Runs `kernelgate args` in the project root; returns the exit code, stdout and stderr.
fn kernelgate(args: &[&str]) -> (i32, String, String) {
    let out = support::command(support::kernelgate_binary()).current_dir(root()).args(args).output().unwrap();
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).expect("output is UTF-8");
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// Parses stdout as exactly one JSON document followed by nothing but whitespace.
fn one_document(stdout: &str) -> Value {
    let mut docs = serde_json::Deserializer::from_str(stdout).into_iter::<Value>();
    let doc = docs.next().expect("a document").unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"));
    let rest = &stdout[docs.byte_offset()..];
    assert!(rest.trim().is_empty(), "more after the document: {rest:?}");
    doc
}

/// `column` of the row of `trial`'s `statistic` in the run CSV `csv`, as a number.
fn from_csv(csv: &str, trial: &str, statistic: &str, column: &str) -> f64 {
    let mut rows = csv::Reader::from_path(root().join(csv)).unwrap();
    let headers = rows.headers().unwrap().clone();
    let at = |h: &str| headers.iter().position(|x| x == h).unwrap();
    let (t, s, c) = (at("trial"), at("statistic"), at(column));
    rows.records()
        .map(|r| r.unwrap())
        .find(|r| &r[t] == trial && &r[s] == statistic)
        .map(|r| r[c].parse().unwrap())
        .unwrap_or_else(|| panic!("{csv}: no {column} of {trial} {statistic}"))
}

/// A schema-6 run CSV's `median_ci_low_s`, `median_ci_high_s` are the bounds of both dashboard
/// formats, in ns (not the samples' min and max, which schema-5 CSVs fall back to).
#[test]
fn a_schema_6_run_csv_exports_the_median_ci_as_the_bounds() {
    let (code, out, err) = kernelgate(&["export", "--format", "bmf", RUN_62A8C02]);
    assert_eq!(code, 0, "{err}");
    let doc = one_document(&out);
    let benchmarks = doc.as_object().unwrap();
    assert_eq!(benchmarks.len(), 4, "{doc}");
    for (trial, measures) in benchmarks {
        let m = &measures["latency"];
        let got = |k: &str| m[k].as_f64().unwrap();
        let csv = |column: &str| from_csv(RUN_62A8C02, trial, "median", column) * 1e9;
        assert_eq!(got("value"), csv("value"), "{trial}");
        assert_eq!((got("lower_value"), got("upper_value")), (csv("median_ci_low_s"), csv("median_ci_high_s")));
        let min = from_csv(RUN_62A8C02, trial, "min", "value") * 1e9;
        assert!(got("lower_value") > min, "{trial}: the CI, not the fastest sample ({min} ns)");
    }
    let (code, out, err) = kernelgate(&["export", "--format", "github-action-benchmark", RUN_62A8C02]);
    assert_eq!(code, 0, "{err}");
    for e in one_document(&out).as_array().unwrap() {
        let trial = e["name"].as_str().unwrap();
        let half = (from_csv(RUN_62A8C02, trial, "median", "median_ci_high_s")
            - from_csv(RUN_62A8C02, trial, "median", "median_ci_low_s"))
            * 1e9
            / 2.0;
        let range: f64 = e["range"].as_str().unwrap().strip_prefix("± ").expect("the ± form of a CI").parse().unwrap();
        assert!((range - half).abs() <= 1e-9 * half, "{trial}: {range} != {half}");
        assert!(e["extra"].as_str().unwrap().ends_with("range: 95 % CI of the median"), "{e}");
    }
}

/// `tests/fixtures/export/nvbench_check.py REF CMP`: nvbench_compare's counts of the states it
/// matched, as JSON; `None` without python3 (said on stderr; a failure under
/// `KERNELGATE_REQUIRE_PYTHON=1`).
fn nvbench_compare(reference: &Path, compared: &Path) -> Option<Value> {
    let run = std::process::Command::new("python3")
        .arg("-B")
        .arg(root().join("tests/fixtures/export/nvbench_check.py"))
        .args([reference, compared])
        .output();
    match run {
        Ok(o) => {
            let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
            assert!(o.status.success(), "nvbench_check.py failed:\n{out}\n{err}");
            Some(serde_json::from_str(&out).unwrap_or_else(|e| panic!("nvbench_check.py printed no JSON ({e}): {out}")))
        }
        Err(e) => {
            support::skip_without(
                "PYTHON",
                &format!(
                    "exports: python3 could not be run ({e}), so nvbench's compare script did not read the nvbench \
                     export"
                ),
            );
            None
        }
    }
}

/// The nvbench export of `csv`, written to `dir/name`.
fn nvbench_export(csv: &str, dir: &Path, name: &str) -> std::path::PathBuf {
    let (code, out, err) = kernelgate(&["export", "--format", "nvbench", csv]);
    assert_eq!(code, 0, "{err}");
    let doc = one_document(&out);
    assert_eq!(doc["meta"]["version"]["json"]["string"], "1.0.0", "the version nvbench's reader expects");
    let path = dir.join(name);
    std::fs::write(&path, out).unwrap();
    path
}

/// nvbench_compare.py matches every trial of two real runs (the same four trials on two H200s):
/// it finds each state's `nv/cold/time/gpu/mean` and `nv/cold/time/gpu/stdev/relative`, parses
/// their string values, and the devices sections are equal. A run against itself is the same
/// in every state (a difference of 0 within the noise). Without the mean's tag it matches nothing:
/// the check reads the file.
#[test]
fn nvbench_export_is_read_by_nvbench_compare() {
    let tmp = tempfile::tempdir().unwrap();
    let a = nvbench_export(RUN_3FA6BF8, tmp.path(), "3fa6bf8.json");
    let b = nvbench_export(RUN_62A8C02, tmp.path(), "62a8c02.json");
    // The run's own numbers, in seconds, as strings: every trial's mean, relative noise and CI.
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&b).unwrap()).unwrap();
    let mut states = 0;
    for bench in doc["benchmarks"].as_array().unwrap() {
        for state in bench["states"].as_array().unwrap() {
            let axis = |i: usize| state["axis_values"][i]["value"].as_str().unwrap().to_string();
            let trial = format!("{}/{}/{}", bench["name"].as_str().unwrap(), axis(0), axis(1));
            assert_eq!(state["name"], format!("Device=0 variant={} size={}", axis(0), axis(1)));
            let data = |tag: &str, i: usize| -> f64 {
                let s = state["summaries"].as_array().unwrap().iter().find(|s| s["tag"] == tag).expect(tag);
                s["data"][i]["value"].as_str().expect("a string, as nvbench writes it").parse().unwrap()
            };
            assert_eq!(data("nv/cold/time/gpu/mean", 0), from_csv(RUN_62A8C02, &trial, "mean", "value"));
            let noise = from_csv(RUN_62A8C02, &trial, "noise", "value") / 100.0;
            assert!((data("nv/cold/time/gpu/stdev/relative", 0) - noise).abs() <= 1e-12 * noise, "{trial}");
            let ci = "kernelgate/cold/time/gpu/median/ci95";
            assert_eq!(data(ci, 0), from_csv(RUN_62A8C02, &trial, "median", "median_ci_low_s"));
            assert_eq!(data(ci, 1), from_csv(RUN_62A8C02, &trial, "median", "median_ci_high_s"));
            states += 1;
        }
    }
    assert_eq!(states, 4);

    let Some(two) = nvbench_compare(&a, &b) else { return };
    let counts = |v: &Value| ["matches", "pass", "unknown", "failure"].map(|k| v[k].as_u64().unwrap());
    let [matches, pass, unknown, failure] = counts(&two);
    assert_eq!(matches, 4, "{two}");
    assert_eq!(pass + unknown + failure, 4, "{two}");
    assert_eq!(unknown, 0, "both runs have a noise: {two}");
    assert_eq!(two["devices_equal"], true, "{two}");
    let output = two["output"].as_str().unwrap();
    assert!(output.contains("# coalescing") && output.contains("# transpose"), "{output}");
    if two["via"] == "main" {
        assert_eq!(two["exit"].as_u64(), Some(failure), "main returns the failures: {two}");
        assert!(!output.contains("Device sections") && output.contains("NVIDIA H200"), "{output}");
    }

    let same = nvbench_compare(&b, &b).unwrap();
    assert_eq!(counts(&same), [4, 4, 0, 0], "{same}");

    let stripped = tmp.path().join("no-mean.json");
    let text = std::fs::read_to_string(&b).unwrap().replace("\"nv/cold/time/gpu/mean\"", "\"nv/cold/time/gpu/other\"");
    std::fs::write(&stripped, text).unwrap();
    let none = nvbench_compare(&b, &stripped).unwrap();
    assert_eq!(none["matches"], 0, "{none}");
}
