//! The data a case's buffers hold on the host ([`HostData`], borrowed as [`HostView`]), the CPU
//! reference that computes what they should hold ([`Reference`]), and how close a GPU result must
//! come ([`Tolerance`]).

use super::elem::{Elem, F8E4M3, F8E5M2, bf16, f16};
use std::sync::Arc;

/// Host copy of one buffer parameter: one variant per [`Elem`], holding the crates' types
/// ([`super::elem`]).
#[derive(Debug, Clone, PartialEq)]
pub enum HostData {
    /// `__half` elements.
    F16(Vec<f16>),
    /// `__nv_bfloat16` elements.
    BF16(Vec<bf16>),
    /// `float` elements.
    F32(Vec<f32>),
    /// `double` elements.
    F64(Vec<f64>),
    /// `signed char` elements.
    I8(Vec<i8>),
    /// `unsigned char` elements.
    U8(Vec<u8>),
    /// `int` elements.
    I32(Vec<i32>),
    /// `unsigned int` elements.
    U32(Vec<u32>),
    /// `long long` elements.
    I64(Vec<i64>),
    /// `unsigned long long` (`size_t`) elements.
    U64(Vec<u64>),
    /// `__nv_fp8_e4m3` elements.
    E4M3(Vec<F8E4M3>),
    /// `__nv_fp8_e5m2` elements.
    E5M2(Vec<F8E5M2>),
}

/// `$body` with `$v` bound to the vector of whichever variant `$data` is (the same code for every
/// element type).
macro_rules! each {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            HostData::F16($v) => $body,
            HostData::BF16($v) => $body,
            HostData::F32($v) => $body,
            HostData::F64($v) => $body,
            HostData::I8($v) => $body,
            HostData::U8($v) => $body,
            HostData::I32($v) => $body,
            HostData::U32($v) => $body,
            HostData::I64($v) => $body,
            HostData::U64($v) => $body,
            HostData::E4M3($v) => $body,
            HostData::E5M2($v) => $body,
        }
    };
}

/// The typed accessors of [`HostData`], one per element type.
macro_rules! accessors {
    ($($name:ident: $variant:ident($t:ty)),* $(,)?) => {
        $(
            #[doc = concat!("The elements as `", stringify!($t), "`.")]
            ///
            /// # Panics
            /// If the buffer holds another type (a case-table mistake, caught by the CPU tests of the
            /// references, [`super::assert_references_fit`]).
            pub fn $name(&self) -> &[$t] {
                match self {
                    HostData::$variant(v) => v,
                    other => panic!(
                        "buffer holds {}, the reference asked for {}",
                        other.elem(),
                        Elem::$variant
                    ),
                }
            }
        )*
    };
}

/// A number of one of the element types, as the check compares it: its value as `f64` (exact for
/// every element type's values but 64-bit integers beyond 2^53 in magnitude, which round).
pub trait Element: bytemuck::Pod + Send + Sync {
    /// The element type this Rust type stands for.
    const ELEM: Elem;
    /// The element's value.
    fn value(self) -> f64;
}

macro_rules! element {
    ($($t:ty => $elem:ident |$x:ident| $value:expr),* $(,)?) => {
        $(impl Element for $t {
            const ELEM: Elem = Elem::$elem;
            fn value(self) -> f64 {
                let $x = self;
                $value
            }
        })*
    };
}

element! {
    f16 => F16 |x| x.to_f64(),
    bf16 => BF16 |x| x.to_f64(),
    f32 => F32 |x| f64::from(x),
    f64 => F64 |x| x,
    i8 => I8 |x| f64::from(x),
    u8 => U8 |x| f64::from(x),
    i32 => I32 |x| f64::from(x),
    u32 => U32 |x| f64::from(x),
    i64 => I64 |x| x as f64,
    u64 => U64 |x| x as f64,
    F8E4M3 => E4M3 |x| x.to_f64(),
    F8E5M2 => E5M2 |x| x.to_f64(),
}

