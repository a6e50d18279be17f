//! One compile trial's resource check ([`check_file`], [`check_compiled`]): each build of a kernel
//! file ([`super::builds`]) checked for its entry points and arguments, its rows made from ptxas's
//! report, then all of them gated against (or, with bless, written into) the table.

use super::{
    ArchLimits, Arity, LaunchShape, RESOURCES_FILE, Row, Usage, builds, compare, gate, limits, mangled_entries, ptxas,
    rows, shown, table, unlaunchable,
};
use crate::{compile, error::Result, source::KernelSource};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What one compile trial is asked to do.
#[derive(Debug, Clone, Copy)]
pub struct FileTrial<'a> {
    /// The kernel file.
    pub source: &'a KernelSource,
    /// The architecture, `sm_80` or `sm_90`.
    pub arch: &'a str,
    /// Every launch of the suite's cases ([`super::launches`]).
    pub launches: &'a [LaunchShape],
    /// The baselines folder (`<root>/baselines` or `KERNELGATE_BASELINES`); the table is
    /// `<baselines>/<arch>/resources.csv`.
    pub baselines: &'a Path,
    /// Write the rows instead of gating them (`KERNELGATE_BLESS=1`).
    pub bless: bool,
    /// Every kernel file that exists; the trial of the first (in sorted order) also answers for
    /// the table's rows of files that no longer exist.
    pub files: &'a [&'a str],
    /// Every launch's arguments, with its trial ([`super::arities`]): checked against the PTX's
    /// parameter lists.
    pub arities: &'a [Arity],
}

/// What one compile trial found.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// The kernel file.
    pub file: String,
    /// The file as messages name it ([`KernelSource::path`]).
    pub path: String,
    /// The architecture.
    pub arch: String,
    /// The table gated against (or blessed into).
    pub table: PathBuf,
    /// This build's rows.
    pub rows: Vec<Row>,
    /// Why the trial fails, one line each (an entry-point mismatch, an unreadable report, the
    /// gate's failures); empty when it passes.
    pub failures: Vec<String>,
    /// Whether the PTX declared the entry points `build.rs` listed, with the parameter counts the
    /// cases launch them with: only then are the figures read and gated. When `false`, `failures`
    /// are those mismatches and `rows` is empty.
    pub entries_match: bool,
    /// Changes that do not fail, and rows left over.
    pub notes: Vec<String>,
    /// With `KERNELGATE_BLESS=1`: the rows written that changed, appeared or went, one line each.
    pub blessed: Option<Vec<String>>,
}

impl Checked {
    /// The trial's failure message: what was compared, then one line per failure; `None` when it
    /// passes. Entry-point and argument-count mismatches ([`Checked::entries_match`]) come before
    /// the resource gate, and are headed `entry points:`.
    pub fn failure(&self) -> Option<String> {
        if self.failures.is_empty() {
            return None;
        }
        let lines: Vec<String> = self.failures.iter().map(|f| format!("  {f}")).collect();
        if !self.entries_match {
            return Some(format!(
                "entry points: {} for {}: the module does not declare the kernels build.rs lists, or the parameters \
                 the cases pass (nothing was gated):\n{}",
                self.path,
                self.arch,
                lines.join("\n")
            ));
        }
        let rebless = gate::rebless_line(&self.failures, &self.file).map(|l| format!("\n{l}")).unwrap_or_default();
        Some(format!(
            "resource gate: {} for {} against {}:\n{}{rebless}",
            self.path,
            self.arch,
            shown(&self.table),
            lines.join("\n")
        ))
    }
}

