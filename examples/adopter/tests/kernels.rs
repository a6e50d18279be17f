//! This project's kernel trials: `cargo test --release --test kernels` checks, times and gates
//! every case on a GPU (and compiles every kernel file without one).

use kernelgate::case::{
    Case, Elem, HostCall, HostData, Init, Launch, Param, Step, Table, Tolerance, lesson::TimeLesson,
};

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
                .reference(|d| {
                    vec![d[0].f32().chunks(COLS).map(|r| r.iter().copied().fold(f32::NEG_INFINITY, f32::max)).collect()]
                })
                .tolerance(Tolerance::EXACT)
                .bytes(4 * (ROWS * COLS + ROWS) as u64),
        );
    }
    // The same kernel on rows holding NaN, infinities, -0, the largest floats and subnormals (one
    // element in a thousand): fmaxf, as f32::max, returns the other operand of a NaN.
    let specials = Param::In {
        init: Init::Specials { lo: -1.0, hi: 1.0, share: 0.001 },
        elem: Elem::F32,
        len: ROWS * COLS,
        offset: 0,
    };
    cases.push(
        Case::new("rowmax", "b128_specials", format!("{ROWS}x{COLS}"), k::rowmax::row_max.with("128"))
            .launch(Launch::grid2d([ROWS as u32, 1], [128, 1]))
            .params([specials, Param::output(ROWS), Param::I32(COLS as i32)])
            .reference(|d| {
                vec![d[0].f32().chunks(COLS).map(|r| r.iter().copied().fold(f32::NEG_INFINITY, f32::max)).collect()]
            })
            .tolerance(Tolerance::EXACT)
            .bytes(4 * (ROWS * COLS + ROWS) as u64),
    );
    cases.extend(narrow_types());
    cases.extend(prebuilt());
    cases.extend(row_sums());
    cases.extend(sums());
    cases
}

/// The sum of 2^24 floats in [0, 1): gpu/reduce.cu's own kernel, and CUB's device-wide sum, the
/// family's vendor reference (its table shows `sum/atomic` as a % of CUB), called from the host
/// library host/cub_sum.cu in a host step.
fn sums() -> Vec<Case> {
    const N: usize = 1 << 24;
    const BLOCKS: usize = 1024;
    const THREADS: usize = 256;
    let sum = |d: &[HostData]| vec![HostData::F64(vec![d[0].to_f64().iter().sum()])];
    let input = || Param::In { init: Init::Uniform { lo: 0.0, hi: 1.0 }, elem: Elem::F32, len: N, offset: 0 };
    let cub = HostCall::new("cub::DeviceReduce::Sum", [0, 1], |args| {
        let sum = cub_sum()?;
        let n = i32::try_from(args.elements[0])?;
        // SAFETY: host/cub_sum.cu's signature; the pointers are the slots' live device buffers (n
        // floats in, one out) and the stream is the program's.
        let status =
            unsafe { sum(args.pointers[0] as *const f32, args.pointers[1] as *mut f32, n, args.stream.cast()) };
        if status == 0 { Ok(()) } else { Err(format!("cub_sum returned cudaError_t {status}").into()) }
    })
    .needs(|| Ok(cub_sum().map(drop)?));
    vec![
        Case::new("sum", "atomic", "16M", k::reduce::sum_atomic)
            .launch(Launch::grid2d([BLOCKS as u32, 1], [THREADS as u32, 1]))
            .params([input(), Param::Zeroed { len: 1, elem: Elem::F32 }, Param::I32(N as i32)])
            .reference_data(sum)
            // The longest chain of additions: N / (BLOCKS x THREADS) in a thread, 5 + 5 shuffles, one
            // atomicAdd per block.
            .tolerance(Tolerance::summation(N / (BLOCKS * THREADS) + 10 + BLOCKS))
            .bytes(4 * N as u64)
            .flops(N as u64),
        Case::program("sum", "cub", "16M")
            .params([input(), Param::output(1)])
            .step(Step::Host(cub))
            .reference_data(sum)
            // CUB's chain is its own: a bound for chains up to 4096 additions (2^24 elements over at
            // least 4096 threads, fewer than any DeviceReduce grid on these GPUs runs).
            .tolerance(Tolerance::summation(4096))
            .bytes(4 * N as u64)
            .flops(N as u64)
            .vendor_reference("CUB"),
    ]
}

/// `cub_sum` of host/cub_sum.cu: `(in, out, n, stream) -> cudaError_t`.
type CubSum = unsafe extern "C" fn(*const f32, *mut f32, i32, *mut std::ffi::c_void) -> i32;

