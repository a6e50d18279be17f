//! Tests of the pool's reference per physical GPU (synthetic runs, made-up numbers: offsets and
//! spreads chosen to exercise the rule, not measured).

use super::reference::*;
use super::*;
use crate::gate::policy::Policy;
use crate::history::{TrialModule, Value};

const KEY: &str = "nvidia-h200-sm90";

/// A run on `gpu` at `commit` (commit time `time`) of trials `fam/k/<i>` with these medians (s),
/// each with a 95 % interval of +-0.1 %, from module `module` (a hex digit repeated).
fn gpu_run(run_id: &str, gpu: &str, commit: &str, time: i64, medians: &[f64], module: char) -> Run {
    let mut r = crate::history::tests::run(run_id, gpu, commit, 0);
    r.meta.commit_time = Some(time);
    for (i, m) in medians.iter().enumerate() {
        let trial = format!("fam/k/{i}");
        r.values.push(Value {
            trial: trial.clone(),
            kernel: "k".into(),
            metric: "median".into(),
            unit: "s".into(),
            value: *m,
            ci_low: Some(m * 0.999),
            ci_high: Some(m * 1.001),
            verdict: "unchanged".into(),
            decided_by: "time".into(),
        });
        r.modules.push(TrialModule { trial, kernel: "k".into(), module_sha256: module.to_string().repeat(64) });
    }
    r
}

/// Five earlier runs of one module on `gpu`, scaled by `offset` (the machine's), the medians
/// moving +-0.2 % run to run.
fn earlier(gpu: &str, offset: f64) -> Vec<Run> {
    [1.000, 1.002, 0.998, 1.001, 0.999]
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let t = [1e-4 * w * offset, 2e-3 * (2.0 - w) * offset];
            gpu_run(
                &format!("2026110{}T000000Z", i + 1),
                gpu,
                &format!("{i}").repeat(40),
                1_700_000_000 + i as i64,
                &t,
                'a',
            )
        })
        .collect()
}

/// `run` judged against `before`, its GPU's earlier runs, which are the whole pool too.
fn judged(run: &Run, before: &[Run]) -> GpuJudged {
    let before: Vec<&Run> = before.iter().collect();
    judge(run, &before, &before, &Policy::default())
}

#[test]
fn pooled_spread_known_answer() {
    // GPU a: 1, 3 (mean 2: deviations -0.5, +0.5); GPU b: 10, 10, 10 (0). Squares 0.5 over
    // 1 + 2 degrees: sqrt(0.5 / 3).
    let s = |g: &str, v: f64| (g.to_string(), v);
    let spread = pooled_spread(&[s("a", 1.0), s("b", 10.0), s("a", 3.0), s("b", 10.0), s("b", 10.0)]).unwrap();
    assert!((spread.rsd - (0.5f64 / 3.0).sqrt()).abs() < 1e-12 && spread.degrees == 3, "{spread:?}");
    assert_eq!(pooled_spread(&[s("a", 1.0), s("a", 1.1)]), None, "one degree of freedom is no estimate");
    assert_eq!(pooled_spread(&[s("a", 1.0), s("b", 1.1), s("c", 1.2)]), None, "three GPUs of one run each");
}

#[test]
fn the_prediction_floor_narrows_with_degrees_of_freedom() {
    let p = Policy::default();
    // rsd 3.266 % (medians 1.00, 1.04, 0.96, 1.00), 3 degrees, reference of 4 runs, one trial:
    // t(0.95; 3) = 2.353363 (Student's t table), sqrt(1 + 1/4) = 1.118034: 8.593 %.
    let floor = prediction_floor(&p, Spread { rsd: (0.0032f64 / 3.0).sqrt(), degrees: 3 }, 4, 1);
    assert!((floor - 0.08593).abs() < 0.00005, "{floor}");
    let wide = prediction_floor(&p, Spread { rsd: 0.004, degrees: 2 }, 2, 80);
    let narrow = prediction_floor(&p, Spread { rsd: 0.004, degrees: 200 }, 2, 80);
    assert!(wide > 0.05 && narrow < 0.025 && narrow > 0.01, "{wide} {narrow}");
    assert_eq!(prediction_floor(&p, Spread { rsd: 0.001, degrees: 50 }, 10, 80), 0.01, "a quiet trial: the 1 % floor");
}

