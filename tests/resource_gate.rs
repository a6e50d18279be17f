//! The resource gate on a real compile (NVRTC, no GPU): a kernel file is blessed, then changed the
//! way a commit would change it, and the compile trial's gate must fail with before → after.
//!
//! Runs wherever NVRTC is found; CI fetches it (scripts/get-nvrtc) and sets
//! KERNELGATE_REQUIRE_NVRTC=1, which turns its absence into a failure instead of a skip.

mod support;

use kernelgate::resources::{self, Checked, FileTrial, LaunchShape};
use kernelgate::{Kernel, KernelSource};
use std::path::Path;

const FILE: &str = "accumulate.cu";
const BLOCK: u32 = 256;

/// `accumulate` with `n` independent accumulators per thread, fully unrolled so each lives in a
/// register; `bounds` is a `__launch_bounds__` clause (or nothing).
fn source(n: u32, bounds: &str) -> KernelSource {
    let text = format!(
        "#define N {n}\n\
         extern \"C\" __global__ void {bounds} accumulate(const float* x, float* y, int steps)\n\
         {{\n\
             float acc[N];\n\
         #pragma unroll\n\
             for (int i = 0; i < N; ++i) acc[i] = 0.0f;\n\
             for (int k = 0; k < steps; ++k) {{\n\
                 float v = x[k * blockDim.x + threadIdx.x];\n\
         #pragma unroll\n\
                 for (int i = 0; i < N; ++i) acc[i] = fmaf(acc[i], v, (float)(i + 1));\n\
             }}\n\
         #pragma unroll\n\
             for (int i = 0; i < N; ++i) y[i * blockDim.x + threadIdx.x] = acc[i];\n\
         }}\n"
    );
    KernelSource {
        file: FILE,
        path: "kernels/accumulate.cu",
        source: text.leak(),
        sha256: "",
        entries: &["accumulate"],
        templates: &[],
        options: &[],
    }
}

fn check(source: &KernelSource, baselines: &Path, bless: bool) -> Checked {
    let launches = [LaunchShape { kernel: Kernel::new(FILE, "accumulate"), block: BLOCK, shared_dynamic: 0 }];
    let trial =
        FileTrial { source, arch: "sm_90", launches: &launches, baselines, bless, files: &[FILE], arities: &[] };
    resources::check_file(&trial, None).expect("NVRTC compiles the file")
}

/// The two numbers of `<what> A → B` in `text`.
fn before_after(text: &str, what: &str) -> (f64, f64) {
    let rest = &text[text.find(what).unwrap_or_else(|| panic!("no `{what}` in: {text}")) + what.len()..];
    let mut numbers = rest.split(['→', ',', ' ', '%']).filter_map(|w| w.trim().parse::<f64>().ok());
    (numbers.next().unwrap(), numbers.next().unwrap())
}

/// Without NVRTC: says why on stderr, or fails under `KERNELGATE_REQUIRE_NVRTC=1` (CI).
fn nvrtc_missing() -> bool {
    !support::nvrtc_found()
}

#[test]
fn more_accumulators_fail_the_gate_with_before_and_after() {
    if nvrtc_missing() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let blessed = check(&source(4, ""), tmp.path(), true);
    assert_eq!(blessed.failure(), None);
    assert_eq!(check(&source(4, ""), tmp.path(), false).failure(), None, "the blessed file passes");

    let grown = check(&source(64, ""), tmp.path(), false);
    let message = grown.failure().expect("64 accumulators cross an occupancy step");
    eprintln!("{message}");
    assert!(message.starts_with("resource gate: kernels/accumulate.cu for sm_90 against "), "{message}");
    let line = message.lines().nth(1).unwrap().trim();
    assert!(line.starts_with("accumulate: registers "), "{line}");
    assert!(line.ends_with("at block 256; if intended, re-bless with KERNELGATE_BLESS=1"), "{line}");
    assert_eq!(
        message.lines().last().unwrap(),
        "  if intended: KERNELGATE_BLESS=1 cargo test --release --test kernels -- compile/accumulate.cu/",
        "the trial's message ends with the command that re-blesses its file"
    );
    let (regs_before, regs_after) = before_after(line, "registers ");
    let (pct_before, pct_after) = before_after(line, "occupancy ");
    assert!(regs_after > regs_before + 32.0, "{line}");
    assert!(pct_after < pct_before, "{line}");
    assert_eq!(grown.rows[0].regs as f64, regs_after);

    // Re-blessed, the larger kernel is the new reference and passes.
    check(&source(64, ""), tmp.path(), true);
    assert_eq!(check(&source(64, ""), tmp.path(), false).failure(), None);
}

