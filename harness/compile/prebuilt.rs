//! Prebuilt modules, PTX (`*.ptx` in a kernel folder, [`crate::kernel_file`]) and cubins: built by the
//! project's own compiler (`nvcc -ptx`, CMake, Triton), loaded by the driver as they are, never
//! compiled by NVRTC. What stands in for NVRTC's work:
//! - **for a GPU**, the module is its own text, once its `.target` fits the GPU ([`target_fits`]);
//!   the driver's JIT compiles it for the GPU when it loads it, as it does NVRTC's PTX;
//! - **for a compile trial**, ptxas assembles it for the trial's architecture with its resource
//!   report (`ptxas -v`, the report NVRTC's ptxas writes into its log), giving the cubin that
//!   nvdisasm reads for the SASS gate. ptxas is found as nvdisasm is ([`crate::toolkit`]);
//!   `scripts/get-nvrtc` unpacks it from the PyPI wheel `nvidia-cuda-nvcc`.
//!
//! A cubin (`*.cubin`) is machine code already: the driver loads it as it is, on a GPU of its
//! architecture's major version and a minor version at least its own (CUDA C++ Programming Guide,
//! "Binary Compatibility": a cubin for X.y runs on X.z, z >= y); its compile trial reads its
//! resources from the image ([`crate::cubin`]) and nvdisasm reads its SASS ([`cubin_compiled`]).
//!
//! Rules for `.target` (CUDA C++ Programming Guide, "Binary Compatibility" and "PTX
//! Compatibility"; PTX ISA, "Target ISA notes"): PTX for `sm_XY` runs on compute capability X.Y
//! and later; PTX for an architecture-specific target (`sm_90a`) only on that one; for a family
//! target (`sm_100f`) on the same major family, X.Y and later.

use super::{Compiled, Lowered};
use crate::error::{Error, Result};
use crate::kernel_file::{ptx_target, ptx_version};
use crate::toolkit::{self, Spec};
use cudarc::nvrtc::Ptx;
use std::process::Command;
use std::sync::OnceLock;

/// ptxas as [`toolkit`] searches for it (`KERNELGATE_PTXAS` first).
pub const PTXAS: Spec = Spec {
    name: "ptxas",
    env_var: "KERNELGATE_PTXAS",
    needed_by: "the compile trials of prebuilt PTX modules (their resource and SASS gates)",
    wheel: "nvidia-cuda-nvcc",
};

/// The ptxas of this process: searched for on the first call, the same answer afterwards.
///
/// # Errors
/// [`toolkit::found`]'s: [`Error::Config`] naming `KERNELGATE_PTXAS`, or [`Error::Unavailable`]
/// with the places searched and the fix.
pub fn ptxas() -> Result<&'static toolkit::Tool> {
    /// The answer, process-wide rather than a run's: it describes the machine (the programs
    /// installed, the variables the process started with and the project folder it was in at the
    /// first call), which a later run in the same process would find the same.
    static FOUND: OnceLock<toolkit::Found> = OnceLock::new();
    toolkit::found(&PTXAS, FOUND.get_or_init(|| toolkit::search(&PTXAS)))
}

/// A `.target` or architecture name split into its number and suffix: `sm_90a` -> `(90, "a")`,
/// `sm_80` -> `(80, "")`; `None` for anything else. Pure.
fn arch_number(arch: &str) -> Option<(u32, &str)> {
    let rest = arch.strip_prefix("sm_")?;
    let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    Some((rest[..digits].parse().ok()?, &rest[digits..]))
}

/// Whether PTX built for `.target` `target` runs on, and assembles for, a GPU of architecture
/// `arch` (`sm_90`), by the rules in the module's documentation. Pure.
///
/// # Example
/// ```
/// use kernelgate::compile::prebuilt::target_fits;
/// assert!(target_fits("sm_80", "sm_90"));
/// assert!(!target_fits("sm_90", "sm_80"));
/// assert!(target_fits("sm_90a", "sm_90") && !target_fits("sm_90a", "sm_100"));
/// assert!(target_fits("sm_100f", "sm_103") && !target_fits("sm_100f", "sm_120"));
/// ```
pub fn target_fits(target: &str, arch: &str) -> bool {
    let (Some((t, suffix)), Some((a, _))) = (arch_number(target), arch_number(arch)) else {
        return false;
    };
    match suffix {
        "a" => a == t,
        "f" => a / 10 == t / 10 && a >= t,
        _ => a >= t,
    }
}

