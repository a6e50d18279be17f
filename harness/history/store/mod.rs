//! The local history store: one SQLite file per GPU key, `<dir>/<gpu_key>.sqlite`.
//!
//! Why SQLite (through rusqlite, with SQLite compiled in by its `bundled` feature, so that CI needs a
//! C compiler but no libsqlite3-dev) rather than CSV files as the baselines use:
//!
//! - **A commit point safe against a killed writer**: each [`HistoryStore::append`] is one
//!   transaction; a writer killed at any instruction leaves the store as it was before that run,
//!   or with the whole run, never a part of it (SQLite's atomic commit, <https://sqlite.org/atomiccommit.html>;
//!   in WAL mode a transaction without its commit frame is ignored by readers and rolled back at the
//!   next open, <https://sqlite.org/wal.html>).
//! - **Two appenders at once**: WAL mode lets readers run beside the writer, and a 60 s busy
//!   timeout makes a second writer wait for the first instead of failing (runs append once, at
//!   their end, in milliseconds).
//! - **Indexed series queries**: a (trial, metric) series is read through an index, not by scanning
//!   every CSV of every run, and values are stored normalized (run and series as integers), so a
//!   store of 1,000,000 values loads in one pass in well under 2 s on the 2-core CI machine (`bench_million_rows`, ignored, prints the time).
//!
//! - **Checked before use**: every open runs SQLite's `PRAGMA quick_check`
//!   (<https://sqlite.org/pragma.html#pragma_quick_check>: every page and b-tree, without matching
//!   indexes to their tables), so a file cut short or with a damaged page is refused with its path
//!   and the fix (move it aside and rebuild it from the run CSVs and the git notes, or
//!   `sqlite3 FILE .recover`) before anything is read from it or appended to it.
//! - **Readers open read-only** ([`HistoryStore::open_read`]): no write transaction, no journal
//!   mode switch, so a store the user may read but not write (a CI artifact, another user's
//!   history, a read-only mount) can be listed, shown, gated and diffed.
//!
//! Schema version [`HISTORY_SCHEMA`] is kept in `PRAGMA user_version`, and `PRAGMA application_id`
//! marks the file as kernelgate's; a file of a newer or unknown version, or another program's
//! database, is refused with its path and version, never changed. Appending the same run twice adds
//! nothing (unique keys; see [`HistoryStore::append`]).
//!
//! For SQL tools, the view [`FLAT_VIEW`] (`flat`) has one row per run, trial and metric with its
//! run's fields ([`FLAT_VIEW_SQL`] lists its columns); docs/history.md shows it read from sqlite3,
//! pandas and DuckDB.

use super::{Run, RunMeta, Value};
use crate::error::{Error, Result};
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Version of the store's tables (`PRAGMA user_version`); bumped when a table changes meaning.
pub const HISTORY_SCHEMA: u32 = 1;

/// `PRAGMA application_id` of a kernelgate history file: the bytes `kgh1`
/// (<https://sqlite.org/pragma.html#pragma_application_id>).
const APPLICATION_ID: i32 = i32::from_be_bytes(*b"kgh1");

/// How long a writer waits for another writer's transaction before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// Page cache of a bulk append ([`HistoryStore::append_many`], [`HistoryStore::append_each`]),
/// KiB: 64 MiB. An append of 1,000 values touches one leaf page of the `vals_by_series` index per
/// series; with SQLite's default cache of 2,000 KiB a transaction of 1,000,000 values spills those
/// pages to the WAL and reads them back again and again: the benchmark's bulk append
/// (`bench_million_rows`, 2-core CI machine) took 6.0 to 7.5 s at bb29628 and takes 2.2 to 2.8 s
/// with this cache. One run per transaction is slower with it (27.9 to 34.7 s for the benchmark's
/// 1,000 runs, against 20.0 to 22.6 s with the default), so it is set for bulk appends only. The
/// cache is memory only: the commit point (`synchronous = FULL`, one WAL sync per transaction) is
/// the same.
const BULK_CACHE_KIB: i64 = 64 * 1024;

