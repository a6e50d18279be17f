//! Provenance: the commit the measured code came from.
//!
//! A test binary is built from the library's code (`build.rs` records its commit) and reads the
//! kernels from `kernels/` when it runs, maybe much later in another checkout: on a GPU runner that
//! received a copy of the working tree without refs, or with a stale `.git`. Reading the commit
//! from the current directory at run time then keys the run to the wrong code (seen on the H200: a
//! binary built from modified code recorded `commit f56ee3e, dirty false`). So the build records
//! the git state ([`read`], called by `build.rs`, which includes this file), the binary carries it
//! (the `Build` value it writes, which the user's test binary hands the library), and at run time
//! the library (`kernelgate::history::built::reconcile`) keys the run to the built state and warns
//! when the working tree it runs in differs.
//!
//! Every repository shape is recorded as such ([`RepoState`]), never a crash: no repository, a
//! repository with no refs (HEAD names a branch that does not exist: the runner's copy, or a
//! repository before its first commit), a detached HEAD, a shallow clone.
//!
//! It runs in two places: in the user's `build.rs` ([`crate::Build`]), and in the library at run
//! time (`kernelgate::history::provenance`), so it uses only `std`, `git2`, `sha2` and
//! [`crate::git`]'s types.

use crate::git::{GitState, RepoState};
use crate::{Error, ErrorKind};
use std::path::Path;

/// Opens the repository containing `dir`. A working tree owned by another user (as on a GPU runner
/// that received a copy of it) is read anyway: libgit2's owner check (git's `safe.directory`)
/// guards against running a stranger's configured commands, and kernelgate only reads objects and
/// file contents, running nothing.
fn open(dir: &Path) -> Result<git2::Repository, git2::Error> {
    match git2::Repository::discover(dir) {
        Err(e) if e.code() == git2::ErrorCode::Owner => {
            // SAFETY: this changes a process-wide libgit2 option; kernelgate opens repositories
            // only to read them.
            #[allow(unsafe_code)]
            unsafe {
                git2::opts::set_verify_owner_validation(false)?;
            }
            git2::Repository::discover(dir)
        }
        other => other,
    }
}

/// Reads the git state of the repository containing `dir`: HEAD, or the commit `rev` names when
/// given (`KERNELGATE_COMMIT`: for checkouts that carry git objects but no refs). Dirty flags are
/// computed against the commit's tree and the files on disk, so no index file is needed;
/// `kernels_dirty` over the `*.cu` files of the folders `kernels` (the project's kernel folders,
/// those inside the repository).
///
/// # Errors
/// [`ErrorKind::Revision`], only when `rev` is given and is not a commit of the repository (with
/// libgit2's message) or there is no repository to read it in. Without
/// `rev`, every failure is a [`RepoState`]: [`RepoState::NoRepository`], or
/// [`RepoState::NoRefs`] when HEAD names no commit.
pub fn read(dir: &Path, rev: Option<&str>, kernels: &[std::path::PathBuf]) -> Result<GitState, Error> {
    let revision = |message: String| Error::new(ErrorKind::Revision, message);
    let Ok(repo) = open(dir) else {
        return match rev {
            Some(rev) => {
                Err(revision(format!("KERNELGATE_COMMIT={rev}: no git repository at or above {}", dir.display())))
            }
            None => Ok(GitState::unknown(RepoState::NoRepository)),
        };
    };
    let commit = match rev {
        Some(rev) => repo.revparse_single(rev).and_then(|o| o.peel_to_commit()).map_err(|e| {
            revision(format!("KERNELGATE_COMMIT={rev} is not a commit of this repository: {}", e.message()))
        })?,
        None => match repo.head().and_then(|h| h.peel_to_commit()) {
            Ok(c) => c,
            Err(_) => return Ok(GitState::unknown(RepoState::NoRefs)),
        },
    };
    let state = if repo.is_shallow() {
        RepoState::Shallow
    } else if repo.head_detached().unwrap_or(false) {
        RepoState::Detached
    } else {
        match repo.head() {
            Ok(h) if h.is_branch() => RepoState::Branch,
            Ok(_) => RepoState::Detached,
            Err(_) => RepoState::NoRefs,
        }
    };
    let branch = match repo.head() {
        Ok(h) if h.is_branch() => h.shorthand().unwrap_or_default().to_string(),
        _ => String::new(),
    };
    let differs = |pathspecs: Option<&[String]>, untracked: bool| {
        let mut opts = git2::DiffOptions::new();
        opts.include_untracked(untracked).recurse_untracked_dirs(untracked).include_ignored(false);
        if let Some(specs) = pathspecs {
            if specs.is_empty() {
                return Some(false);
            }
            for p in specs {
                opts.pathspec(p);
            }
        }
        let tree = commit.tree().ok()?;
        repo.diff_tree_to_workdir(Some(&tree), Some(&mut opts)).ok().map(|d| d.deltas().len() > 0)
    };
    let specs: Vec<String> = repo
        .workdir()
        .map(|top| {
            folders_in(top, kernels)
                .into_iter()
                .flat_map(|f| {
                    crate::kernel_file::EXTENSIONS
                        .iter()
                        .map(move |(e, _)| if f.is_empty() { format!("*.{e}") } else { format!("{f}/*.{e}") })
                })
                .collect()
        })
        .unwrap_or_default();
    let workdir = repo.workdir().is_some();
    Ok(GitState {
        commit: commit.id().to_string(),
        dirty: if workdir { differs(None, false) } else { None },
        kernels_dirty: if workdir { differs(Some(&specs), true) } else { None },
        branch,
        commit_time: Some(commit.time().seconds()),
        subject: commit.summary().ok().flatten().unwrap_or_default().to_string(),
        state,
    })
}

