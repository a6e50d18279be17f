//! Reading [`Config`] from the `KERNELGATE_*` environment variables: the list of variables, the
//! range checks, and the parse of each value (a bad value is an [`Error::Config`] naming it).

use super::*;
use crate::{Error, Result};

/// The `KERNELGATE_*` variables kernelgate reads; any other variable with the prefix is a typo and
/// refused ([`Config::from_lookup`] is given the names present).
pub const VARIABLES: &[&str] = &[
    "KERNELGATE_AB",
    "KERNELGATE_AB_B",
    "KERNELGATE_AB_IDENTICAL",
    "KERNELGATE_ALPHA",
    "KERNELGATE_BASELINES",
    "KERNELGATE_BASELINE_SAMPLES",
    "KERNELGATE_BLESS",
    "KERNELGATE_COMMIT",
    "KERNELGATE_COMPARE",
    "KERNELGATE_DEVICES",
    "KERNELGATE_FAIL_ON",
    "KERNELGATE_HISTORY",
    "KERNELGATE_ISOLATE",
    "KERNELGATE_KERNEL_TIMEOUT",
    "KERNELGATE_JUNIT",
    "KERNELGATE_MAX_NOISE",
    "KERNELGATE_MIN_EFFECT",
    "KERNELGATE_MIN_SAMPLES",
    "KERNELGATE_MIN_TIME",
    "KERNELGATE_NCU",
    "KERNELGATE_NCU_CLOCK_CONTROL",
    "KERNELGATE_NCU_PATH",
    "KERNELGATE_NOTES",
    "KERNELGATE_NVRTC",
    "KERNELGATE_OUT_DIR",
    "KERNELGATE_PLANTED",
    "KERNELGATE_PRECISION",
    "KERNELGATE_PROFILE_TRIALS",
    // Read by tests/report_html.rs and tests/ab_report.rs, not by the suite: a missing `chromium` fails them.
    "KERNELGATE_REQUIRE_CHROMIUM",
    "KERNELGATE_REQUIRE_GPU",
    "KERNELGATE_REQUIRE_NVRTC",
    // Read by tests/suite_reports.rs, not by the suite: a missing `xmllint` fails its JUnit schema check.
    "KERNELGATE_REQUIRE_XMLLINT",
    "KERNELGATE_SANITIZE",
    "KERNELGATE_SANITIZER_PATH",
    "KERNELGATE_SANITIZE_SCALE",
    "KERNELGATE_SANITIZE_TRIALS",
    "KERNELGATE_SEED",
    "KERNELGATE_STOP",
    "KERNELGATE_TIMEOUT",
    "KERNELGATE_WARMUP",
    "KERNELGATE_WORK_SCALE",
];

/// A finite number in `range`, with the sentence that says so.
struct Range {
    lo: f64,
    lo_open: bool,
    hi: f64,
    says: &'static str,
}

impl Range {
    fn holds(&self, v: f64) -> bool {
        v.is_finite() && (if self.lo_open { v > self.lo } else { v >= self.lo }) && v <= self.hi
    }
}

