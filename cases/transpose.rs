//! `kernels/transpose.cu`: naive, strided-read, shared tile, padded tile, swizzled tile, and the
//! best-known variant (64 x 64 tile, 8-byte accesses, swizzled float2 tile); square, non-square,
//! and sizes that are not multiples of 32.

use super::scaled_count;
use crate::k::transpose as kt;
use kernelgate::case::{Case, HostData, Launch, Param, Reference};
use kernelgate::expect::Expectation as E;
use kernelgate::source::Kernel;
use std::sync::Arc;

/// Input shapes, rows x cols: square, non-square, and neither dimension a multiple of 32.
pub const SHAPES: [(usize, usize); 3] = [(8192, 8192), (4096, 16384), (8191, 8193)];
/// Tile edge (TILE_DIM in transpose.cu).
pub const TILE_DIM: u32 = 32;
/// Tile edge of `transpose_best` (BEST_TILE in transpose.cu); its block is the same 32 x 8 threads,
/// each moving 16 elements.
pub const BEST_TILE: u32 = 64;
/// Rows of threads per block (BLOCK_ROWS in transpose.cu); each thread moves TILE_DIM / BLOCK_ROWS.
pub const BLOCK_ROWS: u32 = 8;

/// The variants: name, entry point, whether the grid runs over `in`'s columns in x (all but the
/// strided-read kernel, whose x runs over `in`'s rows), and the tile edge.
const VARIANTS: [(&str, Kernel, bool, u32); 6] = [
    ("naive", kt::transpose_naive, true, TILE_DIM),
    ("strided_read", kt::transpose_strided_read, false, TILE_DIM),
    ("shared", kt::transpose_shared, true, TILE_DIM),
    ("shared_padded", kt::transpose_shared_padded, true, TILE_DIM),
    ("shared_swizzled", kt::transpose_shared_swizzled, true, TILE_DIM),
    ("best", kt::transpose_best, true, BEST_TILE),
];

/// The family at full size.
pub fn cases() -> Vec<Case> {
    sized(&SHAPES)
}

/// The family with `scale` times the rows of each shape, changed by a multiple of 32 (one tile), so
/// the output's rows keep their alignment (`8191` stays odd): [`super::scaled_count`].
pub fn scaled(scale: f64) -> Vec<Case> {
    sized(&SHAPES.map(|(rows, cols)| (scaled_count(rows, scale, 32), cols)))
}

/// `out[c][r] = in[r][c]`, row-major, `in` being rows x cols.
pub fn transpose(input: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; rows * cols];
    // 32 x 32 blocks keep both sides cache-friendly on the CPU.
    for r0 in (0..rows).step_by(32) {
        for c0 in (0..cols).step_by(32) {
            for r in r0..(r0 + 32).min(rows) {
                for c in c0..(c0 + 32).min(cols) {
                    out[c * rows + r] = input[r * cols + c];
                }
            }
        }
    }
    out
}

/// The counter lessons of each variant at `rows x cols`. Wavefronts per shared instruction judge
/// bank conflicts: on sm_80+ the bank-conflict counter also counts arbitration
/// (../shared/gpu/README.md). Bounds were read off the H200 (ncu 2025.3.1, 2026-11-30) with margin:
/// conflict-free tiles measured 1.07-1.12 wavefronts per load, the unpadded tile 32.46; rows whose
/// length is not a multiple of 32 floats start off 128-byte lines, so coalesced accesses used 26.24
/// of 32 bytes per sector there; the padded and swizzled tiles ran in 0.48-0.50 of the unpadded
/// tile's time on aligned shapes and 0.72-0.74 on 8191x8193.
fn lessons(variant: &str, rows: usize, cols: usize) -> Vec<E> {
    let aligned = rows.is_multiple_of(32) && cols.is_multiple_of(32);
    let coalesced = if aligned { 31.0 } else { 25.0 };
    let speedup_bound = if aligned { 0.67 } else { 0.87 };
    let conflict_free =
        || E::metric("shared_ld_wavefronts_per_inst").between(0.99, 1.2).because("column reads hit 32 different banks");
    let faster = || {
        E::metric("gpu__time_duration.sum")
            .relative_to("shared")
            .at_most(speedup_bound)
            .because("removing the 32-way conflict speeds the transpose up (1.5x aligned, 1.15x otherwise)")
    };
    match variant {
        "naive" => vec![
            E::metric("global_ld_bytes_per_sector").at_least(coalesced).because("rows are read coalesced"),
            E::metric("global_st_bytes_per_sector")
                .between(3.9, 4.1)
                .because("column stores use an eighth of each sector"),
        ],
        "strided_read" => vec![
            E::metric("global_ld_bytes_per_sector")
                .between(3.9, 4.1)
                .because("column reads use an eighth of each sector"),
            E::metric("global_st_bytes_per_sector").at_least(coalesced).because("rows are written coalesced"),
        ],
        "shared" => vec![
            E::metric("shared_ld_wavefronts_per_inst")
                .between(28.0, 34.0)
                .because("a 32x32 tile read by column is a 32-way bank conflict"),
            E::metric("shared_st_wavefronts_per_inst").between(0.99, 1.2).because("row writes are conflict-free"),
            E::metric("global_st_bytes_per_sector").at_least(coalesced).because("the tile makes stores coalesced"),
        ],
        "best" => best_lessons(rows, cols, coalesced),
        _ => vec![conflict_free(), faster()],
    }
}

