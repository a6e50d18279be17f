//! The kernel sources: every `*.cu` of the project's kernel folders ([`Project::kernels`],
//! default `kernels/`), read when a run starts ([`Sources::read`]) and handed down as one value,
//! not built into the binary, so that an edited kernel needs no rebuild of the crate.
//!
//! The project's build script (`kernelgate_build::Build::run`, included with [`crate::kernels!`])
//! writes a module `k` with one submodule per file and one [`Kernel`] constant per
//! `extern "C" __global__` entry point, so the case table cannot name a kernel that does not exist:
//! `k::transpose::transpose_naiv` fails to compile with "cannot find value ... in module
//! `k::transpose`". The build script re-runs when the project's code or a kernel folder changes
//! (`kernelgate_build::Build::watched`); a staged binary reads the kernels where it runs, so a kernel
//! renamed or removed since its build is found at run time ([`Sources::declares`]).
//!
//! The library's own kernels (the ceiling probes, the planted self-test family) are built into it
//! ([`own`]) and read with the project's, under names no project file may take.

use crate::error::{Error, Result};
use crate::project::Project;
use std::path::Path;
use std::sync::OnceLock;

mod kernel;
mod sources;
pub use kernel::{
    BadDefine, Kernel, KernelTemplate, build_name, build_options, define_option, defines_list, is_name_expression,
};
pub use sources::Sources;

/// One kernel file as a run reads it: one of the suite's `kernels/*.cu` ([`Sources`]), or a file
/// `kernelgate compile` was given ([`KernelSource::read`]). The text and names live as long as the
/// process (they are read once).
#[derive(Debug, Clone, Copy)]
pub struct KernelSource {
    /// File name inside its kernel folder, e.g. `transpose.cu`: how tables and cases name the file
    /// (one name is one file of the project, [`read_project`]).
    pub file: &'static str,
    /// The file as messages name it: relative to the project root (`kernels/transpose.cu`) for the
    /// project's files, the path the
    /// user gave for a file `kernelgate compile` read.
    pub path: &'static str,
    /// The CUDA C++ source text.
    pub source: &'static str,
    /// SHA-256 of `source`, lowercase hex (64 characters).
    pub sha256: &'static str,
    /// The `extern "C" __global__` entry points, in source order.
    pub entries: &'static [&'static str],
    /// The kernel templates at global scope ([`crate::entry_scan::template_kernels`]), in source
    /// order: compiled only as the instances the cases name ([`KernelTemplate::with`]).
    pub templates: &'static [&'static str],
    /// The project's own NVRTC options for this file, after kernelgate's
    /// ([`crate::project::Project::nvrtc_options`]: `[nvrtc]` of `kernelgate.toml`, include
    /// folders as `--include-path=<absolute folder>`); empty for the library's own files and a file
    /// `kernelgate compile` read outside a project.
    pub options: &'static [&'static str],
}

impl KernelSource {
    /// Reads the kernel file at `path`, named `shown` in messages, and finds its kernels
    /// ([`crate::entry_scan::entry_points`], [`crate::entry_scan::template_kernels`]), as found:
    /// [`read_folder`] holds the suite's files to [`crate::entry_scan::declared`]'s rules, and
    /// `kernelgate compile` reports what a file it is given lacks. Its text and names are leaked:
    /// a process reads each file once.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read; [`Error::Kernels`] naming line and column when it
    /// is not UTF-8 ([`crate::entry_scan::utf8_text`]).
    pub fn read(path: &Path, shown: &str) -> Result<KernelSource> {
        let bytes = std::fs::read(path).map_err(Error::io(path))?;
        let file = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let text = crate::kernel_file::kernel_text(&file, bytes, shown).map_err(|e| Error::kernel_file(path, e))?;
        Ok(KernelSource::of_text(&file, shown, &text))
    }

