//! `kernelgate plan` and `kernelgate merge`: a pool's jobs, planned before they run and folded into
//! one report after (`kernelgate::pool`).

use kernelgate::pool::merge;
use kernelgate::pool::plan::{self, MatrixFormat, Plan};
use kernelgate::{Error, Result};
use std::path::{Path, PathBuf};

/// The job matrix's format (`--format`).
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Format {
    /// A GitHub Actions `strategy.matrix` (`{"include": [...]}`).
    Github,
    /// A GitLab CI `parallel:matrix` for a generated child pipeline.
    Gitlab,
    /// A Buildkite pipeline (`{"steps": [...]}`) for `buildkite-agent pipeline upload`.
    Buildkite,
}

/// What `kernelgate plan` was asked.
pub struct PlanRequest<'a> {
    /// How many shards per GPU kind that `gpus` does not give its own count.
    pub shards: usize,
    /// The GPU kinds named (`--gpu KEY` or `--gpu KEY=SHARDS`); empty: the history's and the
    /// baselines'.
    pub gpus: &'a [GpuArg],
    /// The matrix format.
    pub format: Format,
    /// Where to write the plan file (`--out`), for `kernelgate merge --plan`.
    pub out: Option<PathBuf>,
    /// The suite's command line, for Buildkite's steps.
    pub command: &'a str,
    /// The history folder.
    pub history: PathBuf,
}

/// `kernelgate plan`: prints the job matrix, and writes the plan file with `--out`. Returns 0.
///
/// # Errors
/// No case facts listing the trials (the fix: a `--list` run of the suite binary), no GPU kind
/// known, a history that cannot be read, a plan file that cannot be written.
pub fn plan_command(project: &kernelgate::project::Project, r: &PlanRequest) -> Result<u8> {
    let facts = super::case_facts(project, "there is no trial list to plan")?.unwrap_or_default();
    let (listed, commit) = (facts.listed, facts.commit);
    if listed.is_empty() {
        return Err(Error::Compare(format!(
            "no trial list at {}: run the suite binary with --list first (`cargo test --release --test kernels -- \
             --list`, which needs no GPU), at the commit the jobs will run",
            kernelgate::case::facts::Facts::path(&project.out_dir).display()
        )));
    }
    let known = known_gpus(&r.history, project)?;
    let gpus: Vec<(String, usize)> = if r.gpus.is_empty() {
        known.iter().map(|k| (k.clone(), r.shards)).collect()
    } else {
        r.gpus.iter().map(|g| (g.key.clone(), g.shards.unwrap_or(r.shards))).collect()
    };
    if gpus.is_empty() {
        return Err(Error::Compare(format!(
            "no GPU kind to plan for: neither the history ({}) nor the baselines ({}) name one; name them with \
             --gpu KEY (a GPU key, like nvidia-h200-sm90)",
            r.history.display(),
            project.baselines.display()
        )));
    }
    let mut weighted = Vec::new();
    for (key, shards) in gpus {
        let times = kernelgate::pool::times(&r.history, &key, &project.baselines_shown())?;
        weighted.push(plan::GpuKind { key, times, shards });
    }
    for plan::GpuKind { key: gpu, times, .. } in &weighted {
        if times.is_empty() && !known.contains(gpu) {
            kernelgate::errln!(
                "kernelgate plan: warning: GPU kind {gpu} has no history and no baseline here (known: {}); check the \
                 key: the GPU's name as nvidia-smi gives it, lower case with dashes, and its sm (an H200: \
                 nvidia-h200-sm90), as the suite's run header prints it; its trials are planned by count",
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            );
        }
    }
    let mut plan = plan::plan(listed, &weighted)?;
    // The commit the jobs' runs are recorded under, as the suite binary that listed the trials
    // records it (its build's: a staged binary's or a runner image's, wherever it runs): merge
    // leaves out results of another.
    plan.commit = commit;
    for (gpu, source) in &plan.weights {
        kernelgate::errln!("kernelgate plan: {gpu}: {source}");
    }
    if let Some(out) = &r.out {
        let text = serde_json::to_string_pretty(&plan).expect("a plan serializes");
        kernelgate::report::write_whole(&[(out.as_path(), text.as_bytes())])?;
        kernelgate::errln!("kernelgate plan: the plan for kernelgate merge --plan: {}", out.display());
    }
    let format = match r.format {
        Format::Github => MatrixFormat::Github,
        Format::Gitlab => MatrixFormat::Gitlab,
        Format::Buildkite => MatrixFormat::Buildkite,
    };
    // One line: GitHub's `$GITHUB_OUTPUT` takes `matrix=<json>` on one line.
    kernelgate::outln!("{}", plan::matrix(&plan, format, r.command));
    Ok(0)
}

