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
    /// Its identity ([`ptx_sha256`]): the run CSV's `module_sha256`.
    pub sha256: String,
    /// The lowered (mangled) name of each instance asked for, in order; empty for an `extern "C"`
    /// file's module.
    pub lowered: Vec<String>,
}

/// Compiles the kernel file `file` with text `source` for `arch` ([`compile_instances`]): its
/// `extern "C"` kernels, and the template instances `instances` (name expressions; empty for a
/// file without templates). Made once per process and (file, text, arch, instances);
/// a caller asking while another thread makes it waits for that compile. A failed compile is not
/// kept: the next caller compiles again and gets NVRTC's error itself.
///
/// # Errors
/// [`crate::Error::Compile`] with NVRTC's log; [`crate::Error::Unavailable`] without NVRTC.
pub fn module_ptx(file: &str, source: &str, arch: &str, instances: &[&str]) -> Result<ModulePtx> {
    type Cell = Arc<OnceLock<Option<ModulePtx>>>;
    static MADE: OnceLock<Mutex<HashMap<String, Cell>>> = OnceLock::new();
    let key = key(file, source, arch, instances);
    let cell: Cell = Arc::clone(
        MADE.get_or_init(Mutex::default).lock().unwrap_or_else(|p| p.into_inner()).entry(key.clone()).or_default(),
    );
    let mut failed = None;
    let made = cell.get_or_init(|| match compile(file, source, arch, instances) {
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
        (None, None) => compile(file, source, arch, instances),
    }
}

/// The compile itself, unkept.
fn compile(file: &str, source: &str, arch: &str, instances: &[&str]) -> Result<ModulePtx> {
    let (ptx, lowered) = compile_instances(file, source, arch, instances)?;
    let lowered = lowered.into_iter().map(|l| l.lowered).collect();
    let sha256 = ptx_sha256(&ptx.to_src());
    Ok(ModulePtx { ptx, sha256, lowered })
}

/// What tells two compiles apart: the file's name, its text, the architecture and the instances.
fn key(file: &str, source: &str, arch: &str, instances: &[&str]) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    for part in [file, source, arch].into_iter().chain(instances.iter().copied()) {
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
        let a = module_ptx("memo.cu", text, "sm_90", &[]).unwrap();
        let b = module_ptx("memo.cu", text, "sm_90", &[]).unwrap();
        assert_eq!(a.sha256, b.sha256);
        assert!(a.lowered.is_empty());
        // Kept: the same Ptx text, not a second compile's (equal anyway); another arch is another module.
        assert_eq!(a.ptx.to_src(), b.ptx.to_src());
        assert_ne!(module_ptx("memo.cu", text, "sm_80", &[]).unwrap().ptx.to_src(), a.ptx.to_src());
        let bad = "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = undeclared; }\n";
        for _ in 0..2 {
            let err = module_ptx("memo_bad.cu", bad, "sm_90", &[]).unwrap_err().to_string();
            assert!(err.contains("undeclared"), "NVRTC's log, each time: {err}");
        }
    }

    #[test]
    fn the_key_separates_every_part() {
        assert_ne!(key("a.cu", "x", "sm_90", &[]), key("a.cu", "x", "sm_80", &[]));
        assert_ne!(key("a.cu", "x", "sm_90", &["f<1>"]), key("a.cu", "x", "sm_90", &[]));
        assert_ne!(key("a.cu", "xy", "sm_90", &[]), key("a.cux", "y", "sm_90", &[]));
    }
}