/// SQLite's default page cache, KiB (`SQLITE_DEFAULT_CACHE_SIZE`, -2000:
/// <https://sqlite.org/pragma.html#pragma_cache_size>), restored after a bulk append.
const DEFAULT_CACHE_KIB: i64 = 2000;

/// How many problems `PRAGMA quick_check` lists at most in an error (the rest are counted).
const QUICK_CHECK_SHOWN: usize = 3;

/// The tables of schema 1. A series is what one value measures: (trial, kernel, metric, unit).
const SCHEMA_SQL: &str = "
CREATE TABLE info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    run_id TEXT NOT NULL, gpu_uuid TEXT NOT NULL, commit_id TEXT NOT NULL, dirty INTEGER,
    kernels_sha256 TEXT NOT NULL, branch TEXT NOT NULL, commit_time INTEGER, subject TEXT NOT NULL,
    gpu_key TEXT NOT NULL, gpu_name TEXT NOT NULL, driver TEXT NOT NULL, cuda TEXT NOT NULL,
    nvrtc TEXT NOT NULL, ncu TEXT NOT NULL, ab_revision TEXT NOT NULL, work_scale REAL NOT NULL,
    UNIQUE (run_id, gpu_uuid)
);
CREATE INDEX runs_by_commit ON runs (commit_id);
CREATE TABLE series (
    id INTEGER PRIMARY KEY,
    trial TEXT NOT NULL, metric TEXT NOT NULL, kernel TEXT NOT NULL, unit TEXT NOT NULL,
    UNIQUE (trial, metric, kernel, unit)
);
CREATE TABLE vals (
    run INTEGER NOT NULL REFERENCES runs (id),
    series INTEGER NOT NULL REFERENCES series (id),
    value REAL, ci_low REAL, ci_high REAL,
    verdict TEXT NOT NULL, decided_by TEXT NOT NULL,
    PRIMARY KEY (run, series)
) WITHOUT ROWID;
CREATE INDEX vals_by_series ON vals (series);
";

/// The columns of `runs` that make a [`RunMeta`], in [`meta_from_row`]'s order.
const META_COLUMNS: &str = "run_id, gpu_uuid, commit_id, dirty, kernels_sha256, branch, commit_time, subject, \
     gpu_key, gpu_name, driver, cuda, nvrtc, ncu, ab_revision, work_scale";

/// The SQL condition of a nominal run: not a same-run A/B run (`ab_revision` empty). An A/B run is
/// a paired comparison: its B times were taken interleaved with another revision's launches, so it
/// is kept (listed, diffed as paired evidence) but stays out of the series that change points, trends
/// and the nightly gate read.
const NOMINAL: &str = "runs.ab_revision = ''";

/// Chronological order of runs: by commit time, or, for a run whose commit time is unknown (commit
/// `unknown`, an old CSV imported without its repository), by its start time (the run id, UTC);
/// then run id, then GPU.
const RUN_ORDER: &str = "COALESCE(commit_time, CAST(strftime('%s', substr(run_id, 1, 4) || '-' || \
     substr(run_id, 5, 2) || '-' || substr(run_id, 7, 2) || ' ' || substr(run_id, 10, 2) || ':' || \
     substr(run_id, 12, 2) || ':' || substr(run_id, 14, 2)) AS INTEGER)), run_id, gpu_uuid";

/// One GPU key's history file, open. See the module docs.
#[derive(Debug)]
pub struct HistoryStore {
    conn: Connection,
    path: PathBuf,
    gpu_key: String,
    /// The project's baselines folder as messages show it, which the fix for a damaged file names
    /// ([`damaged_fix`]).
    baselines: PathBuf,
}

/// A stored run without its values: [`HistoryStore::runs`].
#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    /// Where the run came from.
    pub meta: RunMeta,
    /// How many values it holds.
    pub values: usize,
}

/// Every series of a store, read in one pass ([`HistoryStore::all_series`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AllSeries {
    /// Every run, in chronological order (commit time, unknown last; then run id; then GPU UUID).
    pub runs: Vec<RunMeta>,
    /// Every series, sorted by trial, metric, kernel, unit.
    pub series: Vec<Series>,
}

