//! `kernelgate merge`: the results of many jobs (shards, GPU kinds) as one report and one exit
//! code. [`read`] finds and reads every job's results under the paths given (the only I/O here);
//! [`merge`] folds them, with the [`super::plan::Plan`] they were run from when there is one, into a
//! [`Merged`]; [`Merged::markdown`], [`Merged::html`] and [`Merged::json`] say it.
//!
//! A job's results are the files a run leaves in its output folder: the A/B JSON of a same-run A/B
//! run (`runs/<stem>-ab.json`, [`crate::report::ab::AbReport`]) or the run CSV of a run against the
//! baseline (`runs/<stem>.csv`). A shard of the plan that no result covers is missing, and missing
//! is never a pass ([`EXIT_MISSING`]).

use super::plan::Plan;
use crate::error::{Error, Result};
use crate::report::ab::AbReport;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The first line of the Markdown: an HTML comment GitHub does not show, by which a bot finds the
/// comment it posted before and updates it.
pub const MARKER: &str = "<!-- kernelgate-merge-report -->";

/// Exit code when some job regressed (the suite's [`crate::suite::EXIT_REGRESSION`]), whatever
/// else the report says.
pub const EXIT_REGRESSED: u8 = 3;

/// Exit code when nothing regressed but a shard of the plan did not report: run its job again.
pub const EXIT_MISSING: u8 = 4;

/// The schema name of the JSON document ([`Merged::json`]).
pub const SCHEMA: &str = "kernelgate-merge";

/// The version of the JSON document's layout.
pub const VERSION: u32 = 1;

/// One trial's result in one job.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    /// `improved`, `unchanged`, `regressed`, `ambiguous`, `invalid`, `no-baseline`, or
    /// `not timed` (an A/B case whose modules were identical, with its reason in `decided_by`).
    pub verdict: String,
    /// The change, percent: B against A (A/B), or the run against its baseline.
    pub delta_pct: Option<f64>,
    /// What decided the verdict, or why the case was not timed.
    pub decided_by: String,
    /// The job's results it came from (an index into [`Merged::jobs`]).
    pub job: usize,
}

/// One job's results, as [`read`] found them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Job {
    /// The file read.
    pub path: PathBuf,
    /// `ab` (an A/B JSON) or `baseline` (a run CSV).
    pub mode: &'static str,
    /// The run id.
    pub run_id: String,
    /// The GPU key (`nvidia-h200-sm90`).
    pub gpu: String,
    /// The physical GPU's UUID.
    pub gpu_uuid: String,
    /// The commit the run measured (B's, in A/B).
    pub commit: String,
    /// What it was measured against: A's revision in a same-run A/B run; `""` for a run against
    /// the baseline.
    pub against: String,
    /// Each trial's outcome, by name: the timed trials, the cases not timed, and the lesson trials
    /// of the `-lessons.csv` beside the file (verdicts `holds`, `broken`, `unclear`, `invalid`).
    #[serde(skip)]
    pub outcomes: BTreeMap<String, Outcome>,
    /// How many trials it reported.
    pub trials: usize,
    /// Its A/A controls' verdicts (an A/B run's, [`crate::suite::controls`]), by trial.
    pub controls: BTreeMap<String, String>,
}

/// A shard of the plan that no job's results cover.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Missing {
    /// Its GPU key.
    pub gpu: String,
    /// The shard, from 1 to `shards`.
    pub shard: usize,
    /// How many shards.
    pub shards: usize,
    /// Its `--partition` value, to run it again.
    pub partition: String,
    /// How many trials it holds that report a result (compile trials leave no row: not counted).
    pub trials: usize,
    /// Its trials no job reported, when some did (a trial that failed its check or the harness
    /// leaves no row); empty when the shard did not report at all.
    pub unreported: Vec<String>,
}

/// Everything the merged report says ([`merge`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Merged {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// [`VERSION`].
    pub version: u32,
    /// `regressed`, `missing` or `pass`: [`Merged::exit_code`]'s meaning.
    pub status: &'static str,
    /// The GPU kinds, one column each: the plan's in its order, then any other a job reported.
    pub gpus: Vec<String>,
    /// Every job's results read, in the order given.
    pub jobs: Vec<Job>,
    /// Per trial, per GPU kind, its outcome.
    pub trials: BTreeMap<String, BTreeMap<String, Outcome>>,
    /// The shards of the plan no job covered, or whose trials not all reported.
    pub missing: Vec<Missing>,
    /// Sentences about the inputs: no plan given, a job of a GPU kind the plan lacks, a trial
    /// reported twice (the later run kept).
    pub notes: Vec<String>,
}