/// The architecture ptxas is asked to assemble a module of `.target` `target` for, for a trial
/// of `arch`: the target itself where it is architecture- or family-specific (`-arch=sm_90a`,
/// which ptxas requires of `sm_90a` PTX), else `arch`. Pure.
pub fn ptxas_arch<'a>(target: &'a str, arch: &'a str) -> &'a str {
    match arch_number(target) {
        Some((t, suffix)) if !suffix.is_empty() && arch_number(arch).is_some_and(|(a, _)| a == t) => target,
        _ => arch,
    }
}

/// Why the prebuilt module of file `shown` (its text `ptx`: PTX, or a cubin's
/// [`crate::kernel_file::kernel_text`], by `shown`'s extension) cannot run on `arch`; `None` when it
/// can. The message names both architectures and the fix. Pure.
pub fn unfit(shown: &str, ptx: &str, arch: &str) -> Option<String> {
    if crate::kernel_file::kind_of(shown) == Some(crate::kernel_file::Kind::Cubin) {
        // A cubin that cannot be read is named by the load, with its fault.
        let read = crate::cubin::from_text(ptx).and_then(|b| crate::cubin::read(&b).ok())?;
        return cubin_unfit(shown, &read.arch, arch);
    }
    if crate::kernel_file::kind_of(shown) == Some(crate::kernel_file::Kind::Fatbin) {
        // A fatbin's compile trial for `arch` gates its cubin for `arch`; without one, nothing.
        let fat = crate::cubin::from_text(ptx).and_then(|b| crate::fatbin::read(&b).ok())?;
        return fat.cubin_for(arch).is_none().then(|| {
            format!(
                "{shown} holds no cubin for {arch} (it holds {}), so its compile trial for {arch} has nothing to gate: \
                 add `-gencode arch=compute_{n},code=sm_{n}` to its build to gate it there",
                fat.archs(),
                n = arch.trim_start_matches("sm_")
            )
        });
    }
    let target = ptx_target(ptx).unwrap_or_default();
    if target_fits(&target, arch) {
        return None;
    }
    let built = match arch_number(&target) {
        Some((_, "a")) => format!("{target} (architecture-specific: it runs on {target} alone)"),
        Some((_, "f")) => format!("{target} (a family target: it runs on that family alone)"),
        Some(_) => format!("{target} (it runs on {target} and later architectures)"),
        None => format!("{target:?}, which is no architecture kernelgate knows"),
    };
    Some(format!(
        "{shown} is PTX built for {built}, so it cannot run on {arch}: build it for {arch} or an older architecture \
         (`nvcc -ptx -arch={arch}`; PTX for sm_80 runs on every later GPU), or keep one file per architecture"
    ))
}

/// Why a cubin of file `shown` built for `built` (`sm_90`) cannot run on `arch`; `None` when it
/// can (same major version, minor at least `built`'s). Pure.
///
/// # Example
/// ```
/// use kernelgate::compile::prebuilt::cubin_unfit;
/// assert_eq!(cubin_unfit("k.cubin", "sm_80", "sm_86"), None);
/// let why = cubin_unfit("k.cubin", "sm_90", "sm_100").unwrap();
/// assert!(why.starts_with("k.cubin is a cubin for sm_90, so it cannot run on sm_100"), "{why}");
/// ```
pub fn cubin_unfit(shown: &str, built: &str, arch: &str) -> Option<String> {
    let (Some((b, _)), Some((a, _))) = (arch_number(built), arch_number(arch)) else {
        return Some(format!("{shown} is a cubin for {built:?}, which is no architecture kernelgate knows"));
    };
    (a / 10 != b / 10 || a < b).then(|| {
        format!(
            "{shown} is a cubin for {built}, so it cannot run on {arch}: a cubin runs on its own major architecture, \
             at its minor version or later (sm_80 on sm_86, never sm_90 on sm_100); build one for {arch} \
             (`nvcc -cubin -arch={arch}`), or ship PTX (`nvcc -ptx`), which the driver compiles for any later GPU"
        )
    })
}

