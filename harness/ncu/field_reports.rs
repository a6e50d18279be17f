//! Tests of the ncu inputs that field reports found mishandled (`harness/tests/fixtures/ncu/field-reports/`),
//! each with small variants that cover its kind of fault, and of the errors for bad inputs: each
//! names the file, the line and the fix.

use super::parse::{KernelRecord, Layout, Metric, MetricValue, Report, collect, parse_csv, require_metrics};
use crate::error::Error;
use std::path::Path;

const F01: &str = include_str!("../tests/fixtures/ncu/field-reports/01-auto-units-details.csv");
const F02: &str = include_str!("../tests/fixtures/ncu/field-reports/02-appended-details-ids-restart.csv");
const F02B: &str = include_str!("../tests/fixtures/ncu/field-reports/02b-appended-raw.csv");
const F02C: &str = include_str!("../tests/fixtures/ncu/field-reports/02c-appended-raw-nounits.csv");
const F04: &[u8] = include_bytes!("../tests/fixtures/ncu/field-reports/04-utf16le-bom-powershell.csv");
const F05: &[u8] = include_bytes!("../tests/fixtures/ncu/field-reports/05-latin1-app-output.csv");
const TILE_RAW: &str = include_str!("../tests/fixtures/ncu/ncu-2025.3.1-h200/tile_raw.csv");

/// The header of a details page as ncu 2023-2025 print it without NVTX (as in field report 01).
const DETAILS: &str = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\
                       \"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\
                       \"Metric Value\"";

/// A details row of kernel `k` (ID `id`, process `pid`).
fn details_row(id: u32, pid: u32, name: &str, unit: &str, value: &str) -> String {
    format!(
        "\"{id}\",\"{pid}\",\"app\",\"127.0.0.1\",\"k\",\"1\",\"7\",\"(256, 1, 1)\",\"(1024, 1, 1)\",\"0\",\"9.0\",\
         \"S\",\"{name}\",\"{unit}\",\"{value}\""
    )
}

fn report(bytes: &[u8]) -> Report {
    try_report(bytes).unwrap_or_else(|e| panic!("{e}"))
}

/// [`super::parse::read`] of `bytes` (named `f.csv`) into a [`Report`].
fn try_report(bytes: &[u8]) -> crate::error::Result<Report> {
    collect(bytes, Path::new("f.csv"))
}

/// The error's line and message; panics unless it is an [`Error::Ncu`] naming `f.csv`.
fn error(bytes: &[u8]) -> (Option<usize>, String) {
    match try_report(bytes) {
        Err(Error::Ncu { origin, line, message }) => {
            assert_eq!(origin, Path::new("f.csv"));
            (line, message)
        }
        other => panic!("expected Error::Ncu, got {other:?}"),
    }
}

fn num(k: &KernelRecord, name: &str) -> (f64, String) {
    match k.metrics.get(name) {
        Some(Metric { value: MetricValue::Number(x), unit }) => (*x, unit.clone()),
        other => panic!("{name}: {other:?}"),
    }
}

fn close(got: (f64, String), want: f64, unit: &str) {
    assert!((got.0 - want).abs() <= 1e-9 * want.abs().max(1.0), "{} != {want}", got.0);
    assert_eq!(got.1, unit);
}

// ---- 01: units of ncu's default --print-units auto ----

