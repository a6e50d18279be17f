//! One trial's verdict from all its evidence: the conditions of the measurement, the timing
//! comparison ([`super::timing`]) and the counters ([`super::counters`]). Pure: plain numbers in,
//! a verdict and the sentence that explains it out. The suite and `kernelgate compare` both judge
//! through [`judge`], so a run and an offline comparison of its record agree.

use super::counters::{CounterBase, Moved, counter_moves};
use super::timing::{Comparison, Known, Policy, Verdict, compare_with};
use crate::units::duration;
use std::collections::BTreeMap;

/// This run's side of one trial.
#[derive(Debug, Clone, Copy, Default)]
pub struct Now<'a> {
    /// The kept timing samples (seconds, or cycles when comparing cycles).
    pub samples: &'a [f64],
    /// The median of all of the run's samples when `samples` is a kept subset.
    pub median: Option<f64>,
    /// Why the measurement cannot be judged (another process on the GPU, throttling), if so.
    pub invalid: Option<&'a str>,
    /// The trial's ncu values by metric name, when ncu profiled it.
    pub counters: Option<&'a BTreeMap<String, f64>>,
}

/// The baseline's side of one trial.
#[derive(Debug, Clone, Default)]
pub struct Base<'a> {
    /// The kept timing samples, in the unit of [`Now::samples`].
    pub samples: &'a [f64],
    /// The median of all of the baseline run's samples, same unit.
    pub median: f64,
    /// The run-to-run spread of the median, when calibrated: (relative stddev, runs).
    pub spread: Option<(f64, u64)>,
    /// The blessed counters.
    pub counters: Vec<CounterBase<'a>>,
    /// Why the baseline's own measurement cannot be judged (a run record compared as a base), if so.
    pub invalid: Option<&'a str>,
}

/// What decided a verdict.
#[derive(Debug, Clone, PartialEq)]
pub enum Decided {
    /// The conditions of a measurement (or its samples) make it unjudgeable.
    Conditions,
    /// The timing comparison.
    Time,
    /// A counter that gates ([`Moved::gates`]) got worse; the first such (largest move).
    Counter(Moved),
    /// The tool that measured the counters failed (ncu printed them as `nan`): the counter half of
    /// the gate could not run ([`tool_invalid_verdict`]).
    Tool,
}

/// A trial's verdict with its evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// The verdict.
    pub verdict: Verdict,
    /// What decided it.
    pub decided: Decided,
    /// The timing comparison, when one was made.
    pub comparison: Option<Comparison>,
    /// Counters that moved past their tolerance, largest first (gating or not).
    pub moved: Vec<Moved>,
    /// The sentence after `verdict: ` that says why, with the numbers.
    pub reason: String,
}

impl Judged {
    /// `<verdict> (<evidence>): <reason>`, e.g. `regressed (time): median 288.2 us vs …`.
    pub fn message(&self) -> String {
        let by = match &self.decided {
            Decided::Conditions => String::new(),
            Decided::Tool => " (tool)".to_string(),
            Decided::Time => " (time)".to_string(),
            Decided::Counter(m) => format!(" (counter {})", m.metric),
        };
        format!("{}{by}: {}", self.verdict.as_str(), self.reason)
    }

    /// [`Judged::message`] in two lines where it carries a test's evidence: the verdict and the
    /// change first, then, indented, `evidence: one-sided …` (the test, its p-values, the floor,
    /// the counters that moved, and whatever follows). A message without evidence stays one line.
    pub fn message_lines(&self) -> String {
        let message = self.message();
        match message.split_once(EVIDENCE) {
            Some((change, evidence)) => format!("{change}\n  evidence: one-sided {evidence}"),
            None => message,
        }
    }
}

/// Where a timing sentence's evidence begins. Both gates write the change first (the medians,
/// the change, the pairs), then `, one-sided <test> p = …`: [`judge`] (Mann-Whitney) and
/// [`super::paired`] (Wilcoxon signed-rank).
pub const EVIDENCE: &str = ", one-sided ";

/// How timings are shown in messages: seconds, or cycles (`KERNELGATE_COMPARE=cycles`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeUnit {
    /// Seconds, shown through [`duration`].
    #[default]
    Seconds,
    /// SM cycles.
    Cycles,
}

