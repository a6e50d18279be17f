//! The nightly gate on a pool of GPUs: each trial of a run judged against the same physical GPU's
//! own earlier runs, not against a baseline blessed on another machine (pure).
//!
//! Why a reference per physical GPU: two H200s time the same module differently, and not by one
//! factor. Over 23 foreign H200s and 55 of their runs against the committed baseline
//! (`scripts/class-factor.py`, baselines/nvidia-h200-sm90/BENCHMARK.md, "One reference per
//! physical GPU"), 857 of 4196 trial results were more than 1 % off; one factor per GPU left 824,
//! one factor per GPU and bound class 645, while each GPU against its own first run left 69 of
//! 2437 (the offsets repeat on one GPU: 0.05 % apart at the median between its runs).
//!
//! The rule, per trial of the run on GPU `u`:
//! - **Reference**: the earlier nominal runs on `u` (not A/B, work scale 1, the trial's verdict not
//!   `invalid`) of the module the trial ran from in the latest of them, at most [`REFERENCE_RUNS`]
//!   and at least [`MIN_REFERENCE_RUNS`]; the reference value is the median of their medians. When
//!   the run's module differs (the code changed at this commit) the change is judged against the
//!   old module's runs.
//! - **Floor**: how far the trial's median moves between runs of one module on one GPU, pooled over
//!   every GPU of the key ([`pooled_spread`]: the offset is the machine's, the spread the trial's),
//!   as the half-width of a prediction interval for one new run ([`prediction_floor`]), never below
//!   the effect floor (1 %) nor below the trial's calibrated minimum effect, when the run carries one
//!   (its `min_effect` against the baseline: [`calibrated_floor`]).
//! - **Verdict**: `regressed` when the median is above the reference by more than the floor and its
//!   95 % interval lies above the reference; `improved` the other way; `ambiguous` when it is past
//!   the floor but its interval holds the reference; `unchanged` otherwise; the run's own `invalid`
//!   stays `invalid`; a trial without a reference or a spread is `new` and does not gate.
//!
//! A GPU with no trial to gate is new to the pool: the gate says so and names the commit to
//! time it against in a same-run A/B run ([`super::last_pass`]), where the machine cancels out as it
//! does for pull requests.

use super::{Decision, Finding, HostBound, Outcome, Reason, gpu_short, short};
use crate::gate::policy::Policy;
use crate::history::{Run, RunMeta};
use crate::model::TIME_STATISTIC;
use statrs::distribution::{ContinuousCDF, StudentsT};
use std::collections::BTreeMap;

/// The most runs of one module a reference holds: the last 10, as many as
/// `kernelgate baseline calibrate` asks of a kept runner (docs/ci.md, "A kept runner").
pub const REFERENCE_RUNS: usize = 10;

/// How many of a GPU's latest runs before the judged one its reference is looked for in: 30.
pub const REFERENCE_WINDOW: usize = 30;

/// How many of the key's latest runs (every GPU) a trial's spread is pooled from: 300, about ten
/// runs of each GPU of a pool of thirty.
pub const POOL_WINDOW: usize = 300;

/// Runs of one module a trial's reference on its GPU needs before the trial gates there: 3, so
/// that the reference (their medians' median) does not follow one outlying run, and the floor's
/// `sqrt(1 + 1/k)` is at most sqrt(4/3). Replayed on the archived whole-suite runs of the pool's
/// H200s with the rule of this module (baselines/nvidia-h200-sm90/BENCHMARK.md, "Three runs of its
/// own before a GPU gates"; `benchmark/session29/pool-replay.sh`), a reference of one run failed 9
/// of 52 gated runs of unchanged code (`transpose/naive` and `layout/traverse_colwise` one run
/// apart by 1 to 5 % on some GPUs), two runs 2 of 30, three runs none of 20. Until then the GPU is
/// new to the pool and the nightly gates it by a same-run A/B run ([`super::last_pass`]).
pub const MIN_REFERENCE_RUNS: usize = 3;

/// Degrees of freedom a trial's pooled spread needs before it gates: 2. With fewer a standard
/// deviation is no estimate at all; Student's t ([`prediction_floor`]) widens the floor while they
/// are few.
pub const MIN_DEGREES: usize = 2;

/// What a trial's verdict against its GPU's history is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judgement {
    /// Past the floor upwards, the run's interval above the reference.
    Regressed,
    /// Past the floor downwards, the run's interval below the reference.
    Improved,
    /// Past the floor, but the run's interval holds the reference.
    Ambiguous,
    /// Within the floor.
    Unchanged,
    /// The run itself said `invalid` (conditions, physics, noise).
    Invalid,
    /// No calibrated reference on this GPU yet.
    New,
}

