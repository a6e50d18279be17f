//! What a case is: a program (one kernel launch, or several launches, copies and zeroed outputs on
//! one or more streams, optionally replayed as a CUDA graph) at one problem size, its buffers, its
//! CPU reference and the bytes and FLOPs it must move and do.
//!
//! The simple case stays one builder chain: `Case::new(family, variant, size, kernel).launch(..)
//! .params(..)` is a program of one launch whose arguments are the parameters in order. A program
//! is built with [`Case::program`] and [`Case::step`]; its buffers are still [`Case::params`]
//! ("slots"), which steps name by index.

use crate::expect::Expectation;
use crate::source::Kernel;
use std::sync::Arc;

mod data;
pub mod elem;
pub mod facts;
pub mod host;
mod launch;
pub mod lesson;
mod param;
pub mod planted;
mod sass_expectation;
pub mod table;
mod table_checks;
pub use data::{Element, HostData, HostView, Reference, Tolerance};
pub use elem::Elem;
pub use host::{HostArgs, HostCall, HostError};
pub use launch::{DEFAULT_DYNAMIC_SHARED_LIMIT, Grid, Launch};
pub use param::{Arg, HOT_BYTE, Init, Param};
pub use sass_expectation::SassExpectation;
pub use table::Table;
pub use table_checks::{assert_program_fits, assert_references_fit};

/// One step of a case's program, enqueued in order; steps on different streams overlap unless
/// ordered by the program's fork (every stream waits for the program's start) and join (the
/// program ends when every stream has finished).
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A kernel launch.
    Launch {
        /// The entry point.
        kernel: Kernel,
        /// Its launch configuration.
        launch: Launch,
        /// Its arguments in the kernel's parameter order.
        args: Vec<Arg>,
        /// Stream index: 0 is the timing stream; 1.. are streams forked from it.
        stream: usize,
    },
    /// `elems` elements copied from slot `from` (at element `from_offset`) to slot `to` (at
    /// `to_offset`), host to device, device to host or device to device, as the slots' kinds say.
    Copy {
        /// Source parameter index.
        from: usize,
        /// First source element.
        from_offset: usize,
        /// Destination parameter index.
        to: usize,
        /// First destination element.
        to_offset: usize,
        /// Elements copied.
        elems: usize,
        /// Stream index.
        stream: usize,
    },
    /// `C = alpha A B + beta C` in fp32 through cuBLAS (`cublasSgemm`, loaded at run time),
    /// row-major, A `m x k` in slot `a`, B `k x n` in slot `b`, C `m x n` in slot `c`: the vendor
    /// reference of the matmul family. On stream 0. cuBLAS reads C only when `beta` is not 0
    /// (cuBLAS documentation, "`cublas<t>gemm`": "if beta == 0 then C does not have to be a valid
    /// input"), so with `beta != 0` slot `c` must be a [`Param::InOut`], whose drawn contents are
    /// the C read; an output poisoned with NaN would make every element NaN.
    Sgemm {
        /// Slot of A.
        a: usize,
        /// Slot of B.
        b: usize,
        /// Slot of C.
        c: usize,
        /// Rows of A and C.
        m: usize,
        /// Columns of B and C.
        n: usize,
        /// Columns of A, rows of B.
        k: usize,
        /// The scale of `A B` (1 for `C = A B`).
        alpha: f32,
        /// The scale of the C read (0 for `C = A B`: C is then not read).
        beta: f32,
    },
    /// A call of the project's own host code ([`HostCall`]): a launcher, a vendor library's host
    /// API, a function of a shared library, handed its slots' device buffers and the stream.
    Host(HostCall),
}

impl Step {
    /// The stream the step goes to.
    pub fn stream(&self) -> usize {
        match self {
            Step::Launch { stream, .. } | Step::Copy { stream, .. } => *stream,
            Step::Host(call) => call.stream,
            Step::Sgemm { .. } => 0,
        }
    }
}