impl TimeUnit {
    fn show(self, v: f64) -> String {
        match self {
            TimeUnit::Seconds => duration(v),
            TimeUnit::Cycles => format!("{v:.0} cycles"),
        }
    }
}

/// A timing sample below the timer's resolution: how many of `samples` read 0.
fn zeros(samples: &[f64]) -> usize {
    samples.iter().filter(|&&s| s == 0.0).count()
}

/// Judges one trial. In order:
///
/// 1. [`Verdict::Invalid`] when either side's measurement conditions say so, or when any sample of
///    either side reads 0 s (below the timer's resolution: field report 09; the trial is invalid,
///    every other trial is still judged);
/// 2. [`Verdict::NoBaseline`] without a baseline;
/// 3. the timing comparison ([`compare_with`]; Invalid when too noisy);
/// 4. a counter that gates and got worse makes the verdict [`Verdict::Regressed`] whatever the
///    time says, decided by that counter.
///
/// `tests` is the number of trials compared in the run (Bonferroni; [`Comparison::p_adjusted`]).
///
/// # Errors
/// [`crate::Error::Samples`] when a sample is negative, NaN or infinite (a timing bug), or a side
/// has no samples.
pub fn judge(
    now: &Now<'_>,
    base: Option<&Base<'_>>,
    policy: &Policy,
    tests: usize,
    unit: TimeUnit,
) -> crate::error::Result<Judged> {
    let plain = |verdict: Verdict, decided: Decided, reason: String| Judged {
        verdict,
        decided,
        comparison: None,
        moved: Vec::new(),
        reason,
    };
    if let Some(why) = now.invalid {
        return Ok(plain(Verdict::Invalid, Decided::Conditions, why.to_string()));
    }
    let Some(base) = base else {
        return Ok(plain(Verdict::NoBaseline, Decided::Conditions, "no baseline entry for this trial".into()));
    };
    if let Some(why) = base.invalid {
        return Ok(plain(Verdict::Invalid, Decided::Conditions, format!("the base record is invalid: {why}")));
    }
    for (samples, which) in [(now.samples, "this run's"), (base.samples, "the baseline's")] {
        let n = zeros(samples);
        if n > 0 {
            let why = format!(
                "{n} of {} of {which} samples read 0 s, below the timer's resolution (CUDA events: about 0.5 us): \
                 the kernel is too short to time alone; give the case more work per launch",
                samples.len()
            );
            return Ok(plain(Verdict::Invalid, Decided::Conditions, why));
        }
    }
    let known =
        Known { baseline_median: Some(base.median), now_median: now.median, median_rsd: base.spread.map(|s| s.0) };
    let c = compare_with(now.samples, base.samples, known, policy, tests)?;
    let moved = match now.counters {
        Some(values) => counter_moves(&base.counters, values, policy, tests),
        None => Vec::new(),
    };
    let floor_from = match base.spread {
        Some((rsd, runs)) => format!("the median's run-to-run spread, {:.3}% over {runs} runs", 100.0 * rsd),
        None => "KERNELGATE_MIN_EFFECT or 2 x the baseline's relative MAD".to_string(),
    };
    let ticks = if c.quantum_s > 0.0 && c.min_effect <= 2.0 * c.quantum_s / c.baseline_median_s * 1.000_001 {
        format!(", at least 2 ticks of the timer's {} quantum", duration(c.quantum_s))
    } else {
        String::new()
    };
    let time = format!(
        "median {} vs baseline {} ({}), one-sided Mann-Whitney p = {:.2e}, x{tests} cases (Bonferroni, \
         Holm's first step) = {:.2e} against alpha {}, effect floor {:.2}% (from {floor_from}{ticks})",
        unit.show(c.median_s),
        unit.show(c.baseline_median_s),
        crate::units::signed_pct(100.0 * c.delta),
        c.p_value,
        c.p_adjusted,
        policy.alpha,
        100.0 * c.min_effect,
    );
    if let Some(why) = c.too_noisy() {
        return Ok(Judged {
            verdict: Verdict::Invalid,
            decided: Decided::Conditions,
            comparison: Some(c),
            moved,
            reason: why,
        });
    }
    Ok(with_counters(c, moved, time, ""))
}

