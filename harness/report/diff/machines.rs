//! Whether two sides of a diff were measured on comparable machines (pure). Times of two GPU models
//! (or two compute capabilities) do not compare at all, so such a diff is refused, as `kernelgate
//! compare` refuses such records (`crate::gate::compare_records`). A different driver or SM clock
//! does not stop the diff, but the report must say so before its numbers.

use super::{Measurement, Side};
use std::collections::BTreeSet;

/// The statistic that holds a trial's median SM clock, MHz (the run CSV's `sm_clock` row,
/// `crate::record::statistics`).
pub const SM_CLOCK_METRIC: &str = "sm_clock";

/// A relative difference of the two sides' median SM clocks beyond this (1 %) is named in a note:
/// the threshold at which `kernelgate compare` warns of another SM clock
/// (`crate::gate::compare_records`), and the gate's default effect floor (`KERNELGATE_MIN_EFFECT`),
/// which a time scaled by such a clock change would already reach.
pub const CLOCK_NOTE_THRESHOLD: f64 = 0.01;

/// What one run of a side was measured on (plain data, from the run's recorded fingerprint).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Machine {
    /// The GPU key, `vendor-model-smXY` (`nvidia-h200-sm90`): model and compute capability.
    pub gpu_key: String,
    /// The device name, `NVIDIA H200`; empty where the run did not record it.
    pub gpu_name: String,
    /// The driver version (`580.159.04`); empty where unknown.
    pub driver: String,
    /// The driver's CUDA version (`13.0`); empty where unknown.
    pub cuda: String,
}

impl Machine {
    /// The compute capability the GPU key ends in (`-sm90` -> `9.0`, `-sm100` -> `10.0`); `None`
    /// for a key without that suffix.
    pub fn compute_capability(&self) -> Option<String> {
        let digits = self.gpu_key.rsplit_once("-sm")?.1;
        if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let (major, minor) = digits.split_at(digits.len() - 1);
        Some(format!("{major}.{minor}"))
    }

    /// The model as a sentence names it: `NVIDIA H200 (nvidia-h200-sm90, compute capability 9.0)`.
    fn model(&self) -> String {
        let cc = self.compute_capability().map_or(String::new(), |cc| format!(", compute capability {cc}"));
        if self.gpu_name.is_empty() {
            format!("GPU key {}{cc}", self.gpu_key)
        } else {
            format!("{} ({}{cc})", self.gpu_name, self.gpu_key)
        }
    }

    /// `580.159.04 (CUDA 13.0)`, or `an unrecorded driver`.
    fn driver_text(&self) -> String {
        match (self.driver.is_empty(), self.cuda.is_empty()) {
            (true, true) => "an unrecorded driver".into(),
            (false, true) => self.driver.clone(),
            (true, false) => format!("an unrecorded driver (CUDA {})", self.cuda),
            (false, false) => format!("{} (CUDA {})", self.driver, self.cuda),
        }
    }
}

/// Checks that the old side's runs (`old`, measured on `old_machines`, with their rows) and the new
/// side's compare, and returns the notes the report must show before its numbers: one when the
/// sides ran with different drivers, one when their median SM clocks (the [`SM_CLOCK_METRIC`] rows)
/// differ by more than [`CLOCK_NOTE_THRESHOLD`].
///
/// # Errors
/// [`crate::Error::Compare`], a sentence, when the runs of the two sides (or of one side) ran on more than one GPU model: a
/// model is a GPU key with its device name; the sentence names each side's models with their
/// compute capabilities, and the fix.
pub fn compare(
    old: (&Side, &[Machine], &[Measurement]),
    new: (&Side, &[Machine], &[Measurement]),
) -> crate::Result<Vec<String>> {
    let models = |machines: &[Machine]| -> BTreeSet<(String, String)> {
        machines.iter().map(|m| (m.gpu_key.clone(), m.gpu_name.clone())).collect()
    };
    let (old_models, new_models) = (models(old.1), models(new.1));
    let all: BTreeSet<&String> = old_models.iter().chain(&new_models).map(|(key, _)| key).collect();
    let names: BTreeSet<&String> =
        old_models.iter().chain(&new_models).map(|(_, name)| name).filter(|n| !n.is_empty()).collect();
    if all.len() > 1 || names.len() > 1 {
        let list = |machines: &[Machine]| -> String {
            let mut seen: Vec<String> = machines.iter().map(Machine::model).collect();
            seen.sort();
            seen.dedup();
            seen.join(" and ")
        };
        return Err(crate::Error::Compare(format!(
            "the old side ({}) ran on {} and the new side ({}) on {}: times of different GPU models are not \
             comparable, so no diff is made; diff two sides of one GPU key (`kernelgate history runs` lists the runs \
             of each, --gpu KEY picks one)",
            old.0.label,
            list(old.1),
            new.0.label,
            list(new.1)
        )));
    }
    let mut notes = Vec::new();
    let drivers = |machines: &[Machine]| -> BTreeSet<String> { machines.iter().map(Machine::driver_text).collect() };
    let (old_drivers, new_drivers) = (drivers(old.1), drivers(new.1));
    if old_drivers != new_drivers {
        let join = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(", ");
        notes.push(format!(
            "the sides ran with different drivers (old: {}; new: {}): a driver can change times by itself, so \
             compare runs of one driver, or time both sides in one run (KERNELGATE_AB)",
            join(&old_drivers),
            join(&new_drivers)
        ));
    }
    if let (Some(a), Some(b)) = (median_clock(old.2), median_clock(new.2))
        && a > 0.0
        && (b / a - 1.0).abs() > CLOCK_NOTE_THRESHOLD
    {
        notes.push(format!(
            "the sides ran at different SM clocks (median over their trials: old {} MHz, new {} MHz, {:+.1} %): \
             times scale with the clock, so part of each change may be the clock's; compare runs at one clock \
             (nvidia-smi --lock-gpu-clocks), or time both sides in one run (KERNELGATE_AB)",
            crate::units::significant(a),
            crate::units::significant(b),
            100.0 * (b / a - 1.0)
        ));
    }
    Ok(notes)
}