/// Reads one job's results: an A/B JSON (`*-ab.json`) or a run CSV. `Ok(None)` for a run CSV that
/// holds no row (a run that recorded nothing, or one stopped before it wrote).
///
/// # Errors
/// [`Error::Io`] for a file that cannot be read; [`Error::Compare`] naming the file for JSON that is
/// not an A/B report; the history's errors for a run CSV that does not parse.
pub fn read_job(path: &Path) -> Result<Option<Job>> {
    let bytes = std::fs::read(path).map_err(Error::io(path))?;
    if path.extension().is_some_and(|e| e == "json") {
        let r: AbReport = serde_json::from_slice(&bytes).map_err(|e| {
            Error::Compare(format!("{}: not a kernelgate A/B report ({e}); give the run's `-ab.json`", path.display()))
        })?;
        let mut outcomes = BTreeMap::new();
        for t in &r.trials {
            outcomes.insert(
                t.trial.clone(),
                Outcome {
                    verdict: t.verdict.clone(),
                    delta_pct: t.delta_pct,
                    decided_by: t.decided_by.clone(),
                    job: 0,
                },
            );
        }
        for t in &r.not_timed {
            outcomes.insert(
                t.trial.clone(),
                Outcome { verdict: "not timed".into(), delta_pct: None, decided_by: t.reason.clone(), job: 0 },
            );
        }
        let controls = r.controls.iter().map(|c| (c.trial.clone(), c.verdict.clone())).collect();
        return Ok(Some(with_lessons(Job {
            path: path.to_path_buf(),
            mode: "ab",
            run_id: r.run_id,
            gpu: r.gpu.key,
            gpu_uuid: r.gpu.uuid,
            commit: r.b.commit,
            against: r.a.commit,
            trials: outcomes.len(),
            outcomes,
            controls,
        })?));
    }
    if bytes.iter().filter(|&&b| b == b'\n').count() <= 1 {
        return Ok(None);
    }
    let parsed = crate::history::import::parse_csv_bytes(&bytes, path)?;
    let Some(run) = parsed.runs.into_iter().next() else { return Ok(None) };
    let mut outcomes: BTreeMap<String, Outcome> = BTreeMap::new();
    for v in &run.values {
        let o = outcomes.entry(v.trial.clone()).or_insert_with(|| Outcome {
            verdict: v.verdict.clone(),
            delta_pct: None,
            decided_by: v.decided_by.clone(),
            job: 0,
        });
        if v.metric == "delta" {
            o.delta_pct = Some(v.value);
        }
    }
    let controls = run
        .values
        .iter()
        .filter(|v| v.metric == "median" && v.decided_by.starts_with(crate::suite::controls::DECIDED_BY_PREFIX))
        .map(|v| (v.trial.clone(), v.verdict.clone()))
        .collect::<BTreeMap<_, _>>();
    outcomes.retain(|t, _| !controls.contains_key(t));
    Ok(Some(with_lessons(Job {
        path: path.to_path_buf(),
        mode: if run.meta.ab_revision.is_empty() { "baseline" } else { "ab" },
        run_id: run.meta.run_id,
        gpu: run.meta.gpu_key,
        gpu_uuid: run.meta.gpu_uuid,
        commit: run.meta.commit,
        against: run.meta.ab_revision,
        trials: outcomes.len(),
        outcomes,
        controls,
    })?))
}

/// `job` with the lesson trials of the run's `<stem>-lessons.csv` beside its file, where there is
/// one: each lesson trial's verdict (`holds`, `broken`, `unclear`, `invalid`) and its reason.
///
/// # Errors
/// [`Error::Io`] or [`Error::Csv`] for a lessons CSV that cannot be read.
fn with_lessons(mut job: Job) -> Result<Job> {
    let name = job.path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let stem = name.strip_suffix("-ab.json").or_else(|| name.strip_suffix(".csv")).unwrap_or(name);
    let lessons = job.path.with_file_name(format!("{stem}-lessons.csv"));
    if !lessons.is_file() {
        return Ok(job);
    }
    let mut rows = csv::Reader::from_path(&lessons).map_err(|source| Error::Csv { path: lessons.clone(), source })?;
    let headers = rows.headers().map_err(|source| Error::Csv { path: lessons.clone(), source })?.clone();
    let at = |h: &str| headers.iter().position(|c| c == h);
    let (Some(trial), Some(verdict)) = (at("trial"), at("verdict")) else { return Ok(job) };
    let reason = at("reason");
    for row in rows.records() {
        let row = row.map_err(|source| Error::Csv { path: lessons.clone(), source })?;
        let (Some(t), Some(v)) = (row.get(trial), row.get(verdict)) else { continue };
        let why = reason.and_then(|r| row.get(r)).unwrap_or("lesson").to_string();
        job.outcomes
            .insert(t.to_string(), Outcome { verdict: v.to_string(), delta_pct: None, decided_by: why, job: 0 });
    }
    job.trials = job.outcomes.len();
    Ok(job)
}

