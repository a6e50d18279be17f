//! `kernels/divergence.cu`: the same fused multiply-adds chosen by lane parity (every warp
//! diverges and runs both formulas) or by warp parity (no warp diverges).

use super::{elements, par_map, scaled_count};
use crate::k::divergence as kd;
use kernelgate::case::{Case, Launch, Param};
use kernelgate::expect::Expectation as E;
use kernelgate::source::Kernel;

/// Elements: 2^22, one thread each.
pub const N: usize = 1 << 22;
/// Fused multiply-adds per element on either formula (STEPS in divergence.cu).
pub const STEPS: usize = 256;
/// Threads per block: a multiple of 64, so that lane parity is element parity and warp parity is
/// bit 5 of the element index (what the CPU reference uses).
const BLOCK: u32 = 256;
/// ncu's threads per executed warp instruction (0 to 32; what nvprof's `warp_execution_efficiency`
/// became), and the percentage of executed branches whose active threads all took the same target
/// (nvprof's `branch_efficiency`): Nsight Compute CLI, "Nvprof Transition Guide", "Metric
/// Comparison". Both were collected on the H200 (ncu 2025.3.1, 2026-11-30).
const THREADS_PER_INST: &str = "smsp__thread_inst_executed_per_inst_executed.ratio";
const UNIFORM_BRANCHES: &str = "smsp__sass_average_branch_targets_threads_uniform.pct";

/// Whether element `i` takes formula b.
type Choice = fn(usize) -> bool;

/// The variants: name, entry point, and which elements take formula b.
const VARIANTS: [(&str, Kernel, Choice); 2] =
    [("by_lane", kd::branch_by_lane, |i| i & 1 == 1), ("by_warp", kd::branch_by_warp, |i| (i >> 5) & 1 == 1)];

/// The family at full size.
pub fn cases() -> Vec<Case> {
    sized(N)
}

/// The family with `scale` times the elements, changed by a multiple of 1024
/// ([`super::scaled_count`]).
pub fn scaled(scale: f64) -> Vec<Case> {
    sized(scaled_count(N, scale, 1024))
}

/// `acc <- 0.75 acc + x`, [`STEPS`] fused multiply-adds (`formula_a` in divergence.cu); `mul_add`
/// rounds once, like `fmaf`, so the GPU result is bit-exact.
pub fn formula_a(x: f32) -> f32 {
    (0..STEPS).fold(x, |acc, _| acc.mul_add(0.75, x))
}

/// `acc <- acc + x / 256`, [`STEPS`] fused multiply-adds (`formula_b` in divergence.cu).
pub fn formula_b(x: f32) -> f32 {
    (0..STEPS).fold(x, |acc, _| x.mul_add(0.003_906_25, acc))
}

/// The counter lessons of each variant. Bounds come from the SASS that ptxas 13.5 makes of
/// divergence.cu for sm_90 (nvdisasm): 18 instructions before the branch and 6 after it, run by all
/// 32 threads, and 256 FFMAs per formula plus one branch, run by 16 threads in a divergent warp.
fn lessons(variant: &str) -> Vec<E> {
    match variant {
        "by_lane" => vec![
            // (24 x 32 + 513 x 16) / 537 = 16.7 threads per instruction.
            E::metric(THREADS_PER_INST)
                .between(16.0, 17.5)
                .because("each formula runs with half the warp's lanes masked off: about 16 of 32 threads work"),
            // H200 (ncu 2025.3.1, GPU-9b8584e0; confirmed on GPU-1c2e7f54, 2026-11-30): 50 % by lane, 100 % by warp; the divergent branch is 1 of the 3-4 branches a warp runs.
            E::metric(UNIFORM_BRANCHES).at_most(90.0).because("the lane-parity branch splits every warp"),
            // 537 / 281 warp instructions = 1.91 when issue-bound (2^22 x 256 FMAs, 8 bytes of
            // memory traffic each: compute-bound); H200: 1.76 (ncu), 1.73 (events), 2026-11-30.
            E::metric("gpu__time_duration.sum")
                .relative_to("by_warp")
                .between(1.6, 2.2)
                .because("a divergent warp issues both formulas: about twice the instructions for the same work"),
        ],
        _ => vec![
            E::metric(THREADS_PER_INST)
                .at_least(31.9)
                .because("the branch is uniform within each warp: all 32 threads run every instruction"),
            // H200: 32.0 threads per instruction by warp, 16.66 by lane (n is a multiple of the block: no partial warp).
            E::metric(UNIFORM_BRANCHES).at_least(99.9).because("no branch splits a warp"),
        ],
    }
}

fn sized(n: usize) -> Vec<Case> {
    let n_i32 = i32::try_from(n).expect("n fits int");
    VARIANTS
        .into_iter()
        .map(|(variant, kernel, takes_b)| {
            Case::new("divergence", variant, elements(n), kernel)
                .launch(Launch::linear(n, BLOCK))
                .params([Param::input(n), Param::output(n), Param::I32(n_i32)])
                .reference(move |b| {
                    let x = b[0].f32();
                    vec![par_map(x.len(), |i| if takes_b(i) { formula_b(x[i]) } else { formula_a(x[i]) })]
                })
                .bytes(8 * n as u64)
                .flops(2 * (STEPS * n) as u64)
                .metric(THREADS_PER_INST)
                .metric(UNIFORM_BRANCHES)
                .expects(lessons(variant))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernelgate::case::HostData;

    #[test]
    fn references_fit_their_buffers() {
        kernelgate::case::assert_references_fit(&sized(1000));
    }

    #[test]
    fn formulas_match_their_closed_forms() {
        // a: the fixed point of acc = 0.75 acc + x is 4x; b: x + 256 * x / 256 = 2x, both exact
        // for x = 1 (every intermediate is a multiple of 2^-8 below 2^24 ulps).
        assert_eq!(formula_b(1.0), 2.0);
        assert!((formula_a(1.0) - 4.0).abs() < 1e-6);
        assert!((formula_a(-0.5) + 2.0).abs() < 1e-6);
        assert_ne!(formula_a(0.3), formula_b(0.3));
    }

    #[test]
    fn lanes_and_warps_pick_the_formulas() {
        let cases = sized(128);
        let x: Vec<f32> = (0..128).map(|i| i as f32 / 128.0).collect();
        let run = |variant: &str| {
            let c = cases.iter().find(|c| c.variant == variant).unwrap();
            (c.reference)(&[HostData::F32(x.clone()), HostData::F32(vec![f32::NAN; 128])]).remove(0).f32().to_vec()
        };
        let lane = run("by_lane");
        assert_eq!((lane[2], lane[3]), (formula_a(x[2]), formula_b(x[3])));
        let warp = run("by_warp");
        assert_eq!((warp[31], warp[32], warp[64]), (formula_a(x[31]), formula_b(x[32]), formula_a(x[64])));
        // The same work: half the elements take each formula in both variants.
        for (_, _, takes_b) in VARIANTS {
            assert_eq!((0..128).filter(|&i| takes_b(i)).count(), 64);
        }
    }

    #[test]
    fn every_element_has_a_thread() {
        let c = &sized(1000)[0];
        assert_eq!(c.first_launch().grid_for(132), [4, 1, 1]);
        assert_eq!(BLOCK % 64, 0, "lane and warp parity follow the element index");
    }
}
