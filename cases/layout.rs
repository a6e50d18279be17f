//! `kernels/layout.cu`: array of structures vs structure of arrays; row-wise vs column-wise
//! traversal of a row-major matrix.

use super::scaled_count;
use crate::k::layout as kl;
use kernelgate::case::{Case, Launch, Param, Tolerance};
use kernelgate::expect::Expectation as E;

/// Particles: 2^24, 16 bytes each, 256 MiB per array of structures.
pub const PARTICLES: usize = 1 << 24;
/// Matrix of the traversal cases: 8192 x 8192 floats, 256 MiB.
pub const MATRIX: (usize, usize) = (8192, 8192);
/// Time step of the particle update.
pub const DT: f32 = 0.01;
const BLOCK: u32 = 256;

/// The family at full size.
pub fn cases() -> Vec<Case> {
    sized(PARTICLES, MATRIX)
}

/// The family with `scale` times the particles (changed by a multiple of 1024) and matrix rows
/// (by a multiple of 32): [`super::scaled_count`].
pub fn scaled(scale: f64) -> Vec<Case> {
    sized(scaled_count(PARTICLES, scale, 1024), (scaled_count(MATRIX.0, scale, 32), MATRIX.1))
}

/// One particle step on the CPU: `x += vx * dt`, `y += vy * dt`, velocities unchanged.
fn step(x: f32, y: f32, vx: f32, vy: f32) -> [f32; 4] {
    [x + vx * DT, y + vy * DT, vx, vy]
}

fn sized(n: usize, (rows, cols): (usize, usize)) -> Vec<Case> {
    let n_i32 = i32::try_from(n).expect("n fits int");
    let particle_bytes = 2 * 16 * n as u64;
    let aos = Case::new("layout", "particles_aos", n.to_string(), kl::particles_aos)
        .launch(Launch::linear(n, BLOCK))
        .params([Param::input(4 * n), Param::output(4 * n), Param::I32(n_i32), Param::F32(DT)])
        .reference(|b| vec![b[0].f32().chunks_exact(4).flat_map(|p| step(p[0], p[1], p[2], p[3])).collect()])
        .tolerance(Tolerance::FMA)
        .bytes(particle_bytes)
        .expect(
            E::metric("global_ld_bytes_per_sector")
                .between(7.8, 8.2)
                .because("a field load strides 16 bytes: 4 of each 16 bytes used"),
        )
        .expect(E::metric("global_st_bytes_per_sector").between(7.8, 8.2).because("a field store strides 16 bytes"))
        .expect(
            E::metric("dram_overfetch")
                .between(0.9, 1.1)
                .because("L1 and L2 merge the four field accesses, DRAM sees each byte once"),
        );
    let soa = Case::new("layout", "particles_soa", n.to_string(), kl::particles_soa)
        .launch(Launch::linear(n, BLOCK))
        .params(
            std::iter::repeat_n(Param::input(n), 4)
                .chain(std::iter::repeat_n(Param::output(n), 4))
                .chain([Param::I32(n_i32), Param::F32(DT)]),
        )
        .reference(|b| {
            let (x, y, vx, vy) = (b[0].f32(), b[1].f32(), b[2].f32(), b[3].f32());
            let mut out: Vec<Vec<f32>> = (0..4).map(|_| Vec::with_capacity(x.len())).collect();
            for i in 0..x.len() {
                for (o, v) in out.iter_mut().zip(step(x[i], y[i], vx[i], vy[i])) {
                    o.push(v);
                }
            }
            out
        })
        .tolerance(Tolerance::FMA)
        .bytes(particle_bytes)
        .expect(E::metric("global_ld_bytes_per_sector").at_least(31.9).because("every field array is read coalesced"))
        .expect(
            E::metric("global_st_bytes_per_sector").at_least(31.9).because("every field array is written coalesced"),
        );

    let size = format!("{rows}x{cols}");
    let params =
        [Param::input(rows * cols), Param::output(rows * cols), Param::I32(rows as i32), Param::I32(cols as i32)];
    let twice = |b: &[kernelgate::case::HostData]| vec![b[0].f32().iter().map(|x| 2.0 * x).collect()];
    let (bx, by) = (32u32, 8u32);
    let blocks =
        |along: usize, across: usize| [along.div_ceil(bx as usize) as u32, across.div_ceil(by as usize) as u32];
    let rowwise = Case::new("layout", "traverse_rowwise", size.clone(), kl::traverse_rowwise)
        .launch(Launch::grid2d(blocks(cols, rows), [bx, by]))
        .params(params.clone())
        .reference(twice)
        .bytes(8 * (rows * cols) as u64)
        .expect(
            E::metric("global_ld_bytes_per_sector")
                .at_least(31.9)
                .because("a warp reads 32 consecutive floats of a row"),
        );
    let colwise = Case::new("layout", "traverse_colwise", size, kl::traverse_colwise)
        .launch(Launch::grid2d(blocks(rows, cols), [bx, by]))
        .params(params)
        .reference(twice)
        .bytes(8 * (rows * cols) as u64)
        .expect(
            E::metric("global_ld_bytes_per_sector")
                .between(3.9, 4.1)
                .because("a warp reads 32 floats a row apart: 4 bytes of each sector"),
        )
        .expect(
            E::metric("gpu__time_duration.sum")
                .relative_to("traverse_rowwise")
                .at_least(2.0)
                .because("column-wise traversal is several times slower"),
        );
    vec![aos, soa, rowwise, colwise]
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernelgate::case::HostData;

    #[test]
    fn references_fit_their_buffers() {
        kernelgate::case::assert_references_fit(&sized(100, (33, 65)));
    }

    #[test]
    fn aos_and_soa_compute_the_same_step() {
        let cases = sized(2, (1, 1));
        let p = [1.0, 2.0, 10.0, 20.0, -1.0, -2.0, 0.5, 0.25];
        let aos = (cases[0].reference)(&[HostData::F32(p.to_vec()), HostData::F32(vec![f32::NAN; 8])]);
        assert_eq!(aos, vec![HostData::F32(vec![1.1, 2.2, 10.0, 20.0, -0.995, -1.9975, 0.5, 0.25])]);
        let fields: Vec<HostData> = (0..4).map(|f| HostData::F32(vec![p[f], p[4 + f]])).collect();
        let soa = (cases[1].reference)(&fields);
        let interleaved: Vec<f32> =
            (0..2).flat_map(|i| (0..4).map(move |f| (f, i))).map(|(f, i)| soa[f].f32()[i]).collect();
        assert_eq!(interleaved, aos[0].f32());
    }

    #[test]
    fn traversal_grids_cover_the_matrix() {
        let cases = sized(1, (100, 300));
        assert_eq!(cases[2].first_launch().grid_for(1), [10, 13, 1], "rowwise: x along 300 columns");
        assert_eq!(cases[3].first_launch().grid_for(1), [4, 38, 1], "colwise: x along 100 rows");
    }
}
