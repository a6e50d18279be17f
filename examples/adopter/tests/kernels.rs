//! This project's kernel trials: `cargo test --release --test kernels` checks, times and gates
//! every case on a GPU (and compiles every kernel file without one).

use kernelgate::case::{Case, Launch, Param, Table, Tolerance};

kernelgate::kernels!(); // mod k (one module per file of gpu/), static BUILD

/// Elements of the axpby cases: 2^24 floats, 64 MiB per buffer.
const N: usize = 1 << 24;
/// The row-max matrix: 8192 rows of 4096 floats (128 MiB).
const ROWS: usize = 8192;
const COLS: usize = 4096;

/// Every case at `scale` times its work (`KERNELGATE_WORK_SCALE`; 1.0 here).
fn cases(_scale: f64) -> Vec<Case> {
    let (a, b) = (2.0f32, -0.5f32);
    let axpby = move |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(x, y)| a * x + b * y).collect::<Vec<f32>>();
    let mut cases = vec![
        Case::new("axpby", "plain", "16M", k::axpby::axpby)
            .launch(Launch::linear(N, 256))
            .params([
                Param::input(N),
                Param::input(N),
                Param::output(N),
                Param::F32(a),
                Param::F32(b),
                Param::I32(N as i32),
            ])
            .reference(move |d| vec![axpby(d[0].f32(), d[1].f32())])
            .tolerance(Tolerance::FMA) // nvcc and NVRTC contract a * x + b * y into an FMA
            .bytes(12 * N as u64)
            .flops(3 * N as u64),
        Case::new("axpby", "vec4", "16M", k::axpby::axpby_vec4)
            .launch(Launch::linear(N / 4, 256))
            .params([
                Param::input(N),
                Param::input(N),
                Param::output(N),
                Param::F32(a),
                Param::F32(b),
                Param::I32((N / 4) as i32),
            ])
            .reference(move |d| vec![axpby(d[0].f32(), d[1].f32())])
            .tolerance(Tolerance::FMA) // nvcc and NVRTC contract a * x + b * y into an FMA
            .bytes(12 * N as u64)
            .flops(3 * N as u64),
    ];
    for block in [128u32, 512] {
        let kernel = k::rowmax::row_max.with(&block.to_string());
        cases.push(
            Case::new("rowmax", format!("b{block}"), format!("{ROWS}x{COLS}"), kernel)
                .launch(Launch::grid2d([ROWS as u32, 1], [block, 1]))
                .params([Param::input(ROWS * COLS), Param::output(ROWS), Param::I32(COLS as i32)])
                .reference(|d| vec![d[0].f32().chunks(COLS).map(|r| r.iter().copied().fold(f32::NEG_INFINITY, f32::max)).collect()])
                .tolerance(Tolerance::EXACT)
                .bytes(4 * (ROWS * COLS + ROWS) as u64),
        );
    }
    cases
}

kernelgate::main!(Table::new(cases, &BUILD));
