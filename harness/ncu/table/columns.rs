//! A row's launch attributes: the columns that describe the launch rather than hold a metric
//! ([`ATTRIBUTE_COLUMNS`]), where they are in a header and how they fill a kernel's record
//! ([`Columns`]), and the NVTX ranges of a push/pop cell.

use crate::ncu::fields::Fields;
use crate::ncu::model::KernelRecord;
use std::collections::BTreeMap;

/// Columns of either page that describe the launch rather than hold a metric.
pub(super) const ATTRIBUTE_COLUMNS: &[&str] = &[
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

/// Where the launch attributes are in the header (`ID` is always column 0).
pub(super) struct Columns {
    kernel: usize,
    process: Option<usize>,
    nvtx: Option<usize>,
    block: Option<usize>,
    grid: Option<usize>,
}

impl Columns {
    pub(super) fn new(header: &Fields) -> Columns {
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
    pub(super) fn kernel(&self, row: &Fields, capture: usize) -> KernelRecord {
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
    pub(super) fn fill(&self, row: &Fields, capture: usize, record: &mut KernelRecord) {
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
    pub(super) fn process<'r>(&self, row: &'r Fields) -> &'r str {
        self.process.map_or("", |c| row.cell(c).trim())
    }
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

/// [`nvtx_ranges_into`] into a new vector (for tests).
#[cfg(test)]
pub(crate) fn nvtx_ranges(cell: &str) -> Vec<String> {
    let mut ranges = Vec::new();
    nvtx_ranges_into(cell, &mut ranges);
    ranges
}
