//! `kernelgate`: the commands that are not test runs.
//!
//! `kernelgate import-ncu FILE [--csv]` reads an ncu CSV (raw or details page, any ncu version
//! kernelgate knows) or a `.ncu-rep` (through `ncu --import`) and prints the normalized metrics per
//! kernel, so that existing ncu captures enter kernelgate.
//!
//! `kernelgate baseline list|show|remove|calibrate|bless|reseal` reads and edits the per-GPU
//! baselines under `<project root>/baselines/<gpu-key>/` (see `kernelgate::gate::baseline`), or
//! `KERNELGATE_BASELINES/<gpu-key>/`; the project root is found from the current folder as the test
//! runs find it (`kernelgate::paths::project_root`). Every change goes through the baseline
//! store: under the folder's lock, committed whole.
//!
//! `kernelgate compare BASE RUN` judges two records with the gate's rules.
//!
//! `kernelgate history import PATHS...` appends run CSVs to the history stores
//! (`kernelgate::history`), `kernelgate history sync [--fetch REMOTE]` the runs in the git notes,
//! `kernelgate history runs [--gpu KEY]` lists the stored runs, `history show|changes` print series
//! and their change points, `history gate` is the nightly gate's decision and `history previous`
//! the commit its diff report compares with (`kernelgate::history::query`). Every history and diff
//! command uses `--dir`, else `KERNELGATE_HISTORY` as a test run reads it, else
//! `<project root>/.kernelgate/history`.
//!
//! `kernelgate diff A B` compares two commits, runs or run CSVs as a Markdown/HTML report.
//!
//! `kernelgate vars [--markdown]` prints every `KERNELGATE_*` variable from the one table of them
//! (`kernelgate::config::vars`); `--markdown` is the table of `docs/options.md`.

mod baseline;
mod bisect;
mod compare;

