//! `kernels/smem.cu`: one kernel staging its block's tile in 16, 96 or 200 KiB of dynamic shared
//! memory: the opt-in above 48 KiB ([`kernelgate::case::DEFAULT_DYNAMIC_SHARED_LIMIT`]), a carveout
//! ([`Case::carveout`]), and the resident blocks that shared memory per block allows.

use super::{elements, scaled_count};
use crate::k::smem as ks;
use kernelgate::case::{Case, Grid, Launch, Param};
use kernelgate::expect::Expectation as E;

/// Elements: 2^24 floats, 64 MiB per buffer.
pub const N: usize = 1 << 24;
/// Threads per block.
const BLOCK: u32 = 256;

/// The variants: name, dynamic shared memory per block (KiB), the carveout asked for.
const VARIANTS: [(&str, u32, Option<i32>); 3] =
    [("tile16k", 16, None), ("tile96k", 96, None), ("tile200k_carveout100", 200, Some(100))];

/// The family at full size.
pub fn cases() -> Vec<Case> {
    sized(N)
}

/// The family with `scale` times the elements, changed by a multiple of 1024 ([`super::scaled_count`]).
pub fn scaled(scale: f64) -> Vec<Case> {
    sized(scaled_count(N, scale, 1024))
}

/// `input` reversed within each tile of `tile` elements (the last tile may be shorter).
pub fn reversed_tiles(input: &[f32], tile: usize) -> Vec<f32> {
    input.chunks(tile).flat_map(|t| t.iter().rev().copied()).collect()
}

/// Resident blocks per SM that `kib` KiB of shared memory per block allows on sm_90 at the largest
/// carveout: 228 KiB per SM, 1 KiB reserved per block (CUDA C++ Programming Guide, "Compute
/// Capabilities", 9.0). The driver picks a smaller carveout where fewer blocks need no more: ncu's
/// `launch__occupancy_limit_shared_mem` read 9 for the 16 KiB tile, 2 for 96 KiB and 1 for 200 KiB
/// on the H200 (the bless in `baselines/nvidia-h200-sm90/benchmark/b47.txz`), so only the last two are
/// held to this bound.
fn blocks_by_shared_memory(kib: u32) -> f64 {
    f64::from(228 / (kib + 1))
}

fn sized(n: usize) -> Vec<Case> {
    let n_i32 = i32::try_from(n).expect("n fits int");
    VARIANTS
        .iter()
        .map(|&(variant, kib, carveout)| {
            let tile = (kib * 1024 / 4) as usize;
            let blocks = u32::try_from(n.div_ceil(tile)).expect("grid.x fits in u32");
            let launch = Launch { grid: Grid::Fixed([blocks, 1, 1]), block: [BLOCK, 1, 1], shared_bytes: kib * 1024 };
            let mut case = Case::new("smem", variant, elements(n), ks::stage_reversed)
                .launch(launch)
                .params([Param::input(n), Param::output(n), Param::I32(n_i32), Param::I32(tile as i32)])
                .reference(move |b| vec![reversed_tiles(b[0].f32(), tile)])
                .bytes(8 * n as u64);
            if kib > 48 {
                let most = blocks_by_shared_memory(kib);
                case = case.expect(
                    E::metric("launch__occupancy_limit_shared_mem")
                        .between(1.0, most)
                        .because("228 KiB of shared memory per SM hold at most floor(228 / (S + 1)) blocks of S KiB"),
                );
            }
            if let Some(percent) = carveout {
                case = case.carveout(percent);
            }
            case
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_fit_their_buffers() {
        kernelgate::case::assert_references_fit(&sized(100_000));
    }

    #[test]
    fn tiles_are_reversed_and_the_last_may_be_short() {
        assert_eq!(reversed_tiles(&[1.0, 2.0, 3.0, 4.0, 5.0], 2), [2.0, 1.0, 4.0, 3.0, 5.0]);
        assert_eq!(reversed_tiles(&[1.0, 2.0, 3.0], 4), [3.0, 2.0, 1.0]);
    }

    #[test]
    fn the_large_tiles_are_opted_in_and_one_asks_for_a_carveout() {
        let cases = sized(N);
        let big: Vec<&Case> = cases
            .iter()
            .filter(|c| c.first_launch().shared_bytes > kernelgate::case::DEFAULT_DYNAMIC_SHARED_LIMIT)
            .collect();
        assert_eq!(big.len(), 2);
        assert_eq!(cases.iter().filter_map(|c| c.carveout).collect::<Vec<_>>(), [100]);
        assert_eq!((blocks_by_shared_memory(96), blocks_by_shared_memory(200)), (2.0, 1.0));
    }
}
