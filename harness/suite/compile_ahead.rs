//! The compile trials' work made ahead, in parallel: NVRTC's compile of each selected kernel file
//! for each architecture and nvdisasm's listing of its cubin, on worker threads while the GPU
//! trials run (libtest runs trials one at a time, one GPU); the compile trials, which come last,
//! take their results in turn.
//!
//! Why: the 26 compile trials run one after another, and the time a run's summary calls "other"
//! (outside the GPU trials' phases, where the compile trials fall) grew from 3.8 s to 15.4-19.8 s
//! of a 60-67 s H200 run when the SASS gate came in (2026-12-01); one `nvdisasm --print-code` of
//! one cubin takes about 0.5 s of CPU (nvdisasm 13.5.37, `kernels/coalescing.cu`). The files are
//! independent: made on every core, they take the time of the slowest few.

use crate::compile::{self, Compiled};
use crate::sass::nvdisasm;
use crate::{error::Result, source::KernelSource};
use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex, Once, OnceLock};

/// What a compile trial needs: NVRTC's result and, when it compiled, nvdisasm's listing of the
/// cubin (or why there is none).
pub(super) type Made = (Result<Compiled>, Option<Result<String>>);

/// One compile trial's job: the file, the architecture, and the template instances (name
/// expressions) the cases launch from the file.
pub(super) type Job = (&'static KernelSource, &'static str, Vec<&'static str>);

/// The process's compile trials' work ([`Ahead`]): one suite runs per test process.
pub(super) static AHEAD: Ahead =
    Ahead { selected: OnceLock::new(), started: Once::new(), made: Mutex::new(BTreeMap::new()), ready: Condvar::new() };

/// The selected compile trials' work, made once on worker threads ([`Ahead::start`]).
pub(super) struct Ahead {
    /// The compile trials this run selected.
    selected: OnceLock<Vec<Job>>,
    started: Once,
    made: Mutex<BTreeMap<(&'static str, &'static str), Made>>,
    ready: Condvar,
}

/// Compiles `source` for `arch` with the template instances `instances` and disassembles the
/// cubin: one compile trial's work.
pub(super) fn make(source: &KernelSource, arch: &str, instances: &[&str]) -> Made {
    let compiled = compile::compile_with_log(source.file, source.source, arch, instances);
    let listing =
        compiled.as_ref().ok().map(|c| nvdisasm::load().and_then(|tool| nvdisasm::disassemble(tool, &c.cubin)));
    (compiled, listing)
}

impl Ahead {
    /// Names the jobs the run selected (after libtest's filters); jobs named later, or all of
    /// them when this is never called, are made by their trial alone.
    pub(super) fn select(&self, jobs: Vec<Job>) {
        let _ = self.selected.set(jobs);
    }

    /// Starts the workers on the selected jobs, once: called when the first GPU trial has its
    /// GPU (after the device was opened and its ceilings measured, so that the workers do not load
    /// the CPU during that probe), or by the first compile trial of a run without one. The compile
    /// trials run after the GPU trials ([`super::trials`]), so the work is done by then.
    pub(super) fn start(&'static self) {
        let selected = self.selected.get().map_or(&[][..], Vec::as_slice);
        if !selected.is_empty() {
            self.started.call_once(|| {
                std::thread::spawn(move || {
                    // Below the trials' timing thread and the inputs made ahead (nice 10): the
                    // compile trials run last and can wait.
                    crate::inputs::prefetch::lower_priority(19);
                    self.work(selected)
                });
            });
        }
    }

    /// This trial's work: made ahead when selected (starting the workers if no GPU trial has, and
    /// waiting for its job), else here and now.
    pub(super) fn take(&'static self, source: &'static KernelSource, arch: &'static str, instances: &[&str]) -> Made {
        let selected = self.selected.get().map_or(&[][..], Vec::as_slice);
        if !selected.iter().any(|(s, a, i)| s.file == source.file && *a == arch && i == instances) {
            return make(source, arch, instances);
        }
        self.start();
        let key = (source.file, arch);
        let mut made = self.made.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(done) = made.remove(&key) {
                return done;
            }
            made = self.ready.wait(made).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Makes every selected job on `available_parallelism() - 1` threads (at least one), in the
    /// trials' order, each result handed over as soon as it is made.
    fn work(&self, jobs: &'static [Job]) {
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get().saturating_sub(1).max(1));
        let next = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..workers.min(jobs.len()) {
                scope.spawn(|| {
                    while let Some((source, arch, instances)) =
                        jobs.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                    {
                        let done = make(source, arch, instances);
                        self.made.lock().unwrap_or_else(|p| p.into_inner()).insert((source.file, arch), done);
                        self.ready.notify_all();
                    }
                });
            }
        });
    }
}