/// The host library's `cub_sum`, from `target/host/libcubsum.so` (scripts/build-host) or the file
/// `ADOPTER_CUB_LIB` names, loaded once.
fn cub_sum() -> Result<CubSum, String> {
    static LIB: std::sync::OnceLock<Result<libloading::Library, String>> = std::sync::OnceLock::new();
    let lib = LIB.get_or_init(|| {
        let path = std::env::var_os("ADOPTER_CUB_LIB").unwrap_or_else(|| "target/host/libcubsum.so".into());
        // SAFETY: runs the library's initializers (the CUDA runtime's), which touch no state of ours.
        unsafe { libloading::Library::new(&path) }.map_err(|e| {
            format!(
                "cannot load {} ({e}): build it with scripts/build-host (nvcc), with the CUDA runtime \
                 (libcudart.so.13) on the loader path",
                std::path::Path::new(&path).display()
            )
        })
    });
    let lib = lib.as_ref().map_err(Clone::clone)?;
    // SAFETY: host/cub_sum.cu defines `cub_sum` extern "C" with the signature of `CubSum`.
    unsafe { lib.get::<CubSum>(b"cub_sum") }.map(|f| *f).map_err(|e| format!("no cub_sum in the host library: {e}"))
}

/// Threads per block of the row-sum variants: one source (gpu/rowsum.cu) built three times with
/// `-DBLOCK=<threads>`.
const ROW_SUM_BLOCKS: [u32; 3] = [32, 256, 1024];

/// The kernel of gpu/rowsum.cu at `block` threads per block, a variant `b<block>` each.
fn row_sums() -> Vec<Case> {
    const ROWS: usize = 16384;
    const COLS: usize = 4096;
    let sums = |d: &[HostData]| vec![HostData::F64(d[0].to_f64().chunks(COLS).map(|r| r.iter().sum()).collect())];
    let reference: kernelgate::case::Reference = std::sync::Arc::new(sums);
    ROW_SUM_BLOCKS
        .iter()
        .map(|&block| {
            // The longest chain of additions: COLS / block in a thread, then log2(block) in the tree.
            let chain = COLS / block as usize + block.trailing_zeros() as usize;
            Case::new(
                "rowsum",
                format!("b{block}"),
                format!("{ROWS}x{COLS}"),
                k::rowsum::row_sum.define("BLOCK", block),
            )
            .launch(Launch::grid2d([ROWS as u32, 1], [block, 1]))
            .params([
                Param::In { init: Init::Uniform { lo: 0.0, hi: 1.0 }, elem: Elem::F32, len: ROWS * COLS, offset: 0 },
                Param::output(ROWS),
                Param::I32(COLS as i32),
            ])
            .reference_shared(&reference)
            .tolerance(Tolerance::summation(chain))
            .bytes(4 * (ROWS * COLS + ROWS) as u64)
            .flops((ROWS * COLS) as u64)
        })
        .collect()
}

/// The row-sum family's lesson, timed in pairs in one trial (`rowsum/b256_vs_b1024/16384x4096`):
/// a block as wide as a quarter of the row gives each thread 4 loads and then 10 barrier-separated
/// steps of the tree, and 2 such blocks fill an SM, so it waits in the tree instead of loading;
/// 8 blocks of 256 threads overlap one block's tree with the others' loads.
fn lessons() -> Vec<TimeLesson> {
    vec![TimeLesson {
        family: "rowsum",
        good: "b256",
        bad: "b1024",
        per: "time per launch",
        // docs/lessons.md's rule (halfway from the worst of 10 H200 runs to 1, rounded up) on
        // 0.548-0.550 (BENCHMARK.md, b80).
        bound: 0.78,
        why: "blocks of 1024 threads on rows of 4096 floats spend their time in the tree's barriers, not loading",
    }]
}

