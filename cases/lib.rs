//! kernelgate's shipped lesson suite: the case table of the seed lessons, one module per kernel
//! family, mirroring `kernels/<family>.cu`. It uses the library's public API only, as a project
//! that adopts kernelgate writes its own (`tests/kernels.rs` hands [`table`] to
//! `kernelgate::main!`).
//!
//! Adding a kernel: write it in `kernels/<family>.cu` as `extern "C" __global__` (or as a
//! `template` of `__global__` kernels, instantiated here with [`kernelgate::KernelTemplate::with`]),
//! then add a [`Case`] to that family's module here naming it through `k::<family>::<entry>`
//! (`docs/adding-kernels.md`).

#![warn(missing_docs)]

use kernelgate::case::Case;

kernelgate::kernels!();

pub mod blocksum;
pub mod coalescing;
pub mod divergence;
pub mod histogram;
pub mod launch;
pub mod layout;
pub mod lessons;
pub mod matmul;
pub mod occupancy;
pub mod readonly;
pub mod reduction;
pub mod smem;
pub mod transfers;
pub mod transpose;
pub mod vectorization;

/// Each family's table at full size and with its work scaled ([`with_work_scale`]).
type Family = (fn() -> Vec<Case>, fn(f64) -> Vec<Case>);

/// Every family, one module each.
const FAMILIES: [Family; 14] = [
    (blocksum::cases, blocksum::scaled),
    (coalescing::cases, coalescing::scaled),
    (divergence::cases, divergence::scaled),
    (histogram::cases, histogram::scaled),
    (launch::cases, launch::scaled),
    (layout::cases, layout::scaled),
    (matmul::cases, matmul::scaled),
    (occupancy::cases, occupancy::scaled),
    (readonly::cases, readonly::scaled),
    (reduction::cases, reduction::scaled),
    (smem::cases, smem::scaled),
    (transfers::cases, transfers::scaled),
    (transpose::cases, transpose::scaled),
    (vectorization::cases, vectorization::scaled),
];

/// Why the suite's trial `trial` is host-bound ([`Case::host_bound`]), when it is one of the
/// suite's trials and host-bound (for `kernelgate compare`, which reads records by trial name).
/// The case table is built once, on the first call.
pub fn host_bound(trial: &str) -> Option<String> {
    static HOST_BOUND: std::sync::OnceLock<std::collections::BTreeMap<String, String>> = std::sync::OnceLock::new();
    HOST_BOUND
        .get_or_init(|| all().into_iter().filter_map(|c| Some((c.name(), c.host_bound()?))).collect())
        .get(trial)
        .cloned()
}

/// Every case, sorted by name.
///
/// # Panics
/// If two cases share a name or a name component is empty or holds `/` (a case-table mistake; the
/// CPU tests call this).
pub fn all() -> Vec<Case> {
    with_work_scale(1.0)
}

/// Every case, sorted by name, doing `scale` times its work under its nominal name: the power
/// benchmark's "same kernel, 1/2/5 % more work" variants (BENCHMARK.md, "Power: planted slowdowns"), judged against the nominal
/// baseline. Each family scales its problem size by `scale` ([`scaled_count`]), so the work ratio
/// is close to, not exactly, `scale`; the run CSV's `bytes` rows hold the real work. `scale` 1 is
/// [`all`].
///
/// # Panics
/// As [`all`]; also if a family's scaled table does not list the same variants in the same order
/// as its nominal one.
pub fn with_work_scale(scale: f64) -> Vec<Case> {
    let mut cases: Vec<Case> = FAMILIES
        .iter()
        .flat_map(|(nominal, scaled)| if scale == 1.0 { nominal() } else { stand_in(nominal(), scaled(scale)) })
        .collect();
    cases.sort_by_key(Case::name);
    for c in &cases {
        for part in [c.family, c.variant.as_str(), c.size.as_str()] {
            assert!(
                !part.is_empty() && !part.contains('/') && part.is_ascii() && !part.contains('\0'),
                "{}: bad name component {part:?}",
                c.name()
            );
        }
    }
    for pair in cases.windows(2) {
        assert_ne!(pair[0].name(), pair[1].name(), "two cases share a name");
    }
    cases
}

