//! `kernels/reduction.cu`: fp32 sum of 2^26 floats, the textbook road: a shared tree with
//! interleaved addressing, with sequential addressing, warp shuffles with one barrier and one
//! atomic per block, the same with float4 grid-stride loads, and a two-pass variant with no
//! atomics; and CUB, the vendor reference (`reduction/cub/<n>`, [`Case::vendor_reference`]):
//! `kernels/cub.cu`'s `cub_reduce_sum`, cub::BlockLoad and cub::BlockReduce at DeviceReduce's tile
//! and grid, with one atomic per block. Inputs are uniform in [0, 1), so the check's bound is
//! relative ([`Tolerance::summation`]).

use super::{elements, scaled_count};
use crate::k::cub as kc;
use crate::k::reduction as kr;
use kernelgate::case::{Case, Elem, Grid, HostData, Init, Launch, Param, Reference, Tolerance};
use kernelgate::expect::Expectation as E;
use kernelgate::model::Ceiling;
use kernelgate::sass::SassExpectation as S;
use std::sync::Arc;

/// Elements: 2^26 floats, 256 MiB.
pub const N: usize = 1 << 26;
const BLOCK: u32 = 256;
/// log2([`BLOCK`]).
const LOG2_BLOCK: usize = 8;
/// Blocks per SM of `reduce_shuffle` (one full-occupancy wave, 8 x 256 = 2048 threads) and of
/// `reduce_shuffle_vec4` (16: fastest of 2..32 on the H200 by less than the noise,
/// scripts/tune/results/reduce_hist-h200-2026-11-30-run2.log).
const SHUFFLE_PER_SM: u32 = 8;
const VEC4_PER_SM: u32 = 16;
/// Blocks per SM of the CUB case: DeviceReduce's grid, `CUB_SUBSCRIPTION_FACTOR` (5) x resident blocks
/// per SM (8 of 256 threads at its 28 registers) (CCCL 3.0, `cub/device/dispatch/dispatch_reduce.cuh`,
/// `cub/util_arch.cuh`).
const CUB_PER_SM: u32 = 40;
/// Floats of one tile of `cub_reduce_sum`: 256 threads x 16 (DeviceReduce's `Policy600`, CCCL 3.0
/// `cub/device/dispatch/tuning/tuning_reduce.cuh`).
const CUB_TILE: usize = 4096;
/// Blocks of the two-pass variant's first pass: fixed, because the second pass takes the count as
/// an argument; 1024 is at least 4 per SM (the tuner's fastest) on GPUs of up to 256 SMs.
const TWO_PASS_BLOCKS: usize = 1024;
/// The most SMs the tolerance allows for (grids of `k x SM count` blocks): 256, above every GPU
/// kernelgate has run on (the H200 has 132).
const MAX_SMS: usize = 256;

/// The family at full size.
pub fn cases() -> Vec<Case> {
    sized(N)
}

/// The family with `scale` times the elements, in steps of 1024 ([`super::scaled_count`]).
pub fn scaled(scale: f64) -> Vec<Case> {
    sized(scaled_count(N, scale, 1024))
}

/// The sum in float64, rounded to f32.
pub fn sum(x: &[f32]) -> f32 {
    x.iter().map(|&v| f64::from(v)).sum::<f64>() as f32
}

/// The longest chain of additions any element goes through in `variant` over `n` elements
/// (kernels/reduction.cu's header derives each, kernels/cub.cu's `cub_reduce_sum` the CUB case's; grids of `k x SM count` at `MAX_SMS` (256)).
pub fn chain(variant: &str, n: usize) -> usize {
    let b = BLOCK as usize;
    let (n4, per_thread) = (n / 4, |items: usize, grid: usize| items.div_ceil(grid * b));
    match variant {
        "interleaved" | "sequential" => LOG2_BLOCK + n.div_ceil(b),
        "shuffle" => {
            let g = SHUFFLE_PER_SM as usize * MAX_SMS;
            per_thread(n, g) + 10 + g
        }
        "shuffle_vec4" => {
            let g = VEC4_PER_SM as usize * MAX_SMS;
            per_thread(n4, g) + 3 + 10 + g
        }
        "two_pass" => per_thread(n4, TWO_PASS_BLOCKS) + 3 + 10 + TWO_PASS_BLOCKS.div_ceil(b) + 10,
        "cub" => {
            let g = CUB_PER_SM as usize * MAX_SMS;
            16 + 1 + (n / CUB_TILE).div_ceil(g) + 13 + g
        }
        _ => panic!("no reduction variant {variant}"),
    }
}

