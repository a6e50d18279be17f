//! `kernelgate import-ncu`: an existing ncu capture (CSV, or `.ncu-rep` through `ncu --import`)
//! read into kernelgate's normalized form and printed, kernel by kernel, as it is read: memory
//! stays constant in the number of kernels ([`run`]).

use super::parse::{self, KernelRecord, MetricValue, Report, Sink, Summary};
use super::run::Session;
use crate::error::{Error, Result};
use std::fmt::Write as _;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// How [`run`] prints the kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One block per kernel ([`write_table`]).
    Table,
    /// CSV, one row per kernel and metric ([`CSV_HEADER`], [`write_csv`]).
    Csv,
}

/// The columns of the CSV [`write_csv`] prints: ncu's `ID`, the kernel name, its NVTX ranges
/// joined with `/`, the metric name, the value (in `unit`; `n/a` or text as printed), the base unit
/// (empty for counts), the `Process ID` (empty when ncu printed none), and the capture (table) the
/// kernel is in, from 1. A kernel is identified by capture, process and ID.
pub const CSV_HEADER: &str = "id,kernel,nvtx,metric,value,unit,process,capture";

/// A capture opened for reading: the file itself, or what `ncu --import` printed of a report.
pub struct Capture {
    reader: Box<dyn Read>,
    origin: PathBuf,
    /// Holds ncu's CSV of a report until it has been read.
    _dir: Option<tempfile::TempDir>,
}

impl Capture {
    /// The name that errors give the capture: the file, or for a report
    /// `REPORT.ncu-rep (as printed by ncu --import --csv)`, whose lines they count.
    pub fn origin(&self) -> &Path {
        &self.origin
    }

    /// Reads the capture through [`parse::read`], handing each kernel to `sink`.
    ///
    /// # Errors
    /// As [`parse::read`].
    pub fn read(self, sink: &mut dyn Sink) -> Result<Summary> {
        parse::read(self.reader, &self.origin, sink)
    }
}

/// Opens `file` for reading: a `.ncu-rep` is printed first by `ncu --import --csv --page raw
/// --print-units base --log-file` into a temporary file (the arguments of
/// [`Session::import_args`]), which is then read as it is for a CSV file.
///
/// # Errors
/// [`Error::Ncu`] naming `file` when it does not exist or is a folder; [`Error::Io`] when it cannot
/// be opened; for a `.ncu-rep`, [`Error::Ncu`] naming `ncu` when it is not installed or cannot be
/// started (with the fix: `--ncu PATH` or `KERNELGATE_NCU_PATH`), and naming `file` when
/// `ncu --import` fails (with the start of what it printed).
pub fn open(file: &Path, ncu: &Path) -> Result<Capture> {
    let missing = |message: String| Error::Ncu { origin: file.to_path_buf(), line: None, message };
    match std::fs::metadata(file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(missing(format!(
                "no such file: the capture to import is not there (check the path; `kernelgate import-ncu` \
                 takes a CSV that ncu printed with `--csv`, or an Nsight Compute report `*.ncu-rep`) ({e})"
            )));
        }
        Err(e) => return Err(Error::Io { path: file.to_path_buf(), source: e }),
        Ok(m) if m.is_dir() => {
            return Err(missing("this is a folder; name the ncu CSV file or `.ncu-rep` report in it".to_string()));
        }
        Ok(_) => {}
    }
    if file.extension().is_none_or(|e| e != "ncu-rep") {
        let reader = std::fs::File::open(file).map_err(Error::io(file))?;
        return Ok(Capture { reader: Box::new(reader), origin: file.to_path_buf(), _dir: None });
    }
    let dir = tempfile::tempdir().map_err(Error::io(std::env::temp_dir()))?;
    let csv = dir.path().join("raw.csv");
    let output = (Command::new(ncu).args(Session::import_args(file, &csv)))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| ncu_spawn_error(ncu, file, &e))?;
    if !output.status.success() {
        let printed = format!("{}\n{}", head(&csv, 20), String::from_utf8_lossy(&output.stderr));
        return Err(missing(format!(
            "`{} --import` could not print this report ({}); it said: {}. Check that the file is an Nsight \
             Compute report and that this ncu is as new as the one that wrote it (`ncu --version`).",
            ncu.display(),
            output.status,
            printed.trim()
        )));
    }
    let reader = std::fs::File::open(&csv).map_err(Error::io(&csv))?;
    let origin = PathBuf::from(format!("{} (as printed by ncu --import --csv)", file.display()));
    Ok(Capture { reader: Box::new(reader), origin, _dir: Some(dir) })
}