/// The values of one (trial, metric, kernel, unit) across runs. Values of one trial and metric in
/// another unit (or from a renamed kernel) are another series: they do not compare.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Trial name.
    pub trial: String,
    /// Metric name.
    pub metric: String,
    /// Entry point.
    pub kernel: String,
    /// Unit of every point's value.
    pub unit: String,
    /// One point per run that has the value, in the order of [`AllSeries::runs`]. Runs of several
    /// physical GPUs are mixed: split by `runs[point.run].gpu_uuid` to get a series per GPU.
    pub points: Vec<Point>,
}

/// One value of a [`Series`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Index of the run in [`AllSeries::runs`].
    pub run: usize,
    /// The value, in the series' unit (NaN if NaN was recorded).
    pub value: f64,
    /// Lower end of the 95 % confidence interval, when known.
    pub ci_low: Option<f64>,
    /// Upper end, when known.
    pub ci_high: Option<f64>,
}

/// The file of `gpu_key`'s store in `dir`: `<dir>/<gpu_key>.sqlite`.
///
/// # Errors
/// [`Error::History`] if the key is not a plain file name (letters, digits, `.`, `_`, `-`, not
/// starting with `.`).
pub fn store_path(dir: &Path, gpu_key: &str) -> Result<PathBuf> {
    let plain = !gpu_key.is_empty()
        && !gpu_key.starts_with('.')
        && gpu_key.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if !plain {
        return Err(Error::History {
            path: dir.to_path_buf(),
            line: None,
            message: format!(
                "GPU key {gpu_key:?} cannot name a history file; a key is vendor-model-smXY, e.g. nvidia-h200-sm90"
            ),
        });
    }
    Ok(dir.join(format!("{gpu_key}.sqlite")))
}

/// The GPU keys that have a store in `dir` (files `<key>.sqlite`), sorted; none if `dir` does not
/// exist.
///
/// # Errors
/// [`Error::Io`] if `dir` cannot be listed.
pub fn gpu_keys(dir: &Path) -> Result<Vec<String>> {
    let listing = match std::fs::read_dir(dir) {
        Ok(listing) => listing,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(dir)(e)),
    };
    let mut keys = Vec::new();
    for item in listing {
        let name = item.map_err(Error::io(dir))?.file_name();
        if let Some(key) = name.to_str().and_then(|n| n.strip_suffix(".sqlite")) {
            keys.push(key.to_string());
        }
    }
    keys.sort();
    Ok(keys)
}

impl HistoryStore {
    /// Opens for writing (creating the folder and the file if needed) the store of `gpu_key` in
    /// `dir`, after checking it ([`check_integrity`]). `baselines` is the project's baselines folder
    /// as messages show it ([`crate::project::Project::shown`]), whose run CSVs rebuild a damaged
    /// store: the fix its errors name ([`damaged_fix`]).
    ///
    /// # Errors
    /// [`Error::History`] for a bad key, a damaged file (with the fix), a file that is not a
    /// kernelgate history, a schema newer or other than [`HISTORY_SCHEMA`], a store of another GPU
    /// key, or a SQLite failure; [`Error::Io`] if the folder cannot be created.
    pub fn open(dir: &Path, gpu_key: &str, baselines: &Path) -> Result<HistoryStore> {
        let path = store_path(dir, gpu_key)?;
        std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
        let store = HistoryStore::open_file(&path, Some(gpu_key), baselines)?;
        Ok(store)
    }

    /// Opens the existing store of `gpu_key` in `dir` for reading only: the file is opened
    /// read-only (no write transaction, no journal mode switch, nothing created), so a store the
    /// user may read but not write can be queried. Checked as [`HistoryStore::open`] checks;
    /// `baselines` as it takes it.
    ///
    /// # Errors
    /// As [`HistoryStore::open`]; a missing or empty file is "no history store here".
    pub fn open_read(dir: &Path, gpu_key: &str, baselines: &Path) -> Result<HistoryStore> {
        let path = store_path(dir, gpu_key)?;
        HistoryStore::open_file_read(&path, Some(gpu_key), baselines)
    }