/// Every job's results under `paths`: a file is read as it is; a folder is searched (recursively,
/// in name order) for A/B JSONs (`*-ab.json`) and run CSVs (a `*.csv` in a folder named `runs`
/// that begins with a run CSV's header, not the ncu `-metrics.csv`, the ceilings or lessons CSVs
/// beside it; the lessons CSV is read with its run). A run CSV whose A/B JSON is read too is left
/// for the JSON, which also names the cases not timed. Returns the jobs and a note per
/// file that held nothing.
///
/// # Errors
/// [`Error::Io`] for a path that does not exist or cannot be read; [`read_job`]'s.
pub fn read(paths: &[PathBuf]) -> Result<(Vec<Job>, Vec<String>)> {
    let mut files = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(Error::io(p))?;
        if meta.is_dir() {
            walk(p, &mut files)?;
        } else {
            files.push(p.clone());
        }
    }
    let mut jobs = Vec::new();
    let mut notes = Vec::new();
    for f in &files {
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(stem) = name.strip_suffix(".csv")
            && files.contains(&f.with_file_name(format!("{stem}-ab.json")))
        {
            continue;
        }
        match read_job(f)? {
            Some(job) => jobs.push(job),
            None => notes.push(format!("{} holds no trial (a run that recorded nothing)", f.display())),
        }
    }
    Ok((jobs, notes))
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(dir).map_err(Error::io(dir))?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for e in entries {
        let name = e.file_name().and_then(|n| n.to_str()).unwrap_or("").to_string();
        if e.is_dir() {
            walk(&e, files)?;
        } else {
            // A run folder holds other CSVs beside the run CSV (`-metrics.csv`, `-raw.csv`,
            // `-lessons.csv`, `-ceilings.csv`, ...): a run CSV is told by its header.
            let run_csv = name.ends_with(".csv")
                && !name.ends_with("-metrics.csv")
                && dir.file_name().is_some_and(|d| d == "runs")
                && is_run_csv(&e);
            if run_csv || name.ends_with("-ab.json") {
                files.push(e);
            }
        }
    }
    Ok(())
}

/// Whether the file at `path` begins with a run CSV's header (its first columns, the same in every
/// schema: `schema_version,run_id,commit,dirty,`; a lessons CSV's go on with `gpu_key`, and the
/// ncu metrics CSV, which shares them, is told by its name).
fn is_run_csv(path: &Path) -> bool {
    use std::io::Read as _;
    let mut head = [0u8; 40];
    let prefix = b"schema_version,run_id,commit,dirty,";
    std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .is_ok_and(|n| n >= prefix.len() && head.starts_with(prefix))
}

