use super::*;
use crate::pool::plan::{GpuKind, plan};

fn job(gpu: &str, run_id: &str, outcomes: &[(&str, &str, Option<f64>)]) -> Job {
    Job {
        path: PathBuf::from(format!("artifacts/{gpu}-{run_id}/runs/{run_id}-abcdef0.csv")),
        mode: "baseline",
        run_id: run_id.into(),
        gpu: gpu.into(),
        gpu_uuid: format!("GPU-{gpu}"),
        commit: "abcdef0123".into(),
        against: String::new(),
        trials: outcomes.len(),
        controls: BTreeMap::new(),
        outcomes: outcomes
            .iter()
            .map(|(t, v, d)| {
                (t.to_string(), Outcome { verdict: v.to_string(), delta_pct: *d, decided_by: "time".into(), job: 0 })
            })
            .collect(),
    }
}

fn listed() -> Vec<String> {
    ["copy/a/1", "copy/b/1", "copy/c/1", "copy/d/1", "compile/x.cu/sm_90"].iter().map(|s| s.to_string()).collect()
}

const H200: &str = "nvidia-h200-sm90";
const B200: &str = "nvidia-b200-sm100";

/// Both shards of two GPU kinds report: one column per kind, exit 0.
#[test]
fn every_shard_of_two_gpu_kinds_reported_is_a_pass_with_a_column_each() {
    let p = plan(listed(), &[GpuKind::new(H200, 2), GpuKind::new(B200, 2)]).unwrap();
    let jobs: Vec<Job> = p
        .jobs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let outcomes: Vec<(&str, &str, Option<f64>)> =
                s.trials.iter().filter(|t| reportable(t)).map(|t| (t.as_str(), "unchanged", Some(0.1))).collect();
            job(&s.gpu, &format!("2026120{i}T000000Z"), &outcomes)
        })
        .collect();
    let m = merge(jobs, Some(&p), vec![]);
    assert_eq!((m.status, m.exit_code()), ("pass", 0), "{:?}", m.notes);
    assert_eq!(m.gpus, vec![H200.to_string(), B200.to_string()]);
    let md = m.markdown();
    assert!(md.starts_with(MARKER) && md.contains("✅ no regression"), "{md}");
    assert!(md.contains(&format!("| trial | {H200} | {B200} |")), "{md}");
    assert!(md.contains("| copy/a/1 | unchanged +0.10 % | unchanged +0.10 % |"), "{md}");
    assert_eq!(m.counts(B200), vec![("unchanged", 4)]);
}

/// A shard that regressed fails the whole with the regression's code, and names the trial and
/// its GPU kind.
#[test]
fn a_shard_that_regressed_fails_the_merge() {
    let p = plan(listed(), &[GpuKind::new(H200, 2)]).unwrap();
    let a = &p.jobs[0].trials;
    let b = &p.jobs[1].trials;
    let first: Vec<_> = a.iter().filter(|t| reportable(t)).map(|t| (t.as_str(), "unchanged", Some(0.0))).collect();
    let mut second: Vec<_> = b.iter().filter(|t| reportable(t)).map(|t| (t.as_str(), "unchanged", Some(0.0))).collect();
    second[0].1 = "regressed";
    second[0].2 = Some(4.2);
    let slow = second[0].0.to_string();
    let m =
        merge(vec![job(H200, "20261204T000000Z", &first), job(H200, "20261204T000100Z", &second)], Some(&p), vec![]);
    assert_eq!((m.status, m.exit_code()), ("regressed", EXIT_REGRESSED));
    let md = m.markdown();
    assert!(md.contains("❌ regressions") && md.contains("**Not unchanged**"), "{md}");
    assert!(md.contains(&format!("| {slow} | regressed +4.20 % |")), "{md}");
    let why = format!("{slow} on {H200}: regressed +4.20 %, decided by time");
    assert_eq!(m.reasons(), std::slice::from_ref(&why));
    assert!(md.contains(&format!("**Why**\n\n- {}\n", crate::report::markdown::escape(&why))), "{md}");
    let html = m.html();
    assert!(html.contains("regressed +4.20 %") && html.contains("<!DOCTYPE html>"), "{html}");
    assert!(html.contains(&format!("<h3>Why</h3>\n<ul>\n<li>{}</li>", crate::report::html::escape(&why))), "{html}");
}

