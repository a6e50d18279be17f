//! Reading [`Config`] from the `KERNELGATE_*` environment variables: the unknown-variable check,
//! and the parse of each value (a bad value is an [`Error::Config`] naming it). Names, ranges,
//! choices and defaults are the table's ([`super::vars`]).

use super::vars;
use super::*;
use crate::error::{Error, Result};

impl Config {
    /// Reads the process environment.
    ///
    /// # Errors
    /// [`Error::Config`] naming the first variable whose value is not valid, with what is;
    /// [`Error::UnknownOption`] for a `KERNELGATE_*` variable kernelgate does not read.
    pub fn from_env() -> Result<Config> {
        // A name that is not UTF-8 is not one of kernelgate's, and is refused as a typo would be.
        let names: Vec<String> = std::env::vars_os()
            .map(|(k, _)| {
                k.into_string().unwrap_or_else(|k| String::from_utf8_lossy(k.as_encoded_bytes()).into_owned())
            })
            .filter(|k| k.starts_with("KERNELGATE_"))
            .collect();
        if let Some(typo) = names.iter().find(|n| !vars::accepted().any(|v| v == n.as_str())) {
            // The children's variables are set by kernelgate itself, not listed for users.
            let options: Vec<&str> = vars::VARS.iter().filter(|v| v.is_option()).map(|v| v.name).collect();
            return Err(Error::UnknownOption {
                name: typo.clone(),
                hint: suggestion(typo, &options),
                options: options.join(", "),
            });
        }
        // A value that is not UTF-8 is refused here, by name: `std::env::var` would call it unset,
        // and a path variable would then fall back to its default folder.
        for (name, value) in std::env::vars_os() {
            if let (Some(name), Err(bytes)) = (name.to_str(), value.into_string())
                && let Some(var) = vars::VARS.iter().find(|v| v.name == name)
            {
                return Err(not_utf8(var, &bytes));
            }
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
        use vars::*;
        let d = Config::default();
        let get = |var: &Var| -> Result<Option<String>> {
            match lookup(var.name) {
                None => Ok(None),
                Some(v) if v.trim().is_empty() => Err(Error::Config {
                    name: var.name,
                    value: v,
                    expected: "the variable is set but empty; unset it to use the default".into(),
                }),
                Some(v) => Ok(Some(v.trim().to_string())),
            }
        };
        let number = |var: &Var| -> Result<f64> {
            let Value::Number { default, range } = var.value else { unreachable!("{} is a number", var.name) };
            match get(var)? {
                None => Ok(default),
                Some(v) => match v.parse::<f64>() {
                    Ok(x) if range.holds(x) => Ok(x),
                    _ => Err(Error::Config {
                        name: var.name,
                        value: v,
                        expected: format!("expected {}; unset it to use the default ({default})", range.says),
                    }),
                },
            }
        };
        // A number whose default is decided later (`None` when unset).
        let number_if_set = |var: &Var| -> Result<Option<f64>> {
            match get(var)? {
                None => Ok(None),
                Some(_) => number(var).map(Some),
            }
        };
        let whole = |var: &Var| -> Result<usize> {
            let Value::Whole { default, min, max } = var.value else { unreachable!("{} is a whole number", var.name) };
            match get(var)? {
                None => Ok(default),
                Some(v) => match v.parse::<usize>() {
                    Ok(x) if (min..=max).contains(&x) => Ok(x),
                    _ => Err(Error::Config {
                        name: var.name,
                        value: v,
                        expected: format!(
                            "expected a whole number from {min} to {max}; unset it to use the default ({default})"
                        ),
                    }),
                },
            }
        };
        let flag = |var: &Var| -> Result<bool> {
            debug_assert!(matches!(var.value, Value::Flag), "{} is a flag", var.name);
            match get(var)?.as_deref() {
                None | Some("0") => Ok(false),
                Some("1") => Ok(true),
                Some(other) => Err(Error::Config {
                    name: var.name,
                    value: other.to_string(),
                    expected: "expected 1 (on) or 0 (off)".into(),
                }),
            }
        };
        // One of the choices; unset, the default (`None` for a choice without one).
        let choice = |var: &Var| -> Result<Option<String>> {
            let Value::Choice { values, default } = var.value else { unreachable!("{} is a choice", var.name) };
            match get(var)? {
                None => Ok(default.map(str::to_string)),
                Some(v) if values.contains(&v.as_str()) => Ok(Some(v)),
                Some(v) => Err(Error::Config {
                    name: var.name,
                    value: v,
                    expected: format!("expected {}", values.join(" or ")),
                }),
            }
        };
        // A choice that has a default: never `None`.
        let chosen = |var: &Var| -> Result<String> { Ok(choice(var)?.expect("a choice with a default")) };
        let criterion = match chosen(&STOP)?.as_str() {
            "noise" => Criterion::Noise,
            _ => Criterion::Precision { fraction: number(&PRECISION)? },
        };
        let config = Config {
            stopping: StoppingRule {
                criterion,
                min_samples: whole(&MIN_SAMPLES)?,
                min_time_s: number(&MIN_TIME)?,
                max_noise_pct: number(&MAX_NOISE)?,
                timeout_s: number(&TIMEOUT)?,
            },
            warmup: whole(&WARMUP)?,
            seed: match get(&SEED)? {
                None => None,
                Some(v) => Some(parse_seed(&v).ok_or_else(|| {
                    Error::Config {
                        name: SEED.name,
                        value: v.clone(),
                        expected: "expected a whole number below 2^64, decimal or 0x hex (as the run CSV writes it); \
                               unset it to draw one"
                            .into(),
                    }
                })?),
            },
            out_dir: get(&OUT_DIR)?.map(PathBuf::from),
            commit: match get(&COMMIT)? {
                Some(v) if !commit_id_form(&v) => {
                    return Err(Error::Config {
                        name: COMMIT.name,
                        value: v.clone(),
                        expected: format!(
                            "a commit id is 40 hexadecimal digits (64 in a SHA-256 repository); this one has {} \
                             (`git rev-parse HEAD` prints the id; a revision such as HEAD~1 works too)",
                            v.len()
                        ),
                    });
                }
                other => other,
            },
            ncu: flag(&NCU)?,
            ncu_path: get(&NCU_PATH)?.map_or(d.ncu_path, PathBuf::from),
            ncu_clock_control: chosen(&NCU_CLOCK_CONTROL)?,
            bless: flag(&BLESS)?,
            baselines: get(&BASELINES)?.map(PathBuf::from),
            baseline_samples: whole(&BASELINE_SAMPLES)?,
            alpha: number(&ALPHA)?,
            min_effect_pct: number_if_set(&MIN_EFFECT)?,
            fail_on: match get(&FAIL_ON)? {
                None => d.fail_on,
                Some(v) => {
                    let list: Vec<String> = v.split(',').map(|x| x.trim().to_string()).collect();
                    if let Some(bad) =
                        list.iter().find(|x| !["regressed", "ambiguous", "invalid"].contains(&x.as_str()))
                    {
                        return Err(Error::Config {
                            name: FAIL_ON.name,
                            value: v.clone(),
                            expected: format!(
                                "{bad:?} is not a verdict; use a comma-separated list of regressed, ambiguous, invalid"
                            ),
                        });
                    }
                    if !list.iter().any(|x| x == "regressed") {
                        return Err(Error::Config {
                            name: FAIL_ON.name,
                            value: v.clone(),
                            expected: "the list must include regressed: a gate that does not fail on a regression \
                                       is off"
                                .into(),
                        });
                    }
                    list
                }
            },
            compare_cycles: chosen(&COMPARE)? == "cycles",
            require_gpu: flag(&REQUIRE_GPU)?,
            require_nvrtc: flag(&REQUIRE_NVRTC)?,
            work_scale: number(&WORK_SCALE)?,
            devices: match get(&DEVICES)? {
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
                                name: DEVICES.name,
                                value: v,
                                expected: "expected all, or CUDA device ordinals separated by commas, each once (0,1)"
                                    .into(),
                            });
                        }
                    }
                }
            },
            ab: get(&AB)?,
            ab_b: get(&AB_B)?,
            ab_time_identical: chosen(&AB_IDENTICAL)? == "time",
            ab_controls: whole(&AB_CONTROLS)?,
            time_by_gpu_history: chosen(&REFERENCE)? == "gpu",
            history: match get(&HISTORY)? {
                None => History::Default,
                Some(v) if v == "off" => History::Off,
                Some(v) => History::Dir(PathBuf::from(v)),
            },
            notes: flag(&NOTES)?,
            junit: get(&JUNIT)?.map(PathBuf::from),
            run_file: get(&RUN_FILE)?.map(PathBuf::from),
            planted: flag(&PLANTED)?,
            sanitize: choice(&SANITIZE)?,
            sanitize_scale: number(&SANITIZE_SCALE)?,
            sanitizer_path: get(&SANITIZER_PATH)?.map(PathBuf::from),
            kernel_timeout_s: number_if_set(&KERNEL_TIMEOUT)?,
            isolate: flag(&ISOLATE)?,
        };
        // Read by `crate::nvrtc` (before any option is parsed, for the compile trials); an empty
        // value is refused here like every other.
        get(&NVRTC)?;
        // Read by `crate::sass::nvdisasm` and `crate::compile::prebuilt` the same way.
        get(&NVDISASM)?;
        get(&PTXAS)?;
        let conflict = |name: &'static str, value: String, why: &str| {
            Err(Error::Config { name, value, expected: why.to_string() })
        };
        if config.bless && config.work_scale != 1.0 {
            return conflict(
                WORK_SCALE.name,
                config.work_scale.to_string(),
                "a run with scaled work cannot bless (KERNELGATE_BLESS=1): its times are not the nominal cases'; \
                 unset one of the two",
            );
        }
        if let Some(rev) = &config.ab
            && (config.bless || config.work_scale != 1.0)
        {
            return conflict(
                AB.name,
                rev.clone(),
                "an A/B run times two revisions against each other; it cannot bless or scale work (unset \
                 KERNELGATE_BLESS / KERNELGATE_WORK_SCALE)",
            );
        }
        if let (Some(b), None) = (&config.ab_b, &config.ab) {
            return conflict(
                AB_B.name,
                b.clone(),
                "it names the B side of an A/B run, and KERNELGATE_AB (the A side) is not set; set both, or unset it",
            );
        }
        if let (Some(value), None) = (get(&AB_IDENTICAL)?, &config.ab) {
            return conflict(
                AB_IDENTICAL.name,
                value,
                "it chooses what an A/B run does with identical modules, and KERNELGATE_AB is not set; set both, or \
                 unset it",
            );
        }
        if let (Some(limit), None, false) = (config.kernel_timeout_s, &config.sanitize, config.isolate) {
            return conflict(
                KERNEL_TIMEOUT.name,
                limit.to_string(),
                "it limits a trial in the checked child, which runs only with KERNELGATE_ISOLATE=1 or \
                 KERNELGATE_SANITIZE; set one of them too, or unset it",
            );
        }
        if let (Some(path), None) = (&config.sanitizer_path, &config.sanitize) {
            return conflict(
                SANITIZER_PATH.name,
                path.display().to_string(),
                "it names compute-sanitizer for KERNELGATE_SANITIZE; set KERNELGATE_SANITIZE too, or unset it",
            );
        }
        if config.sanitize_scale != 1.0 && config.sanitize.is_none() {
            return conflict(
                SANITIZE_SCALE.name,
                config.sanitize_scale.to_string(),
                "it scales the cases compute-sanitizer checks; set KERNELGATE_SANITIZE too, or unset it",
            );
        }
        if let (Some(tool), true) = (&config.sanitize, config.ncu) {
            return conflict(
                SANITIZE.name,
                tool.clone(),
                "ncu and compute-sanitizer cannot both wrap the checked launches of one run; unset KERNELGATE_NCU \
                 or KERNELGATE_SANITIZE",
            );
        }
        Ok(config)
    }
}

