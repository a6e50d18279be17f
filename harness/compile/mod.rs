//! Compile stage: kernel sources to PTX with NVRTC, for one target architecture.
//!
//! NVRTC is loaded at run time. cudarc panics on first use when `libnvrtc` is missing (checked on
//! 2026-11-30, ../shared/gpu/README.md), so every entry point here first finds and opens it with
//! [`crate::nvrtc::load`] (which also lets cudarc find it without `LD_LIBRARY_PATH`), and callers
//! turn a missing library into an ignored trial with the reason.

use crate::{
    error::{Error, Result},
    nvrtc,
    source::KernelSource,
};
use cudarc::nvrtc::Ptx;

mod entries;
mod for_gpu;
mod headers;
pub mod prebuilt;
mod ptx;
mod ptx_params;

pub(crate) use entries::check_entries;
pub use entries::unseen_cause;
pub use for_gpu::{ModulePtx, module_identity, module_ptx};
use headers::with_hint;
pub use headers::{LOCAL_INCLUDE, header_hint, include_dirs, include_options, named_log};
pub use ptx::{itanium_name, ptx_entries, ptx_param_counts, ptx_sha256};
pub use ptx_params::{Mismatch, ParamType, Passed, PassedKind, PtxParam, entry_params, mismatch};

/// NVRTC options used for every kernel besides the architecture: C++17 and line info (so that
/// Nsight Compute can correlate SASS with source lines). A project's own options for a file
/// ([`crate::project::Project::nvrtc_options`], `[nvrtc]` of `kernelgate.toml`) come after them;
/// a `--std` of its own replaces this one.
pub const NVRTC_OPTIONS: &[&str] = &["--std=c++17", "-lineinfo"];

/// Why a project's NVRTC option is refused ([`crate::project::refused_option`], where
/// `kernelgate.toml` is read); here too, beside the options kernelgate sets.
pub use crate::project::refused_option;

/// Every option of a compile for `arch`: [`NVRTC_OPTIONS`] (less its `--std` where `extra` has
/// one), `--gpu-architecture=<arch>`, then `extra` (a project's options for the file). Pure.
pub fn options_for(arch: &str, extra: &[&str]) -> Vec<String> {
    let own_std = extra.iter().any(|o| o.starts_with("--std") || o.starts_with("-std"));
    let mut options: Vec<String> =
        NVRTC_OPTIONS.iter().filter(|o| !(own_std && o.starts_with("--std"))).map(|s| s.to_string()).collect();
    options.push(format!("--gpu-architecture={arch}"));
    options.extend(extra.iter().map(|s| s.to_string()));
    options
}

/// `Ok(())` when an NVRTC is found and opened ([`nvrtc::load`]); otherwise the reason, with the fix.
///
/// # Errors
/// [`Error::Unavailable`] when no NVRTC is found (every place searched is named);
/// [`Error::Config`] when `KERNELGATE_NVRTC` names no usable NVRTC.
pub fn nvrtc_available() -> Result<()> {
    nvrtc::load().map(|_| ())
}

/// NVRTC's version as `(major, minor)` (`nvrtcVersion` of the library [`nvrtc::load`] opened,
/// which is the one cudarc calls).
///
/// # Errors
/// As [`nvrtc_available`].
pub fn nvrtc_version() -> Result<(i32, i32)> {
    Ok(nvrtc::load()?.version)
}

/// Compiles one kernel file to PTX for `arch` (e.g. `"sm_90"`): its `extern "C"` kernels, with
/// the options the GPU trials compile with (its own, [`KernelSource::options`], included;
/// [`compile_instances`] without instances), the headers of the project at `root` found as
/// [`include_options`] finds them.
///
/// NVRTC's log names the file as the source names it ([`KernelSource::path`]):
/// `kernels/transpose.cu(12): error: ...` ([`named_log`]).
///
/// # Errors
/// As [`nvrtc_available`] if NVRTC is missing; [`Error::Compile`] with NVRTC's log, verbatim, and
/// which NVRTC compiled.
pub fn compile(source: &KernelSource, arch: &str, root: Option<&std::path::Path>) -> Result<Ptx> {
    let compiled = compile_instances(source.file, source.path, source.source, arch, &[], source.options, root);
    compiled.map(|(ptx, _)| ptx).map_err(|e| match e {
        // The file as this source names it (a file `kernelgate compile` was given, one of the run's).
        Error::Compile { arch, status, nvrtc, log, .. } => {
            Error::Compile { file: source.path.to_string(), arch, status, nvrtc, log }
        }
        other => other,
    })
}

