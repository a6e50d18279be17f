//! `kernels/readonly.cu`: a gather through plain loads, `const __restrict__` pointers and `__ldg`,
//! over the whole input and within 256-float windows (where L1 has something to serve).
//!
//! The lesson is that on sm_80 and sm_90 the three are the same: `__restrict__` and `__ldg` turn
//! LDG.E into LDG.E.CONSTANT (checked with nvdisasm on ptxas 13.5 output), but ordinary loads are
//! cached in the same unified L1 (see the comment at the top of readonly.cu for the sources), so
//! instruction counts, hit rates and times agree.

use super::{elements, scaled_count};
use crate::k::readonly as kr;
use kernelgate::case::{Case, Elem, Init, Launch, Param};
use kernelgate::expect::Expectation as E;
use kernelgate::sass::SassExpectation as S;
use kernelgate::source::Kernel;

/// Elements gathered: 2^24 (64 MiB of input, more than the H200's 60 MiB L2).
pub const N: usize = 1 << 24;
/// Floats per window of the windowed gather: one 256-thread block's elements (1 KiB, 32 sectors).
pub const WINDOW: usize = 256;
const BLOCK: u32 = 256;
/// L1 hit rate of the sectors that global loads look up, in percent.
const L1_HIT_RATE: &str = "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct";

/// The load variants: name and entry point.
const LOADS: [(&str, Kernel); 3] =
    [("plain", kr::gather_plain), ("restrict", kr::gather_restrict), ("ldg", kr::gather_ldg)];

/// The family at full size.
pub fn cases() -> Vec<Case> {
    sized(N)
}

/// The family with `scale` times the elements, changed by a multiple of 1024 so that `n` stays a
/// multiple of [`WINDOW`] ([`super::scaled_count`]).
pub fn scaled(scale: f64) -> Vec<Case> {
    sized(scaled_count(N, scale, 1024))
}

/// `out[i] = input[(i & !mask) | (idx[i] & mask)]`: `mask` all ones gathers `input[idx[i]]`,
/// `mask = WINDOW - 1` stays within the window that holds `i`.
pub fn gather(input: &[f32], idx: &[u32], mask: u32) -> Vec<f32> {
    idx.iter().enumerate().map(|(i, &j)| input[((i as u32) & !mask | (j & mask)) as usize]).collect()
}

/// The counter lessons of one variant: `load` (plain, restrict, ldg), windowed or not.
fn lessons(load: &str, windowed: bool) -> Vec<E> {
    let plain = if windowed { "plain_window" } else { "plain" };
    let mut lessons = Vec::new();
    if load != "plain" {
        lessons.push(
            E::metric("smsp__sass_inst_executed_op_global_ld.sum")
                .relative_to(plain)
                .between(0.999, 1.001)
                .because("the same two loads per element: only the cache hint differs (LDG.E.CONSTANT, not LDG.E)"),
        );
        // H200 (ncu 2025.3.1, GPU-9b8584e0; confirmed on GPU-1c2e7f54, 2026-11-30): times within 1.3 % of plain
        lessons.push(
            E::metric("gpu__time_duration.sum")
                .relative_to(plain)
                .between(0.95, 1.05)
                .because("on sm_90 plain loads use the same unified L1 as the read-only path"),
        );
    }
    match (load, windowed) {
        // H200, 2026-11-30: 67.2 % L1 hits windowed, 0.06 % over the whole input; a block's 8 warps look up ~165 sectors of its 32-sector window
        // (32 random floats in 32 sectors touch ~20.6), and its index loads 32 more, all misses:
        // at most (165 - 32) / (165 + 32) = 68 % hits if the window stays in L1.
        ("plain", true) => lessons.push(
            E::metric(L1_HIT_RATE)
                .at_least(40.0)
                .because("plain loads are cached in L1 on sm_90: the block's repeats within its window hit"),
        ),
        (_, true) => lessons.push(
            E::metric(L1_HIT_RATE)
                .relative_to(plain)
                .between(0.9, 1.1)
                .because("the read-only path hits no more often than plain loads: one L1 serves both"),
        ),
        // A random float of a 64 MiB input is in this SM's L1 (at most 256 KiB) with a chance of
        // about 0.4 %, and the index stream is read once.
        ("plain", false) => lessons
            .push(E::metric(L1_HIT_RATE).at_most(10.0).because("a gather over the whole input has nothing to reuse")),
        _ => {}
    }
    lessons
}

fn sized(n: usize) -> Vec<Case> {
    assert!(n.is_multiple_of(WINDOW), "the windowed gather needs n % {WINDOW} == 0 to stay inside the input");
    let n_i32 = i32::try_from(n).expect("n fits int");
    let mut cases = Vec::new();
    for windowed in [false, true] {
        let mask: u32 = if windowed { WINDOW as u32 - 1 } else { u32::MAX };
        for (load, kernel) in LOADS {
            let variant = if windowed { format!("{load}_window") } else { load.to_string() };
            cases.push(
                Case::new("readonly", variant, elements(n), kernel)
                    .launch(Launch::linear(n, BLOCK))
                    .params([
                        Param::input(n),
                        Param::In { init: Init::Permutation, elem: Elem::U32, len: n, offset: 0 },
                        Param::output(n),
                        Param::I32(n_i32),
                        // all ones is -1 as a C int
                        Param::I32(mask as i32),
                    ])
                    .reference(move |b| vec![gather(b[0].f32(), b[1].u32(), mask)])
                    // the values, the indices and the output, each once
                    .bytes(12 * n as u64)
                    .metric(L1_HIT_RATE)
                    .expects(lessons(load, windowed))
                    .sass([if load == "plain" {
                        S::class("global_ld.nc")
                            .absent()
                            .because("without const __restrict__ the loads may alias the output")
                    } else {
                        S::class("global_ld.nc").present().because("read-only loads: LDG.E.CONSTANT (ld.global.nc)")
                    }]),
            );
        }
    }
    cases
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_fit_their_buffers() {
        kernelgate::case::assert_references_fit(&sized(2 * WINDOW));
    }

    #[test]
    fn gathers_follow_the_indices_within_their_window() {
        let input: Vec<f32> = (0..8).map(|i| 10.0 * i as f32).collect();
        let idx = [7, 0, 5, 2, 1, 6, 3, 4];
        assert_eq!(gather(&input, &idx, u32::MAX), vec![70.0, 0.0, 50.0, 20.0, 10.0, 60.0, 30.0, 40.0]);
        // windows of 4: element i reads from its own window, at idx[i] % 4
        assert_eq!(gather(&input, &idx, 3), vec![30.0, 0.0, 10.0, 20.0, 50.0, 60.0, 70.0, 40.0]);
    }

    #[test]
    fn every_variant_is_judged_against_plain_loads_of_its_kind() {
        let cases = sized(WINDOW);
        assert_eq!(cases.len(), 6);
        for c in &cases {
            let windowed = c.variant.ends_with("_window");
            assert_eq!(c.params[4], Param::I32(if windowed { 255 } else { -1 }), "{}", c.name());
            for e in &c.expectations {
                if let Some(partner) = e.relative_to {
                    assert_eq!(partner, if windowed { "plain_window" } else { "plain" }, "{}", c.name());
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "n % 256 == 0")]
    fn a_size_that_splits_a_window_is_refused() {
        sized(1000);
    }
}
