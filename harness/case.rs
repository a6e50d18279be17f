//! What a case is: one kernel, one problem size, one launch configuration, its parameters, its CPU
//! reference and the bytes and FLOPs it must move and do.

use crate::Kernel;
use crate::expect::Expectation;
use std::sync::Arc;

/// How a buffer's contents are drawn before each run. Never zeros: zeros hide unwritten outputs
/// and wrong indexing (see the device README's METHOD.md, "Correct first").
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Init {
    /// `f32` uniform in `[lo, hi)`.
    Uniform {
        /// Lower bound, inclusive.
        lo: f32,
        /// Upper bound, exclusive.
        hi: f32,
    },
    /// `u32` random permutation of `0..len`.
    Permutation,
}

/// One kernel parameter, in the kernel's parameter order.
///
/// Buffers hold `len` elements; the kernel receives the address of element `offset` (so
/// `offset: 1` passes a base that is 4 bytes past a 256-byte-aligned allocation). The CPU reference
/// sees and returns whole buffers, offset elements included.
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    /// Read-only input, freshly drawn for every run.
    In {
        /// How its contents are drawn.
        init: Init,
        /// Elements allocated.
        len: usize,
        /// Elements skipped before the pointer the kernel gets.
        offset: usize,
    },
    /// Output, `f32`, poisoned with NaN (bytes 0xFF) before the checked launch and compared whole.
    Out {
        /// Elements allocated.
        len: usize,
    },
    /// Input that the kernel updates in place (`y` of SAXPY), `f32`; compared whole afterwards.
    InOut {
        /// How its initial contents are drawn.
        init: Init,
        /// Elements allocated.
        len: usize,
        /// Elements skipped before the pointer the kernel gets.
        offset: usize,
    },
    /// An `int` by value.
    I32(i32),
    /// A `float` by value.
    F32(f32),
}

impl Param {
    /// A read-only `f32` input of `len` elements, uniform in [-1, 1).
    pub fn input(len: usize) -> Param {
        Param::In { init: Init::Uniform { lo: -1.0, hi: 1.0 }, len, offset: 0 }
    }

    /// A poisoned `f32` output of `len` elements.
    pub fn output(len: usize) -> Param {
        Param::Out { len }
    }

    /// True for the buffers that the check compares (outputs and in-place buffers).
    pub fn is_compared(&self) -> bool {
        matches!(self, Param::Out { .. } | Param::InOut { .. })
    }

    /// True for buffer parameters (anything passed as a pointer).
    pub fn is_buffer(&self) -> bool {
        matches!(self, Param::In { .. } | Param::Out { .. } | Param::InOut { .. })
    }
}

/// Host copy of one buffer parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum HostData {
    /// `float` elements.
    F32(Vec<f32>),
    /// `unsigned int` elements.
    U32(Vec<u32>),
}

impl HostData {
    /// The elements as `f32`.
    ///
    /// # Panics
    /// If the buffer holds `u32` (a case-table mistake, caught by the CPU tests).
    pub fn f32(&self) -> &[f32] {
        match self {
            HostData::F32(v) => v,
            HostData::U32(_) => panic!("buffer holds u32, the reference asked for f32"),
        }
    }

    /// The elements as `u32`.
    ///
    /// # Panics
    /// If the buffer holds `f32`.
    pub fn u32(&self) -> &[u32] {
        match self {
            HostData::U32(v) => v,
            HostData::F32(_) => panic!("buffer holds f32, the reference asked for u32"),
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        match self {
            HostData::F32(v) => v.len() * 4,
            HostData::U32(v) => v.len() * 4,
        }
    }
}

/// CPU reference: given the initial host copy of every buffer parameter (in parameter order,
/// outputs included, holding NaN), returns the expected final contents of every compared buffer
/// ([`Param::is_compared`]), in parameter order, whole.
pub type Reference = Arc<dyn Fn(&[HostData]) -> Vec<Vec<f32>> + Send + Sync>;

/// Allowed difference between a GPU result and its reference: `|got - want| <= abs + rel * |want|`.
/// NaN never passes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Absolute part.
    pub abs: f32,
    /// Relative part.
    pub rel: f32,
}

impl Tolerance {
    /// Bit-exact (copies, permutations).
    pub const EXACT: Tolerance = Tolerance { abs: 0.0, rel: 0.0 };

    /// For one fused multiply-add per element against an unfused CPU reference: a few ulps.
    pub const FMA: Tolerance = Tolerance { abs: 1e-6, rel: 1e-6 };
}

/// Grid size: fixed, or a multiple of the device's SM count (for grid-stride loops).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grid {
    /// Blocks per dimension.
    Fixed([u32; 3]),
    /// `blocks_per_sm x SM count` blocks in x.
    PerSm(u32),
}

/// Launch configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    /// Grid, in blocks.
    pub grid: Grid,
    /// Block, in threads.
    pub block: [u32; 3],
    /// Dynamic shared memory per block, bytes.
    pub shared_bytes: u32,
}

