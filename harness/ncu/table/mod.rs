//! The streaming core of [`super::parse`]: a state machine fed one line at a time, which hands
//! each kernel to a [`Sink`] as soon as it is complete.
//!
//! States: before the first header (program output and ncu's lines are skipped), then in a table.
//! Each header starts a table (a capture); in a table a row is a raw-page kernel, a details-page
//! metric of the current kernel (the kernel changes when `Process ID` or `ID` does), or the units
//! row right after a raw-page header. Per table it keeps the columns, the units, the decimal
//! separator ([`super::number`]), the last `ID` of each process (ncu prints kernels in increasing
//! `ID` order, so a kernel that comes back, a repeated `ID`, is caught), and on a details page the
//! kernel being read: memory does not grow with the number of kernels.
//!
//! Here: the state machine and its state; a row's launch attributes are `columns.rs`'s, the kernel
//! rows `rows.rs`'s, a cell's value and the decimal separator `values.rs`'s.

mod columns;
mod rows;
mod values;

use super::fields::{Fields, quote_open};
use super::model::{KernelRecord, Layout, Sink, Summary, ncu_error};
use super::number::{Decimal, Number};
use super::units::read_unit_exponent;
use crate::error::{Error, Result};
use columns::{ATTRIBUTE_COLUMNS, Columns};
use rows::unknown_unit;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use values::settle;

/// How many `==ERROR==` and `==WARNING==` lines are quoted in an error message.
const QUOTED_LINES: usize = 20;

/// A raw page's metric column: where it is, its name, and its unit once the units row is read.
struct RawColumn {
    index: usize,
    name: String,
    unit: String,
    /// The unit's factor as a power of ten ([`read_unit_exponent`]).
    exp10: i32,
}

/// The page of a table and where its metrics are.
enum Page {
    /// Metric columns, in header order; `sorted`: their indices in the order of the names (the
    /// order of [`KernelRecord::metrics`]), `None` when two columns share a name; `reuse`: the
    /// last kernel of a row with every column, whose record the next such row overwrites.
    Raw { columns: Vec<RawColumn>, sorted: Option<Vec<usize>>, reuse: Option<Building> },
    /// Where the metric fields of a details page are.
    Details { name: usize, value: usize, unit: Option<usize>, section: Option<usize> },
}

impl Page {
    fn layout(&self) -> Layout {
        match self {
            Page::Raw { .. } => Layout::Raw,
            Page::Details { .. } => Layout::Details,
        }
    }
}

/// A kernel being read: its record and its values that wait for the table's decimal separator.
struct Building {
    record: KernelRecord,
    /// (metric key, the number in base units, line, text as printed).
    ambiguous: Vec<(String, Number, usize, String)>,
}

/// What a table has shown of its decimal separator ([`super::number`]).
#[derive(Default)]
struct DecimalState {
    /// The decimal separator and the line of the first value that showed it.
    shown: Option<(Decimal, usize)>,
    /// The first ambiguous value read with the default decimal point (line, text).
    assumed: Option<(usize, String)>,
    conflict_warned: bool,
}

/// One ncu table: a header and the rows after it, up to the next header or the end.
struct Table {
    capture: usize,
    header_line: usize,
    width: usize,
    /// The header's fields are quoted, as ncu writes them: a row starts with `"`.
    quoted: bool,
    columns: Columns,
    page: Page,
    /// Rows read after the header (a units row included).
    rows: usize,
    kernels: usize,
    decimal: DecimalState,
    /// Per process, the last kernel's ID (when it is a number) and its first line.
    last_ids: HashMap<String, (u64, usize)>,
    /// Details page: the kernel whose rows are being read.
    current: Option<Building>,
}

