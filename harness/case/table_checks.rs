//! Checks of a case table that need no GPU, for a project's unit tests (the shipped suite's and
//! the library's planted family's use them).

use super::Case;

/// For a project's unit tests of its case table: runs every case's reference on freshly drawn
/// inputs (seed 1) and checks it returns one buffer per compared parameter, each as long as that
/// parameter's buffer and of a type the check compares it in (the parameter's own, or `f32` or
/// `f64` for a floating-point one: [`crate::case::Reference`]), that no compared buffer's
/// tolerance is tighter than its element type can be held to ([`crate::case::Tolerance::too_tight_for`]:
/// a relative tolerance below half an ulp of an f16, bf16 or FP8 buffer), then
/// [`assert_program_fits`]. Needs no GPU.
///
/// # Panics
/// Naming the case and the fix, at the first case that does not fit.
///
/// # Example
/// ```
/// kernelgate::case::assert_references_fit(&[]); // a table's cases: `cases(1.0)`
/// ```
pub fn assert_references_fit(cases: &[Case]) {
    use crate::case::{HostData, Param};
    for c in cases {
        // Buffers that cannot be drawn are named with their case before a draw panics without it.
        assert_inputs_fit(c);
        let inputs: Vec<HostData> = c.params.iter().filter_map(|p| crate::check::draw(p, 1)).collect();
        let out = (c.reference)(&inputs);
        let lens: Vec<usize> = c.params.iter().filter(|p| p.is_compared()).map(Param::elements).collect();
        let got: Vec<usize> = out.iter().map(HostData::len).collect();
        assert_eq!(
            got,
            lens,
            "{}: the reference returned buffers of these lengths (left), the compared parameters \
             (Out, InOut, Zeroed, host destinations) have these (right); return one buffer per compared \
             parameter, in parameter order",
            c.name()
        );
        let compared = c.params.iter().enumerate().filter(|(_, p)| p.is_compared());
        for ((slot, p), want) in compared.zip(&out) {
            let (param, returned) = (p.elem().expect("a compared parameter is a buffer"), want.elem());
            let fits = returned == param
                || (param.is_float() && matches!(returned, crate::case::Elem::F32 | crate::case::Elem::F64));
            assert!(
                fits,
                "{}: the reference returned {returned} for parameter {slot}, a buffer of {param}; return {param}{}",
                c.name(),
                if param.is_float() { " (or f32 or f64: compared unrounded within its ulps)" } else { "" }
            );
            let tolerance = c.tolerance_for(slot);
            if let Some(least) = tolerance.too_tight_for(param) {
                panic!(
                    "{}: parameter {slot} ({param}) is compared within a relative tolerance of {:e} alone, below half \
                     an ulp of {param} at 1.0 ({least:e} = 2^{}): a result rounded correctly to {param} differs from an \
                     unrounded reference by up to that much, so this tolerance admits only a bit-equal result, which no \
                     GPU result can be relied on to be; give rel at least {least:e} (Tolerance::abs_rel(0.0, {least:e})), \
                     or Tolerance::ulps(1), or Tolerance::EXACT where the result is bit-exact (a copy)",
                    c.name(),
                    tolerance.rel,
                    least.log2()
                );
            }
        }
        assert_program_fits(c);
    }
}

/// Every input of `c` can be drawn ([`crate::inputs::unfit`]: a permutation in a float buffer,
/// given values of the wrong length or range).
///
/// # Panics
/// Naming the case, the parameter (its slot, from 0) and the fix.
fn assert_inputs_fit(c: &Case) {
    use crate::case::Param;
    for (i, p) in c.params.iter().enumerate() {
        if let Param::In { init, elem, len, .. }
        | Param::InOut { init, elem, len, .. }
        | Param::Host { init: Some(init), elem, len, .. } = *p
            && let Some(why) = crate::inputs::unfit(init, elem, len)
        {
            panic!("{}: parameter {i}: {why}", c.name());
        }
    }
}

