//! The suite reads `kernels/*.cu` from the tree it runs in, when the run starts: an edit there is
//! tested without a rebuild, and a kernel the cases launch that the file no longer declares is
//! named with the fix. Each test runs the built suite binary in a copy of the project's kernels.

mod support;

use std::path::Path;

/// A project tree in a temp folder: `Cargo.toml` and `kernels/` (the project root kernelgate looks
/// for), this checkout's NVRTC folder, with `edit` applied to `kernels/<file>`'s text.
fn tree(file: &str, edit: impl Fn(&str) -> String) -> tempfile::TempDir {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("Cargo.toml"), "").unwrap();
    std::fs::create_dir(tmp.path().join("kernels")).unwrap();
    for entry in std::fs::read_dir(root.join("kernels")).unwrap() {
        let path = entry.unwrap().path();
        let mut text = std::fs::read_to_string(&path).unwrap();
        if path.file_name().unwrap() == file {
            text = edit(&text);
        }
        std::fs::write(tmp.path().join("kernels").join(path.file_name().unwrap()), text).unwrap();
    }
    if root.join(".nvrtc").exists() {
        std::os::unix::fs::symlink(root.join(".nvrtc"), tmp.path().join(".nvrtc")).unwrap();
    }
    tmp
}

/// Exit code and output of the suite binary run in `dir` with libtest arguments `args`, against
/// this checkout's baselines.
fn suite(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = tempfile::tempdir().unwrap();
    let o = support::command(support::kernels_binary())
        .current_dir(dir)
        .args(args)
        .env("KERNELGATE_BASELINES", Path::new(env!("CARGO_MANIFEST_DIR")).join("baselines"))
        .env("KERNELGATE_HISTORY", "off")
        .env("KERNELGATE_OUT_DIR", out.path())
        .env_remove("KERNELGATE_JUNIT")
        .env_remove("KERNELGATE_REQUIRE_GPU")
        .env_remove("NEXTEST")
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)),
    )
}

#[test]
fn a_kernel_renamed_since_the_build_fails_its_compile_trial_with_the_fix() {
    // Checked before NVRTC runs: no tools needed.
    let dir = tree("transpose.cu", |t| t.replace("void transpose_naive(", "void transpose_naive_renamed("));
    let (code, out) = suite(dir.path(), &["--exact", "compile/transpose.cu/sm_90"]);
    assert_eq!(code, 101, "{out}");
    assert!(
        out.contains(
            "kernels/transpose.cu: no longer declares the extern \"C\" __global__ kernel `transpose_naive`, which the \
             case table launches"
        ),
        "{out}"
    );
    assert!(out.contains("`transpose_naive_renamed`"), "what the file declares: {out}");
}

#[test]
fn a_kernel_added_to_the_tree_is_compiled_without_a_rebuild() {
    if !support::compile_tools_found() {
        return;
    }
    let added = "\nextern \"C\" __global__ void probe_added(float* x) { x[threadIdx.x] = 1.0f; }\n";
    let dir = tree("vectorization.cu", |t| format!("{t}{added}"));
    let (code, out) = suite(dir.path(), &["--exact", "compile/vectorization.cu/sm_90"]);
    assert_eq!(code, 3, "a new kernel is a gate failure until blessed: {out}");
    assert!(out.contains("probe_added: not in "), "{out}");
    assert!(out.contains("compile/vectorization.cu/"), "the bless command: {out}");
}

#[test]
fn a_tree_without_kernels_stops_the_run_before_any_trial() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("Cargo.toml"), "").unwrap();
    std::fs::create_dir(tmp.path().join("kernels")).unwrap();
    let (code, out) = suite(tmp.path(), &["--exact", "compile/transpose.cu/sm_90"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("kernels: holds no .cu, .ptx, .cubin or .fatbin file"), "{out}");
    assert!(!out.contains("running "), "no trial ran: {out}");
}

#[test]
fn a_filter_that_selects_nothing_is_said() {
    let (code, out) = suite(Path::new(env!("CARGO_MANIFEST_DIR")), &["compile/vectorization/"]);
    assert_eq!(code, 0, "libtest passes an empty selection: {out}");
    assert!(out.contains("kernelgate: warning: the filter \"compile/vectorization/\" selects none of the "), "{out}");
}