impl Launch {
    /// One thread per element: `ceil(n / block)` blocks of `block` threads.
    pub fn linear(n: usize, block: u32) -> Launch {
        let blocks = u32::try_from(n.div_ceil(block as usize)).expect("grid.x fits in u32");
        Launch { grid: Grid::Fixed([blocks, 1, 1]), block: [block, 1, 1], shared_bytes: 0 }
    }

    /// A 2-D grid of `grid` blocks of `block` threads.
    pub fn grid2d(grid: [u32; 2], block: [u32; 2]) -> Launch {
        Launch { grid: Grid::Fixed([grid[0], grid[1], 1]), block: [block[0], block[1], 1], shared_bytes: 0 }
    }

    /// `blocks_per_sm` blocks per SM of `block` threads, for grid-stride loops.
    pub fn per_sm(blocks_per_sm: u32, block: u32) -> Launch {
        Launch { grid: Grid::PerSm(blocks_per_sm), block: [block, 1, 1], shared_bytes: 0 }
    }

    /// The grid for a device with `sm_count` SMs.
    pub fn grid_for(&self, sm_count: u32) -> [u32; 3] {
        match self.grid {
            Grid::Fixed(g) => g,
            Grid::PerSm(k) => [k * sm_count, 1, 1],
        }
    }
}

/// One kernel at one problem size with one launch configuration. Its trial and NVTX name is
/// `family/variant/size` ([`Case::name`]).
#[derive(Clone)]
pub struct Case {
    /// Technique family; the kernel file's stem (`transpose`).
    pub family: &'static str,
    /// Variant within the family (`shared_padded`, `read_strided_s32`).
    pub variant: String,
    /// Problem size as written in the name (`8192x8192` for rows x cols, `67108864` elements).
    pub size: String,
    /// The entry point launched.
    pub kernel: Kernel,
    /// Launch configuration.
    pub launch: Launch,
    /// Kernel parameters in order.
    pub params: Vec<Param>,
    /// CPU reference.
    pub reference: Reference,
    /// Allowed difference from the reference.
    pub tolerance: Tolerance,
    /// Fewest bytes the kernel must move through device memory: each input read once and each
    /// output written once (METHOD.md, "Two numbers first"). Effective bandwidth = bytes / time.
    pub bytes: u64,
    /// Floating-point operations (an FMA counts 2); 0 for pure data movement.
    pub flops: u64,
    /// ncu metrics to collect besides `crate::ncu::metrics::DEFAULT_METRICS`.
    pub metrics: Vec<&'static str>,
    /// Counter expectations checked when the run profiles with ncu (`KERNELGATE_NCU=1`).
    pub expectations: Vec<Expectation>,
}

impl std::fmt::Debug for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Case")
            .field("name", &self.name())
            .field("kernel", &self.kernel)
            .field("launch", &self.launch)
            .field("params", &self.params)
            .field("bytes", &self.bytes)
            .field("flops", &self.flops)
            .field("expectations", &self.expectations)
            .finish()
    }
}

impl Case {
    /// Starts a case; the rest is set with the builder methods. Defaults: exact tolerance, no
    /// FLOPs; `launch`, `params`, `reference` and `bytes` must be set.
    pub fn new(family: &'static str, variant: impl Into<String>, size: impl Into<String>, kernel: Kernel) -> Case {
        Case {
            family,
            variant: variant.into(),
            size: size.into(),
            kernel,
            launch: Launch::linear(0, 1),
            params: Vec::new(),
            reference: Arc::new(|_| Vec::new()),
            tolerance: Tolerance::EXACT,
            bytes: 0,
            flops: 0,
            metrics: Vec::new(),
            expectations: Vec::new(),
        }
    }

    /// Sets the launch configuration.
    pub fn launch(mut self, launch: Launch) -> Case {
        self.launch = launch;
        self
    }

    /// Sets the kernel parameters, in order.
    pub fn params(mut self, params: impl IntoIterator<Item = Param>) -> Case {
        self.params = params.into_iter().collect();
        self
    }

    /// Sets the CPU reference.
    pub fn reference(mut self, f: impl Fn(&[HostData]) -> Vec<Vec<f32>> + Send + Sync + 'static) -> Case {
        self.reference = Arc::new(f);
        self
    }

    /// Sets the tolerance.
    pub fn tolerance(mut self, tolerance: Tolerance) -> Case {
        self.tolerance = tolerance;
        self
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

    /// Adds several counter expectations.
    pub fn expects(mut self, expectations: impl IntoIterator<Item = Expectation>) -> Case {
        self.expectations.extend(expectations);
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
    fn linear_launch_covers_every_element() {
        let l = Launch::linear(1000, 256);
        assert_eq!(l.grid_for(132), [4, 1, 1]);
        assert_eq!(Launch::linear(1024, 256).grid_for(132), [4, 1, 1]);
        assert_eq!(Launch::per_sm(4, 256).grid_for(132), [528, 1, 1]);
    }
}