/// A seed written as a decimal whole number below 2^64 or as `0x` (or `0X`) and hex digits (the run
/// CSV's form, `crate::record::seed_text`); `None` for anything else.
fn parse_seed(text: &str) -> Option<u64> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => u64::from_str_radix(hex, 16).ok(),
        Some(_) => None,
        None if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => text.parse().ok(),
        None => None,
    }
}

/// Whether `KERNELGATE_COMMIT`'s `text` can name a commit: anything but hexadecimal digits longer
/// than a SHA-1 id (40) and not a SHA-256 id (64) ([`crate::history::is_commit_id`]). Shorter ones
/// may be abbreviations or branches (`cafe`); a longer one is a mistyped id, which, recorded as
/// given where the repository is not at hand, would key the run's history to no commit.
fn commit_id_form(text: &str) -> bool {
    !text.bytes().all(|b| b.is_ascii_hexdigit()) || text.len() <= 40 || crate::history::is_commit_id(text)
}

/// The refusal of `var` set to `bytes`, which are not UTF-8: the value as far as it reads, with
/// the first byte that does not, and the fix.
fn not_utf8(var: &vars::Var, bytes: &std::ffi::OsStr) -> Error {
    let raw = bytes.as_encoded_bytes();
    let valid = std::str::from_utf8(raw).map_or_else(|e| e.valid_up_to(), |_| raw.len());
    Error::Config {
        name: var.name,
        value: String::from_utf8_lossy(raw).into_owned(),
        expected: format!(
            "the value is not valid UTF-8 (byte 0x{:02x} at offset {valid}), and kernelgate reads only UTF-8 values \
             (a file name in another encoding cannot be named here: rename it or link to it from a UTF-8 path); \
             set a UTF-8 value, or unset it for the default ({})",
            raw.get(valid).copied().unwrap_or(0),
            var.default_shown()
        ),
    }
}

