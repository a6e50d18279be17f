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

pub use cache::{BUDGET_BYTES, Cache, Prepared, Taken};
pub use prefetch::Prefetch;

use crate::case::elem::F8E5M2;
use crate::case::{Case, Elem, HOT_BYTE, HostData, Init, Param};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

/// Threads a CPU computation of the harness may use (drawing inputs, references, comparisons,
/// host copies): every core, but while the calling thread's run has its [`Prefetch`] working
/// beside timed trials, every core but two — one for the thread that times (it spins in the
/// driver's event waits) and one for the driver's own threads. kernelgate's choice; a launch-bound
/// program (`launch/one_by_one`) stalls between its kernels when its launching thread loses its
/// core.
///
/// The run is the one whose prefetcher the calling thread entered ([`Prefetch::enter`]: a run's
/// trials and its prefetcher's worker do), as `rayon::current_num_threads` answers for the pool of
/// the calling thread: a case's CPU reference, which is handed only its inputs, calls this to split
/// its work, and another run in the same process never changes the answer. A thread that entered
/// no run's prefetcher gets every core.
pub fn threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if prefetch::beside_trials() { cores.saturating_sub(2).max(1) } else { cores }
}

/// Elements drawn per independently seeded chunk; fixed, so the data depends on the seed alone
/// and not on how many threads drew it.
const CHUNK: usize = 1 << 20;

/// Draws a buffer's initial contents, in its element type. Outputs, scratch and host destinations
/// come back poisoned ([`HostData::poisoned`]: NaN in a floating-point type, all ones in an
/// integer type), as the GPU copy will be.
///
/// Deterministic in `seed`; different seeds give different data. Uniform inputs are drawn in
/// parallel chunks ([`threads`]; a 2 GiB input takes well under a second on the runner's 16 cores).
///
/// # Panics
/// When `init` cannot fill the buffer's type (a permutation in a float buffer, bytes in an `i32`
/// buffer): [`crate::case::assert_program_fits`] names the case first.
pub fn draw(param: &Param, seed: u64) -> Option<HostData> {
    match *param {
        Param::Out { elem, len }
        | Param::Scratch { elem, len }
        | Param::Zeroed { elem, len }
        | Param::Host { init: None, elem, len, .. } => Some(HostData::poisoned(elem, len)),
        Param::In { init, elem, len, .. }
        | Param::InOut { init, elem, len, .. }
        | Param::Host { init: Some(init), elem, len, .. } => Some(drawn(init, elem, len, seed)),
        Param::I32(_) | Param::F32(_) | Param::U64(_) | Param::F16(_) | Param::BF16(_) | Param::F64(_) => None,
    }
}

/// Why `init` cannot fill a buffer of `len` elements of `elem`, when it cannot. Pure.
pub fn unfit(init: Init, elem: Elem, len: usize) -> Option<String> {
    if let Init::Values(values) = init {
        if values.len() != len {
            return Some(format!(
                "Init::Values holds {} values for a buffer of {len} elements: give one value per element",
                values.len()
            ));
        }
        // An integer type's least value (its largest is `max_finite`, as near as f64 comes).
        let lo = match elem {
            Elem::I8 => f64::from(i8::MIN),
            Elem::I32 => f64::from(i32::MIN),
            Elem::I64 => i64::MIN as f64,
            _ => 0.0,
        };
        let hi = elem.max_finite();
        if let Some((i, x)) =
            values.iter().enumerate().find(|(_, x)| !elem.is_float() && (x.fract() != 0.0 || **x < lo || **x > hi))
        {
            return Some(format!(
                "Init::Values: value {i}, {x}, is not an integer a {elem} holds (from {lo:.0} to {hi:.0}): correct \
                 it, or give the buffer a floating-point type"
            ));
        }
        return None;
    }
    if let Init::Specials { share, .. } = init
        && !(0.0..=1.0).contains(&share)
    {
        return Some(format!("{init:?}: share is the probability of a special value, in [0, 1]"));
    }
    let fits = match init {
        Init::Uniform { .. } | Init::Specials { .. } => true,
        Init::Permutation => matches!(elem, Elem::I32 | Elem::U32),
        Init::Bytes { .. } => matches!(elem, Elem::U32 | Elem::U8),
        Init::Values(_) => true,
    };
    (!fits).then(|| {
        format!(
            "{init:?} cannot fill a buffer of {elem}: a permutation needs an i32 or u32 buffer, a byte stream a u32 \
             or u8 buffer; draw a {elem} buffer with Init::Uniform"
        )
    })
}

