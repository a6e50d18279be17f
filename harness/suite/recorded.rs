//! The git state a run is recorded under: read from the tree the run starts in and reconciled
//! with the state built into the binary ([`crate::history::built::reconcile`]).

use crate::history;
use crate::source::Sources;

/// The git state a run in `project` of a binary built as `build` that read the kernels `sources`
/// is recorded under:
/// `KERNELGATE_COMMIT`'s (`given`), HEAD's here when its commit holds the files the binary was
/// built from, else the binary's; with warnings where the tree here differs
/// ([`history::built::reconcile`]); and the hash of the project's files of `sources`
/// ([`Sources::project_kernels_sha256`]).
pub(super) fn recorded_state(
    project: &crate::project::Project,
    build: &history::built::Build,
    given: Option<&str>,
    sources: &Sources,
) -> (history::built::Recorded, String) {
    use history::provenance;
    let root = project.root.as_path();
    let here = provenance::read(root, None, &project.kernels).expect("read without a revision always answers");
    let measured = sources.project_kernels_sha256();
    let given = given.map(|id| (id, provenance::read(root, Some(id), &project.kernels)));
    let head_holds_inputs = build.head_holds_inputs(root);
    let keyed_by_default = given.is_none();
    let mut recorded = history::built::reconcile(
        &build.git(),
        build.commit_kernels_sha256,
        &measured,
        &here,
        head_holds_inputs,
        given,
    );
    // Why HEAD was not the commit the run is keyed to, when its files are what tells it apart.
    if keyed_by_default && !head_holds_inputs && here.commit != "unknown" && recorded.git.commit != here.commit {
        let unlike = build.inputs_unlike_head(root);
        if !unlike.is_empty() {
            recorded.warnings.push(format!(
                "HEAD ({}) does not hold the files this binary was built from: {}; commit them and the runs of this \
                 binary are keyed to HEAD",
                here.short(),
                unlike.join(", ")
            ));
        }
    }
    (recorded, measured)
}