/// The NVRTC option that has ptxas write its resource report (`-v`: registers, spills, stack and
/// shared memory per entry point) into the program log. It does not change the PTX (checked with
/// NVRTC 13.5 on every kernel of `kernels/`, sm_80 and sm_90).
pub const PTXAS_VERBOSE: &str = "--ptxas-options=-v";

/// The NVRTC option that turns off NVRTC's compile cache (NVRTC 12.9 and later), so that ptxas runs
/// and writes its report in every process. Where a CUDA driver is installed, NVRTC 12.9+ keeps
/// compiled programs in the driver's cache (`~/.nv/ComputeCache`, `CUDA_CACHE_PATH`) and hands a
/// cached program back without running ptxas: the program log is then empty, and a kept GPU
/// runner's second run found no resource figures (seen on two H200 runners with NVRTC 13.0;
/// `CUDA_CACHE_DISABLE=1` or a fresh `CUDA_CACHE_PATH` brought the report back). NVIDIA's own
/// nvFuser passes this option for the same reason (github.com/NVIDIA/Fuser pull requests 4684 and
/// 4694).
pub const NO_CACHE: &str = "--no-cache";

/// The first NVRTC release with a compile cache and [`NO_CACHE`]: 12.9.
pub const NO_CACHE_SINCE: (i32, i32) = (12, 9);

/// Every option of a compile whose log must hold ptxas's report: [`options_for`] `arch` and
/// `extra`, [`PTXAS_VERBOSE`], and [`NO_CACHE`] for an NVRTC `version` (major, minor) that has a
/// cache. Pure.
pub fn verbose_options(arch: &str, version: (i32, i32), extra: &[&str]) -> Vec<String> {
    let mut options = options_for(arch, extra);
    options.push(PTXAS_VERBOSE.to_string());
    if version >= NO_CACHE_SINCE {
        options.push(NO_CACHE.to_string());
    }
    options
}

/// What [`compile_with_log`] makes of one file for one real architecture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compiled {
    /// The PTX, as [`compile`] makes it.
    pub ptx: String,
    /// NVRTC's program log: ptxas's report (`--ptxas-options=-v`) and any warnings.
    pub log: String,
    /// The cubin ptxas made (an ELF image, `nvrtcGetCUBIN`), which nvdisasm reads without a GPU.
    pub cubin: Vec<u8>,
    /// The template instances compiled, each with the name NVRTC gave its function.
    pub lowered: Vec<Lowered>,
    /// The release of the ptxas that made the cubin and its report, `major.minor` (`13.5`): NVRTC's
    /// own, or for a prebuilt PTX module the standalone ptxas's ([`prebuilt::assembled`]).
    pub compiler: String,
}

/// A template instance's name expression and the name of the function NVRTC made of it
/// (`nvrtcGetLoweredName`; NVRTC documentation, "Accessing Lowered Names").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lowered {
    /// As the case table names it ([`crate::source::KernelTemplate::with`]): `block_sum<256, 8>`.
    pub expression: String,
    /// As the PTX, ptxas's report and the cubin name it: `_Z9block_sumILi256ELi8EEvPKfPfi`.
    pub lowered: String,
}

/// The suite's name of the function `name` (as the PTX, ptxas or nvdisasm give it) of a module
/// compiled with the instances `lowered`: an instance's name expression for its lowered name,
/// any other name itself. Pure.
pub fn suite_name<'a>(lowered: &'a [Lowered], name: &'a str) -> &'a str {
    lowered.iter().find(|l| l.lowered == name).map_or(name, |l| l.expression.as_str())
}

