//! `kernelgate`: the commands that are not test runs.
//!
//! `kernelgate import-ncu FILE [--csv]` reads an ncu CSV (raw or details page, any ncu version
//! kernelgate knows) or a `.ncu-rep` (through `ncu --import`) and prints the normalized metrics per
//! kernel, so that existing ncu captures enter kernelgate.
//!
//! `kernelgate baseline list|show|remove|calibrate` reads and edits the per-GPU baselines under
//! `<project root>/baselines/<gpu-key>/` (see `kernelgate::baseline`), or `KERNELGATE_BASELINES/<gpu-key>/`;
//! the project root is found from the current folder as the test runs find it
//! (`kernelgate::record::project_root`).

use clap::{Parser, Subcommand};
use kernelgate::baseline::{self, BASELINE_FILE, BASELINES_DIR, Baseline, Entry};
use kernelgate::compare::{self, Policy};
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
        /// Print CSV (id, kernel, nvtx, metric, value, unit) instead of a table.
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
        /// Family-wise significance level, between 0 and 1.
        #[arg(long, env = "KERNELGATE_ALPHA", default_value_t = 0.05, value_parser = probability)]
        alpha: f64,
        /// Smallest change called a regression, percent (at least 0).
        #[arg(long, env = "KERNELGATE_MIN_EFFECT", default_value_t = 1.0, value_parser = non_negative)]
        min_effect: f64,
    },
    /// List, show, remove or calibrate the trials of the per-GPU baselines under
    /// `<project root>/baselines/`.
    Baseline {
        #[command(subcommand)]
        command: BaselineCommand,
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
    /// Measure how far each trial's median moves between runs of the blessed code, from run
    /// records, and keep it in run_to_run.csv: the gate then takes its effect floor from that
    /// spread instead of from the baseline's per-sample MAD. Needs at least 10 runs of a trial's
    /// blessed code (its module hash), counting the blessed run; replaces the trial's earlier
    /// calibration.
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

/// A number between 0 and 1, both excluded (clap value parser).
fn probability(text: &str) -> std::result::Result<f64, String> {
    number(text).filter(|v| *v > 0.0 && *v < 1.0).ok_or_else(|| format!("{text:?} is not between 0 and 1 (excluded)"))
}

/// A finite number >= 0 (clap value parser).
fn non_negative(text: &str) -> std::result::Result<f64, String> {
    number(text).filter(|v| *v >= 0.0).ok_or_else(|| format!("{text:?} is not a number of at least 0"))
}

fn number(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::ImportNcu { file, csv, ncu } => {
            let format = if csv { import::Format::Csv } else { import::Format::Table };
            import::run(&file, &ncu, format, &mut std::io::stdout().lock(), &mut std::io::stderr()).map(|()| false)
        }
        Command::Baseline { command } => baseline_command(command).map(|()| false),
        Command::Compare { base, run, scale, alpha, min_effect } => {
            compare_command(&base, &run, scale, alpha, min_effect)
        }
    };
    match result {
        Ok(true) => ExitCode::from(kernelgate::suite::EXIT_REGRESSION),
        Ok(false) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kernelgate: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `kernelgate compare`: one line per common trial; `Ok(true)` when any regressed.
fn compare_command(base: &Path, run: &Path, scale: f64, alpha: f64, min_effect: f64) -> Result<bool> {
    for dir in [base, run] {
        if !dir.join(BASELINE_FILE).is_file() {
            return Err(Error::Baseline {
                path: dir.to_path_buf(),
                line: None,
                message: format!("no {BASELINE_FILE} here: pass a baseline folder or a run's <stem>-baseline folder"),
            });
        }
    }
    let (b, r) = (Baseline::load(base)?, Baseline::load(run)?);
    let policy = Policy { alpha, effect_floor: min_effect / 100.0, ..Policy::default() };
    let compared = compare::compare_records(&b, &r, &policy, scale)?;
    if compared.is_empty() {
        println!("no trial has samples in both {} and {}", base.display(), run.display());
        return Ok(false);
    }
    let width = compared.iter().map(|(t, _)| t.len()).max().unwrap_or(5);
    println!(
        "{:<width$}  {:>10}  {:>10}  {:>8}  {:>9}  {:>6}  verdict",
        "trial", "base", "run", "delta", "p_adj", "floor"
    );
    let mut counts = std::collections::BTreeMap::new();
    for (trial, c) in &compared {
        *counts.entry(c.verdict.as_str()).or_insert(0) += 1;
        println!(
            "{trial:<width$}  {:>10}  {:>10}  {:>+7.2}%  {:>9.1e}  {:>5.2}%  {}",
            kernelgate::report::duration(c.baseline_median_s),
            kernelgate::report::duration(c.median_s),
            100.0 * c.delta,
            c.p_adjusted,
            100.0 * c.min_effect,
            c.verdict.as_str()
        );
    }
    let summary: Vec<String> = counts.iter().map(|(v, n)| format!("{n} {v}")).collect();
    println!("{} trials compared (scale {scale}): {}", compared.len(), summary.join(", "));
    Ok(counts.contains_key("regressed"))
}

/// Runs a `kernelgate baseline` command on `KERNELGATE_BASELINES`, or on the `baselines` folder of
/// the project root of the current folder (as the suite does).
fn baseline_command(command: BaselineCommand) -> Result<()> {
    let baselines = match std::env::var_os("KERNELGATE_BASELINES").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
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
            let mut base = Baseline::load(&baselines.join(&key))?;
            let known = base.trials();
            let missing: Vec<&str> = trials.iter().map(String::as_str).filter(|t| !known.contains(t)).collect();
            if !missing.is_empty() {
                return Err(Error::Baseline {
                    path: base.dir.join(BASELINE_FILE),
                    line: None,
                    message: format!(
                        "no trial {} in this baseline, so nothing was removed; `kernelgate baseline list --gpu {key}` \
                         lists its trials",
                        missing.join(", ")
                    ),
                });
            }
            let changes = base.remove(&trials);
            base.save()?;
            for change in &changes {
                println!("{change}");
            }
            let count = trials.iter().collect::<std::collections::BTreeSet<_>>().len();
            println!(
                "kernelgate: removed {count} trial{} from {}",
                if count == 1 { "" } else { "s" },
                shown(&base.dir)
            );
            Ok(())
        }
        BaselineCommand::Calibrate { records, gpu } => calibrate(&baselines, &records, gpu),
    }
}

