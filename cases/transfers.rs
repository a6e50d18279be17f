//! `kernels/transfers.cu`: host-to-device and device-to-host copies from pageable and pinned
//! memory, and a chunked copy-compute-copy pipeline on one stream vs [`STREAMS`] streams.
//!
//! Lessons, gated as same-run ratios ([`lessons`]; copies are not kernels, so ncu has no counters
//! for them, and it does not see the overlap of streams): a pinned copy runs at the link's rate, a pageable one is staged by the driver through
//! a pinned buffer (CUDA C++ Best Practices Guide, "Pinned Memory"); a pipeline on several streams
//! overlaps the two copy directions and the kernel, one stream runs them in sequence.

use super::{elements, scaled_count};
use crate::k::transfers as kx;
use kernelgate::case::lesson::TimeLesson;
use kernelgate::case::{Arg, Case, Elem, HostData, Init, Launch, Param, Step, Tolerance};

/// Elements per copy: 2^24 floats, 64 MiB (tens of milliseconds over PCIe from pageable memory).
pub const N: usize = 1 << 24;
/// Chunks of the pipeline.
pub const CHUNKS: usize = 8;
/// Streams of the overlapped pipeline.
pub const STREAMS: usize = 4;
/// The pipeline's `out = A * in + B`.
pub const A: f32 = 2.0;
/// See [`A`].
pub const B: f32 = 0.5;
const BLOCK: u32 = 256;

/// The family at full size.
pub fn cases() -> Vec<Case> {
    sized(N)
}

/// The family with `scale` times the elements, in steps of `32 x CHUNKS` so chunks stay equal.
pub fn scaled(scale: f64) -> Vec<Case> {
    sized(scaled_count(N, scale, 32 * CHUNKS))
}

/// The family's lessons, each timed as a same-run ratio ([`super::lessons`]): pinned copies take at
/// most 0.58 (to the device) and 0.63 (from it) of pageable copies' time, the pipeline on
/// [`STREAMS`] streams at most 0.84 of the pipeline on one.
///
/// The bounds are the margin rule ([`kernelgate::gate::lesson::margin_bound`]: halfway between the
/// largest ratio measured and 1.0, rounded up to the next hundredth) over the paired trials' own
/// ratios in 10 runs on one H200 (GPU-6ac5c585, 2026-12-01, binary b1cb118; the lessons CSVs in
/// baselines/nvidia-h200-sm90/runs/lessons/; every run `holds`):
/// - to the device, pinned / pageable: 0.098-0.146, median 0.114 (medians 1.225 vs 10.74 ms),
///   34-292 pairs in the 3 s cap; (0.146 + 1) / 2 = 0.573, bound 0.58;
/// - from the device: 0.174-0.253, median 0.189 (1.224 vs 6.535 ms), 35-403 pairs; 0.6265, 0.63
///   (pageable copies are the host's: their medians over 10 runs of the blessing GPU spread 18.7 %,
///   `run_to_run.csv`);
/// - 4 streams / 1: 0.583-0.668, median 0.590 (1.579 vs 2.675 ms), 55-188 pairs; 0.834, 0.84.
///
/// Earlier ratios of the variants' own medians (runs `20261130T135841Z-72a91c3` and
/// `20261201T165209Z-8c8c911` in baselines/nvidia-h200-sm90/runs/): 0.116 and 0.133, 0.170 and
/// 0.232, 0.585 and 0.585.
pub fn lessons() -> Vec<TimeLesson> {
    let lesson = |good, bad, per, bound, why| TimeLesson { family: "transfers", good, bad, per, bound, why };
    vec![
        lesson(
            "h2d_pinned",
            "h2d_pageable",
            "time per copy",
            0.58,
            "a pinned copy to the device runs at the link's rate; a pageable one is staged by the driver",
        ),
        lesson(
            "d2h_pinned",
            "d2h_pageable",
            "time per copy",
            0.63,
            "a pinned copy from the device runs at the link's rate; a pageable one is staged by the driver",
        ),
        lesson(
            "pipeline_4_streams",
            "pipeline_1_stream",
            "time per pipeline",
            0.84,
            "chunks on 4 streams overlap the two copy directions and the kernel; on one stream they run in turn",
        ),
    ]
}

