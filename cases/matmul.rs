//! `kernels/matmul.cu`: fp32 row-major `C = A B`, naive, 16 x 16 tiles, 32 x 32 padded tiles, and
//! the cp.async double-buffered, register-tiled kernel, against cuBLAS SGEMM
//! ([`kernelgate::case::Step::Sgemm`], the vendor reference) at 4096^3 and at 4000 x 4000 x 1000 (not a
//! multiple of the 128-wide tile). Inputs are uniform in [0, 1) so every product is non-negative
//! and the check's bound is relative: [`Tolerance::summation`] of K against a float64 product.

use crate::k::matmul as km;
use kernelgate::case::{Case, Elem, HostData, Init, Launch, Param, Reference, Step, Tolerance};
use kernelgate::expect::Expectation as E;
use kernelgate::model::Ceiling;
use kernelgate::sass::SassExpectation as S;
use std::sync::Arc;

/// Shapes, M x N x K.
pub const SHAPES: [(usize, usize, usize); 2] = [(4096, 4096, 4096), (4000, 4000, 1000)];

/// The family at full size.
pub fn cases() -> Vec<Case> {
    sized(&SHAPES)
}

/// The family with `scale` times the rows of A and C, changed by a multiple of 32
/// ([`super::scaled_count`]).
pub fn scaled(scale: f64) -> Vec<Case> {
    sized(&SHAPES.map(|(m, n, k)| (super::scaled_count(m, scale, 32), n, k)))
}

/// `C = A B` in float64, rounded to f32; A `m x k`, B `k x n`, row-major. Rows of C are computed in
/// parallel, each as a sum of rows of B (contiguous, so the inner loop vectorizes).
pub fn matmul(a: &[f32], b: &[f32], (m, n, k): (usize, usize, usize)) -> Vec<f32> {
    let mut c = vec![0.0f32; m * n];
    let threads = kernelgate::inputs::threads();
    let rows_per = m.div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        for (t, rows) in c.chunks_mut(rows_per * n).enumerate() {
            scope.spawn(move || {
                let mut acc = vec![0.0f64; n];
                for (r, out) in rows.chunks_mut(n).enumerate() {
                    let i = t * rows_per + r;
                    acc.iter_mut().for_each(|x| *x = 0.0);
                    for kk in 0..k {
                        let av = f64::from(a[i * k + kk]);
                        for (x, &bv) in acc.iter_mut().zip(&b[kk * n..(kk + 1) * n]) {
                            *x += av * f64::from(bv);
                        }
                    }
                    out.iter_mut().zip(&acc).for_each(|(o, &x)| *o = x as f32);
                }
            });
        }
    });
    c
}

/// The counter lessons of `variant` at `m x n x k`. Bounds read off the H200 with margin (ncu
/// 2025.3.1, GPU-9b8584e0; confirmed on GPU-1c2e7f54, 2026-11-30): global load instructions fell to 0.0625-0.0628 of the naive
/// kernel's with 16 x 16 tiles and 0.031-0.032 with 32 x 32; at 4096^3 (operands 64 MiB each, more
/// than the 60 MiB L2) DRAM bytes read fell to 0.50 of the 16 x 16 tile's with 32 x 32 tiles and
/// 0.034 with the 128 x 128 cp.async tile (at 4000 x 4000 x 1000 the operands fit in L2 and every
/// kernel read about 32 MB); the cp.async kernel ran in 0.21-0.23 of the 16 x 16 tile's time. The
/// naive kernel reads less DRAM than the 16 x 16 tile (89 % L1 hits), so DRAM is compared between
/// tiles.
fn lessons(variant: &str, (m, n, k): (usize, usize, usize)) -> Vec<E> {
    const LD: &str = "smsp__sass_inst_executed_op_global_ld.sum";
    let big = 4 * (m * k + k * n) > 60 << 20;
    let mut out = match variant {
        "tiled16" => vec![
            E::metric(LD)
                .relative_to("naive")
                .between(0.06, 0.065)
                .because("a 16 x 16 tile reads each operand once per 16 outputs"),
        ],
        "tiled32_padded" => {
            vec![E::metric(LD).relative_to("naive").between(0.030, 0.033).because("a 32 x 32 tile: once per 32")]
        }
        "cp_async" => vec![
            E::metric("gpu__time_duration.sum")
                .relative_to("tiled16")
                .at_most(0.3)
                .because("register tiling and cp.async double buffering: the road to library speed"),
        ],
        _ => Vec::new(),
    };
    if big {
        match variant {
            "tiled32_padded" => out.push(
                E::metric("dram__bytes_read.sum")
                    .relative_to("tiled16")
                    .at_most(0.6)
                    .because("DRAM bytes fall with the tile"),
            ),
            "cp_async" => out.push(
                E::metric("dram__bytes_read.sum")
                    .relative_to("tiled16")
                    .at_most(0.05)
                    .because("DRAM bytes fall with the tile"),
            ),
            _ => {}
        }
    }
    out
}