/// A prebuilt PTX module added to the tree is read without a rebuild; one built for a later GPU
/// than every gated architecture is ignored by its compile trials with the reason, and under
/// `KERNELGATE_REQUIRE_NVRTC=1` (CI) fails them: no gate would check it. Checked before ptxas runs.
#[test]
fn a_ptx_module_for_a_later_gpu_than_every_gated_one_fails_under_require_nvrtc() {
    let dir = tree("", |t| t.to_string());
    let ptx =
        ".version 9.0\n.target sm_100\n.address_size 64\n\n.visible .entry later(\n\t.param .u64 p0\n)\n{\n\tret;\n}\n";
    std::fs::write(dir.path().join("kernels/later.ptx"), ptx).unwrap();
    let run = |require: bool| {
        let mut command = support::command(support::kernels_binary());
        command
            .current_dir(dir.path())
            .args(["--exact", "compile/later.ptx/sm_90"])
            .env("KERNELGATE_BASELINES", Path::new(env!("CARGO_MANIFEST_DIR")).join("baselines"))
            .env("KERNELGATE_HISTORY", "off")
            .env_remove("KERNELGATE_REQUIRE_NVRTC")
            .env_remove("NEXTEST");
        if require {
            command.env("KERNELGATE_REQUIRE_NVRTC", "1");
        }
        let out = command.output().unwrap();
        (out.status.code(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    };
    let (code, out) = run(false);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("compile/later.ptx/sm_90 ... ignored"), "{out}");
    assert!(out.contains("kernels/later.ptx is PTX built for sm_100"), "{out}");
    let (code, out) = run(true);
    assert_eq!(code, Some(101), "{out}");
    assert!(out.contains("it fits none of the architectures the compile trials gate (sm_80, sm_90)"), "{out}");
}

/// A prebuilt module rebuilt for another architecture than one its rows were blessed for (a
/// cubin for sm_90 where sm_80 rows are blessed) fails that architecture's compile trial, naming
/// the lost gate and the fix, rather than being ignored (a new user's report); with
/// `KERNELGATE_BLESS=1` its rows for that architecture are removed and the trial is ignored.
#[test]
fn a_prebuilt_module_that_lost_the_code_of_a_blessed_architecture_fails_that_trial() {
    let dir = tree("", |t| t.to_string());
    let cubin = Path::new(env!("CARGO_MANIFEST_DIR")).join("harness/tests/fixtures/cubin/kernels.cubin");
    std::fs::copy(cubin, dir.path().join("kernels/fused.cubin")).unwrap();
    let baselines = dir.path().join("baselines");
    std::fs::create_dir_all(baselines.join("sm_80")).unwrap();
    std::fs::write(
        baselines.join("sm_80/resources.csv"),
        "schema_version,file,kernel,block,shared_dynamic_bytes,regs,spill_store_bytes,spill_load_bytes,local_bytes,\
         shared_static_bytes,occupancy_warps,occupancy_pct,nvrtc\n1,fused.cubin,axpy,,0,10,0,0,0,0,,,13.0\n",
    )
    .unwrap();
    let run = |bless: bool| {
        let mut command = support::command(support::kernels_binary());
        command
            .current_dir(dir.path())
            .args(["--exact", "compile/fused.cubin/sm_80"])
            .env("KERNELGATE_BASELINES", &baselines)
            .env("KERNELGATE_HISTORY", "off")
            .env_remove("KERNELGATE_REQUIRE_NVRTC")
            .env_remove("NEXTEST");
        if bless {
            command.env("KERNELGATE_BLESS", "1");
        }
        let out = command.output().unwrap();
        (out.status.code(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    };
    let (code, out) = run(false);
    assert_eq!(code, Some(101), "{out}");
    assert!(out.contains("kernels/fused.cubin is a cubin for sm_90, so it cannot run on sm_80"), "{out}");
    assert!(out.contains("but the tables for sm_80 hold rows of kernels/fused.cubin (1 resource, 0 SASS)"), "{out}");
    assert!(
        out.contains("KERNELGATE_BLESS=1 cargo test --release --test kernels -- compile/fused.cubin/sm_80"),
        "{out}"
    );
    let (code, out) = run(true);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("removed the rows of kernels/fused.cubin for sm_80"), "{out}");
    let (code, out) = run(false);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("compile/fused.cubin/sm_80 ... ignored"), "{out}");
}