/// Compiles the text `source` of kernel file `file` for `arch` with [`verbose_options`] (the options
/// of [`compile`], the file's own `extra` ones, [`PTXAS_VERBOSE`] and, where NVRTC has a cache,
/// [`NO_CACHE`]), instantiating the template instances `expressions` (`block_sum<256, 8>`);
/// returns the PTX, NVRTC's program log, which holds ptxas's report, the cubin and each instance's
/// lowered name. `arch` must be a real architecture (`sm_90`): NVRTC then runs ptxas to make the
/// cubin. A prebuilt PTX module (`file` ending in `.ptx`) is assembled by ptxas instead
/// ([`prebuilt::assembled`]).
///
/// `file` is the file's name (`transpose.cu`), which names the NVRTC program (and so the PTX's
/// line information, which its identity hashes: [`module_identity`]); `shown` is the file as
/// messages name it, NVRTC's log included ([`named_log`]): its path as the run read it, relative
/// to the project root ([`crate::source::Sources::path_of`], `kernels/ops/transpose.cu`), the path
/// `kernelgate compile` was given, or `file` again for a file read alone. `root` is the root of
/// the project the file is of, whose header folders NVRTC searches ([`include_options`]).
///
/// # Errors
/// As [`compile`]; [`Error::Compile`] when NVRTC hands back no cubin (a virtual architecture), or
/// an expression names no instance the file can make (NVRTC's log names it).
pub fn compile_with_log(
    file: &str,
    shown: &str,
    source: &str,
    arch: &str,
    expressions: &[&str],
    extra: &[&str],
    root: Option<&std::path::Path>,
) -> Result<Compiled> {
    match crate::kernel_file::kind_of(file) {
        Some(crate::kernel_file::Kind::Ptx) => return prebuilt::assembled(shown, source, arch),
        Some(crate::kernel_file::Kind::Cubin | crate::kernel_file::Kind::Fatbin) => {
            return prebuilt::cubin_compiled(shown, source, arch);
        }
        _ => {}
    }
    let nvrtc = nvrtc::load()?;
    let mut options = verbose_options(arch, nvrtc.version, extra);
    options.extend(include_options(root));
    program(file, shown, source, arch, &options, expressions, true)
}

/// Compiles the text `source` of kernel file `file` for `arch` with [`compile`]'s options and the
/// file's own `extra` ones, instantiating the template instances `expressions`: the PTX to load
/// and each instance's lowered name, the function to look up in it. A prebuilt PTX module (`file`
/// ending in `.ptx`) is its own text ([`prebuilt::module`]). `file`, `shown` and `root` as
/// [`compile_with_log`] takes them.
///
/// # Errors
/// As [`compile_with_log`].
pub fn compile_instances(
    file: &str,
    shown: &str,
    source: &str,
    arch: &str,
    expressions: &[&str],
    extra: &[&str],
    root: Option<&std::path::Path>,
) -> Result<(Ptx, Vec<Lowered>)> {
    match crate::kernel_file::kind_of(file) {
        Some(crate::kernel_file::Kind::Ptx) => return prebuilt::module(shown, source, arch),
        Some(crate::kernel_file::Kind::Cubin | crate::kernel_file::Kind::Fatbin) => {
            return prebuilt::cubin_module(shown, source, arch).map(|(m, _)| (m, Vec::new()));
        }
        _ => {}
    }
    let mut options = options_for(arch, extra);
    options.extend(include_options(root));
    let compiled = program(file, shown, source, arch, &options, expressions, false)?;
    Ok((Ptx::from_src(compiled.ptx), compiled.lowered))
}

