//! The resource gate without a GPU: per kernel and architecture, the registers, spills, local and
//! static shared memory that ptxas reports, the theoretical occupancy they give at the block size
//! the cases launch it with, and a gate against the table blessed in `baselines/<arch>/resources.csv`.
//!
//! It runs inside the compile trials (`compile/<file>/<arch>`), which need NVRTC but no GPU:
//!
//! 1. **figures**: NVRTC compiles the file for the real architecture (`sm_80`, `sm_90`) with
//!    `--ptxas-options=-v` ([`crate::compile::compile_with_log`]), so the ptxas inside NVRTC
//!    writes its report into the program log, which `ptxas::parse` reads. No standalone ptxas is
//!    needed: NVRTC already runs ptxas to make the cubin of a real architecture, and its report
//!    matched standalone `ptxas -v` of the same release (13.5.37, from the PyPI wheel
//!    `nvidia-cuda-nvcc`) on the PTX of every kernel, line for line, for both architectures
//!    (checked on 2026-11-30);
//! 2. **occupancy** at each launch configuration ([`launches_of`]) by the occupancy calculator's
//!    formula ([`occupancy`]);
//! 3. **gate** ([`gate::compare`]) against the table ([`table`]): a fall in occupancy, a new
//!    spill, or a kernel not in the table fails the trial; other changes are noted.
//!    With `KERNELGATE_BLESS=1` the trial writes its rows instead ([`table::update`]).
//!
//! The figures are what NVRTC's ptxas makes of the PTX. On a GPU the driver compiles the same PTX
//! with its own ptxas, which may differ when the driver's CUDA release differs from NVRTC's.

pub mod arguments;
mod check;
pub mod gate;
pub mod occupancy;
pub mod ptxas;
pub mod report;
pub mod table;

pub use arguments::{Arity, arities, mangled_entries, passed};
pub use check::{Built, Checked, FileTrial, check_compiled, check_file};
pub use gate::{Judgement, compare};
pub use occupancy::{ArchLimits, Demand, Occupancy, limits};
pub use ptxas::Usage;
pub use report::render;
pub use table::{RESOURCES_FILE, Row};

use crate::{case::Case, source::Kernel, source::KernelSource};
use std::collections::BTreeMap;
use std::path::Path;

/// One launch as the resource gate sees it: the kernel, threads per block (the product of the
/// block's dimensions) and dynamic shared memory per block, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LaunchShape {
    /// The entry point launched.
    pub kernel: Kernel,
    /// Threads per block.
    pub block: u32,
    /// Dynamic shared memory per block, bytes.
    pub shared_dynamic: u32,
}

/// The launches of `case`, the one place that reads launch configurations out of the case model.
pub fn launches_of(case: &Case) -> Vec<LaunchShape> {
    case.launches()
        .map(|(kernel, launch)| LaunchShape {
            kernel,
            block: launch.block.iter().product(),
            shared_dynamic: launch.shared_bytes,
        })
        .collect()
}

/// One build of a kernel file that a compile trial compiles: the file's options and
/// `defines`, with the template instances (name expressions, [`Kernel::is_instance`]) that
/// `launches` launch from it with those definitions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileBuild {
    /// The definitions of this build ([`Kernel::defines`]); empty for the file as it is.
    pub defines: &'static [&'static str],
    /// The template instances to instantiate, sorted, each once.
    pub instances: Vec<&'static str>,
}

impl FileBuild {
    /// The NVRTC options of this build: `file_options` (the file's, [`KernelSource::options`]), then
    /// its definitions, as [`Kernel::options`] gives them for each of its kernels.
    pub fn options<'a>(&self, file_options: &[&'a str]) -> Vec<&'a str> {
        crate::source::build_options(file_options, self.defines)
    }
}

