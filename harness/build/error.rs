//! The helper's one error type: why a kernel file cannot be used as it is, or a commit cannot be
//! read, as a kind a caller decides on and a message for the file's owner.

/// What is wrong, for a caller that decides on it: the build script stops on every kind, the
/// library's run-time reader places a [`ErrorKind::NotUtf8`] error at its line and column, and
/// `kernelgate compile` reports the rest against the file it was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A text file (`.cu`, `.cuh`, `.ptx`) holds a byte that is not UTF-8
    /// ([`crate::entry_scan::utf8_text`]); [`Error::place`] names it.
    NotUtf8,
    /// The bytes are not a module of the kind the file's extension names: not an ELF cubin for a
    /// CUDA GPU, not a fatbin, not a PTX module, or one cut short.
    NotModule,
    /// A fatbin kernelgate cannot read the kernels of: it holds only PTX, or only compressed
    /// cubins ([`crate::fatbin::read`]).
    Unsupported,
    /// The file declares no kernel.
    NoKernel,
    /// A kernel name declared twice, or both as a kernel template and as an `extern "C"` kernel;
    /// the message names the line.
    Redeclared,
    /// A fatbin whose cubins declare different kernels.
    CubinsDiffer,
    /// `KERNELGATE_COMMIT` names no commit, or there is no repository to read it in
    /// ([`crate::provenance::read`]).
    Revision,
    /// A kernel folder or file cannot be read, or the generated file cannot be written (with the
    /// operating system's words).
    Io,
    /// `kernelgate.toml` does not parse, names a key kernelgate does not know
    /// ([`crate::project_file::unknown_key`]), or its `kernels` names no folder.
    ProjectFile,
    /// The kernel folders hold no kernel file (`.cu`, `.ptx`, `.cubin`, `.fatbin`).
    NoKernelFiles,
    /// Two kernel files map to one module of constants (`a/x.cu` and `b/x.cu`).
    ModuleClash,
}

/// Why a kernel file cannot be used as it is, or a commit cannot be read.
///
/// Its message reads as a predicate of the file, without the file's name (`is not a cubin: …`,
/// `line 7: kernel \`k\` is declared twice; …`). Where the error was found at a file, its place
/// says which ([`Error::place`]) and its `Display` starts with it; readers of bytes
/// ([`crate::cubin::read`]) leave the place to their caller.
///
/// # Example
/// ```
/// use kernelgate_build::{ErrorKind, entry_scan};
/// let e = entry_scan::declared("__device__ float helper(float x) { return x; }").unwrap_err();
/// assert_eq!(e.kind(), ErrorKind::NoKernel);
/// assert!(e.to_string().starts_with("declares no `extern \"C\" __global__` kernel"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    place: Option<String>,
    message: String,
}

impl Error {
    /// An error of `kind` with `message` (a predicate of the file, without its name), for a caller
    /// that checks kernel files of its own as the helper does.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error { kind, place: None, message: message.into() }
    }

    /// An [`ErrorKind::NotUtf8`] error at `place` (`<file>:<line>:<column>`).
    pub(crate) fn not_utf8(place: String, message: String) -> Error {
        Error { kind: ErrorKind::NotUtf8, place: Some(place), message }
    }

    /// This error at `path`, unless it names a place already (a byte's line and column).
    pub(crate) fn at(mut self, path: &std::path::Path) -> Error {
        self.place.get_or_insert_with(|| path.display().to_string());
        self
    }

    /// This error with `context` before its message (`its cubin for sm_90: …`); kind and place kept.
    pub(crate) fn context(mut self, context: &str) -> Error {
        self.message = format!("{context}: {}", self.message);
        self
    }

    /// What is wrong, for a caller that decides on it.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Where the error is: the file ([`crate::Build::generate`]'s errors), or for a
    /// [`ErrorKind::NotUtf8`] error `<file>:<line>:<column>` (1-based; the column in bytes); `None`
    /// from a reader of bytes or text, whose caller knows the file.
    pub fn place(&self) -> Option<&str> {
        self.place.as_deref()
    }

    /// The message without [`Error::place`]: what is wrong and the fix.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.place {
            Some(place) => write!(f, "{place}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}
