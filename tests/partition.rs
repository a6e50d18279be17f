//! `--partition` in the suite binary: with `count:K/N`, N shards list and run every selected trial
//! once between them, in sizes that differ by at most one; with the values `kernelgate plan`
//! prints, every listed trial runs once in the shard the plan gave it, and a plan made for another
//! trial list stops the run; a value outside the forms stops the run with exit code 2 naming the
//! flag. `kernelgate plan`'s GitHub matrix is checked against GitHub's rules for one.

mod support;

use std::collections::BTreeSet;

/// The trial names `--list` prints, with `args`.
fn listed(args: &[&str]) -> Vec<String> {
    let out = tempfile::tempdir().unwrap();
    let (code, text) = support::kernels(&[&["--list"], args].concat(), &[], out.path());
    assert_eq!(code, 0, "{text}");
    text.lines().filter_map(|l| l.strip_suffix(": test")).map(String::from).collect()
}

#[test]
fn the_shards_hold_every_selected_trial_once() {
    for filter in [&[][..], &["transpose"][..]] {
        let all = listed(filter);
        assert!(all.len() > 10, "{all:?}");
        let mut seen = BTreeSet::new();
        let mut sizes = Vec::new();
        for k in 1..=3 {
            let shard = listed(&[filter, &["--partition", &format!("count:{k}/3")]].concat());
            sizes.push(shard.len());
            for name in shard {
                assert!(seen.insert(name.clone()), "{name} in two shards");
            }
        }
        assert_eq!(seen, all.iter().cloned().collect::<BTreeSet<_>>(), "filter {filter:?}");
        assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1, "{sizes:?}");
    }
    assert_eq!(listed(&["--partition=count:1/1"]), listed(&[]));
}

/// A shard's run counts the trials its filter leaves out as libtest does, and runs its share of
/// the rest (no GPU here: the GPU trials are ignored, the compile trials run where NVRTC is).
#[test]
fn a_shard_counts_the_filtered_out_trials_as_the_whole_run_does() {
    let out = tempfile::tempdir().unwrap();
    let summary = |text: &str| text.lines().find(|l| l.starts_with("test result:")).unwrap().to_string();
    let count = |line: &str, what: &str| -> usize {
        let at = line.find(&format!(" {what}")).unwrap();
        line[..at].rsplit(' ').next().unwrap().parse().unwrap()
    };
    let (code, whole) = support::kernels(&["transpose"], &[], out.path());
    assert_eq!(code, 0, "{whole}");
    let whole = summary(&whole);
    let (mut ran, mut filtered) = (0, Vec::new());
    for k in 1..=2 {
        let (code, text) = support::kernels(&["transpose", "--partition", &format!("count:{k}/2")], &[], out.path());
        assert_eq!(code, 0, "{text}");
        assert!(text.contains(&format!("kernelgate: --partition count:{k}/2: ")), "{text}");
        let line = summary(&text);
        ran += count(&line, "passed") + count(&line, "ignored") + count(&line, "failed");
        filtered.push(count(&line, "filtered out"));
    }
    assert_eq!(filtered, [count(&whole, "filtered out"); 2], "{whole}");
    assert_eq!(ran, count(&whole, "passed") + count(&whole, "ignored") + count(&whole, "failed"), "{whole}");
}

#[test]
fn a_value_outside_the_forms_is_refused() {
    let out = tempfile::tempdir().unwrap();
    for bad in ["2-3", "count:4/3", "hash:1/2", "plan:1/2"] {
        let (code, text) = support::kernels(&["--list", "--partition", bad], &[], out.path());
        assert_eq!(code, 2, "{bad}: {text}");
        assert!(text.contains(&format!("kernelgate: --partition {bad:?} is invalid: ")), "{text}");
        assert!(text.contains("count:K/N (or K/N)") && text.contains("plan:K/N:<list>:<code>.<check>"), "{text}");
    }
    // K/N alone is nextest's count form.
    assert_eq!(listed(&["--partition", "2/3"]), listed(&["--partition", "count:2/3"]));
}

/// `kernelgate plan` in a project whose case facts a `--list` run wrote, with `args` after
/// `plan`; returns the exit code, stdout and stderr.
fn plan(out: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let o = support::command(support::kernelgate_binary())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("KERNELGATE_OUT_DIR", out)
        .args([&["plan"], args].concat())
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
    (o.status.code().unwrap_or(-1), text(&o.stdout), text(&o.stderr))
}

