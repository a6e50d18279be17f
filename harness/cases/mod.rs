//! The case table: one module per kernel family, mirroring `kernels/<family>.cu`.
//!
//! Adding a kernel: write it in `kernels/<family>.cu` as `extern "C" __global__`, then add a
//! [`Case`] to that family's module here naming it through `k::<family>::<entry>`.

use crate::Case;

pub mod coalescing;
pub mod layout;
pub mod transpose;
pub mod vectorization;

/// Every case, sorted by name.
///
/// # Panics
/// If two cases share a name or a name component is empty or holds `/` (a case-table mistake; the
/// CPU tests call this).
pub fn all() -> Vec<Case> {
    let mut cases: Vec<Case> = [coalescing::cases(), layout::cases(), transpose::cases(), vectorization::cases()]
        .into_iter()
        .flatten()
        .collect();
    cases.sort_by_key(Case::name);
    for c in &cases {
        for part in [c.family, c.variant.as_str(), c.size.as_str()] {
            assert!(
                !part.is_empty() && !part.contains('/') && part.is_ascii() && !part.contains('\0'),
                "{}: bad name component {part:?}",
                c.name()
            );
        }
    }
    for pair in cases.windows(2) {
        assert_ne!(pair[0].name(), pair[1].name(), "two cases share a name");
    }
    cases
}

/// `2^26` as a size label: the element count in decimal.
pub(crate) fn elements(n: usize) -> String {
    n.to_string()
}

/// Test helper: runs every case's reference on freshly drawn inputs and checks it returns one
/// buffer per compared parameter, each as long as that parameter's buffer.
#[cfg(test)]
pub(crate) fn assert_references_fit(cases: &[Case]) {
    use crate::case::{HostData, Param};
    for c in cases {
        let inputs: Vec<HostData> = c.params.iter().filter_map(|p| crate::check::draw(p, 1)).collect();
        let out = (c.reference)(&inputs);
        let lens: Vec<usize> = c
            .params
            .iter()
            .filter_map(|p| match p {
                Param::Out { len } | Param::InOut { len, .. } => Some(*len),
                _ => None,
            })
            .collect();
        assert_eq!(out.iter().map(Vec::len).collect::<Vec<_>>(), lens, "{}", c.name());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::Param;

    #[test]
    fn table_is_sorted_unique_and_consistent() {
        let cases = all();
        assert!(cases.len() >= 30);
        for c in &cases {
            assert_eq!(c.family, c.kernel.file.trim_end_matches(".cu"), "{}: family = kernel file", c.name());
            assert!(c.bytes > 0, "{} declares the bytes it moves", c.name());
            assert!(c.params.iter().any(Param::is_compared), "{} has an output to check", c.name());
            let block: u32 = c.launch.block.iter().product();
            assert!((32..=1024).contains(&block) && block.is_multiple_of(32), "{}: block of {block}", c.name());
        }
    }
}
