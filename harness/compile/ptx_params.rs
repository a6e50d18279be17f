//! The parameters a kernel entry declares in its module, and whether the arguments a launch passes
//! fit them: each argument's size and, as far as PTX tells them apart, its kind (integer, floating
//! point). The count is checked before, where the compile trial names the file
//! ([`crate::resources::check_compiled`]). Pure: the compile trials run it on the PTX NVRTC made,
//! without a GPU, and a GPU trial on the PTX it is about to load ([`crate::program::compile`]), so
//! a `Param::F32(1.0)` for an `int n` fails with one sentence instead of a wrong result (the kernel
//! would read the float's bits, 1065353216, as `n`).
//!
//! What PTX tells (PTX ISA, "Kernel Function Parameters" and "Fundamental Types"; what NVRTC 13.5
//! declares for each C++ type is in `harness/tests/fixtures/ptx/params.cu` and the PTX made of it):
//! - `.u32`, `.s32`: a 32-bit integer (`int` and `unsigned` alike: NVRTC writes `.u32` for both);
//!   `.u8` (`bool`, `char`), `.u16` (`short`); `.u64`, `.s64`: a 64-bit integer, and every pointer
//!   (NVRTC declares `float*` and `size_t` alike, `.u64`; nvcc's `.ptr` attribute is not trusted
//!   either: a raw address or a null pointer passed as a 64-bit integer is still a pointer);
//! - `.f32`, `.f64` (and `.f16`): `float`, `double`;
//! - `.b8` ... `.b64` scalars: untyped bits ("bit-size types are compatible with any fundamental
//!   type of the same size"): the size alone;
//! - `.align A .b8 name[N]`: N bytes by value: a struct, a vector type (`float2`), a `__half` or
//!   `__nv_bfloat16` (`.align 2 .b8 [2]`): the size alone.
//!
//! A cubin or fatbin records each parameter's size and no type ([`crate::cubin::CubinEntry`]): its
//! parameters are [`ParamType::Size`], checked for size alone; a GPU trial, which has no PTX for
//! it, checks nothing of it.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A kernel parameter's type, as far as its module tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    /// `.u8` ... `.u64`, `.s8` ... `.s64`: an integer of this many bytes; at 8 bytes, a pointer too.
    Int(u32),
    /// `.f16`, `.f32`, `.f64`: floating point of this many bytes.
    Float(u32),
    /// `.b8` ... `.b64` as a scalar: this many bytes of any type.
    Bits(u32),
    /// `.align A .b8 name[N]` (or an array of another type): `bytes` by value, aligned to `align`
    /// bytes: a struct, a vector type, a `__half` or `__nv_bfloat16`.
    Bytes {
        /// The parameter's size, bytes.
        bytes: u32,
        /// Its alignment, bytes.
        align: u32,
    },
    /// From a cubin: this many bytes, of a type the image does not record.
    Size(u32),
}

impl ParamType {
    /// The parameter's size in bytes.
    pub fn bytes(self) -> u32 {
        match self {
            ParamType::Int(n) | ParamType::Float(n) | ParamType::Bits(n) | ParamType::Size(n) => n,
            ParamType::Bytes { bytes, .. } => bytes,
        }
    }

    /// What the type holds, as a phrase of a message: `a 32-bit integer (int, unsigned)`.
    fn meaning(self) -> String {
        match self {
            ParamType::Int(1) => "an 8-bit integer (bool, char)".into(),
            ParamType::Int(2) => "a 16-bit integer (short)".into(),
            ParamType::Int(4) => "a 32-bit integer (int, unsigned)".into(),
            ParamType::Int(8) => "a 64-bit integer or a pointer (NVRTC declares both .u64)".into(),
            ParamType::Float(2) => "a 16-bit float".into(),
            ParamType::Float(4) => "a float".into(),
            ParamType::Float(8) => "a double".into(),
            ParamType::Int(n) => format!("an integer of {n} bytes"),
            ParamType::Float(n) => format!("a floating-point number of {n} bytes"),
            ParamType::Bits(n) => format!("{} untyped bits", 8 * n),
            ParamType::Bytes { bytes: 2, align: 2 } => {
                "2 bytes by value (a __half or __nv_bfloat16, which NVRTC declares so, or a struct)".into()
            }
            ParamType::Bytes { bytes, .. } => {
                format!("{bytes} bytes by value (a struct, or a vector type such as float2)")
            }
            ParamType::Size(n) => format!("{n} bytes"),
        }
    }

