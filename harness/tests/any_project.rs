//! The `kernelgate` program in a project it never saw: a folder with its own `kernelgate.toml` and
//! kernel folder, none of this repository's files. What the program knows of the project's cases
//! it reads from the facts a run of the project's test binary writes (`kernelgate::case::facts`).

use std::path::Path;
use std::process::Command;

/// A project of one kernel file, `gpu/scale.cu` (a template and an entry point), in `dir`.
fn project(dir: &Path) {
    std::fs::create_dir_all(dir.join("gpu")).unwrap();
    std::fs::write(dir.join("kernelgate.toml"), "kernels = \"gpu\"\n").unwrap();
    std::fs::write(
        dir.join("gpu/scale.cu"),
        "template <int F> __global__ void scale_by(float* x, int n) {\n\
         int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= F; }\n\
         extern \"C\" __global__ void twice(float* x, int n) {\n\
         int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2; }\n",
    )
    .unwrap();
}

/// `kernelgate compile gpu/scale.cu --arch sm_90` in `dir`, with this repository's NVRTC where
/// `scripts/get-nvrtc` put it (the project has none of its own): exit code, stdout, stderr.
fn compile(dir: &Path) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kernelgate"));
    cmd.args(["compile", "gpu/scale.cu", "--arch", "sm_90"]).current_dir(dir);
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("KERNELGATE_") && k != "KERNELGATE_NVRTC" && k != "KERNELGATE_NVDISASM" {
            cmd.env_remove(k);
        }
    }
    let ours = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.nvrtc");
    if std::env::var_os("KERNELGATE_NVRTC").is_none() && ours.join("lib").is_dir() {
        cmd.env("KERNELGATE_NVRTC", ours.join("lib"));
    }
    if std::env::var_os("KERNELGATE_NVDISASM").is_none() && ours.join("bin/nvdisasm").is_file() {
        cmd.env("KERNELGATE_NVDISASM", ours.join("bin/nvdisasm"));
    }
    let out = cmd.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Whether NVRTC answered; under `KERNELGATE_REQUIRE_NVRTC=1` (CI) its absence fails the test.
fn compiled(stderr: &str) -> bool {
    let missing = stderr.contains("NVRTC") && stderr.contains("not found");
    assert!(!(missing && std::env::var("KERNELGATE_REQUIRE_NVRTC").as_deref() == Ok("1")), "{stderr}");
    !missing
}

#[test]
fn without_case_facts_the_program_says_what_it_cannot_know() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    let (code, out, err) = compile(dir.path());
    let facts = dir.path().join("target/kernelgate/cases.json");
    assert!(err.contains(&format!("no case facts at {}", facts.display())), "{err}");
    assert!(err.contains("template instances come from --instance alone"), "{err}");
    if compiled(&err) {
        // Its kernels are compiled and printed, and the resource gate asks for the project's first
        // bless (it has no tables yet), with the command that does it in the project.
        assert_eq!(code, Some(3), "{out}{err}");
        assert!(out.contains("sm_90  scale/twice"), "the project's own kernel: {out}");
        assert!(
            out.contains(
                "baselines/sm_90/resources.csv does not exist: its 1 kernel (twice) is not blessed; new kernels and \
                 launch configurations must be blessed: KERNELGATE_BLESS=1"
            ),
            "{out}"
        );
        assert!(err.contains("kernel templates [\"scale_by\"] are compiled only as instances"), "{err}");
    }
}

#[test]
fn with_the_facts_a_run_wrote_the_cases_instances_are_compiled() {
    use kernelgate::case::{Case, Launch, Param};
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    let kernel = kernelgate::KernelTemplate { file: "scale.cu", name: "scale_by" }.with("3");
    let case = Case::new("scale", "by3", "1024", kernel)
        .launch(Launch::linear(1024, 256))
        .params([Param::output(1024), Param::I32(1024)]);
    kernelgate::case::facts::Facts::of(&[case], &["build.rs"]).write(&dir.path().join("target/kernelgate")).unwrap();
    let (code, out, err) = compile(dir.path());
    assert!(!err.contains("no case facts"), "{err}");
    if compiled(&err) {
        assert_eq!(code, Some(3), "not blessed yet: {out}{err}");
        assert!(out.contains("sm_90  scale/scale_by<3>"), "the instance the case launches: {out}");
        assert!(out.contains("does not exist: its 2 kernels (scale_by<3>, twice) are not blessed"), "{out}");
        let row = out.lines().find(|l| l.trim_start().starts_with("sm_90  scale/scale_by<3>")).unwrap();
        assert_eq!(row.split_whitespace().nth(2), Some("256"), "at the block of its launch: {row}");
    }
}

#[test]
fn with_the_facts_a_run_wrote_a_mistyped_argument_is_named_with_the_fix() {
    use kernelgate::case::{Case, Launch, Param};
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    // `twice(float* x, int n)` given a float for `n`: the facts record what each argument passes.
    let case = Case::new("scale", "twice", "1024", kernelgate::Kernel::new("scale.cu", "twice"))
        .launch(Launch::linear(1024, 256))
        .params([Param::output(1024), Param::F32(1024.0)]);
    kernelgate::case::facts::Facts::of(&[case], &["build.rs"]).write(&dir.path().join("target/kernelgate")).unwrap();
    let (code, out, err) = compile(dir.path());
    if compiled(&err) {
        assert_eq!(code, Some(1), "a mistyped argument is no gate's failure: {out}{err}");
        let said = format!("{out}{err}");
        assert!(
            said.contains(
                "case scale/twice/1024: kernel twice's 2nd parameter (twice_param_1) is .u32 in the PTX, a 32-bit \
                 integer (int, unsigned), but the case passes Param::F32(1024.0), a float (4 bytes)"
            ),
            "{said}"
        );
    }
}
