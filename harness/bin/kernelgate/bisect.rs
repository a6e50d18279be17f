//! `kernelgate bisect GOOD BAD [FILTER]`: for each trial that regressed between two commits, the
//! first commit where it did ([`kernelgate::history::bisect`]). Each step runs the suite binary
//! once as a same-run A/B run of GOOD's kernels against the candidate's
//! (`KERNELGATE_AB=GOOD KERNELGATE_AB_B=<candidate>`), so no step rebuilds anything; its logs and
//! run CSVs are kept under the output folder.

use kernelgate::history::bisect::{self, Search};
use kernelgate::history::revision::Revision;
use kernelgate::{Error, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What one step found per trial: the verdict and the paired delta, percent.
type Verdicts = BTreeMap<String, (String, Option<f64>)>;

/// Runs the bisection; returns the exit code: 3 when a first bad commit was found for some trial,
/// 0 when nothing regressed between GOOD and BAD.
///
/// # Errors
/// [`Error::Bisect`]: revisions that do not bisect, no suite binary, a step that failed.
pub fn run(
    project: &kernelgate::project::Project,
    good: &str,
    bad: &str,
    filter: Option<&str>,
    suite: Option<PathBuf>,
    out: Option<PathBuf>,
) -> Result<u8> {
    let root = &project.root;
    let suite = match suite {
        Some(s) => s,
        None => default_suite()?,
    };
    let commits = bisect::commits(project, good, bad)?;
    let (candidates, skipped) = bisect::split(&commits);
    let out = out.unwrap_or_else(|| {
        project.out_dir.join("bisect").join(chrono::Utc::now().format("%Y%m%dT%H%M%SZ").to_string())
    });
    kernelgate::outln!(
        "kernelgate bisect: {good}..{bad}: {}, {} changed a kernel folder (candidates), {} did not (skipped without \
         timing); suite {}",
        kernelgate::units::count(commits.len(), "commit"),
        candidates.len(),
        skipped.len(),
        suite.display(),
    );
    for c in &commits {
        kernelgate::outln!(
            "  {} {} {}",
            if c.kernels_changed { "candidate" } else { "skipped  " },
            &c.id[..12],
            c.subject
        );
    }
    let inputs = crate::case_facts(project, "a change of the case table between GOOD and BAD is not looked for")?
        .map(|f| f.inputs)
        .unwrap_or_default();
    let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
    if let Some(w) = Revision::read(project, good, &kernelgate::report::events::Terminal::default())
        .ok()
        .and_then(|r| r.cases_differ(root, bad, "BAD", &inputs))
    {
        kernelgate::outln!("kernelgate bisect: warning: {w}");
    }
    let Some(last) = candidates.last() else {
        kernelgate::outln!(
            "kernelgate bisect: no commit in {good}..{bad} changed a kernel folder: nothing A/B can tell apart"
        );
        return Ok(0);
    };
    // Every step times on a GPU: say so here, not in the first step's log.
    if let Err(e) = kernelgate::gpu::gpu_available() {
        return Err(Error::Bisect(format!("the steps time kernels on a GPU, and there is none here: {e}")));
    }
    std::fs::create_dir_all(&out).map_err(|e| {
        Error::Bisect(format!("{}: cannot make the steps' folder ({e}); name another with --out DIR", out.display()))
    })?;
    kernelgate::outln!("kernelgate bisect: steps' logs and run CSVs under {}", out.display());
    let (first, first_code) = step(&suite, &out.join("0-bad"), good, &last.id, filter.unwrap_or(""), false)?;
    let regressed: Vec<&String> = first.iter().filter(|(_, (v, _))| v == "regressed").map(|(t, _)| t).collect();
    kernelgate::outln!(
        "kernelgate bisect: {} at {}: {} trials timed, {} regressed against {good}",
        filter.unwrap_or("every trial"),
        &last.id[..12],
        first.len(),
        regressed.len()
    );
    if regressed.is_empty() {
        if first_code == kernelgate::suite::EXIT_REGRESSION {
            // Exit 3 without a regressed verdict: a counter expectation broken while the counters
            // stayed inside their tolerance, or a gate of the compile step. Nothing to search on.
            kernelgate::outln!(
                "kernelgate bisect: the step at {} failed its gates (exit 3) without a regressed verdict \
                 (a broken counter expectation with unchanged counters); its log: {}",
                &last.id[..12],
                out.join("0-bad/suite.log").display()
            );
        }
        return Ok(0);
    }
    let mut searches: Vec<Search> = regressed
        .iter()
        .map(|t| {
            let mut s = Search::new(t, candidates.len());
            s.record(candidates.len() - 1, "regressed", first[*t].1);
            s
        })
        .collect();
    let mut round = 0;
    loop {
        let mut due: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (i, s) in searches.iter().enumerate() {
            if let Some(at) = s.next() {
                due.entry(at).or_default().push(i);
            }
        }
        if due.is_empty() {
            break;
        }
        round += 1;
        for (at, which) in due {
            for i in which {
                let trial = searches[i].trial.clone();
                let dir = out.join(format!("{round}-{}-{}", &candidates[at].id[..12], trial.replace('/', "_")));
                let (found, _) = step(&suite, &dir, good, &candidates[at].id, &trial, true)?;
                let (verdict, delta) = found.get(&trial).cloned().unwrap_or(("not timed".to_string(), None));
                kernelgate::outln!(
                    "  step {round}: {trial} at {} {}: {verdict}{}",
                    &candidates[at].id[..12],
                    candidates[at].subject,
                    shown(delta)
                );
                searches[i].record(at, &verdict, delta);
            }
        }
    }
    kernelgate::outln!(
        "\nkernelgate bisect: first bad commits ({} candidates, at most {} steps each after the first)",
        candidates.len(),
        bisect::max_steps(candidates.len())
    );
    for s in &searches {
        let c = candidates[s.bad];
        let delta = s.steps.iter().find(|(at, ..)| *at == s.bad).and_then(|(_, _, d)| *d);
        kernelgate::outln!(
            "  {}: {} {} ({}{} against {good}; {} steps)",
            s.trial,
            &c.id[..12],
            c.subject,
            "regressed",
            shown(delta),
            s.steps.len()
        );
    }
    Ok(kernelgate::suite::EXIT_REGRESSION)
}

/// ` +1.23%`, or nothing without a delta.
fn shown(delta: Option<f64>) -> String {
    delta.map_or_else(String::new, |d| format!(" {}", kernelgate::units::signed_pct(d)))
}

/// The suite binary beside this program (`.gpu/bin/kernels` after `scripts/stage`).
fn default_suite() -> Result<PathBuf> {
    let me = std::env::current_exe().map_err(Error::io("this program"))?;
    let beside = me.with_file_name("kernels");
    if beside.is_file() {
        return Ok(beside);
    }
    Err(Error::Bisect(format!(
        "no suite binary beside {} ({} is missing); pass --suite <path> (cargo: target/release/deps/kernels-<hash>, \
         printed by `cargo test --release --test kernels --no-run`), or stage both with scripts/stage",
        me.display(),
        beside.display()
    )))
}

/// One step: the suite binary as an A/B run of `good`'s kernels against `candidate`'s, on the
/// trials `filter` selects (`exact`: the one trial named), writing into `dir`; returns each timed
/// trial's verdict and delta, and the step's exit code (0 or 3).
///
/// # Errors
/// [`Error::Bisect`] when the suite cannot be started or exits with another code than 0 or 3 (a
/// wrong result, a harness error), naming its log.
fn step(suite: &Path, dir: &Path, good: &str, candidate: &str, filter: &str, exact: bool) -> Result<(Verdicts, u8)> {
    std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
    let log_path = dir.join("suite.log");
    let log = std::fs::File::create(&log_path).map_err(Error::io(&log_path))?;
    let mut cmd = Command::new(suite);
    cmd.arg("--skip").arg("compile/");
    if !filter.is_empty() {
        cmd.arg(filter);
    }
    if exact {
        cmd.arg("--exact");
    }
    // The run CSV(s) the step wrote are the lines the suite appends here, never a listing of the
    // runs folder (which holds ncu's -raw.csv, the -metrics.csv, the -ceilings.csv beside them).
    let run_file = dir.join("run-csv.txt");
    let status = cmd
        .env("KERNELGATE_RUN_FILE", &run_file)
        .env("KERNELGATE_AB", good)
        .env("KERNELGATE_AB_B", candidate)
        .env("KERNELGATE_OUT_DIR", dir)
        .env("KERNELGATE_HISTORY", "off")
        .env("KERNELGATE_REQUIRE_GPU", "1")
        .stdout(log.try_clone().map_err(Error::io(&log_path))?)
        .stderr(log)
        .status()
        .map_err(|e| Error::Bisect(format!("cannot start the suite {}: {e}", suite.display())))?;
    let code = match status.code() {
        Some(0) => 0,
        Some(3) => 3,
        _ => {
            return Err(Error::Bisect(format!(
                "the step at {candidate} exited with {status} (a wrong result or a harness error, not a verdict); \
                 see {}",
                log_path.display()
            )));
        }
    };
    let written = std::fs::read_to_string(&run_file).unwrap_or_default();
    let run_csvs: Vec<PathBuf> = written.lines().filter(|l| !l.is_empty()).map(PathBuf::from).collect();
    Ok((read_verdicts(&run_csvs)?, code))
}

/// The verdict and delta of every trial in the run CSVs `run_csvs` (those the step's suite named
/// in `KERNELGATE_RUN_FILE`).
fn read_verdicts(run_csvs: &[PathBuf]) -> Result<Verdicts> {
    let mut out = Verdicts::new();
    for path in run_csvs {
        let mut reader = csv::Reader::from_path(path).map_err(|e| Error::Bisect(format!("{}: {e}", path.display())))?;
        let headers = reader.headers().map_err(|e| Error::Bisect(format!("{}: {e}", path.display())))?.clone();
        let col = |name: &str| headers.iter().position(|h| h == name);
        let (Some(t), Some(v), Some(s), Some(x)) = (col("trial"), col("verdict"), col("statistic"), col("value"))
        else {
            return Err(Error::Bisect(format!(
                "{}: not a kernelgate run CSV (no trial/verdict/statistic/value)",
                path.display()
            )));
        };
        for row in reader.records().flatten() {
            let entry = out.entry(row[t].to_string()).or_insert_with(|| (row[v].to_string(), None));
            if &row[s] == "delta" {
                entry.1 = row[x].parse().ok();
            }
        }
    }
    Ok(out)
}