impl Judgement {
    /// Its name, as the suite's verdicts are named; `new` for [`Judgement::New`].
    pub fn as_str(self) -> &'static str {
        match self {
            Judgement::Regressed => "regressed",
            Judgement::Improved => "improved",
            Judgement::Ambiguous => "ambiguous",
            Judgement::Unchanged => "unchanged",
            Judgement::Invalid => "invalid",
            Judgement::New => "new",
        }
    }
}

/// One trial judged against its GPU's history.
#[derive(Debug, Clone, PartialEq)]
pub struct TrialJudged {
    /// The trial.
    pub trial: String,
    /// The verdict.
    pub judgement: Judgement,
    /// The run's median, s.
    pub median: f64,
    /// The reference: the median of the reference runs' medians, s; `None` without one.
    pub reference: Option<f64>,
    /// How many runs the reference holds.
    pub reference_runs: usize,
    /// `median / reference - 1`, a fraction.
    pub delta: Option<f64>,
    /// The floor, a fraction; `None` when not calibrated.
    pub floor: Option<f64>,
    /// The trial's calibrated minimum effect the run carries ([`calibrated_floor`]), a fraction;
    /// the floor is never below it. `None` when the run was not compared with a baseline.
    pub calibrated: Option<f64>,
    /// The trial's module changed since the reference runs (`None`: the run or the reference
    /// runs did not record modules).
    pub module_changed: Option<bool>,
}

/// A run judged against its GPU's own history ([`judge`]).
#[derive(Debug, Clone, PartialEq)]
pub struct GpuJudged {
    /// The run's GPU.
    pub gpu_uuid: String,
    /// How many earlier nominal runs of the GPU were read.
    pub earlier_runs: usize,
    /// Every trial with a time median, by name.
    pub trials: Vec<TrialJudged>,
    /// The environment of the run differs from that of its reference runs: `driver 580.95 -> 590.10`
    /// and the like, joined by `, `; `None` when the same.
    pub environment: Option<String>,
}

impl GpuJudged {
    /// No trial has a calibrated reference: the GPU is new to the pool.
    pub fn is_new_gpu(&self) -> bool {
        self.trials.iter().all(|t| t.floor.is_none())
    }
}

/// One trial's time in one run.
#[derive(Debug, Clone, Copy)]
struct Timed<'a> {
    /// The median, s.
    median: f64,
    /// Its 95 % interval, s, when known.
    ci: (Option<f64>, Option<f64>),
    /// The run's verdict for the trial.
    verdict: &'a str,
    /// The trial's calibrated minimum effect in the run, a fraction ([`calibrated_floor`]).
    calibrated: Option<f64>,
}

/// The trials' times of `run`, by trial.
fn medians(run: &Run) -> BTreeMap<&str, Timed<'_>> {
    let mut out = BTreeMap::new();
    for v in run.values.iter().filter(|v| v.metric == TIME_STATISTIC && v.unit == "s" && v.value.is_finite()) {
        out.entry(v.trial.as_str()).or_insert(Timed {
            median: v.value,
            ci: (v.ci_low, v.ci_high),
            verdict: &v.verdict,
            calibrated: None,
        });
    }
    for v in run.values.iter().filter(|v| v.metric == "min_effect" && v.unit == "%") {
        if let Some(timed) = out.get_mut(v.trial.as_str()) {
            timed.calibrated = calibrated_floor(v.value);
        }
    }
    out
}

/// The floor a trial's calibration sets (pure): its `min_effect` statistic in the run CSV (`%`,
/// [`crate::record`]), as a fraction; `None` when not a finite positive number.
///
/// Why a floor of the history gate: `min_effect` is the smallest change the run's baseline
/// comparison would call one, the trial's run-to-run spread of the median measured over the
/// calibration's runs on a kept runner ([`crate::gate::policy::Policy::run_to_run_floor`],
/// `kernelgate baseline calibrate`, ten runs), and a trial noisier than the pool's first runs
/// showed is what it catches. On the second H200 of the pool's nightly, night 4 called
/// `launch/graph/4096x8` regressed on unchanged code, +1.80 % against a floor of 1.23 % from the
/// pool's few runs, while its calibrated `min_effect` is 2.52 % (baselines/nvidia-h200-sm90/
/// BENCHMARK.md, "A second H200 in the pool's nightly"). With this floor the history gate is never
/// more eager than the baseline gate the run was judged by; a trial whose baseline was not
/// calibrated carries the wider floor of one run's spread ([`crate::gate::policy::Policy::min_effect`]).
pub fn calibrated_floor(min_effect_pct: f64) -> Option<f64> {
    (min_effect_pct.is_finite() && min_effect_pct > 0.0).then_some(min_effect_pct / 100.0)
}

