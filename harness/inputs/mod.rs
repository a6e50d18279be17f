//! The inputs of a trial: drawn on the CPU from a seed (uniform floats, permutations, skewed
//! bytes, poisoned outputs; pure and deterministic in the seed), and shared where they can be: by
//! the two versions of a same-run A/B trial, by the checked reruns of a wrong result, and by the
//! variants of a family at one size that declare one reference ([`Case::reference_shared`]):
//! thirteen SGEMM variants at 4096³ need one float64 product, not thirteen.
//!
//! | part | module |
//! |---|---|
//! | drawing (pure) | this module |
//! | the kept inputs and references of a run | [`cache`] |
//! | drawing and computing the next trials' while the GPU times this one | [`prefetch`] |

pub mod cache;
pub mod prefetch;

pub use cache::{BUDGET_BYTES, Prepared, Taken};
pub use prefetch::prepared;

use crate::case::{Case, Elem, HOT_BYTE, HostData, Init, Param};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

/// Threads a CPU computation of the harness may use (drawing inputs, references): every core, but
/// while a [`prefetch::Prefetch`] works beside timed trials, every core but two — one for the
/// thread that times (it spins in the driver's event waits) and one for the driver's own threads.
/// kernelgate's choice; a launch-bound program (`launch/one_by_one`) stalls between its kernels
/// when its launching thread loses its core.
pub fn threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if prefetch::running() { cores.saturating_sub(2).max(1) } else { cores }
}

/// Elements drawn per independently seeded chunk; fixed, so the data depends on the seed alone
/// and not on how many threads drew it.
const CHUNK: usize = 1 << 20;

/// Draws a buffer's initial contents. Outputs, scratch and host destinations come back poisoned
/// (NaN; `u32` all ones), as the GPU copy will be.
///
/// Deterministic in `seed`; different seeds give different data. Uniform inputs are drawn in
/// parallel chunks ([`threads`]; a 2 GiB input takes well under a second on the runner's 16 cores).
pub fn draw(param: &Param, seed: u64) -> Option<HostData> {
    match *param {
        Param::Out { len } | Param::Scratch { len } | Param::Host { init: None, len, .. } => {
            Some(HostData::F32(vec![f32::NAN; len]))
        }
        Param::Zeroed { len, elem: Elem::F32 } => Some(HostData::F32(vec![f32::NAN; len])),
        Param::Zeroed { len, elem: Elem::U32 } => Some(HostData::U32(vec![u32::MAX; len])),
        Param::In { init, len, .. } | Param::InOut { init, len, .. } | Param::Host { init: Some(init), len, .. } => {
            Some(drawn(init, len, seed))
        }
        Param::I32(_) | Param::F32(_) => None,
    }
}

fn drawn(init: Init, len: usize, seed: u64) -> HostData {
    match init {
        Init::Uniform { lo, hi } => HostData::F32(uniform(len, lo, hi, seed)),
        Init::Permutation => {
            let mut v: Vec<u32> = (0..u32::try_from(len).expect("permutation fits u32")).collect();
            v.shuffle(&mut SmallRng::seed_from_u64(seed));
            HostData::U32(v)
        }
        Init::Bytes { hot } => HostData::U32(bytes(len, hot, seed)),
    }
}

/// `len` words of 4 bytes each, each byte [`HOT_BYTE`] with probability `hot`, else uniform;
/// drawn in independently seeded chunks like [`uniform`].
fn bytes(len: usize, hot: f32, seed: u64) -> Vec<u32> {
    let mut v = vec![0u32; len];
    let per_thread = len.div_ceil(CHUNK).div_ceil(threads()).max(1) * CHUNK;
    std::thread::scope(|scope| {
        for (t, part) in v.chunks_mut(per_thread).enumerate() {
            scope.spawn(move || {
                for (c, chunk) in part.chunks_mut(CHUNK).enumerate() {
                    let mut rng = SmallRng::seed_from_u64(mix(seed, (t * per_thread / CHUNK + c) as u64));
                    for w in chunk.iter_mut() {
                        *w = (0..4).fold(0u32, |word, i| {
                            let b = if rng.random::<f32>() < hot { HOT_BYTE } else { rng.random::<u8>() };
                            word | u32::from(b) << (8 * i)
                        });
                    }
                }
            });
        }
    });
    v
}

