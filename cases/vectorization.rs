//! `kernels/vectorization.cu`: scalar vs float4 copy; SAXPY scalar vs float4 (grid-stride, tail),
//! and the scalar-head variant for a base that is not 16-byte aligned.

use super::{elements, scaled_count};
use crate::k::vectorization as kv;
use kernelgate::case::{Case, Elem, HostData, Init, Launch, Param, Tolerance};
use kernelgate::expect::Expectation as E;
use kernelgate::sass::SassExpectation as S;

/// Elements: 2^26 floats, 256 MiB per buffer.
pub const N: usize = 1 << 26;
/// SAXPY's `a`.
pub const A: f32 = 2.0;
const BLOCK: u32 = 256;
/// Blocks per SM for the grid-stride kernels: 8 x 256 threads = 2048, the most resident threads
/// per SM on sm_80 and sm_90 (CUDA C++ Programming Guide, "Compute Capabilities" table).
const BLOCKS_PER_SM: u32 = 8;

/// The family at full size.
pub fn cases() -> Vec<Case> {
    sized(N)
}

/// The family with `scale` times the elements, changed by a multiple of 1024 so that `n % 4` stays
/// what each variant needs ([`super::scaled_count`]).
pub fn scaled(scale: f64) -> Vec<Case> {
    sized(scaled_count(N, scale, 1024))
}

/// `y = a * x + y` on the CPU over the elements from `offset` on.
fn saxpy_ref(b: &[HostData], offset: usize) -> Vec<Vec<f32>> {
    let (x, y) = (b[0].f32(), b[1].f32());
    let mut out = y.to_vec();
    for i in offset..y.len() {
        out[i] = A * x[i] + y[i];
    }
    vec![out]
}

fn saxpy_case(variant: &str, n: usize, offset: usize, launch: Launch) -> Case {
    let entry = match variant {
        "saxpy" => kv::saxpy,
        "saxpy_vec4" => kv::saxpy_vec4,
        _ => kv::saxpy_vec4_head,
    };
    let size = if offset == 0 { elements(n) } else { format!("{}_off{offset}", elements(n)) };
    let uniform = Init::Uniform { lo: -1.0, hi: 1.0 };
    Case::new("vectorization", variant, size, entry)
        .launch(launch)
        .params([
            Param::I32(i32::try_from(n).expect("n fits int")),
            Param::F32(A),
            Param::In { init: uniform, elem: Elem::F32, len: n + offset, offset },
            Param::InOut { init: uniform, elem: Elem::F32, len: n + offset, offset },
        ])
        .reference(move |b| saxpy_ref(b, offset))
        .tolerance(Tolerance::FMA)
        .bytes(12 * n as u64)
        .flops(2 * n as u64)
}

/// A float4 body issues a quarter of the warp-level global load instructions of the scalar
/// variant (plus a head and tail of at most 3 elements each).
fn quarter_of_the_loads(scalar: &'static str) -> E {
    E::metric("smsp__sass_inst_executed_op_global_ld.sum")
        .relative_to(scalar)
        .between(0.2495, 0.2505)
        .because("one 16-byte load replaces four 4-byte loads")
}

fn sized(n: usize) -> Vec<Case> {
    assert!(n.is_multiple_of(4), "the float4 copy needs n % 4 == 0");
    let n_i32 = i32::try_from(n).expect("n fits int");
    let copy = |b: &[HostData]| vec![b[0].f32().to_vec()];
    let grid_stride = Launch::per_sm(BLOCKS_PER_SM, BLOCK);
    vec![
        Case::new("vectorization", "copy_scalar", elements(n), kv::copy_scalar)
            .launch(Launch::linear(n, BLOCK))
            .params([Param::input(n), Param::output(n), Param::I32(n_i32)])
            .reference(copy)
            .bytes(8 * n as u64)
            .sass([S::class("global_ld.128").absent().because("one float per load: LDG.E")]),
        Case::new("vectorization", "copy_vec4", elements(n), kv::copy_vec4)
            .launch(Launch::linear(n / 4, BLOCK))
            .params([Param::input(n), Param::output(n), Param::I32(n_i32 / 4)])
            .reference(copy)
            .bytes(8 * n as u64)
            .expect(quarter_of_the_loads("copy_scalar"))
            .expect(E::metric("global_ld_bytes_per_sector").at_least(31.9).because("float4 loads stay coalesced"))
            .sass([
                S::class("global_ld.128").present().because("a float4 load is one LDG.E.128"),
                S::class("global_ld.32").absent().because("every element moves in a float4"),
                S::class("global_st.128").present().because("a float4 store is one STG.E.128"),
            ]),
        saxpy_case("saxpy", n, 0, Launch::linear(n, BLOCK)),
        saxpy_case("saxpy", n + 3, 0, Launch::linear(n + 3, BLOCK)),
        saxpy_case("saxpy", n, 1, Launch::linear(n, BLOCK)),
        saxpy_case("saxpy_vec4", n, 0, grid_stride).expect(quarter_of_the_loads("saxpy")).sass(vec4_code()),
        // n % 4 == 3 exercises the scalar tail.
        saxpy_case("saxpy_vec4", n + 3, 0, grid_stride).expect(quarter_of_the_loads("saxpy")).sass(vec4_code()),
        // x and y one float past 16-byte alignment: 3 scalar head elements, then float4.
        saxpy_case("saxpy_vec4_head", n, 1, grid_stride).expect(quarter_of_the_loads("saxpy")).sass(vec4_code()),
    ]
}

/// The code of a float4 saxpy: 128-bit loads and stores in its main loop (its scalar head and tail
/// keep 32-bit ones).
fn vec4_code() -> [S; 2] {
    [
        S::class("global_ld.128").present().because("x and y are read as float4: LDG.E.128"),
        S::class("global_st.128").present().because("y is written as float4: STG.E.128"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_fit_their_buffers() {
        kernelgate::case::assert_references_fit(&sized(64));
    }

    #[test]
    fn offset_saxpy_leaves_the_skipped_element_alone() {
        let out = saxpy_ref(&[HostData::F32(vec![1.0, 1.0, 2.0]), HostData::F32(vec![5.0, 1.0, 1.0])], 1);
        assert_eq!(out, vec![vec![5.0, 3.0, 5.0]]);
    }

    #[test]
    fn names_show_size_and_offset() {
        let names: Vec<String> = sized(64).iter().map(Case::name).collect();
        assert!(names.contains(&"vectorization/saxpy_vec4/67".to_string()));
        assert!(names.contains(&"vectorization/saxpy_vec4_head/64_off1".to_string()));
    }
}
