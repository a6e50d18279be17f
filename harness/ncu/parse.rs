//! Parser for Nsight Compute's CSV output (`ncu --csv`): the raw page and the details page, read
//! as a stream.
//!
//! - **raw** (`--page raw`): a header row with one column per metric; with `--print-units base` a
//!   units row follows it (empty `ID`; metric columns hold `ns`, `byte`, `%`, …, empty for counts);
//!   then one row per profiled kernel.
//! - **details** (`--page details`, ncu's default): long form, one row per metric and kernel, with
//!   `Section Name, Metric Name, Metric Unit, Metric Value` (ncu 2025 adds `Rule Name, Rule Type,
//!   Rule Description, Estimated Speedup Type, Estimated Speedup`). A kernel's rows are
//!   consecutive and share its `ID`; rule rows (empty `Metric Name`) are skipped.
//!
//! [`read`] hands each kernel to a [`Sink`] as soon as it is complete (raw page: at its row;
//! details page: when the next kernel's rows begin), so memory stays constant in the number of
//! kernels: one line, one kernel, and per table a few small sets (units and processes seen).
//! [`parse_csv`] and [`parse_file`] collect the same stream into a [`Report`].
//!
//! What ncu really prints, and so what this parser accepts (fixtures in `harness/tests/fixtures/ncu/`, from
//! ncu 2020.1 to 2025.3.1, and field reports):
//! - the program's own stdout and ncu's `==PROF==` / `==WARNING==` lines before, between and after
//!   tables. A header is a line whose first field is `ID` and that has a `Kernel Name` column.
//!   `==WARNING==` lines become warnings; any `==ERROR==` line fails the parse (no kernel after it
//!   is handed on).
//! - several captures in one file (one ncu per process, outputs appended; `ID` restarts at 0):
//!   each repetition of the header starts a new table, with its own units row and number
//!   convention; [`KernelRecord::capture`] numbers the tables and a kernel is identified by its
//!   capture, process and `ID`. A header that differs from the first is an error (split the file).
//! - ncu's order: in a table, each process's kernels come in increasing `ID` order, each kernel's
//!   rows together. A kernel that breaks it (a sorted or edited file, a repeated `ID`, captures
//!   appended without their header line) is an error naming its line, not a kernel merged or split.
//! - headers of every era: 2020's has `Kernel Time` and no `Block Size`, `Grid Size`, `Device`, `CC`;
//!   with `--nvtx`, 2025's has an NVTX push/pop column (see [`KernelRecord::nvtx`]).
//! - thousands separators and decimal commas by the rule of [`super::number`]; `n/a`; text values.
//! - units scaled by ncu's default `--print-units auto` (`Kbyte/block`, `usecond`, `Gbyte/s`), read
//!   into base units by [`super::units`]; an unknown unit is kept as printed, with a warning.
//! - encodings ([`super::input`]): UTF-8 with or without a byte-order mark, UTF-16 with one. A
//!   byte that is not UTF-8 in program output above or between tables is replaced (the line is
//!   skipped anyway); in a table row it is an error naming the line.
//! - ragged rows: fields missing at the end of a row are absent; a row longer than the header is an
//!   error.
//!
//! Every error names the file and, where there is one, the 1-based line, and says what to do.
//!
//! Source: Nsight Compute CLI documentation, "Command Line Options" (`--csv`, `--page`,
//! `--print-units`, `--nvtx`, `--log-file`), <https://docs.nvidia.com/nsight-compute/NsightComputeCli/index.html>.

use super::input::Lines;
use super::model::ncu_error;
use super::number::{Decimal, read_number};
use super::table::Parser;
use crate::error::{Error, Result};
use std::io::Read;
use std::path::Path;

pub use super::model::{KernelRecord, Layout, Metric, MetricValue, Sink, Summary};
pub use super::units::normalize_unit;

/// Everything read from one ncu CSV output.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The page the CSV holds.
    pub layout: Layout,
    /// Profiled kernels in the order of the file; never empty.
    pub kernels: Vec<KernelRecord>,
    /// ncu's `==WARNING==` lines and the parser's own notes, each as `line N: …`.
    pub warnings: Vec<String>,
    /// How many ncu tables (captures) the file holds, at least 1.
    pub captures: usize,
}

