//! The nightly gate's decision: a run's verdicts and the change points it ends, and the exit code.

use super::*;

/// The nightly gate's outcome for one run, most severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// A trial `regressed`, or a time change point at the run's commit is an increase:
    /// [`EXIT_REGRESSED`].
    Regressed,
    /// None of that, but a trial is `invalid`: [`EXIT_INVALID`].
    Invalid,
    /// Judged against its GPU's own history ([`super::reference`]), the run's GPU has none yet: it
    /// is new to the pool, and its commit is to be gated by a same-run A/B run: [`EXIT_NEW_GPU`].
    NewGpu,
    /// Neither: exit 0.
    Pass,
}

impl Outcome {
    /// The process exit code of `kernelgate history gate`.
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::Regressed => EXIT_REGRESSED,
            Outcome::Invalid => EXIT_INVALID,
            Outcome::NewGpu => EXIT_NEW_GPU,
            Outcome::Pass => 0,
        }
    }
}

/// The nightly gate's exit code from the suite's exit code and the history's [`Outcome`] (pure):
/// the suite's 3 (a trial failed its performance gate only) is a regression like the history's
/// (under `KERNELGATE_REFERENCE=gpu` the suite's time verdicts against the baseline fail nothing, so
/// its 3 is a counter, a counter expectation, the resource or SASS gate or a lesson); its 2 (a bad option) stays 2; any other failure of the
/// suite (a wrong result, a failed counter expectation, a harness error: libtest's 101) is 1, a
/// harness error for the nightly job, with the sentence to print. Otherwise the history decides: 3
/// regressed, 4 invalid, 5 a GPU new to the pool, 0 pass.
pub fn nightly_exit(suite_exit: u8, history: Outcome) -> (u8, Option<String>) {
    match suite_exit {
        0 => (history.exit_code(), None),
        3 => (
            EXIT_REGRESSED,
            Some(
                "but the suite itself failed trials on their performance gate (exit 3): a regression, whatever the \
                 history says"
                    .into(),
            ),
        ),
        2 => (2, Some("the suite refused an option (exit 2); see its log".into())),
        n => (
            1,
            Some(format!(
                "the suite failed (exit {n}): a wrong result, a harness error or an output it could not write; see \
                 its log and JUnit"
            )),
        ),
    }
}

/// The gate's decision for one run, with its reasons (one line each).
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The outcome.
    pub outcome: Outcome,
    /// Why: regressions first, then `invalid` trials, then what does not gate.
    pub reasons: Vec<Reason>,
    /// The commit to time this run's commit against in a same-run A/B run (`KERNELGATE_AB`), the
    /// last one the gate passed ([`super::last_pass`]): set with [`Outcome::NewGpu`] when there is
    /// one, `None` otherwise.
    pub ab_against: Option<String>,
}

/// What a [`Reason`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finding {
    /// The trial's verdict is `regressed`.
    Regressed,
    /// A time change point at the run's commit is an increase.
    ChangePoint,
    /// The trial's verdict is `invalid`.
    Invalid,
    /// Not a finding: what the run was judged against, a changed environment, a trial `improved`
    /// or `ambiguous` (listed, never gating).
    Note,
}

impl Finding {
    /// Its name in JSON: `regressed`, `change_point`, `invalid`, `note`.
    pub fn as_str(self) -> &'static str {
        match self {
            Finding::Regressed => "regressed",
            Finding::ChangePoint => "change_point",
            Finding::Invalid => "invalid",
            Finding::Note => "note",
        }
    }
}

/// One reason of a [`Decision`]: what was found, for which trial, whether it gates, and the line
/// the text prints.
#[derive(Debug, Clone, PartialEq)]
pub struct Reason {
    /// What was found.
    pub finding: Finding,
    /// The trial, `family/variant/size`.
    pub trial: String,
    /// Why it does not gate (the trial is host-bound, [`HostBound`]); `None` when it gates.
    pub not_gating: Option<String>,
    /// The line: `regressed: <trial> (decided by time)`, `change point: <trial> at ...`,
    /// `invalid: ...`, `not gating: <line>; <why>`.
    pub text: String,
}

pub use crate::gate::records::HostBound;

