//! The compile trials (`compile/<file>/<arch>`): one NVRTC compile of each build of a kernel file
//! (the file as it is, and each set of definitions its cases launch it with), then the resource
//! gate and the SASS gate on what they made. No GPU.

use super::{Suite, cannot_run};
use crate::report::events::Event;
use crate::{compile, error::Error, resources, sass, source::KernelSource};
use libtest_mimic::{Completion, Failed};
use std::sync::atomic::Ordering;

/// A compile trial: the file must still declare every kernel the cases launch from it
/// ([`resources::undeclared`]), NVRTC compiles each build of it for `arch` (once, [`resources::builds`]), the PTX must declare the entry
/// points the scan lists, the kernels' resources at the cases' `launches` pass their gate
/// ([`resources::check_compiled`]), and their SASS passes its gate and the cases' declared
/// expectations ([`sass::check`]); with `KERNELGATE_BLESS=1` both tables are written instead.
/// Ignored without NVRTC, unless `KERNELGATE_REQUIRE_NVRTC=1`; without nvdisasm the SASS gate alone
/// is skipped (said at the end of the run), unless the same variable is set. A trial failed by the
/// gates alone counts as a gate failure ([`super::EXIT_REGRESSION`]).
pub(super) fn run(
    suite: &Suite,
    launches: &[resources::LaunchShape],
    arities: &[resources::Arity],
    declared: &[sass::Declared],
    source: &KernelSource,
    arch: &'static str,
) -> Result<Completion, Failed> {
    // A kernel the cases launch that the file no longer declares (renamed since the build): the
    // gates would ask to bless the new name while the cases still launch the old one.
    let undeclared = resources::undeclared(launches, source);
    if !undeclared.is_empty() {
        return Err(undeclared.join("\n").into());
    }
    // A prebuilt module built for a later architecture (or an architecture-specific one; a cubin for
    // another) has no code for this one: nothing to gate here. One that fits none of the gated architectures would
    // pass no gate at all: with KERNELGATE_REQUIRE_NVRTC=1 (CI) that fails.
    if source.is_prebuilt()
        && let Some(why) = compile::prebuilt::unfit(source.path, source.source, arch)
    {
        let fits_none =
            super::COMPILE_ARCHS.iter().all(|a| compile::prebuilt::unfit(source.path, source.source, a).is_some());
        if fits_none && suite.config.require_nvrtc {
            return Err(format!(
                "{why}; it fits none of the architectures the compile trials gate ({}), so no resource or SASS \
                 gate checks it (KERNELGATE_REQUIRE_NVRTC=1)",
                super::COMPILE_ARCHS.join(", ")
            )
            .into());
        }
        return lost_gate(suite, source, arch, why);
    }
    let baselines = suite.baselines();
    // PTX of a newer ISA than the runners' drivers load fails there at load time: said here, without a GPU.
    if source.is_ptx()
        && let Ok(runners) = crate::gate::baseline::runner_cuda(&baselines, &suite.project.root)
        && let Some(why) = compile::prebuilt::isa_unloadable(source.path, source.source, &runners)
    {
        return Err(why.into());
    }
    let files: Vec<&str> = suite.sources.iter().map(|s| s.file).collect();
    // One NVRTC compile per build of the file: the file as it is, and each set of definitions
    // the cases launch its kernels with (Kernel::define).
    let (mut made, mut listings) = (Vec::new(), Vec::new());
    for build in resources::builds(launches, source.file) {
        let (compiled, listing) = suite.ahead.take(source, arch, &build);
        let compiled = match compiled {
            Ok(compiled) => compiled,
            Err(Error::Unavailable(reason)) if !suite.config.require_nvrtc => return cannot_run(reason),
            Err(e) => return Err(format!("{e}{}", bare_hint(arities, source, &build)).into()),
        };
        made.push((build.defines, compiled));
        listings.push(listing.expect("a listing is made of every compiled cubin"));
    }
    let trial = resources::FileTrial {
        source,
        arch,
        launches,
        baselines: &baselines,
        bless: suite.config.bless,
        files: &files,
        arities,
    };
    let built: Vec<resources::Built<'_>> =
        made.iter().map(|(defines, compiled)| resources::Built { defines, compiled }).collect();
    let checked = resources::check_compiled(&trial, &built).map_err(|e| Failed::from(e.to_string()))?;
    // Entry points that are not the ones the cases name: nothing is gated, the SASS gate included
    // (it would ask to bless the mangled names).
    if !checked.entries_match {
        let failure = checked.failure().unwrap_or_default();
        suite.collected.resources.lock().unwrap_or_else(|p| p.into_inner()).push(checked);
        return Err(failure.into());
    }
    let mut failures: Vec<String> = checked.failure().into_iter().collect();
    let mut gate_only = checked.failures.iter().all(|f| resources::gate::is_gate_failure(f));
    suite.collected.resources.lock().unwrap_or_else(|p| p.into_inner()).push(checked);
    let nvrtc = made[0].1.compiler.clone();
    let sass_trial = sass::FileTrial {
        source,
        arch,
        baselines: &baselines,
        bless: suite.config.bless,
        files: &files,
        declared,
        launches,
    };
    let checked = listings.into_iter().collect::<crate::error::Result<Vec<String>>>().and_then(|texts| {
        let listings: Vec<sass::Listing<'_>> = made
            .iter()
            .zip(&texts)
            .map(|((defines, compiled), text)| sass::Listing { defines, lowered: &compiled.lowered, text })
            .collect();
        sass::check_listings(&sass_trial, sass::nvdisasm::load()?, &listings, &nvrtc)
    });
    match checked {
        Ok(found) => {
            if let Some(failure) = found.failure() {
                gate_only &= found.failures.iter().all(|f| resources::gate::is_gate_failure(f));
                failures.push(failure);
            }
            suite.collected.sass.lock().unwrap_or_else(|p| p.into_inner()).push(found);
        }
        Err(Error::Unavailable(reason)) if !suite.config.require_nvrtc => {
            let _ = suite.collected.sass_skipped.set(reason);
        }
        Err(e) => {
            failures.push(format!("SASS gate: {e}"));
            gate_only = false;
        }
    }
    if failures.is_empty() {
        return Ok(Completion::Completed);
    }
    // A gate's regression alone is a gate failure (exit code 3), as a timing regression is.
    if gate_only {
        suite.collected.gate_failures.fetch_add(1, Ordering::Relaxed);
    }
    Err(failures.join("\n").into())
}

