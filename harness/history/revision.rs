//! The kernels of another git revision, for same-run A/B (`KERNELGATE_AB=<rev>`): the `*.cu` files
//! of the project's kernel folders read from the repository's objects (git2; the working tree is
//! not touched), and whether the files the test binary is built from (its case table among them,
//! [`crate::Build::inputs`]) differ there, which A/B cannot see.

use crate::project::Project;
use std::collections::BTreeMap;
use std::path::Path;

/// The kernel files of a project at one git revision.
#[derive(Debug, Clone, PartialEq)]
pub struct Revision {
    /// The revision as given (`HEAD`, `main`, a commit id).
    pub rev: String,
    /// The full commit id it names.
    pub commit: String,
    /// File name (`transpose.cu`) to its text at that commit.
    files: BTreeMap<String, String>,
}

impl Revision {
    /// Reads the `*.cu` files of `project`'s kernel folders at `rev` from the objects of the git
    /// repository at or above its root.
    ///
    /// # Errors
    /// A sentence naming the problem: no repository, a kernel folder outside it
    /// ([`Project::kernels_in`]), a revision that names no commit, none of the kernel folders at
    /// that commit, a file that is not UTF-8.
    pub fn read(project: &Project, rev: &str) -> Result<Revision, String> {
        let root = project.root.as_path();
        let repo = git2::Repository::discover(root).map_err(|e| {
            format!("KERNELGATE_AB needs a git repository at or above {}: {}", root.display(), e.message())
        })?;
        let commit = repo.revparse_single(rev).and_then(|o| o.peel_to_commit()).map_err(|e| {
            if repo.revparse_single(&format!("origin/{rev}")).is_ok() {
                return format!(
                    "{rev} is not a commit of {} ({}), but origin/{rev} is: name origin/{rev} (a clone has no local \
                     branch {rev} unless it was checked out)",
                    root.display(),
                    e.message()
                );
            }
            format!(
                "{rev} is not a commit of {}: {}; fetch it (`git fetch origin {rev}`), or name a commit whose \
                     objects this repository has (a shallow or ref-less copy lacks them)",
                root.display(),
                e.message()
            )
        })?;
        let tree = commit.tree().map_err(|e| e.message().to_string())?;
        let workdir = repo.workdir().unwrap_or(root);
        let mut files = BTreeMap::new();
        let mut found = false;
        for folder in project.kernels_in(workdir)? {
            let at = if folder.is_empty() {
                Ok(tree.clone())
            } else {
                tree.get_path(Path::new(&folder))
                    .and_then(|entry| entry.to_object(&repo))
                    .and_then(|o| o.peel_to_tree())
            };
            let Ok(kernels) = at else { continue };
            found = true;
            for entry in kernels.iter() {
                let Some(name) = entry.name().ok().filter(|n| crate::kernel_file::kind_of(n).is_some()) else {
                    continue;
                };
                let blob =
                    entry.to_object(&repo).and_then(|o| o.peel_to_blob()).map_err(|e| e.message().to_string())?;
                let shown = if folder.is_empty() { name.to_string() } else { format!("{folder}/{name}") };
                let text = crate::entry_scan::utf8_text(blob.content().to_vec(), &format!("{shown} at {rev}"))?;
                files.insert(name.to_string(), text);
            }
        }
        if !found {
            let folders: Vec<String> = project.kernels.iter().map(|f| format!("{}/", project.shown(f))).collect();
            return Err(format!("commit {} ({rev}) has no {} folder", commit.id(), folders.join(" or ")));
        }
        Ok(Revision { rev: rev.to_string(), commit: commit.id().to_string(), files })
    }

    /// The text of `file` at this revision, if it existed there.
    pub fn source(&self, file: &str) -> Option<&str> {
        self.files.get(file).map(String::as_str)
    }

    /// `main = 0123456789ab`: the revision as given and its commit, for messages; the commit alone
    /// (12 hex digits) when the revision was given as a commit id.
    pub fn label(&self) -> String {
        let short = &self.commit[..self.commit.len().min(12)];
        if self.rev.len() >= 4 && self.commit.starts_with(self.rev.as_str()) {
            short.to_string()
        } else {
            format!("{} = {short}", self.rev)
        }
    }

