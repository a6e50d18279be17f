//! Bisection to the first commit where a trial regressed (`kernelgate bisect GOOD BAD`): the
//! commits between two revisions, which of them changed `kernels/`, and the search over them.
//! Pure but for [`commits`], which reads git.
//!
//! Only a commit that changed `kernels/` can change what A/B times (it swaps kernel sources and
//! nothing else), so the search runs over those commits alone; the others are skipped without
//! timing and listed. Each step times a candidate's kernels against GOOD's in one process, in
//! pairs, as the pull-request gate does (`KERNELGATE_AB=GOOD KERNELGATE_AB_B=<candidate>`), and a
//! `regressed` verdict means the regression is in or before it. With `n` kernel commits a trial
//! needs at most `ceil(log2(n))` steps after the first (which times BAD itself).

use crate::project::Project;
use std::path::Path;

/// One commit between GOOD (excluded) and BAD (included), oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    /// The full commit id.
    pub id: String,
    /// The first line of its message.
    pub subject: String,
    /// Whether its `kernels/` tree differs from its first parent's.
    pub kernels_changed: bool,
}

/// The first-parent chain from `bad` back to `good` (excluded), oldest first, of the repository at
/// or above the root of `project`, each commit marked by whether it changed the project's kernel
/// folders ([`Project::kernels_in`]).
///
/// # Errors
/// [`crate::Error::Bisect`], a sentence: no repository, a kernel folder outside it, a revision that
/// names no commit, or `good` not an ancestor of `bad` along first parents; in a shallow clone, that
/// the history is cut and how to fetch it.
pub fn commits(project: &Project, good: &str, bad: &str) -> crate::Result<Vec<Commit>> {
    first_parent_commits(project, good, bad).map_err(crate::Error::Bisect)
}

/// [`commits`], its error a sentence.
fn first_parent_commits(project: &Project, good: &str, bad: &str) -> Result<Vec<Commit>, String> {
    let root = project.root.as_path();
    let repo = git2::Repository::discover(root)
        .map_err(|e| format!("bisect needs a git repository at or above {}: {}", root.display(), e.message()))?;
    // A CI checkout is shallow by default (`actions/checkout`'s fetch-depth 1): older commits are
    // missing, which no other message would say.
    let unshallow = "fetch the commits between GOOD and BAD first, `git fetch --unshallow` (or `git fetch \
                     --deepen=<n>`; in GitHub Actions, `actions/checkout` with `fetch-depth: 0`)";
    let shallow = repo.is_shallow();
    let commit = |rev: &str| {
        repo.revparse_single(rev).and_then(|o| o.peel_to_commit()).map_err(|e| {
            let hint = if shallow {
                format!("; this clone is shallow (its history was cut when it was cloned): {unshallow}")
            } else {
                String::new()
            };
            format!("{rev} is not a commit of {}: {}{hint}", root.display(), e.message())
        })
    };
    let (good_c, mut at) = (commit(good)?, commit(bad)?);
    let folders = project.kernels_in(repo.workdir().unwrap_or(root)).map_err(|e| e.to_string())?;
    // The tree ids of the kernel folders: equal where none of their files changed.
    let kernels = |c: &git2::Commit| -> Vec<Option<git2::Oid>> {
        let tree = c.tree().ok();
        folders
            .iter()
            .map(|f| match &tree {
                Some(t) if f.is_empty() => Some(t.id()),
                Some(t) => t.get_path(Path::new(f)).ok().map(|e| e.id()),
                None => None,
            })
            .collect()
    };
    let mut out = Vec::new();
    while at.id() != good_c.id() {
        let parent = at.parent(0).map_err(|_| {
            if shallow {
                return format!(
                    "the history from {bad} back to {good} ends at {}, where this shallow clone was cut when it \
                     was cloned: {unshallow}",
                    &at.id().to_string()[..12]
                );
            }
            let ancestor = repo.merge_base(good_c.id(), commit(bad).map(|c| c.id()).unwrap_or(good_c.id())).ok();
            if ancestor == Some(good_c.id()) {
                format!(
                    "{good} is an ancestor of {bad}, but on a merged branch: bisect walks first parents (the main \
                     line, as `git log --first-parent {bad}` lists it); name the merge commit that brought {good} \
                     in, or a main-line commit before it"
                )
            } else {
                format!("{good} is not an ancestor of {bad}; name the older, good commit first")
            }
        })?;
        out.push(Commit {
            id: at.id().to_string(),
            subject: at.summary().ok().flatten().unwrap_or("").to_string(),
            kernels_changed: kernels(&at) != kernels(&parent),
        });
        at = parent;
    }
    out.reverse();
    Ok(out)
}

/// One trial's search over the kernel commits (indices into the list of commits that changed
/// `kernels/`): the regression is after `good` (`None`: GOOD itself) and at or before `bad`.
#[derive(Debug, Clone, PartialEq)]
pub struct Search {
    /// The trial, `family/variant/size`.
    pub trial: String,
    /// The latest candidate known not to have regressed (`None`: GOOD).
    pub good: Option<usize>,
    /// The earliest candidate known to have regressed.
    pub bad: usize,
    /// What each timed candidate gave: (candidate index, verdict, delta percent when paired).
    pub steps: Vec<(usize, String, Option<f64>)>,
}

