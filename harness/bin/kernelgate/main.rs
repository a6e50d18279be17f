//! `kernelgate`: the commands that are not test runs.
//!
//! `kernelgate import-ncu FILE [--csv]` reads an ncu CSV (raw or details page, any ncu version
//! kernelgate knows) or a `.ncu-rep` (through `ncu --import`) and prints the normalized metrics per
//! kernel, so that existing ncu captures enter kernelgate.
//!
//! `kernelgate baseline list|show|remove|calibrate|bless|reseal` reads and edits the per-GPU
//! baselines under `<the project's baselines>/<gpu-key>/` (see `kernelgate::gate::baseline`), or
//! `KERNELGATE_BASELINES/<gpu-key>/`; the project is found from the current folder as the test
//! runs find it (`kernelgate::project::Project::current`). Every change goes through the baseline
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
//! the project's (`history` in `kernelgate.toml`, default `<project root>/.kernelgate/history`).
//!
//! `kernelgate diff A B` compares two commits, runs or run CSVs as a Markdown/HTML report, or as
//! one JSON document with `--format json`; so do the history's queries.
//!
//! `kernelgate export --format bmf|github-action-benchmark|nvbench RUN` prints one run's trial times
//! for Bencher, github-action-benchmark or nvbench's scripts (`kernelgate::report::export`).
//!
//! `kernelgate lessons [PATHS...]` prints the lesson trials' ratios over runs from their lessons
//! CSVs, with the bound the margin rule gives (`kernelgate::gate::lesson`).
//!
//! `kernelgate plan --shards N` prints the job matrix of a pool's CI run (GPU kinds x shards, the
//! shards balanced by the trials' times in the history) and `kernelgate merge PATHS...` folds the
//! jobs' results into one report and one exit code (`kernelgate::pool`).
//!
//! `kernelgate init [DIR]` scaffolds a project that gates its kernels with kernelgate.
//!
//! `kernelgate vars [--markdown]` prints every `KERNELGATE_*` variable from the one table of them
//! (`kernelgate::config::vars`); `--markdown` is the table of `docs/options.md`.

mod baseline;
mod bisect;
mod compare;
mod compile;
mod diff;
mod export;
mod history;
mod init;
mod lessons;
mod pool;