fn sized(shapes: &[(usize, usize, usize)]) -> Vec<Case> {
    let mut cases = Vec::new();
    for &(m, n, k) in shapes {
        let int = |v: usize| Param::I32(i32::try_from(v).expect("dimension fits int"));
        let unit = Init::Uniform { lo: 0.0, hi: 1.0 };
        let params = [
            Param::In { init: unit, elem: Elem::F32, len: m * k, offset: 0 },
            Param::In { init: unit, elem: Elem::F32, len: k * n, offset: 0 },
            Param::output(m * n),
            int(m),
            int(n),
            int(k),
        ];
        // One float64 product per shape, shared by the five variants.
        let product: Reference =
            Arc::new(move |b: &[HostData]| vec![HostData::F32(matmul(b[0].f32(), b[1].f32(), (m, n, k)))]);
        let finish = |c: Case| {
            c.reference_shared(&product)
                .tolerance(Tolerance::summation(k))
                .bytes(4 * (m * k + k * n + m * n) as u64)
                .flops(2 * (m * n * k) as u64)
                .bound_by(Ceiling::Fma)
        };
        let size = format!("{m}x{n}x{k}");
        let blocks = |edge: usize, along: usize| u32::try_from(along.div_ceil(edge)).expect("grid fits u32");
        for (variant, kernel, tile, block) in [
            ("naive", km::matmul_naive, 16, [16, 16]),
            ("tiled16", km::matmul_tiled16, 16, [16, 16]),
            ("tiled32_padded", km::matmul_tiled32_padded, 32, [32, 32]),
            ("cp_async", km::matmul_cp_async, 128, [256, 1]),
        ] {
            let launch = Launch::grid2d([blocks(tile, n), blocks(tile, m)], block);
            let case = Case::new("matmul", variant, size.clone(), kernel).launch(launch).params(params.clone());
            cases.push(finish(case).expects(lessons(variant, (m, n, k))).sass(code(variant)));
        }
        let cublas = Case::program("matmul", "cublas", size).params(params.clone()).step(Step::Sgemm {
            a: 0,
            b: 1,
            c: 2,
            m,
            n,
            k,
            alpha: 1.0,
            beta: 0.0,
        });
        cases.push(finish(cublas).vendor_reference("cuBLAS"));
    }
    cases
}

/// What each variant's code must hold.
fn code(variant: &str) -> Vec<S> {
    match variant {
        "naive" => vec![S::class("shared_ld").absent().because("every operand comes from global memory")],
        "tiled16" | "tiled32_padded" => vec![
            S::class("shared_ld").present().because("tiles are read from shared memory"),
            S::class("barrier").present().because("a tile is complete before it is read"),
        ],
        "cp_async" => vec![S::class("ldgsts").present().because("tiles are copied with cp.async: LDGSTS")],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_fit_their_buffers() {
        kernelgate::case::assert_references_fit(&sized(&[(33, 17, 9)]));
    }

    #[test]
    fn cpu_product_of_small_matrices() {
        // [[1 2], [3 4]] x [[5 6], [7 8]] = [[19 22], [43 50]]; 1x3 times 3x1 = 14.
        assert_eq!(matmul(&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 8.0], (2, 2, 2)), vec![19.0, 22.0, 43.0, 50.0]);
        assert_eq!(matmul(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0], (1, 1, 3)), vec![14.0]);
    }

    #[test]
    fn grids_cover_edge_tiles() {
        let cases = sized(&[(4000, 4000, 1000)]);
        let fast = cases.iter().find(|c| c.variant == "cp_async").unwrap();
        assert_eq!(fast.first_launch().grid_for(1), [32, 32, 1], "ceil(4000 / 128)");
        assert!(cases.iter().any(|c| c.uses_cublas()));
    }
}