impl HostData {
    accessors! {
        f16: F16(f16), bf16: BF16(bf16), f32: F32(f32), f64: F64(f64), i8: I8(i8), u8: U8(u8), i32: I32(i32),
        u32: U32(u32), i64: I64(i64), u64: U64(u64), e4m3: E4M3(F8E4M3), e5m2: E5M2(F8E5M2),
    }

    /// The element type held.
    pub fn elem(&self) -> Elem {
        match self {
            HostData::F16(_) => Elem::F16,
            HostData::BF16(_) => Elem::BF16,
            HostData::F32(_) => Elem::F32,
            HostData::F64(_) => Elem::F64,
            HostData::I8(_) => Elem::I8,
            HostData::U8(_) => Elem::U8,
            HostData::I32(_) => Elem::I32,
            HostData::U32(_) => Elem::U32,
            HostData::I64(_) => Elem::I64,
            HostData::U64(_) => Elem::U64,
            HostData::E4M3(_) => Elem::E4M3,
            HostData::E5M2(_) => Elem::E5M2,
        }
    }

    /// Elements held.
    pub fn len(&self) -> usize {
        each!(self, v => v.len())
    }

    /// Whether it holds no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held: elements x [`Elem::size`].
    pub fn bytes(&self) -> usize {
        self.len() * self.elem().size()
    }

    /// The elements as the bytes a device buffer holds (little-endian, as every CUDA GPU).
    pub fn as_bytes(&self) -> &[u8] {
        each!(self, v => bytemuck::cast_slice(v))
    }