    /// What to pass for a parameter of this type, as the end of a message: `pass Param::I32`.
    fn fix(self) -> String {
        match self {
            ParamType::Int(n @ (1 | 2)) => format!("pass Param::I32: the kernel reads its low {n} byte(s)"),
            ParamType::Int(4) => "pass Param::I32 (an unsigned int as its bits: Param::I32(x as i32))".into(),
            ParamType::Int(8) => {
                "pass a buffer Param for a pointer, or Param::U64 for a size_t, long long or unsigned long long".into()
            }
            ParamType::Float(2) => format!("pass {HALF} or {BFLOAT}"),
            ParamType::Float(4) => "pass Param::F32".into(),
            ParamType::Float(8) => "pass Param::F64".into(),
            other => match other.bytes() {
                1 => "pass Param::I32: the kernel reads its low byte".into(),
                2 => format!(
                    "pass {HALF} for a __half, {BFLOAT} for a __nv_bfloat16, or Param::I32 for a 2-byte integer (its \
                     low bytes)"
                ),
                4 => "pass a 4-byte Param: Param::I32 or Param::F32, as the kernel's signature declares it".into(),
                8 => "pass an 8-byte argument: a buffer Param for a pointer, Param::U64 or Param::F64, as the \
                      kernel's signature declares it"
                    .into(),
                n => format!(
                    "no Param passes {n} bytes by value: take the struct by pointer (a buffer Param), or its fields as \
                     parameters of their own"
                ),
            },
        }
    }
}

/// How a `__half` is passed, in a fix.
const HALF: &str = "Param::F16(kernelgate::case::elem::f16::from_f32(x))";
/// How a `__nv_bfloat16` is passed, in a fix.
const BFLOAT: &str = "Param::BF16(kernelgate::case::elem::bf16::from_f32(x))";

/// One parameter of a kernel entry as its module declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PtxParam {
    /// Its name in the PTX (`saxpy_param_2`: NVRTC counts from 0); empty for a cubin's.
    pub name: String,
    /// Its declaration less `.param` and the name (`.u32`, `.u64 .ptr .align 1`, `.align 2 .b8
    /// [2]`); empty for a cubin's.
    pub declared: String,
    /// Its type.
    pub ty: ParamType,
}

impl PtxParam {
    /// The parameter a declaration declares ([`crate::kernel_file::PtxEntry::declarations`]:
    /// `.u32 k_param_2`, `.align 2 .b8 k_param_8[2]`); `None` when no type of 8 to 64 bits is
    /// given. Pure.
    ///
    /// # Example
    /// ```
    /// use kernelgate::compile::{ParamType, PtxParam};
    /// let p = PtxParam::parse(".align 2 .b8 scalars_param_8[2]").unwrap();
    /// assert_eq!((p.name.as_str(), p.declared.as_str()), ("scalars_param_8", ".align 2 .b8 [2]"));
    /// assert_eq!(p.ty, ParamType::Bytes { bytes: 2, align: 2 });
    /// assert_eq!(PtxParam::parse(".u64 .ptr .align 1 k_param_0").unwrap().ty, ParamType::Int(8));
    /// ```
    pub fn parse(declaration: &str) -> Option<PtxParam> {
        let words: Vec<&str> = declaration.split_whitespace().filter(|w| *w != ".param").collect();
        let (last, qualifiers) = words.split_last()?;
        let (name, count) = match last.split_once('[') {
            Some((name, n)) => (name, Some(n.trim_end_matches(']').trim().parse::<u32>().ok()?)),
            None => (*last, None),
        };
        let (kind, bytes) = qualifiers.iter().find_map(|w| {
            let kind = w.chars().nth(1).filter(|k| matches!(k, 'u' | 's' | 'b' | 'f'))?;
            let bits: u32 = w.get(2..)?.parse().ok().filter(|b| matches!(b, 8 | 16 | 32 | 64))?;
            Some((kind, bits / 8))
        })?;
        let align = qualifiers.iter().position(|w| *w == ".align").and_then(|i| qualifiers.get(i + 1)?.parse().ok());
        let ty = match (count, kind) {
            (Some(n), _) => ParamType::Bytes { bytes: bytes * n, align: align.unwrap_or(bytes) },
            (None, 'u' | 's') => ParamType::Int(bytes),
            (None, 'f') => ParamType::Float(bytes),
            (None, _) => ParamType::Bits(bytes),
        };
        let mut declared = qualifiers.join(" ");
        if let Some(n) = count {
            declared.push_str(&format!(" [{n}]"));
        }
        Some(PtxParam { name: name.to_string(), declared, ty })
    }