/// The kernels of gpu/softmax.ptx, gpu/softmax_sm90.cubin and gpu/softmax_all.fatbin, modules nvcc
/// built from one source (scripts/build-modules from nvcc/softmax.cu): row softmax of a bf16
/// matrix, a warp per row and a block per row, against a reference in f64. The PTX is compiled for
/// the GPU by the driver when it loads it; the cubin is sm_90 machine code, loaded as it is (its
/// compile trial for sm_80 has nothing to gate); the fatbin holds cubins for sm_80 and sm_90 and
/// PTX, and the driver picks the part for its GPU.
fn prebuilt() -> Vec<Case> {
    const ROWS: usize = 16384;
    const COLS: usize = 1024;
    let softmax = |d: &[HostData]| {
        let mut y = Vec::with_capacity(ROWS * COLS);
        for row in d[0].to_f64().chunks(COLS) {
            let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let sum: f64 = row.iter().map(|v| (v - max).exp()).sum();
            y.extend(row.iter().map(|v| (v - max).exp() / sum));
        }
        vec![HostData::F64(y)]
    };
    let params = || {
        [
            Param::input(ROWS * COLS).of(Elem::BF16),
            Param::output(ROWS * COLS).of(Elem::BF16),
            Param::I32(ROWS as i32),
            Param::I32(COLS as i32),
        ]
    };
    let bytes = (2 * 2 * ROWS * COLS) as u64;
    let case = |variant: &str, kernel, launch| {
        Case::new("softmax", variant, format!("{ROWS}x{COLS}"), kernel)
            .launch(launch)
            .params(params())
            .reference_data(softmax)
            // __expf and a float sum (fast math), then one rounding to bf16.
            .tolerance(Tolerance::ulps(1))
            .bytes(bytes)
    };
    let (warp, block) =
        (|| Launch::grid2d([(ROWS / 4) as u32, 1], [128, 1]), || Launch::grid2d([ROWS as u32, 1], [256, 1]));
    vec![
        case("warp", k::softmax::softmax_warp_1024, warp()),
        case("block", k::softmax::softmax_block_256, block()),
        case("warp_cubin", k::softmax_sm90::softmax_warp_1024, warp()),
        case("block_cubin", k::softmax_sm90::softmax_block_256, block()),
        case("warp_fatbin", k::softmax_all::softmax_warp_1024, warp()),
    ]
}

/// The kernels of gpu/precision.cu: bfloat16, half and FP8 E4M3 buffers, references in f64.
fn narrow_types() -> Vec<Case> {
    const ROWS: usize = 4096;
    const COLS: usize = 4096;
    const EPS: f32 = 1e-6;
    // Each row's 1 / rms and the normalized row, exactly (f64), from the bf16 inputs.
    let rmsnorm = |d: &[HostData]| {
        let (x, w) = (d[0].to_f64(), d[1].to_f64());
        let mut y = Vec::with_capacity(ROWS * COLS);
        let mut rstd = Vec::with_capacity(ROWS);
        for row in x.chunks(COLS) {
            let r = 1.0 / (row.iter().map(|v| v * v).sum::<f64>() / COLS as f64 + f64::from(EPS)).sqrt();
            y.extend(row.iter().zip(&w).map(|(v, w)| v * r * w));
            rstd.push(r);
        }
        vec![HostData::F64(y), HostData::F64(rstd)]
    };
    let silu = |d: &[HostData]| vec![HostData::F64(d[0].to_f64().iter().map(|x| x / (1.0 + (-x).exp())).collect())];
    const SCALE: f32 = 600.0;
    // The kernel's own product in f32, then FP8 with saturation: bit for bit what cvt does.
    let quantize =
        |d: &[HostData]| vec![HostData::rounded(Elem::E4M3, d[0].f32().iter().map(|x| f64::from(x * SCALE)))];
    vec![
        Case::new("precision", "rmsnorm_bf16", format!("{ROWS}x{COLS}"), k::precision::rmsnorm_bf16)
            .launch(Launch::grid2d([ROWS as u32, 1], [256, 1]))
            .params([
                Param::input(ROWS * COLS).of(Elem::BF16),
                Param::input(COLS).of(Elem::BF16),
                Param::output(ROWS * COLS).of(Elem::BF16),
                Param::output(ROWS),
                Param::I32(COLS as i32),
                Param::F32(EPS),
            ])
            .reference_data(rmsnorm)
            // rstd: rsqrtf (2 ulp) of a float sum of 4096 squares; y: one rounding to bf16.
            .tolerance(Tolerance::abs_rel(0.0, 1e-5))
            .tolerance_of(2, Tolerance::ulps(1))
            .bytes((2 * ROWS * COLS * 2 + 2 * COLS + 4 * ROWS) as u64)
            .flops((4 * ROWS * COLS) as u64),
        Case::new("precision", "silu_f16", "16M", k::precision::silu_f16)
            .launch(Launch::linear(N, 256))
            .params([
                Param::In { init: Init::Uniform { lo: -8.0, hi: 8.0 }, elem: Elem::F16, len: N, offset: 0 },
                Param::output(N).of(Elem::F16),
                Param::I32(N as i32),
            ])
            .reference_data(silu)
            .tolerance(Tolerance::ulps(1)) // computed in float, rounded once to half
            .bytes(4 * N as u64),
        Case::new("precision", "quantize_e4m3", "16M", k::precision::quantize_e4m3)
            .launch(Launch::linear(N, 256))
            .params([Param::input(N), Param::output(N).of(Elem::E4M3), Param::F32(SCALE), Param::I32(N as i32)])
            .reference_data(quantize)
            .tolerance(Tolerance::EXACT) // bit for bit
            .bytes(5 * N as u64),
    ]
}

kernelgate::main!(Table::new(cases, &BUILD).with_lessons(lessons));
