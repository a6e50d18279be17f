//! History that travels with the repository: git notes under [`NOTES_REF`] (`refs/notes/kernelgate`).
//!
//! One note per commit holds the rows of every run of that commit's kernels, as text, **one
//! self-contained line per record** and no header, sorted and without duplicates:
//!
//! ```text
//! R1,<run_id>,<commit>,<dirty>,<kernels_sha256>,<branch>,<commit_time>,<subject>,<gpu_key>,<gpu_name>,<gpu_uuid>,<driver>,<cuda>,<nvrtc>,<ncu>,<ab_revision>,<work_scale>
//! V1,<run_id>,<gpu_uuid>,<trial>,<kernel>,<metric>,<unit>,<value>,<ci_low>,<ci_high>,<verdict>,<decided_by>
//! ```
//!
//! Each line is a CSV record (RFC 4180 quoting by the csv crate: kernel names and subjects may hold
//! commas and quotes; a field holding a line break is refused). `R`/`V` is the record's kind, `1`
//! its format version. Unknown values are empty fields (`dirty` is `true`/`false`/empty), numbers
//! are written in Rust's shortest round-trip form (`NaN` for NaN). Because every line stands alone,
//! the union of two notes' lines is a valid note holding both: git's own
//! `git notes merge -s cat_sort_uniq` (concatenate, sort, drop duplicate lines; git-notes(1))
//! merges notes of two runners without losing a row, and so does [`merge_ref`]. The parser ignores
//! the order of lines.
//!
//! Anyone may add a note under the ref (git-notes(1)): a line kernelgate cannot use (another
//! tool's or a person's, `git notes --ref=kernelgate add -m "LGTM"`; a damaged or conflicting one;
//! one of a newer format) is **kept and skipped**: reading names it ([`Skipped`]: commit, line and
//! why) and reads every other line, and writing a note keeps it. No such line makes another line,
//! another run or another commit unreadable.
//!
//! Sharing with a remote is left to the git CLI (kernelgate's git2 is built without network
//! transports):
//!
//! ```text
//! git push origin refs/notes/kernelgate
//! git fetch origin refs/notes/kernelgate:refs/notes/kernelgate-origin
//! git notes --ref=kernelgate merge -s cat_sort_uniq refs/notes/kernelgate-origin
//! ```
//!
//! The last step can as well be [`merge_ref`] (`refs/notes/kernelgate-origin`), which checks every
//! line before it writes.

use super::{Run, RunMeta, Value, merge_meta, merge_value};
use crate::{Error, Result};
use git2::{Oid, Repository};
use std::collections::BTreeMap;

/// The notes ref kernelgate writes.
pub const NOTES_REF: &str = "refs/notes/kernelgate";

/// Fields of an `R1` line, kind included.
const RUN_FIELDS: usize = 17;
/// Fields of a `V1` line, kind included.
const VALUE_FIELDS: usize = 12;

/// What [`merge_ref`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Merged {
    /// Commits noted under the other ref.
    pub commits: usize,
    /// Our notes that changed (got lines).
    pub changed: usize,
    /// Lines added to our notes in all.
    pub lines_added: usize,
    /// Notes that could not be merged (not text), one sentence each naming the commit.
    pub warnings: Vec<String>,
}

/// A note line that [`parse`] could not use: kept in the note, left out of the runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The annotated commit.
    pub commit: String,
    /// 1-based line in the note.
    pub line: usize,
    /// Why the line was skipped, as a sentence fragment.
    pub why: String,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "git note of {}, line {}: {}; the line is kept as it is and skipped (`git notes --ref=kernelgate edit {}` \
             changes it)",
            self.commit, self.line, self.why, self.commit
        )
    }
}

/// Runs read from notes, and the lines skipped on the way ([`parse`], [`read_all`]). Derefs to
/// the runs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NoteRuns {
    /// The runs, sorted as the function that read them says.
    pub runs: Vec<Run>,
    /// The lines left out, in the order of commits and lines.
    pub skipped: Vec<Skipped>,
}

impl std::ops::Deref for NoteRuns {
    type Target = [Run];
    fn deref(&self) -> &[Run] {
        &self.runs
    }
}

impl<'a> IntoIterator for &'a NoteRuns {
    type Item = &'a Run;
    type IntoIter = std::slice::Iter<'a, Run>;
    fn into_iter(self) -> Self::IntoIter {
        self.runs.iter()
    }
}

