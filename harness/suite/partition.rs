//! `--partition`: one shard of the suite per job of a CI matrix, in the suite binary itself, so
//! that N jobs on N GPUs together run every selected trial once, each opening its GPU once. Two
//! forms:
//! - `count:K/N` (or `K/N`), nextest's syntax and rule (nextest's `--partition count:K/N`): the
//!   selected trials in their listed order, the i-th of them, counting from 0, to shard `i % N + 1`;
//! - `plan:K/N:<list>:<code>.<check>`, as `kernelgate plan` prints it ([`crate::pool::plan`]): shards
//!   balanced by the trials' times, each listed trial's shard carried in the value, so that every
//!   job runs the same split; a binary that lists other trials than the plan's stops, saying so.
//!
//! Pure: the flag is taken out of the arguments before libtest reads them, and the trials are
//! chosen by name.

use crate::error::{Error, Result};
use crate::pool::plan::Assignment;
use std::ffi::OsString;

/// What the suite binary's `--help` prints before libtest's own help: kernelgate's flag, and where
/// its options are.
pub const HELP: &str = "kernelgate's suite binary: libtest's flags (below), and\n    \
    --partition count:K/N   run the K-th of N shards of the selected trials (nextest's syntax; K/N alone is the same)\n    \
    --partition plan:K/N:…  run shard K of a plan `kernelgate plan` made, balanced by the trials' times (docs/runners.md)\n\
Options of kernelgate's own are KERNELGATE_* variables: `kernelgate vars` lists them (docs/options.md).\n";

/// The flag, as nextest spells it.
pub const FLAG: &str = "--partition";

/// The forms a value may take, for errors.
const FORMS: &str = "count:K/N (or K/N), this job's shard K (1 to N) of N, as nextest takes it (`--partition count:2/4`), \
                     or plan:K/N:<list>:<code>.<check> as `kernelgate plan` prints it";

/// This job's shard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Partition {
    /// Shard `index` (1-based) of `count`, by nextest's counting rule.
    Count {
        /// This shard, from 1 to `count`.
        index: usize,
        /// How many shards.
        count: usize,
    },
    /// A shard of a plan: each listed trial's shard, carried in the value.
    Plan(Assignment),
}

impl Partition {
    /// Parses `count:K/N` or `K/N` (nextest's form; `K` from 1 to `N`), or `plan:K/N:<list>:<code>.<check>`.
    ///
    /// # Errors
    /// [`Error::Flag`] naming `--partition`, the value and the forms, for anything else (nextest's
    /// `hash:` partitions are not offered: the trial list is the same in every job of a run, so
    /// counting gives shards of equal size).
    pub fn parse(value: &str) -> Result<Partition> {
        let refuse =
            |why: &str| Error::Flag { flag: FLAG, value: value.to_string(), expected: format!("{why}{FORMS}") };
        if value.starts_with("hash:") {
            return Err(refuse(
                "not hash: (nextest's hash: partitions are not offered: every job of a run lists the same trials, so \
                 counting gives shards of equal size); ",
            ));
        }
        if let Some(rest) = value.strip_prefix("plan:") {
            return Assignment::parse(rest).map(Partition::Plan).map_err(|why| refuse(&format!("{why}; ")));
        }
        let kn = value.strip_prefix("count:").unwrap_or(value);
        let (k, n) = kn.split_once('/').ok_or_else(|| refuse(""))?;
        let whole = |digits: &str| {
            let plain = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && !digits.starts_with('0');
            plain.then(|| digits.parse::<usize>().ok()).flatten().ok_or_else(|| refuse(""))
        };
        let (index, count) = (whole(k)?, whole(n)?);
        if index == 0 || index > count {
            return Err(refuse(""));
        }
        Ok(Partition::Count { index, count })
    }

    /// Takes `--partition VALUE` or `--partition=VALUE` out of the command line `args` (the
    /// program's name first), for the rest to go to libtest; `None` without it.
    ///
    /// # Errors
    /// [`Partition::parse`]'s; [`Error::Flag`] when the flag has no value, a value that is not
    /// UTF-8, or is given twice.
    pub fn take(args: &mut Vec<OsString>) -> Result<Option<Partition>> {
        let text = |value: OsString| {
            value.into_string().map_err(|v| Error::Flag {
                flag: FLAG,
                value: v.to_string_lossy().into_owned(),
                expected: format!("{FORMS} (the value is not UTF-8)"),
            })
        };
        let mut found: Option<String> = None;
        let mut i = 1;
        while i < args.len() {
            let value = if args[i] == FLAG {
                let value = args.get(i + 1).cloned();
                args.drain(i..(i + 2).min(args.len()));
                text(value.ok_or_else(|| Error::Flag {
                    flag: FLAG,
                    value: String::new(),
                    expected: "the flag needs a value: --partition count:K/N".into(),
                })?)?
            } else if let Some(value) = args[i].to_str().and_then(|a| a.strip_prefix("--partition=")) {
                let value = value.to_string();
                args.remove(i);
                value
            } else {
                i += 1;
                continue;
            };
            if found.replace(value.clone()).is_some() {
                return Err(Error::Flag { flag: FLAG, value, expected: "one --partition per run".into() });
            }
        }
        found.map(|v| Partition::parse(&v)).transpose()
    }