/// One NVRTC program: created from `source` (named `file`), each of `expressions` added
/// (`nvrtcAddNameExpression`), compiled with `options`; then the PTX, the log (naming the file
/// `shown`, [`named_log`]), the lowered names and, with `cubin`, the cubin (empty without). Errors
/// name the file `shown`. NVRTC's API reference, "Compilation" and "Host Helper".
#[allow(unsafe_code)]
fn program(
    file: &str,
    shown: &str,
    source: &str,
    arch: &str,
    options: &[String],
    expressions: &[&str],
    cubin: bool,
) -> Result<Compiled> {
    use cudarc::nvrtc::{result, sys};
    use std::ffi::{CStr, CString};
    let loaded = nvrtc::load()?;
    let (used, compiler) = (loaded.to_string(), format!("{}.{}", loaded.version.0, loaded.version.1));
    // A build with definitions (kernelgate.toml's `-D`, a case's Kernel::define) is named with them:
    // one file may be built several ways in one run.
    let defines: Vec<&str> = options.iter().map(String::as_str).filter(|o| o.starts_with("-D")).collect();
    let with = if defines.is_empty() { String::new() } else { format!(" with {}", defines.join(" ")) };
    let fail = |status: String, log: String| Error::Compile {
        file: format!("{shown}{with}"),
        arch: arch.to_string(),
        status,
        nvrtc: used.clone(),
        log,
    };
    let text = |chars: Vec<std::ffi::c_char>| -> String {
        let bytes: Vec<u8> = chars.into_iter().map(|c| c as u8).take_while(|&b| b != 0).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    let nul = |what: &str| fail(format!("{what} holds a NUL byte"), String::new());
    // Declared before the program, so dropped after it: NVRTC may refer to them until then.
    let src = CString::new(source).map_err(|_| nul("the source"))?;
    // NVRTC hands the program's name to its front end with the options: a name that begins with
    // '-' would be read as one (`-Ifoo.cu`), so it is written as a path, `./-Ifoo.cu`. The name is
    // the file's name, not `shown`: NVRTC writes it into the PTX (`.file 1 "<current folder>/<name>"`
    // with -lineinfo, NVRTC 13.5.37; the module's identity keeps only the name, `ptx::ptx_sha256`),
    // and `#include "..."` would be looked for beside a path instead of in the current folder
    // (docs/adding-kernels.md, "Headers"). The log is renamed.
    let shown_name = if file.starts_with('-') { format!("./{file}") } else { file.to_string() };
    let name = CString::new(shown_name.as_str()).map_err(|_| nul("the file name"))?;
    let names: Vec<CString> =
        expressions.iter().map(|e| CString::new(*e).map_err(|_| nul("a name expression"))).collect::<Result<_>>()?;
    /// Destroys the program on every path.
    struct Program(sys::nvrtcProgram);
    impl Drop for Program {
        fn drop(&mut self) {
            // SAFETY: `self.0` came from `create_program` and is destroyed here only, once.
            let _ = unsafe { result::destroy_program(self.0) };
        }
    }
    let program =
        Program(result::create_program(&src, Some(&name)).map_err(|e| fail(format!("{:?}", e.0), String::new()))?);
    for (expression, c) in expressions.iter().zip(&names) {
        // SAFETY: `program.0` is a live program, before its compile; `c` outlives the program.
        let status = unsafe { sys::nvrtcAddNameExpression(program.0, c.as_ptr()) };
        if status != sys::nvrtcResult::NVRTC_SUCCESS {
            return Err(fail(format!("{status:?} adding the name expression {expression}"), String::new()));
        }
    }
    // SAFETY: `program.0` is a live program from `create_program` (destroyed only by its Drop).
    let compiled = unsafe { result::compile_program(program.0, options) };
    // SAFETY: as above; the log exists after a compile, failed or not.
    let log = unsafe { result::get_program_log(program.0) }.map(text).unwrap_or_default();
    let log = named_log(&log, &shown_name, shown);
    compiled.map_err(|e| {
        let mut log = with_hint(log.clone(), options);
        if let Some(hint) = instance_hint(&log, source, shown, expressions) {
            log = format!("{log}\n{hint}");
        }
        fail(format!("{:?}", e.0), log)
    })?;
    let mut lowered = Vec::new();
    for (expression, c) in expressions.iter().zip(&names) {
        let mut out: *const std::ffi::c_char = std::ptr::null();
        // SAFETY: as above, after a successful compile; NVRTC owns the string it points `out` at
        // until the program is destroyed, and it is copied before that.
        let status = unsafe { sys::nvrtcGetLoweredName(program.0, c.as_ptr(), &mut out) };
        if status != sys::nvrtcResult::NVRTC_SUCCESS || out.is_null() {
            return Err(fail(format!("{status:?}: no lowered name for {expression}"), log.clone()));
        }
        // SAFETY: `out` is a NUL-terminated string NVRTC owns (above).
        let name = unsafe { CStr::from_ptr(out) }.to_string_lossy().into_owned();
        lowered.push(Lowered { expression: expression.to_string(), lowered: name });
    }
    // SAFETY: as above, after a successful compile.
    let ptx = unsafe { result::get_ptx(program.0) }.map(text).map_err(|e| fail(format!("{:?}", e.0), log.clone()))?;
    // SAFETY: as above; NVRTC allocates nothing here, it copies into the vector it is handed.
    let cubin =
        if cubin { unsafe { cubin_of(program.0) }.map_err(|status| fail(status, log.clone()))? } else { Vec::new() };
    Ok(Compiled { ptx, log, cubin, lowered, compiler })
}

/// The fix for a compile that failed on a name expression (NVRTC's log then names its pseudo-file
/// `__nv_name_map`, the list of the expressions asked for): the expressions, and where each
/// template is declared in `source` (the text of the file `shown`, as messages name it), whose
/// parameters they must match; `None` for any other failure. Pure.
pub fn instance_hint(log: &str, source: &str, shown: &str, expressions: &[&str]) -> Option<String> {
    if expressions.is_empty() || !log.contains("__nv_name_map") {
        return None;
    }
    let templates = crate::entry_scan::template_kernels(source);
    let mut declared: Vec<String> = Vec::new();
    for e in expressions {
        let name = e.split('<').next().unwrap_or(e).trim();
        if let Some((_, line)) = templates.iter().find(|(t, _)| t == name) {
            let at = format!("{name} at {shown}:{line}");
            if !declared.contains(&at) {
                declared.push(at);
            }
        }
    }
    Some(format!(
        "kernelgate: NVRTC could not instantiate a name expression (`__nv_name_map` is its list of the \
         expressions asked for: {expressions:?}); give each `.with(\"...\")` of the case table (or \
         `kernelgate compile --instance`) the template arguments the template declares ({})",
        if declared.is_empty() { "no template of that name at global scope".to_string() } else { declared.join(", ") }
    ))
}

/// The cubin of a compiled program (`nvrtcGetCUBINSize`, `nvrtcGetCUBIN`: NVRTC's API reference,
/// "Compilation"); `Err` with NVRTC's status when there is none (a program compiled for a virtual
/// architecture holds PTX only).
///
/// # Safety
/// `program` is a live program after a successful compile.
#[allow(unsafe_code)]
unsafe fn cubin_of(program: cudarc::nvrtc::sys::nvrtcProgram) -> std::result::Result<Vec<u8>, String> {
    use cudarc::nvrtc::sys;
    let mut size = 0usize;
    // SAFETY: the caller's contract; `size` is a valid out-pointer.
    let status = unsafe { sys::nvrtcGetCUBINSize(program, &mut size) };
    if status != sys::nvrtcResult::NVRTC_SUCCESS || size == 0 {
        return Err(format!("no cubin ({status:?}, {size} bytes)"));
    }
    let mut bytes = vec![0u8; size];
    // SAFETY: `bytes` holds the `size` bytes NVRTC asked for.
    let status = unsafe { sys::nvrtcGetCUBIN(program, bytes.as_mut_ptr().cast()) };
    if status != sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(format!("no cubin ({status:?})"));
    }
    Ok(bytes)
}