/// The note lines of `run` (pure), sorted: one `R1` line and one `V1` line per value.
///
/// # Errors
/// [`Error::Notes`] (naming the commit) if a field holds a line break.
pub fn lines(run: &Run) -> Result<Vec<String>> {
    let m = &run.meta;
    let opt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:?}"));
    let mut out = vec![record(
        &m.commit,
        &[
            "R1",
            &m.run_id,
            &m.commit,
            m.dirty.map_or("", |d| if d { "true" } else { "false" }),
            &m.kernels_sha256,
            &m.branch,
            &m.commit_time.map_or(String::new(), |t| t.to_string()),
            &m.subject,
            &m.gpu_key,
            &m.gpu_name,
            &m.gpu_uuid,
            &m.driver,
            &m.cuda,
            &m.nvrtc,
            &m.ncu,
            &m.ab_revision,
            &format!("{:?}", m.work_scale),
        ],
    )?];
    for v in &run.values {
        out.push(record(
            &m.commit,
            &[
                "V1",
                &m.run_id,
                &m.gpu_uuid,
                &v.trial,
                &v.kernel,
                &v.metric,
                &v.unit,
                &format!("{:?}", v.value),
                &opt(v.ci_low),
                &opt(v.ci_high),
                &v.verdict,
                &v.decided_by,
            ],
        )?);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// One CSV record on one line, without its line end.
fn record(commit: &str, fields: &[&str]) -> Result<String> {
    if let Some(f) = fields.iter().find(|f| f.contains(['\n', '\r'])) {
        return Err(Error::Notes {
            commit: commit.to_string(),
            line: None,
            message: format!("the field {f:?} holds a line break, and a note line must be one line; remove it"),
        });
    }
    let mut w =
        csv::WriterBuilder::new().has_headers(false).terminator(csv::Terminator::Any(b'\n')).from_writer(vec![]);
    let written = w.write_record(fields).and_then(|()| w.flush().map_err(csv::Error::from));
    written.map_err(|e| Error::Notes { commit: commit.to_string(), line: None, message: e.to_string() })?;
    let mut bytes = w.into_inner().map_err(|e| Error::Notes {
        commit: commit.to_string(),
        line: None,
        message: e.error().to_string(),
    })?;
    bytes.pop(); // the terminator
    Ok(String::from_utf8(bytes).expect("fields are UTF-8"))
}

/// The runs in the note text of `commit` (pure), sorted by run id and GPU UUID, each run's values
/// sorted by trial, metric, kernel, unit. Lines may come in any order; blank lines are skipped; the
/// same record twice counts once, and two copies of one run (or value) are merged as
/// [`super::merge_meta`] merges them.
///
/// A line that cannot be used is left out and listed in [`NoteRuns::skipped`] with its 1-based
/// line, never a reason to drop the other lines: a line that is not a CSV record of a known kind
/// and version with the right number of fields (another tool's, a person's, a newer kernelgate's),
/// a number that does not parse or that no run measures ([`super::value_problem`]), an `R1` line
/// of another commit, and values without their run's `R1` line. Two copies of a run that disagree
/// leave the run out (every line of it is listed); two copies of a value that disagree leave that
/// value out.
///
/// # Errors
/// None today; the `Result` is kept for a future format whose lines depend on each other.
pub fn parse(text: &str, commit: &str) -> Result<NoteRuns> {
    /// (run id, GPU UUID), and (trial, metric, kernel, unit).
    type Key = (String, String);
    type ValueKey = (String, String, String, String);
    let mut metas: BTreeMap<Key, (RunMeta, usize)> = BTreeMap::new();
    let mut values: BTreeMap<Key, BTreeMap<ValueKey, (Value, usize)>> = BTreeMap::new();
    let mut value_lines: BTreeMap<Key, Vec<usize>> = BTreeMap::new();
    let mut torn_runs: BTreeMap<Key, String> = BTreeMap::new();
    let mut torn_values: BTreeMap<(Key, ValueKey), String> = BTreeMap::new();
    let mut skipped = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let mut skip = |why: String| skipped.push(Skipped { commit: commit.to_string(), line: n, why });
        let shown: String = line.chars().take(80).collect();
        let shown = if shown.len() < line.len() { format!("{shown}…") } else { shown };
        let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(line.as_bytes());
        let mut rec = csv::StringRecord::new();
        match reader.read_record(&mut rec) {
            Ok(true) => {}
            Ok(false) => continue,
            Err(e) => {
                skip(format!("{shown:?} is not a CSV record ({e}), so not a line kernelgate wrote"));
                continue;
            }
        }
        let f = |k: usize| rec.get(k).unwrap_or("");
        let parsed = match f(0) {
            "R1" => parse_run(&rec, commit).map(Line::Run),
            "V1" => parse_value(&rec).map(|(key, v)| Line::Value(key, v)),
            _ => Err(format!(
                "{shown:?} is not a line kernelgate writes (it reads R1 and V1 lines; another tool, a person or a \
                 newer kernelgate wrote it)"
            )),
        };
        match parsed {
            Err(why) => skip(why),
            Ok(Line::Run(meta)) => {
                let key = (meta.run_id.clone(), meta.gpu_uuid.clone());
                match metas.get_mut(&key) {
                    Some((stored, first)) => {
                        if let Err(e) = merge_meta(stored, &meta) {
                            torn_runs.entry(key).or_insert(format!("lines {first} and {n} disagree: {e}"));
                        }
                    }
                    None => {
                        metas.insert(key, (meta, n));
                    }
                }
            }
            Ok(Line::Value(key, v)) => {
                value_lines.entry(key.clone()).or_default().push(n);
                let id = (v.trial.clone(), v.metric.clone(), v.kernel.clone(), v.unit.clone());
                match values.entry(key.clone()).or_default().entry(id.clone()) {
                    std::collections::btree_map::Entry::Occupied(mut e) => {
                        let first = e.get().1;
                        if let Err(m) = merge_value(&mut e.get_mut().0, &v) {
                            torn_values.entry((key, id)).or_insert(format!(
                                "two copies of {} {} of run {} disagree (lines {first} and {n}): {m}",
                                v.trial,
                                v.metric,
                                f(1)
                            ));
                        }
                    }
                    std::collections::btree_map::Entry::Vacant(e) => {
                        e.insert((v, n));
                    }
                }
            }
        }
    }
    let mut runs = Vec::new();
    for (key, (meta, first)) in metas {
        if let Some(why) = torn_runs.remove(&key) {
            skipped.push(Skipped {
                commit: commit.to_string(),
                line: first,
                why: format!(
                    "two copies of run {} on {} ({why}), so the run is left out, with its {} value lines",
                    key.0,
                    key.1,
                    value_lines.get(&key).map_or(0, Vec::len)
                ),
            });
            values.remove(&key);
            continue;
        }
        let mut kept = Vec::new();
        for (id, (v, line)) in values.remove(&key).unwrap_or_default() {
            match torn_values.remove(&(key.clone(), id)) {
                Some(why) => {
                    skipped.push(Skipped { commit: commit.to_string(), line, why: format!("{why}; left out") })
                }
                None => kept.push(v),
            }
        }
        runs.push(Run { meta, values: kept });
    }
    for (key, lines) in value_lines.iter().filter(|(k, _)| values.contains_key(*k)) {
        skipped.push(Skipped {
            commit: commit.to_string(),
            line: lines[0],
            why: format!(
                "{} value line{} of run {} on {} without the run's R1 line (first here)",
                lines.len(),
                if lines.len() == 1 { "" } else { "s" },
                key.0,
                key.1
            ),
        });
    }
    skipped.sort_by_key(|s| s.line);
    Ok(NoteRuns { runs, skipped })
}

