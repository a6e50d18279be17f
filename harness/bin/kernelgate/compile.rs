//! `kernelgate compile FILE...`: the compile trials of kernel files, without the GPU trials. It
//! compiles each file as it is, for each architecture, and runs what the compile trials run: the
//! entry points, the resource gate and the SASS gate against the blessed tables, with the same
//! messages. A file that is not one of the project's kernel files (one outside it, or a new name)
//! has no blessed rows and no cases: its figures are printed and nothing is gated. A file's kernel
//! templates are compiled as the instances the case table launches from it and those given with
//! `--instance` (a new template before its cases). A file is built as the cases build it (as it is,
//! and with each set of definitions they give its kernels); `--define NAME=VALUE` builds it once
//! with those definitions instead, figures only. A prebuilt PTX module (`*.ptx`) is assembled by
//! ptxas for each architecture its `.target` runs on; the others are skipped, saying why.

use kernelgate::{Error, KernelSource, compile, resources, sass};
use std::path::PathBuf;

/// What a file outside the suite is checked against, in messages.
const NO_TABLE: &str = "no blessed table (not a file of the project's kernel folders)";

/// The architectures compiled when none is given: the compile trials'.
pub const ARCHS: [&str; 2] = ["sm_80", "sm_90"];

/// Compiles and checks each of `files` for each of `archs` (the compile trials' when empty), with
/// the template instances the cases launch from it and `extra` (name expressions, each file);
/// `project` names the kernel folders and the folder of the blessed tables. Prints the figures and every failure. Returns
/// 0 when every check passed, 3 ([`kernelgate::suite::EXIT_REGRESSION`]) when the gates alone
/// failed, 1 when a file did not compile or a lesson or entry-point check failed.
///
/// # Errors
/// A file that cannot be read; no NVRTC ([`Error::Unavailable`], with where it looked and the fix);
/// a table that cannot be read; [`suite_files`]'s (the project's kernel folders as the suite holds
/// them: one file per name, a `[nvrtc.files."<file>"]` table for each file named).
pub fn compile_command(
    files: &[PathBuf],
    archs: &[String],
    extra: &[String],
    define: &[String],
    project: &kernelgate::project::Project,
) -> kernelgate::Result<u8> {
    // `--define NAME=VALUE`: one build of each file with all of them, figures only.
    let mut options = Vec::new();
    for d in define {
        let (name, value) = d.split_once('=').unwrap_or((d, ""));
        let refused = |expected: String| Error::Flag { flag: "--define", value: d.clone(), expected };
        let option = kernelgate::source::define_option(name, value)
            .map_err(|why| refused(format!("{why}; write --define NAME=VALUE, once per name")))?;
        if options.iter().any(|o: &String| o.starts_with(&format!("-D{name}="))) {
            return Err(refused(format!("{name} is defined already; define each name once")));
        }
        options.push(option);
    }
    let defined: &'static [&'static str] = kernelgate::source::defines_list(options);
    let baselines = project.baselines.as_path();
    let archs: Vec<&str> = if archs.is_empty() { ARCHS.to_vec() } else { archs.iter().map(String::as_str).collect() };
    // The cases the compile trials gate (the suite's `plan::gated`), as the project's test binary
    // last wrote them; without them, the library's planted family alone, which the suite compiles
    // and gates in every run.
    let facts = crate::case_facts(
        project,
        "template instances come from --instance alone, and launches and SASS expectations are not checked",
    )?
    .unwrap_or_else(|| kernelgate::case::facts::Facts::of(&kernelgate::case::planted::cases(), &[]));
    let (launches, arities, declared) = (facts.launches(), facts.arities(), facts.declared());
    let suite_files = suite_files(project)?;
    let suite_files: Vec<&str> = suite_files.iter().map(String::as_str).collect();
    let mut checked_resources = Vec::new();
    let mut checked_sass = Vec::new();
    let mut skipped_total = 0;
    let (mut gate_failed, mut other_failed) = (false, false);
    for path in files {
        let source = KernelSource::read(path, &path.display().to_string())?;
        // A name declared twice is said once, with both lines, not as NVRTC's error per architecture.
        if let Err(e) = kernelgate::kernel_file::declared(source.file, source.source)
            && e.kind() == kernelgate::KernelFileErrorKind::Redeclared
        {
            kernelgate::outln!("kernelgate: {}: {e}", path.display());
            other_failed = true;
            continue;
        }
        let of_project = suite_files.contains(&source.file);
        // A file of the project compiles with the project's options for it, as the suite's trials.
        let source = if of_project { source.with_options(project.nvrtc_options(source.file)?) } else { source };
        if source.is_prebuilt() && !defined.is_empty() {
            kernelgate::outln!(
                "kernelgate: {}: a prebuilt module takes no --define (its compiler's definitions are built in): \
                 build one module per definition with nvcc -ptx (or -cubin) -DNAME=VALUE",
                path.display()
            );
            other_failed = true;
            continue;
        }
        // Gated as the compile trials gate it, unless --define builds it as no case does.
        let in_suite = of_project && defined.is_empty();
        if of_project && !defined.is_empty() {
            kernelgate::errln!(
                "kernelgate: {} with {}: a build no case launches: figures only, nothing gated",
                path.display(),
                defined.join(" ")
            );
        }
        if !source.options.is_empty() {
            kernelgate::outln!(
                "kernelgate: NVRTC options of {}: {} (kernelgate.toml [nvrtc])",
                path.display(),
                source.options.join(" ")
            );
        } else if !of_project && !project.nvrtc.options.is_empty() {
            kernelgate::outln!(
                "kernelgate: {} is compiled with kernelgate's options alone (kernelgate.toml's [nvrtc] applies to the kernel folders' files)",
                path.display()
            );
        }
        if !of_project {
            kernelgate::errln!(
                "kernelgate: {} is not a file of the project's kernel folders: figures only, nothing gated",
                path.display()
            );
        }
        if in_suite {
            let undeclared = resources::undeclared(&launches, &source);
            if !undeclared.is_empty() {
                undeclared.iter().for_each(|m| kernelgate::outln!("{m}"));
                other_failed = true;
                continue;
            }
        }
        // One compile per build: the file as it is (with --instance's instances too), and each set of
        // definitions the cases launch it with.
        let mut builds = if defined.is_empty() {
            resources::builds(&launches, source.file)
        } else {
            vec![resources::FileBuild {
                defines: defined,
                instances: resources::builds(&launches, source.file)
                    .into_iter()
                    .filter(|b| b.defines.is_empty())
                    .flat_map(|b| b.instances)
                    .collect(),
            }]
        };
        if !extra.is_empty() && builds.first().is_none_or(|b| !b.defines.is_empty()) {
            builds.insert(0, resources::FileBuild { defines: &[], instances: Vec::new() });
        }
        for e in extra {
            let extra: &'static str = e.clone().leak();
            if !builds[0].instances.contains(&extra) {
                builds[0].instances.push(extra);
            }
        }
        if builds.iter().all(|b| b.instances.is_empty()) && !source.templates.is_empty() {
            kernelgate::errln!(
                "kernelgate: {}: the kernel templates {:?} are compiled only as instances: name one with \
                 --instance 'NAME<ARGS>', or launch one from the case table",
                path.display(),
                source.templates
            );
        }
        // PTX of a newer ISA than the drivers that blessed the baselines load fails on those runners.
        if source.is_ptx() {
            let runners = kernelgate::gate::baseline::runner_cuda(baselines, &project.root)?;
            if let Some(why) = compile::prebuilt::isa_unloadable(&path.display().to_string(), source.source, &runners) {
                kernelgate::outln!("kernelgate: {why}");
                other_failed = true;
                continue;
            }
            if runners.is_empty() {
                kernelgate::outln!(
                    "kernelgate: note: no GPU baseline records the runners' driver release yet, so whether they load \
                     {} ({}) is not checked: a CUDA 13.0 driver loads PTX ISA 9.0 and older \
                     (kernelgate::compile::prebuilt::ISA_OF_CUDA)",
                    path.display(),
                    kernelgate::kernel_file::ptx_version(source.source)
                        .map_or_else(|| "no .version".to_string(), |(major, minor)| format!("PTX ISA {major}.{minor}"))
                );
            }
        }
        let mut skipped = 0;
        for arch in &archs {
            // A prebuilt module built for a later (or another) architecture has no code for this one.
            if source.is_prebuilt()
                && let Some(why) = compile::prebuilt::unfit(source.path, source.source, arch)
            {
                kernelgate::outln!("kernelgate: {arch} skipped: {why}");
                skipped += 1;
                continue;
            }
            let mut made = Vec::new();
            for build in &builds {
                let options = build.options(source.options);
                // Named by the path given, not `kernels/<name>`: the file may lie anywhere. The
                // error and NVRTC's log name it so (and the definitions NVRTC's error names the
                // build with follow the path).
                let compiled = compile::compile_with_log(
                    source.file,
                    source.path,
                    source.source,
                    arch,
                    &build.instances,
                    &options,
                    Some(&project.root),
                );
                match compiled {
                    Ok(c) => made.push((build.defines, c)),
                    // ptxas refused a PTX module (its output names the line), or a cubin is not whole.
                    Err(e @ Error::Kernels { .. }) if source.is_prebuilt() => {
                        kernelgate::outln!("{e}");
                        other_failed = true;
                    }
                    Err(e @ Error::Compile { .. }) => {
                        kernelgate::outln!("{e}");
                        other_failed = true;
                    }
                    Err(e) => return Err(e),
                }
            }
            if made.len() < builds.len() {
                continue;
            }
            let built: Vec<resources::Built<'_>> =
                made.iter().map(|(defines, compiled)| resources::Built { defines, compiled }).collect();
            let tmp;
            let tables = if in_suite {
                baselines
            } else {
                // An empty baselines folder: the checks run and compare with nothing.
                tmp = tempfile::tempdir().map_err(Error::io(std::env::temp_dir()))?;
                tmp.path()
            };
            let trial = resources::FileTrial {
                source: &source,
                arch,
                launches: &launches,
                baselines: tables,
                bless: false,
                files: &suite_files,
                arities: &arities,
            };
            let mut found = resources::check_compiled(&trial, &built)?;
            if !in_suite {
                found.failures.retain(|f| !ungated(f));
                found.table = PathBuf::from(NO_TABLE);
            }
            tally(found.failure(), &found.failures, &mut gate_failed, &mut other_failed);
            let entries_match = found.entries_match;
            checked_resources.push(found);
            // Entry points or arguments that are not the cases': nothing is gated, SASS included.
            if !entries_match {
                continue;
            }
            let nvrtc = made[0].1.compiler.clone();
            let trial = sass::FileTrial {
                source: &source,
                arch,
                baselines: tables,
                bless: false,
                files: &suite_files,
                // The cases' SASS lessons are of their own builds, not of a --define build.
                declared: if defined.is_empty() { &declared } else { &[] },
                launches: &launches,
            };
            let listed = sass::nvdisasm::load().and_then(|tool| {
                let texts = made
                    .iter()
                    .map(|(_, compiled)| sass::nvdisasm::disassemble(tool, &compiled.cubin))
                    .collect::<kernelgate::Result<Vec<String>>>()?;
                let listings: Vec<sass::Listing<'_>> = made
                    .iter()
                    .zip(&texts)
                    .map(|((defines, compiled), text)| sass::Listing { defines, lowered: &compiled.lowered, text })
                    .collect();
                sass::check_listings(&trial, tool, &listings, &nvrtc)
            });
            match listed {
                Ok(mut found) => {
                    if !in_suite {
                        found.failures.retain(|f| !ungated(f));
                        found.notes.retain(|n| !no_table(n));
                        found.table = PathBuf::from(NO_TABLE);
                    }
                    tally(found.failure(), &found.failures, &mut gate_failed, &mut other_failed);
                    checked_sass.push(found);
                }
                Err(Error::Unavailable(why)) => kernelgate::errln!("kernelgate: SASS gate not run: {why}"),
                Err(e) => return Err(e),
            }
        }
        skipped_total += skipped;
        if skipped == archs.len() {
            kernelgate::outln!(
                "kernelgate: {}: no architecture checked: the prebuilt module fits none of {} (above); nothing of it \
                 was gated",
                path.display(),
                archs.join(", ")
            );
            other_failed = true;
        }
    }
    for report in [resources::render(&checked_resources), sass::render(&checked_sass)] {
        if !report.is_empty() {
            kernelgate::outln!("{report}");
        }
    }
    // An architecture a prebuilt module has no code for was skipped (said above): not "checked".
    let skips = if skipped_total == 0 { String::new() } else { format!(" ({skipped_total} skipped, above)") };
    let what = format!("{} file(s) for {}{skips}", files.len(), archs.join(" and "));
    kernelgate::outln!(
        "kernelgate: compile: {what}: {}",
        if other_failed {
            "a file did not compile or a check failed (above)"
        } else if gate_failed {
            "the gates failed (above)"
        } else {
            "every check passed"
        }
    );
    Ok(if other_failed {
        1
    } else if gate_failed {
        kernelgate::suite::EXIT_REGRESSION
    } else {
        0
    })
}