impl Config {
    /// Reads the process environment.
    ///
    /// # Errors
    /// [`Error::Config`] naming the first variable whose value is not valid, with what is;
    /// [`Error::UnknownOption`] for a `KERNELGATE_*` variable kernelgate does not read.
    pub fn from_env() -> Result<Config> {
        let names: Vec<String> = std::env::vars_os()
            .filter_map(|(k, _)| k.into_string().ok())
            .filter(|k| k.starts_with("KERNELGATE_"))
            .collect();
        if let Some(typo) = names.iter().find(|n| !VARIABLES.contains(&n.as_str())) {
            // The profiled child's variable is set by kernelgate itself, not listed for users.
            let children = [crate::ncu::run::CHILD_ENV, crate::sanitize::CHILD_ENV];
            let options: Vec<&str> = VARIABLES.iter().copied().filter(|v| !children.contains(v)).collect();
            return Err(Error::UnknownOption { name: typo.clone(), options: options.join(", ") });
        }
        Config::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads options through `lookup` (a variable name to its value); the pure core of
    /// [`Config::from_env`], testable without touching the environment. Every value is checked at
    /// this boundary: numbers are finite and in range, lists are not empty, and a variable that is
    /// set but empty is refused (unset it for the default): a gate must never be switched off by a
    /// value that happens to parse.
    ///
    /// # Errors
    /// [`Error::Config`] naming the first variable whose value is not valid, with what is.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Config> {
        let d = Config::default();
        let s = d.stopping;
        let get = |name: &'static str| -> Result<Option<String>> {
            match lookup(name) {
                None => Ok(None),
                Some(v) if v.trim().is_empty() => Err(Error::Config {
                    name,
                    value: v,
                    expected: "the variable is set but empty; unset it to use the default".into(),
                }),
                Some(v) => Ok(Some(v.trim().to_string())),
            }
        };
        let number = |name: &'static str, default: f64, range: Range| -> Result<f64> {
            match get(name)? {
                None => Ok(default),
                Some(v) => match v.parse::<f64>() {
                    Ok(x) if range.holds(x) => Ok(x),
                    _ => Err(Error::Config {
                        name,
                        value: v,
                        expected: format!("expected {}; unset it to use the default ({default})", range.says),
                    }),
                },
            }
        };
        let whole = |name: &'static str, default: usize, min: usize| -> Result<usize> {
            match get(name)? {
                None => Ok(default),
                Some(v) => match v.parse::<usize>() {
                    Ok(x) if x >= min => Ok(x),
                    _ => Err(Error::Config {
                        name,
                        value: v,
                        expected: format!(
                            "expected a whole number of at least {min}; unset it to use the default ({default})"
                        ),
                    }),
                },
            }
        };
        let flag = |name: &'static str| -> Result<bool> {
            match get(name)?.as_deref() {
                None | Some("0") => Ok(false),
                Some("1") => Ok(true),
                Some(other) => {
                    Err(Error::Config { name, value: other.to_string(), expected: "expected 1 (on) or 0 (off)".into() })
                }
            }
        };
        let choice = |name: &'static str, allowed: &[&str], default: &str| -> Result<String> {
            match get(name)? {
                None => Ok(default.to_string()),
                Some(v) if allowed.contains(&v.as_str()) => Ok(v),
                Some(v) => {
                    Err(Error::Config { name, value: v, expected: format!("expected {}", allowed.join(" or ")) })
                }
            }
        };
        let criterion = match choice("KERNELGATE_STOP", &["precision", "noise"], "precision")?.as_str() {
            "noise" => Criterion::Noise,
            _ => Criterion::Precision {
                fraction: number(
                    "KERNELGATE_PRECISION",
                    DEFAULT_PRECISION,
                    Range {
                        lo: 0.0,
                        lo_open: true,
                        hi: 1.0,
                        says: "a fraction of the effect floor above 0, at most 1",
                    },
                )?,
            },
        };
        let config = Config {
            stopping: StoppingRule {
                criterion,
                min_samples: whole("KERNELGATE_MIN_SAMPLES", s.min_samples, 1)?,
                min_time_s: number(
                    "KERNELGATE_MIN_TIME",
                    s.min_time_s,
                    Range { lo: 0.0, lo_open: false, hi: 3600.0, says: "seconds from 0 to 3600" },
                )?,
                max_noise_pct: number(
                    "KERNELGATE_MAX_NOISE",
                    s.max_noise_pct,
                    Range { lo: 0.0, lo_open: true, hi: 100.0, says: "a percentage above 0, at most 100" },
                )?,
                timeout_s: number(
                    "KERNELGATE_TIMEOUT",
                    s.timeout_s,
                    Range { lo: 0.0, lo_open: true, hi: 86_400.0, says: "seconds above 0, at most 86400" },
                )?,
            },
            warmup: whole("KERNELGATE_WARMUP", d.warmup, 0)?,
            seed: match get("KERNELGATE_SEED")? {
                None => None,
                Some(v) => Some(v.parse::<u64>().map_err(|_| Error::Config {
                    name: "KERNELGATE_SEED",
                    value: v.clone(),
                    expected: "expected a whole number below 2^64; unset it to draw one".into(),
                })?),
            },
            out_dir: get("KERNELGATE_OUT_DIR")?.map(PathBuf::from),
            commit: get("KERNELGATE_COMMIT")?,
            ncu: flag("KERNELGATE_NCU")?,
            ncu_path: get("KERNELGATE_NCU_PATH")?.map_or(d.ncu_path, PathBuf::from),
            ncu_clock_control: choice("KERNELGATE_NCU_CLOCK_CONTROL", &["none", "base"], "none")?,
            bless: flag("KERNELGATE_BLESS")?,
            baselines: get("KERNELGATE_BASELINES")?.map(PathBuf::from),
            baseline_samples: whole("KERNELGATE_BASELINE_SAMPLES", d.baseline_samples, 1)?,
            alpha: number(
                "KERNELGATE_ALPHA",
                d.alpha,
                Range { lo: 0.0, lo_open: true, hi: 0.5, says: "a probability above 0, at most 0.5" },
            )?,
            min_effect_pct: match get("KERNELGATE_MIN_EFFECT")? {
                None => None,
                Some(_) => Some(number(
                    "KERNELGATE_MIN_EFFECT",
                    DEFAULT_MIN_EFFECT_PCT,
                    Range { lo: 0.0, lo_open: false, hi: MAX_MIN_EFFECT_PCT, says: "a percentage from 0 to 50" },
                )?),
            },
            fail_on: match get("KERNELGATE_FAIL_ON")? {
                None => d.fail_on,
                Some(v) => {
                    let list: Vec<String> = v.split(',').map(|x| x.trim().to_string()).collect();
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
                    if !list.iter().any(|x| x == "regressed") {
                        return Err(Error::Config {
                            name: "KERNELGATE_FAIL_ON",
                            value: v.clone(),
                            expected: "the list must include regressed: a gate that does not fail on a regression \
                                       is off"
                                .into(),
                        });
                    }
                    list
                }
            },
            compare_cycles: choice("KERNELGATE_COMPARE", &["time", "cycles"], "time")? == "cycles",
            require_gpu: flag("KERNELGATE_REQUIRE_GPU")?,
            require_nvrtc: flag("KERNELGATE_REQUIRE_NVRTC")?,
            work_scale: number(
                "KERNELGATE_WORK_SCALE",
                d.work_scale,
                Range { lo: 0.5, lo_open: false, hi: 2.0, says: "a decimal number from 0.5 to 2" },
            )?,
            devices: match get("KERNELGATE_DEVICES")? {
                None => d.devices,
                Some(v) if v == "all" => Devices::All,
                Some(v) => {
                    let parsed: std::result::Result<Vec<usize>, _> = v.split(',').map(|x| x.trim().parse()).collect();
                    match parsed {
                        Ok(list)
                            if !list.is_empty()
                                && list.iter().collect::<std::collections::BTreeSet<_>>().len() == list.len() =>
                        {
                            Devices::List(list)
                        }
                        _ => {
                            return Err(Error::Config {
                                name: "KERNELGATE_DEVICES",
                                value: v,
                                expected: "expected all, or CUDA device ordinals separated by commas, each once (0,1)"
                                    .into(),
                            });
                        }
                    }
                }
            },
            ab: get("KERNELGATE_AB")?,
            ab_b: get("KERNELGATE_AB_B")?,
            ab_time_identical: choice("KERNELGATE_AB_IDENTICAL", &["skip", "time"], "skip")? == "time",
            history: match get("KERNELGATE_HISTORY")? {
                None => History::Default,
                Some(v) if v == "off" => History::Off,
                Some(v) => History::Dir(PathBuf::from(v)),
            },
            notes: flag("KERNELGATE_NOTES")?,
            junit: get("KERNELGATE_JUNIT")?.map(PathBuf::from),
            planted: flag("KERNELGATE_PLANTED")?,
            sanitize: match get("KERNELGATE_SANITIZE")? {
                None => None,
                Some(_) => Some(choice("KERNELGATE_SANITIZE", &crate::sanitize::TOOLS, "memcheck")?),
            },
            sanitize_scale: number(
                "KERNELGATE_SANITIZE_SCALE",
                d.sanitize_scale,
                Range { lo: 1.0 / 64.0, lo_open: false, hi: 1.0, says: "a decimal number from 0.015625 (1/64) to 1" },
            )?,
            sanitizer_path: get("KERNELGATE_SANITIZER_PATH")?.map(PathBuf::from),
            kernel_timeout_s: match get("KERNELGATE_KERNEL_TIMEOUT")? {
                None => None,
                Some(_) => Some(number(
                    "KERNELGATE_KERNEL_TIMEOUT",
                    DEFAULT_KERNEL_TIMEOUT_S,
                    Range { lo: 0.0, lo_open: true, hi: 86_400.0, says: "seconds above 0, at most 86400" },
                )?),
            },
            isolate: flag("KERNELGATE_ISOLATE")?,
        };
        // Read by `crate::nvrtc` (before any option is parsed, for the compile trials); an empty
        // value is refused here like every other.
        get("KERNELGATE_NVRTC")?;
        let conflict = |name: &'static str, value: String, why: &str| {
            Err(Error::Config { name, value, expected: why.to_string() })
        };
        if config.bless && config.work_scale != 1.0 {
            return conflict(
                "KERNELGATE_WORK_SCALE",
                config.work_scale.to_string(),
                "a run with scaled work cannot bless (KERNELGATE_BLESS=1): its times are not the nominal cases'; \
                 unset one of the two",
            );
        }
        if let Some(rev) = &config.ab
            && (config.bless || config.work_scale != 1.0)
        {
            return conflict(
                "KERNELGATE_AB",
                rev.clone(),
                "an A/B run times two revisions against each other; it cannot bless or scale work (unset \
                 KERNELGATE_BLESS / KERNELGATE_WORK_SCALE)",
            );
        }
        if let (Some(b), None) = (&config.ab_b, &config.ab) {
            return conflict(
                "KERNELGATE_AB_B",
                b.clone(),
                "it names the B side of an A/B run, and KERNELGATE_AB (the A side) is not set; set both, or unset it",
            );
        }
        if let (Some(value), None) = (get("KERNELGATE_AB_IDENTICAL")?, &config.ab) {
            return conflict(
                "KERNELGATE_AB_IDENTICAL",
                value,
                "it chooses what an A/B run does with identical modules, and KERNELGATE_AB is not set; set both, or \
                 unset it",
            );
        }
        if let (Some(limit), None, false) = (config.kernel_timeout_s, &config.sanitize, config.isolate) {
            return conflict(
                "KERNELGATE_KERNEL_TIMEOUT",
                limit.to_string(),
                "it limits a trial in the checked child, which runs only with KERNELGATE_ISOLATE=1 or \
                 KERNELGATE_SANITIZE; set one of them too, or unset it",
            );
        }
        if let (Some(path), None) = (&config.sanitizer_path, &config.sanitize) {
            return conflict(
                "KERNELGATE_SANITIZER_PATH",
                path.display().to_string(),
                "it names compute-sanitizer for KERNELGATE_SANITIZE; set KERNELGATE_SANITIZE too, or unset it",
            );
        }
        if config.sanitize_scale != 1.0 && config.sanitize.is_none() {
            return conflict(
                "KERNELGATE_SANITIZE_SCALE",
                config.sanitize_scale.to_string(),
                "it scales the cases compute-sanitizer checks; set KERNELGATE_SANITIZE too, or unset it",
            );
        }
        if let (Some(tool), true) = (&config.sanitize, config.ncu) {
            return conflict(
                "KERNELGATE_SANITIZE",
                tool.clone(),
                "ncu and compute-sanitizer cannot both wrap the checked launches of one run; unset KERNELGATE_NCU \
                 or KERNELGATE_SANITIZE",
            );
        }
        Ok(config)
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
    fn defaults() {
        let c = with(&[]).unwrap();
        assert_eq!(c, Config::default());
        assert_eq!(c.stopping.criterion, Criterion::Precision { fraction: 0.25 });
        assert_eq!((c.stopping.min_samples, c.stopping.min_time_s, c.stopping.timeout_s), (10, 0.5, 15.0));
        assert_eq!(c.stopping.max_noise_pct, 0.5);
        assert_eq!(c.devices, Devices::List(vec![0]));
    }

    #[test]
    fn values_override_defaults() {
        let c = with(&[
            ("KERNELGATE_MIN_SAMPLES", "25"),
            ("KERNELGATE_MIN_TIME", "0.1"),
            ("KERNELGATE_STOP", "noise"),
            ("KERNELGATE_MAX_NOISE", "1.5"),
            ("KERNELGATE_TIMEOUT", "3"),
            ("KERNELGATE_SEED", "42"),
            ("KERNELGATE_OUT_DIR", "/tmp/x"),
            ("KERNELGATE_REQUIRE_GPU", "1"),
            ("KERNELGATE_DEVICES", "1, 0"),
            ("KERNELGATE_AB", "main"),
        ])
        .unwrap();
        assert_eq!(c.stopping.criterion, Criterion::Noise);
        assert_eq!((c.stopping.min_samples, c.stopping.min_time_s, c.stopping.max_noise_pct), (25, 0.1, 1.5));
        assert_eq!(c.stopping.timeout_s, 3.0);
        assert_eq!((c.seed, c.out_dir.clone()), (Some(42), Some(PathBuf::from("/tmp/x"))));
        assert!(c.require_gpu && !c.require_nvrtc);
        assert_eq!((c.devices, c.ab.as_deref()), (Devices::List(vec![1, 0]), Some("main")));
        assert_eq!(
            with(&[("KERNELGATE_PRECISION", "0.5")]).unwrap().stopping.criterion,
            Criterion::Precision { fraction: 0.5 }
        );
        assert_eq!(with(&[("KERNELGATE_DEVICES", "all")]).unwrap().devices, Devices::All);
        let s = with(&[("KERNELGATE_SANITIZE", "racecheck"), ("KERNELGATE_PLANTED", "1")]).unwrap();
        assert_eq!((s.sanitize.as_deref(), s.planted), (Some("racecheck"), true));
        let scaled = with(&[("KERNELGATE_SANITIZE", "racecheck"), ("KERNELGATE_SANITIZE_SCALE", "0.0625")]).unwrap();
        assert_eq!(scaled.sanitize_scale, 0.0625);
        let err = with(&[("KERNELGATE_KERNEL_TIMEOUT", "10")]).unwrap_err().to_string();
        assert!(err.contains("KERNELGATE_ISOLATE=1 or KERNELGATE_SANITIZE"), "{err}");
        let isolated = with(&[("KERNELGATE_KERNEL_TIMEOUT", "10"), ("KERNELGATE_ISOLATE", "1")]).unwrap();
        assert_eq!(isolated.kernel_timeout_s, Some(10.0));
        let err = with(&[("KERNELGATE_SANITIZER_PATH", "/opt/cs")]).unwrap_err().to_string();
        assert!(err.contains("set KERNELGATE_SANITIZE too"), "{err}");
        let err = with(&[("KERNELGATE_SANITIZE_SCALE", "0.0625")]).unwrap_err().to_string();
        assert!(err.contains("set KERNELGATE_SANITIZE too"), "{err}");
        let err = with(&[("KERNELGATE_SANITIZE", "memcheck"), ("KERNELGATE_SANITIZE_SCALE", "0.01")]).unwrap_err();
        assert!(err.to_string().contains("0.015625 (1/64) to 1"), "{err}");
        let err = with(&[("KERNELGATE_SANITIZE", "leakcheck")]).unwrap_err().to_string();
        assert!(err.contains("memcheck or racecheck or synccheck or initcheck"), "{err}");
        let ncu = with(&[
            ("KERNELGATE_NCU", "1"),
            ("KERNELGATE_NCU_PATH", "/opt/ncu"),
            ("KERNELGATE_NCU_CLOCK_CONTROL", "base"),
        ])
        .unwrap();
        assert!(ncu.ncu);
        assert_eq!((ncu.ncu_path, ncu.ncu_clock_control.as_str()), (PathBuf::from("/opt/ncu"), "base"));
        let gate = with(&[
            ("KERNELGATE_BLESS", "1"),
            ("KERNELGATE_FAIL_ON", "regressed, invalid"),
            ("KERNELGATE_COMPARE", "cycles"),
            ("KERNELGATE_MIN_EFFECT", "2.5"),
        ])
        .unwrap();
        assert!(gate.bless && gate.compare_cycles);
        assert_eq!(gate.fail_on, vec!["regressed", "invalid"]);
        assert_eq!(gate.min_effect_pct, Some(2.5));
        assert_eq!(gate.effect_floor_pct(), 2.5);
    }

    #[test]
    fn scaled_work_and_a_b_are_for_their_own_runs() {
        assert_eq!(with(&[("KERNELGATE_WORK_SCALE", "1.02")]).unwrap().work_scale, 1.02);
        let err = with(&[("KERNELGATE_WORK_SCALE", "1.02"), ("KERNELGATE_BLESS", "1")]).unwrap_err().to_string();
        assert!(err.contains("KERNELGATE_WORK_SCALE") && err.contains("cannot bless"), "{err}");
        assert!(with(&[("KERNELGATE_WORK_SCALE", "1"), ("KERNELGATE_BLESS", "1")]).is_ok());
        let err = with(&[("KERNELGATE_AB", "HEAD"), ("KERNELGATE_BLESS", "1")]).unwrap_err().to_string();
        assert!(err.contains("KERNELGATE_AB") && err.contains("cannot bless"), "{err}");
    }

    #[test]
    fn the_a_b_side_options_need_an_a_b_run() {
        for (name, value) in
            [("KERNELGATE_AB_IDENTICAL", "time"), ("KERNELGATE_AB_IDENTICAL", "skip"), ("KERNELGATE_AB_B", "HEAD")]
        {
            let err = with(&[(name, value)]).unwrap_err().to_string();
            assert!(err.contains(name) && err.contains("KERNELGATE_AB"), "{err}");
        }
        let c = with(&[("KERNELGATE_AB", "main"), ("KERNELGATE_AB_B", "HEAD"), ("KERNELGATE_AB_IDENTICAL", "time")])
            .unwrap();
        assert_eq!((c.ab_b.as_deref(), c.ab_time_identical), (Some("HEAD"), true));
        assert!(with(&[("KERNELGATE_AB", "main"), ("KERNELGATE_AB_IDENTICAL", "TIME")]).is_err(), "values are exact");
    }

    #[test]
    fn history_notes_and_junit() {
        let c = with(&[]).unwrap();
        assert_eq!((c.history, c.notes, c.junit), (History::Default, false, None));
        let c =
            with(&[("KERNELGATE_HISTORY", "off"), ("KERNELGATE_NOTES", "1"), ("KERNELGATE_JUNIT", "j.xml")]).unwrap();
        assert_eq!((c.history, c.notes, c.junit), (History::Off, true, Some(PathBuf::from("j.xml"))));
        assert_eq!(with(&[("KERNELGATE_HISTORY", "/h")]).unwrap().history, History::Dir("/h".into()));
        assert!(with(&[("KERNELGATE_NOTES", "yes")]).is_err());
    }

    #[test]
    fn a_b_has_its_own_default_floor_and_min_effect_overrides_both() {
        assert_eq!(with(&[]).unwrap().effect_floor_pct(), DEFAULT_MIN_EFFECT_PCT);
        assert_eq!(with(&[("KERNELGATE_AB", "HEAD")]).unwrap().effect_floor_pct(), DEFAULT_AB_MIN_EFFECT_PCT);
        let c = with(&[("KERNELGATE_AB", "HEAD"), ("KERNELGATE_MIN_EFFECT", "1")]).unwrap();
        assert_eq!(c.effect_floor_pct(), 1.0);
    }

    /// Every value that would switch the gate off, or that is not a value at all (issue 8).
    #[test]
    fn bad_values_name_the_variable_and_what_is_valid() {
        for (name, value, says) in [
            ("KERNELGATE_MIN_SAMPLES", "0", "a whole number of at least 1"),
            ("KERNELGATE_MIN_SAMPLES", "ten", "a whole number"),
            ("KERNELGATE_MIN_TIME", "-1", "seconds from 0 to 3600"),
            ("KERNELGATE_MIN_TIME", "inf", "seconds from 0 to 3600"),
            ("KERNELGATE_MIN_TIME", "NaN", "seconds from 0 to 3600"),
            ("KERNELGATE_TIMEOUT", "0", "seconds above 0"),
            ("KERNELGATE_TIMEOUT", "inf", "seconds above 0"),
            ("KERNELGATE_MAX_NOISE", "inf", "a percentage above 0"),
            ("KERNELGATE_MAX_NOISE", "0", "a percentage above 0"),
            ("KERNELGATE_MIN_EFFECT", "inf", "a percentage from 0 to 50"),
            ("KERNELGATE_MIN_EFFECT", "1e308", "a percentage from 0 to 50"),
            ("KERNELGATE_MIN_EFFECT", "-1", "a percentage from 0 to 50"),
            ("KERNELGATE_PRECISION", "0", "above 0, at most 1"),
            ("KERNELGATE_ALPHA", "1.5", "a probability above 0, at most 0.5"),
            ("KERNELGATE_ALPHA", "1", "a probability"),
            ("KERNELGATE_SEED", "0x1", "a whole number below 2^64"),
            ("KERNELGATE_REQUIRE_GPU", "yes", "1 (on) or 0 (off)"),
            ("KERNELGATE_NCU", "true", "1 (on) or 0 (off)"),
            ("KERNELGATE_NCU_CLOCK_CONTROL", "max", "none or base"),
            ("KERNELGATE_FAIL_ON", "regressed,slow", "\"slow\" is not a verdict"),
            ("KERNELGATE_FAIL_ON", "invalid", "must include regressed"),
            ("KERNELGATE_FAIL_ON", ",", "\"\" is not a verdict"),
            ("KERNELGATE_FAIL_ON", "", "set but empty"),
            ("KERNELGATE_FAIL_ON", "  ", "set but empty"),
            ("KERNELGATE_SEED", "", "set but empty"),
            ("KERNELGATE_OUT_DIR", "", "set but empty"),
            ("KERNELGATE_COMPARE", "ticks", "time or cycles"),
            ("KERNELGATE_STOP", "never", "precision or noise"),
            ("KERNELGATE_WORK_SCALE", "3", "from 0.5 to 2"),
            ("KERNELGATE_DEVICES", "0,0", "each once"),
            ("KERNELGATE_DEVICES", "gpu0", "CUDA device ordinals"),
        ] {
            let err = with(&[(name, value)]).unwrap_err().to_string();
            assert!(
                err.contains(name) && err.contains(&format!("{value:?}")) && err.contains(says),
                "{name}={value}: {err}"
            );
        }
    }
}