/// A program at one problem size: its buffers, steps, CPU reference and declared work. Its trial
/// and NVTX name is `family/variant/size` ([`Case::name`]).
#[derive(Clone)]
pub struct Case {
    /// Technique family; the kernel file's stem (`transpose`).
    pub family: &'static str,
    /// Variant within the family (`shared_padded`, `read_strided_s32`).
    pub variant: String,
    /// Problem size as written in the name (`8192x8192` for rows x cols, `67108864` elements).
    pub size: String,
    /// Buffers and scalars ("slots"), in order: the reference sees the buffers in this order. In a
    /// one-launch case they are also the kernel's parameters in order.
    pub params: Vec<Param>,
    /// The program: every [`Param::Zeroed`] buffer is cleared first (on stream 0), then these steps
    /// run. What is timed is the whole program between the two events.
    pub steps: Vec<Step>,
    /// Capture the program once as a CUDA graph and replay it (check and timing alike): the
    /// launch-overhead lesson. A graph program may not copy from pageable host memory.
    pub graph: bool,
    /// CPU reference.
    pub reference: Reference,
    /// Whether the case shares its reference with the other variants of its family at its size
    /// ([`Case::reference_shared`]): their inputs are then drawn from a seed of the family and size,
    /// so the reference is computed once for all of them ([`crate::inputs`]).
    pub shares_inputs: bool,
    /// Allowed difference from the reference, for every compared buffer without one of its own.
    pub tolerance: Tolerance,
    /// Tolerances of single buffers, by parameter index ([`Case::tolerance_of`]): a case whose
    /// outputs have different scales or types (a layer norm's output, mean and reciprocal
    /// standard deviation) gives each its own.
    pub tolerances: Vec<(usize, Tolerance)>,
    /// Fewest bytes the kernel must move through device memory: each input read once and each
    /// output written once (METHOD.md, "Two numbers first"). Effective bandwidth = bytes / time.
    pub bytes: u64,
    /// Floating-point operations (an FMA counts 2); 0 for pure data movement.
    pub flops: u64,
    /// The ceiling the case declares it is bound by ([`Case::bound_by`]); `None`: derived from
    /// its arithmetic intensity (`crate::ceilings::bound`).
    pub bound: Option<crate::model::Ceiling>,
    /// ncu metrics to collect besides `crate::ncu::metrics::DEFAULT_METRICS`.
    pub metrics: Vec<&'static str>,
    /// Counter expectations checked when the run profiles with ncu (`KERNELGATE_NCU=1`).
    pub expectations: Vec<Expectation>,
    /// What the SASS of each kernel the case launches must hold, checked by the compile trials
    /// without a GPU ([`crate::sass`]).
    pub sass: Vec<SassExpectation>,
    /// The vendor library this case times, when it is its family's vendor reference at its size
    /// ([`Case::vendor_reference`]): `"CUB"`, `"cuBLAS"`.
    pub vendor: Option<&'static str>,
    /// The preferred shared-memory carveout of the case's kernels, percent of the SM's unified
    /// L1/shared-memory capacity (`CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT`, CUDA
    /// Driver API, "cuFuncSetAttribute"; a hint the driver may round to a supported split). `None`:
    /// the driver's default (`CU_SHAREDMEM_CARVEOUT_DEFAULT`, -1). Set with [`Case::carveout`].
    pub carveout: Option<i32>,
}

impl std::fmt::Debug for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Case")
            .field("name", &self.name())
            .field("params", &self.params)
            .field("steps", &self.steps)
            .field("graph", &self.graph)
            .field("bytes", &self.bytes)
            .field("flops", &self.flops)
            .field("bound", &self.bound)
            .field("expectations", &self.expectations)
            .field("sass", &self.sass)
            .field("vendor", &self.vendor)
            .field("carveout", &self.carveout)
            .finish()
    }
}

impl Case {
    /// Starts a one-launch case: `kernel` launched once with every parameter in order. The rest is
    /// set with the builder methods. Defaults: exact tolerance, no FLOPs; `launch`, `params`,
    /// `reference` and `bytes` must be set.
    pub fn new(family: &'static str, variant: impl Into<String>, size: impl Into<String>, kernel: Kernel) -> Case {
        let mut case = Case::program(family, variant, size);
        case.steps.push(Step::Launch { kernel, launch: Launch::linear(0, 1), args: Vec::new(), stream: 0 });
        case
    }

