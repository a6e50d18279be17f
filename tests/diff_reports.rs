//! `kernelgate diff` as a user meets it, on the turn-3 field reports
//! (tests/fixtures/field-reports/turn3/, copies of ../shared/fixtures/field-reports/turn3/): sides of
//! two GPU models are refused (15), a report is written whole or not at all (17), the Markdown meant
//! for a pull-request comment neither notifies, links nor reorders (18b) and keeps its size (19),
//! and a damaged history does not stop a diff of two run CSVs (58).

mod support;

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/field-reports/turn3").join(path)
}

/// Runs `kernelgate args` in `dir`; returns the exit code, stdout and stderr.
fn kernelgate_in(dir: &Path, args: &[&str], file_size_limit: Option<u64>) -> (i32, String, String) {
    let mut cmd = support::command(support::kernelgate_binary());
    cmd.current_dir(dir).args(args).env_remove("KERNELGATE_HISTORY");
    if let Some(bytes) = file_size_limit {
        // SAFETY: between fork and exec; setrlimit and signal are async-signal-safe (POSIX), and
        // nothing else runs in the child. RLIMIT_FSIZE makes a write past `bytes` fail with EFBIG,
        // as a full disk fails a write; SIGXFSZ, which would kill the child instead, is ignored
        // (an ignored signal stays ignored across exec).
        unsafe {
            cmd.pre_exec(move || {
                let limit = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
                if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                Ok(())
            });
        }
    }
    let out = cmd.output().unwrap();
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    (out.status.code().unwrap_or(-1), stdout, stderr)
}

