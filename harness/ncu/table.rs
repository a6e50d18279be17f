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

use super::fields::{Fields, quote_open};
use super::model::{KernelRecord, Layout, Metric, MetricValue, Sink, Summary, ncu_error};
use super::number::{Decimal, Number, read_number, read_scaled};
use super::units::read_unit_exponent;
use crate::{Error, Result};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

/// Columns of either page that describe the launch rather than hold a metric.
const ATTRIBUTE_COLUMNS: &[&str] = &[
    "ID",
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Kernel Time",
    "Context",
    "Stream",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
];

/// How many `==ERROR==` and `==WARNING==` lines are quoted in an error message.
const QUOTED_LINES: usize = 20;

/// [`nvtx_ranges_into`] into a new vector (for tests).
#[cfg(test)]
pub(crate) fn nvtx_ranges(cell: &str) -> Vec<String> {
    let mut ranges = Vec::new();
    nvtx_ranges_into(cell, &mut ranges);
    ranges
}

/// Range names from an NVTX push/pop cell, outermost first (see [`KernelRecord::nvtx`]), written
/// over `ranges`, reusing its strings (a raw page has such a cell per kernel). Each quoted entry is
/// `DOMAIN:RANGE:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg`; a range name that itself holds `:`
/// is what lies between the domain and the last six fields.
fn nvtx_ranges_into(cell: &str, ranges: &mut Vec<String>) {
    let mut n = 0;
    for entry in cell.split('"').skip(1).step_by(2) {
        let colons: Vec<usize> = entry.match_indices(':').map(|(i, _)| i).collect();
        let range = match colons.len() {
            c if c >= 7 => &entry[colons[0] + 1..colons[c - 6]],
            c if c >= 1 => &entry[colons[0] + 1..colons.get(1).copied().unwrap_or(entry.len())],
            _ => continue,
        };
        match ranges.get_mut(n) {
            Some(r) => {
                r.clear();
                r.push_str(range);
            }
            None => ranges.push(range.to_string()),
        }
        n += 1;
    }
    ranges.truncate(n);
}

/// Where the launch attributes are in the header (`ID` is always column 0).
struct Columns {
    kernel: usize,
    process: Option<usize>,
    nvtx: Option<usize>,
    block: Option<usize>,
    grid: Option<usize>,
}

impl Columns {
    fn new(header: &Fields) -> Columns {
        let col = |name: &str| header.iter().position(|c| c == name);
        Columns {
            kernel: col("Kernel Name").unwrap_or(usize::MAX), // is_header checked that it is there
            process: col("Process ID"),
            nvtx: header.iter().position(|c| c.contains("Push/Pop_Range")),
            block: col("Block Size"),
            grid: col("Grid Size"),
        }
    }

    /// The record of the kernel that `row` belongs to, without metrics.
    fn kernel(&self, row: &Fields, capture: usize) -> KernelRecord {
        let mut record = KernelRecord {
            id: String::new(),
            process: None,
            capture,
            kernel: String::new(),
            nvtx: Vec::new(),
            block: None,
            grid: None,
            metrics: BTreeMap::new(),
        };
        self.fill(row, capture, &mut record);
        record
    }

    /// Writes the launch attributes of `row` over `record`, reusing its strings; leaves its metrics.
    fn fill(&self, row: &Fields, capture: usize, record: &mut KernelRecord) {
        let set = |to: &mut String, from: &str| {
            to.clear();
            to.push_str(from.trim());
        };
        let set_option = |to: &mut Option<String>, column: Option<usize>| match (
            column.map(|c| row.cell(c).trim()).filter(|t| !t.is_empty()),
            to.as_mut(),
        ) {
            (Some(t), Some(s)) => set(s, t),
            (t, _) => *to = t.map(str::to_string),
        };
        set(&mut record.id, row.cell(0));
        set_option(&mut record.process, self.process);
        record.capture = capture;
        set(&mut record.kernel, row.cell(self.kernel));
        nvtx_ranges_into(self.nvtx.map_or("", |c| row.cell(c)), &mut record.nvtx);
        set_option(&mut record.block, self.block);
        set_option(&mut record.grid, self.grid);
    }

