//! `kernels/launch.cu`: launch overhead. One step of [`STEPS`] tiny in-place kernels over 4096
//! floats, launched one by one, against the same step captured once as a CUDA graph and replayed
//! (the program's [`Case::graph`]). Time per step is the lesson; ncu sees each kernel's own
//! duration, which the graph does not change, so the lesson has no counter expectation: it is gated
//! as a same-run ratio instead ([`lessons`], the trial `launch/graph_vs_one_by_one/<size>`).

use super::{elements, scaled_count};
use crate::k::launch as kl;
use kernelgate::case::lesson::TimeLesson;
use kernelgate::case::{Arg, Case, Elem, HostData, Init, Launch, Param, Step};

/// Elements: 4096 floats, 16 KiB: each kernel is a few microseconds at most.
pub const N: usize = 4096;
/// Kernels per step: scale and add alternately, at least 3, so that the gaps between launches add up.
pub const STEPS: usize = 8;
const BLOCK: u32 = 256;

/// The family at full size.
pub fn cases() -> Vec<Case> {
    sized(N)
}

/// The family with `scale` times the elements, in steps of 32 ([`super::scaled_count`]).
pub fn scaled(scale: f64) -> Vec<Case> {
    sized(scaled_count(N, scale, 32))
}

/// The lesson, timed as a same-run ratio ([`super::lessons`]): a step replayed as a graph takes at
/// most 0.84 of the step launched one by one.
///
/// The bound is the margin rule ([`kernelgate::gate::lesson::margin_bound`]: halfway between the
/// largest ratio measured and 1.0, rounded up to the next hundredth) over the paired trial's own
/// ratios in 10 runs on one H200 (GPU-6ac5c585, 2026-12-01, binary b1cb118; the lessons CSVs in
/// baselines/nvidia-h200-sm90/runs/lessons/): 0.603-0.661, median 0.626 (medians 10.7 vs 17.2 us
/// per step), 7,728-9,269 pairs each, all `holds`; (0.661 + 1) / 2 = 0.8305, bound 0.84. Earlier
/// ratios of the two trials' medians: 0.625 and 0.658 (`20261130T135841Z-72a91c3`,
/// `20261201T165209Z-8c8c911` in baselines/nvidia-h200-sm90/runs/).
pub fn lessons() -> Vec<TimeLesson> {
    vec![TimeLesson {
        family: "launch",
        good: "graph",
        bad: "one_by_one",
        per: "time per step",
        bound: 0.84,
        why: "a CUDA graph replays the 8 launches of a step without the driver's per-launch overhead",
    }]
}

/// The operand of launch `i`: scale by 1.5 or 0.75 (even `i`), add 0.25 or -0.125 (odd `i`):
/// exact in binary, so values stay in range over any number of replays.
fn operand(i: usize) -> f32 {
    match i % 4 {
        0 => 1.5,
        1 => 0.25,
        2 => 0.75,
        _ => -0.125,
    }
}

/// The step on the CPU: each launch in order, in f32 (each kernel rounds once, as the GPU does).
pub fn step(x: &[f32]) -> Vec<f32> {
    let mut out = x.to_vec();
    for i in 0..STEPS {
        let v = operand(i);
        for e in &mut out {
            if i % 2 == 0 { *e *= v } else { *e += v }
        }
    }
    out
}

fn sized(n: usize) -> Vec<Case> {
    let n_i32 = i32::try_from(n).expect("n fits int");
    let program = |variant: &str| {
        let mut c = Case::program("launch", variant, format!("{}x{STEPS}", elements(n))).params([Param::InOut {
            init: Init::Uniform { lo: -1.0, hi: 1.0 },
            elem: Elem::F32,
            len: n,
            offset: 0,
        }]);
        for i in 0..STEPS {
            let kernel = if i % 2 == 0 { kl::tiny_scale } else { kl::tiny_add };
            let args = vec![Arg::Slot(0), Arg::F32(operand(i)), Arg::I32(n_i32)];
            c = c.step(Step::Launch { kernel, launch: Launch::linear(n, BLOCK), args, stream: 0 });
        }
        c.reference(|b: &[HostData]| vec![step(b[0].f32())]).bytes((STEPS * 8 * n) as u64)
    };
    vec![program("graph").as_graph(), program("one_by_one")]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_fit_their_buffers() {
        kernelgate::case::assert_references_fit(&sized(100));
    }

    #[test]
    fn the_step_is_the_launches_in_order() {
        // ((1 x 1.5 + 0.25) x 0.75 - 0.125) = 1.1875, then again: 1.1875 x 1.5 + 0.25 = 2.03125,
        // x 0.75 - 0.125 = 1.3984375.
        assert_eq!(step(&[1.0]), vec![1.3984375]);
        let cases = sized(100);
        assert_eq!(cases.len(), 2);
        assert!(cases[0].graph && !cases[1].graph);
        assert_eq!(cases[0].steps, cases[1].steps, "the same step, replayed or launched");
        assert_eq!(cases[1].launches().count(), STEPS);
    }
}
