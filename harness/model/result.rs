//! The parts of a case's result that the GPU stages hand on: why sampling stopped, and what the
//! driver reports about the program's first launch.

/// Why sampling ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum StopReason {
    /// Enough samples and time, and noise at or under the target.
    Converged,
    /// The wall-clock limit passed first; the noise target was not met.
    Timeout,
}

impl StopReason {
    /// `converged` or `timeout`.
    pub fn as_str(&self) -> &'static str {
        match self {
            StopReason::Converged => "converged",
            StopReason::Timeout => "timeout",
        }
    }
}

/// What the driver reports for one launch: the function's attributes and the occupancy calculator's
/// answer at the launch's block size and dynamic shared memory (CUDA Driver API,
/// `cuFuncGetAttribute` and `cuOccupancyMaxActiveBlocksPerMultiprocessor`). The resource gate's
/// figures from ptxas ([`crate::resources`]) should agree with these on the same code.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LaunchResources {
    /// Registers per thread (`CU_FUNC_ATTRIBUTE_NUM_REGS`).
    pub registers: u32,
    /// Local memory per thread, bytes (`CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES`): spills and stack.
    pub local_bytes: u32,
    /// Static shared memory per block, bytes (`CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES`).
    pub shared_static_bytes: u32,
    /// Resident blocks per SM at the launch's block size.
    pub blocks_per_sm: u32,
    /// Theoretical occupancy: resident warps over the SM's most warps, percent.
    pub occupancy_pct: f64,
}

/// Largest share of throttled samples a measurement may have and still be compared (10 %).
/// kernelgate's own threshold: beyond it the kept samples are a biased selection of the run.
pub const MAX_THROTTLED_FRACTION: f64 = 0.10;
