//! A folder of files that change together: one lock, one manifest, one commit point.
//!
//! kernelgate keeps what users record (baselines, run records) as plain CSV files in a folder, so
//! that they diff and merge in git. Several files of one folder must change together (a bless
//! writes `baseline.csv` and `samples.csv`), two kernelgate processes may write the same folder at
//! once (two `kernelgate baseline remove`, a bless beside a calibration), and a writer can be
//! killed at any instruction. A [`Store`] makes every change of a folder all-or-nothing:
//!
//! - **Writers take an exclusive lock** (`.kernelgate.lock` in the folder, an OS file lock through
//!   [`std::fs::File::lock`], signed with the holder's pid, start time and command: [`lock`]), and
//!   read the folder *after* taking it, so no update is lost. A process that has to wait says for
//!   whom, and gives up after [`lock::LOCK_WAIT`] with the holder's name and the fix.
//! - **One commit point**: the new contents are written beside the old ones
//!   (`<name>.g<generation>.new`, flushed to disk), then a new [`Manifest`] listing every file's
//!   length, line count and SHA-256 is written the same way and renamed over `manifest.json`. That
//!   rename commits the generation; only then are the staged files renamed into place. A writer
//!   killed before the rename leaves the previous generation whole (its staged files are removed by
//!   the next writer); one killed after it leaves a generation that readers already see whole: for
//!   a file not yet renamed they read the staged one that the manifest vouches for, and the next
//!   writer finishes the renames (roll forward, as a redo log does).
//! - **Readers trust only what the manifest vouches for**: every file is checked against its
//!   length and SHA-256, so a file cut short at any byte, or edited by hand, is an error naming the
//!   file, both sizes and the fix ([`Store::reseal`] vouches for deliberate edits after the owner
//!   has checked them). Readers take a shared lock where the folder allows it, and otherwise retry
//!   around a concurrent commit.
//!
//! A folder with files but no manifest (written before this module existed) is read as it is and
//! gets its manifest at its first write ("migration on first write").
//!
//! The design is the classic one of write-ahead commit records (Gray & Reuter 1993, "Transaction
//! Processing: Concepts and Techniques", ch. 9-10: a single atomic write of a commit record, redo
//! of the committed changes at restart), with `rename(2)`'s atomic replacement of a directory
//! entry (POSIX.1-2017) as the atomic write.

pub mod lock;
mod manifest;
pub mod table;

pub use manifest::{FileEntry, MANIFEST_FILE, MANIFEST_SCHEMA, Manifest};

use crate::error::{Error, Result};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::{Seek as _, Write as _};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// The lock file in every store folder. It holds the signature of the writer that last took the
/// lock ([`lock::signature`]: pid, since when, command), for the message of a process that has to
/// wait; its contents mean nothing else.
pub const LOCK_FILE: &str = ".kernelgate.lock";

/// How many times a reader that cannot take a shared lock reads when files and manifest disagree:
/// a writer between its commit and its renames (microseconds) is done by the next attempt, 10 ms
/// later; a disagreement that outlasts three reads is damage.
const READ_ATTEMPTS: usize = 3;

/// A folder whose files ([`Store::names`]) change only together; see the module docs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Store {
    dir: PathBuf,
    names: Vec<String>,
    /// What the folder is, for messages ("baseline", "run record").
    what: &'static str,
    /// The command that vouches for hand edits, for messages (`kernelgate baseline reseal`).
    reseal_hint: String,
}

/// The files of a store as one generation, as read by [`Store::read`] or handed to the change of
/// [`Store::update`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// The manifest's generation: 0 for a folder without a manifest, which is then read unchecked.
    pub generation: u64,
    /// Whether a manifest vouched for the files.
    pub sealed: bool,
    /// The contents of each managed file present, by name. A sealed store lists every managed file.
    pub files: BTreeMap<String, Vec<u8>>,
}

impl Snapshot {
    /// The bytes of `name`, if the file is present.
    pub fn file(&self, name: &str) -> Option<&[u8]> {
        self.files.get(name).map(Vec::as_slice)
    }
}

/// A step of a commit, handed to the hook of [`Store::update_with`] before it is taken; the tests
/// stop a writer at each one, as a `kill -9` would.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Writing the new contents of a file to `<name>.g<gen>.new`.
    Stage(String),
    /// Writing the new manifest to `manifest.json.g<gen>.new`.
    StageManifest,
    /// Renaming the new manifest over `manifest.json`: the commit point.
    Commit,
    /// Renaming a staged file into place.
    Install(String),
    /// Removing staged files left by writers that were killed.
    Clean,
}

