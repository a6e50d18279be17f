//! A case that passes a scalar of the wrong type (`Param::F32` for an `int n`) fails its file's
//! compile trial without a GPU, with the sentence that names the case, the kernel's parameter,
//! what was passed and the fix; a case that passes the right types beside it does not. Where a GPU
//! is found, the case's GPU trial fails with the same sentence before any launch, not with a wrong
//! result. A project of one kernel file in a temporary folder, run through the library's entry
//! (`kernelgate::suite::run`) as a project's test binary runs it.
//!
//! The inner run is a child process (this test binary again, told by [`INNER`] which trial to
//! run), so that its libtest lines (`test compile/saxpy.cu/sm_90 ... FAILED`, `test result:
//! FAILED. 0 passed; 1 failed`), which libtest-mimic writes to the process's stdout past the
//! outer harness's capture, stay out of the workspace's test log: they are captured, asserted on,
//! and printed only in the message of an assertion that fails.

use kernelgate::case::{Case, Elem, HostData, Init, Launch, Param, Table, Tolerance};
use kernelgate::report::events::{Event, Reporter};
use kernelgate::report::junit::Outcome;
use std::ffi::OsString;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// The project's one kernel file, `gpu/saxpy.cu`.
const SAXPY: &str = "extern \"C\" __global__ void saxpy(float a, const float* x, float* y, int n) {\n\
                     int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
                     if (i < n) y[i] = a * x[i] + y[i];\n\
                     }\n";

/// Elements of `x` and `y`.
const N: usize = 1024;

/// `saxpy` with `n` passed as `n`: `fam/right/1` passes `Param::I32`, `fam/mistyped/1`
/// `Param::F32`, whose bits the kernel would read as 1149239296.
fn cases(_scale: f64) -> Vec<Case> {
    let saxpy = kernelgate::Kernel::new("saxpy.cu", "saxpy");
    let case = |variant: &str, n: Param| {
        let y = Param::InOut { init: Init::Uniform { lo: -1.0, hi: 1.0 }, elem: Elem::F32, len: N, offset: 0 };
        Case::new("fam", variant, "1", saxpy)
            .launch(Launch::linear(N, 256))
            .params([Param::F32(2.0), Param::input(N), y, n])
            .reference(|d: &[HostData]| {
                vec![d[0].f32().iter().zip(d[1].f32()).map(|(x, y)| 2.0 * x + y).collect::<Vec<f32>>()]
            })
            .tolerance(Tolerance::FMA)
    };
    vec![case("right", Param::I32(N as i32)), case("mistyped", Param::F32(N as f32))]
}

/// Each ended trial, as `name: outcome` (the failure's message after it).
#[derive(Default)]
struct Ended(Mutex<Vec<String>>);

impl Reporter for Ended {
    fn report(&self, event: &Event<'_>) {
        if let Event::TrialEnded { trial, outcome, .. } = event {
            let kept = match outcome {
                Outcome::Passed => format!("{trial}: passed"),
                Outcome::Skipped(why) => format!("{trial}: skipped: {why}"),
                Outcome::Failed(m) | Outcome::Error(m) => format!("{trial}: failed: {m}"),
            };
            self.0.lock().unwrap().push(kept);
        }
    }
}

/// The variable that makes this test binary the inner run: the trial to run (`--exact`).
const INNER: &str = "MISTYPED_PARAMS_INNER_TRIAL";

/// What each ended trial's line starts with on the inner run's stdout.
const ENDED: &str = "ended trial: ";

/// The inner run: the trials `filter` selects, run in the current folder, each ended trial
/// printed as one line (`ended trial: "name: outcome"`, a JSON string: the outcome may hold line
/// breaks).
fn inner(filter: &str) {
    let ended = Arc::new(Ended::default());
    let args = ["kernels", "--exact", filter].map(OsString::from);
    kernelgate::suite::run(Table::new(cases, &kernelgate::Build::UNKNOWN), args, ended.clone());
    for line in ended.0.lock().unwrap().iter() {
        println!("{ENDED}{}", serde_json::to_string(line).unwrap());
    }
}

