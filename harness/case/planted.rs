//! `planted.cu` (the library's own, `harness/kernels/planted.cu`): kernels with planted bugs, kept to test kernelgate itself, not
//! to time anything: the library's own family, not a suite's. It joins the run only with
//! `KERNELGATE_PLANTED=1` ([`super::table::Table::for_run`]); a suite's table never lists it. Each case is small (4096 floats, 16 blocks
//! of 256 threads; `uninit_shared` [`TAIL`] fewer; `too_fast` [`TOO_FAST_N`], large enough to be
//! bound by DRAM bandwidth) and its reference is what the kernel would compute without its bug, so
//! that a bug that corrupts nothing passes the CPU check, as real ones do by luck:
//!
//! | variant | bug | caught by |
//! |---|---|---|
//! | `oob_write` | writes one float past its output | `KERNELGATE_SANITIZE=memcheck` |
//! | `missing_sync` | reads shared memory another warp wrote, with no `__syncthreads` | `racecheck` |
//! | `uninit_shared` | a block sum's tail threads leave their shared word unset | the check ([`crate::shared_poison`]) |
//! | `misaligned_load` | a `float4` load 4 bytes past 16-byte alignment | the GPU (a fault), memcheck |
//! | `illegal_address` | a store near address 0 | the GPU (a fault), memcheck |
//! | `hang` | spins on a flag nothing sets | `KERNELGATE_KERNEL_TIMEOUT` |
//! | `too_fast` | a correct copy declaring 10x the bytes it moves | the physics guard ([`crate::guard`]): `invalid` |
//! | `wrong_later` | right on its module's first launch, +1 on every later one (a `__device__` block counter) | the re-check after timing ([`crate::recheck`]) |

use crate::case::{Arg, Case, HostData, Launch, Param, Step};
use crate::source::own_k::planted as kp;

/// Elements of each case's output: 4096 floats, 16 blocks of [`BLOCK`].
pub const N: usize = 4096;
/// Threads per block; the shared-memory kernels declare arrays of this many floats.
pub const BLOCK: u32 = 256;

/// Elements `too_fast` copies: 2^24 floats, 134 MB read and written, so that its time is DRAM
/// bound (`coalescing/copy` moves 4x that at 2,648 GB/s on the H200, run 8c8c911) and its declared
/// 10x is far past any ceiling even after the guard's allowance of one L2 (60 MiB there).
pub const TOO_FAST_N: usize = 1 << 24;

/// How many times the bytes it moves `too_fast` declares.
pub const TOO_FAST_FACTOR: u64 = 10;

/// The family (there is no scaled table: planted cases are never timed against a baseline).
pub fn cases() -> Vec<Case> {
    let mut cases = sized(N);
    cases.push(too_fast(TOO_FAST_N));
    cases
}

/// `too_fast` at `n` elements: `out = x`, checked against `x`, declaring [`TOO_FAST_FACTOR`] x
/// the 8n bytes it moves.
pub fn too_fast(n: usize) -> Case {
    Case::program("planted", "too_fast", n.to_string())
        .params([Param::input(n), Param::output(n)])
        .step(Step::Launch {
            kernel: kp::too_fast_copy,
            launch: Launch::linear(n, BLOCK),
            args: vec![Arg::Slot(0), Arg::Slot(1), Arg::I32(i32::try_from(n).expect("n fits int"))],
            stream: 0,
        })
        .reference(|b: &[HostData]| vec![b[0].f32().to_vec()])
        .bytes(TOO_FAST_FACTOR * (8 * n) as u64)
}

/// Elements `uninit_shared` has fewer than [`N`] (a multiple of [`BLOCK`]), so that the last 100
/// threads of its last block have no element and leave their shared word unset.
pub const TAIL: usize = 100;

