//! The inputs and references a run keeps ([`Cache`], one per run, dropped with it): one entry per
//! (reference, inputs seed, parameters), drawn and computed once, by the trial that needs it or
//! ahead of it by [`super::prefetch`].
//!
//! An entry is keyed by the case's reference (the identity of its [`crate::case::Reference`]
//! allocation, which [`Case::reference_shared`] hands to several cases), the seed of its inputs
//! and its parameters; cases that share a reference draw their inputs from a seed of their family
//! and size, not of their trial name ([`super::inputs_seed`]), so they draw the same data. An entry
//! is in the table before its contents exist: a trial that needs inputs the prefetcher is drawing
//! waits for them instead of drawing them a second time. Entries are kept oldest-out within
//! [`BUDGET_BYTES`]; an entry someone holds (a trial, the prefetcher) is never the one let go.

use super::{draw, inputs_seed, mix};
use crate::case::{Case, HostData};
use crate::phases::{Clock, Phase};
use std::sync::{Arc, Mutex, OnceLock};

/// Host memory the kept inputs and references may take together, bytes: 8 GiB. kernelgate's
/// choice: the largest family of the suite keeps about 2 GiB (transposes at three sizes, inputs
/// and references), and a GPU runner has far more host memory than that (the H200 runner: 128 GiB).
pub const BUDGET_BYTES: usize = 8 << 30;

/// One case's inputs and reference, each made on first use.
#[derive(Debug, Default)]
pub struct Prepared {
    host: OnceLock<Vec<HostData>>,
    reference: OnceLock<Vec<HostData>>,
}

impl Prepared {
    /// The initial contents of each buffer parameter of `case`, in parameter order ([`draw`]), drawn
    /// from `seed` (its [`super::inputs_seed`]) on first use; a second caller waits for the first.
    pub fn host(&self, case: &Case, seed: u64) -> &[HostData] {
        self.host
            .get_or_init(|| case.params.iter().enumerate().filter_map(|(i, p)| draw(p, mix(seed, i as u64))).collect())
    }

    /// The case's reference for these inputs, computed on first use; a second caller waits for the
    /// first.
    pub fn reference(&self, case: &Case, seed: u64) -> &Vec<HostData> {
        let host = self.host(case, seed);
        self.reference.get_or_init(|| (case.reference)(host))
    }

    fn bytes(&self) -> usize {
        let total = |v: &[HostData]| v.iter().map(HostData::bytes).sum::<usize>();
        self.host.get().map_or(0, |h| total(h)) + self.reference.get().map_or(0, |r| total(r))
    }
}

/// A trial's view of its entry: the inputs and the reference of one case, with the time the trial
/// spends drawing them, or waiting for the prefetcher to, counted as [`Phase::Inputs`] and
/// [`Phase::Reference`] on its run's clock (the [`Cache`]'s).
#[derive(Debug, Clone)]
pub struct Taken {
    case: Case,
    seed: u64,
    entry: Arc<Prepared>,
    clock: Arc<Clock>,
}

impl Taken {
    /// The inputs ([`Prepared::host`]).
    pub fn host(&self) -> &[HostData] {
        self.clock.time(Phase::Inputs, || self.entry.host(&self.case, self.seed))
    }

    /// The reference ([`Prepared::reference`]).
    pub fn reference(&self) -> &Vec<HostData> {
        let _ = self.host();
        self.clock.time(Phase::Reference, || self.entry.reference(&self.case, self.seed))
    }

    /// Draws the inputs now, untimed (the prefetcher times its own work).
    pub(super) fn make_host(&self) {
        let _ = self.entry.host(&self.case, self.seed);
    }

    /// Computes the reference now, untimed.
    pub(super) fn make_reference(&self) {
        let _ = self.entry.reference(&self.case, self.seed);
    }

    /// Whether `other` is the same entry (variants that share a reference; the two versions of an
    /// A/B trial).
    pub fn same_entry(&self, other: &Taken) -> bool {
        Arc::ptr_eq(&self.entry, &other.entry)
    }
}

/// The key (the reference's address, the inputs' seed and the parameters' description: cases
/// whose buffers differ never share), the reference itself (held so that its address is not
/// reused while the entry lives), and the entry.
type Entry = ((usize, u64, String), crate::case::Reference, Arc<Prepared>);

/// The inputs and references one run keeps, within [`BUDGET_BYTES`], and the run's clock their
/// drawing and computing count on. Made once per run ([`super::prefetch::Prefetch`] holds it) and
/// dropped with it: a later run in the same process draws its own.
pub struct Cache {
    kept: Mutex<Vec<Entry>>,
    clock: Arc<Clock>,
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner()).len();
        f.debug_struct("Cache").field("kept", &kept).finish_non_exhaustive()
    }
}

impl Cache {
    /// An empty cache whose entries count their time on `clock` (the run's).
    pub fn new(clock: Arc<Clock>) -> Cache {
        Cache { kept: Mutex::default(), clock }
    }

