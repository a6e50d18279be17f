//! The roofline of a diff's new side (pure): each trial of the new side placed by what the history
//! stores with it (its declared `bytes` and `flops`, its `median`, its `pct_of_<ceiling>_ceiling`),
//! under the ceilings its runs measured (the `<ceiling>_ceiling` values,
//! [`crate::model::Ceiling::value_statistic`]), and for each changed trial on both sides where the
//! old side's medians placed it ([`Was`]). Drawn by [`crate::report::roofline::svg`].

use super::{Diff, Presence, TrialDiff};
use crate::model::{Ceiling, Ceilings, Measured};
use crate::report::roofline::{Point, Was};
use std::collections::BTreeMap;

/// What the diff report draws as its roofline.
#[derive(Debug, Clone, PartialEq)]
pub struct Roof {
    /// The new side's measured rate ceilings: for each, the median over the new side's trials of
    /// the value stored with them (one value where the side is one run). Only `ceiling` and `value`
    /// are known: `spread`, `samples` and `work` are 0 (the history does not keep them).
    pub ceilings: Ceilings,
    /// The new side's trials that declare bytes, in the diff's order, numbered from 1.
    pub points: Vec<Point>,
    /// What the picture lacks and why, as sentences for the reader (no roofs stored, roofs of
    /// several values pooled); empty when nothing is missing.
    pub notes: Vec<String>,
}

/// The new side of `diff` on a roofline ([`Roof`]). A trial is placed where it declares bytes on
/// the new side (FLOPs too: on the roofline at `flops / bytes` FLOP/byte and `flops / median`
/// GFLOP/s; no FLOPs: in the bandwidth panel at `bytes / median` GB/s), with the % of its ceiling
/// the new side stored. A trial the diff calls changed ([`TrialDiff::changed`]) that is on both
/// sides with the old side's time, bytes and FLOPs gets where those placed it.
pub fn roof(diff: &Diff) -> Roof {
    let mut points = Vec::new();
    for t in diff.trials.iter().filter(|t| t.presence != Presence::Removed) {
        let Some(now) = place(t, Side::New) else { continue };
        let was = (t.changed() && t.presence == Presence::Both).then(|| place(t, Side::Old)).flatten();
        let of_ceiling = Ceiling::ALL.into_iter().find_map(|c| Some((c, new_value(t, c.pct_statistic()?)?)));
        points.push(Point {
            number: points.len() + 1,
            trial: t.trial.clone(),
            intensity: now.intensity,
            value: now.value,
            of_ceiling,
            was,
        });
    }
    let mut values: BTreeMap<Ceiling, Vec<f64>> = BTreeMap::new();
    for t in diff.trials.iter().filter(|t| t.presence != Presence::Removed) {
        for c in Ceiling::ALL {
            if let Some(v) = c.value_statistic().and_then(|name| new_value(t, name)) {
                values.entry(c).or_default().push(v);
            }
        }
    }
    let mut notes = Vec::new();
    if values.is_empty() && !points.is_empty() {
        notes.push(format!(
            "The new side ({}) has no measured ceilings in the history: its runs were stored before kernelgate \
             kept each run's ceilings with its trials, or imported without their -ceilings.csv. The trials are placed, \
             but no roof is drawn.",
            diff.new.label
        ));
    }
    let pooled: Vec<&str> =
        values.iter().filter(|(_, v)| v.iter().any(|x| x.to_bits() != v[0].to_bits())).map(|(c, _)| c.name()).collect();
    if !pooled.is_empty() {
        notes.push(format!(
            "The new side's trials carry more than one measured value of {} (several runs): each roof is the median.",
            pooled.join(", ")
        ));
    }
    let measured = values
        .into_iter()
        .map(|(ceiling, v)| Measured { ceiling, value: crate::stats::median(&v), spread: 0.0, samples: 0, work: 0.0 })
        .collect();
    Roof { ceilings: Ceilings { measured, wall_s: 0.0 }, points, notes }
}