/// Folds `jobs` into one report. With `plan`, jobs of another commit than the plan's are left out
/// (with a note), and each of its shards must have reported every trial that leaves a row (all but
/// compile trials): a shard none of whose trials reported is missing, one with some trials
/// unreported (they failed their check, or the job stopped) is missing those; missing is never a
/// pass. Without a plan, shards are not checked (a note says so). A trial reported twice for one
/// GPU kind keeps the later run's outcome (run ids are start times), with a note.
pub fn merge(jobs: Vec<Job>, plan: Option<&Plan>, mut notes: Vec<String>) -> Merged {
    let mut jobs = jobs;
    let mut of_other_commits = 0;
    if let Some(commit) = plan.map(|p| p.commit.as_str()).filter(|c| !c.is_empty()) {
        let (ours, others): (Vec<Job>, Vec<Job>) = jobs.into_iter().partition(|j| j.commit == commit);
        for j in &others {
            notes.push(format!(
                "{} measured commit {}, not the plan's {}: left out (results of another run)",
                j.path.display(),
                crate::history::query::short(&j.commit),
                crate::history::query::short(commit)
            ));
        }
        of_other_commits = others.len();
        jobs = ours;
    }
    let mut gpus: Vec<String> = Vec::new();
    if let Some(plan) = plan {
        for job in &plan.jobs {
            if !gpus.contains(&job.gpu) {
                gpus.push(job.gpu.clone());
            }
        }
    }
    for job in &jobs {
        if !gpus.contains(&job.gpu) {
            if plan.is_some() {
                notes.push(format!("{} is of GPU kind {}, which the plan does not name", job.path.display(), job.gpu));
            }
            gpus.push(job.gpu.clone());
        }
    }
    // Earlier runs first, so that a later run's outcome replaces an earlier one's.
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by(|&a, &b| jobs[a].run_id.cmp(&jobs[b].run_id).then(a.cmp(&b)));
    let mut trials: BTreeMap<String, BTreeMap<String, Outcome>> = BTreeMap::new();
    let mut twice = 0;
    // Copies of one run (one run id on one GPU) that disagree: (the two files, the trials).
    let mut disagree: BTreeMap<(usize, usize), Vec<String>> = BTreeMap::new();
    for &i in &order {
        for o in jobs[i].outcomes.values_mut() {
            o.job = i;
        }
        for (trial, o) in &jobs[i].outcomes {
            let by = trials.entry(trial.clone()).or_default();
            let Some(before) = by.insert(jobs[i].gpu.clone(), o.clone()) else { continue };
            twice += 1;
            let (a, b) = (&jobs[before.job], &jobs[i]);
            if a.run_id == b.run_id
                && a.gpu_uuid == b.gpu_uuid
                && (before.verdict != o.verdict || before.delta_pct != o.delta_pct)
            {
                disagree.entry((before.job, i)).or_default().push(trial.clone());
                // One run cannot say both: the failing outcome is kept, never hidden by file order.
                if FAILING.contains(&before.verdict.as_str()) && !FAILING.contains(&o.verdict.as_str()) {
                    by.insert(jobs[i].gpu.clone(), before);
                }
            }
        }
    }
    for ((a, b), trials) in &disagree {
        notes.push(format!(
            "{} and {} are copies of one run ({} on {}) that disagree on {} ({}{}): one of them was edited; the \
             failing outcome is kept",
            jobs[*a].path.display(),
            jobs[*b].path.display(),
            jobs[*a].run_id,
            jobs[*a].gpu_uuid,
            crate::units::count(trials.len(), "trial"),
            trials[..trials.len().min(3)].join(", "),
            if trials.len() > 3 { ", ..." } else { "" }
        ));
    }
    if twice > 0 {
        notes.push(format!(
            "{} reported by more than one run on one GPU kind (a job run again, or several runs given): the latest \
             run's outcome is kept",
            crate::units::count(twice, "trial")
        ));
    }
    let mut missing = Vec::new();
    match plan {
        Some(plan) => {
            for shard in &plan.jobs {
                let expected: Vec<&String> = shard.trials.iter().filter(|t| reportable(t)).collect();
                let reported = |t: &String| trials.get(t).is_some_and(|by| by.contains_key(&shard.gpu));
                let unreported: Vec<String> = expected.iter().filter(|t| !reported(t)).map(|t| t.to_string()).collect();
                if unreported.is_empty() {
                    continue;
                }
                let none = unreported.len() == expected.len();
                missing.push(Missing {
                    gpu: shard.gpu.clone(),
                    shard: shard.shard,
                    shards: shard.shards,
                    partition: shard.partition.clone(),
                    trials: expected.len(),
                    unreported: if none { Vec::new() } else { unreported },
                });
            }
        }
        None => notes.push("no plan given (--plan): shards that did not report cannot be named".into()),
    }
    let regressed = trials.values().flat_map(|by| by.values()).any(|o| FAILING.contains(&o.verdict.as_str()));
    let status = if regressed {
        "regressed"
    } else if !missing.is_empty() || jobs.is_empty() {
        "missing"
    } else {
        "pass"
    };
    if jobs.is_empty() && of_other_commits > 0 {
        notes.push(format!(
            "no job's results are of the plan's commit ({} of other commits left out): nothing reported, which is \
             never a pass",
            crate::units::count(of_other_commits, "file")
        ));
    } else if jobs.is_empty() {
        notes.push("no job's results were found: nothing reported, which is never a pass".into());
    }
    Merged { schema: SCHEMA, version: VERSION, status, gpus, jobs, trials, missing, notes }
}

/// The verdicts the report lists only among every trial, not among those that need a look.
const QUIET: [&str; 3] = ["unchanged", "not timed", "holds"];

