//! `kernelgate export --format bmf|github-action-benchmark|nvbench RUN`: one run's trial times as a
//! dashboard reads them (`kernelgate::report::export`), on stdout.

use super::print_json;
use clap::ValueEnum;
use kernelgate::history::query::{Spec, resolve_side};
use kernelgate::report::export;
use kernelgate::{Error, Result};
use std::path::{Path, PathBuf};

/// The formats of `kernelgate export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ExportFormat {
    /// Bencher Metric Format: `{"<trial>": {"latency": {"value", "lower_value", "upper_value"}}}`,
    /// nanoseconds (`bencher run --adapter json`).
    Bmf,
    /// github-action-benchmark's `customSmallerIsBetter` input: `[{"name", "unit", "value",
    /// "range", "extra"}]`, nanoseconds.
    GithubActionBenchmark,
    /// nvbench's JSON output (`--json`), as its `nvbench_compare.py` reads it: a benchmark per
    /// family, a state per trial, cold-measurement summaries in seconds.
    Nvbench,
}

/// Exports the one run `run` names: a run CSV (its runs must be of one GPU) or a run id in the
/// history of `dir` (`@GPU-…` to pick one GPU of several; `gpu` the key to search). `dir` is read
/// only for a run id. Trials without a time, and values no run measures (NaN, negative: one warning
/// each, naming file and line), are left out with a warning on stderr; the rest is exported.
/// `baselines`, the project's baselines folder as messages show it, is what a message that finds no
/// history names (`kernelgate::history::import_command`).
///
/// # Errors
/// A commit or `before:` side (several runs; export takes one), a run CSV of several GPUs, those of
/// resolving the run (`kernelgate::history::query::resolve_side`), and a run with no trial time.
pub(crate) fn export_command(
    run: &str,
    format: ExportFormat,
    gpu: Option<&str>,
    dir: impl FnOnce() -> Result<PathBuf>,
    baselines: &std::path::Path,
) -> Result<()> {
    let spec = Spec::parse(run)?;
    let refuse = |message: String| Error::History { path: PathBuf::from(run), line: None, message };
    let dir = match &spec {
        Spec::File(_) => PathBuf::new(),
        Spec::Run { .. } => dir()?,
        Spec::Commit(_) | Spec::Before(_) => {
            return Err(refuse(
                "names a commit; export takes one run: its run CSV (target/kernelgate/runs/<stem>.csv) or its run id \
                 (`kernelgate history runs` lists them)"
                    .into(),
            ));
        }
    };
    let side = resolve_side(&dir, run, gpu, baselines)?;
    for w in &side.left_out {
        kernelgate::errln!("kernelgate: warning: {w}");
    }
    let [one] = side.runs.as_slice() else {
        let uuids: Vec<&str> = side.runs.iter().map(|r| r.meta.gpu_uuid.as_str()).collect();
        return Err(refuse(format!(
            "holds {} runs ({}); export takes one: import it (`kernelgate history import {run}`) and export \
             <run id>@<GPU UUID prefix>",
            side.runs.len(),
            uuids.join(", ")
        )));
    };
    let (latencies, warnings) = export::latencies(one);
    if latencies.is_empty() {
        return Err(refuse(if run.ends_with("-metrics.csv") {
            "is the ncu metrics CSV of a run, which holds no times; export the run CSV beside it (<stem>.csv)".into()
        } else {
            format!("no trial of run {} has a time median to export", one.meta.run_id)
        }));
    }
    for w in &warnings {
        kernelgate::errln!("kernelgate: warning: {w}");
    }
    let (bmf, too_long) = match format {
        ExportFormat::Bmf => export::bmf(&latencies),
        _ => (serde_json::Value::Null, Vec::new()),
    };
    for w in &too_long {
        kernelgate::errln!("kernelgate: warning: {w}");
    }
    let exported = latencies.len() - too_long.len();
    print_json(&match format {
        ExportFormat::Bmf => bmf,
        ExportFormat::GithubActionBenchmark => export::github_action_benchmark(one, &latencies),
        ExportFormat::Nvbench => export::nvbench::document(one, &latencies),
    });
    let shown = Path::new(run).file_name().map_or(run.into(), |n| n.to_string_lossy());
    kernelgate::errln!("kernelgate: exported {} of {shown}", kernelgate::units::count(exported, "trial"));
    Ok(())
}
