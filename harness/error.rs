//! The crate's one error type.

use std::path::PathBuf;

/// Result alias used across kernelgate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong outside a kernel's own verdict. Each variant's message is a full
/// sentence that names the file, variable or kernel involved and, where there is one, the fix.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A `KERNELGATE_*` environment variable holds a value that does not parse.
    #[error("environment variable {name}={value:?} is invalid: {expected}")]
    Config {
        /// Variable name.
        name: &'static str,
        /// The value found.
        value: String,
        /// What a valid value looks like.
        expected: String,
    },
    /// A flag of the suite binary of kernelgate's own (not libtest's) holds a value that does not
    /// parse (`--partition`).
    #[error("{flag} {value:?} is invalid: {expected}")]
    Flag {
        /// The flag, `--partition`.
        flag: &'static str,
        /// The value found.
        value: String,
        /// What a valid value looks like.
        expected: String,
    },
    /// A `KERNELGATE_*` variable that is not one of kernelgate's options (a typo would silently
    /// leave the default on).
    #[error(
        "environment variable {name} is not an option of kernelgate (a typo would silently leave the default on); {hint}unset it, or use one of: {options}"
    )]
    UnknownOption {
        /// The variable's name.
        name: String,
        /// `did you mean KERNELGATE_NCU? ` when one option is within two edits of `name`, else `""`.
        hint: String,
        /// kernelgate's options, comma-separated.
        options: String,
    },
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Writing CSV failed.
    #[error("{}: {source}", path.display())]
    Csv {
        /// The CSV file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: csv::Error,
    },
    /// The kernel sources cannot be used as they are: no `kernels/` folder where the run starts,
    /// a file that declares no kernel or one name twice ([`crate::entry_scan::declared`]), a case
    /// that launches a kernel its file no longer declares, or passes it arguments its parameters do
    /// not take ([`crate::compile::mismatch`]).
    #[error("{}: {message}", path.display())]
    Kernels {
        /// The kernel file or folder.
        path: PathBuf,
        /// What is wrong and the fix.
        message: String,
    },
    /// NVRTC rejected a kernel source; `log` is NVRTC's log, verbatim (it names file and line).
    #[error("NVRTC failed to compile {file} for {arch} ({status}; {nvrtc}); its log follows:\n{log}")]
    Compile {
        /// The kernel file as messages name it: `kernels/<name>` (`crate::KernelSource::path`).
        file: String,
        /// Target architecture, e.g. `sm_90`.
        arch: String,
        /// NVRTC's status code.
        status: String,
        /// The NVRTC used: version, file and how it was found (`crate::nvrtc::Nvrtc`'s Display).
        nvrtc: String,
        /// NVRTC's program log.
        log: String,
    },
    /// A CUDA driver call failed.
    #[error("CUDA driver call failed while {doing}: {source}")]
    Driver {
        /// What kernelgate was doing.
        doing: String,
        /// The driver's error.
        #[source]
        source: cudarc::driver::DriverError,
    },
    /// Nsight Compute output that cannot be used: unparseable CSV, an `==ERROR==` line, no profiled
    /// kernel, or a requested metric missing. `origin` is the file (or command) it came from;
    /// `line` the 1-based line where known; `message` says what is wrong and what to do.
    #[error("{}{}: {message}", origin.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Ncu {
        /// The CSV or report file, or the ncu command.
        origin: PathBuf,
        /// 1-based line in `origin`, where known.
        line: Option<usize>,
        /// What is wrong, and the fix.
        message: String,
    },
    /// A baseline file that cannot be used: unreadable, corrupt, or of another schema version.
    /// `path` and `line` locate it; `message` says what is wrong and the fix. A baseline that fails to
    /// load is never rewritten.
    #[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Baseline {
        /// The baseline or samples CSV.
        path: PathBuf,
        /// 1-based line, where known.
        line: Option<usize>,
        /// What is wrong, and the fix.
        message: String,
    },
    /// A store folder (`crate::store`) whose files cannot be trusted or written together: a
    /// manifest that does not parse, a file that does not match what the manifest vouches for
    /// (cut short, edited, missing). `message` says what is wrong and the fix; nothing was written.
    #[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Store {
        /// The file (or the folder).
        path: PathBuf,
        /// 1-based line, where known.
        line: Option<usize>,
        /// What is wrong, and the fix.
        message: String,
    },
    /// The history (`crate::history`): a store file that cannot be opened, read or appended to (of
    /// a newer schema, not a kernelgate history, a run that conflicts with the stored one), or an
    /// imported run CSV that cannot be read. `path` and `line` locate it; `message` says what is
    /// wrong and the fix. Nothing is appended when this is returned.
    #[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    History {
        /// The store file or the imported CSV.
        path: PathBuf,
        /// 1-based line, where known.
        line: Option<usize>,
        /// What is wrong, and the fix.
        message: String,
    },
    /// kernelgate's git notes (`crate::history::notes`): a note that does not parse, a commit that
    /// cannot be noted, or a libgit2 failure. `commit` is the annotated commit (or the notes ref),
    /// `line` the 1-based line of the note where known.
    #[error("git note of {commit}{}: {message}", line.map(|l| format!(", line {l}")).unwrap_or_default())]
    Notes {
        /// The annotated commit, or the notes ref.
        commit: String,
        /// 1-based line in the note, where known.
        line: Option<usize>,
        /// What is wrong, and the fix.
        message: String,
    },
    /// Two inputs that cannot be compared: nothing in common, or measured on different GPU models.
    #[error("{0}")]
    Compare(String),
    /// The kernels of a project at a git revision cannot be read (A/B's other side, bisect's
    /// commits): no repository, no such commit, no kernel folder there, a build command that failed.
    #[error("{message}")]
    Revision {
        /// The revision as given (`main`, `HEAD~1`, a commit).
        rev: String,
        /// What is wrong and the fix.
        message: String,
    },
    /// `kernelgate bisect` cannot go on: revisions that do not bisect, a suite binary that is
    /// missing or whose step failed (the sentence names its log and the fix).
    #[error("bisect: {0}")]
    Bisect(String),
    /// Timing samples a statistic cannot use (empty, NaN, infinite, not positive).
    #[error("invalid samples: {0}")]
    Samples(String),
    /// A host call of a program ([`crate::case::HostCall`]) returned an error: the case, the call,
    /// the step and the call's own sentence.
    #[error("{0}")]
    Host(String),
    /// The shared libraries or the device that a GPU trial needs are not there.
    #[error("{0}")]
    Unavailable(String),
    /// The project's `kernelgate.toml` ([`crate::project`]) cannot be used: TOML that does not
    /// parse, a key kernelgate does not know, a value of the wrong type; or its kernel folders
    /// cannot be read together (two files of one name).
    #[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Project {
        /// The `kernelgate.toml`, or the kernel folder.
        path: PathBuf,
        /// 1-based line, where known.
        line: Option<usize>,
        /// What is wrong, and the fix.
        message: String,
    },
}

