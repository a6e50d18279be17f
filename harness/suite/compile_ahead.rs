//! NVRTC's work made ahead, in parallel, on worker threads while the GPU trials run (libtest runs
//! trials one at a time, one GPU): first the modules the selected GPU trials will load, in trial
//! order ([`crate::compile::module_ptx`], which the trial then finds made or in the making); then
//! the compile trials' work, each selected kernel file for each architecture and nvdisasm's listing
//! of its cubin, which the compile trials, coming last, take in turn.
//!
//! Why the modules: compiling them inside the trials took 6.2 s of a 63.3 s H200 run (BENCHMARK.md,
//! the 86-case suite), three CCCL template instances about 1.8 s each.
//!
//! Why: the 26 compile trials run one after another, and the time a run's summary calls "other"
//! (outside the GPU trials' phases, where the compile trials fall) grew from 3.8 s to 15.4-19.8 s
//! of a 60-67 s H200 run when the SASS gate came in (2026-12-01); one `nvdisasm --print-code` of
//! one cubin takes about 0.5 s of CPU (nvdisasm 13.5.37, `kernels/coalescing.cu`). The files are
//! independent: made on every core, they take the time of the slowest few.

use crate::compile::{self, Compiled};
use crate::error::Result;
use crate::resources::FileBuild;
use crate::sass::nvdisasm;
use crate::source::{KernelSource, Sources};
use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex, OnceLock};

/// What a compile trial needs: NVRTC's result and, when it compiled, nvdisasm's listing of the
/// cubin (or why there is none).
pub(super) type Made = (Result<Compiled>, Option<Result<String>>);

/// One compile trial's job: the file, the architecture, and one build of the file (its
/// definitions and the template instances the cases launch with them, [`FileBuild`]); a trial
/// has one job per build.
pub(super) type Job = (KernelSource, &'static str, FileBuild);

/// One GPU module's job: the file as the run read it (its name, path, text and NVRTC options), the
/// template instances of the module (empty for an `extern "C"` file's module) and its definitions
/// ([`crate::Kernel::defines`]), as [`crate::program::function_of`] compiles it.
pub(super) type ModuleJob = (KernelSource, Vec<&'static str>, &'static [&'static str]);

/// What tells the jobs of one compile trial apart: the file, the architecture and the build's
/// definitions.
type JobKey = (&'static str, &'static str, &'static [&'static str]);

/// The selected trials' NVRTC work, made once on worker threads ([`Ahead::start`]); one per run,
/// held by its [`super::Suite`].
#[derive(Default)]
pub(super) struct Ahead {
    /// The run's project root, whose header folders every compile searches
    /// ([`crate::compile::include_options`]).
    root: Option<std::path::PathBuf>,
    /// The modules the selected GPU trials load, in trial order.
    modules: OnceLock<Vec<ModuleJob>>,
    /// The compile trials this run selected.
    selected: OnceLock<Vec<Job>>,
    /// Set when the workers started: once per run.
    started: OnceLock<()>,
    made: Mutex<BTreeMap<JobKey, Made>>,
    ready: Condvar,
}

/// Compiles `build` of `source` for `arch` (its definitions and template instances), with the
/// header folders of the project at `root`, and disassembles the cubin: one compile trial's work
/// for one build.
pub(super) fn make(source: &KernelSource, arch: &str, build: &FileBuild, root: Option<&std::path::Path>) -> Made {
    let options = build.options(source.options);
    let (file, shown, text) = (source.file, source.path, source.source);
    let compiled = compile::compile_with_log(file, shown, text, arch, &build.instances, &options, root);
    let listing =
        compiled.as_ref().ok().map(|c| nvdisasm::load().and_then(|tool| nvdisasm::disassemble(tool, &c.cubin)));
    (compiled, listing)
}

impl Ahead {
    /// The work of a run of the project at `root` ([`crate::source::Sources::root`]), none named yet.
    pub(super) fn new(root: Option<&std::path::Path>) -> Ahead {
        Ahead { root: root.map(std::path::Path::to_path_buf), ..Ahead::default() }
    }

    /// Names the jobs the run selected (after libtest's filters): the GPU trials' modules, in
    /// trial order, and the compile trials' jobs. Jobs named later, or all of them when this is
    /// never called, are made by their trial alone.
    pub(super) fn select(&self, modules: Vec<ModuleJob>, jobs: Vec<Job>) {
        let _ = self.modules.set(modules);
        let _ = self.selected.set(jobs);
    }

    /// Starts the workers on the selected jobs, once: called when the first GPU trial has its
    /// GPU, whose architecture `arch` the modules are compiled for (after the device was opened and
    /// its ceilings measured, so that the workers do not load the CPU during that probe), or by
    /// the first compile trial of a run without one (`None`: no modules). The compile trials run
    /// after the GPU trials ([`super::trials`]), so their work is done by then.
    pub(super) fn start(self: &Arc<Self>, arch: Option<&str>) {
        let modules = if arch.is_some() { self.modules.get().map_or(0, Vec::len) } else { 0 };
        let selected = self.selected.get().map_or(0, Vec::len);
        if selected == 0 && modules == 0 {
            return;
        }
        let (ahead, arch) = (Arc::clone(self), arch.map(str::to_string));
        self.started.get_or_init(|| {
            std::thread::spawn(move || {
                if let Some(arch) = &arch {
                    // The modules with the inputs made ahead (nice 10), below the trials' timing
                    // thread: a trial waits for its module.
                    crate::inputs::prefetch::lower_priority(10);
                    let modules = ahead.modules.get().map_or(&[][..], Vec::as_slice);
                    in_parallel(modules, |(source, instances, defines)| {
                        // A failure is not kept: the trial compiles again and reports NVRTC's error.
                        let options = crate::source::build_options(source.options, defines);
                        let (file, shown, text) = (source.file, source.path, source.source);
                        let root = ahead.root.as_deref();
                        let _ = crate::compile::module_ptx(file, shown, text, arch, instances, &options, root);
                    });
                }
                // The compile trials run last and can wait.
                crate::inputs::prefetch::lower_priority(19);
                ahead.work(ahead.selected.get().map_or(&[][..], Vec::as_slice))
            });
        });
    }

    /// This trial's work for `build`: made ahead when selected (starting the workers if no GPU
    /// trial has, and waiting for its job), else here and now.
    pub(super) fn take(self: &Arc<Self>, source: &KernelSource, arch: &'static str, build: &FileBuild) -> Made {
        let selected = self.selected.get().map_or(&[][..], Vec::as_slice);
        if !selected.iter().any(|(s, a, b)| s.file == source.file && *a == arch && b == build) {
            return make(source, arch, build, self.root.as_deref());
        }
        self.start(None);
        let key = (source.file, arch, build.defines);
        let mut made = self.made.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(done) = made.remove(&key) {
                return done;
            }
            made = self.ready.wait(made).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Makes every selected compile trial's job, in the trials' order ([`in_parallel`]), each
    /// result handed over as soon as it is made.
    fn work(&self, jobs: &[Job]) {
        in_parallel(jobs, |(source, arch, build)| {
            let done = make(source, arch, build, self.root.as_deref());
            self.made.lock().unwrap_or_else(|p| p.into_inner()).insert((source.file, arch, build.defines), done);
            self.ready.notify_all();
        });
    }
}

/// Runs `each` on every item of `items` on `available_parallelism() - 1` threads (at least one),
/// taking them in order; the threads take the calling thread's priority.
fn in_parallel<T: Sync>(items: &[T], each: impl Fn(&T) + Sync) {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().saturating_sub(1).max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..workers.min(items.len()) {
            scope.spawn(|| {
                while let Some(item) = items.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                    each(item);
                }
            });
        }
    });
}

