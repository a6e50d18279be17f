//! The GPU: opening the device, its facts, module loading, buffers, launches and events.
//!
//! One of the modules allowed `unsafe` (with [`crate::nvrtc`], which opens libnvrtc,
//! [`crate::program`] and [`crate::shared_poison`], which launch, and [`crate::devices`]): buffers
//! are poisoned and flushed through raw addresses. Every `unsafe` block states the invariant it
//! relies on.
#![allow(unsafe_code)]

use crate::case::{Elem, HostData, HostView};
use crate::error::{Error, Result};
use crate::model::{Ceilings, DeviceFacts, gpu_key};
use crate::phases::{self, Phase};
use cudarc::driver::sys::{CUdevice_attribute as Attr, CUevent_flags};
use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DeviceRepr, PinnedHostSlice,
    ValidAsZeroBits,
};
use cudarc::nvrtc::Ptx;
use nvml_wrapper::bitmasks::device::ThrottleReasons;
use nvml_wrapper::enum_wrappers::device::Clock;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// The number of CUDA devices when the driver library can be opened and reports at least one.
///
/// # Errors
/// [`Error::Unavailable`] with the reason (no libcuda, no device, driver error).
pub fn device_count() -> Result<usize> {
    gpu_available()?;
    CudaContext::device_count()
        .map(|n| n as usize)
        .map_err(|e| Error::Unavailable(format!("no GPU: the CUDA driver failed to initialize: {e}")))
}

/// `Ok(())` when the CUDA driver library can be opened and reports at least one device.
///
/// # Errors
/// [`Error::Unavailable`] with the reason (no libcuda, no device, driver error).
pub fn gpu_available() -> Result<()> {
    // SAFETY: `is_culib_present` only dlopens candidate names of libcuda and drops the handles.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(Error::Unavailable(
            "no GPU: the CUDA driver library (libcuda.so) is not on the loader path".into(),
        ));
    }
    match CudaContext::device_count() {
        Ok(n) if n > 0 => Ok(()),
        Ok(_) => Err(Error::Unavailable("no GPU: the CUDA driver reports no device".into())),
        Err(e) => Err(Error::Unavailable(format!("no GPU: the CUDA driver failed to initialize: {e}"))),
    }
}

/// A buffer on the device: its bytes, and the element type they hold.
#[derive(Debug)]
pub struct DeviceData {
    elem: Elem,
    bytes: CudaSlice<u8>,
}

impl DeviceData {
    /// The device address and size in bytes (event tracking is off: [`Gpu::open`]).
    pub fn raw(&self, stream: &CudaStream) -> (cudarc::driver::sys::CUdeviceptr, usize) {
        (self.bytes.device_ptr(stream).0, self.bytes.len())
    }

    /// The element type held.
    pub fn elem(&self) -> Elem {
        self.elem
    }
}

/// A module [`Gpu::module`] loaded.
#[derive(Clone)]
pub struct Loaded {
    /// The module.
    pub module: Arc<CudaModule>,
    /// The identity of the code that ran: SHA-256 (hex) of its PTX, as
    /// [`crate::compile::ptx_sha256`] computes it.
    pub sha256: String,
    /// The function name of each template instance it was compiled with, in the order asked.
    pub lowered: Vec<String>,
}

/// The opened device: context, the one stream every trial uses, facts, and a module cache.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    /// Device facts, copy bandwidth included.
    pub facts: DeviceFacts,
    /// The ceilings measured when the GPU was opened for timing (`crate::ceilings::probe`); empty
    /// in a child process that times nothing.
    pub ceilings: Ceilings,
    /// `sm_XY` of this device, the NVRTC target.
    pub arch: String,
    /// Most resident threads per SM (`CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR`; 2048 on
    /// sm_80 and sm_90): the denominator of theoretical occupancy.
    pub max_threads_per_sm: u32,
    l2_flush: CudaSlice<u8>,
    /// Loaded modules by the SHA-256 of their source text and the template instances compiled.
    modules: Mutex<HashMap<String, Loaded>>,
    /// NVML and this device's NVML index, when NVML is there (clocks, throttle reasons, processes).
    nvml: Option<(nvml_wrapper::Nvml, u32)>,
    /// The shared-memory fill, made and checked on first use ([`crate::shared_poison`]).
    pub(crate) shared_fill: OnceLock<Filler>,
    /// Where [`Gpu::with_download`] copies buffers to and [`Gpu::upload`] from, once
    /// [`Gpu::stage_host_copies`] asked for it.
    staging: Option<Mutex<Staging>>,
    /// The clock of the run that opened this GPU ([`Gpu::clock`]).
    clock: Arc<phases::Clock>,
}