#[test]
fn a_new_spill_fails_the_gate() {
    if nvrtc_missing() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    check(&source(64, ""), tmp.path(), true);
    // 8 blocks of 256 threads per SM leave 32 registers per thread: 64 accumulators spill.
    let capped = check(&source(64, "__launch_bounds__(256, 8)"), tmp.path(), false);
    let message = capped.failure().expect("a capped register budget spills");
    eprintln!("{message}");
    let line = message.lines().nth(1).unwrap();
    assert!(line.contains("spill stores 0 → ") && line.ends_with("re-bless with KERNELGATE_BLESS=1"), "{line}");
    assert!(capped.rows[0].spill_store_bytes > 0 && capped.rows[0].regs <= 32, "{:?}", capped.rows);
}

#[test]
fn each_set_of_definitions_is_a_build_with_rows_of_its_own() {
    if nvrtc_missing() {
        return;
    }
    // A file written for -DN=... alone, as a KernelTuner kernel is: the file as it is does not
    // compile, and no case launches it so, so the trial compiles only the two definitions.
    let text = source(4, "").source.replacen("#define N 4\n", "#ifndef N\n#error define N\n#endif\n", 1);
    let file = KernelSource { source: text.leak(), ..source(4, "") };
    let accumulate = Kernel::new(FILE, "accumulate");
    let launches = [4, 64].map(|n| LaunchShape { kernel: accumulate.define("N", n), block: BLOCK, shared_dynamic: 0 });
    let check = |baselines: &Path, bless: bool| {
        let trial = FileTrial {
            source: &file,
            arch: "sm_90",
            launches: &launches,
            baselines,
            bless,
            files: &[FILE],
            arities: &[],
        };
        resources::check_file(&trial, None).expect("NVRTC compiles each build")
    };
    let tmp = tempfile::tempdir().unwrap();
    let blessed = check(tmp.path(), true);
    let names: Vec<&str> = blessed.rows.iter().map(|r| r.kernel.as_str()).collect();
    assert_eq!(names, ["accumulate -DN=4", "accumulate -DN=64"], "{:?}", blessed.rows);
    assert!(blessed.rows[1].regs > blessed.rows[0].regs + 32, "{:?}", blessed.rows);
    assert_eq!(check(tmp.path(), false).failure(), None, "both builds pass against their own rows");
    let table = std::fs::read_to_string(tmp.path().join("sm_90").join(resources::RESOURCES_FILE)).unwrap();
    assert!(table.contains("accumulate -DN=4") && table.contains("accumulate -DN=64"), "{table}");
}

#[test]
fn a_build_that_does_not_compile_is_named_with_its_definitions() {
    if nvrtc_missing() {
        return;
    }
    let text = source(4, "").source.replacen("#define N 4\n", "#ifndef N\n#error define N\n#endif\n", 1);
    let file = KernelSource { source: text.leak(), ..source(4, "") };
    let launches =
        [LaunchShape { kernel: Kernel::new(FILE, "accumulate").define("N", "x"), block: BLOCK, shared_dynamic: 0 }];
    let tmp = tempfile::tempdir().unwrap();
    let trial = FileTrial {
        source: &file,
        arch: "sm_90",
        launches: &launches,
        baselines: tmp.path(),
        bless: false,
        files: &[FILE],
        arities: &[],
    };
    let message = resources::check_file(&trial, None).unwrap_err().to_string();
    // Named as the run names the file (its path where a run read it), then the definitions.
    assert!(message.starts_with("NVRTC failed to compile accumulate.cu with -DN=x for sm_90"), "{message}");
}