/// The modules `cases` load, in their order, each once, as [`crate::program::function_of`]
/// compiles them from the run's files `sources`: a file's `extern "C"` kernels as one module per
/// set of definitions, each template instance as its own.
pub(super) fn modules<'c>(sources: &Sources, cases: impl Iterator<Item = &'c crate::case::Case>) -> Vec<ModuleJob> {
    let mut jobs: Vec<ModuleJob> = Vec::new();
    for case in cases {
        for kernel in case.kernels() {
            // A file gone since the build: its trial says so.
            let Some(source) = sources.of(&kernel) else { continue };
            let instances = if kernel.is_instance() { vec![kernel.entry] } else { Vec::new() };
            let known = jobs.iter().any(|(s, i, d)| s.file == source.file && *i == instances && *d == kernel.defines);
            if !known {
                jobs.push((*source, instances, kernel.defines));
            }
        }
    }
    jobs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_modules_of_the_trials_are_listed_once_in_trial_order() {
        use crate::{case::Case, source::k};
        let block_sum = |args: &str| Case::new("blocksum", args, "1", k::blocksum::block_sum.with(args));
        let cases = [
            block_sum("128, 4"),
            block_sum("256, 8"),
            block_sum("512, 16"),
            Case::new("transpose", "naive", "1", k::transpose::transpose_naive),
            Case::new("transpose", "shared", "1", k::transpose::transpose_shared),
        ];
        let of = |family: &'static str| cases.iter().filter(move |c| c.family == family);
        let sources = crate::source::for_tests();
        let jobs = modules(sources, of("blocksum").chain(of("transpose")).chain(of("blocksum")));
        let names: Vec<(&str, Vec<&str>)> = jobs.iter().map(|(s, i, _)| (s.file, i.clone())).collect();
        assert_eq!(
            names,
            [
                ("blocksum.cu", vec!["block_sum<128, 4>"]),
                ("blocksum.cu", vec!["block_sum<256, 8>"]),
                ("blocksum.cu", vec!["block_sum<512, 16>"]),
                ("transpose.cu", vec![]),
            ]
        );
        assert!(jobs.iter().all(|(s, _, _)| sources.get(s.file).unwrap().source == s.source));
    }
}