    /// Checks the shard against every trial the binary lists (`listed`, in order): a plan must have
    /// been made for them.
    ///
    /// # Errors
    /// [`Error::Flag`] naming the value, both trial lists and the fix, when the plan's list differs.
    pub fn fits(&self, listed: &[&str]) -> Result<()> {
        match self {
            Partition::Count { .. } => Ok(()),
            Partition::Plan(a) => a.fits(listed).map_err(|why| Error::Flag {
                flag: FLAG,
                value: a.value().chars().take(40).chain("…".chars()).collect(),
                expected: why,
            }),
        }
    }

    /// Whether a selected trial is this shard's: `listed` is its position (0-based) among every trial
    /// the binary lists, `selected` among those the filters select; a count shard counts the
    /// selected ones, a plan's shard the listed ones.
    pub fn holds(&self, listed: usize, selected: usize) -> bool {
        match self {
            Partition::Count { index, count } => selected % count + 1 == *index,
            Partition::Plan(a) => a.keeps(listed),
        }
    }

    /// `count:2/4`, `plan:2/4`: the shard as the run's log names it.
    pub fn label(&self) -> String {
        match self {
            Partition::Count { index, count } => format!("count:{index}/{count}"),
            Partition::Plan(a) => format!("plan:{}/{} (list {})", a.index, a.count, a.list_sha),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<OsString> {
        line.split_whitespace().map(OsString::from).collect()
    }

    #[test]
    fn nextests_form_is_read_and_others_are_refused_by_name() {
        assert_eq!(Partition::parse("count:2/3").unwrap(), Partition::Count { index: 2, count: 3 });
        assert_eq!(Partition::parse("2/3").unwrap(), Partition::Count { index: 2, count: 3 });
        for bad in [
            "2-3",
            "plan:2/3",
            "count:0/3",
            "count:4/3",
            "count:1/0",
            "hash:1/2",
            "count:a/2",
            "count:1/2/3",
            "",
            "count:+1/3",
            "count:01/3",
        ] {
            let e = Partition::parse(bad).unwrap_err().to_string();
            assert!(e.contains("--partition") && e.contains("count:K/N"), "{bad}: {e}");
        }
    }

    #[test]
    fn the_flag_is_taken_out_and_libtests_arguments_are_left() {
        let mut a = args("kernels transpose --partition count:1/2 --exact");
        assert_eq!(Partition::take(&mut a).unwrap(), Some(Partition::Count { index: 1, count: 2 }));
        assert_eq!(a, args("kernels transpose --exact"));
        let mut a = args("kernels --partition=count:2/2");
        assert_eq!(Partition::take(&mut a).unwrap(), Some(Partition::Count { index: 2, count: 2 }));
        assert_eq!(a, args("kernels"));
        let mut a = args("kernels --list");
        assert_eq!(Partition::take(&mut a).unwrap(), None);
        assert!(Partition::take(&mut args("kernels --partition")).unwrap_err().to_string().contains("needs a value"));
        assert!(Partition::parse("hash:1/2").unwrap_err().to_string().contains("hash: partitions are not offered"));
        let twice = Partition::take(&mut args("kernels --partition count:1/2 --partition=count:2/2"));
        assert!(twice.unwrap_err().to_string().contains("one --partition per run"));
    }

    /// Every position is in exactly one shard, and the shards' sizes differ by at most one.
    #[test]
    fn the_shards_cover_every_trial_once() {
        for count in 1..=5 {
            let sizes: Vec<usize> = (1..=count)
                .map(|index| (0..23).filter(|&p| Partition::Count { index, count }.holds(p + 7, p)).count())
                .collect();
            assert_eq!(sizes.iter().sum::<usize>(), 23);
            assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1, "{sizes:?}");
            for p in 0..23 {
                assert_eq!((1..=count).filter(|&index| Partition::Count { index, count }.holds(0, p)).count(), 1);
            }
        }
    }

    /// A plan's shard keeps the listed trials the plan gave it, whatever the filters select, and
    /// stops a binary that lists other trials.
    #[test]
    fn a_plan_shard_keeps_its_listed_trials_and_checks_the_list() {
        let listed: Vec<String> = (0..6).map(|i| format!("f/v{i}/1")).collect();
        let names: Vec<&str> = listed.iter().map(String::as_str).collect();
        let plan = crate::pool::plan::plan(listed.clone(), &[crate::pool::plan::GpuKind::new("g", 2)]).unwrap();
        let p = Partition::parse(&plan.jobs[1].partition).unwrap();
        p.fits(&names).unwrap();
        let kept: Vec<&str> = names.iter().enumerate().filter(|(i, _)| p.holds(*i, 0)).map(|(_, n)| *n).collect();
        assert_eq!(kept, plan.jobs[1].trials);
        let e = p.fits(&names[..5]).unwrap_err().to_string();
        assert!(e.contains("--partition") && e.contains("another list of trials"), "{e}");
        assert!(Partition::parse("plan:1/2:zz").unwrap_err().to_string().contains("plan:K/N:<list>:<code>.<check>"));
    }
}
