//! Nsight Compute (ncu) integration.
//!
//! - [`parse`]: ncu CSV (raw and details pages, old and new headers, several captures in one file)
//!   to normalized metrics, as a stream of kernels (its state machine is in `table/`, the types
//!   it hands on in `model.rs`), built on [`input`] (encodings, lines), [`fields`] (CSV records),
//!   [`number`] (thousands and decimal separators) and [`units`] (base units);
//! - [`metrics`]: the metric set kernelgate collects and the metrics it derives;
//! - [`run`]: one ncu process over the selected trials, its report and CSV files;
//! - [`select`]: which trials one ncu session profiles, and the profiled child;
//! - [`profile`]: metrics assigned to trials by NVTX range, and the metrics CSV;
//! - [`import`]: `kernelgate import-ncu`, streaming a capture to a table or CSV.
#[cfg(test)]
mod field_reports;
pub mod fields;
pub mod import;
pub mod input;
pub mod metrics;
mod model;
pub mod number;
pub mod parse;
pub mod profile;
pub mod run;
pub mod select;
mod table;
pub mod units;
