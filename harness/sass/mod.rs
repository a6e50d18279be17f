//! The SASS gate without a GPU: the machine code NVRTC makes of each kernel, counted by
//! instruction class, gated against the table blessed in `baselines/<arch>/sass/opcodes.csv`.
//!
//! The resource gate sees registers, spills and occupancy; it does not see a change that turns one
//! `LDG.E.128` into four `LDG.E` (lost vectorization), adds a `BAR.SYNC`, or doubles the `FFMA`s.
//! This gate does, in the same compile trials (`compile/<file>/<arch>`), with no GPU:
//!
//! 1. **code**: the cubin NVRTC's ptxas made for the real architecture
//!    ([`crate::compile::Compiled::cubin`]), disassembled by nvdisasm ([`nvdisasm`]: the PyPI wheel
//!    `nvidia-cuda-nvdisasm`, which `scripts/get-nvrtc` installs beside NVRTC, or a CUDA toolkit's);
//! 2. **counts**: each function's opcodes ([`parse`]) and the instruction classes they make
//!    ([`class`]: `global_ld.128`, `shared_st`, `local_ld`, `barrier`, `ffma`, ...);
//! 3. **gate** ([`gate::compare`]) against the table ([`table`]): a class that appears, disappears
//!    or moves past [`gate::TOLERANCE`] fails, with the opcodes that changed; and every case's
//!    declared expectations ([`class::SassExpectation`], "the float4 copy's loads are 128-bit")
//!    hold, bless included. With `KERNELGATE_BLESS=1` the trial writes its rows instead.
//!
//! The counts are static (instructions in the code), not instructions executed: Nsight Compute's
//! `smsp__sass_inst_executed_op_*` counters measure those on a GPU. On a GPU the driver compiles
//! the same PTX with its own ptxas, whose code may differ when its release differs from NVRTC's.

pub mod class;
pub mod gate;
pub mod nvdisasm;
pub mod parse;
pub mod same;
pub mod table;

pub use class::{CLASSES, SassExpectation};
pub use gate::Declared;

use crate::{error::Result, source::KernelSource};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every SASS expectation `cases` declare ([`crate::Case::sass`]), once per kernel each case
/// launches.
pub fn declared(cases: &[crate::case::Case]) -> Vec<Declared> {
    let mut out = Vec::new();
    for case in cases {
        for kernel in case.kernels() {
            for expectation in &case.sass {
                out.push(Declared {
                    file: kernel.file,
                    function: kernel.name(),
                    expectation: *expectation,
                    trial: case.name(),
                });
            }
        }
    }
    out
}

/// What one SASS check is asked to do.
#[derive(Debug, Clone, Copy)]
pub struct FileTrial<'a> {
    /// The kernel file.
    pub source: &'a KernelSource,
    /// The architecture, `sm_80` or `sm_90`.
    pub arch: &'a str,
    /// The baselines folder; the table is `<baselines>/<arch>/sass/opcodes.csv`.
    pub baselines: &'a Path,
    /// Write the rows instead of gating them (`KERNELGATE_BLESS=1`).
    pub bless: bool,
    /// Every kernel file that exists; the trial of the first (in sorted order) also answers for
    /// the table's rows of files that no longer exist.
    pub files: &'a [&'a str],
    /// Every case's declared expectations.
    pub declared: &'a [Declared],
    /// Every launch of the cases ([`crate::resources::launches`]): the kernels a build with
    /// definitions ([`crate::Kernel::define`]) is gated for.
    pub launches: &'a [crate::resources::LaunchShape],
}

/// One build of the file as nvdisasm listed it ([`crate::resources::FileBuild`]).
#[derive(Debug, Clone, Copy)]
pub struct Listing<'a> {
    /// The build's definitions; empty for the file as it is.
    pub defines: &'static [&'static str],
    /// The template instances the compile made, with their lowered names
    /// ([`crate::compile::Compiled::lowered`]): the listing names their functions by lowered name,
    /// the tables and expectations by name expression.
    pub lowered: &'a [crate::compile::Lowered],
    /// `nvdisasm --print-code` of the build's cubin ([`nvdisasm::disassemble`]).
    pub text: &'a str,
}