    /// The elements, borrowed.
    pub fn view(&self) -> HostView<'_> {
        HostView { elem: self.elem(), bytes: self.as_bytes() }
    }

    /// The elements as `f64` (exact for every type but 64-bit integers beyond 2^53 in magnitude):
    /// what a reference in `f64` starts from.
    pub fn to_f64(&self) -> Vec<f64> {
        each!(self, v => v.iter().map(|x| x.value()).collect())
    }

    /// The elements as `f32`, each rounded to the nearest `f32` (exact for every type but `f64`
    /// and the integers beyond 2^24): what a reference in `f32` starts from.
    pub fn to_f32(&self) -> Vec<f32> {
        each!(self, v => v.iter().map(|x| x.value() as f32).collect())
    }

    /// `values` stored as `elem`, each rounded to nearest (ties to even) for a floating-point type
    /// (to the largest finite value beyond it for the FP8 formats, as CUDA's `__NV_SATFINITE`
    /// conversion), rounded to nearest and clamped to the range for an integer type (NaN as 0):
    /// the conversion at the boundary of a reference computed in `f64`.
    ///
    /// # Example
    /// ```
    /// use kernelgate::case::{Elem, HostData};
    /// let q = HostData::rounded(Elem::E4M3, [0.3, 500.0, -1.0]);
    /// assert_eq!(q.to_f64(), [0.3125, 448.0, -1.0]);
    /// ```
    pub fn rounded(elem: Elem, values: impl IntoIterator<Item = f64>) -> HostData {
        let values = values.into_iter();
        fn int<T: TryFrom<i64> + Copy>(x: f64, lo: T, hi: T) -> T {
            let r = x.round_ties_even();
            if x.is_nan() {
                T::try_from(0).ok().unwrap_or(lo)
            } else if r <= -9.2e18 {
                lo
            } else if r >= 9.2e18 {
                hi
            } else {
                T::try_from(r as i64).unwrap_or(if r < 0.0 { lo } else { hi })
            }
        }
        match elem {
            Elem::F16 => HostData::F16(values.map(f16::from_f64).collect()),
            Elem::BF16 => HostData::BF16(values.map(bf16::from_f64).collect()),
            Elem::F32 => HostData::F32(values.map(|x| x as f32).collect()),
            Elem::F64 => HostData::F64(values.collect()),
            Elem::I8 => HostData::I8(values.map(|x| int(x, i8::MIN, i8::MAX)).collect()),
            Elem::U8 => HostData::U8(values.map(|x| int(x, u8::MIN, u8::MAX)).collect()),
            Elem::I32 => HostData::I32(values.map(|x| int(x, i32::MIN, i32::MAX)).collect()),
            Elem::U32 => HostData::U32(values.map(|x| int(x, u32::MIN, u32::MAX)).collect()),
            // `as` rounds toward zero, saturates at the type's range and takes NaN to 0.
            Elem::I64 => HostData::I64(values.map(|x| x.round_ties_even() as i64).collect()),
            Elem::U64 => HostData::U64(values.map(|x| x.round_ties_even() as u64).collect()),
            Elem::E4M3 => HostData::E4M3(values.map(F8E4M3::from_f64).collect()),
            Elem::E5M2 => HostData::E5M2(values.map(F8E5M2::from_f64).collect()),
        }
    }

    /// `len` elements of `elem` made of the bytes `bytes` (little-endian, [`Elem::size`] each).
    ///
    /// # Panics
    /// When `bytes` is not `len x size` long.
    pub fn from_bytes(elem: Elem, bytes: &[u8]) -> HostData {
        assert_eq!(bytes.len() % elem.size(), 0, "{} bytes hold no whole number of {elem}", bytes.len());
        match elem {
            Elem::F16 => HostData::F16(bytemuck::pod_collect_to_vec(bytes)),
            Elem::BF16 => HostData::BF16(bytemuck::pod_collect_to_vec(bytes)),
            Elem::F32 => HostData::F32(bytemuck::pod_collect_to_vec(bytes)),
            Elem::F64 => HostData::F64(bytemuck::pod_collect_to_vec(bytes)),
            Elem::I8 => HostData::I8(bytemuck::pod_collect_to_vec(bytes)),
            Elem::U8 => HostData::U8(bytemuck::pod_collect_to_vec(bytes)),
            Elem::I32 => HostData::I32(bytemuck::pod_collect_to_vec(bytes)),
            Elem::U32 => HostData::U32(bytemuck::pod_collect_to_vec(bytes)),
            Elem::I64 => HostData::I64(bytemuck::pod_collect_to_vec(bytes)),
            Elem::U64 => HostData::U64(bytemuck::pod_collect_to_vec(bytes)),
            Elem::E4M3 => HostData::E4M3(bytemuck::pod_collect_to_vec(bytes)),
            Elem::E5M2 => HostData::E5M2(bytemuck::pod_collect_to_vec(bytes)),
        }
    }

    /// `len` elements of `elem`, every byte 0xFF: what an output holds before the kernel writes it
    /// ([`crate::gpu::Gpu::poison`]). A NaN in every floating-point type (binary16, bfloat16,
    /// float, double, and E4M3 and E5M2, whose all-ones pattern is NaN), and the documented
    /// sentinel of an integer type, which has no NaN: -1 for a signed one, its maximum for an
    /// unsigned one. An element the kernel fails to write keeps it, and a float NaN never matches.
    pub fn poisoned(elem: Elem, len: usize) -> HostData {
        HostData::from_bytes(elem, &vec![0xFF; len * elem.size()])
    }
}

/// One buffer's elements, borrowed as the bytes a device buffer holds: a download in the GPU's
/// pinned staging memory ([`crate::gpu::Gpu::with_download`]), a host buffer of a program, or a
/// [`HostData`] ([`HostData::view`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HostView<'a> {
    /// The element type.
    pub elem: Elem,
    /// The elements' bytes, [`Elem::size`] each, little-endian.
    pub bytes: &'a [u8],
}

impl<'a> HostView<'a> {
    /// A view of `values`.
    ///
    /// # Example
    /// ```
    /// use kernelgate::case::{Elem, HostView};
    /// let v = HostView::of(&[1.0f32, 2.0]);
    /// assert_eq!((v.elem, v.len()), (Elem::F32, 2));
    /// ```
    pub fn of<T: Element>(values: &'a [T]) -> HostView<'a> {
        HostView { elem: T::ELEM, bytes: bytemuck::cast_slice(values) }
    }

    /// Elements viewed.
    pub fn len(&self) -> usize {
        self.bytes.len() / self.elem.size()
    }

    /// Whether it views no element.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The elements as the `T` the element type is, borrowed where the bytes are aligned for `T`
    /// (pinned memory and vectors are) and copied where not.
    ///
    /// # Panics
    /// When `T` is not the element type.
    pub fn typed<T: Element>(&self) -> std::borrow::Cow<'a, [T]> {
        assert_eq!(T::ELEM, self.elem, "viewing {} as {}", self.elem, T::ELEM);
        match bytemuck::try_cast_slice(self.bytes) {
            Ok(aligned) => std::borrow::Cow::Borrowed(aligned),
            Err(_) => std::borrow::Cow::Owned(bytemuck::pod_collect_to_vec(self.bytes)),
        }
    }