/// The cubin of binary kernel file `shown` (the file as messages name it, `kernels/fused.cubin`
/// or its name alone; its text [`crate::kernel_file::kernel_text`]) for `arch`: a cubin file
/// itself, whatever its architecture (its fit is [`cubin_unfit`]'s); a fatbin's cubin for `arch`
/// ([`crate::fatbin::Fatbin::cubin_for`]). Its bytes and what they declare.
///
/// # Errors
/// [`Error::Kernels`] naming the file and its fault ([`crate::cubin::read`],
/// [`crate::fatbin::read`]), or for a fatbin without a cubin for `arch`, what it holds.
pub fn cubin(shown: &str, text: &str, arch: &str) -> Result<(Vec<u8>, crate::cubin::Cubin)> {
    let fault = |message: String| Error::Kernels { path: shown.into(), message };
    let read_fault = |e: kernelgate_build::Error| Error::kernel_file(shown, e);
    let bytes = crate::cubin::from_text(text).ok_or_else(|| fault("is not a binary module's text".into()))?;
    if crate::kernel_file::kind_of(shown) != Some(crate::kernel_file::Kind::Fatbin) {
        let read = crate::cubin::read(&bytes).map_err(read_fault)?;
        return Ok((bytes, read));
    }
    let fat = crate::fatbin::read(&bytes).map_err(read_fault)?;
    let chosen =
        fat.cubin_for(arch).ok_or_else(|| fault(format!("holds no cubin for {arch} (it holds {})", fat.archs())))?;
    let parts = crate::fatbin::parts(&bytes).map_err(read_fault)?;
    let part = parts
        .iter()
        .find(|p| p.kind == crate::fatbin::PartKind::Cubin && !p.compressed && p.arch == chosen.arch)
        .expect("the chosen cubin is one of the parts");
    Ok((part.payload.to_vec(), chosen.clone()))
}