/// Judges `run` against `earlier`, the same GPU's earlier nominal runs in chronological order, with
/// each trial's run-to-run spread from `pool`, the earlier nominal runs of every GPU of the key
/// (pure; the caller picks them: [`pool_history`], and of those the GPU's). `policy` gives the effect
/// floor and the family-wise alpha.
pub fn judge(run: &Run, earlier: &[&Run], pool: &[&Run], policy: &Policy) -> GpuJudged {
    let window = &earlier[earlier.len().saturating_sub(REFERENCE_WINDOW)..];
    let window_medians: Vec<_> = window.iter().map(|r| medians(r)).collect();
    let pool_medians: Vec<_> = pool.iter().map(|r| medians(r)).collect();
    let now = medians(run);
    // Per trial: the spread and the reference, before the floor (which needs the count).
    struct Partial {
        timed: Timed<'static>,
        spread: Option<Spread>,
        reference: Vec<f64>,
        module_changed: Option<bool>,
    }
    let mut partial: BTreeMap<&str, Partial> = BTreeMap::new();
    for (trial, timed) in &now {
        // (module, median) of each earlier run on this GPU that timed the trial validly.
        let series: Vec<(Option<String>, f64)> = window
            .iter()
            .zip(&window_medians)
            .filter_map(|(r, m)| {
                let then = m.get(trial)?;
                (then.verdict != "invalid").then(|| (r.trial_module(trial), then.median))
            })
            .collect();
        // The reference: the latest module's runs (runs without a module record count as one module).
        let latest = series.last().map(|(module, _)| module.clone());
        let mut reference: Vec<f64> = match &latest {
            Some(latest) => series.iter().filter(|(m, _)| m == latest).map(|(_, v)| *v).collect(),
            None => Vec::new(),
        };
        reference.drain(..reference.len().saturating_sub(REFERENCE_RUNS));
        let module_changed = match (&latest, run.trial_module(trial)) {
            (Some(Some(then)), Some(now)) => Some(*then != now),
            _ => None,
        };
        // The spread: every GPU's runs of the trial, grouped by (GPU, module).
        let groups: Vec<(String, f64)> = pool
            .iter()
            .zip(&pool_medians)
            .filter_map(|(r, m)| {
                let then = m.get(trial)?;
                let module = r.trial_module(trial).unwrap_or_default();
                (then.verdict != "invalid").then(|| (format!("{} {module}", r.meta.gpu_uuid), then.median))
            })
            .collect();
        let timed = Timed {
            median: timed.median,
            ci: timed.ci,
            verdict: if timed.verdict == "invalid" { "invalid" } else { "" },
            calibrated: timed.calibrated,
        };
        partial.insert(trial, Partial { timed, spread: pooled_spread(&groups), reference, module_changed });
    }
    let gating = partial.values().filter(|p| p.spread.is_some() && p.reference.len() >= MIN_REFERENCE_RUNS).count();
    let trials = partial
        .into_iter()
        .map(|(trial, p)| {
            let usable = p.reference.len() >= MIN_REFERENCE_RUNS;
            let reference = usable.then(|| crate::stats::median(&p.reference));
            let floor = p.spread.filter(|_| usable).map(|s| {
                let predicted = prediction_floor(policy, s, p.reference.len(), gating);
                p.timed.calibrated.map_or(predicted, |c| predicted.max(c))
            });
            let delta = reference.map(|r| p.timed.median / r - 1.0);
            let judgement = match (floor, delta, reference) {
                _ if p.timed.verdict == "invalid" => Judgement::Invalid,
                (Some(floor), Some(delta), Some(r)) => {
                    if delta.abs() <= floor {
                        Judgement::Unchanged
                    } else if delta > 0.0 && p.timed.ci.0.is_none_or(|low| low > r) {
                        Judgement::Regressed
                    } else if delta < 0.0 && p.timed.ci.1.is_none_or(|high| high < r) {
                        Judgement::Improved
                    } else {
                        Judgement::Ambiguous
                    }
                }
                _ => Judgement::New,
            };
            TrialJudged {
                trial: trial.to_string(),
                judgement,
                median: p.timed.median,
                reference,
                reference_runs: p.reference.len(),
                delta,
                floor,
                calibrated: p.timed.calibrated,
                module_changed: p.module_changed,
            }
        })
        .collect();
    GpuJudged {
        gpu_uuid: run.meta.gpu_uuid.clone(),
        earlier_runs: earlier.len(),
        trials,
        environment: window.last().and_then(|last| environment_change(&last.meta, &run.meta)),
    }
}

