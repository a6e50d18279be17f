//! Options of kernelgate's own, read from `KERNELGATE_*` environment variables in one place.
//!
//! libtest's flags (filters, `--list`, `--exact`, `--ignored`, `--test-threads`) stay libtest's;
//! everything kernelgate adds is an environment variable, as insta and trybuild do, so that
//! `cargo test --release` passes it through untouched. The README lists them with their defaults.

use crate::{Error, Result};
use std::path::PathBuf;

/// When to stop taking timing samples of one case.
///
/// Defaults are nvbench's (`nvbench/detail/measure_cold.cuh`, `stdrel` criterion): at least 10
/// samples and 0.5 s of measured GPU time, then stop once the relative standard deviation is at
/// most 0.5 %, or after 15 s of wall time whatever the noise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StoppingRule {
    /// Fewest samples (`KERNELGATE_MIN_SAMPLES`, default 10).
    pub min_samples: usize,
    /// Least total GPU time of the samples, seconds (`KERNELGATE_MIN_TIME`, default 0.5).
    pub min_time_s: f64,
    /// Noise target: stddev / mean, percent (`KERNELGATE_MAX_NOISE`, default 0.5).
    pub max_noise_pct: f64,
    /// Wall-clock limit for one case's timing loop, seconds (`KERNELGATE_TIMEOUT`, default 15).
    pub timeout_s: f64,
}

impl Default for StoppingRule {
    fn default() -> Self {
        StoppingRule { min_samples: 10, min_time_s: 0.5, max_noise_pct: 0.5, timeout_s: 15.0 }
    }
}

/// Every option kernelgate reads, completed from defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// When to stop sampling.
    pub stopping: StoppingRule,
    /// Untimed launches before the samples (`KERNELGATE_WARMUP`, default 1, as nvbench).
    pub warmup: usize,
    /// Seed of the input generator (`KERNELGATE_SEED`); `None` draws a new one per run, which is
    /// printed so a failure can be replayed.
    pub seed: Option<u64>,
    /// Where run CSVs go (`KERNELGATE_OUT_DIR`); `None` means `<project root>/target/kernelgate`.
    pub out_dir: Option<PathBuf>,
    /// Commit to record instead of HEAD (`KERNELGATE_COMMIT`, a hex id or any revision git2 can
    /// parse); for runners whose copy of the repository has objects but no refs.
    pub commit: Option<String>,
    /// Profile the selected trials with Nsight Compute and check their counter expectations
    /// (`KERNELGATE_NCU=1`).
    pub ncu: bool,
    /// The ncu executable (`KERNELGATE_NCU_PATH`, default `ncu` on PATH).
    pub ncu_path: PathBuf,
    /// ncu's `--clock-control` (`KERNELGATE_NCU_CLOCK_CONTROL`, default `none`: leave the GPU's
    /// clocks as they are, as the runner's rules ask; ncu's own default, `base`, locks them).
    pub ncu_clock_control: String,
    /// Write the trials' results into the baseline (`KERNELGATE_BLESS=1`): only the trials run,
    /// and only those that passed their check.
    pub bless: bool,
    /// Folder holding one baseline folder per GPU key (`KERNELGATE_BASELINES`, default
    /// `<project root>/baselines`).
    pub baselines: Option<PathBuf>,
    /// Raw samples kept per trial in a blessed baseline for the two-sample test
    /// (`KERNELGATE_BASELINE_SAMPLES`, default 1000, evenly spaced over the run).
    pub baseline_samples: usize,
    /// Family-wise significance level of the gate (`KERNELGATE_ALPHA`, default 0.05, criterion.rs's
    /// `significance_level`).
    pub alpha: f64,
    /// Smallest change ever called a regression, percent (`KERNELGATE_MIN_EFFECT`, default 1,
    /// criterion.rs's `noise_threshold` of 0.01); the baseline's own noise can raise it.
    pub min_effect_pct: f64,
    /// Verdicts that fail a trial (`KERNELGATE_FAIL_ON`, comma-separated from `regressed`,
    /// `ambiguous`, `invalid`; default `regressed`).
    pub fail_on: Vec<String>,
    /// Compare `time` (seconds, default) or `cycles` (seconds x the SM clock NVML read after each
    /// sample), `KERNELGATE_COMPARE`.
    pub compare_cycles: bool,
    /// Fail GPU trials instead of ignoring them when no GPU is usable (`KERNELGATE_REQUIRE_GPU=1`);
    /// for GPU runners, where a broken driver must not pass as "ignored".
    pub require_gpu: bool,
    /// Fail the NVRTC compile trials instead of ignoring them when libnvrtc is missing
    /// (`KERNELGATE_REQUIRE_NVRTC=1`); CI sets it so the compile check cannot silently vanish.
    pub require_nvrtc: bool,
    /// Work multiplier for the gate's power benchmark (`KERNELGATE_WORK_SCALE`, default 1, from 0.5
    /// to 2): every case runs at its problem size times this factor under its nominal trial name,
    /// so it is judged against the nominal baseline (`crate::cases::scaled`). A run with a factor
    /// other than 1 records it in the run CSV's `work_scale` column and cannot bless.
    pub work_scale: f64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            stopping: StoppingRule::default(),
            warmup: 1,
            seed: None,
            out_dir: None,
            commit: None,
            ncu: false,
            ncu_path: PathBuf::from("ncu"),
            ncu_clock_control: "none".to_string(),
            bless: false,
            baselines: None,
            baseline_samples: 1000,
            alpha: 0.05,
            min_effect_pct: 1.0,
            fail_on: vec!["regressed".to_string()],
            compare_cycles: false,
            require_gpu: false,
            require_nvrtc: false,
            work_scale: 1.0,
        }
    }
}