/// For a project's unit tests of its case table: every step of `c`'s program names parameters
/// that exist and are of the right kind, stays inside its buffers, and a graph program copies no
/// pageable memory. Needs no GPU.
///
/// # Panics
/// Naming the case, the step and the fix.
pub fn assert_program_fits(c: &Case) {
    use crate::case::{Arg, Param, Step};
    let name = c.name();
    let device = |i: usize| matches!(c.params.get(i), Some(p) if p.is_buffer() && !matches!(p, Param::Host { .. }));
    assert_inputs_fit(c);
    for step in &c.steps {
        match step {
            Step::Launch { args, kernel, .. } => {
                assert!(!args.is_empty(), "{name}: {} has no arguments", kernel.name());
                for a in args {
                    match *a {
                        Arg::Slot(i) => assert!(
                            i < c.params.len() && !matches!(c.params[i], Param::Host { .. }),
                            "{name}: {} (a launch in its program) takes Arg::Slot({i}), but the case has {} \
                             slots (0..{}) and a kernel cannot take a host buffer; name a slot of .params([...])",
                            kernel.name(),
                            c.params.len(),
                            c.params.len()
                        ),
                        Arg::At { slot, offset } => {
                            assert!(device(slot) && offset < c.params[slot].elements(), "{name}: argument {a:?}")
                        }
                        Arg::I32(_) | Arg::F32(_) | Arg::U64(_) | Arg::F16(_) | Arg::BF16(_) | Arg::F64(_) => {}
                    }
                }
            }
            Step::Copy { from, from_offset, to, to_offset, elems, .. } => {
                for (slot, offset) in [(from, from_offset), (to, to_offset)] {
                    let p = c.params.get(*slot).unwrap_or_else(|| panic!("{name}: copy slot {slot}"));
                    assert!(p.is_buffer() && offset + elems <= p.elements(), "{name}: copy {step:?} overruns {p:?}");
                }
                let host = |i: &usize| matches!(c.params[*i], Param::Host { .. });
                assert!(!(host(from) && host(to)), "{name}: host-to-host copy");
                let (a, b) = (c.params[*from].elem(), c.params[*to].elem());
                assert!(
                    a == b,
                    "{name}: copy {step:?} from a buffer of {} to one of {}: a copy moves bytes, so both slots hold one \
                     element type; convert in a kernel",
                    a.map_or("?", |e| e.name()),
                    b.map_or("?", |e| e.name())
                );
                let pageable = |i: &usize| matches!(c.params[*i], Param::Host { pinned: false, .. });
                assert!(!(c.graph && (pageable(from) || pageable(to))), "{name}: a graph copies pageable memory");
            }
            Step::Sgemm { a, b, c: out, m, n, k, alpha, beta } => {
                for (slot, len) in [(a, m * k), (b, k * n), (out, m * n)] {
                    assert!(device(*slot) && c.params[*slot].elements() >= len, "{name}: cuBLAS operand {slot}");
                    assert!(
                        c.params[*slot].elem() == Some(crate::case::Elem::F32),
                        "{name}: cuBLAS operand {slot} of cublasSgemm holds {:?}; SGEMM multiplies f32 buffers",
                        c.params[*slot].elem()
                    );
                }
                assert!(alpha.is_finite() && beta.is_finite(), "{name}: cuBLAS alpha {alpha}, beta {beta}: not finite");
                assert!(
                    *beta == 0.0 || matches!(c.params[*out], Param::InOut { .. }),
                    "{name}: cuBLAS reads C (slot {out}) when beta = {beta} is not 0, but slot {out} is {:?}; make it a \
                     Param::InOut, whose drawn contents are the C read (an output is poisoned with NaN)",
                    c.params[*out]
                );
            }
            Step::Host(call) => {
                for slot in &call.slots {
                    assert!(
                        device(*slot),
                        "{name}: the host call {} takes slot {slot}, which is not a device buffer (the case has {} \
                         slots; a host call is handed device buffers, as a kernel is)",
                        call.name,
                        c.params.len()
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::Param;

    /// A cuBLAS program `C = alpha A B + beta C` over 2x2 matrices, with C in a slot of kind `c`.
    fn sgemm_case(c: Param, beta: f32) -> Case {
        use crate::case::Step;
        Case::program("t", "sgemm", "2").params(vec![Param::input(4), Param::input(4), c]).step(Step::Sgemm {
            a: 0,
            b: 1,
            c: 2,
            m: 2,
            n: 2,
            k: 2,
            alpha: 2.0,
            beta,
        })
    }

    #[test]
    fn references_in_f64_fit_narrow_outputs_and_another_type_is_named() {
        use crate::case::{Elem, HostData};
        let k = crate::source::k::coalescing::copy_coalesced;
        let case = |out: Elem| {
            Case::new("t", "cast", "8", k).params([Param::input(8).of(Elem::BF16), Param::output(8).of(out)])
        };
        for (out, returned) in
            [(Elem::BF16, Elem::F64), (Elem::BF16, Elem::F32), (Elem::F16, Elem::F16), (Elem::U8, Elem::U8)]
        {
            assert_references_fit(&[
                case(out).reference_data(move |b| vec![HostData::rounded(returned, b[0].to_f64())])
            ]);
        }
        let wrong = case(Elem::F16).reference_data(|b| vec![HostData::rounded(Elem::I32, b[0].to_f64())]);
        let err =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| assert_references_fit(&[wrong]))).unwrap_err();
        let msg = err.downcast_ref::<String>().cloned().unwrap();
        assert!(
            msg.starts_with("t/cast/8: the reference returned i32 for parameter 1, a buffer of f16; return f16"),
            "{msg}"
        );
    }

    /// A relative tolerance below half an ulp of a narrow output passes every other check on the
    /// CPU, but no GPU result meets it reliably: refused, naming the case, the tolerance, the type
    /// and the least sensible value. ulps, EXACT and f32 outputs are left alone.
    #[test]
    fn a_tolerance_tighter_than_half_an_ulp_of_a_narrow_output_is_refused() {
        use crate::case::{Elem, HostData, Tolerance};
        let k = crate::source::k::coalescing::copy_coalesced;
        let case = |out: Elem, tolerance: Tolerance| {
            Case::new("t", "cast", "8", k)
                .params([Param::input(8).of(Elem::BF16), Param::output(8).of(out)])
                .reference_data(|b| vec![HostData::rounded(Elem::F64, b[0].to_f64())])
                .tolerance(tolerance)
        };
        let tight = Tolerance::abs_rel(0.0, 1e-3);
        let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            assert_references_fit(&[case(Elem::BF16, tight)])
        }))
        .unwrap_err();
        let msg = err.downcast_ref::<String>().cloned().unwrap();
        assert!(
            msg.starts_with(
                "t/cast/8: parameter 1 (bf16) is compared within a relative tolerance of 1e-3 alone, below half an \
                 ulp of bf16 at 1.0 (3.90625e-3 = 2^-8)"
            ),
            "{msg}"
        );
        assert!(msg.contains("give rel at least 3.90625e-3"), "{msg}");
        // Per buffer: a tolerance of the buffer's own is the one held to the rule.
        let own = case(Elem::F16, Tolerance::ulps(1)).tolerance_of(1, Tolerance::abs_rel(0.0, 1e-4));
        let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| assert_references_fit(&[own]))).unwrap_err();
        let msg = err.downcast_ref::<String>().cloned().unwrap();
        assert!(msg.contains("parameter 1 (f16)") && msg.contains("(4.8828125e-4 = 2^-11)"), "{msg}");
        for fine in [
            case(Elem::BF16, Tolerance::abs_rel(0.0, 2f64.powi(-8))),
            case(Elem::BF16, Tolerance::ulps(1)),
            case(Elem::BF16, Tolerance::EXACT),
            case(Elem::BF16, Tolerance::FMA),
            case(Elem::F32, tight),
            case(Elem::F16, Tolerance::ulps(1)).tolerance_of(1, Tolerance::abs_rel(0.0, 1e-3)),
        ] {
            assert_references_fit(&[fine]);
        }
        let rules = [(Elem::E4M3, 2f64.powi(-4)), (Elem::E5M2, 2f64.powi(-3)), (Elem::F16, 2f64.powi(-11))];
        for (elem, least) in rules {
            assert_eq!(Tolerance::abs_rel(0.0, least / 2.0).too_tight_for(elem), Some(least), "{elem}");
            assert_eq!(Tolerance::abs_rel(0.0, least).too_tight_for(elem), None, "{elem}");
        }
    }

    #[test]
    fn a_draw_or_a_copy_that_does_not_fit_the_element_type_is_named() {
        use crate::case::{Elem, Init, Step};
        let panics = |c: Case| {
            let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| assert_program_fits(&c))).unwrap_err();
            err.downcast_ref::<String>().cloned().unwrap()
        };
        let perm = Param::In { init: Init::Permutation, elem: Elem::F16, len: 4, offset: 0 };
        let msg = panics(
            Case::new("t", "p", "4", crate::source::k::coalescing::copy_coalesced).params([perm, Param::output(4)]),
        );
        assert!(msg.starts_with("t/p/4: parameter 0: Permutation cannot fill a buffer of f16"), "{msg}");
        // The references' check names the case too, before it draws (a new user's report).
        let short = Param::In { init: Init::Values(&[1.0, 2.0]), elem: Elem::U64, len: 3, offset: 0 };
        let c =
            Case::new("t", "v", "3", crate::source::k::coalescing::copy_coalesced).params([short, Param::output(3)]);
        let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| assert_references_fit(&[c]))).unwrap_err();
        let msg = err.downcast_ref::<String>().cloned().unwrap();
        assert!(msg.starts_with("t/v/3: parameter 0: Init::Values holds 2 values for a buffer of 3"), "{msg}");
        let copy = Step::Copy { from: 0, from_offset: 0, to: 1, to_offset: 0, elems: 4, stream: 0 };
        let msg =
            panics(Case::program("t", "c", "4").params([Param::input(4), Param::output(4).of(Elem::BF16)]).step(copy));
        assert!(msg.contains("from a buffer of f32 to one of bf16"), "{msg}");
    }

    #[test]
    fn a_cublas_step_that_reads_c_needs_an_in_place_c() {
        let in_place = Param::InOut {
            init: crate::case::Init::Uniform { lo: -1.0, hi: 1.0 },
            elem: crate::case::Elem::F32,
            len: 4,
            offset: 0,
        };
        assert_program_fits(&sgemm_case(in_place, 0.5));
        assert_program_fits(&sgemm_case(Param::output(4), 0.0));
        let err = std::panic::catch_unwind(|| assert_program_fits(&sgemm_case(Param::output(4), 0.5))).unwrap_err();
        let msg = err.downcast_ref::<String>().unwrap();
        assert!(msg.contains("beta = 0.5 is not 0") && msg.contains("make it a Param::InOut"), "{msg}");
    }
}
