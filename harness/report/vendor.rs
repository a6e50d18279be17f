//! "% of the vendor": each trial's speed against its family's vendor reference at its size (a case
//! marked with [`crate::Case::vendor_reference`]: CUB for the reduction and the histogram, cuBLAS
//! for matmul), the way a library reference is read: the reference's median over the trial's, so
//! 100 % is as fast as the library and more is faster.

use crate::record::CaseResult;

pub use crate::model::VendorReference;

/// The run's vendor references: one per case of `cases` marked with
/// [`crate::Case::vendor_reference`].
pub fn references(cases: &[crate::case::Case]) -> Vec<VendorReference> {
    cases.iter().filter_map(|c| Some(VendorReference { trial: c.name(), vendor: c.vendor? })).collect()
}

/// For each of `results`, in order: `100 × reference median / trial median` and the library, where
/// `references` holds a trial of the same family and size (the first and last components of the
/// trial names) and `results` holds its time; `None` otherwise (a family without a reference, or a
/// run filtered to leave the reference out). The reference itself reads 100 %. Pure.
pub fn pct_of_vendor(results: &[CaseResult], references: &[VendorReference]) -> Vec<Option<(f64, &'static str)>> {
    let family_and_size = |trial: &str| {
        let mut parts = trial.split('/');
        (parts.next().map(str::to_string), parts.next_back().map(str::to_string))
    };
    results
        .iter()
        .map(|r| {
            let reference = references.iter().find(|v| family_and_size(&v.trial) == family_and_size(&r.trial))?;
            let timed = results.iter().find(|o| o.trial == reference.trial)?;
            let (theirs, ours) = (timed.summary.median_s, r.summary.median_s);
            (theirs > 0.0 && ours > 0.0).then(|| (100.0 * theirs / ours, reference.vendor))
        })
        .collect()
}

/// The run statistic of [`CaseResult::vendor`]'s percentage (`crate::record::statistics`).
pub const STATISTIC: &str = "pct_of_vendor";

/// What the diff reports show of a trial `t` of `diff` against the vendor reference of its family
/// and size (a trial of `references`, the case table of this kernelgate, on the same side of the
/// diff), old -> new: `79 % -> 72 % of cuBLAS`, or one side's where only one side has both times;
/// `the cuBLAS reference` for the reference itself. Each side's percentage is 100 x the
/// reference's median over the trial's, from the diff's own medians (those of the sides' runs),
/// so it reads the same for histories stored before runs wrote [`STATISTIC`]. `None` for a trial
/// without a reference, or when no side has both times. Whole percents, as the terminal table.
pub fn diff_text(
    diff: &crate::report::diff::Diff,
    t: &crate::report::diff::TrialDiff,
    references: &[VendorReference],
) -> Option<String> {
    let family_and_size = |trial: &str| {
        let mut parts = trial.split('/');
        (parts.next().map(str::to_string), parts.next_back().map(str::to_string))
    };
    let reference = references.iter().find(|v| family_and_size(&v.trial) == family_and_size(&t.trial))?;
    if reference.trial == t.trial {
        return Some(format!("the {} reference", reference.vendor));
    }
    let theirs = diff.trials.iter().find(|o| o.trial == reference.trial)?;
    let pct = |reference: Option<f64>, ours: Option<f64>| -> Option<f64> {
        let (r, o) = (reference?, ours?);
        (r > 0.0 && o > 0.0 && r.is_finite() && o.is_finite()).then(|| 100.0 * r / o)
    };
    let (old, new) = (pct(theirs.old_s, t.old_s), pct(theirs.new_s, t.new_s));
    let text = |v: f64| format!("{v:.0} %");
    Some(match (old, new) {
        (Some(o), Some(n)) => format!("{} -> {} of {}", text(o), text(n), reference.vendor),
        (None, Some(n)) => format!("{} of {} (new side)", text(n), reference.vendor),
        (Some(o), None) => format!("{} of {} (old side)", text(o), reference.vendor),
        (None, None) => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::tests::result;

    #[test]
    fn the_diff_text_names_the_library_and_the_reference() {
        use crate::report::diff::tests::{row, side};
        // Made-up medians: the tiled kernel at 2x, then 2.5x the reference's time.
        let rows = |tiled: f64| {
            vec![
                row("matmul/tiled/64", "median", "s", tiled, "unchanged"),
                row("matmul/cublas/64", "median", "s", 1.0, "unchanged"),
                row("matmul/naive/128", "median", "s", 1.0, "unchanged"),
            ]
        };
        let mut new = rows(2.5);
        new.push(row("matmul/cublas/128", "median", "s", 0.5, "unchanged"));
        new.push(row("matmul/naive/128", "median", "s", 1.0, "unchanged"));
        let d = crate::report::diff::diff(&side("a"), &rows(2.0), &side("b"), &new);
        let refs = [
            VendorReference { trial: "matmul/cublas/64".into(), vendor: "cuBLAS" },
            VendorReference { trial: "matmul/cublas/128".into(), vendor: "cuBLAS" },
        ];
        let text = |trial: &str, refs: &[VendorReference]| {
            diff_text(&d, d.trials.iter().find(|t| t.trial == trial).unwrap(), refs)
        };
        assert_eq!(text("matmul/tiled/64", &refs).as_deref(), Some("50 % -> 40 % of cuBLAS"));
        assert_eq!(text("matmul/cublas/64", &refs).as_deref(), Some("the cuBLAS reference"));
        assert_eq!(text("matmul/naive/128", &refs).as_deref(), Some("50 % of cuBLAS (new side)"), "timed on one side");
        assert_eq!(text("matmul/tiled/64", &[]), None, "no reference in the case table");
    }

    #[test]
    fn each_trial_reads_against_its_familys_reference_at_its_size() {
        let results = [
            result("reduction/cub/64", 80e-6, 256, 0),
            result("reduction/shuffle_vec4/64", 40e-6, 256, 0),
            result("reduction/shuffle_vec4/128", 40e-6, 512, 0),
            result("histogram/privatized/4_skewed", 1e-3, 4, 0),
            result("histogram/cub/4_uniform", 1e-3, 4, 0),
            result("copy/plain/64", 1e-3, 4, 0),
        ];
        let cub = |trial: &str| VendorReference { trial: trial.into(), vendor: "CUB" };
        let refs = [cub("reduction/cub/64"), cub("reduction/cub/128"), cub("histogram/cub/4_uniform")];
        assert_eq!(
            pct_of_vendor(&results, &refs),
            [Some((100.0, "CUB")), Some((200.0, "CUB")), None, None, Some((100.0, "CUB")), None],
            "twice as fast reads 200 %; no reference timed at 128 (filtered out), none of skewed, none of copy"
        );
        assert_eq!(pct_of_vendor(&[], &refs), []);
    }
}
