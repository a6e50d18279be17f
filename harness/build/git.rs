//! The git state of a working tree, or of the tree a binary was built from: plain data, read by
//! [`crate::provenance`] and recorded with every run, and the one hash that names a set of kernel
//! files. The library uses these types as its own (`kernelgate::model`).

/// What kind of repository the state was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepoState {
    /// HEAD is a branch with a commit.
    Branch,
    /// HEAD names a commit directly (`git checkout <id>`, CI checkouts).
    Detached,
    /// A shallow clone (`git clone --depth`): the commit is known, its ancestors may not be.
    Shallow,
    /// A repository whose HEAD names no commit: a copy without refs, or no commit yet.
    NoRefs,
    /// No repository at or above the folder.
    NoRepository,
}

impl RepoState {
    /// The name written to run CSVs and history: `branch`, `detached`, `shallow`, `no refs`,
    /// `no repository`.
    pub fn as_str(self) -> &'static str {
        match self {
            RepoState::Branch => "branch",
            RepoState::Detached => "detached",
            RepoState::Shallow => "shallow",
            RepoState::NoRefs => "no refs",
            RepoState::NoRepository => "no repository",
        }
    }

    /// The inverse of [`RepoState::as_str`].
    pub fn parse(s: &str) -> Option<RepoState> {
        [RepoState::Branch, RepoState::Detached, RepoState::Shallow, RepoState::NoRefs, RepoState::NoRepository]
            .into_iter()
            .find(|r| r.as_str() == s)
    }
}

/// The git state of a working tree, or of the tree a binary was built from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitState {
    /// Full hex id of the commit, or `unknown`.
    pub commit: String,
    /// A tracked file differs from the commit's tree (untracked files do not count, as in
    /// `git describe --dirty`); `None` when unknown.
    pub dirty: Option<bool>,
    /// A file under `kernels/` differs from the commit's, or is untracked (it is embedded all the
    /// same): the measured kernels are not the commit's. `None` when unknown.
    pub kernels_dirty: Option<bool>,
    /// The branch HEAD names (`main`); empty when detached or unknown.
    pub branch: String,
    /// The commit's committer time, Unix seconds.
    pub commit_time: Option<i64>,
    /// The first line of the commit's message.
    pub subject: String,
    /// What kind of repository this was read from.
    pub state: RepoState,
}

impl GitState {
    /// Commit `unknown`, nothing known, with `state`.
    pub fn unknown(state: RepoState) -> GitState {
        GitState {
            commit: "unknown".into(),
            dirty: None,
            kernels_dirty: None,
            branch: String::new(),
            commit_time: None,
            subject: String::new(),
            state,
        }
    }

    /// The first 7 characters of the commit id; `unknown` whole.
    pub fn short(&self) -> &str {
        if self.commit == "unknown" { &self.commit } else { &self.commit[..self.commit.len().min(7)] }
    }
}

/// SHA-256 (lowercase hex) over the kernel files: the lines `<file> <sha256 of its text>\n`, sorted
/// by file name. One hash names the whole `kernels/` folder, so the kernels a run read can be
/// compared with a commit's. `files` holds (file name, text).
pub fn kernels_sha256(files: &[(&str, &str)]) -> String {
    use sha2::{Digest, Sha256};
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let mut lines: Vec<String> =
        files.iter().map(|(f, text)| format!("{f} {}\n", hex(&Sha256::digest(text)))).collect();
    lines.sort();
    hex(&Sha256::digest(lines.concat()))
}

/// `folder` as the trees of the git repository whose top folder is `workdir` name it: relative,
/// `/`-separated (`kernels`, `src/cuda`; `""` for the top folder itself), both resolved through
/// symbolic links first where they exist; `None` when it lies outside the repository.
pub fn folder_in_repository(workdir: &std::path::Path, folder: &std::path::Path) -> Option<String> {
    let canonical = |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let full = canonical(folder);
    let relative = full.strip_prefix(canonical(workdir)).ok()?;
    Some(relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernels_hash_names_names_and_texts() {
        let a = kernels_sha256(&[("a.cu", "x"), ("b.cu", "y")]);
        assert_eq!(a, kernels_sha256(&[("b.cu", "y"), ("a.cu", "x")]), "order does not matter");
        assert_ne!(a, kernels_sha256(&[("a.cu", "x"), ("b.cu", "z")]));
        assert_ne!(a, kernels_sha256(&[("a.cu", "x"), ("c.cu", "y")]));
        assert_eq!(a.len(), 64);
    }
}