    /// The kernel file `file` with the text `text`, named `shown` in messages, with its kernels
    /// found as [`KernelSource::read`] finds them. Leaked like it.
    pub fn of_text(file: &str, shown: &str, text: &str) -> KernelSource {
        use sha2::{Digest, Sha256};
        let names = |found: Vec<(String, usize)>| -> &'static [&'static str] {
            found.into_iter().map(|(name, _)| &*name.leak()).collect::<Vec<_>>().leak()
        };
        let sha256: String = Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
        let (entries, templates) = match crate::kernel_file::kind_of(file) {
            Some(crate::kernel_file::Kind::Ptx) => (
                names(crate::kernel_file::ptx_entries(text).into_iter().map(|e| (e.name, e.line)).collect()),
                names(Vec::new()),
            ),
            // A binary module that cannot be read declares nothing here; read_folder names its fault.
            Some(crate::kernel_file::Kind::Cubin | crate::kernel_file::Kind::Fatbin) => (
                names(
                    crate::kernel_file::binary_entries(file, text)
                        .and_then(Result::ok)
                        .map_or_else(Vec::new, |e| e.into_iter().map(|e| (e.name, 0)).collect()),
                ),
                names(Vec::new()),
            ),
            _ => (names(crate::entry_scan::entry_points(text)), names(crate::entry_scan::template_kernels(text))),
        };
        KernelSource {
            file: file.to_string().leak(),
            path: shown.to_string().leak(),
            source: text.to_string().leak(),
            sha256: sha256.leak(),
            entries,
            templates,
            options: &[],
        }
    }

    /// This file with the NVRTC options `options` of its own (leaked, as the rest).
    pub fn with_options(mut self, options: Vec<String>) -> KernelSource {
        self.options = options.into_iter().map(|o| &*o.leak()).collect::<Vec<_>>().leak();
        self
    }

    /// Whether this is a prebuilt PTX module (`*.ptx`, [`crate::kernel_file`]), loaded as it is,
    /// rather than a CUDA source kernelgate compiles with NVRTC.
    pub fn is_ptx(&self) -> bool {
        crate::kernel_file::kind_of(self.file) == Some(crate::kernel_file::Kind::Ptx)
    }

    /// Whether this is a prebuilt module, PTX or cubin ([`crate::kernel_file::is_prebuilt`]).
    pub fn is_prebuilt(&self) -> bool {
        crate::kernel_file::is_prebuilt(self.file)
    }

    /// Whether this is one of the library's own files ([`own`]), not the project's.
    pub fn is_own(&self) -> bool {
        self.path.starts_with(OWN_PREFIX)
    }
}

/// Every `*.cu` in the folder `dir`, sorted by file name, each named `<shown>/<file>` in messages
/// (`shown`: the folder as the project names it, [`Project::shown`]).
///
/// # Errors
/// [`Error::Kernels`] when `dir` cannot be listed or holds no `.cu` file, or naming the file and
/// line when one declares no kernel, an entry point twice, or one name as a template and an entry
/// point ([`crate::entry_scan::declared`], the rules `build.rs` holds the files to); a file's
/// error from [`KernelSource::read`].
pub fn read_folder(dir: &Path, shown: &str) -> Result<Vec<KernelSource>> {
    let listed = std::fs::read_dir(dir).map_err(|e| Error::Kernels {
        path: dir.into(),
        message: format!(
            "cannot read the kernel folder ({e}): kernelgate reads the kernels it tests when a run starts, from the \
             folders `kernels` names in {} at the project root (default: kernels/ of the folder the run starts \
             in); name the folder there, or run in the project or a copy of its tree",
            crate::project::FILE
        ),
    })?;
    let mut paths: Vec<_> = listed
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| crate::kernel_file::kind_of(&p.to_string_lossy()).is_some())
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(Error::Kernels {
            path: dir.into(),
            message:
                "holds no .cu, .ptx, .cubin or .fatbin file; kernelgate needs at least one kernel source or prebuilt module"
                    .into(),
        });
    }
    let prefix = if shown.is_empty() { String::new() } else { format!("{}/", shown.trim_end_matches('/')) };
    paths
        .iter()
        .map(|p| {
            let shown = format!("{prefix}{}", p.file_name().unwrap_or_default().to_string_lossy());
            let source = KernelSource::read(p, &shown)?;
            crate::kernel_file::declared(source.file, source.source).map_err(|e| Error::kernel_file(shown, e))?;
            Ok(source)
        })
        .collect()
}

