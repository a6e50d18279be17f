//! Inputs and CPU references drawn once and shared: by the two versions of a same-run A/B trial,
//! by the checked reruns of a wrong result, and by the variants of a family at one size that
//! declare one reference ([`Case::reference_shared`]): thirteen SGEMM variants at 4096³ need one
//! float64 product, not thirteen.
//!
//! A prepared entry is keyed by the case's reference (the identity of its [`crate::case::Reference`]
//! allocation, which [`Case::reference_shared`] hands to several cases), the seed of its inputs
//! and its parameters; cases that share a reference draw their inputs from a seed of their family and size,
//! not of their trial name ([`inputs_seed`]), so they draw the same data. Entries are kept
//! oldest-out within [`BUDGET_BYTES`].

use crate::case::{Case, HostData};
use crate::check::{draw, mix, trial_seed};
use crate::phases::{self, Phase};
use std::sync::{Arc, Mutex, OnceLock};

/// Host memory the kept inputs and references may take together, bytes: 8 GiB. kernelgate's
/// choice: the largest family of the suite keeps about 2 GiB (transposes at three sizes, inputs
/// and references), and a GPU runner has far more host memory than that (the H200 runner: 128 GiB).
pub const BUDGET_BYTES: usize = 8 << 30;

/// One case's inputs, and its reference once computed.
#[derive(Debug)]
pub struct Prepared {
    /// The initial contents of each buffer parameter, in parameter order ([`draw`]).
    pub host: Vec<HostData>,
    reference: OnceLock<Vec<HostData>>,
}

impl Prepared {
    /// The case's reference for these inputs, computed on first use (its time counts as
    /// [`Phase::Reference`]).
    pub fn reference(&self, case: &Case) -> &Vec<HostData> {
        self.reference.get_or_init(|| phases::time(Phase::Reference, || (case.reference)(&self.host)))
    }

    fn bytes(&self) -> usize {
        let total = |v: &[HostData]| v.iter().map(HostData::bytes).sum::<usize>();
        total(&self.host) + self.reference.get().map_or(0, |r| total(r))
    }
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

/// The key (the reference's address, the inputs' seed and the parameters' description: cases
/// whose buffers differ never share), the reference itself (held so that its
/// address is not reused while the entry lives), and the prepared inputs.
type Entry = ((usize, u64, String), crate::case::Reference, Arc<Prepared>);

static KEPT: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// `case`'s inputs for a run seeded `run_seed`, drawn (their time counts as [`Phase::Inputs`]) or
/// taken from an earlier trial that shares them.
pub fn prepared(case: &Case, run_seed: u64) -> Arc<Prepared> {
    let seed = inputs_seed(case, run_seed);
    let key = (Arc::as_ptr(&case.reference).cast::<()>() as usize, seed, format!("{:?}", case.params));
    let mut kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, _, p)) = kept.iter().find(|(k, ..)| *k == key) {
        return Arc::clone(p);
    }
    let host = phases::time(Phase::Inputs, || {
        case.params.iter().enumerate().filter_map(|(i, p)| draw(p, mix(seed, i as u64))).collect()
    });
    let p = Arc::new(Prepared { host, reference: OnceLock::new() });
    kept.push((key, Arc::clone(&case.reference), Arc::clone(&p)));
    // Oldest out until the rest fits (the newest always stays).
    while kept.len() > 1 && kept.iter().map(|(.., p)| p.bytes()).sum::<usize>() > BUDGET_BYTES {
        kept.remove(0);
    }
    p
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

    #[test]
    fn variants_that_share_a_reference_share_inputs_and_one_computation() {
        let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = Arc::clone(&calls);
        let reference: Reference = Arc::new(move |b: &[HostData]| {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            vec![b[0].clone()]
        });
        let (a, b) = (case("a", &reference), case("b", &reference));
        let (pa, pb) = (prepared(&a, 7), prepared(&b, 7));
        assert!(Arc::ptr_eq(&pa, &pb), "one entry for both variants");
        assert_eq!(pa.reference(&a), pb.reference(&b));
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1, "the reference ran once");
        assert!(!Arc::ptr_eq(&pa, &prepared(&a, 8)), "another run seed draws other inputs");
        // A case of its own keeps its trial-name seed: other data than the shared variants'.
        let own = Case::new("t", "c", "64", crate::source::k::coalescing::copy_coalesced)
            .params([Param::input(64), Param::output(64)])
            .reference_data(|b| vec![b[0].clone()]);
        assert_ne!(inputs_seed(&own, 7), inputs_seed(&a, 7));
        assert_ne!(prepared(&own, 7).host, pa.host);
    }
}
