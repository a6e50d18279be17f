//! Check stage: fresh random inputs, poisoned outputs and shared memory, one run of the case's
//! program, every element of every compared buffer checked against the CPU reference (a wrong
//! result is run again to tell a read of unwritten shared memory from the rest). Input drawing,
//! comparison and that diagnosis are pure and tested on the CPU; `check_case` is the part that
//! runs on the GPU.

use crate::case::{Case, Elem, Element, HostData, HostView, Tolerance};
use crate::gpu::Gpu;
use crate::inputs::Taken;
pub use crate::inputs::{draw, mix, trial_seed};
use crate::phases::Phase;
use crate::program::{self, Bound, Compiled};

/// The first element outside tolerance, and how many there are.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mismatch {
    /// Index of the first bad element.
    pub index: usize,
    /// Reference value there (exact: every element type's values are `f64` values).
    pub expected: f64,
    /// GPU value there.
    pub got: f64,
    /// The GPU element's bits there (little-endian, zero-extended): a NaN's payload, which `got`
    /// cannot hold; 0 past the end of the buffer.
    pub got_bits: u64,
    /// The element type of the GPU's buffer, in whose values [`describe`] shows them.
    pub elem: Elem,
    /// Number of bad elements in the buffer.
    pub count: usize,
    /// Buffer length.
    pub len: usize,
}

/// Compares every element of two `f32` buffers: ok when `|got - want| <= abs + rel * |want| +
/// ulps * ulp(want)` ([`Tolerance::admits`]); NaN or a length difference is always a mismatch (a
/// length difference reports index `min(len)`).
pub fn compare(got: &[f32], want: &[f32], tol: Tolerance) -> Option<Mismatch> {
    compare_as(got, want, Elem::F32, tol)
}

/// As [`compare`] for elements of any type, `got` holding `elem`.
fn compare_as<G: Element, W: Element>(got: &[G], want: &[W], elem: Elem, tol: Tolerance) -> Option<Mismatch> {
    // The poison (0xFF bytes, NaN in every float type) is an output left unwritten, never a NaN
    // the kernel computed, even where the reference expects one.
    let poison = |g: &G| elem.is_float() && bytemuck::bytes_of(g).iter().all(|b| *b == 0xFF);
    let bad = |g: &G, w: &W| poison(g) || !tol.admits(elem, g.value(), w.value());
    mismatch(got, want, bad, elem)
}

/// As [`compare`] for any buffer: `got` against `want` within `tol` counted in `got`'s type. A
/// floating-point buffer may be expected in its own type, `f32` or `f64` ([`crate::case::Reference`]);
/// an integer buffer in its own type. Any other pair is a mismatch at element 0 (both values NaN),
/// which [`describe`] names as a type mismatch.
pub fn compare_data(got: HostView<'_>, want: &HostData, tol: Tolerance) -> Option<Mismatch> {
    let elem = got.elem;
    macro_rules! against {
        ($g:ty) => {{
            let g = got.typed::<$g>();
            match want {
                HostData::F32(w) if elem.is_float() => compare_as(&g, w, elem, tol),
                HostData::F64(w) if elem.is_float() => compare_as(&g, w, elem, tol),
                w if w.elem() == elem => compare_as(&g, &w.view().typed::<$g>(), elem, tol),
                w => Some(Mismatch {
                    index: 0,
                    expected: f64::NAN,
                    got: f64::NAN,
                    got_bits: 0,
                    elem,
                    count: w.len().max(got.len()),
                    len: w.len(),
                }),
            }
        }};
    }
    match elem {
        Elem::F16 => against!(crate::case::elem::f16),
        Elem::BF16 => against!(crate::case::elem::bf16),
        Elem::F32 => against!(f32),
        Elem::F64 => against!(f64),
        Elem::I8 => against!(i8),
        Elem::U8 => against!(u8),
        Elem::I32 => against!(i32),
        Elem::U32 => against!(u32),
        Elem::I64 => against!(i64),
        Elem::U64 => against!(u64),
        Elem::E4M3 => against!(crate::case::elem::F8E4M3),
        Elem::E5M2 => against!(crate::case::elem::F8E5M2),
    }
}