/// The inner run of the trials `filter` selects, in the project `dir`: each ended trial as
/// `name: outcome`, and the child's whole output (stdout, then stderr) for assertion messages.
fn run(dir: &Path, filter: &str) -> (Vec<String>, String) {
    let test = "a_float_for_an_int_parameter_fails_the_compile_trial_with_the_fix";
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(INNER, filter)
        .current_dir(dir)
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let output = format!("--- the inner run's stdout ---\n{stdout}--- its stderr ---\n{stderr}");
    assert!(out.status.success(), "the inner test process failed ({}):\n{output}", out.status);
    let ended = stdout
        .lines()
        .filter_map(|l| l.strip_prefix(ENDED))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}\n{output}")))
        .collect();
    (ended, output)
}

/// The sentence the mistyped case fails with.
const MISTYPED: &str = "case fam/mistyped/1: kernel saxpy's 4th parameter (saxpy_param_3) is .u32 in the PTX, a \
                        32-bit integer (int, unsigned), but the case passes Param::F32(1024.0), a float (4 bytes); \
                        the kernel would read its bits as an integer, never its value: pass Param::I32 (an unsigned \
                        int as its bits: Param::I32(x as i32))";

/// One test in this binary: it writes the project and sets the run's variables, which the inner
/// runs (this test again, with [`INNER`] set) inherit; an inner run only runs its trial.
#[test]
fn a_float_for_an_int_parameter_fails_the_compile_trial_with_the_fix() {
    if let Ok(filter) = std::env::var(INNER) {
        return inner(&filter);
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("gpu")).unwrap();
    std::fs::write(dir.path().join("kernelgate.toml"), "kernels = \"gpu\"\n").unwrap();
    std::fs::write(dir.path().join("gpu/saxpy.cu"), SAXPY).unwrap();
    let ours = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.nvrtc/lib");
    // SAFETY: the only test of this binary sets them before any thread of its own starts; the
    // inner runs inherit them.
    unsafe {
        std::env::set_var("KERNELGATE_OUT_DIR", dir.path().join("out"));
        std::env::set_var("KERNELGATE_HISTORY", "off");
        // This repository's NVRTC where `scripts/get-nvrtc` put it (the project has none of its own).
        if std::env::var_os("KERNELGATE_NVRTC").is_none() && ours.is_dir() {
            std::env::set_var("KERNELGATE_NVRTC", &ours);
        }
    }

    let (ended, output) = run(dir.path(), "compile/saxpy.cu/sm_90");
    assert_eq!(ended.len(), 1, "{ended:?}\n{output}");
    if ended[0].starts_with("compile/saxpy.cu/sm_90: skipped") {
        assert!(std::env::var("KERNELGATE_REQUIRE_NVRTC").as_deref() != Ok("1"), "{ended:?}\n{output}");
        eprintln!("skipped: no NVRTC here ({})", ended[0]);
    } else {
        let failure =
            ended[0].strip_prefix("compile/saxpy.cu/sm_90: failed: ").unwrap_or_else(|| panic!("{ended:?}\n{output}"));
        assert!(failure.starts_with("entry points: gpu/saxpy.cu for sm_90: "), "{failure}\n{output}");
        assert!(failure.contains(MISTYPED), "{failure}\n{output}");
        // The case that passes an int is not named: the file's only failure is the mistyped case.
        assert!(!failure.contains("fam/right/1"), "{failure}\n{output}");
        assert_eq!(failure.lines().count(), 2, "the heading and one line: {failure}\n{output}");
        // libtest's own lines of the inner run, kept out of the outer log.
        assert!(output.contains("test result: FAILED. 0 passed; 1 failed"), "{output}");
    }

    // On a GPU the trial fails before its launch, with the file and the same sentence; without
    // one, libtest ignores it.
    let (ended, output) = run(dir.path(), "fam/mistyped/1");
    assert_eq!(ended.len(), 1, "{ended:?}\n{output}");
    if kernelgate::gpu::gpu_available().is_ok() {
        assert!(ended[0].starts_with("fam/mistyped/1: failed: "), "{ended:?}\n{output}");
        assert!(ended[0].contains(&format!("gpu/saxpy.cu: {MISTYPED}")), "{ended:?}\n{output}");
    } else {
        assert!(ended[0].starts_with("fam/mistyped/1: skipped"), "{ended:?}\n{output}");
    }
}