    /// Starts a program with no steps: set its buffers with [`Case::params`] and add steps with
    /// [`Case::step`] (or [`Case::launch_with`]).
    pub fn program(family: &'static str, variant: impl Into<String>, size: impl Into<String>) -> Case {
        Case {
            family,
            variant: variant.into(),
            size: size.into(),
            params: Vec::new(),
            steps: Vec::new(),
            graph: false,
            reference: Arc::new(|_| Vec::new()),
            shares_inputs: false,
            tolerance: Tolerance::EXACT,
            tolerances: Vec::new(),
            bytes: 0,
            flops: 0,
            bound: None,
            metrics: Vec::new(),
            expectations: Vec::new(),
            sass: Vec::new(),
            vendor: None,
            carveout: None,
        }
    }

    /// Declares the ceiling the case is judged against (the table's `%ceil`, the run CSV's
    /// `pct_of_<ceiling>_ceiling`): e.g. [`Ceiling::DramRead`](crate::model::Ceiling::DramRead)
    /// for a kernel that reads its input once and writes next to nothing. Without it the ceiling
    /// is derived from bytes, FLOPs and the ridge point (`crate::ceilings::bound`).
    ///
    /// # Panics
    /// If `ceiling` is not a rate ([`crate::model::Ceiling::is_rate`]).
    pub fn bound_by(mut self, ceiling: crate::model::Ceiling) -> Case {
        assert!(ceiling.is_rate(), "{}: bound_by({ceiling}): a launch time bounds no rate", self.name());
        self.bound = Some(ceiling);
        self
    }

    /// Sets the launch configuration of a one-launch case.
    ///
    /// # Panics
    /// If the case is not a one-launch case ([`Case::new`]).
    pub fn launch(mut self, launch: Launch) -> Case {
        match self.steps.as_mut_slice() {
            [Step::Launch { launch: l, .. }] => *l = launch,
            _ => panic!("{}: launch() sets the one launch of a Case::new case", self.name()),
        }
        self
    }

    /// Sets the buffers and scalars, in order; in a one-launch case ([`Case::new`]) they are the
    /// kernel's arguments.
    pub fn params(mut self, params: impl IntoIterator<Item = Param>) -> Case {
        self.params = params.into_iter().collect();
        if let [Step::Launch { args, .. }] = self.steps.as_mut_slice()
            && args.is_empty()
        {
            *args = (0..self.params.len()).map(Arg::Slot).collect();
        }
        self
    }

    /// Appends a step to the program.
    pub fn step(mut self, step: Step) -> Case {
        self.steps.push(step);
        self
    }

    /// Appends a launch of `kernel` on stream 0 with `args` ([`Arg::Slot`] of each index).
    pub fn launch_with(self, kernel: Kernel, launch: Launch, slots: impl IntoIterator<Item = usize>) -> Case {
        let args = slots.into_iter().map(Arg::Slot).collect();
        self.step(Step::Launch { kernel, launch, args, stream: 0 })
    }

    /// Replays the program as a CUDA graph captured once ([`Case::graph`]).
    pub fn as_graph(mut self) -> Case {
        self.graph = true;
        self
    }

    /// Sets the CPU reference of `f32` outputs: one `Vec<f32>` per compared buffer (an output of a
    /// floating-point type other than `f32` is compared with these values too, [`Reference`]).
    pub fn reference(self, f: impl Fn(&[HostData]) -> Vec<Vec<f32>> + Send + Sync + 'static) -> Case {
        self.reference_data(move |b| f(b).into_iter().map(HostData::F32).collect())
    }

    /// Sets the CPU reference of outputs of any element type ([`Reference`]).
    pub fn reference_data(mut self, f: impl Fn(&[HostData]) -> Vec<HostData> + Send + Sync + 'static) -> Case {
        self.reference = Arc::new(f);
        self.shares_inputs = false;
        self
    }

    /// Sets a reference that several variants of the family at this size share: make it once
    /// (`Arc::new(...)`) and hand it to each. The variants then draw the same inputs, and the
    /// reference is computed once for all of them ([`crate::inputs`]). Only for variants
    /// with the same buffers that compute the same function (the case table's CPU tests check
    /// that cases sharing a reference have the same parameters).
    pub fn reference_shared(mut self, reference: &Reference) -> Case {
        self.reference = Arc::clone(reference);
        self.shares_inputs = true;
        self
    }