/// The builds of kernel file `file` that `launches` need ([`FileBuild`]): the file as it is
/// (every `extern "C"` kernel, and the instances launched without definitions), unless every
/// launch from it has definitions (a file written for `-DBLOCK=...` alone may not compile
/// without them); then one build per distinct set of definitions, in sorted order.
///
/// # Example
/// ```
/// use kernelgate::{Kernel, resources::{builds, FileBuild, LaunchShape}};
/// let reduce = Kernel::new("reduce.cu", "reduce");
/// let shape = |kernel| LaunchShape { kernel, block: 256, shared_dynamic: 0 };
/// let launches = [shape(reduce.define("BLOCK", 128)), shape(reduce.define("BLOCK", 256))];
/// let found: Vec<_> = builds(&launches, "reduce.cu").into_iter().map(|b| b.defines).collect();
/// assert_eq!(found, [&["-DBLOCK=128"][..], &["-DBLOCK=256"][..]]);
/// ```
pub fn builds(launches: &[LaunchShape], file: &str) -> Vec<FileBuild> {
    let mine: Vec<Kernel> = launches.iter().map(|l| l.kernel).filter(|k| k.file == file).collect();
    let mut sets: Vec<&'static [&'static str]> = mine.iter().map(|k| k.defines).collect();
    if mine.is_empty() || mine.iter().any(|k| k.defines.is_empty()) {
        sets.push(&[]);
    }
    sets.sort_unstable();
    sets.dedup();
    sets.into_iter()
        .map(|defines| {
            let mut instances: Vec<&'static str> =
                mine.iter().filter(|k| k.defines == defines && k.is_instance()).map(|k| k.entry).collect();
            instances.sort_unstable();
            instances.dedup();
            FileBuild { defines, instances }
        })
        .collect()
}

/// What `source` lacks of the kernels `launches` launch from it, one message per missing kernel
/// or template ([`Kernel::declared_in`]: the instances of one template share theirs): kernels
/// renamed or removed since the crate was built, which the cases still launch. Empty when it
/// declares them all.
pub fn undeclared(launches: &[LaunchShape], source: &crate::source::KernelSource) -> Vec<String> {
    let mut messages: Vec<String> = Vec::new();
    for kernel in launches.iter().map(|l| l.kernel).filter(|k| k.file == source.file) {
        if let Err(e) = kernel.declared_in(source) {
            let message = e.to_string();
            if !messages.contains(&message) {
                messages.push(message);
            }
        }
    }
    messages
}

/// Every distinct launch of `cases`, sorted.
pub fn launches(cases: &[Case]) -> Vec<LaunchShape> {
    let mut all: Vec<LaunchShape> = cases.iter().flat_map(launches_of).collect();
    all.sort_by_key(|l| (l.kernel.file, l.kernel.entry, l.kernel.defines, l.block, l.shared_dynamic));
    all.dedup();
    all
}