/// The streaming parser: fed one line at a time.
pub(super) struct Parser<'a> {
    origin: &'a Path,
    sink: &'a mut dyn Sink,
    fields: Fields,
    /// A record whose quoted field holds a line break, and the line it starts on.
    open: Option<(usize, String)>,
    table: Option<Table>,
    first_header: Option<(usize, Vec<String>)>,
    captures: usize,
    kernels: usize,
    /// `==ERROR==` lines (the first [`QUOTED_LINES`]) and how many there were.
    errors: Vec<(usize, String)>,
    error_count: usize,
    /// `==WARNING==` lines (the first [`QUOTED_LINES`]), for the "no kernel" error.
    ncu_warnings: Vec<String>,
    /// Units already warned about, and details names already qualified by section.
    unknown_units: HashSet<String>,
    renamed: HashSet<String>,
    /// The line of a `--print-summary` table's header, when one was seen before any details header.
    summary_header: Option<usize>,
}

impl<'a> Parser<'a> {
    /// A parser of the input named `origin` in errors, handing what it reads to `sink`.
    pub(super) fn new(origin: &'a Path, sink: &'a mut dyn Sink) -> Self {
        Parser {
            origin,
            sink,
            fields: Fields::default(),
            open: None,
            table: None,
            first_header: None,
            captures: 0,
            kernels: 0,
            errors: Vec::new(),
            error_count: 0,
            ncu_warnings: Vec::new(),
            unknown_units: HashSet::new(),
            renamed: HashSet::new(),
            summary_header: None,
        }
    }

    fn error(&self, line: Option<usize>, message: impl Into<String>) -> Error {
        ncu_error(self.origin, line, message)
    }

