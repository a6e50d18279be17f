//! Kernel sources embedded at build time by `build.rs` (one [`KernelSource`] per `kernels/*.cu`).
//!
//! The generated module [`k`] has one submodule per file and one [`Kernel`] constant per
//! `extern "C" __global__` entry point, so the case table cannot name a kernel that does not exist:
//! `k::transpose::transpose_naiv` fails to compile with "cannot find value ... in module
//! `k::transpose`".

/// One `kernels/*.cu` file as it was when the crate was built.
#[derive(Debug, Clone, Copy)]
pub struct KernelSource {
    /// File name inside `kernels/`, e.g. `transpose.cu`: how tables and cases name the file.
    pub file: &'static str,
    /// The file as messages name it: `kernels/transpose.cu` for the suite's files, the path the
    /// user gave for a file `kernelgate compile` read from disk.
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
}

/// An entry point: which file, which kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Kernel {
    /// File name inside `kernels/`.
    pub file: &'static str,
    /// The kernel as the suite names it: an `extern "C" __global__` function's name
    /// (`transpose_naive`), or a template instance's name expression (`block_sum<256, 8>`,
    /// [`KernelTemplate::with`]), which NVRTC lowers to the mangled name the module holds.
    pub entry: &'static str,
}

impl Kernel {
    /// The embedded source of this kernel's file.
    pub fn source(&self) -> &'static KernelSource {
        source_of(self.file).expect("build.rs generates Kernel constants only for embedded files")
    }

    /// Whether this is a template instance ([`KernelTemplate::with`]): compiled by name expression
    /// and launched by its lowered name.
    pub fn is_instance(&self) -> bool {
        is_name_expression(self.entry)
    }
}

/// Whether a kernel name is a template instance's name expression (`block_sum<256, 8>`) rather
/// than an `extern "C"` function's name: C identifiers hold no `<`. Pure.
pub fn is_name_expression(entry: &str) -> bool {
    entry.contains('<')
}

/// A kernel template of a `kernels/*.cu` file (`template <int BLOCK, int ITEMS> __global__ void
/// block_sum(...)`), which is no entry point until a case instantiates it with [`Self::with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KernelTemplate {
    /// File name inside `kernels/`.
    pub file: &'static str,
    /// The template's name.
    pub name: &'static str,
}

impl KernelTemplate {
    /// The instance with template arguments `args`, written as in C++ between the angle brackets
    /// (`"256, 8"`, `"float, 4"`): the [`Kernel`] whose entry is the name expression
    /// `name<args>`. NVRTC instantiates it (`nvrtcAddNameExpression`) and names the function it
    /// made (`nvrtcGetLoweredName`; NVRTC documentation, "Accessing Lowered Names"); arguments
    /// the template does not take fail the file's compile with NVRTC's message naming the
    /// expression. The two spellings `"256,8"` and `"256, 8"` are two kernels to the suite (their
    /// rows in the resource and SASS tables differ): write each instance one way.
    ///
    /// # Panics
    /// When `args` is empty or holds an unbalanced `<`/`>`: a typo in the case table.
    pub fn with(self, args: &str) -> Kernel {
        let args = args.trim();
        let depth = args.chars().try_fold(0i32, |d, c| match c {
            '<' => Some(d + 1),
            '>' if d == 0 => None,
            '>' => Some(d - 1),
            _ => Some(d),
        });
        assert!(
            !args.is_empty() && depth == Some(0),
            "{}::{}.with({args:?}): give the template arguments as C++ writes them between < and >, e.g. \"256, 8\"",
            self.file.trim_end_matches(".cu"),
            self.name
        );
        Kernel { file: self.file, entry: intern(format!("{}<{args}>", self.name)) }
    }
}

/// `name` as a `&'static str`, allocated once per distinct name in the process: the case table is
/// built more than once per run (per filter, scale and A/B side), and [`Kernel`] is `Copy`.
fn intern(name: String) -> &'static str {
    static NAMES: std::sync::Mutex<std::collections::BTreeSet<&'static str>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(known) = names.get(name.as_str()) {
        return known;
    }
    let leaked: &'static str = name.leak();
    names.insert(leaked);
    leaked
}

/// Looks up an embedded file by name (`"transpose.cu"`); `None` if there is no such file.
pub fn source_of(file: &str) -> Option<&'static KernelSource> {
    SOURCES.iter().find(|s| s.file == file)
}

/// Generated by `build.rs`: `SOURCES` and one module per kernel file.
pub mod k {
    use super::KernelSource;
    include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
}

pub use k::SOURCES;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_is_embedded_with_its_hash_and_entries() {
        assert!(SOURCES.len() >= 4, "kernels/ holds the four memory-access families");
        for s in SOURCES {
            assert_eq!(s.sha256.len(), 64, "{}", s.file);
            assert!(!s.entries.is_empty() || !s.templates.is_empty(), "{}", s.file);
            for e in s.entries.iter().chain(s.templates) {
                assert!(s.source.contains(&format!(" {e}(")), "{} lists {e}", s.file);
            }
        }
        let files: Vec<_> = SOURCES.iter().map(|s| s.file).collect();
        let mut sorted = files.clone();
        sorted.sort();
        assert_eq!(files, sorted);
    }

    #[test]
    fn generated_constants_point_into_their_files() {
        let kernel = k::transpose::transpose_shared_padded;
        assert_eq!(kernel.file, "transpose.cu");
        assert!(kernel.source().entries.contains(&"transpose_shared_padded"));
        // The helper is `__device__`, not an entry point.
        assert!(!k::vectorization::saxpy_vec4.source().entries.contains(&"saxpy_vec4_body"));
    }

    #[test]
    fn a_template_instance_is_named_by_its_name_expression_once() {
        let a = k::blocksum::block_sum.with(" 256, 8 ");
        assert_eq!(a, Kernel { file: "blocksum.cu", entry: "block_sum<256, 8>" });
        assert!(a.is_instance() && !k::smem::stage_reversed.is_instance());
        assert!(std::ptr::eq(a.entry, k::blocksum::block_sum.with("256, 8").entry), "interned");
        assert_eq!(a.source().templates, ["block_sum"]);
    }

    #[test]
    #[should_panic(expected = "give the template arguments")]
    fn an_unbalanced_template_argument_list_is_a_case_table_error() {
        let _ = k::blocksum::block_sum.with("cub::WarpReduce<float");
    }
}
