//! The GPUs of a run, one trial per GPU at a time: within this process (a pool the trials borrow
//! from) and across processes (an OS file lock per physical GPU, so that nextest's one process per
//! trial, or two `cargo test` runs at once, never time two kernels on one GPU).
//!
//! A GPU is opened (context, facts, the ceilings stage's probes) the first time a trial borrows it,
//! after its lock is taken: the probes' GiBs of traffic must not run beside another process's timing.
#![allow(unsafe_code)]

use crate::config::Devices;
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::phases::Clock;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

/// The folder of the per-GPU lock files: `<temp dir>/kernelgate` (`/tmp/kernelgate` on Linux).
/// One file per physical GPU, named after its PCI bus id, shared by every kernelgate process of
/// the machine.
pub fn lock_dir() -> PathBuf {
    std::env::temp_dir().join("kernelgate")
}

/// The PCI bus id of CUDA device `ordinal` (`0000:18:00`), read without creating a context.
///
/// # Errors
/// [`Error::Driver`] when the driver cannot be initialized or the ordinal does not exist.
fn pci_id(ordinal: usize) -> Result<String> {
    use cudarc::driver::result;
    use cudarc::driver::sys::CUdevice_attribute as Attr;
    let doing = format!("reading the PCI bus id of device {ordinal}");
    result::init().map_err(Error::driver(doing.clone()))?;
    let dev = result::device::get(ordinal as i32).map_err(Error::driver(doing.clone()))?;
    let attr = |a: Attr| {
        // SAFETY: `dev` is a valid device handle from `cuDeviceGet` after `cuInit`; the call
        // writes one int.
        unsafe { result::device::get_attribute(dev, a) }.map_err(Error::driver(doing.clone()))
    };
    Ok(format!(
        "{:04x}:{:02x}:{:02x}",
        attr(Attr::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)?,
        attr(Attr::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)?,
        attr(Attr::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)?
    ))
}

/// One GPU of the pool.
struct Slot {
    ordinal: usize,
    gpu: OnceLock<std::result::Result<Arc<Gpu>, String>>,
}

/// The GPUs a run may use, each lent to one trial at a time.
pub struct Pool {
    slots: Vec<Slot>,
    /// Per slot: lent to a trial now; and why it was retired (its CUDA context lost), if it was.
    busy: Mutex<Vec<bool>>,
    retired: Mutex<Vec<Option<String>>>,
    freed: Condvar,
    /// The version of the NVRTC that compiles for the GPUs, asked before each is opened.
    nvrtc_version: NvrtcVersion,
    /// The run's clock, which every GPU of the pool carries ([`Gpu::clock`]).
    clock: Arc<Clock>,
    /// Called once per GPU right after it is opened (the suite prints its facts).
    on_open: Box<dyn Fn(&Gpu) + Send + Sync>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool").field("ordinals", &self.ordinals()).finish()
    }
}

/// A GPU lent to one trial; given back (and its cross-process lock released) when dropped.
pub struct Lease<'a> {
    pool: &'a Pool,
    index: usize,
    gpu: Arc<Gpu>,
    _lock: std::fs::File,
}

impl Lease<'_> {
    /// The GPU.
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }
}

/// The slots a lease may take now, in order: neither lent nor retired (pure; tested).
fn candidates<'a>(busy: &'a [bool], retired: &'a [Option<String>]) -> impl Iterator<Item = usize> + 'a {
    (0..busy.len()).filter(|&i| !busy[i] && retired[i].is_none())
}

/// When every slot is retired: why, one clause per GPU (pure; tested).
fn all_lost(retired: &[Option<String>]) -> Option<String> {
    let why: Option<Vec<&str>> = retired.iter().map(Option::as_deref).collect();
    why.filter(|w| !w.is_empty()).map(|w| w.join("; "))
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        let mut busy = self.pool.busy.lock().unwrap_or_else(|p| p.into_inner());
        busy[self.index] = false;
        self.pool.freed.notify_all();
    }
}

/// Why [`Pool::acquire`] lends no GPU.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NoGpu {
    /// The GPU could not be opened (the driver's or NVML's words), or its cross-process lock
    /// could not be taken: the same answer on every later lease of it.
    #[error("{0}")]
    Unopened(String),
    /// Every GPU of the pool was retired after a sticky CUDA error ([`Pool::retire`]): the process
    /// must end for a GPU to be usable again.
    #[error("{0}")]
    Lost(String),
}