/// `did you mean KERNELGATE_NCU? ` for a name within two edits of one of `options`
/// ([`kernelgate_build::project_file::nearest`], as for a `kernelgate.toml` key), else `""`.
pub(crate) fn suggestion(typo: &str, options: &[&str]) -> String {
    kernelgate_build::project_file::nearest(typo, options).map_or(String::new(), |o| format!("did you mean {o}? "))
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_seed_is_read_in_decimal_and_as_the_run_csv_writes_it() {
        let seed = 9_999_971_317_511_862_815_u64;
        assert_eq!(parse_seed(&seed.to_string()), Some(seed));
        assert_eq!(parse_seed("0x8ac708ee6063ba1f"), Some(seed), "the run CSV's form (record::seed_text)");
        assert_eq!(parse_seed("0X2A"), Some(42));
        for bad in ["", "0x", "-1", "+1", "1e3", "0x1g", " 7", "18446744073709551616", "0x10000000000000000"] {
            assert_eq!(parse_seed(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_mistyped_variable_gets_the_closest_option_within_two_edits() {
        let options = ["KERNELGATE_NCU", "KERNELGATE_NCU_PATH", "KERNELGATE_SEED"];
        // Built at run time: tests/docs.rs checks every variable name written in the source.
        let typo = ["KERNELGATE", "NCUU"].join("_");
        assert_eq!(suggestion(&typo, &options), "did you mean KERNELGATE_NCU? ");
        assert_eq!(suggestion(&["KERNELGATE", "SED"].join("_"), &options), "did you mean KERNELGATE_SEED? ");
        assert_eq!(suggestion(&["KERNELGATE", "WHATEVER"].join("_"), &options), "");
    }

    use super::*;

    fn with(pairs: &[(&str, &str)]) -> Result<Config> {
        let pairs: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_lookup(move |name| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    #[test]
    fn a_commit_id_of_another_length_is_refused() {
        let full = "6c9f94845b8948d83ab51e10c8fe01e1b2b1633d";
        for good in [full, &full[..7], "HEAD~1", "main", "cafe", &"a".repeat(64)] {
            assert_eq!(with(&[("KERNELGATE_COMMIT", good)]).unwrap().commit.as_deref(), Some(good));
        }
        for bad in [format!("{full}0"), "a".repeat(63), "a".repeat(65)] {
            let err = with(&[("KERNELGATE_COMMIT", &bad)]).unwrap_err().to_string();
            assert!(err.contains("KERNELGATE_COMMIT") && err.contains(&format!("this one has {}", bad.len())), "{err}");
        }
    }

    #[test]
    fn defaults() {
        let c = with(&[]).unwrap();
        assert_eq!(c, Config::default());
        assert_eq!(c.stopping.criterion, Criterion::Precision { fraction: 0.25 });
        assert_eq!((c.stopping.min_samples, c.stopping.min_time_s, c.stopping.timeout_s), (10, 0.25, 15.0));
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
        assert_eq!(with(&[]).unwrap().run_file, None);
        assert_eq!(with(&[("KERNELGATE_RUN_FILE", "out/run.txt")]).unwrap().run_file, Some("out/run.txt".into()));
    }

    #[test]
    fn a_b_has_its_own_default_floor_and_min_effect_overrides_both() {
        assert_eq!(with(&[]).unwrap().effect_floor_pct(), DEFAULT_MIN_EFFECT_PCT);
        assert_eq!(with(&[("KERNELGATE_AB", "HEAD")]).unwrap().effect_floor_pct(), DEFAULT_AB_MIN_EFFECT_PCT);
        let c = with(&[("KERNELGATE_AB", "HEAD"), ("KERNELGATE_MIN_EFFECT", "1")]).unwrap();
        assert_eq!(c.effect_floor_pct(), 1.0);
    }

    /// Every value that would switch the gate off, or that is not a value at all.
    #[test]
    fn bad_values_name_the_variable_and_what_is_valid() {
        for (name, value, says) in [
            ("KERNELGATE_MIN_SAMPLES", "0", "a whole number from 1 to 100000"),
            ("KERNELGATE_WARMUP", "10001", "a whole number from 0 to 10000"),
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
            ("KERNELGATE_SEED", "0x1g", "a whole number below 2^64, decimal or 0x hex"),
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
