//! The note's text (pure): a run as self-contained lines, lines parsed back, the union of notes.

use super::super::{merge_meta, merge_value};
use super::*;
use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// The note lines of `run` (pure), sorted: one `R1` line and one `V1` line per value.
///
/// # Errors
/// [`Error::Notes`] (naming the commit) if a field holds a line break.
pub fn lines(run: &Run) -> Result<Vec<String>> {
    let m = &run.meta;
    let opt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:?}"));
    let mut out = vec![record(
        &m.commit,
        &[
            "R1",
            &m.run_id,
            &m.commit,
            m.dirty.map_or("", |d| if d { "true" } else { "false" }),
            &m.kernels_sha256,
            &m.branch,
            &m.commit_time.map_or(String::new(), |t| t.to_string()),
            &m.subject,
            &m.gpu_key,
            &m.gpu_name,
            &m.gpu_uuid,
            &m.driver,
            &m.cuda,
            &m.nvrtc,
            &m.ncu,
            &m.ab_revision,
            &format!("{:?}", m.work_scale),
        ],
    )?];
    for v in &run.values {
        out.push(record(
            &m.commit,
            &[
                "V1",
                &m.run_id,
                &m.gpu_uuid,
                &v.trial,
                &v.kernel,
                &v.metric,
                &v.unit,
                &format!("{:?}", v.value),
                &opt(v.ci_low),
                &opt(v.ci_high),
                &v.verdict,
                &v.decided_by,
            ],
        )?);
    }
    for t in &run.modules {
        out.push(record(&m.commit, &["M1", &m.run_id, &m.gpu_uuid, &t.trial, &t.kernel, &t.module_sha256])?);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// One CSV record on one line, without its line end.
fn record(commit: &str, fields: &[&str]) -> Result<String> {
    if let Some(f) = fields.iter().find(|f| f.contains(['\n', '\r'])) {
        return Err(Error::Notes {
            commit: commit.to_string(),
            line: None,
            message: format!("the field {f:?} holds a line break, and a note line must be one line; remove it"),
        });
    }
    let mut w =
        csv::WriterBuilder::new().has_headers(false).terminator(csv::Terminator::Any(b'\n')).from_writer(vec![]);
    let written = w.write_record(fields).and_then(|()| w.flush().map_err(csv::Error::from));
    written.map_err(|e| Error::Notes { commit: commit.to_string(), line: None, message: e.to_string() })?;
    let mut bytes = w.into_inner().map_err(|e| Error::Notes {
        commit: commit.to_string(),
        line: None,
        message: e.error().to_string(),
    })?;
    bytes.pop(); // the terminator
    Ok(String::from_utf8(bytes).expect("fields are UTF-8"))
}

/// The runs in the note text of `commit` (pure), sorted by run id and GPU UUID, each run's values
/// sorted by trial, metric, kernel, unit. Lines may come in any order; blank lines are skipped; the
/// same record twice counts once, and two copies of one run (or value) are merged as
/// [`crate::history::merge_meta`] merges them.
///
/// A line that cannot be used is left out and listed in [`NoteRuns::skipped`] with its 1-based
/// line, never a reason to drop the other lines: a line that is not a CSV record of a known kind
/// and version with the right number of fields (another tool's, a person's, a newer kernelgate's),
/// a number that does not parse or that no run measures ([`crate::history::value_problem`]), an `R1` line
/// of another commit, and values without their run's `R1` line. Two copies of a run that disagree
/// leave the run out (every line of it is listed); two copies of a value that disagree leave that
/// value out.
///
/// # Errors
/// None today; the `Result` is kept for a future format whose lines depend on each other.
pub fn parse(text: &str, commit: &str) -> Result<NoteRuns> {
    /// (run id, GPU UUID), and (trial, metric, kernel, unit).
    type Key = (String, String);
    type ValueKey = (String, String, String, String);
    let mut metas: BTreeMap<Key, (RunMeta, usize)> = BTreeMap::new();
    let mut values: BTreeMap<Key, BTreeMap<ValueKey, (Value, usize)>> = BTreeMap::new();
    // Per run, (trial, kernel) -> (module, first line); of two that disagree, the first is kept.
    type ModuleLines = BTreeMap<(String, String), (String, usize)>;
    let mut modules: BTreeMap<Key, ModuleLines> = BTreeMap::new();
    let mut value_lines: BTreeMap<Key, Vec<usize>> = BTreeMap::new();
    let mut torn_runs: BTreeMap<Key, String> = BTreeMap::new();
    let mut torn_values: BTreeMap<(Key, ValueKey), String> = BTreeMap::new();
    let mut skipped = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let mut skip = |why: String| skipped.push(Skipped { commit: commit.to_string(), line: n, why });
        let shown: String = line.chars().take(80).collect();
        let shown = if shown.len() < line.len() { format!("{shown}…") } else { shown };
        let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(line.as_bytes());
        let mut rec = csv::StringRecord::new();
        match reader.read_record(&mut rec) {
            Ok(true) => {}
            Ok(false) => continue,
            Err(e) => {
                skip(format!("{shown:?} is not a CSV record ({e}), so not a line kernelgate wrote"));
                continue;
            }
        }
        let f = |k: usize| rec.get(k).unwrap_or("");
        let parsed = match f(0) {
            "R1" => parse_run(&rec, commit).map(Line::Run),
            "V1" => parse_value(&rec).map(|(key, v)| Line::Value(key, v)),
            "M1" => parse_module(&rec).map(|(key, m)| Line::Module(key, m)),
            _ => Err(format!(
                "{shown:?} is not a line kernelgate writes (it reads R1, V1 and M1 lines; another tool, a person or a \
                 newer kernelgate wrote it)"
            )),
        };
        match parsed {
            Err(why) => skip(why),
            Ok(Line::Run(meta)) => {
                let key = (meta.run_id.clone(), meta.gpu_uuid.clone());
                match metas.get_mut(&key) {
                    Some((stored, first)) => {
                        if let Err(e) = merge_meta(stored, &meta) {
                            torn_runs.entry(key).or_insert(format!("lines {first} and {n} disagree: {e}"));
                        }
                    }
                    None => {
                        metas.insert(key, (meta, n));
                    }
                }
            }
            Ok(Line::Module(key, m)) => {
                let at = modules.entry(key).or_default();
                match at.get(&(m.trial.clone(), m.kernel.clone())) {
                    Some((stored, _)) if *stored == m.module_sha256 => {}
                    Some((stored, first)) => skip(format!(
                        "the module of {} {} is {stored} on line {first} and {} here; the first is kept",
                        m.trial, m.kernel, m.module_sha256
                    )),
                    None => {
                        at.insert((m.trial, m.kernel), (m.module_sha256, n));
                    }
                }
            }
            Ok(Line::Value(key, v)) => {
                value_lines.entry(key.clone()).or_default().push(n);
                let id = (v.trial.clone(), v.metric.clone(), v.kernel.clone(), v.unit.clone());
                match values.entry(key.clone()).or_default().entry(id.clone()) {
                    std::collections::btree_map::Entry::Occupied(mut e) => {
                        let first = e.get().1;
                        if let Err(m) = merge_value(&mut e.get_mut().0, &v) {
                            torn_values.entry((key, id)).or_insert(format!(
                                "two copies of {} {} of run {} disagree (lines {first} and {n}): {m}",
                                v.trial,
                                v.metric,
                                f(1)
                            ));
                        }
                    }
                    std::collections::btree_map::Entry::Vacant(e) => {
                        e.insert((v, n));
                    }
                }
            }
        }
    }
    let mut runs = Vec::new();
    for (key, (meta, first)) in metas {
        if let Some(why) = torn_runs.remove(&key) {
            skipped.push(Skipped {
                commit: commit.to_string(),
                line: first,
                why: format!(
                    "two copies of run {} on {} ({why}), so the run is left out, with its {} value lines{}",
                    key.0,
                    key.1,
                    value_lines.get(&key).map_or(0, Vec::len),
                    if super::super::unknown(&key.1) {
                        "; runs recorded without a GPU UUID (no NVML) share this key when two runners start in the \
                         same second, and their value lines cannot be told apart: kernelgate records the CUDA \
                         driver's UUID where NVML is missing, so new runs do not collide"
                    } else {
                        ""
                    }
                ),
            });
            values.remove(&key);
            modules.remove(&key);
            continue;
        }
        let mut kept = Vec::new();
        for (id, (v, line)) in values.remove(&key).unwrap_or_default() {
            match torn_values.remove(&(key.clone(), id)) {
                Some(why) => {
                    skipped.push(Skipped { commit: commit.to_string(), line, why: format!("{why}; left out") })
                }
                None => kept.push(v),
            }
        }
        let modules = modules
            .remove(&key)
            .unwrap_or_default()
            .into_iter()
            .map(|((trial, kernel), (module_sha256, _))| TrialModule { trial, kernel, module_sha256 })
            .collect();
        runs.push(Run { meta, values: kept, modules });
    }
    for (key, lines) in value_lines.iter().filter(|(k, _)| values.contains_key(*k)) {
        skipped.push(Skipped {
            commit: commit.to_string(),
            line: lines[0],
            why: format!(
                "{} value line{} of run {} on {} without the run's R1 line (first here)",
                lines.len(),
                if lines.len() == 1 { "" } else { "s" },
                key.0,
                key.1
            ),
        });
    }
    for (key, orphans) in modules {
        skipped.push(Skipped {
            commit: commit.to_string(),
            line: orphans.values().map(|(_, line)| *line).min().unwrap_or(0),
            why: format!(
                "{} module line(s) of run {} on {} without the run's R1 line (first here)",
                orphans.len(),
                key.0,
                key.1
            ),
        });
    }
    skipped.sort_by_key(|s| s.line);
    Ok(NoteRuns { runs, skipped })
}

