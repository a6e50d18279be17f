//! `kernelgate baseline list|show|remove|calibrate|bless|reseal`: reading and editing the per-GPU
//! baselines (`kernelgate::gate::baseline`), every change through the baseline store.

use super::trials_count;
use clap::Subcommand;
use kernelgate::gate::baseline::{self, BASELINE_FILE, Baseline, Entry};
use kernelgate::gate::{Policy, RunRecord};
use kernelgate::project::Project;
use kernelgate::units::format_value;
use kernelgate::{Error, Result};
use std::path::{Path, PathBuf};

/// The `kernelgate baseline` subcommands.
#[derive(Debug, Subcommand)]
pub(super) enum BaselineCommand {
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
        /// The folder (a baseline folder, a run record, an architecture's resource table such as
        /// baselines/sm_90, or its SASS table, baselines/sm_90/sass).
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

/// Runs a `kernelgate baseline` command on the project's baselines ([`Project::baselines`]:
/// `KERNELGATE_BASELINES`, `baselines` in `kernelgate.toml`, or `<project root>/baselines`, as the
/// suite does); `from_env` says whether `KERNELGATE_BASELINES` named it.
pub(super) fn baseline_command(command: BaselineCommand, project: &Project, from_env: bool) -> Result<()> {
    // A KERNELGATE_BASELINES that names no folder is a mistake to report, not an empty baseline,
    // except for a bless, which creates it.
    let baselines = project.baselines.clone();
    if from_env && !baselines.is_dir() && !matches!(command, BaselineCommand::Bless { .. }) {
        return Err(Error::Baseline {
            path: baselines,
            line: None,
            message: "KERNELGATE_BASELINES names no folder; check the path, or unset it for the project's baselines"
                .into(),
        });
    }
    match command {
        BaselineCommand::List { gpu } => {
            let keys = match gpu {
                Some(key) => vec![checked_key(&baselines, &key)?],
                None => baseline::gpu_keys(&baselines)?,
            };
            if keys.is_empty() {
                kernelgate::outln!(
                    "no per-GPU timing baselines under {} (a GPU run with KERNELGATE_BLESS=1 writes one; the compile trials' \
                     resource and SASS tables under <arch>/ are not listed here)",
                    baselines.display()
                );
            }
            for (i, key) in keys.iter().enumerate() {
                let base = Baseline::load(&baselines.join(key))?;
                kernelgate::out!("{}{}", if i > 0 { "\n" } else { "" }, list(key, &base));
            }
            Ok(())
        }
        BaselineCommand::Show { trial, gpu } => {
            let key = choose_gpu(&baselines, gpu)?;
            let base = Baseline::load(&baselines.join(&key))?;
            kernelgate::out!("{}", show(&key, &base, &trial)?);
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
                kernelgate::outln!("{change}");
            }
            let count = trials.iter().collect::<std::collections::BTreeSet<_>>().len();
            kernelgate::outln!("kernelgate: removed {} from {}", trials_count(count), shown(&dir));
            Ok(())
        }
        BaselineCommand::Calibrate { records, gpu } => calibrate(&baselines, &records, gpu),
        BaselineCommand::Bless { record, trials, gpu } => bless(&baselines, &record, &trials, gpu),
        BaselineCommand::Reseal { folder } => {
            // An architecture's resource table (baselines/sm_90/) holds resources.csv, no baseline.csv.
            let resources_only =
                folder.join(kernelgate::resources::RESOURCES_FILE).is_file() && !folder.join(BASELINE_FILE).is_file();
            // Its SASS table (baselines/sm_90/sass/) holds opcodes.csv.
            let sass_only = folder.join(kernelgate::sass::table::SASS_FILE).is_file();
            let generation = if resources_only {
                kernelgate::resources::table::reseal(&folder)?
            } else if sass_only {
                kernelgate::sass::table::reseal(&folder)?
            } else {
                Baseline::reseal(&folder)?
            };
            kernelgate::outln!("kernelgate: {} checked and sealed as generation {generation}", shown(&folder));
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
        kernelgate::outln!("  not blessed: {t}: {}", source.invalid(t).unwrap_or_default());
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
        kernelgate::outln!("  {c}");
    }
    kernelgate::outln!("kernelgate: blessed {} from {} into {}", trials_count(valid.len()), shown(record), shown(&dir));
    Ok(())
}

/// The GPU key an entry was measured on (`nvidia-h200-sm90`), from its name and compute capability.
fn key_of(e: &Entry) -> String {
    let (major, minor) = e.compute_capability.split_once('.').unwrap_or((&e.compute_capability, "0"));
    kernelgate::model::gpu_key(&e.gpu_name, major.parse().unwrap_or(0), minor.parse().unwrap_or(0))
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
            kernelgate::outln!("  skipped {}: {why}", dir.display());
        }
        for (dir, trial, why) in &found.invalid {
            kernelgate::outln!("  skipped {trial} of {}: invalid: {why}", dir.display());
        }
        if found.other_gpu > 0 {
            kernelgate::outln!(
                "  skipped {} trial results measured on another physical GPU than the blessed one (a calibration \
                 holds for the machine that blessed)",
                found.other_gpu
            );
        }
        if found.unidentified > 0 {
            kernelgate::outln!(
                "  warning: {} trial results come from records or a baseline that do not name their physical GPU \
                 (written before kernelgate kept NVML UUIDs): calibrate only with runs of the machine that gates",
                found.unidentified
            );
        }
        let (set, said) = base.calibrate(&found.values);
        for line in said.iter().filter(|l| !l.contains("not calibrated: 1 run of")) {
            kernelgate::outln!("  {line}");
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
    kernelgate::outln!(
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
            &format!(
                "used: effect floor {:.2}% when all {cases} trials are compared at alpha {}",
                100.0 * floor,
                kernelgate::config::DEFAULT_ALPHA
            )
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
