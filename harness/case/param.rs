//! A case's slots ([`Param`]: buffers with their element type and how they are drawn, [`Init`],
//! and scalars) and the arguments a launch passes from them ([`Arg`]).

use super::Elem;

/// How a buffer's contents are drawn before each run, in the buffer's element type
/// ([`Param::elem`]). Never zeros, unless given ([`Init::Values`]): zeros hide unwritten outputs and
/// wrong indexing (see the device README's METHOD.md, "Correct first").
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Init {
    /// Uniform in `[lo, hi)`: drawn as `f32` (`f64` for an `f64` buffer) and rounded to the
    /// buffer's floating-point type ([`super::HostData::rounded`]); for an integer type, the integers
    /// of `[ceil(lo), hi)` (at least `ceil(lo)`), clamped to the type's range.
    Uniform {
        /// Lower bound, inclusive.
        lo: f32,
        /// Upper bound, exclusive.
        hi: f32,
    },
    /// As [`Init::Uniform`], with each element replaced, with probability `share`, by one of the
    /// type's special values drawn uniformly ([`Elem::specials`]: NaN, the infinities, `-0`, the
    /// largest finite values, the least normal and subnormal; an integer type's extremes): a
    /// kernel's handling of them is checked against the reference's (a NaN expected admits a NaN
    /// computed, [`super::Tolerance::admits`]).
    Specials {
        /// Lower bound of the ordinary values, inclusive.
        lo: f32,
        /// Upper bound of the ordinary values, exclusive.
        hi: f32,
        /// Probability that an element is a special value, in [0, 1].
        share: f32,
    },
    /// A random permutation of `0..len`, in an `i32` or `u32` buffer.
    Permutation,
    /// A byte stream: in a `u32` buffer, words of 4 random bytes each (`4 x len` bytes), in a `u8`
    /// buffer one byte each. Each byte is [`HOT_BYTE`] with probability `hot`, otherwise uniform
    /// over 0..=255 (`hot: 0.0` gives uniform bytes; the histogram family's skewed data uses 0.9).
    Bytes {
        /// Probability that a byte is [`HOT_BYTE`], in [0, 1].
        hot: f32,
    },
    /// These values, as they are, the same for every run: a kernel's shapes and strides (`const
    /// size_t* dims` in a [`Elem::U64`] buffer), an index table, a hand-made input. One value per
    /// element, stored in the buffer's type as [`super::HostData::rounded`] stores them; an
    /// integer buffer takes integers of its range only. Give a `'static` slice: a constant, or
    /// `Vec::leak` of values computed when the case is made.
    ///
    /// # Example
    /// ```
    /// use kernelgate::case::{Elem, Init, Param};
    /// // candle's `info` of a contiguous 4096 x 4096 tensor: dims, then strides.
    /// let info: &'static [f64] = vec![4096.0, 4096.0, 4096.0, 1.0].leak();
    /// let p = Param::In { init: Init::Values(info), elem: Elem::U64, len: 4, offset: 0 };
    /// assert_eq!(kernelgate::inputs::draw(&p, 1).unwrap().u64(), [4096, 4096, 4096, 1]);
    /// ```
    Values(&'static [f64]),
}

/// The byte value that [`Init::Bytes`] over-represents.
pub const HOT_BYTE: u8 = 42;

/// One kernel parameter, in the kernel's parameter order.
///
/// Buffers hold `len` elements of their element type `elem` ([`Elem`]); the kernel receives the
/// address of element `offset` (so `offset: 1` of an `f32` buffer passes a base that is 4 bytes
/// past a 256-byte-aligned allocation). The CPU reference sees and returns whole buffers, offset
/// elements included. Outputs start as 0xFF bytes ([`super::HostData::poisoned`]: NaN in every
/// floating-point type, -1 or the maximum in an integer type).
///
/// The compile trials hold each argument to the kernel's parameter as the PTX declares it: a
/// buffer is a pointer (`.u64`), [`Param::I32`] an integer (`.u32`, `.s32`), [`Param::F32`] a `float`
/// (`.f32`), and so on; a `Param::F32` for an `int n` fails with the fix, without a GPU
/// ([`crate::compile::mismatch`] says what PTX tells apart and what it cannot).
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    /// Read-only input, freshly drawn for every run.
    In {
        /// How its contents are drawn.
        init: Init,
        /// Element type.
        elem: Elem,
        /// Elements allocated.
        len: usize,
        /// Elements skipped before the pointer the kernel gets.
        offset: usize,
    },
    /// Output, poisoned before the checked launch and compared whole.
    Out {
        /// Element type.
        elem: Elem,
        /// Elements allocated.
        len: usize,
    },
    /// Input that the kernel updates in place (`y` of SAXPY); compared whole afterwards.
    InOut {
        /// How its initial contents are drawn.
        init: Init,
        /// Element type.
        elem: Elem,
        /// Elements allocated.
        len: usize,
        /// Elements skipped before the pointer the kernel gets.
        offset: usize,
    },
    /// Output zeroed before every run of the program, inside the timed region (histogram bins,
    /// an `atomicAdd` accumulator: clearing them is part of the work); compared whole.
    Zeroed {
        /// Elements allocated.
        len: usize,
        /// Element type.
        elem: Elem,
    },
    /// Device scratch: poisoned once, never compared (a two-pass reduction's partials).
    Scratch {
        /// Element type.
        elem: Elem,
        /// Elements allocated.
        len: usize,
    },
    /// A host buffer, pageable (`Vec`) or pinned (`cuMemHostAlloc`): a source drawn from
    /// `init`, or with `init: None` a destination poisoned and compared whole. Only
    /// [`super::Step::Copy`] touches it; a kernel cannot take it as an argument.
    Host {
        /// How a source is drawn; `None` for a destination.
        init: Option<Init>,
        /// Element type.
        elem: Elem,
        /// Elements.
        len: usize,
        /// Page-locked memory (`true`) or an ordinary `Vec` (`false`).
        pinned: bool,
    },
    /// An `int` by value.
    I32(i32),
    /// A `float` by value.
    F32(f32),
    /// An `unsigned long long` (or `size_t`, 64-bit on every CUDA platform) by value.
    U64(u64),
    /// A `__half` by value (`half::f16`): 2 bytes. A `float` in its place would pass the low two
    /// bytes of its bits, not the value; the compile trials refuse it.
    F16(half::f16),
    /// A `__nv_bfloat16` by value (`half::bf16`): 2 bytes.
    BF16(half::bf16),
    /// A `double` by value.
    F64(f64),
}