/// Every kernel file of the project's kernel folders ([`Project::kernels`], each read with
/// [`read_folder`], each with its NVRTC options, [`Project::nvrtc_options`]) and the library's own
/// ([`own`]), sorted by file name: a file name names one kernel file of the project (the case
/// table's constants and the tables' rows name files so), so two folders may not hold files of one
/// name.
///
/// # Errors
/// [`read_folder`]'s; [`Project::nvrtc_options`]'s; [`Error::Kernels`] naming both files when two
/// folders hold one file name, or naming the file when it has the name of one of the library's own;
/// [`Project::check_nvrtc_files`]'s, for a `[nvrtc.files."<file>"]` table that names no file.
pub fn read_project(project: &Project) -> Result<Vec<KernelSource>> {
    let mut all: Vec<KernelSource> = own().to_vec();
    for folder in &project.kernels {
        for source in read_folder(folder, &project.shown(folder))? {
            let source = source.with_options(project.nvrtc_options(source.file)?);
            if let Some(first) = all.iter().find(|s| s.file == source.file) {
                if first.is_own() {
                    return Err(Error::Kernels {
                        path: source.path.into(),
                        message: format!(
                            "has the name of one of kernelgate's own kernel files ({}): rename it",
                            OWN.iter().map(|(file, _)| *file).collect::<Vec<_>>().join(", ")
                        ),
                    });
                }
                return Err(Error::Kernels {
                    path: source.path.into(),
                    message: format!(
                        "has the file name of {}: kernelgate names a kernel file by its name, so the kernel folders \
                         of one project hold each name once; rename one of them",
                        first.path
                    ),
                });
            }
            all.push(source);
        }
    }
    let files: Vec<&str> = all.iter().filter(|s| !s.is_own()).map(|s| s.file).collect();
    project.check_nvrtc_files(&files)?;
    all.sort_by_key(|s| s.file);
    Ok(all)
}

/// The library's own kernel files (file name, text): the ceiling probes ([`crate::ceilings`]) and
/// the planted self-test family ([`crate::case::planted`]).
const OWN: [(&str, &str); 2] =
    [("ceilings.cu", include_str!("../kernels/ceilings.cu")), ("planted.cu", include_str!("../kernels/planted.cu"))];

/// How messages name the library's own files: `<kernelgate>/planted.cu`.
const OWN_PREFIX: &str = "<kernelgate>/";

/// The library's own kernel files, read once per process; every run reads them with the
/// project's ([`read_project`]).
pub fn own() -> &'static [KernelSource] {
    static OWN_SOURCES: OnceLock<Vec<KernelSource>> = OnceLock::new();
    OWN_SOURCES.get_or_init(|| {
        OWN.iter().map(|(file, text)| KernelSource::of_text(file, &format!("{OWN_PREFIX}{file}"), text)).collect()
    })
}

/// Constants for the kernels of the library's own files ([`own`]), as the build helper writes a
/// project's `k` (a unit test holds them to the files).
#[allow(non_upper_case_globals)]
pub(crate) mod own_k {
    use crate::Kernel;
    const fn planted(entry: &'static str) -> Kernel {
        Kernel::new("planted.cu", entry)
    }
    const fn ceilings(entry: &'static str) -> Kernel {
        Kernel::new("ceilings.cu", entry)
    }
    /// `planted.cu`: the planted self-test family ([`crate::case::planted`]).
    pub mod planted {
        use super::{Kernel, planted as at};
        pub const oob_write: Kernel = at("oob_write");
        pub const reverse_no_sync: Kernel = at("reverse_no_sync");
        pub const uninit_shared: Kernel = at("uninit_shared");
        pub const misaligned_float4: Kernel = at("misaligned_float4");
        pub const illegal_address: Kernel = at("illegal_address");
        pub const spin_forever: Kernel = at("spin_forever");
        pub const too_fast_copy: Kernel = at("too_fast_copy");
        pub const wrong_later: Kernel = at("wrong_later");
        /// Every constant above, for the test that holds them to the file.
        #[cfg(test)]
        pub const ALL: [Kernel; 8] = [
            oob_write,
            reverse_no_sync,
            uninit_shared,
            misaligned_float4,
            illegal_address,
            spin_forever,
            too_fast_copy,
            wrong_later,
        ];
    }
    /// `ceilings.cu`: the ceiling probes ([`crate::ceilings`]).
    pub mod ceilings {
        use super::{Kernel, ceilings as at};
        pub const ceiling_read: Kernel = at("ceiling_read");
        pub const ceiling_write: Kernel = at("ceiling_write");
        pub const ceiling_fma: Kernel = at("ceiling_fma");
        pub const ceiling_shared: Kernel = at("ceiling_shared");
        pub const ceiling_empty: Kernel = at("ceiling_empty");
        /// Every constant above, for the test that holds them to the file.
        #[cfg(test)]
        pub const ALL: [Kernel; 5] = [ceiling_read, ceiling_write, ceiling_fma, ceiling_shared, ceiling_empty];
    }
}