/// A `--gpu` value of `kernelgate plan`: `KEY`, or `KEY=SHARDS` with its own number of shards.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuArg {
    /// The GPU key.
    pub key: String,
    /// Its shards, when given.
    pub shards: Option<usize>,
}

/// Parses a `--gpu` value for clap (a bad one exits 2 with clap's message).
///
/// # Errors
/// An empty key, or a count that is not a whole number from 1 to 36.
pub fn gpu_arg(value: &str) -> std::result::Result<GpuArg, String> {
    let (key, shards) = match value.split_once('=') {
        None => (value, None),
        Some((key, n)) => match n.trim().parse::<usize>() {
            Ok(n) if (1..=plan::MAX_SHARDS).contains(&n) => (key, Some(n)),
            _ => return Err(format!("KEY=SHARDS with SHARDS a whole number from 1 to {}", plan::MAX_SHARDS)),
        },
    };
    if key.trim().is_empty() {
        return Err("a GPU key (nvidia-h200-sm90), optionally =SHARDS".into());
    }
    Ok(GpuArg { key: key.trim().to_string(), shards })
}

/// The GPU keys of the history's stores and of the baselines' folders, sorted, once each.
fn known_gpus(history: &Path, project: &kernelgate::project::Project) -> Result<Vec<String>> {
    let mut keys = if history.is_dir() { kernelgate::history::store::gpu_keys(history)? } else { Vec::new() };
    if let Ok(entries) = std::fs::read_dir(&project.baselines) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if e.path().join("baseline.csv").is_file() && !keys.contains(&name) {
                keys.push(name);
            }
        }
    }
    keys.sort();
    Ok(keys)
}

/// `kernelgate merge`: reads every job's results under `paths`, writes the reports asked for and
/// prints the Markdown when no `--markdown` file is named. Returns [`merge::Merged::exit_code`].
///
/// # Errors
/// A path that cannot be read, a plan file that is not one, a report that cannot be written.
pub fn merge_command(
    paths: &[PathBuf],
    plan: Option<&Path>,
    markdown: Option<&Path>,
    html: Option<&Path>,
    json: Option<&Path>,
) -> Result<u8> {
    let plan: Option<Plan> = match plan {
        Some(p) => {
            let text = std::fs::read(p).map_err(Error::io(p))?;
            let plan: Plan = serde_json::from_slice(&text)
                .map_err(|e| Error::Compare(format!("{}: not a plan of kernelgate plan --out ({e})", p.display())))?;
            if plan.schema != plan::SCHEMA || plan.version != plan::VERSION {
                return Err(Error::Compare(format!(
                    "{}: a plan of schema {} version {}; this kernelgate reads {} version {}: make it again with this \
                     kernelgate's `kernelgate plan --out`",
                    p.display(),
                    plan.schema,
                    plan.version,
                    plan::SCHEMA,
                    plan::VERSION
                )));
            }
            Some(plan)
        }
        None => None,
    };
    let (jobs, notes) = merge::read(paths)?;
    let merged = merge::merge(jobs, plan.as_ref(), notes);
    let md = merged.markdown();
    let (html_text, json_text) = (merged.html(), merged.json());
    let mut files: Vec<(&Path, &[u8])> = Vec::new();
    if let Some(p) = markdown {
        files.push((p, md.as_bytes()));
    }
    if let Some(p) = html {
        files.push((p, html_text.as_bytes()));
    }
    if let Some(p) = json {
        files.push((p, json_text.as_bytes()));
    }
    kernelgate::report::write_whole(&files)?;
    if markdown.is_none() {
        kernelgate::out!("{md}");
    }
    kernelgate::errln!(
        "kernelgate merge: {} read, {}: exit {}",
        kernelgate::units::count(merged.jobs.len(), "result file"),
        merged.status,
        merged.exit_code()
    );
    Ok(merged.exit_code())
}
