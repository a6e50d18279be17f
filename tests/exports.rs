//! `kernelgate export` of real run CSVs of schema 6 (tests/fixtures/export/, excerpts of two H200
//! runs): the bounds are the median's 95 % confidence interval the CSV carries.

mod support;

use serde_json::Value;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Excerpt of the run of 62a8c02 (four trials; tests/fixtures/export/README.md).
const RUN_62A8C02: &str = "tests/fixtures/export/run-62a8c02-excerpt.csv";

/// Runs `kernelgate args` in the project root; returns the exit code, stdout and stderr.
fn kernelgate(args: &[&str]) -> (i32, String, String) {
    let out = support::command(env!("CARGO_BIN_EXE_kernelgate")).current_dir(root()).args(args).output().unwrap();
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
