//! `kernelgate history sync`: the history that travels in git notes, brought into the local
//! history stores, so that a fresh clone of a repository whose notes hold runs has their history.
//!
//! 1. With a remote, the notes are fetched and merged as docs/history.md tells users to merge them, by
//!    the git program (kernelgate's libgit2 is built without network transports):
//!
//!    ```text
//!    git fetch REMOTE +refs/notes/kernelgate:refs/notes/kernelgate-REMOTE
//!    git notes --ref=kernelgate merge -s cat_sort_uniq refs/notes/kernelgate-REMOTE
//!    ```
//!
//!    `cat_sort_uniq` (git-notes(1)) keeps every line of both sides, so no runner's rows are lost.
//! 2. Every run in the notes ([`super::notes::read_all`]) is appended to the store of its GPU key,
//!    one transaction per key ([`HistoryStore::append_each`]). Lines kernelgate cannot use are
//!    skipped and named, and a run that disagrees with its stored copy is left out and named: no
//!    note written by another runner or by hand keeps the other runs out. Syncing again adds
//!    nothing.

use super::store::{self, HistoryStore};
use super::{NOTES_REF, Run, notes};
use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// What [`sync`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Synced {
    /// What fetching did, one sentence (`None` without a remote).
    pub fetched: Option<String>,
    /// Runs found in the notes.
    pub runs: usize,
    /// Values the stores did not have yet.
    pub new_rows: usize,
    /// Sentences on the note lines skipped ([`notes::summarized`]: a few per note, a count for the
    /// rest) and one per run left out, naming commit and line or run.
    pub warnings: Vec<String>,
}

impl std::fmt::Display for Synced {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = |n: usize| if n == 1 { "" } else { "s" };
        write!(f, "{} run{} in the notes, {} new row{}", self.runs, s(self.runs), self.new_rows, s(self.new_rows))
    }
}

/// The local ref the notes of `remote` are fetched to: `refs/notes/kernelgate-<remote>` for a
/// remote's name (letters, digits, `.`, `_`, `-`), `refs/notes/kernelgate-remote` for a URL or path.
pub fn fetched_ref(remote: &str) -> String {
    let plain = !remote.is_empty()
        && !remote.starts_with(['.', '-'])
        && remote.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    format!("{NOTES_REF}-{}", if plain { remote } else { "remote" })
}

/// Fetches `remote`'s [`NOTES_REF`] and merges it into ours with git's `cat_sort_uniq` (see the
/// module docs), under the notes writers' lock. A remote without notes yet is not an error.
/// Returns what was done, as a sentence.
///
/// # Errors
/// [`Error::Notes`] naming the remote when the git program is missing or one of its commands
/// fails (with git's own words and the fix).
pub fn fetch(repo: &git2::Repository, remote: &str) -> Result<String> {
    let dir = repo.workdir().unwrap_or_else(|| repo.path()).to_path_buf();
    let fail = |message: String| Error::Notes { commit: format!("{NOTES_REF} of {remote}"), line: None, message };
    // git would read it as an option (`--upload-pack=<command>` runs a command): a remote's name,
    // URL or path never begins with '-' (git-fetch(1), "GIT URLS").
    if remote.starts_with('-') || remote.is_empty() || remote.chars().any(char::is_control) {
        return Err(fail(format!(
            "{} is not a remote: name one from `git remote -v`, a URL or a path (a path that begins with '-' is \
             written ./-name)",
            crate::console::shown(&format!("{remote:?}"))
        )));
    }
    // A merge that is not a fast-forward commits: with no identity configured (a CI runner), it is
    // signed as kernelgate's own notes commits are signed (`notes::write_run`).
    let has_identity = Command::new("git")
        .arg("-C")
        .arg(&dir)
        .args(["config", "user.email"])
        .output()
        .is_ok_and(|o| o.status.success());
    let git = |args: &[&str]| -> Result<String> {
        let mut cmd = Command::new("git");
        cmd.arg("-C").arg(&dir);
        if !has_identity {
            cmd.args(["-c", "user.name=kernelgate", "-c", "user.email=kernelgate@localhost"]);
        }
        let out = cmd.args(args).output().map_err(|e| {
            fail(format!(
                "the git program could not be run ({e}); install git, or merge the notes by hand (docs/history.md)"
            ))
        })?;
        if !out.status.success() {
            return Err(fail(format!(
                "`git {}` failed: {}; check the remote's name and access (`git remote -v`), then sync again",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    // `--` ends the options: every operand after it is an operand (gitcli(7)).
    if git(&["ls-remote", "--", remote, NOTES_REF])?.trim().is_empty() {
        return Ok(format!("{remote} has no {NOTES_REF} yet; nothing fetched"));
    }
    let theirs = fetched_ref(remote);
    git(&["fetch", "--quiet", "--", remote, &format!("+{NOTES_REF}:{theirs}")])?;
    notes::with_lock(repo, || git(&["notes", "--ref=kernelgate", "merge", "-s", "cat_sort_uniq", "--", &theirs]))?;
    Ok(format!("fetched {remote}'s {NOTES_REF} into {theirs} and merged it (cat_sort_uniq)"))
}

/// Appends every run in `repo`'s notes to the history stores in `history_dir` (see the module
/// docs), after fetching `remote`'s notes when one is given ([`fetch`]). `baselines` as
/// [`HistoryStore::open`] takes it.
///
/// # Errors
/// Those of [`fetch`] and [`notes::read_all`]; [`Error::History`] when a store cannot be opened
/// (damaged, another program's) or SQLite fails. A run that cannot be appended is a warning.
pub fn sync(repo: &git2::Repository, history_dir: &Path, remote: Option<&str>, baselines: &Path) -> Result<Synced> {
    let mut out = Synced { fetched: remote.map(|r| fetch(repo, r)).transpose()?, ..Synced::default() };
    let read = notes::read_all(repo)?;
    out.warnings.extend(notes::summarized(&read.skipped));
    let mut by_key: BTreeMap<String, Vec<Run>> = BTreeMap::new();
    for run in read.runs {
        match store::store_path(history_dir, &run.meta.gpu_key) {
            Ok(_) => by_key.entry(run.meta.gpu_key.clone()).or_default().push(run),
            Err(e) => {
                out.warnings.push(format!("git note of {}: run {} left out: {e}", run.meta.commit, run.meta.run_id))
            }
        }
    }
    for (key, runs) in by_key {
        let mut store = HistoryStore::open(history_dir, &key, baselines)?;
        let (new, refused) = store.append_each(&runs)?;
        out.runs += runs.len() - refused.len();
        out.new_rows += new;
        for (i, why) in refused {
            out.warnings.push(format!(
                "git note of {}: run {} on {} left out: {why}",
                runs[i].meta.commit, runs[i].meta.run_id, runs[i].meta.gpu_uuid
            ));
        }
    }
    Ok(out)
}