/// One usable note line.
enum Line {
    Run(RunMeta),
    Value((String, String), Value),
    Module((String, String), TrialModule),
}

/// An `M1` record (pure): its run's key and the trial's module; `Err` says why the line cannot be
/// used.
fn parse_module(rec: &csv::StringRecord) -> std::result::Result<((String, String), TrialModule), String> {
    let f = |k: usize| rec.get(k).unwrap_or("").to_string();
    if rec.len() != MODULE_FIELDS {
        return Err(format!("an M1 line has {MODULE_FIELDS} fields, this one {}", rec.len()));
    }
    let m = TrialModule { trial: f(3), kernel: f(4), module_sha256: f(5) };
    if m.trial.is_empty() {
        return Err("an M1 line names a trial, and this one leaves it empty".into());
    }
    if !m.module_sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("the module {:?} of {} is not a SHA-256 (hex digits)", m.module_sha256, m.trial));
    }
    Ok(((f(1), f(2)), m))
}

/// An `R1` record of a note of `commit` (pure); `Err` says why the line cannot be used.
fn parse_run(rec: &csv::StringRecord, commit: &str) -> std::result::Result<RunMeta, String> {
    let f = |k: usize| rec.get(k).unwrap_or("");
    if rec.len() != RUN_FIELDS {
        return Err(format!("an R1 line has {RUN_FIELDS} fields, this one {}", rec.len()));
    }
    let work_scale = f(16).parse::<f64>().ok().filter(|w| w.is_finite() && *w > 0.0);
    let meta = RunMeta {
        run_id: f(1).into(),
        commit: f(2).into(),
        dirty: match f(3) {
            "true" => Some(true),
            "false" => Some(false),
            "" => None,
            other => return Err(format!("dirty {other:?} is not true, false or empty")),
        },
        kernels_sha256: f(4).into(),
        branch: f(5).into(),
        commit_time: match f(6) {
            "" => None,
            t => Some(t.parse().map_err(|_| format!("commit_time {t:?} is not unix seconds"))?),
        },
        subject: f(7).into(),
        gpu_key: f(8).into(),
        gpu_name: f(9).into(),
        gpu_uuid: f(10).into(),
        driver: f(11).into(),
        cuda: f(12).into(),
        nvrtc: f(13).into(),
        ncu: f(14).into(),
        ab_revision: f(15).into(),
        work_scale: work_scale.ok_or_else(|| format!("work_scale {:?} is not a number above 0", f(16)))?,
    };
    if meta.run_id.is_empty() || meta.gpu_key.is_empty() {
        return Err("an R1 line names a run id and a GPU key, and this one leaves one empty".into());
    }
    if meta.commit != commit {
        return Err(format!("the run {} names commit {}, not the noted one", meta.run_id, meta.commit));
    }
    Ok(meta)
}

