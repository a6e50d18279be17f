//! The ceilings stage: what each GPU can do, measured at the start of a run under the suite's own
//! conditions, and each trial placed against the ceiling that bounds it.
//!
//! | part | what | touches |
//! |---|---|---|
//! | this file | a ceiling from its samples, arithmetic intensity, the ridge point, the bound of a trial, % of it | nothing (pure) |
//! | [`probe`] | the measurements: `ceilings.cu` (the library's own, built in) and the copy, timed with CUDA events | GPU |
//! | [`file`](mod@file) | the run's `<run>-ceilings.csv` | files |
//!
//! The classification is the roofline model's (Williams, Waterman & Patterson 2009, "Roofline: an
//! insightful visual performance model for multicore architectures", CACM 52(4)): a kernel whose
//! arithmetic intensity (FLOPs per byte of device memory) is below the ridge point (peak FLOP/s /
//! peak bytes/s) is bound by memory, above it by arithmetic. The run's roofline picture is a report:
//! [`crate::report::roofline`].

pub mod file;
pub mod probe;

use crate::model::{Bound, Ceiling, Ceilings, Measured};

/// A ceiling from its timed samples: `work` per sample (bytes, FLOPs or launches, as
/// [`Measured::work`]), `seconds` the event times of the samples. Rates are `work / median time`
/// in units of 1e9 per second (GB/s, GFLOP/s), as the copy bandwidth has always been computed;
/// launch times are `median time / work` seconds per launch. The spread is MAD / median of the
/// times (`crate::stats::mad`, unscaled).
///
/// # Panics
/// If `seconds` is empty or its median is not positive (a timing bug, never a measurement).
pub fn measured(ceiling: Ceiling, work: f64, seconds: &[f64]) -> Measured {
    let median = crate::stats::median(seconds);
    assert!(median > 0.0, "{ceiling}: median sample time {median} s");
    let value = if ceiling.is_rate() { work / median / 1e9 } else { median / work };
    Measured { ceiling, value, spread: crate::stats::mad(seconds) / median, samples: seconds.len(), work }
}

/// Arithmetic intensity, FLOP per byte of device memory; `None` when the case declares no bytes.
pub fn intensity(flops: u64, bytes: u64) -> Option<f64> {
    (bytes > 0).then(|| flops as f64 / bytes as f64)
}

/// The ridge point, FLOP/byte: the FMA peak over the copy bandwidth (both as measured; GFLOP/s over
/// GB/s). A kernel of higher intensity is bound by arithmetic. The copy bandwidth is the memory roof
/// here because it is the default memory ceiling ([`bound`]); `None` without both.
pub fn ridge(ceilings: &Ceilings) -> Option<f64> {
    Some(ceilings.value(Ceiling::Fma)? / ceilings.value(Ceiling::Copy)?)
}

/// The ceiling a trial is judged against: the one the case declares (`Case::bound_by`), else
/// derived: [`Ceiling::Fma`] when it declares FLOPs and no bytes or an intensity at or above the
/// [`ridge`], [`Ceiling::Copy`] when it declares bytes (a kernel that reads and writes is bound by
/// both directions of traffic, which a device-to-device copy measures), none when it declares
/// neither. `None` too when the ceiling was not measured on this GPU.
pub fn bound(declared: Option<Ceiling>, bytes: u64, flops: u64, ceilings: &Ceilings) -> Option<Bound> {
    let (ceiling, is_declared) = match declared {
        Some(c) => (c, true),
        None => {
            let compute = match (intensity(flops, bytes), ridge(ceilings)) {
                (None, _) => flops > 0,
                (Some(i), Some(r)) => flops > 0 && i >= r,
                (Some(_), None) => false,
            };
            match (compute, bytes > 0) {
                (true, _) => (Ceiling::Fma, false),
                (false, true) => (Ceiling::Copy, false),
                (false, false) => return None,
            }
        }
    };
    let m = ceilings.get(ceiling)?;
    Some(Bound { ceiling, value: m.value, spread: m.spread, declared: is_declared })
}

/// What a trial achieved in its bound's unit: bytes / median (GB/s) for a bandwidth, FLOPs / median
/// (GFLOP/s) for [`Ceiling::Fma`]; `None` for a launch time.
pub fn achieved(ceiling: Ceiling, bytes: u64, flops: u64, median_s: f64) -> Option<f64> {
    if !ceiling.is_rate() {
        return None;
    }
    let work = if ceiling.is_bandwidth() { bytes } else { flops };
    Some(work as f64 / median_s / 1e9)
}