impl Store {
    /// The store in `dir` managing the files `names` (plain file names, no folders). `what` names
    /// the folder in messages; `reseal_hint` is the command a user runs to vouch for hand edits.
    pub fn new(dir: impl Into<PathBuf>, names: &[&str], what: &'static str, reseal_hint: impl Into<String>) -> Store {
        Store {
            dir: dir.into(),
            names: names.iter().map(|n| n.to_string()).collect(),
            what,
            reseal_hint: reseal_hint.into(),
        }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The managed file names.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Reads the current generation, verified against the manifest. A missing folder or an empty
    /// one is an empty, unsealed snapshot. Writes nothing.
    ///
    /// # Errors
    /// [`Error::Store`] naming the file when the manifest is unreadable or a file does not match
    /// it (cut short, edited, missing), with the fix, or when a writer holds the lock past
    /// [`lock::LOCK_WAIT`]; [`Error::Io`] when a file cannot be read.
    pub fn read(&self) -> Result<Snapshot> {
        let _shared = self.shared_lock()?;
        let mut last = None;
        for attempt in 0..READ_ATTEMPTS {
            match self.read_once()? {
                Ok(snapshot) => return Ok(snapshot),
                Err(damage) => last = Some(damage),
            }
            if _shared.is_some() {
                break; // No writer can be between commit and renames while we hold the lock.
            }
            if attempt + 1 < READ_ATTEMPTS {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
        Err(last.expect("at least one attempt"))
    }

    /// Changes the store: takes the exclusive lock (waiting, with a message on stderr, while
    /// another process holds it), finishes a commit a killed writer left half done, reads the
    /// current generation, and hands it to `change`. `change` returns the new contents of every
    /// managed file (a name missing from the map keeps its file as it is) and a value for the
    /// caller, or `None` to leave the store untouched. After the change every managed file must
    /// exist (a folder's files are vouched for together). The new generation is committed atomically;
    /// identical contents commit nothing. Returns `change`'s value.
    ///
    /// # Errors
    /// `change`'s error (nothing written); [`Error::Store`] when the store is damaged (nothing
    /// written: repair comes first); [`Error::Io`] when the folder, the lock or a file cannot be
    /// written (the previous generation stays whole).
    pub fn update<T>(
        &self,
        change: impl FnOnce(&Snapshot) -> Result<Option<(BTreeMap<String, Vec<u8>>, T)>>,
    ) -> Result<Option<T>> {
        self.update_with(change, &mut |_| ControlFlow::Continue(()))
    }

    /// [`Store::update`] with a hook called before each [`Step`] of the commit; when it returns
    /// `Break`, the writer stops right there, leaving every file as a killed process would (no
    /// clean-up), and returns [`Error::Store`] saying so. For fault-injection tests.
    ///
    /// # Errors
    /// As [`Store::update`], and the interruption.
    pub fn update_with<T>(
        &self,
        change: impl FnOnce(&Snapshot) -> Result<Option<(BTreeMap<String, Vec<u8>>, T)>>,
        hook: &mut dyn FnMut(&Step) -> ControlFlow<()>,
    ) -> Result<Option<T>> {
        std::fs::create_dir_all(&self.dir).map_err(Error::io(&self.dir))?;
        let _lock = self.exclusive_lock()?;
        let current = self.recover()?;
        let Some((mut files, value)) = change(&current)? else { return Ok(None) };
        for name in files.keys() {
            if !self.names.contains(name) {
                return Err(self.damage(None, format!("{name} is not a file of this {}; a caller bug", self.what)));
            }
        }
        for name in &self.names {
            match (files.contains_key(name), current.files.get(name)) {
                (true, _) => {}
                (false, Some(old)) => {
                    files.insert(name.clone(), old.clone());
                }
                (false, None) => {
                    let why = format!("{name} would be missing; every file of a {} is written together", self.what);
                    return Err(Error::Store { path: self.dir.join(name), line: None, message: why });
                }
            }
        }
        if current.sealed && files == current.files {
            return Ok(Some(value));
        }
        self.commit(&current, &files, hook)?;
        Ok(Some(value))
    }

    /// Vouches for the files as they are now: under the exclusive lock, reads every managed file
    /// without checking it against the manifest (which may itself be damaged: only its generation
    /// number is kept, when it can be read), lets `check` refuse them (the owner parses them fully)
    /// and name the contents of managed files that are missing (a folder written before one of its
    /// files existed), and commits a manifest for them all. For deliberate hand edits and for files
    /// merged by git; what a damaged file held before cannot be recovered this way. Returns the new
    /// generation.
    ///
    /// # Errors
    /// `check`'s error (nothing written); [`Error::Store`] when a managed file is still missing;
    /// [`Error::Io`] as for [`Store::update`], and when the folder does not exist (it is not
    /// created).
    pub fn reseal(&self, check: impl FnOnce(&Snapshot) -> Result<BTreeMap<String, Vec<u8>>>) -> Result<u64> {
        let _lock = self.exclusive_lock()?;
        let generation = read_if_present(&self.dir.join(MANIFEST_FILE))?
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
            .and_then(|v| v.get("generation").and_then(serde_json::Value::as_u64))
            .unwrap_or(0);
        let mut files = BTreeMap::new();
        for name in &self.names {
            if let Some(bytes) = read_if_present(&self.dir.join(name))? {
                files.insert(name.clone(), bytes);
            }
        }
        let as_found = Snapshot { generation, sealed: false, files };
        let added = check(&as_found)?;
        let mut all = as_found.files.clone();
        all.extend(added);
        if let Some(missing) = self.names.iter().find(|n| !all.contains_key(*n)) {
            let why = format!("{missing} is missing; every file of a {} is vouched for together", self.what);
            return Err(Error::Store { path: self.dir.join(missing), line: None, message: why });
        }
        self.commit(&as_found, &all, &mut |_| ControlFlow::Continue(()))?;
        Ok(generation + 1)
    }

    /// One verified read: `Ok(Err(damage))` when files and manifest disagree (the caller may retry).
    fn read_once(&self) -> Result<std::result::Result<Snapshot, Error>> {
        let Some(manifest) = self.manifest()? else {
            let mut files = BTreeMap::new();
            for name in &self.names {
                if let Some(bytes) = read_if_present(&self.dir.join(name))? {
                    files.insert(name.clone(), bytes);
                }
            }
            return Ok(Ok(Snapshot { generation: 0, sealed: false, files }));
        };
        let mut files = BTreeMap::new();
        for entry in &manifest.files {
            match self.vouched(&manifest, entry)? {
                Vouched::InPlace(bytes) | Vouched::Staged(bytes) => {
                    files.insert(entry.name.clone(), bytes);
                }
                Vouched::Damaged(why) => return Ok(Err(why)),
            }
        }
        Ok(Ok(Snapshot { generation: manifest.generation, sealed: true, files }))
    }

    /// The manifest, checked against the managed names; `None` when there is none.
    fn manifest(&self) -> Result<Option<Manifest>> {
        let path = self.dir.join(MANIFEST_FILE);
        let Some(bytes) = read_if_present(&path)? else { return Ok(None) };
        let manifest = Manifest::parse(&bytes, &path).map_err(|e| self.with_fix(e))?;
        for entry in &manifest.files {
            if !self.names.contains(&entry.name) {
                let why = format!("lists {}, which is not a file of a {}", entry.name, self.what);
                return Err(self.damage(Some(&path), why));
            }
        }
        for name in &self.names {
            if manifest.entry(name).is_none() {
                return Err(self.damage(Some(&path), format!("does not list {name}, which every {} has", self.what)));
            }
        }
        Ok(Some(manifest))
    }

    /// Where the manifest's file `entry` is: in place, still staged by a killed writer, or damaged.
    fn vouched(&self, manifest: &Manifest, entry: &FileEntry) -> Result<Vouched> {
        let path = self.dir.join(&entry.name);
        let found = read_if_present(&path)?;
        if let Some(bytes) = &found
            && entry.matches(bytes)
        {
            return Ok(Vouched::InPlace(found.expect("checked")));
        }
        if let Some(staged) = read_if_present(&staged_path(&self.dir, &entry.name, manifest.generation))?
            && entry.matches(&staged)
        {
            return Ok(Vouched::Staged(staged));
        }
        let why = match &found {
            None => format!(
                "is missing, but {MANIFEST_FILE} (generation {}) vouches for {}",
                manifest.generation,
                entry.describe()
            ),
            Some(bytes) => format!(
                "holds {} where {MANIFEST_FILE} (generation {}) vouches for {}: the file was cut short, changed or \
                 replaced after kernelgate wrote it",
                FileEntry::of(&entry.name, bytes).describe(),
                manifest.generation,
                entry.describe()
            ),
        };
        Ok(Vouched::Damaged(self.damage(Some(&path), why)))
    }

    /// Under the exclusive lock: finishes the renames of a committed generation, removes staged
    /// files of generations never committed, and returns the current generation.
    fn recover(&self) -> Result<Snapshot> {
        let Some(manifest) = self.manifest()? else {
            self.clean(u64::MAX)?;
            return match self.read_once()? {
                Ok(snapshot) => Ok(snapshot),
                Err(damage) => Err(damage),
            };
        };
        let mut files = BTreeMap::new();
        for entry in &manifest.files {
            match self.vouched(&manifest, entry)? {
                Vouched::InPlace(bytes) => {
                    files.insert(entry.name.clone(), bytes);
                }
                Vouched::Staged(bytes) => {
                    let target = self.dir.join(&entry.name);
                    std::fs::rename(staged_path(&self.dir, &entry.name, manifest.generation), &target)
                        .map_err(Error::io(&target))?;
                    files.insert(entry.name.clone(), bytes);
                }
                Vouched::Damaged(why) => return Err(why),
            }
        }
        sync_dir(&self.dir);
        self.clean(manifest.generation)?;
        Ok(Snapshot { generation: manifest.generation, sealed: true, files })
    }

    /// Writes generation `current.generation + 1` holding `files`; see the module docs.
    fn commit(
        &self,
        current: &Snapshot,
        files: &BTreeMap<String, Vec<u8>>,
        hook: &mut dyn FnMut(&Step) -> ControlFlow<()>,
    ) -> Result<()> {
        let generation = current.generation + 1;
        let interrupted = |step: Step| Error::Store {
            path: self.dir.clone(),
            line: None,
            message: format!("the writer was stopped before {step:?} by a test hook"),
        };
        let mut reach = |step: Step| match hook(&step) {
            ControlFlow::Continue(()) => Ok(()),
            ControlFlow::Break(()) => Err(Halt::Hook(step)),
        };
        let changed: Vec<&String> =
            files.iter().filter(|(name, bytes)| current.files.get(*name) != Some(*bytes)).map(|(n, _)| n).collect();
        let mut staged = Vec::new();
        let mut stage = || -> std::result::Result<(), Halt> {
            for name in &changed {
                reach(Step::Stage(name.to_string()))?;
                let path = staged_path(&self.dir, name, generation);
                staged.push(path.clone());
                write_new(&path, &files[*name]).map_err(Halt::Io)?;
            }
            reach(Step::StageManifest)?;
            let manifest_path = staged_path(&self.dir, MANIFEST_FILE, generation);
            staged.push(manifest_path.clone());
            write_new(&manifest_path, &Manifest::new(generation, files).to_bytes()).map_err(Halt::Io)?;
            sync_dir(&self.dir);
            reach(Step::Commit)?;
            std::fs::rename(&manifest_path, self.dir.join(MANIFEST_FILE))
                .map_err(|e| Halt::Io(Error::io(&manifest_path)(e)))
        };
        match stage() {
            Ok(()) => {}
            // Stopped like a killed process: no clean-up (the next writer does it).
            Err(Halt::Hook(step)) => return Err(interrupted(step)),
            // Not committed: the previous generation stands; remove what was staged.
            Err(Halt::Io(e)) => {
                for path in staged {
                    let _ = std::fs::remove_file(path);
                }
                return Err(e);
            }
        }
        sync_dir(&self.dir);
        let mut install = || -> std::result::Result<(), Halt> {
            for name in &changed {
                reach(Step::Install(name.to_string()))?;
                let target = self.dir.join(name);
                std::fs::rename(staged_path(&self.dir, name, generation), &target)
                    .map_err(|e| Halt::Io(Error::io(&target)(e)))?;
            }
            sync_dir(&self.dir);
            reach(Step::Clean)?;
            self.clean(generation).map_err(Halt::Io)
        };
        // Committed: an error from here on leaves staged files that readers and the next writer use.
        install().map_err(|halt| match halt {
            Halt::Hook(step) => interrupted(step),
            Halt::Io(e) => e,
        })
    }

    /// Removes staged files (`<name>.g<N>.new`) of every generation but `keep`.
    fn clean(&self, keep: u64) -> Result<()> {
        let listing = match std::fs::read_dir(&self.dir) {
            Ok(listing) => listing,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(Error::io(&self.dir)(e)),
        };
        for item in listing {
            let item = item.map_err(Error::io(&self.dir))?;
            let name = item.file_name().to_string_lossy().into_owned();
            let managed = self.names.iter().map(String::as_str).chain([MANIFEST_FILE]);
            let stale = managed.into_iter().any(|base| staged_generation(&name, base).is_some_and(|g| g != keep));
            if stale {
                let _ = std::fs::remove_file(item.path());
            }
        }
        Ok(())
    }

    /// The exclusive lock, signed ([`lock::signature`]), waiting with a message while another
    /// process holds it, at most [`lock::LOCK_WAIT`].
    fn exclusive_lock(&self) -> Result<std::fs::File> {
        let path = self.dir.join(LOCK_FILE);
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(Error::io(&path))?;
        lock::acquire(&file, &path, &self.dir.display().to_string(), lock::Mode::Exclusive, lock::LOCK_WAIT)?;
        let me = lock::signature();
        let _ = file.set_len(0).and_then(|()| file.rewind()).and_then(|()| file.write_all(me.as_bytes()));
        Ok(file)
    }

    /// A shared lock, when the folder has a lock file we may open; `None` otherwise (no writer yet,
    /// a read-only checkout, a missing folder): the reader then retries around commits instead.
    /// Waits while a writer holds it, at most [`lock::LOCK_WAIT`].
    ///
    /// # Errors
    /// [`Error::Store`] when the wait outlasts the bound.
    fn shared_lock(&self) -> Result<Option<std::fs::File>> {
        if !self.dir.is_dir() {
            return Ok(None);
        }
        // Opened, never created: a read leaves the folder as it found it. A folder no writer has
        // locked yet has no lock file, and its reader retries around a first commit instead.
        let path = self.dir.join(LOCK_FILE);
        let Ok(file) = std::fs::File::open(&path) else { return Ok(None) };
        match lock::acquire(&file, &path, &self.dir.display().to_string(), lock::Mode::Shared, lock::LOCK_WAIT) {
            Ok(()) => Ok(Some(file)),
            Err(Error::Io { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// An [`Error::Store`] about `path` (the folder when `None`) with the fix.
    fn damage(&self, path: Option<&Path>, why: String) -> Error {
        let path = path.map_or_else(|| self.dir.clone(), Path::to_path_buf);
        self.with_fix(Error::Store { path, line: None, message: why })
    }

    /// Adds the fix to a store error's message.
    fn with_fix(&self, e: Error) -> Error {
        match e {
            Error::Store { path, line, message } => {
                // A file removed on purpose cannot be vouched for: there is nothing to check.
                let fix = if message.starts_with("is missing, but ") {
                    format!(
                        "{}; if it was removed on purpose, remove {} too (the next bless writes the folder anew)",
                        restore_hint(&self.dir),
                        self.dir.join(MANIFEST_FILE).display()
                    )
                } else {
                    format!(
                        "{}; if the files were changed on purpose, `{}` checks them and vouches for them",
                        restore_hint(&self.dir),
                        self.reseal_hint
                    )
                };
                Error::Store {
                    path,
                    line,
                    message: format!("{message}. kernelgate left the folder as it was. Fix: {fix}"),
                }
            }
            other => other,
        }
    }
}

/// Why a commit stopped early.
enum Halt {
    /// The test hook stopped it before this step.
    Hook(Step),
    /// A file could not be written or renamed.
    Io(Error),
}

/// Where a manifest entry's bytes were found.
enum Vouched {
    InPlace(Vec<u8>),
    Staged(Vec<u8>),
    Damaged(Error),
}

/// `<dir>/<name>.g<generation>.new`: a staged file of `generation`.
fn staged_path(dir: &Path, name: &str, generation: u64) -> PathBuf {
    dir.join(format!("{name}.g{generation}.new"))
}

/// The generation of `file` when it is a staged file of `base` (`<base>.g<N>.new`).
fn staged_generation(file: &str, base: &str) -> Option<u64> {
    file.strip_prefix(base)?.strip_prefix(".g")?.strip_suffix(".new")?.parse().ok()
}

/// The file's bytes; `None` if it (or its folder) does not exist.
fn read_if_present(path: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path)(e)),
    }
}

/// Writes `bytes` to a new file at `path` (replacing a leftover of a killed writer) and flushes it
/// to disk. The file gets the platform's default permissions, which the renamed file keeps.
fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut file = std::fs::File::create(path).map_err(Error::io(path))?;
    file.write_all(bytes).and_then(|()| file.sync_all()).map_err(Error::io(path))
}

/// Makes the renames in `dir` durable where the platform allows opening a folder (not Windows).
fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// How to get a file or folder back: from git when it lies in a git work tree
/// (`restore … from git (git checkout -- PATH) or from a copy`), otherwise from a copy.
pub fn restore_hint(path: &Path) -> String {
    let start = if path.is_dir() { path } else { path.parent().unwrap_or(path) };
    if git2::Repository::discover(start).is_ok_and(|repo| repo.workdir().is_some()) {
        format!("restore it from git (`git checkout -- {}`) or from a copy", path.display())
    } else {
        format!("restore it from a copy ({} is not in a git work tree)", path.display())
    }
}

/// SHA-256 of `bytes`, lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests;
