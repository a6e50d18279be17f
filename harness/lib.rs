//! kernelgate: regression testing for CUDA kernels.
//!
//! A project's test binary hands the library its case table ([`case::Table`]); the library runs
//! one libtest trial per [`Case`]: the kernel is compiled with NVRTC for the device's own
//! architecture, checked against a CPU reference on fresh random inputs, and timed with CUDA events
//! (L2 flushed before each sample) inside an NVTX range named after the trial, then judged against
//! the baseline recorded for that GPU (or against another git revision timed in the same process),
//! recorded in a history keyed by the project's commits, and reported (terminal table, CSV, JUnit,
//! Markdown/HTML diffs).
//!
//! # Using it in a project
//! `Cargo.toml`:
//! ```toml
//! [dev-dependencies]
//! kernelgate = { path = "<kernelgate>/harness" } # not on crates.io yet
//! [build-dependencies]
//! kernelgate-build = { path = "<kernelgate>/harness/build" }
//! [[test]]
//! name = "kernels"
//! harness = false
//! ```
//! `build.rs` (names the kernels of `kernels/*.cu`, or of the folders `kernelgate.toml` names):
//! ```no_run
//! // A build script: its `main` is the point of the example.
//! # #![allow(clippy::needless_doctest_main)]
//! fn main() { kernelgate_build::Build::new().run(); }
//! ```
//! `tests/kernels.rs`, for a file `kernels/copy.cu` declaring `extern "C" __global__ void
//! copy(const float* in, float* out, int n)`:
//! ```ignore
//! use kernelgate::{Case, Launch, Param, case::Table};
//! kernelgate::kernels!(); // mod k { pub mod copy { pub const copy: Kernel ... } }, static BUILD
//!
//! fn cases(_scale: f64) -> Vec<Case> {
//!     let n = 1 << 24;
//!     vec![Case::new("copy", "plain", "16M", k::copy::copy)
//!         .launch(Launch::linear(n, 256))
//!         .params([Param::input(n), Param::output(n), Param::I32(n as i32)])
//!         .reference(|inputs| vec![inputs[0].f32().to_vec()])
//!         .bytes((2 * 4 * n) as u64)]
//! }
//! kernelgate::main!(Table::new(cases, &BUILD));
//! ```
//! `cargo test --release` then runs `copy/plain/16M` as one trial; the guide is
//! `docs/adopting.md` in kernelgate's repository.
//!
//! # Stages
//! The stages of the data flow are one module each:
//!
//! | stage    | module        | touches           |
//! |----------|---------------|-------------------|
//! | discover | [`case`] (the builder a project writes cases with), [`source`] (the kernel files, read when a run starts) | the kernel folders |
//! | compile  | [`compile`], [`nvrtc`] (finding libnvrtc), [`resources`] (registers, spills, occupancy: the resource gate) | NVRTC, `baselines/<arch>/` |
//! | check    | [`check`], [`program`] (running a case's program), [`shared_poison`] (shared memory filled before the check), [`sanitize`] (the checked child: compute-sanitizer, crash isolation) | GPU, child processes |
//! | measure  | [`ceilings`] (the GPU's ceilings at its opening; the roofline), [`measure`], [`recheck`] (the outputs after timing) | GPU (loop), [`stats`] pure |
//! | compare  | [`guard`] (the physics guard) pure, [`gate::baseline`], [`gate::calibrate`], [`gate::timing::compare`] pure | baseline files |
//! | record   | [`record`], [`lesson_record`] (the lesson trials' CSV), [`history`] | git, files, git notes, SQLite |
//! | report   | [`report`], [`report::events`] (the run's events and its [`report::events::Reporter`]) | stdout, files     |
//! | pool     | [`pool`] (the shards of a pool's jobs, and one report from all of them) pure | files |
//!
//! Under every stage: [`model`] (the plain data the stages hand each other), [`console`] (how lines
//! look, the heartbeat of long phases), [`report::events`] (what a run says, as events one reporter
//! prints), [`project`] (where the project keeps its kernels,
//! baselines, history and run files: `kernelgate.toml`, made once and handed down) and [`paths`]
//! (temporary files). [`suite`] wires the stages into libtest-mimic trials.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod case;
pub mod ceilings;
pub mod check;
pub mod compile;
pub mod config;
pub mod console;
pub mod devices;
/// Why a kernel file cannot be used as it is (`kernelgate_build::Error`): what the readers above
/// return ([`entry_scan::declared`], [`cubin::read`], [`kernel_file::declared`]), a kind a caller
/// decides on ([`KernelFileErrorKind`]) and the message for the file's owner.
///
/// # Example
/// ```
/// use kernelgate::{KernelFileErrorKind, entry_scan};
/// let e = entry_scan::declared("extern \"C\" __global__ void k() {}\nextern \"C\" __global__ void k() {}\n")
///     .unwrap_err();
/// assert_eq!(e.kind(), KernelFileErrorKind::Redeclared);
/// assert!(e.message().starts_with("line 2: kernel `k` is declared twice"));
/// ```
pub use kernelgate_build::Error as KernelFileError;
/// What is wrong with a kernel file ([`KernelFileError::kind`]; `kernelgate_build::ErrorKind`).
pub use kernelgate_build::ErrorKind as KernelFileErrorKind;
/// The build helper's cubin reader (`kernelgate_build::cubin`): a cubin's architecture, kernels,
/// parameter sizes and resources.
pub use kernelgate_build::cubin;
/// The build helper's entry-point scanner (`kernelgate_build::entry_scan`), also used on the
/// kernel files a run reads and on a file `kernelgate compile` is given.
pub use kernelgate_build::entry_scan;
/// The build helper's fatbin reader (`kernelgate_build::fatbin`): a fatbin's cubins and PTX.
pub use kernelgate_build::fatbin;
/// The kinds of kernel file (`.cu` sources, prebuilt `.ptx` modules and `.cubin`s) and what a
/// prebuilt module declares (`kernelgate_build::kernel_file`).
pub use kernelgate_build::kernel_file;
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
pub mod pool;
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
pub mod toolkit;
pub mod units;

pub use case::{Case, Init, Launch, Param, Tolerance};
pub use config::Config;
pub use error::{Error, Result};
pub use history::built::Build;
pub use source::{Kernel, KernelSource, KernelTemplate};

/// Includes what the project's build script wrote (`kernelgate_build::Build::run`): the module `k`
/// of kernel constants (`k::<file>::<kernel>`) and the static `BUILD` ([`Build`]). Call it once, at
/// module level of the crate or test file that writes the cases.
///
/// # Example
/// ```ignore
/// kernelgate::kernels!();
/// let kernel: kernelgate::Kernel = k::transpose::transpose_naive;
/// let table = kernelgate::case::Table::new(cases, &BUILD);
/// ```
#[macro_export]
macro_rules! kernels {
    () => {
        include!(concat!(env!("OUT_DIR"), "/kernelgate.rs"));
    };
}

/// The `main` of a project's test binary (`[[test]] harness = false`): runs the suite over the
/// case table `$table` ([`case::Table`]) with libtest's flags and kernelgate's variables
/// ([`suite::main`]).
///
/// # Example
/// ```ignore
/// kernelgate::kernels!();
/// fn cases(scale: f64) -> Vec<kernelgate::Case> { /* ... */ Vec::new() }
/// kernelgate::main!(kernelgate::case::Table::new(cases, &BUILD));
/// ```
#[macro_export]
macro_rules! main {
    ($table:expr) => {
        fn main() -> ::std::process::ExitCode {
            $crate::suite::main($table)
        }
    };
}
