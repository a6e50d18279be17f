//! `kernelgate plan`: the shards of a pool's jobs, balanced by each trial's time. Pure: the trial
//! list and the times in, a [`Plan`] out, and the job matrix a CI engine reads made from it.
//!
//! A plan assigns every trial the suite binary lists to one of N shards, per GPU kind, by the
//! longest-processing-time rule (Graham, "Bounds on multiprocessing timing anomalies", SIAM J.
//! Appl. Math. 17(2), 1969: the trials by time, longest first, each to the shard with the least time
//! so far; within 4/3 of the best split). The times are each trial's sampling wall time in the
//! history of that GPU kind (the median of its last [`RECENT_RUNS`] runs); a trial the history has
//! not seen counts as the mean of those it has, and with no times at all the rule gives shards of
//! equal count.
//!
//! The assignment travels in the partition value itself ([`Assignment`]: `plan:K/N:<list>:<code>.<check>`),
//! so every job of the matrix runs its shard of the same split whatever history its own runner
//! keeps, and a job whose binary lists other trials than the plan was made for stops, saying so,
//! instead of running a wrong shard.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The runs of a trial whose sampling wall times make its weight: the most recent five, so that
/// one slow run (a contended runner) moves the median little and a lasting change enters it soon.
pub const RECENT_RUNS: usize = 5;

/// The most shards a plan makes: one base-36 digit per trial in the partition value.
pub const MAX_SHARDS: usize = 36;

/// The schema name of the plan file ([`Plan`], `kernelgate plan --out`).
pub const SCHEMA: &str = "kernelgate-plan";

/// The version of the plan file's layout.
pub const VERSION: u32 = 1;

/// The first 8 hexadecimal digits of the SHA-256 of the trial names, each followed by a newline:
/// what a plan and a suite binary compare to know they list the same trials.
pub fn list_sha(names: &[impl AsRef<str>]) -> String {
    use sha2::Digest as _;
    let mut h = sha2::Sha256::new();
    for name in names {
        h.update(name.as_ref().as_bytes());
        h.update(b"\n");
    }
    h.finalize().iter().take(4).map(|b| format!("{b:02x}")).collect()
}

/// The check of a plan's code (pure): the first 2 bytes of its SHA-256, as 4 hexadecimal digits. A
/// changed digit passes unnoticed with probability 1 in 65,536.
pub fn code_check(code: &str) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(code.as_bytes()).iter().take(2).map(|b| format!("{b:02x}")).collect()
}

/// The longest-processing-time assignment of `weights` (seconds, one per trial in listed order) to
/// `shards` shards: the shard (0-based) of each trial. Ties go to the earlier trial and the lower
/// shard, so the same weights always give the same assignment.
pub fn balance(weights: &[f64], shards: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| weights[b].total_cmp(&weights[a]).then(a.cmp(&b)));
    let mut load = vec![0.0_f64; shards.max(1)];
    let mut shard = vec![0; weights.len()];
    for i in order {
        let least = (0..load.len()).min_by(|&a, &b| load[a].total_cmp(&load[b]).then(a.cmp(&b))).unwrap_or(0);
        load[least] += weights[i];
        shard[i] = least;
    }
    shard
}

/// Which shard of a plan each listed trial belongs to, as the partition value carries it:
/// `plan:K/N:<list sha>:<code>.<check>`, the code one base-36 digit (`0`–`9`, `a`–`z`) per listed
/// trial, the trial's shard minus one, and the check [`code_check`] of the code, so that a digit
/// edited or lost in copying is refused rather than moving a trial to another shard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    /// This job's shard, from 1 to `count`.
    pub index: usize,
    /// How many shards.
    pub count: usize,
    /// [`list_sha`] of the trials the plan was made for.
    pub list_sha: String,
    /// The shard (0-based) of each listed trial.
    pub shards: Vec<usize>,
}

impl Assignment {
    /// The partition value: `plan:K/N:<list sha>:<code>.<check>`.
    pub fn value(&self) -> String {
        let code: String =
            self.shards.iter().map(|&s| char::from_digit(s as u32, 36).expect("a shard below 36")).collect();
        format!("plan:{}/{}:{}:{code}.{}", self.index, self.count, self.list_sha, code_check(&code))
    }

