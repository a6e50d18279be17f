//! `kernels/transpose.cu`: naive, strided-read, shared tile, padded tile, swizzled tile; square,
//! non-square, and sizes that are not multiples of 32.

use super::scaled_count;
use crate::Kernel;
use crate::case::{Case, Launch, Param};
use crate::expect::Expectation as E;
use crate::source::k::transpose as kt;

/// Input shapes, rows x cols: square, non-square, and neither dimension a multiple of 32.
pub const SHAPES: [(usize, usize); 3] = [(8192, 8192), (4096, 16384), (8191, 8193)];
/// Tile edge (TILE_DIM in transpose.cu).
pub const TILE_DIM: u32 = 32;
/// Rows of threads per block (BLOCK_ROWS in transpose.cu); each thread moves TILE_DIM / BLOCK_ROWS.
pub const BLOCK_ROWS: u32 = 8;

/// The variants: name, entry point, and whether the grid runs over `in`'s columns in x (all but the
/// strided-read kernel, whose x runs over `in`'s rows).
const VARIANTS: [(&str, Kernel, bool); 5] = [
    ("naive", kt::transpose_naive, true),
    ("strided_read", kt::transpose_strided_read, false),
    ("shared", kt::transpose_shared, true),
    ("shared_padded", kt::transpose_shared_padded, true),
    ("shared_swizzled", kt::transpose_shared_swizzled, true),
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
        _ => vec![conflict_free(), faster()],
    }
}

fn sized(shapes: &[(usize, usize)]) -> Vec<Case> {
    let mut cases = Vec::new();
    for &(rows, cols) in shapes {
        for (variant, kernel, x_over_cols) in VARIANTS {
            let (gx, gy) = if x_over_cols { (cols, rows) } else { (rows, cols) };
            let tiles = |len: usize| u32::try_from(len.div_ceil(TILE_DIM as usize)).expect("grid fits u32");
            cases.push(
                Case::new("transpose", variant, format!("{rows}x{cols}"), kernel)
                    .launch(Launch::grid2d([tiles(gx), tiles(gy)], [TILE_DIM, BLOCK_ROWS]))
                    .params([
                        Param::input(rows * cols),
                        Param::output(rows * cols),
                        Param::I32(rows as i32),
                        Param::I32(cols as i32),
                    ])
                    .reference(move |b| vec![transpose(b[0].f32(), rows, cols)])
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
        super::super::assert_references_fit(&sized(&[(33, 65), (64, 32)]));
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
    }
}
