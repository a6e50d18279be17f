//! `kernelgate history quality`: the gate's own error rates per runner, from the A/A controls every
//! same-run A/B run times ([`crate::suite::controls`]). A control compares a module with itself, so
//! every verdict but `unchanged` is the gate's error: `regressed` or `improved` a false positive,
//! `ambiguous` a change of at least the effect floor that was not significant, `invalid` a trial
//! too noisy to judge. Pure: the controls in, the rates out.
//!
//! Each rate comes with its exact 95 % interval (Clopper and Pearson, "The use of confidence or
//! fiducial limits illustrated in the case of the binomial", Biometrika 26(4), 1934), which stays
//! honest for the few controls of one runner in one week, where a normal approximation does not.

use crate::history::{RunMeta, Value};
use serde::Serialize;
use statrs::distribution::{Beta, ContinuousCDF};
use std::collections::BTreeMap;

/// A count of the gate's outcomes on controls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Tally {
    /// Controls judged.
    pub controls: usize,
    /// `regressed` or `improved`: false positives.
    pub false_positives: usize,
    /// `ambiguous`.
    pub ambiguous: usize,
    /// `invalid`.
    pub invalid: usize,
}

impl Tally {
    fn add(&mut self, verdict: &str) {
        self.controls += 1;
        match verdict {
            "regressed" | "improved" => self.false_positives += 1,
            "ambiguous" => self.ambiguous += 1,
            "invalid" => self.invalid += 1,
            _ => {}
        }
    }
}

/// A rate `x / n` with its exact (Clopper–Pearson) 95 % interval, all as fractions; `None` for
/// `n = 0`.
pub fn rate(x: usize, n: usize) -> Option<(f64, f64, f64)> {
    if n == 0 {
        return None;
    }
    let (xf, nf) = (x as f64, n as f64);
    let lo = if x == 0 { 0.0 } else { Beta::new(xf, nf - xf + 1.0).expect("positive shapes").inverse_cdf(0.025) };
    let hi = if x == n { 1.0 } else { Beta::new(xf + 1.0, nf - xf).expect("positive shapes").inverse_cdf(0.975) };
    Some((xf / nf, lo, hi))
}

/// One runner (a physical GPU) over time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Runner {
    /// Its GPU key.
    pub gpu_key: String,
    /// Its GPU's UUID.
    pub gpu_uuid: String,
    /// How many A/B runs had controls.
    pub runs: usize,
    /// Every control.
    pub total: Tally,
    /// Per ISO week of the runs' start (`2026-W49`), oldest first.
    pub weeks: Vec<(String, Tally)>,
}

/// The runners of `controls` ([`crate::history::store::HistoryStore::controls`]), sorted by GPU key
/// and UUID.
pub fn runners(controls: &[(RunMeta, Value)]) -> Vec<Runner> {
    // Per (GPU key, UUID): each week's tally, the whole tally, the A/B runs seen.
    type Seen = (BTreeMap<String, Tally>, Tally, std::collections::BTreeSet<String>);
    let mut by: BTreeMap<(String, String), Seen> = BTreeMap::new();
    for (meta, value) in controls {
        let entry = by.entry((meta.gpu_key.clone(), meta.gpu_uuid.clone())).or_default();
        entry.0.entry(week(&meta.run_id)).or_default().add(&value.verdict);
        entry.1.add(&value.verdict);
        entry.2.insert(meta.run_id.clone());
    }
    by.into_iter()
        .map(|((gpu_key, gpu_uuid), (weeks, total, runs))| Runner {
            gpu_key,
            gpu_uuid,
            runs: runs.len(),
            total,
            weeks: weeks.into_iter().collect(),
        })
        .collect()
}

/// The ISO 8601 week of a run id's date (`20261204T...` -> `2026-W49`: the week holding the
/// year's first Thursday is week 1, chrono's `IsoWeek`), or `unknown`.
fn week(run_id: &str) -> String {
    use chrono::Datelike as _;
    run_id
        .get(0..8)
        .and_then(|d| chrono::NaiveDate::parse_from_str(d, "%Y%m%d").ok())
        .map_or_else(|| "unknown".into(), |d| format!("{}-W{:02}", d.iso_week().year(), d.iso_week().week()))
}

/// `3.1 % (0.8–7.9 %)`: a rate and its interval as people read it; `-` for none.
pub fn shown(r: Option<(f64, f64, f64)>) -> String {
    r.map_or_else(|| "-".into(), |(p, lo, hi)| format!("{:.1} % ({:.1}–{:.1} %)", 100.0 * p, 100.0 * lo, 100.0 * hi))
}

