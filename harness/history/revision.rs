//! The kernels of another git revision, for same-run A/B (`KERNELGATE_AB=<rev>`): the kernel files
//! (`*.cu`, `*.ptx`) of the project's kernel folders and the NVRTC options its `kernelgate.toml`
//! gives them there, read from the repository's objects (git2; the working tree is not touched),
//! and whether the files the test binary is built from (its case table among them,
//! [`crate::Build::inputs`]) differ there, which A/B cannot see.

use crate::project::Project;
use crate::report::events::{Event, Reporter};
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
    /// File name to the project's NVRTC options for it at that commit: its `kernelgate.toml`'s
    /// `[nvrtc]` ([`Project::nvrtc_options`]), leaked as [`crate::source::KernelSource::options`]
    /// are (a process reads a revision once). No entry for a file without options.
    options: BTreeMap<String, &'static [&'static str]>,
}

impl Revision {
    /// Reads the kernel files of `project`'s kernel folders at `rev` from the objects of the git
    /// repository at or above its root, with the NVRTC options of the project's `kernelgate.toml`
    /// at `rev` ([`Revision::options`]).
    ///
    /// # Errors
    /// [`crate::Error::Revision`], a sentence naming the problem: no repository, a kernel folder
    /// outside it ([`Project::kernels_in`]), a revision that names no commit, none of the kernel
    /// folders at that commit, a file that is not UTF-8, a `kernelgate.toml` there that does not
    /// parse, a build command that fails.
    pub fn read(project: &Project, rev: &str, reporter: &dyn Reporter) -> crate::Result<Revision> {
        Revision::read_at(project, rev, reporter)
            .map_err(|message| crate::Error::Revision { rev: rev.to_string(), message })
    }

    /// [`Revision::read`], its error a sentence.
    fn read_at(project: &Project, rev: &str, reporter: &dyn Reporter) -> Result<Revision, String> {
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
        if let Some(command) = &project.build {
            let files = built(project, &repo, &commit, command, rev, reporter)?;
            let options = options_at(project, &repo, &tree, workdir, rev, files.keys())?;
            return Ok(Revision { rev: rev.to_string(), commit: commit.id().to_string(), files, options });
        }
        let mut files = BTreeMap::new();
        let mut found = false;
        for folder in project.kernels_in(workdir).map_err(|e| e.to_string())? {
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
                let text = crate::kernel_file::kernel_text(name, blob.content().to_vec(), &format!("{shown} at {rev}"))
                    .map_err(|e| e.to_string())?;
                files.insert(name.to_string(), text);
            }
        }
        if !found {
            let folders: Vec<String> = project.kernels.iter().map(|f| format!("{}/", project.shown(f))).collect();
            return Err(format!("commit {} ({rev}) has no {} folder", commit.id(), folders.join(" or ")));
        }
        let options = options_at(project, &repo, &tree, workdir, rev, files.keys())?;
        Ok(Revision { rev: rev.to_string(), commit: commit.id().to_string(), files, options })
    }

    /// The text of `file` at this revision, if it existed there.
    pub fn source(&self, file: &str) -> Option<&str> {
        self.files.get(file).map(String::as_str)
    }

    /// The project's NVRTC options for `file` at this revision (its `kernelgate.toml` there; none
    /// where the revision has no such file or no `[nvrtc]`).
    pub fn options(&self, file: &str) -> &'static [&'static str] {
        self.options.get(file).copied().unwrap_or(&[])
    }

    /// The text of `file` at this revision and its NVRTC options there, as
    /// [`crate::program::compile_from`] takes them; `None` if the file did not exist there.
    pub fn kernel(&self, file: &str) -> Option<(&str, &'static [&'static str])> {
        Some((self.source(file)?, self.options(file)))
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
                "{} differ{} between {} and {what} {}: A/B swaps the kernel files (with their [nvrtc] options) only, so both versions run with \
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

/// The NVRTC options of each of `files` as the project's `kernelgate.toml` at `tree` (the revision
/// `rev`'s root tree of `repo`, whose working tree is `workdir`) gives them: its `[nvrtc]` read
/// with [`crate::project::Settings::parse`], include folders resolved in the project's root (the
/// headers are the working tree's, as for every A/B side). Without a `kernelgate.toml` there, no
/// options.
///
/// # Errors
/// A sentence naming `kernelgate.toml at <rev>` when it is not UTF-8, does not parse, or names an
/// include folder the project does not have.
fn options_at<'a>(
    project: &Project,
    repo: &git2::Repository,
    tree: &git2::Tree,
    workdir: &Path,
    rev: &str,
    files: impl Iterator<Item = &'a String>,
) -> Result<BTreeMap<String, &'static [&'static str]>, String> {
    let at = crate::model::folder_in_repository(workdir, &project.root).unwrap_or_default();
    let path = if at.is_empty() { crate::project::FILE.to_string() } else { format!("{at}/{}", crate::project::FILE) };
    let Ok(entry) = tree.get_path(Path::new(&path)) else { return Ok(BTreeMap::new()) };
    let shown = format!("{path} at {rev}");
    let blob = entry.to_object(repo).and_then(|o| o.peel_to_blob()).map_err(|e| format!("{shown}: {}", e.message()))?;
    let text = crate::entry_scan::utf8_text(blob.content().to_vec(), &shown).map_err(|e| e.to_string())?;
    let settings = crate::project::Settings::parse(&text, Path::new(&shown)).map_err(|e| e.to_string())?;
    let there = Project::new(&project.root, None, settings, &crate::config::Config::default());
    let mut out = BTreeMap::new();
    for file in files {
        let options = there.nvrtc_options(file).map_err(|e| format!("{shown}: {e}"))?;
        if !options.is_empty() {
            out.insert(file.clone(), &*options.into_iter().map(|o| &*o.leak()).collect::<Vec<_>>().leak());
        }
    }
    Ok(out)
}