/// The lessons of `transpose_best`. An 8-byte shared access by a warp moves 256 bytes, two
/// wavefronts of 128 bytes when conflict-free; the scalar edge path's reads move 128 bytes, one
/// wavefront. Shapes with an even number of rows and columns take the 8-byte path in every full
/// tile (a scaled shape's last, partial tile row takes the edge path: 1/131 of the tiles at
/// 8352 rows, about 1.985 wavefronts per read); odd shapes take the edge path everywhere, whose
/// stores into the tile are still 8-byte pairs.
fn best_lessons(rows: usize, cols: usize, coalesced: f64) -> Vec<E> {
    let vector = rows.is_multiple_of(2) && cols.is_multiple_of(2);
    let (ld, ld_why) = if vector {
        ((1.9, 2.4), "8-byte reads of a tile row: 2 wavefronts per instruction, the least for 256 bytes")
    } else {
        ((0.99, 1.2), "the edge path's 4-byte reads hit 32 different banks")
    };
    // Measured on the H200 (ncu 2025.3.1, GPU-9b8584e0; confirmed on GPU-1c2e7f54, 2026-11-30): 2.15 load and 2.17 store
    // wavefronts per instruction on even shapes, 1.13 and 2.08 on 8191 x 8193; time 0.88-0.89 of
    // the padded tile's on even shapes, 0.87 on 8191 x 8193; 93.0 % of the copy bandwidth on
    // 8192 x 8192 (events).
    let (faster, faster_why) = if vector {
        (0.97, "64 x 64 tiles with 8-byte accesses beat the 32 x 32 padded tile")
    } else {
        (1.05, "on odd shapes the scalar edge path keeps up with the padded tile")
    };
    vec![
        E::metric("shared_ld_wavefronts_per_inst").between(ld.0, ld.1).because(ld_why),
        E::metric("shared_st_wavefronts_per_inst")
            .between(1.9, 2.4)
            .because("the swizzle puts each half warp's 8-byte pairs in 16 different bank pairs"),
        E::metric("global_ld_bytes_per_sector").at_least(coalesced).because("rows of in are read coalesced"),
        E::metric("global_st_bytes_per_sector").at_least(coalesced).because("rows of out are written coalesced"),
        E::metric("gpu__time_duration.sum").relative_to("shared_padded").at_most(faster).because(faster_why),
    ]
}

/// `best_swizzle` of transpose.cu: the float2 column of the shared tile that holds row pair `p` of
/// tile column `c` is `p ^ best_swizzle(c)`.
pub fn best_swizzle(c: usize) -> usize {
    (c ^ (c >> 4)) & 15
}