/// A shard with no results is named, with its partition value to run again, and is never a pass.
#[test]
fn a_missing_shard_is_named_and_is_not_a_pass() {
    let p = plan(listed(), &[GpuKind::new(H200, 2), GpuKind::new(B200, 2)]).unwrap();
    // Every job but B200's second shard.
    let jobs: Vec<Job> = p
        .jobs
        .iter()
        .filter(|s| !(s.gpu == B200 && s.shard == 2))
        .enumerate()
        .map(|(i, s)| {
            let outcomes: Vec<_> =
                s.trials.iter().filter(|t| reportable(t)).map(|t| (t.as_str(), "unchanged", Some(0.0))).collect();
            job(&s.gpu, &format!("2026120{i}T000000Z"), &outcomes)
        })
        .collect();
    let m = merge(jobs, Some(&p), vec![]);
    assert_eq!((m.status, m.exit_code()), ("missing", EXIT_MISSING));
    assert_eq!(m.missing.len(), 1);
    assert_eq!((m.missing[0].gpu.as_str(), m.missing[0].shard), (B200, 2));
    let md = m.markdown();
    assert!(md.contains("incomplete: 1 shard did not report") && md.contains(&p.jobs[3].partition), "{md}");
    // The JSON says it too.
    let v: serde_json::Value = serde_json::from_str(&m.json()).unwrap();
    assert_eq!(v["status"], "missing");
    assert_eq!(v["missing"][0]["shard"], 2);
    assert_eq!(v["schema"], SCHEMA);
}

/// Nothing at all is never a pass; without a plan, shards are not checked and a note says so.
#[test]
fn nothing_reported_is_not_a_pass_and_no_plan_is_said() {
    let m = merge(vec![], None, vec![]);
    assert_eq!(m.exit_code(), EXIT_MISSING);
    assert!(m.markdown().contains("nothing reported"), "{}", m.markdown());
    let m = merge(vec![job(H200, "20261204T000000Z", &[("copy/a/1", "unchanged", None)])], None, vec![]);
    assert_eq!(m.exit_code(), 0);
    assert!(m.notes.iter().any(|n| n.contains("no plan given")), "{:?}", m.notes);
}

/// A job run again reports its trials twice: the later run's outcome is kept, with a note.
#[test]
fn a_job_run_again_keeps_the_later_outcome() {
    let m = merge(
        vec![
            job(H200, "20261204T010000Z", &[("copy/a/1", "unchanged", Some(0.1))]),
            job(H200, "20261204T000000Z", &[("copy/a/1", "regressed", Some(3.0))]),
        ],
        None,
        vec![],
    );
    assert_eq!(m.trials["copy/a/1"][H200].verdict, "unchanged");
    assert_eq!(m.exit_code(), 0);
    assert!(m.notes.iter().any(|n| n.contains("more than one run")), "{:?}", m.notes);
}

/// Names in the Markdown are escaped (no mention, no autolink).
#[test]
fn names_in_the_markdown_are_escaped() {
    let m = merge(vec![job(H200, "20261204T000000Z", &[("fam/@team/1", "regressed", Some(2.0))])], None, vec![]);
    assert!(!m.markdown().contains("| fam/@team/1 |"), "{}", m.markdown());
}