    /// The parameters of the PTX entry `entry`, in order; `None` when one of its declarations does
    /// not read ([`PtxParam::parse`]): nothing is then checked of it but its count, rather than
    /// risk a false error. Pure.
    pub fn of_entry(entry: &crate::kernel_file::PtxEntry) -> Option<Vec<PtxParam>> {
        entry.declarations.iter().map(|d| PtxParam::parse(d)).collect()
    }

    /// A cubin's parameter of `bytes` bytes ([`ParamType::Size`]).
    pub fn sized(bytes: u32) -> PtxParam {
        PtxParam { name: String::new(), declared: String::new(), ty: ParamType::Size(bytes) }
    }
}

/// The parameters of each `.entry` of the PTX module `ptx`, by the entry's name as the PTX gives it
/// (a template instance's lowered name, [`super::Lowered::lowered`]); an entry with a declaration
/// [`PtxParam::parse`] cannot read is left out (nothing is checked of it, rather than a false
/// error). Comments are skipped ([`crate::kernel_file::ptx_entries`]). Pure.
pub fn entry_params(ptx: &str) -> BTreeMap<String, Vec<PtxParam>> {
    crate::kernel_file::ptx_entries(ptx)
        .into_iter()
        .filter_map(|e| Some((PtxParam::of_entry(&e)?, e.name)))
        .map(|(params, name)| (name, params))
        .collect()
}

/// What kind of value an argument passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PassedKind {
    /// A device buffer's address (8 bytes).
    Pointer,
    /// An `int` (4 bytes).
    I32,
    /// A `float` (4 bytes).
    F32,
    /// An `unsigned long long` (8 bytes).
    U64,
    /// A `__half` (2 bytes).
    F16,
    /// A `__nv_bfloat16` (2 bytes).
    BF16,
    /// A `double` (8 bytes).
    F64,
}

impl PassedKind {
    /// The bytes it passes.
    pub fn bytes(self) -> u32 {
        match self {
            PassedKind::Pointer | PassedKind::U64 | PassedKind::F64 => 8,
            PassedKind::I32 | PassedKind::F32 => 4,
            PassedKind::F16 | PassedKind::BF16 => 2,
        }
    }

    /// Whether it is a floating-point value.
    pub fn is_float(self) -> bool {
        matches!(self, PassedKind::F32 | PassedKind::F64 | PassedKind::F16 | PassedKind::BF16)
    }

    /// What it is, as a phrase of a message.
    fn meaning(self) -> &'static str {
        match self {
            PassedKind::Pointer => "a pointer (8 bytes)",
            PassedKind::I32 => "a 32-bit integer",
            PassedKind::F32 => "a float (4 bytes)",
            PassedKind::U64 => "a 64-bit integer",
            PassedKind::F16 => "a __half (2 bytes)",
            PassedKind::BF16 => "a __nv_bfloat16 (2 bytes)",
            PassedKind::F64 => "a double (8 bytes)",
        }
    }
}