    /// The run's clock, which the entries' time counts on.
    pub fn clock(&self) -> &Arc<Clock> {
        &self.clock
    }

    /// `case`'s entry for a run seeded `run_seed`, found or made (empty: its contents are made on
    /// first use). A trial takes it through [`super::prefetch::Prefetch::prepared`], which also
    /// moves the run's prefetcher on.
    pub fn entry(&self, case: &Case, run_seed: u64) -> Taken {
        let seed = inputs_seed(case, run_seed);
        let key = (Arc::as_ptr(&case.reference).cast::<()>() as usize, seed, format!("{:?}", case.params));
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        let found = kept.iter().find(|(k, ..)| *k == key).map(|(.., p)| Arc::clone(p));
        let entry = found.unwrap_or_else(|| {
            let p = Arc::new(Prepared::default());
            kept.push((key, Arc::clone(&case.reference), Arc::clone(&p)));
            p
        });
        // Oldest out until the rest fits; an entry held outside the table (by a trial or the
        // prefetcher, or this one) stays.
        while kept.iter().map(|(.., p)| p.bytes()).sum::<usize>() > BUDGET_BYTES {
            let Some(i) = kept.iter().position(|(.., p)| Arc::strong_count(p) == 1) else { break };
            kept.remove(i);
        }
        Taken { case: case.clone(), seed, entry, clock: Arc::clone(&self.clock) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{Param, Reference};

    fn case(variant: &str, reference: &Reference) -> Case {
        Case::new("t", variant, "64", crate::source::k::coalescing::copy_coalesced)
            .params([Param::input(64), Param::output(64)])
            .reference_shared(reference)
    }

    fn cache() -> Cache {
        Cache::new(Arc::default())
    }

    #[test]
    fn variants_that_share_a_reference_share_inputs_and_one_computation() {
        let cache = cache();
        let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = Arc::clone(&calls);
        let reference: Reference = Arc::new(move |b: &[HostData]| {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            vec![b[0].clone()]
        });
        let (a, b) = (case("a", &reference), case("b", &reference));
        let (pa, pb) = (cache.entry(&a, 7), cache.entry(&b, 7));
        assert!(pa.same_entry(&pb), "one entry for both variants");
        assert_eq!(pa.reference(), pb.reference());
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1, "the reference ran once");
        assert!(!pa.same_entry(&cache.entry(&a, 8)), "another run seed draws other inputs");
        // A case of its own keeps its trial-name seed: other data than the shared variants'.
        let own = Case::new("t", "c", "64", crate::source::k::coalescing::copy_coalesced)
            .params([Param::input(64), Param::output(64)])
            .reference_data(|b| vec![b[0].clone()]);
        assert_ne!(inputs_seed(&own, 7), inputs_seed(&a, 7));
        assert_ne!(cache.entry(&own, 7).host(), pa.host());
    }

    #[test]
    fn a_second_taker_waits_for_the_first_instead_of_drawing_again() {
        let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = Arc::clone(&calls);
        let reference: Reference = Arc::new(move |b: &[HostData]| {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(50));
            vec![b[0].clone()]
        });
        let c = case("slow", &reference);
        let cache = cache();
        let (first, second) = (cache.entry(&c, 11), cache.entry(&c, 11));
        let results: Vec<Vec<HostData>> = std::thread::scope(|scope| {
            let a = scope.spawn(|| first.reference().clone());
            let b = scope.spawn(|| second.reference().clone());
            vec![a.join().unwrap()[0].clone(), b.join().unwrap()[0].clone()]
        })
        .into_iter()
        .map(|d| vec![d])
        .collect();
        assert_eq!(results[0], results[1]);
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1, "one computation for two takers at once");
    }

    #[test]
    fn two_runs_keep_their_own_entries_and_count_their_own_time() {
        let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = Arc::clone(&calls);
        let reference: Reference = Arc::new(move |b: &[HostData]| {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(20));
            vec![b[0].clone()]
        });
        let c = case("runs", &reference);
        let (first, second) = (cache(), cache());
        let taken = first.entry(&c, 3);
        let _ = taken.reference();
        assert!(!taken.same_entry(&second.entry(&c, 3)), "another run's cache holds its own entry");
        let reference_s =
            |cache: &Cache| cache.clock().totals().iter().find(|(p, _)| *p == Phase::Reference).unwrap().1;
        assert!(reference_s(&first) >= 0.019, "the first run's reference is on its clock");
        assert_eq!(reference_s(&second), 0.0, "and not on the second run's");
        let _ = second.entry(&c, 3).reference();
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 2, "each run computes its own reference");
        let held = Arc::strong_count(&reference);
        drop(first);
        assert_eq!(Arc::strong_count(&reference), held - 1, "a run's cache lets its entries go when dropped");
    }
}
