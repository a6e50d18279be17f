//! "% of the vendor": each trial's speed against its family's vendor reference at its size (a case
//! marked with [`crate::Case::vendor_reference`]: CUB for the reduction and the histogram, cuBLAS
//! for matmul), the way a library reference is read: the reference's median over the trial's, so
//! 100 % is as fast as the library and more is faster.

use crate::record::CaseResult;

/// A vendor reference of the run: its trial name (`family/variant/size`) and the library it times
/// (`"CUB"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VendorReference {
    /// The reference's trial name, `reduction/cub/67108864`.
    pub trial: String,
    /// The library, as the table prints it: `CUB`, `cuBLAS`.
    pub vendor: &'static str,
}

/// The run's vendor references: one per case of `cases` marked with
/// [`crate::Case::vendor_reference`].
pub fn references(cases: &[crate::Case]) -> Vec<VendorReference> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::tests::result;

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

    #[test]
    fn the_case_table_names_cub_and_cublas() {
        let refs = references(&crate::cases::all());
        assert!(refs.contains(&VendorReference { trial: "reduction/cub/67108864".into(), vendor: "CUB" }));
        assert!(refs.iter().any(|r| r.trial.starts_with("histogram/cub/") && r.vendor == "CUB"));
        assert!(refs.iter().any(|r| r.trial.starts_with("matmul/cublas/") && r.vendor == "cuBLAS"));
    }
}
