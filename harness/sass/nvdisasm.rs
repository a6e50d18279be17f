//! Finding and running nvdisasm, NVIDIA's disassembler of cubins, which needs no GPU.
//!
//! # Search order ([`crate::toolkit`])
//! The first file that runs and reports a CUDA release (`nvdisasm --version`: `Cuda compilation
//! tools, release 13.5, V13.5.37`) wins:
//! 1. `KERNELGATE_NVDISASM`: the executable. When set, nothing else is searched: a value that is
//!    not a working nvdisasm is an error naming it.
//! 2. `<project root>/.nvrtc/bin/nvdisasm`, where `scripts/get-nvrtc` unpacks the pinned PyPI wheel
//!    `nvidia-cuda-nvdisasm` beside NVRTC;
//! 3. `$CUDA_HOME/bin/`, `$CUDA_PATH/bin/`, `/usr/local/cuda/bin/` (a CUDA toolkit);
//! 4. the folders of `PATH`.

use crate::error::{Error, Result};
use crate::toolkit::{self, Spec};
use std::process::Command;
use std::sync::OnceLock;

/// Environment variable naming the nvdisasm to use, searched first and alone.
pub const ENV_VAR: &str = "KERNELGATE_NVDISASM";

/// nvdisasm as [`toolkit`] searches for it.
pub const SPEC: Spec =
    Spec { name: "nvdisasm", env_var: ENV_VAR, needed_by: "the SASS gate", wheel: "nvidia-cuda-nvdisasm" };

/// The nvdisasm this process uses.
pub type Nvdisasm = toolkit::Tool;

/// The nvdisasm of this process: searched for on the first call ([`toolkit::search`]), the same
/// answer afterwards.
///
/// # Errors
/// [`Error::Config`] naming `KERNELGATE_NVDISASM` when it is set and does not run as nvdisasm;
/// [`Error::Unavailable`] when none was found, with the places searched and the fix.
pub fn load() -> Result<&'static Nvdisasm> {
    /// The answer, process-wide rather than a run's: it describes the machine (the programs
    /// installed, the variables the process started with and the project folder it was in at the
    /// first call), which a later run in the same process would find the same.
    static FOUND: OnceLock<toolkit::Found> = OnceLock::new();
    toolkit::found(&SPEC, FOUND.get_or_init(|| toolkit::search(&SPEC)))
}

/// The listing of `cubin` (the bytes of an ELF cubin from NVRTC) as `nvdisasm --print-code`
/// prints it: code sections only, one instruction per line.
///
/// # Errors
/// [`Error::Io`] when the temporary file cannot be written, nvdisasm cannot be started, or it fails
/// (the error carries its exit status and stderr).
pub fn disassemble(nvdisasm: &Nvdisasm, cubin: &[u8]) -> Result<String> {
    let mut file = tempfile::Builder::new().suffix(".cubin").tempfile().map_err(Error::io(std::env::temp_dir()))?;
    std::io::Write::write_all(&mut file, cubin).map_err(Error::io(file.path()))?;
    let out = Command::new(&nvdisasm.path)
        .arg("--print-code")
        .arg(file.path())
        .output()
        .map_err(Error::io(&nvdisasm.path))?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(Error::io(&nvdisasm.path)(std::io::Error::other(format!(
            "{nvdisasm} exited with {} on a cubin of {} bytes: {why}",
            out.status,
            cubin.len()
        ))));
    }
    String::from_utf8(out.stdout).map_err(|e| Error::io(&nvdisasm.path)(std::io::Error::other(e)))
}
