//! The git state built into the project's test binary, and the state a run is recorded under.
//!
//! The project's build script (`kernelgate_build::Build::run`) reads the git state of the tree it
//! builds from ([`super::provenance::read`]) and writes it into the binary as a [`Build`], which
//! the test binary hands the library with its case table ([`crate::case::Table::build`]). The
//! kernels themselves are read from the kernel folders when a run starts (`crate::source`). At
//! run time [`reconcile`] decides what the run is keyed to: HEAD here when its commit holds the
//! binary's code; else the built commit; `KERNELGATE_COMMIT` when set (an override for binaries
//! built outside a repository); and it says, as warnings, where the tree it runs in differs.

use crate::model::{GitState, RepoState};

/// Where a test binary's code came from, as its build script saw it (written by
/// `kernelgate_build::Build::run` into `$OUT_DIR/kernelgate.rs` as the static `BUILD`, included
/// with [`crate::kernels!`]). Plain `'static` data so that a build script can write it as a
/// constant.
///
/// # Example
/// ```
/// let build = kernelgate::Build::UNKNOWN;
/// assert_eq!(build.git().commit, "unknown");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Build {
    /// Full hex id of the commit built from, or `unknown` ([`GitState::commit`]).
    pub commit: &'static str,
    /// A tracked file differed from the commit ([`GitState::dirty`]).
    pub dirty: Option<bool>,
    /// A kernel file differed from the commit's ([`GitState::kernels_dirty`]).
    pub kernels_dirty: Option<bool>,
    /// The branch HEAD named; empty when detached or unknown.
    pub branch: &'static str,
    /// The commit's committer time, Unix seconds.
    pub commit_time: Option<i64>,
    /// The first line of the commit's message.
    pub subject: &'static str,
    /// [`RepoState::as_str`] of the repository built in.
    pub state: &'static str,
    /// [`super::provenance::kernels_sha256`] of the built commit's kernels
    /// ([`super::provenance::kernels_at_head`]); `None` without a commit.
    pub commit_kernels_sha256: Option<&'static str>,
    /// The files and folders the binary was built from, relative to the project root
    /// (`kernelgate_build::Build::inputs`).
    pub inputs: &'static [&'static str],
    /// [`super::provenance::files_sha256`] of [`Build::inputs`] as they were on disk.
    pub inputs_sha256: &'static str,
}

impl Build {
    /// A binary built outside any repository: every run is keyed to commit `unknown` unless
    /// `KERNELGATE_COMMIT` names one.
    pub const UNKNOWN: Build = Build {
        commit: "unknown",
        dirty: None,
        kernels_dirty: None,
        branch: "",
        commit_time: None,
        subject: "",
        state: "no repository",
        commit_kernels_sha256: None,
        inputs: &[],
        inputs_sha256: "",
    };

    /// The built state as a [`GitState`] (an unknown state name reads as no repository).
    pub fn git(&self) -> GitState {
        GitState {
            commit: self.commit.into(),
            dirty: self.dirty,
            kernels_dirty: self.kernels_dirty,
            branch: self.branch.into(),
            commit_time: self.commit_time,
            subject: self.subject.into(),
            state: RepoState::parse(self.state).unwrap_or(RepoState::NoRepository),
        }
    }

    /// Whether HEAD's commit of the repository at `root` (the project root) holds exactly the files
    /// this binary was built from ([`super::provenance::inputs_at_head`] of [`Build::inputs`]
    /// against [`Build::inputs_sha256`]): [`reconcile`]'s `head_holds_inputs`. `false` without a
    /// repository or inputs.
    pub fn head_holds_inputs(&self, root: &std::path::Path) -> bool {
        !self.inputs.is_empty()
            && super::provenance::inputs_at_head(root, self.inputs)
                .is_some_and(|files| super::provenance::files_sha256(&files) == self.inputs_sha256)
    }

