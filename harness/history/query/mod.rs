//! Questions asked of the history: the two sides of a diff report, a trial's series with
//! its change points, the change points of every series, and the nightly gate's decision.
//!
//! Change points are always found per physical GPU (`gpu_uuid`): one GPU key covers many GPUs, and
//! a series mixing two of them has machine offsets of several % that E-divisive would report as
//! changes. Values that are not finite (a run that measured nothing) are left out of the series
//! given to [`changepoint::detect`], and its indices are mapped back to the points shown.
//!
//! The loaders (`resolve_side`, `show`, `changes`, `gate`) open stores; what they compute is in
//! pure functions beside them ([`measurements`], [`per_gpu_change_points`], [`all_change_points`],
//! [`decide`], the `format_*` printers), which the tests call with synthetic data.

use super::changepoint::{self, ChangePoint};
use super::import::{Kind, attach_metrics, parse_csv_bytes};
use super::store::{self, AllSeries, HistoryStore, RunSummary};
use super::{Run, RunMeta, Value};
use crate::error::{Error, Result};
use crate::model::{Measurement, Paired, Side, TIME_STATISTIC, Trend, TrendPoint};
use crate::units::format_value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The gate's effect floor as a change-point magnitude: 1 %, the default of
/// `KERNELGATE_MIN_EFFECT` (`crate::config`), below which the gate calls no change a regression.
pub const GATE_MIN_MAGNITUDE: f64 = 0.01;

/// The change-point options of every history query: [`changepoint::Options`]' defaults (Otava's)
/// with `min_magnitude` [`GATE_MIN_MAGNITUDE`].
pub fn options() -> changepoint::Options {
    changepoint::Options { min_magnitude: GATE_MIN_MAGNITUDE, ..changepoint::Options::default() }
}

/// Exit code of `kernelgate history gate` for a regression: a `regressed` verdict or an increase of
/// a trial's time at the run's commit (the suite's `EXIT_REGRESSION`).
pub const EXIT_REGRESSED: u8 = 3;
/// Exit code of `kernelgate history gate` when nothing regressed but some trial is `invalid`.
pub const EXIT_INVALID: u8 = 4;
/// Exit code of `kernelgate history gate --reference gpu` when the run's GPU has no history of its
/// own yet (new to the pool): gate the commit by a same-run A/B run against the commit the gate
/// names (`scripts/nightly` does).
pub const EXIT_NEW_GPU: u8 = 5;

/// A commit as people read it: its first 7 characters.
pub(crate) fn short(commit: &str) -> &str {
    commit.get(..7).unwrap_or(commit)
}

/// A commit as people read it, its first 7 characters (for the `kernelgate` program's messages).
pub fn short_commit(commit: &str) -> &str {
    short(commit)
}

/// The start of a GPU UUID that tells GPUs apart in print (`GPU-20ce1a7a`, 12 characters).
pub(super) fn gpu_short(uuid: &str) -> &str {
    uuid.get(..12).unwrap_or(uuid)
}

/// The run CSV's statistics that judge a run against its own reference (baseline or A/B
/// revision) rather than measure it: a diff between two runs does not compare them.
pub const JUDGEMENT_STATISTICS: [&str; 5] = ["baseline_median", "delta", "p_value", "p_adjusted", "min_effect"];

/// A run's values as the diff report's rows (pure): `median` and the run CSV's other statistics
/// (not [`JUDGEMENT_STATISTICS`]), and ncu counters, by their names; [`crate::report::diff`] knows
/// which are statistics.
pub fn measurements(values: &[Value]) -> Vec<Measurement> {
    values
        .iter()
        .filter(|v| !JUDGEMENT_STATISTICS.contains(&v.metric.as_str()))
        .map(|v| Measurement {
            trial: v.trial.clone(),
            kernel: v.kernel.clone(),
            metric: v.metric.clone(),
            unit: v.unit.clone(),
            value: v.value,
            verdict: v.verdict.clone(),
            decided_by: v.decided_by.clone(),
            ci: v.ci_low.zip(v.ci_high).map(|(low, high)| [low, high]),
        })
        .collect()
}

/// The GPU keys to search: `gpu`, or every key with a store in `dir`; none is an error whose fix
/// names what fills a history ([`crate::history::import_command`] of `baselines`, the project's
/// baselines folder as messages show it).
pub(super) fn keys(dir: &Path, gpu: Option<&str>, baselines: &Path) -> Result<Vec<String>> {
    let keys = match gpu {
        Some(key) => {
            let path = store::store_path(dir, key)?;
            if !path.is_file() {
                return Err(Error::History {
                    path,
                    line: None,
                    message: format!(
                        "no history for GPU key {key:?}; `kernelgate history runs` lists every key there is"
                    ),
                });
            }
            vec![key.to_string()]
        }
        None => store::gpu_keys(dir)?,
    };
    if keys.is_empty() {
        return Err(Error::History {
            path: dir.to_path_buf(),
            line: None,
            message: format!(
                "no history here: a GPU run records one, and `{}` fills it from run CSVs (--dir or \
                 KERNELGATE_HISTORY name another folder)",
                crate::history::import_command(baselines)
            ),
        });
    }
    Ok(keys)
}

/// The commits of `runs`, newest last, once each, as `commit:7 subject` lines (for errors).
pub(super) fn candidates(runs: &[RunSummary], at_most: usize) -> String {
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for r in runs {
        if !seen.iter().any(|(c, _)| *c == r.meta.commit) {
            seen.push((&r.meta.commit, &r.meta.subject));
        }
    }
    let skip = seen.len().saturating_sub(at_most);
    let mut out: Vec<String> =
        seen[skip..].iter().map(|(c, s)| format!("  {} {s}", short(c)).trim_end().to_string()).collect();
    if skip > 0 {
        out.insert(0, format!("  ({skip} older commits not shown)"));
    }
    out.join("\n")
}

mod gate;
mod json;
pub mod reference;
mod series;
mod side;
#[cfg(test)]
mod tests;

pub use gate::*;
pub use json::*;
pub use series::*;
pub use side::*;
#[cfg(test)]
mod reference_tests;