    /// Opens the store file at `path` for writing; creates it (for `gpu_key`, which is then
    /// required) when it does not exist or is empty. With `gpu_key` given, the file must be that
    /// key's. The file is checked ([`check_integrity`]) before anything is written. `baselines` as
    /// [`HistoryStore::open`] takes it.
    ///
    /// # Errors
    /// As [`HistoryStore::open`].
    pub fn open_file(path: &Path, gpu_key: Option<&str>, baselines: &Path) -> Result<HistoryStore> {
        let fail = sql_error(path, baselines);
        if gpu_key.is_none() && !path.is_file() {
            return Err(no_store(path)); // and create no file
        }
        let mut conn = Connection::open(path).map_err(&fail)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(&fail)?;
        // FULL: a committed transaction is on disk before `commit` returns, in WAL mode too
        // (https://sqlite.org/pragma.html#pragma_synchronous); the cache only saves re-reads.
        conn.execute_batch("PRAGMA synchronous = FULL").map_err(&fail)?;
        check_integrity(&conn, path, baselines)?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(&fail)?;
        let stored_key = match identify(&tx, path, baselines)? {
            Some(key) => key,
            None => {
                let Some(key) = gpu_key else { return Err(no_store(path)) };
                tx.execute_batch(SCHEMA_SQL).map_err(&fail)?;
                tx.execute("INSERT INTO info (key, value) VALUES ('gpu_key', ?1)", [key]).map_err(&fail)?;
                tx.execute_batch(&format!(
                    "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {HISTORY_SCHEMA};"
                ))
                .map_err(&fail)?;
                key.to_string()
            }
        };
        view::create(&tx).map_err(&fail)?;
        tx.execute_batch(modules::MODULES_SQL).map_err(&fail)?;
        tx.commit().map_err(&fail)?;
        if let Some(key) = gpu_key.filter(|k| *k != stored_key) {
            return Err(other_key(path, &stored_key, key));
        }
        // WAL: readers beside a writer. Persistent in the file; switching needs a moment alone with
        // it, so a busy answer is retried (the busy timeout does not cover this pragma).
        let mut tries = 0;
        loop {
            match conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0)) {
                Ok(_) => break,
                Err(e) if tries < 100 && e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy) => {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(e) => return Err(fail(e)),
            }
        }
        Ok(HistoryStore { conn, path: path.to_path_buf(), gpu_key: stored_key, baselines: baselines.to_path_buf() })
    }

    /// Opens the existing store file at `path` for reading only (see [`HistoryStore::open_read`]);
    /// with `gpu_key` given, the file must be that key's. `baselines` as [`HistoryStore::open`]
    /// takes it.
    ///
    /// A WAL database can be read by a user who cannot write its folder only where its `-shm` file
    /// exists or can be created (<https://sqlite.org/wal.html#readonly>). Where neither holds and no
    /// `-wal` file with frames exists (no writer has uncommitted or un-checkpointed pages), the file
    /// is read as immutable, which takes no lock: a writer that starts while such a reader reads may
    /// make it fail with SQLite's damage error, never return a mix (a repeated command then reads).
    ///
    /// # Errors
    /// As [`HistoryStore::open`]; a missing or empty file is "no history store here".
    pub fn open_file_read(path: &Path, gpu_key: Option<&str>, baselines: &Path) -> Result<HistoryStore> {
        let fail = sql_error(path, baselines);
        if !path.is_file() {
            return Err(no_store(path));
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
        let mut conn = Connection::open_with_flags(path, flags).map_err(&fail)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(&fail)?;
        if let Err(e) = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0)) {
            let cannot_share =
                matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::ReadOnly | rusqlite::ErrorCode::CannotOpen));
            let wal = PathBuf::from(format!("{}-wal", path.display()));
            let wal_frames = std::fs::metadata(&wal).map(|m| m.len() > 0).unwrap_or(false);
            if !cannot_share || wal_frames {
                let e = fail(e);
                return Err(if cannot_share { writer_beside(path, e) } else { e });
            }
            conn = Connection::open_with_flags(format!("{}?immutable=1", file_uri(path)), flags).map_err(&fail)?;
        }
        check_integrity(&conn, path, baselines)?;
        let stored_key = identify(&conn, path, baselines)?.ok_or_else(|| no_store(path))?;
        if let Some(key) = gpu_key.filter(|k| *k != stored_key) {
            return Err(other_key(path, &stored_key, key));
        }
        Ok(HistoryStore { conn, path: path.to_path_buf(), gpu_key: stored_key, baselines: baselines.to_path_buf() })
    }

    /// The store's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The GPU key whose history this is.
    pub fn gpu_key(&self) -> &str {
        &self.gpu_key
    }

    /// Appends `run` in one transaction and returns how many of its values were new.
    ///
    /// Idempotent: a run already stored (same `run_id` and `gpu_uuid`) gets only the values it
    /// lacks, so appending a run twice adds nothing. Where both copies have a field, they must
    /// agree; a field unknown in the stored copy (an empty text, `unknown`, no CI) is filled in
    /// from `run` ([`super::merge_meta`], [`super::merge_value`]), so importing a run's CSV after the
    /// suite appended it loses nothing and overwrites nothing. A copy whose GPU is `unknown` (a
    /// metrics CSV imported alone) and a copy with its GPU are one run: whichever comes first, the
    /// other joins it, and the run takes the GPU it was run on.
    ///
    /// # Errors
    /// [`Error::History`] if the run is of another GPU key, disagrees with its stored copy (then
    /// nothing of it is appended), names no GPU while its run id is stored for several, or SQLite
    /// fails.
    pub fn append(&mut self, run: &Run) -> Result<usize> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql_error(&self.path, &self.baselines))?;
        let new = append_in(&tx, &self.path, &self.baselines, &self.gpu_key, run, &mut SeriesIds::new())??;
        tx.commit().map_err(sql_error(&self.path, &self.baselines))?;
        Ok(new)
    }

    /// Appends `runs` as [`HistoryStore::append`] does, all in one transaction (one sync to disk
    /// instead of one per run: for bulk imports and benchmarks), and returns how many values were
    /// new. All or nothing: on an error, nothing of any run is appended.
    ///
    /// # Errors
    /// As [`HistoryStore::append`], for the first run that fails.
    pub fn append_many(&mut self, runs: &[Run]) -> Result<usize> {
        self.cache(BULK_CACHE_KIB)?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql_error(&self.path, &self.baselines))?;
        let mut new = 0;
        let mut series_ids = SeriesIds::new();
        for run in runs {
            new += append_in(&tx, &self.path, &self.baselines, &self.gpu_key, run, &mut series_ids)??;
        }
        tx.commit().map_err(sql_error(&self.path, &self.baselines))?;
        self.cache(DEFAULT_CACHE_KIB)?;
        Ok(new)
    }

    /// Sets the connection's page cache to `kib` KiB.
    fn cache(&self, kib: i64) -> Result<()> {
        self.conn.execute_batch(&format!("PRAGMA cache_size = -{kib}")).map_err(sql_error(&self.path, &self.baselines))
    }

    /// Appends `runs` in one transaction as [`HistoryStore::append_many`] does, but a run that is
    /// refused (it disagrees with its stored copy, is of another GPU key, names no GPU where several
    /// ran it) is left out alone, each in its own savepoint: for runs gathered from many sources (git
    /// notes of many runners), where one bad copy must not keep the others out. Returns how many
    /// values were new and each refused run's index in `runs` with the reason.
    ///
    /// # Errors
    /// [`Error::History`] if SQLite fails (then nothing of any run is appended).
    pub fn append_each(&mut self, runs: &[Run]) -> Result<(usize, Vec<(usize, Error)>)> {
        let fail = sql_error(&self.path, &self.baselines);
        self.cache(BULK_CACHE_KIB)?;
        let mut tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(&fail)?;
        let mut new = 0;
        let mut refused = Vec::new();
        let mut series_ids = SeriesIds::new();
        for (i, run) in runs.iter().enumerate() {
            let sp = tx.savepoint().map_err(&fail)?;
            match append_in(&sp, &self.path, &self.baselines, &self.gpu_key, run, &mut series_ids)? {
                Ok(n) => {
                    sp.commit().map_err(&fail)?;
                    new += n;
                }
                Err(why) => {
                    drop(sp); // rolled back
                    series_ids.clear();
                    refused.push((i, why));
                }
            }
        }
        tx.commit().map_err(&fail)?;
        self.cache(DEFAULT_CACHE_KIB)?;
        Ok((new, refused))
    }

    /// Every stored run (or those whose commit starts with `commit`), with its number of values, in
    /// chronological order (commit time, unknown last; run id; GPU UUID).
    ///
    /// # Errors
    /// [`Error::History`] if SQLite fails.
    pub fn runs(&self, commit: Option<&str>) -> Result<Vec<RunSummary>> {
        let fail = sql_error(&self.path, &self.baselines);
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT {META_COLUMNS}, (SELECT count(*) FROM vals WHERE vals.run = runs.id) FROM runs \
                 WHERE ?1 IS NULL OR substr(commit_id, 1, length(?1)) = ?1 ORDER BY {RUN_ORDER}"
            ))
            .map_err(&fail)?;
        let rows = stmt
            .query_map([commit], |r| {
                Ok(RunSummary { meta: meta_from_row(r, 0)?, values: r.get::<_, i64>(16)? as usize })
            })
            .map_err(&fail)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(&fail)
    }

    /// The run `(run_id, gpu_uuid)` whole, its values sorted by trial, metric, kernel, unit; `None`
    /// if it is not stored.
    ///
    /// # Errors
    /// [`Error::History`] if SQLite fails.
    pub fn run(&self, run_id: &str, gpu_uuid: &str) -> Result<Option<Run>> {
        let fail = sql_error(&self.path, &self.baselines);
        let tx = self.conn.unchecked_transaction().map_err(&fail)?;
        let found: Option<(i64, RunMeta)> = tx
            .query_row(
                &format!("SELECT id, {META_COLUMNS} FROM runs WHERE run_id = ?1 AND gpu_uuid = ?2"),
                [run_id, gpu_uuid],
                |r| Ok((r.get(0)?, meta_from_row(r, 1)?)),
            )
            .optional()
            .map_err(&fail)?;
        let Some((id, meta)) = found else { return Ok(None) };
        let mut stmt = tx
            .prepare(
                "SELECT s.trial, s.kernel, s.metric, s.unit, v.value, v.ci_low, v.ci_high, v.verdict, v.decided_by \
                 FROM vals v JOIN series s ON s.id = v.series WHERE v.run = ?1 \
                 ORDER BY s.trial, s.metric, s.kernel, s.unit",
            )
            .map_err(&fail)?;
        let values =
            stmt.query_map([id], |r| value_from_row(r, 0)).map_err(&fail)?.collect::<rusqlite::Result<Vec<_>>>();
        let values = values.map_err(&fail)?;
        let modules = modules::of_run(&tx, &self.path, &self.baselines, id)?;
        Ok(Some(Run { meta, values, modules }))
    }

    /// Every value of `trial`'s `metric` (any kernel, any unit: check [`Value::unit`]) with the run
    /// it came from, in chronological order (commit time, unknown last; run id; GPU UUID). Runs of
    /// several physical GPUs are mixed: split by `meta.gpu_uuid`. Same-run A/B runs are left out
    /// (their `ab_revision` is set: paired comparisons, not the commit's own measurements).
    ///
    /// # Errors
    /// [`Error::History`] if SQLite fails.
    pub fn series(&self, trial: &str, metric: &str) -> Result<Vec<(RunMeta, Value)>> {
        self.values(&format!("s.trial = ?1 AND s.metric = ?2 AND {NOMINAL}"), "s.kernel, s.unit", &[trial, metric])
    }

    /// Every A/A control the store holds ([`crate::suite::controls`]): per same-run A/B run, each
    /// trial whose `decided_by` starts with `control: `, as its `median` row (every timed trial has
    /// one) with the run it came from, in chronological order.
    ///
    /// # Errors
    /// [`Error::History`] if SQLite fails.
    pub fn controls(&self) -> Result<Vec<(RunMeta, Value)>> {
        let prefix = crate::suite::controls::DECIDED_BY_PREFIX;
        self.values(
            &format!("s.metric = 'median' AND substr(v.decided_by, 1, {}) = ?1", prefix.len()),
            "s.trial",
            &[prefix],
        )
    }

    /// The values whose row meets `condition` (SQL over `s` the series, `v` the values, `runs`;
    /// `?1`, `?2`… are `params`) with their runs, in chronological order, then by `then`.
    fn values(&self, condition: &str, then: &str, params: &[&str]) -> Result<Vec<(RunMeta, Value)>> {
        let fail = sql_error(&self.path, &self.baselines);
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT {META_COLUMNS}, s.trial, s.kernel, s.metric, s.unit, v.value, v.ci_low, v.ci_high, v.verdict, \
                 v.decided_by FROM series s JOIN vals v ON v.series = s.id JOIN runs ON runs.id = v.run \
                 WHERE {condition} ORDER BY {RUN_ORDER}, {then}"
            ))
            .map_err(&fail)?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(params), |r| Ok((meta_from_row(r, 0)?, value_from_row(r, 16)?)))
            .map_err(&fail)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(&fail)
    }

    /// Every series of the store, read in one pass over the values (for change-point detection over
    /// every (trial, metric)), without same-run A/B runs (their `ab_revision` is set). Read in one transaction: a
    /// concurrent append is seen whole or not at all.
    ///
    /// # Errors
    /// [`Error::History`] if SQLite fails.
    pub fn all_series(&self) -> Result<AllSeries> {
        let fail = sql_error(&self.path, &self.baselines);
        let tx = self.conn.unchecked_transaction().map_err(&fail)?;
        let mut runs = Vec::new();
        let mut run_index = HashMap::new();
        {
            let mut stmt = tx
                .prepare(&format!("SELECT id, {META_COLUMNS} FROM runs WHERE {NOMINAL} ORDER BY {RUN_ORDER}"))
                .map_err(&fail)?;
            let mut rows = stmt.query([]).map_err(&fail)?;
            while let Some(r) = rows.next().map_err(&fail)? {
                run_index.insert(r.get::<_, i64>(0).map_err(&fail)?, runs.len());
                runs.push(meta_from_row(r, 1).map_err(&fail)?);
            }
        }
        let mut series = Vec::new();
        let mut series_index = HashMap::new();
        {
            let mut stmt = tx
                .prepare("SELECT id, trial, metric, kernel, unit FROM series ORDER BY trial, metric, kernel, unit")
                .map_err(&fail)?;
            let mut rows = stmt.query([]).map_err(&fail)?;
            while let Some(r) = rows.next().map_err(&fail)? {
                series_index.insert(r.get::<_, i64>(0).map_err(&fail)?, series.len());
                series.push(Series {
                    trial: r.get(1).map_err(&fail)?,
                    metric: r.get(2).map_err(&fail)?,
                    kernel: r.get(3).map_err(&fail)?,
                    unit: r.get(4).map_err(&fail)?,
                    points: Vec::new(),
                });
            }
        }
        {
            // A value of a run the store lacks still comes through (and is refused below); those of
            // A/B runs are left out with their runs.
            let mut stmt = tx
                .prepare(&format!(
                    "SELECT v.run, v.series, v.value, v.ci_low, v.ci_high FROM vals v LEFT JOIN runs ON runs.id = v.run \
                     WHERE runs.id IS NULL OR {NOMINAL}"
                ))
                .map_err(&fail)?;
            let mut rows = stmt.query([]).map_err(&fail)?;
            while let Some(r) = rows.next().map_err(&fail)? {
                let (run, s): (i64, i64) = (r.get(0).map_err(&fail)?, r.get(1).map_err(&fail)?);
                let (Some(&run), Some(&s)) = (run_index.get(&run), series_index.get(&s)) else {
                    return Err(Error::History {
                        path: self.path.clone(),
                        line: None,
                        message: format!(
                            "a value refers to run {run} or series {s}, which the store lacks: the file is damaged"
                        ),
                    });
                };
                series[s].points.push(Point {
                    run,
                    value: r.get::<_, Option<f64>>(2).map_err(&fail)?.unwrap_or(f64::NAN),
                    ci_low: r.get(3).map_err(&fail)?,
                    ci_high: r.get(4).map_err(&fail)?,
                });
            }
        }
        for s in &mut series {
            s.points.sort_unstable_by_key(|p| p.run);
        }
        series.retain(|s| !s.points.is_empty());
        Ok(AllSeries { runs, series })
    }
}

