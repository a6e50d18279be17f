//! What a bless changed, in a few lines: the counts, then the largest changes of the time; the
//! whole list goes to a file (`crate::suite`), since a bless of the suite with ncu counters
//! changes about a thousand values.

use super::{Change, TIME_METRIC};

/// The summary of `changes`: one line of counts (`1208 changes: 3 new, 1205 changed, 0 removed;
/// 80 of them times`), then up to `shown` time changes, largest relative change first, each
/// as [`Change`] prints it. Pure.
pub fn summarize(changes: &[Change], shown: usize) -> Vec<String> {
    let new = changes.iter().filter(|c| c.before.is_none() && c.after.is_some()).count();
    let removed = changes.iter().filter(|c| c.after.is_none()).count();
    let times: Vec<&Change> = changes.iter().filter(|c| c.metric == TIME_METRIC).collect();
    let mut lines = vec![format!(
        "{}: {new} new, {} changed, {removed} removed; {} of them times",
        crate::units::count(changes.len(), "change"),
        changes.len() - new - removed,
        times.len()
    )];
    let relative = |c: &Change| match (c.before, c.after) {
        (Some(b), Some(a)) if b != 0.0 => ((a - b) / b).abs(),
        _ => f64::INFINITY,
    };
    let mut moved: Vec<&Change> = times.into_iter().filter(|c| c.before.is_some() && c.after.is_some()).collect();
    moved.sort_by(|a, b| relative(b).total_cmp(&relative(a)).then_with(|| a.trial.cmp(&b.trial)));
    if !moved.is_empty() && shown > 0 {
        lines.push(format!("the largest time changes ({} of {}):", shown.min(moved.len()), moved.len()));
        lines.extend(moved.iter().take(shown).map(|c| format!("  {c}")));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(trial: &str, metric: &str, before: Option<f64>, after: Option<f64>) -> Change {
        Change { trial: trial.into(), metric: metric.into(), unit: "s".into(), before, after }
    }

    #[test]
    fn the_summary_counts_and_lists_the_largest_time_changes_first() {
        let changes = vec![
            change("a/x/1", TIME_METRIC, Some(1.0e-3), Some(1.01e-3)),
            change("b/x/1", TIME_METRIC, Some(1.0e-3), Some(0.95e-3)),
            change("b/x/1", "dram__bytes_read.sum", Some(8.0), Some(9.0)),
            change("c/x/1", TIME_METRIC, None, Some(2.0e-3)),
            change("d/x/1", TIME_METRIC, Some(1.0e-3), None),
        ];
        let lines = summarize(&changes, 1);
        assert_eq!(lines[0], "5 changes: 1 new, 3 changed, 1 removed; 4 of them times");
        assert_eq!(lines[1], "the largest time changes (1 of 2):");
        assert!(lines[2].starts_with("  b/x/1 time: "), "{lines:?}");
        assert_eq!(lines.len(), 3);
        assert_eq!(summarize(&[], 10), vec!["0 changes: 0 new, 0 changed, 0 removed; 0 of them times"]);
    }
}
