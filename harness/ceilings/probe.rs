//! The GPU part of the ceilings stage: each ceiling timed as the suite times a trial (CUDA events
//! around the work, the suite's own L2 flush, [`Gpu::flush_l2`], before each device-memory sample,
//! nvbench's cold measurement: `nvbench/detail/l2flush.cuh`), so that a kernel of the suite can
//! reach them under the same conditions. [`WARMUP`] untimed and [`SAMPLES`] timed samples each.
//!
//! The stage is short by its sizes (23 samples each of a 1 GiB read, a 1 GiB write and a 2 x 1 GiB
//! copy, about 100 GiB of traffic; 46 samples of FMAs and shared loads sized for about 1 ms each;
//! the NVRTC compile of the library's `ceilings.cu`), and [`Ceilings::wall_s`] records what it took, so
//! it runs every time a GPU is opened rather than being cached: a cache would have to be keyed by
//! the physical GPU, driver and clocks, and would miss what a run's own state (clocks, power,
//! another tenant) does to the figures.
#![allow(unsafe_code)] // the probes' launches and the input's memset

use super::measured;
use crate::gpu::Gpu;
use crate::model::{Ceiling, Ceilings, Measured};
use crate::source::own_k::ceilings as kc;
use crate::{
    error::{Error, Result},
    source::Kernel,
};
use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};

/// Size of each of the two buffers of the copy and of the read and write probes' buffer: 1 GiB,
/// the size of the runner's recorded copy ceiling in ../shared/gpu/README.md; at least
/// [`L2_MULTIPLE`] x L2 ([`dram_bytes`]).
pub const COPY_PROBE_BYTES: usize = 1 << 30;

/// The read and write probes move at least this many times the L2's size, so that they stream
/// from device memory (and the L2 flush before them is a small part of their traffic).
pub const L2_MULTIPLE: u64 = 4;

/// Untimed samples before the timed ones (the copy probe has always had 3).
pub const WARMUP: usize = 3;

/// Timed samples per ceiling: 20, the copy probe's count (at least 10, the suite's minimum).
pub const SAMPLES: usize = 20;

/// Threads per block of every probe.
const BLOCK: u32 = 256;

/// Iterations of `ceiling_fma` (each 128 FMAs per thread) and of `ceiling_shared` (each 8 loads of
/// 16 bytes per thread): about 1 ms per sample on an H200 at one full wave.
const FMA_ITERS: i32 = 1024;
const SHARED_ITERS: i32 = 1024;

/// Back-to-back empty launches per sample of [`Ceiling::Launch`].
const LAUNCHES: usize = 100;

/// Bytes the read and write probes move: [`COPY_PROBE_BYTES`], or [`L2_MULTIPLE`] x `l2_bytes`
/// rounded up to 1 MiB where that is more.
pub fn dram_bytes(l2_bytes: u64) -> u64 {
    (COPY_PROBE_BYTES as u64).max((L2_MULTIPLE * l2_bytes).div_ceil(1 << 20) << 20)
}

