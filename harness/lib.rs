//! kernelgate: regression testing for CUDA kernels.
//!
//! `cargo test --release` runs one libtest trial per [`Case`]: the kernel is compiled with NVRTC
//! for the device's own architecture, checked against a CPU reference on fresh random inputs, and
//! timed with CUDA events (L2 flushed before each sample) inside an NVTX range named after the
//! trial. Results are printed as a table and written as CSV.
//!
//! The stages of the data flow are one module each (see `DESIGN.md` in the steering repo):
//!
//! | stage    | module        | touches           |
//! |----------|---------------|-------------------|
//! | discover | [`cases`], [`source`] | nothing (build-time embedded sources) |
//! | compile  | [`compile`], [`nvrtc`] (finding libnvrtc), [`resources`] (registers, spills, occupancy: the resource gate) | NVRTC, `baselines/<arch>/` |
//! | check    | [`check`], [`program`] (running a case's program), [`shared_poison`] (shared memory filled before the check), [`sanitize`] (the checked child: compute-sanitizer, crash isolation) | GPU, child processes |
//! | measure  | [`ceilings`] (the GPU's ceilings at its opening; the roofline), [`measure`], [`recheck`] (the outputs after timing) | GPU (loop), [`stats`] pure |
//! | compare  | [`guard`] (the physics guard) pure, [`gate::baseline`], [`gate::calibrate`], [`gate::timing::compare`] pure | baseline files |
//! | record   | [`record`], [`lesson_record`] (the lesson trials' CSV), [`history`] | git, files, git notes, SQLite |
//! | report   | [`report`]    | stdout, files     |
//!
//! Under every stage: [`model`] (the plain data the stages hand each other), [`console`] (where status
//! lines go, the heartbeat of long phases), [`project`] (where the project keeps its kernels,
//! baselines, history and run files: `kernelgate.toml`, made once and handed down) and [`paths`]
//! (temporary files). [`suite`] wires the stages into libtest-mimic trials.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod case;
pub mod cases;
pub mod ceilings;
pub mod check;
pub mod compile;
pub mod config;
pub mod console;
pub mod devices;
/// `build.rs`'s entry-point scanner, also used by `kernelgate compile` on a file read at run time.
pub mod entry_scan;
mod error;
pub mod expect;
pub mod gate;
pub mod gpu;
pub mod guard;
pub mod history;
pub mod inputs;
pub mod lesson_record;
pub mod measure;
pub mod model;
pub mod ncu;
pub mod nvrtc;
pub mod output;
pub mod paths;
pub mod phases;
pub mod program;
pub mod project;
pub mod recheck;
pub mod record;
pub mod report;
pub mod resources;
pub mod sanitize;
pub mod sass;
pub mod shared_poison;
pub mod source;
pub mod stats;
pub mod store;
pub mod suite;
pub mod units;

pub use case::{Case, Init, Launch, Param, Tolerance};
pub use config::Config;
pub use error::{Error, Result};
pub use source::{Kernel, KernelSource, KernelTemplate};
