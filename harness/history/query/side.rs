//! The sides of a diff: a commit, a run, a run CSV or `before:<run>`, resolved in the history; the
//! diff report of two sides.

use super::*;

/// One side of a diff, resolved: its label and GPU, the runs it is made of, and their rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// Label and GPU for the report.
    pub side: Side,
    /// The GPU key of its runs (the store trends are read from).
    pub gpu_key: String,
    /// Its runs, with their values (several for a commit run more than once: diff takes medians).
    pub runs: Vec<Run>,
    /// Every value of every run, as report rows.
    pub rows: Vec<Measurement>,
    /// The commit's same-run A/B runs (a commit side's only; empty otherwise): paired comparisons
    /// against another revision, kept out of `runs` and `rows` ([`paired_evidence`]).
    pub paired: Vec<Run>,
    /// Warnings on values of a run CSV side that no run measures, left out
    /// ([`crate::history::import::Parsed::left_out`]); empty for a side read from the history.
    pub left_out: Vec<String>,
}

/// What a side given by the user is: a run CSV, a run id (with a GPU UUID prefix), or a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spec {
    /// A run CSV (its `-metrics.csv` is read too, where it exists).
    File(PathBuf),
    /// A run id, `YYYYMMDDTHHMMSSZ` (possibly `-2` suffixed), and the start of a GPU UUID.
    Run {
        /// The run id.
        run_id: String,
        /// `@GPU-...` given after it, to pick one GPU of several.
        gpu_uuid: Option<String>,
    },
    /// A commit id or its start (at least 4 hex digits).
    Commit(String),
    /// `before:<run id>`: every run of the newest commit stored before that run's commit, on its GPU
    /// key (the nightly report's old side).
    Before(String),
}

impl Spec {
    /// Reads a side as the user gave it (pure but for one check: whether a file of that name
    /// exists). A name ending in `.csv`, or an existing file, is a file.
    ///
    /// # Errors
    /// [`Error::History`] for text that is none of the three, saying what each looks like.
    pub fn parse(text: &str) -> Result<Spec> {
        if let Some(run_id) = text.strip_prefix("before:") {
            return Ok(Spec::Before(run_id.to_string()));
        }
        if text.ends_with(".csv") || Path::new(text).is_file() {
            return Ok(Spec::File(PathBuf::from(text)));
        }
        let (id, uuid) = match text.split_once('@') {
            Some((id, uuid)) => (id, Some(uuid.to_string())),
            None => (text, None),
        };
        let b = id.as_bytes();
        let run_id = b.len() >= 16
            && b[..8].iter().all(u8::is_ascii_digit)
            && b[8] == b'T'
            && b[9..15].iter().all(u8::is_ascii_digit)
            && b[15] == b'Z';
        if run_id {
            return Ok(Spec::Run { run_id: id.to_string(), gpu_uuid: uuid });
        }
        if uuid.is_none() && text.len() >= 4 && text.chars().all(|c| c.is_ascii_hexdigit()) {
            return Ok(Spec::Commit(text.to_ascii_lowercase()));
        }
        Err(Error::History {
            path: PathBuf::from(text),
            line: None,
            message: "is neither a run CSV (a path ending in .csv), a run id (20261130T120000Z, optionally \
                      @GPU-uuid-prefix), a commit (at least 4 hex digits) nor before:<run id>"
                .into(),
        })
    }
}

/// The run before which [`previous_commit`] looks, as a user names it (pure but for reading a
/// file): a run id (`20261130T120000Z`, an `@GPU-…` suffix is ignored: every GPU of one run ran one
/// commit), or a run CSV, whose run id is read from it.
///
/// # Errors
/// [`Error::History`] for text that is neither, a CSV that cannot be read ([`parse_csv_bytes`]: an empty
/// file, a bad row) or that holds no run (`history::import::HEADER_ONLY` for a run CSV of its header
/// alone) or several run ids.
pub fn run_id_of(text: &str) -> Result<String> {
    match Spec::parse(text)? {
        Spec::Run { run_id, .. } => Ok(run_id),
        Spec::File(path) => {
            let csv = std::fs::read(&path).map_err(Error::io(&path))?;
            let runs = parse_csv_bytes(&csv, &path)?.runs;
            let mut ids: Vec<&str> = runs.iter().map(|r| r.meta.run_id.as_str()).collect();
            ids.dedup();
            match ids.as_slice() {
                [id] => Ok(id.to_string()),
                [] => Err(Error::History { path, line: None, message: crate::history::import::HEADER_ONLY.into() }),
                _ => Err(Error::History {
                    path,
                    line: None,
                    message: format!(
                        "holds {} run ids ({}); name the run by its id instead",
                        ids.len(),
                        ids.join(", ")
                    ),
                }),
            }
        }
        _ => Err(Error::History {
            path: PathBuf::from(text),
            line: None,
            message: "is neither a run id (20261130T120000Z) nor a run CSV (a path ending in .csv)".into(),
        }),
    }
}