/// What one SASS check found.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// The kernel file.
    pub file: String,
    /// The file as messages name it (`KernelSource::path`).
    pub path: String,
    /// The architecture.
    pub arch: String,
    /// The table gated against (or blessed into).
    pub table: PathBuf,
    /// The nvdisasm that read the code.
    pub nvdisasm: String,
    /// Instructions per class, per function.
    pub classes: BTreeMap<String, BTreeMap<&'static str, u64>>,
    /// Why the trial fails, one line each; empty when it passes.
    pub failures: Vec<String>,
    /// Changes that do not fail, rows not gated, rows left over.
    pub notes: Vec<String>,
    /// With `KERNELGATE_BLESS=1`: one line per function whose rows changed, appeared or went.
    pub blessed: Option<Vec<String>>,
}

impl Checked {
    /// The failure message: what was compared, then one line per failure; `None` when it passes.
    pub fn failure(&self) -> Option<String> {
        if self.failures.is_empty() {
            return None;
        }
        let lines: Vec<String> = self.failures.iter().map(|f| format!("  {f}")).collect();
        let rebless = crate::resources::gate::rebless_line(&self.failures, &self.file)
            .map(|l| format!("\n{l}"))
            .unwrap_or_default();
        Some(format!(
            "SASS gate: {} for {} against {} ({}):\n{}{rebless}",
            self.path,
            self.arch,
            crate::resources::shown(&self.table),
            self.nvdisasm,
            lines.join("\n")
        ))
    }
}

/// Disassembles `cubin` (kernel file `trial.source` as it is, compiled for `trial.arch` with the
/// template instances `lowered` by NVRTC `nvrtc`, `major.minor`), checks the cases' declared
/// expectations, and gates (or, with `bless`, writes) its rows: [`check_listings`] of one build.
///
/// # Errors
/// [`crate::Error::Unavailable`] when there is no nvdisasm (the SASS gate is then skipped, or
/// fails with `KERNELGATE_REQUIRE_NVRTC=1`); [`crate::Error::Config`] for a bad
/// `KERNELGATE_NVDISASM`; [`crate::Error::Io`] when nvdisasm fails; the table's errors
/// ([`table::load`], [`table::update`]).
pub fn check(trial: &FileTrial<'_>, cubin: &[u8], lowered: &[crate::compile::Lowered], nvrtc: &str) -> Result<Checked> {
    let tool = nvdisasm::load()?;
    let text = nvdisasm::disassemble(tool, cubin)?;
    check_listings(trial, tool, &[Listing { defines: &[], lowered, text: &text }], nvrtc)
}