/// The error for an ncu that cannot be started to read `file`.
fn ncu_spawn_error(ncu: &Path, file: &Path, e: &std::io::Error) -> Error {
    let what = if e.kind() == std::io::ErrorKind::NotFound {
        "was not found: Nsight Compute is not installed, or not on PATH"
    } else {
        "could not be started"
    };
    Error::Ncu {
        origin: ncu.to_path_buf(),
        line: None,
        message: format!(
            "ncu {what} ({e}); it is needed to read the report {}. Install Nsight Compute, or name the ncu \
             executable with `--ncu PATH` or KERNELGATE_NCU_PATH (a CSV capture needs no ncu).",
            file.display()
        ),
    }
}

/// The first `lines` lines of `path`, or `""` when it cannot be read.
fn head(path: &Path, lines: usize) -> String {
    let mut text = String::new();
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(8192).read_to_string(&mut text);
    }
    text.lines().take(lines).collect::<Vec<_>>().join("\n")
}

/// `kernelgate import-ncu FILE [--csv]`: reads `file` ([`open`]) and prints each kernel to `out`
/// in `format` as soon as it is complete, and each warning to `warnings` (as
/// `kernelgate: warning: ORIGIN: line N: …`). Memory stays constant in the number of kernels. A
/// closed `out` (`kernelgate import-ncu big.csv | head`) ends the run quietly.
///
/// # Errors
/// As [`open`] and [`parse::read`]; [`Error::Io`] naming `<stdout>` when `out` cannot be
/// written. Kernels before an error in the capture are printed.
pub fn run(file: &Path, ncu: &Path, format: Format, out: &mut dyn Write, warnings: &mut dyn Write) -> Result<()> {
    let capture = open(file, ncu)?;
    let origin = capture.origin().to_path_buf();
    let mut printer = Printer { format, out: BufWriter::with_capacity(1 << 16, out), warnings, origin, rows: 0 };
    let read = capture.read(&mut printer).and_then(|_| printer.out.flush().map_err(stdout_error));
    match read {
        Err(Error::Io { path, source })
            if path == Path::new(STDOUT) && source.kind() == std::io::ErrorKind::BrokenPipe =>
        {
            Ok(())
        }
        Err(e) => {
            let _ = printer.out.flush(); // what was read before the error
            Err(e)
        }
        Ok(()) => Ok(()),
    }
}

/// [`open`] and collect every kernel into a [`Report`] (for captures small enough to hold).
///
/// # Errors
/// As [`open`] and [`parse::read`].
pub fn load(file: &Path, ncu: &Path) -> Result<Report> {
    let capture = open(file, ncu)?;
    let origin = capture.origin().to_path_buf();
    parse::collect(capture.reader, &origin)
}

const STDOUT: &str = "<stdout>";

fn stdout_error(source: std::io::Error) -> Error {
    Error::Io { path: PathBuf::from(STDOUT), source }
}

/// The [`Sink`] of [`run`]: prints each kernel as it comes.
struct Printer<'w> {
    format: Format,
    out: BufWriter<&'w mut dyn Write>,
    warnings: &'w mut dyn Write,
    origin: PathBuf,
    rows: usize,
}

impl Sink for Printer<'_> {
    fn kernel(&mut self, kernel: &KernelRecord) -> Result<()> {
        match self.format {
            Format::Table => write_table(&mut self.out, kernel),
            Format::Csv => {
                if self.rows == 0 {
                    writeln!(self.out, "{CSV_HEADER}").map_err(stdout_error)?;
                }
                write_csv(&mut self.out, kernel)
            }
        }
        .map_err(stdout_error)?;
        self.rows += 1;
        Ok(())
    }

    fn warning(&mut self, warning: String) -> Result<()> {
        writeln!(self.warnings, "kernelgate: warning: {}: {warning}", self.origin.display())
            .map_err(|source| Error::Io { path: "<stderr>".into(), source })
    }
}