/// When the build of `source` as it is (no definitions) failed while other cases launch its
/// kernels with definitions: the file likely needs them (an `#error` without `-DBLOCK`), so the
/// cases that launch its kernels without them ([`resources::Arity::trial`]), and the fix. Empty
/// otherwise.
fn bare_hint(arities: &[resources::Arity], source: &KernelSource, build: &resources::FileBuild) -> String {
    let mine = || arities.iter().filter(|a| a.kernel.file == source.file);
    if !build.defines.is_empty() || mine().all(|a| a.kernel.defines.is_empty()) {
        return String::new();
    }
    let mut bare: Vec<String> =
        mine().filter(|a| a.kernel.defines.is_empty()).map(|a| format!("{} ({})", a.trial, a.kernel.entry)).collect();
    bare.sort_unstable();
    bare.dedup();
    let module = crate::entry_scan::module_name(source.file);
    format!(
        "\nkernelgate: this is the build of {} without definitions, made because {} launch(es) its kernels \
         without .define(...) while other cases define them; if the file needs definitions, give those cases \
         theirs (k::{module}::<kernel>.define(\"NAME\", value))",
        source.path,
        bare.join(", ")
    )
}

/// A prebuilt module with nothing to gate for `arch` (`why`, [`compile::prebuilt::unfit`]): ignored
/// with that reason, unless the tables for `arch` hold rows of it (blessed from a build that had
/// code for `arch`, then replaced by one for another architecture): that loses a blessed gate, so
/// the trial fails, saying so and how to mean it. With `KERNELGATE_BLESS=1` the rows are removed
/// instead (said), and the trial is ignored.
fn lost_gate(suite: &Suite, source: &KernelSource, arch: &str, why: String) -> Result<Completion, Failed> {
    let baselines = suite.baselines();
    let (rows_dir, sass_dir) = (resources::table::dir_for(&baselines, arch), sass::table::dir_for(&baselines, arch));
    let blessed = |e: crate::Error| Failed::from(e.to_string());
    let resources_rows =
        resources::table::load(&rows_dir).map_err(blessed)?.iter().filter(|r| r.file == source.file).count();
    let sass_rows = sass::table::load(&sass_dir).map_err(blessed)?.iter().filter(|r| r.file == source.file).count();
    if resources_rows + sass_rows == 0 {
        return cannot_run(why);
    }
    if suite.config.bless {
        resources::table::update(&rows_dir, |all| {
            all.retain(|r| r.file != source.file);
            Some(())
        })
        .map_err(blessed)?;
        sass::table::update(&sass_dir, |all| {
            all.retain(|r| r.file != source.file);
            Some(())
        })
        .map_err(blessed)?;
        suite.report(&Event::Status(&format!(
            "kernelgate: removed the rows of {} for {arch} from {} and {} ({resources_rows} and {sass_rows}): it has no \
             code for {arch} now",
            source.path,
            rows_dir.join(resources::RESOURCES_FILE).display(),
            sass_dir.join(sass::table::SASS_FILE).display()
        )));
        return cannot_run(why);
    }
    Err(format!(
        "{why}; but the tables for {arch} hold rows of {} ({resources_rows} resource, {sass_rows} SASS), blessed from a \
         build with code for {arch}: its {arch} gate would be lost. Rebuild it for {arch}, or, if it is no longer meant \
         for {arch}, remove its rows: KERNELGATE_BLESS=1 cargo test --release --test kernels -- compile/{}/{arch}",
        source.path, source.file
    )
    .into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Kernel, resources::Arity};

    #[test]
    fn a_bare_build_of_a_file_its_other_cases_define_names_those_cases_and_the_fix() {
        let source = KernelSource::of_text("rowsum.cu", "gpu/rowsum.cu", "extern \"C\" __global__ void row_sum() {}\n");
        let row_sum = Kernel::new("rowsum.cu", "row_sum");
        let arity = |kernel, trial: &str| Arity { kernel, args: 0, passed: Vec::new(), trial: trial.into() };
        let arities = [arity(row_sum.define("BLOCK", 256), "rowsum/b256/1"), arity(row_sum, "rowsum/bare/1")];
        let bare = resources::FileBuild { defines: &[], instances: Vec::new() };
        let hint = bare_hint(&arities, &source, &bare);
        assert!(
            hint.starts_with(
                "\nkernelgate: this is the build of gpu/rowsum.cu without definitions, made because rowsum/bare/1 \
                 (row_sum) launch(es) its kernels without .define(...)"
            ),
            "{hint}"
        );
        assert!(hint.ends_with("(k::rowsum::<kernel>.define(\"NAME\", value))"), "{hint}");
        // No case defines anything, or this is a build with definitions: nothing to add.
        assert_eq!(bare_hint(&arities[1..], &source, &bare), "");
        let defined = resources::FileBuild { defines: row_sum.define("BLOCK", 256).defines, instances: Vec::new() };
        assert_eq!(bare_hint(&arities, &source, &defined), "");
    }
}
