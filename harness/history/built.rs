//! The git state built into this binary, and the state a run is recorded under (issue 9).
//!
//! `build.rs` reads the git state of the tree it builds from ([`super::provenance::read`]) and
//! writes it into the binary ([`built`], [`BUILT_KERNELS_SHA256`]). At run time
//! [`reconcile`] decides what the run is keyed to: the built commit, because that is where the
//! measured kernels came from; `KERNELGATE_COMMIT` when set (an override for binaries built outside
//! a repository); and it says, as warnings, where the working tree it runs in differs.

use crate::model::{GitState, RepoState};

mod generated {
    use super::{GitState, RepoState};
    include!(concat!(env!("OUT_DIR"), "/built.rs"));
}

/// SHA-256 of the kernels built into this binary ([`super::provenance::kernels_sha256`] of
/// `crate::SOURCES`).
pub use generated::{BUILT_INPUTS_SHA256, BUILT_KERNELS_SHA256};

/// The git state of the tree this binary was built from, read by `build.rs`.
pub fn built() -> GitState {
    generated::built()
}

/// What a run is recorded under, and what the reader should be told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The state the run is keyed to.
    pub git: GitState,
    /// One sentence per difference between the binary and the tree it runs in, or per unknown.
    pub warnings: Vec<String>,
}

/// Decides the state a run is recorded under (pure).
///
/// - `built`: the binary's state ([`built`]); `kernels_built`: its kernels' hash.
/// - `here`: the working tree the run starts in ([`super::provenance::read`] of the project root);
///   `kernels_here`: the hash of its `kernels/*.cu`, `None` when it has no such folder.
/// - `head_holds_inputs`: HEAD's commit here holds exactly the files the binary was built from
///   ([`super::provenance::BUILD_INPUTS`], compared by [`super::provenance::files_sha256`] with
///   [`BUILT_INPUTS_SHA256`]): its code is that commit's, whatever commit `build.rs` saw.
/// - `given`: the state of `KERNELGATE_COMMIT`'s commit when set, `Err` with libgit2's reason when
///   it could not be looked up (the id is then recorded as given, dirty unknown).
///
/// The run is keyed to `given` when set. Else, when HEAD here holds the binary's sources and the
/// working tree its kernels, to `here`: `build.rs` does not re-run on a commit (that would rebuild
/// the crate), so the built commit can be older than HEAD while the code that runs is HEAD's (with
/// the edits `here` reports as dirty, none of them to the sources). Else to `built`: a binary copied
/// elsewhere (a GPU runner's copy of the tree, issue 9), or run in a checkout at another commit
/// (a copy whose HEAD is older than its files, seen on the H200 runner), carries where its code
/// came from. Warnings name: a
/// `given` commit other than the built one; a working tree at another commit, or with other
/// kernels, than the binary's; a built state without a commit (no repository, no refs) or from a
/// shallow clone; built kernels that differ from their commit.
pub fn reconcile(
    built: &GitState,
    kernels_built: &str,
    here: &GitState,
    kernels_here: Option<&str>,
    head_holds_inputs: bool,
    given: Option<(&str, Result<GitState, String>)>,
) -> Recorded {
    let same_kernels = kernels_here == Some(kernels_built);
    if given.is_none() && head_holds_inputs && same_kernels && here.commit != "unknown" {
        let warnings = shallow_warning(here).into_iter().collect();
        return Recorded { git: here.clone(), warnings };
    }
    let mut warnings = Vec::new();
    let git = match given {
        // An abbreviation of the built commit that this repository cannot resolve (a runner's copy
        // without the commit): the built commit is the one meant, in full.
        Some((id, Err(_))) if id.len() >= 7 && built.commit != "unknown" && built.commit.starts_with(id) => {
            built.clone()
        }
        Some((id, found)) => {
            let mut git = found.unwrap_or_else(|reason| {
                warnings.push(format!("recording KERNELGATE_COMMIT={id} as given, dirty unknown: {reason}"));
                GitState { commit: id.to_string(), ..GitState::unknown(RepoState::NoRefs) }
            });
            if built.commit != "unknown" && git.commit != built.commit {
                warnings.push(format!(
                    "KERNELGATE_COMMIT={id} is not the commit this binary was built from ({}); recording {id} as asked",
                    built.short()
                ));
                // Whether the binary's kernels match the given commit is not known from its state.
                git.kernels_dirty = None;
            } else {
                git.dirty = built.dirty.or(git.dirty);
                git.kernels_dirty = built.kernels_dirty.or(git.kernels_dirty);
            }
            git
        }
        None => built.clone(),
    };
    match built.state {
        RepoState::NoRepository | RepoState::NoRefs if git.commit == "unknown" => warnings.push(format!(
            "this binary was built outside a commit ({}): the run is recorded under commit unknown; set \
             KERNELGATE_COMMIT=<id> to key it",
            built.state.as_str()
        )),
        RepoState::Shallow => warnings.extend(shallow_warning(built)),
        _ => {}
    }
    if built.kernels_dirty == Some(true) && git.commit == built.commit {
        warnings.push(format!(
            "the kernels built into this binary differ from commit {} (edited or untracked kernels/*.cu): \
             recorded as dirty",
            built.short()
        ));
    }
    if here.commit != "unknown" && built.commit != "unknown" && here.commit != built.commit {
        warnings.push(format!(
            "this binary was built from commit {}, the working tree here is at {}: the run is recorded under {}",
            built.short(),
            here.short(),
            git.short()
        ));
    }
    if let Some(h) = kernels_here
        && h != kernels_built
    {
        warnings.push(format!(
            "kernels/ here differs from the kernels built into this binary: the run measures the built ones \
             (kernels {}), recorded under {}",
            &kernels_built[..kernels_built.len().min(12)],
            git.short()
        ));
    }
    Recorded { git, warnings }
}

