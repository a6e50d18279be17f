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
    /// Which arguments are a `float` by value, in order ([`crate::case::Arg::is_float`]); empty
    /// when not known (facts written by an older kernelgate).
    pub floats: Vec<bool>,
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
                let floats = args.iter().map(|a| a.is_float(&c.params)).collect();
                out.push(Arity { kernel: *kernel, args: args.len(), sizes, floats, trial: c.name() });
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
/// covers that). A 4-byte integer for a parameter of 1 or 2 bytes (`bool`, `char`, `short`, a
/// `__half` given as its bits) agrees: the driver copies the declared bytes, the low ones on every
/// CUDA platform (little-endian). A `float` (`floats`: which arguments are one, empty when not
/// known) does not: its low bytes are mantissa bits, never the value; a `__half` or
/// `__nv_bfloat16` parameter takes [`crate::case::Param::F16`] or [`crate::case::Param::BF16`].
/// Pure.
///
/// # Example
/// ```
/// use kernelgate::resources::size_mismatch;
/// assert_eq!(size_mismatch(&[8, 8, 4], &[], &[8, 8, 4]), None);
/// assert_eq!(size_mismatch(&[8, 4], &[], &[8, 8]).unwrap(), "argument 2 of 4 bytes where the kernel declares 8");
/// assert_eq!(size_mismatch(&[4], &[false], &[2]), None, "an int's low bytes");
/// let float = size_mismatch(&[8, 4], &[false, true], &[8, 2]).unwrap();
/// assert!(float.starts_with("argument 2, a float of 4 bytes, where the kernel declares 2"), "{float}");
/// ```
pub fn size_mismatch(passed: &[u32], floats: &[bool], declared: &[u32]) -> Option<String> {
    if passed.len() != declared.len() {
        return None;
    }
    let float = |i: usize| floats.get(i).copied().unwrap_or(false);
    let (i, (p, d)) =
        passed.iter().zip(declared).enumerate().find(|(i, (p, d))| p != d && !(**p == 4 && **d < 4 && !float(*i)))?;
    if float(i) && *d == 2 {
        return Some(format!(
            "argument {}, a float of 4 bytes, where the kernel declares 2 (a `__half` or `__nv_bfloat16`: the kernel \
             would read the low two bytes of the float's bits, not its value; pass \
             Param::F16(kernelgate::case::elem::f16::from_f32(x)) or Param::BF16(kernelgate::case::elem::bf16::from_f32(x)))",
            i + 1
        ));
    }
    if float(i) {
        return Some(format!("argument {}, a float of 4 bytes, where the kernel declares {d}", i + 1));
    }
    Some(format!("argument {} of {p} bytes where the kernel declares {d}", i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A launch's arguments record their sizes and which are floats, whether given as a slot's
    /// Param or as an Arg; a float for a 2-byte parameter is refused with the fix, an int is not.
    #[test]
    fn a_float_for_a_half_parameter_is_refused_with_the_fix() {
        use crate::case::{Arg, Param};
        let kernel = Kernel::new("act.ptx", "uelu_bf16");
        let case = Case::new("act", "elu", "1", kernel).params([
            Param::input(4).of(crate::case::Elem::BF16),
            Param::output(4).of(crate::case::Elem::BF16),
            Param::F32(1.0),
            Param::BF16(half::bf16::from_f32(1.0)),
            Param::F64(1.0),
        ]);
        let a = &arities(std::slice::from_ref(&case))[0];
        assert_eq!(
            (a.sizes.as_slice(), a.floats.as_slice()),
            (&[8, 8, 4, 2, 8][..], &[false, false, true, false, false][..])
        );
        let declared = [8, 8, 2, 2, 8];
        let wrong = size_mismatch(&a.sizes, &a.floats, &declared).unwrap();
        assert!(
            wrong.starts_with("argument 3, a float of 4 bytes, where the kernel declares 2")
                && wrong.contains("Param::BF16"),
            "{wrong}"
        );
        let mut right = a.clone();
        right.sizes[2] = Arg::BF16(half::bf16::from_f32(1.0)).bytes(&case.params);
        right.floats[2] = false;
        assert_eq!(size_mismatch(&right.sizes, &right.floats, &declared), None);
        assert_eq!(size_mismatch(&[8, 8, 4, 2, 8], &[false; 5], &declared), None, "an int's low bytes, as before");
    }

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