impl Config {
    /// Reads the process environment.
    ///
    /// # Errors
    /// [`Error::Config`] naming the first variable whose value does not parse.
    pub fn from_env() -> Result<Config> {
        Config::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads options through `lookup` (a variable name to its value); the pure core of
    /// [`Config::from_env`], testable without touching the environment.
    ///
    /// # Errors
    /// [`Error::Config`] naming the first variable whose value does not parse.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Config> {
        let d = Config::default();
        let s = d.stopping;
        let config = Config {
            stopping: StoppingRule {
                min_samples: parse(&lookup, "KERNELGATE_MIN_SAMPLES", s.min_samples, positive, WHOLE_POSITIVE)?,
                min_time_s: parse(&lookup, "KERNELGATE_MIN_TIME", s.min_time_s, non_negative, DECIMAL_NON_NEGATIVE)?,
                max_noise_pct: parse(
                    &lookup,
                    "KERNELGATE_MAX_NOISE",
                    s.max_noise_pct,
                    non_negative,
                    DECIMAL_NON_NEGATIVE,
                )?,
                timeout_s: parse(&lookup, "KERNELGATE_TIMEOUT", s.timeout_s, positive, DECIMAL_POSITIVE)?,
            },
            warmup: parse(&lookup, "KERNELGATE_WARMUP", d.warmup, |_| true, WHOLE)?,
            seed: match lookup("KERNELGATE_SEED") {
                None => None,
                Some(v) => Some(parse_value("KERNELGATE_SEED", &v, |_: &u64| true, "a whole number below 2^64")?),
            },
            out_dir: lookup("KERNELGATE_OUT_DIR").filter(|v| !v.is_empty()).map(PathBuf::from),
            commit: lookup("KERNELGATE_COMMIT").map(|v| v.trim().to_string()).filter(|v| !v.is_empty()),
            ncu: flag(&lookup, "KERNELGATE_NCU")?,
            ncu_path: lookup("KERNELGATE_NCU_PATH").filter(|v| !v.is_empty()).map_or(d.ncu_path, PathBuf::from),
            ncu_clock_control: match lookup("KERNELGATE_NCU_CLOCK_CONTROL").as_deref().map(str::trim) {
                None | Some("") => d.ncu_clock_control,
                Some(v @ ("none" | "base")) => v.to_string(),
                Some(other) => {
                    return Err(Error::Config {
                        name: "KERNELGATE_NCU_CLOCK_CONTROL",
                        value: other.to_string(),
                        expected: "expected none or base (ncu --clock-control)".into(),
                    });
                }
            },
            bless: flag(&lookup, "KERNELGATE_BLESS")?,
            baselines: lookup("KERNELGATE_BASELINES").filter(|v| !v.is_empty()).map(PathBuf::from),
            baseline_samples: parse(
                &lookup,
                "KERNELGATE_BASELINE_SAMPLES",
                d.baseline_samples,
                positive,
                WHOLE_POSITIVE,
            )?,
            alpha: parse(
                &lookup,
                "KERNELGATE_ALPHA",
                d.alpha,
                |a: &f64| *a > 0.0 && *a < 1.0,
                "a decimal number between 0 and 1, both excluded",
            )?,
            min_effect_pct: parse(
                &lookup,
                "KERNELGATE_MIN_EFFECT",
                d.min_effect_pct,
                non_negative,
                DECIMAL_NON_NEGATIVE,
            )?,
            fail_on: match lookup("KERNELGATE_FAIL_ON") {
                None => d.fail_on,
                Some(v) => {
                    let list: Vec<String> =
                        v.split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect();
                    if let Some(bad) =
                        list.iter().find(|x| !["regressed", "ambiguous", "invalid"].contains(&x.as_str()))
                    {
                        return Err(Error::Config {
                            name: "KERNELGATE_FAIL_ON",
                            value: v.clone(),
                            expected: format!(
                                "{bad:?} is not a verdict; use a comma-separated list of regressed, ambiguous, invalid"
                            ),
                        });
                    }
                    list
                }
            },
            compare_cycles: match lookup("KERNELGATE_COMPARE").as_deref().map(str::trim) {
                None | Some("") | Some("time") => false,
                Some("cycles") => true,
                Some(other) => {
                    return Err(Error::Config {
                        name: "KERNELGATE_COMPARE",
                        value: other.to_string(),
                        expected: "expected time or cycles".into(),
                    });
                }
            },
            require_gpu: flag(&lookup, "KERNELGATE_REQUIRE_GPU")?,
            require_nvrtc: flag(&lookup, "KERNELGATE_REQUIRE_NVRTC")?,
            work_scale: parse(
                &lookup,
                "KERNELGATE_WORK_SCALE",
                d.work_scale,
                |f: &f64| (0.5..=2.0).contains(f),
                "a decimal number from 0.5 to 2",
            )?,
        };
        if config.bless && config.work_scale != 1.0 {
            return Err(Error::Config {
                name: "KERNELGATE_WORK_SCALE",
                value: config.work_scale.to_string(),
                expected: "a run with scaled work cannot bless (KERNELGATE_BLESS=1): its times are not the nominal \
                           cases'; unset one of the two"
                    .into(),
            });
        }
        Ok(config)
    }
}