/// The sum of each block of `BLOCK` elements of `x` (the last one partial), added in the order of
/// `uninit_shared`'s shared-memory tree (`s[t] += s[t + h]` for `h` = 128, 64, ..., 1) with the
/// missing elements as zeros: what the kernel computes without its bug, to the bit.
pub fn block_tree_sums(x: &[f32]) -> Vec<f32> {
    x.chunks(BLOCK as usize)
        .map(|c| {
            let mut s = vec![0.0f32; BLOCK as usize];
            s[..c.len()].copy_from_slice(c);
            let mut h = s.len() / 2;
            while h > 0 {
                for t in 0..h {
                    s[t] += s[t + h];
                }
                h /= 2;
            }
            s[0]
        })
        .collect()
}

/// Each block of `BLOCK` elements of `x` in reverse order: `reverse_no_sync` without its race.
pub fn reversed_blocks(x: &[f32]) -> Vec<f32> {
    x.chunks(BLOCK as usize).flat_map(|c| c.iter().rev().copied()).collect()
}

/// `x[4i+1] + x[4i+2] + x[4i+3] + x[4i+4]` for `i < n`, summed left to right in f32 as the kernel
/// does: `misaligned_float4` had its load been legal.
pub fn shifted_quads(x: &[f32], n: usize) -> Vec<f32> {
    (0..n).map(|i| x[4 * i + 1] + x[4 * i + 2] + x[4 * i + 3] + x[4 * i + 4]).collect()
}