impl Param {
    /// A read-only `f32` input of `len` elements, uniform in [-1, 1) ([`Param::of`] gives it
    /// another type).
    pub fn input(len: usize) -> Param {
        Param::In { init: Init::Uniform { lo: -1.0, hi: 1.0 }, elem: Elem::F32, len, offset: 0 }
    }

    /// A poisoned `f32` output of `len` elements ([`Param::of`] gives it another type).
    pub fn output(len: usize) -> Param {
        Param::Out { elem: Elem::F32, len }
    }

    /// A `u32` output of `len` elements zeroed before every run (histogram bins).
    pub fn counts(len: usize) -> Param {
        Param::Zeroed { len, elem: Elem::U32 }
    }

    /// This buffer with element type `elem`; a scalar unchanged.
    ///
    /// # Example
    /// ```
    /// use kernelgate::case::{Elem, Param};
    /// let out = Param::output(1024).of(Elem::F16);
    /// assert_eq!(out, Param::Out { elem: Elem::F16, len: 1024 });
    /// ```
    pub fn of(mut self, elem: Elem) -> Param {
        match &mut self {
            Param::In { elem: e, .. }
            | Param::Out { elem: e, .. }
            | Param::InOut { elem: e, .. }
            | Param::Zeroed { elem: e, .. }
            | Param::Scratch { elem: e, .. }
            | Param::Host { elem: e, .. } => *e = elem,
            Param::I32(_) | Param::F32(_) | Param::U64(_) | Param::F16(_) | Param::BF16(_) | Param::F64(_) => {}
        }
        self
    }

