//! The SASS gate: this build's instruction classes against the blessed table, and the cases'
//! declared expectations. Pure.
//!
//! Per function, the count of each class ([`super::class::CLASSES`]) is compared with the count
//! the blessed opcodes give. A class fails when it appears (0 → n), disappears (n → 0), or moves
//! by more than [`TOLERANCE`] of its blessed count: `LDG.E.128` turned into four `LDG.E` (lost
//! vectorization), one `BAR.SYNC` more in a kernel with one, the `FFMA`s doubled. Smaller moves
//! are notes. A function not in the table fails (it is blessed first); rows blessed with another
//! NVRTC (`major.minor`) are not gated, as in the resource gate: another compiler schedules
//! differently by itself. A failure shows the opcodes that changed, the short SASS diff.

use super::class::{self, SassExpectation};
use super::parse::Function;
use super::table::Row;
use crate::resources::gate::{BLESS_HINT, new_row_hint};
use std::collections::BTreeMap;

/// The largest change of a class's count, as a fraction of its blessed count, that is a note and
/// not a failure: 0.10. A policy, not a measurement: compiles are deterministic (the same source,
/// NVRTC and options give the same code), so any change comes from an edit; the tolerance lets an
/// edit that reschedules a few instructions (a different index computation, one more `IADD3`
/// among 40) pass, and fails those that change what a kernel does to memory, which move a class
/// from or to zero or by whole multiples.
pub const TOLERANCE: f64 = 0.10;

/// At most this many changed opcodes are shown per failing function.
const SHOWN_OPCODES: usize = 8;

/// What the gate found for one kernel file on one architecture.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judgement {
    /// One line per failing function; lines that end with the resource gate's hints
    /// (`crate::resources::gate::is_gate_failure`) are regressions, the others broken lessons.
    pub failures: Vec<String>,
    /// Changes within the tolerance, rows not gated, rows left over.
    pub notes: Vec<String>,
}

/// One declared expectation on one function, with the case that declared it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    /// The kernel file.
    pub file: &'static str,
    /// The kernel.
    pub function: &'static str,
    /// The expectation.
    pub expectation: SassExpectation,
    /// The trial that declared it, for messages.
    pub trial: String,
}

/// This build's code of one file: its functions, and the tools that made and read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Build<'a> {
    /// The kernel file.
    pub file: &'a str,
    /// Its functions, by name (`sass::parse::parse`).
    pub functions: &'a BTreeMap<String, Function>,
    /// NVRTC's `major.minor`.
    pub nvrtc: &'a str,
    /// nvdisasm's release.
    pub nvdisasm: &'a str,
}

impl Build<'_> {
    /// The rows this build would bless.
    pub fn rows(&self) -> Vec<Row> {
        let mut out = Vec::new();
        for (function, f) in self.functions {
            for (opcode, count) in &f.opcodes {
                out.push(Row {
                    file: self.file.to_string(),
                    function: function.clone(),
                    opcode: opcode.clone(),
                    count: *count,
                    nvrtc: self.nvrtc.to_string(),
                    nvdisasm: self.nvdisasm.to_string(),
                });
            }
        }
        out.sort_by_key(Row::key);
        out
    }
}