impl Error {
    /// [`Error::Kernels`] for the kernel file `path` whose fault the build helper's readers found
    /// (`kernelgate_build::Error`): at the line and column a byte that is not UTF-8 names, else at
    /// `path`.
    pub fn kernel_file(path: impl Into<PathBuf>, fault: kernelgate_build::Error) -> Error {
        match fault.place() {
            Some(place) => Error::Kernels { path: place.into(), message: fault.message().to_string() },
            None => Error::Kernels { path: path.into(), message: fault.to_string() },
        }
    }

    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }

    /// Wraps a driver error with what was being done.
    pub fn driver(doing: impl Into<String>) -> impl FnOnce(cudarc::driver::DriverError) -> Error {
        let doing = doing.into();
        move |source| Error::Driver { doing, source }
    }

    /// Whether this is a driver error that leaves the CUDA context unusable: "the process must be
    /// terminated and relaunched" (CUDA Driver API, `CUresult`: `CUDA_ERROR_ILLEGAL_ADDRESS`,
    /// `_ASSERT`, `_HARDWARE_STACK_ERROR`, `_ILLEGAL_INSTRUCTION`, `_MISALIGNED_ADDRESS`,
    /// `_INVALID_ADDRESS_SPACE`, `_INVALID_PC`, `_LAUNCH_FAILED`, `_LAUNCH_TIMEOUT`,
    /// `_EXTERNAL_DEVICE`).
    pub fn is_sticky(&self) -> bool {
        use cudarc::driver::sys::CUresult as R;
        matches!(
            self,
            Error::Driver { source, .. } if matches!(
                source.0,
                R::CUDA_ERROR_ILLEGAL_ADDRESS
                    | R::CUDA_ERROR_ASSERT
                    | R::CUDA_ERROR_HARDWARE_STACK_ERROR
                    | R::CUDA_ERROR_ILLEGAL_INSTRUCTION
                    | R::CUDA_ERROR_MISALIGNED_ADDRESS
                    | R::CUDA_ERROR_INVALID_ADDRESS_SPACE
                    | R::CUDA_ERROR_INVALID_PC
                    | R::CUDA_ERROR_LAUNCH_FAILED
                    | R::CUDA_ERROR_LAUNCH_TIMEOUT
                    | R::CUDA_ERROR_EXTERNAL_DEVICE
            )
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cudarc::driver::{DriverError, sys::CUresult};

    #[test]
    fn faults_are_sticky_and_other_driver_errors_are_not() {
        let driver = |code| Error::driver("waiting for the stream")(DriverError(code));
        assert!(driver(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS).is_sticky());
        assert!(driver(CUresult::CUDA_ERROR_MISALIGNED_ADDRESS).is_sticky());
        assert!(driver(CUresult::CUDA_ERROR_LAUNCH_FAILED).is_sticky());
        assert!(driver(CUresult::CUDA_ERROR_LAUNCH_TIMEOUT).is_sticky());
        assert!(!driver(CUresult::CUDA_ERROR_OUT_OF_MEMORY).is_sticky(), "the context survives");
        assert!(!driver(CUresult::CUDA_ERROR_INVALID_VALUE).is_sticky());
        assert!(!Error::Unavailable("no GPU".into()).is_sticky());
    }
}