/// SHA-256 of a cubin's bytes, lowercase hex: its module identity, the hash `sha256sum` prints of
/// the file.
pub fn image_sha256(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The module to load for `arch` of the cubin or fatbin file `shown` (the file as messages name
/// it, as [`cubin`] takes it): its bytes, once its architecture fits ([`cubin_unfit`]), its
/// identity ([`image_sha256`]) and no lowered names.
///
/// # Errors
/// [`Error::Kernels`] naming the file, both architectures and the fix when it does not fit, or
/// its fault when it is not a whole cubin.
pub fn cubin_module(shown: &str, text: &str, arch: &str) -> Result<(Ptx, String)> {
    let bytes = crate::cubin::from_text(text)
        .ok_or_else(|| Error::Kernels { path: shown.into(), message: "is not a binary module's text".into() })?;
    if crate::kernel_file::kind_of(shown) == Some(crate::kernel_file::Kind::Fatbin) {
        fatbin_fits(shown, &bytes, arch)?;
    } else {
        let (_, read) = cubin(shown, text, arch)?;
        if let Some(why) = cubin_unfit(shown, &read.arch, arch) {
            let message = why.replacen(&format!("{shown} is"), "is", 1);
            return Err(Error::Kernels { path: shown.into(), message });
        }
    }
    let sha256 = image_sha256(&bytes);
    Ok((Ptx::from_binary(bytes), sha256))
}

/// Whether the driver can load the fatbin `bytes` (file `shown`) on `arch`: one of its cubins fits
/// ([`cubin_unfit`]), or its PTX for an architecture at most `arch`'s ([`target_fits`]).
///
/// # Errors
/// [`Error::Kernels`] naming the file, what it holds, `arch` and the fix; or its fault when it is
/// not a whole fatbin.
fn fatbin_fits(shown: &str, bytes: &[u8], arch: &str) -> Result<()> {
    let fault = |message: String| Error::Kernels { path: shown.into(), message };
    let fat = crate::fatbin::read(bytes).map_err(|e| Error::kernel_file(shown, e))?;
    let cubin = fat.cubins.iter().any(|c| cubin_unfit(shown, &c.arch, arch).is_none());
    let ptx = fat.ptx.iter().any(|p| target_fits(&p.replace("compute_", "sm_"), arch));
    if cubin || ptx {
        return Ok(());
    }
    Err(fault(format!(
        "holds {}, none of which runs on {arch}: add `-gencode arch=compute_{n},code=sm_{n}` to its build, or PTX \
         for an older architecture (`code=compute_80`), which the driver compiles for any later GPU",
        fat.archs(),
        n = arch.trim_start_matches("sm_")
    )))
}

/// What [`super::compile_with_log`] makes of a cubin for a compile trial of `arch`: the cubin
/// itself (nvdisasm reads it for the SASS gate), no PTX and no log (its resources are read from
/// the image, [`crate::cubin::CubinEntry`]), no lowered names, and the release of the ptxas that
/// made it ([`crate::cubin::Cubin::compiler`]). `shown` names the file in messages, as [`cubin`]
/// takes it.
///
/// # Errors
/// As [`cubin_module`]; [`Error::Kernels`] when the image does not name the ptxas that made it.
pub fn cubin_compiled(shown: &str, text: &str, arch: &str) -> Result<Compiled> {
    let (cubin, read) = cubin(shown, text, arch)?;
    if let Some(why) = cubin_unfit(shown, &read.arch, arch) {
        return Err(Error::Kernels { path: shown.into(), message: why });
    }
    let compiler = read.compiler.ok_or_else(|| Error::Kernels {
        path: shown.into(),
        message: "names no ptxas release in its `.note.nv.tkinfo` note, which the resource table records with \
                  each row; build it with nvcc or ptxas, which write it"
            .into(),
    })?;
    Ok(Compiled { ptx: String::new(), log: String::new(), cubin, lowered: Vec::new(), compiler })
}

/// The module to load for `arch` of the PTX file `shown` (the file as messages name it,
/// `kernels/softmax.ptx` or its name alone; its text `ptx`): the text itself, and no lowered names
/// (a PTX module's entries are named as it holds them).
///
/// # Errors
/// [`Error::Kernels`] naming the file, both architectures and the fix when its `.target` does not
/// fit `arch` ([`unfit`]).
pub fn module(shown: &str, ptx: &str, arch: &str) -> Result<(Ptx, Vec<Lowered>)> {
    if let Some(why) = unfit(shown, ptx, arch) {
        let message = why.replacen(&format!("{shown} is"), "is", 1);
        return Err(Error::Kernels { path: shown.into(), message });
    }
    Ok((Ptx::from_src(ptx.to_string()), Vec::new()))
}

/// What to say when the driver refused to load the PTX module `ptx` of file `shown` with
/// `status`, on a driver that supports CUDA `cuda` (`13.0`, `cuDriverGetVersion`). `made_by` is
/// `None` for a prebuilt PTX module (its text is the file's), else the line of the NVRTC that
/// compiled the file ([`crate::nvrtc::Nvrtc`]'s: version, path, how it was found). For
/// `CUDA_ERROR_UNSUPPORTED_PTX_VERSION`: the module's PTX ISA, the driver's release and the fix
/// (the driver loads the PTX of its own CUDA release and older: CUDA C++ Programming Guide, "PTX
/// Compatibility"; docs/runners.md has the H200 runner's case, NVRTC 13.5's PTX ISA 9.5 on a CUDA
/// 13.0 driver): a toolkit no newer than the driver's release (nvcc for a prebuilt module, the
/// runner's NVRTC for a compiled one), or a newer driver. For another status, the module's ISA and
/// target alone. Pure.
///
/// # Example
/// ```
/// use kernelgate::compile::prebuilt::load_context;
/// use cudarc::driver::sys::CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION as TOO_NEW;
/// let ptx = ".version 9.2\n.target sm_90\n.visible .entry k()\n{\n}\n";
/// let said = load_context("gpu/k.ptx", ptx, "13.0", None, TOO_NEW);
/// assert!(said.contains("PTX ISA 9.2, newer than this driver (CUDA 13.0) can load"));
/// let nvrtc = "NVRTC 13.5 (/repo/.nvrtc/lib/libnvrtc.so.13, found by the project's .nvrtc)";
/// let said = load_context("kernels/k.cu", &ptx.replace("9.2", "9.5"), "13.0", Some(nvrtc), TOO_NEW);
/// assert!(said.contains("NVRTC 13.5 (/repo/.nvrtc/lib/libnvrtc.so.13, found by the project's .nvrtc) made PTX ISA 9.5"));
/// assert!(said.contains("KERNELGATE_NVRTC"));
/// ```
pub fn load_context(
    shown: &str,
    ptx: &str,
    cuda: &str,
    made_by: Option<&str>,
    status: cudarc::driver::sys::CUresult,
) -> String {
    use cudarc::driver::sys::CUresult;
    let isa =
        ptx_version(ptx).map_or_else(|| "no .version".to_string(), |(major, minor)| format!("PTX ISA {major}.{minor}"));
    let target = ptx_target(ptx).unwrap_or_default();
    let module = match made_by {
        None => format!("the PTX module {shown}"),
        Some(_) => format!("the module of {shown}"),
    };
    match (status, made_by) {
        (CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION, None) => format!(
            "loading {module}: it is {isa}, newer than this driver (CUDA {cuda}) can load; build it with a CUDA \
             toolkit no newer than CUDA {cuda} (the nvcc of the GPU runner, or the PyPI wheel nvidia-cuda-nvcc of \
             that release), or update the driver"
        ),
        (CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION, Some(nvrtc)) => format!(
            "loading {module}: {nvrtc} made {isa}, newer than this driver (CUDA {cuda}) can load; compile with an \
             NVRTC no newer than CUDA {cuda}: the runner's CUDA toolkit (CUDA_HOME=<toolkit>, or \
             KERNELGATE_NVRTC=<toolkit>/lib64 when another NVRTC is found first), or update the driver \
             (docs/runners.md)"
        ),
        _ => format!("loading {module} ({isa}, .target {target}; the driver supports CUDA {cuda})"),
    }
}

/// A `(major, minor)` version: a CUDA release (`(13, 0)`) or a PTX ISA (`(9, 0)`).
pub type Release = (u32, u32);

/// The newest PTX ISA the driver of each CUDA release loads, `((CUDA major, minor), (ISA major,
/// minor))`, oldest first. A driver loads PTX of its own release's ISA and older (CUDA C++
/// Programming Guide, "PTX Compatibility"); which ISA came with which release is the PTX ISA's
/// release history (PTX ISA, "Release Notes": 7.0 with CUDA 11.0 ... 8.5 with 12.5, 8.6 with 12.7,
/// 8.7 with 12.8, 8.8 with 12.9, 9.0 with 13.0, 9.1 with 13.1). CUDA 12.6 brought no new ISA. A
/// release past the table is not known here: [`newest_isa`] says `None` for it.
pub const ISA_OF_CUDA: &[(Release, Release)] = &[
    ((11, 0), (7, 0)),
    ((11, 1), (7, 1)),
    ((11, 2), (7, 2)),
    ((11, 3), (7, 3)),
    ((11, 4), (7, 4)),
    ((11, 5), (7, 5)),
    ((11, 6), (7, 6)),
    ((11, 7), (7, 7)),
    ((11, 8), (7, 8)),
    ((12, 0), (8, 0)),
    ((12, 1), (8, 1)),
    ((12, 2), (8, 2)),
    ((12, 3), (8, 3)),
    ((12, 4), (8, 4)),
    ((12, 5), (8, 5)),
    ((12, 6), (8, 5)),
    ((12, 7), (8, 6)),
    ((12, 8), (8, 7)),
    ((12, 9), (8, 8)),
    ((13, 0), (9, 0)),
    ((13, 1), (9, 1)),
];

/// The newest PTX ISA a driver of CUDA `cuda` (`"13.0"`, as `cuDriverGetVersion` and the baseline's
/// `cuda` column give it) loads ([`ISA_OF_CUDA`]); `None` for a release the table does not hold, or
/// text that is no `major.minor`. Pure.
///
/// # Example
/// ```
/// use kernelgate::compile::prebuilt::newest_isa;
/// assert_eq!(newest_isa("13.0"), Some((9, 0)));
/// assert_eq!(newest_isa("12.6"), Some((8, 5)));
/// assert_eq!(newest_isa("14.0"), None);
/// ```
pub fn newest_isa(cuda: &str) -> Option<(u32, u32)> {
    let release = cuda_release(cuda)?;
    ISA_OF_CUDA.iter().find(|(r, _)| *r == release).map(|(_, isa)| *isa)
}

/// A CUDA release written `major.minor` (`"13.0"`) as numbers, `(13, 0)`, which order as releases
/// do; `None` for other text (an empty field). Pure.
pub fn cuda_release(cuda: &str) -> Option<(u32, u32)> {
    let (major, minor) = cuda.trim().split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// Why the PTX module `ptx` of file `shown` cannot load on the GPU runners whose drivers blessed
/// the baselines `runners` (each `(baseline folder, oldest CUDA release of its entries)`,
/// [`crate::gate::baseline::runner_cuda`]): its `.version` is newer than the newest ISA the oldest
/// of those drivers loads ([`newest_isa`]). `None` when it loads on all of them, has no
/// `.version`, or a runner's release is not in [`ISA_OF_CUDA`]. What a GPU would say at load time
/// ([`load_context`]), said without one. Pure.
///
/// # Example
/// ```
/// use kernelgate::compile::prebuilt::isa_unloadable;
/// let ptx = ".version 9.5\n.target sm_90\n.visible .entry k()\n{\n}\n";
/// let runners = [("baselines/nvidia-h200-sm90".to_string(), "13.0".to_string())];
/// let why = isa_unloadable("ptx/k.ptx", ptx, &runners).unwrap();
/// assert!(why.contains("PTX ISA 9.5") && why.contains("CUDA 13.0") && why.contains("9.0 and older"));
/// assert_eq!(isa_unloadable("ptx/k.ptx", &ptx.replace("9.5", "9.0"), &runners), None);
/// ```
pub fn isa_unloadable(shown: &str, ptx: &str, runners: &[(String, String)]) -> Option<String> {
    let isa = ptx_version(ptx)?;
    // The runners that cannot load it: (folder, release, newest ISA it loads).
    let refused: Vec<(&str, &str, (u32, u32))> = runners
        .iter()
        .filter_map(|(folder, cuda)| Some((folder.as_str(), cuda.as_str(), newest_isa(cuda)?)))
        .filter(|(_, _, newest)| isa > *newest)
        .collect();
    let oldest = refused.iter().min_by_key(|(_, _, newest)| *newest)?.1;
    let refused: Vec<String> = refused
        .iter()
        .map(|(folder, cuda, newest)| format!("{folder} (CUDA {cuda}: PTX ISA {}.{} and older)", newest.0, newest.1))
        .collect();
    Some(format!(
        "{shown} is PTX ISA {}.{}, which the drivers that blessed {} cannot load (CUDA C++ Programming Guide, \
         \"PTX Compatibility\"): build it with a CUDA {oldest} toolkit (the runners' nvcc, or the PyPI wheels of \
         that release, every one pinned: docs/adding-kernels.md, \"nvcc without a toolkit\"), or update those \
         runners' drivers and bless again",
        isa.0,
        isa.1,
        refused.join(" and ")
    ))
}

/// What [`super::compile_with_log`] makes of a PTX file for a compile trial of `arch`: ptxas
/// (`-arch=<arch> -v`, [`ptxas_arch`]) assembles the text `ptx` of the file `shown` (as messages
/// name it, [`module`]) into a cubin; its report is the log, the PTX is the file's text, and no
/// names are lowered.
///
/// # Errors
/// As [`module`] for a target that does not fit; [`ptxas`]'s when none is found; [`Error::Io`] when
/// the temporary files cannot be written or ptxas cannot start; [`Error::Kernels`] naming the file
/// with ptxas's output when it refuses the module.
pub fn assembled(shown: &str, ptx: &str, arch: &str) -> Result<Compiled> {
    module(shown, ptx, arch)?;
    let tool = ptxas()?;
    let target = ptx_target(ptx).unwrap_or_default();
    let dir = tempfile::tempdir().map_err(Error::io(std::env::temp_dir()))?;
    // Named as the project names it, so that ptxas's messages read `softmax.ptx, line 12`.
    let input = dir.path().join(std::path::Path::new(shown).file_name().unwrap_or("module.ptx".as_ref()));
    let output = dir.path().join("module.cubin");
    std::fs::write(&input, ptx).map_err(Error::io(&input))?;
    let out = Command::new(&tool.path)
        .arg(format!("-arch={}", ptxas_arch(&target, arch)))
        .arg("-v")
        .arg("-o")
        .arg(&output)
        .arg(&input)
        .output()
        .map_err(Error::io(&tool.path))?;
    let log = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let log = log.replace(&*dir.path().to_string_lossy(), ".");
    if !out.status.success() {
        let isa = ptx_version(ptx).map(|(major, minor)| format!("PTX ISA {major}.{minor}")).unwrap_or_default();
        return Err(Error::Kernels {
            path: shown.into(),
            message: format!(
                "{tool} refused this PTX module ({isa}, .target {target}) for {arch} ({}); its output follows:\n{log}",
                out.status
            ),
        });
    }
    let cubin = std::fs::read(&output).map_err(Error::io(&output))?;
    // `major.minor`, as NVRTC's version is written (`13.5`).
    let compiler = tool.version.split('.').take(2).collect::<Vec<_>>().join(".");
    Ok(Compiled { ptx: ptx.to_string(), log, cubin, lowered: Vec::new(), compiler })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_newer_than_the_gpu_or_for_another_is_named_with_the_fix() {
        let ptx = ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
        assert_eq!(unfit("gpu/k.ptx", ptx, "sm_90"), None);
        let why = unfit("gpu/k.ptx", ptx, "sm_80").unwrap();
        assert!(why.starts_with("gpu/k.ptx is PTX built for sm_90a (architecture-specific"), "{why}");
        assert!(why.contains("cannot run on sm_80") && why.contains("nvcc -ptx -arch=sm_80"), "{why}");
        let e = module("k.ptx", &ptx.replace("sm_90a", "sm_100"), "sm_90").unwrap_err().to_string();
        assert!(e.contains("k.ptx: is PTX built for sm_100 (it runs on sm_100 and later"), "{e}");
        assert!(module("k.ptx", &ptx.replace("sm_90a", "sm_80"), "sm_90").is_ok());
        assert_eq!((ptxas_arch("sm_90a", "sm_90"), ptxas_arch("sm_80", "sm_90")), ("sm_90a", "sm_90"));
        assert!(!target_fits("", "sm_90") && !target_fits("sm_90", "compute_90"));
    }

    #[test]
    fn ptxas_assembles_a_module_with_its_report_and_names_a_bad_one() {
        if ptxas().is_err() {
            eprintln!("skipped: no ptxas here (scripts/get-nvrtc)");
            return;
        }
        let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry fill(\n\t.param .u64 fill_param_0\n)\n{\n\
                   \t.reg .b32 %r<3>;\n\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [fill_param_0];\n\
                   \tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 4;\n\
                   \tadd.s64 %rd2, %rd2, %rd3;\n\tst.global.u32 [%rd2], %r1;\n\tret;\n}\n";
        let made = assembled("fill.ptx", ptx, "sm_90").unwrap();
        assert!(made.log.contains("Compiling entry function 'fill' for 'sm_90'"), "{}", made.log);
        assert!(made.cubin.starts_with(b"\x7fELF"));
        assert_eq!(made.ptx, ptx);
        let bad = ptx.replace("st.global.u32", "st.global.u33");
        let e = assembled("fill.ptx", &bad, "sm_90").unwrap_err().to_string();
        assert!(
            e.starts_with("fill.ptx: ptxas") && e.contains("refused this PTX module (PTX ISA 8.0, .target sm_80)"),
            "{e}"
        );
        assert!(e.contains("fill.ptx, line"), "{e}");
    }

    /// A cubin is loaded for its own architecture and later minor versions of it, with the hash of
    /// its bytes as its identity; for another it is refused naming both and the fix. Its compile
    /// trial's build is the image itself, with the ptxas release it names.
    #[test]
    fn a_cubin_runs_on_its_architecture_alone_and_is_its_bytes() {
        let image = std::fs::read(crate::source::fixture_path("cubin/kernels.cubin")).unwrap();
        let text = crate::cubin::to_text(&image);
        let (_, sha256) = cubin_module("k.cubin", &text, "sm_90").unwrap();
        assert_eq!(sha256, image_sha256(&image));
        assert!(cubin_module("k.cubin", &text, "sm_90").is_ok());
        let e = cubin_module("k.cubin", &text, "sm_80").unwrap_err().to_string();
        assert!(e.contains("k.cubin: is a cubin for sm_90, so it cannot run on sm_80"), "{e}");
        assert!(e.contains("nvcc -cubin -arch=sm_80"), "{e}");
        assert!(unfit("gpu/k.cubin", &text, "sm_100").is_some() && unfit("gpu/k.cubin", &text, "sm_90").is_none());
        let compiled = cubin_compiled("k.cubin", &text, "sm_90").unwrap();
        assert_eq!((compiled.cubin, compiled.compiler.as_str(), compiled.ptx.as_str()), (image, "13.0", ""));
    }

    /// A fatbin loads where one of its cubins or its PTX fits, as the whole file (the driver picks
    /// the part); its compile trial for an architecture gates that architecture's cubin, and one
    /// it lacks has nothing to gate.
    #[test]
    fn a_fatbin_loads_where_a_part_fits_and_gates_each_cubin() {
        let fixtures = crate::source::fixture_path("cubin");
        let image = std::fs::read(fixtures.join("kernels.fatbin")).unwrap();
        let text = crate::cubin::to_text(&image);
        let (_, sha256) = cubin_module("k.fatbin", &text, "sm_100").unwrap();
        assert_eq!(sha256, image_sha256(&image), "compute_90 runs on sm_100: the identity is the whole file's");
        let e = cubin_module("k.fatbin", &text, "sm_75").unwrap_err().to_string();
        assert!(e.contains("k.fatbin: holds sm_80, sm_90, compute_90, none of which runs on sm_75"), "{e}");
        let cubin80 = std::fs::read(fixtures.join("kernels.cubin")).unwrap();
        let compiled = cubin_compiled("k.fatbin", &text, "sm_90").unwrap();
        assert_eq!(
            (compiled.cubin, compiled.compiler.as_str()),
            (cubin80, "13.0"),
            "its sm_90 part is the cubin fixture"
        );
        assert_eq!(cubin_compiled("k.fatbin", &text, "sm_80").unwrap().cubin.get(..4), Some(&b"\x7fELF"[..]));
        assert_eq!(unfit("gpu/k.fatbin", &text, "sm_90"), None);
        let why = unfit("gpu/k.fatbin", &text, "sm_100").unwrap();
        assert!(why.starts_with("gpu/k.fatbin holds no cubin for sm_100 (it holds sm_80, sm_90, compute_90)"), "{why}");
        let zstd = crate::cubin::to_text(&std::fs::read(fixtures.join("kernels-zstd.fatbin")).unwrap());
        let e = cubin_module("k.fatbin", &zstd, "sm_90").unwrap_err().to_string();
        assert!(e.contains("holds only compressed cubins") && e.contains("-no-compress"), "{e}");
    }
}