/// The kernel files of `project`'s kernel folders at `commit` (named `rev`) as its build command
/// `command` makes them ([`crate::project::BuildCommand`]): the commit's tree is checked out
/// (git2, the repository's index and working tree untouched) into
/// `<out_dir>/revisions/<commit>-<command's hash>/`, the command runs there (`sh -c`, in the
/// checkout's project root, its output kept in `kernelgate-build.log` there), and the kernel folders
/// are read from the checkout. A checkout whose build finished is reused (a commit's build is the
/// same each time); one that failed is made again.
///
/// # Errors
/// A sentence naming the revision: the checkout could not be written, the command could not start
/// or exited non-zero (with the end of its log and where it ran), or a file it made is not UTF-8.
fn built(
    project: &Project,
    repo: &git2::Repository,
    commit: &git2::Commit<'_>,
    command: &str,
    rev: &str,
    reporter: &dyn Reporter,
) -> Result<BTreeMap<String, String>, String> {
    use sha2::{Digest, Sha256};
    let workdir = repo.workdir().ok_or("the repository has no working tree")?;
    let hash: String = Sha256::digest(command.as_bytes()).iter().take(4).map(|b| format!("{b:02x}")).collect();
    let dir = project.out_dir.join("revisions").join(format!("{}-{hash}", commit.id()));
    let inside = crate::model::folder_in_repository(workdir, &project.root).unwrap_or_default();
    let root = if inside.is_empty() { dir.clone() } else { dir.join(&inside) };
    let done = dir.join(".kernelgate-built");
    let log = root.join("kernelgate-build.log");
    let at = format!("{rev} ({})", &commit.id().to_string()[..12]);
    if done.is_file() {
        reporter.report(&Event::Status(&format!(
            "kernelgate: A/B: {at} as built before by `{command}` in {}",
            root.display()
        )));
    } else {
        let fail =
            |what: String| format!("the build command of kernelgate.toml ([build] command = {command:?}) {what}");
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|e| fail(format!("could not clear {}: {e}", dir.display())))?;
        }
        std::fs::create_dir_all(&dir).map_err(|e| fail(format!("could not make {}: {e}", dir.display())))?;
        let mut checkout = git2::build::CheckoutBuilder::new();
        checkout.target_dir(&dir).force().update_index(false).recreate_missing(true);
        repo.checkout_tree(commit.as_object(), Some(&mut checkout))
            .map_err(|e| fail(format!("could not check out {at} into {}: {}", dir.display(), e.message())))?;
        reporter
            .report(&Event::Status(&format!("kernelgate: A/B: building {at} with `{command}` in {}", root.display())));
        let out = std::fs::File::create(&log).map_err(|e| fail(format!("could not write {}: {e}", log.display())))?;
        let err = out.try_clone().map_err(|e| fail(e.to_string()))?;
        let status = std::process::Command::new("sh")
            .args(["-c", command])
            .current_dir(&root)
            .stdout(out)
            .stderr(err)
            .status()
            .map_err(|e| fail(format!("could not start in {}: {e}", root.display())))?;
        if !status.success() {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            return Err(fail(format!(
                "exited with {status} at {at}, in {}; the end of its log ({}):\n{}",
                root.display(),
                log.display(),
                lines[lines.len().saturating_sub(15)..].join("\n")
            )));
        }
        std::fs::write(&done, command).map_err(|e| fail(format!("could not write {}: {e}", done.display())))?;
    }
    let mut files = BTreeMap::new();
    for folder in &project.kernels {
        let relative = folder.strip_prefix(&project.root).map_err(|_| {
            format!(
                "the kernel folder {} lies outside the project, so a build at {at} cannot make it",
                folder.display()
            )
        })?;
        let Ok(listed) = std::fs::read_dir(root.join(relative)) else { continue };
        for entry in listed.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if crate::kernel_file::kind_of(&name).is_none() {
                continue;
            }
            let bytes = std::fs::read(entry.path()).map_err(|e| format!("{}: {e}", entry.path().display()))?;
            let shown = format!("{}/{name} at {rev}", project.shown(folder));
            files.insert(
                name.clone(),
                crate::kernel_file::kernel_text(&name, bytes, &shown).map_err(|e| e.to_string())?,
            );
        }
    }
    if files.is_empty() {
        let folders: Vec<String> = project.kernels.iter().map(|f| format!("{}/", project.shown(f))).collect();
        return Err(format!(
            "the build command `{command}` left no kernel file in {} at {at} (log: {})",
            folders.join(" or "),
            log.display()
        ));
    }
    Ok(files)
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
        let r = Revision::read(&project, &id.to_string(), &crate::report::events::Terminal::default()).unwrap();
        assert_eq!((r.source("a.cu"), r.source("b.cu"), r.source("c.cu")), (Some("a"), Some("b"), None));
        let none = Project::new(
            &dir.path().join("gpu"),
            None,
            crate::project::Settings::parse("kernels = \"later\"", "t".as_ref()).unwrap(),
            &crate::config::Config::default(),
        );
        let e = Revision::read(&none, "HEAD", &crate::report::events::Terminal::default()).unwrap_err().to_string();
        assert!(e.ends_with("(HEAD) has no later/ folder"), "{e}");
    }

    /// Each revision's kernel files are compiled with that revision's `kernelgate.toml` options: a
    /// commit that turns fast math off is another module on the A side, not the tree's options on
    /// both; a revision without the file has none; a malformed one is named with the revision.
    #[test]
    fn a_revision_has_the_nvrtc_options_of_its_own_project_file() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let bare = commit(&repo, dir.path(), &[("kernels/a.cu", "a"), ("kernels/b.cu", "b")], "no project file");
        let toml = "[nvrtc]\noptions = [\"--use_fast_math\"]\n[nvrtc.files.\"a.cu\"]\noptions = [\"-DBLOCK=256\"]\n";
        let fast = commit(&repo, dir.path(), &[("kernelgate.toml", toml)], "fast math");
        let broken = commit(&repo, dir.path(), &[("kernelgate.toml", "[nvrtc]\noptions = [\"-D X\"]\n")], "broken");
        // The working tree's file (the last commit's) is not what a revision reads.
        let project = at(dir.path());
        let r = Revision::read(&project, &fast.to_string(), &crate::report::events::Terminal::default()).unwrap();
        assert_eq!(
            (r.options("a.cu"), r.options("b.cu")),
            (&["--use_fast_math", "-DBLOCK=256"][..], &["--use_fast_math"][..])
        );
        assert_eq!(r.kernel("b.cu"), Some(("b", &["--use_fast_math"][..])));
        let r = Revision::read(&project, &bare.to_string(), &crate::report::events::Terminal::default()).unwrap();
        assert!(r.options("a.cu").is_empty() && r.kernel("c.cu").is_none());
        let e = Revision::read(&project, &broken.to_string(), &crate::report::events::Terminal::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(&format!("kernelgate.toml at {broken}:2: [nvrtc] option \"-D X\" holds white space")),
            "{e}"
        );
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
        let r = Revision::read(&at(dir.path()), "HEAD", &crate::report::events::Terminal::default()).unwrap();
        assert_eq!(r.commit, id.to_string());
        assert_eq!(r.source("a.cu"), Some("extern \"C\" __global__ void k() {}\n"));
        assert_eq!(r.source("notes.txt"), None, "only .cu files");
        assert_eq!(r.source("b.cu"), None);
        assert_eq!(r.label(), format!("HEAD = {}", &id.to_string()[..12]));
        // Given as a commit id, the commit is said once.
        let by_id =
            Revision::read(&at(dir.path()), &id.to_string(), &crate::report::events::Terminal::default()).unwrap();
        assert_eq!(by_id.label(), id.to_string()[..12]);
        let e = Revision::read(&at(dir.path()), "nope", &crate::report::events::Terminal::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("nope is not a commit"), "{e}");
        // A clone without a local branch: the remote-tracking name is suggested.
        repo.reference("refs/remotes/origin/trunk", id, true, "test").unwrap();
        let e = Revision::read(&at(dir.path()), "trunk", &crate::report::events::Terminal::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("but origin/trunk is: name origin/trunk"), "{e}");
        assert!(Revision::read(&at(dir.path()), "origin/trunk", &crate::report::events::Terminal::default()).is_ok());
        let outside = tempfile::tempdir().unwrap();
        assert!(
            Revision::read(&at(outside.path()), "HEAD", &crate::report::events::Terminal::default())
                .unwrap_err()
                .to_string()
                .contains("needs a git repository")
        );
    }

    #[test]
    fn a_changed_case_table_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let first = commit(&repo, dir.path(), &[("kernels/a.cu", "k"), ("tests/kernels.rs", "sizes 1")], "one");
        let kernels_only = commit(&repo, dir.path(), &[("kernels/a.cu", "k2")], "two");
        let cases = commit(&repo, dir.path(), &[("tests/kernels.rs", "sizes 2")], "three");
        let at_first =
            Revision::read(&at(dir.path()), &first.to_string(), &crate::report::events::Terminal::default()).unwrap();
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

    /// With a build command, the other revision's modules are what the command makes in a checkout
    /// of it (a build folder the repository does not commit): built once per commit and command,
    /// reused after, and a failing build is named with its log's end.
    #[test]
    fn a_build_command_makes_the_revisions_modules_in_a_checkout_of_it() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let toml = "kernels = \"build/ptx\"\n\n[build]\ncommand = \"mkdir -p build/ptx && cp src/k.ptx build/ptx/k.ptx && echo made\"\n";
        let first = commit(&repo, dir.path(), &[("gpu/kernelgate.toml", toml), ("gpu/src/k.ptx", "first")], "one");
        commit(&repo, dir.path(), &[("gpu/src/k.ptx", "second")], "two");
        let out = tempfile::tempdir().unwrap();
        let settings =
            crate::project::Settings::parse(&format!("out_dir = {:?}\n{toml}", out.path()), "t".as_ref()).unwrap();
        let project = Project::new(&dir.path().join("gpu"), None, settings, &crate::config::Config::default());
        assert_eq!(project.build.as_deref(), Some("mkdir -p build/ptx && cp src/k.ptx build/ptx/k.ptx && echo made"));
        let r = Revision::read(&project, &first.to_string(), &crate::report::events::Terminal::default()).unwrap();
        assert_eq!(r.source("k.ptx"), Some("first"), "the first commit's build, not the working tree's");
        let checkout = std::fs::read_dir(out.path().join("revisions")).unwrap().next().unwrap().unwrap().path();
        assert_eq!(std::fs::read_to_string(checkout.join("gpu/kernelgate-build.log")).unwrap(), "made\n");
        // Reused: the checkout's output changed by hand is what is read again.
        std::fs::write(checkout.join("gpu/build/ptx/k.ptx"), "kept").unwrap();
        assert_eq!(
            Revision::read(&project, &first.to_string(), &crate::report::events::Terminal::default())
                .unwrap()
                .source("k.ptx"),
            Some("kept")
        );
        assert_eq!(
            Revision::read(&project, "HEAD", &crate::report::events::Terminal::default()).unwrap().source("k.ptx"),
            Some("second")
        );
        let failing = crate::project::Settings::parse(
            &format!(
                "kernels = \"build/ptx\"\nout_dir = {:?}\n[build]\ncommand = \"echo no nvcc here >&2; exit 3\"\n",
                out.path()
            ),
            "t".as_ref(),
        )
        .unwrap();
        let project = Project::new(&dir.path().join("gpu"), None, failing, &crate::config::Config::default());
        let e = Revision::read(&project, "HEAD", &crate::report::events::Terminal::default()).unwrap_err().to_string();
        assert!(e.starts_with("the build command of kernelgate.toml ([build] command = \"echo no nvcc here >&2; exit 3\") exited with exit status: 3 at HEAD ("), "{e}");
        assert!(e.ends_with("no nvcc here"), "{e}");
    }
}
