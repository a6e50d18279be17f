//! A case that passes a scalar of the wrong type (`Param::F32` for an `int n`) fails its file's
//! compile trial without a GPU, with the sentence that names the case, the kernel's parameter,
//! what was passed and the fix; a case that passes the right types beside it does not. Where a GPU
//! is found, the case's GPU trial fails with the same sentence before any launch, not with a wrong
//! result. A project of one kernel file in a temporary folder, run through the library's entry
//! (`kernelgate::suite::run`) as a project's test binary runs it.

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

/// The trials `filter` selects (`--exact`), run in the project, as `name: outcome` lines.
fn run(filter: &str) -> Vec<String> {
    let ended = Arc::new(Ended::default());
    let args = ["kernels", "--exact", filter].map(OsString::from);
    kernelgate::suite::run(Table::new(cases, &kernelgate::Build::UNKNOWN), args, ended.clone());
    ended.0.lock().unwrap().clone()
}

/// The sentence the mistyped case fails with.
const MISTYPED: &str = "case fam/mistyped/1: kernel saxpy's 4th parameter (saxpy_param_3) is .u32 in the PTX, a \
                        32-bit integer (int, unsigned), but the case passes Param::F32(1024.0), a float (4 bytes); \
                        the kernel would read its bits as an integer, never its value: pass Param::I32 (an unsigned \
                        int as its bits: Param::I32(x as i32))";

/// One test in this binary: it moves into the project and sets the run's variables before any
/// other thread runs.
#[test]
fn a_float_for_an_int_parameter_fails_the_compile_trial_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("gpu")).unwrap();
    std::fs::write(dir.path().join("kernelgate.toml"), "kernels = \"gpu\"\n").unwrap();
    std::fs::write(dir.path().join("gpu/saxpy.cu"), SAXPY).unwrap();
    let ours = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.nvrtc/lib");
    // SAFETY: the only test of this binary sets them before the run starts its threads.
    unsafe {
        std::env::set_var("KERNELGATE_OUT_DIR", dir.path().join("out"));
        std::env::set_var("KERNELGATE_HISTORY", "off");
        // This repository's NVRTC where `scripts/get-nvrtc` put it (the project has none of its own).
        if std::env::var_os("KERNELGATE_NVRTC").is_none() && ours.is_dir() {
            std::env::set_var("KERNELGATE_NVRTC", &ours);
        }
    }
    std::env::set_current_dir(dir.path()).unwrap();

    let ended = run("compile/saxpy.cu/sm_90");
    assert_eq!(ended.len(), 1, "{ended:?}");
    if ended[0].starts_with("compile/saxpy.cu/sm_90: skipped") {
        assert!(std::env::var("KERNELGATE_REQUIRE_NVRTC").as_deref() != Ok("1"), "{ended:?}");
        eprintln!("skipped: no NVRTC here ({})", ended[0]);
    } else {
        let failure = ended[0].strip_prefix("compile/saxpy.cu/sm_90: failed: ").unwrap_or_else(|| panic!("{ended:?}"));
        assert!(failure.starts_with("entry points: gpu/saxpy.cu for sm_90: "), "{failure}");
        assert!(failure.contains(MISTYPED), "{failure}");
        // The case that passes an int is not named: the file's only failure is the mistyped case.
        assert!(!failure.contains("fam/right/1"), "{failure}");
        assert_eq!(failure.lines().count(), 2, "the heading and one line: {failure}");
    }

    // On a GPU the trial fails before its launch, with the file and the same sentence; without
    // one, libtest ignores it.
    let ended = run("fam/mistyped/1");
    assert_eq!(ended.len(), 1, "{ended:?}");
    if kernelgate::gpu::gpu_available().is_ok() {
        assert!(ended[0].starts_with("fam/mistyped/1: failed: "), "{ended:?}");
        assert!(ended[0].contains(&format!("gpu/saxpy.cu: {MISTYPED}")), "{ended:?}");
    } else {
        assert!(ended[0].starts_with("fam/mistyped/1: skipped"), "{ended:?}");
    }
}