const WHOLE: &str = "a whole number";
const WHOLE_POSITIVE: &str = "a whole number of at least 1";
const DECIMAL_NON_NEGATIVE: &str = "a decimal number of at least 0";
const DECIMAL_POSITIVE: &str = "a decimal number above 0";

fn positive<T: PartialOrd + Default>(v: &T) -> bool {
    *v > T::default()
}

fn non_negative<T: PartialOrd + Default>(v: &T) -> bool {
    *v >= T::default()
}

fn parse<T>(
    lookup: &impl Fn(&str) -> Option<String>,
    name: &'static str,
    default: T,
    valid: impl Fn(&T) -> bool,
    says: &str,
) -> Result<T>
where
    T: std::str::FromStr,
{
    match lookup(name) {
        None => Ok(default),
        Some(v) if v.trim().is_empty() => Ok(default),
        Some(v) => parse_value(name, &v, valid, says),
    }
}

/// Parses `value`; the error says what a valid value is (`says`, e.g. "a whole number of at least 1").
fn parse_value<T: std::str::FromStr>(
    name: &'static str,
    value: &str,
    valid: impl Fn(&T) -> bool,
    says: &str,
) -> Result<T> {
    match value.trim().parse::<T>() {
        Ok(v) if valid(&v) => Ok(v),
        _ => Err(Error::Config {
            name,
            value: value.to_string(),
            expected: format!("expected {says}; unset it to use the default"),
        }),
    }
}

