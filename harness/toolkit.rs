//! Finding the CUDA toolkit's command-line tools that need no GPU (nvdisasm for the SASS gate,
//! ptxas for the compile trials of prebuilt PTX modules), one search for all of them.
//!
//! # Search order
//! The first file that runs and reports a CUDA release (`<tool> --version`: `Cuda compilation
//! tools, release 13.5, V13.5.37`) wins:
//! 1. the tool's variable (`KERNELGATE_NVDISASM`, `KERNELGATE_PTXAS`): the executable. When set,
//!    nothing else is searched: a value that is not a working tool is an error naming it.
//! 2. `<project root>/.nvrtc/bin/<tool>`, where `scripts/get-nvrtc` unpacks the pinned PyPI wheels
//!    beside NVRTC;
//! 3. `$CUDA_HOME/bin/`, `$CUDA_PATH/bin/`, `/usr/local/cuda/bin/` (a CUDA toolkit);
//! 4. the folders of `PATH`.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One tool as the search knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    /// The executable's name: `nvdisasm`, `ptxas`.
    pub name: &'static str,
    /// The variable naming it, searched first and alone.
    pub env_var: &'static str,
    /// What needs it, for the message when none is found: `the SASS gate`.
    pub needed_by: &'static str,
    /// The PyPI wheel `scripts/get-nvrtc` takes it from.
    pub wheel: &'static str,
}

impl Spec {
    /// Where `scripts/get-nvrtc` puts it, relative to the project root (git-ignored).
    pub fn local_file(&self) -> PathBuf {
        Path::new(".nvrtc/bin").join(self.name)
    }
}

/// A tool found: the executable and its release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tool {
    /// The executable's name (`nvdisasm`).
    pub name: &'static str,
    /// The executable.
    pub path: PathBuf,
    /// Its CUDA release, `major.minor.patch` as `--version` prints it after `V` (`13.5.37`).
    pub version: String,
}

impl std::fmt::Display for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} ({})", self.name, self.version, self.path.display())
    }
}

/// Where a tool is looked for ([`places`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Places {
    /// The value of the tool's variable, set: the only place.
    Given(String),
    /// The places searched, in order.
    Search(Vec<PathBuf>),
}

/// The places searched for `spec`, in order, without looking at the file system but for the project
/// root (`root`): `env` gives the environment (the tool's variable, `CUDA_HOME`, `CUDA_PATH`,
/// `PATH`). Pure.
pub fn places(spec: &Spec, env: &dyn Fn(&str) -> Option<String>, root: &Path) -> Places {
    if let Some(value) = env(spec.env_var).filter(|v| !v.is_empty()) {
        return Places::Given(value);
    }
    let mut out = vec![root.join(spec.local_file())];
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(dir) = env(var).filter(|v| !v.is_empty()) {
            out.push(Path::new(&dir).join("bin").join(spec.name));
        }
    }
    out.push(Path::new("/usr/local/cuda/bin").join(spec.name));
    if let Some(path) = env("PATH") {
        out.extend(std::env::split_paths(&path).map(|d| d.join(spec.name)));
    }
    Places::Search(out)
}

/// The CUDA release in a tool's `--version` output: the text after `, V` on the line
/// `Cuda compilation tools, release 13.5, V13.5.37` (`13.5.37`). Pure.
pub fn version_of(output: &str) -> Option<String> {
    let line = output.lines().find(|l| l.starts_with("Cuda compilation tools"))?;
    let v = line.rsplit_once(", V")?.1.trim();
    (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit() || b == b'.')).then(|| v.to_string())
}

/// `<path> --version`, when it runs and reports a release.
fn probe(spec: &Spec, path: &Path) -> Option<Tool> {
    let out = Command::new(path).arg("--version").output().ok()?;
    let version = version_of(&String::from_utf8_lossy(&out.stdout))?;
    Some(Tool { name: spec.name, path: path.to_path_buf(), version })
}

/// What one search for a tool found, kept by its caller for the process (a `OnceLock`).
pub type Found = std::result::Result<Tool, (Option<String>, String)>;

/// Searches for `spec` ([`places`], from the project root of the current folder): the first tool
/// that runs, or the variable's value that does not run / the places searched.
pub fn search(spec: &Spec) -> Found {
    let root = std::env::current_dir().map(|d| crate::project::root_of(&d)).unwrap_or_default();
    match places(spec, &|k| std::env::var(k).ok(), &root) {
        Places::Given(value) => probe(spec, Path::new(&value)).ok_or((Some(value), String::new())),
        Places::Search(candidates) => candidates.iter().find_map(|p| probe(spec, p)).ok_or_else(|| {
            let shown: Vec<String> = candidates.iter().take(4).map(|p| p.display().to_string()).collect();
            (None, shown.join(", "))
        }),
    }
}

/// A kept search's answer ([`search`]) as a result.
///
/// # Errors
/// [`Error::Config`] naming the tool's variable when it is set and does not run as the tool;
/// [`Error::Unavailable`] when none was found, with the places searched and the fix.
pub fn found<'a>(spec: &Spec, found: &'a Found) -> Result<&'a Tool> {
    match found {
        Ok(tool) => Ok(tool),
        Err((Some(value), _)) => Err(Error::Config {
            name: spec.env_var,
            value: value.clone(),
            expected: format!(
                "a {} executable that prints its release with --version; unset it to search the usual places",
                spec.name
            ),
        }),
        Err((None, searched)) => Err(Error::Unavailable(format!(
            "no {name} found (searched {searched} and PATH), so {needed} cannot run; fix: run `scripts/get-nvrtc` in \
             the project root (it unpacks the PyPI wheel {wheel} into {local}), install a CUDA toolkit, or set {var}",
            name = spec.name,
            needed = spec.needed_by,
            wheel = spec.wheel,
            local = spec.local_file().display(),
            var = spec.env_var,
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: Spec = Spec { name: "nvdisasm", env_var: "KERNELGATE_NVDISASM", needed_by: "x", wheel: "w" };

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
            places(&SPEC, &env(&[("KERNELGATE_NVDISASM", "/opt/x/nvdisasm"), ("PATH", "/bin")]), Path::new("/p")),
            Places::Given("/opt/x/nvdisasm".into())
        );
        let Places::Search(got) = places(&SPEC, &env(&[("CUDA_HOME", "/cuda"), ("PATH", "/a:/b")]), Path::new("/p"))
        else {
            panic!("no variable set: a search")
        };
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

    #[test]
    fn a_tool_not_found_names_the_places_the_wheel_and_the_variable() {
        let spec = Spec {
            name: "ptxas",
            env_var: "KERNELGATE_PTXAS",
            needed_by: "the compile trial",
            wheel: "nvidia-cuda-nvcc",
        };
        let e = found(&spec, &Err((None, "/p/.nvrtc/bin/ptxas".into()))).unwrap_err().to_string();
        assert!(e.contains("no ptxas found (searched /p/.nvrtc/bin/ptxas and PATH)"), "{e}");
        assert!(e.contains("nvidia-cuda-nvcc into .nvrtc/bin/ptxas") && e.contains("KERNELGATE_PTXAS"), "{e}");
        let e = found(&spec, &Err((Some("/bin/true".into()), String::new()))).unwrap_err().to_string();
        assert!(e.contains("KERNELGATE_PTXAS") && e.contains("/bin/true"), "{e}");
    }
}