fn kernelgate(dir: &Path, args: &[&str]) -> (i32, String, String) {
    kernelgate_in(dir, args, None)
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn report_15_sides_of_two_gpu_models_are_refused_and_another_driver_or_clock_is_named() {
    let (h200, a100) =
        (fixture("15-diff-different-gpu-models/h200.csv"), fixture("15-diff-different-gpu-models/a100.csv"));
    let tmp = tempfile::tempdir().unwrap();
    let refused = "ran on NVIDIA H200 (nvidia-h200-sm90, compute capability 9.0) and the new side";
    let models = "on NVIDIA A100-SXM4-80GB (nvidia-a100-sxm4-80gb-sm80, compute capability 8.0): times of different \
                  GPU models are not comparable, so no diff is made";
    let (code, out, err) = kernelgate(tmp.path(), &["diff", "--dir", "h", path(&h200), path(&a100)]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.is_empty(), "no report: {out}");
    assert!(err.contains(refused) && err.contains(models), "{err}");
    // The same runs from the history, by run id.
    let (code, _, err) = kernelgate(tmp.path(), &["history", "--dir", "h", "import", path(&h200), path(&a100)]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = kernelgate(tmp.path(), &["diff", "--dir", "h", "20261130T135841Z", "20261201T101010Z"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains(refused) && err.contains(models), "{err}");

    // One model, another driver and a lower SM clock (edited copies of the H200 run): the diff is
    // made, and its notes say so before the numbers.
    let text = std::fs::read_to_string(&h200).unwrap();
    let other = text.replace(",580.159.04,", ",575.57.08,").replace(",sm_clock,1980.0,MHz", ",sm_clock,1755.0,MHz");
    assert_ne!(other, text, "the fixture holds the fields edited");
    let edited = tmp.path().join("other-driver.csv");
    std::fs::write(&edited, other).unwrap();
    let (code, out, err) = kernelgate(tmp.path(), &["diff", "--dir", "h", path(&h200), path(&edited)]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "> **Note:** the sides ran with different drivers (old: 580.159.04 (CUDA 13.0); new: 575.57.08 (CUDA 13.0))"
        ),
        "{out}"
    );
    assert!(
        out.contains("> **Note:** the sides ran at different SM clocks (median over their trials: old 1980 MHz, new 1755 MHz, -11.4 %)"),
        "{out}"
    );
}

#[test]
fn report_17_a_report_is_written_whole_or_not_at_all() {
    let tmp = tempfile::Builder::new().prefix("reports").tempdir().unwrap();
    let runs = Path::new(env!("CARGO_MANIFEST_DIR")).join("baselines/nvidia-h200-sm90/runs");
    let (code, _, err) = kernelgate(tmp.path(), &["history", "--dir", "h", "import", path(&runs)]);
    assert_eq!(code, 0, "{err}");
    let (md, html) = (tmp.path().join("report.md"), tmp.path().join("report.html"));
    std::fs::write(&md, "last night's report").unwrap();
    std::fs::write(&html, "last night's report").unwrap();
    let args = ["diff", "--dir", "h", "64fef93", "72a91c3", "--markdown", "report.md", "--html", "report.html"];

    // A write that stops at 100 KiB, as a full disk does: the Markdown (under 60,000 bytes) would
    // fit, the HTML page does not; neither replaces last night's.
    let (code, out, err) = kernelgate_in(tmp.path(), &args, Some(100 * 1024));
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.starts_with(
            "kernelgate: report.html: the report could not be written (File too large (os error 27)); the \
                         previous file at this path, if any, is left as it was"
        ),
        "{err}"
    );
    assert!(!err.contains(".tmp"), "no temporary file's name: {err}");
    assert_eq!(std::fs::read_to_string(&md).unwrap(), "last night's report");
    assert_eq!(std::fs::read_to_string(&html).unwrap(), "last night's report");
    let left: Vec<String> =
        std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(left.iter().all(|n| !n.starts_with(".tmp")), "a temporary file was left: {left:?}");

    // Without the limit both are replaced, whole.
    let (code, out, err) = kernelgate(tmp.path(), &args);
    assert_eq!(code, 0, "{err}");
    assert!(err.starts_with("wrote report.md (") && err.contains("\nwrote report.html\n"), "{err}");
    assert!(out.is_empty(), "stdout is for the report itself: {out}");
    assert!(std::fs::read_to_string(&md).unwrap().ends_with("</details>\n"));
    assert!(std::fs::read_to_string(&html).unwrap().ends_with("</html>\n"));

    // A folder that does not exist, and a folder given as the file: named, with the fix.
    let (code, _, err) =
        kernelgate(tmp.path(), &["diff", "--dir", "h", "64fef93", "72a91c3", "--markdown", "no/such/dir/report.md"]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "kernelgate: no/such/dir/report.md: --markdown: its folder no/such/dir does not exist; create it (mkdir -p \
         no/such/dir) or name a file in a folder that exists\n",
        "checked before any work"
    );
    let (code, _, err) = kernelgate(tmp.path(), &["diff", "--dir", "h", "64fef93", "72a91c3", "--html", "h"]);
    assert_eq!(code, 1);
    assert!(err.starts_with("kernelgate: h: --html: it names a folder; name a file instead"), "{err}");
}

#[test]
fn report_18b_markdown_neither_notifies_links_nor_reorders_and_keeps_its_tables() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = fixture("18b-markdown-mentions-and-bidi");
    let (code, _, err) = kernelgate(tmp.path(), &["history", "--dir", "h", "import", path(&runs)]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = kernelgate(
        tmp.path(),
        &["diff", "--dir", "h", "a1a1a1a1", "b2b2b2b2", "--markdown", "r.md", "--html", "r.html"],
    );
    assert_eq!(code, 0, "{err}");
    let md = std::fs::read_to_string(tmp.path().join("r.md")).unwrap();
    // A mention is `@` then a letter or digit (GitHub's rule); a bare URL needs `://` or `www.`.
    let chars: Vec<char> = md.chars().collect();
    for (i, w) in chars.windows(2).enumerate() {
        assert!(!(w[0] == '@' && w[1].is_ascii_alphanumeric()), "a live mention at {i}: {md}");
    }
    assert!(!md.contains("://") && !md.to_ascii_lowercase().contains("www."), "{md}");
    assert!(!md.contains('\u{202E}'), "a right-to-left override survived");
    assert!(md.contains(r"fam/\[U+202E\]gnp.exe/1"), "shown by its code point: {md}");
    assert!(!md.contains("<script") && !md.contains("<img") && !md.contains("<b>"), "{md}");
    // Each row keeps its table's columns: 4 in the changed trials' table, 5 in the every-metric one.
    let mut header = None;
    for line in md.lines() {
        if !line.starts_with('|') {
            header = None;
            continue;
        }
        let borders = line.replace(r"\|", "").matches('|').count();
        let expected = *header.get_or_insert(borders);
        assert!(expected == 5 || expected == 6, "a table of {expected} cell borders: {line}");
        assert_eq!(borders, expected, "{borders} cell borders in {line}");
    }
    let html = std::fs::read_to_string(tmp.path().join("r.html")).unwrap();
    assert!(!html.contains('\u{202E}') && html.contains("fam/[U+202E]gnp.exe/1"), "the HTML page too");
}

/// A schema-5 run CSV of `trials` trials with one `median` row each, in the form of the turn-3
/// fixtures' `_tools/mkruns.py` (made-up values).
fn synthetic_run(path: &Path, run_id: &str, commit: &str, trials: usize, median: impl Fn(usize) -> f64) {
    let header = "schema_version,run_id,commit,dirty,kernels_dirty,kernels_sha256,branch,commit_time,subject,repo_state,\
                  gpu_key,gpu_name,compute_capability,sm_count,memory_mib,driver,cuda,nvrtc,ecc,gpu_uuid,gpu_serial,vbios,\
                  pci_bus_id,copy_bandwidth_gbps,seed,work_scale,trial,kernel,module_sha256,verdict,decided_by,ab_revision,\
                  throttle_reasons,other_processes,statistic,value,unit";
    let mut text = format!("{header}\n");
    for t in 0..trials {
        text += &format!(
            "5,{run_id},{commit},false,false,{},main,1764547200,synthetic,branch,nvidia-h200-sm90,NVIDIA H200,9.0,132,\
             143155,580.159.04,13.0,13.0,true,GPU-1c2e7f54-12d2-81fb-f3bb-e68e916447fc,1,v,00000000:18:00.0,4209.0,7,1,\
             fam{}/kernel_{t}/4096,kernel_{t},{},unchanged,time,,,,median,{:?},s\n",
            "ab".repeat(32),
            t % 12,
            "cd".repeat(32),
            median(t)
        );
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn report_19_ten_thousand_changed_trials_keep_the_markdown_under_its_promise() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a.csv"), tmp.path().join("b.csv"));
    let base = |t: usize| 1e-4 * (1.0 + t as f64 / 10_000.0);
    synthetic_run(&a, "20261201T000000Z", &"c1".repeat(20), 10_000, base);
    synthetic_run(
        &b,
        "20261202T000000Z",
        &"c2".repeat(20),
        10_000,
        |t| if t % 2 == 0 { base(t) * 1.05 } else { base(t) },
    );
    let (code, out, err) = kernelgate(tmp.path(), &["diff", "--dir", "h", "a.csv", "b.csv", "--markdown", "r.md"]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(err.starts_with("wrote r.md (5000 slower, 5000 within 1 % (10000 trials)"), "{err}");
    let md = std::fs::read_to_string(tmp.path().join("r.md")).unwrap();
    // docs/history.md: "at most 60,000 characters".
    assert!(md.chars().count() <= 60_000, "{} characters", md.chars().count());
    let kept = md.lines().filter(|l| l.starts_with("| fam") && l.contains(" -> ")).count();
    let said = format!("{} more changed trials left out of this table", 5000 - kept);
    assert!(kept > 0 && md.contains(&said), "{kept} rows kept; {said:?} not said");
    assert!(md.contains("the HTML report (`kernelgate diff ... --html FILE`) lists every trial"), "where the rest is");
}

#[test]
fn report_58_a_damaged_history_leaves_out_the_trend_charts_not_the_diff() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("hist")).unwrap();
    std::fs::write(tmp.path().join("hist/nvidia-h200-sm90.sqlite"), "not sqlite\n").unwrap();
    let (a, b) = (fixture("58-damaged-store-blocks-csv-diff/a.csv"), fixture("58-damaged-store-blocks-csv-diff/b.csv"));
    let (code, out, err) = kernelgate(tmp.path(), &["diff", "--dir", "hist", path(&a), path(&b)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("### kernelgate diff: 2 within 1 % (2 trials)"), "{out}");
    assert!(err.is_empty(), "the Markdown alone needs no history: {err}");
    let (code, out, err) = kernelgate(tmp.path(), &["diff", "--dir", "hist", path(&a), path(&b), "--html", "r.html"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("wrote r.html") && out.starts_with("### kernelgate diff"), "{out}");
    let warning = "kernelgate: warning: the trend charts are left out: the history could not be read \
                   (hist/nvidia-h200-sm90.sqlite: the history store failed: file is not a database";
    assert!(err.starts_with(warning), "{err}");
    let html = std::fs::read_to_string(tmp.path().join("r.html")).unwrap();
    assert!(html.contains("the trend charts are left out") && !html.contains("Trends across commits"), "{html}");
    assert_eq!(std::fs::read(tmp.path().join("hist/nvidia-h200-sm90.sqlite")).unwrap(), b"not sqlite\n", "untouched");
}

/// A schema-5 run CSV of one trial with the statistics given (made-up values), as an A/B run
/// against `ab_revision` when that is not empty.
fn one_trial_run(
    path: &Path,
    run_id: &str,
    commit: &str,
    ab_revision: &str,
    verdict: &str,
    stats: &[(&str, f64, &str)],
) {
    let header = "schema_version,run_id,commit,dirty,kernels_dirty,kernels_sha256,branch,commit_time,subject,repo_state,\
                  gpu_key,gpu_name,compute_capability,sm_count,memory_mib,driver,cuda,nvrtc,ecc,gpu_uuid,gpu_serial,vbios,\
                  pci_bus_id,copy_bandwidth_gbps,seed,work_scale,trial,kernel,module_sha256,verdict,decided_by,ab_revision,\
                  throttle_reasons,other_processes,statistic,value,unit";
    let time = 1764547200 + run_id[9..15].parse::<i64>().unwrap();
    let mut text = format!("{header}\n");
    for (statistic, value, unit) in stats {
        text += &format!(
            "5,{run_id},{commit},false,false,{},main,{time},synthetic,branch,nvidia-h200-sm90,NVIDIA H200,9.0,132,\
             143155,580.159.04,13.0,13.0,true,GPU-1c2e7f54-12d2-81fb-f3bb-e68e916447fc,1,v,00000000:18:00.0,4209.0,7,1,\
             fam/k/4096,k,{},{verdict},time{},{ab_revision},,,{statistic},{value:?},{unit}\n",
            "ab".repeat(32),
            "cd".repeat(32),
            if ab_revision.is_empty() { "" } else { " (A/B)" },
        );
    }
    std::fs::write(path, text).unwrap();
}

/// An A/B run in the history is what it is, a paired comparison: listed as one, shown beside the
/// diff of its two commits, and kept out of its commit's side and of the trial's series (the
/// issue's "A/B runs go into the history as what they are").
#[test]
fn an_ab_run_in_the_history_is_paired_evidence_not_its_commits_measurement() {
    let tmp = tempfile::tempdir().unwrap();
    let (c1, c2, c3) = ("c1".repeat(20), "c2".repeat(20), "c3".repeat(20));
    let dir = tmp.path();
    one_trial_run(&dir.join("a.csv"), "20261201T000001Z", &c1, "", "unchanged", &[("median", 100e-6, "s")]);
    one_trial_run(&dir.join("b.csv"), "20261201T000002Z", &c2, "", "unchanged", &[("median", 105e-6, "s")]);
    let paired = [
        ("samples", 1603.0, "count"),
        ("median", 101e-6, "s"),
        ("baseline_median", 100e-6, "s"),
        ("delta", 0.97, "%"),
        ("p_adjusted", 3.0e-5, "1"),
    ];
    one_trial_run(&dir.join("ab.csv"), "20261201T000003Z", &c2, &c1, "regressed", &paired);
    one_trial_run(&dir.join("ab3.csv"), "20261201T000004Z", &c3, &c1, "regressed", &paired);
    let (code, _, err) = kernelgate(dir, &["history", "import", "--dir", "h", "a.csv", "b.csv", "ab.csv", "ab3.csv"]);
    assert_eq!(code, 0, "{err}");

    let (code, out, err) = kernelgate(dir, &["history", "runs", "--dir", "h"]);
    assert_eq!(code, 0, "{err}");
    let listed: Vec<&str> = out.lines().filter(|l| l.contains("A/B against c1c1c1c")).collect();
    assert_eq!(listed.len(), 2, "both A/B runs are listed as such:\n{out}");

    let (code, out, err) = kernelgate(dir, &["diff", "--dir", "h", &c1[..8], &c2[..8], "--html", "r.html"]);
    assert_eq!(code, 0, "{err}");
    // The new side is c2's own run (105 us), not pooled with the A/B run's paired B (101 us).
    assert!(out.contains("| fam/k/4096 | time (median) | 100.0 us | 105.0 us | +5.00% |"), "{out}");
    assert!(out.contains("1 same-run A/B run of the new commit against the old one is in the history"), "{out}");
    assert!(out.contains("#### Same-run A/B of these two commits"), "{out}");
    let row = "| fam/k/4096 | 100.0 us -> 101.0 us | +0.97%, adj. p 3.0e-5 | 1603 | regressed, time (A/B) |";
    assert!(out.contains(row), "{out}");
    let html = std::fs::read_to_string(dir.join("r.html")).unwrap();
    assert!(html.contains("<h2>Same-run A/B of these two commits</h2>") && html.contains("+0.97%"), "the HTML too");
    // The other way round the pairs do not apply (A is the old side's commit).
    let (_, out, _) = kernelgate(dir, &["diff", "--dir", "h", &c2[..8], &c1[..8]]);
    assert!(!out.contains("Same-run A/B"), "{out}");

    // A commit with A/B runs only (a pull request's head): diffed against its A, both sides are read
    // from the pairs (A's median over the pairs -> B's).
    let (code, out, err) = kernelgate(dir, &["diff", "--dir", "h", &c1[..8], &c3[..8]]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("| fam/k/4096 | time (median) | 100.0 us | 101.0 us | +1.00% |"), "{out}");
    assert!(
        out.contains("has no run of its own in the history: both sides are read from the same-run A/B runs"),
        "{out}"
    );
    assert!(out.contains("| fam/k/4096 | 100.0 us -> 101.0 us | +0.97%"), "the pairs beside it: {out}");
    assert!(!out.contains("different drivers") && !out.contains("different physical GPUs"), "one set of runs: {out}");
    // The same two diffs as JSON: the pairs as numbers, and sides read from them said so.
    let json = |old: &str, new: &str| -> serde_json::Value {
        let (code, out, err) = kernelgate(dir, &["diff", "--dir", "h", old, new, "--format", "json"]);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let doc = json(&c1[..8], &c2[..8]);
    assert_eq!(doc["old"]["from_pairs"], false);
    let pair = &doc["paired"][0];
    assert_eq!(
        (pair["trial"].as_str(), pair["run"].as_str()),
        (Some("fam/k/4096"), Some("20261201T000003Z@GPU-1c2e7f54"))
    );
    assert_eq!((pair["a_median_s"].as_f64(), pair["b_median_s"].as_f64()), (Some(100e-6), Some(101e-6)));
    assert_eq!(
        (pair["delta_pct"].as_f64(), pair["p_adjusted"].as_f64(), pair["pairs"].as_u64()),
        (Some(0.97), Some(3.0e-5), Some(1603))
    );
    let doc = json(&c1[..8], &c3[..8]);
    assert_eq!((doc["old"]["from_pairs"].as_bool(), doc["new"]["from_pairs"].as_bool()), (Some(true), Some(true)));
    assert_eq!(doc["old"]["runs"][0]["run_id"], "20261201T000004Z", "the old side's runs are the A/B runs");
    assert_eq!(
        (doc["trials"][0]["old_median_s"].as_f64(), doc["trials"][0]["new_median_s"].as_f64()),
        (Some(100e-6), Some(101e-6))
    );
    // Against another commit it has no measurement: refused, naming its A/B runs.
    let (code, _, err) = kernelgate(dir, &["diff", "--dir", "h", &c2[..8], &c3[..8]]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("has only same-run A/B runs") && err.contains("20261201T000004Z@GPU-1c2e7f54"), "{err}");
    assert!(err.contains("diff its A (the commit after \"against\") and its commit"), "{err}");

    // A commit that is only the A of A/B runs: the error names them and the diff that reads them.
    let (code, _, err) = kernelgate(dir, &["history", "import", "--dir", "h3", "ab.csv"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = kernelgate(dir, &["diff", "--dir", "h3", &c1[..8], &c3[..8]]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("has no run of its own") && err.contains("it is the A of same-run A/B runs of c2c2c2c"),
        "{err}"
    );
    assert!(err.contains(&format!("`kernelgate diff {} c2c2c2c`", &c1[..8])), "{err}");

    // The trial's series is its commits' nominal runs.
    let (code, out, err) = kernelgate(dir, &["history", "show", "--dir", "h", "fam/k/4096"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("20261201T000002Z") && !out.contains("20261201T000003Z"), "{out}");

    // The nightly gate gates a commit's own runs; an A/B run named is said to be one.
    let (code, _, err) = kernelgate(dir, &["history", "gate", "--dir", "h", "--run", "20261201T000003Z"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("is a same-run A/B run (against c1c1c1c)"), "{err}");

    // The nightly's previous commit is a commit's own run, not a pull request's A/B run between.
    let c4 = "c4".repeat(20);
    one_trial_run(&dir.join("pr.csv"), "20261201T000002Z", &c4, &c1, "unchanged", &paired);
    one_trial_run(&dir.join("b2.csv"), "20261201T000003Z", &c2, "", "unchanged", &[("median", 105e-6, "s")]);
    let (code, _, err) = kernelgate(dir, &["history", "import", "--dir", "h2", "a.csv", "pr.csv", "b2.csv"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = kernelgate(dir, &["history", "previous", "--dir", "h2", "--run", "20261201T000003Z"]);
    assert_eq!((code, out.trim()), (0, c1.as_str()), "{err}");
}
