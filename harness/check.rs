//! Check stage: fresh random inputs, poisoned outputs, one launch, every element compared with the
//! CPU reference. Input drawing and comparison are pure and tested on the CPU; [`check_case`] is
//! the part that runs on the GPU.

use crate::case::{Case, HostData, Init, Param, Tolerance};
use crate::gpu::{DeviceData, Gpu};
use cudarc::driver::CudaFunction;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

/// Elements drawn per independently seeded chunk; fixed, so the data depends on the seed alone
/// and not on how many threads drew it.
const CHUNK: usize = 1 << 20;

/// Draws a buffer's initial contents. Output buffers ([`Param::Out`]) come back as NaN.
///
/// Deterministic in `seed`; different seeds give different data. Uniform inputs are drawn in
/// parallel chunks (a 2 GiB input takes well under a second on the runner's 16 cores).
pub fn draw(param: &Param, seed: u64) -> Option<HostData> {
    match *param {
        Param::Out { len } => Some(HostData::F32(vec![f32::NAN; len])),
        Param::In { init, len, .. } | Param::InOut { init, len, .. } => Some(match init {
            Init::Uniform { lo, hi } => HostData::F32(uniform(len, lo, hi, seed)),
            Init::Permutation => {
                let mut v: Vec<u32> = (0..u32::try_from(len).expect("permutation fits u32")).collect();
                v.shuffle(&mut SmallRng::seed_from_u64(seed));
                HostData::U32(v)
            }
        }),
        Param::I32(_) | Param::F32(_) => None,
    }
}

fn uniform(len: usize, lo: f32, hi: f32, seed: u64) -> Vec<f32> {
    let mut v = vec![0.0f32; len];
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunks: Vec<(usize, &mut [f32])> = v.chunks_mut(CHUNK).enumerate().collect();
    let per_thread = chunks.len().div_ceil(threads).max(1);
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

/// The first element outside tolerance, and how many there are.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mismatch {
    /// Index of the first bad element.
    pub index: usize,
    /// Reference value there.
    pub expected: f32,
    /// GPU value there.
    pub got: f32,
    /// Number of bad elements in the buffer.
    pub count: usize,
    /// Buffer length.
    pub len: usize,
}

/// Compares every element: ok when `|got - want| <= abs + rel * |want|`; NaN or a length
/// difference is always a mismatch (a length difference reports index `min(len)`).
pub fn compare(got: &[f32], want: &[f32], tol: Tolerance) -> Option<Mismatch> {
    // Written as a negated `<=` on purpose: any comparison with NaN is false, so NaN counts as bad.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    let bad = |g: f32, w: f32| !((g - w).abs() <= tol.abs + tol.rel * w.abs());
    let mut first = None;
    let mut count = 0;
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        if bad(g, w) {
            count += 1;
            first.get_or_insert((i, w, g));
        }
    }
    let short = got.len().min(want.len());
    count += got.len().max(want.len()) - short;
    if first.is_none() && count > 0 {
        first =
            Some((short, want.get(short).copied().unwrap_or(f32::NAN), got.get(short).copied().unwrap_or(f32::NAN)));
    }
    first.map(|(index, expected, got_value)| Mismatch { index, expected, got: got_value, count, len: want.len() })
}

/// Describes a mismatch for the trial's failure message.
pub fn describe(case: &Case, param_index: usize, m: &Mismatch, seed: u64) -> String {
    format!(
        "{}: output parameter #{param_index} of {}, element {}: expected {:?}, got {:?} \
         ({} of {} elements differ beyond abs {:e} + rel {:e}); replay with KERNELGATE_SEED={seed}",
        case.name(),
        case.kernel.entry,
        m.index,
        m.expected,
        m.got,
        m.count,
        m.len,
        case.tolerance.abs,
        case.tolerance.rel,
    )
}

/// Draws `case`'s inputs from the trial's seed (`run_seed` mixed with the trial name), poisons its
/// outputs, launches `func` once and compares every element of every compared output with the
/// reference. Returns the device buffers (ready for timing the same launch), `Ok(Err(message))`
/// for a wrong result (the message names the element, the values and the seed), or `Err` for a
/// harness or driver error.
///
/// # Errors
/// [`crate::Error::Driver`] when an upload, the launch or a download fails.
pub fn check_case(
    gpu: &Gpu,
    case: &Case,
    func: &CudaFunction,
    run_seed: u64,
) -> crate::Result<Result<Vec<DeviceData>, String>> {
    let seed = trial_seed(run_seed, &case.name());
    let host: Vec<HostData> =
        case.params.iter().enumerate().filter_map(|(i, p)| draw(p, mix(seed, i as u64))).collect();
    let buffer_params: Vec<(usize, &Param)> = case.params.iter().enumerate().filter(|(_, p)| p.is_buffer()).collect();
    let mut buffers = host.iter().map(|h| gpu.upload(h)).collect::<crate::Result<Vec<DeviceData>>>()?;
    for ((_, param), buffer) in buffer_params.iter().zip(buffers.iter_mut()) {
        if matches!(param, Param::Out { .. }) {
            gpu.poison(buffer)?;
        }
    }
    gpu.launch(func, case, &buffers)?;
    gpu.synchronize()?;
    let expected = (case.reference)(&host);
    let compared = buffer_params.iter().zip(&buffers).filter(|((_, p), _)| p.is_compared());
    for (((param_index, _), buffer), want) in compared.zip(&expected) {
        let got = gpu.download(buffer)?;
        if let Some(m) = compare(&got, want, case.tolerance) {
            return Ok(Err(describe(case, *param_index, &m, run_seed)));
        }
    }
    Ok(Ok(buffers))
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
    fn outputs_are_poisoned() {
        let v = draw(&Param::output(5), 0).unwrap();
        assert!(v.f32().iter().all(|x| x.is_nan()));
        assert_eq!(draw(&Param::I32(3), 0), None);
    }

    #[test]
    fn compare_finds_first_and_counts_all() {
        let want = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(compare(&want, &want, Tolerance::EXACT), None);
        let m = compare(&[1.0, 2.5, 3.0, 0.0], &want, Tolerance::EXACT).unwrap();
        assert_eq!((m.index, m.expected, m.got, m.count, m.len), (1, 2.0, 2.5, 2, 4));
    }

    #[test]
    fn nan_never_passes_and_tolerance_applies() {
        let loose = Tolerance { abs: 1.0, rel: 1.0 };
        assert!(compare(&[f32::NAN], &[1.0], loose).is_some());
        assert!(compare(&[1.0], &[f32::NAN], loose).is_some());
        let tol = Tolerance { abs: 0.0, rel: 1e-6 };
        assert_eq!(compare(&[1.000_000_5], &[1.0], tol), None);
        assert!(compare(&[1.000_01], &[1.0], tol).is_some());
    }

    #[test]
    fn length_difference_is_a_mismatch() {
        let m = compare(&[1.0, 2.0], &[1.0, 2.0, 3.0], Tolerance::EXACT).unwrap();
        assert_eq!((m.index, m.count), (2, 1));
    }

    #[test]
    fn trial_seeds_differ_by_name() {
        assert_ne!(trial_seed(1, "a/b/1"), trial_seed(1, "a/b/2"));
        assert_eq!(trial_seed(1, "a/b/1"), trial_seed(1, "a/b/1"));
    }
}