/// One usable note line.
enum Line {
    Run(RunMeta),
    Value((String, String), Value),
}

/// An `R1` record of a note of `commit` (pure); `Err` says why the line cannot be used.
fn parse_run(rec: &csv::StringRecord, commit: &str) -> std::result::Result<RunMeta, String> {
    let f = |k: usize| rec.get(k).unwrap_or("");
    if rec.len() != RUN_FIELDS {
        return Err(format!("an R1 line has {RUN_FIELDS} fields, this one {}", rec.len()));
    }
    let work_scale = f(16).parse::<f64>().ok().filter(|w| w.is_finite() && *w > 0.0);
    let meta = RunMeta {
        run_id: f(1).into(),
        commit: f(2).into(),
        dirty: match f(3) {
            "true" => Some(true),
            "false" => Some(false),
            "" => None,
            other => return Err(format!("dirty {other:?} is not true, false or empty")),
        },
        kernels_sha256: f(4).into(),
        branch: f(5).into(),
        commit_time: match f(6) {
            "" => None,
            t => Some(t.parse().map_err(|_| format!("commit_time {t:?} is not unix seconds"))?),
        },
        subject: f(7).into(),
        gpu_key: f(8).into(),
        gpu_name: f(9).into(),
        gpu_uuid: f(10).into(),
        driver: f(11).into(),
        cuda: f(12).into(),
        nvrtc: f(13).into(),
        ncu: f(14).into(),
        ab_revision: f(15).into(),
        work_scale: work_scale.ok_or_else(|| format!("work_scale {:?} is not a number above 0", f(16)))?,
    };
    if meta.run_id.is_empty() || meta.gpu_key.is_empty() {
        return Err("an R1 line names a run id and a GPU key, and this one leaves one empty".into());
    }
    if meta.commit != commit {
        return Err(format!("the run {} names commit {}, not the noted one", meta.run_id, meta.commit));
    }
    Ok(meta)
}

