//! Shared-memory poisoning: every checked run starts with each SM's shared memory holding 0xFF
//! bytes, so a kernel that reads shared memory before writing it gets NaN (`f32`) or all ones
//! (`u32`) and fails its check, instead of passing on whatever the last kernel left (issue 11).
//!
//! compute-sanitizer cannot catch this: its initcheck tool covers global memory only (Compute
//! Sanitizer user manual, "Initcheck Tool"). The method rests on a measured fact: shared memory
//! keeps its contents from one kernel to the next. On an H200 (GPU-b760cc64, driver 580.159.04;
//! `scripts/probe/smem_persistence.cu`), after [`fill`] every word a later kernel read from static
//! and dynamic shared memory without writing it held the fill pattern (135168 of 135168), also with
//! another kernel, a memset and a copy in between; a fresh context read zeros. Under
//! compute-sanitizer's memcheck, synccheck and initcheck the fill did not reach the next kernel
//! (`planted/uninit_shared` passed its check there); under racecheck it did. The suite's own
//! process is never under a tool, so its check catches such a read in every mode.
//!
//! When a check fails, [`crate::check::check_case`] runs the program once more after a fill with
//! zeros; a run that then passes read shared memory it had not written.
#![allow(unsafe_code)] // the fill launch

use crate::gpu::Gpu;
use crate::{Error, Result};
use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
use cudarc::driver::{LaunchConfig, PushKernelArg};

/// The fill kernel: each block writes `word` over all of its dynamic shared memory, through a
/// volatile pointer so that the stores are not removed as dead.
const SOURCE: &str = r#"
extern "C" __global__ void kernelgate_fill_shared(unsigned int word, unsigned int words)
{
    extern __shared__ unsigned int s[];
    volatile unsigned int* v = s;
    for (unsigned int i = threadIdx.x; i < words; i += blockDim.x) v[i] = word;
}
"#;

/// The name compile errors give the fill kernel's source.
const FILE: &str = "kernelgate_fill_shared (harness/shared_poison.rs)";

/// Blocks per SM of the fill launch. Each block takes the most dynamic shared memory a block may
/// opt in to, so only one fits on an SM at a time; two waves make sure every SM runs one.
const BLOCKS_PER_SM: u32 = 2;

/// Fills every SM's shared memory with `byte` on `gpu`'s stream (ordered before the work enqueued
/// after it; returns without waiting). One launch of `2 x SMs` blocks of 1024 threads, each with
/// the device's opt-in maximum of dynamic shared memory per block
/// (`CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`: 227 KiB on sm_90, of the SM's 228;
/// CUDA C++ Programming Guide, "Shared Memory" in the compute capability tables).
///
/// # Errors
/// [`Error::Compile`] if NVRTC fails; [`Error::Driver`] for the attribute, the load or the launch.
pub fn fill(gpu: &Gpu, byte: u8) -> Result<()> {
    let (func, _) = gpu.function_of(FILE, SOURCE, "kernelgate_fill_shared")?;
    let bytes = gpu
        .context()
        .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
        .map_err(Error::driver("reading the opt-in shared memory per block"))?;
    func.set_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes)
        .map_err(Error::driver("letting the shared-memory fill use all of shared memory"))?;
    let word = u32::from_ne_bytes([byte; 4]);
    let words = u32::try_from(bytes / 4).expect("the opt-in shared memory is positive");
    let cfg = LaunchConfig {
        grid_dim: (BLOCKS_PER_SM * gpu.facts.sm_count, 1, 1),
        block_dim: (1024, 1, 1),
        shared_mem_bytes: words * 4,
    };
    let mut builder = gpu.stream().launch_builder(&func);
    builder.arg(&word).arg(&words);
    // SAFETY: kernelgate_fill_shared(unsigned int word, unsigned int words) takes two 32-bit
    // integers by value, passed in that order; it writes only its own dynamic shared memory, of
    // `words * 4` bytes as launched.
    unsafe { builder.launch(cfg) }.map(|_| ()).map_err(Error::driver("filling shared memory before the checked run"))
}