/// Measures every ceiling on `gpu`, in [`Ceiling::ALL`] order.
///
/// # Errors
/// [`Error::Compile`] if the library's `ceilings.cu` does not compile; [`Error::Driver`] for an
/// allocation, launch or event, each naming the ceiling.
pub fn measure(gpu: &Gpu) -> Result<Ceilings> {
    let begun = std::time::Instant::now();
    let dram = dram_bytes(gpu.facts.l2_bytes);
    let n4 = dram / 16;
    let doing = |c: Ceiling| format!("measuring the {c} ceiling");
    let buffer = gpu.stream().alloc_zeros::<u8>(dram as usize).map_err(Error::driver(doing(Ceiling::DramRead)))?;
    let (ptr, _) = cudarc::driver::DevicePtr::device_ptr(&buffer, gpu.stream());
    // SAFETY: `ptr` addresses `buffer`, `dram` bytes long, alive to the end of this function; the
    // memset is ordered on the one stream before the probes. 0x3F bytes are the float 0.747, so
    // the read probe's sums are positive.
    unsafe { cudarc::driver::result::memset_d8_async(ptr, 0x3F, dram as usize, gpu.stream().cu_stream()) }
        .map_err(Error::driver(doing(Ceiling::DramRead)))?;
    let sink: CudaSlice<f32> = gpu.stream().alloc_zeros(1).map_err(Error::driver(doing(Ceiling::Fma)))?;
    let (out, _) = cudarc::driver::DevicePtr::device_ptr(&sink, gpu.stream());
    let wave = |f: &CudaFunction, c: Ceiling| -> Result<u32> {
        let per_sm = f
            .occupancy_max_active_blocks_per_multiprocessor(BLOCK, 0, None)
            .map_err(Error::driver(format!("{}: its occupancy", doing(c))))?;
        Ok(per_sm.max(1) * gpu.facts.sm_count)
    };
    let mut all = Vec::new();

    let read = function(gpu, kc::ceiling_read)?;
    let grid = wave(&read, Ceiling::DramRead)?;
    let seconds = samples(gpu, Ceiling::DramRead, || {
        let mut b = gpu.stream().launch_builder(&read);
        b.arg(&ptr).arg(&n4).arg(&out);
        // SAFETY: ceiling_read(const float4* in, unsigned long long n4, float* out) reads in[0..n4)
        // of `buffer` (n4 x 16 = `dram` bytes) and may write out[0] of `sink` (one float).
        unsafe { b.launch(config(grid)) }.map(|_| ())
    })?;
    all.push(measured(Ceiling::DramRead, dram as f64, &seconds));

    let write = function(gpu, kc::ceiling_write)?;
    let grid = wave(&write, Ceiling::DramWrite)?;
    let value = 0.5f32;
    let seconds = samples(gpu, Ceiling::DramWrite, || {
        let mut b = gpu.stream().launch_builder(&write);
        b.arg(&ptr).arg(&n4).arg(&value);
        // SAFETY: ceiling_write(float4* out, unsigned long long n4, float v) writes out[0..n4) of
        // `buffer`, n4 x 16 = `dram` bytes.
        unsafe { b.launch(config(grid)) }.map(|_| ())
    })?;
    all.push(measured(Ceiling::DramWrite, dram as f64, &seconds));
    drop(buffer);

    all.push(copy(gpu)?);

    let fma = function(gpu, kc::ceiling_fma)?;
    let grid = wave(&fma, Ceiling::Fma)?;
    let (a, b_, iters) = (0.999f32, 0.001f32, FMA_ITERS);
    let seconds = samples(gpu, Ceiling::Fma, || {
        let mut b = gpu.stream().launch_builder(&fma);
        b.arg(&a).arg(&b_).arg(&iters).arg(&out);
        // SAFETY: ceiling_fma(float a, float b, int iters, float* out) may write out[0] of `sink`.
        unsafe { b.launch(config(grid)) }.map(|_| ())
    })?;
    let flops = f64::from(grid) * f64::from(BLOCK) * f64::from(FMA_ITERS) * 256.0;
    all.push(measured(Ceiling::Fma, flops, &seconds));

    let shared = function(gpu, kc::ceiling_shared)?;
    let grid = wave(&shared, Ceiling::Shared)?;
    let iters = SHARED_ITERS;
    let seconds = samples(gpu, Ceiling::Shared, || {
        let mut b = gpu.stream().launch_builder(&shared);
        b.arg(&iters).arg(&out);
        // SAFETY: ceiling_shared(int iters, float* out) uses its own 16 KiB of static shared memory
        // and may write out[0] of `sink`.
        unsafe { b.launch(config(grid)) }.map(|_| ())
    })?;
    let bytes = f64::from(grid) * f64::from(BLOCK) * f64::from(SHARED_ITERS) * 8.0 * 16.0;
    all.push(measured(Ceiling::Shared, bytes, &seconds));

    let empty = function(gpu, kc::ceiling_empty)?;
    let launch = || {
        // SAFETY: ceiling_empty() takes no arguments and touches no memory.
        unsafe { gpu.stream().launch_builder(&empty).launch(config(1)) }.map(|_| ())
    };
    let seconds = samples(gpu, Ceiling::Launch, || (0..LAUNCHES).try_for_each(|_| launch()))?;
    all.push(measured(Ceiling::Launch, LAUNCHES as f64, &seconds));
    let seconds = samples(gpu, Ceiling::SingleLaunch, launch)?;
    all.push(measured(Ceiling::SingleLaunch, 1.0, &seconds));
    Ok(Ceilings { measured: all, wall_s: begun.elapsed().as_secs_f64() })
}