fn sized(shapes: &[(usize, usize)]) -> Vec<Case> {
    let mut cases = Vec::new();
    for &(rows, cols) in shapes {
        // One transpose per shape, shared by the variants.
        let transposed: Reference =
            Arc::new(move |b: &[HostData]| vec![HostData::F32(transpose(b[0].f32(), rows, cols))]);
        for (variant, kernel, x_over_cols, tile) in VARIANTS {
            let (gx, gy) = if x_over_cols { (cols, rows) } else { (rows, cols) };
            let tiles = |len: usize| u32::try_from(len.div_ceil(tile as usize)).expect("grid fits u32");
            cases.push(
                Case::new("transpose", variant, format!("{rows}x{cols}"), kernel)
                    .launch(Launch::grid2d([tiles(gx), tiles(gy)], [TILE_DIM, BLOCK_ROWS]))
                    .params([
                        Param::input(rows * cols),
                        Param::output(rows * cols),
                        Param::I32(rows as i32),
                        Param::I32(cols as i32),
                    ])
                    .reference_shared(&transposed)
                    .bytes(8 * (rows * cols) as u64)
                    .expects(lessons(variant, rows, cols)),
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
        kernelgate::case::assert_references_fit(&sized(&[(33, 65), (64, 32)]));
    }

    #[test]
    fn cpu_transpose_of_a_non_square_matrix() {
        // [[0 1 2], [3 4 5]] -> [[0 3], [1 4], [2 5]]
        assert_eq!(transpose(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], 2, 3), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
        let big: Vec<f32> = (0..(70 * 45)).map(|i| i as f32).collect();
        assert_eq!(transpose(&transpose(&big, 70, 45), 45, 70), big);
    }

    #[test]
    fn unaligned_shapes_get_their_own_bounds() {
        let bound = |rows, cols| lessons("shared_padded", rows, cols)[1].max.unwrap();
        assert_eq!(bound(8192, 8192), 0.67);
        assert_eq!(bound(8191, 8193), 0.87);
        assert_eq!(lessons("naive", 8191, 8193)[0].min, Some(25.0));
    }

    #[test]
    fn grids_cover_partial_tiles() {
        let cases = sized(&[(8191, 8193)]);
        assert_eq!(cases[0].first_launch().grid_for(1), [257, 256, 1]);
        let strided = cases.iter().find(|c| c.variant == "strided_read").unwrap();
        assert_eq!(strided.first_launch().grid_for(1), [256, 257, 1]);
        let best = cases.iter().find(|c| c.variant == "best").unwrap();
        assert_eq!((best.first_launch().grid_for(1), best.first_launch().block), ([129, 128, 1], [32, 8, 1]));
    }

    /// Half a warp's 8-byte shared accesses are conflict-free when their addresses fall in 16
    /// different 8-byte bank pairs; a row of the tile is 32 float2 (256 bytes, every bank twice), so
    /// the pair of `tile[c][q]` is `q % 16`.
    #[test]
    fn best_tile_accesses_are_conflict_free() {
        let distinct = |pairs: Vec<usize>| {
            let mut p = pairs.clone();
            p.sort_unstable();
            p.dedup();
            p.len() == pairs.len()
        };
        for p in 0..32 {
            for half in [0..16, 16..32] {
                // 8-byte path: thread tx stores row pair p of columns 2tx and 2tx + 1.
                for odd in [0, 1] {
                    assert!(distinct(half.clone().map(|tx| (p ^ best_swizzle(2 * tx + odd)) % 16).collect()));
                }
                // edge path: thread tx stores row pair p of columns tx and tx + 32.
                for h in [0, 32] {
                    assert!(distinct(half.clone().map(|tx| (p ^ best_swizzle(tx + h)) % 16).collect()));
                }
            }
        }
        for c in 0..64 {
            // 8-byte reads: thread tx reads pair tx of column c.
            for half in [0..16, 16..32] {
                assert!(distinct(half.map(|tx: usize| (tx ^ best_swizzle(c)) % 16).collect()));
            }
            // edge reads, 4 bytes: thread tx reads row tx (and tx + 32) of column c; bank of the float.
            for h in [0, 32] {
                let bank = |r: usize| (c * 64 + 2 * ((r >> 1) ^ best_swizzle(c)) + (r & 1)) % 32;
                assert!(distinct((0..32).map(|tx| bank(tx + h)).collect()));
            }
            // every column's 32 pairs land in 32 different slots
            assert!(distinct((0..32).map(|p| p ^ best_swizzle(c)).collect()));
        }
    }

    #[test]
    fn best_is_judged_on_the_path_each_shape_takes() {
        let ld = |rows, cols| best_lessons(rows, cols, 31.0)[0].min.unwrap();
        assert_eq!((ld(8192, 8192), ld(8191, 8193)), (1.9, 0.99));
        let faster = |rows, cols| lessons("best", rows, cols)[4].max.unwrap();
        assert_eq!((faster(4096, 16384), faster(8191, 8193)), (0.97, 1.05));
    }
}
