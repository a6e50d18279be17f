//! The re-check after timing: what the last timed launch left in the trial's bound output buffers,
//! compared with the same CPU reference the check used, so that a program that is right once and
//! wrong later (a value kept in device memory between launches, a stale cache, a race that shows
//! under load) fails. One download and one comparison ([`crate::check::compare_data`]); the
//! reference is the check's, kept by the inputs cache ([`crate::inputs`]) while the trial holds it.
//!
//! A program whose launches write their inputs in place ([`Param::InOut`]: SAXPY's `y`, the launch
//! family's chain) evolves its data from launch to launch; its buffers after N launches hold N
//! applications of the program, which the reference (one application) does not give, and replaying
//! N applications on the CPU would not round as the GPU's do. Such a program is not re-checked
//! ([`not_rechecked`] says why).

use crate::case::{Case, HostData, Param};
use crate::check::{Mismatch, describe, first_mismatch};
use crate::gpu::Gpu;
use crate::program::Bound;

/// The launches of a program over one binding after its check: the warm-up, the timed ones, and
/// whose was last when two versions shared the buffers (same-run A/B).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launches {
    /// Untimed warm-up launches (both versions' in A/B).
    pub warmup: usize,
    /// Timed launches (both versions' in A/B: two per pair).
    pub timed: usize,
    /// Which version ran last, as people name it (`B (this build)`), when two versions ran.
    pub last: Option<String>,
}

/// Why `case`'s buffers cannot be re-checked after timing, when they cannot: a parameter written
/// in place ([`Param::InOut`]).
pub fn not_rechecked(case: &Case) -> Option<String> {
    let slot = case.params.iter().position(|p| matches!(p, Param::InOut { .. }))?;
    Some(format!(
        "{}: not re-checked after timing: parameter #{slot} is updated in place (Param::InOut), so after the timed \
         launches it holds as many applications of the program as there were launches, which the reference (one \
         application) does not give",
        case.name()
    ))
}

/// The re-check's message for mismatch `m` in parameter `param_index`: the check's description
/// ([`describe`]: parameter, element, expected and got, seed) and what ran before it. Pure.
pub fn message(case: &Case, param_index: usize, m: &Mismatch, launches: &Launches, seed: u64) -> String {
    let last = launches.last.as_ref().map_or(String::new(), |who| format!("; the last was {who}'s"));
    let warmup = if launches.warmup == 1 {
        "1 warm-up launch".to_string()
    } else {
        format!("{} warm-up launches", launches.warmup)
    };
    format!(
        "{}\n  re-checked after timing: that is what the last of {} timed launches ({warmup} before \
         them{last}) left in the trial's buffers; the check's one launch was right, so the result changes between \
         launches (state kept in device memory from one launch to the next, a buffer a launch expects cleared, or a \
         race that shows under load)",
        describe(case, param_index, m, seed),
        launches.timed,
    )
}