/// The declared expectations of `build`'s functions that fail, one line each, naming the trial.
pub fn check_declared(build: &Build<'_>, declared: &[Declared]) -> Vec<String> {
    let mut out = Vec::new();
    for d in declared.iter().filter(|d| d.file == build.file) {
        let Some(f) = build.functions.get(d.function) else {
            out.push(format!(
                "{}: declares the SASS of {}, which kernels/{} does not hold",
                d.trial, d.function, d.file
            ));
            continue;
        };
        let counts = class::count(&f.opcodes);
        match counts.get(d.expectation.class) {
            None => out.push(format!(
                "{}: declares the SASS class {:?}, which is not one of harness/sass/class.rs's CLASSES",
                d.trial, d.expectation.class
            )),
            Some(&n) => {
                if let Some(why) = d.expectation.check(n) {
                    out.push(format!("{} ({}): {why}", d.function, d.trial));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Judges `build` against `blessed` (the table's rows of the same file); `table` names the table
/// in messages.
pub fn compare(blessed: &[Row], build: &Build<'_>, table: &str) -> Judgement {
    let mut judgement = Judgement::default();
    if blessed.is_empty() && !build.functions.is_empty() {
        // A file never blessed: one line for all its functions, not one per function (a first run
        // of a PTX module of 123 kernels printed 123), as the resource gate says it.
        let names: Vec<&str> = build.functions.keys().map(String::as_str).collect();
        let named = match names.len() {
            n if n <= 3 => names.join(", "),
            n => format!("{}, and {} more", names[..3].join(", "), n - 3),
        };
        let (n, s, are) = if names.len() == 1 { (1, "", "is") } else { (names.len(), "s", "are") };
        judgement.failures.push(format!(
            "{}: {table} has no row of it: its {n} function{s} ({named}) {are} not blessed; {}",
            build.file,
            new_row_hint(build.file)
        ));
        return judgement;
    }
    let mut before: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for r in blessed {
        before.entry(r.function.as_str()).or_default().push(r);
    }
    let version = crate::resources::table::nvrtc_version;
    // Functions blessed with another NVRTC: one note for all of them (a runner whose NVRTC is not
    // CI's would otherwise get a line per kernel).
    let mut other_compiler: Vec<(&str, &str)> = Vec::new();
    for (name, f) in build.functions {
        let Some(old) = before.get(name.as_str()) else {
            let n = f.opcodes.values().sum::<u64>();
            judgement.failures.push(format!("{name}: not in {table} ({n} instructions); {}", new_row_hint(build.file)));
            continue;
        };
        if old.iter().any(|r| version(&r.nvrtc) != version(build.nvrtc)) {
            other_compiler.push((name.as_str(), old[0].nvrtc.as_str()));
            continue;
        }
        let old_opcodes: BTreeMap<String, u64> = old.iter().map(|r| (r.opcode.clone(), r.count)).collect();
        let (was, now) = (class::count(&old_opcodes), class::count(&f.opcodes));
        let mut failing = Vec::new();
        let mut moved = Vec::new();
        for c in class::CLASSES {
            let (a, b) = (was[c.name], now[c.name]);
            if a == b {
                continue;
            }
            let line = format!("{} {a} → {b}", c.name);
            let past = a == 0 || b == 0 || (b.abs_diff(a) as f64) > TOLERANCE * a as f64;
            if past { failing.push(line) } else { moved.push(line) }
        }
        if !failing.is_empty() {
            judgement.failures.push(format!(
                "{name}: {} (opcodes: {}); {BLESS_HINT}",
                failing.join(", "),
                opcode_diff(&old_opcodes, &f.opcodes)
            ));
        } else if !moved.is_empty() {
            judgement.notes.push(format!("{name}: {} (within {} %)", moved.join(", "), TOLERANCE * 100.0));
        }
    }
    if let Some((_, blessed_with)) = other_compiler.first() {
        let names: Vec<&str> = other_compiler.iter().map(|(n, _)| *n).collect();
        judgement.notes.push(format!(
            "not gated: blessed with ptxas {blessed_with}, this run's ptxas is {} ({})",
            build.nvrtc,
            names.join(", ")
        ));
    }
    for name in before.keys().filter(|n| !build.functions.contains_key(**n)) {
        judgement.notes.push(format!(
            "{name}: in {table}, but the function is no longer compiled; the next bless (KERNELGATE_BLESS=1) \
             removes its rows"
        ));
    }
    judgement
}

/// The opcodes whose counts differ, `LDG.E.128.CONSTANT 1 → 0, LDG.E.CONSTANT 0 → 4`, largest
/// change first, at most [`SHOWN_OPCODES`] and a count of the rest.
fn opcode_diff(old: &BTreeMap<String, u64>, new: &BTreeMap<String, u64>) -> String {
    let mut names: Vec<&String> = old.keys().chain(new.keys()).collect();
    names.sort();
    names.dedup();
    let get = |m: &BTreeMap<String, u64>, k: &str| m.get(k).copied().unwrap_or(0);
    let mut changed: Vec<(u64, String)> = names
        .into_iter()
        .filter_map(|k| {
            let (a, b) = (get(old, k), get(new, k));
            (a != b).then(|| (a.abs_diff(b), format!("{k} {a} → {b}")))
        })
        .collect();
    changed.sort_by(|x, y| y.0.cmp(&x.0).then_with(|| x.1.cmp(&y.1)));
    let rest = changed.len().saturating_sub(SHOWN_OPCODES);
    let mut shown: Vec<String> = changed.into_iter().take(SHOWN_OPCODES).map(|(_, s)| s).collect();
    if rest > 0 {
        shown.push(format!("{rest} more"));
    }
    shown.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn function(opcodes: &[(&str, u64)]) -> Function {
        Function { entry: true, opcodes: opcodes.iter().map(|(k, v)| (k.to_string(), *v)).collect() }
    }

    fn build(functions: &BTreeMap<String, Function>) -> Build<'_> {
        Build { file: "t.cu", functions, nvrtc: "13.5", nvdisasm: "13.5.37" }
    }

    fn vectorized() -> BTreeMap<String, Function> {
        let body: Vec<(&str, u64)> = vec![("LDG.E.128.CONSTANT", 1), ("STG.E.128", 1), ("IMAD.WIDE", 20), ("EXIT", 1)];
        BTreeMap::from([("copy".to_string(), function(&body))])
    }

    #[test]
    fn the_same_code_passes_and_lost_vectorization_fails_with_the_opcode_diff() {
        let blessed = build(&vectorized()).rows();
        assert_eq!(compare(&blessed, &build(&vectorized()), "opcodes.csv"), Judgement::default());
        let scalar = BTreeMap::from([(
            "copy".to_string(),
            function(&[("LDG.E.CONSTANT", 4), ("STG.E", 4), ("IMAD.WIDE", 20), ("EXIT", 1)]),
        )]);
        let j = compare(&blessed, &build(&scalar), "opcodes.csv");
        assert_eq!(j.failures.len(), 1, "{j:?}");
        let line = &j.failures[0];
        assert!(
            line.starts_with("copy: instructions 23 → 29, global_ld 1 → 4, global_ld.32 0 → 4, global_ld.128 1 → 0"),
            "{line}"
        );
        assert!(line.contains("LDG.E.CONSTANT 0 → 4") && line.contains("LDG.E.128.CONSTANT 1 → 0"), "{line}");
        assert!(crate::resources::gate::is_gate_failure(line), "a regression: exit code 3");
    }

    #[test]
    fn small_moves_are_notes_and_another_compiler_is_not_gated() {
        let blessed = build(&vectorized()).rows();
        let rescheduled = BTreeMap::from([(
            "copy".to_string(),
            function(&[("LDG.E.128.CONSTANT", 1), ("STG.E.128", 1), ("IMAD.WIDE", 22), ("EXIT", 1)]),
        )]);
        let j = compare(&blessed, &build(&rescheduled), "opcodes.csv");
        assert!(j.failures.is_empty(), "{j:?}");
        assert_eq!(j.notes, ["copy: instructions 23 → 25 (within 10 %)"]);
        let barrier_added = BTreeMap::from([(
            "copy".to_string(),
            function(&[("LDG.E.128.CONSTANT", 1), ("STG.E.128", 1), ("IMAD.WIDE", 20), ("BAR.SYNC", 1), ("EXIT", 1)]),
        )]);
        let j = compare(&blessed, &build(&barrier_added), "opcodes.csv");
        assert_eq!(j.failures, [format!("copy: barrier 0 → 1 (opcodes: BAR.SYNC 0 → 1); {BLESS_HINT}")]);
        assert!(j.notes.is_empty(), "a failing function's small moves are not repeated as notes: {j:?}");
        let other = Build { nvrtc: "13.0", ..build(&barrier_added) };
        let j = compare(&blessed, &other, "opcodes.csv");
        assert!(j.failures.is_empty(), "{j:?}");
        assert_eq!(j.notes, ["not gated: blessed with ptxas 13.5, this run's ptxas is 13.0 (copy)"]);
    }

    #[test]
    fn new_functions_fail_and_gone_ones_are_notes() {
        let blessed = build(&vectorized()).rows();
        let renamed = BTreeMap::from([("copy2".to_string(), vectorized()["copy"].clone())]);
        let j = compare(&blessed, &build(&renamed), "opcodes.csv");
        assert_eq!(
            j.failures,
            ["copy2: not in opcodes.csv (23 instructions); new kernels and launch configurations must be blessed: \
              KERNELGATE_BLESS=1 cargo test --release --test kernels -- compile/t.cu/"]
        );
        assert!(crate::resources::gate::is_gate_failure(&j.failures[0]), "a regression: exit code 3");
        assert!(j.notes[0].starts_with("copy: in opcodes.csv, but the function is no longer compiled"), "{j:?}");
    }

    /// A file with no row at all: one line naming a few of its functions and how many more.
    #[test]
    fn a_file_never_blessed_is_one_line() {
        let mut functions = BTreeMap::new();
        for name in ["a", "b", "c", "d", "e"] {
            functions.insert(name.to_string(), vectorized()["copy"].clone());
        }
        let j = compare(&[], &build(&functions), "opcodes.csv");
        assert_eq!(
            j.failures,
            ["t.cu: opcodes.csv has no row of it: its 5 functions (a, b, c, and 2 more) are not blessed; new kernels \
              and launch configurations must be blessed: KERNELGATE_BLESS=1 cargo test --release --test kernels -- \
              compile/t.cu/"]
        );
        assert!(crate::resources::gate::is_gate_failure(&j.failures[0]), "a regression: exit code 3");
        let one = BTreeMap::from([("copy".to_string(), vectorized()["copy"].clone())]);
        assert!(compare(&[], &build(&one), "opcodes.csv").failures[0].contains("its 1 function (copy) is not blessed"));
    }

    #[test]
    fn declared_expectations_name_the_trial_and_refuse_unknown_classes_and_functions() {
        let functions = vectorized();
        let b = build(&functions);
        let declare =
            |function, expectation| Declared { file: "t.cu", function, expectation, trial: "v/copy/1".into() };
        let ok = declare("copy", SassExpectation::class("global_ld.128").present());
        assert!(check_declared(&b, &[ok]).is_empty());
        let wrong = declare("copy", SassExpectation::class("global_ld.32").present().because("scalar"));
        assert_eq!(
            check_declared(&b, &[wrong]),
            ["copy (v/copy/1): global_ld.32: 0 instruction(s), expected at least 1 (scalar)"]
        );
        let typo = declare("copy", SassExpectation::class("global_load").present());
        assert!(check_declared(&b, &[typo])[0].contains("\"global_load\", which is not one of"));
        let missing = declare("gone", SassExpectation::class("barrier").absent());
        assert!(
            check_declared(&b, &[missing])[0].contains("declares the SASS of gone, which kernels/t.cu does not hold")
        );
    }
}