/// The counter lessons of each variant. Bounds were read off the H200 with margin (ncu 2025.3.1,
/// GPU-9b8584e0; confirmed on GPU-1c2e7f54, 2026-11-30, 2^26 floats): sequential addressing executed 0.263 of interleaved's
/// shared loads and ran in 0.73 of its time; one atomic per block cut reduction requests from
/// 262144 to 1056 (0.004); float4 loads executed 0.25 of the scalar loads' instructions; the two
/// passes issued no atomics.
fn lessons(variant: &str) -> Vec<E> {
    const RED: &str = "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum";
    match variant {
        "sequential" => vec![
            E::metric("smsp__sass_inst_executed_op_shared_ld.sum")
                .relative_to("interleaved")
                .at_most(0.35)
                .because("contiguous active threads: idle warps skip the step instead of half of every warp"),
            E::metric("gpu__time_duration.sum")
                .relative_to("interleaved")
                .at_most(0.85)
                .because("no divergence and no modulo in the tree"),
        ],
        "shuffle" => vec![
            E::metric(RED)
                .relative_to("sequential")
                .at_most(0.01)
                .because("one atomic per block of a grid-stride loop"),
            E::metric("gpu__time_duration.sum")
                .relative_to("sequential")
                .at_most(0.25)
                .because("registers and shuffles instead of a shared tree per element"),
        ],
        "shuffle_vec4" => vec![
            E::metric("smsp__sass_inst_executed_op_global_ld.sum")
                .relative_to("shuffle")
                .between(0.24, 0.26)
                .because("one 16-byte load moves four floats"),
        ],
        "two_pass" => vec![E::metric(RED).between(0.0, 0.0).because("partials are written, not added atomically")],
        _ => Vec::new(),
    }
}