fn flag(lookup: &impl Fn(&str) -> Option<String>, name: &'static str) -> Result<bool> {
    match lookup(name).as_deref().map(str::trim) {
        None | Some("") | Some("0") => Ok(false),
        Some("1") => Ok(true),
        Some(other) => {
            Err(Error::Config { name, value: other.to_string(), expected: "expected 1 (on) or 0 (off)".into() })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(pairs: &[(&str, &str)]) -> Result<Config> {
        let pairs: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_lookup(move |name| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    #[test]
    fn defaults_are_nvbench_defaults() {
        let c = with(&[]).unwrap();
        assert_eq!(c, Config::default());
        assert_eq!(c.stopping.min_samples, 10);
        assert_eq!(c.stopping.min_time_s, 0.5);
        assert_eq!(c.stopping.max_noise_pct, 0.5);
        assert_eq!(c.stopping.timeout_s, 15.0);
    }

    #[test]
    fn values_override_defaults() {
        let c = with(&[
            ("KERNELGATE_MIN_SAMPLES", "25"),
            ("KERNELGATE_MIN_TIME", "0.1"),
            ("KERNELGATE_MAX_NOISE", "1.5"),
            ("KERNELGATE_TIMEOUT", "3"),
            ("KERNELGATE_SEED", "42"),
            ("KERNELGATE_OUT_DIR", "/tmp/x"),
            ("KERNELGATE_REQUIRE_GPU", "1"),
        ])
        .unwrap();
        assert_eq!(c.stopping.min_samples, 25);
        assert_eq!(c.stopping.min_time_s, 0.1);
        assert_eq!(c.stopping.max_noise_pct, 1.5);
        assert_eq!(c.stopping.timeout_s, 3.0);
        assert_eq!(c.seed, Some(42));
        assert_eq!(c.out_dir, Some(PathBuf::from("/tmp/x")));
        assert!(c.require_gpu && !c.require_nvrtc);
        let ncu = with(&[
            ("KERNELGATE_NCU", "1"),
            ("KERNELGATE_NCU_PATH", "/opt/ncu"),
            ("KERNELGATE_NCU_CLOCK_CONTROL", "base"),
        ])
        .unwrap();
        assert!(ncu.ncu);
        assert_eq!(ncu.ncu_path, PathBuf::from("/opt/ncu"));
        assert_eq!(ncu.ncu_clock_control, "base");
        let gate = with(&[
            ("KERNELGATE_BLESS", "1"),
            ("KERNELGATE_FAIL_ON", "regressed, invalid"),
            ("KERNELGATE_COMPARE", "cycles"),
            ("KERNELGATE_MIN_EFFECT", "2.5"),
        ])
        .unwrap();
        assert!(gate.bless && gate.compare_cycles);
        assert_eq!(gate.fail_on, vec!["regressed", "invalid"]);
        assert_eq!(gate.min_effect_pct, 2.5);
    }

    #[test]
    fn messages_say_what_is_valid() {
        let err = with(&[("KERNELGATE_MIN_SAMPLES", "0")]).unwrap_err().to_string();
        assert!(err.contains("a whole number of at least 1"), "{err}");
        let err = with(&[("KERNELGATE_ALPHA", "2")]).unwrap_err().to_string();
        assert!(err.contains("between 0 and 1"), "{err}");
    }

    #[test]
    fn scaled_work_is_for_benchmarks_only() {
        assert_eq!(with(&[("KERNELGATE_WORK_SCALE", "1.02")]).unwrap().work_scale, 1.02);
        let err = with(&[("KERNELGATE_WORK_SCALE", "1.02"), ("KERNELGATE_BLESS", "1")]).unwrap_err().to_string();
        assert!(err.contains("KERNELGATE_WORK_SCALE") && err.contains("cannot bless"), "{err}");
        assert!(with(&[("KERNELGATE_WORK_SCALE", "1"), ("KERNELGATE_BLESS", "1")]).is_ok());
    }

    #[test]
    fn bad_values_name_the_variable() {
        for (name, value) in [
            ("KERNELGATE_MIN_SAMPLES", "0"),
            ("KERNELGATE_MIN_SAMPLES", "ten"),
            ("KERNELGATE_MIN_TIME", "-1"),
            ("KERNELGATE_TIMEOUT", "0"),
            ("KERNELGATE_SEED", "0x1"),
            ("KERNELGATE_REQUIRE_GPU", "yes"),
            ("KERNELGATE_NCU", "true"),
            ("KERNELGATE_NCU_CLOCK_CONTROL", "max"),
            ("KERNELGATE_FAIL_ON", "regressed,slow"),
            ("KERNELGATE_COMPARE", "ticks"),
            ("KERNELGATE_ALPHA", "1.5"),
            ("KERNELGATE_WORK_SCALE", "3"),
        ] {
            let err = with(&[(name, value)]).unwrap_err().to_string();
            assert!(err.contains(name) && err.contains(value), "{err}");
            assert!(!err.contains("non-negative"), "0 is non-negative; say what is valid: {err}");
        }
    }
}