/// The verdict of a judgeable timing comparison `c` (its sentence `time`) and the counters that
/// moved past their tolerance (largest first): the first gating counter that got worse decides
/// (`regressed`, whatever the time says), else the time does; the moved counters are listed either
/// way (five at most), `vs` after their names (` (B vs A)` in same-run A/B, empty against a
/// baseline).
pub(crate) fn with_counters(c: Comparison, moved: Vec<Moved>, time: String, vs: &str) -> Judged {
    let listed = moved.iter().take(5).map(ToString::to_string).collect::<Vec<_>>().join(", ");
    if let Some(gate) = moved.iter().find(|m| m.gates()).cloned() {
        let reason =
            format!("{gate}{vs}; counters that moved: {listed}; time: {time} ({} by time alone)", c.verdict.as_str());
        return Judged {
            verdict: Verdict::Regressed,
            decided: Decided::Counter(gate),
            comparison: Some(c),
            moved,
            reason,
        };
    }
    let reason = if moved.is_empty() { time } else { format!("{time}; counters that moved{vs}: {listed}") };
    Judged { verdict: c.verdict, decided: Decided::Time, comparison: Some(c), moved, reason }
}

/// The verdict of a host-bound trial without a calibrated floor (pure): a `regressed` or
/// `improved` becomes `ambiguous`, with `why` and what would make it gate. Its per-sample floor
/// says nothing about the next run: the host moves the median between runs by more than the
/// samples of one run spread (+7.66 % and +39.16 % between two runs on one H200, against floors of
/// 3.42 % and 13.07 %: baselines/nvidia-h200-sm90/BENCHMARK.md). Calibrated from 10 or more runs
/// (`kernelgate baseline calibrate`), its floor is the run-to-run spread and it gates as any trial.
pub fn host_bound_verdict(mut j: Judged, why: &str) -> Judged {
    if matches!(j.verdict, Verdict::Regressed | Verdict::Improved) {
        j.reason = format!(
            "{} ({}), but {why}: without a run-to-run floor calibrated from 10 or more runs (kernelgate baseline \
             calibrate) a change of this size cannot be told from the host's, so it does not gate",
            j.verdict.as_str(),
            j.reason
        );
        j.verdict = Verdict::Ambiguous;
    }
    j
}