fn drawn(init: Init, elem: Elem, len: usize, seed: u64) -> HostData {
    if let Some(why) = unfit(init, elem, len) {
        panic!("{why}");
    }
    match init {
        Init::Values(values) => HostData::rounded(elem, values.iter().copied()),
        Init::Uniform { lo, hi } => match elem {
            Elem::F32 => HostData::F32(uniform(len, lo, hi, seed)),
            Elem::F64 => HostData::F64(uniform(len, f64::from(lo), f64::from(hi), seed)),
            float if float.is_float() => {
                HostData::rounded(float, uniform(len, lo, hi, seed).into_iter().map(f64::from))
            }
            // The integers of [ceil(lo), hi): floor of a uniform real in [ceil(lo), hi), kept at
            // least ceil(lo).
            int => {
                let first = f64::from(lo).ceil();
                let values = uniform(len, first, f64::from(hi).max(first + 1.0), seed);
                HostData::rounded(int, values.into_iter().map(|x| x.floor().max(first)))
            }
        },
        Init::Specials { lo, hi, share } => {
            let specials = elem.specials();
            let mut rng = SmallRng::seed_from_u64(mix(seed, SPECIALS_STREAM));
            let values: Vec<f64> = drawn(Init::Uniform { lo, hi }, elem, len, seed)
                .to_f64()
                .into_iter()
                .map(|x| if rng.random::<f32>() < share { specials[rng.random_range(0..specials.len())] } else { x })
                .collect();
            let mut data = HostData::rounded(elem, values.iter().copied());
            // `rounded` saturates as `cvt.satfinite` does; E5M2's infinities are set by their bits,
            // 0x7c and 0xfc (OCP 8-bit Floating Point Specification, 2023, table 1; float8 0.7's
            // `F8E5M2::INFINITY` is the largest finite value, 0x7b).
            if let HostData::E5M2(v) = &mut data {
                for (x, want) in v.iter_mut().zip(&values).filter(|(_, w)| w.is_infinite()) {
                    *x = F8E5M2::from_bits(if *want > 0.0 { 0x7c } else { 0xfc });
                }
            }
            data
        }
        Init::Permutation => {
            let mut v: Vec<u32> = (0..u32::try_from(len).expect("permutation fits u32")).collect();
            v.shuffle(&mut SmallRng::seed_from_u64(seed));
            match elem {
                Elem::I32 => HostData::I32(v.into_iter().map(|x| x as i32).collect()),
                _ => HostData::U32(v),
            }
        }
        Init::Bytes { hot } => match elem {
            Elem::U8 => {
                HostData::U8(bytes(len.div_ceil(4), hot, seed).iter().flat_map(|w| w.to_le_bytes()).take(len).collect())
            }
            _ => HostData::U32(bytes(len, hot, seed)),
        },
    }
}

/// The stream of [`Init::Specials`]' choices, apart from the ordinary values' chunks (any constant
/// other than a chunk index does).
const SPECIALS_STREAM: u64 = 0x5bec_1a15;

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