    /// The files this binary is built from ([`Build::inputs`]) whose copy here differs from HEAD's
    /// at the repository of `root`, each with how (`Cargo.lock (not committed)`, `src/lib.rs
    /// (edited)`, `tests/old.rs (deleted here)`), sorted by path: why [`Build::head_holds_inputs`]
    /// is `false` while the files here are the ones built. Empty without a repository or inputs.
    pub fn inputs_unlike_head(&self, root: &std::path::Path) -> Vec<String> {
        use std::collections::BTreeMap;
        let Some(head) = super::provenance::inputs_at_head(root, self.inputs) else { return Vec::new() };
        let head: BTreeMap<String, Vec<u8>> = head.into_iter().collect();
        let here: BTreeMap<String, Vec<u8>> =
            super::provenance::inputs_on_disk(root, self.inputs).into_iter().collect();
        let mut unlike: Vec<String> = here
            .iter()
            .filter_map(|(path, text)| match head.get(path) {
                None => Some(format!("{path} (not committed)")),
                Some(committed) if committed != text => Some(format!("{path} (edited)")),
                Some(_) => None,
            })
            .chain(head.keys().filter(|p| !here.contains_key(*p)).map(|p| format!("{p} (deleted here)")))
            .collect();
        unlike.sort();
        unlike
    }
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
/// - `built`: the binary's state ([`Build::git`]); `commit_kernels`: the hash of its commit's
///   kernels ([`Build::commit_kernels_sha256`]); `measured`: the hash of the kernels this run reads (`kernels/`
///   here, [`super::provenance::kernels_sha256`]).
/// - `here`: the working tree the run starts in ([`super::provenance::read`] of the project root),
///   whose dirty flags compare that tree (the measured kernels included) with HEAD.
/// - `head_holds_inputs`: HEAD's commit here holds exactly the files the binary was built from
///   ([`Build::head_holds_inputs`]): its code is that commit's, whatever commit the build script
///   saw.
/// - `given`: the state of `KERNELGATE_COMMIT`'s commit when set (its dirty flags compare this
///   tree with it), `Err` with libgit2's reason when it could not be looked up (the id is then
///   recorded as given, dirty unknown).
///
/// The run is keyed to `given` when set. Else, when HEAD here holds the binary's code, to `here`:
/// `build.rs` does not re-run on a commit (that would rebuild the crate after every commit), and a
/// kernel edit, which re-runs it for the kernel constants, leaves the commit a staged binary
/// carries as it was, so the built commit can be older than HEAD while the code and the kernels that run are HEAD's,
/// with the edits `here` reports as dirty. Else to `built`, its kernels dirty when `measured`
/// differs from `commit_kernels`: a binary copied elsewhere (a GPU runner's copy of the tree), or
/// run in a checkout at another commit (a copy whose HEAD is older than its files, seen on the
/// H200 runner), carries where its code came from. Warnings name: a `given` commit other than
/// the built one; a working tree at another commit than the binary's; a built state without a
/// commit (no repository, no refs) or from a shallow clone; measured kernels that differ from the
/// commit the run is keyed to, when that commit's tree is not here to say so.
pub fn reconcile(
    built: &GitState,
    commit_kernels: Option<&str>,
    measured: &str,
    here: &GitState,
    head_holds_inputs: bool,
    given: Option<(&str, Result<GitState, kernelgate_build::Error>)>,
) -> Recorded {
    if given.is_none() && head_holds_inputs && here.commit != "unknown" {
        let warnings = shallow_warning(here).into_iter().collect();
        return Recorded { git: here.clone(), warnings };
    }
    // The built commit, with the kernels this run reads compared with that commit's.
    let built_here = || {
        let kernels_dirty = commit_kernels.map(|c| c != measured);
        let dirty = if kernels_dirty == Some(true) { Some(true) } else { built.dirty };
        GitState { dirty, kernels_dirty, ..built.clone() }
    };
    let mut warnings = Vec::new();
    let git = match given {
        // An abbreviation of the built commit that this repository cannot resolve (a runner's copy
        // without the commit): the built commit is the one meant, in full.
        Some((id, Err(_))) if id.len() >= 7 && built.commit != "unknown" && built.commit.starts_with(id) => {
            built_here()
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
            } else {
                git.dirty = built.dirty.or(git.dirty);
            }
            git
        }
        None => built_here(),
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
    if git.commit == built.commit && git.kernels_dirty == Some(true) && here.commit != built.commit {
        warnings.push(format!(
            "the kernels this run reads (kernels/ here, {}) differ from commit {}'s: recorded as dirty",
            &measured[..measured.len().min(12)],
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `KERNELGATE_COMMIT` naming a commit the repository does not hold.
    fn not_found() -> kernelgate_build::Error {
        kernelgate_build::Error::new(kernelgate_build::ErrorKind::Revision, "not found")
    }

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
    fn the_inputs_unlike_head_are_named_with_how() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let write = |path: &str, text: &str| {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("Cargo.toml", "[package]\n");
        write("src/lib.rs", "pub fn f() {}\n");
        write("src/old.rs", "\n");
        let mut index = repo.index().unwrap();
        index.add_all(["*"], git2::IndexAddOption::DEFAULT, None).unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let me = git2::Signature::now("t", "t@t").unwrap();
        repo.commit(Some("HEAD"), &me, &me, "c", &tree, &[]).unwrap();
        let build = Build { inputs: &["Cargo.lock", "Cargo.toml", "src"], ..Build::UNKNOWN };
        assert!(build.inputs_unlike_head(dir.path()).is_empty(), "as committed");
        write("Cargo.lock", "# lock\n");
        write("src/lib.rs", "pub fn g() {}\n");
        std::fs::remove_file(dir.path().join("src/old.rs")).unwrap();
        assert_eq!(
            build.inputs_unlike_head(dir.path()),
            ["Cargo.lock (not committed)", "src/lib.rs (edited)", "src/old.rs (deleted here)"]
        );
        let elsewhere = tempfile::tempdir().unwrap();
        assert!(build.inputs_unlike_head(elsewhere.path()).is_empty(), "no repository");
    }

    #[test]
    fn the_built_commit_keys_the_run_and_a_tree_elsewhere_is_named() {
        // A runner's copy with a stale .git (HEAD at bbbbbbb2, not holding the code): the built
        // commit; the kernels read there are its commit's.
        let r = reconcile(&at("aaaaaaa1"), Some("k1"), "k1", &at("bbbbbbb2"), false, None);
        assert_eq!((r.git.commit.as_str(), r.git.kernels_dirty, r.git.dirty), ("aaaaaaa1", Some(false), Some(false)));
        assert_eq!(r.warnings.len(), 1, "{r:?}");
        assert!(r.warnings[0].contains("built from commit aaaaaaa, the working tree here is at bbbbbbb"));
        // The same copy with an edited kernel: dirty, and said.
        let r = reconcile(&at("aaaaaaa1"), Some("k1"), "k2", &at("bbbbbbb2"), false, None);
        assert_eq!((r.git.commit.as_str(), r.git.kernels_dirty, r.git.dirty), ("aaaaaaa1", Some(true), Some(true)));
        assert!(
            r.warnings
                .iter()
                .any(|w| w.contains("kernels this run reads (kernels/ here, k2) differ from commit aaaaaaa"))
        );
        // Built outside a commit: whether the kernels are dirty is unknown.
        let r = reconcile(&at("aaaaaaa1"), None, "k2", &GitState::unknown(RepoState::NoRefs), false, None);
        assert_eq!(r.git.kernels_dirty, None);
    }

    #[test]
    fn unknown_states_are_recorded_with_a_warning() {
        let r = reconcile(
            &GitState::unknown(RepoState::NoRepository),
            None,
            "k",
            &GitState::unknown(RepoState::NoRepository),
            false,
            None,
        );
        assert_eq!(r.git.commit, "unknown");
        assert_eq!(r.git.state, RepoState::NoRepository);
        assert!(r.warnings[0].contains("no repository") && r.warnings[0].contains("KERNELGATE_COMMIT"), "{r:?}");
        let shallow = GitState { state: RepoState::Shallow, ..at("ccccccc3") };
        let r = reconcile(&shallow, Some("k"), "k", &shallow, false, None);
        assert!(r.warnings[0].contains("shallow"), "{r:?}");
    }

    #[test]
    fn kernelgate_commit_overrides_and_says_so() {
        // Given the built commit: its kernels flag as read against the tree here.
        let edited = GitState { kernels_dirty: Some(true), ..at("aaaaaaa1") };
        let r = reconcile(
            &at("aaaaaaa1"),
            Some("k"),
            "k2",
            &GitState::unknown(RepoState::NoRefs),
            false,
            Some(("aaaaaaa1", Ok(edited))),
        );
        assert_eq!(r.git.kernels_dirty, Some(true));
        // Given another commit: recorded as asked, its flags as read here.
        let r =
            reconcile(&at("aaaaaaa1"), Some("k"), "k", &at("aaaaaaa1"), false, Some(("bbbbbbb2", Ok(at("bbbbbbb2")))));
        assert_eq!((r.git.commit.as_str(), r.git.kernels_dirty), ("bbbbbbb2", Some(false)));
        assert!(r.warnings[0].contains("recording bbbbbbb2 as asked"), "{r:?}");
        // Not found on the runner: recorded as given.
        let r = reconcile(
            &GitState::unknown(RepoState::NoRefs),
            None,
            "k",
            &GitState::unknown(RepoState::NoRefs),
            false,
            Some(("ddddddd4", Err(not_found()))),
        );
        assert_eq!(r.git.commit, "ddddddd4");
        assert!(r.warnings[0].contains("as given, dirty unknown: not found"), "{r:?}");
        // An abbreviation of the built commit, not found on the runner: the built commit, no warning.
        let built = at("aaaaaaa1ffff");
        let r = reconcile(&built, Some("k"), "k", &built, false, Some(("aaaaaaa1", Err(not_found()))));
        assert_eq!(r.git.commit, "aaaaaaa1ffff");
        assert!(r.warnings.is_empty(), "{r:?}");
    }

    #[test]
    fn where_head_holds_the_built_code_a_run_is_keyed_to_head_with_its_kernels_as_they_are() {
        // Built at A, then a commit B (of kernels or not): cargo does not rebuild, the run is B's.
        let r = reconcile(&at("aaaaaaa1"), Some("k1"), "k2", &at("bbbbbbb2"), true, None);
        assert_eq!(r.git.commit, "bbbbbbb2");
        assert!(r.warnings.is_empty(), "{r:?}");
        // Kernels edited after the build: no rebuild, HEAD, dirty as read here.
        let edited = GitState { dirty: Some(true), kernels_dirty: Some(true), ..at("bbbbbbb2") };
        let r = reconcile(&at("aaaaaaa1"), Some("k1"), "k3", &edited, true, None);
        assert_eq!((r.git.commit.as_str(), r.git.kernels_dirty), ("bbbbbbb2", Some(true)));
        assert!(r.warnings.is_empty(), "{r:?}");
        // A shallow checkout still says so.
        let shallow = GitState { state: RepoState::Shallow, ..at("ccccccc3") };
        let r = reconcile(&at("aaaaaaa1"), Some("k"), "k", &shallow, true, None);
        assert_eq!(r.git.commit, "ccccccc3");
        assert!(r.warnings[0].contains("shallow"), "{r:?}");
        // KERNELGATE_COMMIT still wins.
        let r =
            reconcile(&at("aaaaaaa1"), Some("k"), "k", &at("bbbbbbb2"), true, Some(("aaaaaaa1", Ok(at("aaaaaaa1")))));
        assert_eq!(r.git.commit, "aaaaaaa1");
    }
}
