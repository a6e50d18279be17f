//! What the ncu CSV parser hands on ([`super::parse`], its state machine in `table/`): kernels
//! with their metrics, the page a table holds, the sink that receives them, and the parse's error.

use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::path::Path;

/// One metric value as ncu printed it, normalized.
#[derive(Debug, Clone, PartialEq)]
pub enum MetricValue {
    /// A number, without its thousands separators, scaled to the metric's base unit
    /// ([`normalize_unit`](super::units::normalize_unit)).
    Number(f64),
    /// A value that is not a number, trimmed: `0x3`, `No-CC`, `(32, 8, 1)`, `PolicySpread`, or empty
    /// (ncu prints `launch__kernel_name` empty).
    Text(String),
    /// ncu printed `n/a`: the metric exists but has no value for this kernel.
    NotAvailable,
    /// ncu printed a value that is not a finite number (`nan`, `-nan`, `inf`, `-inf`, any case),
    /// kept as printed: the tool collected the metric but its result is invalid, as ncu 2026.2 did on
    /// B200 for every counter of a capture (gpu-mode's kernelbot). Neither a number to compare nor a
    /// misspelled request: the run names the tool and its version ([`is_not_finite`](super::parse::is_not_finite)).
    NotFinite(String),
}

/// One metric of one kernel.
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    /// The value, in `unit`.
    pub value: MetricValue,
    /// The unit after normalization to base units ([`normalize_unit`](super::units::normalize_unit)); `""` for counts; an
    /// unknown unit as printed.
    pub unit: String,
}

/// One profiled kernel launch.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelRecord {
    /// ncu's `ID` column: the launch's index among the profiled ones, unique in one capture.
    pub id: String,
    /// The `Process ID` column; `None` where the header has none.
    pub process: Option<String>,
    /// Which table of the file the kernel is in, from 1: a file that holds several ncu outputs
    /// appended repeats the header before each. A kernel is identified by capture, process and ID.
    pub capture: usize,
    /// The `Kernel Name` column, verbatim (may hold commas and template arguments).
    pub kernel: String,
    /// Names of the NVTX push/pop ranges open at the launch, outermost first; empty without an NVTX
    /// column (ncu run without `--nvtx`) or without open ranges. Read from the column named like
    /// `thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg`, whose cells read
    /// `TID  "DOMAIN:RANGE:none:…"  "DOMAIN:RANGE:none:…" ` (the domain is `<default domain>` unless
    /// the program named one).
    pub nvtx: Vec<String>,
    /// The `Block Size` column, e.g. `(32, 8, 1)`; `None` where ncu printed none (before ~2021).
    pub block: Option<String>,
    /// The `Grid Size` column, e.g. `(1024, 1, 1)`; `None` where ncu printed none.
    pub grid: Option<String>,
    /// Metrics by name: the ncu metric name verbatim (raw page, and details rows of `--metrics`) or
    /// the details page's `Metric Name` (`Duration`). A details name that appears twice for one
    /// kernel keeps its first value; the later one is stored as `SECTION: NAME` (with a warning).
    pub metrics: BTreeMap<String, Metric>,
}

impl KernelRecord {
    /// The value of `metric` when it is a number (in the unit of [`Metric::unit`]); `None` when it
    /// is absent, text or `n/a`.
    pub fn number(&self, metric: &str) -> Option<f64> {
        match self.metrics.get(metric)?.value {
            MetricValue::Number(x) => Some(x),
            _ => None,
        }
    }

    /// The NVTX ranges joined with `/`, e.g. `transpose/shared_padded/8192x8192`, the form of
    /// ncu's `--nvtx-include` filter; `""` without ranges.
    pub fn nvtx_path(&self) -> String {
        self.nvtx.join("/")
    }

    /// `kernel `NAME` (ID 3, NVTX `a/b`)`, for messages; with the capture and process when the
    /// file holds several captures.
    pub(super) fn describe(&self, captures: usize) -> String {
        let nvtx = if self.nvtx.is_empty() { String::new() } else { format!(", NVTX `{}`", self.nvtx_path()) };
        let capture = match (captures > 1, &self.process) {
            (false, _) => String::new(),
            (true, Some(p)) => format!("capture {}, process {p}, ", self.capture),
            (true, None) => format!("capture {}, ", self.capture),
        };
        format!("kernel `{}` ({capture}ID {}{nvtx})", self.kernel, self.id)
    }
}

/// Which ncu page the CSV holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `--page raw`: one row per kernel, one column per metric.
    Raw,
    /// `--page details`: one row per kernel and metric.
    Details,
}

/// Where [`read`](super::parse::read) hands what it reads, as it reads it.
pub trait Sink {
    /// A kernel, complete: every row of it has been read. Lent, not given: the parser reuses its
    /// strings for the next kernel of a raw page (clone it to keep it).
    ///
    /// # Errors
    /// Whatever the sink fails with (e.g. writing to a closed pipe); it stops the parse.
    fn kernel(&mut self, kernel: &KernelRecord) -> Result<()>;

    /// A warning: an `==WARNING==` line of ncu, or a note of the parser, as `line N: …`.
    ///
    /// # Errors
    /// Whatever the sink fails with; it stops the parse.
    fn warning(&mut self, warning: String) -> Result<()>;
}

/// What a whole stream held, besides the kernels handed to the [`Sink`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// The page of the tables (every table has the header of the first).
    pub layout: Layout,
    /// Kernels handed on, at least 1.
    pub kernels: usize,
    /// ncu tables (captures) read, at least 1.
    pub captures: usize,
}

/// [`Error::Ncu`] from its parts.
pub(super) fn ncu_error(origin: &Path, line: Option<usize>, message: impl Into<String>) -> Error {
    Error::Ncu { origin: origin.to_path_buf(), line, message: message.into() }
}
