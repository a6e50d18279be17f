//! NVRTC's include path: a kernel includes a header of the CUDA toolkit named by `CUDA_HOME`
//! (here a folder made for the test, holding one header), and a header found nowhere is named in
//! the compile error with where NVRTC looked. One test in its own process: the include path is
//! found once per process (and project root). Runs wherever NVRTC is found; CI sets
//! KERNELGATE_REQUIRE_NVRTC=1.

mod support;

use kernelgate::compile;

#[test]
fn a_header_of_the_toolkit_is_found_and_a_missing_one_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let include = tmp.path().join("include");
    std::fs::create_dir_all(&include).unwrap();
    std::fs::write(include.join("twice.cuh"), "__device__ __forceinline__ float twice(float v) { return 2.0f * v; }\n")
        .unwrap();
    // SAFETY: the only test of this process, before any thread of its own or any compile reads it.
    unsafe { std::env::set_var("CUDA_HOME", tmp.path()) };
    if !support::nvrtc_found() {
        return;
    }
    let source = "#include <twice.cuh>\nextern \"C\" __global__ void k(float* x) { x[0] = twice(x[0]); }\n";
    let compiled =
        compile::compile_with_log("k.cu", "k.cu", source, "sm_90", &[], &[], None).expect("the header is found");
    assert!(compiled.ptx.contains(".visible .entry k("), "{}", compiled.ptx);
    let missing = "#include <nowhere.cuh>\nextern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }\n";
    let err = compile::compile_with_log("k.cu", "k.cu", missing, "sm_90", &[], &[], None).unwrap_err().to_string();
    assert!(err.contains("cannot open source file \"nowhere.cuh\""), "NVRTC's own line: {err}");
    let searched = format!("(the include path {})", include.display());
    assert!(err.contains(&format!("kernelgate: NVRTC found no \"nowhere.cuh\" {searched}")), "{err}");
}