/// Reads ncu CSV from `input` and hands each kernel and warning to `sink` as soon as it is
/// complete. `origin` names the input in errors.
///
/// # Errors
/// [`Error::Io`] if `input` cannot be read; [`Error::Ncu`] naming `origin` and, where there is
/// one, the 1-based line, with the fix: an `==ERROR==` line (for `ERR_NVGPUCTRPERM`, with the fix
/// for counter permissions); no header or no kernel row (no kernel was profiled); a row with more
/// fields than the header, or an empty `ID`; a header that differs from the file's first; a kernel
/// out of ncu's `ID` order (a details page whose kernel rows are not together, a repeated `ID`); a
/// byte that is not UTF-8 in a table row; UTF-16 without a byte-order mark; binary data; a quoted
/// field never closed; whatever `sink` fails with.
pub fn read<'a>(input: impl Read + 'a, origin: &Path, sink: &mut dyn Sink) -> Result<Summary> {
    let mut lines = Lines::new(input, origin)?;
    let mut parser = Parser::new(origin, sink);
    while let Some((number, line)) = lines.next_line()? {
        parser.line(number, line)?;
    }
    parser.finish()
}

/// Parses ncu CSV text into a [`Report`] through [`read`]. `origin` names the file for error
/// messages.
///
/// # Errors
/// As [`read`].
pub fn parse_csv(text: &str, origin: &Path) -> Result<Report> {
    collect(text.as_bytes(), origin)
}

/// Parses the ncu CSV file at `path` into a [`Report`] through [`read`].
///
/// # Errors
/// [`Error::Io`] if the file cannot be opened; otherwise as [`read`].
pub fn parse_file(path: &Path) -> Result<Report> {
    collect(std::fs::File::open(path).map_err(Error::io(path))?, path)
}

/// [`read`] into a [`Report`].
pub(super) fn collect<'a>(input: impl Read + 'a, origin: &Path) -> Result<Report> {
    #[derive(Default)]
    struct Collect {
        kernels: Vec<KernelRecord>,
        warnings: Vec<String>,
    }
    impl Sink for Collect {
        fn kernel(&mut self, kernel: &KernelRecord) -> Result<()> {
            self.kernels.push(kernel.clone());
            Ok(())
        }
        fn warning(&mut self, warning: String) -> Result<()> {
            self.warnings.push(warning);
            Ok(())
        }
    }
    let mut sink = Collect::default();
    let summary = read(input, origin, &mut sink)?;
    Ok(Report { layout: summary.layout, kernels: sink.kernels, warnings: sink.warnings, captures: summary.captures })
}

/// Checks that every kernel has every metric in `requested` (as Number or NotAvailable).
///
/// ncu silently leaves out metric names that are not valid on the chip (and exits 0), so a missing
/// metric is most often a misspelled name or one from another architecture.
///
/// A value ncu printed as not finite (`nan`, [`MetricValue::NotFinite`]) is not an error here: the
/// metric was collected and its name is right; the run names the tool as invalid for that trial
/// ([`super::profile::Profiled::tool_invalid`]).
///
/// # Errors
/// [`Error::Ncu`] listing each requested metric that is missing, or text, for some kernel: it names
/// the metric and the (first) kernel, and says to check the name with
/// `ncu --query-metrics --chip <chip>`.
pub fn require_metrics(report: &Report, requested: &[&str], origin: &Path) -> Result<()> {
    let mut missing = Vec::new();
    let mut text = Vec::new();
    let describe = |k: &KernelRecord| k.describe(report.captures);
    for &name in requested {
        let lacking: Vec<&KernelRecord> = report.kernels.iter().filter(|k| !k.metrics.contains_key(name)).collect();
        if let Some(first) = lacking.first() {
            missing.push(format!("metric `{name}` is missing for {}{}", describe(first), and_more(lacking.len())));
        }
        let texts: Vec<(&KernelRecord, &str)> = (report.kernels.iter())
            .filter_map(|k| match &k.metrics.get(name)?.value {
                MetricValue::Text(t) => Some((k, t.as_str())),
                _ => None,
            })
            .collect();
        if let Some((first, value)) = texts.first() {
            text.push(format!(
                "metric `{name}` of {} is the text {value:?}, not a number{}",
                describe(first),
                and_more(texts.len())
            ));
        }
    }
    let mut message = String::new();
    if !missing.is_empty() {
        message += &format!(
            "{}. ncu silently leaves out requested metrics whose names are not valid on the profiled chip: \
             check each name with `ncu --query-metrics --chip <chip>` (e.g. `--chip gh100` for H100/H200, \
             where the valid name is `smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct`, not \
             `sm__sass_average_data_bytes_per_sector_mem_global_op_ld.pct`) and correct the requested list.",
            missing.join("; ")
        );
    }
    if !text.is_empty() {
        let sep = if message.is_empty() { "" } else { " " };
        message += &format!("{sep}{}. Request a metric with a numeric value instead.", text.join("; "));
    }
    if message.is_empty() { Ok(()) } else { Err(ncu_error(origin, None, message)) }
}

