//! Appending runs to an open store inside one transaction: a run already stored is merged (the
//! same values add nothing; other values are refused with both), new series get their ids once per
//! transaction.

use super::*;
use crate::history::{merge_meta, merge_value};
use rusqlite::params;

/// Series ids already looked up or added in one transaction, by (trial, metric, kernel, unit).
/// Cleared when a run's savepoint is rolled back (its new series rows are gone with it).
pub(super) type SeriesIds = HashMap<(String, String, String, String), i64>;

/// The outcome of appending one run, where the run itself may be refused (it conflicts with its
/// stored copy, is of another key, names no GPU where several ran it): `Err` is that refusal; the
/// outer `Result` of the functions returning it is a SQLite failure.
pub(super) type Refusable<T> = std::result::Result<T, Error>;

/// The stored copy of `m`'s run, if any: the run of the same `(run_id, gpu_uuid)`; else, for a
/// run whose GPU is known, the copy of its run id stored with GPU `unknown` (its metrics CSV
/// imported alone), which it completes; else, for a run whose GPU is unknown, the single copy of
/// its run id stored with a GPU.
///
/// # Errors
/// SQLite failures; inside, `conflict` when the GPU is unknown and the run id is stored for
/// several GPUs.
pub(super) fn stored_copy(
    tx: &Connection,
    m: &RunMeta,
    fail: &impl Fn(rusqlite::Error) -> Error,
    conflict: &impl Fn(String) -> Error,
) -> Result<Refusable<Option<(i64, RunMeta)>>> {
    let mut by_id = tx
        .prepare_cached(&format!("SELECT id, {META_COLUMNS} FROM runs WHERE run_id = ?1 ORDER BY gpu_uuid"))
        .map_err(fail)?;
    let copies = by_id
        .query_map([&m.run_id], |r| Ok((r.get::<_, i64>(0)?, meta_from_row(r, 1)?)))
        .map_err(fail)?
        .collect::<rusqlite::Result<Vec<_>>>()
        .map_err(fail)?;
    if let Some(exact) = copies.iter().find(|(_, c)| c.gpu_uuid == m.gpu_uuid) {
        return Ok(Ok(Some(exact.clone())));
    }
    if !crate::history::unknown(&m.gpu_uuid) {
        return Ok(Ok(copies.into_iter().find(|(_, c)| crate::history::unknown(&c.gpu_uuid))));
    }
    Ok(match copies.len() {
        0 | 1 => Ok(copies.into_iter().next()),
        _ => Err(conflict(format!(
            "this copy does not say which GPU ran it (a metrics CSV alone, or a run CSV older than schema 4) while \
             the run is stored for several GPUs ({}); import it with its run CSV beside it",
            copies.iter().map(|(_, c)| c.gpu_uuid.as_str()).collect::<Vec<_>>().join(", ")
        ))),
    })
}

