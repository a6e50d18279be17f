use super::format::*;
use super::git::*;
use super::*;
use crate::history::tests::run;
use git2::{Oid, Repository};
use std::path::Path;

fn commit_in(repo: &Repository) -> String {
    let sig = git2::Signature::now("t", "t@example.com").unwrap();
    let tree = repo.find_tree(repo.treebuilder(None).unwrap().write().unwrap()).unwrap();
    repo.commit(Some("HEAD"), &sig, &sig, "one", &tree, &[]).unwrap().to_string()
}

fn sorted(mut r: Run) -> Run {
    r.values.sort_by(|a, b| (&a.trial, &a.metric, &a.kernel, &a.unit).cmp(&(&b.trial, &b.metric, &b.kernel, &b.unit)));
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
    assert!(err.contains("kept as it is and skipped") && err.contains("git notes --ref=kernelgate edit c"), "{err}");
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
    assert!(torn.skipped.iter().any(|s| s.why.contains("driver") && s.why.contains("left out")), "{:?}", torn.skipped);
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

/// `git args` in `dir`, with a fixed identity (the cat_sort_uniq test needs the program); panics
/// with git's words on failure. git is one of the README's prerequisites (to clone).
fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("git could not be run ({e}); it is one of the README's prerequisites"));
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
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
    let mut origin_a = a.find_remote("origin").unwrap();
    origin_a.push(&[format!("{NOTES_REF}:{NOTES_REF}")], None).unwrap();
    let bdir = dir.path().join("b");
    git(&bdir, &["fetch", "origin", &format!("{NOTES_REF}:refs/notes/kernelgate-origin")]);
    git(&bdir, &["notes", "--ref=kernelgate", "merge", "-s", "cat_sort_uniq", "refs/notes/kernelgate-origin"]);
    assert_eq!(read_all(&b).unwrap().runs, vec![sorted(ra), sorted(rb)]);
    // Ours over git's result adds nothing more.
    assert_eq!(merge_ref(&b, "refs/notes/kernelgate-origin").unwrap().lines_added, 0);
}

/// Field report turn4/R17 and its kind: a note of hundreds of thousands of lines kernelgate cannot
/// use gives a few warnings per note and a count, and at most SHOWN_IN_ALL in all.
#[test]
fn skipped_lines_are_summarized_per_note_and_capped_in_all() {
    let skipped = |commit: &str, n: usize| -> Vec<Skipped> {
        (1..=n).map(|line| Skipped { commit: commit.into(), line, why: format!("line {line} is not ours") }).collect()
    };
    let one = summarized(&skipped("c1", 330_000));
    assert_eq!(one.len(), SHOWN_PER_NOTE + 1, "{one:#?}");
    assert!(one[0].starts_with("git note of c1, line 1: line 1 is not ours"), "{}", one[0]);
    assert_eq!(
        one[SHOWN_PER_NOTE],
        "git note of c1: 329997 more lines skipped (lines 4 to 330000), as above or other lines kernelgate cannot \
         use; `git notes --ref=kernelgate show c1` shows them"
    );
    let few = summarized(&skipped("c1", 2));
    assert_eq!(few.len(), 2, "two lines, both named: {few:#?}");
    let many: Vec<Skipped> = (0..100).flat_map(|i| skipped(&format!("c{i:03}"), 5)).collect();
    let capped = summarized(&many);
    assert_eq!(capped.len(), SHOWN_IN_ALL + 1, "{capped:#?}");
    assert!(capped.last().unwrap().ends_with("left unsaid (at most 30 are printed)"), "{}", capped.last().unwrap());
    assert!(
        capped.last().unwrap().starts_with("370 more warnings about skipped note lines, in 93 notes"),
        "{}",
        capped.last().unwrap()
    );
}

/// Field report turn4/R19: a notes ref that points at a blob or a tree is named with the fix, and
/// neither read nor changed.
#[test]
fn a_notes_ref_that_is_not_a_commit_is_named_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Repository::init(dir.path()).unwrap();
    let commit = commit_in(&repo);
    let blob = repo.blob(b"not a notes commit\n").unwrap();
    repo.reference(NOTES_REF, blob, true, "a blob").unwrap();
    let e = read_all(&repo).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("git note of {NOTES_REF}: the ref points at a blob ({blob}), not at a commit")),
        "{e}"
    );
    assert!(e.contains("`git update-ref -d refs/notes/kernelgate`"), "{e}");
    let e = write_run(&repo, &run("20260101T000000Z", "GPU-a", &commit, 2)).unwrap_err().to_string();
    assert!(e.contains("the ref points at a blob"), "{e}");
    assert_eq!(repo.refname_to_id(NOTES_REF).unwrap(), blob, "left where it was");
    let tree = repo.treebuilder(None).unwrap().write().unwrap();
    repo.reference(NOTES_REF, tree, true, "a tree").unwrap();
    assert!(read_all(&repo).unwrap_err().to_string().contains("the ref points at a tree"));
}