    /// The kernel launches in program order, as (entry point, launch configuration).
    pub fn launches(&self) -> impl Iterator<Item = (Kernel, &Launch)> {
        self.steps.iter().filter_map(|s| match s {
            Step::Launch { kernel, launch, .. } => Some((*kernel, launch)),
            Step::Copy { .. } | Step::Sgemm { .. } | Step::Host(_) => None,
        })
    }

    /// The launch configuration of the program's first launch.
    ///
    /// # Panics
    /// If the program launches nothing.
    pub fn first_launch(&self) -> &Launch {
        self.launches().next().map(|(_, l)| l).unwrap_or_else(|| panic!("{} launches no kernel", self.name()))
    }

    /// The distinct kernels launched, in order of first launch.
    pub fn kernels(&self) -> Vec<Kernel> {
        let mut out: Vec<Kernel> = Vec::new();
        for (k, _) in self.launches() {
            if !out.contains(&k) {
                out.push(k);
            }
        }
        out
    }

    /// The kernel column of the run CSV: the distinct kernels joined by `+`, each as
    /// [`Kernel::name`](crate::Kernel::name) writes it (`reduce_partials+reduce_final`, `row_sum
    /// -DBLOCK=256`), `cublasSgemm` for a cuBLAS step, a host call by its name ([`HostCall::name`]); for a program of copies
    /// only, the driver calls it makes (`cuMemcpyHtoDAsync`, `cuMemcpyDtoHAsync`,
    /// `cuMemcpyDtoDAsync`).
    pub fn kernel_names(&self) -> String {
        let mut names: Vec<&str> = self.kernels().iter().map(|k| k.name()).collect();
        if self.uses_cublas() {
            names.push("cublasSgemm");
        }
        names.extend(self.host_calls().map(|c| c.name));
        if names.is_empty() {
            let host = |slot: usize| matches!(self.params.get(slot), Some(Param::Host { .. }));
            for step in &self.steps {
                if let Step::Copy { from, to, .. } = step {
                    let call = match (host(*from), host(*to)) {
                        (true, _) => "cuMemcpyHtoDAsync",
                        (_, true) => "cuMemcpyDtoHAsync",
                        _ => "cuMemcpyDtoDAsync",
                    };
                    if !names.contains(&call) {
                        names.push(call);
                    }
                }
            }
        }
        names.join("+")
    }

    /// Why the case's time is the host's rather than the GPU's, when it is: its program copies
    /// to or from pageable host memory ([`Param::Host`] with `pinned: false`). The driver stages
    /// such a copy through its own pinned buffers with the CPU (CUDA C++ Best Practices Guide,
    /// "Pinned Memory"), so its median moves with the host's page cache and scheduling: two runs of
    /// one binary on one H200 differed by +7.66 % and +39.16 % (baselines/nvidia-h200-sm90/
    /// BENCHMARK.md). The gate treats such a trial as host-bound (`crate::suite`'s verdict step).
    pub fn host_bound(&self) -> Option<String> {
        let pageable = |slot: usize| matches!(self.params.get(slot), Some(Param::Host { pinned: false, .. }));
        self.steps.iter().find_map(|step| match step {
            Step::Copy { from, to, .. } if pageable(*from) || pageable(*to) => Some(format!(
                "{} copies pageable host memory, which the driver stages through pinned buffers with the CPU, so \
                 its time is the host's",
                self.name()
            )),
            _ => None,
        })
    }

    /// Whether the program calls cuBLAS ([`Step::Sgemm`]).
    pub fn uses_cublas(&self) -> bool {
        self.steps.iter().any(|s| matches!(s, Step::Sgemm { .. }))
    }

    /// The program's host calls ([`Step::Host`]), in step order.
    pub fn host_calls(&self) -> impl Iterator<Item = &HostCall> {
        self.steps.iter().filter_map(|s| match s {
            Step::Host(call) => Some(call),
            _ => None,
        })
    }