/// The body of [`HistoryStore::append`], inside the caller's transaction or savepoint `tx`;
/// `series_ids` is shared by the runs of one transaction. A refused run (`Ok(Err(_))`) may have
/// written part of itself: the caller rolls back. Errors name the store `path` (and a damaged
/// file's fix the project's baselines folder `baselines`, [`super::damaged_fix`]).
pub(super) fn append_in(
    tx: &Connection,
    path: &Path,
    baselines: &Path,
    gpu_key: &str,
    run: &Run,
    series_ids: &mut SeriesIds,
) -> Result<Refusable<usize>> {
    let fail = sql_error(path, baselines);
    let conflict = |what: String| Error::History {
        path: path.to_path_buf(),
        line: None,
        message: format!(
            "run {} on {} is stored already, and {what}; nothing of it was appended (the stored run is kept as it is)",
            run.meta.run_id, run.meta.gpu_uuid
        ),
    };
    if run.meta.gpu_key != gpu_key {
        return Ok(Err(Error::History {
            path: path.to_path_buf(),
            line: None,
            message: format!(
                "run {} is of GPU key {:?}, and this is the history of {:?}; open the store of its own key",
                run.meta.run_id, run.meta.gpu_key, gpu_key
            ),
        }));
    }
    let m = &run.meta;
    let stored = match stored_copy(tx, m, &fail, &conflict)? {
        Ok(stored) => stored,
        Err(refused) => return Ok(Err(refused)),
    };
    let run_row = match stored {
        None => {
            let mut insert = tx
                .prepare_cached(&format!(
                    "INSERT INTO runs ({META_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, \
                     ?14, ?15, ?16)"
                ))
                .map_err(&fail)?;
            insert.execute(meta_params(m).as_slice()).map_err(&fail)?;
            tx.last_insert_rowid()
        }
        Some((id, mut meta)) => {
            let changed = match merge_meta(&mut meta, m) {
                Ok(changed) => changed,
                Err(e) => return Ok(Err(conflict(e.to_string()))),
            };
            if changed {
                let sets: Vec<String> =
                    META_COLUMNS.split(", ").enumerate().map(|(i, c)| format!("{c} = ?{}", i + 1)).collect();
                let mut p = meta_params(&meta);
                p.push(&id);
                tx.execute(&format!("UPDATE runs SET {} WHERE id = ?17", sets.join(", ")), p.as_slice())
                    .map_err(&fail)?;
            }
            id
        }
    };
    let mut new = 0;
    let mut find_series = tx
        .prepare_cached("SELECT id FROM series WHERE trial = ?1 AND metric = ?2 AND kernel = ?3 AND unit = ?4")
        .map_err(&fail)?;
    let mut add_series =
        tx.prepare_cached("INSERT INTO series (trial, metric, kernel, unit) VALUES (?1, ?2, ?3, ?4)").map_err(&fail)?;
    let mut add = tx
        .prepare_cached(
            "INSERT OR IGNORE INTO vals (run, series, value, ci_low, ci_high, verdict, decided_by) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )
        .map_err(&fail)?;
    let mut read = tx
        .prepare_cached("SELECT value, ci_low, ci_high, verdict, decided_by FROM vals WHERE run = ?1 AND series = ?2")
        .map_err(&fail)?;
    let mut update = tx
        .prepare_cached(
            "UPDATE vals SET ci_low = ?3, ci_high = ?4, verdict = ?5, decided_by = ?6 WHERE run = ?1 AND series = ?2",
        )
        .map_err(&fail)?;
    let mut key = (String::new(), String::new(), String::new(), String::new());
    for v in &run.values {
        // One key buffer, refilled: a lookup allocates nothing once the series is known.
        for (slot, text) in
            [(&mut key.0, &v.trial), (&mut key.1, &v.metric), (&mut key.2, &v.kernel), (&mut key.3, &v.unit)]
        {
            slot.clear();
            slot.push_str(text);
        }
        let series = match series_ids.get(&key) {
            Some(id) => *id,
            None => {
                let p = params![v.trial, v.metric, v.kernel, v.unit];
                let id = match find_series.query_row(p, |r| r.get(0)).optional().map_err(&fail)? {
                    Some(id) => id,
                    None => {
                        add_series.execute(p).map_err(&fail)?;
                        tx.last_insert_rowid()
                    }
                };
                series_ids.insert(key.clone(), id);
                id
            }
        };
        let value = (!v.value.is_nan()).then_some(v.value);
        if add.execute(params![run_row, series, value, v.ci_low, v.ci_high, v.verdict, v.decided_by]).map_err(&fail)?
            == 1
        {
            new += 1;
            continue;
        }
        let mut stored = read
            .query_row(params![run_row, series], |r| {
                Ok(Value {
                    value: r.get::<_, Option<f64>>(0)?.unwrap_or(f64::NAN),
                    ci_low: r.get(1)?,
                    ci_high: r.get(2)?,
                    verdict: r.get(3)?,
                    decided_by: r.get(4)?,
                    ..v.clone()
                })
            })
            .map_err(&fail)?;
        let changed = match merge_value(&mut stored, v) {
            Ok(changed) => changed,
            Err(e) => return Ok(Err(conflict(format!("for {} {} ({}) {e}", v.trial, v.metric, v.unit)))),
        };
        if changed {
            update
                .execute(params![run_row, series, stored.ci_low, stored.ci_high, stored.verdict, stored.decided_by])
                .map_err(&fail)?;
        }
    }
    let mut add_module = tx
        .prepare_cached("INSERT OR IGNORE INTO modules (run, trial, kernel, module_sha256) VALUES (?1, ?2, ?3, ?4)")
        .map_err(&fail)?;
    let mut read_module = tx
        .prepare_cached("SELECT module_sha256 FROM modules WHERE run = ?1 AND trial = ?2 AND kernel = ?3")
        .map_err(&fail)?;
    for t in &run.modules {
        if add_module.execute(params![run_row, t.trial, t.kernel, t.module_sha256]).map_err(&fail)? == 1 {
            continue;
        }
        let stored: String = read_module.query_row(params![run_row, t.trial, t.kernel], |r| r.get(0)).map_err(&fail)?;
        if stored != t.module_sha256 {
            return Ok(Err(conflict(format!(
                "{} {} ran from module {stored} in it and from {} in the new copy",
                t.trial, t.kernel, t.module_sha256
            ))));
        }
    }
    Ok(Ok(new))
}