/// The shipped suite's table, handed to the library's entry by `tests/kernels.rs`: its cases
/// ([`with_work_scale`]), its time-only lessons ([`lessons::all`]) and where this build came from
/// ([`BUILD`], the build helper's). As kernelgate's own suite it also compiles and gates the
/// library's own kernel files (`with_self_test`).
pub fn table() -> kernelgate::case::Table {
    kernelgate::case::Table::new(with_work_scale, &BUILD).with_lessons(lessons::all).with_self_test()
}

/// Gives each scaled case its nominal case's size label, so that its trial name (and baseline
/// entry) is the nominal one.
fn stand_in(nominal: Vec<Case>, scaled: Vec<Case>) -> Vec<Case> {
    assert_eq!(nominal.len(), scaled.len(), "a family's scaled table has other cases");
    nominal
        .into_iter()
        .zip(scaled)
        .map(|(n, mut s)| {
            assert_eq!((n.family, &n.variant), (s.family, &s.variant), "a family's scaled table is in another order");
            s.size = n.size;
            s
        })
        .collect()
}

/// `n` changed by the multiple of `multiple` nearest to `n * (scale - 1)`: about `scale` times the
/// work, with `n % multiple` (alignment, a vector width's tail) unchanged. At least 1.
///
/// # Panics
/// If `scale` is not finite and positive, or `multiple` is 0.
pub fn scaled_count(n: usize, scale: f64, multiple: usize) -> usize {
    assert!(scale.is_finite() && scale > 0.0 && multiple > 0, "scale {scale}, multiple {multiple}");
    let steps = (n as f64 * (scale - 1.0) / multiple as f64).round() as i64;
    let scaled = n as i64 + steps * multiple as i64;
    usize::try_from(scaled.max(1)).expect("at least 1")
}

/// `2^26` as a size label: the element count in decimal.
pub(crate) fn elements(n: usize) -> String {
    n.to_string()
}

/// `(0..len).map(f)` computed on [`kernelgate::inputs::threads`] threads, in contiguous chunks: for CPU references that do
/// hundreds of operations per element (2^30 fused multiply-adds take seconds on one core, and
/// `f32::mul_add` is a library call where the build target has no FMA instruction).
pub(crate) fn par_map(len: usize, f: impl Fn(usize) -> f32 + Sync) -> Vec<f32> {
    let mut out = vec![0.0f32; len];
    let threads = kernelgate::inputs::threads();
    let chunk = len.div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        for (k, part) in out.chunks_mut(chunk).enumerate() {
            let f = &f;
            scope.spawn(move || {
                for (j, slot) in part.iter_mut().enumerate() {
                    *slot = f(k * chunk + j);
                }
            });
        }
    });
    out
}

