//! `kernelgate import-ncu`: an existing ncu capture (CSV, or `.ncu-rep` through `ncu --import`)
//! read into kernelgate's normalized form and printed.

use super::parse::{self, MetricValue, Report};
use super::run::Session;
use crate::{Error, Result};
use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

/// Reads `file`: a `.ncu-rep` is printed by `ncu --import --csv --page raw --print-units base` into
/// a temporary file first; anything else is parsed as ncu CSV.
///
/// # Errors
/// [`Error::Io`] if the file cannot be read; [`Error::Ncu`] if ncu cannot import it or the CSV is
/// unusable (see [`parse::parse_csv`]).
pub fn load(file: &Path, ncu: &Path) -> Result<Report> {
    if file.extension().is_some_and(|e| e == "ncu-rep") {
        if !file.is_file() {
            return Err(Error::Io { path: file.to_path_buf(), source: std::io::ErrorKind::NotFound.into() });
        }
        let dir = tempfile::tempdir().map_err(Error::io(std::env::temp_dir()))?;
        let csv = dir.path().join("raw.csv");
        let status =
            Command::new(ncu).args(Session::import_args(file, &csv)).stdout(Stdio::null()).status().map_err(|e| {
                Error::Ncu {
                    origin: ncu.to_path_buf(),
                    line: None,
                    message: format!(
                        "cannot run ncu to read {} ({e}); install Nsight Compute or pass --ncu PATH",
                        file.display()
                    ),
                }
            })?;
        let text = std::fs::read_to_string(&csv).unwrap_or_default();
        if !status.success() {
            return Err(Error::Ncu {
                origin: file.to_path_buf(),
                line: None,
                message: format!("`ncu --import` exited with {status}: {}", text.trim()),
            });
        }
        return parse::parse_csv(&text, file);
    }
    let text = std::fs::read_to_string(file).map_err(Error::io(file))?;
    parse::parse_csv(&text, file)
}

fn value_text(v: &MetricValue) -> String {
    match v {
        MetricValue::Number(n) => format!("{n}"),
        MetricValue::Text(t) => t.clone(),
        MetricValue::NotAvailable => "n/a".to_string(),
    }
}

/// One block per kernel: a heading (`ID`, name, NVTX ranges, grid and block), then one line per
/// metric: name, value, unit.
pub fn to_table(report: &Report) -> String {
    let mut out = String::new();
    for k in &report.kernels {
        let nvtx = if k.nvtx.is_empty() { String::new() } else { format!("  nvtx {}", k.nvtx_path()) };
        let launch = match (&k.grid, &k.block) {
            (Some(g), Some(b)) => format!("  grid {g} block {b}"),
            _ => String::new(),
        };
        writeln!(out, "kernel {} (ID {}){nvtx}{launch}", k.kernel, k.id).unwrap();
        let width = k.metrics.keys().map(String::len).max().unwrap_or(0);
        for (name, m) in &k.metrics {
            writeln!(out, "  {name:<width$}  {:>20}  {}", value_text(&m.value), m.unit).unwrap();
        }
    }
    out
}

/// CSV with columns `id, kernel, nvtx, metric, value, unit`, one row per kernel and metric.
///
/// # Errors
/// [`Error::Csv`] if serialization fails (it does not for in-memory output).
pub fn to_csv(report: &Report) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |source| Error::Csv { path: "<stdout>".into(), source };
    w.write_record(["id", "kernel", "nvtx", "metric", "value", "unit"]).map_err(err)?;
    for k in &report.kernels {
        for (name, m) in &k.metrics {
            w.write_record([&k.id, &k.kernel, &k.nvtx_path(), name, &value_text(&m.value), &m.unit]).map_err(err)?;
        }
    }
    let bytes = w.into_inner().map_err(|e| err(e.into_error().into()))?;
    Ok(String::from_utf8(bytes).expect("CSV of UTF-8 strings is UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TILE: &str = include_str!("../../tests/fixtures/ncu/ncu-2025.3.1-h200/tile_raw.csv");

    #[test]
    fn table_and_csv_of_the_h200_tile_fixture() {
        let report = parse::parse_csv(TILE, Path::new("tile_raw.csv")).unwrap();
        let table = to_table(&report);
        assert!(table.starts_with("kernel tile_conflict (ID 0)  nvtx tile_conflict"), "{table}");
        assert!(table.contains("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"));
        let csv = to_csv(&report).unwrap();
        assert!(csv.starts_with("id,kernel,nvtx,metric,value,unit\n"));
        assert!(
            csv.contains("0,tile_conflict,tile_conflict,smsp__sass_inst_executed_op_shared_ld.sum,32768,"),
            "{csv}"
        );
        assert!(csv.contains("0,tile_conflict,tile_conflict,gpu__time_duration.sum,7008,ns\n"), "{csv}");
    }

    #[test]
    fn load_reads_csv_files_and_names_missing_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tile.csv");
        std::fs::write(&path, TILE).unwrap();
        assert_eq!(load(&path, Path::new("ncu")).unwrap().kernels.len(), 1);
        let err = load(&dir.path().join("absent.csv"), Path::new("ncu")).unwrap_err().to_string();
        assert!(err.contains("absent.csv"), "{err}");
        let err = load(&dir.path().join("absent.ncu-rep"), Path::new("ncu")).unwrap_err().to_string();
        assert!(err.contains("absent.ncu-rep"), "{err}");
    }
}