/// Parses one value as ncu printed it, on its own (see [`super::number`] for the rule).
///
/// - `n/a` (any case) is [`MetricValue::NotAvailable`].
/// - Numbers: plain (`1234.5`, `-3`, `1e-3`), with thousands separators (`1,234,567.89`), or in a
///   decimal-comma locale (`0,5`, `1.234,5`). A value that reads either way (`65,536`: one
///   separator before exactly three digits) is read with a decimal point, as ncu prints in the `C`
///   and English locales; within a capture, [`read`] reads it by the table's convention instead.
/// - `nan`, `inf` and their signed spellings ([`is_not_finite`]) are [`MetricValue::NotFinite`].
/// - Anything else (`0x3`, `No-CC`, `(32, 8, 1)`, empty) is [`MetricValue::Text`], trimmed.
pub fn parse_value(text: &str) -> MetricValue {
    let t = text.trim();
    if t.eq_ignore_ascii_case("n/a") {
        return MetricValue::NotAvailable;
    }
    if is_not_finite(t) {
        return MetricValue::NotFinite(t.to_string());
    }
    match read_number(t) {
        Some(n) => MetricValue::Number(n.value(Decimal::Point)),
        None => MetricValue::Text(t.to_string()),
    }
}

/// Whether a trimmed cell is how C's `printf` (which ncu's CSV uses) spells a value that is not a
/// finite number: `nan`, `inf` or `infinity`, with an optional sign, in any case (`-nan`, `NaN`,
/// `-INF`). Such a value is [`MetricValue::NotFinite`].
///
/// ```
/// use kernelgate::ncu::parse::is_not_finite;
/// assert!(is_not_finite("-nan") && is_not_finite("INF") && is_not_finite("+Infinity"));
/// assert!(!is_not_finite("n/a") && !is_not_finite("0") && !is_not_finite("nano"));
/// ```
pub fn is_not_finite(t: &str) -> bool {
    let unsigned = t.strip_prefix(['-', '+']).unwrap_or(t);
    ["nan", "inf", "infinity"].iter().any(|w| unsigned.eq_ignore_ascii_case(w))
}

/// `" and N other kernel(s)"` for a count of `n` kernels including the one named.
fn and_more(n: usize) -> String {
    match n {
        0 | 1 => String::new(),
        2 => " and 1 other kernel".to_string(),
        n => format!(" and {} other kernels", n - 1),
    }
}

#[cfg(test)]
mod tests {
    use super::super::table::nvtx_ranges;
    use super::*;

    const F01: &str = include_str!("../tests/fixtures/ncu/ncu-public/01.csv");
    const F04: &str = include_str!("../tests/fixtures/ncu/ncu-public/04.csv");
    const F07: &str = include_str!("../tests/fixtures/ncu/ncu-public/07.csv");
    const F12: &str = include_str!("../tests/fixtures/ncu/ncu-public/12.csv");
    const SAXPY_RAW: &str = include_str!("../tests/fixtures/ncu/ncu-2025.3.1-h200/saxpy_raw.csv");
    const SAXPY_DETAILS: &str = include_str!("../tests/fixtures/ncu/ncu-2025.3.1-h200/saxpy_details.csv");
    const TILE_RAW: &str = include_str!("../tests/fixtures/ncu/ncu-2025.3.1-h200/tile_raw.csv");

    fn parse(text: &str) -> Report {
        parse_csv(text, Path::new("t.csv")).unwrap_or_else(|e| panic!("{e}"))
    }

    fn error(text: &str) -> (Option<usize>, String) {
        match parse_csv(text, Path::new("t.csv")) {
            Err(Error::Ncu { line, message, .. }) => (line, message),
            other => panic!("expected Error::Ncu, got {other:?}"),
        }
    }

