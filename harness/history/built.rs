//! The git state built into this binary, and the state a run is recorded under (issue 9).
//!
//! `build.rs` reads the git state of the tree it builds from ([`super::provenance::read`]) and
//! writes it into the binary ([`built`], [`BUILT_KERNELS_SHA256`]). At run time
//! [`reconcile`] decides what the run is keyed to: the built commit, because that is where the
//! measured kernels came from; `KERNELGATE_COMMIT` when set (an override for binaries built outside
//! a repository); and it says, as warnings, where the working tree it runs in differs.

use super::provenance::{GitState, RepoState};

mod generated {
    use super::{GitState, RepoState};
    include!(concat!(env!("OUT_DIR"), "/built.rs"));
}

/// SHA-256 of the kernels built into this binary ([`super::provenance::kernels_sha256`] of
/// `crate::SOURCES`).
pub use generated::BUILT_KERNELS_SHA256;

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
/// - `given`: the state of `KERNELGATE_COMMIT`'s commit when set, `Err` with libgit2's reason when
///   it could not be looked up (the id is then recorded as given, dirty unknown).
///
/// The run is keyed to `given` when set, else to `built`. Warnings name: a `given` commit other
/// than the built one; a working tree at another commit, or with other kernels, than the binary's
/// (the issue 9 case: the kernels were embedded at build time); a built state without a commit
/// (no repository, no refs) or from a shallow clone; built kernels that differ from their commit.
pub fn reconcile(
    built: &GitState,
    kernels_built: &str,
    here: &GitState,
    kernels_here: Option<&str>,
    given: Option<(&str, Result<GitState, String>)>,
) -> Recorded {
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
        RepoState::Shallow => warnings.push(format!(
            "this binary was built in a shallow clone: commit {} is recorded, its ancestors may be missing from \
             history",
            built.short()
        )),
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
        let r = reconcile(&built, "k1", &at("aaaaaaa1"), Some("k0"), None);
        assert_eq!(r.git.commit, "aaaaaaa1");
        assert_eq!(r.git.kernels_dirty, Some(true));
        assert!(r.warnings.iter().any(|w| w.contains("differ from commit aaaaaaa")), "{r:?}");
        assert!(r.warnings.iter().any(|w| w.contains("kernels/ here differs")), "{r:?}");
        // Run in a tree at another commit.
        let r = reconcile(&at("aaaaaaa1"), "k1", &at("bbbbbbb2"), Some("k1"), None);
        assert_eq!(r.git.commit, "aaaaaaa1");
        assert_eq!(r.warnings.len(), 1, "{r:?}");
        assert!(r.warnings[0].contains("built from commit aaaaaaa, the working tree here is at bbbbbbb"));
        // The same tree: nothing to say.
        let r = reconcile(&at("aaaaaaa1"), "k1", &at("aaaaaaa1"), Some("k1"), None);
        assert!(r.warnings.is_empty(), "{r:?}");
    }

    #[test]
    fn unknown_states_are_recorded_with_a_warning() {
        let r = reconcile(
            &GitState::unknown(RepoState::NoRepository),
            "k",
            &GitState::unknown(RepoState::NoRepository),
            None,
            None,
        );
        assert_eq!(r.git.commit, "unknown");
        assert_eq!(r.git.state, RepoState::NoRepository);
        assert!(r.warnings[0].contains("no repository") && r.warnings[0].contains("KERNELGATE_COMMIT"), "{r:?}");
        let shallow = GitState { state: RepoState::Shallow, ..at("ccccccc3") };
        let r = reconcile(&shallow, "k", &shallow, Some("k"), None);
        assert!(r.warnings[0].contains("shallow"), "{r:?}");
    }

    #[test]
    fn kernelgate_commit_overrides_and_says_so() {
        // Given the built commit: its dirty flags come from the build.
        let built = GitState { kernels_dirty: Some(true), ..at("aaaaaaa1") };
        let r =
            reconcile(&built, "k", &GitState::unknown(RepoState::NoRefs), None, Some(("aaaaaaa1", Ok(at("aaaaaaa1")))));
        assert_eq!(r.git.kernels_dirty, Some(true));
        // Given another commit: recorded as asked, kernels unknown.
        let r = reconcile(&at("aaaaaaa1"), "k", &at("aaaaaaa1"), Some("k"), Some(("bbbbbbb2", Ok(at("bbbbbbb2")))));
        assert_eq!(r.git.commit, "bbbbbbb2");
        assert_eq!(r.git.kernels_dirty, None);
        assert!(r.warnings[0].contains("recording bbbbbbb2 as asked"), "{r:?}");
        // Not found on the runner: recorded as given.
        let r = reconcile(
            &GitState::unknown(RepoState::NoRefs),
            "k",
            &GitState::unknown(RepoState::NoRefs),
            None,
            Some(("ddddddd4", Err("not found".into()))),
        );
        assert_eq!(r.git.commit, "ddddddd4");
        assert!(r.warnings[0].contains("as given, dirty unknown: not found"), "{r:?}");
        // An abbreviation of the built commit, not found on the runner: the built commit, no warning.
        let built = at("aaaaaaa1ffff");
        let r = reconcile(&built, "k", &built, Some("k"), Some(("aaaaaaa1", Err("not found".into()))));
        assert_eq!(r.git.commit, "aaaaaaa1ffff");
        assert!(r.warnings.is_empty(), "{r:?}");
    }
}
