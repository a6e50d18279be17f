//! Check stage: fresh random inputs, poisoned outputs and shared memory, one run of the case's
//! program, every element of every compared buffer checked against the CPU reference (a wrong
//! result is run again to tell a read of unwritten shared memory from the rest). Input drawing,
//! comparison and that diagnosis are pure and tested on the CPU; [`check_case`] is the part that
//! runs on the GPU.

use crate::case::{Case, HostData, HostView, Tolerance};
use crate::gpu::Gpu;
pub use crate::inputs::{draw, mix, trial_seed};
use crate::phases::{self, Phase};
use crate::program::{self, Bound, Compiled};

/// The first element outside tolerance, and how many there are.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mismatch {
    /// Index of the first bad element.
    pub index: usize,
    /// Reference value there (an `f32` or a `u32`, exactly).
    pub expected: f64,
    /// GPU value there.
    pub got: f64,
    /// Number of bad elements in the buffer.
    pub count: usize,
    /// Buffer length.
    pub len: usize,
}

/// Compares every element: ok when `|got - want| <= abs + rel * |want|`; NaN or a length
/// difference is always a mismatch (a length difference reports index `min(len)`).
pub fn compare(got: &[f32], want: &[f32], tol: Tolerance) -> Option<Mismatch> {
    // Written as a negated `<=` on purpose: any comparison with NaN is false, so NaN counts as bad.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    let bad = |g: &f32, w: &f32| !((g - w).abs() <= tol.abs + tol.rel * w.abs());
    mismatch(got, want, bad, f64::from)
}

/// As [`compare`] for any buffer: `f32` within `tol`, `u32` exactly; a type difference is a
/// mismatch at element 0.
pub fn compare_data(got: HostView<'_>, want: &HostData, tol: Tolerance) -> Option<Mismatch> {
    match (got, want) {
        (HostView::F32(g), HostData::F32(w)) => compare(g, w, tol),
        (HostView::U32(g), HostData::U32(w)) => mismatch(g, w, |g, w| g != w, f64::from),
        _ => Some(Mismatch {
            index: 0,
            expected: f64::NAN,
            got: f64::NAN,
            count: want.bytes() / 4,
            len: want.bytes() / 4,
        }),
    }
}

/// The first element `bad` flags and how many it flags, elements past the shorter buffer counted
/// bad (the first of them reported at index `min(len)`, a missing value as NaN).
fn mismatch<T: Copy + Sync>(
    got: &[T],
    want: &[T],
    bad: impl Fn(&T, &T) -> bool + Sync,
    value: impl Fn(T) -> f64,
) -> Option<Mismatch> {
    let short = got.len().min(want.len());
    let (first, mut count) = scan(&got[..short], &want[..short], bad);
    count += got.len().max(want.len()) - short;
    let index = first.or((count > 0).then_some(short))?;
    let at = |v: &[T]| v.get(index).map_or(f64::NAN, |&x| value(x));
    Some(Mismatch { index, expected: at(want), got: at(got), count, len: want.len() })
}

/// Elements compared per thread at least: below this a buffer is scanned on one thread.
const SCAN_CHUNK: usize = 1 << 20;

/// The first index where `bad(got[i], want[i])` and how many there are, for buffers of one
/// length, in contiguous chunks on [`crate::inputs::threads`] threads (a 2^28-element histogram
/// took about 0.2 s on one core).
fn scan<T: Sync>(got: &[T], want: &[T], bad: impl Fn(&T, &T) -> bool + Sync) -> (Option<usize>, usize) {
    let serial = |g: &[T], w: &[T], offset: usize| {
        let mut first = None;
        let mut count = 0;
        for (i, (g, w)) in g.iter().zip(w).enumerate() {
            if bad(g, w) {
                count += 1;
                first.get_or_insert(offset + i);
            }
        }
        (first, count)
    };
    let chunk = got.len().div_ceil(crate::inputs::threads()).max(SCAN_CHUNK);
    if got.len() <= chunk {
        return serial(got, want, 0);
    }
    std::thread::scope(|scope| {
        let parts: Vec<_> = got
            .chunks(chunk)
            .zip(want.chunks(chunk))
            .enumerate()
            .map(|(k, (g, w))| scope.spawn(move || serial(g, w, k * chunk)))
            .collect();
        parts
            .into_iter()
            .map(|p| p.join().expect("a comparison thread panicked"))
            .fold((None, 0), |(first, count), (f, c)| (first.or(f), count + c))
    })
}

/// Describes a mismatch for the trial's failure message.
pub fn describe(case: &Case, param_index: usize, m: &Mismatch, seed: u64) -> String {
    // f32 values print as f32 (shortest round trip), u32 counts as integers.
    let show = |v: f64| if v.fract() == 0.0 && v.abs() < 1e15 { format!("{v}") } else { format!("{:?}", v as f32) };
    format!(
        "{}: output parameter #{param_index} of {}, element {}: expected {}, got {} \
         ({} of {} elements differ beyond abs {:e} + rel {:e}); replay with KERNELGATE_SEED={seed}",
        case.name(),
        case.kernel_names(),
        m.index,
        show(m.expected),
        show(m.got),
        m.count,
        m.len,
        case.tolerance.abs,
        case.tolerance.rel,
    )
}