fn sized(n: usize) -> Vec<Case> {
    let n_i32 = i32::try_from(n).expect("n fits int");
    let launch = Launch::linear(n, BLOCK);
    let size = n.to_string();
    // x (slot 0), out (slot 1), n (slot 2): out = f(x).
    let unary = |variant: &str, kernel, f: fn(&[f32]) -> Vec<f32>| {
        Case::program("planted", variant, size.clone())
            .params([Param::input(n), Param::output(n)])
            .step(Step::Launch { kernel, launch, args: vec![Arg::Slot(0), Arg::Slot(1), Arg::I32(n_i32)], stream: 0 })
            .reference(move |b: &[HostData]| vec![f(b[0].f32())])
            .bytes((8 * n) as u64)
    };
    let doubled: fn(&[f32]) -> Vec<f32> = |x| x.iter().map(|v| 2.0 * v).collect();
    vec![
        unary("oob_write", kp::oob_write, doubled),
        unary("missing_sync", kp::reverse_no_sync, reversed_blocks),
        // What its first launch computes; the check runs it once (crate::check::check_case), the
        // warm-up and the timed launches after it add 1.
        unary("wrong_later", kp::wrong_later, doubled),
        {
            debug_assert!(n.is_multiple_of(BLOCK as usize) && n > TAIL, "the tail falls in the last block");
            let n = n - TAIL;
            Case::program("planted", "uninit_shared", n.to_string())
                .params([Param::input(n), Param::output(n.div_ceil(BLOCK as usize))])
                .step(Step::Launch {
                    kernel: kp::uninit_shared,
                    launch: Launch::linear(n, BLOCK),
                    args: vec![Arg::Slot(0), Arg::Slot(1), Arg::I32(i32::try_from(n).expect("n fits int"))],
                    stream: 0,
                })
                .reference(|b: &[HostData]| vec![block_tree_sums(b[0].f32())])
                .bytes((4 * n + 4 * n.div_ceil(BLOCK as usize)) as u64)
        },
        Case::program("planted", "misaligned_load", size.clone())
            .params([Param::input(4 * n + 4), Param::output(n)])
            .step(Step::Launch {
                kernel: kp::misaligned_float4,
                launch,
                args: vec![Arg::Slot(0), Arg::Slot(1), Arg::I32(n_i32)],
                stream: 0,
            })
            .reference(move |b: &[HostData]| vec![shifted_quads(b[0].f32(), n)])
            .bytes((20 * n) as u64),
        Case::program("planted", "illegal_address", size.clone())
            .params([Param::input(n), Param::output(n)])
            .step(Step::Launch {
                kernel: kp::illegal_address,
                launch,
                args: vec![Arg::Slot(0), Arg::Slot(1), Arg::I32(0), Arg::I32(n_i32)],
                stream: 0,
            })
            .reference(|b: &[HostData]| vec![b[0].f32().to_vec()])
            .bytes((8 * n) as u64),
        Case::program("planted", "hang", size)
            .params([Param::input(1), Param::input(n), Param::output(n)])
            .step(Step::Launch {
                kernel: kp::spin_forever,
                launch,
                args: vec![Arg::Slot(0), Arg::Slot(1), Arg::Slot(2), Arg::I32(n_i32)],
                stream: 0,
            })
            .reference(|b: &[HostData]| vec![b[1].f32().to_vec()])
            .bytes((8 * n) as u64),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_fit_their_buffers() {
        crate::case::assert_references_fit(&sized(512));
        crate::case::assert_references_fit(&[too_fast(512)]);
    }

    #[test]
    fn too_fast_declares_ten_times_what_it_moves_and_the_guard_finds_it_impossible() {
        let c = too_fast(TOO_FAST_N);
        let moved = c.params.iter().map(|p| 4 * p.elements() as u64).sum::<u64>();
        assert_eq!((moved, c.bytes), (134_217_728, 1_342_177_280));
        assert_eq!(c.name(), "planted/too_fast/16777216");
        // Timed at the H200's copy rate of coalescing/copy/67108864 (536,870,912 bytes in 202.75 us,
        // run 8c8c911) its 134,217,728 bytes take 50.7 us; the declared bytes then need 25 TB/s.
        let median = 202.75e-6 * 134_217_728.0 / 536_870_912.0;
        let h200 = crate::guard::Ceilings {
            copy_gbps: Some(4223.206434886277),
            dram_peak_gbps: None,
            fp32_peak_gflops: None,
            l2_bytes: 60 << 20,
        };
        let why = crate::guard::impossible(&crate::guard::Claim::of(&c, median, None), &h200).unwrap();
        assert!(why.starts_with("declares 1.34 GB moved in 50.7 us = 26,479 GB/s, 6.3x the measured"), "{why}");
        // Its real bytes at that time are possible.
        let honest = crate::guard::Claim { bytes: moved, ..crate::guard::Claim::of(&c, median, None) };
        assert_eq!(crate::guard::impossible(&honest, &h200), None);
    }

    #[test]
    fn references_compute_what_the_kernels_would_without_their_bugs() {
        let x: Vec<f32> = (0..512).map(|i| i as f32).collect();
        let r = reversed_blocks(&x);
        assert_eq!((r[0], r[255], r[256], r[511]), (255.0, 0.0, 511.0, 256.0));
        let sums = block_tree_sums(&x[..300]);
        assert_eq!(sums, vec![(0..256).sum::<i32>() as f32, (256..300).sum::<i32>() as f32]);
        // In f32 the order of the additions shows: 1e8 + 1 rounds to 1e8. The tree adds s[t] and
        // s[t + 128] first, so the 1 next to -1e8 survives, where a left-to-right sum loses it.
        let mut y = vec![0.0f32; 256];
        (y[0], y[1], y[128]) = (1e8, 1.0, -1e8);
        let left_to_right: f32 = y.iter().sum();
        assert_eq!((block_tree_sums(&y)[0], left_to_right), (1.0, 0.0));
        let q = shifted_quads(&x, 3);
        assert_eq!(q, vec![1.0 + 2.0 + 3.0 + 4.0, 5.0 + 6.0 + 7.0 + 8.0, 9.0 + 10.0 + 11.0 + 12.0]);
    }

    #[test]
    fn the_family_is_eight_bugs_in_one_file() {
        let cases = cases();
        let names: Vec<String> = cases.iter().map(Case::name).collect();
        assert_eq!(names.len(), 8);
        let sizes: Vec<&str> = cases.iter().map(|c| c.size.as_str()).collect();
        assert_eq!(sizes, ["4096", "4096", "4096", "3996", "4096", "4096", "4096", "16777216"]);
        assert!(names.contains(&"planted/wrong_later/4096".to_string()), "{names:?}");
        assert!(names.iter().all(|n| n.starts_with("planted/")), "{names:?}");
        for c in &cases {
            assert_eq!(c.kernels().len(), 1, "{}", c.name());
            assert_eq!(c.kernels()[0].file, "planted.cu");
            crate::case::assert_program_fits(c);
        }
    }
}
