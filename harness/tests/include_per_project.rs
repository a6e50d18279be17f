//! The header folders of a process's compiles are each project's: without a CUDA toolkit, a
//! kernel finds the headers `scripts/get-nvrtc` put into its own project's `.nvrtc/include`, also
//! after another project's kernels were compiled in the same process (an embedded run started in
//! one project's folder, then in another's; `kernelgate::compile::include_options`). One test in
//! its own process, which unsets `CUDA_HOME` and `CUDA_PATH` (a toolkit's headers come first and
//! alone). Runs wherever NVRTC is found and `/usr/local/cuda` is not; CI sets
//! KERNELGATE_REQUIRE_NVRTC=1.

use kernelgate::compile;
use std::path::Path;

/// A project at `dir` whose `.nvrtc/include/value.cuh` defines `PROJECT_VALUE` as `value`.
fn project(dir: &Path, value: u32) {
    let include = dir.join(".nvrtc/include");
    std::fs::create_dir_all(&include).unwrap();
    std::fs::write(dir.join("kernelgate.toml"), "").unwrap();
    std::fs::write(include.join("value.cuh"), format!("#define PROJECT_VALUE {value}\n")).unwrap();
}

#[test]
fn two_projects_in_one_process_compile_with_their_own_headers() {
    if let Err(e) = compile::nvrtc_available() {
        assert!(std::env::var_os("KERNELGATE_REQUIRE_NVRTC").is_none(), "{e}");
        eprintln!("skipped: {e}");
        return;
    }
    // SAFETY: the only test of this process, before any thread of its own or any compile reads
    // them (NVRTC is loaded above: CUDA_HOME may have been where it was found).
    unsafe {
        std::env::remove_var("CUDA_HOME");
        std::env::remove_var("CUDA_PATH");
    }
    if Path::new("/usr/local/cuda/include").is_dir() {
        eprintln!("skipped: /usr/local/cuda's headers come before a project's");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    project(&a, 11);
    project(&b, 22);
    let include = |p: &Path| vec![format!("--include-path={}", p.join(".nvrtc/include").display())];
    assert_eq!(compile::include_options(Some(&a)), include(&a));
    assert_eq!(compile::include_options(Some(&b)), include(&b), "not the first project's");
    assert_eq!(compile::include_options(None), Vec::<String>::new(), "no project: no folder");

    let text = "#include <value.cuh>\nextern \"C\" __global__ void k(int* x) { x[0] = PROJECT_VALUE; }\n";
    let stores =
        |ptx: &str, v: u32| ptx.lines().any(|l| l.trim_start().starts_with("mov.") && l.ends_with(&format!(", {v};")));
    for (root, value) in [(&a, 11), (&b, 22), (&a, 11)] {
        // The trials' compile (kept per process) and the compile trials' (with ptxas's report).
        let made = compile::module_ptx("k.cu", "kernels/k.cu", text, "sm_90", &[], &[], Some(root)).unwrap();
        assert!(stores(&made.ptx.to_src(), value), "{}: {}", root.display(), made.ptx.to_src());
        let compiled = compile::compile_with_log("k.cu", "kernels/k.cu", text, "sm_90", &[], &[], Some(root)).unwrap();
        assert!(stores(&compiled.ptx, value), "{}: {}", root.display(), compiled.ptx);
    }
    // A header only the other project has is named with where this project's compile looked.
    std::fs::write(b.join(".nvrtc/include/only_b.cuh"), "#define ONLY_B 1\n").unwrap();
    let text = "#include <only_b.cuh>\nextern \"C\" __global__ void k(int* x) { x[0] = ONLY_B; }\n";
    assert!(compile::compile_with_log("k.cu", "k.cu", text, "sm_90", &[], &[], Some(&b)).is_ok());
    let err = compile::compile_with_log("k.cu", "k.cu", text, "sm_90", &[], &[], Some(&a)).unwrap_err().to_string();
    let searched = format!("(the include path {})", a.join(".nvrtc/include").display());
    assert!(err.contains(&format!("kernelgate: NVRTC found no \"only_b.cuh\" {searched}")), "{err}");
}