/// What shared memory holds when a checked run starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SharedStart {
    /// 0xFF bytes on every SM ([`crate::shared_poison`]): the suite's, the A/B and the checked
    /// children's checks.
    Poisoned,
    /// Whatever the last kernel left: the ncu-profiled child's, where every launch inside the
    /// trial's NVTX ranges is profiled, so a fill launch would be counted with the trial's kernels.
    AsLeft,
}

/// Takes `case`'s inputs, drawn from the trial's seed ([`crate::inputs::inputs_seed`]: `run_seed` mixed
/// with the trial name, or with the family and size where variants share their reference), and its
/// reference, computed once per inputs ([`crate::inputs`]); binds its buffers (outputs poisoned), fills every SM's shared memory with 0xFF bytes
/// ([`crate::shared_poison`]) unless `start` is [`SharedStart::AsLeft`], runs its program once and
/// compares every element of every compared buffer with the reference. Returns the bound buffers
/// (ready for timing the same program), `Ok(Err(message))` for a wrong result (the message names
/// the buffer, element, values and seed), or `Err` for a harness or driver error.
///
/// With [`SharedStart::Poisoned`], a wrong result is run again on fresh buffers, first after a fill
/// with zeros and, if that is right, after a 0xFF fill once more; [`diagnosis`] says what the
/// three runs show. Where the fill does not reach the next kernel on this GPU
/// ([`crate::shared_poison::works`]), it is skipped, and so are the reruns.
///
/// # Errors
/// [`crate::Error::Driver`] when an upload, the shared-memory fill, a step or a download fails;
/// [`crate::Error::Compile`] if the fill kernel does not compile.
pub fn check_case(
    gpu: &Gpu,
    case: &Case,
    compiled: &Compiled,
    run_seed: u64,
    start: SharedStart,
) -> crate::error::Result<Result<Bound, String>> {
    let prepared = crate::inputs::prepared(case, run_seed);
    let host = prepared.host();
    let reference = || prepared.reference();
    let run = |fill| run_and_compare(gpu, case, compiled, host, fill, reference, run_seed);
    // Where the fill does not reach the next kernel (under some compute-sanitizer tools), it is
    // skipped, and so are the reruns that would read it.
    let start =
        if start == SharedStart::Poisoned && !crate::shared_poison::works(gpu)? { SharedStart::AsLeft } else { start };
    let (bound, wrong) = run((start == SharedStart::Poisoned).then_some(0xFF))?;
    let Some(wrong) = wrong else { return Ok(Ok(bound)) };
    if start == SharedStart::AsLeft {
        return Ok(Err(wrong));
    }
    drop(bound);
    let zeroed_right = run(Some(0x00))?.1.is_none();
    let poisoned_again_right = zeroed_right && run(Some(0xFF))?.1.is_none();
    Ok(Err(match diagnosis(zeroed_right, poisoned_again_right) {
        Some(why) => format!("{wrong}\n  {why}"),
        None => wrong,
    }))
}

/// What a wrong result run with shared memory filled with 0xFF shows, from two reruns on fresh
/// buffers (pure; tested): right after a zero fill and wrong again after a 0xFF fill, the kernel
/// reads shared memory it has not written; right both times, the result changes between identical
/// runs; wrong after the zero fill, nothing more is known (`None`).
pub fn diagnosis(zeroed_right: bool, poisoned_again_right: bool) -> Option<&'static str> {
    match (zeroed_right, poisoned_again_right) {
        (false, _) => None,
        (true, false) => Some(READS_UNWRITTEN_SHARED),
        (true, true) => Some(CHANGES_BETWEEN_RUNS),
    }
}

/// [`diagnosis`] of a kernel that is wrong when shared memory starts as 0xFF bytes and right when
/// it starts as zeros.
pub const READS_UNWRITTEN_SHARED: &str = "the same run is right when shared memory starts as zeros and \
    wrong again when it starts as 0xFF bytes, so the kernel reads shared memory that nothing wrote";

/// [`diagnosis`] of a kernel whose wrong result was right on both reruns.
pub const CHANGES_BETWEEN_RUNS: &str = "run again the same way it was right: the result changes between \
    identical runs (a race, or an order of atomics the tolerance does not cover)";

