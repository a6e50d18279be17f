//! `kernelgate compile FILE`: a kernel file compiled as it is on disk through the compile trials'
//! checks (NVRTC and nvdisasm, no GPU). Runs wherever both are
//! found; CI fetches them (scripts/get-nvrtc) and sets KERNELGATE_REQUIRE_NVRTC=1, which turns
//! their absence into a failure instead of a skip.

mod support;

use std::path::Path;
use std::process::Command;

/// Exit code and stdout of `kernelgate compile <args>` run in the project root.
fn compile(args: &[&str]) -> (i32, String) {
    compile_with(args, &[])
}

/// As [`compile`], with the variables `env` set too.
fn compile_with(args: &[&str], env: &[(&str, &Path)]) -> (i32, String) {
    let out = Command::new(support::kernelgate_binary())
        .arg("compile")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("KERNELGATE_OUT_DIR", support::case_facts_dir())
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn a_suite_file_as_blessed_passes_and_prints_its_figures() {
    if !support::compile_tools_found() {
        return;
    }
    let (code, out) = compile(&["kernels/vectorization.cu"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("kernelgate: kernel resources from ptxas 1"), "{out}");
    assert!(out.contains("kernelgate: SASS from nvdisasm"), "{out}");
    for arch in ["sm_80", "sm_90"] {
        assert!(out.contains(&format!("{arch}  vectorization/copy_vec4")), "{out}");
    }
}

#[test]
fn the_planted_file_is_gated_with_its_cases_as_the_compile_trials_gate_it() {
    if !support::compile_tools_found() {
        return;
    }
    // Its cases join a run only with KERNELGATE_PLANTED=1, but the compile trials always gate it.
    let (code, out) = compile(&["harness/kernels/planted.cu", "--arch", "sm_90"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.ends_with("kernelgate: compile: 1 file(s) for sm_90: every check passed\n"), "{out}");
}

#[test]
fn a_kernel_renamed_under_the_cases_is_named_not_offered_for_bless() {
    // Checked before NVRTC runs: no tools needed.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/transpose.cu")).unwrap();
    let renamed = dir.path().join("transpose.cu");
    std::fs::write(&renamed, text.replace("void transpose_naive(", "void transpose_naive_renamed(")).unwrap();
    let (code, out) = compile(&[renamed.to_str().unwrap(), "--arch", "sm_90"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("transpose.cu: no longer declares the extern \"C\" __global__ kernel `transpose_naive`, which the case table launches"),
        "{out}"
    );
    assert!(
        out.contains(
            "rename `k::transpose::transpose_naive` in the case table too (`grep -rnw transpose_naive` over its files \
             finds it), then bless the new name"
        ),
        "{out}"
    );
    assert!(!out.contains("new kernels and launch configurations must be blessed"), "not offered for bless: {out}");
}

#[test]
fn an_edit_on_disk_is_gated_without_a_rebuild() {
    if !support::compile_tools_found() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("kernels/vectorization.cu")).unwrap();
    let edited = text.replacen("if (i < n4) out[i] = in[i];", "if (i < n4) out[i] = in[i];\n    __syncthreads();", 1);
    assert_ne!(edited, text, "the float4 copy's body is where the test expects it");
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("vectorization.cu");
    std::fs::write(&file, edited).unwrap();
    let (code, out) = compile(&[file.to_str().unwrap(), "--arch", "sm_90"]);
    assert_eq!(code, 3, "only the gate failed: {out}");
    assert!(out.contains(&format!("SASS gate: {} for sm_90", file.display())), "named as given: {out}");
    assert!(out.contains("copy_vec4: instructions 17 → 20, barrier 0 → 1"), "{out}");
}

#[test]
fn a_new_kernel_is_told_to_bless_its_own_file() {
    if !support::compile_tools_found() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("kernels/vectorization.cu")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("vectorization.cu");
    std::fs::write(&file, text + "extern \"C\" __global__ void brand_new(float* x) { x[threadIdx.x] = 1.0f; }\n")
        .unwrap();
    let (code, out) = compile(&[file.to_str().unwrap(), "--arch", "sm_90"]);
    assert_eq!(code, 3, "only the gates failed: {out}");
    let bless = "must be blessed: KERNELGATE_BLESS=1 cargo test --release --test kernels -- compile/vectorization.cu/";
    let hinted: Vec<&str> = out.lines().filter(|l| l.contains("brand_new: not in ")).collect();
    assert_eq!(hinted.len(), 2, "the resource gate's line and the SASS gate's: {out}");
    assert!(hinted.iter().all(|l| l.ends_with(bless)), "{out}");
}

#[test]
fn a_kernel_with_cpp_linkage_is_named_with_the_fix() {
    if !support::compile_tools_found() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("mine.cu");
    let text = "__global__ void square(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] *= x[i]; }\n\
                extern \"C\" __global__ void ok(float* x) { x[0] = 1.0f; }\n";
    std::fs::write(&file, text).unwrap();
    let (code, out) = compile(&[file.to_str().unwrap(), "--arch", "sm_90"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("square (PTX entry _Z6squarePfi) has C++ linkage"), "{out}");
    // Not the resource gate's failure: the entry points are checked before any figure is read.
    assert!(out.contains(&format!("entry points: {} for sm_90: ", file.display())), "{out}");
    assert!(!out.contains("resource gate:"), "{out}");
    // Nothing compiled to figures: no empty resources table, no unknown NVRTC.
    assert!(!out.contains("kernel resources from NVRTC's ptxas") && !out.contains("NVRTC ?"), "{out}");
}

#[test]
fn a_file_outside_the_tree_is_named_by_the_path_given() {
    if !support::compile_tools_found() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("samplereduce.cu");
    std::fs::write(&file, "extern \"C\" __global__ void samplereduce(float* x) { x[0] = y; }\n").unwrap();
    let (code, out) = compile(&[file.to_str().unwrap(), "--arch", "sm_90"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(&format!("NVRTC failed to compile {} for sm_90", file.display())), "{out}");
    assert!(!out.contains("kernels/samplereduce.cu"), "{out}");
    // An entry-point mismatch is named the same way.
    std::fs::write(&file, "__global__ void samplereduce(float* x) { x[0] = 1.0f; }\n").unwrap();
    let (_, out) = compile(&[file.to_str().unwrap(), "--arch", "sm_90"]);
    assert!(out.contains(&format!("{}: the source defines entry points []", file.display())), "{out}");
    assert!(!out.contains("kernels/samplereduce.cu"), "{out}");
}

#[test]
fn wrappers_a_macro_makes_are_named_as_the_cause_with_the_fix() {
    if !support::compile_tools_found() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("scanmacro.cu");
    let text = "template <int B> __device__ void scan(int* x) { x[threadIdx.x] = B; }\n\
                #define WRAP(B) \\\n    extern \"C\" __global__ void scan_##B(int* x) { scan<B>(x); }\n\
                WRAP(128)\nWRAP(256)\n\
                extern \"C\" __global__ void plain(int* x) { x[0] = 1; }\n";
    std::fs::write(&file, text).unwrap();
    let (code, out) = compile(&[file.to_str().unwrap(), "--arch", "sm_90"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("the source defines entry points [\"plain\"] (as build.rs scans it)"), "{out}");
    assert!(out.contains("[\"scan_128\", \"scan_256\"] are likely made by the macro WRAP (line 2)"), "{out}");
    assert!(out.contains("write each wrapper out as `extern \"C\" __global__ void name(...)"), "{out}");
}

#[test]
fn an_architecture_without_tables_is_refused_up_front_with_the_ones_there_are() {
    // No NVRTC needed: the option is checked before anything compiles.
    for arch in ["sm_89", "90"] {
        let out = Command::new(support::kernelgate_binary())
            .args(["compile", "kernels/cub.cu", "--arch", arch])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "a bad option: {err}");
        assert!(err.contains(&format!("invalid value '{arch}' for '--arch <ARCH>'")), "{err}");
        assert!(err.contains("[possible values: sm_80, sm_90]"), "{err}");
    }
}

#[test]
fn a_file_written_for_definitions_is_built_with_define_and_its_figures_are_printed_ungated() {
    if !support::compile_tools_found() {
        return;
    }
    // A tuner's file that does not compile without its definitions, outside the kernel folders.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tiled.cu");
    std::fs::write(
        &file,
        "#ifndef TILE\n#error define TILE\n#endif\nextern \"C\" __global__ void tiled(float* x) { __shared__ float t[TILE]; \
         t[threadIdx.x] = x[threadIdx.x]; __syncthreads(); x[threadIdx.x] = t[TILE - 1 - threadIdx.x]; }\n",
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let (code, out) = compile(&[path, "--arch", "sm_90", "--define", "TILE=128"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("sm_90  tiled/tiled -DTILE=128"), "{out}");
    let (code, out) = compile(&[path, "--arch", "sm_90"]);
    assert_eq!(code, 1, "without it, the #error: {out}");
    assert!(out.contains("#error directive: define TILE"), "{out}");
    // A file of the project built with --define is figures only: its cases' rows are not gated.
    let (code, out) = compile(&["kernels/vectorization.cu", "--arch", "sm_90", "--define", "UNUSED=1"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("sm_90  vectorization/copy_vec4 -DUNUSED=1"), "{out}");
}

/// PTX of a newer ISA than the drivers that blessed the project's baselines load (the committed
/// H200 baseline records CUDA 13.0: PTX ISA 9.0 and older) is refused without a GPU, naming both
/// and the fix; at the ISA those drivers load, the same module compiles.
#[test]
fn ptx_newer_than_the_runners_drivers_is_named_without_a_gpu() {
    if !support::compile_tools_found() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("scale.ptx");
    let ptx = |isa: &str| {
        format!(".version {isa}\n.target sm_90\n.address_size 64\n\n.visible .entry scale()\n{{\n\tret;\n}}\n")
    };
    std::fs::write(&file, ptx("9.5")).unwrap();
    let (code, out) = compile(&[file.to_str().unwrap(), "--arch", "sm_90"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!("kernelgate: {} is PTX ISA 9.5, which the drivers that blessed ", file.display()))
            && out.contains("blessed baselines/nvidia-h200-sm90 (CUDA 13.0: PTX ISA 9.0 and older) cannot load")
            && out.contains("build it with a CUDA 13.0 toolkit"),
        "{out}"
    );
    std::fs::write(&file, ptx("9.0")).unwrap();
    let (code, out) = compile(&[file.to_str().unwrap(), "--arch", "sm_90"]);
    assert!(!out.contains("cannot load") && !out.contains("is not checked"), "{out}");
    assert_eq!(code, 0, "{out}");
    // A project with no GPU baseline yet is told the check did not run, not silently passed.
    std::fs::write(&file, ptx("9.5")).unwrap();
    let none = tmp.path().join("baselines");
    std::fs::create_dir_all(&none).unwrap();
    let (code, text) = compile_with(&[file.to_str().unwrap(), "--arch", "sm_90"], &[("KERNELGATE_BASELINES", &none)]);
    assert_eq!(code, 0, "not checked, and the rest passes: {text}");
    assert!(
        text.contains("no GPU baseline records the runners' driver release yet")
            && text.contains("(PTX ISA 9.5) is not checked"),
        "{text}"
    );
}