/// A compile trial: compiles each build of `trial.source` ([`builds`]) for `trial.arch` with
/// ptxas's report (a compile error names the file by its name, [`KernelSource::file`]) and the
/// header folders of the project at `root` ([`crate::compile::include_options`]), checks its entry
/// points, and gates (or, with `bless`, writes) its rows.
///
/// # Errors
/// [`crate::Error::Unavailable`] when there is no NVRTC (the trial is then ignored, or fails with
/// `KERNELGATE_REQUIRE_NVRTC=1`); [`crate::Error::Compile`] with NVRTC's log; the table's errors
/// ([`table::load`], [`table::update`]) when it cannot be read or written.
pub fn check_file(trial: &FileTrial<'_>, root: Option<&Path>) -> Result<Checked> {
    let mut made = Vec::new();
    for build in builds(trial.launches, trial.source.file) {
        let options = build.options(trial.source.options);
        let compiled = compile::compile_with_log(
            trial.source.file,
            trial.source.file,
            trial.source.source,
            trial.arch,
            &build.instances,
            &options,
            root,
        )?;
        made.push((build.defines, compiled));
    }
    let built: Vec<Built<'_>> = made.iter().map(|(defines, compiled)| Built { defines, compiled }).collect();
    check_compiled(trial, &built)
}

/// One build of a kernel file as NVRTC made it ([`super::FileBuild`], [`compile::compile_with_log`]).
#[derive(Debug, Clone, Copy)]
pub struct Built<'a> {
    /// The build's definitions ([`super::FileBuild::defines`]).
    pub defines: &'static [&'static str],
    /// What NVRTC made of it.
    pub compiled: &'a compile::Compiled,
}

/// [`check_file`] of the builds of a file already compiled by [`compile::compile_with_log`] (the
/// compile trial compiles once for this gate and the SASS gate): each build's entry points and
/// arguments checked, its rows made (named by [`crate::Kernel::name`]), then all of them gated at once.
///
/// # Errors
/// As [`check_file`], but for the compile.
pub fn check_compiled(trial: &FileTrial<'_>, built: &[Built<'_>]) -> Result<Checked> {
    let source = trial.source;
    let dir = table::dir_for(trial.baselines, trial.arch);
    let mut checked = Checked {
        file: source.file.to_string(),
        path: source.path.to_string(),
        arch: trial.arch.to_string(),
        table: dir.join(RESOURCES_FILE),
        rows: Vec::new(),
        failures: Vec::new(),
        entries_match: false,
        notes: Vec::new(),
        blessed: None,
    };
    for build in built {
        check_arguments(trial, build, &mut checked.failures);
    }
    if !checked.failures.is_empty() {
        return Ok(checked);
    }
    checked.entries_match = true;
    let Some(limits) = limits(trial.arch) else {
        checked.failures.push(format!("no occupancy limits for {} in harness/resources/occupancy.rs", trial.arch));
        return Ok(checked);
    };
    for build in built {
        match build_rows(trial, build, limits) {
            Ok(rows) => checked.rows.extend(rows),
            Err(why) => {
                checked.failures.push(why);
                return Ok(checked);
            }
        }
    }
    checked.rows.sort_by_key(Row::key);
    checked.notes.extend(unlaunchable(&checked.rows, limits));
    if source.is_prebuilt() {
        checked.notes.extend(mangled_entries(source));
    }
    let first = trial.files.iter().min().is_some_and(|f| *f == source.file);
    let in_scope = |r: &Row| r.file == source.file || (first && !trial.files.contains(&r.file.as_str()));
    let table_name = shown(&checked.table);
    if trial.bless {
        let now = checked.rows.clone();
        let written = table::update(&dir, |all| {
            let (old, kept): (Vec<Row>, Vec<Row>) = std::mem::take(all).into_iter().partition(|r| in_scope(r));
            *all = kept;
            all.extend(now.iter().cloned());
            Some(gate::blessed_changes(&old, &now))
        })?;
        checked.blessed = written;
        return Ok(checked);
    }
    let blessed: Vec<Row> = table::load(&dir)?.into_iter().filter(|r| in_scope(r)).collect();
    if blessed.is_empty() && !checked.rows.is_empty() {
        // A file never blessed: one line for all its rows, not one per kernel (a first run of a
        // folder of 123 kernels printed 123); a gate failure like the new rows it stands for (exit
        // code 3): a project's first compile trials.
        let mut kernels: Vec<&str> = checked.rows.iter().map(|r| r.kernel.as_str()).collect();
        kernels.dedup();
        let named = match kernels.len() {
            n if n <= 3 => kernels.join(", "),
            n => format!("{}, and {} more", kernels[..3].join(", "), n - 3),
        };
        // A table that does not exist yet is blessed whole (every file's compile trials).
        let (table_state, hint) = if dir.join(RESOURCES_FILE).is_file() {
            ("has no row of it", gate::new_row_hint(source.file))
        } else {
            ("does not exist", format!("{}: {}", gate::NEW_ROW_HINT, table::bless_command(None)))
        };
        let (n, s, are) = match kernels.len() {
            1 => (1, "", "is"),
            n => (n, "s", "are"),
        };
        checked.failures.push(format!(
            "{}: {table_name} {table_state}: its {n} kernel{s} ({named}) {are} not blessed; {hint}",
            source.path
        ));
        return Ok(checked);
    }
    let judgement = compare(&blessed, &checked.rows, &table_name);
    checked.failures.extend(judgement.failures);
    checked.notes.extend(judgement.notes);
    Ok(checked)
}