#[derive(Clone, Copy)]
enum Side {
    Old,
    New,
}

/// The value of the trial's statistic `name` on the new side (the first kernel that has it).
fn new_value(t: &TrialDiff, name: &str) -> Option<f64> {
    t.metrics.iter().filter(|m| m.metric == name).find_map(|m| m.new)
}

/// Where one side's time, bytes and FLOPs place the trial; `None` without a positive time or bytes.
fn place(t: &TrialDiff, side: Side) -> Option<Was> {
    let of = |name: &str| {
        t.metrics.iter().filter(|m| m.metric == name).find_map(|m| match side {
            Side::Old => m.old,
            Side::New => m.new,
        })
    };
    let median = match side {
        Side::Old => t.old_s,
        Side::New => t.new_s,
    }
    .filter(|s| s.is_finite() && *s > 0.0)?;
    let bytes = of("bytes").filter(|b| b.is_finite() && *b > 0.0)?;
    let flops = of("flops").filter(|f| f.is_finite() && *f > 0.0);
    Some(match flops {
        Some(f) => Was { intensity: Some(f / bytes), value: f / median / 1e9 },
        None => Was { intensity: None, value: bytes / median / 1e9 },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::diff::tests::{row, side};
    use crate::report::diff::{Measurement, diff};

    /// History-shaped rows (made-up numbers): a matmul that got 2x faster, a copy that got 25 %
    /// slower, a reduction within 1 %, a trial without bytes, one only on the old side; the new
    /// side's ceilings stored with each trial.
    fn rows(ceilings: bool) -> (Vec<Measurement>, Vec<Measurement>) {
        let mut old = Vec::new();
        let mut new = Vec::new();
        let trials: [(&str, f64, f64, f64, f64); 4] = [
            ("matmul/tiled/1024", 2e-3, 1e-3, 12.0 * 1024.0 * 1024.0, 2.0 * 1024f64.powi(3)),
            ("coalescing/copy/1024", 1e-3, 1.25e-3, 1e9, 0.0),
            ("reduction/tree/1024", 1e-3, 1.001e-3, 4e8, 0.0),
            ("launch/empty/1", 1e-5, 1e-5, 0.0, 0.0),
        ];
        for (trial, o, n, bytes, flops) in trials {
            for (rows, median) in [(&mut old, o), (&mut new, n)] {
                rows.push(row(trial, "median", "s", median, "unchanged"));
                rows.push(row(trial, "bytes", "byte", bytes, "unchanged"));
                if flops > 0.0 {
                    rows.push(row(trial, "flops", "flop", flops, "unchanged"));
                    rows.push(row(
                        trial,
                        "pct_of_fma_ceiling",
                        "%",
                        100.0 * flops / median / 1e9 / 60000.0,
                        "unchanged",
                    ));
                }
            }
            if ceilings {
                new.push(row(trial, "copy_ceiling", "GB/s", 4000.0, "unchanged"));
                new.push(row(trial, "fma_ceiling", "GFLOP/s", 60000.0, "unchanged"));
            }
        }
        old.push(row("transpose/naive/1024", "median", "s", 1e-3, "unchanged"));
        old.push(row("transpose/naive/1024", "bytes", "byte", 8e6, "unchanged"));
        (old, new)
    }

    #[test]
    fn points_and_arrows_from_history_shaped_rows() {
        let (old, new) = rows(true);
        let r = roof(&diff(&side("a"), &old, &side("b"), &new));
        assert_eq!(r.notes, Vec::<String>::new());
        assert_eq!(r.ceilings.value(Ceiling::Copy), Some(4000.0));
        assert_eq!(r.ceilings.value(Ceiling::Fma), Some(60000.0));
        assert_eq!(r.ceilings.value(Ceiling::DramRead), None, "not stored, not drawn");
        // The diff's order: slower (copy), faster (matmul), then the rest; no bytes, no point; the
        // trial only on the old side is not the new side's.
        let names: Vec<&str> = r.points.iter().map(|p| p.trial.as_str()).collect();
        assert_eq!(names, ["coalescing/copy/1024", "matmul/tiled/1024", "reduction/tree/1024"]);
        let [copy, matmul, reduction] = &r.points[..] else { unreachable!() };
        assert_eq!((copy.number, matmul.number, reduction.number), (1, 2, 3));
        // The copy: bandwidth panel, 1e9 bytes in 1.25 ms -> 800 GB/s, was 1000 GB/s.
        assert_eq!(copy.intensity, None);
        assert!((copy.value - 800.0).abs() < 1e-9);
        assert_eq!(copy.was, Some(Was { intensity: None, value: 1000.0 }));
        // The matmul: 2 x 1024^3 FLOPs over 12 x 1024^2 bytes = 170.7 FLOP/byte; 2147 GFLOP/s, was half.
        let i = 2.0 * 1024.0 / 12.0;
        assert_eq!(matmul.intensity, Some(i));
        let w = matmul.was.unwrap();
        assert!(
            (matmul.value - 2.0 * 1024f64.powi(3) / 1e-3 / 1e9).abs() < 1e-6
                && (w.value * 2.0 - matmul.value).abs() < 1e-6
        );
        assert_eq!(w.intensity, Some(i));
        let (c, pct) = matmul.of_ceiling.unwrap();
        assert!(c == Ceiling::Fma && (pct - 100.0 * matmul.value / 60000.0).abs() < 1e-9);
        // Within 1 %: not changed, no arrow.
        assert_eq!(reduction.was, None);
        // Drawn: three points, two old positions with their arrows, the roofs of copy and fma.
        let svg = crate::report::roofline::svg("b", &r.ceilings, &r.points);
        assert!(svg.contains(r#"data-points="3" data-roofline="1" data-bandwidth="2" data-moved="2""#), "{svg}");
        assert_eq!(svg.matches(r#"<circle class="pt""#).count(), 3);
        assert_eq!(svg.matches(r#"<circle class="was""#).count(), 2);
        assert_eq!(svg.matches(r#"<g class="move""#).count(), 2);
        assert!(svg.contains("1 coalescing/copy/1024: was 1000 GB/s (old side)"), "{svg}");
        assert!(svg.contains(">copy 4000 GB/s</text>") && svg.contains(">fma 60000 GFLOP/s</text>"));
    }

    #[test]
    fn without_stored_ceilings_the_report_says_so_and_draws_no_roof() {
        let (old, new) = rows(false);
        let r = roof(&diff(&side("a"), &old, &side("b"), &new));
        assert!(r.ceilings.measured.is_empty());
        assert_eq!(r.notes.len(), 1);
        assert!(
            r.notes[0].contains("no measured ceilings") && r.notes[0].contains("no roof is drawn"),
            "{:?}",
            r.notes
        );
        let svg = crate::report::roofline::svg("b", &r.ceilings, &r.points);
        assert!(!svg.contains(r#"class="roof""#), "no invented roof");
        assert_eq!(svg.matches(r#"<circle class="pt""#).count(), 3);
    }

    #[test]
    fn ceilings_of_several_runs_are_pooled_by_their_median_and_said_so() {
        let (old, mut new) = rows(true);
        for m in new.iter_mut().filter(|m| m.metric == "copy_ceiling" && m.trial.starts_with("matmul")) {
            m.value = 4100.0;
        }
        let r = roof(&diff(&side("a"), &old, &side("b"), &new));
        assert_eq!(r.ceilings.value(Ceiling::Copy), Some(4000.0), "median of 4000, 4000, 4100, 4000");
        assert!(r.notes.iter().any(|n| n.contains("more than one measured value of copy")), "{:?}", r.notes);
    }
}