/// The warning for a state read from a shallow clone, `None` for any other.
fn shallow_warning(git: &GitState) -> Option<String> {
    (git.state == RepoState::Shallow).then(|| {
        format!(
            "this binary was built in a shallow clone: commit {} is recorded, its ancestors may be missing from \
             history",
            git.short()
        )
    })
}

/// Whether HEAD's commit of the repository at `root` holds exactly the files this binary was
/// built from ([`super::provenance::inputs_at_head`] against [`BUILT_INPUTS_SHA256`]):
/// [`reconcile`]'s `head_holds_inputs`. `false` without a repository.
pub fn head_holds_build_inputs(root: &std::path::Path) -> bool {
    super::provenance::inputs_at_head(root)
        .is_some_and(|files| super::provenance::files_sha256(&files) == BUILT_INPUTS_SHA256)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(commit: &str) -> GitState {
        GitState {
            commit: commit.into(),
            dirty: Some(false),
            kernels_dirty: Some(false),
            branch: "main".into(),
            commit_time: Some(1_700_000_000),
            subject: "s".into(),
            state: RepoState::Branch,
        }
    }

    #[test]
    fn the_built_commit_keys_the_run_and_a_tree_elsewhere_is_named() {
        // Issue 9: built from edited kernels, run in a clean checkout of the same commit.
        let built = GitState { kernels_dirty: Some(true), dirty: Some(true), ..at("aaaaaaa1") };
        let r = reconcile(&built, "k1", &at("aaaaaaa1"), Some("k0"), false, None);
        assert_eq!(r.git.commit, "aaaaaaa1");
        assert_eq!(r.git.kernels_dirty, Some(true));
        assert!(r.warnings.iter().any(|w| w.contains("differ from commit aaaaaaa")), "{r:?}");
        assert!(r.warnings.iter().any(|w| w.contains("kernels/ here differs")), "{r:?}");
        // Run in a tree at another commit.
        let r = reconcile(&at("aaaaaaa1"), "k1", &at("bbbbbbb2"), Some("k1"), false, None);
        assert_eq!(r.git.commit, "aaaaaaa1");
        assert_eq!(r.warnings.len(), 1, "{r:?}");
        assert!(r.warnings[0].contains("built from commit aaaaaaa, the working tree here is at bbbbbbb"));
        // The same tree: nothing to say.
        let r = reconcile(&at("aaaaaaa1"), "k1", &at("aaaaaaa1"), Some("k1"), false, None);
        assert!(r.warnings.is_empty(), "{r:?}");
    }

    #[test]
    fn unknown_states_are_recorded_with_a_warning() {
        let r = reconcile(
            &GitState::unknown(RepoState::NoRepository),
            "k",
            &GitState::unknown(RepoState::NoRepository),
            None,
            false,
            None,
        );
        assert_eq!(r.git.commit, "unknown");
        assert_eq!(r.git.state, RepoState::NoRepository);
        assert!(r.warnings[0].contains("no repository") && r.warnings[0].contains("KERNELGATE_COMMIT"), "{r:?}");
        let shallow = GitState { state: RepoState::Shallow, ..at("ccccccc3") };
        let r = reconcile(&shallow, "k", &shallow, Some("k"), false, None);
        assert!(r.warnings[0].contains("shallow"), "{r:?}");
    }

    #[test]
    fn kernelgate_commit_overrides_and_says_so() {
        // Given the built commit: its dirty flags come from the build.
        let built = GitState { kernels_dirty: Some(true), ..at("aaaaaaa1") };
        let r = reconcile(
            &built,
            "k",
            &GitState::unknown(RepoState::NoRefs),
            None,
            false,
            Some(("aaaaaaa1", Ok(at("aaaaaaa1")))),
        );
        assert_eq!(r.git.kernels_dirty, Some(true));
        // Given another commit: recorded as asked, kernels unknown.
        let r =
            reconcile(&at("aaaaaaa1"), "k", &at("aaaaaaa1"), Some("k"), false, Some(("bbbbbbb2", Ok(at("bbbbbbb2")))));
        assert_eq!(r.git.commit, "bbbbbbb2");
        assert_eq!(r.git.kernels_dirty, None);
        assert!(r.warnings[0].contains("recording bbbbbbb2 as asked"), "{r:?}");
        // Not found on the runner: recorded as given.
        let r = reconcile(
            &GitState::unknown(RepoState::NoRefs),
            "k",
            &GitState::unknown(RepoState::NoRefs),
            None,
            false,
            Some(("ddddddd4", Err("not found".into()))),
        );
        assert_eq!(r.git.commit, "ddddddd4");
        assert!(r.warnings[0].contains("as given, dirty unknown: not found"), "{r:?}");
        // An abbreviation of the built commit, not found on the runner: the built commit, no warning.
        let built = at("aaaaaaa1ffff");
        let r = reconcile(&built, "k", &built, Some("k"), false, Some(("aaaaaaa1", Err("not found".into()))));
        assert_eq!(r.git.commit, "aaaaaaa1ffff");
        assert!(r.warnings.is_empty(), "{r:?}");
    }

    #[test]
    fn where_head_holds_the_built_sources_a_run_is_keyed_to_head_when_the_kernels_match() {
        // Built at A, then a commit B that changed no kernel: cargo does not rebuild, the run is B's.
        let r = reconcile(&at("aaaaaaa1"), "k1", &at("bbbbbbb2"), Some("k1"), true, None);
        assert_eq!(r.git.commit, "bbbbbbb2");
        assert!(r.warnings.is_empty(), "{r:?}");
        // HEAD's kernels with uncommitted edits, built into this binary: HEAD, dirty as read here.
        let edited = GitState { dirty: Some(true), kernels_dirty: Some(true), ..at("bbbbbbb2") };
        let r = reconcile(&at("aaaaaaa1"), "k2", &edited, Some("k2"), true, None);
        assert_eq!((r.git.commit.as_str(), r.git.kernels_dirty), ("bbbbbbb2", Some(true)));
        // Kernels edited after the build, binary run directly: the built state, with the warning.
        let r = reconcile(&at("aaaaaaa1"), "k1", &edited, Some("k2"), true, None);
        assert_eq!(r.git.commit, "aaaaaaa1");
        assert!(r.warnings.iter().any(|w| w.contains("kernels/ here differs")), "{r:?}");
        // A shallow checkout still says so.
        let shallow = GitState { state: RepoState::Shallow, ..at("ccccccc3") };
        let r = reconcile(&at("aaaaaaa1"), "k", &shallow, Some("k"), true, None);
        assert_eq!(r.git.commit, "ccccccc3");
        assert!(r.warnings[0].contains("shallow"), "{r:?}");
        // KERNELGATE_COMMIT still wins.
        let r =
            reconcile(&at("aaaaaaa1"), "k", &at("bbbbbbb2"), Some("k"), true, Some(("aaaaaaa1", Ok(at("aaaaaaa1")))));
        assert_eq!(r.git.commit, "aaaaaaa1");
    }
}