/// The median of a side's finite [`SM_CLOCK_METRIC`] rows, MHz; `None` without one.
fn median_clock(rows: &[Measurement]) -> Option<f64> {
    let mut clocks: Vec<f64> =
        rows.iter().filter(|r| r.metric == SM_CLOCK_METRIC && r.value.is_finite()).map(|r| r.value).collect();
    if clocks.is_empty() {
        return None;
    }
    clocks.sort_by(f64::total_cmp);
    let n = clocks.len();
    Some(if n % 2 == 1 { clocks[n / 2] } else { (clocks[n / 2 - 1] + clocks[n / 2]) / 2.0 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::diff::tests::row;

    /// The fingerprints of the turn-3 field report 15's run CSVs (an H200 and an A100 run).
    fn h200() -> Machine {
        Machine {
            gpu_key: "nvidia-h200-sm90".into(),
            gpu_name: "NVIDIA H200".into(),
            driver: "580.159.04".into(),
            cuda: "13.0".into(),
        }
    }

    fn a100() -> Machine {
        Machine { gpu_key: "nvidia-a100-sxm4-80gb-sm80".into(), gpu_name: "NVIDIA A100-SXM4-80GB".into(), ..h200() }
    }

    fn side(label: &str) -> Side {
        Side { label: label.into(), ..Side::default() }
    }

    #[test]
    fn compute_capability_comes_from_the_key() {
        assert_eq!(h200().compute_capability().as_deref(), Some("9.0"));
        let b200 = Machine { gpu_key: "nvidia-b200-sm100".into(), ..h200() };
        assert_eq!(b200.compute_capability().as_deref(), Some("10.0"));
        assert_eq!(Machine { gpu_key: "unknown".into(), ..h200() }.compute_capability(), None);
    }

    #[test]
    fn another_model_is_refused_naming_both() {
        let (a, b) = (side("h200.csv (72a91c3)"), side("a100.csv (72a91c3)"));
        let e = compare((&a, &[h200()], &[]), (&b, &[a100()], &[])).unwrap_err().to_string();
        assert!(
            e.starts_with(
                "the old side (h200.csv (72a91c3)) ran on NVIDIA H200 (nvidia-h200-sm90, compute capability 9.0) and \
                 the new side (a100.csv (72a91c3)) on NVIDIA A100-SXM4-80GB (nvidia-a100-sxm4-80gb-sm80, compute \
                 capability 8.0): times of different GPU models are not comparable"
            ),
            "{e}"
        );
        // One side mixing two models is refused too.
        assert!(compare((&a, &[h200(), a100()], &[]), (&b, &[h200()], &[])).is_err());
        // One key under two device names is two models too.
        let renamed = Machine { gpu_name: "NVIDIA H200 NVL".into(), ..h200() };
        assert!(compare((&a, &[h200()], &[]), (&b, &[renamed], &[])).is_err());
    }

    #[test]
    fn another_driver_or_clock_is_named() {
        let (a, b) = (side("old"), side("new"));
        assert_eq!(compare((&a, &[h200()], &[]), (&b, &[h200()], &[])).unwrap(), Vec::<String>::new());
        let other = Machine { driver: "575.57.08".into(), cuda: "12.9".into(), ..h200() };
        let notes = compare((&a, &[h200()], &[]), (&b, &[other], &[])).unwrap();
        assert_eq!(
            notes,
            ["the sides ran with different drivers (old: 580.159.04 (CUDA 13.0); new: 575.57.08 (CUDA 12.9)): a \
              driver can change times by itself, so compare runs of one driver, or time both sides in one run \
              (KERNELGATE_AB)"]
        );
        // Made-up clocks: 1980 MHz against 1755 MHz is named, 1980 against 1975 is not.
        let clock = |mhz: f64| vec![row("t/k/1", SM_CLOCK_METRIC, "MHz", mhz, "unchanged")];
        let (fast, slow, near) = (clock(1980.0), clock(1755.0), clock(1975.0));
        let notes = compare((&a, &[h200()], &fast), (&b, &[h200()], &slow)).unwrap();
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].starts_with(
                "the sides ran at different SM clocks (median over their trials: old 1980 MHz, new 1755 MHz, -11.4 %)"
            ),
            "{}",
            notes[0]
        );
        assert_eq!(compare((&a, &[h200()], &fast), (&b, &[h200()], &near)).unwrap(), Vec::<String>::new());
    }
}