impl Pool {
    /// The pool of `devices` for one run, each GPU opened on its first lease, with the NVRTC
    /// version that `nvrtc_version` gives ([`crate::compile::nvrtc_version`]), carrying the run's
    /// `clock` ([`Gpu::clock`]).
    ///
    /// # Errors
    /// [`Error::Unavailable`] without a usable driver; [`Error::Config`] naming
    /// `KERNELGATE_DEVICES` when an ordinal is not a device of this machine.
    pub fn new(
        devices: &Devices,
        nvrtc_version: NvrtcVersion,
        clock: Arc<Clock>,
        on_open: impl Fn(&Gpu) + Send + Sync + 'static,
    ) -> Result<Pool> {
        let count = crate::gpu::device_count()?;
        let ordinals = match devices {
            Devices::All => (0..count).collect(),
            Devices::List(list) => {
                if let Some(bad) = list.iter().find(|&&o| o >= count) {
                    return Err(Error::Config {
                        name: "KERNELGATE_DEVICES",
                        value: format!("{list:?}"),
                        expected: format!("device {bad} does not exist: the CUDA driver reports {count} (0..{count})"),
                    });
                }
                list.clone()
            }
        };
        Ok(Pool {
            busy: Mutex::new(vec![false; ordinals.len()]),
            retired: Mutex::new(vec![None; ordinals.len()]),
            slots: ordinals.into_iter().map(|ordinal| Slot { ordinal, gpu: OnceLock::new() }).collect(),
            freed: Condvar::new(),
            nvrtc_version,
            clock,
            on_open: Box::new(on_open),
        })
    }

    /// The CUDA ordinals of the pool, in order.
    pub fn ordinals(&self) -> Vec<usize> {
        self.slots.iter().map(|s| s.ordinal).collect()
    }

    /// How many GPUs the pool holds: the number of trials that may run at once.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the pool holds no GPU (never: [`Pool::new`] refuses that).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The first GPU, opened if need be, without a lease: for facts and the baseline, before the
    /// trials run (its lock is taken and released around the opening).
    ///
    /// # Errors
    /// [`Pool::acquire`]'s.
    pub fn first(&self) -> std::result::Result<Arc<Gpu>, NoGpu> {
        let lease = self.acquire()?;
        Ok(Arc::clone(lease.gpu()))
    }

    /// Takes the GPU of CUDA ordinal `ordinal` out of the pool for the rest of the process: a
    /// sticky CUDA error left its context unusable ([`crate::Error::is_sticky`]). `why` says so; it
    /// is kept for [`Pool::lost`]. The first reason for a GPU stays.
    pub fn retire(&self, ordinal: usize, why: String) {
        let mut retired = self.retired.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(index) = self.slots.iter().position(|s| s.ordinal == ordinal) {
            retired[index].get_or_insert(why);
        }
        self.freed.notify_all();
    }

    /// Why no GPU is left, when every GPU of the pool was retired ([`Pool::retire`]).
    pub fn lost(&self) -> Option<String> {
        all_lost(&self.retired.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Borrows a free GPU: one not lent in this process, not retired, and whose lock no other
    /// process holds, waiting (and saying so once) until one is free.
    ///
    /// # Errors
    /// [`NoGpu::Unopened`] when the GPU cannot be opened (the first lease of each GPU opens it) or
    /// its lock cannot be taken; [`NoGpu::Lost`] with [`Pool::lost`]'s reason when every GPU is
    /// retired.
    pub fn acquire(&self) -> std::result::Result<Lease<'_>, NoGpu> {
        let mut said = false;
        loop {
            if let Some(lost) = self.lost() {
                return Err(NoGpu::Lost(lost));
            }
            let mut busy = self.busy.lock().unwrap_or_else(|p| p.into_inner());
            let free: Vec<usize> = candidates(&busy, &self.retired.lock().unwrap_or_else(|p| p.into_inner())).collect();
            for index in free {
                let Some(lock) = self.try_lock(index).map_err(NoGpu::Unopened)? else { continue };
                busy[index] = true;
                drop(busy);
                let slot = &self.slots[index];
                let opened = slot
                    .gpu
                    .get_or_init(|| {
                        let gpu = open(slot.ordinal, true, self.nvrtc_version, Arc::clone(&self.clock))
                            .map(Arc::new)
                            .map_err(|e| e.to_string());
                        if let Ok(gpu) = &gpu {
                            (self.on_open)(gpu);
                        }
                        gpu
                    })
                    .clone();
                return match opened {
                    Ok(gpu) => Ok(Lease { pool: self, index, gpu, _lock: lock }),
                    Err(e) => {
                        let mut busy = self.busy.lock().unwrap_or_else(|p| p.into_inner());
                        busy[index] = false;
                        self.freed.notify_all();
                        Err(NoGpu::Unopened(e))
                    }
                };
            }
            if !said {
                said = true;
                crate::errln!(
                    "kernelgate: waiting for a free GPU among devices {:?} (another trial or process is timing on them)",
                    self.ordinals()
                );
            }
            // Woken by a lease of this process ending; other processes' locks are polled.
            let _ = self.freed.wait_timeout(busy, Duration::from_millis(50));
        }
    }

    /// The cross-process lock of GPU `index`, if free now.
    fn try_lock(&self, index: usize) -> std::result::Result<Option<std::fs::File>, String> {
        let ordinal = self.slots[index].ordinal;
        let id = pci_id(ordinal).map_err(|e| e.to_string())?;
        let dir = lock_dir();
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = dir.join(format!("gpu-{}.lock", id.replace(':', "-")));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .or_else(|_| std::fs::File::open(&path))
            .map_err(|e| format!("{}: {e} (the per-GPU lock of device {ordinal})", path.display()))?;
        match file.try_lock() {
            Ok(()) => Ok(Some(file)),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) => Err(format!("{}: {e}", path.display())),
        }
    }
}