/// Three shards of a plan, for two GPU kinds: each shard's `--list` is the plan's trials for it,
/// and together they are every listed trial once; the plan file names the same trials.
#[test]
fn the_shards_of_a_plan_list_every_trial_once() {
    let out = tempfile::tempdir().unwrap();
    let history = tempfile::tempdir().unwrap();
    let all = listed(&[]);
    let (code, text) = support::kernels(&["--list"], &[], out.path());
    assert_eq!(code, 0, "{text}");
    let plan_file = out.path().join("plan.json");
    let (code, stdout, stderr) = plan(
        out.path(),
        &[
            "--shards",
            "3",
            "--gpu",
            "nvidia-h200-sm90",
            "--gpu",
            "nvidia-b200-sm100",
            "--dir",
            history.path().to_str().unwrap(),
            "--out",
            plan_file.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("no times in the history: shards of equal count"), "{stderr}");
    let matrix: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let file: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&plan_file).unwrap()).unwrap();
    let jobs = matrix["include"].as_array().unwrap();
    assert_eq!(jobs.len(), 6, "{matrix}");
    // The commit the suite binary records its runs under, which merge matches the jobs' results by.
    let commit = file["commit"].as_str().unwrap();
    assert!(commit == "unknown" || (commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit())), "{commit}");
    for gpu in ["nvidia-h200-sm90", "nvidia-b200-sm100"] {
        let mut seen = BTreeSet::new();
        for job in jobs.iter().filter(|j| j["gpu"] == gpu) {
            let partition = job["partition"].as_str().unwrap();
            let shard = listed(&["--partition", partition]);
            assert_eq!(shard.len() as u64, job["trials"].as_u64().unwrap());
            let planned = file["jobs"].as_array().unwrap().iter().find(|j| j["partition"] == partition).unwrap();
            assert_eq!(planned["trials"].as_array().unwrap().len(), shard.len());
            for name in shard {
                assert!(seen.insert(name.clone()), "{name} in two shards");
            }
        }
        assert_eq!(seen, all.iter().cloned().collect::<BTreeSet<_>>(), "{gpu}");
    }
    // A value cut short stops the run, saying so.
    let partition = jobs[0]["partition"].as_str().unwrap();
    let cut = &partition[..partition.len() - 1];
    let (code, text) = support::kernels(&["--list", "--partition", cut], &[], out.path());
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("the value was cut or edited") && text.contains("paste the whole value"), "{text}");
    // A plan made for another list of trials (here: of another list's hash) stops the run too.
    let (head, code_part) = partition.rsplit_once(':').unwrap();
    let (prefix, _) = head.rsplit_once(':').unwrap();
    let other = format!("{prefix}:00000000:{code_part}");
    let (code, text) = support::kernels(&["--list", "--partition", &other], &[], out.path());
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("another list of trials") && text.contains("kernelgate plan"), "{text}");
}

/// The GitHub matrix `kernelgate plan` prints is one GitHub Actions takes as `strategy.matrix`
/// (docs.github.com, "Running variations of jobs in a workflow"): an object whose `include` is a
/// list of objects of scalar values, at most 256 jobs, every job's keys the same; and the
/// `$GITHUB_OUTPUT` line `matrix=<json>` needs it on one line.
#[test]
fn the_github_matrix_has_the_shape_github_reads() {
    let out = tempfile::tempdir().unwrap();
    let history = tempfile::tempdir().unwrap();
    let (code, text) = support::kernels(&["--list"], &[], out.path());
    assert_eq!(code, 0, "{text}");
    let (code, stdout, stderr) =
        plan(out.path(), &["--shards", "4", "--gpu", "nvidia-h200-sm90", "--dir", history.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.trim_end().lines().count(), 1, "one line: {stdout}");
    let matrix: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let top = matrix.as_object().unwrap();
    assert_eq!(top.keys().collect::<Vec<_>>(), ["include"]);
    let jobs = top["include"].as_array().unwrap();
    assert!(!jobs.is_empty() && jobs.len() <= 256);
    let keys: BTreeSet<&String> = jobs[0].as_object().unwrap().keys().collect();
    for job in jobs {
        let job = job.as_object().unwrap();
        assert_eq!(job.keys().collect::<BTreeSet<_>>(), keys);
        assert!(job.values().all(|v| !v.is_object() && !v.is_array()), "{job:?}");
        assert!(job["partition"].as_str().unwrap().starts_with("plan:"));
    }
    // A GPU kind with its own number of shards; the others take --shards; a bad count is named.
    let dir = history.path().to_str().unwrap();
    let (code, stdout, stderr) =
        plan(out.path(), &["--shards", "2", "--gpu", "nvidia-h200-sm90=3", "--gpu", "nvidia-b200-sm100", "--dir", dir]);
    assert_eq!(code, 0, "{stderr}");
    let matrix: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let shards_of = |gpu: &str| -> Vec<u64> {
        let jobs = matrix["include"].as_array().unwrap();
        jobs.iter().filter(|j| j["gpu"] == gpu).map(|j| j["shards"].as_u64().unwrap()).collect()
    };
    assert_eq!((shards_of("nvidia-h200-sm90"), shards_of("nvidia-b200-sm100")), (vec![3; 3], vec![2; 2]));
    let (code, _, stderr) = plan(out.path(), &["--gpu", "a-sm90=2", "--gpu", "a-sm90=3", "--dir", dir]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--gpu \"a-sm90\" is invalid") && stderr.contains("given twice"), "{stderr}");
    let (code, _, stderr) = plan(out.path(), &["--gpu", "nvidia-h200-sm90=three", "--dir", dir]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("nvidia-h200-sm90=three") && stderr.contains("KEY=SHARDS"), "{stderr}");
    // Without a trial list, the fix is named.
    let empty = tempfile::tempdir().unwrap();
    let (code, _, stderr) = plan(empty.path(), &["--shards", "2", "--gpu", "g"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("--list"), "{stderr}");
}

#[test]
fn the_help_names_the_flag_before_libtests_own() {
    let out = tempfile::tempdir().unwrap();
    let (code, text) = support::kernels(&["--help"], &[], out.path());
    assert_eq!(code, 0, "{text}");
    let ours = text.find("--partition count:K/N").expect("the flag is in --help");
    let libtest = text.find("--list").expect("libtest's own help follows");
    assert!(ours < libtest && text.contains("kernelgate vars"), "{text}");
}