    /// One line of the input, without its line break; `number` is 1-based.
    pub(super) fn line(&mut self, number: usize, bytes: &[u8]) -> Result<()> {
        if utf16_line(bytes) {
            let message = "this line is UTF-16 text (a 0 byte beside each character) in a file that starts as \
                           UTF-8: a UTF-16 capture was appended to it (PowerShell 5 writes UTF-16LE). Convert that \
                           part with `iconv -f UTF-16LE -t UTF-8` before appending it, or write captures with \
                           `Out-File -Encoding utf8` (or `ncu --csv --log-file FILE`).";
            return Err(self.error(Some(number), message));
        }
        if let Some((start, mut record)) = self.open.take() {
            record.push('\n');
            record.push_str(self.strict_utf8(number, bytes)?);
            if quote_open(&record) {
                self.open = Some((start, record));
                return Ok(());
            }
            self.fields.split(&record);
            return self.record(start, true);
        }
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => Cow::Borrowed(t),
            Err(_) if self.would_be_row(bytes) => return self.strict_utf8(number, bytes).map(|_| ()),
            Err(_) => String::from_utf8_lossy(bytes), // program output, skipped below
        };
        let t = text.trim_start_matches('\u{feff}').trim_start();
        if t.starts_with("==ERROR==") {
            self.error_count += 1;
            if self.errors.len() < QUOTED_LINES {
                self.errors.push((number, t.trim_end().to_string()));
            }
            return Ok(());
        }
        if t.starts_with("==WARNING==") {
            let warning = format!("line {number}: {}", t.trim_end());
            if self.ncu_warnings.len() < QUOTED_LINES {
                self.ncu_warnings.push(warning.clone());
            }
            return self.sink.warning(warning);
        }
        if self.error_count > 0 || t.is_empty() || is_ncu_log(t) {
            return Ok(()); // after an ==ERROR== only further ==ERROR== lines matter
        }
        match &self.table {
            None if self.summary_header.is_none() && is_summary_header(t, &mut self.fields) => {
                self.summary_header = Some(number);
                return Ok(());
            }
            None if !(t.starts_with("\"ID\",") || t.starts_with("ID,")) => return Ok(()), // program output
            None if !is_header(t, &mut self.fields) => return Ok(()),
            Some(table) if table.quoted && !t.starts_with('"') => {
                return self.sink.warning(format!("line {number}: skipped, not a CSV row: {}", t.trim_end()));
            }
            _ => {}
        }
        if quote_open(t) {
            self.open = Some((number, t.to_string()));
            return Ok(());
        }
        self.fields.split(t);
        self.record(number, t.starts_with('"'))
    }

    /// Whether a line that is not UTF-8 would be read as a table row (or header), where a byte
    /// cannot be replaced without changing a value.
    fn would_be_row(&self, bytes: &[u8]) -> bool {
        let t = bytes.trim_ascii_start();
        match &self.table {
            None => t.starts_with(b"\"ID\",") || t.starts_with(b"ID,"),
            Some(table) => !table.quoted || t.starts_with(b"\""),
        }
    }

    /// `bytes` as UTF-8, or the error naming the line, the byte and the fix.
    fn strict_utf8<'b>(&self, number: usize, bytes: &'b [u8]) -> Result<&'b str> {
        std::str::from_utf8(bytes).map_err(|e| {
            let at = e.valid_up_to();
            let (file, utf8) = (self.origin.display(), self.origin.with_extension("utf8.csv"));
            let utf8 = utf8.display();
            self.error(
                Some(number),
                format!(
                    "byte 0x{:02X} at column {} of this table row is not UTF-8, the encoding ncu writes: the file \
                     was converted or edited (Latin-1 or Windows-1252 text?). Convert it with `iconv -f LATIN1 -t \
                     UTF-8 {file} > {utf8}` (or the encoding it is in), or print the capture again with \
                     `ncu --csv --log-file FILE`.",
                    bytes[at],
                    at + 1
                ),
            )
        })
    }

    /// One whole CSV record, split into `self.fields`, starting on line `line`; `quoted`: its text
    /// starts with `"`.
    fn record(&mut self, line: usize, quoted: bool) -> Result<()> {
        if self.fields.cell(0) == "ID" && self.fields.iter().any(|f| f == "Kernel Name") {
            return self.header(line, quoted);
        }
        let table = self.table.as_mut().expect("records are read only after a header");
        if self.fields.len() > table.width {
            let message = format!(
                "this row has {} fields but the header on line {} has {}, so its values cannot be matched to \
                 columns. Check that the file holds unmodified ncu CSV tables (write them with `ncu --csv \
                 --log-file FILE` so that the program's own output cannot mix in).",
                self.fields.len(),
                table.header_line,
                table.width
            );
            return Err(ncu_error(self.origin, Some(line), message));
        }
        table.rows += 1;
        if self.fields.cell(0).trim().is_empty() {
            if let (1, Page::Raw { columns, .. }) = (table.rows, &mut table.page) {
                for column in columns.iter_mut() {
                    let printed = self.fields.cell(column.index);
                    let known = read_unit_exponent(printed);
                    if known.is_none() && self.unknown_units.insert(printed.trim().to_string()) {
                        self.sink.warning(unknown_unit(line, printed, &column.name))?;
                    }
                    (column.unit, column.exp10) = known.unwrap_or_else(|| (printed.trim().to_string(), 0));
                }
                return Ok(());
            }
            let message = "this row has an empty `ID` field, so it cannot be attributed to a kernel (only a units \
                           row, right after a raw page's header, may have one). Check that the file is unmodified \
                           ncu CSV output.";
            return Err(ncu_error(self.origin, Some(line), message));
        }
        if matches!(table.page, Page::Raw { .. }) { self.raw_row(line) } else { self.details_row(line) }
    }

    /// A header line: the first table, or a repeated header that starts the next capture.
    fn header(&mut self, line: usize, quoted: bool) -> Result<()> {
        match &self.first_header {
            Some((first_line, first)) if !self.fields.iter().eq(first.iter().map(String::as_str)) => {
                let message = format!(
                    "a second ncu table with a different header starts here (the first header is on line \
                     {first_line}); split the file so that each holds ncu CSV tables of one kind (same page, \
                     metrics and ncu version)."
                );
                return Err(self.error(Some(line), message));
            }
            Some(_) => self.end_table(true)?,
            None => self.first_header = Some((line, self.fields.to_vec())),
        }
        self.captures += 1;
        let (col, fields) = (|name: &str| self.fields.iter().position(|c| c == name), &self.fields);
        let page = match (col("Metric Name"), col("Metric Value")) {
            (Some(name), Some(value)) => {
                Page::Details { name, value, unit: col("Metric Unit"), section: col("Section Name") }
            }
            _ => {
                let columns: Vec<RawColumn> = (fields.iter().enumerate())
                    .filter(|(_, name)| !ATTRIBUTE_COLUMNS.contains(name) && !name.contains("Domain:"))
                    .map(|(index, name)| RawColumn { index, name: name.to_string(), unit: String::new(), exp10: 0 })
                    .collect();
                let mut sorted: Vec<usize> = (0..columns.len()).collect();
                sorted.sort_by(|&a, &b| columns[a].name.cmp(&columns[b].name));
                let unique = sorted.windows(2).all(|w| columns[w[0]].name != columns[w[1]].name);
                Page::Raw { columns, sorted: unique.then_some(sorted), reuse: None }
            }
        };
        self.table = Some(Table {
            capture: self.captures,
            header_line: line,
            width: fields.len(),
            quoted,
            columns: Columns::new(fields),
            page,
            rows: 0,
            kernels: 0,
            decimal: DecimalState::default(),
            last_ids: HashMap::new(),
            current: None,
        });
        Ok(())
    }

    /// Completes the current table: its last kernel, and a warning when it had no kernel row while
    /// another table follows (`next`) or came before.
    fn end_table(&mut self, next: bool) -> Result<()> {
        let Some(table) = self.table.as_mut() else { return Ok(()) };
        if let Some(mut done) = table.current.take() {
            settle(&mut done, &mut table.decimal, self.sink)?;
            table.kernels += 1;
            self.kernels += 1;
            self.sink.kernel(&done.record)?;
        }
        if table.kernels == 0 && (next || self.captures > 1) {
            let header_line = table.header_line;
            self.sink
                .warning(format!("line {header_line}: this ncu table (capture {}) has no kernel row", table.capture))?;
        }
        Ok(())
    }

    /// The end of the input: the last kernel, and the errors that only the whole input shows.
    pub(super) fn finish(mut self) -> Result<Summary> {
        if let Some((start, _)) = &self.open {
            let message = "a quoted field that starts on this line is never closed: the file is cut short, or is \
                           not ncu CSV. Print the capture again with `ncu --csv --log-file FILE`.";
            return Err(self.error(Some(*start), message));
        }
        if let Some(&(first, _)) = self.errors.first() {
            return Err(self.ncu_errors(first));
        }
        self.end_table(false)?;
        let Some(table) = &self.table else {
            if let Some(line) = self.summary_header {
                let message = "this is ncu's `--print-summary` output (per kernel: its `Invocations` and each metric's \
                               `Minimum`, `Maximum`, `Average` over them), not one row per launch, which kernelgate \
                               reads to tell the launches of each trial apart and judge each. Print the capture \
                               again without `--print-summary`: `ncu --csv --page details --import REPORT.ncu-rep` \
                               from the report, or profile with `ncu --csv` (or import the .ncu-rep itself: \
                               `kernelgate import-ncu REPORT.ncu-rep`)";
                return Err(ncu_error(self.origin, Some(line), message.to_string()));
            }
            let what = "no ncu CSV header (a line whose first field is `ID` and that has a `Kernel Name` column) \
                        was found";
            return Err(no_kernels(self.origin, None, what, &self.ncu_warnings));
        };
        if self.kernels == 0 {
            let line = self.first_header.as_ref().map_or(table.header_line, |(l, _)| *l);
            let what = format!("the CSV header on line {line} is followed by no kernel row");
            return Err(no_kernels(self.origin, Some(line), &what, &self.ncu_warnings));
        }
        Ok(Summary { layout: table.page.layout(), kernels: self.kernels, captures: self.captures })
    }

    /// The error quoting every `==ERROR==` line (the first [`QUOTED_LINES`]), with the fix.
    fn ncu_errors(&self, first: usize) -> Error {
        let mut quoted: Vec<String> = self.errors.iter().map(|(n, l)| format!("line {n}: {l}")).collect();
        if self.error_count > self.errors.len() {
            quoted.push(format!("and {} more", self.error_count - self.errors.len()));
        }
        let fix = if self.errors.iter().any(|(_, l)| l.contains("ERR_NVGPUCTRPERM")) {
            "This user may not read the GPU's performance counters (ERR_NVGPUCTRPERM). Run ncu as root (e.g. \
             `sudo ncu …`), or allow profiling by non-admin users: put the line \
             `options nvidia NVreg_RestrictProfilingToAdminUsers=0` in a file under /etc/modprobe.d/, then \
             reload the nvidia driver (unload and load its kernel modules, or reboot; run \
             `update-initramfs -u` first where the driver loads from the initramfs); see \
             https://developer.nvidia.com/ERR_NVGPUCTRPERM."
        } else {
            "Fix what it says and profile again; do not use the metrics of this output."
        };
        self.error(Some(first), format!("ncu reported an error: {}. {fix}", quoted.join("; ")))
    }
}

