//! `kernelgate`: the commands that are not test runs.
//!
//! `kernelgate import-ncu FILE [--csv]` reads an ncu CSV (raw or details page, any ncu version
//! kernelgate knows) or a `.ncu-rep` (through `ncu --import`) and prints the normalized metrics per
//! kernel, so that existing ncu captures enter kernelgate.
//!
//! `kernelgate baseline list|show|remove|calibrate|bless|reseal` reads and edits the per-GPU
//! baselines under `<project root>/baselines/<gpu-key>/` (see `kernelgate::gate::baseline`), or
//! `KERNELGATE_BASELINES/<gpu-key>/`; the project root is found from the current folder as the test
//! runs find it (`kernelgate::record::project_root`). Every change goes through the baseline
//! store: under the folder's lock, committed whole.
//!
//! `kernelgate compare BASE RUN` judges two records with the gate's rules.
//!
//! `kernelgate history import PATHS...` appends run CSVs to the history stores
//! (`kernelgate::history`), `kernelgate history runs [--gpu KEY]` lists the stored runs,
//! `history show|changes` print series and their change points, `history gate` is the nightly
//! gate's decision (`kernelgate::history::query`).
//!
//! `kernelgate diff A B` compares two commits, runs or run CSVs as a Markdown/HTML report.

