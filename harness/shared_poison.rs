//! Shared-memory poisoning: every checked run starts with each SM's shared memory holding 0xFF
//! bytes, so a kernel that reads shared memory before writing it gets NaN (`f32`) or all ones
//! (`u32`) and fails its check, instead of passing on whatever the last kernel left (BENCHMARK.md, "Shared memory persists between kernels").
//!
//! compute-sanitizer cannot catch this: its initcheck tool covers global memory only (Compute
//! Sanitizer user manual, "Initcheck Tool"). The method rests on a measured fact: shared memory
//! keeps its contents from one kernel to the next. On an H200 (GPU-b760cc64, driver 580.159.04;
//! `scripts/probe/smem_persistence.cu`, one block per SM filling it), every word a later kernel read
//! from static and dynamic shared memory without writing it held the fill pattern (135168 of
//! 135168), also with another kernel, a memset and a copy in between; a fresh context read zeros.
//! Under compute-sanitizer's memcheck, synccheck and initcheck, in children that had checked the
//! whole suite first, the fill did not reach the next kernel (`planted/uninit_shared` passed its
//! check there); under memcheck in a child that checked that trial alone it did, and under
//! racecheck it did. Because it can differ, [`works`] tests it once per GPU and process, at the
//! first check, and the fill is skipped, with a warning, where it does not reach the next kernel;
//! a change later in the process goes unseen. That matters little: in a checked child a wrong
//! result does not fail the trial; the suite's own check does, and its process is never under a
//! tool.
//!
//! What the fill covers: the blocks of the program's first launch that run in the first wave. A
//! block of a later wave, or of a later launch, starts on what earlier blocks left; a read of an
//! unwritten word there gets a finite leftover, which the check sees only if it makes the result
//! wrong, and then without the shared-memory diagnosis (`crate::check::diagnosis`).
#![allow(unsafe_code)] // the fill and test launches

use crate::case::HostData;
use crate::error::{Error, Result};
use crate::gpu::{Filler, Gpu};
use crate::program::function_of;
use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
use cudarc::driver::{CudaFunction, LaunchConfig, PushKernelArg};

/// The fill kernel, and the test kernel that reads 256 words of static shared memory it never
/// writes. Volatile accesses, so that neither the stores nor the loads are removed.
const SOURCE: &str = r#"
extern "C" __global__ void kernelgate_fill_shared(unsigned int word, unsigned int words)
{
    extern __shared__ unsigned int s[];
    volatile unsigned int* v = s;
    for (unsigned int i = threadIdx.x; i < words; i += blockDim.x) v[i] = word;
}

extern "C" __global__ void kernelgate_read_unwritten_shared(unsigned int* out)
{
    __shared__ unsigned int s[256];
    out[threadIdx.x] = reinterpret_cast<volatile unsigned int*>(s)[threadIdx.x];
}
"#;

/// The name NVRTC and the driver's messages give [`SOURCE`]: not a file of `kernels/`.
const FILE: &str = "kernelgate_fill_shared (harness/shared_poison.rs, not a kernel of the suite)";

/// Blocks per SM of the fill launch. Each block takes the most dynamic shared memory a block may
/// opt in to, so one fits on an SM at a time and the first wave already reaches every idle SM; the
/// second wave is insurance against an SM that was busy when the launch began.
const BLOCKS_PER_SM: u32 = 2;

/// Whether a fill reaches the next kernel on `gpu` in this process: found once, by filling with
/// 0xFF and reading 256 unwritten words of static shared memory (all must be 0xFFFFFFFF). When it
/// does not, the first call prints a warning naming the GPU.
///
/// # Errors
/// As [`fill`].
pub fn works(gpu: &Gpu) -> Result<bool> {
    Ok(filler(gpu)?.works)
}