/// The "no kernel was profiled" error, with what was found and ncu's warnings.
pub(super) fn no_kernels(origin: &Path, line: Option<usize>, what: &str, warnings: &[String]) -> Error {
    let mut message = format!(
        "no kernel was profiled: {what}. Check that ncu ran with `--csv`, that its kernel filter \
         (`-k`/`--kernel-name`, `--launch-skip`, `-c`) and NVTX filter (`--nvtx --nvtx-include`; a \
         push/pop range needs a trailing `/`, e.g. `family/variant/size/`) match what the program runs, \
         and that the program launched a kernel at all."
    );
    if !warnings.is_empty() {
        message += &format!(" ncu warned: {}", warnings.join("; "));
    }
    ncu_error(origin, line, message)
}

/// Whether `line` has a 0 byte beside each character: UTF-16 text (split at its `\n` bytes).
fn utf16_line(line: &[u8]) -> bool {
    line.contains(&0) && line.iter().filter(|&&b| b == 0).count() * 3 >= line.len().max(2)
}

/// The first field of `line` is `ID` and a field is `Kernel Name`: ncu's CSV header. Splits into
/// `fields`.
fn is_header(line: &str, fields: &mut Fields) -> bool {
    fields.split(line);
    fields.cell(0) == "ID" && fields.iter().any(|f| f == "Kernel Name")
}

/// The header of the table `ncu --print-summary per-kernel` (or `per-gpu`, `per-nvtx`) prints:
/// `Invocations` and the `Minimum`, `Maximum`, `Average` of each metric instead of an `ID` per
/// launch. Splits into `fields`.
fn is_summary_header(line: &str, fields: &mut Fields) -> bool {
    if !line.contains("Invocations") {
        return false;
    }
    fields.split(line);
    let has = |name: &str| fields.iter().any(|f| f == name);
    fields.cell(0) != "ID" && has("Invocations") && has("Metric Name") && has("Average")
}

/// `==PROF==`, `==WARNING==`, `==ERROR==` and other lines ncu writes itself.
fn is_ncu_log(t: &str) -> bool {
    t.strip_prefix("==")
        .and_then(|rest| rest.split_once("=="))
        .is_some_and(|(tag, _)| !tag.is_empty() && tag.bytes().all(|b| b.is_ascii_uppercase()))
}

// The parser's tests read NVTX cells with it (`super::super::table::nvtx_ranges`).
#[cfg(test)]
pub(crate) use columns::nvtx_ranges;