/// A trial's achieved rate as a percentage of its bound's measured value.
pub fn pct_of(bound: &Bound, bytes: u64, flops: u64, median_s: f64) -> Option<f64> {
    Some(100.0 * achieved(bound.ceiling, bytes, flops, median_s)? / bound.value)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Ceilings for tests: the copy bandwidth of the committed H200 run `20261201T165209Z-8c8c911`
    /// (4223.2 GB/s, its `copy_bandwidth_gbps`); every other value is a fixture input, not a
    /// measurement (no committed run measured them).
    pub(crate) fn fixture() -> Ceilings {
        let m = |ceiling, value| Measured { ceiling, value, spread: 0.002, samples: 20, work: 1.0 };
        Ceilings {
            wall_s: 0.0,
            measured: vec![
                m(Ceiling::DramRead, 3800.0),
                m(Ceiling::DramWrite, 3900.0),
                m(Ceiling::Copy, 4223.206434886277),
                m(Ceiling::Fma, 60000.0),
                m(Ceiling::Shared, 30000.0),
            ],
        }
    }

    #[test]
    fn a_ceiling_is_work_over_the_median_time_and_its_spread_the_relative_mad() {
        // 1 GB in 1, 2, 4 ms: median 2 ms -> 500 GB/s; deviations 1, 0, 2 ms -> MAD 1 ms -> 0.5.
        let m = measured(Ceiling::DramRead, 1e9, &[1e-3, 2e-3, 4e-3]);
        assert_eq!((m.value, m.spread, m.samples), (500.0, 0.5, 3));
        // 100 launches in 200 us -> 2 us per launch.
        let l = measured(Ceiling::Launch, 100.0, &[200e-6, 200e-6]);
        assert!((l.value - 2e-6).abs() < 1e-18 && l.spread == 0.0);
    }

    #[test]
    fn intensity_and_the_ridge_point() {
        assert_eq!(intensity(8, 4), Some(2.0));
        assert_eq!(intensity(8, 0), None);
        let r = ridge(&fixture()).unwrap();
        assert!((r - 60000.0 / 4223.206434886277).abs() < 1e-12, "{r}");
        assert_eq!(ridge(&Ceilings::default()), None);
    }

    #[test]
    fn the_bound_is_declared_or_derived_from_the_ridge() {
        let c = fixture();
        let r = ridge(&c).unwrap();
        let of = |declared, bytes: u64, flops: f64| {
            bound(declared, bytes, flops as u64, &c).map(|b| (b.ceiling, b.declared))
        };
        // Below the ridge: memory, the copy ceiling by default; at or above it: the FMA peak.
        assert_eq!(of(None, 1 << 20, 0.0), Some((Ceiling::Copy, false)));
        assert_eq!(of(None, 1 << 20, (r * 0.99) * f64::from(1 << 20)), Some((Ceiling::Copy, false)));
        assert_eq!(of(None, 1 << 20, (r * 1.01) * f64::from(1 << 20)), Some((Ceiling::Fma, false)));
        assert_eq!(of(None, 0, 1e6), Some((Ceiling::Fma, false)));
        assert_eq!(of(None, 0, 0.0), None);
        // Declared wins, whatever the intensity.
        assert_eq!(of(Some(Ceiling::DramRead), 1 << 20, 1e12), Some((Ceiling::DramRead, true)));
        assert_eq!(of(Some(Ceiling::Fma), 1 << 20, 0.0), Some((Ceiling::Fma, true)));
        // Not measured: no bound.
        assert_eq!(bound(Some(Ceiling::Fma), 8, 8, &Ceilings::default()), None);
        assert_eq!(bound(None, 8, 0, &Ceilings::default()), None);
    }

    #[test]
    fn percent_of_the_bound() {
        let c = fixture();
        // The committed run's coalescing/copy/67108864: 536870912 bytes in 202.7519941329956 us.
        let copy = bound(None, 536_870_912, 0, &c).unwrap();
        let pct = pct_of(&copy, 536_870_912, 0, 0.0002027519941329956).unwrap();
        assert!((pct - 100.0 * 536_870_912.0 / 0.0002027519941329956 / 1e9 / 4223.206434886277).abs() < 1e-9);
        assert!((pct - 62.70).abs() < 0.01, "{pct}");
        // An FMA-bound trial divides FLOPs, not bytes: 6e10 FLOP in 2 ms = 30000 GFLOP/s = 50 %.
        let fma = bound(Some(Ceiling::Fma), 1, 60_000_000_000, &c).unwrap();
        assert!((pct_of(&fma, 1, 60_000_000_000, 2e-3).unwrap() - 50.0).abs() < 1e-9);
        assert_eq!(achieved(Ceiling::Launch, 1, 1, 1.0), None);
    }

    #[test]
    fn names_round_trip_and_only_rates_have_a_statistic() {
        for c in Ceiling::ALL {
            assert_eq!(Ceiling::from_name(c.name()), Some(c));
            assert_eq!(c.pct_statistic().is_some(), c.is_rate(), "{c}");
        }
        assert_eq!(Ceiling::from_name("dram"), None);
    }
}