/// The newest run of the newest commit stored before the commit of run `run_id` (pure): `runs` in
/// the store's chronological order ([`HistoryStore::runs`]); the commit that was stored last
/// before the first run of `run_id`'s commit. `None` when `run_id` is not in `runs`, `Some(None)`
/// when no other commit was stored before its commit.
pub fn previous_commit<'a>(runs: &'a [RunSummary], run_id: &str) -> Option<Option<&'a RunMeta>> {
    let at = runs.iter().position(|r| r.meta.run_id == run_id)?;
    let commit = &runs[at].meta.commit;
    let first = runs.iter().position(|r| r.meta.commit == *commit).unwrap_or(at);
    // The newest nominal run: an A/B run is a comparison, not its commit's measurement.
    Some(runs[..first].iter().rev().find(|r| r.meta.ab_revision.is_empty()).map(|r| &r.meta))
}

/// What `kernelgate history previous` found ([`previous`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Previous {
    /// The GPU key whose history holds the run.
    pub gpu_key: String,
    /// The run asked about (its first GPU's copy).
    pub run: RunMeta,
    /// The newest run of the commit stored before the run's commit; `None` when there is none.
    pub previous: Option<RunMeta>,
}

/// `kernelgate history previous --run RUN`: the commit the nightly's diff report compares a run
/// with ([`previous_commit`], the old side of `diff before:<run id>`), in the store of `gpu` or of
/// the one GPU key whose history holds the run. `run` is a run id or a run CSV ([`run_id_of`]).
/// `baselines` is the project's baselines folder as messages show it, which the fix names when
/// there is no history or a store is damaged ([`crate::history::import_command`]).
///
/// # Errors
/// [`Error::History`] when the run is in no store (listing the stored commits), in several GPU
/// keys' (pass `--gpu`), and those of [`run_id_of`] and of opening stores.
pub fn previous(dir: &Path, run: &str, gpu: Option<&str>, baselines: &Path) -> Result<Previous> {
    let run_id = run_id_of(run)?;
    let mut found = Vec::new();
    let mut all = Vec::new();
    for key in keys(dir, gpu, baselines)? {
        let runs = HistoryStore::open_read(dir, &key, baselines)?.runs(None)?;
        if let Some(before) = previous_commit(&runs, &run_id) {
            let this = runs.iter().find(|r| r.meta.run_id == run_id).map(|r| r.meta.clone());
            found.push(Previous { gpu_key: key.clone(), run: this.expect("found"), previous: before.cloned() });
        }
        all.extend(runs);
    }
    let error = |message: String| Error::History { path: dir.to_path_buf(), line: None, message };
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(error(format!(
            "no run {run_id:?} in {}: the run was not recorded (see its log), or the history is another folder \
             (--dir, KERNELGATE_HISTORY); its commits, oldest first:\n{}",
            gpu.map_or_else(|| "any history here".to_string(), |k| format!("the history of {k}")),
            candidates(&all, 20)
        ))),
        _ => Err(error(format!(
            "run {run_id:?} is in the history of several GPU keys ({}); pass --gpu",
            found.iter().map(|p| p.gpu_key.as_str()).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// Resolves a side of `kernelgate diff` ([`Spec::parse`]) against the stores in `dir` (the store of
/// `gpu`, or every store): a commit gives every run of that commit on that GPU key, a run id its
/// run (on one GPU), a file its runs.
/// `baselines` is the project's baselines folder as messages show it, which the fix names when
/// there is no history or a store is damaged ([`crate::history::import_command`]).
///
/// # Errors
/// [`Error::History`] when nothing matches (naming what was searched and listing the stored
/// commits), when a commit prefix matches several commits or a run id several GPUs (listing
/// them), or when the matches are in several GPU keys (pass `--gpu`); errors of opening stores and
/// of reading a CSV ([`parse_csv_bytes`]).
pub fn resolve_side(dir: &Path, text: &str, gpu: Option<&str>, baselines: &Path) -> Result<Resolved> {
    let spec = Spec::parse(text)?;
    if let Spec::File(path) = &spec {
        return resolve_file(path);
    }
    let error = |message: String| Error::History { path: dir.to_path_buf(), line: None, message };
    let mut found: Vec<(String, HistoryStore, Vec<RunSummary>, Vec<RunSummary>)> = Vec::new();
    let mut all_runs = Vec::new();
    let mut only_paired = Vec::new();
    for key in keys(dir, gpu, baselines)? {
        let store = HistoryStore::open_read(dir, &key, baselines)?;
        let runs = store.runs(None)?;
        // `before:<run id>`: the commit stored last before the first run of that run's commit.
        let before = match &spec {
            Spec::Before(id) => previous_commit(&runs, id).flatten().map(|m| m.commit.clone()),
            _ => None,
        };
        let matching: Vec<RunSummary> = runs
            .iter()
            .filter(|r| match &spec {
                Spec::Before(_) => before.as_ref().is_some_and(|c| r.meta.commit == *c),
                Spec::Commit(prefix) => r.meta.commit.starts_with(prefix.as_str()),
                Spec::Run { run_id, gpu_uuid } => {
                    r.meta.run_id == *run_id && gpu_uuid.as_ref().is_none_or(|u| r.meta.gpu_uuid.starts_with(u))
                }
                Spec::File(_) => unreachable!(),
            })
            .cloned()
            .collect();
        // A commit's side is its nominal runs; its same-run A/B runs are paired evidence beside them.
        let (paired, matching): (Vec<RunSummary>, Vec<RunSummary>) = match &spec {
            Spec::Commit(_) | Spec::Before(_) => matching.into_iter().partition(|r| !r.meta.ab_revision.is_empty()),
            _ => (Vec::new(), matching),
        };
        if matching.is_empty() && !paired.is_empty() {
            only_paired.extend(paired.iter().map(|r| {
                format!(
                    "  {}@{} (A/B against {})",
                    r.meta.run_id,
                    gpu_short(&r.meta.gpu_uuid),
                    short(&r.meta.ab_revision)
                )
            }));
        }
        all_runs.extend(runs);
        if !matching.is_empty() {
            found.push((key, store, matching, paired));
        }
    }
    let searched = match gpu {
        Some(key) => format!("the history of {key}"),
        None => format!("any history in {}", dir.display()),
    };
    let Some((key, store, matching, paired)) = found.first() else {
        if !only_paired.is_empty() {
            return Err(error(format!(
                "{text:?} has only same-run A/B runs in {searched}:\n{}\nan A/B run is a paired comparison, not its \
                 commit's measurement: diff its A (the commit after \"against\") and its commit, and both sides are read \
                 from the pairs",
                only_paired.join("\n")
            )));
        }
        let what = match &spec {
            Spec::Commit(c) => {
                let of: std::collections::BTreeSet<&str> = all_runs
                    .iter()
                    .filter(|r| r.meta.ab_revision.starts_with(c.as_str()))
                    .map(|r| short(&r.meta.commit))
                    .collect();
                if !of.is_empty() {
                    let b: Vec<&str> = of.into_iter().collect();
                    return Err(error(format!(
                        "commit {c:?} has no run of its own in {searched}, but it is the A of same-run A/B runs of {}: \
                         `kernelgate diff {c} {}` reads both sides from their pairs",
                        b.join(", "),
                        b[0]
                    )));
                }
                format!("no run of a commit starting {c:?}")
            }
            Spec::Before(id) => format!("no run {id:?}, or no commit stored before its commit,"),
            _ => format!("no run {text:?}"),
        };
        return Err(error(format!("{what} in {searched}; its commits, oldest first:\n{}", candidates(&all_runs, 20))));
    };
    if found.len() > 1 {
        let keys: Vec<&str> = found.iter().map(|(k, ..)| k.as_str()).collect();
        return Err(error(format!("{text:?} is in the history of several GPU keys ({}); pass --gpu", keys.join(", "))));
    }
    let label = match &spec {
        Spec::Commit(_) | Spec::Before(_) => {
            if matching.iter().any(|r| r.meta.commit != matching[0].meta.commit) {
                return Err(error(format!(
                    "commit {text:?} is ambiguous in {searched}; it starts:\n{}\ngive more of it",
                    candidates(matching, usize::MAX)
                )));
            }
            let m = &matching[0].meta;
            format!("{} {}", short(&m.commit), m.subject).trim_end().to_string()
        }
        _ => {
            if matching.len() > 1 {
                let gpus: Vec<String> =
                    matching.iter().map(|r| format!("  {}@{}", r.meta.run_id, r.meta.gpu_uuid)).collect();
                return Err(error(format!(
                    "run {text:?} was run on several GPUs; pick one with @ and the start of its UUID:\n{}",
                    gpus.join("\n")
                )));
            }
            format!("{} ({})", matching[0].meta.run_id, short(&matching[0].meta.commit))
        }
    };
    let whole = |summaries: &[RunSummary]| -> Result<Vec<Run>> {
        let mut runs = Vec::new();
        for r in summaries {
            if let Some(run) = store.run(&r.meta.run_id, &r.meta.gpu_uuid)? {
                runs.push(run);
            }
        }
        Ok(runs)
    };
    let mut side = resolved(label, key.clone(), whole(matching)?);
    side.paired = whole(paired)?;
    Ok(side)
}

/// The same-run A/B comparisons of `old`'s commit (A) against `new`'s (B) among `new`'s A/B runs
/// (pure), per trial: the paired evidence a diff of the two commits shows beside its own
/// comparison of medians. An A/B run matches when its `ab_revision` is the commit of one of `old`'s
/// runs (or, for a revision recorded as its first 7 or more hex digits, the start of one).
pub fn paired_evidence(old: &Resolved, new: &Resolved) -> BTreeMap<String, Vec<Paired>> {
    let matches = |ab: &str| {
        old.runs.iter().any(|r| {
            r.meta.commit == ab
                || (ab.len() >= 7 && ab.bytes().all(|b| b.is_ascii_hexdigit()) && r.meta.commit.starts_with(ab))
        })
    };
    let runs: Vec<&Run> = new.paired.iter().filter(|r| matches(&r.meta.ab_revision)).collect();
    pairs_of(&runs)
}

/// The paired evidence of A/B `runs` per trial (pure): their trials that were timed in pairs.
fn pairs_of(runs: &[&Run]) -> BTreeMap<String, Vec<Paired>> {
    let mut out: BTreeMap<String, Vec<Paired>> = BTreeMap::new();
    for run in runs {
        let mut by_trial: BTreeMap<&str, BTreeMap<&str, &Value>> = BTreeMap::new();
        for v in &run.values {
            by_trial.entry(v.trial.as_str()).or_default().insert(v.metric.as_str(), v);
        }
        for (trial, metrics) in by_trial {
            let get = |m: &str| metrics.get(m).map(|v| v.value);
            let (Some(a), Some(b), Some(delta)) = (get("baseline_median"), get(TIME_STATISTIC), get("delta")) else {
                continue; // timed alone (no pairs): nothing paired to show
            };
            let any = metrics.values().next().expect("a trial has a value");
            out.entry(trial.to_string()).or_default().push(Paired {
                run: format!("{}@{}", run.meta.run_id, gpu_short(&run.meta.gpu_uuid)),
                a_median_s: a,
                b_median_s: b,
                delta_pct: delta,
                p_adjusted: get("p_adjusted"),
                pairs: get("samples").map(|n| n as usize),
                verdict: any.verdict.clone(),
                decided_by: any.decided_by.clone(),
            });
        }
    }
    out
}

/// The statistics of an A/B run that compare its two sides rather than measure B: left out of the
/// new side's rows when a diff's two sides are read from the pairs ([`paired_sides`]).
const PAIR_STATISTICS: [&str; 5] = ["baseline_median", "delta", "p_value", "p_adjusted", "min_effect"];

/// Both sides of a diff of two commits and, per trial, its values paired run by run.
pub type PairedSides = (Resolved, Resolved, BTreeMap<String, Vec<Paired>>);

/// Both sides of `kernelgate diff OLD NEW` read from NEW's same-run A/B runs against OLD, for when
/// one of the two commits has no run of its own (a pull request's head is timed only in pairs
/// against its base; A is never timed alone): OLD's time per trial is A's median over the pairs
/// (the run's `baseline_median`), NEW's is B's, with B's other statistics and counters, and the
/// runs' pairs as the paired evidence. `None` when either side is not a commit or no such run is
/// stored. An A/B run matches when its commit starts with NEW and its `ab_revision` with OLD (or,
/// recorded as 7 or more hex digits, OLD starts with it).
/// `baselines` is the project's baselines folder as messages show it, which the fix names when
/// there is no history or a store is damaged ([`crate::history::import_command`]).
///
/// # Errors
/// [`Error::History`] when such runs are in several GPU keys' histories (pass `--gpu`), and those
/// of opening stores.
pub fn paired_sides(
    dir: &Path,
    old: &str,
    new: &str,
    gpu: Option<&str>,
    baselines: &Path,
) -> Result<Option<PairedSides>> {
    let (Ok(Spec::Commit(a)), Ok(Spec::Commit(b))) = (Spec::parse(old), Spec::parse(new)) else { return Ok(None) };
    let of_a = |ab: &str| {
        ab.starts_with(a.as_str()) || (ab.len() >= 7 && ab.bytes().all(|c| c.is_ascii_hexdigit()) && a.starts_with(ab))
    };
    let mut found = Vec::new();
    for key in keys(dir, gpu, baselines)? {
        let store = HistoryStore::open_read(dir, &key, baselines)?;
        let mut runs = Vec::new();
        for r in store.runs(None)? {
            if r.meta.commit.starts_with(b.as_str())
                && !r.meta.ab_revision.is_empty()
                && of_a(&r.meta.ab_revision)
                && let Some(run) = store.run(&r.meta.run_id, &r.meta.gpu_uuid)?
            {
                runs.push(run);
            }
        }
        if !runs.is_empty() {
            found.push((key, runs));
        }
    }
    if found.len() > 1 {
        let keys: Vec<&str> = found.iter().map(|(k, _)| k.as_str()).collect();
        return Err(Error::History {
            path: dir.to_path_buf(),
            line: None,
            message: format!(
                "A/B runs of {new:?} against {old:?} are in several GPU keys' histories ({}); pass --gpu",
                keys.join(", ")
            ),
        });
    }
    let Some((key, runs)) = found.pop() else { return Ok(None) };
    let pairs = pairs_of(&runs.iter().collect::<Vec<_>>());
    let meta = runs[0].meta.clone();
    let ids: Vec<String> = runs.iter().map(|r| r.meta.run_id.clone()).collect();
    let label = |commit: &str, subject: &str, which: &str| {
        format!("{} {subject} ({which} of A/B run {})", short(commit), ids.join(", ")).replace("  ", " ")
    };
    let mut new_side = resolved(label(&meta.commit, &meta.subject, "B"), key.clone(), runs.clone());
    new_side.rows.retain(|m| !PAIR_STATISTICS.contains(&m.metric.as_str()));
    new_side.paired = runs;
    let old_rows: Vec<Measurement> = new_side
        .paired
        .iter()
        .flat_map(|r| r.values.iter())
        .filter(|v| v.metric == "baseline_median")
        .map(|v| Measurement {
            trial: v.trial.clone(),
            kernel: v.kernel.clone(),
            metric: TIME_STATISTIC.to_string(),
            unit: v.unit.clone(),
            value: v.value,
            verdict: String::new(),
            decided_by: String::new(),
            // The run records no interval of A's median over the pairs.
            ci: None,
        })
        .collect();
    let old_side = Resolved {
        // A's medians come from the same A/B runs as B's.
        side: Side { label: label(&meta.ab_revision, "", "A"), ..new_side.side.clone() },
        gpu_key: key,
        runs: Vec::new(),
        rows: old_rows,
        paired: Vec::new(),
        left_out: Vec::new(),
    };
    Ok(Some((old_side, new_side, pairs)))
}

/// A [`Resolved`] of `runs`: the GPU is the physical GPU's UUID start when they share one, else the
/// GPU key.
pub(super) fn resolved(label: String, gpu_key: String, runs: Vec<Run>) -> Resolved {
    let first = runs.first().map(|r| r.meta.gpu_uuid.as_str()).unwrap_or("");
    let gpu = if runs.iter().all(|r| r.meta.gpu_uuid == first) && !first.is_empty() {
        // NVML UUIDs read `GPU-…`; without NVML the UUID is `unknown`: say what is unknown.
        let uuid = gpu_short(first);
        if uuid.starts_with("GPU-") { format!("{gpu_key} ({uuid})") } else { format!("{gpu_key} (GPU {uuid})") }
    } else {
        gpu_key.clone()
    };
    let rows = runs.iter().flat_map(|r| measurements(&r.values)).collect();
    let gpus: std::collections::BTreeSet<String> =
        runs.iter().map(|r| gpu_short(&r.meta.gpu_uuid).to_string()).collect();
    let side = Side { label, gpu, runs: runs.len(), gpus: gpus.into_iter().collect() };
    Resolved { side, gpu_key, runs, rows, paired: Vec::new(), left_out: Vec::new() }
}

/// A run CSV side: its runs, with the metrics of `<stem>-metrics.csv` and the ceilings of
/// `<stem>-ceilings.csv` ([`crate::history::ceilings`]) beside it where they exist.
pub(super) fn resolve_file(path: &Path) -> Result<Resolved> {
    let mut left_out = Vec::new();
    let mut read = |p: &Path| -> Result<(Kind, Vec<Run>)> {
        let bytes = std::fs::read(p).map_err(Error::io(p))?;
        let parsed = parse_csv_bytes(&bytes, p)?;
        left_out.extend(parsed.left_out);
        Ok((parsed.kind, parsed.runs))
    };
    let (kind, mut runs) = read(path)?;
    if runs.is_empty() {
        let message = if matches!(kind, Kind::Run(_)) { crate::history::import::HEADER_ONLY } else { "holds no run" };
        return Err(Error::History { path: path.to_path_buf(), line: None, message: message.into() });
    }
    if let Kind::Run(_) = kind {
        let stem = path.to_string_lossy();
        let metrics = PathBuf::from(format!("{}-metrics.csv", stem.trim_end_matches(".csv")));
        if metrics.is_file() {
            let (_, m) = read(&metrics)?;
            attach_metrics(&mut runs, m, &metrics)?;
        }
        let ceilings = crate::history::ceilings::beside(path);
        if ceilings.is_file() {
            crate::history::ceilings::attach(&mut runs, &ceilings)?;
        }
    }
    let Some(first) = runs.first() else {
        let message = match left_out.first() {
            None => "holds no run".to_string(),
            Some(first) => format!("holds no trial kernelgate can read: every one was left out, as {first}"),
        };
        return Err(Error::History { path: path.to_path_buf(), line: None, message });
    };
    let key = first.meta.gpu_key.clone();
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut side = resolved(format!("{name} ({})", short(&first.meta.commit)), key, runs);
    side.left_out = left_out;
    Ok(side)
}

/// A sentence when the two sides did not run on the same physical GPUs (pure): two H200s differ by
/// -5.8 to +2.9 % per kernel (baselines/nvidia-h200-sm90/BENCHMARK.md, "A second machine"), so a
/// change of that size between such sides may be the machines'.
pub fn other_gpus_note(old: &[Run], new: &[Run]) -> Option<String> {
    let uuids = |runs: &[Run]| -> std::collections::BTreeSet<String> {
        runs.iter().map(|r| gpu_short(&r.meta.gpu_uuid).to_string()).collect()
    };
    let (a, b) = (uuids(old), uuids(new));
    (a != b).then(|| {
        let list = |s: &std::collections::BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(", ");
        format!(
            "the sides ran on different physical GPUs (old: {}; new: {}): medians of one kernel differed by -5.8 to \
             +2.9 % between two H200s, so changes of that size may be the machines'; compare runs of one GPU \
             (RUN_ID@GPU-...), or use KERNELGATE_AB",
            list(&a),
            list(&b)
        )
    })
}