/// One argument of a launch, as the check compares it with its parameter
/// ([`crate::resources::passed`] makes them of a case's launch).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Passed {
    /// What it passes.
    pub kind: PassedKind,
    /// How the case gives it: `Param::F32(1.0)`, `Arg::I32(4)`, `Param::In (a buffer of f32)`.
    pub shown: String,
}

/// The first argument that does not fit its parameter ([`mismatch`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The parameter's position, from 0.
    pub index: usize,
    /// The parameter.
    pub param: PtxParam,
    /// The argument passed for it.
    pub passed: Passed,
}

/// The first of `passed` that does not fit its parameter in `declared`; `None` when each fits, or
/// the lists are of other lengths (the count is checked apart, naming the file). An argument fits
/// a parameter of its size whose type does not say otherwise: an integer for `.u32`/`.s32`, a
/// pointer or a 64-bit integer for `.u64` (which PTX does not tell apart), a floating-point value
/// of its width for `.f32`/`.f64`/`.f16`, anything of its size for untyped bits, a struct or a
/// cubin's parameter. A 32-bit integer also fits a parameter of 1 or 2 bytes that is not floating
/// point (`bool`, `char`, `short`, a `__half` given as its bits): the driver copies the declared
/// bytes, the low ones on every CUDA platform (little-endian). A float never fits a smaller
/// parameter: its low bytes are mantissa bits. Pure.
///
/// # Example
/// ```
/// use kernelgate::compile::{Passed, PassedKind, PtxParam, mismatch};
/// let params = [".u64 saxpy_param_0", ".f32 saxpy_param_1", ".u32 saxpy_param_2"]
///     .map(|d| PtxParam::parse(d).unwrap());
/// let arg = |kind, shown: &str| Passed { kind, shown: shown.into() };
/// let right = [
///     arg(PassedKind::Pointer, "Param::InOut (a buffer of f32)"),
///     arg(PassedKind::F32, "Param::F32(2.0)"),
///     arg(PassedKind::I32, "Param::I32(1024)"),
/// ];
/// assert_eq!(mismatch(&params, &right), None);
/// let mut wrong = right.clone();
/// wrong[2] = arg(PassedKind::F32, "Param::F32(1024.0)");
/// let found = mismatch(&params, &wrong).unwrap();
/// assert!(found.message("fam/saxpy/1", "saxpy").starts_with(
///     "case fam/saxpy/1: kernel saxpy's 3rd parameter (saxpy_param_2) is .u32 in the PTX, a 32-bit integer (int, \
///      unsigned), but the case passes Param::F32(1024.0), a float (4 bytes)"));
/// ```
pub fn mismatch(declared: &[PtxParam], passed: &[Passed]) -> Option<Mismatch> {
    if declared.len() != passed.len() {
        return None;
    }
    let (index, (param, passed)) = declared.iter().zip(passed).enumerate().find(|(_, (d, p))| !fits(d.ty, p.kind))?;
    Some(Mismatch { index, param: param.clone(), passed: passed.clone() })
}

/// Whether an argument of kind `kind` fits a parameter of type `ty` ([`mismatch`]'s rules).
fn fits(ty: ParamType, kind: PassedKind) -> bool {
    let n = ty.bytes();
    match ty {
        ParamType::Int(_) => match kind {
            PassedKind::I32 => n <= 4,
            PassedKind::U64 | PassedKind::Pointer => n == 8,
            PassedKind::F32 | PassedKind::F64 | PassedKind::F16 | PassedKind::BF16 => false,
        },
        ParamType::Float(_) => kind.is_float() && kind.bytes() == n,
        ParamType::Bits(_) | ParamType::Bytes { .. } | ParamType::Size(_) => {
            kind.bytes() == n || (kind == PassedKind::I32 && n < 4)
        }
    }
}