/// A trial's run-to-run spread: the relative standard deviation of its median between runs of
/// one module on one GPU, pooled over GPUs and modules, with its degrees of freedom.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// The pooled relative standard deviation, a fraction.
    pub rsd: f64,
    /// Its degrees of freedom: runs less groups.
    pub degrees: usize,
}

/// The pooled relative standard deviation of `values` within each group (pure):
/// `sqrt(sum of (x / mean_group - 1)^2 / sum of (n_group - 1))`, groups being (GPU, module); `None`
/// below [`MIN_DEGREES`] degrees of freedom.
pub fn pooled_spread(values: &[(String, f64)]) -> Option<Spread> {
    let mut groups: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for (group, value) in values {
        groups.entry(group).or_default().push(*value);
    }
    let (mut squares, mut degrees) = (0.0, 0usize);
    for values in groups.values().filter(|v| v.len() >= 2) {
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        squares += values.iter().map(|v| (v / mean - 1.0).powi(2)).sum::<f64>();
        degrees += values.len() - 1;
    }
    (degrees >= MIN_DEGREES).then(|| Spread { rsd: (squares / degrees as f64).sqrt(), degrees })
}

/// The floor of a trial whose reference is the mean of `k` runs (pure):
/// `max(effect floor, t * sqrt(1 + 1/k) * rsd)`, t Student's t quantile of `1 - alpha / tests` with
/// the spread's degrees of freedom: the half-width of a one-sided prediction interval for one new
/// run's median (a standard prediction interval for a new observation, e.g. NIST/SEMATECH
/// e-Handbook of Statistical Methods, 7.1.6; Bonferroni over the `tests` trials judged). With few
/// degrees of freedom t is large and the floor wide; it narrows as the pool's runs accumulate.
pub fn prediction_floor(policy: &Policy, spread: Spread, k: usize, tests: usize) -> f64 {
    let tail = (policy.alpha / tests.max(1) as f64).clamp(f64::MIN_POSITIVE, 0.5);
    let t = StudentsT::new(0.0, 1.0, spread.degrees as f64).map_or(f64::NAN, |d| d.inverse_cdf(1.0 - tail));
    let scaled = t * (1.0 + 1.0 / k.max(1) as f64).sqrt() * spread.rsd;
    if scaled.is_nan() { policy.effect_floor } else { policy.effect_floor.max(scaled) }
}

