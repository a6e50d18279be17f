//! Drawing the next trials' inputs and computing their references while the GPU times this one.
//!
//! Trials run one per GPU, in name order, and each spends most of its time waiting for the GPU
//! (sampling); the CPU work of the next trials (uniform draws of up to 2^28 elements, float64
//! references of 4096³ products) used to wait for it, and took 19 s of a 99 s suite on the H200
//! (BENCHMARK.md, "Where the time goes"). A run's [`Prefetch`] walks the run's cases in their order
//! on a thread of its own, at a lower scheduling priority (nice 10) and on every core but two
//! ([`super::threads`]), and keeps [`AHEAD`] cases ready beyond the one a trial has begun: a
//! trial finds its entry made, or waits for the part still being made, and never makes it twice
//! ([`super::cache`]). The work done here is counted apart from the trials' ([`Clock::background`]).
//!
//! The prefetcher is the run's: the run holds it (with its [`Cache`]) and hands it to its trials,
//! which take their inputs through it ([`Prefetch::prepared`]) and enter it on their threads
//! ([`Prefetch::enter`]); a second run in the same process has its own and never moves, nor waits
//! for, the first's.

use super::cache::{Cache, Taken};
use crate::case::Case;
use crate::phases::{Clock, Phase};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
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
    /// Index of the furthest trial that has begun ([`Prefetch::prepared`]), if any.
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

/// A started worker: its progress, shared with the trials, and its thread.
#[derive(Debug)]
struct Worker {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

/// One run's prefetcher over its cases, and the run's inputs [`Cache`] it fills: idle when made
/// ([`Prefetch::new`]), working beside the trials from [`Prefetch::start`] until
/// [`Prefetch::stop`]; dropped, it stops (and waits for its worker).
#[derive(Debug)]
pub struct Prefetch {
    cache: Arc<Cache>,
    worker: Mutex<Option<Worker>>,
    /// Whether a worker works beside the trials: what [`super::threads`] asks on the threads
    /// that entered this prefetcher ([`Prefetch::enter`]).
    working: Arc<AtomicBool>,
}

impl Prefetch {
    /// An idle prefetcher over a new, empty [`Cache`] whose work counts on `clock` (the run's):
    /// until [`Prefetch::start`], [`Prefetch::prepared`] entries are made by the trial that needs
    /// them.
    pub fn new(clock: Arc<Clock>) -> Prefetch {
        Prefetch { cache: Arc::new(Cache::new(clock)), worker: Mutex::default(), working: Arc::default() }
    }

    /// Starts preparing `cases` (in the order their trials will run) for a run seeded `run_seed`,
    /// [`AHEAD`] beyond the furthest trial begun. One worker per prefetcher: a worker already
    /// started is stopped first.
    pub fn start(&self, cases: Vec<Case>, run_seed: u64) {
        self.stop();
        let shared = Arc::new(Shared::default());
        shared.lock().order = cases.iter().map(Case::name).collect();
        // Working from before the thread starts, so that its first draw already leaves two cores.
        self.working.store(true, Ordering::Relaxed);
        let thread = {
            let (shared, cache, working) = (Arc::clone(&shared), Arc::clone(&self.cache), Arc::clone(&self.working));
            std::thread::Builder::new()
                .name("kernelgate-prefetch".into())
                .spawn(move || {
                    let _entered = Entered::new(working);
                    work(&shared, &cache, &cases, run_seed);
                })
                .ok()
        };
        if thread.is_none() {
            self.working.store(false, Ordering::Relaxed);
        }
        *self.lock() = Some(Worker { shared, thread });
    }

    /// Stops the worker, if one was started, and waits for it; the entries it made stay in the
    /// cache.
    pub fn stop(&self) {
        let Some(mut worker) = self.lock().take() else { return };
        worker.shared.lock().stop = true;
        worker.shared.moved.notify_all();
        if let Some(thread) = worker.thread.take() {
            let _ = thread.join();
        }
        self.working.store(false, Ordering::Relaxed);
    }

    /// Whether a worker works beside the trials (so CPU work leaves two cores free,
    /// [`super::threads`]).
    pub fn running(&self) -> bool {
        self.working.load(Ordering::Relaxed)
    }

    /// `case`'s inputs and reference for a run seeded `run_seed` ([`Cache::entry`]: found, or made
    /// on first use), for its trial: tells the worker that the trial has begun.
    pub fn prepared(&self, case: &Case, run_seed: u64) -> Taken {
        self.reached(case);
        self.cache.entry(case, run_seed)
    }

    /// Makes [`super::threads`] answer for this prefetcher on the calling thread until the guard
    /// is dropped (the thread's earlier answer then comes back): every core but two while it works.
    /// A run's trials enter their run's prefetcher, so that the CPU work they do, and the CPU
    /// references they call, leave the timing thread its core; a thread that entered none uses
    /// every core.
    pub fn enter(&self) -> Entered {
        Entered::new(Arc::clone(&self.working))
    }