/// The folders of `kernels` that lie in the repository whose top folder is `workdir`, as its trees
/// name them (`/`-separated, `""` for the top folder); folders outside it are left out.
fn folders_in(workdir: &Path, kernels: &[std::path::PathBuf]) -> Vec<String> {
    kernels.iter().filter_map(|k| crate::git::folder_in_repository(workdir, k)).collect()
}

/// What a binary is built from by default, relative to the project root (the folder holding the
/// package's `Cargo.toml`): the files whose edit rebuilds the user's test binary. Not the kernel
/// folders: a run reads the kernels when it starts, and compares them with the built commit's
/// ([`kernels_at_head`]) (they are watched apart, for the kernel constants, [`crate::Build::run`]).
/// A project whose cases live elsewhere names its own list ([`crate::Build::inputs`]).
pub const BUILD_INPUTS: [&str; 6] = ["build.rs", "Cargo.lock", "Cargo.toml", "kernelgate.toml", "src", "tests"];

/// SHA-256 (lowercase hex) over files given as (path relative to the project root with `/`
/// separators, content): the lines `<path> <sha256 of the content>\n`, sorted. Equal for the same
/// files whether read from disk ([`inputs_on_disk`]) or from a commit ([`inputs_at_head`]).
pub fn files_sha256(files: &[(String, Vec<u8>)]) -> String {
    use sha2::{Digest, Sha256};
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let mut lines: Vec<String> =
        files.iter().map(|(path, content)| format!("{path} {}\n", hex(&Sha256::digest(content)))).collect();
    lines.sort();
    hex(&Sha256::digest(lines.concat()))
}

/// Every file below `inputs` (paths relative to `root`, e.g. [`BUILD_INPUTS`]) under `root` as it
/// is on disk (untracked files included: they are what the compiler reads), for [`files_sha256`];
/// files that cannot be read are left out.
pub fn inputs_on_disk(root: &Path, inputs: &[&str]) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, path: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        if path.is_dir() {
            for entry in std::fs::read_dir(path).into_iter().flatten().flatten() {
                walk(root, &entry.path(), out);
            }
        } else if let (Ok(content), Ok(relative)) = (std::fs::read(path), path.strip_prefix(root)) {
            let parts: Vec<String> =
                relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            out.push((parts.join("/"), content));
        }
    }
    let mut out = Vec::new();
    for input in inputs {
        walk(root, &root.join(input), &mut out);
    }
    out
}