/// Wraps a SQLite error with the store's path (and for a damaged file the fix, [`damaged_fix`] with
/// the project's baselines folder `baselines`).
fn sql_error(path: &Path, baselines: &Path) -> impl Fn(rusqlite::Error) -> Error {
    let (path, baselines) = (path.to_path_buf(), baselines.to_path_buf());
    move |e| {
        let hint = match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::NotADatabase) => {
                "; this file is not a SQLite database: move it aside, and kernelgate creates a new store here".into()
            }
            Some(rusqlite::ErrorCode::DatabaseCorrupt) => {
                format!(": the file is damaged; {}", damaged_fix(&path, &baselines))
            }
            Some(rusqlite::ErrorCode::DatabaseBusy) => "; another kernelgate held the store for over a minute".into(),
            Some(rusqlite::ErrorCode::ReadOnly | rusqlite::ErrorCode::CannotOpen) => {
                "; check that the folder exists and is writable".into()
            }
            _ => String::new(),
        };
        Error::History { path: path.clone(), line: None, message: format!("the history store failed: {e}{hint}") }
    }
}

fn meta_params(m: &RunMeta) -> Vec<&dyn rusqlite::ToSql> {
    vec![
        &m.run_id,
        &m.gpu_uuid,
        &m.commit,
        &m.dirty,
        &m.kernels_sha256,
        &m.branch,
        &m.commit_time,
        &m.subject,
        &m.gpu_key,
        &m.gpu_name,
        &m.driver,
        &m.cuda,
        &m.nvrtc,
        &m.ncu,
        &m.ab_revision,
        &m.work_scale,
    ]
}

