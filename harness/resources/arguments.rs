//! What the compile trials check of the kernels' arguments, without a GPU: every launch's
//! argument count and sizes against the entry's parameters in the PTX, and the mangled names of a
//! prebuilt PTX module's entries.

use crate::{case::Case, compile, source::Kernel, source::KernelSource};

/// How many arguments one launch of a case passes to its kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arity {
    /// The entry point launched.
    pub kernel: Kernel,
    /// Arguments passed.
    pub args: usize,
    /// The bytes each argument passes, in order ([`crate::case::Arg::bytes`]).
    pub sizes: Vec<u32>,
    /// The case's trial name.
    pub trial: String,
}

/// The [`Arity`] of every launch of `cases`.
pub fn arities(cases: &[Case]) -> Vec<Arity> {
    let mut out = Vec::new();
    for c in cases {
        for step in &c.steps {
            if let crate::case::Step::Launch { kernel, args, .. } = step {
                let sizes = args.iter().map(|a| a.bytes(&c.params)).collect();
                out.push(Arity { kernel: *kernel, args: args.len(), sizes, trial: c.name() });
            }
        }
    }
    out
}

/// A note for each entry of the PTX module `source` whose name is a mangled C++ name (a kernel
/// built without `extern "C"`): the case table launches it by that name (`k::<file>::_Z...`),
/// and its rows and the bless command carry it; an `extern "C"` wrapper gives it its plain name.
/// Pure.
pub fn mangled_entries(source: &KernelSource) -> Vec<String> {
    source
        .entries
        .iter()
        .filter_map(|entry| {
            compile::itanium_name(entry).map(|name| {
                format!(
                    "{}: `{entry}` is the mangled C++ name of `{name}` (built without `extern \"C\"`): the case table \
                     and the tables name it so; build it behind an `extern \"C\" __global__` wrapper for a plain name \
                     (docs/adding-kernels.md, \"Prebuilt PTX modules\")",
                    source.path
                )
            })
        })
        .collect()
}

/// The first argument whose size (`passed`, bytes) differs from its parameter's (`declared`, as
/// the PTX declares it, [`crate::kernel_file::PtxEntry::params`]), as a phrase naming its position
/// and both sizes; `None` when they agree or either list is of another length (the count check
/// covers that). A 4-byte argument for a parameter of 1 or 2 bytes (`bool`, `char`, `short`,
/// `__half`) agrees: the driver copies the declared bytes, the low ones on every CUDA platform
/// (little-endian). Pure.
///
/// # Example
/// ```
/// use kernelgate::resources::size_mismatch;
/// assert_eq!(size_mismatch(&[8, 8, 4], &[8, 8, 4]), None);
/// assert_eq!(size_mismatch(&[8, 4], &[8, 8]).unwrap(), "argument 2 of 4 bytes where the kernel declares 8");
/// assert_eq!(size_mismatch(&[4], &[1]), None);
/// ```
pub fn size_mismatch(passed: &[u32], declared: &[u32]) -> Option<String> {
    if passed.len() != declared.len() {
        return None;
    }
    let (i, (p, d)) = passed.iter().zip(declared).enumerate().find(|(_, (p, d))| p != d && !(**p == 4 && **d < 4))?;
    Some(format!("argument {} of {p} bytes where the kernel declares {d}", i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PTX module's mangled entry (a kernel built without `extern "C"`) is named with its C++
    /// name and the fix; a plain one is not.
    #[test]
    fn a_mangled_ptx_entry_is_named_with_the_wrapper_fix() {
        let ptx = ".version 9.0\n.target sm_80\n.visible .entry _Z8relu_f16Pfi(\n\t.param .u64 p0\n)\n{\n\tret;\n}\n\
                   .visible .entry plain(\n\t.param .u64 p0\n)\n{\n\tret;\n}\n";
        let notes = mangled_entries(&KernelSource::of_text("relu.ptx", "gpu/relu.ptx", ptx));
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("gpu/relu.ptx: `_Z8relu_f16Pfi` is the mangled C++ name of `relu_f16`"),
            "{notes:?}"
        );
        assert!(notes[0].contains("`extern \"C\" __global__` wrapper"), "{notes:?}");
    }
}