use baseline::{BaselineCommand, baseline_command};
use clap::{Parser, Subcommand};
use compare::{Format, compare_command};
use kernelgate::config::vars;
use kernelgate::gate::{CompareOptions, Policy};
use kernelgate::history;
use kernelgate::ncu::import;
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
        #[arg(long, env = vars::NCU_PATH.name, default_value = "ncu")]
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
        #[arg(
            long,
            env = vars::ALPHA.name,
            default_value_t = vars::ALPHA.number_default(),
            value_parser = probability
        )]
        alpha: f64,
        /// Smallest change called a regression, percent (0 to 50).
        #[arg(
            long,
            env = vars::MIN_EFFECT.name,
            default_value_t = vars::MIN_EFFECT.number_default(),
            value_parser = percent
        )]
        min_effect: f64,
        /// Compare SM cycles (seconds x each record's median SM clock), for records taken at
        /// different clocks.
        #[arg(long)]
        cycles: bool,
        /// `text`: the table; `json`: one JSON document on stdout (schema `kernelgate-compare`,
        /// version 1: every trial's medians, change, adjusted p, floor, verdict and what decided it,
        /// and the warnings), for dashboards and scripts.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
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
    /// of the commit stored before that run's commit: the nightly report's old side). Sides measured
    /// on different GPU models are refused. Exits 0 whatever the verdicts (a report, not a gate), 1
    /// on error (a report that could not be written included: the previous one is left whole).
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
        /// Also write the report as one self-contained HTML page, with trend charts (left out, with
        /// a warning, when the history cannot be read).
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        /// The folder of the history stores; default: KERNELGATE_HISTORY, else
        /// `<project root>/.kernelgate/history`.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// For each trial that regressed between GOOD and BAD, the first commit where it did: the
    /// commits between them that changed kernels/ are timed against GOOD in same-run A/B steps of
    /// the suite binary (a binary search per trial); the others are skipped without timing. Exits
    /// 3 when a first bad commit was found, 0 when nothing regressed, 1 on error. Needs a GPU.
    Bisect {
        /// The good (older) commit.
        good: String,
        /// The bad (newer) commit.
        bad: String,
        /// A libtest filter on the trials to bisect (e.g. `transpose/`); default: every trial.
        filter: Option<String>,
        /// The suite binary; default: `kernels` beside this program (scripts/stage puts both in
        /// .gpu/bin).
        #[arg(long, value_name = "PATH")]
        suite: Option<PathBuf>,
        /// Where the steps' logs and run CSVs go; default `target/kernelgate/bisect/<UTC time>`.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Print every KERNELGATE_* variable: name, values, default, meaning and who reads it.
    Vars {
        /// Print the Markdown table of docs/options.md instead.
        #[arg(long)]
        markdown: bool,
    },
    /// The history of runs keyed by commit, one SQLite store per GPU key under
    /// `<project root>/.kernelgate/history/` (or KERNELGATE_HISTORY, or --dir).
    History {
        #[command(subcommand)]
        command: HistoryCommand,
        /// The folder of the history stores; default: KERNELGATE_HISTORY, else
        /// `<project root>/.kernelgate/history`.
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
    /// Append the runs in the git notes (`refs/notes/kernelgate`) to the stores, so that a fresh
    /// clone has the history its notes hold; with --fetch, first fetch a remote's notes and merge
    /// them with git's cat_sort_uniq. Note lines kernelgate cannot use are skipped with a warning.
    Sync {
        /// A remote (`origin`) or URL to fetch `refs/notes/kernelgate` from first (needs the git
        /// program).
        #[arg(long, value_name = "REMOTE")]
        fetch: Option<String>,
    },
    /// Print the full id of the commit stored before RUN's commit on its GPU key (the old side of
    /// the nightly's diff report, as `diff before:<run id>`), or nothing, with a note on stderr,
    /// when there is none.
    Previous {
        /// The run: its id (`20261130T120000Z`) or its run CSV.
        #[arg(long, value_name = "RUN")]
        run: String,
        /// GPU key; default: the one whose history holds the run.
        #[arg(long, value_name = "KEY")]
        gpu: Option<String>,
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
        /// The run to gate (its id or its run CSV; every GPU that ran it); default: the latest run
        /// of each key.
        #[arg(long, value_name = "RUN")]
        run: Option<String>,
        /// The exit code of the suite run being gated (scripts/nightly): 3 is a regression, 2 a bad
        /// option, any other failure a harness error (exit 1).
        #[arg(long, value_name = "CODE")]
        suite_exit: Option<u8>,
    },
}

/// A finite number > 0 (clap value parser).
fn positive(text: &str) -> std::result::Result<f64, String> {
    number(text).filter(|v| *v > 0.0).ok_or_else(|| format!("{text:?} is not a number above 0"))
}

/// A probability above 0, at most 0.5: `KERNELGATE_ALPHA`'s range (clap value parser).
fn probability(text: &str) -> std::result::Result<f64, String> {
    in_range(text, &vars::ALPHA, "--alpha")
}

/// A percentage from 0 to 50: `KERNELGATE_MIN_EFFECT`'s range (clap value parser).
fn percent(text: &str) -> std::result::Result<f64, String> {
    in_range(text, &vars::MIN_EFFECT, "--min-effect")
}

/// A number in the range of `var`, a [`vars::Value::Number`], given as `flag` or as `var`.
fn in_range(text: &str, var: &vars::Var, flag: &str) -> std::result::Result<f64, String> {
    let vars::Value::Number { range, .. } = var.value else { unreachable!("{} is a number", var.name) };
    number(text)
        .filter(|v| range.holds(*v))
        .ok_or_else(|| format!("{text:?} is not {} ({flag} or {})", range.says, var.name))
}

/// The variables' table as plain text: one block per variable.
fn vars_text() -> String {
    let plain = |s: String| s.replace('`', "");
    vars::VARS
        .iter()
        .map(|v| {
            format!(
                "{}\n    values: {}\n    default: {}\n    {}\n    read by: {}\n",
                v.name,
                plain(v.values()),
                plain(v.default_shown()),
                plain(v.meaning.to_string()),
                plain(v.readers())
            )
        })
        .collect()
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
        Command::History { command, dir } => history_command(command, dir, &config.history),
        Command::Diff { old, new, gpu, markdown, html, dir } => {
            diff_command(&old, &new, gpu.as_deref(), markdown, html, dir, &config.history).map(|()| 0)
        }
        Command::Vars { markdown } => {
            print!("{}", if markdown { vars::markdown() } else { vars_text() });
            Ok(0)
        }
        Command::Bisect { good, bad, filter, suite, out } => bisect::run(&good, &bad, filter.as_deref(), suite, out),
        Command::Compare { base, run, scale, alpha, min_effect, cycles, format } => {
            let policy = Policy { alpha, effect_floor: min_effect / 100.0, ..Policy::default() };
            // KERNELGATE_COMPARE=cycles as in a run, or --cycles.
            let cycles = cycles || config.compare_cycles;
            compare_command(
                &base,
                &run,
                &CompareOptions { policy, scale, cycles, host_bound: Some(kernelgate::cases::host_bound) },
                format,
            )
            .map(|regressed| if regressed { kernelgate::suite::EXIT_REGRESSION } else { 0 })
        }
    };
    match result {
        Ok(code) => ExitCode::from(code),
        // An option a command cannot honour (KERNELGATE_HISTORY=off for a command that needs a
        // history) is a bad option, as at start-up.
        Err(e @ Error::Config { .. }) => {
            eprintln!("kernelgate: {e}");
            ExitCode::from(kernelgate::suite::EXIT_CONFIG)
        }
        Err(e) => {
            eprintln!("kernelgate: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `kernelgate compare`: the GPU warnings, then one line per common trial; `Ok(true)` when any
/// regressed.
/// The folder of the history stores of `command`: `dir` (`--dir`), else `KERNELGATE_HISTORY` read
/// as a test run reads it (`history`, from `kernelgate::Config`: a relative folder is relative to
/// the current one, as for the suite), else `<project root>/.kernelgate/history`.
///
/// # Errors
/// [`Error::Config`] for `KERNELGATE_HISTORY=off` without `--dir`: the command needs a history,
/// and the user said there is none (no default folder is used instead).
fn history_dir(dir: Option<PathBuf>, history: &kernelgate::config::History, command: &str) -> Result<PathBuf> {
    use kernelgate::config::History;
    match (dir, history) {
        (Some(d), _) => Ok(d),
        (None, History::Dir(d)) => Ok(d.clone()),
        (None, History::Default) => {
            let cwd = std::env::current_dir().map_err(Error::io("."))?;
            Ok(history::default_dir(&kernelgate::paths::project_root(&cwd)))
        }
        (None, History::Off) => Err(Error::Config {
            name: "KERNELGATE_HISTORY",
            value: "off".into(),
            expected: format!(
                "`kernelgate {command}` needs a history, and off says there is none; unset it for \
                 <project root>/.kernelgate/history, name a folder, or pass --dir"
            ),
        }),
    }
}

/// `kernelgate diff`: both sides resolved in the history folder (a run CSV side needs none),
/// refused when they ran on different GPU models, compared, the Markdown to stdout or `markdown`,
/// the HTML page to `html`. The HTML page's trend charts are optional: they are read from the store
/// of the new side's GPU key (the old side's where the new one has none) only when `html` is asked
/// for, and a store that cannot be read leaves them out with a warning, never the report. Every
/// report is written whole or not at all ([`kernelgate::report::write_whole`]).
fn diff_command(
    old: &str,
    new: &str,
    gpu: Option<&str>,
    markdown: Option<PathBuf>,
    html: Option<PathBuf>,
    dir: Option<PathBuf>,
    history: &kernelgate::config::History,
) -> Result<()> {
    // Two run CSVs need no history: with KERNELGATE_HISTORY=off they are compared without trends
    // (an empty folder holds no store to draw them from).
    let files = [old, new].iter().all(|s| matches!(history::query::Spec::parse(s), Ok(history::query::Spec::File(_))));
    let mut none = None;
    let dir = match (dir, history) {
        (None, kernelgate::config::History::Off) if files => {
            let empty = tempfile::tempdir().map_err(Error::io(std::env::temp_dir()))?;
            none.insert(empty).path().to_path_buf()
        }
        (dir, history) => history_dir(dir, history, "diff")?,
    };
    use kernelgate::report::diff::machines::{self, Machine};
    // Two commits of which one has no run of its own (a pull request's head timed only in pairs, or
    // its base never timed alone): both sides from the A/B runs of NEW against OLD, when stored.
    let (a, b, pairs) =
        match (history::query::resolve_side(&dir, old, gpu), history::query::resolve_side(&dir, new, gpu)) {
            (Ok(a), Ok(b)) => (a, b, None),
            (ra, rb) => {
                let alone = if ra.is_err() { old } else { new };
                match history::query::paired_sides(&dir, old, new, gpu)? {
                    Some((a, b, pairs)) => (a, b, Some((alone, pairs))),
                    None => return Err(ra.and(rb).expect_err("one side failed")),
                }
            }
        };
    let of = |side: &history::query::Resolved| -> Vec<Machine> {
        side.runs
            .iter()
            .map(|r| Machine {
                gpu_key: r.meta.gpu_key.clone(),
                gpu_name: r.meta.gpu_name.clone(),
                driver: r.meta.driver.clone(),
                cuda: r.meta.cuda.clone(),
            })
            .collect()
    };
    // Sides read from the pairs are one set of runs: the old side's machines are the new side's.
    let old_machines = if pairs.is_some() { of(&b) } else { of(&a) };
    let notes =
        machines::compare((&a.side, &old_machines, &a.rows), (&b.side, &of(&b), &b.rows)).map_err(Error::Compare)?;
    let mut diff = kernelgate::report::diff::diff(&a.side, &a.rows, &b.side, &b.rows);
    match pairs {
        Some((alone, pairs)) => {
            diff.paired = pairs;
            diff.notes.push(format!(
                "{alone} has no run of its own in the history: both sides are read from the same-run A/B runs of {} \
                 against {} (the old side's times are A's medians over the pairs, the new side's B's; A's counters \
                 and other statistics were not recorded, so they show as absent)",
                b.side.label.split(' ').next().unwrap_or(new),
                a.side.label.split(' ').next().unwrap_or(old),
            ));
        }
        None => {
            diff.paired = history::query::paired_evidence(&a, &b);
            let pairs_here = !diff.paired.is_empty();
            diff.notes.extend(history::query::other_gpus_note(&a.runs, &b.runs).map(|n| {
                if pairs_here {
                    n.replace(", or use KERNELGATE_AB", ", or read the same-run A/B pairs below")
                } else {
                    n
                }
            }));
        }
    }
    diff.notes.extend(notes);
    diff.notes.extend(kernelgate::report::diff::paired_note(&diff));
    let text = kernelgate::report::markdown::render(&diff);
    let page = html.as_ref().map(|_| {
        let trials: Vec<&str> = diff.trials.iter().map(|t| t.trial.as_str()).collect();
        let found = history::query::trends(&dir, &b.gpu_key, &trials).and_then(|t| {
            if t.is_empty() && a.gpu_key != b.gpu_key {
                history::query::trends(&dir, &a.gpu_key, &trials)
            } else {
                Ok(t)
            }
        });
        match found {
            Ok(trends) => kernelgate::report::html::render(&diff, &trends),
            Err(e) => {
                let why = format!("the trend charts are left out: the history could not be read ({e})");
                eprintln!("kernelgate: warning: {why}");
                let mut shown = diff.clone();
                shown.notes.push(why);
                kernelgate::report::html::render(&shown, &[])
            }
        }
    });
    let mut files: Vec<(&Path, &[u8])> = Vec::new();
    if let Some(path) = &markdown {
        files.push((path, text.as_bytes()));
    }
    if let (Some(path), Some(page)) = (&html, &page) {
        files.push((path, page.as_bytes()));
    }
    kernelgate::report::write_whole(&files)?;
    // Data on stdout, what was written on stderr: `diff A B --html r.html > summary.md` is the
    // Markdown alone.
    match &markdown {
        Some(path) => eprintln!("wrote {} ({})", path.display(), diff.summary()),
        None => print!("{text}"),
    }
    if let Some(path) = &html {
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// Runs a `kernelgate history` command on the folder [`history_dir`] chooses; returns the exit
/// code (0, or `history gate`'s decision). Warnings (files skipped, note lines skipped) go to
/// stderr, one line each.
fn history_command(command: HistoryCommand, dir: Option<PathBuf>, history: &kernelgate::config::History) -> Result<u8> {
    let cwd = std::env::current_dir().map_err(Error::io("."))?;
    let root = kernelgate::paths::project_root(&cwd);
    let name = match &command {
        HistoryCommand::Import { .. } => "history import",
        HistoryCommand::Sync { .. } => "history sync",
        HistoryCommand::Previous { .. } => "history previous",
        HistoryCommand::Runs { .. } => "history runs",
        HistoryCommand::Show { .. } => "history show",
        HistoryCommand::Changes { .. } => "history changes",
        HistoryCommand::Gate { .. } => "history gate",
    };
    let dir = history_dir(dir, history, name)?;
    let warn = |warnings: &[String]| {
        for w in warnings {
            eprintln!("kernelgate: warning: {w}");
        }
    };
    match command {
        HistoryCommand::Import { paths } => {
            // Commit times and subjects come from the repository, where there is one.
            let repo = git2::Repository::discover(&root).ok();
            let imported = history::import(&paths, &dir, repo.as_ref())?;
            warn(&imported.warnings);
            println!("imported {imported} into {}", dir.display());
        }
        HistoryCommand::Sync { fetch } => {
            let repo = git2::Repository::discover(&cwd).map_err(|e| Error::Notes {
                commit: history::NOTES_REF.into(),
                line: None,
                message: format!(
                    "no git repository at {} ({}): the notes live in one; run this inside a clone",
                    cwd.display(),
                    e.message()
                ),
            })?;
            let synced = history::sync::sync(&repo, &dir, fetch.as_deref())?;
            if let Some(fetched) = &synced.fetched {
                println!("{fetched}");
            }
            warn(&synced.warnings);
            println!("synced {synced} into {}", dir.display());
        }
        HistoryCommand::Previous { run, gpu } => {
            let found = history::query::previous(&dir, &run, gpu.as_deref())?;
            match &found.previous {
                Some(p) => println!("{}", p.commit),
                None => eprintln!(
                    "kernelgate: no commit is stored before {} (the commit of run {}) in the history of {}: nothing \
                     to compare it with",
                    history::query::short_commit(&found.run.commit),
                    found.run.run_id,
                    found.gpu_key
                ),
            }
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
            let run = run.as_deref().map(history::query::run_id_of).transpose()?;
            let (text, outcome) =
                history::query::gate(&dir, gpu.as_deref(), run.as_deref(), kernelgate::cases::host_bound)?;
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

/// `1 trial`, `2 trials`.
fn trials_count(n: usize) -> String {
    kernelgate::units::count(n, "trial")
}