/// A `V1` record (pure): its run's key and the value; `Err` says why the line cannot be used.
fn parse_value(rec: &csv::StringRecord) -> std::result::Result<((String, String), Value), String> {
    let f = |k: usize| rec.get(k).unwrap_or("");
    if rec.len() != VALUE_FIELDS {
        return Err(format!("a V1 line has {VALUE_FIELDS} fields, this one {}", rec.len()));
    }
    let number = |k: usize, name: &str| f(k).parse::<f64>().map_err(|_| format!("{name} {:?} is not a number", f(k)));
    let maybe = |k: usize, name: &str| if f(k).is_empty() { Ok(None) } else { number(k, name).map(Some) };
    let v = Value {
        trial: f(3).into(),
        kernel: f(4).into(),
        metric: f(5).into(),
        unit: f(6).into(),
        value: number(7, "value")?,
        ci_low: maybe(8, "ci_low")?,
        ci_high: maybe(9, "ci_high")?,
        verdict: f(10).into(),
        decided_by: f(11).into(),
    };
    if v.trial.is_empty() || v.metric.is_empty() {
        return Err("a V1 line names a trial and a metric, and this one leaves one empty".into());
    }
    if let Some(problem) = super::value_problem(&v.metric, &v.unit, v.value) {
        return Err(format!("{} {} {problem}", v.trial, v.metric));
    }
    Ok(((f(1).to_string(), f(2).to_string()), v))
}

/// The union of two notes' lines, sorted and deduplicated, as note text, and how many lines of
/// `theirs` were not in `ours` (pure). Blank lines are dropped.
pub fn union(ours: &str, theirs: &[String]) -> (String, usize) {
    let mut set: std::collections::BTreeSet<&str> = ours.split('\n').filter(|l| !l.trim().is_empty()).collect();
    let before = set.len();
    set.extend(theirs.iter().map(String::as_str).filter(|l| !l.trim().is_empty()));
    let added = set.len() - before;
    let mut text = String::new();
    for l in set {
        text.push_str(l);
        text.push('\n');
    }
    (text, added)
}

/// Adds `run`'s lines to the note of `run.meta.commit` under [`NOTES_REF`] and returns how many
/// lines were new (0: the run was there already). A note of kernelgate's lines only becomes the
/// sorted union of its lines and the run's; a note that holds other lines too (a person's, another
/// tool's) is kept byte for byte and the new lines follow it, sorted. The notes commit is signed
/// with the repository's `user.name`/`user.email`, or `kernelgate <kernelgate@localhost>`. Writers
/// of one repository take turns (a lock file in the git folder, [`crate::store::lock`]), so two
/// runs that end at once both keep their lines.
///
/// # Errors
/// [`Error::Notes`] if the commit is `unknown`, not a full commit id, or not in the repository (the
/// caller warns and goes on: the local store still has the run), if the note holds a copy of the
/// run that disagrees with it, if the note is not text, or libgit2 fails; [`Error::Store`] if the
/// lock is held past [`crate::store::lock::LOCK_WAIT`].
pub fn write_run(repo: &Repository, run: &Run) -> Result<usize> {
    let commit = &run.meta.commit;
    let oid = commit_oid(repo, commit)?;
    let new = lines(run)?;
    with_lock(repo, || {
        let ours = note_text(repo, NOTES_REF, oid)?;
        let (text, added) =
            if parse(&ours, commit)?.skipped.is_empty() { union(&ours, &new) } else { appended(&ours, &new) };
        if added == 0 {
            return Ok(0);
        }
        let read = parse(&text, commit)?;
        let key = (&run.meta.run_id, &run.meta.gpu_uuid);
        let whole =
            read.runs.iter().any(|r| (&r.meta.run_id, &r.meta.gpu_uuid) == key && r.values.len() >= new.len() - 1);
        if !whole {
            let why: Vec<String> = read
                .skipped
                .iter()
                .filter(|s| s.why.contains(run.meta.run_id.as_str()))
                .map(|s| format!("line {}: {}", s.line, s.why))
                .collect();
            return Err(Error::Notes {
                commit: commit.clone(),
                line: None,
                message: format!(
                    "the note holds a copy of run {} on {} that disagrees with this one ({}); nothing was written. \
                     Fix: look at both with `git notes --ref=kernelgate show {commit}` and remove the wrong lines \
                     with `git notes --ref=kernelgate edit {commit}`",
                    run.meta.run_id,
                    run.meta.gpu_uuid,
                    why.join("; ")
                ),
            });
        }
        write_note(repo, oid, &text)?;
        Ok(added)
    })
}

/// `ours` unchanged, then the lines of `new` it lacks, sorted, one per line; and how many were
/// added (pure).
fn appended(ours: &str, new: &[String]) -> (String, usize) {
    let have: std::collections::BTreeSet<&str> = ours.split('\n').collect();
    let mut add: Vec<&str> =
        new.iter().map(String::as_str).filter(|l| !l.trim().is_empty() && !have.contains(l)).collect();
    add.sort_unstable();
    add.dedup();
    let mut text = ours.to_string();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    for l in &add {
        text.push_str(l);
        text.push('\n');
    }
    (text, add.len())
}

