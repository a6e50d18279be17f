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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Merged {
    /// Commits noted under the other ref.
    pub commits: usize,
    /// Our notes that changed (got lines).
    pub changed: usize,
    /// Lines added to our notes in all.
    pub lines_added: usize,
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
/// # Errors
/// [`Error::Notes`] with the commit and 1-based line for a line that is not a CSV record of a known
/// kind and version with the right number of fields, a number that does not parse, an `R1` line of
/// another commit, two copies of a run or value that disagree, or values without their run's `R1`.
pub fn parse(text: &str, commit: &str) -> Result<Vec<Run>> {
    /// (run id, GPU UUID), and (trial, metric, kernel, unit).
    type Key = (String, String);
    type ValueKey = (String, String, String, String);
    let mut metas: BTreeMap<Key, RunMeta> = BTreeMap::new();
    let mut values: BTreeMap<Key, BTreeMap<ValueKey, Value>> = BTreeMap::new();
    let mut first_value_line: BTreeMap<Key, usize> = BTreeMap::new();
    for (i, line) in text.split('\n').enumerate() {
        let n = i + 1;
        let bad = |message: String| Error::Notes { commit: commit.to_string(), line: Some(n), message };
        if line.trim().is_empty() {
            continue;
        }
        let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(line.as_bytes());
        let mut rec = csv::StringRecord::new();
        match reader.read_record(&mut rec) {
            Ok(true) => {}
            Ok(false) => continue,
            Err(e) => return Err(bad(format!("not a CSV record: {e}"))),
        }
        let f = |k: usize| rec.get(k).unwrap_or("");
        let number = |k: usize, name: &str| -> Result<f64> {
            f(k).parse::<f64>().map_err(|_| bad(format!("{name} {:?} is not a number", f(k))))
        };
        let maybe = |k: usize, name: &str| -> Result<Option<f64>> {
            if f(k).is_empty() { Ok(None) } else { number(k, name).map(Some) }
        };
        let expect = |want: usize| -> Result<()> {
            if rec.len() == want {
                Ok(())
            } else {
                Err(bad(format!("a {} line has {want} fields, this one {}", f(0), rec.len())))
            }
        };
        match f(0) {
            "R1" => {
                expect(RUN_FIELDS)?;
                let meta = RunMeta {
                    run_id: f(1).into(),
                    commit: f(2).into(),
                    dirty: match f(3) {
                        "true" => Some(true),
                        "false" => Some(false),
                        "" => None,
                        other => return Err(bad(format!("dirty {other:?} is not true, false or empty"))),
                    },
                    kernels_sha256: f(4).into(),
                    branch: f(5).into(),
                    commit_time: match f(6) {
                        "" => None,
                        t => Some(t.parse().map_err(|_| bad(format!("commit_time {t:?} is not unix seconds")))?),
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
                    work_scale: number(16, "work_scale")?,
                };
                if meta.commit != commit {
                    return Err(bad(format!(
                        "the run {} names commit {}, not the noted one",
                        meta.run_id, meta.commit
                    )));
                }
                let key = (meta.run_id.clone(), meta.gpu_uuid.clone());
                match metas.get_mut(&key) {
                    Some(stored) => {
                        merge_meta(stored, &meta)
                            .map_err(|e| bad(format!("two copies of run {} disagree: {e}", key.0)))?;
                    }
                    None => {
                        metas.insert(key, meta);
                    }
                }
            }
            "V1" => {
                expect(VALUE_FIELDS)?;
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
                let key = (f(1).to_string(), f(2).to_string());
                first_value_line.entry(key.clone()).or_insert(n);
                let id = (v.trial.clone(), v.metric.clone(), v.kernel.clone(), v.unit.clone());
                match values.entry(key).or_default().entry(id) {
                    std::collections::btree_map::Entry::Occupied(mut e) => {
                        merge_value(e.get_mut(), &v)
                            .map_err(|m| bad(format!("two copies of {} {} disagree: {m}", v.trial, v.metric)))?;
                    }
                    std::collections::btree_map::Entry::Vacant(e) => {
                        e.insert(v);
                    }
                }
            }
            other => {
                return Err(bad(format!(
                    "a line of kind {other:?}, which this kernelgate does not know (it reads R1 and V1 lines); a newer kernelgate may have written it"
                )));
            }
        }
    }
    if let Some((key, n)) = first_value_line.iter().find(|(k, _)| !metas.contains_key(*k)) {
        return Err(Error::Notes {
            commit: commit.to_string(),
            line: Some(*n),
            message: format!("values of run {} on {} without the run's R1 line", key.0, key.1),
        });
    }
    Ok(metas
        .into_iter()
        .map(|(key, meta)| Run {
            meta,
            values: values.remove(&key).map(|v| v.into_values().collect()).unwrap_or_default(),
        })
        .collect())
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

/// Adds `run`'s lines to the note of `run.meta.commit` under [`NOTES_REF`] (union with the lines
/// there, sorted, deduplicated) and returns how many lines were new (0: the run was there already).
/// The notes commit is signed with the repository's `user.name`/`user.email`, or
/// `kernelgate <kernelgate@localhost>`. Writers of one repository take turns (a lock file in the git
/// folder), so two runs that end at once both keep their lines.
///
/// # Errors
/// [`Error::Notes`] if the commit is `unknown`, not a full commit id, or not in the repository (the
/// caller warns and goes on: the local store still has the run), if the existing note does not
/// parse or holds a copy of the run that disagrees, or libgit2 fails.
pub fn write_run(repo: &Repository, run: &Run) -> Result<usize> {
    let commit = &run.meta.commit;
    let oid = commit_oid(repo, commit)?;
    let new = lines(run)?;
    with_lock(repo, || {
        let ours = note_text(repo, NOTES_REF, oid)?;
        let (text, added) = union(&ours, &new);
        if added > 0 {
            parse(&text, commit)?;
            write_note(repo, oid, &text)?;
        }
        Ok(added)
    })
}

/// Unions the notes under `other_ref` (e.g. `refs/notes/kernelgate-origin`, fetched with
/// `git fetch origin refs/notes/kernelgate:refs/notes/kernelgate-origin`) into [`NOTES_REF`],
/// commit by commit, as `git notes merge -s cat_sort_uniq` does. Every note is checked before any
/// is written: on an error nothing changed. Merging the same ref again changes nothing.
///
/// # Errors
/// [`Error::Notes`] if `other_ref` does not exist, a note (theirs or ours) does not parse, the two
/// hold copies of a run that disagree, or libgit2 fails.
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
            let theirs = blob_text(repo, note_id, &commit)?;
            parse(&theirs, &commit)?;
            let theirs: Vec<String> = theirs.split('\n').map(str::to_string).collect();
            let ours = note_text(repo, NOTES_REF, annotated)?;
            let (text, added) = union(&ours, &theirs);
            if added > 0 {
                parse(&text, &commit)?;
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

/// Every run in every note under [`NOTES_REF`], sorted by commit, run id and GPU UUID; none if the
/// ref does not exist.
///
/// # Errors
/// [`Error::Notes`] if a note does not parse (with its commit and line) or libgit2 fails.
pub fn read_all(repo: &Repository) -> Result<Vec<Run>> {
    let git = git_error(NOTES_REF);
    if repo.find_reference(NOTES_REF).is_err() {
        return Ok(Vec::new());
    }
    let mut runs = Vec::new();
    for item in repo.notes(Some(NOTES_REF)).map_err(&git)? {
        let (note_id, annotated) = item.map_err(&git)?;
        let commit = annotated.to_string();
        runs.extend(parse(&blob_text(repo, note_id, &commit)?, &commit)?);
    }
    runs.sort_by(|a, b| {
        (&a.meta.commit, &a.meta.run_id, &a.meta.gpu_uuid).cmp(&(&b.meta.commit, &b.meta.run_id, &b.meta.gpu_uuid))
    });
    Ok(runs)
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

/// Runs `f` holding an exclusive lock on `<git dir>/kernelgate-notes.lock`: libgit2 moves the notes
/// ref without checking that it is still where it read it, so two writers at once could drop each
/// other's notes commit.
fn with_lock<T>(repo: &Repository, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let path = repo.path().join("kernelgate-notes.lock");
    let file =
        std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(Error::io(&path))?;
    file.lock().map_err(Error::io(&path))?;
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
    fn lines_round_trip_with_commas_quotes_and_nan() {
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
        assert!(back[0].values.iter().any(|v| v.value.is_nan()));
        let finite = |r: &Run| r.values.iter().filter(|v| !v.value.is_nan()).cloned().collect::<Vec<_>>();
        assert_eq!(back[0].meta, r.meta);
        assert_eq!(finite(&back[0]), finite(&sorted(r.clone())));
        // Order does not matter, duplicates count once.
        let mut shuffled: Vec<&str> = text.lines().rev().collect();
        shuffled.push(text.lines().nth(3).unwrap());
        assert_eq!(parse(&shuffled.join("\n"), "c").unwrap()[0].meta, r.meta);

        r.meta.subject = "two\nlines".into();
        assert!(lines(&r).unwrap_err().to_string().contains("line break"));
    }

    #[test]
    fn malformed_lines_are_refused_with_commit_and_line() {
        let good = lines(&run("20260101T000000Z", "GPU-a", "c", 2)).unwrap();
        let case = |bad: &str| {
            let text = format!("{}\n{bad}\n{}", good[0], good[1..].join("\n"));
            parse(&text, "c").unwrap_err().to_string()
        };
        let err = case("V1,20260101T000000Z,GPU-a,t,k,median,s,fast,,,,");
        assert!(err.contains("git note of c, line 2") && err.contains("\"fast\" is not a number"), "{err}");
        assert!(case("X9,whatever").contains("kind \"X9\""));
        assert!(case("V1,too,few").contains("has 12 fields, this one 3"));
        assert!(case("\"unclosed,quote").contains("line 2"));
        let orphan = parse(&good[1..].join("\n"), "c").unwrap_err().to_string();
        assert!(orphan.contains("without the run's R1 line"), "{orphan}");
        let other = parse(&good.join("\n"), "d").unwrap_err().to_string();
        assert!(other.contains("names commit c"), "{other}");
        let mut moved = run("20260101T000000Z", "GPU-a", "c", 2);
        moved.values[0].value *= 3.0;
        let both = [good.clone(), lines(&moved).unwrap()].concat().join("\n");
        assert!(parse(&both, "c").unwrap_err().to_string().contains("disagree"));
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
        assert_eq!(read_all(&repo).unwrap(), vec![sorted(a.clone()), sorted(b)]);
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
        assert_eq!(merged, Merged { commits: 1, changed: 1, lines_added: 9 });
        assert_eq!(read_all(&b).unwrap(), vec![sorted(ra.clone()), sorted(rb.clone())]);
        assert_eq!(
            merge_ref(&b, "refs/notes/kernelgate-origin").unwrap(),
            Merged { commits: 1, changed: 0, lines_added: 0 }
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
        assert_eq!(read_all(&b).unwrap(), vec![sorted(ra), sorted(rb)]);
        // Ours over git's result adds nothing more.
        assert_eq!(merge_ref(&b, "refs/notes/kernelgate-origin").unwrap().lines_added, 0);
    }
}
