//! `kernels/occupancy.cu`: a kernel with 56 or 64 live accumulators per thread, compiled as ptxas
//! likes it and under `__launch_bounds__(256, 4)`: registers per thread, the occupancy they allow,
//! and the spills a bound can cost.

use super::{par_map, scaled_count};
use crate::k::occupancy as ko;
use kernelgate::case::{Case, HostData, Launch, Param};
use kernelgate::expect::Expectation as E;
use kernelgate::sass::SassExpectation as S;
use kernelgate::source::Kernel;

/// Threads (outputs): 2^20.
pub const N: usize = 1 << 20;
/// Inputs per thread: the rows of the input, `K x N` floats (64 MiB).
pub const K: usize = 16;
/// Threads per block (the `256` of `__launch_bounds__(256, 4)`).
const BLOCK: u32 = 256;

/// The variants: name, entry point, accumulators per thread, and whether `__launch_bounds__`
/// caps the registers.
const VARIANTS: [(&str, Kernel, usize, bool); 4] = [
    ("acc56", ko::accumulate56, 56, false),
    ("acc56_bounded", ko::accumulate56_bounded, 56, true),
    ("acc64", ko::accumulate64, 64, false),
    ("acc64_bounded", ko::accumulate64_bounded, 64, true),
];

/// The family at full size.
pub fn cases() -> Vec<Case> {
    sized(N, K)
}

/// The family with `scale` times the threads, changed by a multiple of 1024
/// ([`super::scaled_count`]); the inputs per thread stay.
pub fn scaled(scale: f64) -> Vec<Case> {
    sized(scaled_count(N, scale, 1024), K)
}

/// Thread `t`'s output (`accumulate<ACC>` in occupancy.cu, `ACC = accumulators`, at most 64):
/// `acc[j] = x_0 (j + 1)`, then for each later input `v`: `acc[j] = fma(acc[j], v, (j + 1) / 128)`,
/// then the sum of `acc[j] / 32` in order of `j`, each step one fused multiply-add. `input` is `k`
/// rows of `n`.
pub fn accumulate(input: &[f32], n: usize, k: usize, t: usize, accumulators: usize) -> f32 {
    let mut acc = [0.0f32; 64];
    let acc = &mut acc[..accumulators];
    let x0 = input[t];
    for (j, a) in acc.iter_mut().enumerate() {
        *a = x0 * (j + 1) as f32;
    }
    for s in 1..k {
        let v = input[s * n + t];
        for (j, a) in acc.iter_mut().enumerate() {
            *a = a.mul_add(v, 0.007_812_5 * (j + 1) as f32);
        }
    }
    acc.iter().fold(0.0, |sum, a| a.mul_add(0.031_25, sum))
}

/// The counter lessons of each variant. Register counts are those of ptxas 13.5 for sm_90 (68 and
/// 76 without a bound, 63 and 64 with it; 8 and 120 bytes of spill stores with it); the driver's
/// JIT on the runner may differ by a few. Occupancy arithmetic: 65536 registers and 64 warps per
/// SM, registers allocated per thread in steps of 8 (see occupancy.cu).
fn lessons(variant: &str, bounded: bool) -> Vec<E> {
    let regs = "launch__registers_per_thread";
    let limit = "launch__occupancy_limit_registers";
    if !bounded {
        return vec![
            E::metric(regs).at_least(65.0).because("all accumulators stay in registers: more than 64 per thread"),
            E::metric(limit).at_most(3.0).because("65 to 80 registers x 256 threads: 3 blocks fit in 65536 registers"),
            E::metric("l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum")
                .at_most(0.0)
                .because("without a bound ptxas does not spill"),
        ];
    }
    let free = if variant == "acc56_bounded" { "acc56" } else { "acc64" };
    let mut lessons = vec![
        E::metric(regs).at_most(64.0).because("__launch_bounds__(256, 4): 4 blocks of 256 threads in 65536 registers"),
        E::metric(limit).at_least(4.0).because("64 registers x 256 threads: 4 blocks per SM"),
        E::metric("sm__maximum_warps_per_active_cycle_pct")
            .relative_to(free)
            .between(1.3, 1.36)
            .because("theoretical occupancy 32 of 64 warps instead of 24: 4/3"),
    ];
    if variant == "acc56_bounded" {
        lessons.extend([
            // H200 (ncu 2025.3.1, GPU-9b8584e0; confirmed on GPU-1c2e7f54, 2026-11-30): achieved occupancy 46.0 vs 34.4 %, 1.34 times
            E::metric("sm__warps_active.avg.pct_of_peak_sustained_active")
                .relative_to(free)
                .at_least(1.15)
                .because("achieved occupancy follows the theoretical one"),
            // H200, 2026-11-30: time 0.916 of the unbounded kernel (ncu); each iteration's 56 FMAs wait for its load; 4/3 the warps
            // hide up to 4/3 the latency, and the bound costs one 8-byte spill per iteration.
            E::metric("gpu__time_duration.sum")
                .relative_to(free)
                .at_most(0.95)
                .because("the loop is latency-bound: more resident warps hide more of each load's wait"),
        ]);
    } else {
        lessons.push(
            E::metric("l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum")
                .at_least(1.0)
                .because("64 accumulators and the loaded value cannot all live in 64 registers: ptxas spills"),
        );
    }
    lessons
}

