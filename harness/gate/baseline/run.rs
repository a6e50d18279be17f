//! A run's results in baseline form: what a bless writes into the baseline, and what every run
//! keeps in its `<stem>-baseline/` record for `kernelgate compare` and `kernelgate baseline
//! calibrate`. Pure: plain data in, entries and samples out.

use super::{Entry, TIME_METRIC};
use crate::model::DeviceFacts;
use crate::stats::Summary;
use std::collections::BTreeMap;

/// A trial's ncu values and their units, by metric name.
pub type Counters<'a> = (&'a BTreeMap<String, f64>, &'a BTreeMap<String, String>);

/// Entries and kept samples (by trial, seconds): a run, or part of one, in baseline form.
pub type Form = (Vec<Entry>, BTreeMap<String, Vec<f64>>);

/// What a bless did: the changes, and the trials left out with the reason.
pub type Blessed = (Vec<super::Change>, Vec<(String, String)>);

/// One timed trial of a run.
#[derive(Debug, Clone, Copy)]
pub struct Measured<'a> {
    /// Trial name.
    pub trial: &'a str,
    /// Entry point launched.
    pub kernel: &'a str,
    /// Summary of the kept (not throttled) samples, seconds.
    pub summary: &'a Summary,
    /// The samples kept for the two-sample test (an evenly spaced subset), seconds.
    pub kept: &'a [f64],
    /// SHA-256 of the module's PTX.
    pub module_sha256: &'a str,
    /// Median SM clock during the samples, MHz.
    pub sm_clock_mhz: Option<f64>,
    /// Why the measurement cannot be judged (conditions), if so.
    pub invalid_reason: Option<&'a str>,
    /// The trial's ncu values and their units, when ncu profiled it.
    pub counters: Option<Counters<'a>>,
}

/// Where and when a run measured.
#[derive(Debug, Clone, Copy)]
pub struct Provenance<'a> {
    /// Full commit id the measured code came from.
    pub commit: &'a str,
    /// UTC, RFC 3339 ([`super::utc_now`]).
    pub date: &'a str,
    /// The GPU.
    pub facts: &'a DeviceFacts,
    /// The version of the ncu that measured the counters, when ncu ran.
    pub ncu: Option<&'a str>,
}

/// `unknown` as recorded by the GPU layer becomes an empty field (unknown) in the baseline.
fn known(s: &str) -> String {
    if s == "unknown" { String::new() } else { s.to_string() }
}

/// The entries and kept samples of `measured`: per trial the time entry (n, median, MAD of the kept
/// samples, mean, stddev, min, commit, date, module hash, SM clock, GPU fingerprint and physical
/// identity, validity) and one entry per ncu metric when ncu profiled it. Trials with no kept
/// samples are left out.
pub fn entries(at: &Provenance<'_>, measured: &[Measured<'_>]) -> Form {
    let f = at.facts;
    let entry = |m: &Measured<'_>, metric: &str, unit: &str, n: u64, (median, mad, mean, stddev, min)| Entry {
        trial: m.trial.to_string(),
        kernel: m.kernel.to_string(),
        metric: metric.to_string(),
        unit: unit.to_string(),
        n,
        median,
        mad,
        mean,
        stddev,
        min,
        commit: at.commit.to_string(),
        date: at.date.to_string(),
        module_sha256: m.module_sha256.to_string(),
        sm_clock_mhz: m.sm_clock_mhz,
        gpu_name: f.name.clone(),
        compute_capability: f.compute_capability(),
        sm_count: f.sm_count,
        memory_mib: f.memory_mib(),
        driver: f.driver_version.clone(),
        cuda: f.cuda_driver_version.clone(),
        ecc: f.ecc,
        gpu_uuid: known(&f.uuid),
        gpu_serial: known(&f.serial),
        vbios: known(&f.vbios),
        pci_bus_id: known(&f.pci_bus_id),
        invalid_reason: if metric == TIME_METRIC {
            m.invalid_reason.unwrap_or_default().to_string()
        } else {
            String::new()
        },
        nvrtc: known(&f.nvrtc_version),
        ncu: if metric == TIME_METRIC { String::new() } else { at.ncu.unwrap_or_default().to_string() },
    };
    let mut entries = Vec::new();
    let mut samples = BTreeMap::new();
    for m in measured.iter().filter(|m| !m.kept.is_empty()) {
        let s = m.summary;
        let stats = (s.median_s, crate::stats::mad(m.kept), s.mean_s, s.stddev_s, s.min_s);
        entries.push(entry(m, TIME_METRIC, "s", s.n as u64, stats));
        samples.insert(m.trial.to_string(), m.kept.to_vec());
        if let Some((values, units)) = m.counters {
            for (metric, &value) in values {
                let unit = units.get(metric).map_or("", String::as_str);
                entries.push(entry(m, metric, unit, 1, (value, 0.0, value, 0.0, value)));
            }
        }
    }
    (entries, samples)
}

/// Writes `form` (a run in baseline form) as the run record in `dir` (`<stem>-baseline/`), through
/// the store ([`super::Baseline::update`]).
///
/// # Errors
/// As [`super::Baseline::update`].
pub fn keep(dir: &std::path::Path, form: Form) -> crate::error::Result<()> {
    let (entries, samples) = form;
    super::Baseline::update(dir, |record| {
        record.bless(entries, samples);
        Ok(Some(()))
    })
    .map(|_| ())
}