/// The property the pool needs: two GPUs 6 % apart each pass against their own runs, while a
/// +3 % change of one trial is caught on either.
#[test]
fn each_gpu_against_its_own_runs_cancels_the_machine() {
    for (gpu, offset) in [("GPU-aaaa", 1.0), ("GPU-bbbb", 1.06), ("GPU-cccc", 0.95)] {
        let before = earlier(gpu, offset);
        let same =
            gpu_run("20261110T000000Z", gpu, &"9".repeat(40), 1_700_000_100, &[1e-4 * offset, 2e-3 * offset], 'a');
        let j = judged(&same, &before);
        assert!(!j.is_new_gpu());
        assert!(j.trials.iter().all(|t| t.judgement == Judgement::Unchanged), "{gpu}: {j:?}");
        assert_eq!(j.trials[0].reference_runs, 5);
        let slower =
            gpu_run("20261110T000000Z", gpu, &"9".repeat(40), 1_700_000_100, &[1.03e-4 * offset, 2e-3 * offset], 'b');
        let j = judged(&slower, &before);
        assert_eq!(j.trials[0].judgement, Judgement::Regressed, "{gpu}: {j:?}");
        assert_eq!((j.trials[0].module_changed, j.trials[1].judgement), (Some(true), Judgement::Unchanged));
        let d = reference::decide_against_gpu(&slower, &j, &[], &|_| None, None);
        assert_eq!(d.outcome, Outcome::Regressed);
        assert!(
            d.reasons[0].text.starts_with(&format!("reference: {gpu}'s own history: 2 trials against 5 earlier runs")),
            "{:?}",
            d.reasons
        );
        assert!(
            d.reasons[1].text.starts_with("regressed: fam/k/0 +3.00 % against 5 runs on this GPU (floor"),
            "{:?}",
            d.reasons
        );
        assert!(d.reasons[1].text.ends_with("; its module changed)"), "{}", d.reasons[1].text);
    }
}

/// The spread is the trial's, pooled over the GPUs: a trial that moves 4 % run to run on other
/// GPUs gets a wide floor on this one too, though this GPU's own three runs agreed.
#[test]
fn the_floor_follows_the_trials_spread_over_the_pool() {
    let before = earlier("GPU-aaaa", 1.0);
    let j = judged(&before[4].clone(), &before[..4]);
    assert_eq!(j.trials[0].floor, Some(0.01), "quiet runs: the 1 % floor");
    let run = |id: &str, gpu: &str, w: f64| gpu_run(id, gpu, &"1".repeat(40), 1_700_000_000, &[1e-4 * w], 'a');
    let pool = [
        run("20261101T000000Z", "GPU-x", 1.0),
        run("20261102T000000Z", "GPU-x", 1.04),
        run("20261103T000000Z", "GPU-y", 0.96),
        run("20261104T000000Z", "GPU-y", 1.0),
        run("20261105T000000Z", "GPU-n", 1.0),
        run("20261106T000000Z", "GPU-n", 1.0),
        run("20261107T000000Z", "GPU-n", 1.0),
    ];
    let now = run("20261110T000000Z", "GPU-n", 1.04);
    let (mine, pool): (Vec<&Run>, Vec<&Run>) = (pool[4..].iter().collect(), pool.iter().collect());
    let j = judge(&now, &mine, &pool, &Policy::default());
    let floor = j.trials[0].floor.unwrap();
    assert!(floor > 0.045, "{floor}");
    assert_eq!(j.trials[0].judgement, Judgement::Unchanged, "+4 % is within a noisy trial's floor");
    let quiet = judge(&now, &mine, &mine, &Policy::default());
    assert_eq!(quiet.trials[0].floor, Some(0.01), "this GPU's own three equal runs alone: the 1 % floor");
    assert_eq!(quiet.trials[0].judgement, Judgement::Regressed);
}

/// `run` with the trial `fam/k/<trial>`'s `min_effect` statistic (the run CSV's, in %).
fn with_min_effect(mut run: Run, trial: usize, pct: f64) -> Run {
    let mut v = run.values[trial].clone();
    (v.metric, v.unit, v.value, v.ci_low, v.ci_high) = ("min_effect".into(), "%".into(), pct, None, None);
    run.values.push(v);
    run
}

