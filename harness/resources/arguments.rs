//! What the compile trials check of the kernels' arguments, without a GPU: every launch's
//! arguments against the entry's parameters in the PTX (count, size and kind:
//! [`crate::compile::mismatch`]), and the mangled names of a prebuilt PTX module's entries.

use crate::case::{Arg, Param};
use crate::compile::{Passed, PassedKind};
use crate::{case::Case, compile, source::Kernel, source::KernelSource};

/// The arguments one launch of a case passes to its kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arity {
    /// The entry point launched.
    pub kernel: Kernel,
    /// Arguments passed.
    pub args: usize,
    /// What each argument passes, in order ([`passed`]); empty when not known (facts written by an
    /// older kernelgate: then only the count is checked).
    pub passed: Vec<Passed>,
    /// The case's trial name.
    pub trial: String,
}

/// The [`Arity`] of every launch of `cases`.
pub fn arities(cases: &[Case]) -> Vec<Arity> {
    let mut out = Vec::new();
    for c in cases {
        for step in &c.steps {
            if let crate::case::Step::Launch { kernel, args, .. } = step {
                out.push(Arity { kernel: *kernel, args: args.len(), passed: passed(args, &c.params), trial: c.name() });
            }
        }
    }
    out
}

/// What each of `args` passes, with the case's parameters `params` they may name, as the check
/// against the kernel's parameters compares it ([`compile::mismatch`]): a device buffer (a slot's,
/// or [`Arg::At`] into one) a pointer, a scalar its type; each shown as the case gives it
/// (`Param::F32(1.0)`, `Arg::I32(4)`, `Param::In (a buffer of f32)`). A slot out of range counts
/// as a pointer (the case's own check names it). Pure.
///
/// # Example
/// ```
/// use kernelgate::case::{Arg, Param};
/// use kernelgate::compile::PassedKind;
/// let params = [Param::input(8), Param::F32(1.0)];
/// let passed = kernelgate::resources::passed(&[Arg::Slot(0), Arg::Slot(1), Arg::I32(3)], &params);
/// let shown: Vec<_> = passed.iter().map(|p| (p.kind, p.shown.as_str())).collect();
/// assert_eq!(
///     shown,
///     [
///         (PassedKind::Pointer, "Param::In (a buffer of f32)"),
///         (PassedKind::F32, "Param::F32(1.0)"),
///         (PassedKind::I32, "Arg::I32(3)"),
///     ]
/// );
/// ```
pub fn passed(args: &[Arg], params: &[Param]) -> Vec<Passed> {
    let value = |kind, shown: String| Passed { kind, shown };
    args.iter()
        .map(|arg| match *arg {
            Arg::Slot(slot) => match params.get(slot) {
                Some(Param::I32(v)) => value(PassedKind::I32, format!("Param::I32({v})")),
                Some(Param::F32(v)) => value(PassedKind::F32, format!("Param::F32({v:?})")),
                Some(Param::U64(v)) => value(PassedKind::U64, format!("Param::U64({v})")),
                Some(Param::F16(v)) => value(PassedKind::F16, format!("Param::F16({v:?})")),
                Some(Param::BF16(v)) => value(PassedKind::BF16, format!("Param::BF16({v:?})")),
                Some(Param::F64(v)) => value(PassedKind::F64, format!("Param::F64({v:?})")),
                Some(buffer) => {
                    let variant = match buffer {
                        Param::In { .. } => "In",
                        Param::Out { .. } => "Out",
                        Param::InOut { .. } => "InOut",
                        Param::Zeroed { .. } => "Zeroed",
                        Param::Scratch { .. } => "Scratch",
                        _ => "Host",
                    };
                    let elem = buffer.elem().map_or("?", |e| e.name());
                    value(PassedKind::Pointer, format!("Param::{variant} (a buffer of {elem})"))
                }
                None => value(PassedKind::Pointer, format!("Arg::Slot({slot})")),
            },
            Arg::At { slot, offset } => {
                value(PassedKind::Pointer, format!("Arg::At {{ slot: {slot}, offset: {offset} }} (a buffer's address)"))
            }
            Arg::I32(v) => value(PassedKind::I32, format!("Arg::I32({v})")),
            Arg::F32(v) => value(PassedKind::F32, format!("Arg::F32({v:?})")),
            Arg::U64(v) => value(PassedKind::U64, format!("Arg::U64({v})")),
            Arg::F16(v) => value(PassedKind::F16, format!("Arg::F16({v:?})")),
            Arg::BF16(v) => value(PassedKind::BF16, format!("Arg::BF16({v:?})")),
            Arg::F64(v) => value(PassedKind::F64, format!("Arg::F64({v:?})")),
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A launch's arguments record what each passes, whether given as a slot's Param or as an
    /// Arg; a float for a 2-byte parameter is refused with the fix, a `__nv_bfloat16` or an int
    /// (its low bytes) is not.
    #[test]
    fn a_float_for_a_half_parameter_is_refused_with_the_fix() {
        let kernel = Kernel::new("act.ptx", "uelu_bf16");
        let case = Case::new("act", "elu", "1", kernel).params([
            Param::input(4).of(crate::case::Elem::BF16),
            Param::output(4).of(crate::case::Elem::BF16),
            Param::F32(1.0),
            Param::BF16(half::bf16::from_f32(1.0)),
            Param::F64(1.0),
        ]);
        let a = &arities(std::slice::from_ref(&case))[0];
        let kinds: Vec<PassedKind> = a.passed.iter().map(|p| p.kind).collect();
        use PassedKind::{BF16, F32, F64, Pointer};
        assert_eq!((a.args, kinds.as_slice()), (5, &[Pointer, Pointer, F32, BF16, F64][..]));
        assert_eq!(a.passed[0].shown, "Param::In (a buffer of bf16)");
        assert_eq!((a.passed[2].shown.as_str(), a.passed[3].shown.as_str()), ("Param::F32(1.0)", "Param::BF16(1.0)"));
        // NVRTC declares a __nv_bfloat16 as 2 bytes by value.
        let declared: Vec<compile::PtxParam> =
            [".u64 p0", ".u64 p1", ".align 2 .b8 p2[2]", ".align 2 .b8 p3[2]", ".f64 p4"]
                .map(|d| compile::PtxParam::parse(d).unwrap())
                .to_vec();
        let wrong = compile::mismatch(&declared, &a.passed).unwrap().message(&a.trial, kernel.name());
        assert!(
            wrong.starts_with(
                "case act/elu/1: kernel uelu_bf16's 3rd parameter (p2) is .align 2 .b8 [2] in the PTX, 2 bytes by value"
            ) && wrong.contains("the low bytes of its bits, never its value")
                && wrong.contains("Param::BF16(kernelgate::case::elem::bf16::from_f32(x))"),
            "{wrong}"
        );
        let mut right = a.passed.clone();
        right[2] = passed(&[Arg::BF16(half::bf16::from_f32(1.0))], &case.params).remove(0);
        assert_eq!(right[2].shown, "Arg::BF16(1.0)");
        assert_eq!(compile::mismatch(&declared, &right), None);
        right[2] = passed(&[Arg::I32(0x3f80)], &case.params).remove(0);
        assert_eq!(compile::mismatch(&declared, &right), None, "an int's low bytes, as before");
        // A buffer at an offset, and a slot the case does not have, are pointers.
        let at = passed(&[Arg::At { slot: 1, offset: 4 }, Arg::Slot(9)], &case.params);
        assert_eq!(at.iter().map(|p| p.kind).collect::<Vec<_>>(), [Pointer, Pointer]);
        assert_eq!(at[0].shown, "Arg::At { slot: 1, offset: 4 } (a buffer's address)");
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