/// Page-locked host memory that compared buffers are downloaded into ([`Gpu::with_download`]) and
/// inputs uploaded from ([`Gpu::upload`]), one allocation of bytes, reused by every trial
/// and replaced by a larger one when a buffer does not fit. A copy into pageable memory goes
/// through the driver's own pinned buffers and the CPU (CUDA C++ Best Practices Guide, "Pinned
/// Memory"): on the H200 a 64 MiB device-to-host copy took 7.5 ms into pageable and 1.24 ms into
/// pinned memory, the other way 10.4 and 1.27 ms
/// (`transfers/d2h_pageable`, `d2h_pinned`, `h2d_pageable`, `h2d_pinned`,
/// baselines/nvidia-h200-sm90/benchmark/b38.txz), and a download into a new `Vec` also faults in
/// each of its pages.
#[derive(Default)]
struct Staging {
    bytes: Option<PinnedHostSlice<u8>>,
}

/// Copies `from` into `to` (of one length) in contiguous chunks on [`crate::inputs::threads`]
/// threads; one thread below 16 MiB.
fn copy_in_parallel<T: Copy + Send + Sync>(from: &[T], to: &mut [T]) {
    const CHUNK_BYTES: usize = 16 << 20;
    let least = (CHUNK_BYTES / std::mem::size_of::<T>()).max(1);
    let chunk = from.len().div_ceil(crate::inputs::threads()).max(least);
    if from.len() <= chunk {
        to.copy_from_slice(from);
        return;
    }
    std::thread::scope(|scope| {
        for (src, dst) in from.chunks(chunk).zip(to.chunks_mut(chunk)) {
            scope.spawn(move || dst.copy_from_slice(src));
        }
    });
}

/// The first `len` elements of `slot`'s pinned allocation, which is replaced by one of `len`
/// elements first when it is missing or shorter.
fn staged<'s, T: DeviceRepr + ValidAsZeroBits>(
    ctx: &Arc<CudaContext>,
    slot: &'s mut Option<PinnedHostSlice<T>>,
    len: usize,
) -> Result<&'s mut [T]> {
    let doing = "allocating pinned host memory for downloads";
    if slot.as_ref().is_none_or(|p| p.len() < len) {
        *slot = None;
        // SAFETY: the contents are uninitialized; `with_download` reads only the first `len`
        // elements after a copy of `len` elements into them has completed, and `upload` writes
        // them before it copies them.
        *slot = Some(unsafe { ctx.alloc_pinned_with_flags::<T>(len.max(1), 0) }.map_err(Error::driver(doing))?);
    }
    let all = slot.as_mut().expect("allocated above").as_mut_slice().map_err(Error::driver(doing))?;
    Ok(&mut all[..len])
}

/// The shared-memory fill of one GPU, made and tested on first use by [`crate::shared_poison`] and
/// kept by [`Gpu`]: its kernel with the shared-memory attribute set, the words it fills per block,
/// and whether it reaches the next kernel here.
pub struct Filler {
    pub(crate) func: CudaFunction,
    pub(crate) words: u32,
    pub(crate) works: bool,
}

impl std::fmt::Debug for Filler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Filler").field("words", &self.words).field("works", &self.works).finish()
    }
}