/// Blesses `form` into the baseline folder `dir`, under its lock. Trials whose time entry carries
/// an `invalid_reason` are left out (returned with the reason): a measurement taken under bad
/// conditions never becomes a baseline. A trial with no counter in `form` (ncu did not profile
/// it) keeps the counters it had. Returns the changes and the trials left out.
///
/// # Errors
/// As [`super::Baseline::update`] (a folder that does not load is never rewritten).
pub fn bless(dir: &std::path::Path, form: Form) -> crate::error::Result<Blessed> {
    let (entries, samples) = form;
    let invalid: BTreeMap<String, String> = entries
        .iter()
        .filter(|e| e.is_time() && !e.invalid_reason.is_empty())
        .map(|e| (e.trial.clone(), e.invalid_reason.clone()))
        .collect();
    let good: Vec<Entry> = entries.into_iter().filter(|e| !invalid.contains_key(&e.trial)).collect();
    let samples: BTreeMap<String, Vec<f64>> = samples.into_iter().filter(|(t, _)| !invalid.contains_key(t)).collect();
    let profiled: std::collections::BTreeSet<String> =
        good.iter().filter(|e| !e.is_time()).map(|e| e.trial.clone()).collect();
    let changes = super::Baseline::update(dir, |base| {
        let mut entries = good;
        for trial in samples.keys().filter(|t| !profiled.contains(*t)) {
            entries.extend(base.counters(trial).cloned());
        }
        Ok(Some(base.bless(entries, samples)))
    })?
    .unwrap_or_default();
    Ok((changes, invalid.into_iter().collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_becomes_entries_with_identity_validity_and_counters() {
        let facts = crate::record::tests::facts();
        let summary = Summary {
            n: 5,
            median_s: 2e-4,
            mean_s: 2e-4,
            stddev_s: 1e-6,
            min_s: 1.9e-4,
            max_s: 2.1e-4,
            noise_pct: 0.5,
        };
        let kept = [2e-4, 2.01e-4, 1.99e-4];
        let values = BTreeMap::from([("launch__registers_per_thread".to_string(), 32.0)]);
        let units = BTreeMap::from([("launch__registers_per_thread".to_string(), "register/thread".to_string())]);
        let m = |trial, invalid| Measured {
            trial,
            kernel: "k",
            summary: &summary,
            kept: &kept,
            module_sha256: "ab",
            sm_clock_mhz: Some(1980.0),
            invalid_reason: invalid,
            counters: Some((&values, &units)),
        };
        let at = Provenance { commit: "c0ffee", date: "2026-11-30T03:22:13Z", facts: &facts, ncu: Some("2025.3.1.0") };
        let (entries, samples) = entries(&at, &[m("a/b/1", None), m("a/c/1", Some("other processes (pids [9])"))]);
        assert_eq!(entries.len(), 4);
        assert_eq!(samples["a/b/1"], kept);
        let time = &entries[0];
        assert_eq!((time.metric.as_str(), time.n, time.median), ("time", 5, 2e-4));
        assert!((time.mad - 1e-6).abs() < 1e-15, "MAD of the kept samples: {}", time.mad);
        assert_eq!(time.gpu_uuid, "GPU-20ce1a7a-fd28-021f-c48b-96e110fd8d88");
        assert_eq!(entries[2].invalid_reason, "other processes (pids [9])");
        assert_eq!(entries[3].invalid_reason, "", "validity is the time entry's");
        assert_eq!((entries[1].unit.as_str(), entries[1].median, entries[1].n), ("register/thread", 32.0, 1));
        assert_eq!((time.nvrtc.as_str(), time.ncu.as_str()), (facts.nvrtc_version.as_str(), ""), "time: NVRTC only");
        assert_eq!(entries[1].ncu, "2025.3.1.0", "a counter records the ncu that measured it");
        let mut unknown = facts.clone();
        unknown.serial = "unknown".into();
        let at = Provenance { facts: &unknown, ..at };
        assert_eq!(super::entries(&at, &[m("a/b/1", None)]).0[0].gpu_serial, "", "unknown is an empty field");
    }

    #[test]
    fn bless_leaves_out_invalid_trials_and_keeps_counters_without_ncu() {
        use crate::gate::baseline::Baseline;
        use crate::gate::baseline::tests::entry;
        let dir = tempfile::tempdir().unwrap();
        let counter = entry("a/b/1", "launch__registers_per_thread", 32.0);
        crate::gate::baseline::tests::save(&{
            let mut b = Baseline::empty(dir.path());
            b.bless(
                vec![entry("a/b/1", "time", 1e-3), counter.clone()],
                BTreeMap::from([("a/b/1".into(), vec![1e-3])]),
            );
            b
        })
        .unwrap();
        let mut contended = entry("a/c/1", "time", 2e-3);
        contended.invalid_reason = "other processes computed on the GPU (pids [7])".into();
        let form: Form = (
            vec![entry("a/b/1", "time", 0.9e-3), contended],
            BTreeMap::from([("a/b/1".into(), vec![0.9e-3]), ("a/c/1".into(), vec![2e-3])]),
        );
        let (changes, left_out) = bless(dir.path(), form).unwrap();
        assert_eq!(left_out, vec![("a/c/1".to_string(), "other processes computed on the GPU (pids [7])".to_string())]);
        assert_eq!(changes.len(), 1, "{changes:?}");
        let base = Baseline::load(dir.path()).unwrap();
        assert_eq!(base.time("a/b/1").unwrap().median, 0.9e-3);
        assert!(base.time("a/c/1").is_none(), "an invalid measurement is never blessed");
        assert_eq!(base.counters("a/b/1").next(), Some(&counter), "no ncu this run: the counters stay");
    }
}
