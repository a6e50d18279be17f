//! Nsight Compute (ncu) integration.
//!
//! - [`parse`]: ncu CSV (raw and details pages, old and new headers) to normalized metrics;
//! - [`metrics`]: the metric set kernelgate collects and the metrics it derives;
//! - [`run`]: one ncu process over the selected trials, its report and CSV files;
//! - [`profile`]: metrics assigned to trials by NVTX range, and the metrics CSV;
//! - [`import`]: `kernelgate import-ncu`.
pub mod import;
pub mod metrics;
pub mod parse;
pub mod profile;
pub mod run;
pub mod select;
