//! Host steps: a program step that calls the project's own host code with the step's device
//! buffers and the stream to enqueue on, so that a launcher of its own, a vendor library's host
//! API (CUB's device-wide algorithms, cuBLASLt, cuDNN) or a function of a shared library the
//! project builds is checked and timed in the same trial as kernels ([`super::Step::Host`]).
//!
//! What the call may do is what any step of a timed program may do: enqueue work on the stream it
//! is given and return. It is called once per run of the program (the checked run, the warm-up
//! and every timed sample) between the program's two timing events, so its host time counts when
//! it is longer than the GPU's; it must not synchronize the stream or the device (that would time
//! the wait), and in a program replayed as a CUDA graph ([`super::Case::as_graph`]) it runs once,
//! inside the capture, where allocating memory or synchronizing fails.

use std::sync::Arc;

/// What a [`HostCall`] is handed: the stream and the device buffers of its slots.
#[derive(Debug, Clone, Copy)]
pub struct HostArgs<'a> {
    /// The stream to enqueue on, as the driver API's `CUstream` (the runtime API's `cudaStream_t`
    /// is the same handle): the program's timing stream for stream 0, or a forked one.
    pub stream: cudarc::driver::sys::CUstream,
    /// The device address of each slot the call names ([`HostCall::slots`]), in that order, at the
    /// slot's declared offset ([`super::Param::offset`]).
    pub pointers: &'a [u64],
    /// The elements of each of those buffers from that offset on.
    pub elements: &'a [usize],
}

/// What a [`HostCall`]'s own code returns when it fails: any error (`?` on a `libloading`, a
/// `cudarc` or an `std` error works, and a `String` or `&str` converts with `.into()`), whose
/// message kernelgate prints after the case and the step.
pub type HostError = Box<dyn std::error::Error + Send + Sync>;

/// The code a [`HostCall`] runs: `Ok` when it enqueued its work, or what failed (a CUDA error's
/// name, the library's status), which fails the trial with the case and step named.
pub type HostFn = dyn Fn(HostArgs<'_>) -> Result<(), HostError> + Send + Sync;

/// Whether a [`HostCall`] can run on this machine: `Err` with the reason and the fix (a shared
/// library not found, naming where it was looked for and how to build it), which ignores the
/// case's trial as a missing cuBLAS does.
pub type HostNeeds = dyn Fn() -> Result<(), HostError> + Send + Sync;

/// A call of the project's host code in a program ([`super::Step::Host`]).
///
/// # Example
/// A case that times a vendor call beside the family's kernels (here a stand-in that enqueues a
/// memset through the driver API; the example project's `reduce/cub` calls `cub::DeviceReduce::Sum`
/// in a shared library it builds with nvcc):
/// ```
/// use kernelgate::case::{Case, HostCall, Param, Step};
/// let zero = HostCall::new("cuMemsetD8Async", [0], |args| {
///     // SAFETY: the address is the slot's live device buffer of `args.elements[0]` f32 elements.
///     unsafe {
///         cudarc::driver::result::memset_d8_async(args.pointers[0], 0, 4 * args.elements[0], args.stream)
///     }?; // a cudarc DriverError: `?` converts any error into a HostError
///     Ok(())
/// });
/// let case = Case::program("fill", "memset", "1024").params([Param::output(1024)]).step(Step::Host(zero));
/// assert_eq!(case.kernel_names(), "cuMemsetD8Async");
/// ```
#[derive(Clone)]
pub struct HostCall {
    /// How the run CSV's `kernel` column, the ncu check and messages name the call
    /// (`cub::DeviceReduce::Sum`).
    pub name: &'static str,
    /// The slots ([`super::Case::params`]) whose device buffers the call is handed, in order.
    pub slots: Vec<usize>,
    /// Stream index: 0 is the timing stream; 1.. are streams forked from it.
    pub stream: usize,
    /// The call.
    pub call: Arc<HostFn>,
    /// What it needs to run ([`HostCall::needs`]); `None`: nothing kernelgate can check ahead.
    pub needs: Option<Arc<HostNeeds>>,
}

impl HostCall {
    /// The call `call`, named `name`, handed the device buffers of `slots`, on stream 0.
    pub fn new(
        name: &'static str,
        slots: impl IntoIterator<Item = usize>,
        call: impl Fn(HostArgs<'_>) -> Result<(), HostError> + Send + Sync + 'static,
    ) -> HostCall {
        HostCall { name, slots: slots.into_iter().collect(), stream: 0, call: Arc::new(call), needs: None }
    }

    /// This call on stream `stream` of the program (0: the timing stream).
    pub fn on_stream(mut self, stream: usize) -> HostCall {
        self.stream = stream;
        self
    }

    /// This call, which can run only when `needs` returns `Ok` (a shared library found and its
    /// symbols resolved): asked before the trial opens its buffers; an `Err` ignores the trial with
    /// the reason, as a case calling cuBLAS is ignored without libcublas.
    pub fn needs(mut self, needs: impl Fn() -> Result<(), HostError> + Send + Sync + 'static) -> HostCall {
        self.needs = Some(Arc::new(needs));
        self
    }

    /// Why this call cannot run here, when it cannot ([`HostCall::needs`]).
    pub fn unavailable(&self) -> Option<String> {
        self.needs.as_ref().and_then(|needs| needs().err()).map(|e| e.to_string())
    }
}

impl std::fmt::Debug for HostCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostCall")
            .field("name", &self.name)
            .field("slots", &self.slots)
            .field("stream", &self.stream)
            .finish()
    }
}

/// Two calls are equal when they are the same code on the same slots and stream: the same
/// closure ([`Arc::ptr_eq`]), as cases built from one call share it.
impl PartialEq for HostCall {
    fn eq(&self, other: &HostCall) -> bool {
        self.name == other.name
            && self.slots == other.slots
            && self.stream == other.stream
            && Arc::ptr_eq(&self.call, &other.call)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{Case, Param, Step};

    fn call() -> HostCall {
        HostCall::new("vendor_call", [0, 1], |_| Ok(()))
    }

    #[test]
    fn a_call_is_named_in_the_kernel_column_and_its_unmet_needs_ignore_the_trial() {
        let case = Case::program("sum", "vendor", "8")
            .params([Param::input(8), Param::output(1)])
            .step(Step::Host(call().needs(|| Err("libvendor.so not found; build it with make".into()))));
        assert_eq!(case.kernel_names(), "vendor_call");
        assert!(case.calls_libraries() && case.launches().next().is_none());
        assert_eq!(
            crate::program::unavailable(&case).as_deref(),
            Some("sum/vendor/8 cannot run here: its host call vendor_call: libvendor.so not found; build it with make")
        );
        let fine = Case::program("sum", "vendor", "8").params([Param::input(8)]).step(Step::Host(call()));
        assert_eq!(crate::program::unavailable(&fine), None);
    }

    #[test]
    fn calls_are_equal_when_they_share_their_code() {
        let a = call();
        assert_eq!(a, a.clone());
        assert_ne!(a, call(), "another closure, though it does the same");
        assert_ne!(a, a.clone().on_stream(1));
        assert_eq!(format!("{a:?}"), "HostCall { name: \"vendor_call\", slots: [0, 1], stream: 0 }");
    }

    #[test]
    #[should_panic(expected = "the host call vendor_call takes slot 1, which is not a device buffer")]
    fn a_call_handed_a_scalar_stops_the_case_table() {
        let case = Case::program("sum", "vendor", "8")
            .params([Param::input(8), Param::I32(8)])
            .reference(|_| vec![])
            .step(Step::Host(call()));
        crate::case::assert_program_fits(&case);
    }
}