/// The variable a run sets on its child processes (ncu's profiled child, the sanitizer's and the
/// isolated checked child): the [`kernels_sha256`] of the kernels it read, which the child's own
/// read must equal ([`same_as_parent`]).
pub const PARENT_KERNELS_ENV: &str = "KERNELGATE_PARENT_KERNELS";

/// Whether the kernels this process read (`sources`, [`Sources::read`]) are those of the run that
/// started it, when it is a child (`parent` is [`PARENT_KERNELS_ENV`]'s value): a kernel edited
/// while the run went on would have ncu or the sanitizer check other code than was timed.
///
/// # Errors
/// [`Error::Kernels`] naming `kernels/` and both hashes when they differ.
pub fn same_as_parent(sources: &Sources, parent: &str) -> Result<()> {
    let here = sources.kernels_sha256();
    if here == parent {
        return Ok(());
    }
    Err(Error::Kernels {
        path: "kernels".into(),
        message: format!(
            "changed while the run went on (the run read kernels {}, this child process reads {}): its checks \
             would not be of the kernels that were timed; run again without editing kernels/ meanwhile",
            &parent[..parent.len().min(12)],
            &here[..12]
        ),
    })
}

/// [`crate::model::kernels_sha256`] of `sources`: one hash over the kernels a run
/// reads.
pub fn kernels_sha256(sources: &[KernelSource]) -> String {
    let files: Vec<(&str, &str)> = sources.iter().map(|s| (s.file, s.source)).collect();
    crate::model::kernels_sha256(&files)
}

/// [`kernels_sha256`] of the project's files of `sources` (the library's own left out): the hash
/// recorded with a run's rows, compared with the kernels of the commit the binary was built from
/// (`kernelgate_build::provenance::kernels_at_head`).
pub fn project_kernels_sha256(sources: &[KernelSource]) -> String {
    let project: Vec<KernelSource> = sources.iter().filter(|s| !s.is_own()).copied().collect();
    kernels_sha256(&project)
}

/// The fixture kernels of the library's unit tests, read as a run reads them ([`Sources::read`]):
/// the small project `harness/tests/fixtures/project/` (its `kernels/`: a copy, three transposes,
/// a float4 kernel with a `__device__` helper, a shared-memory stage and a kernel template), whose
/// kernels the tests name by hand ([`k`]), with the library's own files. Read once per test
/// process.
#[cfg(test)]
pub(crate) fn for_tests() -> &'static Sources {
    static FIXTURE: OnceLock<Sources> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let root = fixture_path("project");
        let project = Project::new(&root, None, crate::project::Settings::default(), &crate::config::Config::default());
        Sources::read(&project).unwrap()
    })
}

/// The file or folder `path` of the library's test fixtures, `harness/tests/fixtures/` (inside
/// the package, so the unit tests also run from the published crate).
#[cfg(test)]
pub(crate) fn fixture_path(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(path)
}

/// The fixture kernels the library's unit tests launch ([`for_tests`]'s files), written as the
/// build helper writes a project's.
#[cfg(test)]
#[allow(non_upper_case_globals)]
pub(crate) mod k {
    pub mod coalescing {
        pub const copy_coalesced: crate::Kernel = crate::Kernel::new("coalescing.cu", "copy_coalesced");
    }
    pub mod transpose {
        pub const transpose_naive: crate::Kernel = crate::Kernel::new("transpose.cu", "transpose_naive");
        pub const transpose_shared: crate::Kernel = crate::Kernel::new("transpose.cu", "transpose_shared");
        pub const transpose_shared_padded: crate::Kernel =
            crate::Kernel::new("transpose.cu", "transpose_shared_padded");
    }
    pub mod vectorization {
        pub const saxpy_vec4: crate::Kernel = crate::Kernel::new("vectorization.cu", "saxpy_vec4");
    }
    pub mod smem {
        pub const stage_reversed: crate::Kernel = crate::Kernel::new("smem.cu", "stage_reversed");
    }
    pub mod blocksum {
        pub const block_sum: crate::KernelTemplate = crate::KernelTemplate { file: "blocksum.cu", name: "block_sum" };
    }
}

#[cfg(test)]
mod package_tests;
#[cfg(test)]
mod tests;