/// Every file below `inputs` (relative to `root`) as HEAD's commit of the repository containing
/// `root` holds it, named relative to `root` as [`inputs_on_disk`] names them, for
/// [`files_sha256`]; `None` without a repository, a HEAD commit, or when `root` lies outside the
/// repository's working tree.
pub fn inputs_at_head(root: &Path, inputs: &[&str]) -> Option<Vec<(String, Vec<u8>)>> {
    let repo = open(root).ok()?;
    let at = crate::git::folder_in_repository(repo.workdir()?, root)?;
    let prefix = if at.is_empty() { String::new() } else { format!("{at}/") };
    let tree = repo.head().ok()?.peel_to_commit().ok()?.tree().ok()?;
    let mut out = Vec::new();
    let inside = |path: &str| inputs.iter().any(|i| path == *i || path.starts_with(&format!("{i}/")));
    tree.walk(git2::TreeWalkMode::PreOrder, |folder, entry| {
        let path = format!("{folder}{}", entry.name().unwrap_or_default());
        if entry.kind() == Some(git2::ObjectType::Blob)
            && let Some(relative) = path.strip_prefix(&prefix)
            && inside(relative)
            && let Ok(blob) = repo.find_blob(entry.id())
        {
            out.push((relative.to_string(), blob.content().to_vec()));
        }
        git2::TreeWalkResult::Ok
    })
    .ok()?;
    Some(out)
}

/// [`kernels_sha256`] of the `*.cu` files of the folders `kernels` (the project's kernel folders)
/// in HEAD's commit of the repository containing `dir`, `None` without a repository, a HEAD
/// commit or any of the folders in it: what `build.rs` records as the built commit's kernels.
pub fn kernels_at_head(dir: &Path, kernels: &[std::path::PathBuf]) -> Option<String> {
    let repo = open(dir).ok()?;
    let tree = repo.head().ok()?.peel_to_commit().ok()?.tree().ok()?;
    let mut files = Vec::new();
    let mut found = false;
    for folder in folders_in(repo.workdir()?, kernels) {
        let at = if folder.is_empty() {
            Some(tree.clone())
        } else {
            tree.get_path(Path::new(&folder))
                .ok()
                .and_then(|e| e.to_object(&repo).ok())
                .and_then(|o| o.peel_to_tree().ok())
        };
        let Some(at) = at else { continue };
        found = true;
        for entry in at.iter() {
            let name = entry.name().unwrap_or_default().to_string();
            if crate::kernel_file::kind_of(&name).is_some()
                && entry.kind() == Some(git2::ObjectType::Blob)
                && let Ok(blob) = repo.find_blob(entry.id())
            {
                // Hashed as the run hashes the files it read (kernel_file::kernel_text): a binary
                // module as the hexadecimal of its bytes.
                let text = match crate::kernel_file::is_binary(&name) {
                    true => crate::cubin::to_text(blob.content()),
                    false => String::from_utf8_lossy(blob.content()).into_owned(),
                };
                files.push((name, text));
            }
        }
    }
    if !found {
        return None;
    }
    let refs: Vec<(&str, &str)> = files.iter().map(|(f, t)| (f.as_str(), t.as_str())).collect();
    Some(kernels_sha256(&refs))
}