/// The gate's decision for `run` (pure): [`Outcome::Regressed`] if a trial's verdict is `regressed`
/// or one of `changes` (a trial's time change points, per physical GPU: trial, the run of the
/// first point of the new regime, the change point) is an increase at `run`'s commit on `run`'s
/// GPU; else [`Outcome::Invalid`] if a trial is `invalid`; else [`Outcome::Pass`]. A host-bound
/// trial (`host_bound`) gates by its own verdict only, which the suite gives past a calibrated
/// floor: its median ranged from 5.05 to 10.01 ms over ten held-out runs of one binary on one H200
/// (`transfers/h2d_pageable`, BENCHMARK.md, "Ten held-out runs on the blessing GPU"), so its change points and its `invalid` runs say nothing of the code;
/// they are listed as `not gating`.
pub fn decide(run: &Run, changes: &[(String, RunMeta, ChangePoint)], host_bound: HostBound<'_>) -> Decision {
    let mut found = Findings::default();
    let mut verdicts: BTreeMap<&str, (&str, &str)> = BTreeMap::new();
    for v in &run.values {
        verdicts.entry(&v.trial).or_insert((&v.verdict, &v.decided_by));
    }
    for (trial, (verdict, by)) in verdicts {
        let by = if by.is_empty() { String::new() } else { format!(" (decided by {by})") };
        match verdict {
            "regressed" => found.add(Finding::Regressed, trial, format!("regressed: {trial}{by}"), None),
            "invalid" => found.add(Finding::Invalid, trial, format!("invalid: {trial}{by}"), host_bound(trial)),
            _ => {}
        }
    }
    found.change_points(run, changes, host_bound);
    found.decision(Vec::new())
}

/// The reasons of a [`Decision`] as they are found, sorted into those that make it regressed, those
/// that make it invalid and those only listed; [`Findings::decision`] orders them and decides.
#[derive(Debug, Default)]
pub(super) struct Findings {
    regressed: Vec<Reason>,
    invalid: Vec<Reason>,
    listed: Vec<Reason>,
}

impl Findings {
    /// Adds `line` about `trial`: listed, as `not gating: <line>; <why>`, when `why` says why it
    /// does not gate; else by its finding (a [`Finding::Note`] is listed as it is).
    pub(super) fn add(&mut self, finding: Finding, trial: &str, line: String, why: Option<String>) {
        let text = match &why {
            Some(why) => format!("not gating: {line}; {why}"),
            None => line,
        };
        let to = match (&why, finding) {
            (Some(_), _) | (None, Finding::Note) => &mut self.listed,
            (None, Finding::Invalid) => &mut self.invalid,
            (None, Finding::Regressed | Finding::ChangePoint) => &mut self.regressed,
        };
        to.push(Reason { finding, trial: trial.to_string(), text, not_gating: why });
    }

    /// Adds the time change points of `changes` (trial, the run of the new regime's first point,
    /// the change point) that are increases at `run`'s commit on `run`'s GPU; a host-bound trial's
    /// (`host_bound`) are listed.
    pub(super) fn change_points(
        &mut self,
        run: &Run,
        changes: &[(String, RunMeta, ChangePoint)],
        host_bound: HostBound<'_>,
    ) {
        for (trial, at, cp) in changes {
            if at.commit == run.meta.commit && at.gpu_uuid == run.meta.gpu_uuid && cp.after > cp.before {
                let line = format!("change point: {trial} {}", format_change(at, cp, "s"));
                self.add(Finding::ChangePoint, trial, line, host_bound(trial));
            }
        }
    }

    /// The decision (pure): [`Outcome::Regressed`] when something gates as a regression, else
    /// [`Outcome::Invalid`] when something gates as invalid, else [`Outcome::Pass`]; its reasons
    /// `first`, then the regressions, the invalid ones, the listed ones.
    pub(super) fn decision(self, mut first: Vec<Reason>) -> Decision {
        let outcome = if !self.regressed.is_empty() {
            Outcome::Regressed
        } else if !self.invalid.is_empty() {
            Outcome::Invalid
        } else {
            Outcome::Pass
        };
        first.extend(self.regressed);
        first.extend(self.invalid);
        first.extend(self.listed);
        Decision { outcome, reasons: first, ab_against: None }
    }
}

/// One run the nightly gate decided on ([`gate_runs`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Gated {
    /// The GPU key whose history holds the run.
    pub gpu_key: String,
    /// The run (one physical GPU's).
    pub run: RunMeta,
    /// The gate's decision for it.
    pub decision: Decision,
    /// With `--reference gpu`, each of its trials judged against the same GPU's own runs
    /// ([`reference::judge`]), in the run's order; empty with the baseline reference.
    pub trials: Vec<reference::TrialJudged>,
}

