//! Pools of GPU runners: the shards a CI matrix runs ([`plan`]), and one report and exit code made
//! from every job's results ([`merge`]). Pure but for [`times`], which reads the history.

pub mod merge;
pub mod plan;

use crate::error::Result;
use std::collections::HashMap;
use std::path::Path;

/// Each trial's weight for [`plan::plan`] on `gpu_key`: the median sampling wall time, seconds, of
/// its last [`plan::RECENT_RUNS`] runs in the history at `dir` (same-run A/B runs left out, as every
/// history query leaves them); empty when the history has no store for the key. `baselines` as
/// [`crate::history::store::HistoryStore::open_read`] takes it.
///
/// # Errors
/// [`crate::Error::History`] when the store cannot be read.
pub fn times(dir: &Path, gpu_key: &str, baselines: &Path) -> Result<HashMap<String, f64>> {
    let path = crate::history::store::store_path(dir, gpu_key)?;
    if !path.exists() {
        return Ok(HashMap::new());
    }
    let store = crate::history::store::HistoryStore::open_read(dir, gpu_key, baselines)?;
    let all = store.all_series()?;
    let mut by_trial: HashMap<String, Vec<f64>> = HashMap::new();
    for s in all.series.iter().filter(|s| s.metric == "sampling_wall" && s.unit == "s") {
        by_trial.entry(s.trial.clone()).or_default().extend(s.points.iter().map(|p| p.value));
    }
    Ok(by_trial.into_iter().filter_map(|(t, v)| plan::recent_median(&v).map(|m| (t, m))).collect())
}
