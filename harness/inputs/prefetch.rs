//! Drawing the next trials' inputs and computing their references while the GPU times this one.
//!
//! Trials run one per GPU, in name order, and each spends most of its time waiting for the GPU
//! (sampling); the CPU work of the next trials (uniform draws of up to 2^28 elements, float64
//! references of 4096³ products) used to wait for it, and took 19 s of a 99 s suite on the H200
//! (BENCHMARK.md, "Where the time goes"). A [`Prefetch`] walks the run's cases in their order
//! on a thread of its own, at a lower scheduling priority (nice 10) and on every core but two
//! ([`super::threads`]), and keeps [`AHEAD`] cases ready beyond the one a trial has begun: a
//! trial finds its entry made, or waits for the part still being made, and never makes it twice
//! ([`super::cache`]). The work done here is counted apart from the trials' ([`phases::background`]).

use super::cache::{Taken, entry};
use crate::case::Case;
use crate::phases::{self, Phase};
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

/// Cases kept ready beyond the one a trial has begun: kernelgate's choice. One would leave no
/// slack for a trial shorter than the next one's reference (a 4096³ float64 product takes seconds,
/// most trials' sampling about 0.7 s); more would hold more host memory (up to about 2 GiB a case)
/// for no gain once the work is ahead.
pub const AHEAD: usize = 2;

/// Where the run stands, shared by the trials and the worker.
#[derive(Debug, Default)]
struct Progress {
    /// Trial names in run order.
    order: Vec<String>,
    /// Index of the furthest trial that has begun ([`reached`]), if any.
    begun: Option<usize>,
    /// Set when the run is over.
    stop: bool,
}

#[derive(Debug, Default)]
struct Shared {
    progress: Mutex<Progress>,
    moved: Condvar,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Progress> {
        self.progress.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The running prefetcher, for [`reached`] and [`running`].
static CURRENT: Mutex<Option<Arc<Shared>>> = Mutex::new(None);

fn current() -> Option<Arc<Shared>> {
    CURRENT.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// A prefetcher over one run's cases; stops (and waits for its worker) when dropped.
#[derive(Debug)]
pub struct Prefetch {
    shared: Arc<Shared>,
    worker: Option<JoinHandle<()>>,
}

impl Prefetch {
    /// Starts preparing `cases` (in the order their trials will run) for a run seeded `run_seed`,
    /// [`AHEAD`] beyond the furthest trial begun. One prefetcher at a time: a second replaces the
    /// first's place in [`prepared`].
    pub fn start(cases: Vec<Case>, run_seed: u64) -> Prefetch {
        let shared = Arc::new(Shared::default());
        shared.lock().order = cases.iter().map(Case::name).collect();
        *CURRENT.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::clone(&shared));
        let worker = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("kernelgate-prefetch".into())
                .spawn(move || work(&shared, &cases, run_seed))
                .ok()
        };
        Prefetch { shared, worker }
    }
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.moved.notify_all();
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
        let mut current = CURRENT.lock().unwrap_or_else(|p| p.into_inner());
        if current.as_ref().is_some_and(|c| Arc::ptr_eq(c, &self.shared)) {
            *current = None;
        }
    }
}

/// Whether a prefetcher is working beside the trials (so CPU work leaves two cores free,
/// [`super::threads`]).
pub fn running() -> bool {
    current().is_some()
}

/// `case`'s inputs and reference for a run seeded `run_seed` ([`entry`]: found, or made on first
/// use), for its trial: tells the prefetcher that the trial has begun.
pub fn prepared(case: &Case, run_seed: u64) -> Taken {
    reached(case);
    entry(case, run_seed)
}

/// Tells the prefetcher that `case`'s trial has begun (its check takes its inputs): the cases up
/// to [`AHEAD`] beyond it are made next. A case outside the prefetcher's list changes nothing.
fn reached(case: &Case) {
    let Some(shared) = current() else { return };
    let name = case.name();
    let mut progress = shared.lock();
    if let Some(i) = progress.order.iter().position(|n| *n == name)
        && progress.begun.is_none_or(|b| i > b)
    {
        progress.begun = Some(i);
        drop(progress);
        shared.moved.notify_all();
    }
}