/// Clock state read right after a timing sample, through NVML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockSample {
    /// SM clock, MHz.
    pub sm_mhz: u32,
    /// Active clock event ("throttle") reasons, NVML's `nvmlClocksEventReasons` bitmask; empty when
    /// NVML could not read them.
    pub reasons: ThrottleReasons,
}

impl ClockSample {
    /// Whether a reason that lowers clocks under load was active ([`THROTTLING`]).
    pub fn throttled(&self) -> bool {
        self.reasons.intersects(THROTTLING)
    }
}

/// NVML's names of the reasons in `reasons` (`SW_POWER_CAP`, `GPU_IDLE`, ...), in bit order.
pub fn reason_names(reasons: ThrottleReasons) -> Vec<&'static str> {
    // `NONE` has no bits, so `iter_names` never yields it.
    reasons.iter_names().map(|(name, _)| name).collect()
}

/// Throttle reasons that mark a sample as throttled: power capping and thermal or hardware
/// slowdowns (NVML `nvmlClocksEventReasons`). Idle, application-clock and sync-boost reasons are
/// not slowdowns of a running kernel and do not count.
pub const THROTTLING: ThrottleReasons = ThrottleReasons::SW_POWER_CAP
    .union(ThrottleReasons::HW_SLOWDOWN)
    .union(ThrottleReasons::HW_THERMAL_SLOWDOWN)
    .union(ThrottleReasons::SW_THERMAL_SLOWDOWN)
    .union(ThrottleReasons::HW_POWER_BRAKE_SLOWDOWN);

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu").field("facts", &self.facts).finish_non_exhaustive()
    }
}