    /// Parses what follows `plan:` in a partition value (`K/N:<list sha>:<code>.<check>`).
    ///
    /// # Errors
    /// A sentence saying what is wrong, for the caller's flag error.
    pub(crate) fn parse(rest: &str) -> std::result::Result<Assignment, String> {
        let mut parts = rest.splitn(3, ':');
        let (kn, sha, code) = (parts.next().unwrap_or(""), parts.next(), parts.next());
        let (Some(sha), Some(code)) = (sha, code) else {
            return Err("a plan partition is plan:K/N:<list>:<code>.<check>, as `kernelgate plan` prints it".into());
        };
        let Some((code, check)) = code.rsplit_once('.') else {
            return Err("the value has no check of its code (`.` and 4 hexadecimal digits at its end): it was cut, \
                        or made by an older kernelgate plan; paste the whole value, or make the plan again"
                .into());
        };
        if !check.eq_ignore_ascii_case(&code_check(code)) {
            return Err(format!(
                "the code does not match its check `{check}`: the value was cut or edited; paste the whole value \
                 `kernelgate plan` printed"
            ));
        }
        let (index, count) = kn
            .split_once('/')
            .and_then(|(k, n)| Some((k.parse::<usize>().ok()?, n.parse::<usize>().ok()?)))
            .filter(|&(k, n)| k >= 1 && k <= n && n <= MAX_SHARDS)
            .ok_or_else(|| format!("`{kn}` is not a shard K/N with K from 1 to N and N at most {MAX_SHARDS}"))?;
        if sha.len() != 8 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("`{sha}` is not the 8 hexadecimal digits of a trial list"));
        }
        let shards = code
            .chars()
            .map(|c| c.to_digit(36).map(|d| d as usize).filter(|&d| d < count))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| format!("the code holds a character that is not a shard of {count} (0-9, a-z)"))?;
        Ok(Assignment { index, count, list_sha: sha.to_ascii_lowercase(), shards })
    }

    /// Checks that the plan was made for the trials `listed` (every trial the binary lists, in its
    /// order).
    ///
    /// # Errors
    /// A sentence naming both lists and the fix, when they differ.
    pub(crate) fn fits(&self, listed: &[impl AsRef<str>]) -> std::result::Result<(), String> {
        let sha = list_sha(listed);
        if sha == self.list_sha && listed.len() == self.shards.len() {
            return Ok(());
        }
        if sha == self.list_sha {
            return Err(format!(
                "the value assigns {} trials, but the plan's list ({}) has {}: the value was cut or edited; paste \
                 the whole value `kernelgate plan` printed",
                self.shards.len(),
                self.list_sha,
                listed.len()
            ));
        }
        Err(format!(
            "the plan was made for another list of trials ({} trials, list {}); this binary lists {} (list {sha}): \
             make the plan again from this commit (`kernelgate plan`, after a `--list` of this binary)",
            self.shards.len(),
            self.list_sha,
            listed.len()
        ))
    }

    /// Whether the listed trial at `position` (0-based, in the binary's listed order) is this
    /// job's.
    pub fn keeps(&self, position: usize) -> bool {
        self.shards.get(position).is_some_and(|&s| s + 1 == self.index)
    }
}

/// One job of a plan: a GPU kind's shard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shard {
    /// The GPU key the job runs on (`nvidia-h200-sm90`).
    pub gpu: String,
    /// This shard, from 1 to `shards`.
    pub shard: usize,
    /// How many shards the GPU kind's trials are split into.
    pub shards: usize,
    /// The suite binary's `--partition` value ([`Assignment::value`]).
    pub partition: String,
    /// The shard's trials, in listed order.
    pub trials: Vec<String>,
    /// The sum of its trials' weights, seconds of sampling; `None` when no time was known.
    pub seconds: Option<f64>,
}

