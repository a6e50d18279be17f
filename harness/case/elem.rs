//! The element types a case's buffers hold ([`Elem`]): the formats kernels are written for in
//! CUDA C++ (`__half`, `__nv_bfloat16`, `float`, `double`, 8-, 32- and 64-bit integers, and the two FP8
//! formats of `cuda_fp8.h`), their sizes, and the spacing of their representable numbers, which
//! tolerances in ulps are counted in ([`super::Tolerance::ulps`]).
//!
//! The host types are those of well-kept crates: [`half::f16`] and [`half::bf16`] (IEEE 754
//! binary16 and bfloat16), [`float8::F8E4M3`] and [`float8::F8E5M2`] (the OCP 8-bit floating point
//! formats, converted with round-to-nearest-even and saturation to the largest finite value, as
//! `__nv_cvt_float_to_fp8(x, __NV_SATFINITE, ...)` does: `float8`'s `from_f32` follows CUDA's
//! `cuda_fp8.hpp`).

pub use float8::{F8E4M3, F8E5M2};
pub use half::{bf16, f16};

/// Element type of a buffer parameter.
///
/// # Example
/// ```
/// use kernelgate::case::{Elem, Param};
/// // A bfloat16 input of 4096 elements, uniform in [-1, 1) rounded to bfloat16.
/// let x = Param::input(4096).of(Elem::BF16);
/// assert_eq!(x.elem(), Some(Elem::BF16));
/// assert_eq!((Elem::BF16.size(), Elem::BF16.c_type()), (2, "__nv_bfloat16"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Elem {
    /// IEEE 754 binary16, `__half` (`cuda_fp16.h`): 10 fraction bits.
    F16,
    /// bfloat16, `__nv_bfloat16` (`cuda_bf16.h`): 7 fraction bits, float's exponent range.
    BF16,
    /// `float`.
    F32,
    /// `double`.
    F64,
    /// `signed char` (`int8_t`).
    I8,
    /// `unsigned char` (`uint8_t`).
    U8,
    /// `int`.
    I32,
    /// `unsigned int`.
    U32,
    /// `long long` (`int64_t`): an index or offset array. Its values are compared as `f64`, exact
    /// up to 2^53 in magnitude.
    I64,
    /// `unsigned long long` (`size_t`, `uint64_t`): shapes and strides (`const size_t* dims`).
    /// Exact up to 2^53, as [`Elem::I64`].
    U64,
    /// FP8 E4M3, `__nv_fp8_e4m3` (`cuda_fp8.h`): 3 fraction bits, largest finite 448, no
    /// infinities.
    E4M3,
    /// FP8 E5M2, `__nv_fp8_e5m2`: 2 fraction bits, largest finite 57344.
    E5M2,
}

impl Elem {
    /// Every element type, in declaration order.
    pub const ALL: [Elem; 12] = [
        Elem::F16,
        Elem::BF16,
        Elem::F32,
        Elem::F64,
        Elem::I8,
        Elem::U8,
        Elem::I32,
        Elem::U32,
        Elem::I64,
        Elem::U64,
        Elem::E4M3,
        Elem::E5M2,
    ];

    /// Bytes per element.
    pub const fn size(self) -> usize {
        match self {
            Elem::I8 | Elem::U8 | Elem::E4M3 | Elem::E5M2 => 1,
            Elem::F16 | Elem::BF16 => 2,
            Elem::F32 | Elem::I32 | Elem::U32 => 4,
            Elem::F64 | Elem::I64 | Elem::U64 => 8,
        }
    }