/// The first element `bad` flags and how many it flags, elements past the shorter buffer counted
/// bad (the first of them reported at index `min(len)`, a missing value as NaN).
fn mismatch<G: Element, W: Element>(
    got: &[G],
    want: &[W],
    bad: impl Fn(&G, &W) -> bool + Sync,
    elem: Elem,
) -> Option<Mismatch> {
    let short = got.len().min(want.len());
    let (first, mut count) = scan(&got[..short], &want[..short], bad);
    count += got.len().max(want.len()) - short;
    let index = first.or((count > 0).then_some(short))?;
    let bits = |x: &G| bytemuck::bytes_of(x).iter().rev().fold(0u64, |acc, b| acc << 8 | u64::from(*b));
    let (expected, got_bits) = (want.get(index).map_or(f64::NAN, |x| x.value()), got.get(index).map_or(0, bits));
    let got = got.get(index).map_or(f64::NAN, |x| x.value());
    Some(Mismatch { index, expected, got, got_bits, elem, count, len: want.len() })
}

/// Elements compared per thread at least: below this a buffer is scanned on one thread.
const SCAN_CHUNK: usize = 1 << 20;

/// The first index where `bad(got[i], want[i])` and how many there are, for buffers of one
/// length, in contiguous chunks on [`crate::inputs::threads`] threads (a 2^28-element histogram
/// took about 0.2 s on one core).
fn scan<G: Sync, W: Sync>(got: &[G], want: &[W], bad: impl Fn(&G, &W) -> bool + Sync) -> (Option<usize>, usize) {
    let serial = |g: &[G], w: &[W], offset: usize| {
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

/// Describes a mismatch for the trial's failure message: the buffer, its element type, the
/// element, both values in the buffer's type (an 8- or 16-bit float with its bits, `0x7e00`), how
/// many differ beyond the buffer's tolerance ([`Case::tolerance_for`]), and the seed to replay.
pub fn describe(case: &Case, param_index: usize, m: &Mismatch, seed: u64) -> String {
    let elem = m.elem;
    let head = format!("{}: output parameter #{param_index} ({elem}) of {}", case.name(), case.kernel_names());
    if m.expected.is_nan() && m.got.is_nan() && m.index == 0 && m.count >= m.len {
        let want = case.params.get(param_index).and_then(crate::case::Param::elem);
        return format!(
            "{head}: the reference returned a buffer of another type or length than the parameter ({} elements \
             expected, parameter of {}); return the parameter's own type (f32 or f64 for a floating-point \
             buffer) and length",
            m.len,
            want.map_or("?", |e| e.name())
        );
    }
    let tol = case.tolerance_for(param_index);
    let ulps = if tol.ulps > 0 { format!(" + {} ulp of {elem}", tol.ulps) } else { String::new() };
    format!(
        "{head}, element {}: expected {}, got {} ({} of {} elements differ beyond abs {:e} + rel {:e}{ulps}); replay \
         with KERNELGATE_SEED={seed}",
        m.index,
        shown(m.expected, elem, None),
        shown(m.got, elem, Some(m.got_bits)),
        m.count,
        m.len,
        tol.abs,
        tol.rel,
    )
}

/// `v` as messages show an element of `elem`: an integer as one; an `f32` (or a reference value
/// of a narrower float) as the shortest `f32` that round-trips; an `f64` as itself; with the
/// element's `bits` (a GPU value), a 16- or 8-bit float's value followed by its bit pattern, and a
/// NaN of any float type with its bits, so that NaN payloads and the poison (0xFF bytes) are told
/// apart. Pure.
pub fn shown(v: f64, elem: Elem, bits: Option<u64>) -> String {
    if !elem.is_float() {
        return format!("{v}");
    }
    let digits = 2 * elem.size();
    let pattern = bits.filter(|_| elem.size() <= 2 || v.is_nan()).map(|b| format!("0x{b:0digits$x}"));
    let value = if elem == Elem::F64 && !v.is_nan() {
        format!("{v:?}")
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v}")
    } else {
        format!("{:?}", v as f32)
    };
    match pattern {
        Some(pattern) => format!("{value} ({elem} {pattern})"),
        None => value,
    }
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

/// Takes `case`'s inputs and reference from `inputs`, the trial's entry of its run's inputs cache
/// ([`crate::inputs::Prefetch::prepared`]: drawn from the trial's seed,
/// [`crate::inputs::inputs_seed`], which is `run_seed` mixed with the trial name, or with the family
/// and size where variants share their reference; the reference computed once per inputs); binds
/// its buffers (outputs poisoned), fills every SM's shared memory with 0xFF bytes
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
pub(crate) fn check_case(
    gpu: &Gpu,
    case: &Case,
    compiled: &Compiled,
    inputs: &Taken,
    run_seed: u64,
    start: SharedStart,
) -> crate::error::Result<Result<Bound, String>> {
    let host = inputs.host();
    let reference = || inputs.reference();
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
    let clock = gpu.clock();
    let mut bound = clock.time(Phase::Upload, || program::bind(gpu, case, host))?;
    clock.time(Phase::Check, || -> crate::error::Result<_> {
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
        gpu.clock()
            .time(Phase::Compare, || compare_data(got, want, case.tolerance_for(param_index)))
            .map(|m| (param_index, m))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nan_expected_admits_a_nan_computed_but_never_the_poison() {
        let computed = f32::from_bits(0x7fc0_0000);
        let poison = f32::from_bits(0xffff_ffff);
        assert!(computed.is_nan() && poison.is_nan());
        let tol = Tolerance::EXACT;
        assert_eq!(compare(&[computed, f32::INFINITY, -0.0], &[f32::NAN, f32::INFINITY, 0.0], tol), None);
        let m = compare(&[poison], &[f32::NAN], tol).expect("an output left unwritten");
        assert_eq!((m.index, m.got_bits), (0, 0xffff_ffff));
        assert!(compare(&[1.0], &[f32::NAN], tol).is_some(), "a number where NaN is expected");
        assert!(compare(&[computed], &[1.0], Tolerance::abs_rel(1.0, 1.0)).is_some(), "NaN where a number is");
        let bf = HostData::rounded(Elem::BF16, [f64::NAN]);
        assert_eq!(compare_data(bf.view(), &HostData::F64(vec![f64::NAN]), tol), None, "bf16 NaN computed");
        let poisoned = HostData::poisoned(Elem::BF16, 1);
        assert!(compare_data(poisoned.view(), &HostData::F64(vec![f64::NAN]), tol).is_some(), "bf16 poison");
    }
    use crate::case::Param;

    #[test]
    fn a_wrong_result_is_blamed_on_shared_memory_only_when_the_fill_decides_it() {
        assert_eq!(diagnosis(false, false), None, "wrong whatever shared memory holds");
        assert_eq!(diagnosis(true, false), Some(READS_UNWRITTEN_SHARED));
        assert_eq!(diagnosis(true, true), Some(CHANGES_BETWEEN_RUNS), "right on a rerun: not the fill");
        assert!(READS_UNWRITTEN_SHARED.contains("reads shared memory that nothing wrote"));
    }

    #[test]
    fn u32_buffers_compare_exactly_unless_given_a_tolerance_of_their_own() {
        let (a, b) = (HostData::U32(vec![1, 2, 3]), HostData::U32(vec![1, 5, 3]));
        let case = Case::new("t", "bins", "3", crate::source::k::coalescing::copy_coalesced)
            .params([Param::input(3), Param::output(3), Param::counts(3)])
            .tolerance(Tolerance::abs_rel(10.0, 1.0));
        assert_eq!((case.tolerance_for(1), case.tolerance_for(2)), (Tolerance::abs_rel(10.0, 1.0), Tolerance::EXACT));
        assert_eq!(compare_data(a.view(), &a, case.tolerance_for(2)), None);
        let m = compare_data(b.view(), &a, case.tolerance_for(2)).unwrap();
        assert_eq!((m.index, m.expected, m.got, m.count, m.elem), (1, 2.0, 5.0, 1, Elem::U32));
        let loose = case.tolerance_of(2, Tolerance::ulps(3));
        assert_eq!(compare_data(b.view(), &a, loose.tolerance_for(2)), None, "3 ulps of an integer: 3");
        // An f64 buffer against a u32 reference: a type mismatch, named as one.
        let m = compare_data(HostView::of(&[1.0]), &HostData::U32(vec![1]), Tolerance::EXACT).unwrap();
        let text = describe(&loose, 2, &m, 7);
        assert!(
            text.contains("the reference returned a buffer of another type or length than the parameter"),
            "{text}"
        );
    }

    #[test]
    fn narrow_floats_compare_in_their_own_ulps_against_wider_references() {
        use crate::case::elem::{F8E4M3, bf16};
        // A bf16 output: 1.0 and its neighbour 1.0078125 against an f64 reference of 1.003.
        let got = [bf16::from_f32(1.0), bf16::from_f32(1.0078125)];
        let want = HostData::F64(vec![1.003, 1.003]);
        assert!(compare_data(HostView::of(&got), &want, Tolerance::ulps(1)).is_none(), "within 1 ulp = 2^-7");
        let m = compare_data(HostView::of(&got), &want, Tolerance::EXACT).unwrap();
        assert_eq!((m.index, m.count, m.elem), (0, 2, Elem::BF16));
        // The message shows bf16 values with their bits.
        let case = Case::new("t", "cast", "2", crate::source::k::coalescing::copy_coalesced)
            .params([Param::input(2), Param::output(2).of(Elem::BF16)]);
        let text = describe(&case, 1, &m, 3);
        assert!(
            text.contains(
                "output parameter #1 (bf16) of copy_coalesced, element 0: expected 1.003, got 1 (bf16 0x3f80)"
            ),
            "{text}"
        );
        // An FP8 output bit-exact in its own type; the poison (0xFF, NaN) never passes.
        let q = HostData::rounded(Elem::E4M3, [0.3, -2.0, 448.0]);
        assert_eq!(compare_data(q.view(), &q, Tolerance::EXACT), None);
        let poisoned = HostData::poisoned(Elem::E4M3, 3);
        assert!(poisoned.e4m3().iter().all(|x| x.is_nan()));
        let m = compare_data(poisoned.view(), &q, Tolerance::ulps(100)).unwrap();
        assert_eq!(m.count, 3);
        assert_eq!(shown(0.3125, Elem::E4M3, Some(0x2a)), "0.3125 (e4m3 0x2a)");
        assert_eq!(shown(f64::NAN, Elem::E4M3, Some(0xff)), "NaN (e4m3 0xff)", "the poison, told by its bits");
        assert_eq!(shown(f64::NAN, Elem::F32, Some(0x7fc0_0000)), "NaN (f32 0x7fc00000)");
        assert_eq!(shown(1.5, Elem::F32, Some(0x3fc0_0000)), "1.5", "a wide float's value says it all");
        assert_eq!(m.got_bits, 0xff, "the poison's bits");
        assert_eq!(F8E4M3::from_f64(0.3125).to_bits(), 0x2a);
        // Infinities equal to their reference pass an exact check.
        let inf = HostData::F32(vec![f32::INFINITY]);
        assert_eq!(compare_data(inf.view(), &inf, Tolerance::EXACT), None);
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
        let loose = Tolerance::abs_rel(1.0, 1.0);
        assert!(compare(&[f32::NAN], &[1.0], loose).is_some());
        assert!(compare(&[1.0], &[f32::NAN], loose).is_some());
        let tol = Tolerance::abs_rel(0.0, 1e-6);
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
        let m = compare_data(HostView::of(&g), &HostData::U32(w), Tolerance::EXACT).unwrap();
        assert_eq!((m.index, m.count), (SCAN_CHUNK + 1, 3));
    }

    #[test]
    fn length_difference_is_a_mismatch() {
        let m = compare(&[1.0, 2.0], &[1.0, 2.0, 3.0], Tolerance::EXACT).unwrap();
        assert_eq!((m.index, m.count), (2, 1));
    }
}