impl Gpu {
    /// Opens CUDA device `ordinal` and reads its facts; `nvrtc_version` (`(major, minor)`, of the
    /// NVRTC that compiles for it) is recorded with the facts. Nothing is measured:
    /// `copy_bandwidth_gbps` is NaN and [`Gpu::ceilings`] empty until the ceilings stage
    /// (`crate::ceilings::probe`) fills them. The work done on it counts on `clock`, the clock of
    /// the run that opens it ([`Gpu::clock`]).
    ///
    /// # Errors
    /// [`Error::Unavailable`] without a driver or device; [`Error::Driver`] if a driver call fails.
    pub fn open(ordinal: usize, nvrtc_version: (i32, i32), clock: Arc<phases::Clock>) -> Result<Gpu> {
        gpu_available()?;
        let (nv_major, nv_minor) = nvrtc_version;
        let ctx =
            CudaContext::new(ordinal).map_err(Error::driver(format!("creating a context on device {ordinal}")))?;
        // SAFETY: kernelgate uses one stream per context, so cudarc's cross-stream event tracking
        // is not needed; turning it off keeps event records out of the launch path.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.default_stream();
        let attr = |a: Attr| ctx.attribute(a).map_err(Error::driver(format!("reading {a:?}")));
        let known = |a: Attr| ctx.attribute(a).ok().and_then(|v| u32::try_from(v).ok()).unwrap_or(0);
        let (cc_major, cc_minor) = ctx.compute_capability().map_err(Error::driver("reading the compute capability"))?;
        let name = ctx.name().map_err(Error::driver("reading the device name"))?;
        let l2_bytes = attr(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as u64;
        let mut cuda_version = 0;
        // SAFETY: the driver library is loaded (gpu_available); the call writes one int.
        unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut cuda_version) }
            .result()
            .map_err(Error::driver("reading the driver's CUDA version"))?;
        let nvml = nvml_wrapper::Nvml::init().ok();
        let driver_version =
            nvml.as_ref().and_then(|n| n.sys_driver_version().ok()).unwrap_or_else(|| "unknown".to_string());
        // NVML numbers devices in PCI order; find ours by its PCI address.
        let pci = format!(
            "{:08x}:{:02x}:{:02x}.0",
            attr(Attr::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)?,
            attr(Attr::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)?,
            attr(Attr::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)?
        );
        let nvml = nvml.and_then(|n| {
            let index = n.device_by_pci_bus_id(pci.as_str()).and_then(|d| d.index()).ok()?;
            Some((n, index))
        });
        // The physical GPU, which one GPU key's folder does not tell apart (two H200s of one key ran the same kernels up to 5.8 % apart: BENCHMARK.md, "A second machine").
        let (uuid, serial, vbios) = nvml
            .as_ref()
            .and_then(|(n, i)| n.device_by_index(*i).ok())
            .map(|d| {
                let known = |r: std::result::Result<String, _>| r.unwrap_or_else(|_| "unknown".to_string());
                (known(d.uuid()), known(d.serial()), known(d.vbios_version()))
            })
            .unwrap_or_else(|| ("unknown".into(), "unknown".into(), "unknown".into()));
        // Without NVML (a container without libnvidia-ml), the CUDA driver still knows the GPU's
        // UUID: runs stay keyed by the physical GPU, so two such runners never share a key.
        let uuid = if uuid == "unknown" { ctx.uuid().map_or(uuid, |u| uuid_text(&u.bytes)) } else { uuid };
        // nvbench flushes L2 by writing a buffer of the L2's size before each cold sample
        // (nvbench/detail/l2flush.cuh); twice the size leaves no line of the previous sample.
        let l2_flush =
            stream.alloc_zeros::<u8>(2 * l2_bytes as usize).map_err(Error::driver("allocating the L2 flush buffer"))?;
        Ok(Gpu {
            ceilings: Ceilings::default(),
            facts: DeviceFacts {
                gpu_key: gpu_key(&name, cc_major, cc_minor),
                name,
                cc_major,
                cc_minor,
                sm_count: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
                memory_bytes: ctx.total_mem().map_err(Error::driver("reading total memory"))? as u64,
                l2_bytes,
                driver_version,
                cuda_driver_version: format!("{}.{}", cuda_version / 1000, (cuda_version % 1000) / 10),
                nvrtc_version: format!("{nv_major}.{nv_minor}"),
                ecc: attr(Attr::CU_DEVICE_ATTRIBUTE_ECC_ENABLED)? != 0,
                copy_bandwidth_gbps: f64::NAN,
                // Read for the physics guard's theoretical ceilings (crate::guard); a driver that
                // refuses one leaves it 0 (unknown), never fails the run.
                memory_clock_khz: known(Attr::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE),
                memory_bus_bits: known(Attr::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH),
                sm_clock_max_khz: known(Attr::CU_DEVICE_ATTRIBUTE_CLOCK_RATE),
                ordinal,
                uuid,
                serial,
                vbios,
                pci_bus_id: pci,
            },
            arch: format!("sm_{cc_major}{cc_minor}"),
            max_threads_per_sm: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)? as u32,
            ctx,
            stream,
            l2_flush,
            modules: Mutex::new(HashMap::new()),
            nvml,
            shared_fill: OnceLock::new(),
            staging: None,
            clock,
        })
    }

    /// The clock of the run that opened this GPU: the checks, uploads, downloads and comparisons
    /// done on it add their wall time there ([`crate::phases`]), as do the trials that lease it.
    pub fn clock(&self) -> &Arc<phases::Clock> {
        &self.clock
    }

    /// A CUDA event created with timing enabled (`CU_EVENT_DEFAULT`; cudarc's `new_event(None)`
    /// disables timing).
    ///
    /// # Errors
    /// [`Error::Driver`].
    pub fn timing_event(&self) -> Result<CudaEvent> {
        self.ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(Error::driver("creating a timing event"))
    }

    /// The stream all work goes to.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The module compiled from the text `source` of kernel file `shown` (as messages name it:
    /// `kernels/transpose.cu`, [`crate::source::Sources::path_of`]) with the template
    /// instances `instances` (name expressions, none for a file's `extern "C"` kernels) and the
    /// NVRTC `options` of the file, loaded once per run, text, instances and options: `compile` is
    /// called, and the PTX it returns loaded, only
    /// the first time they are asked for. `compile` returns the PTX, its identity (the hash the run
    /// records) and the lowered name of each instance, in order (the functions to look up).
    ///
    /// # Errors
    /// What `compile` fails with; [`Error::Driver`] if loading fails.
    pub fn module(
        &self,
        shown: &str,
        source: &str,
        instances: &[&str],
        options: &[&str],
        compile: impl FnOnce() -> Result<(Ptx, String, Vec<String>)>,
    ) -> Result<Loaded> {
        let mut hash = Sha256::new();
        hash.update(source.as_bytes());
        for instance in instances {
            hash.update(b"\0");
            hash.update(instance.as_bytes());
        }
        // The file's NVRTC options make another module of the same text.
        for option in options {
            hash.update(b"\x01");
            hash.update(option.as_bytes());
        }
        let key: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
        let mut modules = self.modules.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(loaded) = modules.get(&key) {
            return Ok(loaded.clone());
        }
        let (ptx, sha256, lowered) = compile()?;
        let prebuilt = crate::kernel_file::kind_of(shown) == Some(crate::kernel_file::Kind::Ptx);
        // The text of NVRTC's PTX, for the error should the driver refuse it (a cubin has none).
        let made_text = if prebuilt || crate::kernel_file::is_binary(shown) { String::new() } else { ptx.to_src() };
        let module = self.ctx.load_module(ptx).map_err(|e| match prebuilt {
            // A prebuilt PTX module (its text is `source`): name its PTX ISA and the driver's release.
            true => Error::Driver {
                doing: crate::compile::prebuilt::load_context(
                    shown,
                    source,
                    &self.facts.cuda_driver_version,
                    None,
                    e.0,
                ),
                source: e,
            },
            // NVRTC's PTX: name its ISA and the NVRTC that made it when the driver is older.
            false if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION => Error::Driver {
                doing: crate::compile::prebuilt::load_context(
                    shown,
                    &made_text,
                    &self.facts.cuda_driver_version,
                    Some(&crate::nvrtc::load().map_or_else(|_| "NVRTC".to_string(), ToString::to_string)),
                    e.0,
                ),
                source: e,
            },
            false => Error::driver(format!("loading the module of {shown}"))(e),
        })?;
        let loaded = Loaded { module, sha256, lowered };
        modules.insert(key, loaded.clone());
        Ok(loaded)
    }

    /// SM clock and throttle state now, through NVML; `None` without NVML.
    pub fn clock_sample(&self) -> Option<ClockSample> {
        let (nvml, index) = self.nvml.as_ref()?;
        let device = nvml.device_by_index(*index).ok()?;
        Some(ClockSample {
            sm_mhz: device.clock_info(Clock::SM).ok()?,
            reasons: device.current_throttle_reasons().unwrap_or(ThrottleReasons::empty()),
        })
    }

    /// Process ids of other processes running compute work on this GPU (NVML); empty without
    /// NVML. A timing taken while another process uses the GPU is not trustworthy.
    pub fn other_processes(&self) -> Vec<u32> {
        let Some((nvml, index)) = self.nvml.as_ref() else { return Vec::new() };
        let own = std::process::id();
        nvml.device_by_index(*index)
            .and_then(|d| d.running_compute_processes())
            .map(|ps| ps.into_iter().map(|p| p.pid).filter(|&pid| pid != own).collect())
            .unwrap_or_default()
    }

    /// Copies a host buffer to a new device buffer; with [`Gpu::stage_host_copies`], through this
    /// GPU's pinned staging memory: the host copy into it on [`crate::inputs::threads`] threads,
    /// then one copy at pinned-memory speed, waited for (the staging memory is reused by the next
    /// copy).
    ///
    /// # Errors
    /// [`Error::Driver`].
    pub fn upload(&self, data: &HostData) -> Result<DeviceData> {
        let elem = data.elem();
        let Some(staging) = &self.staging else {
            let doing = "uploading an input buffer";
            let bytes = self.stream.clone_htod(data.as_bytes()).map_err(Error::driver(doing))?;
            return Ok(DeviceData { elem, bytes });
        };
        let mut staging = staging.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(DeviceData { elem, bytes: self.upload_staged(&mut staging.bytes, data.as_bytes())? })
    }

    fn upload_staged(&self, slot: &mut Option<PinnedHostSlice<u8>>, values: &[u8]) -> Result<CudaSlice<u8>> {
        let doing = "uploading an input buffer";
        let host = staged(&self.ctx, slot, values.len())?;
        copy_in_parallel(values, host);
        // SAFETY: every byte is written by the copy right below, on the same stream, before any use.
        let mut device = unsafe { self.stream.alloc::<u8>(values.len()) }.map_err(Error::driver(doing))?;
        self.stream.memcpy_htod(&*host, &mut device).map_err(Error::driver(doing))?;
        self.synchronize()?;
        Ok(device)
    }

    /// A new device buffer of `like`'s element type and length, every byte 0xFF ([`Gpu::poison`]):
    /// an output's starting contents without uploading a host copy of them.
    ///
    /// # Errors
    /// [`Error::Driver`].
    pub fn poisoned(&self, like: &HostData) -> Result<DeviceData> {
        let doing = "allocating an output buffer";
        // SAFETY: the buffer is filled with 0xFF bytes right below, on the same stream, before any
        // use; nothing reads it uninitialized.
        let bytes = unsafe { self.stream.alloc::<u8>(like.bytes()) }.map_err(Error::driver(doing))?;
        let mut data = DeviceData { elem: like.elem(), bytes };
        self.poison(&mut data)?;
        Ok(data)
    }

    /// Copies a device buffer back.
    ///
    /// # Errors
    /// [`Error::Driver`].
    pub fn download_data(&self, data: &DeviceData) -> Result<HostData> {
        let bytes = self.stream.clone_dtoh(&data.bytes).map_err(Error::driver("downloading an output buffer"))?;
        Ok(HostData::from_bytes(data.elem, &bytes))
    }

    /// Copies a device buffer to the host and passes `visit` a view of it; with
    /// [`Gpu::stage_host_copies`], into this GPU's pinned staging memory: no allocation per
    /// download, and a copy at pinned-memory speed. The copy and the wait for
    /// it count as [`Phase::Check`]; `visit` times its own work. One download at a time per GPU:
    /// the staging memory stays locked while `visit` runs.
    ///
    /// # Errors
    /// [`Error::Driver`] when the pinned allocation, the copy or the wait fails.
    pub fn with_download<R>(&self, data: &DeviceData, visit: impl FnOnce(HostView<'_>) -> R) -> Result<R> {
        let Some(staging) = &self.staging else {
            let data = self.clock.time(Phase::Check, || self.download_data(data))?;
            return Ok(visit(data.view()));
        };
        let mut staging = staging.lock().unwrap_or_else(PoisonError::into_inner);
        let view = self.clock.time(Phase::Check, || -> Result<HostView<'_>> {
            Ok(HostView { elem: data.elem, bytes: self.download_staged(&mut staging.bytes, &data.bytes)? })
        })?;
        Ok(visit(view))
    }

    /// Copies `device` into the first elements of `slot`'s pinned allocation (grown to fit) and
    /// waits for the copy: those elements.
    fn download_staged<'s>(
        &self,
        slot: &'s mut Option<PinnedHostSlice<u8>>,
        device: &CudaSlice<u8>,
    ) -> Result<&'s [u8]> {
        let host = staged(&self.ctx, slot, device.len())?;
        self.stream.memcpy_dtoh(device, host).map_err(Error::driver("downloading an output buffer"))?;
        self.synchronize()?;
        Ok(host)
    }

    /// Makes [`Gpu::upload`] and [`Gpu::with_download`] copy through pinned staging memory
    /// (page-locked host memory reused by every trial), as the timing process does; the child
    /// processes that re-run checked launches under a tool copy through pageable memory: with the
    /// staging memory, ncu's session over the suite took 238.0 s instead of 51.0-54.6 s (H200,
    /// driver 580.159.04, ncu 2025.3.1, baselines/nvidia-h200-sm90/benchmark/b40.txz; 55.2 s
    /// without it, b41.txz), which was not analysed further (ncu's kernel replay saves and restores
    /// the memory a kernel can reach, and pinned host memory is mapped into the device's address
    /// space).
    pub fn stage_host_copies(&mut self) {
        self.staging = Some(Mutex::default());
    }

    /// The CUDA context (pinned host allocations, function attributes).
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// Fills a device buffer with 0xFF bytes ([`HostData::poisoned`]: NaN in every floating-point
    /// type), so an element the kernel fails to write cannot match its reference.
    ///
    /// # Errors
    /// [`Error::Driver`].
    pub fn poison(&self, data: &mut DeviceData) -> Result<()> {
        let (ptr, bytes) = data.raw(&self.stream);
        // SAFETY: `ptr` addresses a live allocation of exactly `bytes` bytes owned by `data`, which
        // is borrowed mutably for the whole call; the memset is ordered on the one stream.
        unsafe { cudarc::driver::result::memset_d8_async(ptr, 0xFF, bytes, self.stream.cu_stream()) }
            .map_err(Error::driver("poisoning an output buffer"))
    }

    /// Evicts the L2 by writing the flush buffer (2 x L2 size) with `cuMemsetD8Async`, as nvbench
    /// does before every cold sample.
    ///
    /// # Errors
    /// [`Error::Driver`].
    pub fn flush_l2(&self) -> Result<()> {
        let (ptr, _) = self.l2_flush.device_ptr(&self.stream);
        // SAFETY: `ptr` addresses the flush buffer, owned by `self` and `2 * l2_bytes` bytes long.
        unsafe { cudarc::driver::result::memset_d8_async(ptr, 0, self.l2_flush.len(), self.stream.cu_stream()) }
            .map_err(Error::driver("flushing the L2 cache"))
    }

    /// Waits for all work on the stream.
    ///
    /// # Errors
    /// [`Error::Driver`], e.g. a kernel's illegal address.
    pub fn synchronize(&self) -> Result<()> {
        self.stream.synchronize().map_err(Error::driver("waiting for the stream"))
    }
}