/// The rows of one build of a kernel file on one architecture: one per entry point (`entries`,
/// by [`Kernel::name`]: the file's `extern "C"` kernels and the template instances compiled, with
/// the build's definitions) and distinct launch of it in
/// `launches` (an entry no launch uses gets one row without a block), from ptxas's `usage` of each
/// entry (keyed by the suite's names, [`crate::compile::suite_name`]); `nvrtc` is the compiler's
/// `major.minor`.
///
/// # Errors
/// A sentence naming the entry points ptxas reported nothing for.
pub(crate) fn rows(
    source: &KernelSource,
    entries: &[&str],
    usage: &BTreeMap<String, Usage>,
    launches: &[LaunchShape],
    limits: &ArchLimits,
    nvrtc: &str,
) -> std::result::Result<Vec<Row>, String> {
    let missing: Vec<&str> = entries.iter().copied().filter(|e| !usage.contains_key(*e)).collect();
    if !missing.is_empty() && usage.is_empty() {
        // No figures at all: ptxas did not run (a cached program), not a format change.
        return Err(format!(
            "{}: NVRTC {nvrtc} returned no ptxas report for {}: ptxas did not run, so the program came \
             from a compile cache. kernelgate passes {} to NVRTC {}.{} and later; with an older NVRTC, or a \
             cache this option does not reach, run with CUDA_CACHE_DISABLE=1",
            source.path,
            limits.arch,
            crate::compile::NO_CACHE,
            crate::compile::NO_CACHE_SINCE.0,
            crate::compile::NO_CACHE_SINCE.1,
        ));
    }
    if !missing.is_empty() {
        return Err(format!(
            "{}: NVRTC's ptxas report for {} names no figures for {missing:?}; its report format may have \
             changed (harness/resources/ptxas.rs reads it)",
            source.path, limits.arch
        ));
    }
    let mut out = Vec::new();
    for entry in entries {
        let u = usage[*entry];
        let base = Row {
            file: source.file.to_string(),
            kernel: entry.to_string(),
            block: None,
            shared_dynamic_bytes: 0,
            regs: u.regs,
            spill_store_bytes: u.spill_store_bytes,
            spill_load_bytes: u.spill_load_bytes,
            local_bytes: u.local_bytes,
            shared_static_bytes: u.shared_static_bytes,
            occupancy_warps: None,
            occupancy_pct: None,
            nvrtc: nvrtc.to_string(),
        };
        let mine: Vec<&LaunchShape> =
            launches.iter().filter(|l| l.kernel.file == source.file && l.kernel.name() == *entry).collect();
        if mine.is_empty() {
            out.push(base);
            continue;
        }
        for launch in mine {
            let demand = Demand {
                block: launch.block,
                regs: u.regs,
                shared_static: u32::try_from(u.shared_static_bytes).unwrap_or(u32::MAX),
                shared_dynamic: launch.shared_dynamic,
            };
            let o = occupancy::occupancy(limits, demand);
            out.push(Row {
                block: Some(launch.block),
                shared_dynamic_bytes: launch.shared_dynamic,
                occupancy_warps: Some(o.warps),
                occupancy_pct: Some(o.pct),
                ..base.clone()
            });
        }
    }
    out.sort_by_key(Row::key);
    Ok(out)
}

/// One note per row of `rows` whose launch cannot run on `limits`' architecture (occupancy 0
/// blocks: [`occupancy::why_not_launchable`]): its GPU trial fails on a GPU of that architecture.
/// The row is still gated and blessed as it is, at 0 %, so a change to it is seen. Pure.
pub fn unlaunchable(rows: &[Row], limits: &ArchLimits) -> Vec<String> {
    rows.iter()
        .filter(|r| r.occupancy_warps == Some(0))
        .filter_map(|r| {
            let demand = Demand {
                block: r.block?,
                regs: r.regs,
                shared_static: u32::try_from(r.shared_static_bytes).unwrap_or(u32::MAX),
                shared_dynamic: r.shared_dynamic_bytes,
            };
            let why = occupancy::why_not_launchable(limits, demand)?;
            Some(format!(
                "{} at block {} with {} bytes of dynamic shared memory: cannot launch on {} ({why}): occupancy 0 %, \
                 and its GPU trials fail on a GPU of this architecture",
                r.kernel, demand.block, r.shared_dynamic_bytes, limits.arch
            ))
        })
        .collect()
}

