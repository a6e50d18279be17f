//! The git state a run is recorded under: read from the tree the run starts in and reconciled
//! with the state built into the binary ([`crate::history::built::reconcile`]).

use crate::history;
use std::path::Path;

/// The git state a run in `root` is recorded under: `KERNELGATE_COMMIT`'s (`given`), HEAD's here
/// when its commit holds the files the binary was built from, else the binary's; with warnings
/// where the tree here differs ([`history::built::reconcile`]).
pub(super) fn recorded_state(root: &Path, given: Option<&str>) -> history::built::Recorded {
    use history::provenance;
    let here = provenance::read(root, None).expect("read without a revision always answers");
    let kernels_here = read_kernels(&root.join("kernels")).map(|files| {
        let refs: Vec<(&str, &str)> = files.iter().map(|(f, t)| (f.as_str(), t.as_str())).collect();
        provenance::kernels_sha256(&refs)
    });
    let given = given.map(|id| (id, provenance::read(root, Some(id))));
    history::built::reconcile(
        &history::built::built(),
        history::built::BUILT_KERNELS_SHA256,
        &here,
        kernels_here.as_deref(),
        history::built::head_holds_build_inputs(root),
        given,
    )
}

/// `(file name, text)` of every `*.cu` in `dir`; `None` when the folder cannot be read.
fn read_kernels(dir: &Path) -> Option<Vec<(String, String)>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).ok()? {
        let path = entry.ok()?.path();
        if path.extension().is_some_and(|e| e == "cu") {
            files.push((path.file_name()?.to_string_lossy().into_owned(), std::fs::read_to_string(&path).ok()?));
        }
    }
    Some(files)
}