/// A GPU UUID as NVML and `nvidia-smi -L` print it (`GPU-` and 16 bytes in hex, grouped 4-2-2-2-6),
/// from the 16 bytes `cuDeviceGetUuid` gives: the same identifier (CUDA driver API,
/// `cuDeviceGetUuid`; NVML, `nvmlDeviceGetUUID`).
pub fn uuid_text(bytes: &[std::ffi::c_char; 16]) -> String {
    let hex: String = bytes.iter().map(|b| format!("{:02x}", *b as u8)).collect();
    format!("GPU-{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cuda_uuid_reads_as_nvml_prints_it() {
        // The UUID of an H200 in BENCHMARK.md's runs, as its 16 bytes.
        let text = "1c2e7f5412d281fbf3bbe68e916447fc";
        let bytes: [std::ffi::c_char; 16] =
            std::array::from_fn(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).unwrap() as std::ffi::c_char);
        assert_eq!(uuid_text(&bytes), "GPU-1c2e7f54-12d2-81fb-f3bb-e68e916447fc");
    }

    #[test]
    fn only_slowdowns_mark_a_sample_throttled() {
        let sample = |reasons| ClockSample { sm_mhz: 1980, reasons };
        assert!(!sample(ThrottleReasons::GPU_IDLE | ThrottleReasons::APPLICATIONS_CLOCKS_SETTING).throttled());
        assert!(sample(ThrottleReasons::GPU_IDLE | ThrottleReasons::SW_POWER_CAP).throttled());
        assert!(sample(ThrottleReasons::HW_THERMAL_SLOWDOWN).throttled());
        assert_eq!(
            reason_names(ThrottleReasons::GPU_IDLE | ThrottleReasons::SW_POWER_CAP),
            ["GPU_IDLE", "SW_POWER_CAP"]
        );
        assert!(reason_names(ThrottleReasons::NONE).is_empty());
    }
}
