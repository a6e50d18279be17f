//! The data a case's buffers hold on the host ([`HostData`], borrowed as [`HostView`]), the CPU
//! reference that computes what they should hold ([`Reference`]), and how close a GPU result must
//! come ([`Tolerance`]).

use std::sync::Arc;

/// Host copy of one buffer parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum HostData {
    /// `float` elements.
    F32(Vec<f32>),
    /// `unsigned int` elements.
    U32(Vec<u32>),
}

impl HostData {
    /// The elements as `f32`.
    ///
    /// # Panics
    /// If the buffer holds `u32` (a case-table mistake, caught by the CPU tests).
    pub fn f32(&self) -> &[f32] {
        match self {
            HostData::F32(v) => v,
            HostData::U32(_) => panic!("buffer holds u32, the reference asked for f32"),
        }
    }

    /// The elements as `u32`.
    ///
    /// # Panics
    /// If the buffer holds `f32`.
    pub fn u32(&self) -> &[u32] {
        match self {
            HostData::U32(v) => v,
            HostData::F32(_) => panic!("buffer holds f32, the reference asked for u32"),
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        match self {
            HostData::F32(v) => v.len() * 4,
            HostData::U32(v) => v.len() * 4,
        }
    }

    /// The elements, borrowed.
    pub fn view(&self) -> HostView<'_> {
        match self {
            HostData::F32(v) => HostView::F32(v),
            HostData::U32(v) => HostView::U32(v),
        }
    }
}

/// One buffer's elements, borrowed: a download in the GPU's pinned staging memory
/// ([`crate::gpu::Gpu::with_download`]), a host buffer of a program, or a [`HostData`]
/// ([`HostData::view`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HostView<'a> {
    /// `float` elements.
    F32(&'a [f32]),
    /// `unsigned int` elements.
    U32(&'a [u32]),
}

/// CPU reference: given the initial host copy of every buffer parameter (in parameter order,
/// outputs included, holding NaN), returns the expected final contents of every compared buffer
/// ([`super::Param::is_compared`]), in parameter order, whole: `f32` buffers compared within the case's
/// [`Tolerance`], `u32` buffers exactly.
pub type Reference = Arc<dyn Fn(&[HostData]) -> Vec<HostData> + Send + Sync>;

/// Allowed difference between a GPU result and its reference: `|got - want| <= abs + rel * |want|`.
/// NaN never passes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Absolute part.
    pub abs: f32,
    /// Relative part.
    pub rel: f32,
}

impl Tolerance {
    /// Bit-exact (copies, permutations).
    pub const EXACT: Tolerance = Tolerance { abs: 0.0, rel: 0.0 };

    /// For one fused multiply-add per element against an unfused CPU reference: a few ulps.
    pub const FMA: Tolerance = Tolerance { abs: 1e-6, rel: 1e-6 };

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
        Tolerance { abs: 0.0, rel: (ku / (1.0 - ku)) as f32 }
    }
}