/// One block for `k`: a heading (`kernel NAME (ID N)`, then its NVTX ranges, grid and block,
/// process, and capture when it is not the first), then one line per metric: name, value, unit.
///
/// # Errors
/// Those of `out`.
pub fn write_table(out: &mut dyn Write, k: &KernelRecord) -> std::io::Result<()> {
    write!(out, "kernel {} (ID {})", k.kernel, k.id)?;
    if !k.nvtx.is_empty() {
        write!(out, "  nvtx {}", k.nvtx_path())?;
    }
    if let (Some(g), Some(b)) = (&k.grid, &k.block) {
        write!(out, "  grid {g} block {b}")?;
    }
    if let Some(p) = &k.process {
        write!(out, "  process {p}")?;
    }
    if k.capture > 1 {
        write!(out, "  capture {}", k.capture)?;
    }
    writeln!(out)?;
    // Each line is built in one buffer and written at once: a capture can hold millions of lines.
    let width = k.metrics.keys().map(|n| chars(n)).max().unwrap_or(0);
    let (mut line, mut value) = (String::new(), String::new());
    for (name, m) in &k.metrics {
        value.clear();
        match &m.value {
            MetricValue::Number(n) => push_number(&mut value, *n),
            MetricValue::Text(t) | MetricValue::NotFinite(t) => value.push_str(t),
            MetricValue::NotAvailable => value.push_str("n/a"),
        }
        line.clear();
        line.push_str("  ");
        line.push_str(name);
        pad(&mut line, width - chars(name) + 2 + 20usize.saturating_sub(chars(&value)));
        line.push_str(&value);
        line.push_str("  ");
        line.push_str(&m.unit);
        line.push('\n');
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// The rows of `k` in the CSV of [`CSV_HEADER`], one per metric (RFC 4180: a field holding `,`,
/// `"` or a line break is quoted, its quotes doubled).
///
/// # Errors
/// Those of `out`.
pub fn write_csv(out: &mut dyn Write, k: &KernelRecord) -> std::io::Result<()> {
    let mut prefix = String::new();
    for field in [k.id.as_str(), &k.kernel, &k.nvtx_path()] {
        push_field(&mut prefix, field);
        prefix.push(',');
    }
    let mut suffix = String::new();
    push_field(&mut suffix, k.process.as_deref().unwrap_or(""));
    write!(suffix, ",{}", k.capture).expect("writing to a String");
    let mut row = String::new();
    for (name, m) in &k.metrics {
        row.clear();
        row.push_str(&prefix);
        push_field(&mut row, name);
        row.push(',');
        match &m.value {
            MetricValue::Number(n) => push_number(&mut row, *n),
            MetricValue::Text(t) | MetricValue::NotFinite(t) => push_field(&mut row, t),
            MetricValue::NotAvailable => row.push_str("n/a"),
        }
        row.push(',');
        push_field(&mut row, &m.unit);
        row.push(',');
        row.push_str(&suffix);
        row.push('\n');
        out.write_all(row.as_bytes())?;
    }
    Ok(())
}

/// The width of `s` in characters (as `{:<N}` pads).
fn chars(s: &str) -> usize {
    if s.is_ascii() { s.len() } else { s.chars().count() }
}

/// Appends `n` spaces to `line`.
fn pad(line: &mut String, mut n: usize) {
    const SPACES: &str = "                                                                ";
    while n > 0 {
        let k = n.min(SPACES.len());
        line.push_str(&SPACES[..k]);
        n -= k;
    }
}

/// Appends `n` as Rust's `Display` prints it (shortest text that reads back the same); an integer
/// below 2^53 through integer formatting, which prints the same digits faster.
fn push_number(row: &mut String, n: f64) {
    if n.fract() != 0.0 || n.abs() >= 9.0e15 || (n == 0.0 && n.is_sign_negative()) {
        write!(row, "{n}").expect("writing to a String");
        return;
    }
    if n < 0.0 {
        row.push('-');
    }
    let (mut digits, mut i, mut rest) = ([0u8; 16], 16, n.abs() as u64);
    loop {
        i -= 1;
        digits[i] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    row.push_str(std::str::from_utf8(&digits[i..]).expect("ASCII digits"));
}

/// Whether `field` holds `,`, `"`, `\r` or `\n`, eight bytes at a time (a capture prints
/// millions of metric names).
fn needs_quotes(field: &str) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Whether a byte of `word` is `byte`: the classic test for a zero byte, on `word ^ byte...`.
    let has = |word: u64, byte: u8| {
        let x = word ^ (ONES * u64::from(byte));
        x.wrapping_sub(ONES) & !x & HIGH != 0
    };
    let mut words = field.as_bytes().chunks_exact(8);
    for w in &mut words {
        let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
        if has(w, b',') || has(w, b'"') || has(w, b'\n') || has(w, b'\r') {
            return true;
        }
    }
    words.remainder().iter().any(|b| matches!(b, b',' | b'"' | b'\r' | b'\n'))
}

/// Appends `field` to `row` as a CSV field, quoted when it holds `,`, `"`, `\r` or `\n`.
fn push_field(row: &mut String, field: &str) {
    if needs_quotes(field) {
        row.push('"');
        row.push_str(&field.replace('"', "\"\""));
        row.push('"');
    } else {
        row.push_str(field);
    }
}

/// Every kernel of `report` as [`write_table`] prints it.
pub fn to_table(report: &Report) -> String {
    let mut out = Vec::new();
    for k in &report.kernels {
        write_table(&mut out, k).expect("writing to memory");
    }
    String::from_utf8(out).expect("UTF-8 strings print UTF-8")
}

/// Every kernel of `report` as CSV ([`CSV_HEADER`], then [`write_csv`]).
pub fn to_csv(report: &Report) -> String {
    let mut out = format!("{CSV_HEADER}\n").into_bytes();
    for k in &report.kernels {
        write_csv(&mut out, k).expect("writing to memory");
    }
    String::from_utf8(out).expect("UTF-8 strings print UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ncu");
    const TILE: &str = include_str!("../tests/fixtures/ncu/ncu-2025.3.1-h200/tile_raw.csv");

    /// What [`run`] prints for `fixture` (under `harness/tests/fixtures/ncu/`): (stdout, stderr).
    fn printed(fixture: &str, format: Format) -> (String, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let path = Path::new(FIXTURES).join(fixture);
        run(&path, Path::new("ncu"), format, &mut out, &mut err).unwrap_or_else(|e| panic!("{e}"));
        (String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap().replace(FIXTURES, "FIXTURES"))
    }

    /// Golden files: what `kernelgate import-ncu` prints for fixtures. After a deliberate change of
    /// the format, write them again with
    /// `cargo run --release --bin kernelgate -- import-ncu harness/tests/fixtures/ncu/<input> [--csv] > harness/tests/fixtures/ncu/golden/<name>`.
    #[test]
    fn printers_match_the_golden_files() {
        let cases = [
            ("field-reports/01-auto-units-details.csv", Format::Table, "01-auto-units-details.table"),
            ("field-reports/02-appended-details-ids-restart.csv", Format::Csv, "02-appended-details-ids-restart.csv"),
            ("field-reports/02b-appended-raw.csv", Format::Table, "02b-appended-raw.table"),
            ("ncu-public/04.csv", Format::Csv, "public-04.csv"),
            ("ncu-2025.3.1-h200/tile_raw.csv", Format::Table, "tile_raw.table"),
        ];
        for (input, format, golden) in cases {
            let want = std::fs::read_to_string(Path::new(FIXTURES).join("golden").join(golden)).unwrap();
            let (got, _) = printed(input, format);
            assert!(got == want, "{input} no longer prints golden/{golden}; got:\n{got}");
        }
    }

    #[test]
    fn table_and_csv_of_the_h200_tile_fixture() {
        let report = parse::parse_csv(TILE, Path::new("tile_raw.csv")).unwrap();
        let table = to_table(&report);
        assert!(table.starts_with("kernel tile_conflict (ID 0)  nvtx tile_conflict"), "{table}");
        assert!(table.contains("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"));
        let csv = to_csv(&report);
        assert!(csv.starts_with("id,kernel,nvtx,metric,value,unit,process,capture\n"));
        assert!(
            csv.contains("0,tile_conflict,tile_conflict,smsp__sass_inst_executed_op_shared_ld.sum,32768,"),
            "{csv}"
        );
        assert!(csv.contains("0,tile_conflict,tile_conflict,gpu__time_duration.sum,7008,ns,"), "{csv}");
        // Streamed and collected, the same text.
        assert_eq!(printed("ncu-2025.3.1-h200/tile_raw.csv", Format::Csv).0, csv);
        assert_eq!(printed("ncu-2025.3.1-h200/tile_raw.csv", Format::Table).0, table);
    }

    #[test]
    fn warnings_go_to_their_writer_with_the_file() {
        let (out, err) = printed("field-reports/04-utf16le-bom-powershell.csv", Format::Csv);
        assert_eq!(out.lines().count(), 2, "{out}");
        assert!(out.ends_with("0,saxpy,,gpu__time_duration.sum,5120,,3001,1\n"), "{out}");
        assert!(
            err.starts_with(
                "kernelgate: warning: FIXTURES/field-reports/04-utf16le-bom-powershell.csv: line 3: \"5,120\""
            ),
            "{err}"
        );
    }

    #[test]
    fn numbers_and_quoting_as_display_and_rfc_4180() {
        let mut numbers =
            vec![0.0, -0.0, 7008.0, -4096.0, 1.5, 1e-3, 8.99e15, 9.1e15, 1e300, f64::MAX, 11_185_002.67, -1.0];
        numbers.extend([f64::NAN, f64::INFINITY, f64::NEG_INFINITY, f64::MIN_POSITIVE, 9.007199254740993e15]);
        numbers.extend((0..20).map(|k| 10f64.powi(k)).chain((0..20).map(|k| 10f64.powi(k) - 1.0)));
        numbers.extend([5.0, 42.0, 99.0, 100.0, 101.0, 65_536.0, 123_456_789.0]);
        for n in numbers {
            let mut row = String::new();
            push_number(&mut row, n);
            assert_eq!(row, n.to_string());
        }
        let fields =
            ["plain_metric_name.sum", "", "a,b", "(32, 8, 1)", "say \"x\"", "line\nbreak", "cr\r", "12345678,"];
        let quoted: Vec<String> = (fields.iter())
            .map(|f| {
                let mut row = String::new();
                push_field(&mut row, f);
                row
            })
            .collect();
        let want = [
            "plain_metric_name.sum",
            "",
            "\"a,b\"",
            "\"(32, 8, 1)\"",
            "\"say \"\"x\"\"\"",
            "\"line\nbreak\"",
            "\"cr\r\"",
            "\"12345678,\"",
        ];
        assert_eq!(quoted, want);
        assert!(!needs_quotes("abcdefgh-ijklmnop_qrstuvw.xyz%/"));
    }

    #[test]
    fn a_missing_capture_is_named_as_missing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tile.csv");
        std::fs::write(&path, TILE).unwrap();
        assert_eq!(load(&path, Path::new("ncu")).unwrap().kernels.len(), 1);
        for name in ["absent.csv", "absent.ncu-rep"] {
            let Err(Error::Ncu { origin, line: None, message }) = load(&dir.path().join(name), Path::new("/no/ncu"))
            else {
                panic!("{name}: expected Error::Ncu")
            };
            assert_eq!(origin, dir.path().join(name));
            assert!(message.starts_with("no such file: the capture to import is not there"), "{message}");
            assert!(!message.contains("ncu was not found"), "{message}");
        }
        let err = load(dir.path(), Path::new("ncu")).unwrap_err().to_string();
        assert!(err.contains("this is a folder"), "{err}");
    }

    #[test]
    fn a_missing_ncu_is_named_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let report = dir.path().join("r.ncu-rep");
        std::fs::write(&report, b"NVIDIA Nsight Compute report").unwrap();
        let Err(Error::Ncu { origin, message, .. }) = load(&report, Path::new("/no/such/ncu")) else {
            panic!("expected Error::Ncu")
        };
        assert_eq!(origin, Path::new("/no/such/ncu"));
        assert!(message.starts_with("ncu was not found: Nsight Compute is not installed, or not on PATH"), "{message}");
        assert!(message.contains("--ncu PATH") && message.contains("KERNELGATE_NCU_PATH"), "{message}");
        assert!(message.contains(&report.display().to_string()), "{message}");
    }

    /// An executable `ncu` in `dir` running `body` (a shell script); written by another process,
    /// so that no file descriptor of it leaks into a concurrent test's child ("text file busy").
    #[cfg(unix)]
    fn fake_ncu(dir: &Path, body: &str) -> PathBuf {
        let ncu = dir.join("ncu");
        let script = format!("#!/bin/sh\n{body}\n");
        let status = (Command::new("sh").args(["-c", "printf '%s' \"$1\" > \"$2\" && chmod +x \"$2\"", "sh"]))
            .args([script.as_str(), ncu.to_str().unwrap()])
            .status()
            .unwrap();
        assert!(status.success());
        ncu
    }

    /// The `--log-file` argument of [`Session::import_args`], in shell.
    const LOG_FILE: &str = "while [ $# -gt 0 ]; do [ \"$1\" = --log-file ] && out=\"$2\"; shift; done";

    #[cfg(unix)]
    #[test]
    fn a_report_is_read_through_ncu_import() {
        let dir = tempfile::tempdir().unwrap();
        let report = dir.path().join("r.ncu-rep");
        std::fs::write(&report, b"report").unwrap();
        let tile = Path::new(FIXTURES).join("ncu-2025.3.1-h200/tile_raw.csv");
        let ncu = fake_ncu(dir.path(), &format!("{LOG_FILE}\ncp '{}' \"$out\"", tile.display()));
        let (mut out, mut err) = (Vec::new(), Vec::new());
        run(&report, &ncu, Format::Csv, &mut out, &mut err).unwrap();
        let report_csv = to_csv(&parse::parse_file(&tile).unwrap());
        assert_eq!(String::from_utf8(out).unwrap(), report_csv);
        let err = String::from_utf8(err).unwrap();
        assert!(err.contains("r.ncu-rep (as printed by ncu --import --csv): line 1: ==WARNING=="), "{err}");
        // ncu fails: its words, and what to check.
        let ncu = fake_ncu(
            dir.path(),
            &format!("{LOG_FILE}\necho '==ERROR== Failed to open report' > \"$out\"; echo oops >&2; exit 1"),
        );
        let Err(Error::Ncu { origin, message, .. }) = load(&report, &ncu) else { panic!("expected Error::Ncu") };
        assert_eq!(origin, report);
        assert!(message.contains("--import` could not print this report"), "{message}");
        assert!(message.contains("==ERROR== Failed to open report") && message.contains("oops"), "{message}");
        assert!(message.contains("ncu --version"), "{message}");
        // ncu succeeds but prints no table: the parser's error, naming the report.
        let ncu = fake_ncu(dir.path(), &format!("{LOG_FILE}\necho '==WARNING== No kernels were profiled.' > \"$out\""));
        let message = load(&report, &ncu).unwrap_err().to_string();
        assert!(message.contains("r.ncu-rep (as printed by ncu --import --csv): no kernel was profiled"), "{message}");
    }

    #[test]
    fn a_closed_output_ends_the_run_quietly() {
        struct Closed;
        impl Write for Closed {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let path = Path::new(FIXTURES).join("ncu-2025.3.1-h200/saxpy_raw.csv");
        run(&path, Path::new("ncu"), Format::Table, &mut Closed, &mut Vec::new()).unwrap();
        // Other write errors are errors, naming stdout.
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::StorageFull.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let err = run(&path, Path::new("ncu"), Format::Csv, &mut Full, &mut Vec::new()).unwrap_err().to_string();
        assert!(err.starts_with("<stdout>: "), "{err}");
    }
}