    /// The `Process ID` cell of `row`, `""` without the column.
    fn process<'r>(&self, row: &'r Fields) -> &'r str {
        self.process.map_or("", |c| row.cell(c).trim())
    }
}

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

    /// A raw page's kernel row: a whole kernel. A row with every column overwrites the record of
    /// the previous such row (same metric names), so that a row allocates nothing.
    fn raw_row(&mut self, line: usize) -> Result<()> {
        let table = self.table.as_mut().expect("a table");
        check_order(table, &self.fields, line, self.origin)?;
        let Page::Raw { columns, sorted, reuse } = &mut table.page else { unreachable!("a raw page") };
        let complete = columns.last().is_none_or(|c| c.index < self.fields.len());
        let mut kernel = match (reuse.take(), &sorted) {
            (Some(k), Some(_)) if complete => k,
            _ => Building { record: table.columns.kernel(&self.fields, table.capture), ambiguous: Vec::new() },
        };
        table.columns.fill(&self.fields, table.capture, &mut kernel.record);
        kernel.ambiguous.clear();
        let metrics = &mut kernel.record.metrics;
        match sorted {
            Some(sorted) if complete && metrics.len() == columns.len() => {
                for (slot, column) in metrics.values_mut().zip(sorted.iter().map(|&c| &columns[c])) {
                    let cell = self.fields.cell(column.index);
                    let (shown, pending) = (&mut table.decimal.shown, &mut kernel.ambiguous);
                    value(cell, &column.unit, column.exp10, line, &column.name, shown, pending, slot);
                }
            }
            _ => {
                metrics.clear();
                for column in columns.iter() {
                    if let Some(cell) = self.fields.get(column.index) {
                        let mut slot = Metric { value: MetricValue::NotAvailable, unit: String::new() };
                        let (shown, pending) = (&mut table.decimal.shown, &mut kernel.ambiguous);
                        value(cell, &column.unit, column.exp10, line, &column.name, shown, pending, &mut slot);
                        metrics.insert(column.name.clone(), slot);
                    }
                }
            }
        }
        settle(&mut kernel, &mut table.decimal, self.sink)?;
        table.kernels += 1;
        self.kernels += 1;
        self.sink.kernel(&kernel.record)?;
        if complete {
            *reuse = Some(kernel);
        }
        Ok(())
    }

    /// A details page's row: one metric (or a rule) of the current kernel, or the first row of the
    /// next kernel, which completes the current one.
    fn details_row(&mut self, line: usize) -> Result<()> {
        let table = self.table.as_mut().expect("a table");
        let (id, process) = (self.fields.cell(0).trim(), table.columns.process(&self.fields));
        let same = table
            .current
            .as_ref()
            .is_some_and(|k| k.record.id == id && k.record.process.as_deref().unwrap_or("") == process);
        if !same {
            if let Some(mut done) = table.current.take() {
                settle(&mut done, &mut table.decimal, self.sink)?;
                table.kernels += 1;
                self.kernels += 1;
                self.sink.kernel(&done.record)?;
            }
            check_order(table, &self.fields, line, self.origin)?;
            let record = table.columns.kernel(&self.fields, table.capture);
            table.current = Some(Building { record, ambiguous: Vec::new() });
        }
        let Page::Details { name, value: value_column, unit, section } = table.page else { unreachable!("details") };
        let name = self.fields.cell(name).trim();
        let Some(cell) = self.fields.get(value_column).filter(|_| !name.is_empty()) else {
            return Ok(()); // a rule row, or a row cut short
        };
        let printed = unit.map_or("", |c| self.fields.cell(c));
        let known = read_unit_exponent(printed);
        if known.is_none() && self.unknown_units.insert(printed.trim().to_string()) {
            self.sink.warning(unknown_unit(line, printed, name))?;
        }
        let (unit, exp10) = known.unwrap_or_else(|| (printed.trim().to_string(), 0));
        let kernel = table.current.as_mut().expect("a kernel");
        let key = if kernel.record.metrics.contains_key(name) {
            let section = section.map_or("", |c| self.fields.cell(c)).trim();
            let key = format!("{section}: {name}");
            if self.renamed.insert(key.clone()) {
                self.sink.warning(format!(
                    "line {line}: kernel ID {id} already has a metric named {name:?}; this one, from section \
                     {section:?}, is kept as {key:?} (likewise for every kernel)"
                ))?;
            }
            if kernel.record.metrics.contains_key(&key) {
                return Ok(());
            }
            key
        } else {
            name.to_string()
        };
        let mut metric = Metric { value: MetricValue::NotAvailable, unit: String::new() };
        value(cell, &unit, exp10, line, &key, &mut table.decimal.shown, &mut kernel.ambiguous, &mut metric);
        kernel.record.metrics.insert(key, metric);
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

/// One metric value from `cell` into `slot`, in `unit` after scaling by `10^exp10` (the slot's unit
/// string is reused). A number shows the table's decimal separator (recorded in `shown` when it
/// is the first to); an ambiguous one is read by it, or waits in `pending` for [`settle`] while the
/// table has not shown it.
#[allow(clippy::too_many_arguments)]
fn value(
    cell: &str,
    unit: &str,
    exp10: i32,
    line: usize,
    key: &str,
    shown: &mut Option<(Decimal, usize)>,
    pending: &mut Vec<(String, Number, usize, String)>,
    slot: &mut Metric,
) {
    let t = cell.trim_ascii();
    slot.value = if t.eq_ignore_ascii_case("n/a") {
        MetricValue::NotAvailable
    } else {
        match read_scaled(t, exp10) {
            Some(Number::Exact { value, shows }) => {
                if let (Some(d), None) = (shows, &shown) {
                    *shown = Some((d, line));
                }
                MetricValue::Number(value)
            }
            Some(n @ Number::Ambiguous { .. }) => match shown {
                Some((d, _)) => MetricValue::Number(n.value(*d)),
                None => {
                    pending.push((key.to_string(), n, line, t.to_string()));
                    MetricValue::NotAvailable // settled with the kernel
                }
            },
            None => MetricValue::Text(t.to_string()),
        }
    };
    slot.unit.clear();
    slot.unit.push_str(unit);
}

/// Reads the kernel's waiting values by the table's decimal separator (a decimal point, with a
/// warning, where nothing in the table has shown it yet).
fn settle(kernel: &mut Building, decimal: &mut DecimalState, sink: &mut dyn Sink) -> Result<()> {
    if let (Some((Decimal::Comma, line)), Some((at, text)), false) =
        (decimal.shown, &decimal.assumed, decimal.conflict_warned)
    {
        decimal.conflict_warned = true;
        sink.warning(format!(
            "line {line}: this value has a decimal comma, but ambiguous values earlier in this table (first \
             {text:?} on line {at}) were read with a decimal point, since no value before them showed the \
             table's decimal separator; if the table uses decimal commas, those values are off by a factor of \
             1000. Print the capture with a decimal point (ncu in the C or an English locale) to be sure."
        ))?;
    }
    for (key, number, line, text) in kernel.ambiguous.drain(..) {
        let separator = match decimal.shown {
            Some((d, _)) => d,
            None => {
                if decimal.assumed.is_none() {
                    let printed = read_number(&text).unwrap_or(number); // the readings before the unit's factor
                    let (point, comma) = (printed.value(Decimal::Point), printed.value(Decimal::Comma));
                    sink.warning(format!(
                        "line {line}: {text:?} is {point} where `.` is the decimal separator and {comma} where `,` \
                         is, and no value of this table before it (nor of its kernel) shows which the table uses; \
                         it was read as {point} (a decimal point, as ncu prints in the C and English locales), and \
                         so are the table's other such values until one shows the separator."
                    ))?;
                    decimal.assumed = Some((line, text));
                }
                Decimal::Point
            }
        };
        if let Some(m) = kernel.record.metrics.get_mut(&key) {
            m.value = MetricValue::Number(number.value(separator));
        }
    }
    Ok(())
}

/// Checks that the kernel starting at `row` comes after the previous kernel of its process in
/// ncu's `ID` order (when IDs are numbers), and records it.
fn check_order(table: &mut Table, row: &Fields, line: usize, origin: &Path) -> Result<()> {
    let Ok(id) = row.cell(0).trim().parse::<u64>() else { return Ok(()) };
    let process = table.columns.process(row);
    if let Some(&(previous, previous_line)) = table.last_ids.get(process)
        && id <= previous
    {
        let whose = if process.is_empty() { String::new() } else { format!(" of process {process}") };
        let message = format!(
            "kernel ID {id}{whose} comes after ID {previous} (line {previous_line}) in the same table: ncu prints \
             kernels in increasing ID order, each kernel's rows together, so this file was reordered or edited, or \
             holds several captures without a header line before each. Keep ncu's order (print the capture again, \
             e.g. `ncu --import REPORT --csv`), or put each capture's header line before its rows."
        );
        return Err(ncu_error(origin, Some(line), message));
    }
    if let Some(last) = table.last_ids.get_mut(process) {
        *last = (id, line);
    } else {
        table.last_ids.insert(process.to_string(), (id, line));
    }
    Ok(())
}

/// The warning for a unit [`read_unit_exponent`] does not know.
fn unknown_unit(line: usize, printed: &str, metric: &str) -> String {
    format!(
        "line {line}: unit {:?} (metric {metric:?}) is not one kernelgate knows, so its values are kept as \
         printed, unscaled (likewise for every metric in it); print the capture with `--print-units base` for \
         base units.",
        printed.trim()
    )
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

/// `==PROF==`, `==WARNING==`, `==ERROR==` and other lines ncu writes itself.
fn is_ncu_log(t: &str) -> bool {
    t.strip_prefix("==")
        .and_then(|rest| rest.split_once("=="))
        .is_some_and(|(tag, _)| !tag.is_empty() && tag.bytes().all(|b| b.is_ascii_uppercase()))
}