    /// The metric's number and unit; panics with the metric when it is not a number.
    fn num<'a>(k: &'a KernelRecord, name: &str) -> (f64, &'a str) {
        let m = k.metrics.get(name).unwrap_or_else(|| panic!("{name} missing from {}", k.kernel));
        match m.value {
            MetricValue::Number(x) => (x, &m.unit),
            ref v => panic!("{name} = {v:?}"),
        }
    }

    fn close(got: (f64, &str), want: f64, unit: &str) {
        assert!((got.0 - want).abs() <= 1e-12 * want.abs().max(1.0), "{} != {want}", got.0);
        assert_eq!(got.1, unit);
    }

    fn text(k: &KernelRecord, name: &str) -> MetricValue {
        k.metrics[name].value.clone()
    }

    const HEADER: &str = r#""ID","Kernel Name","Block Size","gpu__time_duration.sum","dram__bytes.sum""#;

    #[test]
    fn public_01_details_a100_thousands_separators() {
        let r = parse(F01);
        assert_eq!(r.layout, Layout::Details);
        let ids: Vec<&str> = r.kernels.iter().map(|k| k.id.as_str()).collect();
        assert_eq!(ids, ["0", "1", "2"]);
        let [k0, k1, k2] = &r.kernels[..] else { unreachable!() };
        assert_eq!(k0.kernel, "void randomInit<float>(T1 *, int, int, unsigned int)");
        assert_eq!(k2.kernel, "void gemm_v0<float>(T1 *, T1 *, T1 *, int, int, int)");
        assert_eq!((k0.block.as_deref(), k0.grid.as_deref()), (Some("(32, 32, 1)"), Some("(640, 1280, 1)")));
        assert_eq!(k1.grid.as_deref(), Some("(1280, 640, 1)"));
        assert!(k0.nvtx.is_empty() && k0.nvtx_path().is_empty());
        assert_eq!((k0.metrics.len(), k1.metrics.len(), k2.metrics.len()), (15, 15, 9)); // the file is cut short
        close(num(k0, "dram__bytes.sum"), 5_318_969_728.0, "byte");
        close(num(k0, "l1tex__t_bytes.sum"), 16_764_800_860_160.0, "byte");
        close(num(k0, "smsp__cycles_elapsed.avg.per_second"), 764_999_989.86, "cycle/second");
        close(num(k0, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"), 838_860_800.0, "inst");
        close(num(k2, "smsp__cycles_elapsed.avg"), 28_293_058_736.76, "cycle");
        assert!(r.warnings.is_empty());
    }

    #[test]
    fn public_04_details_rules_autoscaled_units() {
        let r = parse(F04);
        assert_eq!(r.layout, Layout::Details);
        assert_eq!(r.kernels.len(), 1);
        let k = &r.kernels[0];
        assert!(k.kernel.starts_with("enable_if<!T7, void>::type kernel<int, int, __nv_bfloat16,"));
        assert!(k.kernel.ends_with("cublasGemvTensorStridedBatched<__nv_bfloat16>, float>>(T13)"));
        assert_eq!((k.block.as_deref(), k.grid.as_deref()), (Some("(32, 4, 1)"), Some("(224, 1, 1)")));
        close(num(k, "dram__bytes_read.sum"), 2.33e6, "byte"); // printed 2.33 Mbyte
        close(num(k, "gpu__time_duration.sum"), 6750.0, "ns"); // printed 6.75 us
        close(num(k, "Duration"), 6750.0, "ns");
        close(num(k, "DRAM Frequency"), 13.72e9, "cycle/second"); // printed 13.72 Ghz
        close(num(k, "Elapsed Cycles"), 13_485.0, "cycle");
        close(num(k, "SM Active Cycles"), 9_495.42, "cycle");
        close(num(k, "Block Limit Barriers"), 24.0, "block");
        assert_eq!(k.metrics["flop_count_hp.sum"], Metric { value: MetricValue::NotAvailable, unit: String::new() });
        assert_eq!(k.number("flop_count_sp.sum"), None);
        // "Memory Throughput" appears in two sections: the first stays, the second is qualified.
        close(num(k, "Memory Throughput"), 19.66, "%");
        close(num(k, "Memory Workload Analysis: Memory Throughput"), 345.14e9, "byte/second"); // Gbyte/s
        assert!(r.warnings.iter().any(|w| w.contains("\"Memory Workload Analysis: Memory Throughput\"")));
        // 36 rows with a metric name (two named "Memory Throughput"); the 3 rule rows are skipped.
        assert_eq!(k.metrics.len(), 36);
        assert!(!k.metrics.contains_key(""));
    }

    #[test]
    fn public_07_old_header_program_output_first() {
        let r = parse(F07);
        assert_eq!(r.layout, Layout::Details);
        assert_eq!(r.kernels.len(), 2);
        let k = &r.kernels[0];
        assert_eq!(k.kernel, "cuda_compute_step_factor(int,float*,float*,float*)");
        assert_eq!(r.kernels[1].kernel, "cuda_compute_flux(int,int*,float*,float*,float*)");
        assert_eq!((k.block.as_ref(), k.grid.as_ref()), (None, None)); // no such columns in 2020
        assert!(!k.metrics.contains_key("Kernel Time"));
        assert_eq!(k.metrics.len(), 26);
        close(num(k, "Duration"), 8992.0, "ns"); // printed in nsecond
        close(num(k, "Memory Frequency"), 768_683_274.02, "cycle/second");
        close(num(k, "SOL FB"), 46.47, "%");
        close(num(k, "Block Size"), 192.0, ""); // the Launch Statistics metric, not the column
        close(num(k, "Registers Per Thread"), 20.0, "register/thread");
        close(num(&r.kernels[1], "SOL FB"), 34.41, "%");
    }

    #[test]
    fn public_12_raw_with_units_row_and_text_values() {
        let r = parse(F12);
        assert_eq!(r.layout, Layout::Raw);
        assert_eq!(r.kernels.len(), 2);
        let [k0, k1] = &r.kernels[..] else { unreachable!() };
        assert_eq!(k0.kernel, "void <unnamed>::w13_kernel<4, 1>(const __half *, const int *)");
        assert_eq!(k1.kernel, "<unnamed>::w2_batch_reduce_kernel(const __half *, const float *, int)");
        assert_eq!((k0.block.as_deref(), k0.grid.as_deref()), (Some("(256, 1, 1)"), Some("(5, 20, 1)")));
        assert_eq!(k0.metrics.len(), 6);
        close(num(k0, "dram__bytes_read.sum"), 5_156_128.0, "byte");
        close(num(k0, "gpu__time_duration.sum"), 28_448.0, "ns");
        close(num(k1, "dram__bytes_write.sum"), 0.0, "byte");
        assert_eq!(text(k0, "c2clink__enabled_mask"), MetricValue::Text("0x3".into()));
        assert_eq!(text(k0, "device__attribute_confidential_computing_mode"), MetricValue::Text("No-CC".into()));
        assert_eq!(text(k1, "launch__func_cache_config"), MetricValue::Text("CachePreferNone".into()));
        assert_eq!(k0.metrics["c2clink__enabled_mask"].unit, "");
        assert!(!k0.metrics.contains_key("CC") && !k0.metrics.contains_key("Process ID"));
    }

    #[test]
    fn h200_saxpy_raw_nvtx_and_silently_dropped_metric() {
        let r = parse(SAXPY_RAW);
        assert_eq!(r.layout, Layout::Raw);
        assert_eq!(r.kernels.len(), 2);
        for (k, id) in r.kernels.iter().zip(["0", "1"]) {
            assert_eq!((k.id.as_str(), k.kernel.as_str()), (id, "saxpy"));
            assert_eq!(k.nvtx, ["saxpy"]);
            assert_eq!((k.block.as_deref(), k.grid.as_deref()), (Some("(1024, 1, 1)"), Some("(65536, 1, 1)")));
            assert_eq!(k.metrics.len(), 282); // 295 columns less 13 attributes (2 of them NVTX)
            assert!(!k.metrics.keys().any(|m| m.contains("Domain:")));
        }
        let [k0, k1] = &r.kernels[..] else { unreachable!() };
        close(num(k0, "gpu__time_duration.sum"), 274_240.0, "ns");
        close(num(k1, "gpu__time_duration.sum"), 274_656.0, "ns");
        close(num(k0, "dram__bytes_read.avg"), 11_185_002.67, "byte");
        close(num(k0, "dram__bytes_read.sum"), 536_880_128.0, "byte");
        close(num(k0, "launch__thread_count"), 67_108_864.0, "thread");
        close(num(k0, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), 16_777_216.0, "sector");
        assert_eq!(text(k0, "launch__kernel_name"), MetricValue::Text(String::new()));
        assert_eq!(text(k0, "device__attribute_display_name"), MetricValue::Text("NVIDIA H200".into()));
        assert!(r.warnings[0].starts_with("line 1: ==WARNING== Note: Running with unmodified GPU clocks."));
        // The run asked for the sm__ spelling, which gh100 does not have: ncu left it out.
        let origin = Path::new("saxpy_raw.csv");
        require_metrics(&r, &["gpu__time_duration.sum", "dram__bytes_read.sum"], origin).unwrap();
        let bad = "sm__sass_average_data_bytes_per_sector_mem_global_op_ld.pct";
        let message = require_metrics(&r, &["gpu__time_duration.sum", bad], origin).unwrap_err().to_string();
        assert!(message.starts_with("saxpy_raw.csv: metric `sm__sass_average"), "{message}");
        assert!(message.contains("kernel `saxpy` (ID 0, NVTX `saxpy`) and 1 other kernel"), "{message}");
        assert!(message.contains("ncu --query-metrics --chip <chip>"), "{message}");
        assert!(message.contains("`smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct`"), "{message}");
    }

    #[test]
    fn h200_tile_raw_bank_conflicts() {
        let r = parse(TILE_RAW);
        assert_eq!(r.kernels.len(), 1);
        let k = &r.kernels[0];
        assert_eq!((k.id.as_str(), k.kernel.as_str()), ("0", "tile_conflict"));
        assert_eq!(k.nvtx, ["tile_conflict"]);
        assert_eq!(k.nvtx_path(), "tile_conflict");
        assert_eq!((k.block.as_deref(), k.grid.as_deref()), (Some("(32, 32, 1)"), Some("(1024, 1, 1)")));
        close(num(k, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"), 1_018_878.0, "");
        close(num(k, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"), 1_051_646.0, "");
        close(num(k, "smsp__sass_inst_executed_op_shared_ld.sum"), 32_768.0, "inst");
        close(num(k, "smsp__sass_inst_executed_op_shared_ld.avg"), 62.06, "inst");
        close(num(k, "gpu__time_duration.sum"), 7_008.0, "ns");
        close(num(k, "launch__shared_mem_per_block_static"), 4_096.0, "byte/block");
        assert_eq!(k.metrics.len(), 280);
        let requested = ["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "gpu__time_duration.sum"];
        require_metrics(&r, &requested, Path::new("tile_raw.csv")).unwrap();
    }

    #[test]
    fn h200_saxpy_details_nvtx_and_hz() {
        let r = parse(SAXPY_DETAILS);
        assert_eq!(r.layout, Layout::Details);
        assert_eq!(r.kernels.len(), 1);
        let k = &r.kernels[0];
        assert_eq!((k.kernel.as_str(), k.nvtx_path()), ("saxpy", "saxpy".to_string()));
        assert_eq!(k.grid.as_deref(), Some("(65536, 1, 1)"));
        assert_eq!(k.metrics.len(), 50); // 52 rows, 2 of them rule rows
        close(num(k, "DRAM Frequency"), 3_199_142_513.48, "cycle/second"); // printed in hz
        close(num(k, "Duration"), 274_912.0, "ns");
        close(num(k, "Grid Size"), 65_536.0, "");
        close(num(k, "Threads"), 67_108_864.0, "thread");
        close(num(k, "Total SMSP Elapsed Cycles"), 287_307_752.0, "cycle");
        assert_eq!(text(k, "Cluster Scheduling Policy"), MetricValue::Text("PolicySpread".into()));
        assert_eq!(text(k, "Enabled TPC IDs"), MetricValue::Text("all".into()));
        assert_eq!(r.warnings.len(), 1);
    }

    #[test]
    fn error_lines_fail_with_their_line_numbers() {
        let text = format!(
            "==PROF== Connected\n==ERROR== Failed to profile \"k\" in process 7\n{HEADER}\n\
                            \"0\",\"k\",\"(1, 1, 1)\",\"1\",\"2\"\n==ERROR== The application returned an error code (1).\n"
        );
        let (line, message) = error(&text);
        assert_eq!(line, Some(2));
        assert!(message.contains("line 2: ==ERROR== Failed to profile \"k\" in process 7"), "{message}");
        assert!(message.contains("line 5: ==ERROR== The application returned an error code (1)."), "{message}");
        assert!(message.contains("profile again"), "{message}");
    }

    #[test]
    fn err_nvgpuctrperm_explains_the_fix() {
        let text = "==PROF== Connected to process 1 (/bin/app)\n==ERROR== ERR_NVGPUCTRPERM - The user does not have \
                    permission to access NVIDIA GPU Performance Counters on the target device 0.\n";
        let (line, message) = error(text);
        assert_eq!(line, Some(2));
        assert!(message.contains("line 2: ==ERROR== ERR_NVGPUCTRPERM - The user"), "{message}");
        assert!(message.contains("as root"), "{message}");
        assert!(message.contains("options nvidia NVreg_RestrictProfilingToAdminUsers=0"), "{message}");
        assert!(message.contains("/etc/modprobe.d"), "{message}");
        assert!(message.contains("https://developer.nvidia.com/ERR_NVGPUCTRPERM"), "{message}");
    }

    #[test]
    fn no_header_means_no_kernel_profiled() {
        let text = "==PROF== Connected to process 9 (/bin/app)\nhello\n==WARNING== No kernels were profiled.\n";
        let (line, message) = error(text);
        assert_eq!(line, None);
        assert!(message.starts_with("no kernel was profiled: no ncu CSV header"), "{message}");
        assert!(message.contains("--nvtx-include"), "{message}");
        assert!(message.contains("ncu warned: line 3: ==WARNING== No kernels were profiled."), "{message}");
        let (_, message) = error("");
        assert!(message.starts_with("no kernel was profiled"), "{message}");
    }

    #[test]
    fn header_without_kernel_rows() {
        let text = format!("==WARNING== No kernels were profiled.\n{HEADER}\n==PROF== Disconnected from process 9\n");
        let (line, message) = error(&text);
        assert_eq!(line, Some(2));
        assert!(message.contains("the CSV header on line 2 is followed by no kernel row"), "{message}");
        assert!(message.contains("No kernels were profiled."), "{message}");
        // A units row alone is not a kernel either.
        let (_, message) = error(&format!("{HEADER}\n\"\",\"\",\"\",\"ns\",\"byte\"\n"));
        assert!(message.starts_with("no kernel was profiled"), "{message}");
    }

    #[test]
    fn row_with_too_many_fields_names_its_line() {
        let text = format!(
            "app output\n{HEADER}\n\"0\",\"k\",\"(1, 1, 1)\",\"1\",\"2\"\n\"1\",\"k\",\"(1, 1, 1)\",\"1\",\"2\",\"3\"\n"
        );
        let (line, message) = error(&text);
        assert_eq!(line, Some(4));
        assert!(message.starts_with("this row has 6 fields but the header on line 2 has 5"), "{message}");
    }

    #[test]
    fn ragged_rows_lack_their_missing_fields() {
        let r = parse(&format!("{HEADER}\n\"0\",\"k\",\"(1, 1, 1)\",\"5\"\n\"1\",\"k2\"\n"));
        assert_eq!(r.kernels[0].metrics.len(), 1);
        assert_eq!(r.kernels[0].number("gpu__time_duration.sum"), Some(5.0));
        assert!(r.kernels[1].metrics.is_empty() && r.kernels[1].block.is_none());
        let message = require_metrics(&r, &["dram__bytes.sum"], Path::new("t.csv")).unwrap_err().to_string();
        assert!(message.starts_with("t.csv: metric `dram__bytes.sum` is missing for kernel `k` (ID 0) and 1 other"));
    }

    #[test]
    fn require_metrics_accepts_na_and_rejects_missing_and_text() {
        let r = parse(&format!("{HEADER}\n\"0\",\"saxpy\",\"(1, 1, 1)\",\"n/a\",\"No-CC\"\n"));
        let origin = Path::new("p.csv");
        require_metrics(&r, &["gpu__time_duration.sum"], origin).unwrap();
        let Err(Error::Ncu { origin: o, line, message }) = require_metrics(&r, &["dram__bytes.sum", "x.sum"], origin)
        else {
            panic!("expected an error")
        };
        assert_eq!((o.as_path(), line), (origin, None));
        assert!(message.contains("metric `x.sum` is missing for kernel `saxpy` (ID 0)"), "{message}");
        assert!(message.contains("metric `dram__bytes.sum` of kernel `saxpy` (ID 0) is the text \"No-CC\""));
        assert!(message.contains("--query-metrics --chip"), "{message}");
    }

    #[test]
    fn values_thousands_decimal_comma_na_text() {
        let n = |s: &str| match parse_value(s) {
            MetricValue::Number(x) => x,
            v => panic!("{s}: {v:?}"),
        };
        assert_eq!(n("1,234,567.89"), 1_234_567.89);
        assert_eq!(n("65,536"), 65_536.0);
        assert_eq!(n("-1,000"), -1000.0);
        assert_eq!(n("1234.5"), 1234.5);
        assert_eq!(n("42"), 42.0);
        assert_eq!(n(" 1.5e-3 "), 1.5e-3);
        assert_eq!(n("2E6"), 2e6);
        assert_eq!(n("0,5"), 0.5); // decimal comma
        assert_eq!(n("1,2345"), 1.2345); // not groups of three: decimal comma
        assert_eq!(n("1.234,5"), 1234.5); // the last separator is the decimal one
        assert_eq!(n("11.185.002,67"), 11_185_002.67);
        for na in ["n/a", "N/A", " n/a "] {
            assert_eq!(parse_value(na), MetricValue::NotAvailable);
        }
        for t in ["0x3", "No-CC", "(32, 8, 1)", "PolicySpread", "all", "", "nano", "1,23.4", "1,2,3", "12-3"] {
            assert_eq!(parse_value(t), MetricValue::Text(t.trim().to_string()), "{t}");
        }
        for t in ["nan", "-nan", " NaN ", "inf", "-inf", "+Infinity"] {
            assert_eq!(parse_value(t), MetricValue::NotFinite(t.trim().to_string()), "{t}");
        }
    }

    #[test]
    fn units_are_scaled_to_base() {
        assert_eq!(normalize_unit("Mbyte"), ("byte".to_string(), 1e6));
        assert_eq!(normalize_unit("us"), ("ns".to_string(), 1e3));
        assert_eq!(normalize_unit("usecond"), ("ns".to_string(), 1e3));
        assert_eq!(normalize_unit("second"), ("ns".to_string(), 1e9));
        assert_eq!(normalize_unit("Gbyte/s"), ("byte/second".to_string(), 1e9));
        assert_eq!(normalize_unit("Kbyte/second"), ("byte/second".to_string(), 1e3));
        assert_eq!(normalize_unit("khz"), ("cycle/second".to_string(), 1e3));
        assert_eq!(normalize_unit("cycle/nsecond"), ("cycle/second".to_string(), 1e9));
        for same in ["", "%", "byte", "ns", "cycle", "register/thread", "byte/block", "inst"] {
            assert_eq!(normalize_unit(same), (same.to_string(), 1.0));
        }
        let text = "\"ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n\
                    \"0\",\"k\",\"S\",\"read\",\"Mbyte\",\"1.5\"\n\"0\",\"k\",\"S\",\"t1\",\"us\",\"2,5\"\n\
                    \"0\",\"k\",\"S\",\"t2\",\"usecond\",\"1,024.5\"\n\"0\",\"k\",\"S\",\"rate\",\"Tbyte/second\",\"3.35\"\n";
        let k = &parse(text).kernels[0];
        close(num(k, "read"), 1.5e6, "byte");
        close(num(k, "t1"), 2500.0, "ns");
        close(num(k, "t2"), 1_024_500.0, "ns");
        close(num(k, "rate"), 3.35e12, "byte/second");
    }

    #[test]
    fn raw_units_row_scales_values() {
        let text = format!("{HEADER}\n\"\",\"\",\"\",\"usecond\",\"Kbyte\"\n\"0\",\"k\",\"(1, 1, 1)\",\"1.5\",\"2\"\n");
        let k = &parse(&text).kernels[0];
        close(num(k, "gpu__time_duration.sum"), 1500.0, "ns");
        close(num(k, "dram__bytes.sum"), 2000.0, "byte");
    }

    #[test]
    fn quoted_kernel_names_with_commas_and_quotes() {
        let text = format!("{HEADER}\n\"0\",\"void f<int, 4>(float *, \"\"x,y\"\")\",\"(32, 8, 1)\",\"7,008\",\"1\"\n");
        let k = &parse(&text).kernels[0];
        assert_eq!(k.kernel, "void f<int, 4>(float *, \"x,y\")");
        assert_eq!(k.block.as_deref(), Some("(32, 8, 1)"));
        close(num(k, "gpu__time_duration.sum"), 7008.0, "");
    }

    #[test]
    fn nested_nvtx_ranges_and_named_domains() {
        let cell = "6076  \"<default domain>:transpose:none:none:none:none:none:none\"  \
                    \"<default domain>:shared_padded:none:none:none:none:none:none\"  \
                    \"<default domain>:8192x8192:none:none:none:none:none:none\" ";
        assert_eq!(nvtx_ranges(cell), ["transpose", "shared_padded", "8192x8192"]);
        assert_eq!(nvtx_ranges("7  \"kernelgate:a:b:none:none:none:none:none:none\" "), ["a:b"]);
        assert!(nvtx_ranges("").is_empty() && nvtx_ranges("6076 ").is_empty());
        let text = format!(
            "\"ID\",\"thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg\",\"Kernel Name\"\n\
             \"0\",\"{}\",\"transpose_padded\"\n",
            cell.replace('"', "\"\"")
        );
        let k = &parse(&text).kernels[0];
        assert_eq!(k.nvtx_path(), "transpose/shared_padded/8192x8192");
        assert!(k.metrics.is_empty());
    }

    #[test]
    fn details_rule_rows_stray_lines_and_kernels_in_id_order() {
        let header =
            "\"ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\",\"Rule Name\"";
        let text = format!(
            "{header}\n\
             \"2\",\"a\",\"S\",\"m\",\"\",\"1\"\n\
             \"5\",\"b\",\"S\",\"\",\"\",\"\",\"SOLBottleneck\"\n\
             program output after the table\n\
             \n\
             \"5\",\"b\",\"S\",\"m\",\"\",\"2\"\n\
             ==PROF== Disconnected from process 1\n"
        );
        let r = parse(&text);
        let got: Vec<(&str, &str, usize)> =
            r.kernels.iter().map(|k| (k.id.as_str(), k.kernel.as_str(), k.metrics.len())).collect();
        assert_eq!(got, [("2", "a", 1), ("5", "b", 1)]);
        assert_eq!(r.kernels[1].number("m"), Some(2.0));
        assert_eq!(r.warnings, ["line 4: skipped, not a CSV row: program output after the table"]);
        // ncu writes a kernel's rows together, in increasing ID order: a kernel that comes back after
        // another (a sorted or edited file) is an error, not two half kernels.
        let text = format!(
            "{header}\n\"2\",\"a\",\"S\",\"m\",\"\",\"1\"\n\"5\",\"b\",\"S\",\"m\",\"\",\"2\"\n\
             \"2\",\"a\",\"S\",\"n\",\"\",\"3\"\n"
        );
        let (line, message) = error(&text);
        assert_eq!(line, Some(4));
        assert!(message.starts_with("kernel ID 2 comes after ID 5 (line 3) in the same table"), "{message}");
        assert!(message.contains("each kernel's rows together"), "{message}");
    }

    #[test]
    fn empty_id_and_second_header_are_errors() {
        let (line, message) = error(&format!("{HEADER}\n\"0\",\"k\"\n\"\",\"k\"\n"));
        assert_eq!(line, Some(3));
        assert!(message.contains("empty `ID`"), "{message}");
        let (line, message) = error(&format!("{HEADER}\n\"0\",\"k\"\n\"ID\",\"Kernel Name\"\n"));
        assert_eq!(line, Some(3));
        assert!(message.contains("second ncu table"), "{message}");
        // The same header repeated (two ncu runs appended) is skipped.
        assert_eq!(parse(&format!("{HEADER}\n\"0\",\"k\"\n{HEADER}\n\"1\",\"k\"\n")).kernels.len(), 2);
    }
}