fn sized(n: usize, k: usize) -> Vec<Case> {
    let (n_i32, k_i32) = (i32::try_from(n).expect("n fits int"), i32::try_from(k).expect("k fits int"));
    VARIANTS
        .into_iter()
        .map(|(variant, kernel, accumulators, bounded)| {
            Case::new("occupancy", variant, format!("{k}x{n}"), kernel)
                .launch(Launch::linear(n, BLOCK))
                .params([Param::input(k * n), Param::output(n), Param::I32(n_i32), Param::I32(k_i32)])
                .reference(move |b: &[HostData]| {
                    let input = b[0].f32();
                    vec![par_map(n, |t| accumulate(input, n, k, t, accumulators))]
                })
                .bytes(4 * (k * n + n) as u64)
                // the first row is a multiply, the final sum one FMA per accumulator
                .flops((2 * (k - 1) * accumulators + accumulators + 2 * accumulators) as u64 * n as u64)
                .expects(lessons(variant, bounded))
                .sass([if bounded {
                    S::class("local_st")
                        .present()
                        .because("the launch bound caps registers, so accumulators spill: STL")
                } else {
                    S::class("local_st").absent().because("every accumulator lives in a register")
                }])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_fit_their_buffers() {
        kernelgate::case::assert_references_fit(&sized(300, 3));
    }

    #[test]
    fn one_input_is_a_weighted_sum() {
        // k = 1: acc[j] = x (j + 1) exactly for x = 1, and the sum of (j + 1) / 32 over 56 terms
        // is 56 x 57 / 64 = 49.875, exact in f32.
        assert_eq!(accumulate(&[1.0], 1, 1, 0, 56), 49.875);
        // k = 2, v = 0: every acc[j] becomes (j + 1) / 128; the sum is 56 x 57 / 2 / 4096.
        assert_eq!(accumulate(&[1.0, 0.0], 1, 2, 0, 56), 1596.0 / 4096.0);
    }

    #[test]
    fn threads_read_their_own_column() {
        // 2 threads, 2 rows: thread 1 reads input[1] and input[3].
        let input = [1.0, 2.0, 0.5, 0.125];
        let expected = accumulate(&[2.0, 0.125], 1, 2, 0, 64);
        assert_eq!(accumulate(&input, 2, 2, 1, 64), expected);
        assert_ne!(accumulate(&input, 2, 2, 0, 64), expected);
    }

    #[test]
    fn bounded_variants_are_compared_with_their_free_twin() {
        for c in sized(256, 2) {
            assert_eq!(c.first_launch().block, [BLOCK, 1, 1]);
            for e in &c.expectations {
                if let Some(partner) = e.relative_to {
                    assert_eq!(c.variant, format!("{partner}_bounded"), "{}", c.name());
                }
            }
        }
    }
}