use baseline::{BaselineCommand, baseline_command};
use clap::{Parser, Subcommand};
use compare::{Format, compare_command};
use export::ExportFormat;
use history::HistoryCommand;
use kernelgate::Error;
use kernelgate::config::vars;
use kernelgate::gate::{CompareOptions, Policy};
use kernelgate::ncu::import;
use std::path::PathBuf;
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
    /// the project's baselines folder (KERNELGATE_BASELINES, else `baselines` in kernelgate.toml,
    /// else `<project root>/baselines/`).
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
        /// The folder of the history stores; default: KERNELGATE_HISTORY, else `history` in
        /// kernelgate.toml, else `<project root>/.kernelgate/history`.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// `text`: the Markdown; `json`: one JSON document on stdout instead (schema
        /// `kernelgate-diff`, version 1, docs/history.md): the sides with their runs, per trial the
        /// medians, change, verdict and the metrics that moved, the paired evidence.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Print the job matrix of a pool's CI run: each GPU kind's trials split into N shards, balanced
    /// by each trial's sampling time in the history (the median of its last 5 runs; equal counts
    /// where there are none), as JSON a GitHub `strategy.matrix`, a GitLab `parallel:matrix` or a
    /// Buildkite pipeline reads. Each job runs the suite binary with its `--partition` value. The
    /// trial list comes from the last run of the suite binary (`-- --list` is enough). Exits 0, or
    /// 1 on error (docs/runners.md).
    Plan {
        /// Shards per GPU kind (1 to 36), for the kinds `--gpu` gives no count of their own.
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=36))]
        shards: u16,
        /// A GPU kind to plan for (a GPU key, `nvidia-h200-sm90`), with its own number of shards
        /// after `=` (`nvidia-h200-sm90=4`: more runners of that kind, more shards); repeat for
        /// several; default: every key of the history and the baselines, in `--shards` shards.
        #[arg(long = "gpu", value_name = "KEY[=SHARDS]", value_parser = pool::gpu_arg)]
        gpus: Vec<pool::GpuArg>,
        /// The matrix's shape.
        #[arg(long, value_enum, default_value = "github")]
        format: pool::Format,
        /// Also write the plan (every shard's trials) here, for `kernelgate merge --plan`.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// The suite's command line in Buildkite's steps (`--partition VALUE` is added).
        #[arg(long, value_name = "COMMAND", default_value = "cargo test --release --test kernels --")]
        command: String,
        /// The folder of the history stores; default: KERNELGATE_HISTORY, else `history` in
        /// kernelgate.toml, else `<project root>/.kernelgate/history`.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Fold the results of many jobs (run CSVs and A/B JSONs found under PATHS: the output folders
    /// of a matrix's jobs) into one report, one column per GPU kind. Exits 3 when a job regressed, 4
    /// when a shard of the plan did not report (or nothing did: missing is never a pass), 0
    /// otherwise, 1 on error (docs/runners.md).
    Merge {
        /// Job results: run CSVs, `-ab.json` files, or folders searched for them.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// The plan the jobs ran (`kernelgate plan --out`): its shards that did not report are
        /// named as missing.
        #[arg(long, value_name = "FILE")]
        plan: Option<PathBuf>,
        /// Write the Markdown comment here instead of printing it.
        #[arg(long, value_name = "FILE")]
        markdown: Option<PathBuf>,
        /// Also write one self-contained HTML page.
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        /// Also write the JSON document (schema `kernelgate-merge`, version 1).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
    },
    /// Print one run's trial times (median, ns, with the median's 95 % CI or the samples' min and
    /// max) for a benchmark dashboard: Bencher (BMF) or github-action-benchmark
    /// (customSmallerIsBetter); or its time statistics as nvbench's JSON (seconds), for
    /// nvbench_compare.py. RUN is a run CSV or a run id in the history (`@GPU-uuid-prefix` to
    /// pick one GPU). Exits 0, or 1 on error.
    Export {
        /// The dashboard's format.
        #[arg(long, value_enum)]
        format: ExportFormat,
        /// The run: a run CSV (`target/kernelgate/runs/<stem>.csv`) or a run id.
        run: String,
        /// GPU key whose history a run id is looked up in; default: every key.
        #[arg(long, value_name = "KEY")]
        gpu: Option<String>,
        /// The folder of the history stores (for a run id); default: KERNELGATE_HISTORY, else
        /// `history` in kernelgate.toml, else `<project root>/.kernelgate/history`.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// The lesson trials' ratios good / bad over runs, from their lessons CSVs (`<stem>-lessons.csv`):
    /// per lesson trial the runs, GPUs, smallest, median and largest ratio, the highest top of an
    /// interval, the bound in force and the bound the margin rule gives (halfway between the
    /// largest ratio and 1.0, rounded up to a hundredth) from at least --min-runs judged runs.
    /// Exits 0, or 1 on error.
    Lessons {
        /// Lessons CSVs, or folders of them; default `<project root>/target/kernelgate/runs`.
        paths: Vec<PathBuf>,
        /// Judged runs needed before the margin rule gives a bound.
        #[arg(long, default_value_t = kernelgate::gate::lesson::MIN_RUNS_FOR_A_BOUND, value_name = "N")]
        min_runs: usize,
    },
    /// For each trial that regressed between GOOD and BAD, the first commit where it did: the
    /// commits between them that changed a kernel folder are timed against GOOD in same-run A/B steps of
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
    /// Compile kernel files as they are on disk now, without rebuilding the crate, and run the
    /// compile trials' checks: entry points, the resource gate (registers, spills, occupancy) and
    /// the SASS gate (instruction classes, the cases' declared lessons) against
    /// baselines/<arch>/. Needs NVRTC (scripts/get-nvrtc), and nvdisasm for the SASS gate. Exits 0
    /// when all pass, 3 when only the gates failed, 1 when a file does not compile or a check failed
    Compile {
        /// Kernel files, e.g. kernels/vectorization.cu (named by their file name in the tables)
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// An architecture to compile for, repeatable (default: both): sm_80 or sm_90, the
        /// architectures with occupancy tables (harness/resources/occupancy.rs) and blessed rows
        #[arg(long, value_name = "ARCH", value_parser = compile::ARCHS)]
        arch: Vec<String>,
        /// A template instance to compile, as a name expression (`block_sum<256, 8>`), repeatable;
        /// added to the instances the case table launches from the file
        #[arg(long, value_name = "EXPR")]
        instance: Vec<String>,
        /// A preprocessor definition, NAME=VALUE, repeatable: each file is compiled once with
        /// all of them (as a case's Kernel::define builds it) instead of as the cases build it,
        /// and its figures are printed for every kernel, gated against nothing
        #[arg(long, value_name = "NAME=VALUE")]
        define: Vec<String>,
    },
    /// Scaffold a project that gates its kernels with kernelgate (docs/adopting.md): kernelgate.toml,
    /// build.rs, tests/kernels.rs, an example kernel and case (unless --kernels names existing
    /// folders), baselines/ and a GitHub Actions workflow for a GPU runner; in a folder without a
    /// Cargo.toml (a CUDA C++ repository's subfolder) a small crate's Cargo.toml too, in a Rust
    /// crate the lines to add to its Cargo.toml. Never replaces a file: exits 1 naming those that
    /// exist, writing nothing
    Init {
        /// The crate's folder (created when missing).
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// An existing kernel folder, relative to DIR (`../src/kernels`); repeat for several.
        /// Default: `kernels/` with an example kernel.
        #[arg(long)]
        kernels: Vec<String>,
        /// The kernelgate checkout the project depends on by path (relative when it lies in the
        /// project's git repository, as a submodule does); default: the one this program runs from
        /// (`<checkout>/target/<profile>/kernelgate`), else the one it was built from (`cargo
        /// install --path <checkout>/harness`), while it is there.
        #[arg(long, conflicts_with = "git")]
        kernelgate: Option<PathBuf>,
        /// Depend on kernelgate's git repository instead (`git = URL` in Cargo.toml): what a CI
        /// runner's checkout can fetch without a kernelgate clone beside it.
        #[arg(long, value_name = "URL")]
        git: Option<String>,
        /// The commit or tag of --git to depend on (`rev = REV`); default: its default branch,
        /// pinned by Cargo.lock.
        #[arg(long, value_name = "REV", requires = "git")]
        rev: Option<String>,
    },
    /// Print every KERNELGATE_* variable: name, values, default, meaning and who reads it.
    Vars {
        /// Print the Markdown table of docs/options.md instead.
        #[arg(long)]
        markdown: bool,
    },
    /// The history of runs keyed by commit, one SQLite store per GPU key under the project's
    /// history folder (--dir, else KERNELGATE_HISTORY, else `history` in kernelgate.toml, else
    /// `<project root>/.kernelgate/history/`).
    History {
        #[command(subcommand)]
        command: HistoryCommand,
        /// The folder of the history stores; default: KERNELGATE_HISTORY, else `history` in
        /// kernelgate.toml, else `<project root>/.kernelgate/history`.
        #[arg(long, global = true, value_name = "DIR")]
        dir: Option<PathBuf>,
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

/// The case facts the last run of the project's test binary wrote ([`kernelgate::case::facts`]),
/// or `None`, saying on stderr what the command does without them (`without`).
///
/// # Errors
/// A facts file that cannot be read or is not this kernelgate's.
pub(crate) fn case_facts(
    project: &kernelgate::project::Project,
    without: &str,
) -> kernelgate::Result<Option<kernelgate::case::facts::Facts>> {
    let facts = kernelgate::case::facts::Facts::read(&project.out_dir)?;
    if let Some(why) = facts.as_ref().and_then(|f| f.stale(&project.root)) {
        kernelgate::errln!(
            "kernelgate: warning: the case facts at {} {why}",
            kernelgate::case::facts::Facts::path(&project.out_dir).display()
        );
    }
    if facts.is_none() {
        kernelgate::errln!(
            "kernelgate: no case facts at {} (every run of the project's test binary writes them; \
             `cargo test --release --test kernels -- --list` is enough): {without}",
            kernelgate::case::facts::Facts::path(&project.out_dir).display()
        );
    }
    Ok(facts)
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
            kernelgate::errln!("kernelgate: {e}");
            return ExitCode::from(kernelgate::suite::EXIT_CONFIG);
        }
    };
    let cli = Cli::parse();
    // Where the project of the current folder keeps things (its kernelgate.toml, else the
    // defaults): made once, handed to the commands.
    let project = match kernelgate::project::Project::current(&config) {
        Ok(p) => p,
        Err(e) => {
            kernelgate::errln!("kernelgate: {e}");
            return ExitCode::from(kernelgate::suite::EXIT_CONFIG);
        }
    };
    let result = match cli.command {
        Command::ImportNcu { file, csv, ncu } => {
            let format = if csv { import::Format::Csv } else { import::Format::Table };
            import::run(&file, &ncu, format, &mut std::io::stdout().lock(), &mut std::io::stderr()).map(|()| 0)
        }
        Command::Baseline { command } => baseline_command(command, &project, config.baselines.is_some()).map(|()| 0),
        Command::History { command, dir } => history::history_command(command, dir, &config.history, &project),
        Command::Diff { old, new, gpu, markdown, html, dir, format } => {
            let reports = diff::Reports { markdown, html, format };
            diff::diff_command(&old, &new, gpu.as_deref(), reports, dir, &config.history, &project).map(|()| 0)
        }
        Command::Export { format, run, gpu, dir } => {
            let history = || history::history_dir(dir, &config.history, &project, "export");
            export::export_command(&run, format, gpu.as_deref(), history, &project.baselines_shown()).map(|()| 0)
        }
        Command::Plan { shards, gpus, format, out, command, dir } => {
            history::history_dir(dir, &config.history, &project, "plan").and_then(|history| {
                let request =
                    pool::PlanRequest { shards: shards.into(), gpus: &gpus, format, out, command: &command, history };
                pool::plan_command(&project, &request)
            })
        }
        Command::Merge { paths, plan, markdown, html, json } => {
            pool::merge_command(&paths, plan.as_deref(), markdown.as_deref(), html.as_deref(), json.as_deref())
        }
        Command::Compile { .. } if config.bless => Err(Error::Config {
            name: vars::BLESS.name,
            value: "1".into(),
            expected: format!(
                "unset for kernelgate compile, which checks and never writes; bless with {}",
                kernelgate::resources::table::bless_command(Some("<file>.cu"))
            ),
        }),
        Command::Compile { files, arch, instance, define } => {
            compile::compile_command(&files, &arch, &instance, &define, &project)
        }
        Command::Init { dir, kernels, kernelgate, git, rev } => match git {
            Some(url) => Ok(init::Source::Git { url, rev }),
            None => init::checkout(kernelgate).map(init::Source::Checkout),
        }
        .and_then(|kernelgate| init::init_command(&init::Init { dir, kernels, kernelgate })),
        Command::Vars { markdown } => {
            kernelgate::out!("{}", if markdown { vars::markdown() } else { vars_text() });
            Ok(0)
        }
        Command::Lessons { paths, min_runs } => lessons::lessons_command(paths, &project, min_runs),
        Command::Bisect { good, bad, filter, suite, out } => {
            bisect::run(&project, &good, &bad, filter.as_deref(), suite, out)
        }
        Command::Compare { base, run, scale, alpha, min_effect, cycles, format } => {
            let policy = Policy { alpha, effect_floor: min_effect / 100.0, ..Policy::default() };
            // KERNELGATE_COMPARE=cycles as in a run, or --cycles.
            let cycles = cycles || config.compare_cycles;
            case_facts(&project, "host-bound trials are judged as the others").and_then(|facts| {
                let host_bound = |trial: &str| facts.as_ref().and_then(|f| f.host_bound(trial));
                let options = CompareOptions { policy, scale, cycles, host_bound: Some(&host_bound) };
                compare_command(&base, &run, &options, format)
                    .map(|regressed| if regressed { kernelgate::suite::EXIT_REGRESSION } else { 0 })
            })
        }
    };
    match result {
        Ok(code) => ExitCode::from(code),
        // An option a command cannot honour (KERNELGATE_HISTORY=off for a command that needs a
        // history), or a flag's value it refuses (`plan --gpu` twice, `compile --define`), is a bad
        // option, as at start-up (docs/reading-results.md, "Exit codes").
        Err(e @ (Error::Config { .. } | Error::Flag { .. })) => {
            kernelgate::errln!("kernelgate: {e}");
            ExitCode::from(kernelgate::suite::EXIT_CONFIG)
        }
        Err(e) => {
            kernelgate::errln!("kernelgate: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `1 trial`, `2 trials`.
fn trials_count(n: usize) -> String {
    kernelgate::units::count(n, "trial")
}

/// Prints one JSON document on stdout, pretty, with a final newline: the `--format json` output of
/// every command (nothing else goes to stdout then).
fn print_json(doc: &serde_json::Value) {
    println!(
        "{}",
        kernelgate::console::json_shown(&serde_json::to_string_pretty(doc).expect("a JSON value always serializes"))
    );
}