fn uniform() -> Init {
    Init::Uniform { lo: -1.0, hi: 1.0 }
}

/// A one-copy program: `from` to `to`, `n` elements.
fn copy(variant: &str, n: usize, from: Param, to: Param) -> Case {
    Case::program("transfers", variant, elements(n))
        .params([from, to])
        .step(Step::Copy { from: 0, from_offset: 0, to: 1, to_offset: 0, elems: n, stream: 0 })
        .reference(|b: &[HostData]| vec![b[0].f32().to_vec()])
        .bytes(4 * n as u64)
}

/// The pipeline over `n` elements in [`CHUNKS`] chunks, chunk `c` on stream `c % streams`: copy it
/// in, scale it, copy it out.
fn pipeline(n: usize, streams: usize) -> Case {
    assert!(n.is_multiple_of(CHUNKS), "equal chunks");
    let chunk = n / CHUNKS;
    let mut c = Case::program(
        "transfers",
        format!("pipeline_{streams}_stream{}", if streams > 1 { "s" } else { "" }),
        elements(n),
    )
    .params([
        Param::Host { init: Some(uniform()), elem: Elem::F32, len: n, pinned: true },
        Param::Scratch { elem: Elem::F32, len: n },
        Param::Scratch { elem: Elem::F32, len: n },
        Param::Host { init: None, elem: Elem::F32, len: n, pinned: true },
    ]);
    for i in 0..CHUNKS {
        let (at, stream) = (i * chunk, i % streams);
        let copy = |from, to| Step::Copy { from, from_offset: at, to, to_offset: at, elems: chunk, stream };
        c = c.step(copy(0, 1)).step(Step::Launch {
            kernel: kx::pipeline_scale,
            launch: Launch::linear(chunk, BLOCK),
            args: vec![
                Arg::At { slot: 1, offset: at },
                Arg::At { slot: 2, offset: at },
                Arg::F32(A),
                Arg::F32(B),
                Arg::I32(i32::try_from(chunk).expect("chunk fits int")),
            ],
            stream,
        });
        c = c.step(copy(2, 3));
    }
    c.reference(|b: &[HostData]| vec![b[0].f32().iter().map(|x| A * x + B).collect()])
        .tolerance(Tolerance::FMA)
        .bytes(8 * n as u64)
        .flops(2 * n as u64)
}

fn sized(n: usize) -> Vec<Case> {
    let host = |pinned| Param::Host { init: Some(uniform()), elem: Elem::F32, len: n, pinned };
    let back = |pinned| Param::Host { init: None, elem: Elem::F32, len: n, pinned };
    let device_in = Param::In { init: uniform(), elem: Elem::F32, len: n, offset: 0 };
    vec![
        copy("d2h_pageable", n, device_in.clone(), back(false)),
        copy("d2h_pinned", n, device_in, back(true)),
        copy("h2d_pageable", n, host(false), Param::output(n)),
        copy("h2d_pinned", n, host(true), Param::output(n)),
        pipeline(n, 1),
        pipeline(n, STREAMS),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_fit_their_buffers() {
        kernelgate::case::assert_references_fit(&sized(32 * CHUNKS));
    }

    #[test]
    fn the_pipeline_spreads_chunks_over_its_streams() {
        let cases = sized(32 * CHUNKS);
        let one = cases.iter().find(|c| c.variant == "pipeline_1_stream").unwrap();
        let four = cases.iter().find(|c| c.variant == "pipeline_4_streams").unwrap();
        assert_eq!((one.streams(), four.streams()), (1, STREAMS));
        assert_eq!(four.steps.len(), 3 * CHUNKS);
        assert_eq!(four.launches().count(), CHUNKS);
        assert_eq!(four.kernel_names(), "pipeline_scale");
        let names: Vec<String> = cases.iter().take(4).map(Case::kernel_names).collect();
        assert_eq!(names, ["cuMemcpyDtoHAsync", "cuMemcpyDtoHAsync", "cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync"]);
    }
}