impl Outcome {
    /// Its name: `regressed`, `invalid`, `new_gpu`, `pass` (the text prints `REGRESSED`, `INVALID`,
    /// `NEW GPU`, `pass`).
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Regressed => "regressed",
            Outcome::Invalid => "invalid",
            Outcome::NewGpu => "new_gpu",
            Outcome::Pass => "pass",
        }
    }
}

/// The most severe outcome of `gated` ([`Outcome::Pass`] for none).
pub fn worst(gated: &[Gated]) -> Outcome {
    gated.iter().map(|g| g.decision.outcome).min().unwrap_or(Outcome::Pass)
}

/// `kernelgate history gate`: for the latest run of each GPU key (or of `gpu`), or the run(s)
/// `run_id` (one per physical GPU that ran it), [`decide`] on its verdicts and on the change points
/// of each trial's time on its GPU ([`gate_runs`]). Returns the text ([`format_gate`]) and the most
/// severe outcome. `baselines` as [`gate_runs`] takes it.
///
/// # Errors
/// Those of [`gate_runs`].
pub fn gate(
    dir: &Path,
    gpu: Option<&str>,
    run_id: Option<&str>,
    host_bound: HostBound<'_>,
    baselines: &Path,
) -> Result<(String, Outcome)> {
    let gated = gate_runs(dir, gpu, run_id, host_bound, Reference::Baseline, baselines)?;
    Ok((format_gate(&gated), worst(&gated)))
}

/// The text of [`gate`] (pure): per run `<key> <run id> <GPU> <commit>: REGRESSED|INVALID|pass`,
/// then its reasons, indented.
pub fn format_gate(gated: &[Gated]) -> String {
    let mut out = String::new();
    for g in gated {
        let m = &g.run;
        let what = match g.decision.outcome {
            Outcome::Regressed => "REGRESSED",
            Outcome::Invalid => "INVALID",
            Outcome::NewGpu => "NEW GPU",
            Outcome::Pass => "pass",
        };
        out.push_str(&format!("{} {} {} {}: {what}\n", g.gpu_key, m.run_id, gpu_short(&m.gpu_uuid), short(&m.commit)));
        for r in &g.decision.reasons {
            out.push_str(&format!("  {}\n", r.text));
        }
    }
    out
}

/// What the nightly gate judges a run's trials against (`kernelgate history gate --reference`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reference {
    /// The run's own verdicts, which the suite gave against the committed baseline: for a runner
    /// that blessed that baseline (docs/ci.md, "A kept runner").
    #[default]
    Baseline,
    /// Each trial against the same physical GPU's own earlier runs ([`super::reference`]): for a
    /// pool, where the baseline was blessed on another machine.
    Gpu,
}

/// How many of the latest runs [`last_pass`] judges before it gives up: 50.
const LAST_PASS_SEARCH: usize = 50;

/// The runs [`gate`] decides on, with their decisions, in key order: for the latest run of each
/// GPU key (or of `gpu`), or the run(s) `run_id`, judged against `reference`. Never empty.
/// `baselines` is the project's baselines folder as messages show it, which the fix names when
/// there is no history or a store is damaged ([`crate::history::import_command`]).
///
/// # Errors
/// [`Error::History`] when there is no store, `run_id` is in no store (or is a same-run A/B run,
/// which the suite's exit code gated), or a store cannot be read.
pub fn gate_runs(
    dir: &Path,
    gpu: Option<&str>,
    run_id: Option<&str>,
    host_bound: HostBound<'_>,
    reference: Reference,
    baselines: &Path,
) -> Result<Vec<Gated>> {
    let mut gated = Vec::new();
    for key in keys(dir, gpu, baselines)? {
        let store = HistoryStore::open_read(dir, &key, baselines)?;
        let all = store.all_series()?;
        // Run ids are UTC start times: the latest sorts last.
        let id = match run_id {
            Some(id) => id.to_string(),
            None => match all.runs.iter().map(|m| &m.run_id).max() {
                Some(id) => id.clone(),
                None => continue,
            },
        };
        let found = all_change_points(&all, Some(TIME_STATISTIC), &options(), 2);
        let changes: Vec<(String, RunMeta, ChangePoint)> =
            found.iter().map(|f| (all.series[f.series].trial.clone(), all.runs[f.run].clone(), f.change)).collect();
        for (index, m) in all.runs.iter().enumerate().filter(|(_, m)| m.run_id == id) {
            let Some(run) = store.run(&m.run_id, &m.gpu_uuid)? else { continue };
            let (decision, trials) = match reference {
                Reference::Baseline => (decide(&run, &changes, host_bound), Vec::new()),
                Reference::Gpu => {
                    let judged = judge_in_store(&store, &all.runs, index, &run, &mut Loaded::new())?;
                    let last = if judged.is_new_gpu() { last_pass(&store, &all.runs, m)? } else { None };
                    let decision = reference::decide_against_gpu(&run, &judged, &changes, host_bound, last.as_deref());
                    (decision, judged.trials)
                }
            };
            gated.push(Gated { gpu_key: key.clone(), run: m.clone(), decision, trials });
        }
    }
    if gated.is_empty() {
        let paired = match run_id {
            Some(id) => {
                let mut found = None;
                for key in keys(dir, gpu, baselines)? {
                    let runs = HistoryStore::open_read(dir, &key, baselines)?.runs(None)?;
                    found = found.or(runs.into_iter().find(|r| r.meta.run_id == id && !r.meta.ab_revision.is_empty()));
                }
                found
            }
            None => None,
        };
        return Err(Error::History {
            path: dir.to_path_buf(),
            line: None,
            message: match (run_id, paired) {
                (Some(id), Some(ab)) => format!(
                    "run {id:?} is a same-run A/B run (against {}): its verdicts are the pairs', and the suite's exit \
                     code gated it; `kernelgate history gate` gates a commit's own runs",
                    short(&ab.meta.ab_revision)
                ),
                (Some(id), None) => {
                    format!("no run {id:?} in {}; `kernelgate history runs` lists them", gpu.unwrap_or("any history"))
                }
                (None, _) => "no run in the history; nothing to gate".into(),
            },
        });
    }
    Ok(gated)
}