/// The project the library's tests run in (cargo runs them in `harness/`: the repository's), whose
/// `.nvrtc/include` `scripts/get-nvrtc` fills, for the tests' compiles.
#[cfg(test)]
pub(crate) fn here() -> Option<std::path::PathBuf> {
    std::env::current_dir().ok().map(|d| crate::project::root_of(&d))
}

/// Compiles `source` for `arch` and checks that the PTX holds exactly the entry points that
/// `build.rs` listed ([`check_entries`]), as the `compile/<file>/<arch>` trials do, for the tests.
///
/// # Errors
/// As [`compile`]. A mismatch is not an `Err` but `Ok(Err(message))`.
#[cfg(test)]
pub(crate) fn check_compiles(source: &KernelSource, arch: &str) -> Result<std::result::Result<(), String>> {
    let ptx = compile(source, arch, here().as_deref())?.to_src();
    Ok(check_entries(source, arch, &ptx, &[]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verbose_compile_bypasses_the_cache_of_nvrtc_12_9_and_later() {
        let with = verbose_options("sm_90", (13, 0), &[]);
        assert_eq!(with, ["--std=c++17", "-lineinfo", "--gpu-architecture=sm_90", "--ptxas-options=-v", "--no-cache"]);
        assert!(verbose_options("sm_80", (12, 9), &[]).contains(&NO_CACHE.to_string()));
        assert!(!verbose_options("sm_80", (12, 8), &[]).contains(&NO_CACHE.to_string()), "12.8 has no such option");
        // A project's options come after kernelgate's; its own --std replaces kernelgate's.
        assert_eq!(
            verbose_options("sm_90", (13, 0), &["--use_fast_math", "--std=c++20"]),
            [
                "-lineinfo",
                "--gpu-architecture=sm_90",
                "--use_fast_math",
                "--std=c++20",
                "--ptxas-options=-v",
                "--no-cache"
            ]
        );
    }

    #[test]
    fn an_option_kernelgate_sets_or_one_with_a_space_is_refused_with_the_fix() {
        for taken in [
            "--use_fast_math",
            "-DBLOCK=256",
            "-DNAME",
            "--fmad=false",
            "--std=c++20",
            "-dopt=on",
            "--extra-device-vectorization",
        ] {
            assert_eq!(refused_option(taken), None, "{taken}");
        }
        let why = refused_option("-D BLOCK=256").unwrap();
        assert!(why.contains("holds white space") && why.contains("\"-DBLOCK=256\""), "{why}");
        assert!(refused_option("BLOCK=256").unwrap().contains("is not an NVRTC option"));
        for set in [
            "--gpu-architecture=sm_90a",
            "-arch=sm_90a",
            "-arch",
            "-I/usr/include",
            "--include-path=x",
            "--ptxas-options=-O0",
            "-Xptxas",
            "--no-cache",
        ] {
            assert!(refused_option(set).unwrap().ends_with("; leave it out"), "{set}");
        }
    }

    #[test]
    fn name_expressions_compile_to_lowered_names_nvrtc_reports() {
        if nvrtc_available().is_err() {
            assert!(std::env::var_os("KERNELGATE_REQUIRE_NVRTC").is_none());
            return;
        }
        let source = crate::source::for_tests().of(&crate::source::k::blocksum::block_sum.with("128, 4")).unwrap();
        let compiled = compile_with_log(
            source.file,
            source.path,
            source.source,
            "sm_90",
            &["block_sum<128, 4>"],
            &[],
            here().as_deref(),
        )
        .unwrap();
        assert_eq!(compiled.lowered.len(), 1);
        let mangled = compiled.lowered[0].lowered.as_str();
        assert_eq!(itanium_name(mangled), Some("block_sum"), "{mangled}");
        assert_eq!(ptx_entries(&compiled.ptx), [mangled]);
        let (ptx, lowered) = compile_instances(
            source.file,
            source.path,
            source.source,
            "sm_90",
            &["block_sum<128, 4>"],
            &[],
            here().as_deref(),
        )
        .unwrap();
        assert_eq!(lowered, compiled.lowered, "the GPU's compile");
        assert_eq!(ptx_sha256(&ptx.to_src()), ptx_sha256(&compiled.ptx), "one identity for one code");
        assert!(
            compiled.log.contains(&format!("Compiling entry function '{mangled}' for 'sm_90'")),
            "{}",
            compiled.log
        );
        // No instance asked for: the template makes no code.
        assert!(
            ptx_entries(
                &compile_with_log(source.file, source.path, source.source, "sm_90", &[], &[], here().as_deref())
                    .unwrap()
                    .ptx
            )
            .is_empty()
        );
        let err = compile_with_log(
            source.file,
            source.path,
            source.source,
            "sm_90",
            &["block_sum<128>"],
            &[],
            here().as_deref(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("block_sum<128>") && err.contains("blocksum.cu"), "{err}");
        let line = crate::entry_scan::template_kernels(source.source)[0].1;
        assert!(err.contains(&format!("the template declares (block_sum at kernels/blocksum.cu:{line})")), "{err}");
    }

    /// Runs wherever NVRTC is found (CI fetches it with scripts/get-nvrtc and sets
    /// KERNELGATE_REQUIRE_NVRTC=1, which turns its absence into a failure).
    #[test]
    fn compile_errors_carry_the_nvrtc_log_with_file_and_line() {
        if let Err(e) = nvrtc_available() {
            assert!(std::env::var_os("KERNELGATE_REQUIRE_NVRTC").is_none(), "{e}");
            eprintln!("skipped: {e}");
            return;
        }
        // A project of several kernel folders: NVRTC's lines name the file by its path.
        let broken = KernelSource {
            file: "broken.cu",
            path: "kernels/ops/broken.cu",
            source: "extern \"C\" __global__ void k(float* x)\n{\n    x[0] = y;\n}\n",
            sha256: "",
            entries: &["k"],
            templates: &[],
            options: &[],
        };
        let err = compile(&broken, "sm_90", here().as_deref()).unwrap_err().to_string();
        assert!(err.starts_with("NVRTC failed to compile kernels/ops/broken.cu for sm_90"), "{err}");
        assert!(err.contains("\nkernels/ops/broken.cu(3): error: identifier \"y\" is undefined"), "{err}");
        assert!(err.contains("1 error detected in the compilation of \"kernels/ops/broken.cu\"."), "{err}");
        assert!(err.contains(&nvrtc::load().unwrap().path.display().to_string()), "names the NVRTC used: {err}");
        assert!(check_compiles(&broken, "sm_90").is_err());
    }

    /// The toolkit's headers that `scripts/get-nvrtc` installs (or a toolkit's) compile: half,
    /// bfloat16, FP8 and cooperative groups in one kernel.
    #[test]
    fn the_toolkits_type_and_cooperative_groups_headers_compile() {
        if nvrtc_available().is_err() || include_options(here().as_deref()).is_empty() {
            assert!(std::env::var_os("KERNELGATE_REQUIRE_NVRTC").is_none(), "get-nvrtc puts the headers beside NVRTC");
            return;
        }
        let source = r#"
#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
namespace cg = cooperative_groups;
extern "C" __global__ void mixed(const __nv_bfloat16* x, __half* h, __nv_fp8_storage_t* q) {
    cg::thread_block block = cg::this_thread_block();
    float v = __bfloat162float(x[block.thread_rank()]);
    block.sync();
    h[block.thread_rank()] = __float2half(v);
    q[block.thread_rank()] = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);
}
"#;
        for arch in ["sm_80", "sm_90"] {
            let compiled = compile_with_log("mixed.cu", "mixed.cu", source, arch, &[], &[], here().as_deref());
            assert!(compiled.is_ok(), "{arch}: {}", compiled.unwrap_err());
            assert_eq!(ptx_entries(&compiled.unwrap().ptx), ["mixed"]);
        }
    }

    /// `--ptxas-options=-v` adds ptxas's report to the log and leaves the PTX as [`compile`] makes
    /// it; a compile error still carries NVRTC's log.
    #[test]
    fn the_verbose_compile_returns_the_same_ptx_and_ptxas_report() {
        if nvrtc_available().is_err() {
            assert!(std::env::var_os("KERNELGATE_REQUIRE_NVRTC").is_none());
            return;
        }
        let source = crate::source::for_tests().of(&crate::source::k::transpose::transpose_shared).unwrap();
        let compiled =
            compile_with_log(source.file, source.path, source.source, "sm_90", &[], &[], here().as_deref()).unwrap();
        let log = &compiled.log;
        assert_eq!(compiled.ptx, compile(source, "sm_90", here().as_deref()).unwrap().to_src());
        assert_eq!(&compiled.cubin[..4], b"\x7fELF", "the cubin is an ELF image");
        assert!(log.contains("ptxas info    : Compiling entry function 'transpose_shared' for 'sm_90'"), "{log}");
        let err = compile_with_log(
            "broken.cu",
            "broken.cu",
            "__global__ void k() { y; }",
            "sm_80",
            &[],
            &[],
            here().as_deref(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("broken.cu(1): error: identifier \"y\" is undefined"), "{err}");
    }

    /// The path a file is shown by names it in the log only: the program keeps the file's name, so
    /// the PTX (whose `.file` line holds the program's name) and the module's identity are those of
    /// the file wherever its folder is.
    #[test]
    fn where_a_file_lies_changes_its_log_not_its_ptx() {
        if nvrtc_available().is_err() {
            assert!(std::env::var_os("KERNELGATE_REQUIRE_NVRTC").is_none());
            return;
        }
        let text = "extern \"C\" __global__ void k(float* x) { int unused; x[0] *= 2.0f; }\n";
        let alone = compile_with_log("warn.cu", "warn.cu", text, "sm_90", &[], &[], here().as_deref()).unwrap();
        let placed =
            compile_with_log("warn.cu", "kernels/ops/warn.cu", text, "sm_90", &[], &[], here().as_deref()).unwrap();
        assert_eq!(placed.ptx, alone.ptx);
        assert_eq!(module_identity(&placed.ptx, &[]), module_identity(&alone.ptx, &[]));
        assert!(alone.log.contains("warn.cu(1): warning #177-D: variable \"unused\""), "{}", alone.log);
        assert!(placed.log.starts_with("kernels/ops/warn.cu(1): warning #177-D"), "{}", placed.log);
        let (ptx, _) =
            compile_instances("warn.cu", "kernels/ops/warn.cu", text, "sm_90", &[], &[], here().as_deref()).unwrap();
        assert_eq!(ptx_sha256(&ptx.to_src()), ptx_sha256(&alone.ptx), "the GPU's compile too");
    }
}