/// A `V1` record (pure): its run's key and the value; `Err` says why the line cannot be used.
fn parse_value(rec: &csv::StringRecord) -> std::result::Result<((String, String), Value), String> {
    let f = |k: usize| rec.get(k).unwrap_or("");
    if rec.len() != VALUE_FIELDS {
        return Err(format!("a V1 line has {VALUE_FIELDS} fields, this one {}", rec.len()));
    }
    let number = |k: usize, name: &str| f(k).parse::<f64>().map_err(|_| format!("{name} {:?} is not a number", f(k)));
    let maybe = |k: usize, name: &str| if f(k).is_empty() { Ok(None) } else { number(k, name).map(Some) };
    let v = Value {
        trial: f(3).into(),
        kernel: f(4).into(),
        metric: f(5).into(),
        unit: f(6).into(),
        value: number(7, "value")?,
        ci_low: maybe(8, "ci_low")?,
        ci_high: maybe(9, "ci_high")?,
        verdict: f(10).into(),
        decided_by: f(11).into(),
    };
    if v.trial.is_empty() || v.metric.is_empty() {
        return Err("a V1 line names a trial and a metric, and this one leaves one empty".into());
    }
    if let Some(problem) = crate::history::value_problem(&v.metric, &v.unit, v.value) {
        return Err(format!("{} {} {problem}", v.trial, v.metric));
    }
    Ok(((f(1).to_string(), f(2).to_string()), v))
}

/// The union of two notes' lines, sorted and deduplicated, as note text, and how many lines of
/// `theirs` were not in `ours` (pure). Blank lines are dropped.
pub fn union(ours: &str, theirs: &[String]) -> (String, usize) {
    let mut set: std::collections::BTreeSet<&str> = ours.split('\n').filter(|l| !l.trim().is_empty()).collect();
    let before = set.len();
    set.extend(theirs.iter().map(String::as_str).filter(|l| !l.trim().is_empty()));
    let added = set.len() - before;
    let mut text = String::new();
    for l in set {
        text.push_str(l);
        text.push('\n');
    }
    (text, added)
}

/// `ours` unchanged, then the lines of `new` it lacks, sorted, one per line; and how many were
/// added (pure).
pub(super) fn appended(ours: &str, new: &[String]) -> (String, usize) {
    let have: std::collections::BTreeSet<&str> = ours.split('\n').collect();
    let mut add: Vec<&str> =
        new.iter().map(String::as_str).filter(|l| !l.trim().is_empty() && !have.contains(l)).collect();
    add.sort_unstable();
    add.dedup();
    let mut text = ours.to_string();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    for l in &add {
        text.push_str(l);
        text.push('\n');
    }
    (text, add.len())
}