fn sized(n: usize) -> Vec<Case> {
    let n_i32 = i32::try_from(n).expect("n fits int");
    let input = Param::In { init: Init::Uniform { lo: 0.0, hi: 1.0 }, elem: Elem::F32, len: n, offset: 0 };
    let total = Param::Zeroed { len: 1, elem: Elem::F32 };
    // The one-launch variants take the same buffers and share one float64 sum; two_pass has
    // buffers of its own and its own reference.
    let shared: Reference = Arc::new(|b: &[HostData]| vec![HostData::F32(vec![sum(b[0].f32())])]);
    // Each variant reads its input once and writes one float: bound by device-memory reads.
    let reference = |c: Case| {
        c.reference(|b: &[HostData]| vec![vec![sum(b[0].f32())]]).bytes(4 * n as u64).bound_by(Ceiling::DramRead)
    };
    let one = |variant: &'static str, kernel, launch| {
        Case::new("reduction", variant, elements(n), kernel)
            .launch(launch)
            .params([input.clone(), total.clone(), Param::I32(n_i32)])
            .tolerance(Tolerance::summation(chain(variant, n)))
            .reference_shared(&shared)
            .bytes(4 * n as u64)
            .flops(n as u64)
            .bound_by(Ceiling::DramRead)
    };
    let two_pass = Case::program("reduction", "two_pass", elements(n))
        .params([
            input.clone(),
            Param::Scratch { elem: Elem::F32, len: TWO_PASS_BLOCKS },
            Param::output(1),
            Param::I32(n_i32),
            Param::I32(TWO_PASS_BLOCKS as i32),
        ])
        .launch_with(
            kr::reduce_partials,
            Launch { grid: Grid::Fixed([TWO_PASS_BLOCKS as u32, 1, 1]), block: [BLOCK, 1, 1], shared_bytes: 0 },
            [0, 1, 3],
        )
        .launch_with(kr::reduce_final, Launch::linear(BLOCK as usize, BLOCK), [1, 2, 4])
        .tolerance(Tolerance::summation(chain("two_pass", n)));
    let cases = vec![
        one("interleaved", kr::reduce_interleaved, Launch::linear(n, BLOCK)),
        one("sequential", kr::reduce_sequential, Launch::linear(n, BLOCK)),
        one("shuffle", kr::reduce_shuffle, Launch::per_sm(SHUFFLE_PER_SM, BLOCK)),
        one("shuffle_vec4", kr::reduce_shuffle_vec4, Launch::per_sm(VEC4_PER_SM, BLOCK)),
        reference(two_pass).flops(n as u64),
        one("cub", kc::cub_reduce_sum, Launch::per_sm(CUB_PER_SM, BLOCK)).vendor_reference("CUB"),
    ];
    cases
        .into_iter()
        .map(|c| {
            let l = lessons(&c.variant);
            let shuffles = match c.variant.as_str() {
                "cub" => {
                    S::class("shfl").present().because("BLOCK_REDUCE_WARP_REDUCTIONS reduces each warp with shuffles")
                }
                v if v.starts_with("shuffle") || v == "two_pass" => {
                    S::class("shfl").present().because("the last steps of the tree are warp shuffles: SHFL.DOWN")
                }
                _ => S::class("shfl").absent().because("a shared-memory tree, no shuffles"),
            };
            let mut code = vec![shuffles];
            if c.variant == "cub" {
                code.push(S::class("global_ld.128").present().because("BlockLoad of float4 items: LDG.E.128"));
            }
            c.expects(l).sass(code)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_fit_their_buffers() {
        kernelgate::case::assert_references_fit(&sized(1000));
    }

    #[test]
    fn chains_follow_the_kernel_headers() {
        // 2^26 / 256 = 262144 atomics after an 8-step tree.
        assert_eq!(chain("sequential", 1 << 26), 8 + 262_144);
        // 2^24 float4 over 16 x 256 blocks of 256 threads: 16 per thread.
        assert_eq!(chain("shuffle_vec4", 1 << 26), 16 + 13 + 4096);
        assert_eq!(chain("two_pass", 1 << 26), 64 + 13 + 4 + 10);
        assert!(Tolerance::summation(chain("interleaved", 1 << 26)).rel < 0.02);
        // 16384 tiles of 4096 over 40 x 256 blocks: 2 per thread.
        assert_eq!(chain("cub", 1 << 26), 17 + 2 + 13 + 10_240);
        assert_eq!(chain("cub", 1000), 17 + 13 + 10_240, "no full tile: the partial one alone");
    }

    #[test]
    fn cub_is_the_vendor_reference_at_each_size() {
        let cases = sized(1000);
        let cub: Vec<&Case> = cases.iter().filter(|c| c.vendor.is_some()).collect();
        assert_eq!(cub.len(), 1);
        assert_eq!((cub[0].name(), cub[0].vendor), ("reduction/cub/1000".to_string(), Some("CUB")));
        assert_eq!(cub[0].kernel_names(), "cub_reduce_sum");
        assert!(cub[0].shares_inputs, "the same inputs and float64 sum as the one-launch variants");
    }

    #[test]
    fn the_two_pass_program_feeds_its_partials_to_the_final_pass() {
        let c = sized(1000).into_iter().find(|c| c.variant == "two_pass").unwrap();
        assert_eq!(c.kernel_names(), "reduce_partials+reduce_final");
        assert!(c.params[1] == Param::Scratch { elem: Elem::F32, len: TWO_PASS_BLOCKS } && !c.params[1].is_compared());
    }
}
