//! What the diff itself says of a trial and of its sides (pure): the trial's own change between
//! the two sides ([`Change`], from the two medians and [`EXPLAIN_THRESHOLD`]), which is not the
//! new run's gate verdict (that compares the new run with *its* baseline or A/B revision, possibly
//! blessed on another GPU); and how many runs on which physical GPUs each side pools.

use super::{Diff, EXPLAIN_THRESHOLD, Presence, Side, TrialDiff};

/// A trial's change between the two sides of the diff, by its time (`new / old - 1` of the
/// medians) against [`EXPLAIN_THRESHOLD`] (1 %).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// At least 1 % slower: a regression between the sides.
    Slower,
    /// At least 1 % faster: an improvement between the sides.
    Faster,
    /// Moved by less than 1 %.
    Within,
    /// Only on the new side.
    OnlyNew,
    /// Only on the old side.
    OnlyOld,
    /// On both sides, but a side has no finite time (or the old time is 0).
    NoTime,
}

impl Change {
    /// The word the reports show: `slower`, `faster`, `within 1 %`, `only in the new runs`, `only in
    /// the old runs`, `no time to compare`.
    pub fn word(self) -> &'static str {
        match self {
            Change::Slower => "slower",
            Change::Faster => "faster",
            Change::Within => "within 1 %",
            Change::OnlyNew => "only in the new runs",
            Change::OnlyOld => "only in the old runs",
            Change::NoTime => "no time to compare",
        }
    }

    /// The class the HTML report colours it by: `c-slower` (red), `c-faster` (green), `c-within`,
    /// `c-added`, `c-removed`, `c-none`.
    pub fn class(self) -> &'static str {
        match self {
            Change::Slower => "c-slower",
            Change::Faster => "c-faster",
            Change::Within => "c-within",
            Change::OnlyNew => "c-added",
            Change::OnlyOld => "c-removed",
            Change::NoTime => "c-none",
        }
    }
}

impl TrialDiff {
    /// The trial's own change between the sides ([`Change`]).
    pub fn change(&self) -> Change {
        match (self.presence, self.delta().filter(|d| d.is_finite())) {
            (Presence::Added, _) => Change::OnlyNew,
            (Presence::Removed, _) => Change::OnlyOld,
            (Presence::Both, Some(d)) if d >= EXPLAIN_THRESHOLD => Change::Slower,
            (Presence::Both, Some(d)) if d <= -EXPLAIN_THRESHOLD => Change::Faster,
            (Presence::Both, Some(_)) => Change::Within,
            (Presence::Both, None) => Change::NoTime,
        }
    }
}

/// What a side pools, for the line that names the sides: `3 runs on 1 GPU (GPU-4d8e221f)`, `n = 2
/// runs on 2 GPUs (GPU-8fde4a00, GPU-a9499cb2)`; empty where the side does not know its runs
/// ([`Side::runs`] 0).
pub fn pooled(side: &Side) -> String {
    if side.runs == 0 {
        return String::new();
    }
    let gpus = if side.gpus.is_empty() {
        String::new()
    } else {
        format!(" on {} ({})", crate::units::count(side.gpus.len(), "GPU"), side.gpus.join(", "))
    };
    format!("{}{gpus}", crate::units::count(side.runs, "run"))
}

/// One sentence per side whose runs ran on more than one physical GPU: its medians pool machines
/// that differ by themselves (two H200s: -5.8 to +2.9 % per kernel, baselines/nvidia-h200-sm90/
/// BENCHMARK.md, "A second machine"), and how to compare one GPU's runs instead.
pub fn pooled_notes(diff: &Diff) -> Vec<String> {
    [("old", &diff.old), ("new", &diff.new)]
        .into_iter()
        .filter(|(_, side)| side.gpus.len() > 1)
        .map(|(which, side)| {
            format!(
                "the {which} side pools {} from {} physical GPUs ({}): its medians mix the machines', which \
                 differed by -5.8 to +2.9 % per kernel between two H200s; diff one run of each side \
                 (RUN_ID@GPU-...) to compare one GPU's",
                crate::units::count(side.runs, "run"),
                side.gpus.len(),
                side.gpus.join(", ")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::diff::tests::{side, synthetic};

    #[test]
    fn the_change_is_the_diffs_own_not_the_verdict() {
        let d = synthetic();
        let by: Vec<(&str, Change)> = d.trials.iter().map(|t| (t.trial.as_str(), t.change())).collect();
        assert_eq!(
            by,
            [
                ("t/slow/1", Change::Slower),
                ("t/fast/1", Change::Faster),
                ("t/same/1", Change::Within),
                ("t/gone/1", Change::OnlyOld),
                ("t/new/1", Change::OnlyNew)
            ]
        );
        // A trial 2x faster that its own gate called regressed (a baseline of another GPU) is faster.
        let mut t = d.trials[0].clone();
        (t.old_s, t.new_s, t.verdict) = (Some(300e-6), Some(150e-6), "regressed".into());
        assert_eq!(t.change(), Change::Faster);
        t.new_s = Some(f64::NAN);
        assert_eq!(t.change(), Change::NoTime);
    }

    #[test]
    fn sides_say_their_runs_and_gpus() {
        let mut s = side("c1");
        assert_eq!(pooled(&s), "");
        (s.runs, s.gpus) = (3, vec!["GPU-4d8e221f".into()]);
        assert_eq!(pooled(&s), "3 runs on 1 GPU (GPU-4d8e221f)");
        let mut d = synthetic();
        assert!(pooled_notes(&d).is_empty());
        d.new = Side { runs: 2, gpus: vec!["GPU-8fde4a00".into(), "GPU-a9499cb2".into()], ..d.new };
        let notes = pooled_notes(&d);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].starts_with("the new side pools 2 runs from 2 physical GPUs (GPU-8fde4a00, GPU-a9499cb2)"));
    }
}