/// Prints a check's `failure` message, if any, and marks whether its `failures` were all the
/// gates' (exit 3) or not (exit 1).
fn tally(failure: Option<String>, failures: &[String], gate_failed: &mut bool, other_failed: &mut bool) {
    if let Some(failure) = failure {
        kernelgate::outln!("{failure}");
        let gate = failures.iter().all(|f| resources::gate::is_gate_failure(f));
        if gate { *gate_failed = true } else { *other_failed = true }
    }
}

/// Whether `failure` is one a file outside the suite cannot help: a gate's judgement of rows no
/// table holds (the table's absence included). Its lessons and entry points are still checked.
fn ungated(failure: &str) -> bool {
    resources::gate::is_gate_failure(failure)
}

/// Whether `note` says a table does not exist, which a file outside the suite never has.
fn no_table(note: &str) -> bool {
    note.starts_with("not gated: ") && note.contains("does not exist")
}

/// The names of the kernel files of the project's kernel folders, listed, not read: a file being
/// fixed may not parse yet. Empty where there are none.
///
/// # Errors
/// As the suite refuses the folders ([`kernelgate::source::read_project`]): [`Error::Kernels`]
/// naming both files when two folders hold one file name; [`Error::Project`] at its line of
/// `kernelgate.toml` when a `[nvrtc.files."<file>"]` table names none of the files
/// ([`kernelgate::project::Project::check_nvrtc_files`], the same check and message).
fn suite_files(project: &kernelgate::project::Project) -> kernelgate::Result<Vec<String>> {
    let mut found: Vec<(String, PathBuf)> = project
        .kernels
        .iter()
        .flat_map(std::fs::read_dir)
        .flatten()
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(n, _)| kernelgate::kernel_file::kind_of(n).is_some())
        .collect();
    found.sort();
    if let Some(pair) = found.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(Error::Kernels {
            path: project.shown(&pair[1].1).into(),
            message: format!(
                "has the file name of {}: kernelgate names a kernel file by its name, so the kernel folders of one \
                 project hold each name once; rename one of them",
                project.shown(&pair[0].1)
            ),
        });
    }
    let names: Vec<String> = found.into_iter().map(|(name, _)| name).collect();
    project.check_nvrtc_files(&names.iter().map(String::as_str).collect::<Vec<_>>())?;
    Ok(names)
}
