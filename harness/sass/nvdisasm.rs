//! Finding and running nvdisasm, NVIDIA's disassembler of cubins, which needs no GPU.
//!
//! # Search order
//! The first file that runs and reports a CUDA release (`nvdisasm --version`: `Cuda compilation
//! tools, release 13.5, V13.5.37`) wins:
//! 1. `KERNELGATE_NVDISASM`: the executable. When set, nothing else is searched: a value that is
//!    not a working nvdisasm is an error naming it.
//! 2. `<project root>/.nvrtc/bin/nvdisasm`, where `scripts/get-nvrtc` unpacks the pinned PyPI wheel
//!    `nvidia-cuda-nvdisasm` beside NVRTC;
//! 3. `$CUDA_HOME/bin/`, `$CUDA_PATH/bin/`, `/usr/local/cuda/bin/` (a CUDA toolkit);
//! 4. the folders of `PATH`.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Environment variable naming the nvdisasm to use, searched first and alone.
pub const ENV_VAR: &str = "KERNELGATE_NVDISASM";

/// Where `scripts/get-nvrtc` puts nvdisasm, relative to the project root (git-ignored).
pub const LOCAL_FILE: &str = ".nvrtc/bin/nvdisasm";

/// The nvdisasm this process uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nvdisasm {
    /// The executable.
    pub path: PathBuf,
    /// Its CUDA release, `major.minor.patch` as `--version` prints it after `V` (`13.5.37`).
    pub version: String,
}

impl std::fmt::Display for Nvdisasm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "nvdisasm {} ({})", self.version, self.path.display())
    }
}

/// The places searched, in order, without looking at the file system but for the project root
/// (`root`): `env` gives the environment (`KERNELGATE_NVDISASM`, `CUDA_HOME`, `CUDA_PATH`, `PATH`).
/// Pure. `Err` holds the value of `KERNELGATE_NVDISASM` when it is set: then it is the only place.
pub fn places(env: &dyn Fn(&str) -> Option<String>, root: &Path) -> std::result::Result<Vec<PathBuf>, String> {
    if let Some(value) = env(ENV_VAR).filter(|v| !v.is_empty()) {
        return Err(value);
    }
    let mut out = vec![root.join(LOCAL_FILE)];
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(dir) = env(var).filter(|v| !v.is_empty()) {
            out.push(Path::new(&dir).join("bin/nvdisasm"));
        }
    }
    out.push(PathBuf::from("/usr/local/cuda/bin/nvdisasm"));
    if let Some(path) = env("PATH") {
        out.extend(std::env::split_paths(&path).map(|d| d.join("nvdisasm")));
    }
    Ok(out)
}

/// The CUDA release in `nvdisasm --version`'s output: the text after `, V` on the line
/// `Cuda compilation tools, release 13.5, V13.5.37` (`13.5.37`). Pure.
pub fn version_of(output: &str) -> Option<String> {
    let line = output.lines().find(|l| l.starts_with("Cuda compilation tools"))?;
    let v = line.rsplit_once(", V")?.1.trim();
    (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit() || b == b'.')).then(|| v.to_string())
}

/// `nvdisasm --version` of `path`, when it runs and reports a release.
fn probe(path: &Path) -> Option<Nvdisasm> {
    let out = Command::new(path).arg("--version").output().ok()?;
    let version = version_of(&String::from_utf8_lossy(&out.stdout))?;
    Some(Nvdisasm { path: path.to_path_buf(), version })
}

/// The nvdisasm of this process: searched for on the first call, the same answer afterwards.
///
/// # Errors
/// [`Error::Config`] naming `KERNELGATE_NVDISASM` when it is set and does not run as nvdisasm;
/// [`Error::Unavailable`] when none was found, with the places searched and the fix.
pub fn load() -> Result<&'static Nvdisasm> {
    static FOUND: OnceLock<std::result::Result<Nvdisasm, (Option<String>, String)>> = OnceLock::new();
    let found = FOUND.get_or_init(|| {
        let root = std::env::current_dir().map(|d| crate::project::root_of(&d)).unwrap_or_default();
        match places(&|k| std::env::var(k).ok(), &root) {
            Err(value) => probe(Path::new(&value)).ok_or((Some(value), String::new())),
            Ok(candidates) => candidates.iter().find_map(|p| probe(p)).ok_or_else(|| {
                let shown: Vec<String> = candidates.iter().take(4).map(|p| p.display().to_string()).collect();
                (None, shown.join(", "))
            }),
        }
    });
    match found {
        Ok(n) => Ok(n),
        Err((Some(value), _)) => Err(Error::Config {
            name: ENV_VAR,
            value: value.clone(),
            expected: "an nvdisasm executable that prints its release with --version; unset it to search the usual \
                       places"
                .into(),
        }),
        Err((None, searched)) => Err(Error::Unavailable(format!(
            "no nvdisasm found (searched {searched} and PATH), so the SASS gate cannot run; fix: run \
             `scripts/get-nvrtc` in the project root (it unpacks the PyPI wheel nvidia-cuda-nvdisasm into \
             {LOCAL_FILE}), install a CUDA toolkit, or set {ENV_VAR}"
        ))),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_release_is_read_from_the_version_banner() {
        // nvdisasm 13.5.37's `--version` (from the PyPI wheel nvidia-cuda-nvdisasm), verbatim.
        let banner = "nvdisasm: NVIDIA (R) CUDA disassembler\nCopyright (c) 2005-2026 NVIDIA Corporation\n\
                      Built on Mon_Oct_12_19:25:53_PDT_2026\nCuda compilation tools, release 13.5, V13.5.37\n\
                      Build cuda_13.5.r13.5/compiler.39125733_0\n";
        assert_eq!(version_of(banner).as_deref(), Some("13.5.37"));
        assert_eq!(version_of("nvdisasm: unknown option"), None);
    }

    #[test]
    fn the_variable_is_searched_alone_then_the_local_copy_the_toolkit_and_path() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
        };
        assert_eq!(
            places(&env(&[(ENV_VAR, "/opt/x/nvdisasm"), ("PATH", "/bin")]), Path::new("/p")).unwrap_err(),
            "/opt/x/nvdisasm"
        );
        let got = places(&env(&[("CUDA_HOME", "/cuda"), ("PATH", "/a:/b")]), Path::new("/p")).unwrap();
        let got: Vec<String> = got.iter().map(|p| p.display().to_string()).collect();
        assert_eq!(
            got,
            [
                "/p/.nvrtc/bin/nvdisasm",
                "/cuda/bin/nvdisasm",
                "/usr/local/cuda/bin/nvdisasm",
                "/a/nvdisasm",
                "/b/nvdisasm"
            ]
        );
    }
}