/// The verdict of a trial whose counters the tool could not measure (pure): `why` is the sentence
/// naming the tool and the metrics it printed as `nan`
/// ([`crate::ncu::profile::Profiled::tool_invalid`]). A `regressed` verdict, or an `invalid` or
/// `no baseline` one, stands (the time, or a counter that was measured, decided it), with
/// `counters invalid (tool): <why>` added; any other becomes `invalid`, decided by
/// [`Decided::Tool`] (its message reads `invalid (tool): ncu … printed `nan` for …; time alone:
/// unchanged (…)`), since the counter half of the gate did not run and a verdict of `unchanged`
/// would say it had. Never a regression: a NaN counter says nothing about the kernel (issue 41,
/// item 5).
///
/// ```
/// use kernelgate::gate::{Decided, Judged, Verdict, tool_invalid_verdict};
/// let unchanged = Judged {
///     verdict: Verdict::Unchanged,
///     decided: Decided::Time,
///     comparison: None,
///     moved: Vec::new(),
///     reason: "median 10 us vs baseline 10 us (+0.01%)".into(),
/// };
/// let j = tool_invalid_verdict(unchanged, "ncu 2026.2.0 printed `nan` for dram__bytes.sum");
/// assert_eq!((j.verdict, &j.decided), (Verdict::Invalid, &Decided::Tool));
/// assert_eq!(
///     j.message(),
///     "invalid (tool): ncu 2026.2.0 printed `nan` for dram__bytes.sum; time alone: unchanged (median 10 us vs \
///      baseline 10 us (+0.01%))"
/// );
/// ```
pub fn tool_invalid_verdict(mut j: Judged, why: &str) -> Judged {
    if matches!(j.verdict, Verdict::Regressed | Verdict::Invalid | Verdict::NoBaseline) {
        j.reason = format!("{}; counters invalid (tool): {why}", j.reason);
        return j;
    }
    j.reason = format!("{why}; time alone: {} ({})", j.verdict.as_str(), j.reason);
    j.verdict = Verdict::Invalid;
    j.decided = Decided::Tool;
    j
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::testdata::Lcg;

    /// `judge` of plain samples against `blessed`, in seconds.
    fn judged(run: &[f64], blessed: &[f64], tests: usize) -> Judged {
        judge(
            &Now { samples: run, ..Now::default() },
            Some(&base(blessed)),
            &Policy::default(),
            tests,
            TimeUnit::Seconds,
        )
        .unwrap()
    }

    fn base(samples: &[f64]) -> Base<'_> {
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        Base { samples, median: sorted[sorted.len() / 2], ..Base::default() }
    }

    /// A NaN counter never reads as a change: an unchanged or improved trial becomes invalid, naming
    /// the tool; a regression by time stands, with the tool named.
    #[test]
    fn a_tool_that_printed_nan_makes_the_trial_invalid_never_regressed() {
        let tool = "ncu 2026.2.0 printed `nan` for dram__bytes_read.sum";
        let plain = |verdict| Judged {
            verdict,
            decided: Decided::Time,
            comparison: None,
            moved: Vec::new(),
            reason: "median 2 us vs baseline 2 us".into(),
        };
        for v in [Verdict::Unchanged, Verdict::Improved, Verdict::Ambiguous] {
            let j = tool_invalid_verdict(plain(v), tool);
            assert_eq!((j.verdict, &j.decided), (Verdict::Invalid, &Decided::Tool), "{v:?}");
            assert_eq!(
                j.message(),
                format!("invalid (tool): {tool}; time alone: {} (median 2 us vs baseline 2 us)", v.as_str())
            );
        }
        for v in [Verdict::Regressed, Verdict::Invalid, Verdict::NoBaseline] {
            let j = tool_invalid_verdict(plain(v), tool);
            assert_eq!((j.verdict, &j.decided), (v, &Decided::Time), "{v:?} stands");
            assert_eq!(j.reason, format!("median 2 us vs baseline 2 us; counters invalid (tool): {tool}"));
        }
    }

    #[test]
    fn conditions_come_first_and_name_themselves() {
        let s = Lcg(1).timings(100, 1e-4, 0.001);
        let contended =
            Now { samples: &s, invalid: Some("other processes computed on the GPU (pids [4242])"), ..Now::default() };
        let j = judge(&contended, Some(&base(&s)), &Policy::default(), 1, TimeUnit::Seconds).unwrap();
        assert_eq!((j.verdict, &j.decided), (Verdict::Invalid, &Decided::Conditions));
        assert_eq!(j.message(), "invalid: other processes computed on the GPU (pids [4242])");
        let j = judge(&Now { samples: &s, ..Now::default() }, None, &Policy::default(), 1, TimeUnit::Seconds).unwrap();
        assert_eq!(j.verdict, Verdict::NoBaseline);
    }

    #[test]
    fn a_zero_sample_invalidates_its_trial_only() {
        // Field report 09: a 1 us kernel, one sample read 0 s.
        let mut run = vec![1.024e-6; 200];
        run[17] = 0.0;
        let blessed = vec![1.024e-6; 200];
        let j = judged(&run, &blessed, 2);
        assert_eq!(j.verdict, Verdict::Invalid);
        assert!(
            j.reason.starts_with("1 of 200 of this run's samples read 0 s, below the timer's resolution"),
            "{}",
            j.reason
        );
    }

    #[test]
    fn quantized_all_tie_samples_keep_a_floor_of_two_ticks() {
        // A 1.024 us kernel timed at a 32 ns tick: every baseline sample on one tick (MAD 0), the
        // run's median one tick up. One tick is 3.1 %: ties changing sides, not a regression.
        let tick = 32e-9;
        let blessed: Vec<f64> = (0..400).map(|i| 1.024e-6 + if i % 5 == 0 { tick } else { 0.0 }).collect();
        let run: Vec<f64> = (0..400).map(|i| 1.024e-6 + if i % 5 == 0 { 0.0 } else { tick }).collect();
        let j = judged(&run, &blessed, 1);
        let c = j.comparison.unwrap();
        assert!((c.quantum_s - tick).abs() < 1e-12, "{c:?}");
        assert!((c.min_effect - 2.0 * tick / 1.024e-6).abs() < 1e-9, "{c:?}");
        assert_eq!(j.verdict, Verdict::Unchanged, "{}", j.reason);
        assert!(j.reason.contains("at least 2 ticks of the timer's 32.0 ns quantum"), "{}", j.reason);
        assert!(c.median_ci > 0.0, "all ties do not shrink the interval to zero");
        // Three ticks slower is a regression.
        let slower: Vec<f64> = run.iter().map(|x| x + 2.0 * tick).collect();
        let j = judged(&slower, &blessed, 1);
        assert_eq!(j.verdict, Verdict::Regressed, "{}", j.reason);
        let lines = j.message_lines();
        let (change, evidence) = lines.split_once('\n').expect("two lines");
        assert!(change == "regressed (time): median 1.1 us vs baseline 1.0 us (+9.38%)", "{lines}");
        assert!(evidence.starts_with("  evidence: one-sided Mann-Whitney p = "), "{lines}");
        assert_eq!(lines.replace("\n  evidence:", ","), j.message(), "only the line break is added");
    }

    #[test]
    fn a_gating_counter_decides_and_says_so_while_time_stays_unchanged() {
        let s = Lcg(2).timings(2000, 300e-6, 0.002);
        let wavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
        let mut b = base(&s);
        b.counters = vec![CounterBase { metric: wavefronts, value: 1_000_000.0, rsd: None, kernels: 1 }];
        let values = BTreeMap::from([(wavefronts.to_string(), 29_000_000.0)]);
        let now = Now { samples: &s, counters: Some(&values), ..Now::default() };
        let j = judge(&now, Some(&b), &Policy::default(), 35, TimeUnit::Seconds).unwrap();
        assert_eq!(j.verdict, Verdict::Regressed);
        assert!(matches!(&j.decided, Decided::Counter(m) if m.metric == wavefronts));
        let message = j.message();
        assert!(message.starts_with(&format!("regressed (counter {wavefronts}): {wavefronts} +2800.00%")), "{message}");
        assert!(message.contains("(unchanged by time alone)"), "{message}");
        // An A/A move of 0.11 % does not gate, and the message says time decided.
        let values = BTreeMap::from([(wavefronts.to_string(), 1_001_100.0)]);
        let now = Now { samples: &s, counters: Some(&values), ..Now::default() };
        let j = judge(&now, Some(&b), &Policy::default(), 35, TimeUnit::Seconds).unwrap();
        assert_eq!((j.verdict, &j.decided), (Verdict::Unchanged, &Decided::Time));
        assert!(j.message().starts_with("unchanged (time): median "), "{}", j.message());
    }

    fn host_judged(verdict: Verdict) -> Judged {
        Judged {
            verdict,
            decided: Decided::Time,
            comparison: None,
            moved: Vec::new(),
            reason: "median +7.66 % past the floor 3.42 %".into(),
        }
    }

    #[test]
    fn an_uncalibrated_host_bound_change_is_shown_and_does_not_gate() {
        let why = "transfers/d2h_pageable/16777216 copies pageable host memory";
        for v in [Verdict::Regressed, Verdict::Improved] {
            let j = host_bound_verdict(host_judged(v), why);
            assert_eq!(j.verdict, Verdict::Ambiguous);
            assert!(j.reason.starts_with(&format!("{} (median +7.66 % past the floor 3.42 %), but {why}", v.as_str())));
            assert!(j.reason.contains("kernelgate baseline calibrate"), "{}", j.reason);
        }
        for v in [Verdict::Unchanged, Verdict::Ambiguous, Verdict::Invalid, Verdict::NoBaseline] {
            assert_eq!(host_bound_verdict(host_judged(v), why), host_judged(v), "{v:?} is kept");
        }
    }
}
