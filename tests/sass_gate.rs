//! The SASS gate on a real compile (NVRTC and nvdisasm, no GPU): a kernel file is blessed, then
//! changed the way a commit would change it, and the gate must fail with the classes and opcodes
//! that moved; a case's declared expectation fails a build that breaks its lesson, bless included.
//!
//! Runs wherever NVRTC and nvdisasm are found; CI fetches both (scripts/get-nvrtc) and sets
//! KERNELGATE_REQUIRE_NVRTC=1, which turns their absence into a failure instead of a skip.

mod support;

use kernelgate::sass::{self, Checked, Declared, FileTrial, SassExpectation};
use kernelgate::{KernelSource, compile};
use std::path::Path;

const FILE: &str = "copy.cu";

/// A copy kernel moving `float4`s (one `LDG.E.128` and one `STG.E.128`), or the same bytes as
/// floats (four `LDG.E` and four `STG.E` per thread): the change that loses vectorization.
fn source(vectorized: bool) -> KernelSource {
    let text = if vectorized {
        "extern \"C\" __global__ void copy(const float4* __restrict__ in, float4* __restrict__ out, int n4)\n\
         { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n4) out[i] = in[i]; }\n"
    } else {
        "extern \"C\" __global__ void copy(const float* __restrict__ in, float* __restrict__ out, int n4)\n\
         { int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
           if (i < n4) { for (int j = 0; j < 4; ++j) out[4 * i + j] = in[4 * i + j]; } }\n"
    };
    KernelSource {
        file: FILE,
        path: "kernels/copy.cu",
        source: text,
        sha256: "",
        entries: &["copy"],
        templates: &[],
        options: &[],
    }
}

fn check(source: &KernelSource, baselines: &Path, bless: bool, declared: &[Declared]) -> Checked {
    let compiled = compile::compile_with_log(source.file, source.file, source.source, "sm_90", &[], &[], None)
        .expect("NVRTC compiles the file");
    let (major, minor) = compile::nvrtc_version().unwrap();
    let trial = FileTrial { source, arch: "sm_90", baselines, bless, files: &[FILE], declared, launches: &[] };
    sass::check(&trial, &compiled.cubin, &compiled.lowered, &format!("{major}.{minor}"))
        .expect("nvdisasm reads the cubin")
}

#[test]
fn lost_vectorization_fails_the_gate_with_the_opcodes_that_changed() {
    if !support::compile_tools_found() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let blessed = check(&source(true), tmp.path(), true, &[]);
    assert_eq!(
        blessed.blessed.as_deref(),
        Some(&["copy.cu copy: new (17 instructions)".to_string()][..]),
        "{blessed:?}"
    );
    assert_eq!(blessed.classes["copy"]["global_ld.128"], 1);
    let again = check(&source(true), tmp.path(), false, &[]);
    assert_eq!(again.failure(), None, "the same code passes");
    let scalar = check(&source(false), tmp.path(), false, &[]);
    let failure = scalar.failure().expect("the gate fails");
    assert!(failure.starts_with("SASS gate: kernels/copy.cu for sm_90 against "), "{failure}");
    for moved in ["global_ld.32 0 → 4", "global_ld.128 1 → 0", "global_st.128 1 → 0", "LDG.E.128.CONSTANT 1 → 0"]
    {
        assert!(failure.contains(moved), "{moved}: {failure}");
    }
    assert!(kernelgate::resources::gate::is_gate_failure(&scalar.failures[0]), "a regression (exit code 3)");
}

#[test]
fn a_declared_expectation_fails_a_build_that_breaks_the_lesson_even_when_blessing() {
    if !support::compile_tools_found() {
        return;
    }
    let declared = [Declared {
        file: FILE,
        function: "copy",
        expectation: SassExpectation::class("global_ld.128").present().because("a float4 load is one LDG.E.128"),
        trial: "vectorization/copy_vec4/1".into(),
    }];
    let tmp = tempfile::tempdir().unwrap();
    assert_eq!(check(&source(true), tmp.path(), true, &declared).failure(), None);
    let broken = check(&source(false), tmp.path(), true, &declared);
    assert_eq!(
        broken.failures,
        ["copy (vectorization/copy_vec4/1): global_ld.128: 0 instruction(s), expected at least 1 (a float4 load is \
          one LDG.E.128)"]
    );
    assert!(!kernelgate::resources::gate::is_gate_failure(&broken.failures[0]), "a broken lesson, not a regression");
    assert_eq!(broken.blessed, None, "nothing was blessed");
    assert_eq!(check(&source(true), tmp.path(), false, &declared).failure(), None, "the table still holds float4 code");
}

#[test]
fn a_comment_moves_the_ptx_and_not_the_sass() {
    use kernelgate::sass::same::{Code, compare};
    if !support::compile_tools_found() {
        return;
    }
    // A real kernel file, and the same file under one more comment line: every `-lineinfo` line
    // of the PTX moves, no instruction does, so same-run A/B has nothing to time.
    let a = include_str!("../kernels/coalescing.cu");
    let b = format!("// a comment that moves every line below it\n{a}");
    let ptx = |text: &str| {
        compile::compile_with_log("coalescing.cu", "coalescing.cu", text, "sm_90", &[], &[], None).unwrap().ptx
    };
    assert_ne!(ptx(a), ptx(&b), "the PTX differs");
    assert_eq!(compare("coalescing.cu", "coalescing.cu", (a, &[]), (&b, &[]), "sm_90", &[], None).unwrap(), Code::Same);
    // Lost vectorization is other code, in the one function it touched.
    let (vec4, scalar) = (source(true), source(false));
    assert_eq!(
        compare(FILE, FILE, (vec4.source, &[]), (scalar.source, &[]), "sm_90", &[], None).unwrap(),
        Code::Differs(vec!["copy".to_string()])
    );
    // One text with other options (a revision's kernelgate.toml without fast math) is other code.
    let text = "extern \"C\" __global__ void e(float* x) { x[threadIdx.x] = expf(x[threadIdx.x]); }\n";
    assert_eq!(
        compare("e.cu", "e.cu", (text, &[]), (text, &["--use_fast_math"]), "sm_90", &[], None).unwrap(),
        Code::Differs(vec!["e".to_string()])
    );
}