    /// An owned copy.
    pub fn to_data(&self) -> HostData {
        HostData::from_bytes(self.elem, self.bytes)
    }
}

/// CPU reference: given the initial host copy of every buffer parameter (in parameter order,
/// outputs included, holding the poison of [`HostData::poisoned`]), returns the expected final
/// contents of every compared buffer ([`super::Param::is_compared`]), in parameter order, whole,
/// compared within the buffer's [`Tolerance`] ([`super::Case::tolerance_of`]). A buffer of a
/// floating-point type may be expected in its own type, in `f32` or in `f64` (a reference
/// computed in higher precision, not rounded: the tolerance's ulps are those of the buffer's type);
/// an integer buffer in its own type.
pub type Reference = Arc<dyn Fn(&[HostData]) -> Vec<HostData> + Send + Sync>;

/// Allowed difference between a GPU result and its reference:
/// `|got - want| <= abs + rel * |want| + ulps * ulp(want)`, `ulp` the spacing of the compared
/// buffer's element type at `want` ([`Elem::ulp`]; 1 for an integer type). NaN never passes.
/// Every value is compared in `f64` (the element read as `f64`, the reference as given), so the
/// bounds are `f64` too: an `f64` buffer's bound (`rel` 1e-12) is stated as it is.
///
/// # Example
/// ```
/// use kernelgate::case::Tolerance;
/// // A bfloat16 output of a kernel that accumulates in f32, against an f64 reference: one
/// // rounding to bfloat16 is half an ulp; allow one.
/// let bf16_out = Tolerance::ulps(1);
/// // A sum that also carries a float32 error bound.
/// let both = Tolerance { ulps: 1, ..Tolerance::summation(4096) };
/// assert_eq!((bf16_out.abs, both.ulps), (0.0, 1));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Absolute part, in the buffer's own units (the element's value, as the reference gives it):
    /// `1e-6` admits any `got` within 1e-6 of `want`. Non-negative.
    pub abs: f64,
    /// Relative part, a fraction of `|want|` (not a percentage): `1e-5` admits `1e-5 * |want|`.
    /// Non-negative.
    pub rel: f64,
    /// Units in the last place of the compared buffer's type, at the expected value.
    pub ulps: u32,
}

impl Tolerance {
    /// Bit-exact (copies, permutations).
    pub const EXACT: Tolerance = Tolerance { abs: 0.0, rel: 0.0, ulps: 0 };

    /// For one fused multiply-add per element against an unfused CPU reference: a few ulps.
    pub const FMA: Tolerance = Tolerance { abs: 1e-6, rel: 1e-6, ulps: 0 };

    /// `n` units in the last place of the compared buffer's type ([`Elem::ulp`]), nothing else:
    /// the tolerance of a result rounded once to a narrow type (half an ulp) from a reference
    /// computed wider allows 1.
    pub const fn ulps(n: u32) -> Tolerance {
        Tolerance { abs: 0.0, rel: 0.0, ulps: n }
    }

    /// `abs + rel * |want|`, no ulps: `abs` in the buffer's units, `rel` a fraction of `|want|`
    /// ([`Tolerance::abs`], [`Tolerance::rel`]).
    pub const fn abs_rel(abs: f64, rel: f64) -> Tolerance {
        Tolerance { abs, rel, ulps: 0 }
    }