/// The floor is never below the trial's calibrated `min_effect` the run carries: the shape of
/// night 4 on the pool's second H200 (three runs 10.656, 10.656, 10.624 us, then 10.848 us,
/// +1.80 %, with a calibrated min_effect of 2.52 %) is unchanged, while a +2 % change of a trial
/// calibrated at 1.00 % is still caught.
#[test]
fn the_floor_is_never_below_the_trials_calibrated_min_effect() {
    let run = |id: &str, us: f64, module: char| {
        gpu_run(id, "GPU-e3e5", &"1".repeat(40), 1_700_000_000, &[us * 1e-6, 100e-6], module)
    };
    let before = [
        run("20261101T000000Z", 10.656, 'a'),
        run("20261102T000000Z", 10.656, 'a'),
        run("20261103T000000Z", 10.624, 'a'),
    ];
    let night4 = run("20261104T000000Z", 10.848, 'a');
    let without = judged(&night4, &before);
    let floor = without.trials[0].floor.unwrap();
    assert!(floor < 0.018, "the pool's spread alone: {floor}");
    assert_eq!(without.trials[0].judgement, Judgement::Regressed, "{without:?}");
    let with = judged(&with_min_effect(night4, 0, 2.52), &before);
    assert_eq!((with.trials[0].floor, with.trials[0].calibrated), (Some(0.0252), Some(0.0252)));
    assert_eq!(with.trials[0].judgement, Judgement::Unchanged, "{with:?}");
    assert_eq!(with.trials[1].calibrated, None, "a trial without min_effect: the pool's floor alone");
    // A planted +2 % on a trial calibrated at 1 % (or at an unusable value) is still caught.
    for pct in [1.0, f64::NAN, 0.0] {
        let plant = with_min_effect(run("20261104T000000Z", 10.648 * 1.02, 'b'), 0, pct);
        let j = judged(&plant, &before);
        assert_eq!(j.trials[0].judgement, Judgement::Regressed, "min_effect {pct}: {j:?}");
        let d = reference::decide_against_gpu(&plant, &j, &[], &|_| None, None);
        let line = &d.reasons[1].text;
        assert_eq!(line.contains("its calibrated min_effect"), pct == 1.0 && j.trials[0].floor == Some(0.01), "{line}");
    }
    // A floor the calibration set says so.
    let slower = with_min_effect(run("20261104T000000Z", 10.648 * 1.04, 'a'), 0, 2.52);
    let j = judged(&slower, &before);
    let d = reference::decide_against_gpu(&slower, &j, &[], &|_| None, None);
    assert!(d.reasons[1].text.ends_with("(floor 2.52 %, its calibrated min_effect)"), "{:?}", d.reasons);
}

#[test]
fn improved_ambiguous_invalid_and_host_bound() {
    let before = earlier("GPU-aaaa", 1.0);
    let mut now = gpu_run("20261110T000000Z", "GPU-aaaa", &"9".repeat(40), 1_700_000_100, &[0.95e-4, 2.1e-3], 'a');
    // The second trial's interval reaches down to its reference: ambiguous.
    now.values[1].ci_low = Some(1.9e-3);
    let j = judged(&now, &before);
    assert_eq!((j.trials[0].judgement, j.trials[1].judgement), (Judgement::Improved, Judgement::Ambiguous));
    let d = reference::decide_against_gpu(&now, &j, &[], &|_| None, None);
    assert_eq!(d.outcome, Outcome::Pass, "{:?}", d.reasons);
    assert!(d.reasons.iter().skip(1).all(|r| r.finding == Finding::Note), "listed, not gating: {:?}", d.reasons);
    // The JSON lists every trial with its figures, the ones that pass too.
    let gated = [Gated { gpu_key: KEY.into(), run: now.meta.clone(), decision: d, trials: j.trials.clone() }];
    let doc = gate_json(&gated, None, 0, None);
    let trials = &doc["runs"][0]["trials"];
    assert_eq!(trials.as_array().map(Vec::len), Some(2), "{doc}");
    assert_eq!(trials[0]["judgement"], "improved");
    assert_eq!(trials[1]["judgement"], "ambiguous");
    assert_eq!(trials[0]["reference_runs"], j.trials[0].reference_runs);
    let delta = trials[0]["delta_pct"].as_f64().unwrap();
    assert!((delta - j.trials[0].delta.unwrap() * 100.0).abs() < 1e-9 && delta < -1.0, "{doc}");
    assert_eq!(trials[0]["median_s"], j.trials[0].median);
    now.values[0].verdict = "invalid".into();
    let j = judged(&now, &before);
    assert_eq!(j.trials[0].judgement, Judgement::Invalid);
    assert_eq!(reference::decide_against_gpu(&now, &j, &[], &|_| None, None).outcome, Outcome::Invalid);
    let slower = gpu_run("20261110T000000Z", "GPU-aaaa", &"9".repeat(40), 1_700_000_100, &[1.5e-4, 2e-3], 'a');
    let j = judged(&slower, &before);
    let host = |t: &str| (t == "fam/k/0").then(|| "host-bound".to_string());
    let d = reference::decide_against_gpu(&slower, &j, &[], &host, None);
    assert_eq!(d.outcome, Outcome::Pass, "{:?}", d.reasons);
    assert!(
        d.reasons
            .iter()
            .any(|r| r.text.starts_with("not gating: regressed: fam/k/0") && r.text.ends_with("; host-bound"))
    );
    // A run's invalid earlier runs are not a reference: three valid runs still are, two are not.
    let mut bad = before.clone();
    for r in &mut bad[3..] {
        r.values[0].verdict = "invalid".into();
    }
    assert_eq!(judged(&slower, &bad).trials[0].reference_runs, 3);
    bad[2].values[0].verdict = "invalid".into();
    let j = judged(&slower, &bad);
    assert_eq!((j.trials[0].reference_runs, j.trials[0].floor, j.trials[0].judgement), (2, None, Judgement::New));
}

