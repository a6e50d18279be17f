//! Running a case's program on the GPU: its kernels compiled and looked up, its buffers
//! bound (device buffers, pageable or pinned host buffers, forked streams), and one run of the
//! program enqueued on the timing stream: zero the [`Param::Zeroed`] outputs, fork every other
//! stream from the timing stream, enqueue the steps, join every stream back. With
//! [`Case::graph`] the same enqueue is captured once per compiled version and binding as a CUDA
//! graph (on a forked stream: the legacy default stream cannot be captured) and each run is one
//! graph launch on the timing stream.
//!
//! One of the few modules allowed `unsafe` (see [`crate::gpu`]): launches
//! and copies pass raw addresses to the driver. Every `unsafe` block states the invariant it
//! relies on.
#![allow(unsafe_code)]

use crate::case::{
    Arg, Case, DEFAULT_DYNAMIC_SHARED_LIMIT, Elem, HostArgs, HostCall, HostData, HostView, Launch, Param, Step,
};
use crate::gpu::{DeviceData, Gpu};
use crate::model::LaunchResources;
use crate::phases::Phase;
use crate::{
    error::{Error, Result},
    source::{Kernel, Sources},
};
use cudarc::driver::sys::{CUdeviceptr, CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::{CudaEvent, CudaFunction, CudaGraph, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use std::sync::Arc;

mod arguments;
use arguments::{ModuleParams, check_arguments, module_params};

/// Compiles (once per run, file and definitions, [`Kernel::options`]) and loads `kernel`'s module
/// for `gpu`'s arch, from its file as the run read it (`sources`); returns the function and the
/// SHA-256 (hex) of the module's PTX, the identity of the code that ran.
///
/// # Errors
/// [`Error::Kernels`] when the kernel is gone from its file since the build
/// ([`Sources::declares`]); [`Error::Compile`] with NVRTC's log; [`Error::Driver`] if loading
/// fails.
pub fn function(gpu: &Gpu, sources: &Sources, kernel: Kernel) -> Result<(CudaFunction, String)> {
    sources.declares(&kernel)?;
    let source = sources.of(&kernel).expect("a file that declares the kernel was read");
    let options = kernel.options(source.options);
    function_of(gpu, kernel.file, source.path, source.source, &options, kernel.entry, sources.root())
}

/// As [`function`], for the text `source` of kernel file `file` (as at another git revision), its
/// NVRTC `options` (the project's for the file at that revision, [`crate::source::KernelSource::options`])
/// and its kernel `entry`: compiled once per run, text and options. A template
/// instance's name expression ([`crate::source::is_name_expression`]) is compiled as such and
/// looked up by the name NVRTC lowered it to ([`crate::compile::compile_instances`]), in a module
/// of its own. Messages name the file `shown` (`kernels/transpose.cu`,
/// [`crate::source::Sources::path_of`]); NVRTC searches the header folders of the project at `root`
/// ([`crate::source::Sources::root`], `None` for the library's own files;
/// [`crate::compile::include_options`]).
///
/// # Errors
/// As [`function`]; [`Error::Driver`] naming the entry when the module lacks it.
pub fn function_of(
    gpu: &Gpu,
    file: &str,
    shown: &str,
    source: &str,
    options: &[&str],
    entry: &str,
    root: Option<&std::path::Path>,
) -> Result<(CudaFunction, String)> {
    let instances: &[&str] = if crate::source::is_name_expression(entry) { std::slice::from_ref(&entry) } else { &[] };
    let loaded = gpu.module(shown, source, instances, options, || {
        let made = crate::compile::module_ptx(file, shown, source, &gpu.arch, instances, options, root)?;
        Ok((made.ptx, made.sha256, made.lowered))
    })?;
    let name = loaded.lowered.first().map_or(entry, String::as_str);
    let func = loaded.module.load_function(name).map_err(Error::driver(format!("looking up {entry} in {shown}")))?;
    Ok((func, loaded.sha256))
}

/// The functions of a program: one per [`Step::Launch`], in step order.
pub struct Compiled {
    /// Tells this compiled program from every other of the process: a binding keeps one graph per
    /// compiled program ([`Bound`]), so that two versions replay over the same buffers.
    id: u64,
    funcs: Vec<CudaFunction>,
    /// SHA-256 of the PTX of each distinct module the program loads, joined by `+` in order of
    /// first use: the identity of the code that ran (the run CSV's `module_sha256`).
    pub module_sha256: String,
}

impl Compiled {
    /// The functions in launch order.
    pub fn functions(&self) -> &[CudaFunction] {
        &self.funcs
    }
}

/// Compiles (once per run and source text) and looks up every kernel `case` launches, from the
/// kernel files as the run read them (`sources`, [`Sources::read`]).
///
/// # Errors
/// [`Error::Kernels`] when a kernel is gone from its file since the build ([`Sources::declares`]);
/// [`Error::Compile`] with NVRTC's log; [`Error::Driver`] if loading or the lookup fails.
pub fn compile(gpu: &Gpu, sources: &Sources, case: &Case) -> Result<Compiled> {
    for (kernel, _) in case.launches() {
        sources.declares(&kernel)?;
    }
    compile_from(gpu, sources, case, |k| sources.of(k).map(|s| (s.source, s.options)))
        .map(|c| c.expect("every kernel file is declared"))
}

/// As [`compile`], with each kernel file's text and NVRTC options from `source_of` (another git
/// revision's, for A/B: [`crate::history::revision::Revision::kernel`]); each kernel's definitions
/// ([`Kernel::defines`]) follow its file's options. Messages name each file as the run read it
/// (`sources`, [`Sources::path_of`]). `Ok(None)` when `source_of` has no text for a file the
/// program needs.
///
/// # Errors
/// As [`compile`].
pub fn compile_from<'a>(
    gpu: &Gpu,
    sources: &Sources,
    case: &Case,
    source_of: impl Fn(&Kernel) -> Option<(&'a str, &'a [&'a str])>,
) -> Result<Option<Compiled>> {
    let mut funcs = Vec::new();
    let mut modules: Vec<String> = Vec::new();
    // Each module's parameter lists, read once per call ([`check_arguments`]).
    let mut params: std::collections::HashMap<String, ModuleParams> = std::collections::HashMap::new();
    for step in &case.steps {
        let Step::Launch { kernel, args, .. } = step else { continue };
        let Some((source, options)) = source_of(kernel) else { return Ok(None) };
        let shown = sources.path_of(kernel.file);
        let options = kernel.options(options);
        let (func, sha) = function_of(gpu, kernel.file, shown, source, &options, kernel.entry, sources.root())?;
        if !params.contains_key(&sha) {
            params.insert(sha.clone(), module_params(&gpu.arch, kernel, shown, source, &options, sources.root())?);
        }
        check_arguments(case, kernel, args, shown, &params[&sha])?;
        set_attributes(case, kernel, &func)?;
        if !modules.contains(&sha) {
            modules.push(sha);
        }
        funcs.push(func);
    }
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(Some(Compiled { id, funcs, module_sha256: modules.join("+") }))
}

/// Sets the function attributes `case` asks of `kernel`'s function `func` (one function per module:
/// what one case sets, the next case using the kernel sees, so each is set or reset every time):
/// the largest dynamic shared memory of the case's launches of it, when above
/// [`DEFAULT_DYNAMIC_SHARED_LIMIT`] (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`: a launch
/// above the limit without it fails with `CUDA_ERROR_INVALID_VALUE`); and the case's shared-memory
/// carveout ([`Case::carveout`], `CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT`), or the
/// driver's default -1 where the function holds another. Attributes a case does not touch are not
/// written, so a case that sets none runs as it always did.
///
/// # Errors
/// [`Error::Driver`] when the driver refuses a value (more shared memory than the device has per
/// block, for example), naming the case, the kernel and the value.
fn set_attributes(case: &Case, kernel: &Kernel, func: &CudaFunction) -> Result<()> {
    use cudarc::driver::sys::CUfunction_attribute as A;
    let refused = |what: String| Error::driver(format!("{}: setting {what} of {}", case.name(), kernel.name()));
    let shared = case.launches().filter(|(k, _)| k == kernel).map(|(_, l)| l.shared_bytes).max().unwrap_or(0);
    if shared > DEFAULT_DYNAMIC_SHARED_LIMIT {
        let bytes = i32::try_from(shared).unwrap_or(i32::MAX);
        func.set_attribute(A::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes)
            .map_err(refused(format!("the dynamic shared memory limit to {shared} B")))?;
    }
    let carveout = case.carveout.unwrap_or(-1);
    if func.get_attribute(A::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT).ok() != Some(carveout) {
        func.set_attribute(A::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, carveout)
            .map_err(refused(format!("the shared memory carveout to {carveout} %")))?;
    }
    Ok(())
}

/// [`LaunchResources`] of `case`'s first launch (`compiled`'s first function); `None` when the
/// program launches no kernel of its own, or the driver refuses a query.
pub fn resources(gpu: &Gpu, case: &Case, compiled: &Compiled) -> Option<LaunchResources> {
    use cudarc::driver::sys::CUfunction_attribute as A;
    let ((_, launch), func) = case.launches().next().zip(compiled.funcs.first())?;
    let attr = |a: A| func.get_attribute(a).ok().and_then(|v| u32::try_from(v).ok());
    let block: u32 = launch.block.iter().product();
    let blocks_per_sm =
        func.occupancy_max_active_blocks_per_multiprocessor(block, launch.shared_bytes as usize, None).ok()?;
    let max_warps = gpu.max_threads_per_sm / 32;
    Some(LaunchResources {
        registers: attr(A::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
        local_bytes: attr(A::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
        shared_static_bytes: attr(A::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
        blocks_per_sm,
        occupancy_pct: 100.0 * f64::from(blocks_per_sm * block.div_ceil(32)) / f64::from(max_warps),
    })
}

/// One parameter's storage for the runs of a program.
enum Slot {
    Device(DeviceData),
    Pageable(HostData),
    Pinned(PinnedHostSlice<u8>, Elem),
    Scalar,
}

/// A program's buffers and streams on one GPU, made by [`bind`]: reused by the check and every
/// timed run, and in same-run A/B by both versions (one set of buffers: two allocations of one
/// size land on different physical pages, which moved the paired times of strided kernels by up to
/// 6 %, ../shared/gpu/README.md, 2026-12-01).
pub struct Bound {
    slots: Vec<Slot>,
    /// Streams 1.. of the program (stream 0 is the timing stream, or the capture stream).
    side: Vec<Arc<CudaStream>>,
    /// With side streams: the event they wait on at the program's start, and one per side stream
    /// that stream 0 waits on at its end; made once here, not per run (timing disabled).
    events: Option<(CudaEvent, Vec<CudaEvent>)>,
    /// The captured program of a graph case, one per compiled version, made on that version's
    /// first run over these buffers.
    graphs: Captures<(Arc<CudaStream>, CudaGraph)>,
    /// The cuBLAS handle of a program with a [`Step::Sgemm`].
    blas: Option<Blas>,
}

/// What was captured over one binding, per compiled version ([`Compiled`]'s id): the buffer rule
/// of same-run A/B for graph cases. A CUDA graph launches the buffers it was captured over, so A
/// and B cannot share one graph; each version captures its own, once, over the same buffers (CUDA
/// Programming Guide, "CUDA Graphs": a graph's kernel nodes hold their parameters by value).
#[derive(Debug)]
pub struct Captures<G> {
    by_version: Vec<(u64, G)>,
}

impl<G> Default for Captures<G> {
    fn default() -> Self {
        Captures { by_version: Vec::new() }
    }
}

impl<G> Captures<G> {
    /// The capture of version `id`, when it has one.
    pub fn get(&self, id: u64) -> Option<&G> {
        self.by_version.iter().find(|(v, _)| *v == id).map(|(_, g)| g)
    }

    /// Keeps `capture` as version `id`'s.
    ///
    /// # Panics
    /// When `id` has one already: a version is captured once per binding, and a second capture
    /// would leave the first's graph launching while the new one is thought current.
    pub fn insert(&mut self, id: u64, capture: G) {
        assert!(self.get(id).is_none(), "version {id} was captured over this binding already");
        self.by_version.push((id, capture));
    }

    /// How many versions have a capture.
    pub fn len(&self) -> usize {
        self.by_version.len()
    }

    /// Whether no version has one.
    pub fn is_empty(&self) -> bool {
        self.by_version.is_empty()
    }
}

/// A cuBLAS handle, destroyed with the binding.
struct Blas(cudarc::cublas::sys::cublasHandle_t);

impl Drop for Blas {
    fn drop(&mut self) {
        // SAFETY: the handle was created by `create_handle` and is destroyed once, here.
        let _ = unsafe { cudarc::cublas::result::destroy_handle(self.0) };
    }
}

/// Why `case` cannot run on this machine, when it cannot: a host call's needs are not met
/// ([`HostCall::needs`]), or its program calls cuBLAS and no libcublas is found on the loader path (cudarc's names: `libcublas.so`, `libcublas.so.13`, ...).
pub fn unavailable(case: &Case) -> Option<String> {
    if let Some(why) = case.host_calls().find_map(|c| c.unavailable().map(|why| format!("{}: {why}", c.name))) {
        return Some(format!("{} cannot run here: its host call {why}", case.name()));
    }
    // SAFETY: only tries to open the library by its candidate names.
    let present = !case.uses_cublas() || unsafe { cudarc::cublas::sys::is_culib_present() };
    (!present).then(|| {
        format!(
            "{} calls cuBLAS, and no libcublas was found on the loader path (tried {:?}); add the CUDA \
             toolkit's lib64 or the nvidia-cublas wheel's lib folder to LD_LIBRARY_PATH",
            case.name(),
            cudarc::get_lib_name_candidates("cublas")
        )
    })
}

/// Allocates `case`'s buffers on `gpu` from their initial host contents (`host`: one per buffer
/// parameter, in order, as [`crate::check::draw`] makes them): device buffers uploaded (outputs
/// and scratch poisoned with 0xFF bytes), host buffers kept pageable or copied into pinned memory;
/// and the program's extra streams, forked from the timing stream.
///
/// # Errors
/// [`Error::Driver`] when an allocation, copy or stream creation fails.
pub fn bind(gpu: &Gpu, case: &Case, host: &[HostData]) -> Result<Bound> {
    let mut data = host.iter();
    let mut slots = Vec::with_capacity(case.params.len());
    for p in &case.params {
        let slot = match p {
            Param::I32(_) | Param::F32(_) | Param::U64(_) | Param::F16(_) | Param::BF16(_) | Param::F64(_) => {
                Slot::Scalar
            }
            Param::Host { pinned, .. } => {
                let values = data.next().expect("one host copy per buffer");
                if *pinned {
                    let doing = "allocating pinned host memory";
                    // SAFETY: the contents are written right below, before any use.
                    let mut pinned = unsafe { gpu.context().alloc_pinned_with_flags::<u8>(values.bytes(), 0) }
                        .map_err(Error::driver(doing))?;
                    pinned.as_mut_slice().map_err(Error::driver(doing))?.copy_from_slice(values.as_bytes());
                    Slot::Pinned(pinned, values.elem())
                } else {
                    Slot::Pageable(values.clone())
                }
            }
            _ => {
                let host = data.next().expect("one host copy per buffer");
                // Outputs start as 0xFF bytes (NaN as f32, all ones as u32), filled on the GPU: their
                // host copies (NaN, all ones) are not uploaded only to be overwritten.
                Slot::Device(if matches!(p, Param::Out { .. } | Param::Scratch { .. } | Param::Zeroed { .. }) {
                    gpu.poisoned(host)?
                } else {
                    gpu.upload(host)?
                })
            }
        };
        slots.push(slot);
    }
    let side = (1..case.streams())
        .map(|_| gpu.stream().fork().map_err(Error::driver("creating a stream of the program")))
        .collect::<Result<Vec<_>>>()?;
    let blas = if case.uses_cublas() {
        if let Some(why) = unavailable(case) {
            return Err(Error::Unavailable(why));
        }
        gpu.context().bind_to_thread().map_err(Error::driver("binding the context for cuBLAS"))?;
        let handle = cudarc::cublas::result::create_handle()
            .map_err(|e| Error::Unavailable(format!("{}: creating a cuBLAS handle failed: {e:?}", case.name())))?;
        Some(Blas(handle))
    } else {
        None
    };
    let events = if side.is_empty() {
        None
    } else {
        let event = || gpu.context().new_event(None).map_err(Error::driver("creating the program's stream events"));
        Some((event()?, side.iter().map(|_| event()).collect::<Result<Vec<_>>>()?))
    };
    Ok(Bound { slots, side, events, graphs: Captures::default(), blas })
}

impl Bound {
    /// Passes every compared buffer ([`Param::is_compared`]) after the program ran to `visit`, in
    /// parameter order, with its parameter index, until `visit` returns `Some`; that value, or
    /// `None`. Waits for the GPU first. Device buffers are viewed in the GPU's pinned staging
    /// memory ([`Gpu::with_download`]), host buffers where they are; the wait and the downloads
    /// count as [`Phase::Check`], `visit` times its own work.
    ///
    /// # Errors
    /// [`Error::Driver`] when the wait or a download fails (an illegal address surfaces here).
    pub fn find_compared<R>(
        &self,
        gpu: &Gpu,
        case: &Case,
        mut visit: impl FnMut(usize, HostView<'_>) -> Option<R>,
    ) -> Result<Option<R>> {
        gpu.clock().time(Phase::Check, || gpu.synchronize())?;
        for (i, (p, slot)) in case.params.iter().zip(&self.slots).enumerate().filter(|(_, (p, _))| p.is_compared()) {
            let found = match slot {
                Slot::Device(d) => gpu.with_download(d, |view| visit(i, view))?,
                Slot::Pageable(v) => visit(i, v.view()),
                Slot::Pinned(v, elem) => visit(
                    i,
                    HostView { elem: *elem, bytes: v.as_slice().map_err(Error::driver("reading pinned host memory"))? },
                ),
                Slot::Scalar => unreachable!("{}: parameter {i} ({p:?}) is compared but scalar", case.name()),
            };
            if found.is_some() {
                return Ok(found);
            }
        }
        Ok(None)
    }
}

/// Enqueues one run of `case`'s program on `gpu`'s timing stream (returns without waiting).
///
/// # Errors
/// [`Error::Driver`] naming the step when a launch, copy, memset, stream join or the graph
/// capture is rejected (errors inside a kernel surface at the next wait).
pub fn run(gpu: &Gpu, case: &Case, compiled: &Compiled, bound: &mut Bound) -> Result<()> {
    if !case.graph {
        return enqueue(gpu, case, compiled, bound, gpu.stream());
    }
    if bound.graphs.get(compiled.id).is_none() {
        let doing = format!("capturing {} as a CUDA graph", case.name());
        let capture = gpu.stream().fork().map_err(Error::driver(doing.clone()))?;
        capture
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .map_err(Error::driver(doing.clone()))?;
        let enqueued = enqueue(gpu, case, compiled, bound, &capture);
        let graph = capture.end_capture(CUgraphInstantiate_flags(0)).map_err(Error::driver(doing.clone()))?;
        enqueued?;
        let graph = graph.expect("a program has steps (cases::tests check every case), so its graph is not empty");
        graph.upload().map_err(Error::driver(doing))?;
        bound.graphs.insert(compiled.id, (capture, graph));
    }
    let (_, graph) = bound.graphs.get(compiled.id).expect("captured above");
    // SAFETY: the executable graph is owned by `bound` and outlives the launch; the timing stream
    // belongs to the same context.
    unsafe { cudarc::driver::result::graph::launch(graph.cu_graph_exec(), gpu.stream().cu_stream()) }
        .map_err(failed(case, || "launching its graph".to_string()))
}

/// Enqueues the program on `base` (stream 0) and the bound side streams.
fn enqueue(gpu: &Gpu, case: &Case, compiled: &Compiled, bound: &Bound, base: &Arc<CudaStream>) -> Result<()> {
    // Every error message is built only on failure: this runs once per timed sample, and the
    // launch family measures exactly this path's overhead.
    for (p, slot) in case.params.iter().zip(&bound.slots) {
        if let (Param::Zeroed { .. }, Slot::Device(d)) = (p, slot) {
            let (ptr, bytes) = d.raw(base);
            // SAFETY: `ptr` addresses a live allocation of `bytes` bytes owned by `bound`.
            unsafe { cudarc::driver::result::memset_d8_async(ptr, 0, bytes, base.cu_stream()) }
                .map_err(failed(case, || "zeroing an output".into()))?;
        }
    }
    let ordering = || "ordering the program's streams".to_string();
    if let Some((fork, _)) = &bound.events {
        fork.record(base).map_err(failed(case, ordering))?;
        for s in &bound.side {
            s.wait(fork).map_err(failed(case, ordering))?;
        }
    }
    let stream_of = |i: usize| if i == 0 { base } else { &bound.side[i - 1] };
    let mut funcs = compiled.funcs.iter();
    for (index, step) in case.steps.iter().enumerate() {
        let stream = stream_of(step.stream());
        match step {
            Step::Launch { kernel, launch, args, .. } => {
                let func = funcs.next().expect("one function per launch");
                launch_one(gpu, stream, func, launch, args, case, bound)
                    .map_err(failed(case, || format!("launching {} (step {index})", kernel.name())))?;
            }
            Step::Copy { from, from_offset, to, to_offset, elems, .. } => {
                copy(stream, &bound.slots[*from], *from_offset, &bound.slots[*to], *to_offset, *elems)
                    .map_err(failed(case, || format!("copying parameter {from} to {to} (step {index})")))?;
            }
            Step::Sgemm { a, b, c, m, n, k, alpha, beta } => {
                let blas = bound.blas.as_ref().expect("bind creates the handle of a program that calls cuBLAS");
                let ptr = |slot: usize| match &bound.slots[slot] {
                    Slot::Device(d) => d.raw(stream).0,
                    _ => panic!("{}: cuBLAS operand slot {slot} is not a device buffer", case.name()),
                };
                sgemm(blas, stream, (ptr(*a), ptr(*b), ptr(*c)), (*m, *n, *k), (*alpha, *beta)).map_err(|e| {
                    Error::Unavailable(format!("{}: cublasSgemm (step {index}) failed: {e:?}", case.name()))
                })?;
            }
            Step::Host(call) => host_call(case, call, stream, bound)
                .map_err(|why| Error::Host(format!("{}: {} (step {index}) failed: {why}", case.name(), call.name)))?,
        }
    }
    if let Some((_, joins)) = &bound.events {
        for (s, done) in bound.side.iter().zip(joins) {
            done.record(s).map_err(failed(case, ordering))?;
            base.wait(done).map_err(failed(case, ordering))?;
        }
    }
    Ok(())
}

/// Calls `call` with the device buffers of its slots (at their declared offsets) and `stream`.
fn host_call(
    case: &Case,
    call: &HostCall,
    stream: &CudaStream,
    bound: &Bound,
) -> std::result::Result<(), crate::case::HostError> {
    let mut pointers = Vec::with_capacity(call.slots.len());
    let mut elements = Vec::with_capacity(call.slots.len());
    for &slot in &call.slots {
        let Slot::Device(d) = &bound.slots[slot] else {
            panic!("{}: host call slot {slot} is not a device buffer (the case table's checks say so)", case.name())
        };
        let offset = case.params[slot].offset();
        pointers.push(d.raw(stream).0 + (d.elem().size() * offset) as u64);
        elements.push(case.params[slot].elements() - offset);
    }
    (call.call)(HostArgs { stream: stream.cu_stream(), pointers: &pointers, elements: &elements })
}

/// The error of a failed driver call of `case`'s program; `doing` runs only on failure, so the
/// message costs nothing on the timed path.
fn failed<'a>(
    case: &'a Case,
    doing: impl FnOnce() -> String + 'a,
) -> impl FnOnce(cudarc::driver::DriverError) -> Error + 'a {
    move |source| Error::Driver { doing: format!("{}: {}", case.name(), doing()), source }
}

/// A kernel argument ready for the launch builder.
enum Value {
    Ptr(CUdeviceptr),
    I32(i32),
    F32(f32),
    U64(u64),
    /// A 2-byte `__half` or `__nv_bfloat16`, as its bits: the driver copies the parameter's two
    /// bytes whatever their type.
    U16(u16),
    F64(f64),
}

fn launch_one(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    func: &CudaFunction,
    launch: &Launch,
    args: &[Arg],
    case: &Case,
    bound: &Bound,
) -> std::result::Result<(), cudarc::driver::DriverError> {
    let pointer = |slot: usize, offset: usize| match &bound.slots[slot] {
        Slot::Device(d) => Value::Ptr(d.raw(stream).0 + (d.elem().size() * offset) as u64),
        _ => panic!("{}: argument slot {slot} is not a device buffer", case.name()),
    };
    let values: Vec<Value> = args
        .iter()
        .map(|a| match *a {
            Arg::Slot(i) => match case.params[i] {
                Param::I32(v) => Value::I32(v),
                Param::F32(v) => Value::F32(v),
                Param::U64(v) => Value::U64(v),
                Param::F16(v) => Value::U16(v.to_bits()),
                Param::BF16(v) => Value::U16(v.to_bits()),
                Param::F64(v) => Value::F64(v),
                ref p => pointer(i, p.offset()),
            },
            Arg::At { slot, offset } => pointer(slot, offset),
            Arg::I32(v) => Value::I32(v),
            Arg::F32(v) => Value::F32(v),
            Arg::U64(v) => Value::U64(v),
            Arg::F16(v) => Value::U16(v.to_bits()),
            Arg::BF16(v) => Value::U16(v.to_bits()),
            Arg::F64(v) => Value::F64(v),
        })
        .collect();
    let mut builder = stream.launch_builder(func);
    for v in &values {
        match v {
            Value::Ptr(p) => builder.arg(p),
            Value::I32(v) => builder.arg(v),
            Value::F32(v) => builder.arg(v),
            Value::U64(v) => builder.arg(v),
            Value::U16(v) => builder.arg(v),
            Value::F64(v) => builder.arg(v),
        };
    }
    let grid = launch.grid_for(gpu.facts.sm_count);
    let cfg = LaunchConfig {
        grid_dim: (grid[0], grid[1], grid[2]),
        block_dim: (launch.block[0], launch.block[1], launch.block[2]),
        shared_mem_bytes: launch.shared_bytes,
    };
    // SAFETY: the case table declares each launch's arguments in the parameter order and types of
    // its kernel's `extern "C"` signature (a pointer for each buffer, `int`, `float`, `unsigned
    // long long`; `check_arguments`, before the first launch, and the compile trials hold each
    // launch's argument count, sizes and kinds to the PTX); buffers hold the elements the reference
    // describes, which the check verifies on every run; `values` outlives the launch.
    unsafe { builder.launch(cfg) }.map(|_| ())
}

/// Row-major `C = alpha A B + beta C` (A `m x k`, B `k x n`) through column-major cuBLAS: row-major C is
/// column-major C^T = B^T A^T, so B goes first with the dimensions swapped (cuBLAS documentation,
/// "cublas<t>gemm"; the usual row-major idiom).
fn sgemm(
    blas: &Blas,
    stream: &CudaStream,
    (a, b, c): (CUdeviceptr, CUdeviceptr, CUdeviceptr),
    (m, n, k): (usize, usize, usize),
    (alpha, beta): (f32, f32),
) -> std::result::Result<(), cudarc::cublas::result::CublasError> {
    use cudarc::cublas::{result, sys};
    let int = |v: usize| i32::try_from(v).expect("matrix dimensions fit int");
    // SAFETY: the handle is live; the three addresses are device buffers of at least m*k, k*n and
    // m*n floats (the case table's CPU tests check the slots' lengths); the stream belongs to the
    // handle's context.
    unsafe {
        result::set_stream(blas.0, stream.cu_stream().cast())?;
        result::sgemm(
            blas.0,
            sys::cublasOperation_t::CUBLAS_OP_N,
            sys::cublasOperation_t::CUBLAS_OP_N,
            int(n),
            int(m),
            int(k),
            &alpha,
            b as *const f32,
            int(n),
            a as *const f32,
            int(k),
            &beta,
            c as *mut f32,
            int(n),
        )
    }
}

/// One [`Step::Copy`]: host to device, device to host or device to device, as the slots are;
/// `elems` elements of the slots' type (the case table's CPU tests hold both slots to one type).
fn copy(
    stream: &Arc<CudaStream>,
    from: &Slot,
    from_offset: usize,
    to: &Slot,
    to_offset: usize,
    elems: usize,
) -> std::result::Result<(), cudarc::driver::DriverError> {
    use cudarc::driver::result::{memcpy_dtod_async, memcpy_dtoh_async, memcpy_htod_async};
    let size = match from {
        Slot::Device(d) => d.elem().size(),
        Slot::Pageable(v) => v.elem().size(),
        Slot::Pinned(_, elem) => elem.size(),
        Slot::Scalar => 1,
    };
    let host = |s: &Slot| -> std::result::Result<*mut u8, cudarc::driver::DriverError> {
        Ok(match s {
            Slot::Pageable(v) => v.as_bytes().as_ptr().cast_mut(),
            Slot::Pinned(p, _) => p.as_ptr()?.cast_mut(),
            _ => std::ptr::null_mut(),
        })
    };
    let device = |s: &Slot, offset: usize| match s {
        Slot::Device(d) => Some(d.raw(stream).0 + (size * offset) as u64),
        _ => None,
    };
    let (bytes, cu) = (size * elems, stream.cu_stream());
    // SAFETY: the case table keeps every copy inside both buffers (`offset + elems <= len`, checked
    // by the CPU tests of each family); host buffers live in `Bound` until after the wait that
    // follows the program, and nothing else touches them while it runs.
    unsafe {
        match (device(from, from_offset), device(to, to_offset)) {
            (Some(src), Some(dst)) => memcpy_dtod_async(dst, src, bytes, cu),
            (None, Some(dst)) => {
                let src = std::slice::from_raw_parts(host(from)?.add(size * from_offset), bytes);
                memcpy_htod_async(dst, src, cu)
            }
            (Some(src), None) => {
                let dst = std::slice::from_raw_parts_mut(host(to)?.add(size * to_offset), bytes);
                memcpy_dtoh_async(dst, src, cu)
            }
            (None, None) => panic!("a copy between two host buffers is not a GPU step"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Captures;

    #[test]
    fn each_version_keeps_its_own_capture_over_one_binding() {
        // A and B of an A/B pair over one binding: two captures, each found by its version.
        let mut graphs = Captures::default();
        assert!(graphs.get(1).is_none() && graphs.is_empty());
        graphs.insert(1, "graph of A over buffers 0");
        graphs.insert(2, "graph of B over buffers 0");
        assert_eq!(
            (graphs.get(1), graphs.get(2), graphs.len()),
            (Some(&"graph of A over buffers 0"), Some(&"graph of B over buffers 0"), 2)
        );
        assert!(graphs.get(3).is_none());
    }

    #[test]
    #[should_panic(expected = "version 1 was captured over this binding already")]
    fn a_version_is_captured_once() {
        let mut graphs = Captures::default();
        graphs.insert(1, ());
        graphs.insert(1, ());
    }
}