/// The highest case index that may be made now: [`AHEAD`] beyond the furthest trial begun (before
/// any, the first [`AHEAD`]). Pure.
fn window_end(begun: Option<usize>) -> usize {
    begun.map_or(AHEAD - 1, |b| b + AHEAD)
}

/// The worker: each case in order, once the window reaches it; entries of trials that have begun
/// are let go (the trial holds its own).
fn work(shared: &Shared, cases: &[Case], run_seed: u64) {
    lower_priority(10);
    let mut held: VecDeque<(usize, Taken)> = VecDeque::new();
    for (i, case) in cases.iter().enumerate() {
        let begun = {
            let progress = shared
                .moved
                .wait_while(shared.lock(), |p| !p.stop && i > window_end(p.begun))
                .unwrap_or_else(|p| p.into_inner());
            if progress.stop {
                return;
            }
            progress.begun
        };
        while held.front().is_some_and(|(j, _)| begun.is_some_and(|b| *j <= b)) {
            held.pop_front();
        }
        if begun.is_some_and(|b| i <= b) {
            continue; // its trial began before the worker got to it
        }
        let taken = entry(case, run_seed);
        phases::background(Phase::Inputs, || taken.make_host());
        phases::background(Phase::Reference, || taken.make_reference());
        held.push_back((i, taken));
    }
}

/// Sets this thread's nice value to `nice` (0 to 19), for it and the threads it starts (Linux keeps
/// the nice value per thread and hands it to threads a thread creates, setpriority(2)): work done
/// beside the trials yields to the trial's timing thread. Does nothing elsewhere than Linux, or
/// when the call fails.
#[allow(unsafe_code)] // one libc call
pub(crate) fn lower_priority(nice: i32) {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority only reads its arguments; the id is this thread's own.
    unsafe {
        let _ = libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, nice);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{HostData, Param, Reference};
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn the_window_runs_ahead_of_the_furthest_trial_begun() {
        assert_eq!(window_end(None), AHEAD - 1, "before any trial: the first AHEAD cases");
        assert_eq!(window_end(Some(0)), AHEAD);
        assert_eq!(window_end(Some(10)), 10 + AHEAD);
    }

    #[test]
    fn cases_are_made_ahead_and_not_beyond_the_window() {
        let made = Arc::new(AtomicUsize::new(0));
        let cases: Vec<Case> = (0..6)
            .map(|i| {
                let counted = Arc::clone(&made);
                let reference: Reference = Arc::new(move |b: &[HostData]| {
                    counted.fetch_add(1, Ordering::SeqCst);
                    vec![b[0].clone()]
                });
                Case::new("prefetch_test", format!("v{i}"), "64", crate::source::k::coalescing::copy_coalesced)
                    .params([Param::input(64), Param::output(64)])
                    .reference_shared(&reference)
            })
            .collect();
        let wait_for = |n: usize| {
            let start = std::time::Instant::now();
            while made.load(Ordering::SeqCst) < n && start.elapsed().as_secs() < 10 {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            // Give a worker that would run past the window the chance to.
            std::thread::sleep(std::time::Duration::from_millis(50));
            made.load(Ordering::SeqCst)
        };
        let prefetch = Prefetch::start(cases.clone(), 5);
        assert!(running());
        assert_eq!(wait_for(AHEAD), AHEAD, "before any trial: the first AHEAD cases, no more");
        let first = prepared(&cases[0], 5);
        assert_eq!(wait_for(AHEAD + 1), AHEAD + 1, "trial 0 begun: up to case AHEAD");
        let _ = first.reference();
        assert_eq!(made.load(Ordering::SeqCst), AHEAD + 1, "the trial found its reference made");
        let _ = prepared(&cases[4], 5);
        // Cases 0..=AHEAD were made; 3 and 4 began (or were passed) before the worker reached
        // them, so it skips them; case 5 is within AHEAD of 4.
        assert_eq!(wait_for(AHEAD + 2), AHEAD + 2, "a jump ahead moves the window; passed cases are skipped");
        drop(prefetch);
        assert!(!running());
    }
}