/// One hash over the kernel files ([`crate::git::kernels_sha256`], where it lives so that the
/// kernels a run reads are hashed without this stage).
pub use crate::git::kernels_sha256;

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// A repository in a temp folder with one commit holding `kernels/a.cu`.
    fn repo_with_commit() -> (tempfile::TempDir, git2::Repository, git2::Oid) {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        fs::create_dir(dir.path().join("kernels")).unwrap();
        fs::write(dir.path().join("kernels/a.cu"), "one").unwrap();
        fs::write(dir.path().join("README"), "r").unwrap();
        let mut index = repo.index().unwrap();
        index.add_path(Path::new("kernels/a.cu")).unwrap();
        index.add_path(Path::new("README")).unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let sig = git2::Signature::new("t", "t@t", &git2::Time::new(1_700_000_000, 0)).unwrap();
        let id = repo.commit(Some("HEAD"), &sig, &sig, "first, with a comma\n\nbody", &tree, &[]).unwrap();
        drop(tree);
        (dir, repo, id)
    }

    #[test]
    fn clean_and_dirty_trees() {
        let (dir, _repo, id) = repo_with_commit();
        let s = read(dir.path(), None, &[dir.path().join("kernels")]).unwrap();
        assert_eq!(s.commit, id.to_string());
        assert_eq!((s.dirty, s.kernels_dirty), (Some(false), Some(false)));
        assert_eq!(s.state, RepoState::Branch);
        assert!(s.branch == "master" || s.branch == "main", "{s:?}");
        assert_eq!((s.commit_time, s.subject.as_str()), (Some(1_700_000_000), "first, with a comma"));
        // An edited file outside kernels/: dirty, kernels clean.
        fs::write(dir.path().join("README"), "edited").unwrap();
        let s = read(dir.path(), None, &[dir.path().join("kernels")]).unwrap();
        assert_eq!((s.dirty, s.kernels_dirty), (Some(true), Some(false)));
        // An untracked kernel is embedded all the same: the kernels are dirty, the tree is not.
        fs::write(dir.path().join("README"), "r").unwrap();
        fs::write(dir.path().join("kernels/new.cu"), "two").unwrap();
        let s = read(dir.path(), None, &[dir.path().join("kernels")]).unwrap();
        assert_eq!((s.dirty, s.kernels_dirty), (Some(false), Some(true)));
        // An edited kernel: both.
        fs::remove_file(dir.path().join("kernels/new.cu")).unwrap();
        fs::write(dir.path().join("kernels/a.cu"), "edited").unwrap();
        let s = read(dir.path(), None, &[dir.path().join("kernels")]).unwrap();
        assert_eq!((s.dirty, s.kernels_dirty), (Some(true), Some(true)));
        // The kernels are those of the folders named: another folder's edit is not theirs, and a
        // folder outside the repository has no dirty flag of its own.
        fs::create_dir(dir.path().join("cuda")).unwrap();
        let s = read(dir.path(), None, &[dir.path().join("cuda")]).unwrap();
        assert_eq!((s.dirty, s.kernels_dirty), (Some(true), Some(false)));
        fs::write(dir.path().join("cuda/b.cu"), "new").unwrap();
        let s = read(dir.path(), None, &[dir.path().join("cuda")]).unwrap();
        assert_eq!(s.kernels_dirty, Some(true));
        let outside = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path(), None, &[outside.path().to_path_buf()]).unwrap().kernels_dirty, Some(false));
        assert_eq!(kernels_at_head(dir.path(), &[outside.path().to_path_buf()]), None);
    }

    #[test]
    fn detached_shallow_no_refs_and_no_repository() {
        let (dir, repo, id) = repo_with_commit();
        repo.set_head_detached(id).unwrap();
        let s = read(dir.path(), None, &[dir.path().join("kernels")]).unwrap();
        assert_eq!((s.state, s.branch.as_str(), s.commit.clone()), (RepoState::Detached, "", id.to_string()));
        // git marks a shallow clone with `.git/shallow`, listing its boundary commits.
        fs::write(repo.path().join("shallow"), format!("{id}\n")).unwrap();
        assert_eq!(read(dir.path(), None, &[dir.path().join("kernels")]).unwrap().state, RepoState::Shallow);

        // A copy with objects but no refs (the GPU runner's): HEAD names a branch that does not exist.
        let (dir, repo, id) = repo_with_commit();
        repo.set_head("refs/heads/gone").unwrap();
        let s = read(dir.path(), None, &[dir.path().join("kernels")]).unwrap();
        assert_eq!((s.commit.as_str(), s.state), ("unknown", RepoState::NoRefs));
        // KERNELGATE_COMMIT finds the commit by id.
        let s = read(dir.path(), Some(&id.to_string()), &[dir.path().join("kernels")]).unwrap();
        assert_eq!(s.commit, id.to_string());
        assert_eq!(s.kernels_dirty, Some(false));
        let err = read(dir.path(), Some("0123456789012345678901234567890123456789"), &[dir.path().join("kernels")])
            .unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Revision);
        assert!(err.message().contains("KERNELGATE_COMMIT=0123") && err.message().contains("not a commit"), "{err}");

        let empty = tempfile::tempdir().unwrap();
        let s = read(empty.path(), None, &[empty.path().join("kernels")]).unwrap();
        assert_eq!((s.commit.as_str(), s.state), ("unknown", RepoState::NoRepository));
        assert!(
            read(empty.path(), Some("HEAD"), &[empty.path().join("kernels")])
                .unwrap_err()
                .message()
                .contains("no git repository")
        );
    }

    #[test]
    fn the_build_inputs_on_disk_match_head_only_when_committed() {
        let (dir, repo, _) = repo_with_commit();
        let at_head = || files_sha256(&inputs_at_head(dir.path(), &BUILD_INPUTS).unwrap());
        let on_disk = || files_sha256(&inputs_on_disk(dir.path(), &BUILD_INPUTS));
        assert_eq!(at_head(), on_disk(), "nothing built is committed yet");
        fs::write(dir.path().join("README"), "edited").unwrap();
        fs::write(dir.path().join("kernels/a.cu"), "edited").unwrap();
        assert_eq!(at_head(), on_disk(), "neither the README nor a kernel is built in");
        fs::create_dir(dir.path().join("src")).unwrap();
        fs::write(dir.path().join("src/lib.rs"), "// new").unwrap();
        assert_ne!(at_head(), on_disk(), "an untracked source is built");
        let mut index = repo.index().unwrap();
        index.add_path(Path::new("src/lib.rs")).unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let sig = git2::Signature::new("t", "t@t", &git2::Time::new(1_700_000_100, 0)).unwrap();
        let parent = repo.head().unwrap().peel_to_commit().unwrap();
        repo.commit(Some("HEAD"), &sig, &sig, "second", &tree, &[&parent]).unwrap();
        assert_eq!(at_head(), on_disk(), "committed: HEAD holds what is built");
        assert!(inputs_at_head(tempfile::tempdir().unwrap().path(), &BUILD_INPUTS).is_none(), "no repository");
    }

    #[test]
    fn the_kernels_at_head_are_the_committed_ones() {
        let (dir, _repo, _) = repo_with_commit();
        let committed = kernels_sha256(&[("a.cu", "one")]);
        assert_eq!(kernels_at_head(dir.path(), &[dir.path().join("kernels")]).as_deref(), Some(committed.as_str()));
        fs::write(dir.path().join("kernels/a.cu"), "edited").unwrap();
        fs::write(dir.path().join("kernels/b.cu"), "new").unwrap();
        assert_eq!(
            kernels_at_head(dir.path(), &[dir.path().join("kernels")]).as_deref(),
            Some(committed.as_str()),
            "the tree is not read"
        );
        assert_eq!(kernels_at_head(tempfile::tempdir().unwrap().path(), &[]), None, "no repository");
    }

    /// A committed binary module is hashed as the run hashes it, the hexadecimal of its bytes, so
    /// that a run of the committed tree is not told its kernels were edited (a new user's report).
    #[test]
    fn a_binary_module_at_head_is_hashed_as_the_run_reads_it() {
        let (dir, repo, _) = repo_with_commit();
        let image = [0x7f, b'E', b'L', b'F', 0xff, 0xfe, 0x00, 0x80];
        fs::write(dir.path().join("kernels/k.cubin"), image).unwrap();
        let mut index = repo.index().unwrap();
        index.add_path(Path::new("kernels/k.cubin")).unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let sig = git2::Signature::new("t", "t@t", &git2::Time::new(1_700_000_100, 0)).unwrap();
        let parent = repo.head().unwrap().peel_to_commit().unwrap();
        repo.commit(Some("HEAD"), &sig, &sig, "a cubin", &tree, &[&parent]).unwrap();
        let hex = crate::cubin::to_text(&image);
        let run_side = kernels_sha256(&[("a.cu", "one"), ("k.cubin", &hex)]);
        assert_eq!(kernels_at_head(dir.path(), &[dir.path().join("kernels")]), Some(run_side));
    }

    #[test]
    fn state_names_round_trip() {
        for s in ["branch", "detached", "shallow", "no refs", "no repository"] {
            assert_eq!(RepoState::parse(s).unwrap().as_str(), s);
        }
    }
}