#[test]
fn a_new_gpu_says_so_and_names_the_last_pass() {
    let before = earlier("GPU-aaaa", 1.0);
    for n in 0..MIN_REFERENCE_RUNS {
        let now = gpu_run("20261110T000000Z", "GPU-aaaa", &"9".repeat(40), 1_700_000_100, &[1e-4, 2e-3], 'a');
        let j = judged(&now, &before[..n]);
        assert!(j.is_new_gpu(), "{n} earlier runs: {j:?}");
        let d = reference::decide_against_gpu(&now, &j, &[], &|_| None, Some(&"7".repeat(40)));
        assert_eq!((d.outcome, d.outcome.exit_code()), (Outcome::NewGpu, EXIT_NEW_GPU));
        assert_eq!(d.ab_against, Some("7".repeat(40)));
        assert!(
            d.reasons[0].text.contains("is new to the pool")
                && d.reasons[0].text.contains(&format!("KERNELGATE_AB={}", "7".repeat(40))),
            "{:?}",
            d.reasons
        );
    }
    // Three runs of one module are a reference, fewer are not, however many runs the pool has.
    let mut pool = earlier("GPU-bbbb", 1.06);
    pool.extend(before[..2].iter().cloned());
    let mine: Vec<&Run> = before[..2].iter().collect();
    assert!(judge(&before[2], &mine, &pool.iter().collect::<Vec<_>>(), &Policy::default()).is_new_gpu());
    let j = judged(&before[3], &before[..3]);
    assert!(!j.is_new_gpu() && j.trials[0].reference_runs == 3, "{j:?}");
}

#[test]
fn a_changed_environment_comes_first() {
    let before = earlier("GPU-aaaa", 1.0);
    let mut now = gpu_run("20261110T000000Z", "GPU-aaaa", &"9".repeat(40), 1_700_000_100, &[1e-4, 2e-3], 'a');
    now.meta.driver = "590.10".into();
    let j = judged(&now, &before);
    assert_eq!(j.environment.as_deref(), Some("driver 580.159.04 -> 590.10"));
    let d = reference::decide_against_gpu(&now, &j, &[], &|_| None, None);
    assert!(
        d.reasons[0].text.starts_with("environment: driver 580.159.04 -> 590.10 since the reference runs on GPU-aaaa")
    );
}

