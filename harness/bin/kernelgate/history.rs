//! `kernelgate history`: import, sync, and the queries (runs, show, changes, gate, previous), each
//! query printed as text or as one JSON document (`kernelgate::history::query`'s `*_json`).

use super::{Format, print_json};
use clap::Subcommand;
use kernelgate::history;
use kernelgate::{Error, Result};
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub(crate) enum HistoryCommand {
    /// Append run CSVs (`<stem>.csv`, any run-CSV schema) and their ncu `<stem>-metrics.csv` to the
    /// store of each run's GPU key. Importing a run again adds nothing.
    Import {
        /// Run CSVs, metrics CSVs, or folders holding them at any depth (e.g. `baselines/*/runs`, a CI
        /// job's downloaded artifacts; folders named `.*` are not entered).
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
        /// `text`: lines for people; `json`: one JSON document on stdout (schema
        /// `kernelgate-history-previous`, version 1, docs/history.md), warnings on stderr.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// List the stored runs: commit, run id, GPU UUID (start) and number of values.
    Runs {
        /// GPU key (`nvidia-h200-sm90`); default: every GPU key with a history.
        #[arg(long, value_name = "KEY")]
        gpu: Option<String>,
        /// `text`: lines for people; `json`: one JSON document on stdout (schema
        /// `kernelgate-history-runs`, version 1, docs/history.md), warnings on stderr.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// One trial's series, one line per run (commit, run id, GPU, value, verdict), then its change
    /// points per physical GPU. Without any history yet, a line saying so (exit 0); a trial the
    /// history does not hold is an error (exit 1).
    Show {
        /// Trial name, `family/variant/size`.
        trial: String,
        /// The metric: `median` (time) or another run statistic or ncu counter.
        #[arg(long, default_value = "median")]
        metric: String,
        /// GPU key; default: every GPU key with a history.
        #[arg(long, value_name = "KEY")]
        gpu: Option<String>,
        /// `text`: lines for people; `json`: one JSON document on stdout (schema
        /// `kernelgate-history-show`, version 1, docs/history.md), warnings on stderr.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// The change points of every trial's series, per physical GPU, newest first. Without any
    /// history yet, a line saying so (exit 0); a --since commit the history does not hold is an
    /// error (exit 1).
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
        /// `text`: lines for people; `json`: one JSON document on stdout (schema
        /// `kernelgate-history-changes`, version 1, docs/history.md), warnings on stderr.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// The gate's own error rates per runner (physical GPU), from the A/A controls every same-run
    /// A/B run times (KERNELGATE_AB_CONTROLS): false positives (`regressed` or `improved` on a
    /// module against itself), `ambiguous` and `invalid`, each with its exact 95 % interval
    /// (Clopper-Pearson), over all its controls and per ISO week. Exits 0, or 1 on error.
    Quality {
        /// GPU key; default: every GPU key with a history.
        #[arg(long, value_name = "KEY")]
        gpu: Option<String>,
        /// `text`: lines for people; `json`: one JSON document on stdout (schema
        /// `kernelgate-history-quality`, version 1: per runner its tallies, overall and per week).
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// The nightly gate: for the latest run of each GPU key (or --run), fail on a `regressed`
    /// verdict or a time change point (1 % or more, per physical GPU) that is an increase at the
    /// run's commit. Exit codes: 0 pass; 3 regressed; 4 nothing regressed but a trial is `invalid`;
    /// 5 (`--reference gpu`) the GPU has no history of its own yet; 1 no history or a store cannot
    /// be read; 2 bad arguments (the same with `--format json`).
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
        /// What each trial is judged against: `baseline`, the run's own verdicts against the
        /// committed baseline (a runner that blessed it); `gpu`, the same physical GPU's own earlier
        /// runs (a pool: docs/ci.md, "A pool's nightly"). With `gpu`, a GPU without a history of its
        /// own yet exits 5 and names the commit to time it against in a same-run A/B run.
        #[arg(long, value_enum, default_value = "baseline")]
        reference: GateReference,
        /// `text`: lines for people; `json`: one JSON document on stdout (schema
        /// `kernelgate-history-gate`, version 1, docs/history.md), warnings on stderr.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
}

/// What `kernelgate history gate --reference` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GateReference {
    /// The run's own verdicts, against the committed baseline.
    Baseline,
    /// The same physical GPU's own earlier runs.
    Gpu,
}

/// The folder of the history stores of `command`: `dir` (`--dir`), else `KERNELGATE_HISTORY` read
/// as a test run reads it (`history`, from `kernelgate::Config`: a relative folder is relative to
/// the current one, as for the suite), else the project's ([`kernelgate::project::Project::history`]:
/// `history` in `kernelgate.toml`, default `<project root>/.kernelgate/history`).
///
/// # Errors
/// [`Error::Config`] for `KERNELGATE_HISTORY=off` without `--dir`: the command needs a history,
/// and the user said there is none (no default folder is used instead).
pub(crate) fn history_dir(
    dir: Option<PathBuf>,
    history: &kernelgate::config::History,
    project: &kernelgate::project::Project,
    command: &str,
) -> Result<PathBuf> {
    use kernelgate::config::History;
    // A file, device or FIFO where the stores' folder should be: said before any store is opened.
    let folder = |d: PathBuf, named: &str| -> Result<PathBuf> {
        match std::fs::metadata(&d) {
            Ok(m) if !m.is_dir() => Err(Error::io(&d)(std::io::Error::other(format!(
                "{named} names a file, not the folder of history stores; name a folder (`kernelgate history import` \
                 makes it)"
            )))),
            _ => Ok(d),
        }
    };
    match (dir, history) {
        (Some(d), _) => folder(d, "--dir"),
        (None, History::Dir(d)) => folder(d.clone(), "KERNELGATE_HISTORY"),
        (None, History::Default) => match &project.history {
            Some(d) if project.history_named => folder(d.clone(), "history in kernelgate.toml"),
            Some(d) => Ok(d.clone()),
            None => unreachable!("a project has a history unless KERNELGATE_HISTORY=off"),
        },
        (None, History::Off) => Err(Error::Config {
            name: "KERNELGATE_HISTORY",
            value: "off".into(),
            expected: format!(
                "`kernelgate {command}` needs a history, and off says there is none; unset it for \
                 the project's (`history` in kernelgate.toml, default <project root>/.kernelgate/history), name a \
                 folder, or pass --dir"
            ),
        }),
    }
}

/// Runs a `kernelgate history` command on the folder [`history_dir`] chooses; returns the exit
/// code (0, or `history gate`'s decision). Warnings (files skipped, note lines skipped) go to
/// stderr, one line each.
pub(crate) fn history_command(
    command: HistoryCommand,
    dir: Option<PathBuf>,
    history: &kernelgate::config::History,
    project: &kernelgate::project::Project,
) -> Result<u8> {
    let cwd = std::env::current_dir().map_err(Error::io("."))?;
    let root = &project.root;
    let name = match &command {
        HistoryCommand::Import { .. } => "history import",
        HistoryCommand::Sync { .. } => "history sync",
        HistoryCommand::Previous { .. } => "history previous",
        HistoryCommand::Runs { .. } => "history runs",
        HistoryCommand::Show { .. } => "history show",
        HistoryCommand::Changes { .. } => "history changes",
        HistoryCommand::Gate { .. } => "history gate",
        HistoryCommand::Quality { .. } => "history quality",
    };
    let dir = history_dir(dir, history, project, name)?;
    // What a message that finds no history (or a damaged store) says fills it: the project's run CSVs.
    let baselines = project.baselines_shown();
    let warn = |warnings: &[String]| {
        for w in warnings {
            kernelgate::errln!("kernelgate: warning: {w}");
        }
    };
    // No store at all (and no GPU key named, whose missing store is an error, as for `runs`): what
    // `runs`, `show` and `changes` meet before the first run, which is not an error. Said on stdout
    // for text, on stderr beside an empty document for JSON, as `runs` says it.
    let empty =
        |gpu: &Option<String>| -> Result<bool> { Ok(gpu.is_none() && history::store::gpu_keys(&dir)?.is_empty()) };
    let say_empty = |format: Format| match format {
        Format::Text => kernelgate::outln!("{}", history::no_history(&dir, &baselines)),
        Format::Json => kernelgate::errln!("kernelgate: {}", history::no_history(&dir, &baselines)),
    };
    match command {
        HistoryCommand::Import { paths } => {
            // Commit times and subjects come from the repository, where there is one.
            let repo = git2::Repository::discover(root).ok();
            let imported = history::import(&paths, &dir, repo.as_ref(), &baselines)?;
            warn(&imported.warnings);
            if imported.runs > 0 && imported.new_rows == 0 {
                // Imported before: the store keeps one copy of each row (a repeated import adds none).
                kernelgate::outln!("read {imported} into {}: every row was there already", dir.display());
            } else {
                kernelgate::outln!("imported {imported} into {}", dir.display());
            }
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
            let synced = history::sync::sync(&repo, &dir, fetch.as_deref(), &baselines)?;
            if let Some(fetched) = &synced.fetched {
                kernelgate::outln!("{fetched}");
            }
            warn(&synced.warnings);
            kernelgate::outln!("synced {synced} into {}", dir.display());
        }
        HistoryCommand::Previous { run, gpu, format } => {
            let found = history::query::previous(&dir, &run, gpu.as_deref(), &baselines)?;
            if format == Format::Json {
                print_json(&history::query::previous_json(&found));
            }
            match &found.previous {
                Some(p) if format == Format::Text => kernelgate::outln!("{}", p.commit),
                Some(_) => {}
                None => kernelgate::errln!(
                    "kernelgate: no commit is stored before {} (the commit of run {}) in the history of {}: nothing \
                     to compare it with",
                    history::query::short_commit(&found.run.commit),
                    found.run.run_id,
                    found.gpu_key
                ),
            }
        }
        HistoryCommand::Runs { gpu, format: Format::Text } => {
            kernelgate::out!("{}", history::list_runs(&dir, gpu.as_deref(), &baselines)?)
        }
        HistoryCommand::Runs { gpu, format: Format::Json } => {
            let keys = history::runs_by_key(&dir, gpu.as_deref(), &baselines)?;
            if keys.is_empty() {
                say_empty(Format::Json);
            }
            print_json(&history::query::runs_json(&dir, &keys));
        }
        HistoryCommand::Show { trial, metric, gpu, format } => {
            if empty(&gpu)? {
                say_empty(format);
                if format == Format::Json {
                    print_json(&history::query::show_json(&trial, &metric, &[]));
                }
                return Ok(0);
            }
            let series = history::query::show_series(&dir, gpu.as_deref(), &trial, &metric, &baselines)?;
            match format {
                Format::Json => print_json(&history::query::show_json(&trial, &metric, &series)),
                Format::Text => {
                    for (key, s) in &series {
                        kernelgate::out!("{}", history::query::format_show(key, &trial, &metric, s));
                    }
                }
            }
        }
        HistoryCommand::Changes { gpu, metric, since, format } => {
            let metric = (metric != "all").then_some(metric.as_str());
            if empty(&gpu)? {
                say_empty(format);
                if format == Format::Json {
                    print_json(&history::query::changes_json(metric, since.as_deref(), &[]));
                }
                return Ok(0);
            }
            let found = history::query::find_changes(&dir, gpu.as_deref(), metric, since.as_deref(), &baselines)?;
            match format {
                Format::Json => print_json(&history::query::changes_json(metric, since.as_deref(), &found)),
                Format::Text => {
                    for k in &found {
                        kernelgate::out!("{}", history::query::format_changes(&k.gpu_key, &k.all, &k.found, k.from));
                    }
                }
            }
        }
        HistoryCommand::Quality { gpu, format } => {
            let mut controls = Vec::new();
            for key in history::store::gpu_keys(&dir)?.into_iter().filter(|k| gpu.as_ref().is_none_or(|g| g == k)) {
                controls.extend(history::store::HistoryStore::open_read(&dir, &key, &baselines)?.controls()?);
            }
            let runners = history::quality::runners(&controls);
            match format {
                Format::Json => {
                    let doc = serde_json::json!({
                        "schema": "kernelgate-history-quality",
                        "version": 1,
                        "runners": runners.iter().map(|r| {
                            let rates = |t: &history::quality::Tally| serde_json::json!({
                                "controls": t.controls,
                                "false_positives": t.false_positives,
                                "ambiguous": t.ambiguous,
                                "invalid": t.invalid,
                                "false_positive_rate": history::quality::rate(t.false_positives, t.controls).map(|(p, lo, hi)| [p, lo, hi]),
                                "ambiguous_rate": history::quality::rate(t.ambiguous, t.controls).map(|(p, lo, hi)| [p, lo, hi]),
                                "invalid_rate": history::quality::rate(t.invalid, t.controls).map(|(p, lo, hi)| [p, lo, hi]),
                            });
                            serde_json::json!({
                                "gpu_key": r.gpu_key,
                                "gpu_uuid": r.gpu_uuid,
                                "runs": r.runs,
                                "total": rates(&r.total),
                                "weeks": r.weeks.iter().map(|(w, t)| serde_json::json!({"week": w, "tally": rates(t)})).collect::<Vec<_>>(),
                            })
                        }).collect::<Vec<_>>(),
                    });
                    print_json(&doc);
                }
                Format::Text => kernelgate::out!("{}", history::quality::text(&runners)),
            }
        }
        HistoryCommand::Gate { gpu, run, suite_exit, reference, format } => {
            let run = run.as_deref().map(history::query::run_id_of).transpose()?;
            let facts = crate::case_facts(project, "host-bound trials gate as the others")?;
            let host_bound = |trial: &str| facts.as_ref().and_then(|f| f.host_bound(trial));
            let reference = match reference {
                GateReference::Baseline => history::query::Reference::Baseline,
                GateReference::Gpu => history::query::Reference::Gpu,
            };
            let gated =
                history::query::gate_runs(&dir, gpu.as_deref(), run.as_deref(), &host_bound, reference, &baselines)?;
            let (code, why) = history::query::nightly_exit(suite_exit.unwrap_or(0), history::query::worst(&gated));
            match format {
                Format::Json => print_json(&history::query::gate_json(&gated, suite_exit, code, why.as_deref())),
                Format::Text => {
                    kernelgate::out!("{}", history::query::format_gate(&gated));
                    if let Some(why) = why {
                        kernelgate::outln!("{why}");
                    }
                }
            }
            return Ok(code);
        }
    }
    Ok(0)
}