/// Binds `host`, fills shared memory with `fill` (if any), runs the program once and compares the compared
/// buffers with `reference()`: the bound buffers and the first mismatch's message, if any.
fn run_and_compare<'r>(
    gpu: &Gpu,
    case: &Case,
    compiled: &Compiled,
    host: &[HostData],
    fill: Option<u8>,
    reference: impl FnOnce() -> &'r Vec<HostData>,
    run_seed: u64,
) -> crate::error::Result<(Bound, Option<String>)> {
    let mut bound = phases::time(Phase::Upload, || program::bind(gpu, case, host))?;
    phases::time(Phase::Check, || -> crate::error::Result<_> {
        if let Some(byte) = fill {
            crate::shared_poison::fill(gpu, byte)?;
        }
        program::run(gpu, case, compiled, &mut bound)
    })?;
    let expected = reference();
    let wrong = first_mismatch(gpu, case, &bound, expected)?;
    Ok((bound, wrong.map(|(param_index, m)| describe(case, param_index, &m, run_seed))))
}

/// The first compared buffer of `bound` (after the program ran) outside the case's tolerance of
/// its reference in `want` (one per compared parameter, in order), with its parameter index.
/// Downloads count as [`Phase::Check`], comparisons as [`Phase::Compare`].
///
/// # Errors
/// [`crate::Error::Driver`] when the wait or a download fails.
///
/// # Panics
/// When `want` does not hold one buffer per compared parameter (a case-table mistake the CPU
/// tests catch).
pub fn first_mismatch(
    gpu: &Gpu,
    case: &Case,
    bound: &Bound,
    want: &[HostData],
) -> crate::error::Result<Option<(usize, Mismatch)>> {
    let compared = case.params.iter().filter(|p| p.is_compared()).count();
    assert_eq!(compared, want.len(), "{}: the reference returns one buffer per compared parameter", case.name());
    let mut want = want.iter();
    bound.find_compared(gpu, case, |param_index, got| {
        let want = want.next().expect("one reference per compared parameter, asserted above");
        phases::time(Phase::Compare, || compare_data(got, want, case.tolerance)).map(|m| (param_index, m))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_result_is_blamed_on_shared_memory_only_when_the_fill_decides_it() {
        assert_eq!(diagnosis(false, false), None, "wrong whatever shared memory holds");
        assert_eq!(diagnosis(true, false), Some(READS_UNWRITTEN_SHARED));
        assert_eq!(diagnosis(true, true), Some(CHANGES_BETWEEN_RUNS), "right on a rerun: not the fill");
        assert!(READS_UNWRITTEN_SHARED.contains("reads shared memory that nothing wrote"));
    }

    #[test]
    fn u32_buffers_compare_exactly() {
        let (a, b) = (HostData::U32(vec![1, 2, 3]), HostData::U32(vec![1, 5, 3]));
        assert_eq!(compare_data(a.view(), &a, Tolerance { abs: 10.0, rel: 1.0 }), None);
        let m = compare_data(b.view(), &a, Tolerance { abs: 10.0, rel: 1.0 }).unwrap();
        assert_eq!((m.index, m.expected, m.got, m.count), (1, 2.0, 5.0, 1));
        assert!(compare_data(HostView::F32(&[1.0]), &HostData::U32(vec![1]), Tolerance::EXACT).is_some());
    }

    #[test]
    fn compare_finds_first_and_counts_all() {
        let want = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(compare(&want, &want, Tolerance::EXACT), None);
        let m = compare(&[1.0, 2.5, 3.0, 0.0], &want, Tolerance::EXACT).unwrap();
        assert_eq!((m.index, m.expected, m.got, m.count, m.len), (1, 2.0, 2.5, 2, 4));
    }

    #[test]
    fn nan_never_passes_and_tolerance_applies() {
        let loose = Tolerance { abs: 1.0, rel: 1.0 };
        assert!(compare(&[f32::NAN], &[1.0], loose).is_some());
        assert!(compare(&[1.0], &[f32::NAN], loose).is_some());
        let tol = Tolerance { abs: 0.0, rel: 1e-6 };
        assert_eq!(compare(&[1.000_000_5], &[1.0], tol), None);
        assert!(compare(&[1.000_01], &[1.0], tol).is_some());
    }

    #[test]
    fn long_buffers_scanned_in_parallel_find_the_same_first_and_count() {
        let want = vec![1.0f32; 5 * SCAN_CHUNK + 3];
        let mut got = want.clone();
        for i in [3 * SCAN_CHUNK + 7, SCAN_CHUNK + 1, 5 * SCAN_CHUNK + 2] {
            got[i] = 2.0;
        }
        let m = compare(&got, &want, Tolerance::EXACT).unwrap();
        assert_eq!((m.index, m.count, m.got, m.expected), (SCAN_CHUNK + 1, 3, 2.0, 1.0));
        let (g, w): (Vec<u32>, Vec<u32>) = (got.iter().map(|x| *x as u32).collect(), vec![1; want.len()]);
        let m = compare_data(HostView::U32(&g), &HostData::U32(w), Tolerance::EXACT).unwrap();
        assert_eq!((m.index, m.count), (SCAN_CHUNK + 1, 3));
    }

    #[test]
    fn length_difference_is_a_mismatch() {
        let m = compare(&[1.0, 2.0], &[1.0, 2.0, 3.0], Tolerance::EXACT).unwrap();
        assert_eq!((m.index, m.count), (2, 1));
    }
}