/// How a GPU's opening learns the version of the NVRTC that compiles for it, `(major, minor)`, or
/// why there is none (the opening then fails with it): [`crate::compile::nvrtc_version`], handed
/// in so that the devices need no compiler.
pub type NvrtcVersion = fn() -> Result<(i32, i32)>;

/// Opens CUDA device `ordinal` ([`Gpu::open`]) with the version `nvrtc_version` gives: a GPU
/// is no use to a run without NVRTC, so its opening fails without one, after the driver's own
/// check. With `measure_ceilings` (the timing process) it measures the GPU's ceilings
/// ([`crate::ceilings::probe`]), records the copy ceiling as `copy_bandwidth_gbps`, and makes its
/// host copies go through pinned staging memory ([`Gpu::stage_host_copies`]). Its work counts on
/// `clock`.
///
/// # Errors
/// [`Error::Unavailable`] without a driver or device; what `nvrtc_version` fails with;
/// [`Error::Driver`] if a driver call fails; [`Error::Compile`] if the ceilings' kernels do not
/// compile.
fn open(ordinal: usize, measure_ceilings: bool, nvrtc_version: NvrtcVersion, clock: Arc<Clock>) -> Result<Gpu> {
    crate::gpu::gpu_available()?;
    let nvrtc_version = nvrtc_version()?;
    let mut gpu = Gpu::open(ordinal, nvrtc_version, clock)?;
    if measure_ceilings {
        gpu.stage_host_copies();
        gpu.ceilings = crate::ceilings::probe::measure(&gpu)?;
        gpu.facts.copy_bandwidth_gbps = gpu.ceilings.value(crate::model::Ceiling::Copy).unwrap_or(f64::NAN);
    }
    Ok(gpu)
}

/// Opens the first device of `KERNELGATE_DEVICES` without the ceilings' probes, for a child
/// process that re-runs checked launches under a tool (ncu's profiled child, the sanitized or
/// isolated child), with the NVRTC version `nvrtc_version` gives and a clock of its own (a child
/// reports no phase times; its parent times it whole, as [`crate::phases::Phase::Profile`] or
/// [`crate::phases::Phase::Child`]); prints the error as `kernelgate (<who>): ...` and returns
/// `None` when it fails.
pub fn open_child_gpu(
    config: &crate::config::Config,
    who: &str,
    nvrtc_version: NvrtcVersion,
) -> Option<crate::gpu::Gpu> {
    let ordinal = match &config.devices {
        crate::config::Devices::List(list) => list[0],
        crate::config::Devices::All => 0,
    };
    open(ordinal, false, nvrtc_version, Arc::default()).map_err(|e| crate::errln!("kernelgate ({who}): {e}")).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retired_gpu_is_never_lent_again_and_the_pool_is_lost_when_all_are() {
        let none = || vec![None::<String>; 3];
        assert_eq!(candidates(&[false, true, false], &none()).collect::<Vec<_>>(), [0, 2]);
        let mut retired = none();
        retired[0] = Some("GPU 0's CUDA context was lost in a/b/c".into());
        assert_eq!(candidates(&[false, false, false], &retired).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(all_lost(&retired), None, "two GPUs are left");
        retired[1] = Some("GPU 1: x".into());
        retired[2] = Some("GPU 2: y".into());
        assert_eq!(candidates(&[false, false, false], &retired).count(), 0);
        assert_eq!(all_lost(&retired).as_deref(), Some("GPU 0's CUDA context was lost in a/b/c; GPU 1: x; GPU 2: y"));
        assert_eq!(all_lost(&[]), None);
    }
}
