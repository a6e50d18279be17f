//! Checks of a case table that need no GPU, for a project's unit tests (the shipped suite's and
//! the library's planted family's use them).

use super::Case;

/// For a project's unit tests of its case table: runs every case's reference on freshly drawn
/// inputs (seed 1) and checks it returns one buffer per compared parameter, each as long as that
/// parameter's buffer, then [`assert_program_fits`]. Needs no GPU.
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
        let inputs: Vec<HostData> = c.params.iter().filter_map(|p| crate::check::draw(p, 1)).collect();
        let out = (c.reference)(&inputs);
        let lens: Vec<usize> = c.params.iter().filter(|p| p.is_compared()).map(Param::elements).collect();
        let got: Vec<usize> = out.iter().map(|d| d.bytes() / 4).collect();
        assert_eq!(
            got,
            lens,
            "{}: the reference returned buffers of these lengths (left), the compared parameters \
             (Out, InOut, Zeroed, host destinations) have these (right); return one buffer per compared \
             parameter, in parameter order",
            c.name()
        );
        assert_program_fits(c);
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
    for step in &c.steps {
        match step {
            Step::Launch { args, kernel, .. } => {
                assert!(!args.is_empty(), "{name}: {} has no arguments", kernel.entry);
                for a in args {
                    match *a {
                        Arg::Slot(i) => assert!(
                            i < c.params.len() && !matches!(c.params[i], Param::Host { .. }),
                            "{name}: {} (a launch in its program) takes Arg::Slot({i}), but the case has {} \
                             slots (0..{}) and a kernel cannot take a host buffer; name a slot of .params([...])",
                            kernel.entry,
                            c.params.len(),
                            c.params.len()
                        ),
                        Arg::At { slot, offset } => {
                            assert!(device(slot) && offset < c.params[slot].elements(), "{name}: argument {a:?}")
                        }
                        Arg::I32(_) | Arg::F32(_) => {}
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
                let pageable = |i: &usize| matches!(c.params[*i], Param::Host { pinned: false, .. });
                assert!(!(c.graph && (pageable(from) || pageable(to))), "{name}: a graph copies pageable memory");
            }
            Step::Sgemm { a, b, c: out, m, n, k, alpha, beta } => {
                for (slot, len) in [(a, m * k), (b, k * n), (out, m * n)] {
                    assert!(device(*slot) && c.params[*slot].elements() >= len, "{name}: cuBLAS operand {slot}");
                }
                assert!(alpha.is_finite() && beta.is_finite(), "{name}: cuBLAS alpha {alpha}, beta {beta}: not finite");
                assert!(
                    *beta == 0.0 || matches!(c.params[*out], Param::InOut { .. }),
                    "{name}: cuBLAS reads C (slot {out}) when beta = {beta} is not 0, but slot {out} is {:?}; make it a \
                     Param::InOut, whose drawn contents are the C read (an output is poisoned with NaN)",
                    c.params[*out]
                );
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
    fn a_cublas_step_that_reads_c_needs_an_in_place_c() {
        let in_place = Param::InOut { init: crate::case::Init::Uniform { lo: -1.0, hi: 1.0 }, len: 4, offset: 0 };
        assert_program_fits(&sgemm_case(in_place, 0.5));
        assert_program_fits(&sgemm_case(Param::output(4), 0.0));
        let err = std::panic::catch_unwind(|| assert_program_fits(&sgemm_case(Param::output(4), 0.5))).unwrap_err();
        let msg = err.downcast_ref::<String>().unwrap();
        assert!(msg.contains("beta = 0.5 is not 0") && msg.contains("make it a Param::InOut"), "{msg}");
    }
}
