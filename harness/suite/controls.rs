//! The A/A controls of a same-run A/B run: a few cases whose kernel files are the same at both
//! revisions, drawn at random and timed as any paired case, so that every A/B run measures the
//! gate's own false alarms on its runner (`KERNELGATE_AB_CONTROLS`; the anchor is nvbench's
//! request for this as a standing measurement, NVIDIA/nvbench#415 and #478). A control's verdict
//! never fails the run: it is reported (`controls: 4 of 4 unchanged`), recorded with `decided_by`
//! starting with [`DECIDED_BY_PREFIX`], and counted by `kernelgate history quality`.

use std::collections::BTreeSet;

/// The start of a control's `decided_by` in the run CSV and the history (`control: time (A/A)`), by
/// which the A/B report and `kernelgate history quality` find the controls.
pub const DECIDED_BY_PREFIX: &str = "control: ";

/// The controls: `n` of `candidates` (case names), drawn at random with `seed` (the run's input seed,
/// so `KERNELGATE_SEED` replays the draw): each candidate's rank is the SHA-256 of the seed and its
/// name, and the `n` lowest are drawn. Pure; all of them when there are no more than `n`.
pub fn draw(candidates: &[String], n: usize, seed: u64) -> BTreeSet<String> {
    use sha2::Digest as _;
    let mut ranked: Vec<([u8; 32], &String)> = candidates
        .iter()
        .map(|c| {
            let mut h = sha2::Sha256::new();
            h.update(seed.to_le_bytes());
            h.update(c.as_bytes());
            (h.finalize().into(), c)
        })
        .collect();
    ranked.sort();
    ranked.into_iter().take(n).map(|(_, c)| c.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_draw_takes_n_and_the_seed_replays_it() {
        let names: Vec<String> = (0..40).map(|i| format!("f/v{i}/1")).collect();
        let a = draw(&names, 4, 7);
        assert_eq!(a.len(), 4);
        assert_eq!(a, draw(&names, 4, 7), "the same seed draws the same controls");
        let others: BTreeSet<BTreeSet<String>> = (0..20).map(|s| draw(&names, 4, s)).collect();
        assert!(others.len() > 15, "other seeds draw other controls: {}", others.len());
        assert_eq!(draw(&names[..3], 4, 1).len(), 3);
        assert!(draw(&names, 0, 1).is_empty());
    }
}