/// `path` relative to the current directory when it lies below it.
pub(crate) fn shown(path: &Path) -> String {
    let relative = std::env::current_dir().ok().and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf));
    relative.unwrap_or_else(|| path.to_path_buf()).display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile;
    use crate::source::k;
    use std::path::PathBuf;

    /// `n` buffer arguments, as a launch of `n` buffer Params passes them.
    fn pointers(n: usize) -> Vec<compile::Passed> {
        let shown = "Param::In (a buffer of f32)".to_string();
        vec![compile::Passed { kind: compile::PassedKind::Pointer, shown }; n]
    }

    /// [`arities`] of `cases` (a name the tests' own bindings do not shadow).
    fn arities_of(cases: &[Case]) -> Vec<Arity> {
        arities(cases)
    }

    #[test]
    fn a_file_is_built_as_it_is_and_once_per_set_of_definitions() {
        let (plain, sum) = (Kernel::new("t.cu", "plain"), crate::KernelTemplate { file: "t.cu", name: "sum" });
        let shape = |kernel| LaunchShape { kernel, block: 128, shared_dynamic: 0 };
        let launches = [
            shape(plain),
            shape(sum.with("4")),
            shape(plain.define("BLOCK", 64)),
            shape(sum.with("4").define("BLOCK", 64)),
            shape(sum.with("8").define("BLOCK", 64)),
            shape(Kernel::new("other.cu", "o").define("BLOCK", 32)),
        ];
        let found = builds(&launches, "t.cu");
        assert_eq!(
            found,
            [
                FileBuild { defines: &[], instances: vec!["sum<4>"] },
                FileBuild { defines: plain.define("BLOCK", 64).defines, instances: vec!["sum<4>", "sum<8>"] },
            ]
        );
        assert_eq!(found[1].options(&["-lineinfo"]), ["-lineinfo", "-DBLOCK=64"]);
        // Every launch defines: the file as it is is not built (it may not compile without them).
        assert_eq!(builds(&launches, "other.cu").len(), 1);
        // No launch: the file as it is, for its entry points' rows.
        assert_eq!(builds(&launches, "none.cu"), [FileBuild { defines: &[], instances: vec![] }]);
    }

    #[test]
    fn a_kernel_the_cases_launch_and_the_file_lost_is_named() {
        let all = [LaunchShape { kernel: k::transpose::transpose_naive, block: 256, shared_dynamic: 0 }];
        let transpose = crate::source::for_tests().get("transpose.cu").unwrap();
        assert!(undeclared(&all, transpose).is_empty());
        let renamed = KernelSource {
            entries: &[
                "transpose_naive_renamed",
                "transpose_shared",
                "transpose_shared_padded",
                "transpose_shared_swizzled",
                "transpose_strided_read",
                "transpose_best",
            ],
            ..*transpose
        };
        let found = undeclared(&all, &renamed);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with(
                "kernels/transpose.cu: no longer declares the extern \"C\" __global__ kernel `transpose_naive`"
            ),
            "{found:?}"
        );
    }

    #[test]
    fn a_template_the_file_lost_is_named_once_for_all_its_instances() {
        let all = ["128, 4", "256, 8"].map(|args| LaunchShape {
            kernel: k::blocksum::block_sum.with(args),
            block: 128,
            shared_dynamic: 0,
        });
        let blocksum = crate::source::for_tests().get("blocksum.cu").unwrap();
        let instances = all.iter().filter(|l| l.kernel.file == "blocksum.cu" && l.kernel.is_instance()).count();
        assert!(instances > 1, "blocksum.cu's cases launch {instances} instances");
        let renamed = KernelSource { templates: &["block_sum_renamed"], ..*blocksum };
        let found = undeclared(&all, &renamed);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("no longer declares the kernel template `block_sum`"), "{found:?}");
    }

    #[test]
    fn a_launch_that_cannot_run_on_an_architecture_is_a_note() {
        // The smem family's 200 KiB tile, as the committed sm_80 table blesses it (9 registers).
        let smem = crate::source::for_tests().get("smem.cu").unwrap();
        let usage = Usage { regs: 9, ..Usage::default() };
        let usage = BTreeMap::from([("stage_reversed".to_string(), usage)]);
        let all = [LaunchShape { kernel: k::smem::stage_reversed, block: 256, shared_dynamic: 204800 }];
        let note = |limits: &ArchLimits| {
            unlaunchable(&rows(smem, &["stage_reversed"], &usage, &all, limits, "13.5").unwrap(), limits)
        };
        assert_eq!(
            note(&occupancy::SM_80),
            ["stage_reversed at block 256 with 204800 bytes of dynamic shared memory: cannot launch on sm_80 (204800 \
              bytes of shared memory per block (0 static + 204800 dynamic), above sm_80's opt-in maximum of 166912 \
              bytes (163 KiB) per block): occupancy 0 %, and its GPU trials fail on a GPU of this architecture"]
        );
        assert!(note(&occupancy::SM_90).is_empty());
    }

    fn source() -> KernelSource {
        KernelSource {
            file: "t.cu",
            path: "kernels/t.cu",
            source: "",
            sha256: "",
            entries: &["a", "lone"],
            templates: &[],
            options: &[],
        }
    }

    #[test]
    fn one_row_per_launch_and_one_for_a_kernel_no_case_launches() {
        let a = Kernel::new("t.cu", "a");
        let launches = [
            LaunchShape { kernel: a, block: 256, shared_dynamic: 0 },
            LaunchShape { kernel: a, block: 1024, shared_dynamic: 0 },
            LaunchShape { kernel: Kernel::new("other.cu", "lone"), block: 64, shared_dynamic: 0 },
        ];
        let usage = BTreeMap::from([
            ("a".to_string(), Usage { regs: 72, ..Usage::default() }),
            ("lone".to_string(), Usage { regs: 8, ..Usage::default() }),
        ]);
        let got = rows(&source(), source().entries, &usage, &launches, &occupancy::SM_90, "13.5").unwrap();
        let shape: Vec<(&str, Option<u32>, Option<u32>)> =
            got.iter().map(|r| (r.kernel.as_str(), r.block, r.occupancy_warps)).collect();
        // 72 registers: 28 warps per SM by registers; 3 blocks of 256, none of 1024 (73728 registers).
        assert_eq!(shape, [("a", Some(256), Some(24)), ("a", Some(1024), Some(0)), ("lone", None, None)]);
        let only_a = BTreeMap::from([("a".to_string(), Usage { regs: 72, ..Usage::default() })]);
        let missing = rows(&source(), source().entries, &only_a, &launches, &occupancy::SM_90, "13.5").unwrap_err();
        assert!(
            missing.contains("no figures for [\"lone\"]") && missing.contains("format may have changed"),
            "{missing}"
        );
    }

    /// A kept GPU runner's second run: NVRTC handed back a cached program, ptxas did not run and the
    /// program log is empty. That is named as a cache hit with its fix, not as a format change.
    #[test]
    fn an_empty_ptxas_report_is_named_as_a_cache_hit() {
        let launches = [LaunchShape { kernel: Kernel::new("t.cu", "a"), block: 256, shared_dynamic: 0 }];
        let usage = ptxas::parse("", "sm_90").unwrap();
        let why = rows(&source(), source().entries, &usage, &launches, &occupancy::SM_90, "13.0").unwrap_err();
        assert!(why.starts_with("kernels/t.cu: NVRTC 13.0 returned no ptxas report for sm_90"), "{why}");
        assert!(why.contains("--no-cache") && why.contains("CUDA_CACHE_DISABLE=1"), "{why}");
        assert!(!why.contains("format may have changed"), "{why}");
    }

    /// A file whose PTX does not declare its listed entry points has no figures: its failure is
    /// headed as the entry-point check it is, and the report prints no empty table.
    #[test]
    fn entry_point_mismatches_have_their_own_heading_and_no_table() {
        let checked = Checked {
            file: "t.cu".into(),
            path: "/tmp/t.cu".into(),
            arch: "sm_90".into(),
            table: PathBuf::from("/x/baselines/sm_90/resources.csv"),
            rows: vec![],
            failures: vec!["/tmp/t.cu: the source defines entry points [] (as build.rs scans it) …".into()],
            entries_match: false,
            notes: vec![],
            blessed: None,
        };
        let failure = checked.failure().unwrap();
        assert!(failure.starts_with("entry points: /tmp/t.cu for sm_90: "), "{failure}");
        assert!(!failure.contains("resource gate"), "{failure}");
        assert_eq!(render(std::slice::from_ref(&checked)), "");
        // Beside a file that compiled, the table is headed with that file's NVRTC.
        let mut compiled = Checked { file: "u.cu".into(), rows: vec![table::row("k", Some(256), 40)], ..checked };
        compiled.entries_match = true;
        compiled.failures.clear();
        let mut mismatch = compiled.clone();
        (mismatch.file, mismatch.rows, mismatch.entries_match) = ("a.cu".into(), vec![], false);
        let text = render(&[mismatch, compiled.clone()]);
        let nvrtc = &compiled.rows[0].nvrtc;
        assert!(text.starts_with(&format!("kernelgate: kernel resources from ptxas {nvrtc} (NVRTC's own;")), "{text}");
        assert!(!text.contains("NVRTC ?"), "{text}");
    }

    /// Where NVRTC is found, a launch with fewer arguments than the kernel's parameters fails the
    /// compile trial with the trial, the kernel and both counts; one with an argument of another
    /// size (a `size_t` passed for an `int`) or kind (a `float` for an `int`) names the case, the
    /// kernel's parameter, what was passed and the fix.
    #[test]
    fn a_launch_with_the_wrong_argument_count_or_type_fails() {
        if let Err(e) = compile::nvrtc_available() {
            assert!(std::env::var_os("KERNELGATE_REQUIRE_NVRTC").is_none(), "{e}");
            eprintln!("skipped: {e}");
            return;
        }
        let text =
            "extern \"C\" __global__ void one(const float* x, float* y, int n) { if (threadIdx.x < n) y[0] = x[0]; }\n";
        let source = KernelSource {
            file: "one.cu",
            path: "kernels/one.cu",
            source: text,
            sha256: "",
            entries: &["one"],
            templates: &[],
            options: &[],
        };
        let kernel = Kernel::new("one.cu", "one");
        let case =
            |variant: &str, params: Vec<crate::case::Param>| Case::new("one", variant, "1", kernel).params(params);
        use crate::case::Param;
        let tmp = tempfile::tempdir().unwrap();
        let arities = arities_of(&[case("short", vec![Param::input(4), Param::output(4)])]);
        let trial = FileTrial {
            source: &source,
            arch: "sm_90",
            launches: &[],
            baselines: tmp.path(),
            bless: false,
            files: &["one.cu"],
            arities: &arities,
        };
        let failure = check_file(&trial, crate::compile::here().as_deref()).unwrap().failure().unwrap();
        assert!(
            failure
                .contains("one/short/1: launches one with 2 argument(s), but kernels/one.cu declares 3 parameter(s)"),
            "{failure}"
        );
        let arities = arities_of(&[case("wide", vec![Param::input(4), Param::output(4), Param::U64(4)])]);
        let failure = check_file(&FileTrial { arities: &arities, ..trial }, crate::compile::here().as_deref())
            .unwrap()
            .failure()
            .unwrap();
        assert!(
            failure.contains(
                "case one/wide/1: kernel one's 3rd parameter (one_param_2) is .u32 in the PTX, a 32-bit integer (int, \
                 unsigned), but the case passes Param::U64(4), a 64-bit integer: pass Param::I32"
            ),
            "{failure}"
        );
        let arities = arities_of(&[case("float", vec![Param::input(4), Param::output(4), Param::F32(4.0)])]);
        let failure = check_file(&FileTrial { arities: &arities, ..trial }, crate::compile::here().as_deref())
            .unwrap()
            .failure()
            .unwrap();
        assert!(
            failure.starts_with("entry points: kernels/one.cu for sm_90: ")
                && failure.contains(
                    "case one/float/1: kernel one's 3rd parameter (one_param_2) is .u32 in the PTX, a 32-bit integer \
                     (int, unsigned), but the case passes Param::F32(4.0), a float (4 bytes); the kernel would read \
                     its bits as an integer, never its value: pass Param::I32"
                ),
            "{failure}"
        );
        let arities = arities_of(&[case("right", vec![Param::input(4), Param::output(4), Param::I32(4)])]);
        let checked = check_file(&FileTrial { arities: &arities, ..trial }, crate::compile::here().as_deref()).unwrap();
        assert!(checked.entries_match, "{:?}", checked.failures);
    }

    /// Where ptxas is found, a prebuilt PTX module for the architecture-specific `sm_90a` is
    /// assembled for it in the sm_90 trial, and its figures are read from ptxas's report (which
    /// names `sm_90a`, not the trial's `sm_90`).
    #[test]
    fn an_architecture_specific_ptx_module_has_its_figures_read() {
        if compile::prebuilt::ptxas().is_err() {
            eprintln!("skipped: no ptxas here (scripts/get-nvrtc)");
            return;
        }
        let ptx = ".version 8.0\n.target sm_90a\n.address_size 64\n\n.visible .entry fill(\n\t.param .u64 fill_param_0\n)\n{\n\
                   \t.reg .b32 %r<3>;\n\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [fill_param_0];\n\
                   \tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 4;\n\
                   \tadd.s64 %rd2, %rd2, %rd3;\n\tst.global.u32 [%rd2], %r1;\n\tret;\n}\n";
        let source = KernelSource::of_text("fill.ptx", "gpu/fill.ptx", ptx);
        let kernel = Kernel::new("fill.ptx", "fill");
        let tmp = tempfile::tempdir().unwrap();
        let launches = [LaunchShape { kernel, block: 256, shared_dynamic: 0 }];
        let arities = [Arity { kernel, args: 1, passed: pointers(1), trial: "fill/a/1".into() }];
        let trial = FileTrial {
            source: &source,
            arch: "sm_90",
            launches: &launches,
            baselines: tmp.path(),
            bless: true,
            files: &["fill.ptx"],
            arities: &arities,
        };
        let checked = check_file(&trial, crate::compile::here().as_deref()).unwrap();
        assert!(checked.failures.is_empty(), "{:?}", checked.failures);
        assert_eq!(checked.rows.len(), 1, "{checked:?}");
        assert_eq!((checked.rows[0].kernel.as_str(), checked.rows[0].block), ("fill", Some(256)));
    }

    /// Where NVRTC is found (CI: KERNELGATE_REQUIRE_NVRTC=1), a kernel with an unrolled accumulator
    /// array uses more registers than one with a single accumulator, and bless then gate against
    /// the same build passes.
    #[test]
    fn a_file_is_measured_blessed_and_then_passes() {
        if let Err(e) = compile::nvrtc_available() {
            assert!(std::env::var_os("KERNELGATE_REQUIRE_NVRTC").is_none(), "{e}");
            eprintln!("skipped: {e}");
            return;
        }
        let text = "extern \"C\" __global__ void one(const float* x, float* y, int n) {\n\
                    float acc = 0.f; for (int k = 0; k < n; ++k) acc += x[k * 256 + threadIdx.x];\n\
                    y[threadIdx.x] = acc; }\n";
        let source = KernelSource {
            file: "one.cu",
            path: "kernels/one.cu",
            source: text,
            sha256: "",
            entries: &["one"],
            templates: &[],
            options: &[],
        };
        let launches = [LaunchShape { kernel: Kernel::new("one.cu", "one"), block: 256, shared_dynamic: 0 }];
        let tmp = tempfile::tempdir().unwrap();
        let trial = |bless| FileTrial {
            source: &source,
            arch: "sm_90",
            launches: &launches,
            baselines: tmp.path(),
            bless,
            files: &["one.cu"],
            arities: &[],
        };
        let first = check_file(&trial(false), crate::compile::here().as_deref()).unwrap();
        assert!(
            first.failure().unwrap().contains(
                "does not exist: its 1 kernel (one) is not blessed; new kernels and launch configurations must be \
                           blessed: KERNELGATE_BLESS=1"
            ),
            "{:?}",
            first.failure()
        );
        assert!(
            first.failures.iter().all(|f| gate::is_gate_failure(f)),
            "a first bless is the gate's: {:?}",
            first.failures
        );
        let blessed = check_file(&trial(true), crate::compile::here().as_deref()).unwrap();
        assert_eq!(blessed.blessed.as_ref().map(Vec::len), Some(1), "{blessed:?}");
        let again = check_file(&trial(false), crate::compile::here().as_deref()).unwrap();
        assert_eq!(again.failure(), None);
        assert_eq!(again.rows, blessed.rows);
        assert_eq!(again.rows[0].occupancy_pct, Some(100.0), "{:?}", again.rows);
    }

    /// A cubin's compile trial needs no compiler: its rows come from the image (registers, frame,
    /// static shared memory, and the ptxas release it names), and a launch whose argument is not
    /// the size of the image's parameter is named with its size; a `float` for an `int`, of the
    /// same size, passes (a cubin records no types).
    #[test]
    fn a_cubin_is_gated_from_its_image_and_its_parameters_are_checked() {
        let image = std::fs::read(crate::source::fixture_path("cubin/kernels.cubin")).unwrap();
        let source = KernelSource::of_text("fused.cubin", "gpu/fused.cubin", &crate::cubin::to_text(&image));
        let (axpy, mixed) = (Kernel::new("fused.cubin", "axpy"), Kernel::new("fused.cubin", "mixed"));
        let launches = [
            LaunchShape { kernel: axpy, block: 256, shared_dynamic: 0 },
            LaunchShape { kernel: mixed, block: 256, shared_dynamic: 0 },
        ];
        let tmp = tempfile::tempdir().unwrap();
        let trial = |arities| FileTrial {
            source: &source,
            arch: "sm_90",
            launches: &launches,
            baselines: tmp.path(),
            bless: true,
            files: &["fused.cubin"],
            arities,
        };
        let scalars = |n: crate::case::Param| {
            use crate::case::Param;
            let case =
                Case::new("axpy", "a", "1", axpy).params([Param::input(4), Param::output(4), Param::F32(2.0), n]);
            arities_of(std::slice::from_ref(&case))
        };
        let right = scalars(crate::case::Param::I32(4));
        let checked = check_file(&trial(&right), crate::compile::here().as_deref()).unwrap();
        assert!(checked.failures.is_empty(), "{:?}", checked.failures);
        let row = |k: &str| checked.rows.iter().find(|r| r.kernel == k).unwrap().clone();
        assert_eq!((row("axpy").regs, row("axpy").local_bytes, row("axpy").nvrtc.as_str()), (10, 0, "13.0"));
        assert_eq!((row("mixed").regs, row("mixed").shared_static_bytes), (14, 1024));
        // `int n` passed as a 64-bit Param::U64: the cubin tells the size; a float for it, of
        // the same size, it cannot tell.
        let (wide, float) = (scalars(crate::case::Param::U64(4)), scalars(crate::case::Param::F32(4.0)));
        let checked = check_file(&trial(&wide), crate::compile::here().as_deref()).unwrap();
        let failure = checked.failure().unwrap();
        assert!(
            failure.contains(
                "case axpy/a/1: kernel axpy's 4th parameter is 4 bytes in the cubin (which records no types), but the \
                 case passes Param::U64(4), a 64-bit integer"
            ) && failure.contains("gpu/fused.cubin"),
            "{failure}"
        );
        assert!(check_file(&trial(&float), crate::compile::here().as_deref()).unwrap().failures.is_empty());
        let mut extra = right.clone();
        extra[0].args = 5;
        let failure = check_file(&trial(&extra), crate::compile::here().as_deref()).unwrap().failure().unwrap();
        assert!(failure.contains("launches axpy with 5 argument(s), but gpu/fused.cubin declares 4"), "{failure}");
    }
}
