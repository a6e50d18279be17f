//! `kernels/coalescing.cu`: coalesced copy, strided reads, random gather, misaligned base.

use super::{elements, scaled_count};
use crate::k::coalescing as kc;
use kernelgate::case::{Case, Elem, Init, Launch, Param};
use kernelgate::expect::Expectation as E;

/// Elements of the copies: 2^26 floats, 256 MiB per buffer (five times the H200's 50 MiB L2).
pub const N: usize = 1 << 26;
/// Outputs of the strided reads and the gather: 2^24 floats; the stride-32 input is then 2 GiB.
pub const N_STRIDED: usize = 1 << 24;
/// Strides of the strided-read cases, in floats.
pub const STRIDES: [usize; 5] = [1, 2, 4, 8, 32];
const BLOCK: u32 = 256;

/// The family at full size.
pub fn cases() -> Vec<Case> {
    sized(N, N_STRIDED)
}

/// The family with `scale` times the elements, changed by a multiple of 1024 ([`super::scaled_count`]).
pub fn scaled(scale: f64) -> Vec<Case> {
    sized(scaled_count(N, scale, 1024), scaled_count(N_STRIDED, scale, 1024))
}

/// Stride `s` uses 4 of every `4 s` fetched bytes until a float has a sector to itself (s >= 8).
/// DRAM reads grow with the stride: `s` times the stride-1 read up to s = 8, measured 8.0x on the
/// H200; beyond, at least one 32-byte sector per float (the H200 measured 16.0x at s = 32: its DRAM
/// moved 64 bytes per isolated read; ncu 2025.3.1, 2026-11-30).
fn strided_lessons(stride: usize) -> Vec<E> {
    let used = 32.0 / stride.min(8) as f64;
    let mut lessons = vec![
        E::metric("global_ld_bytes_per_sector")
            .between(used * 0.98, used * 1.02)
            .because("bytes used per sector = 32 / stride, 4 from stride 8 on"),
    ];
    let dram = E::metric("dram__bytes_read.sum").relative_to("read_strided_s1");
    match stride {
        1 => {}
        2..=8 => {
            let grows = stride as f64;
            lessons.push(dram.between(grows * 0.9, grows * 1.1).because("DRAM reads grow with the stride"))
        }
        _ => lessons.push(dram.at_least(7.2).because("at least one whole sector per float from stride 8 on")),
    }
    lessons
}

fn sized(n: usize, n_strided: usize) -> Vec<Case> {
    let n_i32 = i32::try_from(n).expect("n fits int");
    let mut cases = vec![
        Case::new("coalescing", "copy", elements(n), kc::copy_coalesced)
            .launch(Launch::linear(n, BLOCK))
            .params([Param::input(n), Param::output(n), Param::I32(n_i32)])
            .reference(|b| vec![b[0].f32().to_vec()])
            .bytes(8 * n as u64)
            .expect(
                E::metric("global_ld_bytes_per_sector")
                    .at_least(31.9)
                    .because("a warp's 32 consecutive floats use every byte of 4 sectors"),
            )
            .expect(E::metric("dram_overfetch").between(0.9, 1.1).because("each byte read and written once")),
        // The same kernel with its input pointer one float past a 256-byte boundary: every warp's
        // 128 bytes straddle two 128-byte lines (5 sectors instead of 4).
        Case::new("coalescing", "copy_misaligned", elements(n), kc::copy_coalesced)
            .launch(Launch::linear(n, BLOCK))
            .params([
                Param::In { init: Init::Uniform { lo: -1.0, hi: 1.0 }, elem: Elem::F32, len: n + 1, offset: 1 },
                Param::output(n),
                Param::I32(n_i32),
            ])
            .reference(|b| vec![b[0].f32()[1..].to_vec()])
            .bytes(8 * n as u64)
            .expect(
                E::metric("global_ld_bytes_per_sector")
                    .between(24.0, 27.0)
                    .because("128 useful bytes over 5 sectors: 25.6 bytes per sector"),
            )
            .expect(
                E::metric("dram_overfetch")
                    .between(0.9, 1.1)
                    .because("neighbouring warps share the straddled sectors in L2"),
            ),
    ];
    let m = n_strided;
    let m_i32 = i32::try_from(m).expect("n fits int");
    for stride in STRIDES {
        cases.push(
            Case::new("coalescing", format!("read_strided_s{stride}"), elements(m), kc::read_strided)
                .launch(Launch::linear(m, BLOCK))
                .params([Param::input(m * stride), Param::output(m), Param::I32(m_i32), Param::I32(stride as i32)])
                .reference(move |b| vec![b[0].f32().iter().step_by(stride).copied().collect()])
                // Useful bytes: the m floats read and the m written. Bytes fetched grow with the
                // stride, which is the lesson; effective bandwidth shows it.
                .bytes(8 * m as u64)
                .expects(strided_lessons(stride)),
        );
    }
    cases.push(
        Case::new("coalescing", "gather_random", elements(m), kc::gather_random)
            .launch(Launch::linear(m, BLOCK))
            .params([
                Param::input(m),
                Param::In { init: Init::Permutation, elem: Elem::U32, len: m, offset: 0 },
                Param::output(m),
                Param::I32(m_i32),
            ])
            .reference(|b| {
                let (input, idx) = (b[0].f32(), b[1].u32());
                vec![idx.iter().map(|&j| input[j as usize]).collect()]
            })
            // the values, the indices and the output, each once: a permutation reads every input once
            .bytes(12 * m as u64)
            .expect(
                E::metric("dram_overfetch").at_least(2.0).because("every scattered 4-byte read fetches a whole sector"),
            ),
    );
    cases
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernelgate::case::HostData;

    #[test]
    fn references_fit_their_buffers() {
        kernelgate::case::assert_references_fit(&sized(1000, 100));
    }

    #[test]
    fn strided_reference_takes_every_stride_th() {
        let cases = sized(8, 4);
        let s4 = cases.iter().find(|c| c.variant == "read_strided_s4").unwrap();
        let input: Vec<f32> = (0..16).map(|i| i as f32).collect();
        let out = (s4.reference)(&[HostData::F32(input), HostData::F32(vec![f32::NAN; 4])]);
        assert_eq!(out, vec![HostData::F32(vec![0.0, 4.0, 8.0, 12.0])]);
    }

    #[test]
    fn misaligned_copy_skips_the_first_float() {
        let cases = sized(3, 1);
        let c = cases.iter().find(|c| c.variant == "copy_misaligned").unwrap();
        let out = (c.reference)(&[HostData::F32(vec![9.0, 1.0, 2.0, 3.0]), HostData::F32(vec![f32::NAN; 3])]);
        assert_eq!(out, vec![HostData::F32(vec![1.0, 2.0, 3.0])]);
    }

    #[test]
    fn gather_follows_the_indices() {
        let cases = sized(3, 3);
        let c = cases.iter().find(|c| c.variant == "gather_random").unwrap();
        let out = (c.reference)(&[
            HostData::F32(vec![10.0, 20.0, 30.0]),
            HostData::U32(vec![2, 0, 1]),
            HostData::F32(vec![f32::NAN; 3]),
        ]);
        assert_eq!(out, vec![HostData::F32(vec![30.0, 10.0, 20.0])]);
    }
}