/// The verdicts that fail the merge: a regression by time or counter, and a lesson that no longer
/// holds (`broken`, the lesson trial's regression: [`crate::gate::lesson::LessonVerdict`]).
pub const FAILING: [&str; 2] = ["regressed", "broken"];

/// Whether a trial leaves a row in a job's results: compile trials (`compile/...`) do not (the
/// compile-only job's exit code gates them).
fn reportable(trial: &str) -> bool {
    !trial.starts_with("compile/")
}

impl Merged {
    /// The exit code: [`EXIT_REGRESSED`] when a job regressed, else [`EXIT_MISSING`] when a planned
    /// shard did not report (or nothing did), else 0.
    pub fn exit_code(&self) -> u8 {
        match self.status {
            "regressed" => EXIT_REGRESSED,
            "missing" => EXIT_MISSING,
            _ => 0,
        }
    }

    /// Per GPU kind, its trials per verdict (`regressed`, `broken`, `improved`, `ambiguous`,
    /// `unclear`, `invalid`, `no-baseline`, `not timed`, `unchanged`, `holds`; those with none left
    /// out).
    pub fn counts(&self, gpu: &str) -> Vec<(&'static str, usize)> {
        [
            "regressed",
            "broken",
            "improved",
            "ambiguous",
            "unclear",
            "invalid",
            "no-baseline",
            "not timed",
            "unchanged",
            "holds",
        ]
        .into_iter()
        .map(|v| (v, self.trials.values().filter(|by| by.get(gpu).is_some_and(|o| o.verdict == v)).count()))
        .filter(|(_, n)| *n > 0)
        .collect()
    }

    /// Per GPU kind, its A/A controls: how many, and how many came out `unchanged`.
    pub fn controls(&self, gpu: &str) -> (usize, usize) {
        let verdicts: Vec<&String> =
            self.jobs.iter().filter(|j| j.gpu == gpu).flat_map(|j| j.controls.values()).collect();
        (verdicts.len(), verdicts.iter().filter(|v| v.as_str() == "unchanged").count())
    }

    /// `2 jobs — 1 regressed, 85 unchanged; controls (A/A): 8 of 8 unchanged`: a GPU kind's line.
    fn gpu_line(&self, gpu: &str) -> String {
        let jobs = self.jobs.iter().filter(|j| j.gpu == gpu).count();
        let counts: Vec<String> = self.counts(gpu).iter().map(|(v, n)| format!("{n} {v}")).collect();
        let counts = if counts.is_empty() { "nothing reported".to_string() } else { counts.join(", ") };
        let (controls, unchanged) = self.controls(gpu);
        let controls = if controls == 0 {
            String::new()
        } else {
            format!("; controls (A/A): {unchanged} of {controls} unchanged")
        };
        format!("{} — {counts}{controls}", crate::units::count(jobs, "job"))
    }

    /// A missing shard's line after its GPU kind: the shard, its trials (those that did not report
    /// when some did), and its `--partition` value after `: --partition `.
    fn missing_line(m: &Missing) -> String {
        let what = if m.unreported.is_empty() {
            format!("{}, none reported", crate::units::count(m.trials, "trial"))
        } else {
            let shown: Vec<&str> = m.unreported.iter().take(10).map(String::as_str).collect();
            let more = m.unreported.len().saturating_sub(shown.len());
            format!(
                "{} of its {} did not report (failed their check, or the job stopped): {}{}",
                m.unreported.len(),
                crate::units::count(m.trials, "trial"),
                shown.join(", "),
                if more > 0 { format!(" and {more} more") } else { String::new() }
            )
        };
        format!("shard {}/{} ({what}): --partition {}", m.shard, m.shards, m.partition)
    }

    /// What the jobs compared, once per distinct pair: `B abcdef0 against A 1234567` (A/B) or
    /// `abcdef0 against the baseline`, joined by `; `; `None` without jobs.
    pub fn compared(&self) -> Option<String> {
        let short = crate::history::query::short_commit;
        let mut pairs: Vec<String> = Vec::new();
        for j in &self.jobs {
            let pair = if j.against.is_empty() {
                format!("{} against the baseline", short(&j.commit))
            } else {
                format!("B {} against A {}", short(&j.commit), short(&j.against))
            };
            if !pairs.contains(&pair) {
                pairs.push(pair);
            }
        }
        (!pairs.is_empty()).then(|| pairs.join("; "))
    }

