//! The PTX a GPU trial loads, compiled once per process and kept: by the trial that first needs
//! it, or ahead of it by the suite's workers (`suite/compile_ahead.rs`) while the GPU runs other
//! trials, so that NVRTC's time (6.2 s of a 63.3 s H200 run, most of it CCCL's headers, in
//! BENCHMARK.md) leaves the trials' critical path. The same compile either way: the module's
//! identity (its PTX's hash) does not depend on who made it.

use super::{compile_instances, ptx_sha256};
use crate::error::Result;
use cudarc::nvrtc::Ptx;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// One module's PTX for one architecture, as [`module_ptx`] made it.
#[derive(Debug, Clone)]
pub struct ModulePtx {
    /// The PTX, for the driver to load.
    pub ptx: Ptx,
    /// Its identity ([`module_identity`]): the run CSV's `module_sha256`.
    pub sha256: String,
    /// The lowered (mangled) name of each instance asked for, in order; empty for an `extern "C"`
    /// file's module.
    pub lowered: Vec<String>,
}

/// The identity of a module: [`ptx_sha256`] of its PTX, and where the file has options of its own
/// (`options`, [`crate::source::KernelSource::options`]) the SHA-256 of that hash and the options,
/// so that two builds of one text with other options (`--use_fast_math`, a `-D` that changes no
/// instruction) are two modules to the history and the gate. Header folders
/// (`--include-path=<absolute folder>`, from `kernelgate.toml`'s `include`) are not part of it:
/// they say where a checkout keeps its headers, not how the code is built, and what the headers
/// hold is in the PTX. A module compiled with kernelgate's options alone keeps the identity it had
/// before projects could add options. Pure.
pub fn module_identity(ptx: &str, options: &[&str]) -> String {
    use sha2::{Digest, Sha256};
    let code = ptx_sha256(ptx);
    let options: Vec<&str> = options.iter().copied().filter(|o| !o.starts_with("--include-path=")).collect();
    if options.is_empty() {
        return code;
    }
    let mut hash = Sha256::new();
    hash.update(code.as_bytes());
    for option in options {
        hash.update(b"\0");
        hash.update(option.as_bytes());
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Compiles the kernel file `file` with text `source` for `arch` ([`compile_instances`]): its
/// `extern "C"` kernels, and the template instances `instances` (name expressions; empty for a
/// file without templates), with the file's own NVRTC `options` after kernelgate's, and the header
/// folders of the project at `root` ([`super::include_options`]). Made once per process and (file,
/// text, arch, instances, options, header folders); a caller asking while another thread makes it
/// waits for that compile. A failed compile is not kept: the next caller compiles again and gets
/// NVRTC's error itself, naming the file `shown` (as [`super::compile_with_log`] takes `file`,
/// `shown` and `root`).
///
/// # Errors
/// [`crate::Error::Compile`] with NVRTC's log; [`crate::Error::Unavailable`] without NVRTC.
pub fn module_ptx(
    file: &str,
    shown: &str,
    source: &str,
    arch: &str,
    instances: &[&str],
    options: &[&str],
    root: Option<&std::path::Path>,
) -> Result<ModulePtx> {
    type Cell = Arc<OnceLock<Option<ModulePtx>>>;
    /// The modules made, process-wide rather than a run's: the key is everything the PTX depends
    /// on (the file's full text, the architecture, the instances, the options and the header
    /// folders, which are each project's; DESIGN.md's data flow, "module (cached by source hash +
    /// arch + options)"), so a later run in the same process that asks the same question can only
    /// get the same answer, and a run never sees another's state through it, only its work saved.
    static MADE: OnceLock<Mutex<HashMap<String, Cell>>> = OnceLock::new();
    let key = key(file, source, arch, instances, options, &super::include_options(root));
    let cell: Cell = Arc::clone(
        MADE.get_or_init(Mutex::default).lock().unwrap_or_else(|p| p.into_inner()).entry(key.clone()).or_default(),
    );
    let mut failed = None;
    let made = cell.get_or_init(|| match compile(file, shown, source, arch, instances, options, root) {
        Ok(made) => Some(made),
        Err(e) => {
            failed = Some(e);
            None
        }
    });
    match (made, failed) {
        (Some(made), _) => Ok(made.clone()),
        (None, Some(e)) => {
            MADE.get_or_init(Mutex::default).lock().unwrap_or_else(|p| p.into_inner()).remove(&key);
            Err(e)
        }
        // Another thread's compile failed: compile here for the error.
        (None, None) => compile(file, shown, source, arch, instances, options, root),
    }
}

/// The compile itself, unkept.
fn compile(
    file: &str,
    shown: &str,
    source: &str,
    arch: &str,
    instances: &[&str],
    options: &[&str],
    root: Option<&std::path::Path>,
) -> Result<ModulePtx> {
    if crate::kernel_file::is_binary(file) {
        // A cubin or fatbin is its bytes: its identity is their hash, as `sha256sum` prints it.
        let (ptx, sha256) = super::prebuilt::cubin_module(shown, source, arch)?;
        return Ok(ModulePtx { ptx, sha256, lowered: Vec::new() });
    }
    let (ptx, lowered) = compile_instances(file, shown, source, arch, instances, options, root)?;
    let lowered = lowered.into_iter().map(|l| l.lowered).collect();
    let sha256 = module_identity(&ptx.to_src(), options);
    Ok(ModulePtx { ptx, sha256, lowered })
}

/// What tells two compiles apart: the file's name, its text, the architecture, the instances, the
/// options and the header folders (`includes`, [`super::include_options`]), each list told apart
/// from the next by a marker.
fn key(file: &str, source: &str, arch: &str, instances: &[&str], options: &[&str], includes: &[String]) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    let parts = [file, source, arch].into_iter().chain(instances.iter().copied()).chain(["\x01options"]);
    let parts = parts.chain(options.iter().copied()).chain(["\x01includes"]);
    for part in parts.chain(includes.iter().map(String::as_str)) {
        hash.update(part.as_bytes());
        hash.update(b"\0");
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_module_is_compiled_once_and_a_failure_is_not_kept() {
        if crate::nvrtc::load().is_err() {
            eprintln!("skipped: no NVRTC here");
            return;
        }
        let text = "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n";
        let a = module_ptx("memo.cu", "memo.cu", text, "sm_90", &[], &[], None).unwrap();
        let b = module_ptx("memo.cu", "memo.cu", text, "sm_90", &[], &[], None).unwrap();
        assert_eq!(a.sha256, b.sha256);
        assert!(a.lowered.is_empty());
        // Kept: the same Ptx text, not a second compile's (equal anyway); another arch is another module.
        assert_eq!(a.ptx.to_src(), b.ptx.to_src());
        assert_ne!(
            module_ptx("memo.cu", "memo.cu", text, "sm_80", &[], &[], None).unwrap().ptx.to_src(),
            a.ptx.to_src()
        );
        // Options are part of the module: fast math makes other code, and another identity.
        let fast = "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = expf(x[threadIdx.x]); }\n";
        let (plain, quick) = (
            module_ptx("fast.cu", "fast.cu", fast, "sm_90", &[], &[], None).unwrap(),
            module_ptx("fast.cu", "fast.cu", fast, "sm_90", &[], &["--use_fast_math"], None).unwrap(),
        );
        assert_ne!(plain.ptx.to_src(), quick.ptx.to_src());
        assert_eq!(plain.sha256, ptx_sha256(&plain.ptx.to_src()), "no options: the PTX's hash as before");
        assert_eq!(quick.sha256, module_identity(&quick.ptx.to_src(), &["--use_fast_math"]));
        let defined = module_ptx("memo.cu", "memo.cu", text, "sm_90", &[], &["-DUNUSED=1"], None).unwrap();
        assert_eq!(defined.ptx.to_src(), a.ptx.to_src(), "a define the text does not use changes no code");
        assert_ne!(defined.sha256, a.sha256, "but it is another module");
        let bad = "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = undeclared; }\n";
        for _ in 0..2 {
            let err = module_ptx("memo_bad.cu", "memo_bad.cu", bad, "sm_90", &[], &[], None).unwrap_err().to_string();
            assert!(err.contains("undeclared"), "NVRTC's log, each time: {err}");
        }
    }

    #[test]
    fn a_header_folder_is_not_part_of_the_identity() {
        if crate::nvrtc::load().is_err() {
            eprintln!("skipped: no NVRTC here");
            return;
        }
        // One header, kept in two checkouts' folders: NVRTC names each folder in the PTX's `.file`
        // lines, and the options name each; the module is one.
        let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for dir in [&one, &two] {
            std::fs::write(dir.path().join("twice.cuh"), "__device__ float twice(float x) { return 2.0f * x; }\n")
                .unwrap();
        }
        let text = "#include \"twice.cuh\"\nextern \"C\" __global__ void k(float* x) { x[threadIdx.x] = twice(x[threadIdx.x]); }\n";
        let include = |dir: &tempfile::TempDir| format!("--include-path={}", dir.path().display());
        let (a, b) = (include(&one), include(&two));
        let (a, b) = (
            module_ptx("hdr.cu", "hdr.cu", text, "sm_90", &[], &[a.as_str()], None).unwrap(),
            module_ptx("hdr.cu", "hdr.cu", text, "sm_90", &[], &[b.as_str()], None).unwrap(),
        );
        assert_ne!(a.ptx.to_src(), b.ptx.to_src(), "each PTX names its folder");
        assert_eq!(a.sha256, b.sha256);
        assert_eq!(a.sha256, ptx_sha256(&a.ptx.to_src()), "header folders alone: the PTX's identity");
        assert_ne!(module_identity(&a.ptx.to_src(), &["-DX"]), a.sha256, "other options still count");
    }

    #[test]
    fn the_key_separates_every_part() {
        let none: &[String] = &[];
        assert_ne!(key("a.cu", "x", "sm_90", &[], &[], none), key("a.cu", "x", "sm_80", &[], &[], none));
        assert_ne!(key("a.cu", "x", "sm_90", &["f<1>"], &[], none), key("a.cu", "x", "sm_90", &[], &[], none));
        assert_ne!(key("a.cu", "xy", "sm_90", &[], &[], none), key("a.cux", "y", "sm_90", &[], &[], none));
        assert_ne!(key("a.cu", "x", "sm_90", &["-DA"], &[], none), key("a.cu", "x", "sm_90", &[], &["-DA"], none));
        // Two projects' header folders make two modules of one text.
        let (a, b) =
            (["--include-path=/a/.nvrtc/include".to_string()], ["--include-path=/b/.nvrtc/include".to_string()]);
        assert_ne!(key("a.cu", "x", "sm_90", &[], &[], &a), key("a.cu", "x", "sm_90", &[], &[], &b));
        assert_ne!(
            key("a.cu", "x", "sm_90", &[], &["-DA"], none),
            key("a.cu", "x", "sm_90", &[], &[], &["-DA".to_string()])
        );
    }
}