/// A plan ([`plan`]): the file `kernelgate plan --out` writes and `kernelgate merge --plan` reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// [`SCHEMA`].
    pub schema: String,
    /// [`VERSION`].
    pub version: u32,
    /// The commit the jobs' runs are recorded under, as the suite binary that listed the trials
    /// records it (its build's commit; [`crate::case::facts::Facts::commit`]); empty when unknown.
    /// `kernelgate merge` leaves out results of another commit.
    #[serde(default)]
    pub commit: String,
    /// [`list_sha`] of `listed`.
    pub list_sha: String,
    /// Every trial the suite binary lists, in its order.
    pub listed: Vec<String>,
    /// Every job: per GPU kind (in the order given), shards 1 to N.
    pub jobs: Vec<Shard>,
    /// Per GPU kind, where its weights came from (`12 of 120 trials timed in the history`, `no
    /// times: shards of equal count`).
    pub weights: Vec<(String, String)>,
}

/// One GPU kind of a plan: its key, the known times of its trials (seconds, by trial name) and how
/// many shards its jobs split the trials into.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuKind {
    /// The GPU key (`nvidia-h200-sm90`).
    pub key: String,
    /// Seconds per trial, from the history ([`crate::pool::times`]); trials without count as
    /// the mean of those with.
    pub times: HashMap<String, f64>,
    /// Shards, 1 to [`MAX_SHARDS`] and no more than the trials listed.
    pub shards: usize,
}

impl GpuKind {
    /// `key` with no times, in `shards` shards.
    pub fn new(key: impl Into<String>, shards: usize) -> GpuKind {
        GpuKind { key: key.into(), times: HashMap::new(), shards }
    }
}

/// Makes the plan of `listed` (every trial the binary lists, in order) for each GPU kind of `gpus`,
/// in its own number of shards.
///
/// # Errors
/// [`Error::Flag`] (`--shards`, naming the GPU kind) for no shards, more than [`MAX_SHARDS`], or
/// more shards than trials; (`--gpu`) for a GPU kind given twice, whose jobs would run every trial
/// twice under colliding (kind, shard) names.
///
/// # Example
/// ```
/// use kernelgate::pool::plan::{GpuKind, plan};
/// let listed: Vec<String> = (0..6).map(|i| format!("fam/v{i}/1024")).collect();
/// let p = plan(listed, &[GpuKind::new("nvidia-h200-sm90", 3), GpuKind::new("nvidia-b200-sm100", 2)]).unwrap();
/// assert_eq!(p.jobs.len(), 5);
/// assert_eq!((p.jobs[4].gpu.as_str(), p.jobs[4].shard, p.jobs[4].shards), ("nvidia-b200-sm100", 2, 2));
/// ```
pub fn plan(listed: Vec<String>, gpus: &[GpuKind]) -> Result<Plan> {
    for (i, kind) in gpus.iter().enumerate() {
        if gpus[..i].iter().any(|k| k.key == kind.key) {
            return Err(Error::Flag {
                flag: "--gpu",
                value: kind.key.clone(),
                expected: "each GPU kind once, with its shards (KEY=SHARDS): it is given twice".into(),
            });
        }
        let shards = kind.shards;
        if shards == 0 || shards > MAX_SHARDS || shards > listed.len().max(1) {
            return Err(Error::Flag {
                flag: "--shards",
                value: format!("{shards} (GPU kind {})", kind.key),
                expected: format!(
                    "1 to {} (at most {MAX_SHARDS}, and no more than the trials listed)",
                    listed.len().min(MAX_SHARDS)
                ),
            });
        }
    }
    let list_sha = list_sha(&listed);
    let mut jobs = Vec::new();
    let mut sources = Vec::new();
    for GpuKind { key: gpu, times, shards } in gpus {
        let shards = *shards;
        let known: Vec<f64> =
            listed.iter().filter_map(|t| times.get(t).copied()).filter(|s| s.is_finite() && *s >= 0.0).collect();
        let mean = if known.is_empty() { 1.0 } else { known.iter().sum::<f64>() / known.len() as f64 };
        let weights: Vec<f64> = listed
            .iter()
            .map(|t| times.get(t).copied().filter(|s| s.is_finite() && *s >= 0.0).unwrap_or(mean))
            .collect();
        let assigned = balance(&weights, shards);
        sources.push((
            gpu.clone(),
            if known.is_empty() {
                "no times in the history: shards of equal count".to_string()
            } else {
                format!(
                    "{} of {} trials timed in the history (median sampling wall of the last {RECENT_RUNS} runs); the others \
                     count as their mean, {}",
                    known.len(),
                    listed.len(),
                    crate::units::duration(mean)
                )
            },
        ));
        for index in 1..=shards {
            let assignment = Assignment { index, count: shards, list_sha: list_sha.clone(), shards: assigned.clone() };
            let mine: Vec<usize> = (0..listed.len()).filter(|&i| assigned[i] + 1 == index).collect();
            jobs.push(Shard {
                gpu: gpu.clone(),
                shard: index,
                shards,
                partition: assignment.value(),
                trials: mine.iter().map(|&i| listed[i].clone()).collect(),
                seconds: (!known.is_empty()).then(|| mine.iter().map(|&i| weights[i]).sum()),
            });
        }
    }
    Ok(Plan {
        schema: SCHEMA.into(),
        version: VERSION,
        commit: String::new(),
        list_sha,
        listed,
        jobs,
        weights: sources,
    })
}