/// The kernels of `build` that get rows, as (the row's name, [`Kernel::name`]; the kernel's name in
/// the build, [`compile::suite_name`]): for the file as it is, its entry points and the build's
/// instances; for a build with definitions, only the kernels launched with them (its other entry
/// points are no kernel of the suite), or, where no case launches it (`kernelgate compile
/// --define`), every entry point and instance, named with the definitions.
fn build_kernels(trial: &FileTrial<'_>, build: &Built<'_>) -> Vec<(String, String)> {
    let launched =
        trial.launches.iter().any(|l| l.kernel.file == trial.source.file && l.kernel.defines == build.defines);
    if build.defines.is_empty() || !launched {
        let entries = trial.source.entries.iter().map(|e| e.to_string());
        let instances = build.compiled.lowered.iter().map(|l| l.expression.clone());
        return entries.chain(instances).map(|name| (crate::source::build_name(&name, build.defines), name)).collect();
    }
    let mut out: Vec<(String, String)> = trial
        .launches
        .iter()
        .map(|l| l.kernel)
        .filter(|k| k.file == trial.source.file && k.defines == build.defines)
        .map(|k| (k.name().to_string(), k.entry.to_string()))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Checks that `build`'s PTX declares the entry points the file lists ([`compile::check_entries`]) and
/// the parameters the cases launch them with ([`FileTrial::arities`]): their count, then each
/// argument against its parameter ([`compile::mismatch`]: its size and, from the PTX, its kind; a
/// binary module's parameters from its cubin, sizes alone), one line per mismatch into `failures`.
fn check_arguments(trial: &FileTrial<'_>, build: &Built<'_>, failures: &mut Vec<String>) {
    let source = trial.source;
    let (ptx, lowered) = (build.compiled.ptx.as_str(), &build.compiled.lowered);
    // Each entry's parameter count, and its parameters where their declarations read
    // ([`compile::PtxParam::of_entry`]), by the suite's name of the entry. A binary module's are
    // read from the cubin its build chose for the trial's architecture, as the file's entries were.
    type Declared = BTreeMap<String, (usize, Option<Vec<compile::PtxParam>>)>;
    let declared: Declared = match image_cubin(trial, build.compiled) {
        Some(Ok(c)) => c
            .entries
            .into_iter()
            .map(|e| (e.name, (e.params.len(), Some(e.params.into_iter().map(compile::PtxParam::sized).collect()))))
            .collect(),
        Some(Err(why)) => {
            // The error names the file.
            failures.push(why);
            return;
        }
        None => {
            if let Err(mismatch) = compile::check_entries(source, trial.arch, ptx, lowered) {
                failures.push(mismatch);
                return;
            }
            crate::kernel_file::ptx_entries(ptx)
                .into_iter()
                .map(|e| {
                    let params = (e.declarations.len(), compile::PtxParam::of_entry(&e));
                    (compile::suite_name(lowered, &e.name).to_string(), params)
                })
                .collect()
        }
    };
    for a in trial.arities.iter().filter(|a| a.kernel.file == source.file && a.kernel.defines == build.defines) {
        let Some((count, params)) = declared.get(a.kernel.entry) else { continue };
        if *count != a.args {
            failures.push(format!(
                "{}: launches {} with {} argument(s), but {} declares {count} parameter(s); \
                 list one Arg (or, in Case::new, one Param) per kernel parameter, in order",
                a.trial,
                a.kernel.name(),
                a.args,
                source.path
            ));
        } else if let Some(wrong) = params.as_deref().and_then(|p| compile::mismatch(p, &a.passed)) {
            failures.push(wrong.message(&a.trial, a.kernel.name()));
        }
    }
}

/// For a binary module (cubin or fatbin), the cubin its build for the trial's architecture holds
/// ([`compile::prebuilt::cubin_compiled`] chose it) read; `None` for a source or PTX module.
fn image_cubin(
    trial: &FileTrial<'_>,
    compiled: &compile::Compiled,
) -> Option<std::result::Result<crate::cubin::Cubin, String>> {
    crate::kernel_file::is_binary(trial.source.file)
        .then(|| crate::cubin::read(&compiled.cubin).map_err(|why| format!("{}: {why}", trial.source.path)))
}

/// A cubin's figures as ptxas's report gives a source's ([`crate::cubin::CubinEntry`]): registers,
/// the stack frame as local memory, static shared memory. A cubin does not record its spill
/// bytes, so they read 0: a spill lives in the stack frame, so it shows as a larger `local_bytes`,
/// which the gate compares as it does a source's.
fn cubin_usage(c: &crate::cubin::Cubin) -> BTreeMap<String, Usage> {
    c.entries
        .iter()
        .map(|e| {
            let usage = Usage {
                regs: e.regs.unwrap_or(0),
                spill_store_bytes: 0,
                spill_load_bytes: 0,
                local_bytes: e.frame_bytes.unwrap_or(0),
                shared_static_bytes: e.shared_static_bytes,
            };
            (e.name.clone(), usage)
        })
        .collect()
}

/// The rows of `build` ([`rows`] of its kernels, [`build_kernels`], from ptxas's report in its log).
///
/// # Errors
/// [`rows`]'s sentence, or the report's, followed by NVRTC's log.
fn build_rows(trial: &FileTrial<'_>, build: &Built<'_>, limits: &ArchLimits) -> std::result::Result<Vec<Row>, String> {
    let (source, compiled) = (trial.source, build.compiled);
    let kernels = build_kernels(trial, build);
    // ptxas reports for the architecture it assembled: a PTX module's own `sm_90a` for an sm_90 trial.
    let target = if source.is_ptx() { crate::kernel_file::ptx_target(&compiled.ptx) } else { None };
    let reported = target.as_deref().map_or(trial.arch, |t| compile::prebuilt::ptxas_arch(t, trial.arch));
    let usage = match image_cubin(trial, compiled) {
        Some(read) => read.map(|c| cubin_usage(&c)),
        None => ptxas::parse(&compiled.log, reported),
    };
    let figures = usage.and_then(|usage| {
        let usage: BTreeMap<String, Usage> =
            usage.into_iter().map(|(name, u)| (compile::suite_name(&compiled.lowered, &name).to_string(), u)).collect();
        let by_row: BTreeMap<String, Usage> =
            kernels.iter().filter_map(|(row, name)| Some((row.clone(), *usage.get(name)?))).collect();
        let names: Vec<&str> = kernels.iter().map(|(row, _)| row.as_str()).collect();
        rows(source, &names, &by_row, trial.launches, limits, &compiled.compiler)
    });
    figures.map_err(|why| format!("{why}; NVRTC's log:\n{}", compiled.log))
}