use clap::{Parser, Subcommand};
use kernelgate::gate::baseline::{self, BASELINE_FILE, BASELINES_DIR, Baseline, Entry};
use kernelgate::gate::{CompareOptions, Policy, RunRecord, Verdict, compare_records};
use kernelgate::history;
use kernelgate::ncu::import;
use kernelgate::units::format_value;
use kernelgate::{Error, Result};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Regression testing for CUDA kernels: the commands besides `cargo test`.
#[derive(Debug, Parser)]
#[command(name = "kernelgate", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the metrics of an ncu capture, normalized to base units, per kernel.
    ImportNcu {
        /// An ncu CSV file (`--csv`, raw or details page) or an `.ncu-rep` report.
        file: PathBuf,
        /// Print CSV (id, kernel, nvtx, metric, value, unit, process, capture) instead of a table.
        #[arg(long)]
        csv: bool,
        /// The ncu executable used to read `.ncu-rep` files.
        #[arg(long, env = "KERNELGATE_NCU_PATH", default_value = "ncu")]
        ncu: PathBuf,
    },
    /// Compare two records in baseline form with the gate's statistics: the blessed baseline
    /// (`baselines/<gpu-key>`) and a run's `<out>/runs/<stem>-baseline`, or two runs. Prints one
    /// line per common trial and exits 3 if any regressed.
    #[command(allow_negative_numbers = true)]
    Compare {
        /// The reference: a baseline folder (holding baseline.csv and samples.csv).
        base: PathBuf,
        /// The run to judge: a folder of the same form.
        run: PathBuf,
        /// Multiply the run's samples by this factor first (1.02: a synthetic 2 % slowdown, to
        /// estimate the gate's power on real noise).
        #[arg(long, default_value_t = 1.0, value_parser = positive)]
        scale: f64,
        /// Family-wise significance level, above 0 and at most 0.5.
        #[arg(long, env = "KERNELGATE_ALPHA", default_value_t = 0.05, value_parser = probability)]
        alpha: f64,
        /// Smallest change called a regression, percent (0 to 50).
        #[arg(long, env = "KERNELGATE_MIN_EFFECT", default_value_t = 1.0, value_parser = percent)]
        min_effect: f64,
        /// Compare SM cycles (seconds x each record's median SM clock), for records taken at
        /// different clocks.
        #[arg(long)]
        cycles: bool,
    },
    /// List, show, remove, calibrate, bless (from a run record) or reseal the per-GPU baselines under
    /// `<project root>/baselines/`.
    Baseline {
        #[command(subcommand)]
        command: BaselineCommand,
    },
    /// Compare two sides trial by trial (time, verdict, every counter, what explains a change) and
    /// print the report as Markdown. A side is a commit (full or a prefix: every run of it on the
    /// GPU key, medians of repeated runs), a run id (`20261130T120000Z`, `@GPU-uuid-prefix` to pick
    /// one GPU), a run CSV (its `-metrics.csv` beside it is read too), or `before:<run id>` (every run
    /// of the commit stored before that run's commit: the nightly report's old side). Exits 0 whatever the
    /// verdicts (a report, not a gate), 1 on error.
    Diff {
        /// The old side.
        old: String,
        /// The new side.
        new: String,
        /// GPU key whose history the commits and run ids are looked up in; default: every key.
        #[arg(long, value_name = "KEY")]
        gpu: Option<String>,
        /// Write the Markdown here instead of printing it.
        #[arg(long, value_name = "FILE")]
        markdown: Option<PathBuf>,
        /// Also write the report as one self-contained HTML page, with trend charts.
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        /// The folder of the history stores; default: `<project root>/.kernelgate/history`.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// The history of runs keyed by commit, one SQLite store per GPU key under
    /// `<project root>/.kernelgate/history/` (or --dir).
    History {
        #[command(subcommand)]
        command: HistoryCommand,
        /// The folder of the history stores; default: `<project root>/.kernelgate/history`.
        #[arg(long, global = true, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
enum HistoryCommand {
    /// Append run CSVs (`<stem>.csv`, any run-CSV schema) and their ncu `<stem>-metrics.csv` to the
    /// store of each run's GPU key. Importing a run again adds nothing.
    Import {
        /// Run CSVs, metrics CSVs, or folders of them (e.g. `baselines/*/runs`).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// List the stored runs: commit, run id, GPU UUID (start) and number of values.
    Runs {
        /// GPU key (`nvidia-h200-sm90`); default: every GPU key with a history.
        #[arg(long, value_name = "KEY")]
        gpu: Option<String>,
    },
    /// One trial's series, one line per run (commit, run id, GPU, value, verdict), then its change
    /// points per physical GPU.
    Show {
        /// Trial name, `family/variant/size`.
        trial: String,
        /// The metric: `median` (time) or another run statistic or ncu counter.
        #[arg(long, default_value = "median")]
        metric: String,
        /// GPU key; default: every GPU key with a history.
        #[arg(long, value_name = "KEY")]
        gpu: Option<String>,
    },
    /// The change points of every trial's series, per physical GPU, newest first.
    Changes {
        /// GPU key; default: every GPU key with a history.
        #[arg(long, value_name = "KEY")]
        gpu: Option<String>,
        /// The metric, or `all` for every metric.
        #[arg(long, default_value = "median")]
        metric: String,
        /// Only change points at or after the first run of this commit (or prefix).
        #[arg(long, value_name = "COMMIT")]
        since: Option<String>,
    },
    /// The nightly gate: for the latest run of each GPU key (or --run), fail on a `regressed`
    /// verdict or a time change point (1 % or more, per physical GPU) that is an increase at the
    /// run's commit. Exit codes: 0 pass; 3 regressed; 4 nothing regressed but a trial is `invalid`;
    /// 1 no history or a store cannot be read; 2 bad arguments.
    Gate {
        /// GPU key; default: every GPU key with a history.
        #[arg(long, value_name = "KEY")]
        gpu: Option<String>,
        /// The run to gate (its id; every GPU that ran it); default: the latest run of each key.
        #[arg(long, value_name = "RUN_ID")]
        run: Option<String>,
        /// The exit code of the suite run being gated (scripts/nightly): 3 is a regression, 2 a bad
        /// option, any other failure a harness error (exit 1).
        #[arg(long, value_name = "CODE")]
        suite_exit: Option<u8>,
    },
}

#[derive(Debug, Subcommand)]
enum BaselineCommand {
    /// For each GPU's baseline (or just --gpu's): every trial with its time median, sample count,
    /// commit and date.
    List {
        /// GPU key, the folder name under baselines/ (`nvidia-h200-sm90`); default: every GPU.
        #[arg(long, value_name = "KEY")]
        gpu: Option<String>,
    },
    /// Every entry of one trial (metric, median and mad with their unit, n, commit, date, module
    /// hash) and the number of its kept samples.
    Show {
        /// Trial name, `family/variant/size`.
        trial: String,
        /// GPU key; default: the only GPU with a baseline.
        #[arg(long, value_name = "KEY")]
        gpu: Option<String>,
    },
    /// Remove trials' entries and samples from a baseline, print the changes and save it.
    Remove {
        /// Trial names, `family/variant/size`; each must be in the baseline, or nothing is removed.
        #[arg(required = true)]
        trials: Vec<String>,
        /// GPU key; default: the only GPU with a baseline.
        #[arg(long, value_name = "KEY")]
        gpu: Option<String>,
    },
    /// Write trials of a run record (a run's `<stem>-baseline` folder) into the baseline, as a run
    /// with KERNELGATE_BLESS=1 would have: without running anything again.
    Bless {
        /// The run record.
        record: PathBuf,
        /// Trial names to bless; default: every valid trial of the record.
        trials: Vec<String>,
        /// GPU key (must be the record's: a baseline holds times of one GPU model); default: the record's.
        #[arg(long, value_name = "KEY")]
        gpu: Option<String>,
    },
    /// Vouch for a baseline folder's files as they are now, after a deliberate edit or a git merge:
    /// checks every file fully, then writes a new manifest.json. Never needed otherwise.
    Reseal {
        /// The folder (a baseline folder, a run record, or an architecture's resource table such as
        /// baselines/sm_90).
        folder: PathBuf,
    },
    /// Measure how far each trial's median (and, from runs with ncu, each counter) moves between
    /// runs of the blessed code, from run records, and keep it in run_to_run.csv: the gate then
    /// takes its effect floor (and counter tolerances) from that spread. Needs at least 10 valid
    /// runs of a trial's blessed code (its module hash), counting the blessed run; replaces the
    /// trial's earlier calibration.
    Calibrate {
        /// Run records in baseline form: the `<out>/runs/<stem>-baseline/` folders runs leave.
        /// Records of other code (another module hash) are skipped, per trial.
        #[arg(required = true)]
        records: Vec<PathBuf>,
        /// GPU key; default: the only GPU with a baseline.
        #[arg(long, value_name = "KEY")]
        gpu: Option<String>,
    },
}

/// A finite number > 0 (clap value parser).
fn positive(text: &str) -> std::result::Result<f64, String> {
    number(text).filter(|v| *v > 0.0).ok_or_else(|| format!("{text:?} is not a number above 0"))
}

/// A probability above 0, at most 0.5, as `KERNELGATE_ALPHA` (clap value parser).
fn probability(text: &str) -> std::result::Result<f64, String> {
    number(text)
        .filter(|v| *v > 0.0 && *v <= 0.5)
        .ok_or_else(|| format!("{text:?} is not a probability above 0, at most 0.5 (--alpha or KERNELGATE_ALPHA)"))
}

/// A percentage from 0 to 50, as `KERNELGATE_MIN_EFFECT` (clap value parser).
fn percent(text: &str) -> std::result::Result<f64, String> {
    number(text)
        .filter(|v| (0.0..=kernelgate::config::MAX_MIN_EFFECT_PCT).contains(v))
        .ok_or_else(|| format!("{text:?} is not a percentage from 0 to 50 (--min-effect or KERNELGATE_MIN_EFFECT)"))
}

fn number(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

fn main() -> ExitCode {
    // Like other Unix tools, end quietly when the reader of stdout goes away (`kernelgate … | head`):
    // Rust ignores SIGPIPE, and println! then panics. Every change kernelgate makes is committed
    // whole before it prints, so stopping at a print loses nothing.
    // SAFETY: restores the default disposition of one signal, at start-up, before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // The same checks as a test run: a typo'd, empty or out-of-range KERNELGATE_* variable stops
    // the command (KERNELGATE_BASELINES misspelt would otherwise write the project's baselines).
    let config = match kernelgate::Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("kernelgate: {e}");
            return ExitCode::from(kernelgate::suite::EXIT_CONFIG);
        }
    };
    let cli = Cli::parse();
    let result = match cli.command {
        Command::ImportNcu { file, csv, ncu } => {
            let format = if csv { import::Format::Csv } else { import::Format::Table };
            import::run(&file, &ncu, format, &mut std::io::stdout().lock(), &mut std::io::stderr()).map(|()| 0)
        }
        Command::Baseline { command } => baseline_command(command, config.baselines).map(|()| 0),
        Command::History { command, dir } => history_command(command, dir),
        Command::Diff { old, new, gpu, markdown, html, dir } => {
            diff_command(&old, &new, gpu.as_deref(), markdown, html, dir).map(|()| 0)
        }
        Command::Compare { base, run, scale, alpha, min_effect, cycles } => {
            let policy = Policy { alpha, effect_floor: min_effect / 100.0, ..Policy::default() };
            // KERNELGATE_COMPARE=cycles as in a run, or --cycles.
            let cycles = cycles || config.compare_cycles;
            compare_command(&base, &run, &CompareOptions { policy, scale, cycles })
                .map(|regressed| if regressed { kernelgate::suite::EXIT_REGRESSION } else { 0 })
        }
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("kernelgate: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `kernelgate compare`: the GPU warnings, then one line per common trial; `Ok(true)` when any
/// regressed.
fn compare_command(base: &Path, run: &Path, options: &CompareOptions) -> Result<bool> {
    let (b, r) = (RunRecord::load(base)?, RunRecord::load(run)?);
    let compared = compare_records(&b, &r, options)?;
    for w in &compared.warnings {
        println!("warning: {w}");
    }
    let width = compared.rows.iter().map(|(t, _)| t.len()).max().unwrap_or(5);
    println!(
        "{:<width$}  {:>10}  {:>10}  {:>8}  {:>9}  {:>6}  verdict (decided by)",
        "trial", "base", "run", "delta", "p_adj", "floor"
    );
    let mut counts = std::collections::BTreeMap::new();
    for (trial, j) in &compared.rows {
        *counts.entry(j.verdict.as_str()).or_insert(0) += 1;
        let show = |v: f64| if options.cycles { format!("{v:.0} cyc") } else { kernelgate::units::duration(v) };
        let by = match &j.decided {
            kernelgate::gate::Decided::Time if options.cycles => "time, in SM cycles".to_string(),
            kernelgate::gate::Decided::Time => "time".to_string(),
            kernelgate::gate::Decided::Counter(m) => format!("counter {}", m.metric),
            kernelgate::gate::Decided::Conditions => j.reason.clone(),
        };
        match &j.comparison {
            Some(c) => println!(
                "{trial:<width$}  {:>10}  {:>10}  {:>+7.2}%  {:>9.1e}  {:>5.2}%  {} ({by})",
                show(c.baseline_median_s),
                show(c.median_s),
                100.0 * c.delta,
                c.p_adjusted,
                100.0 * c.min_effect,
                j.verdict.as_str()
            ),
            None => println!(
                "{trial:<width$}  {:>10}  {:>10}  {:>8}  {:>9}  {:>6}  {} ({by})",
                "-",
                "-",
                "-",
                "-",
                "-",
                j.verdict.as_str()
            ),
        }
    }
    let summary: Vec<String> = counts.iter().map(|(v, n)| format!("{n} {v}")).collect();
    let only = match compared.only_in_one {
        0 => String::new(),
        n => format!("; {n} trial{} in only one record", if n == 1 { "" } else { "s" }),
    };
    let unit = if options.cycles { ", in SM cycles" } else { "" };
    println!(
        "{} compared (scale {}{unit}): {}{only}",
        trials_count(compared.rows.len()),
        options.scale,
        summary.join(", ")
    );
    if !compared.warnings.is_empty() && compared.rows.iter().any(|(_, j)| j.verdict != Verdict::Unchanged) {
        println!("note: the verdicts above come from records of different machines or settings (warnings above)");
    }
    Ok(counts.contains_key("regressed"))
}

/// `dir`, or `<project root>/.kernelgate/history`.
fn history_dir(dir: Option<PathBuf>) -> Result<PathBuf> {
    match dir {
        Some(d) => Ok(d),
        None => {
            let cwd = std::env::current_dir().map_err(Error::io("."))?;
            Ok(history::default_dir(&kernelgate::record::project_root(&cwd)))
        }
    }
}

/// `kernelgate diff`: the Markdown to stdout or `markdown`, the HTML page to `html`.
fn diff_command(
    old: &str,
    new: &str,
    gpu: Option<&str>,
    markdown: Option<PathBuf>,
    html: Option<PathBuf>,
    dir: Option<PathBuf>,
) -> Result<()> {
    let (diff, trends) = history::query::diff_report(&history_dir(dir)?, old, new, gpu)?;
    let text = kernelgate::report::markdown::render(&diff);
    match markdown {
        Some(path) => {
            std::fs::write(&path, text).map_err(Error::io(&path))?;
            println!("wrote {} ({})", path.display(), diff.summary());
        }
        None => print!("{text}"),
    }
    if let Some(path) = html {
        std::fs::write(&path, kernelgate::report::html::render(&diff, &trends)).map_err(Error::io(&path))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// Runs a `kernelgate history` command on `dir`, or on `<project root>/.kernelgate/history`;
/// returns the exit code (0, or `history gate`'s decision).
fn history_command(command: HistoryCommand, dir: Option<PathBuf>) -> Result<u8> {
    let cwd = std::env::current_dir().map_err(Error::io("."))?;
    let root = kernelgate::record::project_root(&cwd);
    let dir = dir.unwrap_or_else(|| history::default_dir(&root));
    match command {
        HistoryCommand::Import { paths } => {
            // Commit times and subjects come from the repository, where there is one.
            let repo = git2::Repository::discover(&root).ok();
            let imported = history::import(&paths, &dir, repo.as_ref())?;
            println!("imported {imported} into {}", dir.display());
        }
        HistoryCommand::Runs { gpu } => print!("{}", history::list_runs(&dir, gpu.as_deref())?),
        HistoryCommand::Show { trial, metric, gpu } => {
            print!("{}", history::query::show(&dir, gpu.as_deref(), &trial, &metric)?)
        }
        HistoryCommand::Changes { gpu, metric, since } => {
            let metric = (metric != "all").then_some(metric.as_str());
            print!("{}", history::query::changes(&dir, gpu.as_deref(), metric, since.as_deref())?)
        }
        HistoryCommand::Gate { gpu, run, suite_exit } => {
            let (text, outcome) = history::query::gate(&dir, gpu.as_deref(), run.as_deref())?;
            print!("{text}");
            let (code, why) = history::query::nightly_exit(suite_exit.unwrap_or(0), outcome);
            if let Some(why) = why {
                println!("{why}");
            }
            return Ok(code);
        }
    }
    Ok(0)
}

/// Runs a `kernelgate baseline` command on `KERNELGATE_BASELINES`, or on the `baselines` folder of
/// the project root of the current folder (as the suite does).
fn baseline_command(command: BaselineCommand, from_env: Option<PathBuf>) -> Result<()> {
    // A KERNELGATE_BASELINES that names no folder is a mistake to report, not an empty baseline,
    // except for a bless, which creates it.
    if let Some(dir) = from_env.as_ref().filter(|d| !d.is_dir())
        && !matches!(command, BaselineCommand::Bless { .. })
    {
        return Err(Error::Baseline {
            path: dir.clone(),
            line: None,
            message: "KERNELGATE_BASELINES names no folder; check the path, or unset it for <project root>/baselines"
                .into(),
        });
    }
    let baselines = match from_env {
        Some(dir) => dir,
        None => {
            let cwd = std::env::current_dir().map_err(Error::io("."))?;
            kernelgate::record::project_root(&cwd).join(BASELINES_DIR)
        }
    };
    match command {
        BaselineCommand::List { gpu } => {
            let keys = match gpu {
                Some(key) => vec![checked_key(&baselines, &key)?],
                None => baseline::gpu_keys(&baselines)?,
            };
            if keys.is_empty() {
                println!("no baselines under {} (a run with KERNELGATE_BLESS=1 writes one)", baselines.display());
            }
            for (i, key) in keys.iter().enumerate() {
                let base = Baseline::load(&baselines.join(key))?;
                print!("{}{}", if i > 0 { "\n" } else { "" }, list(key, &base));
            }
            Ok(())
        }
        BaselineCommand::Show { trial, gpu } => {
            let key = choose_gpu(&baselines, gpu)?;
            let base = Baseline::load(&baselines.join(&key))?;
            print!("{}", show(&key, &base, &trial)?);
            Ok(())
        }
        BaselineCommand::Remove { trials, gpu } => {
            let key = choose_gpu(&baselines, gpu)?;
            let dir = baselines.join(&key);
            let changes = Baseline::update(&dir, |base| {
                let known = base.trials();
                let missing: Vec<&str> = trials.iter().map(String::as_str).filter(|t| !known.contains(t)).collect();
                if !missing.is_empty() {
                    return Err(Error::Baseline {
                        path: dir.join(BASELINE_FILE),
                        line: None,
                        message: format!(
                            "no trial {} in this baseline, so nothing was removed; `kernelgate baseline list --gpu \
                             {key}` lists its trials",
                            missing.join(", ")
                        ),
                    });
                }
                Ok(Some(base.remove(&trials)))
            })?
            .unwrap_or_default();
            for change in &changes {
                println!("{change}");
            }
            let count = trials.iter().collect::<std::collections::BTreeSet<_>>().len();
            println!("kernelgate: removed {} from {}", trials_count(count), shown(&dir));
            Ok(())
        }
        BaselineCommand::Calibrate { records, gpu } => calibrate(&baselines, &records, gpu),
        BaselineCommand::Bless { record, trials, gpu } => bless(&baselines, &record, &trials, gpu),
        BaselineCommand::Reseal { folder } => {
            // An architecture's resource table (baselines/sm_90/) holds resources.csv, no baseline.csv.
            let resources_only =
                folder.join(kernelgate::resources::RESOURCES_FILE).is_file() && !folder.join(BASELINE_FILE).is_file();
            let generation = if resources_only {
                kernelgate::resources::table::reseal(&folder)?
            } else {
                Baseline::reseal(&folder)?
            };
            println!("kernelgate: {} checked and sealed as generation {generation}", shown(&folder));
            Ok(())
        }
    }
}

/// `kernelgate baseline bless`: the record's trials (all valid ones, or those named) into the
/// baseline of the record's GPU key, under the baseline's lock.
fn bless(baselines: &Path, record: &Path, trials: &[String], gpu: Option<String>) -> Result<()> {
    let source = RunRecord::load(record)?;
    // As a run with KERNELGATE_BLESS=1: power-benchmark and A/B runs cannot bless.
    let not_nominal = match (&source.ab_revision, source.work_scale) {
        (Some(rev), _) => Some(format!("a same-run A/B run (KERNELGATE_AB={rev}): its times were taken in pairs")),
        (None, Some(1.0)) => None,
        (None, Some(scale)) => Some(format!("a power-benchmark run (KERNELGATE_WORK_SCALE={scale}): its cases did more work")),
        (None, None) => Some(
            "a record without its run CSV beside it (<stem>.csv next to <stem>-baseline/), which says what kind of run \
             it was"
                .to_string(),
        ),
    };
    if let Some(why) = not_nominal {
        return Err(Error::Compare(format!(
            "{} is {why}; only a plain run can bless, nothing was blessed",
            shown(record)
        )));
    }
    let rec = &source.record;
    let named: Vec<&str> = if trials.is_empty() { rec.trials() } else { trials.iter().map(String::as_str).collect() };
    let missing: Vec<&str> = named.iter().copied().filter(|t| rec.time(t).is_none()).collect();
    if !missing.is_empty() {
        return Err(Error::Baseline {
            path: record.join(BASELINE_FILE),
            line: None,
            message: format!("no time entry for {} in this record; nothing was blessed", missing.join(", ")),
        });
    }
    let (valid, invalid): (Vec<&str>, Vec<&str>) = named.iter().partition(|t| source.invalid(t).is_none());
    for t in &invalid {
        println!("  not blessed: {t}: {}", source.invalid(t).unwrap_or_default());
    }
    if valid.is_empty() {
        return Err(Error::Baseline {
            path: record.to_path_buf(),
            line: None,
            message: "no valid trial to bless (each was measured under bad conditions, above)".into(),
        });
    }
    let mut keys: Vec<String> = valid.iter().map(|t| key_of(rec.time(t).expect("checked"))).collect();
    keys.sort();
    keys.dedup();
    let [recorded] = keys.as_slice() else {
        let message =
            format!("these trials were measured on several GPU models ({}); bless one at a time", keys.join(", "));
        return Err(Error::Baseline { path: record.to_path_buf(), line: None, message });
    };
    if let Some(given) = gpu.filter(|g| g != recorded) {
        return Err(Error::Compare(format!(
            "{} was measured on GPU key {recorded}, and --gpu {given} names another: a baseline holds times of \
             one GPU model; nothing was blessed",
            shown(record)
        )));
    }
    let entries: Vec<Entry> = rec.entries.iter().filter(|e| valid.contains(&e.trial.as_str())).cloned().collect();
    let samples = valid.iter().filter_map(|t| Some((t.to_string(), rec.samples(t)?.to_vec()))).collect();
    let dir = baselines.join(recorded);
    // Through the same bless as a run: a trial without counters in the record keeps its blessed ones.
    let (changes, _) = kernelgate::gate::baseline::run::bless(&dir, (entries, samples))?;
    for c in &changes {
        println!("  {c}");
    }
    println!("kernelgate: blessed {} from {} into {}", trials_count(valid.len()), shown(record), shown(&dir));
    Ok(())
}

/// `1 trial`, `2 trials`.
fn trials_count(n: usize) -> String {
    kernelgate::units::count(n, "trial")
}

/// The GPU key an entry was measured on (`nvidia-h200-sm90`), from its name and compute capability.
fn key_of(e: &Entry) -> String {
    let (major, minor) = e.compute_capability.split_once('.').unwrap_or((&e.compute_capability, "0"));
    kernelgate::gpu::gpu_key(&e.gpu_name, major.parse().unwrap_or(0), minor.parse().unwrap_or(0))
}

/// `kernelgate baseline calibrate`: under the baseline's lock, the blessed value and every usable
/// record's value of the same code, per trial and metric ([`kernelgate::gate::calibrate::gather`]),
/// into the baseline's run-to-run spreads.
fn calibrate(baselines: &Path, records: &[PathBuf], gpu: Option<String>) -> Result<()> {
    // Every record must load before the baseline's lock is taken.
    for record in records {
        RunRecord::load(record)?;
    }
    let key = choose_gpu(baselines, gpu)?;
    let dir = baselines.join(&key);
    let (set, total, used) = Baseline::update(&dir, |base| {
        let found = kernelgate::gate::calibrate::gather(base, records)?;
        for (dir, why) in &found.skipped {
            println!("  skipped {}: {why}", dir.display());
        }
        for (dir, trial, why) in &found.invalid {
            println!("  skipped {trial} of {}: invalid: {why}", dir.display());
        }
        if found.other_gpu > 0 {
            println!(
                "  skipped {} trial results measured on another physical GPU than the blessed one (a calibration \
                 holds for the machine that blessed)",
                found.other_gpu
            );
        }
        if found.unidentified > 0 {
            println!(
                "  warning: {} trial results come from records or a baseline that do not name their physical GPU \
                 (written before kernelgate kept NVML UUIDs): calibrate only with runs of the machine that gates",
                found.unidentified
            );
        }
        let (set, said) = base.calibrate(&found.values);
        for line in said.iter().filter(|l| !l.contains("not calibrated: 1 run of")) {
            println!("  {line}");
        }
        let used = format!("{} record{}", found.used, if found.used == 1 { "" } else { "s" });
        if set.is_empty() {
            return Err(Error::Baseline {
                path: base.dir.join(baseline::RUN_TO_RUN_FILE),
                line: None,
                message: format!(
                    "nothing calibrated from {used} (each trial needs {} valid runs of its blessed code, the blessed \
                     run included); the file was left as it was",
                    baseline::MIN_RUNS
                ),
            });
        }
        let medians = set.iter().filter(|(_, m)| m == baseline::TIME_METRIC).count();
        let trials = found.values.keys().filter(|(_, m)| m == baseline::TIME_METRIC).count();
        Ok(Some((
            format!(
                "{medians} of {trials} trials' medians and {}",
                kernelgate::units::count(set.len() - medians, "counter")
            ),
            used,
            found.other_code,
        )))
    })?
    .expect("the change always returns a value");
    let (what, used, other) = (set, total, used);
    let other = match other {
        0 => String::new(),
        n => format!(" ({n} trial results of other code skipped)"),
    };
    println!(
        "kernelgate: calibrated {what} in {} from the blessed run and {used}{other}",
        shown(&dir.join(baseline::RUN_TO_RUN_FILE)),
    );
    Ok(())
}

/// `key` if it names a folder under baselines/ holding a baseline.csv; otherwise an error listing
/// the keys that do.
fn checked_key(baselines: &Path, key: &str) -> Result<String> {
    let keys = baseline::gpu_keys(baselines)?;
    if keys.iter().any(|k| k == key) {
        return Ok(key.to_string());
    }
    Err(Error::Baseline {
        path: baselines.join(key).join(BASELINE_FILE),
        line: None,
        message: format!("there is no baseline for GPU key {key:?}; {}", found(&keys)),
    })
}

/// The GPU key to use: `--gpu`'s (checked), or the only one with a baseline.
fn choose_gpu(baselines: &Path, gpu: Option<String>) -> Result<String> {
    if let Some(key) = gpu {
        return checked_key(baselines, &key);
    }
    let mut keys = baseline::gpu_keys(baselines)?;
    if keys.len() == 1 {
        return Ok(keys.remove(0));
    }
    let message = if keys.is_empty() {
        "no GPU folder here holds a baseline.csv; a run with KERNELGATE_BLESS=1 writes one".to_string()
    } else {
        format!("{}; pass --gpu KEY to choose one", found(&keys))
    };
    Err(Error::Baseline { path: baselines.to_path_buf(), line: None, message })
}

/// `baselines found for GPU keys a, b`, or that there are none.
fn found(keys: &[String]) -> String {
    if keys.is_empty() {
        "no GPU key has one yet (a run with KERNELGATE_BLESS=1 writes one)".to_string()
    } else {
        format!("baselines found for GPU keys {}", keys.join(", "))
    }
}

/// The first `n` characters of `s`.
/// `dir` relative to the current folder when it is below it (`baselines/nvidia-h200-sm90`).
fn shown(dir: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    dir.strip_prefix(&cwd).unwrap_or(dir).display().to_string()
}

fn short(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// `kernelgate baseline list` for one GPU: the key, then one line per trial.
fn list(key: &str, base: &Baseline) -> String {
    let trials = base.trials();
    let mut rows = vec![["trial", "median", "n", "commit", "date"].map(String::from).to_vec()];
    for trial in &trials {
        let time = base.time(trial);
        let any = time.or_else(|| base.entries.iter().find(|e| e.trial == *trial));
        rows.push(vec![
            trial.to_string(),
            time.map_or_else(|| "-".to_string(), |t| format_value(t.median, &t.unit)),
            time.map_or_else(|| "-".to_string(), |t| t.n.to_string()),
            any.map_or_else(String::new, |e| short(&e.commit, 7)),
            any.map_or_else(String::new, |e| e.date.clone()),
        ]);
    }
    let count = format!("{} trial{}", trials.len(), if trials.len() == 1 { "" } else { "s" });
    let mut out = format!("{key} ({}, {count})\n", shown(&base.dir));
    if !trials.is_empty() {
        out += &table(&rows, &[false, true, true, false, false]);
    }
    out
}

/// `kernelgate baseline show`: the trial's device and entries, and its kept samples.
fn show(key: &str, base: &Baseline, trial: &str) -> Result<String> {
    // The time entry first, then the counters by name.
    let entries: Vec<&Entry> = base.time(trial).into_iter().chain(base.counters(trial)).collect();
    let Some(first) = base.time(trial).or(entries.first().copied()) else {
        return Err(Error::Baseline {
            path: base.dir.join(BASELINE_FILE),
            line: None,
            message: format!(
                "no trial {trial} in this baseline; `kernelgate baseline list --gpu {key}` lists its trials"
            ),
        });
    };
    let clock = first.sm_clock_mhz.map_or_else(|| "unknown".to_string(), |c| format!("{c} MHz"));
    let mut out = format!(
        "{trial} (kernel {}) in {}\n\
         {} (compute capability {}, {} SMs, {} MiB, ECC {}), driver {}, CUDA {}, SM clock {clock}\n\
         physical GPU {} (serial {}, VBIOS {}, PCI {})\n",
        first.kernel,
        shown(&base.dir),
        first.gpu_name,
        first.compute_capability,
        first.sm_count,
        first.memory_mib,
        if first.ecc { "on" } else { "off" },
        first.driver,
        first.cuda,
        or_unknown(&first.gpu_uuid),
        or_unknown(&first.gpu_serial),
        or_unknown(&first.vbios),
        or_unknown(&first.pci_bus_id),
    );
    // Median and mad carry the unit: times with one that keeps 3-4 digits, counters as stored.
    let mut rows = vec![["metric", "median", "n", "mad", "commit", "date", "module"].map(String::from).to_vec()];
    for e in entries {
        rows.push(vec![
            e.metric.clone(),
            format_value(e.median, &e.unit),
            e.n.to_string(),
            format_value(e.mad, &e.unit),
            short(&e.commit, 7),
            e.date.clone(),
            short(&e.module_sha256, 12),
        ]);
    }
    out += &table(&rows, &[false, true, true, true, false, false, false]);
    let kept = base.samples(trial).map_or(0, <[f64]>::len);
    out += &format!("kept samples: {kept}\n");
    if let Some(r) = base.run_to_run.get(&(trial.to_string(), baseline::TIME_METRIC.to_string())) {
        let cases = base.trials().len();
        let floor = Policy::default().run_to_run_floor(r.rsd, cases);
        let usable = if base.run_to_run(trial).is_some() {
            &format!("used: effect floor {:.2}% when all {cases} trials are compared at alpha 0.05", 100.0 * floor)
        } else if r.runs < baseline::MIN_RUNS {
            "not used: too few runs"
        } else {
            "not used: calibrated on other code (re-run kernelgate baseline calibrate)"
        };
        out += &format!(
            "run-to-run spread of the median: {:.3}% over {} runs, {} ({usable})\n",
            100.0 * r.rsd,
            r.runs,
            r.date
        );
    }
    Ok(out)
}

/// `unknown` for an empty field (recorded before kernelgate kept it, or without NVML).
fn or_unknown(s: &str) -> &str {
    if s.is_empty() { "unknown" } else { s }
}

/// Rows as columns two spaces apart, indented by two; `right[c]` right-aligns column `c`.
fn table(rows: &[Vec<String>], right: &[bool]) -> String {
    let widths: Vec<usize> =
        (0..right.len()).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = (row.iter().zip(&widths).zip(right))
            .map(|((cell, &w), &r)| if r { format!("{cell:>w$}") } else { format!("{cell:<w$}") })
            .collect();
        out += "  ";
        out += cells.join("  ").trim_end();
        out += "\n";
    }
    out
}