/// Downloads `bound`'s compared buffers after the timed launches and compares them with `want`
/// ([`first_mismatch`], [`message`]): `Ok(None)` when right, `Ok(Some(message))` when wrong. The
/// downloads count as [`crate::phases::Phase::Check`], the comparisons as
/// [`crate::phases::Phase::Compare`].
///
/// # Errors
/// [`crate::Error::Driver`] when the wait or a download fails (an illegal address surfaces here).
pub fn recheck(
    gpu: &Gpu,
    case: &Case,
    bound: &Bound,
    want: &[HostData],
    launches: &Launches,
    seed: u64,
) -> crate::error::Result<Option<String>> {
    Ok(first_mismatch(gpu, case, bound, want)?.map(|(param_index, m)| message(case, param_index, &m, launches, seed)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{HostView, Tolerance};
    use crate::check::compare_data;

    /// What [`recheck`] says of buffers `got` after `launches`: [`compare_data`] per buffer, then
    /// [`message`] for the first wrong one, as [`first_mismatch`] does over the downloads.
    fn compare_after(
        case: &Case,
        got: &[(usize, HostView<'_>)],
        want: &[HostData],
        launches: &Launches,
        seed: u64,
    ) -> Option<String> {
        assert_eq!(got.len(), want.len());
        let (param_index, m) = got
            .iter()
            .zip(want)
            .find_map(|((i, got), want)| Some((*i, compare_data(*got, want, case.tolerance_for(*i))?)))?;
        Some(message(case, param_index, &m, launches, seed))
    }

    fn copy_case() -> Case {
        Case::new("t", "copy", "4", crate::source::k::coalescing::copy_coalesced)
            .params([Param::input(4), Param::output(4)])
            .reference_data(|b| vec![b[0].clone()])
    }

    #[test]
    fn right_buffers_pass_and_a_drifted_one_is_named_with_what_ran_before() {
        let case = copy_case();
        let want = vec![HostData::F32(vec![1.0, 2.0, 3.0, 4.0])];
        let launches = Launches { warmup: 10, timed: 2345, last: None };
        let right = vec![(1, want[0].view())];
        assert_eq!(compare_after(&case, &right, &want, &launches, 7), None);
        // What a launch counter in device memory makes of later launches: every element off by one.
        let later = vec![(1, HostView::of(&[2.0f32, 3.0, 4.0, 5.0]))];
        let why = compare_after(&case, &later, &want, &launches, 7).unwrap();
        assert!(
            why.starts_with(
                "t/copy/4: output parameter #1 (f32) of copy_coalesced, element 0: expected 1, got 2 (4 of 4 elements differ"
            ),
            "{why}"
        );
        assert!(why.contains("replay with KERNELGATE_SEED=7"), "{why}");
        assert!(why.contains("the last of 2345 timed launches (10 warm-up launches before them)"), "{why}");
        assert!(!why.contains("the last was"), "one version: {why}");
    }

    #[test]
    fn in_a_b_the_message_says_whose_launch_was_last() {
        let case = copy_case();
        let want = vec![HostData::F32(vec![1.0; 4])];
        let launches = Launches { warmup: 20, timed: 600, last: Some("A (kernels/coalescing.cu at main)".into()) };
        let why = compare_after(&case, &[(1, HostView::of(&[1.0f32, 1.0, 1.0, 0.5]))], &want, &launches, 1).unwrap();
        assert!(why.contains("element 3: expected 1, got 0.5 (1 of 4 elements differ"), "{why}");
        assert!(why.contains("(20 warm-up launches before them; the last was A (kernels/coalescing.cu at main)'s)"));
    }

    #[test]
    fn the_case_tolerance_applies_and_u32_counts_compare_exactly() {
        let case = copy_case().tolerance(Tolerance::abs_rel(0.0, 1e-3));
        let want = vec![HostData::F32(vec![1000.0; 4])];
        let launches = Launches { warmup: 1, timed: 1, last: None };
        assert_eq!(compare_after(&case, &[(1, HostView::of(&[1000.5f32; 4]))], &want, &launches, 1), None);
        let why = compare_after(&case, &[(1, HostView::of(&[1001.5f32; 4]))], &want, &launches, 1).unwrap();
        assert!(why.contains("the last of 1 timed launches (1 warm-up launch before them)"), "{why}");
        let bins = vec![HostData::U32(vec![3, 4])];
        assert!(compare_after(&case, &[(1, HostView::of(&[3u32, 5]))], &bins, &launches, 1).is_some());
    }

    #[test]
    fn programs_that_write_their_inputs_in_place_are_not_rechecked_and_say_why() {
        assert_eq!(not_rechecked(&copy_case()), None);
        // A case with a `Param::InOut` is exempt (the shipped suite's table test checks that only
        // those are).
        let in_place = Case::new("t", "scale", "4", crate::source::k::coalescing::copy_coalesced).params([
            Param::InOut {
                init: crate::case::Init::Uniform { lo: -1.0, hi: 1.0 },
                elem: crate::case::Elem::F32,
                len: 4,
                offset: 0,
            },
            Param::output(4),
        ]);
        let why = not_rechecked(&in_place).unwrap();
        assert!(why.contains("parameter #0 is updated in place (Param::InOut)"), "{why}");
    }
}
