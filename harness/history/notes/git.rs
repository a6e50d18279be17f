//! Notes read and written with git2 under [`NOTES_REF`].

use super::format::appended;
use super::*;
use crate::error::{Error, Result};
use git2::{Oid, Repository};

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
    notes_ref_exists(repo, NOTES_REF)?;
    with_lock(repo, || {
        let ours = note_text(repo, NOTES_REF, oid)?;
        let (text, added) =
            if parse(&ours, commit)?.skipped.is_empty() { union(&ours, &new) } else { appended(&ours, &new) };
        if added == 0 {
            return Ok(0);
        }
        let read = parse(&text, commit)?;
        let key = (&run.meta.run_id, &run.meta.gpu_uuid);
        let whole = read
            .runs
            .iter()
            .any(|r| (&r.meta.run_id, &r.meta.gpu_uuid) == key && r.values.len() + r.modules.len() >= new.len() - 1);
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
    notes_ref_exists(repo, NOTES_REF)?;
    if !notes_ref_exists(repo, other_ref)? {
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
    if !notes_ref_exists(repo, NOTES_REF)? {
        return Ok(NoteRuns::default());
    }
    let mut all = NoteRuns::default();
    for item in repo.notes(Some(NOTES_REF)).map_err(&git)? {
        let (note_id, annotated) = item.map_err(&git)?;
        let commit = annotated.to_string();
        let blob = repo.find_blob(note_id).map_err(git_error(&commit))?;
        // A line that is not UTF-8 is skipped alone, as any line kernelgate cannot use: the
        // note's other lines are read.
        let (text, not_utf8) = utf8_lines(blob.content());
        let read = parse(&text, &commit)?;
        all.runs.extend(read.runs);
        all.skipped.extend(read.skipped);
        all.skipped.extend(not_utf8.into_iter().map(|(line, byte)| Skipped {
            commit: commit.clone(),
            line,
            why: format!("byte 0x{byte:02x} is not UTF-8, so this line is not one kernelgate writes"),
        }));
    }
    all.runs.sort_by(|a, b| {
        (&a.meta.commit, &a.meta.run_id, &a.meta.gpu_uuid).cmp(&(&b.meta.commit, &b.meta.run_id, &b.meta.gpu_uuid))
    });
    all.skipped.sort_by(|a, b| (&a.commit, a.line).cmp(&(&b.commit, b.line)));
    Ok(all)
}

/// Whether `notes_ref` exists; where it does, it must point at a commit, as a notes ref always
/// does (the commit of the tree of notes, git-notes(1)).
///
/// # Errors
/// [`Error::Notes`] naming the ref when it points at a blob, a tree or a tag, with the fix; nothing
/// is read or changed there.
pub(super) fn notes_ref_exists(repo: &Repository, notes_ref: &str) -> Result<bool> {
    let Ok(reference) = repo.find_reference(notes_ref) else { return Ok(false) };
    let target = reference.resolve().ok().and_then(|r| r.target());
    let kind = target.and_then(|oid| repo.find_object(oid, None).ok()).and_then(|o| o.kind());
    let refuse = |what: String| Error::Notes {
        commit: notes_ref.to_string(),
        line: None,
        message: format!(
            "the ref points at {what}: a notes ref points at the commit of a tree of notes (git-notes(1)), so \
             kernelgate reads and writes nothing there, and changed nothing. Fix: point it back at its last notes \
             commit (`git reflog {notes_ref}` lists where it was, then `git update-ref {notes_ref} <commit>`), or \
             remove it to start afresh (`git update-ref -d {notes_ref}`)"
        ),
    };
    match kind {
        Some(git2::ObjectType::Commit) => {
            // A tree of notes holds files and fan-out folders named by hex digits of the commits
            // they annotate; a code commit's tree (README, src/) does not.
            let commit = repo.find_commit(target.expect("a commit has an id")).map_err(git_error(notes_ref))?;
            let tree = commit.tree().map_err(git_error(notes_ref))?;
            let foreign = tree.iter().find_map(|e| {
                let name = e.name().unwrap_or("?");
                (!name.bytes().all(|b| b.is_ascii_hexdigit())).then(|| name.to_string())
            });
            match foreign {
                Some(name) => Err(refuse(format!(
                    "commit {} (\"{}\"), whose tree holds {name:?}: not a commit of notes",
                    &commit.id().to_string()[..12],
                    crate::console::shown(commit.summary().ok().flatten().unwrap_or(""))
                ))),
                None => Ok(true),
            }
        }
        other => {
            let what = match (other, target) {
                (Some(kind), Some(oid)) => format!("a {kind} ({oid})"),
                (None, Some(oid)) => format!("{oid}, which is not in this repository"),
                _ => "nothing it can name".to_string(),
            };
            Err(refuse(format!("{what}, not at a commit")))
        }
    }
}

/// `bytes` as text with every line that is not UTF-8 left empty, and those lines (1-based) with
/// their first byte that is not (pure).
pub(super) fn utf8_lines(bytes: &[u8]) -> (String, Vec<(usize, u8)>) {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return (text.to_string(), Vec::new());
    }
    let mut bad = Vec::new();
    let lines: Vec<&str> = bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, line)| {
            std::str::from_utf8(line).unwrap_or_else(|e| {
                bad.push((i + 1, line[e.valid_up_to()]));
                ""
            })
        })
        .collect();
    (lines.join("\n"), bad)
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
pub(super) fn note_text(repo: &Repository, notes_ref: &str, oid: Oid) -> Result<String> {
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