impl Mismatch {
    /// The sentence that fails the case `trial` (`family/kernel/size`) whose launch of `kernel`
    /// ([`crate::Kernel::name`]) passes this argument: the case, the kernel, the parameter's
    /// position (counted from 1) and PTX name, its type, what was passed, what the kernel would
    /// read, and the fix (`Param::` or `Arg::`, as the case gave the argument).
    pub fn message(&self, trial: &str, kernel: &str) -> String {
        let (ty, kind) = (self.param.ty, self.passed.kind);
        let nth = ordinal(self.index + 1);
        let name = if self.param.name.is_empty() { String::new() } else { format!(" ({})", self.param.name) };
        let declared = match ty {
            ParamType::Size(n) => format!("{n} bytes in the cubin (which records no types)"),
            _ => format!("{} in the PTX, {}", self.param.declared, ty.meaning()),
        };
        let read = match ty {
            ParamType::Float(_) if !kind.is_float() => "; the kernel would read its bits as a floating-point number",
            _ if kind.is_float() && ty.bytes() < kind.bytes() => {
                "; the kernel would read the low bytes of its bits, never its value"
            }
            ParamType::Int(_) if kind.is_float() => "; the kernel would read its bits as an integer, never its value",
            _ => "",
        };
        let mut fix = ty.fix();
        if self.passed.shown.starts_with("Arg::") {
            fix = fix.replace("Param::", "Arg::");
        }
        format!(
            "case {trial}: kernel {kernel}'s {nth} parameter{name} is {declared}, but the case passes {}, {}{read}: {fix}",
            self.passed.shown,
            kind.meaning()
        )
    }
}