    /// The short name messages and the run CSV use: `f16`, `bf16`, `f32`, `f64`, `i8`, `u8`,
    /// `i32`, `u32`, `i64`, `u64`, `e4m3`, `e5m2`.
    pub const fn name(self) -> &'static str {
        match self {
            Elem::F16 => "f16",
            Elem::BF16 => "bf16",
            Elem::F32 => "f32",
            Elem::F64 => "f64",
            Elem::I8 => "i8",
            Elem::U8 => "u8",
            Elem::I32 => "i32",
            Elem::U32 => "u32",
            Elem::I64 => "i64",
            Elem::U64 => "u64",
            Elem::E4M3 => "e4m3",
            Elem::E5M2 => "e5m2",
        }
    }

    /// The CUDA C++ type a kernel declares for it.
    pub const fn c_type(self) -> &'static str {
        match self {
            Elem::F16 => "__half",
            Elem::BF16 => "__nv_bfloat16",
            Elem::F32 => "float",
            Elem::F64 => "double",
            Elem::I8 => "signed char",
            Elem::U8 => "unsigned char",
            Elem::I32 => "int",
            Elem::U32 => "unsigned int",
            Elem::I64 => "long long",
            Elem::U64 => "unsigned long long",
            Elem::E4M3 => "__nv_fp8_e4m3",
            Elem::E5M2 => "__nv_fp8_e5m2",
        }
    }

    /// Whether it is a floating-point format.
    pub const fn is_float(self) -> bool {
        !matches!(self, Elem::I8 | Elem::U8 | Elem::I32 | Elem::U32 | Elem::I64 | Elem::U64)
    }

    /// (fraction bits, least normal exponent) of a floating-point format; `None` for an integer.
    const fn format(self) -> Option<(i32, i32)> {
        match self {
            Elem::F16 => Some((10, -14)),
            Elem::BF16 | Elem::F32 => Some((if matches!(self, Elem::BF16) { 7 } else { 23 }, -126)),
            Elem::F64 => Some((52, -1022)),
            Elem::E4M3 => Some((3, -6)),
            Elem::E5M2 => Some((2, -14)),
            _ => None,
        }
    }

    /// The largest finite value of this type: `(2 - 2^-p) 2^e_max` of a floating-point format (E4M3
    /// has no infinity and spends its top mantissa code on NaN: 448), the maximum of an integer type.
    pub fn max_finite(self) -> f64 {
        match self {
            Elem::F16 => 65504.0,
            Elem::BF16 => f64::from(f32::from_bits(0x7f7f_0000)),
            Elem::F32 => f64::from(f32::MAX),
            Elem::F64 => f64::MAX,
            Elem::E4M3 => 448.0,
            Elem::E5M2 => 57344.0,
            Elem::I8 => f64::from(i8::MAX),
            Elem::U8 => f64::from(u8::MAX),
            Elem::I32 => f64::from(i32::MAX),
            Elem::U32 => f64::from(u32::MAX),
            // 2^63 - 1 and 2^64 - 1 are not f64 values: the largest f64 below each.
            Elem::I64 => (i64::MAX - 1023) as f64,
            Elem::U64 => (u64::MAX - 2047) as f64,
        }
    }

    /// The values [`crate::case::Init::Specials`] mixes into a buffer of this type, each exactly
    /// representable in it: for a floating-point format NaN, the infinities where it has them (not
    /// E4M3: OCP 8-bit Floating Point Specification, 2023, table 1), `-0`, the largest finite
    /// value of either sign, the least normal and the least subnormal positive value; for an
    /// integer type its minimum, maximum, 0 and, if signed, -1.
    ///
    /// # Example
    /// ```
    /// use kernelgate::case::Elem;
    /// assert!(Elem::E4M3.specials().iter().all(|x| !x.is_infinite()));
    /// assert!(Elem::BF16.specials().contains(&f64::INFINITY));
    /// assert_eq!(Elem::U8.specials(), [0.0, 255.0]);
    /// ```
    pub fn specials(self) -> Vec<f64> {
        let Some((fraction, least)) = self.format() else {
            let max = self.max_finite();
            return match self {
                Elem::I8 => vec![f64::from(i8::MIN), max, 0.0, -1.0],
                Elem::I32 => vec![f64::from(i32::MIN), max, 0.0, -1.0],
                Elem::I64 => vec![i64::MIN as f64, max, 0.0, -1.0],
                _ => vec![0.0, max],
            };
        };
        let max = self.max_finite();
        let mut out = vec![f64::NAN, -0.0, max, -max, 2f64.powi(least), 2f64.powi(least - fraction)];
        if self != Elem::E4M3 {
            out.extend([f64::INFINITY, f64::NEG_INFINITY]);
        }
        out
    }

    /// Half an ulp at 1.0, `2^-(p+1)` for a floating-point format of `p` fraction bits: the unit
    /// roundoff `u`, the largest relative error of rounding a real number in the normal range to
    /// the nearest number of the format (Higham, *Accuracy and Stability of Numerical Algorithms*,
    /// 2nd ed., 2002, Theorem 2.2: `fl(x) = x (1 + d)`, `|d| < u = 2^-t` for `t = p + 1` bits of
    /// precision). bf16 2^-8, f16 2^-11, E4M3 2^-4, E5M2 2^-3, f32 2^-24, f64 2^-53; `None` for an
    /// integer type.
    ///
    /// # Example
    /// ```
    /// use kernelgate::case::Elem;
    /// assert_eq!(Elem::BF16.unit_roundoff(), Some(2f64.powi(-8)));
    /// assert_eq!(Elem::BF16.unit_roundoff(), Some(Elem::BF16.ulp(1.0) / 2.0));
    /// assert_eq!(Elem::I32.unit_roundoff(), None);
    /// ```
    pub fn unit_roundoff(self) -> Option<f64> {
        self.format().map(|(fraction, _)| 2f64.powi(-(fraction + 1)))
    }

    /// The unit in the last place at `x`: the distance between the two representable numbers of
    /// this format around `|x|`, `2^(max(e, e_min) - p)` for `|x|` in `[2^e, 2^(e+1))`, `p` the
    /// fraction bits and `e_min` the least normal exponent (subnormals have the spacing of the
    /// least normal binade); Goldberg, "What every computer scientist should know about
    /// floating-point arithmetic", ACM Computing Surveys 23(1), 1991, section 1.2. 1 for an
    /// integer type. NaN or infinite `x` gives NaN.
    ///
    /// # Example
    /// ```
    /// use kernelgate::case::Elem;
    /// assert_eq!(Elem::BF16.ulp(1.0), 2f64.powi(-7));
    /// assert_eq!(Elem::E4M3.ulp(448.0), 32.0);
    /// assert_eq!(Elem::I32.ulp(7.0), 1.0);
    /// ```
    pub fn ulp(self, x: f64) -> f64 {
        let Some((fraction, least)) = self.format() else { return 1.0 };
        if !x.is_finite() {
            return f64::NAN;
        }
        // The binary exponent of |x| from its f64 bits (subnormal f64s lie far below every
        // format's least exponent, so their biased exponent 0 is clamped away anyway).
        let biased = ((x.abs().to_bits() >> 52) & 0x7ff) as i32;
        let exponent = if biased == 0 { least } else { (biased - 1023).max(least) };
        2f64.powi(exponent - fraction)
    }
}

