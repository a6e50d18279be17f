//! Trials that cannot be timed because of a fault: one that left its GPU's CUDA context unusable
//! in this process (the GPU is retired from the pool), and one that faulted, died or hung in the
//! checked child (`crate::sanitize`) and so is not timed here.

use super::Suite;
use crate::case::Case;
use crate::error::Error;
use crate::suite::verdict::sanitize_failure;
use libtest_mimic::Failed;

/// A trial's failure from a harness or driver error `e` on GPU `ordinal`; a sticky error
/// ([`Error::is_sticky`]) also retires that GPU from the pool, since its context is now unusable.
pub(super) fn retire_on_fault(suite: &Suite, case: &Case, ordinal: usize, e: Error) -> Failed {
    if e.is_sticky()
        && let Ok(pool) = suite.pool()
    {
        pool.retire(ordinal, format!("GPU {ordinal}'s CUDA context was lost in {} ({e})", case.name()));
    }
    Failed::from(e.to_string())
}

/// The failure of a trial that cannot run because every GPU of the pool was retired (`lost`
/// says why), with what to do.
pub(super) fn not_run(suite: &Suite, case: &Case, lost: &str) -> Failed {
    let hint = if suite.config.isolate {
        format!(
            "the fault came after the isolated child's check and its {} runs of the timed path",
            crate::sanitize::TIMED_PATH_REPEATS
        )
    } else {
        "with KERNELGATE_ISOLATE=1 each trial is checked in a child process first, so that a faulting trial \
         fails alone"
            .to_string()
    };
    format!(
        "{}: not run: {lost}. A CUDA fault leaves the process unable to use that GPU (CUDA Driver API, \
         CUresult); {hint}",
        case.name()
    )
    .into()
}

/// The failure of a trial the checked child did not finish (killed past the timeout, died, or
/// stopped on a CUDA error): the child's finding, the kernels and their launch configurations.
pub(super) fn unfinished_in_child(suite: &Suite, case: &Case) -> Failed {
    let found = sanitize_failure(suite, case).unwrap_or_default();
    let launches: Vec<String> = case.launches().map(|(k, l)| format!("{} {l}", k.name())).collect();
    format!(
        "{found}\n  kernel(s): {}; launch configuration: {}\n  (not timed: its checked run did not finish in the child)",
        case.kernel_names(),
        launches.join(", ")
    )
    .into()
}