/// A [`RunMeta`] from [`META_COLUMNS`] starting at column `at`.
fn meta_from_row(r: &rusqlite::Row, at: usize) -> rusqlite::Result<RunMeta> {
    Ok(RunMeta {
        run_id: r.get(at)?,
        gpu_uuid: r.get(at + 1)?,
        commit: r.get(at + 2)?,
        dirty: r.get(at + 3)?,
        kernels_sha256: r.get(at + 4)?,
        branch: r.get(at + 5)?,
        commit_time: r.get(at + 6)?,
        subject: r.get(at + 7)?,
        gpu_key: r.get(at + 8)?,
        gpu_name: r.get(at + 9)?,
        driver: r.get(at + 10)?,
        cuda: r.get(at + 11)?,
        nvrtc: r.get(at + 12)?,
        ncu: r.get(at + 13)?,
        ab_revision: r.get(at + 14)?,
        work_scale: r.get(at + 15)?,
    })
}

/// A [`Value`] from trial, kernel, metric, unit, value, ci_low, ci_high, verdict, decided_by.
fn value_from_row(r: &rusqlite::Row, at: usize) -> rusqlite::Result<Value> {
    Ok(Value {
        trial: r.get(at)?,
        kernel: r.get(at + 1)?,
        metric: r.get(at + 2)?,
        unit: r.get(at + 3)?,
        value: r.get::<_, Option<f64>>(at + 4)?.unwrap_or(f64::NAN),
        ci_low: r.get(at + 5)?,
        ci_high: r.get(at + 6)?,
        verdict: r.get(at + 7)?,
        decided_by: r.get(at + 8)?,
    })
}

mod append;
mod check;
mod modules;
#[cfg(test)]
mod tests;
mod view;

use append::*;
use check::*;
pub use check::{check_integrity, damaged_fix};
pub use view::{FLAT_VIEW, FLAT_VIEW_SQL};