    /// Whether `got` is within this tolerance of `want` for a buffer of `elem`. A NaN expected
    /// admits a NaN computed (as `equal_nan` of NumPy's `allclose`), any other value never a NaN;
    /// the check tells a computed NaN from the outputs' NaN poison by its bits first
    /// (`crate::check::compare_data`).
    pub fn admits(&self, elem: Elem, got: f64, want: f64) -> bool {
        if want.is_nan() {
            return got.is_nan();
        }
        let mut allowed = self.abs + self.rel * want.abs();
        if self.ulps > 0 {
            allowed += f64::from(self.ulps) * elem.ulp(want);
        }
        // Written as `<=`: any comparison with NaN is false, so a NaN computed never passes here;
        // equal infinities pass by the first test.
        got == want || (got - want).abs() <= allowed
    }

    /// The least relative tolerance a buffer of `elem` can sensibly be compared within, where this
    /// one is below it; `None` where this tolerance is fine or the rule does not apply. The rule:
    /// a buffer of a narrow floating-point format (f16, bf16, FP8 E4M3 and E5M2) compared within
    /// a relative part alone (`abs` and `ulps` 0) that is above 0 but below the format's unit
    /// roundoff ([`Elem::unit_roundoff`], half an ulp at 1.0: f16 2^-11, bf16 2^-8, E4M3 2^-4,
    /// E5M2 2^-3) is refused, and that unit roundoff returned. A result rounded correctly to the
    /// format may differ from an unrounded reference by that much relatively, and two numbers of
    /// the format near `want` differ by at least about that much, so such a tolerance admits a
    /// bit-equal result alone, which no GPU result can be relied on to be; it passes every check
    /// on the CPU all the same.
    ///
    /// Left alone, as nothing here can decide them honestly: [`Tolerance::EXACT`] (bit-exact is a
    /// claim a copy or a permutation makes, and meets); any `ulps` (at least one ulp at every
    /// value, above half of one); an `abs` part (in the buffer's own units, whose sufficiency
    /// depends on the magnitudes of the values, which the case does not state); f32 and f64
    /// buffers, whose tolerances are checked by the cases' own tests.
    ///
    /// The formats: IEEE 754-2019 binary16 (10 fraction bits); bfloat16, the upper half of
    /// binary32 (7 fraction bits; Intel, "BFLOAT16 - Hardware Numerics Definition", 2018); FP8
    /// E4M3 and E5M2 of the OCP "8-bit Floating Point Specification (OFP8)", revision 1.0, 2023
    /// (3 and 2 fraction bits).
    ///
    /// # Example
    /// ```
    /// use kernelgate::case::{Elem, Tolerance};
    /// assert_eq!(Tolerance::abs_rel(0.0, 1e-3).too_tight_for(Elem::BF16), Some(2f64.powi(-8)));
    /// assert_eq!(Tolerance::abs_rel(0.0, 1e-2).too_tight_for(Elem::BF16), None);
    /// assert_eq!(Tolerance::abs_rel(0.0, 1e-3).too_tight_for(Elem::F32), None);
    /// assert_eq!(Tolerance::ulps(1).too_tight_for(Elem::E4M3), None);
    /// assert_eq!(Tolerance::EXACT.too_tight_for(Elem::F16), None);
    /// ```
    pub fn too_tight_for(&self, elem: Elem) -> Option<f64> {
        let narrow = matches!(elem, Elem::F16 | Elem::BF16 | Elem::E4M3 | Elem::E5M2);
        let least = elem.unit_roundoff()?;
        (narrow && self.ulps == 0 && self.abs == 0.0 && self.rel > 0.0 && self.rel < least).then_some(least)
    }

    /// For a float32 sum whose longest chain of additions any element goes through is `k`, of
    /// non-negative terms, against a float64 reference: relative `gamma_k = k u / (1 - k u)`,
    /// `u = 2^-24` (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., 2002,
    /// eq. 4.4: `|error| <= gamma_k * sum |x_i|`, and `sum |x_i| = |sum x_i|` for non-negative
    /// terms).
    ///
    /// # Panics
    /// If `k u >= 1` (no bound).
    pub fn summation(k: usize) -> Tolerance {
        let ku = k as f64 * f64::from(f32::EPSILON) / 2.0;
        assert!(ku < 1.0, "no error bound for chains of {k} additions");
        Tolerance { abs: 0.0, rel: ku / (1.0 - ku), ulps: 0 }
    }
}
