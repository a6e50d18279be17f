//! Shared-memory poisoning: every checked run starts with each SM's shared memory holding 0xFF
//! bytes, so a kernel that reads shared memory before writing it gets NaN (`f32`) or all ones
//! (`u32`) and fails its check, instead of passing on whatever the last kernel left (issue 11).
//!
//! compute-sanitizer cannot catch this: its initcheck tool covers global memory only (Compute
//! Sanitizer user manual, "Initcheck Tool"). The method rests on a measured fact: shared memory
//! keeps its contents from one kernel to the next. On an H200 (GPU-b760cc64, driver 580.159.04;
//! `scripts/probe/smem_persistence.cu`, one block per SM filling it), every word a later kernel read
//! from static and dynamic shared memory without writing it held the fill pattern (135168 of
//! 135168), also with another kernel, a memset and a copy in between; a fresh context read zeros.
//! Under compute-sanitizer's memcheck, synccheck and initcheck the fill did not reach the next
//! kernel once the child had checked the whole suite (`planted/uninit_shared` passed its check
//! there), though under memcheck it did reach it in a child that checked that trial alone; under
//! racecheck it did. Because of that, every [`fill`] tests that it reached the next kernel, and a
//! check whose fill did not gives no shared-memory diagnosis. The suite's own process is never
//! under a tool, so its check catches such a read in every mode.
//!
//! What the fill covers: the blocks of the program's first launch that run in the first wave. A
//! block of a later wave, or of a later launch, starts on what earlier blocks left; a read of an
//! unwritten word there gets a finite leftover, which the check sees only if it makes the result
//! wrong, and then without the shared-memory diagnosis (`crate::check::diagnosis`).
#![allow(unsafe_code)] // the fill and test launches

use crate::case::HostData;
use crate::gpu::Gpu;
use crate::{Error, Result};
use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
use cudarc::driver::{CudaFunction, LaunchConfig, PushKernelArg};
use std::sync::atomic::{AtomicBool, Ordering};

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

/// The fill, made once per GPU ([`Gpu`] keeps it): its kernel with the shared-memory attribute
/// set, the test kernel, the words it fills per block, and whether the warning was printed.
pub struct Filler {
    fill: CudaFunction,
    read: CudaFunction,
    words: u32,
    warned: AtomicBool,
}

impl std::fmt::Debug for Filler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Filler").field("words", &self.words).finish()
    }
}

/// Fills every SM's shared memory with `byte` on `gpu`'s stream, then tests that the fill reaches
/// the next kernel: one block reads 256 words of static shared memory it never writes, and all must
/// hold the fill. Returns whether they did (the stream has been waited for). The first miss on a
/// GPU prints a warning naming it; compute-sanitizer's memcheck, synccheck and initcheck have been
/// seen to do this (module doc).
///
/// The fill is one launch of `2 x SMs` blocks of 1024 threads, each with the device's opt-in
/// maximum of dynamic shared memory per block (`CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`:
/// 227 KiB on sm_90, of the SM's 228; CUDA C++ Programming Guide, "Shared Memory" in the compute
/// capability tables).
///
/// # Errors
/// [`Error::Compile`] if NVRTC fails; [`Error::Driver`] for the attribute, the load, the launches,
/// the upload or the download, each saying it was the fill.
pub fn fill(gpu: &Gpu, byte: u8) -> Result<bool> {
    let f = filler(gpu)?;
    launch_fill(gpu, &f.fill, f.words, byte)?;
    let out = gpu.upload(&HostData::U32(vec![0; 256]))?;
    let (ptr, _) = out.raw(gpu.stream());
    let mut builder = gpu.stream().launch_builder(&f.read);
    builder.arg(&ptr);
    let cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    // SAFETY: kernelgate_read_unwritten_shared(unsigned int* out) writes out[0..256) with 256
    // threads; `out` is a live device buffer of 256 u32 owned by this function until the download.
    unsafe { builder.launch(cfg) }.map_err(Error::driver("testing the shared-memory fill"))?;
    let word = u32::from_ne_bytes([byte; 4]);
    let held = match gpu.download_data(&out)? {
        HostData::U32(v) => v.iter().filter(|w| **w == word).count(),
        HostData::F32(_) => unreachable!("uploaded as u32"),
    };
    if held < 256 && !f.warned.swap(true, Ordering::Relaxed) {
        eprintln!(
            "kernelgate: GPU {}: shared memory filled with {byte:#04x} did not reach the next kernel ({held} of 256 \
             unwritten words held it; seen under compute-sanitizer's memcheck, synccheck and initcheck): such a \
             check cannot catch reads of unwritten shared memory (the suite's own check, outside any tool, can)",
            gpu.facts.ordinal
        );
    }
    Ok(held == 256)
}

/// `gpu`'s [`Filler`], made on first use.
fn filler(gpu: &Gpu) -> Result<&Filler> {
    if let Some(f) = gpu.shared_fill.get() {
        return Ok(f);
    }
    let (fill, _) = gpu.function_of(FILE, SOURCE, "kernelgate_fill_shared")?;
    let (read, _) = gpu.function_of(FILE, SOURCE, "kernelgate_read_unwritten_shared")?;
    let words = shared_words(gpu)?;
    let bytes = i32::try_from(words * 4).expect("shared memory per block fits i32");
    fill.set_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes)
        .map_err(Error::driver("letting the shared-memory fill use all of shared memory"))?;
    Ok(gpu.shared_fill.get_or_init(|| Filler { fill, read, words, warned: AtomicBool::new(false) }))
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