/// What of the environment differs between a reference run `then` and the run `now` (pure): the
/// driver, the driver's CUDA, NVRTC, as `driver 580.95 -> 590.10`, joined by `, `.
pub fn environment_change(then: &RunMeta, now: &RunMeta) -> Option<String> {
    let parts: Vec<String> =
        [("driver", &then.driver, &now.driver), ("CUDA", &then.cuda, &now.cuda), ("NVRTC", &then.nvrtc, &now.nvrtc)]
            .into_iter()
            .filter(|(_, a, b)| a != b && !a.is_empty() && !b.is_empty())
            .map(|(name, a, b)| format!("{name} {a} -> {b}"))
            .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The gate's decision for `run` judged against its GPU's history (pure), as [`super::decide`]
/// decides against the baseline: `regressed` trials and change points that are increases at the
/// run's commit ([`super::decide`]'s `changes`) make [`Outcome::Regressed`], `invalid` trials
/// [`Outcome::Invalid`], a GPU with no calibrated trial [`Outcome::NewGpu`]; host-bound trials
/// (`host_bound`) are listed as not gating. The first reason names the reference; a changed
/// environment comes before any finding.
pub fn decide_against_gpu(
    run: &Run,
    judged: &GpuJudged,
    changes: &[(String, RunMeta, crate::history::changepoint::ChangePoint)],
    host_bound: HostBound<'_>,
    last_pass: Option<&str>,
) -> Decision {
    let gpu = gpu_short(&judged.gpu_uuid);
    let mut reasons = Vec::new();
    let note =
        |trial: &str, text: String| Reason { finding: Finding::Note, trial: trial.to_string(), not_gating: None, text };
    if let Some(env) = &judged.environment {
        reasons.push(note("", format!(
            "environment: {env} since the reference runs on {gpu}; a change of time may be the environment's, not the code's"
        )));
    }
    if judged.is_new_gpu() {
        let with_reference = judged.trials.iter().filter(|t| t.reference.is_some()).count();
        let why = if with_reference == 0 {
            format!(
                "{gpu} is new to the pool: none of its trials has {MIN_REFERENCE_RUNS} earlier runs of its module here \
                 ({} earlier run{} here)",
                judged.earlier_runs,
                if judged.earlier_runs == 1 { "" } else { "s" }
            )
        } else {
            format!(
                "{gpu} has earlier runs here, but the pool's runs give none of its trials a run-to-run spread yet \
                 (a spread takes {MIN_DEGREES} degrees of freedom: three runs of one module on one GPU, or two on \
                 each of two GPUs)"
            )
        };
        let then = match last_pass {
            Some(commit) => format!(
                "gate this commit by a same-run A/B run against {}, the last commit the gate passed \
                 (KERNELGATE_AB={commit})",
                short(commit)
            ),
            None => "no earlier commit has passed the gate to time it against, so nothing is judged this time; the \
                     run stays in the history as part of this GPU's reference"
                .into(),
        };
        reasons.push(note("", format!("reference: none yet: {why}: {then}")));
        return Decision { outcome: Outcome::NewGpu, reasons, ab_against: last_pass.map(str::to_string) };
    }
    let gated: Vec<&TrialJudged> = judged.trials.iter().filter(|t| t.floor.is_some()).collect();
    let ungated: Vec<&str> = judged.trials.iter().filter(|t| t.floor.is_none()).map(|t| t.trial.as_str()).collect();
    let (fewest, most) =
        gated.iter().fold((usize::MAX, 0), |(lo, hi), t| (lo.min(t.reference_runs), hi.max(t.reference_runs)));
    let runs = if fewest == most { most.to_string() } else { format!("{fewest}-{most}") };
    reasons.push(note(
        "",
        format!(
            "reference: {gpu}'s own history: {} trial{} against {runs} earlier run{} of their module on this GPU{}",
            gated.len(),
            if gated.len() == 1 { "" } else { "s" },
            if most == 1 { "" } else { "s" },
            match ungated[..] {
                [] => String::new(),
                ref new => format!(
                    "; {} not gating (fewer than {MIN_REFERENCE_RUNS} earlier runs of its module here, or no spread in \
                     the pool yet): {}{}",
                    new.len(),
                    new[..new.len().min(5)].join(", "),
                    if new.len() > 5 { ", ..." } else { "" }
                ),
            }
        ),
    ));
    let mut found = super::Findings::default();
    for t in &judged.trials {
        let line = describe(t);
        match t.judgement {
            Judgement::Regressed => found.add(Finding::Regressed, &t.trial, line, host_bound(&t.trial)),
            Judgement::Invalid => found.add(Finding::Invalid, &t.trial, line, host_bound(&t.trial)),
            Judgement::Improved | Judgement::Ambiguous => found.add(Finding::Note, &t.trial, line, None),
            Judgement::Unchanged | Judgement::New => {}
        }
    }
    found.change_points(run, changes, host_bound);
    found.decision(reasons)
}

/// One trial's line: `regressed: fam/k/1 +3.10 % against 7 runs of its module on this GPU (floor
/// 1.20 %; module changed)`; a floor set by the trial's calibration says so: `(floor 2.52 %, its
/// calibrated min_effect)`.
fn describe(t: &TrialJudged) -> String {
    let pct = |f: f64| format!("{:+.2} %", f * 100.0);
    let mut line = format!("{}: {}", t.judgement.as_str(), t.trial);
    if let (Some(delta), Some(floor)) = (t.delta, t.floor) {
        line.push_str(&format!(
            " {} against {} run{} on this GPU (floor {:.2} %{}{})",
            pct(delta),
            t.reference_runs,
            if t.reference_runs == 1 { "" } else { "s" },
            floor * 100.0,
            if t.calibrated == Some(floor) { ", its calibrated min_effect" } else { "" },
            if t.module_changed == Some(true) { "; its module changed" } else { "" }
        ));
    }
    line
}

/// The earlier nominal runs of every GPU before the run at `index` of `runs`, at most
/// [`POOL_WINDOW`] of the latest, as indices (pure): work scale 1, a known GPU UUID.
pub fn pool_history(runs: &[RunMeta], index: usize) -> Vec<usize> {
    let mut found: Vec<usize> =
        (0..index).filter(|&i| runs[i].work_scale == 1.0 && runs[i].gpu_uuid != "unknown").collect();
    found.drain(..found.len().saturating_sub(POOL_WINDOW));
    found
}