/// Unions the notes under `other_ref` (e.g. `refs/notes/kernelgate-origin`, fetched with
/// `git fetch origin refs/notes/kernelgate:refs/notes/kernelgate-origin`) into [`NOTES_REF`],
/// commit by commit, as `git notes merge -s cat_sort_uniq` does: every line of both is kept,
/// sorted, once. Lines kernelgate cannot use are merged like the others (reading skips and names
/// them, [`parse`]). A note that is not text is left as it is and named in [`Merged::warnings`].
/// Merging the same ref again changes nothing.
///
/// # Errors
/// [`Error::Notes`] if `other_ref` does not exist or libgit2 fails; [`Error::Store`] if the lock
/// is held past [`crate::store::lock::LOCK_WAIT`].
pub fn merge_ref(repo: &Repository, other_ref: &str) -> Result<Merged> {
    let git = git_error(other_ref);
    if repo.find_reference(other_ref).is_err() {
        return Err(Error::Notes {
            commit: other_ref.to_string(),
            line: None,
            message: format!("no such notes ref; fetch it first, e.g. `git fetch origin {NOTES_REF}:{other_ref}`"),
        });
    }
    with_lock(repo, || {
        let mut merged = Merged::default();
        let mut writes = Vec::new();
        for item in repo.notes(Some(other_ref)).map_err(&git)? {
            let (note_id, annotated) = item.map_err(&git)?;
            let commit = annotated.to_string();
            merged.commits += 1;
            let texts = blob_text(repo, note_id, &commit).and_then(|t| Ok((t, note_text(repo, NOTES_REF, annotated)?)));
            let (theirs, ours) = match texts {
                Ok(both) => both,
                Err(e @ Error::Notes { .. }) if e.to_string().contains("not UTF-8") => {
                    merged.warnings.push(format!("{e}; this commit's notes were not merged"));
                    continue;
                }
                Err(e) => return Err(e),
            };
            let theirs: Vec<String> = theirs.split('\n').map(str::to_string).collect();
            let (text, added) = union(&ours, &theirs);
            if added > 0 {
                merged.changed += 1;
                merged.lines_added += added;
                writes.push((annotated, text));
            }
        }
        for (oid, text) in writes {
            write_note(repo, oid, &text)?;
        }
        Ok(merged)
    })
}

/// Every run in every note under [`NOTES_REF`], sorted by commit, run id and GPU UUID, and the
/// lines skipped on the way ([`parse`]; a note that is not text is skipped whole, as its line 1);
/// none if the ref does not exist.
///
/// # Errors
/// [`Error::Notes`] if libgit2 fails.
pub fn read_all(repo: &Repository) -> Result<NoteRuns> {
    let git = git_error(NOTES_REF);
    if repo.find_reference(NOTES_REF).is_err() {
        return Ok(NoteRuns::default());
    }
    let mut all = NoteRuns::default();
    for item in repo.notes(Some(NOTES_REF)).map_err(&git)? {
        let (note_id, annotated) = item.map_err(&git)?;
        let commit = annotated.to_string();
        match blob_text(repo, note_id, &commit) {
            Ok(text) => {
                let read = parse(&text, &commit)?;
                all.runs.extend(read.runs);
                all.skipped.extend(read.skipped);
            }
            Err(Error::Notes { message, .. }) if message.contains("not UTF-8") => {
                all.skipped.push(Skipped { commit, line: 1, why: format!("{message}: the whole note") });
            }
            Err(e) => return Err(e),
        }
    }
    all.runs.sort_by(|a, b| {
        (&a.meta.commit, &a.meta.run_id, &a.meta.gpu_uuid).cmp(&(&b.meta.commit, &b.meta.run_id, &b.meta.gpu_uuid))
    });
    all.skipped.sort_by(|a, b| (&a.commit, a.line).cmp(&(&b.commit, b.line)));
    Ok(all)
}

fn git_error(what: &str) -> impl Fn(git2::Error) -> Error {
    let what = what.to_string();
    move |e| Error::Notes { commit: what.clone(), line: None, message: format!("libgit2: {}", e.message()) }
}

/// The commit `commit` names, which must be a full id of a commit in `repo`.
fn commit_oid(repo: &Repository, commit: &str) -> Result<Oid> {
    let refuse = |why: &str| Error::Notes {
        commit: commit.to_string(),
        line: None,
        message: format!("the run cannot be noted: {why}; the local history store still has it"),
    };
    if commit.len() != 40 || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(refuse("its commit is not a full commit id (a run of unknown provenance)"));
    }
    let oid = Oid::from_str(commit).map_err(|e| refuse(e.message()))?;
    repo.find_commit(oid)
        .map_err(|_| refuse("the commit is not in this repository (fetch it, then note the run again)"))?;
    Ok(oid)
}

/// The text of `oid`'s note under `notes_ref`; empty when there is none.
fn note_text(repo: &Repository, notes_ref: &str, oid: Oid) -> Result<String> {
    match repo.find_note(Some(notes_ref), oid) {
        Ok(note) => blob_text(repo, note.id(), &oid.to_string()),
        Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(String::new()),
        Err(e) => Err(git_error(&oid.to_string())(e)),
    }
}