    /// Whether the program calls library code that launches kernels of its own choosing (cuBLAS,
    /// a host call): ncu then profiles kernels the case does not name.
    pub fn calls_libraries(&self) -> bool {
        self.uses_cublas() || self.host_calls().next().is_some()
    }

    /// Streams the program uses (1 + the highest stream index).
    pub fn streams(&self) -> usize {
        self.steps.iter().map(Step::stream).max().map_or(1, |s| s + 1)
    }

    /// Sets the tolerance of every compared floating-point buffer that has none of its own
    /// (integer buffers compare exactly unless given one: [`Case::tolerance_for`]).
    pub fn tolerance(mut self, tolerance: Tolerance) -> Case {
        self.tolerance = tolerance;
        self
    }

    /// Sets the tolerance of the compared buffer at parameter index `slot` alone (a later call
    /// for the same slot replaces the earlier).
    ///
    /// # Example
    /// ```
    /// use kernelgate::case::{Case, Elem, Param, Tolerance};
    /// # const K: kernelgate::Kernel = kernelgate::Kernel::new("norm.cu", "layernorm");
    /// // out (bf16, one rounding), mean and rstd (f32, a sum of 768 terms).
    /// let case = Case::new("norm", "plain", "768", K)
    ///     .params([Param::input(768).of(Elem::BF16), Param::output(768).of(Elem::BF16), Param::output(1), Param::output(1)])
    ///     .tolerance(Tolerance::summation(768))
    ///     .tolerance_of(1, Tolerance::ulps(2));
    /// assert_eq!(case.tolerance_for(1), Tolerance::ulps(2));
    /// assert_eq!(case.tolerance_for(2), Tolerance::summation(768));
    /// ```
    ///
    /// # Panics
    /// When `slot` is not a compared buffer of the case (set the parameters first).
    pub fn tolerance_of(mut self, slot: usize, tolerance: Tolerance) -> Case {
        assert!(
            self.params.get(slot).is_some_and(Param::is_compared),
            "{}: tolerance_of({slot}): parameter {slot} is not a compared buffer (set .params(..) first)",
            self.name()
        );
        self.tolerances.retain(|(s, _)| *s != slot);
        self.tolerances.push((slot, tolerance));
        self
    }

    /// The tolerance of the compared buffer at parameter index `slot`: its own
    /// ([`Case::tolerance_of`]); else [`Tolerance::EXACT`] for an integer buffer (counts, indices,
    /// quantized values are exact unless a buffer says otherwise) and the case's for a
    /// floating-point one.
    pub fn tolerance_for(&self, slot: usize) -> Tolerance {
        match self.tolerances.iter().find(|(s, _)| *s == slot) {
            Some((_, own)) => *own,
            None if self.params.get(slot).and_then(Param::elem).is_some_and(|e| !e.is_float()) => Tolerance::EXACT,
            None => self.tolerance,
        }
    }

    /// Sets the bytes the kernel must move.
    pub fn bytes(mut self, bytes: u64) -> Case {
        self.bytes = bytes;
        self
    }

    /// Sets the floating-point operations.
    pub fn flops(mut self, flops: u64) -> Case {
        self.flops = flops;
        self
    }

    /// Adds an ncu metric to collect for this case (verbatim ncu name).
    pub fn metric(mut self, name: &'static str) -> Case {
        self.metrics.push(name);
        self
    }

    /// Adds a counter expectation.
    pub fn expect(mut self, expectation: Expectation) -> Case {
        self.expectations.push(expectation);
        self
    }

    /// Adds expectations on the SASS of the case's kernels (checked in the compile trials, on
    /// every kernel the case launches).
    pub fn sass(mut self, expectations: impl IntoIterator<Item = SassExpectation>) -> Case {
        self.sass.extend(expectations);
        self
    }

    /// Adds several counter expectations.
    pub fn expects(mut self, expectations: impl IntoIterator<Item = Expectation>) -> Case {
        self.expectations.extend(expectations);
        self
    }