impl std::fmt::Display for Elem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_names_are_the_cuda_types() {
        let table: Vec<(usize, &str, bool)> = Elem::ALL.iter().map(|e| (e.size(), e.name(), e.is_float())).collect();
        assert_eq!(
            table,
            [
                (2, "f16", true),
                (2, "bf16", true),
                (4, "f32", true),
                (8, "f64", true),
                (1, "i8", false),
                (1, "u8", false),
                (4, "i32", false),
                (4, "u32", false),
                (8, "i64", false),
                (8, "u64", false),
                (1, "e4m3", true),
                (1, "e5m2", true)
            ]
        );
        assert_eq!(std::mem::size_of::<F8E4M3>(), Elem::E4M3.size());
        assert_eq!(std::mem::size_of::<bf16>(), Elem::BF16.size());
    }

    #[test]
    fn the_ulp_is_the_gap_to_the_next_representable_number() {
        // Each format's next number above x, from the crates' own conversions.
        let next = |e: Elem, x: f64| -> f64 {
            match e {
                Elem::F16 => f16::from_bits(f16::from_f64(x).to_bits() + 1).to_f64(),
                Elem::BF16 => bf16::from_bits(bf16::from_f64(x).to_bits() + 1).to_f64(),
                Elem::F32 => f64::from(f32::from_bits((x as f32).to_bits() + 1)),
                Elem::F64 => f64::from_bits(x.to_bits() + 1),
                Elem::E4M3 => F8E4M3::from_bits(F8E4M3::from_f64(x).to_bits() + 1).to_f64(),
                Elem::E5M2 => F8E5M2::from_bits(F8E5M2::from_f64(x).to_bits() + 1).to_f64(),
                _ => x + 1.0,
            }
        };
        for e in Elem::ALL {
            for x in [1.0, 1.5, 3.0, 0.25, 96.0] {
                assert_eq!(e.ulp(x), next(e, x) - x, "{e} at {x}");
                assert_eq!(e.ulp(-x), e.ulp(x), "{e} at -{x}");
            }
        }
        // Subnormals keep the least normal binade's spacing; zero too.
        assert_eq!(Elem::F16.ulp(0.0), 2f64.powi(-24));
        assert_eq!(Elem::E4M3.ulp(2f64.powi(-8)), 2f64.powi(-9));
        assert!(Elem::F32.ulp(f64::NAN).is_nan() && Elem::BF16.ulp(f64::INFINITY).is_nan());
    }
}