/// Fills every SM's shared memory with `byte` on `gpu`'s stream (ordered before the work enqueued
/// after it; returns without waiting). One launch of `2 x SMs` blocks of 1024 threads, each with
/// the device's opt-in maximum of dynamic shared memory per block
/// (`CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`: 227 KiB on sm_90, of the SM's 228;
/// CUDA C++ Programming Guide, "Shared Memory" in the compute capability tables). It fills whether
/// or not [`works`]; callers ask that first.
///
/// # Errors
/// [`Error::Compile`] if NVRTC fails; [`Error::Driver`] for the attribute, the load or the launch,
/// each saying it was the fill.
pub fn fill(gpu: &Gpu, byte: u8) -> Result<()> {
    let f = filler(gpu)?;
    launch_fill(gpu, &f.func, f.words, byte)
}

/// `gpu`'s [`Filler`], made and tested on first use.
fn filler(gpu: &Gpu) -> Result<&Filler> {
    if let Some(f) = gpu.shared_fill.get() {
        return Ok(f);
    }
    // The library's own kernel, which includes no header: no project's header folders.
    let (func, _) = function_of(gpu, FILE, FILE, SOURCE, &[], "kernelgate_fill_shared", None)?;
    let words = shared_words(gpu)?;
    let bytes = i32::try_from(words * 4).expect("shared memory per block fits i32");
    func.set_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes)
        .map_err(Error::driver("letting the shared-memory fill use all of shared memory"))?;
    launch_fill(gpu, &func, words, 0xFF)?;
    let (read, _) = function_of(gpu, FILE, FILE, SOURCE, &[], "kernelgate_read_unwritten_shared", None)?;
    let out = gpu.upload(&HostData::U32(vec![0; 256]))?;
    let (ptr, _) = out.raw(gpu.stream());
    let mut builder = gpu.stream().launch_builder(&read);
    builder.arg(&ptr);
    let cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    // SAFETY: kernelgate_read_unwritten_shared(unsigned int* out) writes out[0..256) with 256
    // threads; `out` is a live device buffer of 256 u32 owned by this function until the download.
    unsafe { builder.launch(cfg) }.map_err(Error::driver("testing the shared-memory fill"))?;
    let held = gpu.download_data(&out)?.u32().iter().filter(|w| **w == u32::MAX).count();
    let works = held == 256;
    if !works {
        crate::errln!(
            "kernelgate: GPU {}: shared memory filled with 0xFF did not reach the next kernel ({held} of 256 \
             unwritten words held it; compute-sanitizer's tools can do this): checks in \
             this process cannot catch reads of unwritten shared memory, and the fill is skipped (the suite's own \
             check, outside any tool, still has it)",
            gpu.facts.ordinal
        );
    }
    Ok(gpu.shared_fill.get_or_init(|| Filler { func, words, works }))
}

/// One fill launch of `func` over `words` words per block.
fn launch_fill(gpu: &Gpu, func: &CudaFunction, words: u32, byte: u8) -> Result<()> {
    let word = u32::from_ne_bytes([byte; 4]);
    let cfg = LaunchConfig {
        grid_dim: (BLOCKS_PER_SM * gpu.facts.sm_count, 1, 1),
        block_dim: (1024, 1, 1),
        shared_mem_bytes: words * 4,
    };
    let mut builder = gpu.stream().launch_builder(func);
    builder.arg(&word).arg(&words);
    // SAFETY: kernelgate_fill_shared(unsigned int word, unsigned int words) takes two 32-bit
    // integers by value, passed in that order; it writes only its own dynamic shared memory, of
    // `words * 4` bytes as launched (the function's dynamic shared-memory limit was raised to it).
    unsafe { builder.launch(cfg) }.map(|_| ()).map_err(Error::driver("filling shared memory before the checked run"))
}

/// The opt-in dynamic shared memory per block, in 4-byte words.
fn shared_words(gpu: &Gpu) -> Result<u32> {
    let bytes = gpu
        .context()
        .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
        .map_err(Error::driver("reading the opt-in shared memory per block, for the shared-memory fill"))?;
    Ok(u32::try_from(bytes / 4).expect("the opt-in shared memory is positive"))
}