/// The text `kernelgate history quality` prints: per runner, every control's rates, then each week's.
pub fn text(runners: &[Runner]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    if runners.is_empty() {
        out.push_str(
            "no A/A controls in the history: every same-run A/B run times some (KERNELGATE_AB_CONTROLS, default 4); \
             import its run CSV (`kernelgate history import`)\n",
        );
        return out;
    }
    for r in runners {
        let t = &r.total;
        writeln!(
            out,
            "{} {}: {} controls in {} A/B runs: false positives {}, ambiguous {}, invalid {}",
            r.gpu_key,
            r.gpu_uuid,
            t.controls,
            r.runs,
            shown(rate(t.false_positives, t.controls)),
            shown(rate(t.ambiguous, t.controls)),
            shown(rate(t.invalid, t.controls)),
        )
        .unwrap();
        for (week, w) in &r.weeks {
            writeln!(
                out,
                "  {week}: {} controls: false positives {}, ambiguous {}, invalid {}",
                w.controls,
                shown(rate(w.false_positives, w.controls)),
                shown(rate(w.ambiguous, w.controls)),
                shown(rate(w.invalid, w.controls)),
            )
            .unwrap();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clopper_pearson_matches_published_values() {
        // 0 of 10: upper 1 - 0.025^(1/10) = 0.3085 (the "rule of three" region); 5 of 10: 0.1871 to
        // 0.8129 (Clopper and Pearson's exact interval, as R's binom.test prints it).
        let (p, lo, hi) = rate(0, 10).unwrap();
        assert_eq!((p, lo), (0.0, 0.0));
        assert!((hi - 0.3085).abs() < 1e-4, "{hi}");
        let (_, lo, hi) = rate(5, 10).unwrap();
        assert!((lo - 0.1871).abs() < 1e-4 && (hi - 0.8129).abs() < 1e-4, "{lo} {hi}");
        assert_eq!(rate(3, 3).unwrap().2, 1.0);
        assert_eq!(rate(0, 0), None);
    }

    #[test]
    fn iso_weeks_at_year_ends() {
        assert_eq!(week("20261204T010203Z"), "2026-W49");
        assert_eq!(week("20210103T000000Z"), "2020-W53");
        assert_eq!(week("20241230T000000Z"), "2025-W01");
        assert_eq!(week("20260101T000000Z"), "2026-W01");
        assert_eq!(week("20261231T000000Z"), "2026-W53");
        assert_eq!(week("garbage"), "unknown");
    }

    fn control(run: &str, uuid: &str, verdict: &str) -> (RunMeta, Value) {
        let meta = RunMeta {
            run_id: run.into(),
            commit: "c".repeat(40),
            dirty: Some(false),
            kernels_sha256: String::new(),
            branch: String::new(),
            commit_time: None,
            subject: String::new(),
            gpu_key: "nvidia-h200-sm90".into(),
            gpu_name: "NVIDIA H200".into(),
            gpu_uuid: uuid.into(),
            driver: String::new(),
            cuda: String::new(),
            nvrtc: String::new(),
            ncu: String::new(),
            ab_revision: "main".into(),
            work_scale: 1.0,
        };
        let value = Value {
            trial: "copy/plain/1".into(),
            kernel: "copy".into(),
            metric: "median".into(),
            unit: "s".into(),
            value: 1e-3,
            ci_low: None,
            ci_high: None,
            verdict: verdict.into(),
            decided_by: "control: time (A/A)".into(),
        };
        (meta, value)
    }

    #[test]
    fn each_runner_counts_its_own_controls_per_week() {
        let rows = vec![
            control("20261130T000000Z", "GPU-a", "unchanged"),
            control("20261130T000000Z", "GPU-a", "regressed"),
            control("20261204T000000Z", "GPU-a", "ambiguous"),
            control("20261204T000000Z", "GPU-b", "unchanged"),
        ];
        let r = runners(&rows);
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].gpu_uuid.as_str(), r[0].runs), ("GPU-a", 2));
        assert_eq!(r[0].total, Tally { controls: 3, false_positives: 1, ambiguous: 1, invalid: 0 });
        assert_eq!(r[0].weeks.iter().map(|(w, t)| (w.as_str(), t.controls)).collect::<Vec<_>>(), [("2026-W49", 3)]);
        let t = text(&r);
        assert!(t.contains("GPU-a: 3 controls in 2 A/B runs: false positives 33.3 % ("), "{t}");
        assert!(text(&[]).contains("no A/A controls"), "{}", text(&[]));
    }
}