    /// A warning when any of `inputs` (the files and folders the test binary is built from,
    /// relative to the project root at `root`: [`crate::Build::inputs`], the case table among them)
    /// differs between this revision and `other` (a full or abbreviated commit id: the commit the
    /// binary was built from, or another revision), which the warning calls `what` (`the built
    /// commit`, `B at`): the run then judges both versions with this build's code and case
    /// definitions. `None` when they are the same, or `other` cannot be read (a warning elsewhere
    /// says so).
    pub fn cases_differ(&self, root: &Path, other: &str, what: &str, inputs: &[&str]) -> Option<String> {
        let repo = git2::Repository::discover(root).ok()?;
        let at = crate::model::folder_in_repository(repo.workdir()?, root)?;
        let mine = repo.find_commit(git2::Oid::from_str(&self.commit).ok()?).ok()?.tree().ok()?;
        let here = repo.revparse_single(other).ok()?.peel_to_commit().ok()?;
        let theirs = here.tree().ok()?;
        let id = |tree: &git2::Tree, input: &str| {
            let path = if at.is_empty() { input.to_string() } else { format!("{at}/{input}") };
            tree.get_path(Path::new(&path)).ok().map(|e| e.id())
        };
        let differ: Vec<&str> = inputs.iter().copied().filter(|i| id(&mine, i) != id(&theirs, i)).collect();
        (!differ.is_empty()).then(|| {
            format!(
                "{} differ{} between {} and {what} {}: A/B swaps the kernel files only, so both versions run with \
                 this build's code and case definitions (sizes, launches, references); a change there is outside \
                 what A/B can see",
                differ.join(", "),
                if differ.len() == 1 { "s" } else { "" },
                self.label(),
                &here.id().to_string()[..12]
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::history::tests::commit_files as commit;

    /// The project at `root` with every default (kernels/).
    fn at(root: &Path) -> Project {
        Project::new(root, None, crate::project::Settings::default(), &crate::config::Config::default())
    }

    /// A project in a subfolder of its repository (a monorepo) with two kernel folders: each is
    /// read at the revision as the repository's tree names it, and a folder the commit lacks is
    /// no error while another is there.
    #[test]
    fn several_kernel_folders_of_a_project_in_a_subfolder_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let id = commit(
            &repo,
            dir.path(),
            &[("gpu/kernels/a.cu", "a"), ("gpu/attention/b.cu", "b"), ("kernels/c.cu", "not this project's")],
            "one",
        );
        let settings = crate::project::Settings::parse(
            "kernels = [\"kernels\", \"attention\", \"later\"]",
            "kernelgate.toml".as_ref(),
        )
        .unwrap();
        let project = Project::new(&dir.path().join("gpu"), None, settings, &crate::config::Config::default());
        let r = Revision::read(&project, &id.to_string()).unwrap();
        assert_eq!((r.source("a.cu"), r.source("b.cu"), r.source("c.cu")), (Some("a"), Some("b"), None));
        let none = Project::new(
            &dir.path().join("gpu"),
            None,
            crate::project::Settings::parse("kernels = \"later\"", "t".as_ref()).unwrap(),
            &crate::config::Config::default(),
        );
        let e = Revision::read(&none, "HEAD").unwrap_err();
        assert!(e.ends_with("(HEAD) has no later/ folder"), "{e}");
    }

    #[test]
    fn a_revision_reads_kernels_from_git_objects() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let id = commit(
            &repo,
            dir.path(),
            &[("kernels/a.cu", "extern \"C\" __global__ void k() {}\n"), ("kernels/notes.txt", "not a kernel")],
            "one",
        );
        // The working tree moves on; the revision still reads the committed text.
        std::fs::write(dir.path().join("kernels/a.cu"), "changed").unwrap();
        let r = Revision::read(&at(dir.path()), "HEAD").unwrap();
        assert_eq!(r.commit, id.to_string());
        assert_eq!(r.source("a.cu"), Some("extern \"C\" __global__ void k() {}\n"));
        assert_eq!(r.source("notes.txt"), None, "only .cu files");
        assert_eq!(r.source("b.cu"), None);
        assert_eq!(r.label(), format!("HEAD = {}", &id.to_string()[..12]));
        // Given as a commit id, the commit is said once.
        let by_id = Revision::read(&at(dir.path()), &id.to_string()).unwrap();
        assert_eq!(by_id.label(), id.to_string()[..12]);
        let e = Revision::read(&at(dir.path()), "nope").unwrap_err();
        assert!(e.contains("nope is not a commit"), "{e}");
        // A clone without a local branch: the remote-tracking name is suggested.
        repo.reference("refs/remotes/origin/trunk", id, true, "test").unwrap();
        let e = Revision::read(&at(dir.path()), "trunk").unwrap_err();
        assert!(e.contains("but origin/trunk is: name origin/trunk"), "{e}");
        assert!(Revision::read(&at(dir.path()), "origin/trunk").is_ok());
        let outside = tempfile::tempdir().unwrap();
        assert!(Revision::read(&at(outside.path()), "HEAD").unwrap_err().contains("needs a git repository"));
    }

    #[test]
    fn a_changed_case_table_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let first = commit(&repo, dir.path(), &[("kernels/a.cu", "k"), ("tests/kernels.rs", "sizes 1")], "one");
        let kernels_only = commit(&repo, dir.path(), &[("kernels/a.cu", "k2")], "two");
        let cases = commit(&repo, dir.path(), &[("tests/kernels.rs", "sizes 2")], "three");
        let at_first = Revision::read(&at(dir.path()), &first.to_string()).unwrap();
        let inputs = ["build.rs", "src", "tests"];
        assert_eq!(
            at_first.cases_differ(dir.path(), &kernels_only.to_string(), "the built commit", &inputs),
            None,
            "kernels alone changed"
        );
        let warning = at_first.cases_differ(dir.path(), &cases.to_string(), "the built commit", &inputs).unwrap();
        assert!(warning.starts_with("tests differs between"), "{warning}");
        assert!(warning.contains("outside what A/B can see"), "{warning}");
    }
}
