//! The store's flat view, for reading a history with SQL tools (sqlite3, DuckDB's sqlite scanner,
//! pandas' `read_sql`) without joining its normalized tables.

use rusqlite::Connection;

/// Name of the flat view: `SELECT * FROM flat` in the store file (`<dir>/<gpu_key>.sqlite`).
pub const FLAT_VIEW: &str = "flat";

/// The flat view: one row per run, trial and metric (each stored value), with its run's fields.
///
/// Columns: `run_id` (the run's UTC start, `YYYYMMDDTHHMMSSZ`), `started_utc` (the same as
/// `YYYY-MM-DD HH:MM:SS`, SQLite's date-time text), `gpu_uuid`, `gpu_key`, `gpu_name`, `driver`,
/// `cuda`, `nvrtc`, `ncu` (empty without ncu), `commit_id`, `dirty` (1 when the measured kernels
/// differed from `commit_id`, 0 when not, NULL when unknown), `kernels_sha256`, `branch`,
/// `commit_time` (Unix seconds, NULL when unknown), `subject`, `ab_revision` (A's commit in a
/// same-run A/B run, whose values are paired evidence and stay out of trends and change points;
/// empty for a nominal run), `work_scale` (1 except power-benchmark runs); then the value's
/// `trial`, `kernel`, `metric` (a run-CSV statistic, `median`, `noise`, ..., or ncu's metric
/// name), `unit` (`s`, `%`, `byte`, ... ; empty for counts of ncu), `value` (in `unit`; NULL where
/// NaN was recorded), `ci_low` and `ci_high` (the 95 % confidence interval of the value, in `unit`:
/// the time median's; NULL when unknown), `verdict` and `decided_by` (the trial's, as the run CSV
/// has them). Rows come in no particular order: `ORDER BY commit_time, run_id` for chronology.
///
/// Created with the store and, for a store made before the view existed, at the next open for
/// writing (`CREATE VIEW IF NOT EXISTS`: the tables and `HISTORY_SCHEMA` do not change, and a
/// store is never rewritten). A view stores only its query (<https://sqlite.org/lang_createview.html>).
pub const FLAT_VIEW_SQL: &str = "
CREATE VIEW IF NOT EXISTS flat AS
SELECT runs.run_id, substr(runs.run_id, 1, 4) || '-' || substr(runs.run_id, 5, 2) || '-' ||
           substr(runs.run_id, 7, 2) || ' ' || substr(runs.run_id, 10, 2) || ':' ||
           substr(runs.run_id, 12, 2) || ':' || substr(runs.run_id, 14, 2) AS started_utc,
       runs.gpu_uuid, runs.gpu_key, runs.gpu_name, runs.driver, runs.cuda, runs.nvrtc, runs.ncu,
       runs.commit_id, runs.dirty, runs.kernels_sha256, runs.branch, runs.commit_time, runs.subject,
       runs.ab_revision, runs.work_scale,
       series.trial, series.kernel, series.metric, series.unit,
       vals.value, vals.ci_low, vals.ci_high, vals.verdict, vals.decided_by
FROM vals JOIN runs ON runs.id = vals.run JOIN series ON series.id = vals.series;
";

/// Creates the flat view in the store open on `conn` if it is not there (inside the caller's
/// write transaction).
///
/// # Errors
/// SQLite's, for the caller to name the file.
pub(super) fn create(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(FLAT_VIEW_SQL)
}