#[test]
fn f01_auto_units_are_read_in_base_units() {
    let r = report(F01.as_bytes());
    assert_eq!(r.layout, Layout::Details);
    let k = &r.kernels[0];
    close(num(k, "Registers Per Thread"), 34.0, "register/thread");
    close(num(k, "Static Shared Memory Per Block"), 4_100.0, "byte/block"); // 4.10 Kbyte/block
    close(num(k, "Dynamic Shared Memory Per Block"), 49_150.0, "byte/block");
    close(num(k, "Driver Shared Memory Per Block"), 1_020.0, "byte/block");
    close(num(k, "Shared Memory Configuration Size"), 233_470.0, "byte"); // Kbyte
    close(num(k, "Duration"), 12_350.0, "ns"); // 12.35 usecond
    close(num(k, "DRAM Throughput"), 80.1, "%");
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

/// The factors checked against the same quantities that ncu printed with `--print-units base` on
/// an H200 (`tile_raw.csv`): each auto-scaled value, in base units, is within half a unit of its
/// last printed digit of the base value (1024-byte kilobytes would miss by 2-5 %).
#[test]
fn f01_factors_agree_with_a_base_units_capture_of_the_same_gpu() {
    let auto = &report(F01.as_bytes()).kernels[0];
    let base = &parse_csv(TILE_RAW, Path::new("tile_raw.csv")).unwrap().kernels[0];
    let pairs = [
        ("Static Shared Memory Per Block", "launch__shared_mem_per_block_static", 4_096.0),
        ("Driver Shared Memory Per Block", "launch__shared_mem_per_block_driver", 1_024.0),
        ("Dynamic Shared Memory Per Block", "device__attribute_max_shared_memory_per_block", 49_152.0),
        ("Shared Memory Configuration Size", "device__attribute_max_shared_memory_per_multiprocessor", 233_472.0),
    ];
    for (auto_name, base_name, bytes) in pairs {
        assert_eq!(base.number(base_name), Some(bytes), "{base_name}");
        let (value, _) = num(auto, auto_name);
        assert!((value - bytes).abs() <= 5.0, "{auto_name}: {value} is not {bytes} to the 0.01 Kbyte printed");
    }
}

#[test]
fn units_over_a_denominator_and_unknown_units() {
    let rows = [
        ("rate", "Mbyte/second", "1.5"),
        ("rate2", "Gbyte/s", "3.35"),
        ("inst", "Kinst", "2.5"),
        ("t", "msecond", "1.25"),
        ("clock", "cycle/nsecond", "1.98"),
        ("ipc", "inst/Kcycle", "250"),
        ("odd", "Kfoo", "4.5"),
        ("odd2", "Kfoo", "5.5"),
        ("per", "byte/furlong", "7"),
    ];
    let mut text = format!("{DETAILS}\n");
    for (name, unit, value) in rows {
        text += &details_row(0, 1, name, unit, value);
        text.push('\n');
    }
    let r = report(text.as_bytes());
    let k = &r.kernels[0];
    close(num(k, "rate"), 1.5e6, "byte/second");
    close(num(k, "rate2"), 3.35e9, "byte/second");
    close(num(k, "inst"), 2_500.0, "inst");
    close(num(k, "t"), 1.25e6, "ns");
    close(num(k, "clock"), 1.98e9, "cycle/second");
    close(num(k, "ipc"), 0.25, "inst/cycle");
    // Unknown: kept as printed, unscaled, with one warning per unit naming it.
    close(num(k, "odd"), 4.5, "Kfoo");
    close(num(k, "odd2"), 5.5, "Kfoo");
    close(num(k, "per"), 7.0, "byte/furlong");
    assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
    assert!(r.warnings[0].starts_with("line 8: unit \"Kfoo\" (metric \"odd\") is not one kernelgate knows"));
    assert!(r.warnings[0].contains("kept as printed, unscaled") && r.warnings[0].contains("--print-units base"));
    assert!(r.warnings[1].starts_with("line 10: unit \"byte/furlong\""), "{}", r.warnings[1]);
}

#[test]
fn raw_units_row_with_prefixes_and_an_unknown_unit() {
    let text = "\"ID\",\"Kernel Name\",\"a\",\"b\",\"c\",\"d\"\n\"\",\"\",\"Kbyte/block\",\"usecond\",\"parsec\",\"\"\n\
                \"0\",\"k\",\"4.10\",\"12.35\",\"3\",\"9\"\n\"1\",\"k\",\"1.02\",\"1\",\"4\",\"8\"\n";
    let r = report(text.as_bytes());
    close(num(&r.kernels[0], "a"), 4_100.0, "byte/block");
    close(num(&r.kernels[0], "b"), 12_350.0, "ns");
    close(num(&r.kernels[1], "a"), 1_020.0, "byte/block");
    close(num(&r.kernels[1], "c"), 4.0, "parsec");
    close(num(&r.kernels[1], "d"), 8.0, "");
    assert_eq!(r.warnings.len(), 1);
    assert!(r.warnings[0].starts_with("line 2: unit \"parsec\" (metric \"c\")"), "{}", r.warnings[0]);
}

// ---- 02: several ncu outputs appended in one file ----

/// Each appended capture's kernel is kept apart: capture, process and ID.
fn two_captures(r: &Report, layout: Layout) {
    assert_eq!((r.layout, r.captures, r.kernels.len()), (layout, 2, 2));
    let [a, b] = &r.kernels[..] else { unreachable!() };
    assert_eq!((a.capture, a.process.as_deref(), a.id.as_str(), a.kernel.as_str()), (1, Some("1001"), "0", "gemm_v1"));
    assert_eq!((b.capture, b.process.as_deref(), b.id.as_str(), b.kernel.as_str()), (2, Some("1002"), "0", "gemm_v2"));
    assert_eq!((a.block.as_deref(), b.block.as_deref()), (Some("(128, 1, 1)"), Some("(256, 1, 1)")));
    close(num(a, "gpu__time_duration.sum"), 10_000.0, "ns");
    close(num(b, "gpu__time_duration.sum"), 7_000.0, "ns");
}

#[test]
fn f02_appended_details_pages_are_kept_apart() {
    let r = report(F02.as_bytes());
    two_captures(&r, Layout::Details);
    assert_eq!(r.kernels[0].metrics.len(), 2);
    close(num(&r.kernels[0], "smsp__sass_inst_executed_op_global_ld.sum"), 4_096.0, "inst");
    close(num(&r.kernels[1], "smsp__sass_inst_executed_op_global_ld.sum"), 2_048.0, "inst");
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn f02b_appended_raw_pages_with_units_rows() {
    two_captures(&report(F02B.as_bytes()), Layout::Raw);
}

#[test]
fn f02c_appended_raw_pages_without_units_rows() {
    let r = report(F02C.as_bytes());
    assert_eq!((r.captures, r.kernels.len()), (2, 2));
    assert_eq!(r.kernels[1].number("gpu__time_duration.sum"), Some(7_000.0));
    assert_eq!(r.kernels[1].metrics["gpu__time_duration.sum"].unit, ""); // no units row: as printed
    assert_eq!((r.kernels[0].process.as_deref(), r.kernels[1].capture), (Some("1001"), 2));
}

#[test]
fn appended_captures_variants() {
    let header = "\"ID\",\"Process ID\",\"Kernel Name\",\"gpu__time_duration.sum\"";
    // Each capture has its own units row (ncu may scale differently), and the same process ID
    // (containers, or a reused PID) still does not merge kernels of two captures.
    let text = format!(
        "{header}\n\"\",\"\",\"\",\"ns\"\n\"0\",\"1\",\"a\",\"5\"\n\"1\",\"1\",\"b\",\"6\"\n\
         ==PROF== Disconnected from process 1\n{header}\n\"\",\"\",\"\",\"usecond\"\n\"0\",\"1\",\"c\",\"7\"\n"
    );
    let r = report(text.as_bytes());
    let got: Vec<(usize, &str, &str, Option<f64>)> = r
        .kernels
        .iter()
        .map(|k| (k.capture, k.id.as_str(), k.kernel.as_str(), k.number("gpu__time_duration.sum")))
        .collect();
    assert_eq!(got, [(1, "0", "a", Some(5.0)), (1, "1", "b", Some(6.0)), (2, "0", "c", Some(7_000.0))]);
    // Messages name the capture and process when the file holds several.
    let message = require_metrics(&r, &["dram__bytes.sum"], Path::new("f.csv")).unwrap_err().to_string();
    assert!(message.contains("kernel `a` (capture 1, process 1, ID 0) and 2 other kernels"), "{message}");
    // A second capture appended without its header: IDs restart in the same table.
    let text = format!("{header}\n\"0\",\"1\",\"a\",\"5\"\n\"1\",\"1\",\"b\",\"6\"\n\"0\",\"1\",\"c\",\"7\"\n");
    let (line, message) = error(text.as_bytes());
    assert_eq!(line, Some(4));
    assert!(message.starts_with("kernel ID 0 of process 1 comes after ID 1 (line 3) in the same table"), "{message}");
    assert!(message.contains("several captures without a header line before each"), "{message}");
    // Appended without a header but from another process: kept apart by process.
    let text = format!("{header}\n\"0\",\"1\",\"a\",\"5\"\n\"0\",\"2\",\"c\",\"7\"\n");
    let r = report(text.as_bytes());
    assert_eq!(r.kernels.iter().map(|k| k.process.as_deref().unwrap()).collect::<Vec<_>>(), ["1", "2"]);
    // A header with no kernel row between two captures is named in a warning.
    let text = format!("{header}\n{header}\n\"0\",\"1\",\"a\",\"5\"\n");
    let r = report(text.as_bytes());
    assert_eq!((r.captures, r.kernels[0].capture), (2, 2));
    assert_eq!(r.warnings, ["line 1: this ncu table (capture 1) has no kernel row"]);
}

// ---- 04: encodings ----

#[test]
fn f04_utf16le_with_bom_is_read() {
    let r = report(F04);
    assert_eq!((r.layout, r.kernels.len()), (Layout::Raw, 1));
    let k = &r.kernels[0];
    assert_eq!((k.id.as_str(), k.process.as_deref(), k.kernel.as_str()), ("0", Some("3001"), "saxpy"));
    assert_eq!(k.grid.as_deref(), Some("(4096, 1, 1)"));
    // "5,120" is the table's only number: 5120 with `,` grouping thousands, said in a warning.
    assert_eq!(k.number("gpu__time_duration.sum"), Some(5_120.0));
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(r.warnings[0].starts_with("line 3: \"5,120\" is 5120 where `.` is the decimal separator"));
}

#[test]
fn encodings_variants() {
    let units = F04[2..].chunks_exact(2).map(|p| u16::from_le_bytes([p[0], p[1]]));
    let text: String = char::decode_utf16(units).map(Result::unwrap).collect();
    let want = report(F04);
    // UTF-16BE with its mark, UTF-8 with a mark, UTF-8: the same kernels.
    let be: Vec<u8> = [0xFE, 0xFF].into_iter().chain(text.encode_utf16().flat_map(u16::to_be_bytes)).collect();
    let utf8_bom = [&[0xEF, 0xBB, 0xBF][..], text.as_bytes()].concat();
    for bytes in [be, utf8_bom, text.as_bytes().to_vec()] {
        assert_eq!(report(&bytes).kernels, want.kernels);
    }
    // UTF-16 without a mark: refused, naming the encoding and the fix.
    let (line, message) = error(&F04[2..]);
    assert_eq!(line, Some(1));
    assert!(message.contains("UTF-16LE without a byte-order mark"), "{message}");
    assert!(message.contains("`iconv -f UTF-16LE -t UTF-8 f.csv > f.utf8.csv`"), "{message}");
    assert!(message.contains("Out-File -Encoding utf8"), "{message}");
    // UTF-16 appended to a UTF-8 capture.
    let appended = [text.as_bytes(), &F04[2..]].concat();
    let (line, message) = error(&appended);
    assert_eq!(line, Some(4), "{message}");
    assert!(message.contains("UTF-16 text") && message.contains("iconv -f UTF-16LE -t UTF-8"), "{message}");
}

// ---- 05: bytes that are not UTF-8 ----

#[test]
fn f05_latin1_program_output_above_the_table_is_tolerated() {
    let r = report(F05);
    assert_eq!(r.kernels.len(), 1);
    assert_eq!((r.kernels[0].kernel.as_str(), r.kernels[0].number("gpu__time_duration.sum")), ("saxpy", Some(5_120.0)));
}

#[test]
fn latin1_variants() {
    let header = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"";
    // Between and after tables, program output is skipped (with a warning) whatever its bytes.
    let text = format!("{header}\n\"0\",\"k\",\"5\"\nR\u{e9}sultat\n{header}\n\"0\",\"k\",\"6\"\n");
    let r = report(
        &text
            .replace('\u{e9}', "\0")
            .into_bytes()
            .into_iter()
            .map(|b| if b == 0 { 0xE9 } else { b })
            .collect::<Vec<_>>(),
    );
    assert_eq!(r.kernels.len(), 2);
    assert_eq!(r.warnings, ["line 3: skipped, not a CSV row: R\u{fffd}sultat"]);
    // Inside a row: an error naming the line, the byte and the fix.
    let text = [format!("{header}\n\"0\",\"k\",\"5\"\n\"1\",\"caf").as_bytes(), &[0xE9], b"\",\"6\"\n"].concat();
    let (line, message) = error(&text);
    assert_eq!(line, Some(3));
    assert!(message.starts_with("byte 0xE9 at column 9 of this table row is not UTF-8"), "{message}");
    assert!(message.contains("`iconv -f LATIN1 -t UTF-8 f.csv > f.utf8.csv`"), "{message}");
    // In a header, too.
    let (line, _) = error(&[b"app output\n\"ID\",\"Kernel Name\",\"x\xE9\"\n".as_slice()].concat());
    assert_eq!(line, Some(2));
}

// ---- decimal commas ----

/// A raw page with one kernel per row of values (one column per value).
fn raw(rows: &[&[&str]]) -> String {
    let width = rows[0].len();
    let mut text = String::from("\"ID\",\"Kernel Name\"");
    for c in 0..width {
        text += &format!(",\"m{c}\"");
    }
    for (id, row) in rows.iter().enumerate() {
        text += &format!("\n\"{id}\",\"k\"");
        for value in *row {
            text += &format!(",\"{value}\"");
        }
    }
    text + "\n"
}

fn values(text: &str) -> (Vec<Vec<f64>>, Vec<String>) {
    let r = report(text.as_bytes());
    let values = (r.kernels.iter())
        .map(|k| (0..k.metrics.len()).map(|c| k.number(&format!("m{c}")).unwrap()).collect())
        .collect();
    (values, r.warnings)
}

#[test]
fn decimal_commas_known_answers() {
    // "0,125" cannot be a thousands-separated number: 0.125 wherever it is.
    assert_eq!(values(&raw(&[&["0,125"]])).0, [[0.125]]);
    // "1,125" in a table whose other values use decimal points: 1125.
    assert_eq!(values(&raw(&[&["59.51", "1,125"]])), (vec![vec![59.51, 1125.0]], vec![]));
    // ... and in one whose other values use decimal commas: 1.125; "65.536" there is 65536.
    assert_eq!(values(&raw(&[&["59,51", "1,125", "65.536"]])), (vec![vec![59.51, 1.125, 65_536.0]], vec![]));
    // The value that shows the separator may come later in the same kernel's row.
    assert_eq!(values(&raw(&[&["1,125", "1.234.567"]])).0, [[1.125, 1_234_567.0]]);
    assert_eq!(values(&raw(&[&["1,125", "11,185,002.67"]])).0, [[1125.0, 11_185_002.67]]);
    // Or in an earlier kernel of the table.
    assert_eq!(values(&raw(&[&["0,5"], &["1,125"]])).0, [[0.5], [1.125]]);
}

#[test]
fn decimal_separator_unknown_then_shown() {
    // Nothing shows the separator: a decimal point, said once per table.
    let (got, warnings) = values(&raw(&[&["1,125"], &["2,250"]]));
    assert_eq!(got, [[1125.0], [2250.0]]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with("line 2: \"1,125\" is 1125 where `.` is the decimal separator and 1.125 where `,` is")
    );
    // A later kernel shows decimal commas: later values follow it, and a warning names the earlier.
    let (got, warnings) = values(&raw(&[&["1,125", "1"], &["2,250", "0,5"]]));
    assert_eq!(got, [[1125.0, 1.0], [2.25, 0.5]]);
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[1].starts_with("line 3: this value has a decimal comma, but ambiguous values earlier in this"));
    assert!(warnings[1].contains("(first \"1,125\" on line 2)"), "{}", warnings[1]);
    // Each capture has its own convention.
    let text = raw(&[&["0,5", "1,125"]]) + &raw(&[&["0.5", "1,125"]]);
    assert_eq!(values(&text).0, [[0.5, 1.125], [0.5, 1125.0]]);
}

#[test]
fn decimal_separator_in_a_details_kernel() {
    // The kernel's rows are read whole before its ambiguous values are.
    let text = [
        DETAILS.to_string(),
        details_row(0, 1, "a", "Kbyte", "1,125"),
        details_row(0, 1, "b", "%", "59,51"),
        details_row(1, 1, "a", "Kbyte", "2,250"),
    ]
    .join("\n");
    let r = report(text.as_bytes());
    close(num(&r.kernels[0], "a"), 1_125.0, "byte"); // 1.125 Kbyte
    close(num(&r.kernels[0], "b"), 59.51, "%");
    close(num(&r.kernels[1], "a"), 2_250.0, "byte");
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    // Without a value that shows it, the warning quotes the value as printed, before its unit.
    let text = [DETAILS.to_string(), details_row(0, 1, "a", "Kbyte", "1,125")].join("\n");
    let r = report(text.as_bytes());
    close(num(&r.kernels[0], "a"), 1_125_000.0, "byte");
    assert!(r.warnings[0].starts_with("line 2: \"1,125\" is 1125 where `.` is the decimal separator and 1.125"));
}

// ---- other errors: file, line, fix ----

#[test]
fn errors_name_the_line_and_the_fix() {
    let header = "\"ID\",\"Kernel Name\",\"x\"";
    // A quoted field never closed.
    let (line, message) = error(format!("{header}\n\"0\",\"k\",\"5\"\n\"1\",\"k\n\"2\",\"k\",\"6\"\n").as_bytes());
    assert_eq!(line, Some(3));
    assert!(message.contains("never closed") && message.contains("--log-file"), "{message}");
    // A quoted field that spans lines is one field.
    let r = report(format!("{header}\n\"0\",\"k\nl\",\"5\"\n").as_bytes());
    assert_eq!((r.kernels[0].kernel.as_str(), r.kernels[0].number("x")), ("k\nl", Some(5.0)));
    // A repeated ID in a raw page.
    let (line, message) = error(format!("{header}\n\"0\",\"k\",\"5\"\n\"0\",\"k\",\"6\"\n").as_bytes());
    assert_eq!(line, Some(3));
    assert!(message.starts_with("kernel ID 0 comes after ID 0 (line 2)"), "{message}");
    // A row of another width after a units row.
    let (line, message) = error(format!("{header}\n\"\",\"\",\"ns\"\n\"0\",\"k\",\"5\",\"6\"\n").as_bytes());
    assert_eq!(line, Some(3));
    assert!(message.contains("header on line 1 has 3"), "{message}");
    // Binary data.
    let (line, message) = error(b"\x00\x01\x02\x03\x04\x05\xff\xfe\x00\x00rest");
    assert_eq!(line, Some(1));
    assert!(message.contains("binary data") && message.contains(".ncu-rep"), "{message}");
    // An ==ERROR== after kernels stops the stream.
    let (line, message) = error(format!("{header}\n\"0\",\"k\",\"5\"\n==ERROR== Out of memory\n").as_bytes());
    assert_eq!(line, Some(3));
    assert!(message.contains("line 3: ==ERROR== Out of memory") && message.contains("profile again"), "{message}");
}