    fn headline(&self) -> String {
        match self.status {
            "regressed" => "❌ regressions".into(),
            "missing" if self.jobs.is_empty() => "⚠️ nothing reported".into(),
            "missing" => format!("⚠️ incomplete: {} did not report", crate::units::count(self.missing.len(), "shard")),
            _ => "✅ no regression".into(),
        }
    }

    fn cell(o: Option<&Outcome>) -> String {
        match o {
            None => "–".into(),
            Some(o) => match o.delta_pct {
                Some(d) => format!("{} {d:+.2} %", o.verdict),
                None => o.verdict.clone(),
            },
        }
    }

    /// Why each result that is not `unchanged` came out as it did, one line per trial and GPU kind
    /// (`copy/a/1 on nvidia-h200-sm90: regressed +4.20 %, decided by time`), in the order of the
    /// tables: the run's `decided_by` (the statistic or ncu metric, a control's, a lesson's reason);
    /// the results with none are left out.
    pub fn reasons(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (trial, by) in &self.trials {
            for gpu in &self.gpus {
                let Some(o) = by.get(gpu).filter(|o| !QUIET.contains(&o.verdict.as_str())) else { continue };
                if !o.decided_by.is_empty() {
                    out.push(format!("{trial} on {gpu}: {}, decided by {}", Merged::cell(Some(o)), o.decided_by));
                }
            }
        }
        out
    }

    /// The Markdown comment: [`MARKER`], the status, per GPU kind its jobs and counts, the shards
    /// missing with their `--partition` values, the trials not `unchanged` on some GPU kind (one
    /// column per kind) and why ([`Merged::reasons`]), then every trial collapsed, within
    /// [`crate::report::markdown::MAX_CHARS`].
    pub fn markdown(&self) -> String {
        use crate::report::markdown::escape;
        let mut out = format!("{MARKER}\n### kernelgate: {}\n\n", self.headline());
        if let Some(compared) = self.compared() {
            writeln!(out, "Compared: {}\n", escape(&compared)).unwrap();
        }
        for gpu in &self.gpus {
            writeln!(out, "- **{}**: {}", escape(gpu), self.gpu_line(gpu)).unwrap();
        }
        if !self.missing.is_empty() {
            out.push_str("\n**Did not report** (run these jobs again; missing is never a pass):\n\n");
            for m in &self.missing {
                let line = Merged::missing_line(m);
                let (name, value) = line.split_once(": --partition ").unwrap_or((&line, ""));
                writeln!(out, "- {} {}: `--partition {value}`", escape(&m.gpu), escape(name)).unwrap();
            }
        }
        for n in &self.notes {
            writeln!(out, "\n_{}_", escape(n)).unwrap();
        }
        let head = format!(
            "\n| trial | {} |\n|:--|{}\n",
            self.gpus.iter().map(|g| escape(g)).collect::<Vec<_>>().join(" | "),
            ":--|".repeat(self.gpus.len())
        );
        let row = |trial: &str, by: &BTreeMap<String, Outcome>| {
            format!(
                "| {} | {} |\n",
                escape(trial),
                self.gpus.iter().map(|g| Merged::cell(by.get(g))).collect::<Vec<_>>().join(" | ")
            )
        };
        let changed: Vec<_> =
            self.trials.iter().filter(|(_, by)| by.values().any(|o| !QUIET.contains(&o.verdict.as_str()))).collect();
        if !changed.is_empty() {
            out.push_str("\n**Not unchanged**\n");
            out.push_str(&head);
            for (t, by) in &changed {
                out.push_str(&row(t, by));
            }
            let why = self.reasons();
            if !why.is_empty() {
                out.push_str("\n**Why**\n\n");
                for line in &why {
                    writeln!(out, "- {}", escape(line)).unwrap();
                }
            }
        }
        let mut all = format!("\n<details><summary>Every trial ({})</summary>\n", self.trials.len());
        all.push_str(&head);
        for (t, by) in &self.trials {
            all.push_str(&row(t, by));
        }
        all.push_str("\n</details>\n");
        let max = crate::report::markdown::MAX_CHARS;
        if out.len() + all.len() <= max {
            out.push_str(&all);
        } else {
            out.push_str("\n_Every trial: too long for a comment; see the HTML or JSON report._\n");
        }
        out
    }

    /// The JSON document (schema [`SCHEMA`], version [`VERSION`]), pretty-printed.
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).expect("the report serializes")
    }
}

mod html;

#[cfg(test)]
mod tests;