/// Device-to-device copy bandwidth, bytes read plus written: [`SAMPLES`] copies of
/// [`COPY_PROBE_BYTES`] timed with events after [`WARMUP`] untimed ones, without the L2 flush (the
/// figure every run has recorded as `copy_bandwidth_gbps`; 2 GiB of traffic against the L2's
/// 60 MiB on an H200).
fn copy(gpu: &Gpu) -> Result<Measured> {
    let doing = || format!("measuring the {} ceiling", Ceiling::Copy);
    let src = gpu.stream().alloc_zeros::<u8>(COPY_PROBE_BYTES).map_err(Error::driver(doing()))?;
    let mut dst = gpu.stream().alloc_zeros::<u8>(COPY_PROBE_BYTES).map_err(Error::driver(doing()))?;
    let seconds = samples(gpu, Ceiling::Copy, || gpu.stream().memcpy_dtod(&src, &mut dst))?;
    Ok(measured(Ceiling::Copy, 2.0 * COPY_PROBE_BYTES as f64, &seconds))
}

/// Whether the L2 is flushed before each sample of `ceiling`: the device-memory read and write
/// probes (timed as the suite times a trial, so that its kernels can reach them), and the single
/// launch (the suite's shortest possible sample). Not the copy (the figure recorded before the
/// ceilings, whose 2 GiB dwarf the L2), and not the probes that touch no device memory.
pub fn flushed(ceiling: Ceiling) -> bool {
    matches!(ceiling, Ceiling::DramRead | Ceiling::DramWrite | Ceiling::SingleLaunch)
}

/// The times of [`SAMPLES`] runs of `enqueue` after [`WARMUP`] untimed ones, seconds, each between
/// two events on `gpu`'s stream, with the L2 flushed before each where [`flushed`].
fn samples(
    gpu: &Gpu,
    ceiling: Ceiling,
    mut enqueue: impl FnMut() -> std::result::Result<(), cudarc::driver::DriverError>,
) -> Result<Vec<f64>> {
    let doing = || format!("measuring the {ceiling} ceiling");
    let (start, stop) = (gpu.timing_event()?, gpu.timing_event()?);
    let mut seconds = Vec::with_capacity(SAMPLES);
    for i in 0..WARMUP + SAMPLES {
        if flushed(ceiling) {
            gpu.flush_l2()?;
        }
        start.record(gpu.stream()).map_err(Error::driver(doing()))?;
        enqueue().map_err(Error::driver(doing()))?;
        stop.record(gpu.stream()).map_err(Error::driver(doing()))?;
        let ms = start.elapsed_ms(&stop).map_err(Error::driver(doing()))?;
        if i >= WARMUP {
            seconds.push(f64::from(ms) / 1e3);
        }
    }
    Ok(seconds)
}

/// `kernel` of the library's `ceilings.cu` ([`crate::source::own`]), compiled for `gpu` (once per
/// process).
fn function(gpu: &Gpu, kernel: Kernel) -> Result<CudaFunction> {
    let source = crate::source::own()
        .iter()
        .find(|s| s.file == kernel.file)
        .expect("the ceiling probes' kernels are in the library's own files");
    // The library's own file: no project's headers.
    crate::program::function_of(gpu, source.file, source.path, source.source, source.options, kernel.entry, None)
        .map(|(f, _)| f)
}

/// `grid` blocks of [`BLOCK`] threads, no dynamic shared memory.
fn config(grid: u32) -> LaunchConfig {
    LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dram_probes_move_at_least_a_gib_and_four_l2s() {
        // The H200's 60 MiB L2: 1 GiB; a GPU with a 512 MiB L2: 2 GiB; rounded up to 1 MiB.
        assert_eq!(dram_bytes(60 << 20), 1 << 30);
        assert_eq!(dram_bytes(512 << 20), 2 << 30);
        assert_eq!(dram_bytes((300 << 20) + 1), 1201 << 20);
    }
}