/// Through the store: `gate_runs` with the GPU reference judges each GPU of a pool by its own
/// runs, and a GPU new to the pool names the last commit that passed (a same-run A/B run counts).
#[test]
fn the_store_gates_a_pool_and_a_new_gpu_names_the_last_pass() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap();
    let mut runs = earlier("GPU-aaaa", 1.0);
    runs.extend(earlier("GPU-bbbb", 1.06).into_iter().map(|mut r| {
        r.meta.run_id.push_str("-2");
        r
    }));
    store.append_many(&runs).unwrap();
    let head = "8".repeat(40);
    let on_b = gpu_run("20261110T000000Z", "GPU-bbbb", &head, 1_700_000_100, &[1.06e-4, 2.12e-3], 'a');
    let on_new = gpu_run("20261110T000000Z", "GPU-cccc", &head, 1_700_000_100, &[0.9e-4, 1.8e-3], 'a');
    store.append_many(&[on_b, on_new]).unwrap();
    drop(store);
    let gated =
        gate_runs(dir.path(), Some(KEY), Some("20261110T000000Z"), &|_| None, Reference::Gpu, "baselines".as_ref())
            .unwrap();
    let outcome = |gpu: &str| gated.iter().find(|g| g.run.gpu_uuid == gpu).unwrap().decision.clone();
    assert_eq!(outcome("GPU-bbbb").outcome, Outcome::Pass, "{:?}", outcome("GPU-bbbb").reasons);
    let new = outcome("GPU-cccc");
    assert_eq!(new.outcome, Outcome::NewGpu);
    // The newest passing run of another commit: commit 4...4 on both GPUs (their fifth runs).
    assert!(new.reasons[0].text.contains(&format!("KERNELGATE_AB={}", "4".repeat(40))), "{:?}", new.reasons);
    assert_eq!(new.ab_against, Some("4".repeat(40)));
    let doc = gate_json(&gated, None, EXIT_NEW_GPU, None);
    let on = |gpu: &str| doc["runs"].as_array().unwrap().iter().find(|r| r["run"]["gpu_uuid"] == gpu).unwrap().clone();
    assert_eq!(
        (on("GPU-cccc")["ab_against"].as_str(), on("GPU-bbbb")["ab_against"].as_str()),
        (Some("4".repeat(40).as_str()), None)
    );
    // Against the baseline, the same runs gate by their own verdicts (all unchanged here).
    let gated = gate_runs(
        dir.path(),
        Some(KEY),
        Some("20261110T000000Z"),
        &|_| None,
        Reference::Baseline,
        "baselines".as_ref(),
    )
    .unwrap();
    assert!(gated.iter().all(|g| g.decision.outcome == Outcome::Pass));
}

/// A GPU with runs of its own but no spread in the pool says why it cannot be judged; with no
/// commit passed before, nothing is judged; the JSON marks the notes as not gating.
#[test]
fn a_gpu_without_a_spread_says_so_and_notes_do_not_gate() {
    let before = earlier("GPU-aaaa", 1.0);
    // Three runs of its own, but a pool (as a caller may pick it) without them: no spread.
    let mine: Vec<&Run> = before[..3].iter().collect();
    let j = judge(&before[3], &mine, &[], &Policy::default());
    assert!(j.is_new_gpu());
    let d = reference::decide_against_gpu(&before[3], &j, &[], &|_| None, None);
    let text = &d.reasons[0].text;
    assert!(
        text.contains("has earlier runs here, but the pool's runs give none of its trials a run-to-run spread"),
        "{text}"
    );
    assert!(
        text.ends_with("nothing is judged this time; the run stays in the history as part of this GPU's reference"),
        "{text}"
    );
    let gated = [Gated { gpu_key: KEY.into(), run: before[3].meta.clone(), decision: d, trials: j.trials.clone() }];
    let doc = gate_json(&gated, None, EXIT_NEW_GPU, None);
    assert_eq!(doc["outcome"], "new_gpu");
    assert_eq!(doc["runs"][0]["ab_against"], serde_json::Value::Null, "no commit passed: nothing to time against");
    assert_eq!(doc["runs"][0]["reasons"][0]["gating"], false, "{doc}");
}

/// The last commit that passed is one stored before the run gated, never a later one.
#[test]
fn the_last_pass_is_stored_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = HistoryStore::open(dir.path(), KEY, "baselines".as_ref()).unwrap();
    let runs = earlier("GPU-aaaa", 1.0);
    store.append_many(&runs).unwrap();
    let old = gpu_run("20261120T000000Z", "GPU-cccc", &"c".repeat(40), 1_700_000_002, &[1e-4, 2e-3], 'a');
    store.append(&old).unwrap();
    let all = store.all_series().unwrap();
    let at = all.runs.iter().find(|m| m.gpu_uuid == "GPU-cccc").unwrap();
    // Runs 3 and 4 (commits 3... and 4...) were committed after 'c...' (time +2): not candidates;
    // runs 0 to 2 had fewer than three earlier runs of their module on their GPU, so none passed.
    assert_eq!(last_pass(&store, &all.runs, at).unwrap(), None);
    let newest = all.runs.last().unwrap();
    assert_eq!(last_pass(&store, &all.runs, newest).unwrap().as_deref(), Some("3".repeat(40).as_str()));
}