    /// Marks the case as its family's vendor reference at its size: the library `vendor` (`"CUB"`,
    /// `"cuBLAS"`) doing the family's job. The results table shows each trial of the family at this
    /// size as a percentage of this case's speed (`crate::report::vendor`). Its kernels may come from
    /// `kernels/<vendor in lower case>.cu` (`kernels/cub.cu`) instead of the family's file; one
    /// reference per family and size (a CPU test of the case table checks both).
    pub fn vendor_reference(mut self, vendor: &'static str) -> Case {
        self.vendor = Some(vendor);
        self
    }

    /// Prefers a shared-memory carveout of `percent` (0 to 100) of the SM's unified L1/shared
    /// capacity for every kernel the case launches ([`Case::carveout`](Case#structfield.carveout)):
    /// `100` asks for as much shared memory as the SM has, `0` for as much L1. Set before each trial
    /// and reset to the driver's default for the next case that sets none.
    ///
    /// # Panics
    /// When `percent` is outside 0..=100 (the driver's range).
    pub fn carveout(mut self, percent: i32) -> Case {
        assert!((0..=100).contains(&percent), "{}: carveout {percent} %: the driver takes 0 to 100", self.name());
        self.carveout = Some(percent);
        self
    }

    /// The trial name of another variant at this case's family and size.
    pub fn sibling(&self, variant: &str) -> String {
        format!("{}/{variant}/{}", self.family, self.size)
    }

    /// `family/variant/size`: the trial name and the NVTX range path.
    pub fn name(&self) -> String {
        format!("{}/{}/{}", self.family, self.variant, self.size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launches_print_as_dimensions() {
        assert_eq!(Launch::linear(4096, 256).to_string(), "grid 16x1x1 block 256x1x1 shared 0 B");
        assert_eq!(Launch::per_sm(4, 128).to_string(), "grid 4 per SM block 128x1x1 shared 0 B");
    }

    #[test]
    fn a_one_launch_case_passes_every_parameter() {
        let k = crate::source::k::transpose::transpose_naive;
        let c = Case::new("transpose", "naive", "4", k).launch(Launch::linear(4, 32)).params([
            Param::input(4),
            Param::output(4),
            Param::I32(4),
        ]);
        assert_eq!(
            c.steps,
            [Step::Launch {
                kernel: k,
                launch: Launch::linear(4, 32),
                args: vec![Arg::Slot(0), Arg::Slot(1), Arg::Slot(2)],
                stream: 0
            }]
        );
        assert_eq!((c.kernel_names(), c.streams()), ("transpose_naive".to_string(), 1));
    }

    #[test]
    fn summation_tolerance_is_highams_gamma() {
        let t = Tolerance::summation(1 << 10);
        let u = 2f64.powi(-24);
        // The bound as computed, not rounded to f32 (2.3e-13 off it).
        assert_eq!(t.rel, 1024.0 * u / (1.0 - 1024.0 * u));
        assert_eq!(t.abs, 0.0);
    }

    #[test]
    fn an_f64_buffer_gets_a_bound_f32_cannot_state() {
        // Values near 1e-50 (f64 probabilities, say), allowed 1e-60 apart: below f32's smallest
        // subnormal (1.4e-45), so an f32 bound would be 0 and refuse both.
        let t = Tolerance::abs_rel(1e-60, 0.0);
        assert_eq!(t.abs, 1e-60);
        assert!(t.admits(Elem::F64, 1e-50 + 5e-61, 1e-50));
        assert!(!t.admits(Elem::F64, 1e-50 + 3e-60, 1e-50));
        // A relative bound of a few f64 ulps, kept as written.
        let t = Tolerance::abs_rel(0.0, 4.0 * f64::EPSILON);
        assert!(t.admits(Elem::F64, 1.0 + 3.0 * f64::EPSILON, 1.0));
        assert!(!t.admits(Elem::F64, 1.0 + 8.0 * f64::EPSILON, 1.0));
    }

    #[test]
    fn linear_launch_covers_every_element() {
        let l = Launch::linear(1000, 256);
        assert_eq!(l.grid_for(132), [4, 1, 1]);
        assert_eq!(Launch::linear(1024, 256).grid_for(132), [4, 1, 1]);
        assert_eq!(Launch::per_sm(4, 256).grid_for(132), [528, 1, 1]);
    }
}