impl Search {
    /// A search over `n` kernel commits, of which the last (BAD's kernels) regressed.
    pub fn new(trial: &str, n: usize) -> Search {
        assert!(n > 0, "a regression needs a commit that changed kernels/");
        Search { trial: trial.to_string(), good: None, bad: n - 1, steps: Vec::new() }
    }

    /// The candidate to time next, or `None` once the first bad candidate is known.
    pub fn next(&self) -> Option<usize> {
        let lo = self.good.map_or(0, |g| g + 1);
        (lo < self.bad).then(|| lo + (self.bad - lo) / 2)
    }

    /// Records candidate `at`'s verdict: `regressed` moves the bad end, anything else (unchanged,
    /// improved, and verdicts that did not decide: ambiguous, invalid, identical) the good end.
    pub fn record(&mut self, at: usize, verdict: &str, delta_pct: Option<f64>) {
        if verdict == "regressed" {
            self.bad = at;
        } else {
            self.good = Some(at);
        }
        self.steps.push((at, verdict.to_string(), delta_pct));
    }
}

/// The commits that changed `kernels/` (the candidates), and the rest (skipped without timing).
pub fn split(commits: &[Commit]) -> (Vec<&Commit>, Vec<&Commit>) {
    commits.iter().partition(|c| c.kernels_changed)
}

/// Most steps a search over `n` candidates takes after the first: `ceil(log2(n))`.
pub fn max_steps(n: usize) -> u32 {
    n.max(1).next_power_of_two().trailing_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The project at `root` with every default (kernels/).
    fn project(root: &Path) -> Project {
        Project::new(root, None, crate::project::Settings::default(), &crate::config::Config::default())
    }

    /// 16 kernel commits, the regression at `first`: every search finds it in at most 4 steps.
    #[test]
    fn the_search_finds_the_first_bad_candidate_within_log2_steps() {
        for first in 0..16 {
            let mut s = Search::new("t/v/1", 16);
            let mut steps = 0;
            while let Some(at) = s.next() {
                s.record(at, if at >= first { "regressed" } else { "unchanged" }, None);
                steps += 1;
            }
            assert_eq!(s.bad, first, "regression at {first}");
            assert!(steps <= max_steps(16), "{steps} steps for {first}");
        }
        assert_eq!(max_steps(16), 4);
        assert_eq!(max_steps(5), 3);
        assert_eq!(max_steps(1), 0);
        let mut one = Search::new("t/v/1", 1);
        assert_eq!(one.next(), None, "one candidate: it is the first bad one");
        one.record(0, "regressed", Some(1.0));
        assert_eq!(one.bad, 0);
    }

    #[test]
    fn a_verdict_that_did_not_decide_counts_as_not_regressed() {
        let mut s = Search::new("t/v/1", 8);
        let at = s.next().unwrap();
        s.record(at, "ambiguous", None);
        assert_eq!(s.good, Some(at));
    }

    fn commit(repo: &git2::Repository, dir: &Path, path: &str, text: &str, message: &str) -> String {
        crate::history::tests::commit_files(repo, dir, &[(path, text)], message).to_string()
    }

    #[test]
    fn commits_between_two_revisions_say_which_changed_the_kernels() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let good = commit(&repo, dir.path(), "kernels/a.cu", "v1", "good");
        commit(&repo, dir.path(), "README.md", "docs", "docs only");
        let k = commit(&repo, dir.path(), "kernels/a.cu", "v2", "kernel change");
        let bad = commit(&repo, dir.path(), "harness/x.rs", "code", "harness only");
        let list = commits(&project(dir.path()), &good, &bad).unwrap();
        let shape: Vec<(&str, bool)> = list.iter().map(|c| (c.subject.as_str(), c.kernels_changed)).collect();
        assert_eq!(shape, [("docs only", false), ("kernel change", true), ("harness only", false)]);
        let (candidates, skipped) = split(&list);
        assert_eq!((candidates.len(), skipped.len(), candidates[0].id.as_str()), (1, 2, k.as_str()));
        let e = commits(&project(dir.path()), &bad, &good).unwrap_err().to_string();
        assert!(e.contains("is not an ancestor"), "{e}");
        // A good commit on a merged branch is an ancestor, but not on the first-parent line.
        let g = git2::Signature::now("t", "t@example.com").unwrap();
        let base = repo.find_commit(git2::Oid::from_str(&bad).unwrap()).unwrap();
        let side = repo.commit(None, &g, &g, "side", &base.tree().unwrap(), &[&base]).unwrap();
        let side = repo.find_commit(side).unwrap();
        let merge = repo.commit(Some("HEAD"), &g, &g, "merge", &base.tree().unwrap(), &[&base, &side]).unwrap();
        let e = commits(&project(dir.path()), &side.id().to_string(), &merge.to_string()).unwrap_err().to_string();
        assert!(e.contains("on a merged branch") && e.contains("--first-parent"), "{e}");
    }
}
