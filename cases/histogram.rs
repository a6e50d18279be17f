//! `kernels/histogram.cu`: 256 bins over 2^28 bytes (4 per `u32` word), one global atomic per byte
//! against privatized shared-memory bins flushed with one atomic per non-zero bin per block; on
//! uniform bytes and on skewed bytes (90 % one value, [`kernelgate::case::HOT_BYTE`]); and CUB, the vendor
//! reference (`histogram/cub/<bytes>_<data>`, [`Case::vendor_reference`]): `kernels/cub.cu`'s
//! `cub_histogram`, cub::BlockLoad and cub::BlockHistogram (shared atomics into one 256-bin table per
//! block) at DeviceHistogram's tile and grid on sm_90, then one global atomic per non-zero bin per
//! block. Exact check.

use super::scaled_count;
use crate::k::cub as kc;
use crate::k::histogram as kh;
use kernelgate::case::{Case, Elem, HostData, Init, Launch, Param};
use kernelgate::expect::Expectation as E;
use kernelgate::model::Ceiling;
use kernelgate::sass::SassExpectation as S;

/// Bytes: 2^28 (2^26 words).
pub const BYTES: usize = 1 << 28;
/// Bins.
pub const BINS: usize = 256;
const GLOBAL_BLOCK: u32 = 256;
/// `histogram_global`: 8 blocks of 256 per SM, one full-occupancy wave.
const GLOBAL_PER_SM: u32 = 8;
/// `histogram_privatized`: 4 blocks of 512 per SM, the resident limit with 32 KiB of shared bins
/// per block (the faster of 256 x 6 and 512 x 4 on the H200,
/// scripts/tune/results/reduce_hist-h200-2026-11-30-run2.log).
const PRIVATE_BLOCK: u32 = 512;
const PRIVATE_PER_SM: u32 = 4;
/// `cub_histogram`: DeviceHistogram's block on sm_90 for 1-byte samples, 768 threads (CCCL 3.0,
/// `cub/device/dispatch/tuning/tuning_histogram.cuh`, `sm90_tuning`), and its grid, resident blocks
/// per SM x SM count (`dispatch_histogram.cuh`): 2 of 768 threads fit in the 2048 of an SM.
const CUB_BLOCK: u32 = 768;
const CUB_PER_SM: u32 = 2;
/// Share of bytes equal to the hot value in the skewed data.
pub const SKEW: f32 = 0.9;

/// The family at full size.
pub fn cases() -> Vec<Case> {
    sized(BYTES / 4)
}

/// The family with `scale` times the words, in steps of 32 ([`super::scaled_count`]).
pub fn scaled(scale: f64) -> Vec<Case> {
    sized(scaled_count(BYTES / 4, scale, 32))
}

/// Counts of each byte value in `words` (4 bytes each).
pub fn histogram(words: &[u32]) -> Vec<u32> {
    let mut bins = vec![0u32; BINS];
    for w in words {
        for b in w.to_le_bytes() {
            bins[usize::from(b)] += 1;
        }
    }
    bins
}

/// The counter lessons. Bounds read off the H200 with margin (ncu 2025.3.1, GPU-9b8584e0; confirmed on GPU-1c2e7f54,
/// 2026-11-30, 2^28 bytes): one atomic per byte issued 8388608 reduction requests, the privatized
/// bins 4224 (1986 times fewer) on uniform and skewed bytes alike; the privatized kernel ran in
/// 0.0010 and 0.00036 of the global one's time.
fn lessons(variant: &str) -> Vec<E> {
    const RED: &str = "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum";
    match variant {
        "global" => vec![
            E::metric(RED)
                .relative_to("privatized")
                .at_least(1000.0)
                .because("one global atomic per byte against one per non-zero bin per block"),
        ],
        "privatized" => vec![
            E::metric("gpu__time_duration.sum")
                .relative_to("global")
                .at_most(0.01)
                .because("shared-memory atomics, flushed once per block"),
        ],
        _ => Vec::new(),
    }
}

fn sized(words: usize) -> Vec<Case> {
    let n_i32 = i32::try_from(words).expect("words fit int");
    let mut cases = Vec::new();
    for (data, hot) in [("uniform", 0.0), ("skewed", SKEW)] {
        for (variant, kernel, launch) in [
            ("global", kh::histogram_global, Launch::per_sm(GLOBAL_PER_SM, GLOBAL_BLOCK)),
            ("privatized", kh::histogram_privatized, Launch::per_sm(PRIVATE_PER_SM, PRIVATE_BLOCK)),
            ("cub", kc::cub_histogram, Launch::per_sm(CUB_PER_SM, CUB_BLOCK)),
        ] {
            let case = Case::new("histogram", variant, format!("{}_{data}", 4 * words), kernel);
            let case = if variant == "cub" { case.vendor_reference("CUB") } else { case };
            cases.push(
                case.launch(launch)
                    .params([
                        Param::In { init: Init::Bytes { hot }, elem: Elem::U32, len: words, offset: 0 },
                        Param::counts(BINS),
                        Param::I32(n_i32),
                    ])
                    .reference_data(|b| vec![HostData::U32(histogram(b[0].u32()))])
                    .bytes(4 * words as u64)
                    // reads the words once; writes 256 bins
                    .bound_by(Ceiling::DramRead)
                    .expects(lessons(variant))
                    .sass([match variant {
                        "global" => S::class("shared_atom").absent().because("every count is a global atomic"),
                        "cub" => S::class("shared_atom")
                            .present()
                            .because("BLOCK_HISTO_ATOMIC counts in shared memory: ATOMS"),
                        _ => S::class("shared_atom").present().because("each block counts in shared memory: ATOMS"),
                    }]),
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
        kernelgate::case::assert_references_fit(&sized(1000));
    }

    #[test]
    fn cub_is_the_vendor_reference_of_each_input() {
        let cases = sized(1000);
        let cub: Vec<String> = cases.iter().filter(|c| c.vendor == Some("CUB")).map(Case::name).collect();
        assert_eq!(cub, ["histogram/cub/4000_uniform", "histogram/cub/4000_skewed"]);
        let c = cases.iter().find(|c| c.variant == "cub").unwrap();
        assert_eq!((c.kernel_names(), c.first_launch().block), ("cub_histogram".to_string(), [768, 1, 1]));
        assert!(c.expectations.is_empty(), "no counter lesson measured for CUB");
    }

    #[test]
    fn cpu_histogram_counts_every_byte() {
        let bins = histogram(&[0x0201_0100, 0xFFFF_FFFF]);
        assert_eq!((bins[0], bins[1], bins[2], bins[255]), (1, 2, 1, 4));
        assert_eq!(bins.iter().sum::<u32>(), 8);
    }
}