/// With a plan, a shard some of whose trials did not report (a wrong result leaves no row) is
/// missing those trials, named; results of another commit than the plan's are left out.
#[test]
fn unreported_trials_and_other_commits_are_never_a_pass() {
    let mut p = plan(listed(), &[GpuKind::new(H200, 1)]).unwrap();
    p.commit = "abcdef0123".into();
    // Three of the four timed trials reported; the compile trial never does.
    let m = merge(
        vec![job(
            H200,
            "20261204T000000Z",
            &[("copy/a/1", "unchanged", None), ("copy/b/1", "unchanged", None), ("copy/c/1", "unchanged", None)],
        )],
        Some(&p),
        vec![],
    );
    assert_eq!((m.status, m.exit_code()), ("missing", EXIT_MISSING));
    assert_eq!(m.missing[0].unreported, vec!["copy/d/1".to_string()]);
    let md = m.markdown();
    assert!(md.contains("1 of its 4 trials did not report (failed their check, or the job stopped): copy/d/1"), "{md}");
    // The same results measured at another commit: left out, so nothing reported.
    let mut other = job(H200, "20261204T000000Z", &[("copy/a/1", "unchanged", None)]);
    other.commit = "0123456789".into();
    let m = merge(vec![other], Some(&p), vec![]);
    assert_eq!(m.exit_code(), EXIT_MISSING);
    assert!(m.notes.iter().any(|n| n.contains("not the plan's abcdef0")), "{:?}", m.notes);
}

/// A lesson that no longer holds (`broken`) fails the merge as a regression does; the A/A controls
/// are counted per GPU kind.
#[test]
fn a_broken_lesson_fails_and_controls_are_counted() {
    let mut j = job(H200, "20261204T000000Z", &[("copy/a/1", "unchanged", None), ("copy/a_vs_b/1", "broken", None)]);
    j.controls =
        [("copy/c/1".to_string(), "unchanged".to_string()), ("copy/d/1".to_string(), "improved".to_string())].into();
    let m = merge(vec![j], None, vec![]);
    assert_eq!(m.exit_code(), EXIT_REGRESSED);
    assert_eq!(m.controls(H200), (2, 1));
    let md = m.markdown();
    assert!(md.contains("controls (A/A): 1 of 2 unchanged") && md.contains("| copy/a\\_vs\\_b/1 | broken |"), "{md}");
    assert_eq!(m.reasons(), [format!("copy/a_vs_b/1 on {H200}: broken, decided by time")]);
    assert!(m.html().contains("<h2>Not unchanged</h2>"));
}

/// The report says what was compared: each distinct (B, A) pair, or a commit against the baseline.
#[test]
fn the_report_names_what_was_compared() {
    let mut ab = job(H200, "20261203T000000Z", &[("copy/a/1", "unchanged", Some(0.1))]);
    ab.mode = "ab";
    ab.against = "1234567890".into();
    let base = job(B200, "20261203T000001Z", &[("copy/a/1", "unchanged", None)]);
    let m = merge(vec![ab.clone(), ab, base], None, Vec::new());
    assert_eq!(m.compared().as_deref(), Some("B abcdef0 against A 1234567; abcdef0 against the baseline"));
    assert!(m.markdown().contains("\nCompared: B abcdef0 against A 1234567; abcdef0 against the baseline\n"));
    assert!(m.html().contains("<p>Compared: B abcdef0 against A 1234567; abcdef0 against the baseline</p>"));
    assert_eq!(merge(Vec::new(), None, Vec::new()).compared(), None);
}

/// Two copies of one run (one run id on one GPU) that disagree are named, and the failing outcome
/// is kept whatever their order (a new user's report: the file order decided).
#[test]
fn copies_of_one_run_that_disagree_are_named_and_the_failure_kept() {
    let original =
        job(H200, "20261204T000000Z", &[("copy/a/1", "unchanged", Some(0.1)), ("copy/b/1", "unchanged", None)]);
    let mut edited =
        job(H200, "20261204T000000Z", &[("copy/a/1", "regressed", Some(4.0)), ("copy/b/1", "unchanged", None)]);
    edited.path = PathBuf::from("shards/b/run.csv");
    for jobs in [vec![original.clone(), edited.clone()], vec![edited, original]] {
        let m = merge(jobs, None, Vec::new());
        assert_eq!(m.status, "regressed", "{:?}", m.notes);
        assert_eq!(m.trials["copy/a/1"][H200].verdict, "regressed");
        assert!(
            m.notes.iter().any(|n| n.contains(
                "are copies of one run (20261204T000000Z on GPU-nvidia-h200-sm90) that \
                                              disagree on 1 trial (copy/a/1)"
            )),
            "{:?}",
            m.notes
        );
    }
}