/// [`check`] of the listings `tool` already printed of each build of the file (`nvdisasm
/// --print-code` of its cubin, as [`nvdisasm::disassemble`] returns it): how the compile trials
/// use the listings they made ahead, in parallel. A build with definitions counts the kernels
/// launched with them, named as [`crate::Kernel::name`] writes them (`reduce -DBLOCK=256`).
///
/// # Errors
/// The table's errors ([`table::load`], [`table::update`]).
pub fn check_listings(
    trial: &FileTrial<'_>,
    tool: &nvdisasm::Nvdisasm,
    listings: &[Listing<'_>],
    nvrtc: &str,
) -> Result<Checked> {
    let dir = table::dir_for(trial.baselines, trial.arch);
    let mut checked = Checked {
        file: trial.source.file.to_string(),
        path: trial.source.path.to_string(),
        arch: trial.arch.to_string(),
        table: dir.join(table::SASS_FILE),
        nvdisasm: tool.to_string(),
        classes: BTreeMap::new(),
        failures: Vec::new(),
        notes: Vec::new(),
        blessed: None,
    };
    if trial.source.entries.is_empty() && listings.iter().all(|l| l.lowered.is_empty() && l.defines.is_empty()) {
        // Only templates, and no case instantiates one: the cubin holds no code to count.
        checked.notes.push(format!(
            "no code: the kernel templates {:?} are instantiated by no case (launch one with \
             `k::<file>::<template>.with(\"<arguments>\")`, or give `kernelgate compile --instance`)",
            trial.source.templates
        ));
        return Ok(checked);
    }
    let mut functions: BTreeMap<String, parse::Function> = BTreeMap::new();
    for listing in listings {
        match parse::parse(listing.text) {
            Ok(found) => functions.extend(build_functions(trial, listing, found)),
            Err(why) => {
                checked.failures.push(format!("{tool} printed a listing this gate cannot read: {why}"));
                return Ok(checked);
            }
        }
    }
    checked.classes = functions.iter().map(|(name, f)| (name.clone(), class::count(&f.opcodes))).collect();
    let build = gate::Build { file: trial.source.file, functions: &functions, nvrtc, nvdisasm: &tool.version };
    checked.failures.extend(gate::check_declared(&build, trial.declared));
    let first = trial.files.iter().min().is_some_and(|f| *f == trial.source.file);
    let in_scope = |r: &table::Row| r.file == trial.source.file || (first && !trial.files.contains(&r.file.as_str()));
    if trial.bless && !checked.failures.is_empty() {
        // A build that breaks a declared lesson is not blessed: the table keeps the code that held it.
        return Ok(checked);
    }
    if trial.bless {
        let now = build.rows();
        checked.blessed = table::update(&dir, |all| {
            let (old, kept): (Vec<table::Row>, Vec<table::Row>) =
                std::mem::take(all).into_iter().partition(|r| in_scope(r));
            *all = kept;
            all.extend(now.iter().cloned());
            Some(blessed_changes(&old, &now))
        })?;
        return Ok(checked);
    }
    let blessed: Vec<table::Row> = table::load(&dir)?.into_iter().filter(|r| in_scope(r)).collect();
    let name = crate::resources::shown(&checked.table);
    if blessed.is_empty() && !checked.table.is_file() {
        // Not a failure: a project blessed before the SASS gate existed has resource tables only,
        // and its compile trials keep passing until it blesses this one. Said in every run.
        checked.notes.push(format!(
            "not gated: {name} does not exist; bless it with {}",
            crate::resources::table::bless_command(None)
        ));
        return Ok(checked);
    }
    let judgement = gate::compare(&blessed, &build, &name);
    checked.failures.extend(judgement.failures);
    checked.notes = judgement.notes;
    Ok(checked)
}

/// The functions of one build's listing (`found`, by the names the cubin gives them) by the names
/// the tables give them: a template instance by its name expression ([`crate::compile::suite_name`]);
/// in a build with definitions only the kernels launched with them, each named as
/// [`crate::Kernel::name`] writes it (every function, where no case launches the build).
fn build_functions(
    trial: &FileTrial<'_>,
    listing: &Listing<'_>,
    found: BTreeMap<String, parse::Function>,
) -> Vec<(String, parse::Function)> {
    let named = found.into_iter().map(|(name, f)| (crate::compile::suite_name(listing.lowered, &name).to_string(), f));
    if listing.defines.is_empty() {
        return named.collect();
    }
    let launched: Vec<crate::Kernel> = trial
        .launches
        .iter()
        .map(|l| l.kernel)
        .filter(|k| k.file == trial.source.file && k.defines == listing.defines)
        .collect();
    if launched.is_empty() {
        // A build no case launches (`kernelgate compile --define`): every function, with its definitions.
        return named.map(|(name, f)| (crate::source::build_name(&name, listing.defines), f)).collect();
    }
    named.filter_map(|(name, f)| Some((launched.iter().find(|k| k.entry == name)?.name().to_string(), f))).collect()
}

/// One line per function whose rows differ between `old` and `new`.
fn blessed_changes(old: &[table::Row], new: &[table::Row]) -> Vec<String> {
    let by_function = |rows: &[table::Row]| {
        let mut out: BTreeMap<(String, String), Vec<(String, u64)>> = BTreeMap::new();
        for r in rows {
            out.entry((r.file.clone(), r.function.clone())).or_default().push((r.opcode.clone(), r.count));
        }
        out
    };
    let (before, after) = (by_function(old), by_function(new));
    let mut keys: Vec<&(String, String)> = before.keys().chain(after.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut lines = Vec::new();
    for key in keys {
        let (file, function) = key;
        match (before.get(key), after.get(key)) {
            (None, Some(rows)) => lines
                .push(format!("{file} {function}: new ({} instructions)", rows.iter().map(|(_, n)| n).sum::<u64>())),
            (Some(_), None) => lines.push(format!("{file} {function}: removed")),
            (Some(a), Some(b)) if a != b => lines.push(format!("{file} {function}: opcodes changed")),
            _ => {}
        }
    }
    lines
}

/// The end-of-run report of the SASS checks: per architecture and function, the classes a lesson
/// is usually about ([`COLUMNS`]: global loads by width, stores, shared loads and stores, local
/// memory, barriers, FFMA always; the read-only path, cp.async, shuffles, atomics, FMUL and FADD
/// when some function has one), then the notes and what was blessed. Empty for no checks.
pub fn render(checked: &[Checked]) -> String {
    let mut all: Vec<&Checked> = checked.iter().collect();
    all.sort_by(|a, b| (&a.arch, &a.file).cmp(&(&b.arch, &b.file)));
    let Some(first) = all.first() else { return String::new() };
    let counted = |name: &str| all.iter().flat_map(|c| c.classes.values()).any(|n| n.get(name).is_some_and(|&n| n > 0));
    let shown: Vec<&Column> = COLUMNS.iter().filter(|c| c.always || counted(c.class)).collect();
    let mut table: Vec<Vec<String>> = Vec::new();
    let mut header = vec!["arch".to_string(), "function".to_string()];
    header.extend(shown.iter().map(|c| c.short.to_string()));
    table.push(header);
    for c in &all {
        for (function, counts) in &c.classes {
            let mut row = vec![c.arch.clone(), format!("{}/{function}", crate::kernel_file::stem(&c.file))];
            row.extend(shown.iter().map(|col| counts.get(col.class).copied().unwrap_or(0).to_string()));
            table.push(row);
        }
    }
    let mut lines = vec![format!(
        "kernelgate: SASS from {} (static instruction counts per class; ld = global loads by width in bits)",
        first.nvdisasm
    )];
    if table.len() > 1 {
        lines.extend(crate::units::aligned(&table, 2));
    } else {
        // No function was read (no file got this far): no empty table.
        lines.clear();
    }
    for c in &all {
        lines.extend(c.notes.iter().map(|n| format!("kernelgate: SASS {} {}: {n}", c.arch, c.file)));
        if let Some(blessed) = &c.blessed {
            let what =
                if blessed.is_empty() { "unchanged".to_string() } else { format!("{} change(s)", blessed.len()) };
            lines.push(format!(
                "kernelgate: blessed the SASS of {} for {} into {} ({what})",
                c.path,
                c.arch,
                crate::resources::shown(&c.table)
            ));
            lines.extend(blessed.iter().map(|b| format!("  {b}")));
        }
    }
    lines.join("\n")
}

/// A column of [`render`]'s table: a class ([`class::CLASSES`]), its header, and whether it is
/// shown when no function has one.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    /// The class counted.
    pub class: &'static str,
    /// The column's header.
    pub short: &'static str,
    /// Shown even when every count is 0 (the memory and barrier lessons' columns).
    pub always: bool,
}

/// The columns of [`render`]'s table, in order.
pub const COLUMNS: [Column; 19] = {
    const fn col(class: &'static str, short: &'static str, always: bool) -> Column {
        Column { class, short, always }
    }
    [
        col("instructions", "instr", true),
        col("global_ld.8", "ld.8", false),
        col("global_ld.16", "ld.16", false),
        col("global_ld.32", "ld.32", true),
        col("global_ld.64", "ld.64", true),
        col("global_ld.128", "ld.128", true),
        col("global_ld.nc", "ld.nc", false),
        col("global_st", "st", true),
        col("shared_ld", "lds", true),
        col("shared_st", "sts", true),
        col("local_ld", "ldl", true),
        col("ldgsts", "ldgsts", false),
        col("barrier", "bar", true),
        col("shfl", "shfl", false),
        col("global_atom", "atom", false),
        col("shared_atom", "atoms", false),
        col("ffma", "ffma", true),
        col("fmul", "fmul", false),
        col("fadd", "fadd", false),
    ]
};

#[cfg(test)]
mod tests {
    use super::*;

    /// nvdisasm 13.5.37's whole listing of `kernels/vectorization.cu` as NVRTC 13.5.37 compiled it
    /// for sm_90 (`harness/tests/fixtures/sass/vectorization.sm_90.sass`): the lesson of the family is in
    /// the counts: the float4 copy's loads and stores are all 128-bit, the scalar copy's 32-bit.
    #[test]
    fn a_real_listing_shows_the_vectorization_lesson() {
        let listing = include_str!("../tests/fixtures/sass/vectorization.sm_90.sass");
        let functions = parse::parse(listing).unwrap();
        let names: Vec<&str> = functions.keys().map(String::as_str).collect();
        assert_eq!(names, ["copy_scalar", "copy_vec4", "saxpy", "saxpy_vec4", "saxpy_vec4_head"]);
        assert!(functions.values().all(|f| f.entry));
        let counts = |name: &str| class::count(&functions[name].opcodes);
        let (vec4, scalar) = (counts("copy_vec4"), counts("copy_scalar"));
        assert_eq!((vec4["global_ld.128"], vec4["global_ld.32"], vec4["global_st.128"]), (1, 0, 1));
        assert_eq!((scalar["global_ld.128"], scalar["global_ld.32"], scalar["global_st.32"]), (0, 1, 1));
        assert_eq!(counts("saxpy_vec4")["global_ld.128"], 10, "x and y, five loops");
    }

    #[test]
    fn the_report_lists_every_function_and_what_was_blessed() {
        let mut classes = BTreeMap::new();
        classes.insert("copy_vec4".to_string(), class::count(&BTreeMap::from([("LDG.E.128".to_string(), 1)])));
        let checked = Checked {
            file: "vectorization.cu".into(),
            path: "kernels/vectorization.cu".into(),
            arch: "sm_90".into(),
            table: PathBuf::from("/x/baselines/sm_90/sass/opcodes.csv"),
            nvdisasm: "nvdisasm 13.5.37 (/p/.nvrtc/bin/nvdisasm)".into(),
            classes,
            failures: vec![],
            notes: vec!["copy_vec4: instructions 23 → 24 (within 10 %)".into()],
            blessed: Some(vec!["vectorization.cu copy_vec4: new (1 instructions)".into()]),
        };
        let text = render(&[checked]);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("kernelgate: SASS from nvdisasm 13.5.37"), "{text}");
        assert_eq!(lines[1].split_whitespace().take(4).collect::<Vec<_>>(), ["arch", "function", "instr", "ld.32"]);
        assert_eq!(
            lines[2].split_whitespace().collect::<Vec<_>>(),
            ["sm_90", "vectorization/copy_vec4", "1", "0", "0", "1", "0", "0", "0", "0", "0", "0"]
        );
        assert!(text.contains("kernelgate: SASS sm_90 vectorization.cu: copy_vec4: instructions 23 → 24"), "{text}");
        assert!(!lines[1].contains("fadd"), "a class no function has is not shown: {text}");
        assert!(text.contains("blessed the SASS of kernels/vectorization.cu for sm_90"), "{text}");
        assert_eq!(render(&[]), "");
    }

    #[test]
    fn every_column_is_a_class() {
        for c in COLUMNS {
            assert!(class::class(c.class).is_some(), "{}", c.class);
        }
    }

    #[test]
    fn a_class_some_function_has_gets_its_column() {
        let opcodes = BTreeMap::from([("FADD".to_string(), 3), ("SHFL.BFLY".to_string(), 5), ("LDG.E".to_string(), 1)]);
        let checked = Checked {
            file: "r.cu".into(),
            path: "kernels/r.cu".into(),
            arch: "sm_90".into(),
            table: PathBuf::from("/x/baselines/sm_90/sass/opcodes.csv"),
            nvdisasm: "nvdisasm 13.5.37".into(),
            classes: BTreeMap::from([("sum".to_string(), class::count(&opcodes))]),
            failures: vec![],
            notes: vec![],
            blessed: None,
        };
        let text = render(&[checked]);
        let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split_whitespace().collect()).collect();
        assert_eq!(
            lines[1],
            [
                "arch", "function", "instr", "ld.32", "ld.64", "ld.128", "st", "lds", "sts", "ldl", "bar", "shfl",
                "ffma", "fadd"
            ]
        );
        assert_eq!(lines[2], ["sm_90", "r/sum", "9", "1", "0", "0", "0", "0", "0", "0", "0", "5", "0", "3"]);
        // A bf16 kernel's 16-bit loads get their column (LDG.E.U16), the 32-bit column stays.
        let opcodes = BTreeMap::from([("LDG.E.U16".to_string(), 2), ("STG.E.U16".to_string(), 1)]);
        let checked = Checked {
            file: "h.cu".into(),
            path: "kernels/h.cu".into(),
            arch: "sm_90".into(),
            table: PathBuf::from("/x/baselines/sm_90/sass/opcodes.csv"),
            nvdisasm: "nvdisasm 13.5.37".into(),
            classes: BTreeMap::from([("cast".to_string(), class::count(&opcodes))]),
            failures: vec![],
            notes: vec![],
            blessed: None,
        };
        let text = render(&[checked]);
        let header: Vec<&str> = text.lines().nth(1).unwrap().split_whitespace().take(5).collect();
        assert_eq!(header, ["arch", "function", "instr", "ld.16", "ld.32"], "{text}");
    }
}