#[cfg(test)]
mod table_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use kernelgate::case::{Param, assert_program_fits, assert_references_fit};

    #[test]
    fn par_map_keeps_the_order() {
        let v = par_map(1001, |i| i as f32);
        assert_eq!(v, (0..1001).map(|i| i as f32).collect::<Vec<_>>());
        assert!(par_map(0, |_| 1.0).is_empty());
    }

    #[test]
    fn scaled_counts_keep_the_remainder() {
        assert_eq!(scaled_count(1 << 26, 1.0, 1024), 1 << 26);
        assert_eq!(scaled_count(1 << 26, 1.01, 1024), (1 << 26) + 655 * 1024, "+0.9995 %");
        assert_eq!(scaled_count(1 << 26, 1.05, 1024), (1 << 26) + 3277 * 1024);
        assert_eq!(scaled_count(8191, 1.02, 32), 8191 + 5 * 32, "8191 stays odd");
        assert_eq!(scaled_count(8192, 0.5, 32), 4096);
        assert_eq!(scaled_count(100, 1.01, 1024), 100, "a step of 1024 is too big: unchanged");
    }

    /// A size parameter (buffer length or `int`) of a scaled case against its nominal value:
    /// unchanged (a stride, the columns), or grown by about 2 % in steps of 32, the smallest
    /// `multiple` any family passes to [`scaled_count`] (so alignment, odd sizes and vector tails
    /// stay what they were). `Err` says what is wrong.
    fn scaled_as_scaled_count_says(nominal: usize, scaled: usize) -> Result<(), String> {
        let ratio = scaled as f64 / nominal as f64;
        if scaled == nominal || ((1.015..=1.025).contains(&ratio) && (scaled - nominal).is_multiple_of(32)) {
            Ok(())
        } else {
            Err(format!("{nominal} became {scaled} (x{ratio:.4})"))
        }
    }

    #[test]
    fn the_size_rule_rejects_what_scaled_count_never_does() {
        assert!(scaled_as_scaled_count_says(1 << 26, scaled_count(1 << 26, 1.02, 1024)).is_ok());
        assert!(scaled_as_scaled_count_says(8191, scaled_count(8191, 1.02, 32)).is_ok());
        assert!(scaled_as_scaled_count_says(32, 32).is_ok());
        assert!(scaled_as_scaled_count_says(8191, 8191 + 164).is_err(), "remainder mod 32 changed");
        assert!(scaled_as_scaled_count_says(1 << 26, (1 << 26) + (1 << 24)).is_err(), "25 % more");
        assert!(scaled_as_scaled_count_says(8192, 8160).is_err(), "shrunk");
    }

    /// Builds the case tables only (parameters are lengths; no host data is drawn and no reference
    /// runs: the families' `references_fit_their_buffers` run the same builders at small sizes).
    #[test]
    fn scaled_cases_stand_in_for_the_nominal_trials() {
        let nominal = all();
        let scaled = with_work_scale(1.02);
        let names = |cases: &[Case]| cases.iter().map(Case::name).collect::<Vec<_>>();
        assert_eq!(names(&scaled), names(&nominal));
        for (n, s) in nominal.iter().zip(&scaled) {
            let name = n.name();
            let ratio = s.bytes as f64 / n.bytes as f64;
            assert!((1.015..=1.025).contains(&ratio), "{name}: work x{ratio}");
            assert_eq!(n.kernels(), s.kernels(), "{name}");
            let shapes = |c: &Case| c.launches().map(|(_, l)| (l.block, l.shared_bytes)).collect::<Vec<_>>();
            assert_eq!(shapes(n), shapes(s), "{name}");
            assert_eq!((&n.expectations, &n.metrics), (&s.expectations, &s.metrics), "{name}");
            // A summation bound grows with the chain of additions (Tolerance::summation); nothing
            // else about the tolerance changes.
            let grows = |a: f64, b: f64| a <= b && b <= a * 1.05;
            assert!(grows(n.tolerance.abs, s.tolerance.abs) && grows(n.tolerance.rel, s.tolerance.rel), "{name}");
            assert_eq!(n.params.len(), s.params.len(), "{name}");
            let mut grew = false;
            for (i, (p, q)) in n.params.iter().zip(&s.params).enumerate() {
                let sizes = match (p, q) {
                    (Param::In { init: a, .. }, Param::In { init: b, .. })
                    | (Param::InOut { init: a, .. }, Param::InOut { init: b, .. }) => {
                        assert_eq!((a, p.offset()), (b, q.offset()), "{name}: parameter {i}: init and offset stay");
                        (p.elements(), q.elements())
                    }
                    _ if p.is_buffer() && std::mem::discriminant(p) == std::mem::discriminant(q) => {
                        (p.elements(), q.elements())
                    }
                    (Param::I32(a), Param::I32(b)) => (*a as usize, *b as usize),
                    (Param::F32(a), Param::F32(b)) => {
                        assert_eq!(a, b, "{name}: parameter {i}");
                        continue;
                    }
                    _ => panic!("{name}: parameter {i} is {p:?} nominally but {q:?} scaled"),
                };
                if let Err(why) = scaled_as_scaled_count_says(sizes.0, sizes.1) {
                    panic!("{name}: parameter {i}: {why}");
                }
                grew |= sizes.1 != sizes.0;
            }
            assert!(grew, "{name}: no parameter grew");
        }
    }

    #[test]
    fn the_sanitizer_child_checks_smaller_cases_under_the_nominal_names() {
        let config = kernelgate::config::Config {
            sanitize: Some("racecheck".into()),
            sanitize_scale: 1.0 / 64.0,
            ..Default::default()
        };
        let small = table().for_checked_child(&config);
        let nominal = all();
        assert_eq!(
            small.iter().map(Case::name).collect::<Vec<_>>(),
            nominal.iter().map(Case::name).collect::<Vec<_>>()
        );
        assert_references_fit(&small);
        for (n, s) in nominal.iter().zip(&small) {
            assert_eq!(n.kernels(), s.kernels(), "{}", n.name());
            assert!(s.bytes < n.bytes, "{}: {} bytes at 1/64, {} nominal", n.name(), s.bytes, n.bytes);
            assert_program_fits(s);
        }
        let smallest = kernelgate::config::Config { work_scale: 0.5, ..config.clone() };
        assert_references_fit(&table().for_checked_child(&smallest));
        let isolated = kernelgate::config::Config { isolate: true, ..Default::default() };
        assert_eq!(table().for_checked_child(&isolated)[0].bytes, nominal[0].bytes, "isolation checks what is timed");
    }

    /// Cases that share a reference (`Case::reference_shared`) share their inputs: same family,
    /// size and buffers, or the shared reference would be computed from another case's data.
    #[test]
    fn cases_that_share_a_reference_have_the_same_buffers() {
        let cases = all();
        let mut groups: std::collections::BTreeMap<usize, Vec<&Case>> = std::collections::BTreeMap::new();
        for c in cases.iter().filter(|c| c.shares_inputs) {
            groups.entry(std::sync::Arc::as_ptr(&c.reference).cast::<()>() as usize).or_default().push(c);
        }
        assert!(groups.values().any(|g| g.len() >= 5), "the matmul shapes share one product among five variants");
        for group in groups.values() {
            let first = group[0];
            for c in group {
                assert_eq!(
                    (c.family, &c.size),
                    (first.family, &first.size),
                    "{} shares with {}",
                    c.name(),
                    first.name()
                );
                assert_eq!(
                    format!("{:?}", c.params),
                    format!("{:?}", first.params),
                    "{} vs {}",
                    c.name(),
                    first.name()
                );
            }
        }
        let unshared = cases.iter().filter(|c| !c.shares_inputs).count();
        assert!(unshared > 0 && groups.len() < cases.len());
    }

    #[test]
    fn table_is_sorted_unique_and_consistent() {
        let cases = all();
        assert!(cases.len() >= 30);
        assert!(!cases.iter().any(|c| c.family == "planted"), "the library's planted family is never the suite's");
        for c in &cases {
            assert!(!c.steps.is_empty(), "{} has a program", c.name());
            for k in c.kernels() {
                let vendor_file = c.vendor.map(|v| format!("{}.cu", v.to_lowercase()));
                assert!(
                    k.file.trim_end_matches(".cu") == c.family || Some(k.file) == vendor_file.as_deref(),
                    "{}: {} comes from kernels/{}: a case launches kernels of its family's file, or a vendor \
                     reference those of its vendor's",
                    c.name(),
                    k.entry,
                    k.file
                );
            }
            assert!(c.bytes > 0, "{} declares the bytes it moves", c.name());
            assert!(c.params.iter().any(Param::is_compared), "{} has an output to check", c.name());
            for (k, l) in c.launches() {
                let block: u32 = l.block.iter().product();
                assert!(
                    (32..=1024).contains(&block) && block.is_multiple_of(32),
                    "{}: {} in blocks of {block}",
                    c.name(),
                    k.entry
                );
            }
            assert_program_fits(c);
        }
        // One vendor reference per family and size, with variants of the family to compare.
        let mut references = std::collections::BTreeMap::new();
        for c in cases.iter().filter(|c| c.vendor.is_some()) {
            assert!(references.insert((c.family, &c.size), c.name()).is_none(), "{}: a second reference", c.name());
            let others = cases.iter().filter(|o| o.family == c.family && o.size == c.size && o.vendor.is_none());
            assert!(others.count() > 0, "{}: a reference with nothing to compare", c.name());
        }
        assert!(references.keys().any(|(f, _)| *f == "reduction") && references.keys().any(|(f, _)| *f == "histogram"));
    }
}