/// A probe of turn4/R17's kind: one line of a note that is not UTF-8 is skipped alone, and the
/// note's other lines are read.
#[test]
fn a_line_that_is_not_utf8_is_skipped_alone() {
    let good = lines(&run("20260101T000000Z", "GPU-a", "c", 2)).unwrap().join("\n");
    let bytes = [good.as_bytes(), b"\ncaf\xe9 (a Latin-1 line)\n"].concat();
    let (text, bad) = utf8_lines(&bytes);
    assert_eq!(bad, vec![(good.lines().count() + 1, 0xe9)]);
    let read = parse(&text, "c").unwrap();
    assert_eq!(read.runs.len(), 1, "the note's run is read");
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
}

/// A probe of turn4/R19's kind: a notes ref moved to a commit of code (its tree holds files that
/// are not notes) is named as such, not read as notes of commit 0000….
#[test]
fn a_notes_ref_at_a_commit_of_code_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Repository::init(dir.path()).unwrap();
    let sig = git2::Signature::now("t", "t@example.com").unwrap();
    let mut tree = repo.treebuilder(None).unwrap();
    tree.insert("README", repo.blob(b"code\n").unwrap(), 0o100644).unwrap();
    let tree = repo.find_tree(tree.write().unwrap()).unwrap();
    let code = repo.commit(Some("HEAD"), &sig, &sig, "a commit of code", &tree, &[]).unwrap();
    repo.reference(NOTES_REF, code, true, "by hand").unwrap();
    let e = read_all(&repo).unwrap_err().to_string();
    assert!(e.contains("whose tree holds \"README\": not a commit of notes"), "{e}");
}

/// Field report turn4/R50: two runners without NVML (GPU UUID `unknown`) whose notes were merged
/// with git's cat_sort_uniq: the run is left out, and the warning says why such runs collide and
/// that new runs are keyed by the CUDA driver's UUID.
#[test]
fn runs_without_a_gpu_uuid_that_collide_are_named_with_the_cause() {
    let mut a = run("20261130T135841Z", "unknown", "c", 1);
    a.meta.driver = "580.126.09".into();
    let mut b = a.clone();
    b.meta.driver = "580.159.04".into();
    let mut text: Vec<String> = lines(&a).unwrap();
    text.extend(lines(&b).unwrap());
    text.sort();
    text.dedup();
    let read = parse(&text.join("\n"), "c").unwrap();
    assert!(read.runs.is_empty());
    let why = &read.skipped[0].why;
    assert!(why.contains("two copies of run 20261130T135841Z on unknown"), "{why}");
    assert!(why.contains("runs recorded without a GPU UUID (no NVML) share this key"), "{why}");
    assert!(why.contains("records the CUDA driver's UUID where NVML is missing"), "{why}");
}

/// A run's modules travel as `M1` lines: they round-trip, an `M1` line without its run or with a
/// bad hash is skipped and named, and two lines naming two modules for one trial keep the first.
#[test]
fn module_lines_round_trip_and_bad_ones_are_skipped() {
    let r = crate::history::tests::with_modules(run("20260101T000000Z", "GPU-a", "c", 4));
    let text = lines(&r).unwrap();
    assert_eq!(text.iter().filter(|l| l.starts_with("M1,")).count(), 4, "{text:?}");
    let back = parse(&text.join("\n"), "c").unwrap();
    assert!(back.skipped.is_empty(), "{:?}", back.skipped);
    assert_eq!(back.runs[0].modules, r.modules);
    let with = |extra: &str| parse(&format!("{}\n{extra}", text.join("\n")), "c").unwrap();
    let bad = with("M1,20260101T000000Z,GPU-a,synthetic/k0/0,k,not-hex");
    assert!(bad.skipped[0].why.contains("is not a SHA-256"), "{:?}", bad.skipped);
    let kernel = &r.modules[0].kernel;
    let csv_kernel = format!("\"{}\"", kernel.replace('"', "\"\""));
    let second = with(&format!("M1,20260101T000000Z,GPU-a,{},{csv_kernel},{}", r.modules[0].trial, "e".repeat(64)));
    assert!(second.skipped[0].why.contains("the first is kept"), "{:?}", second.skipped);
    assert_eq!(second.runs[0].modules, r.modules);
    let orphan = with(&format!("M1,20260101T000000Z,GPU-z,t,k,{}", "e".repeat(64)));
    assert!(orphan.skipped[0].why.contains("module line(s) of run 20260101T000000Z on GPU-z without"), "{:?}", orphan);
    assert_eq!(with("M1,too,few").skipped[0].why, "an M1 line has 6 fields, this one 3");
}