/// `key` if it names a folder under baselines/ holding a baseline.csv; otherwise an error listing
/// the keys that do.
/// `kernelgate baseline calibrate`: the blessed median and every usable record's median of the same
/// code, per trial ([`kernelgate::calibrate::gather`]), into the baseline's run-to-run spreads.
fn calibrate(baselines: &Path, records: &[PathBuf], gpu: Option<String>) -> Result<()> {
    let key = choose_gpu(baselines, gpu)?;
    let mut base = Baseline::load(&baselines.join(&key))?;
    let found = kernelgate::calibrate::gather(&base, records)?;
    for (dir, why) in &found.skipped {
        println!("  skipped {}: {why}", dir.display());
    }
    let (set, said) = base.calibrate(&found.medians);
    for line in &said {
        println!("  {line}");
    }
    let used = format!("{} record{}", found.used, if found.used == 1 { "" } else { "s" });
    if set == 0 {
        return Err(Error::Baseline {
            path: base.dir.join(baseline::RUN_TO_RUN_FILE),
            line: None,
            message: format!(
                "nothing calibrated from {used} (each trial needs {} runs of its blessed code, the blessed run \
                 included); the file was left as it was",
                baseline::MIN_RUNS
            ),
        });
    }
    base.save()?;
    let other = match found.other_code {
        0 => String::new(),
        n => format!(" ({n} trial results of other code skipped)"),
    };
    println!(
        "kernelgate: calibrated {set} of {} trials in {} from the blessed run and {used}{other}",
        said.len(),
        shown(&base.dir.join(baseline::RUN_TO_RUN_FILE)),
    );
    Ok(())
}

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
            time.map_or_else(|| "-".to_string(), |t| baseline::format_value(t.median, &t.unit)),
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
         {} (compute capability {}, {} SMs, {} MiB, ECC {}), driver {}, CUDA {}, SM clock {clock}\n",
        first.kernel,
        shown(&base.dir),
        first.gpu_name,
        first.compute_capability,
        first.sm_count,
        first.memory_mib,
        if first.ecc { "on" } else { "off" },
        first.driver,
        first.cuda,
    );
    // Median and mad carry the unit: times with one that keeps 3-4 digits, counters as stored.
    let mut rows = vec![["metric", "median", "n", "mad", "commit", "date", "module"].map(String::from).to_vec()];
    for e in entries {
        rows.push(vec![
            e.metric.clone(),
            baseline::format_value(e.median, &e.unit),
            e.n.to_string(),
            baseline::format_value(e.mad, &e.unit),
            short(&e.commit, 7),
            e.date.clone(),
            short(&e.module_sha256, 12),
        ]);
    }
    out += &table(&rows, &[false, true, true, true, false, false, false]);
    let kept = base.samples(trial).map_or(0, <[f64]>::len);
    out += &format!("kept samples: {kept}\n");
    if let Some(r) = base.run_to_run.get(trial) {
        let cases = base.trials().len();
        let floor = Policy::default().run_to_run_floor(r.median_rsd, cases);
        let usable = if base.run_to_run(trial).is_some() {
            &format!("used: effect floor {:.2}% when all {cases} trials are compared at alpha 0.05", 100.0 * floor)
        } else if r.runs < baseline::MIN_RUNS {
            "not used: too few runs"
        } else {
            "not used: calibrated on other code (re-run kernelgate baseline calibrate)"
        };
        out += &format!(
            "run-to-run spread of the median: {:.3}% over {} runs, {} ({usable})\n",
            100.0 * r.median_rsd,
            r.runs,
            r.date
        );
    }
    Ok(out)
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