/// `n` as an English ordinal: `1st`, `2nd`, `3rd`, `4th`, `11th`, `22nd`.
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `harness/tests/fixtures/ptx/params.cu` as NVRTC 13.5.37 compiles it for sm_90.
    fn fixture() -> String {
        std::fs::read_to_string(crate::source::fixture_path("ptx/params-nvrtc13.5-sm_90.ptx")).unwrap()
    }

    fn arg(kind: PassedKind, shown: &str) -> Passed {
        Passed { kind, shown: shown.into() }
    }

    /// What NVRTC declares for each C++ type a case passes, read from its PTX.
    #[test]
    fn nvrtcs_parameters_are_read_with_their_types() {
        let params = entry_params(&fixture());
        let types = |entry: &str| params[entry].iter().map(|p| p.ty).collect::<Vec<_>>();
        use ParamType::{Bytes, Float, Int};
        // const float*, float*, int, unsigned, float, double, size_t, long long, __half,
        // __nv_bfloat16, bool, char, short.
        assert_eq!(
            types("scalars"),
            [
                Int(8),
                Int(8),
                Int(4),
                Int(4),
                Float(4),
                Float(8),
                Int(8),
                Int(8),
                Bytes { bytes: 2, align: 2 },
                Bytes { bytes: 2, align: 2 },
                Int(1),
                Int(1),
                Int(2)
            ]
        );
        // A struct {float; int}, float2, __half2, a __grid_constant__ struct.
        assert_eq!(
            types("by_value"),
            [
                Bytes { bytes: 8, align: 4 },
                Bytes { bytes: 8, align: 8 },
                Bytes { bytes: 4, align: 4 },
                Bytes { bytes: 8, align: 4 }
            ]
        );
        // A template instance, by its lowered name.
        assert_eq!(types("_Z5scaleILi4EEvPfif"), [Int(8), Int(4), Float(4)]);
        let n = &params["scalars"][2];
        assert_eq!((n.name.as_str(), n.declared.as_str()), ("scalars_param_2", ".u32"));
        assert_eq!(params["scalars"][8].declared, ".align 2 .b8 [2]");
        assert_eq!(params.len(), 3, "{params:?}");
    }

    /// nvcc's `.ptr` attribute, untyped bits and an unreadable declaration (the entry is then left
    /// out, never checked).
    #[test]
    fn other_declarations_are_read_or_their_entry_left_out() {
        let p = PtxParam::parse(".u64 .ptr .align 1 row_max_param_0").unwrap();
        assert_eq!((p.ty, p.declared.as_str()), (ParamType::Int(8), ".u64 .ptr .align 1"));
        assert_eq!(PtxParam::parse(".param .b32 k_param_0").unwrap().ty, ParamType::Bits(4));
        assert_eq!(PtxParam::parse(".f16 h").unwrap().ty, ParamType::Float(2));
        assert_eq!(PtxParam::parse(".align 4 .u32 a[3]").unwrap().ty, ParamType::Bytes { bytes: 12, align: 4 });
        assert_eq!(PtxParam::parse(".u32"), None, "no name");
        assert_eq!(PtxParam::parse(".pred p"), None);
        let ptx = ".version 9.0\n.target sm_90\n.visible .entry odd(\n\t.param .pred p\n)\n{\n}\n\
                   .visible .entry fine(\n\t.param .b64 q\n)\n{\n}\n";
        assert_eq!(entry_params(ptx).keys().collect::<Vec<_>>(), ["fine"]);
    }

    /// Each scalar a case can pass against each NVRTC type: what fits and what does not.
    #[test]
    fn each_argument_fits_the_parameters_ptx_cannot_tell_it_from() {
        use PassedKind::*;
        let params = &entry_params(&fixture())["scalars"];
        // (parameter, the kinds that fit it) for pointer, int, unsigned, float, double, size_t,
        // __half, bool, short.
        let table: [(usize, &[PassedKind]); 9] = [
            (0, &[Pointer, U64]),
            (2, &[I32]),
            (3, &[I32]),
            (4, &[F32]),
            (5, &[F64]),
            (6, &[Pointer, U64]),
            (8, &[I32, F16, BF16]),
            (10, &[I32]),
            (12, &[I32]),
        ];
        for (index, fitting) in table {
            for kind in [Pointer, I32, F32, U64, F16, BF16, F64] {
                assert_eq!(
                    fits(params[index].ty, kind),
                    fitting.contains(&kind),
                    "{kind:?} for {}",
                    params[index].declared
                );
            }
        }
        // Untyped bits and a cubin's parameter: the size alone, a 4-byte integer for fewer bytes.
        assert!(fits(ParamType::Bits(4), F32) && fits(ParamType::Bits(4), I32) && !fits(ParamType::Bits(4), U64));
        assert!(fits(ParamType::Size(8), Pointer) && fits(ParamType::Size(1), I32) && !fits(ParamType::Size(2), F32));
    }

    /// The brief's example: a float for `int n` names the case, kernel, parameter, what was
    /// passed and the fix; an `Arg` gets an `Arg` fix; a count that differs is not this check's.
    #[test]
    fn a_float_for_an_int_is_named_with_the_fix() {
        let params = &entry_params(&fixture())["_Z5scaleILi4EEvPfif"];
        let right = [arg(PassedKind::Pointer, "Param::InOut (a buffer of f32)"), arg(PassedKind::I32, "Param::I32(4)")];
        let mut passed = right.to_vec();
        passed.push(arg(PassedKind::F32, "Param::F32(2.0)"));
        assert_eq!(mismatch(params, &passed), None);
        passed[1] = arg(PassedKind::F32, "Param::F32(1.0)");
        let found = mismatch(params, &passed).unwrap();
        assert_eq!(found.index, 1);
        assert_eq!(
            found.message("fam/k/1", "scale<4>"),
            "case fam/k/1: kernel scale<4>'s 2nd parameter (_Z5scaleILi4EEvPfif_param_1) is .u32 in the PTX, a \
             32-bit integer (int, unsigned), but the case passes Param::F32(1.0), a float (4 bytes); the kernel would \
             read its bits as an integer, never its value: pass Param::I32 (an unsigned int as its bits: \
             Param::I32(x as i32))"
        );
        passed[1] = arg(PassedKind::F32, "Arg::F32(1.0)");
        let message = mismatch(params, &passed).unwrap().message("fam/k/1", "scale<4>");
        assert!(message.ends_with(": pass Arg::I32 (an unsigned int as its bits: Arg::I32(x as i32))"), "{message}");
        assert_eq!(mismatch(params, &right), None, "two of three: the count check's");
    }

    /// A pointer for a scalar and a scalar for a pointer, as far as the sizes tell them; an int for
    /// a float; a float for a `__half`; a double for a `size_t` or pointer.
    #[test]
    fn pointers_scalars_and_widths_that_differ_are_named() {
        let params = &entry_params(&fixture())["scalars"];
        let only = |index: usize, passed: Passed| {
            let mut all: Vec<Passed> = params
                .iter()
                .map(|p| match p.ty {
                    ParamType::Int(8) => arg(PassedKind::U64, "Param::U64(1)"),
                    ParamType::Float(4) => arg(PassedKind::F32, "Param::F32(1.0)"),
                    ParamType::Float(8) => arg(PassedKind::F64, "Param::F64(1.0)"),
                    ParamType::Bytes { .. } => arg(PassedKind::F16, "Param::F16(1.0)"),
                    _ => arg(PassedKind::I32, "Param::I32(1)"),
                })
                .collect();
            assert_eq!(mismatch(params, &all), None);
            all[index] = passed;
            let found = mismatch(params, &all).unwrap();
            assert_eq!(found.index, index);
            found.message("t/k/1", "scalars")
        };
        let m = only(2, arg(PassedKind::Pointer, "Param::In (a buffer of f32)"));
        assert!(
            m.contains("3rd parameter (scalars_param_2) is .u32 in the PTX")
                && m.ends_with("pass Param::I32 (an unsigned int as its bits: Param::I32(x as i32))"),
            "{m}"
        );
        assert!(m.contains("but the case passes Param::In (a buffer of f32), a pointer (8 bytes): "), "{m}");
        let m = only(0, arg(PassedKind::I32, "Param::I32(7)"));
        assert!(
            m.contains("is .u64 in the PTX, a 64-bit integer or a pointer")
                && m.ends_with(
                    "pass a buffer Param for a pointer, or Param::U64 for a size_t, long long or unsigned long long"
                ),
            "{m}"
        );
        let m = only(4, arg(PassedKind::I32, "Param::I32(2)"));
        assert!(m.contains("; the kernel would read its bits as a floating-point number: pass Param::F32"), "{m}");
        let m = only(8, arg(PassedKind::F32, "Param::F32(0.5)"));
        assert!(
            m.contains("the low bytes of its bits, never its value")
                && m.contains("Param::F16(kernelgate::case::elem::f16::from_f32(x))"),
            "{m}"
        );
        let m = only(6, arg(PassedKind::F64, "Param::F64(3.0)"));
        assert!(m.contains("is .u64 in the PTX") && m.contains("its bits as an integer"), "{m}");
        let m = only(12, arg(PassedKind::F16, "Param::F16(1.0)"));
        assert!(
            m.contains("is .u16 in the PTX, a 16-bit integer (short)")
                && m.ends_with("pass Param::I32: the kernel reads its low 2 byte(s)"),
            "{m}"
        );
    }

    /// A cubin's parameters have sizes alone: the message says so, without a PTX name.
    #[test]
    fn a_cubins_parameter_is_named_by_its_size() {
        let params = [PtxParam::sized(8), PtxParam::sized(4)];
        let passed = [arg(PassedKind::Pointer, "Param::In (a buffer of f32)"), arg(PassedKind::U64, "Param::U64(3)")];
        let m = mismatch(&params, &passed).unwrap().message("axpy/a/1", "axpy");
        assert_eq!(
            m,
            "case axpy/a/1: kernel axpy's 2nd parameter is 4 bytes in the cubin (which records no types), but the \
             case passes Param::U64(3), a 64-bit integer: pass a 4-byte Param: Param::I32 or Param::F32, as the \
             kernel's signature declares it"
        );
    }

    #[test]
    fn ordinals() {
        let got: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111].map(ordinal).to_vec();
        assert_eq!(got, ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th"]);
    }
}