fn uniform(len: usize, lo: f32, hi: f32, seed: u64) -> Vec<f32> {
    let mut v = vec![0.0f32; len];
    let chunks: Vec<(usize, &mut [f32])> = v.chunks_mut(CHUNK).enumerate().collect();
    let per_thread = chunks.len().div_ceil(threads()).max(1);
    let mut chunks = chunks;
    std::thread::scope(|scope| {
        while !chunks.is_empty() {
            let take = per_thread.min(chunks.len());
            let mine: Vec<(usize, &mut [f32])> = chunks.drain(..take).collect();
            scope.spawn(move || {
                for (index, chunk) in mine {
                    let mut rng = SmallRng::seed_from_u64(mix(seed, index as u64));
                    chunk.iter_mut().for_each(|x| *x = rng.random_range(lo..hi));
                }
            });
        }
    });
    v
}

/// SplitMix64 finalizer of `seed + k`: independent seeds per chunk or per trial
/// (Steele, Lea, Flood 2014, "Fast splittable pseudorandom number generators", OOPSLA).
pub fn mix(seed: u64, k: u64) -> u64 {
    let mut z = seed.wrapping_add(k.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of one trial's inputs: the run's seed mixed with the trial name, so trials differ and a
/// single trial replays alone with the same `KERNELGATE_SEED`.
pub fn trial_seed(run_seed: u64, name: &str) -> u64 {
    name.bytes().fold(run_seed, |s, b| mix(s, u64::from(b)))
}

/// The seed of `case`'s inputs in a run seeded `run_seed`: of its family and size when it shares
/// its reference ([`Case::shares_inputs`]), else of its trial name ([`trial_seed`]).
pub fn inputs_seed(case: &Case, run_seed: u64) -> u64 {
    if case.shares_inputs {
        trial_seed(run_seed, &format!("{}/{}", case.family, case.size))
    } else {
        trial_seed(run_seed, &case.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_fresh_nonzero_and_seeded() {
        let p = Param::input(3 * CHUNK + 17);
        let a = draw(&p, 1).unwrap();
        let b = draw(&p, 1).unwrap();
        let c = draw(&p, 2).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        let v = a.f32();
        assert!(v.iter().all(|x| (-1.0..1.0).contains(x)));
        assert!(v.iter().filter(|x| **x == 0.0).count() < 4, "uniform data is not zeros");
        // chunks are seeded independently: two chunks differ
        assert_ne!(&v[..16], &v[CHUNK..CHUNK + 16]);
    }

    #[test]
    fn permutation_holds_every_index_once() {
        let p = Param::In { init: Init::Permutation, len: 1000, offset: 0 };
        let mut v = draw(&p, 7).unwrap().u32().to_vec();
        assert_ne!(v, (0..1000).collect::<Vec<u32>>(), "shuffled");
        v.sort_unstable();
        assert_eq!(v, (0..1000).collect::<Vec<u32>>());
    }

    #[test]
    fn byte_words_are_skewed_as_asked() {
        let count_hot = |hot: f32| {
            let v = draw(&Param::In { init: Init::Bytes { hot }, len: 1 << 16, offset: 0 }, 3).unwrap();
            let hits: usize = v.u32().iter().map(|w| w.to_le_bytes().iter().filter(|&&b| b == HOT_BYTE).count()).sum();
            hits as f64 / f64::from(1u32 << 18)
        };
        assert!((count_hot(0.0) - 1.0 / 256.0).abs() < 0.001, "uniform bytes: 1/256 each");
        assert!((count_hot(0.9) - (0.9 + 0.1 / 256.0)).abs() < 0.01);
    }

    #[test]
    fn outputs_are_poisoned() {
        let v = draw(&Param::output(5), 0).unwrap();
        assert!(v.f32().iter().all(|x| x.is_nan()));
        assert_eq!(draw(&Param::I32(3), 0), None);
    }

    #[test]
    fn trial_seeds_differ_by_name() {
        assert_ne!(trial_seed(1, "a/b/1"), trial_seed(1, "a/b/2"));
        assert_eq!(trial_seed(1, "a/b/1"), trial_seed(1, "a/b/1"));
    }
}