    /// The element type of a buffer; `None` for a scalar.
    pub fn elem(&self) -> Option<Elem> {
        match *self {
            Param::In { elem, .. }
            | Param::Out { elem, .. }
            | Param::InOut { elem, .. }
            | Param::Zeroed { elem, .. }
            | Param::Scratch { elem, .. }
            | Param::Host { elem, .. } => Some(elem),
            Param::I32(_) | Param::F32(_) | Param::U64(_) | Param::F16(_) | Param::BF16(_) | Param::F64(_) => None,
        }
    }

    /// True for the buffers that the check compares (outputs, in-place buffers, zeroed outputs and
    /// host destinations).
    pub fn is_compared(&self) -> bool {
        matches!(self, Param::Out { .. } | Param::InOut { .. } | Param::Zeroed { .. } | Param::Host { init: None, .. })
    }

    /// True for buffer parameters (anything with host data: device buffers and host buffers).
    pub fn is_buffer(&self) -> bool {
        self.elem().is_some()
    }

    /// Elements of a buffer parameter; 0 for a scalar.
    pub fn elements(&self) -> usize {
        match *self {
            Param::In { len, .. }
            | Param::Out { len, .. }
            | Param::InOut { len, .. }
            | Param::Zeroed { len, .. }
            | Param::Scratch { len, .. }
            | Param::Host { len, .. } => len,
            Param::I32(_) | Param::F32(_) | Param::U64(_) | Param::F16(_) | Param::BF16(_) | Param::F64(_) => 0,
        }
    }

    /// Bytes of a buffer parameter (elements x [`Elem::size`]); 0 for a scalar.
    pub fn bytes(&self) -> usize {
        self.elem().map_or(0, |e| e.size() * self.elements())
    }

    /// The bytes this parameter passes to a kernel: a pointer (8) for a buffer, 4 for an `int` or
    /// `float`, 2 for a `__half` or `__nv_bfloat16`, 8 for an `unsigned long long` or `double`.
    pub fn arg_bytes(&self) -> u32 {
        match self {
            Param::I32(_) | Param::F32(_) => 4,
            Param::F16(_) | Param::BF16(_) => 2,
            _ => 8,
        }
    }

    /// Whether this is a `float` by value ([`Param::F32`]).
    pub fn is_float(&self) -> bool {
        matches!(self, Param::F32(_))
    }

    /// Elements skipped before the pointer a kernel gets when the parameter is passed whole.
    pub fn offset(&self) -> usize {
        match *self {
            Param::In { offset, .. } | Param::InOut { offset, .. } => offset,
            _ => 0,
        }
    }
}

/// A kernel argument of a [`super::Step::Launch`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arg {
    /// Parameter `slot` as declared: a device buffer at its declared offset, or a scalar.
    Slot(usize),
    /// Device buffer `slot` at element `offset` (a chunk of a pipeline).
    At {
        /// The buffer parameter's index.
        slot: usize,
        /// Elements skipped.
        offset: usize,
    },
    /// An `int` by value.
    I32(i32),
    /// A `float` by value.
    F32(f32),
    /// An `unsigned long long` (`size_t`) by value.
    U64(u64),
    /// A `__half` by value.
    F16(half::f16),
    /// A `__nv_bfloat16` by value.
    BF16(half::bf16),
    /// A `double` by value.
    F64(f64),
}

impl Arg {
    /// The bytes this argument passes to a kernel, with the parameters `params` it may name
    /// ([`Param::arg_bytes`]); a slot out of range counts as a pointer (the case's own check names
    /// it).
    pub fn bytes(&self, params: &[Param]) -> u32 {
        match self {
            Arg::Slot(slot) => params.get(*slot).map_or(8, Param::arg_bytes),
            Arg::At { .. } | Arg::U64(_) | Arg::F64(_) => 8,
            Arg::I32(_) | Arg::F32(_) => 4,
            Arg::F16(_) | Arg::BF16(_) => 2,
        }
    }
}
