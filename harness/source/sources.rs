//! The kernel files of one run as a value ([`Sources`]): read once where a run or a command
//! starts and handed down to what needs them (DESIGN.md: values handed down, not globals).

use super::{Kernel, KernelSource, read_project};
use crate::error::{Error, Result};
use crate::project::Project;

/// The kernel files one run reads: every file of the project's kernel folders and the library's
/// own ([`super::own`]), sorted by file name, each file name once ([`read_project`]). A run reads
/// them once where it starts ([`crate::suite::main`], which hands them to its
/// [`crate::suite::Suite`]); its child processes (ncu's profiled child, the sanitizer's and the
/// isolated child) read their own there too and check them against the run's
/// ([`super::same_as_parent`]). The file names are the keys: a case table's [`Kernel`] names its
/// file (`transpose.cu`), and [`Sources::of`] finds it.
///
/// # Example
/// ```no_run
/// let config = kernelgate::Config::from_env()?;
/// let project = kernelgate::project::Project::current(&config)?;
/// let sources = kernelgate::source::Sources::read(&project)?;
/// for source in sources.iter().filter(|s| !s.is_own()) {
///     println!("{}: {}", source.path, source.entries.join(", "));
/// }
/// let transpose = kernelgate::Kernel::new("transpose.cu", "transpose_naive");
/// sources.declares(&transpose)?;
/// println!("compiled with {:?}", sources.of(&transpose).map(|s| s.options));
/// # Ok::<(), kernelgate::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// Sorted by file name.
    files: Vec<KernelSource>,
    /// The root of the project they were read from ([`Sources::root`]).
    root: Option<std::path::PathBuf>,
}

impl Sources {
    /// The kernel files of `project` as they are now ([`read_project`]: its kernel folders, each
    /// file with its NVRTC options, and the library's own files).
    ///
    /// # Errors
    /// [`read_project`]'s: a kernel folder that cannot be read or holds no kernel file, a file
    /// that declares no kernel, two files of one name, a `kernelgate.toml` `[nvrtc.files]` table
    /// that names no file.
    pub fn read(project: &Project) -> Result<Sources> {
        let files = read_project(project)?;
        Ok(Sources { root: Some(project.root.clone()), ..Sources::new(files) })
    }

    /// The kernel files `files`, sorted by file name here, of no project ([`Sources::root`] is
    /// `None`). A file name should be there once (as [`read_project`] holds the folders to): a
    /// lookup finds the first of a name.
    pub fn new(mut files: Vec<KernelSource>) -> Sources {
        files.sort_by_key(|s| s.file);
        Sources { files, root: None }
    }

    /// The root of the project the files were read from ([`Sources::read`]: the project's
    /// [`Project::root`]), handed with them to every compile of them: NVRTC searches its
    /// `.nvrtc/include` for headers where no CUDA toolkit is found
    /// ([`crate::compile::include_options`]). `None` for files of no project ([`Sources::new`]).
    pub fn root(&self) -> Option<&std::path::Path> {
        self.root.as_deref()
    }

    /// The file named `file` (`"transpose.cu"`); `None` when the run read no file of that name.
    pub fn get(&self, file: &str) -> Option<&KernelSource> {
        self.files.iter().find(|s| s.file == file)
    }

    /// The file of `kernel` ([`Kernel::file`]) as the run read it; `None` when the file is gone
    /// from the kernel folders since the crate was built ([`Sources::declares`] says so with the
    /// fix).
    pub fn of(&self, kernel: &Kernel) -> Option<&KernelSource> {
        self.get(kernel.file)
    }

    /// Whether `kernel`'s file, as the run read it, still declares it (the entry point, or for an
    /// instance its template): `build.rs` named the kernels when the crate was last built, and a
    /// staged binary reads the kernels as they are where it runs. A trial checks this before it
    /// compiles.
    ///
    /// # Errors
    /// [`Error::Kernels`] naming the file and the fix when the file is gone; as
    /// [`Kernel::declared_in`] when the file no longer declares the kernel.
    pub fn declares(&self, kernel: &Kernel) -> Result<()> {
        let Some(source) = self.of(kernel) else {
            return Err(Error::Kernels {
                path: kernel.file.into(),
                message: format!(
                    "is gone from the kernel folders since the crate was built, and the case table launches `{}` \
                     from it: restore the file, or remove its cases and rebuild",
                    kernel.entry
                ),
            });
        };
        kernel.declared_in(source)
    }

    /// The kernel file named `file` (`transpose.cu`) as messages show it: its path relative to the
    /// project root as the run read it (`kernels/transpose.cu`, `gpu/src/transpose.cu`,
    /// `<kernelgate>/planted.cu` for the library's own), or `file` itself where the run read no
    /// file of that name.
    pub fn path_of<'a>(&'a self, file: &'a str) -> &'a str {
        self.get(file).map_or(file, |s| s.path)
    }

    /// The NVRTC options of the project's file named `file` as the run read it
    /// ([`KernelSource::options`]); none where the run read no file of that name. A same-run A/B
    /// compiles the other revision's text of the file with these too: the working tree's
    /// `kernelgate.toml`, not the revision's.
    pub fn options_of(&self, file: &str) -> &'static [&'static str] {
        self.get(file).map_or(&[], |s| s.options)
    }

    /// The files, sorted by file name.
    pub fn iter(&self) -> std::slice::Iter<'_, KernelSource> {
        self.files.iter()
    }

    /// The files, sorted by file name.
    pub fn as_slice(&self) -> &[KernelSource] {
        &self.files
    }

    /// How many files: the library's own included.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether there is no file ([`Sources::default`]; a run reads at least the library's own).
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// [`super::kernels_sha256`] of every file: the hash a run hands its child processes
    /// ([`super::PARENT_KERNELS_ENV`]).
    pub fn kernels_sha256(&self) -> String {
        super::kernels_sha256(&self.files)
    }

    /// [`super::project_kernels_sha256`]: the hash of the project's files alone (the library's own
    /// left out), recorded with a run's rows.
    pub fn project_kernels_sha256(&self) -> String {
        super::project_kernels_sha256(&self.files)
    }
}

impl<'a> IntoIterator for &'a Sources {
    type Item = &'a KernelSource;
    type IntoIter = std::slice::Iter<'a, KernelSource>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
