//! History that travels with the repository: git notes under [`NOTES_REF`] (`refs/notes/kernelgate`).
//!
//! One note per commit holds the rows of every run of that commit's kernels, as text, **one
//! self-contained line per record** and no header, sorted and without duplicates:
//!
//! ```text
//! R1,<run_id>,<commit>,<dirty>,<kernels_sha256>,<branch>,<commit_time>,<subject>,<gpu_key>,<gpu_name>,<gpu_uuid>,<driver>,<cuda>,<nvrtc>,<ncu>,<ab_revision>,<work_scale>
//! V1,<run_id>,<gpu_uuid>,<trial>,<kernel>,<metric>,<unit>,<value>,<ci_low>,<ci_high>,<verdict>,<decided_by>
//! M1,<run_id>,<gpu_uuid>,<trial>,<kernel>,<module_sha256>
//! ```
//!
//! Each line is a CSV record (RFC 4180 quoting by the csv crate: kernel names and subjects may hold
//! commas and quotes; a field holding a line break is refused). `R`/`V` is the record's kind, `1`
//! its format version; an `M` line names the module a trial's kernel ran from
//! ([`super::TrialModule`]; a kernelgate older than `M1` skips these lines and reads the rest). Unknown values are empty fields (`dirty` is `true`/`false`/empty), numbers
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
//!
//! | part | module |
//! |---|---|
//! | the note's text: lines of a run, parsing, union (pure) | `format.rs` |
//! | reading and writing notes with git2 | `git.rs` |

mod format;
mod git;
#[cfg(test)]
mod tests;

pub use format::{lines, parse, union};
pub(crate) use git::with_lock;
pub use git::{merge_ref, read_all, write_run};

use super::{Run, RunMeta, TrialModule, Value};

/// The notes ref kernelgate writes.
pub const NOTES_REF: &str = "refs/notes/kernelgate";

/// Fields of an `R1` line, kind included.
const RUN_FIELDS: usize = 17;
/// Fields of a `V1` line, kind included.
const VALUE_FIELDS: usize = 12;
/// Fields of an `M1` line, kind included.
const MODULE_FIELDS: usize = 6;

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

/// The warnings for `skipped` lines, one per line for the first [`SHOWN_PER_NOTE`] of each note and
/// one line for the rest of that note (their count and line range), and at most [`SHOWN_IN_ALL`]
/// lines in all, the last saying how many more were left unsaid: a note of a runaway tool's log
/// (hundreds of thousands of lines) reads as a few lines, never one warning per line.
pub fn summarized(skipped: &[Skipped]) -> Vec<String> {
    let mut out = Vec::new();
    let mut unsaid = (0, 0);
    for note in skipped.chunk_by(|a, b| a.commit == b.commit) {
        let (shown, rest) = note.split_at(note.len().min(SHOWN_PER_NOTE));
        let mut lines: Vec<String> = shown.iter().map(ToString::to_string).collect();
        if let (Some(first), Some(last)) = (rest.first(), rest.last()) {
            lines.push(format!(
                "git note of {}: {} more lines skipped (lines {} to {}), as above or other lines kernelgate cannot use; \
                 `git notes --ref=kernelgate show {}` shows them",
                first.commit,
                rest.len(),
                first.line,
                last.line,
                first.commit
            ));
        }
        for line in lines {
            if out.len() < SHOWN_IN_ALL {
                out.push(line);
            } else {
                unsaid.0 += 1;
            }
        }
        if out.len() >= SHOWN_IN_ALL {
            unsaid.1 += 1;
        }
    }
    if unsaid.0 > 0 {
        out.push(format!(
            "{} more warnings about skipped note lines, in {} notes, left unsaid (at most {SHOWN_IN_ALL} are printed)",
            unsaid.0, unsaid.1
        ));
    }
    out
}

/// Skipped lines of one note that [`summarized`] names one by one.
pub const SHOWN_PER_NOTE: usize = 3;

/// Warnings about skipped note lines that [`summarized`] prints in all.
pub const SHOWN_IN_ALL: usize = 30;

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