    /// Tells the worker that `case`'s trial has begun (its check takes its inputs): the cases up
    /// to [`AHEAD`] beyond it are made next. A case outside the worker's list, or no worker,
    /// changes nothing.
    fn reached(&self, case: &Case) {
        let Some(shared) = self.lock().as_ref().map(|w| Arc::clone(&w.shared)) else { return };
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

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Worker>> {
        self.worker.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        self.stop();
    }
}

thread_local! {
    /// The working flag of the prefetcher this thread entered ([`Prefetch::enter`]), if any.
    static ENTERED: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// A thread's entry into a run's prefetcher ([`Prefetch::enter`]); dropped, the thread's earlier
/// one (or none) is back.
#[derive(Debug)]
#[must_use = "the entry lasts as long as the guard"]
pub struct Entered {
    earlier: Option<Arc<AtomicBool>>,
}

impl Entered {
    fn new(working: Arc<AtomicBool>) -> Entered {
        Entered { earlier: ENTERED.with(|e| e.replace(Some(working))) }
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        let earlier = self.earlier.take();
        ENTERED.with(|e| *e.borrow_mut() = earlier);
    }
}

/// Whether the prefetcher the calling thread entered works beside the trials ([`super::threads`]);
/// `false` on a thread that entered none.
pub(super) fn beside_trials() -> bool {
    ENTERED.with(|e| e.borrow().as_ref().is_some_and(|w| w.load(Ordering::Relaxed)))
}

/// The highest case index that may be made now: [`AHEAD`] beyond the furthest trial begun (before
/// any, the first [`AHEAD`]). Pure.
fn window_end(begun: Option<usize>) -> usize {
    begun.map_or(AHEAD - 1, |b| b + AHEAD)
}

/// The worker: each case in order, once the window reaches it; entries of trials that have begun
/// are let go (the trial holds its own).
fn work(shared: &Shared, cache: &Cache, cases: &[Case], run_seed: u64) {
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
        let taken = cache.entry(case, run_seed);
        cache.clock().background(Phase::Inputs, || taken.make_host());
        cache.clock().background(Phase::Reference, || taken.make_reference());
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
        let cases = counted_cases("prefetch_test", 6, &made);
        let wait_for = |n: usize| {
            let start = std::time::Instant::now();
            while made.load(Ordering::SeqCst) < n && start.elapsed().as_secs() < 10 {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            // Give a worker that would run past the window the chance to.
            std::thread::sleep(std::time::Duration::from_millis(50));
            made.load(Ordering::SeqCst)
        };
        let prefetch = Prefetch::new(Arc::default());
        assert!(!prefetch.running(), "idle until started");
        prefetch.start(cases.clone(), 5);
        assert!(prefetch.running());
        assert_eq!(wait_for(AHEAD), AHEAD, "before any trial: the first AHEAD cases, no more");
        let first = prefetch.prepared(&cases[0], 5);
        assert_eq!(wait_for(AHEAD + 1), AHEAD + 1, "trial 0 begun: up to case AHEAD");
        let _ = first.reference();
        assert_eq!(made.load(Ordering::SeqCst), AHEAD + 1, "the trial found its reference made");
        let _ = prefetch.prepared(&cases[4], 5);
        // Cases 0..=AHEAD were made; 3 and 4 began (or were passed) before the worker reached
        // them, so it skips them; case 5 is within AHEAD of 4.
        assert_eq!(wait_for(AHEAD + 2), AHEAD + 2, "a jump ahead moves the window; passed cases are skipped");
        prefetch.stop();
        assert!(!prefetch.running());
        let made_ahead = prefetch.cache.clock().background_totals();
        assert!(made_ahead.iter().any(|(p, s)| *p == Phase::Inputs && *s > 0.0), "on the run's clock: {made_ahead:?}");
    }

    /// Cases of one family (`run`) whose references count their calls in `made`.
    fn counted_cases(run: &'static str, n: usize, made: &Arc<AtomicUsize>) -> Vec<Case> {
        (0..n)
            .map(|i| {
                let counted = Arc::clone(made);
                let reference: Reference = Arc::new(move |b: &[HostData]| {
                    counted.fetch_add(1, Ordering::SeqCst);
                    vec![b[0].clone()]
                });
                Case::new(run, format!("v{i}"), "64", crate::source::k::coalescing::copy_coalesced)
                    .params([Param::input(64), Param::output(64)])
                    .reference_shared(&reference)
            })
            .collect()
    }

    #[test]
    fn two_runs_have_their_own_prefetchers() {
        let (made_a, made_b) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let (cases_a, cases_b) = (counted_cases("run_a", 6, &made_a), counted_cases("run_b", 6, &made_b));
        let settle = |made: &AtomicUsize, n: usize| {
            let start = std::time::Instant::now();
            while made.load(Ordering::SeqCst) < n && start.elapsed().as_secs() < 10 {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
            made.load(Ordering::SeqCst)
        };
        let (a, b) = (Prefetch::new(Arc::default()), Prefetch::new(Arc::default()));
        a.start(cases_a.clone(), 1);
        // The second run starts its prefetcher after the first's: the first still hears its trials.
        b.start(cases_b.clone(), 1);
        assert_eq!((settle(&made_a, AHEAD), settle(&made_b, AHEAD)), (AHEAD, AHEAD));
        let _ = a.prepared(&cases_a[3], 1);
        assert_eq!(settle(&made_a, AHEAD + 2), AHEAD + 2, "run a's trial moves run a's window");
        assert_eq!(made_b.load(Ordering::SeqCst), AHEAD, "and not run b's");
        // Each run's trials see their own prefetcher: run a's stopped, run b's still works.
        a.stop();
        let threads_in = |p: &Prefetch| {
            let _entered = p.enter();
            super::super::threads()
        };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(threads_in(&a), cores, "a stopped prefetcher leaves every core");
        assert_eq!(threads_in(&b), cores.saturating_sub(2).max(1), "a working one leaves two");
        assert_eq!(super::super::threads(), cores, "a thread of neither run uses every core");
        assert!(!a.cache.entry(&cases_a[0], 1).same_entry(&b.cache.entry(&cases_a[0], 1)), "two caches");
    }
}