/// Runs read from one store, by their index in its nominal runs ([`AllSeries::runs`]): each read
/// once however many judgements use it (the runs before a gated run overlap those before another).
type Loaded = std::collections::HashMap<usize, Run>;

/// `run` (at `index` of `runs`, the store's nominal runs in order) judged against its GPU's earlier
/// runs in `store`, with the spreads of every GPU's ([`reference::judge`], the default
/// [`crate::gate::Policy`], as `kernelgate baseline calibrate` uses); the runs read are kept in
/// `loaded`.
fn judge_in_store(
    store: &HistoryStore,
    runs: &[RunMeta],
    index: usize,
    run: &Run,
    loaded: &mut Loaded,
) -> Result<reference::GpuJudged> {
    let indices = reference::pool_history(runs, index);
    for &i in &indices {
        if !loaded.contains_key(&i)
            && let Some(r) = store.run(&runs[i].run_id, &runs[i].gpu_uuid)?
        {
            loaded.insert(i, r);
        }
    }
    let pool: Vec<&Run> = indices.iter().filter_map(|i| loaded.get(i)).collect();
    let earlier: Vec<&Run> = pool.iter().copied().filter(|r| r.meta.gpu_uuid == run.meta.gpu_uuid).collect();
    Ok(reference::judge(run, &earlier, &pool, &crate::gate::Policy::default()))
}

/// The latest commit other than `before`'s that the gate passed, among the last `LAST_PASS_SEARCH`
/// runs of `store` stored before the run `before` (in the store's order: commit time, then run id): a same-run A/B run with no trial `regressed`, or a nominal run on a GPU with a
/// history of its own that passes against it ([`reference::decide_against_gpu`], without change
/// points). `runs` are the store's nominal runs in order. `None` when none did.
///
/// # Errors
/// [`Error::History`] if the store cannot be read.
pub fn last_pass(store: &HistoryStore, runs: &[RunMeta], before: &RunMeta) -> Result<Option<String>> {
    let every = store.runs(None)?;
    let commit = &before.commit;
    let end = every.iter().position(|r| r.meta == *before).unwrap_or(every.len());
    let mut loaded = Loaded::new();
    let candidates = every[..end].iter().rev().filter(|r| r.meta.commit != *commit && r.meta.commit != "unknown");
    for summary in candidates.take(LAST_PASS_SEARCH) {
        let m = &summary.meta;
        let Some(run) = store.run(&m.run_id, &m.gpu_uuid)? else { continue };
        let passed = if !m.ab_revision.is_empty() {
            !run.values.is_empty() && run.values.iter().all(|v| v.verdict != "regressed")
        } else {
            let Some(index) = runs.iter().position(|r| r == m) else { continue };
            let judged = judge_in_store(store, runs, index, &run, &mut loaded)?;
            let none = |_: &str| None;
            !judged.is_new_gpu()
                && reference::decide_against_gpu(&run, &judged, &[], &none, None).outcome == Outcome::Pass
        };
        if passed {
            return Ok(Some(m.commit.clone()));
        }
    }
    Ok(None)
}
