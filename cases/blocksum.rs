//! `kernels/blocksum.cu`: one kernel template, `block_sum<BLOCK_THREADS, ITEMS_PER_THREAD>`, with
//! CUB's `cub::BlockReduce`, instantiated from this table at three tile shapes
//! ([`kernelgate::source::KernelTemplate::with`]): no `extern "C"` wrapper is written for any of them.
//! Each block sums its tile of `BLOCK_THREADS * ITEMS_PER_THREAD` floats into one partial.

use super::{elements, reduction::sum, scaled_count};
use crate::k::blocksum as kb;
use kernelgate::case::{Case, Elem, Grid, Init, Launch, Param, Tolerance};
use kernelgate::model::Ceiling;

/// Elements: 2^24 floats, 64 MiB.
pub const N: usize = 1 << 24;

/// The variants: name, threads per block, items per thread (the template's arguments).
const VARIANTS: [(&str, u32, u32); 3] = [("b128_i4", 128, 4), ("b256_i8", 256, 8), ("b512_i16", 512, 16)];

/// The family at full size.
pub fn cases() -> Vec<Case> {
    sized(N)
}

/// The family with `scale` times the elements, changed by a multiple of 32 of the largest tile
/// ([`scaled_count`]), so that every variant's grid and output grow by a multiple of 32 blocks too.
pub fn scaled(scale: f64) -> Vec<Case> {
    sized(scaled_count(N, scale, 32 * 512 * 16))
}

/// The sum of each tile of `tile` elements of `input` (the last may be shorter), as
/// [`sum`] makes it (float64, rounded once).
pub fn tile_sums(input: &[f32], tile: usize) -> Vec<f32> {
    input.chunks(tile).map(sum).collect()
}

/// The longest chain of additions an element goes through in `block_sum` with `items` per
/// thread (`kernels/blocksum.cu`'s header): `items` in its thread (the first onto 0), 5 shuffle steps in its
/// warp and at most 4 more for the warps' sums (512 threads: 16 warps).
fn chain(items: u32) -> usize {
    items as usize + 9
}

fn sized(n: usize) -> Vec<Case> {
    let n_i32 = i32::try_from(n).expect("n fits int");
    let input = Param::In { init: Init::Uniform { lo: 0.0, hi: 1.0 }, elem: Elem::F32, len: n, offset: 0 };
    VARIANTS
        .iter()
        .map(|&(variant, threads, items)| {
            let tile = (threads * items) as usize;
            let blocks = n.div_ceil(tile);
            let kernel = kb::block_sum.with(&format!("{threads}, {items}"));
            let grid = Grid::Fixed([u32::try_from(blocks).expect("grid.x fits in u32"), 1, 1]);
            Case::new("blocksum", variant, elements(n), kernel)
                .launch(Launch { grid, block: [threads, 1, 1], shared_bytes: 0 })
                .params([input.clone(), Param::output(blocks), Param::I32(n_i32)])
                .reference(move |b| vec![tile_sums(b[0].f32(), tile)])
                .tolerance(Tolerance::summation(chain(items)))
                .bytes(4 * (n + blocks) as u64)
                .flops(n as u64)
                .bound_by(Ceiling::DramRead)
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
    fn each_variant_launches_its_own_instance_of_the_template() {
        let cases = sized(N);
        let entries: Vec<&str> = cases.iter().map(|c| c.kernels()[0].entry).collect();
        assert_eq!(entries, ["block_sum<128, 4>", "block_sum<256, 8>", "block_sum<512, 16>"]);
        for (c, (_, threads, items)) in cases.iter().zip(VARIANTS) {
            let launch = c.first_launch();
            assert_eq!(launch.block[0], threads);
            assert_eq!(launch.grid, Grid::Fixed([(N / (threads * items) as usize) as u32, 1, 1]));
        }
    }

    #[test]
    fn a_partial_last_tile_is_summed_alone() {
        assert_eq!(tile_sums(&[1.0, 2.0, 3.0, 4.0, 5.0], 2), [3.0, 7.0, 5.0]);
    }
}