fn uniform<T>(len: usize, lo: T, hi: T, seed: u64) -> Vec<T>
where
    T: Copy + Default + Send + Sync + rand::distr::uniform::SampleUniform + PartialOrd,
{
    let mut v = vec![T::default(); len];
    let chunks: Vec<(usize, &mut [T])> = v.chunks_mut(CHUNK).enumerate().collect();
    let per_thread = chunks.len().div_ceil(threads()).max(1);
    let mut chunks = chunks;
    std::thread::scope(|scope| {
        while !chunks.is_empty() {
            let take = per_thread.min(chunks.len());
            let mine: Vec<(usize, &mut [T])> = chunks.drain(..take).collect();
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
    fn special_values_are_mixed_in_at_their_share_and_every_one_of_the_type_appears() {
        for elem in Elem::ALL {
            let init = Init::Specials { lo: -1.0, hi: 1.0, share: 0.1 };
            let p = Param::In { init, elem, len: 20_000, offset: 0 };
            let values = draw(&p, 3).unwrap().to_f64();
            assert_eq!(
                draw(&p, 3).unwrap().to_f64().iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                values.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                "{elem}: one seed, one buffer"
            );
            let specials = elem.specials();
            let is_special = |x: f64| specials.iter().any(|s| s.to_bits() == x.to_bits() || (s.is_nan() && x.is_nan()));
            let (lo, hi) = if elem.is_float() {
                (-1.0, 1.0)
            } else {
                (if matches!(elem, Elem::U8 | Elem::U32 | Elem::U64) { 0.0 } else { -1.0 }, 1.0)
            };
            // Rounded to a narrow type, an ordinary value may reach `hi`.
            let odd: Vec<f64> = values.iter().copied().filter(|&x| !is_special(x) && !(lo..=hi).contains(&x)).collect();
            assert!(odd.is_empty(), "{elem}: neither ordinary nor special: {:?}", &odd[..odd.len().min(4)]);
            for s in &specials {
                let n = values.iter().filter(|x| x.to_bits() == s.to_bits() || (s.is_nan() && x.is_nan())).count();
                assert!(n > 0, "{elem}: {s} never drawn");
            }
            if elem.is_float() {
                // Ordinary values never are special here (no NaN, infinity or extreme in [-1, 1)),
                // except -0, 0 and an ordinary value equal to a least normal or subnormal value.
                let drawn = values.iter().filter(|x| !x.is_finite() || x.abs() > 1.0).count() as f64;
                let large = specials.iter().filter(|s| !s.is_finite() || s.abs() > 1.0).count();
                let expected = 0.1 * 20_000.0 * large as f64 / specials.len() as f64;
                assert!(
                    (drawn - expected).abs() < 0.25 * expected,
                    "{elem}: {drawn} non-finite or large of ~{expected}"
                );
            }
        }
        assert!(unfit(Init::Specials { lo: 0.0, hi: 1.0, share: 1.5 }, Elem::F32, 1).unwrap().contains("in [0, 1]"));
        // Given values: one per element, integers of the type's range in an integer buffer.
        let dims: &'static [f64] = &[4096.0, 1.0, 1_099_511_627_776.0];
        assert_eq!(unfit(Init::Values(dims), Elem::U64, 3), None);
        assert!(unfit(Init::Values(dims), Elem::U64, 4).unwrap().contains("holds 3 values for a buffer of 4"));
        let why = unfit(Init::Values(dims), Elem::U32, 3).unwrap();
        assert!(why.starts_with("Init::Values: value 2, 1099511627776, is not an integer a u32 holds"), "{why}");
        assert!(unfit(Init::Values(&[0.5]), Elem::I32, 1).unwrap().contains("value 0, 0.5"));
        assert!(
            unfit(Init::Values(&[-1.0]), Elem::U64, 1).is_some()
                && unfit(Init::Values(&[-1.0]), Elem::I64, 1).is_none()
        );
        assert_eq!(unfit(Init::Values(&[0.3]), Elem::BF16, 1), None, "a float type rounds");
        let p = Param::In { init: Init::Values(dims), elem: Elem::U64, len: 3, offset: 0 };
        assert_eq!(draw(&p, 1).unwrap().u64(), [4096, 1, 1 << 40]);
        assert_eq!(draw(&p, 2).unwrap(), draw(&p, 1).unwrap(), "the same for every run");
    }

    #[test]
    fn every_element_type_is_drawn_in_its_range_and_poisoned_with_its_nan_or_sentinel() {
        let wide = Init::Uniform { lo: -2.0, hi: 3.0 };
        for elem in Elem::ALL {
            let p = Param::In { init: wide, elem, len: 4096, offset: 0 };
            let v = draw(&p, 5).unwrap();
            assert_eq!((v.elem(), v.len(), v.bytes()), (elem, 4096, 4096 * elem.size()), "{elem}");
            let values = v.to_f64();
            let (lo, hi) = if elem.is_float() {
                (-2.0, 3.0)
            } else if matches!(elem, Elem::U8 | Elem::U32 | Elem::U64) {
                (0.0, 2.0)
            } else {
                (-2.0, 2.0)
            };
            assert!(values.iter().all(|x| (lo..=hi).contains(x)), "{elem}: {:?}", &values[..8]);
            assert!(values.iter().any(|x| *x != values[0]), "{elem} varies");
            assert_eq!(draw(&p, 5).unwrap(), v, "{elem}: deterministic in the seed");
            let out = draw(&Param::output(3).of(elem), 5).unwrap();
            assert!(out.as_bytes().iter().all(|b| *b == 0xFF), "{elem}");
            let poison = out.to_f64();
            if elem.is_float() {
                assert!(poison.iter().all(|x| x.is_nan()), "{elem}: {poison:?}");
            } else {
                let sentinel = match elem {
                    Elem::I8 | Elem::I32 | Elem::I64 => -1.0,
                    Elem::U8 => 255.0,
                    Elem::U64 => u64::MAX as f64,
                    _ => f64::from(u32::MAX),
                };
                assert_eq!(poison, [sentinel; 3], "{elem}");
            }
        }
        // f32 draws are those of before element types: the shipped suite's inputs are unchanged.
        let f32s = draw(&Param::input(1000), 9).unwrap();
        assert_eq!(f32s, HostData::F32(uniform(1000, -1.0f32, 1.0, 9)));
        let bytes = draw(&Param::In { init: Init::Bytes { hot: 0.5 }, elem: Elem::U8, len: 10, offset: 0 }, 1).unwrap();
        let words = draw(&Param::In { init: Init::Bytes { hot: 0.5 }, elem: Elem::U32, len: 3, offset: 0 }, 1).unwrap();
        assert_eq!(bytes.u8(), &words.as_bytes()[..10], "one byte stream either way");
        let perm = draw(&Param::In { init: Init::Permutation, elem: Elem::I32, len: 100, offset: 0 }, 1).unwrap();
        let mut sorted = perm.i32().to_vec();
        sorted.sort();
        assert_eq!(sorted, (0..100).collect::<Vec<i32>>());
    }

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
        let p = Param::In { init: Init::Permutation, elem: Elem::U32, len: 1000, offset: 0 };
        let mut v = draw(&p, 7).unwrap().u32().to_vec();
        assert_ne!(v, (0..1000).collect::<Vec<u32>>(), "shuffled");
        v.sort_unstable();
        assert_eq!(v, (0..1000).collect::<Vec<u32>>());
    }

    #[test]
    fn byte_words_are_skewed_as_asked() {
        let count_hot = |hot: f32| {
            let v =
                draw(&Param::In { init: Init::Bytes { hot }, elem: Elem::U32, len: 1 << 16, offset: 0 }, 3).unwrap();
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