fn blob_text(repo: &Repository, blob: Oid, commit: &str) -> Result<String> {
    let blob = repo.find_blob(blob).map_err(git_error(commit))?;
    String::from_utf8(blob.content().to_vec()).map_err(|_| Error::Notes {
        commit: commit.to_string(),
        line: None,
        message: "the note is not UTF-8 text, so not kernelgate's".into(),
    })
}

fn write_note(repo: &Repository, oid: Oid, text: &str) -> Result<()> {
    let sig = repo
        .signature()
        .or_else(|_| git2::Signature::now("kernelgate", "kernelgate@localhost"))
        .map_err(git_error(&oid.to_string()))?;
    repo.note(&sig, &sig, Some(NOTES_REF), oid, text, true).map_err(git_error(&oid.to_string()))?;
    Ok(())
}

/// Runs `f` holding an exclusive lock on `<git dir>/kernelgate-notes.lock`, signed and waited for
/// as a store folder's ([`crate::store::lock`]): libgit2 moves the notes ref without checking that
/// it is still where it read it, so two writers at once could drop each other's notes commit.
pub(crate) fn with_lock<T>(repo: &Repository, f: impl FnOnce() -> Result<T>) -> Result<T> {
    use std::io::{Seek as _, Write as _};
    let path = repo.path().join("kernelgate-notes.lock");
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(Error::io(&path))?;
    let what = format!("the git notes of {}", repo.path().display());
    crate::store::lock::acquire(
        &file,
        &path,
        &what,
        crate::store::lock::Mode::Exclusive,
        crate::store::lock::LOCK_WAIT,
    )?;
    let me = crate::store::lock::signature();
    let _ = file.set_len(0).and_then(|()| file.rewind()).and_then(|()| file.write_all(me.as_bytes()));
    let out = f();
    // Unlocked when `file` closes, on every path.
    drop(file);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::tests::run;
    use std::path::Path;

    fn commit_in(repo: &Repository) -> String {
        let sig = git2::Signature::now("t", "t@example.com").unwrap();
        let tree = repo.find_tree(repo.treebuilder(None).unwrap().write().unwrap()).unwrap();
        repo.commit(Some("HEAD"), &sig, &sig, "one", &tree, &[]).unwrap().to_string()
    }

    fn sorted(mut r: Run) -> Run {
        r.values
            .sort_by(|a, b| (&a.trial, &a.metric, &a.kernel, &a.unit).cmp(&(&b.trial, &b.metric, &b.kernel, &b.unit)));
        r
    }

    #[test]
    fn lines_round_trip_with_commas_quotes_and_a_nan_is_skipped() {
        let mut r = run("20260101T000000Z", "GPU-a", "c", 6);
        r.values[2].value = f64::NAN;
        r.meta.subject = "Subject, with \"quotes\", commas; and 'more'".into();
        r.meta.commit_time = None;
        r.meta.dirty = None;
        r.meta.work_scale = 0.1;
        let text = lines(&r).unwrap().join("\n");
        assert_eq!(text.lines().count(), 7, "one line per record:\n{text}");
        assert!(text.starts_with("R1,20260101T000000Z,c,,"), "{text}");
        let back = parse(&text, "c").unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].meta, r.meta);
        // A NaN is no measurement: its line is kept in the note, named, and left out.
        assert_eq!(back.skipped.len(), 1, "{:?}", back.skipped);
        assert!(back.skipped[0].why.contains("is NaN s, not a finite number"), "{}", back.skipped[0]);
        let finite = |r: &Run| r.values.iter().filter(|v| !v.value.is_nan()).cloned().collect::<Vec<_>>();
        assert_eq!(back[0].values, finite(&sorted(r.clone())));
        // Order does not matter, duplicates count once.
        let mut shuffled: Vec<&str> = text.lines().rev().collect();
        shuffled.push(text.lines().nth(3).unwrap());
        assert_eq!(parse(&shuffled.join("\n"), "c").unwrap()[0].meta, r.meta);

        r.meta.subject = "two\nlines".into();
        assert!(lines(&r).unwrap_err().to_string().contains("line break"));
    }

    /// Field report turn3/40 and its kind: a line kernelgate cannot use is skipped with commit and
    /// line, and every other line of the note is read.
    #[test]
    fn lines_kernelgate_cannot_use_are_skipped_and_named() {
        let good = lines(&run("20260101T000000Z", "GPU-a", "c", 2)).unwrap();
        let case = |bad: &str| {
            let text = format!("{}\n{bad}\n{}", good[0], good[1..].join("\n"));
            let read = parse(&text, "c").unwrap();
            assert_eq!(read.runs.len(), 1, "{bad}");
            assert_eq!(read.runs[0].values.len(), 2, "{bad}: the other lines are read");
            assert_eq!(read.skipped.len(), 1, "{bad}: {:?}", read.skipped);
            read.skipped[0].to_string()
        };
        let err = case("V1,20260101T000000Z,GPU-a,t,k,median,s,fast,,,,");
        assert!(err.contains("git note of c, line 2") && err.contains("\"fast\" is not a number"), "{err}");
        assert!(
            err.contains("kept as it is and skipped") && err.contains("git notes --ref=kernelgate edit c"),
            "{err}"
        );
        let human = case("LGTM: numbers checked by hand on the H200 (alice)");
        assert!(human.contains("\"LGTM: numbers checked") && human.contains("not a line kernelgate writes"), "{human}");
        assert!(case("X9,whatever").contains("\"X9,whatever\""));
        assert!(case("V1,too,few").contains("has 12 fields, this one 3"));
        assert!(case("\"unclosed,quote").contains("line 2"));
        assert!(case("V1,20260101T000000Z,GPU-a,t,k,median,s,-1e-4,,,,").contains("at least 1 ns"));
        let orphan = parse(&good[1..].join("\n"), "c").unwrap();
        assert!(orphan.runs.is_empty() && orphan.skipped[0].why.contains("without the run's R1 line"), "{orphan:?}");
        let other = parse(&good.join("\n"), "d").unwrap();
        assert!(other.runs.is_empty(), "{other:?}");
        assert!(other.skipped.iter().any(|s| s.why.contains("names commit c")), "{:?}", other.skipped);
        // Two copies of a value that disagree: that value is left out, the rest read.
        let mut moved = run("20260101T000000Z", "GPU-a", "c", 2);
        moved.values[0].value *= 3.0;
        let both = parse(&[good.clone(), lines(&moved).unwrap()].concat().join("\n"), "c").unwrap();
        assert_eq!(both.runs[0].values.len(), 1);
        assert!(both.skipped.iter().any(|s| s.why.contains("disagree")), "{:?}", both.skipped);
        // Two copies of a run that disagree: the run is left out, and named.
        let mut driver = run("20260101T000000Z", "GPU-a", "c", 2);
        driver.meta.driver = "999".into();
        let torn = parse(&[good.clone(), lines(&driver).unwrap()].concat().join("\n"), "c").unwrap();
        assert!(torn.runs.is_empty());
        assert!(
            torn.skipped.iter().any(|s| s.why.contains("driver") && s.why.contains("left out")),
            "{:?}",
            torn.skipped
        );
    }

    /// Field report turn3/40: a person's note beside kernelgate's keeps every note readable and
    /// writable, and is kept byte for byte when a run is noted on its commit.
    #[test]
    fn a_human_note_is_kept_and_does_not_block_other_notes() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let first = commit_in(&repo);
        let sig = git2::Signature::now("t", "t@example.com").unwrap();
        let tree = repo.find_tree(repo.treebuilder(None).unwrap().write().unwrap()).unwrap();
        let parent = repo.find_commit(Oid::from_str(&first).unwrap()).unwrap();
        let second = repo.commit(Some("HEAD"), &sig, &sig, "two", &tree, &[&parent]).unwrap().to_string();
        let human = "LGTM: numbers checked by hand on the H200 (alice)\n\nSecond paragraph, by hand.\n";
        repo.note(&sig, &sig, Some(NOTES_REF), Oid::from_str(&first).unwrap(), human, false).unwrap();
        let on_second = run("20260101T000000Z", "GPU-a", &second, 3);
        write_run(&repo, &on_second).unwrap();
        let read = read_all(&repo).unwrap();
        assert_eq!(read.runs, vec![sorted(on_second.clone())]);
        assert_eq!(read.skipped.len(), 2, "{:?}", read.skipped);
        assert!(read.skipped.iter().all(|s| s.commit == first), "{:?}", read.skipped);
        // A run of the annotated commit is noted too, after the person's text, which stays as it was.
        let on_first = run("20260102T000000Z", "GPU-a", &first, 2);
        assert_eq!(write_run(&repo, &on_first).unwrap(), 3);
        let text = note_text(&repo, NOTES_REF, Oid::from_str(&first).unwrap()).unwrap();
        assert!(text.starts_with(human), "{text}");
        let read = read_all(&repo).unwrap();
        assert_eq!(read.runs.len(), 2);
        assert_eq!(write_run(&repo, &on_first).unwrap(), 0, "idempotent beside a person's lines");
        // A copy of a noted run that disagrees is refused, and the note is left as it was.
        let mut moved = on_first.clone();
        moved.values[0].value *= 2.0;
        let err = write_run(&repo, &moved).unwrap_err().to_string();
        assert!(err.contains("disagrees") && err.contains("git notes --ref=kernelgate edit"), "{err}");
        assert_eq!(note_text(&repo, NOTES_REF, Oid::from_str(&first).unwrap()).unwrap(), text);
    }

    #[test]
    fn write_run_unions_and_refuses_unknown_commits() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        repo.config().unwrap().set_str("user.email", "runner@example.com").unwrap();
        repo.config().unwrap().set_str("user.name", "runner").unwrap();
        let commit = commit_in(&repo);
        let a = run("20260101T000000Z", "GPU-a", &commit, 5);
        let b = run("20260101T000000Z", "GPU-b", &commit, 4);
        assert_eq!(write_run(&repo, &a).unwrap(), 6);
        assert_eq!(write_run(&repo, &a).unwrap(), 0, "idempotent");
        assert_eq!(write_run(&repo, &b).unwrap(), 5);
        assert_eq!(read_all(&repo).unwrap().runs, vec![sorted(a.clone()), sorted(b)]);
        let note = repo.find_note(Some(NOTES_REF), Oid::from_str(&commit).unwrap()).unwrap();
        let text = note.message().unwrap().to_string();
        let mut sorted_lines: Vec<&str> = text.lines().collect();
        sorted_lines.sort();
        assert_eq!(text.lines().collect::<Vec<_>>(), sorted_lines, "sorted");
        assert_eq!(note.author().email().unwrap(), "runner@example.com", "the repository's identity");

        let mut unknown = a.clone();
        unknown.meta.commit = "unknown".into();
        assert!(write_run(&repo, &unknown).unwrap_err().to_string().contains("not a full commit id"));
        unknown.meta.commit = "0123456789012345678901234567890123456789".into();
        assert!(write_run(&repo, &unknown).unwrap_err().to_string().contains("not in this repository"));
    }

    /// The `git` program, if this machine has one (the cat_sort_uniq and push tests need it).
    fn git(dir: &Path, args: &[&str]) -> Option<std::process::Output> {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .output()
            .ok()?;
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        Some(out)
    }

    /// Two runners = two clones of one origin, each noting a different run of the same commit.
    fn two_runners() -> (tempfile::TempDir, Repository, Repository, Run, Run) {
        let dir = tempfile::tempdir().unwrap();
        let origin = Repository::init_bare(dir.path().join("origin.git")).unwrap();
        let commit = commit_in(&origin);
        let url = dir.path().join("origin.git");
        let a = Repository::clone(url.to_str().unwrap(), dir.path().join("a")).unwrap();
        let b = Repository::clone(url.to_str().unwrap(), dir.path().join("b")).unwrap();
        let ra = run("20260101T000000Z", "GPU-a", &commit, 8);
        let rb = run("20260101T000000Z", "GPU-b", &commit, 8);
        write_run(&a, &ra).unwrap();
        write_run(&b, &rb).unwrap();
        (dir, a, b, ra, rb)
    }

    #[test]
    fn notes_of_two_clones_merge_without_losing_a_row() {
        let (_dir, a, b, ra, rb) = two_runners();
        // Runner A pushes its notes to origin (libgit2's local transport needs no network features).
        let mut origin_a = a.find_remote("origin").unwrap();
        origin_a.push(&[format!("{NOTES_REF}:{NOTES_REF}")], None).unwrap();
        // Runner B fetches them beside its own, and merges.
        let mut origin_b = b.find_remote("origin").unwrap();
        origin_b.fetch(&[format!("{NOTES_REF}:refs/notes/kernelgate-origin")], None, None).unwrap();
        let merged = merge_ref(&b, "refs/notes/kernelgate-origin").unwrap();
        assert_eq!(merged, Merged { commits: 1, changed: 1, lines_added: 9, warnings: vec![] });
        assert_eq!(read_all(&b).unwrap().runs, vec![sorted(ra.clone()), sorted(rb.clone())]);
        assert_eq!(
            merge_ref(&b, "refs/notes/kernelgate-origin").unwrap(),
            Merged { commits: 1, changed: 0, lines_added: 0, warnings: vec![] }
        );
        assert_eq!(read_all(&b).unwrap().len(), 2);
        let err = merge_ref(&b, "refs/notes/nothing").unwrap_err().to_string();
        assert!(err.contains("git fetch origin"), "{err}");
    }

    #[test]
    fn gits_cat_sort_uniq_merges_our_lines() {
        let (dir, a, b, ra, rb) = two_runners();
        let Some(_) = std::process::Command::new("git").arg("--version").output().ok() else {
            println!("skipped: no git program on this machine");
            return;
        };
        let mut origin_a = a.find_remote("origin").unwrap();
        origin_a.push(&[format!("{NOTES_REF}:{NOTES_REF}")], None).unwrap();
        let bdir = dir.path().join("b");
        git(&bdir, &["fetch", "origin", &format!("{NOTES_REF}:refs/notes/kernelgate-origin")]).unwrap();
        git(&bdir, &["notes", "--ref=kernelgate", "merge", "-s", "cat_sort_uniq", "refs/notes/kernelgate-origin"])
            .unwrap();
        assert_eq!(read_all(&b).unwrap().runs, vec![sorted(ra), sorted(rb)]);
        // Ours over git's result adds nothing more.
        assert_eq!(merge_ref(&b, "refs/notes/kernelgate-origin").unwrap().lines_added, 0);
    }
}