/// The median of `values`' last [`RECENT_RUNS`] (in the order given: oldest first); `None` when
/// empty.
pub fn recent_median(values: &[f64]) -> Option<f64> {
    let last: Vec<f64> = values.iter().rev().take(RECENT_RUNS).copied().filter(|v| v.is_finite()).collect();
    (!last.is_empty()).then(|| crate::stats::median(&last))
}

/// The job matrix for a CI engine, made from a [`Plan`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatrixFormat {
    /// A GitHub Actions `strategy.matrix` (`fromJSON` of it): `{"include": [{gpu, shard, shards,
    /// partition, trials, seconds}, ...]}` (GitHub's "Expanding or adding matrix configurations").
    Github,
    /// A GitLab CI `parallel:matrix` (`{"parallel": {"matrix": [{GPU, SHARD, SHARDS, PARTITION}, ...]}}`,
    /// every value a string, one entry per job), for a generated child pipeline.
    Gitlab,
    /// A Buildkite pipeline for `buildkite-agent pipeline upload`: one command step per job (keyed
    /// and labelled by GPU kind and shard), on an agent tagged `gpu=<key>`, its output folder kept
    /// as artifacts.
    Buildkite,
}

/// The job matrix of `plan` in `format`; `command` is the suite's command line, to which a
/// Buildkite step adds `--partition <value>`.
pub fn matrix(plan: &Plan, format: MatrixFormat, command: &str) -> serde_json::Value {
    use serde_json::json;
    match format {
        MatrixFormat::Github => json!({
            "include": plan.jobs.iter().map(|j| json!({
                "gpu": j.gpu,
                "shard": j.shard,
                "shards": j.shards,
                "partition": j.partition,
                "trials": j.trials.len(),
                "seconds": j.seconds.map(|s| (s * 10.0).round() / 10.0),
            })).collect::<Vec<_>>()
        }),
        MatrixFormat::Gitlab => json!({
            "parallel": { "matrix": plan.jobs.iter().map(|j| json!({
                "GPU": j.gpu,
                "SHARD": j.shard.to_string(),
                "SHARDS": j.shards.to_string(),
                "PARTITION": j.partition,
            })).collect::<Vec<_>>() }
        }),
        MatrixFormat::Buildkite => json!({
            "steps": plan.jobs.iter().map(|j| json!({
                "label": format!("kernelgate {} {}/{}", j.gpu, j.shard, j.shards),
                "key": format!("kernelgate-{}-{}", j.gpu.replace('.', "-"), j.shard),
                "command": format!("{command} --partition '{}'", j.partition),
                "agents": { "gpu": j.gpu },
                "artifact_paths": "target/kernelgate/**/*",
            })).collect::<Vec<_>>()
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("fam/v{i}/1024")).collect()
    }

    #[test]
    fn the_longest_processing_time_rule_balances_and_is_deterministic() {
        // 7, 5, 4, 3, 3, 2 into 2 shards: 7+3+2 = 12 and 5+4+3 = 12.
        let w = [3.0, 7.0, 2.0, 5.0, 4.0, 3.0];
        let a = balance(&w, 2);
        let load = |s| w.iter().zip(&a).filter(|(_, x)| **x == s).map(|(w, _)| w).sum::<f64>();
        assert_eq!((load(0), load(1)), (12.0, 12.0));
        assert_eq!(a, balance(&w, 2));
        // Equal weights: shards of equal count, round robin.
        assert_eq!(balance(&[1.0; 5], 2), vec![0, 1, 0, 1, 0]);
    }

    #[test]
    fn a_partition_value_round_trips_and_keeps_its_shard_only() {
        let listed = names(40);
        let p = plan(listed.clone(), &[GpuKind::new("nvidia-h200-sm90", 3)]).unwrap();
        assert_eq!(p.jobs.len(), 3);
        let mut seen = vec![0; listed.len()];
        for job in &p.jobs {
            let rest = job.partition.strip_prefix("plan:").unwrap();
            let a = Assignment::parse(rest).unwrap();
            assert_eq!(a.value(), job.partition);
            a.fits(&listed).unwrap();
            for (i, name) in listed.iter().enumerate() {
                if a.keeps(i) {
                    seen[i] += 1;
                    assert!(job.trials.contains(name));
                }
            }
            assert_eq!(job.seconds, None, "no times: no seconds claimed");
        }
        assert!(seen.iter().all(|&n| n == 1), "every trial in exactly one shard");
    }

    #[test]
    fn a_plan_for_another_trial_list_is_refused_with_both_lists() {
        let p = plan(names(10), &[GpuKind::new("k", 2)]).unwrap();
        let a = Assignment::parse(p.jobs[0].partition.strip_prefix("plan:").unwrap()).unwrap();
        let e = a.fits(&names(11)).unwrap_err();
        assert!(e.contains("10 trials") && e.contains("lists 11") && e.contains("kernelgate plan"), "{e}");
        let mut renamed = names(10);
        renamed[3] = "fam/other/1024".into();
        assert!(a.fits(&renamed).is_err());
    }

    #[test]
    fn bad_partition_values_say_what_is_wrong() {
        for (bad, says) in [
            ("1/2", "plan:K/N:<list>:<code>.<check>"),
            ("3/2:0123abcd:0101.0733", "K/N"),
            ("1/2:xyz:0101.0733", "hexadecimal"),
            ("1/2:0123abcd:0121.1b5d", "not a shard of 2"),
            ("1/40:0123abcd:0.5fec", "at most 36"),
            ("1/2:0123abcd:0101", "no check of its code"),
            ("1/2:0123abcd:0110.d5a4", "does not match its check"),
        ] {
            let e = Assignment::parse(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn times_from_the_history_weigh_and_unknown_trials_count_as_the_mean() {
        let listed = names(4);
        // One long trial, two short, one unknown (counts as the mean, 4 s).
        let times: HashMap<String, f64> =
            [(listed[0].clone(), 10.0), (listed[1].clone(), 1.0), (listed[2].clone(), 1.0)].into();
        let p = plan(listed.clone(), &[GpuKind { key: "g".into(), times, shards: 2 }]).unwrap();
        assert_eq!(p.jobs[0].trials, vec![listed[0].clone()]);
        assert_eq!(p.jobs[0].seconds, Some(10.0));
        assert_eq!(p.jobs[1].seconds, Some(6.0));
        assert!(p.weights[0].1.contains("3 of 4 trials timed"), "{:?}", p.weights);
    }

    #[test]
    fn too_many_shards_is_refused_naming_the_flag() {
        let e = plan(names(3), &[GpuKind::new("g", 4)]).unwrap_err().to_string();
        assert!(e.contains("--shards") && e.contains("4 (GPU kind g)"), "{e}");
        assert!(plan(names(3), &[GpuKind::new("g", 0)]).is_err());
        assert!(plan(names(3), &[GpuKind::new("g", 3), GpuKind::new("h", 5)]).is_err(), "each kind is checked");
        let twice = plan(names(3), &[GpuKind::new("g", 2), GpuKind::new("g", 3)]).unwrap_err().to_string();
        assert!(twice.starts_with("--gpu \"g\" is invalid") && twice.contains("given twice"), "{twice}");
    }

    #[test]
    fn the_recent_median_takes_the_last_five() {
        assert_eq!(recent_median(&[100.0, 1.0, 2.0, 3.0, 4.0, 5.0]), Some(3.0));
        assert_eq!(recent_median(&[2.0, 4.0]), Some(3.0));
        assert_eq!(recent_median(&[]), None);
    }
}
