//! A project that keeps its things elsewhere than the defaults, through `kernelgate.toml`: the
//! suite and the `kernelgate` program started in a subfolder find the file above them, read the
//! kernels from the folders it names, bless into and gate against its baselines folder, and stop
//! with exit code 2, naming the file and line, at a key they do not know or at two kernel files
//! of one name.

mod support;

use std::path::{Path, PathBuf};

/// A project at `<tmp>/gpu` whose kernels (copies of this repository's) are in `src/cuda`, with a
/// `kernelgate.toml` of `toml`; returns the project root.
fn project(tmp: &Path, toml: &str) -> PathBuf {
    let root = tmp.join("gpu");
    support::copy(&Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels"), &root.join("src/cuda"));
    std::fs::create_dir_all(root.join("tools/sub")).unwrap();
    std::fs::write(root.join("kernelgate.toml"), toml).unwrap();
    root
}

/// The suite binary run in `dir` with `args` and `env`; returns the exit code and its output.
fn suite(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let mut cmd = support::command(support::kernels_binary());
    cmd.current_dir(dir).args(args);
    // The compile tools this test process found (scripts/get-nvrtc's are beside the checkout,
    // not beside the temporary project).
    if let Ok(nvrtc) = kernelgate::nvrtc::load() {
        cmd.env("KERNELGATE_NVRTC", &nvrtc.path);
    }
    if let Ok(nvdisasm) = kernelgate::sass::nvdisasm::load() {
        cmd.env("KERNELGATE_NVDISASM", &nvdisasm.path);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)),
    )
}

#[test]
fn a_project_below_its_file_blesses_and_gates_in_the_folders_the_file_names() {
    let tmp = tempfile::tempdir().unwrap();
    let root = project(
        tmp.path(),
        "# kernels elsewhere, baselines elsewhere\nkernels = [\"src/cuda\"]\nbaselines = \"perf/baselines\"\nout_dir = \"out\"\n",
    );
    let sub = root.join("tools/sub");
    // The file is found from a subfolder; the kernels are listed from src/cuda.
    let (code, text) = suite(&sub, &["--list"], &[]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("compile/transpose.cu/sm_90: test"), "{text}");
    if !support::compile_tools_found() {
        return;
    }
    let filter = ["compile/transpose.cu/sm_90"];
    let (code, text) = suite(&sub, &filter, &[("KERNELGATE_HISTORY", "off")]);
    assert_eq!(code, 3, "no table yet, a gate failure only (a project's first bless): {text}");
    let table = root.join("perf/baselines/sm_90/resources.csv");
    assert!(text.contains(&format!("{} does not exist", table.display())), "{text}");
    let (code, text) = suite(&sub, &filter, &[("KERNELGATE_HISTORY", "off"), ("KERNELGATE_BLESS", "1")]);
    assert_eq!(code, 0, "{text}");
    let blessed = std::fs::read_to_string(&table).unwrap();
    assert!(blessed.contains("transpose_shared_padded"), "{blessed}");
    assert!(!root.join("baselines").exists() && !sub.join("baselines").exists(), "only the folder the file names");
    let (code, text) = suite(&sub, &filter, &[("KERNELGATE_HISTORY", "off")]);
    assert_eq!(code, 0, "gated against the blessed table: {text}");
    // A variable overrides the file.
    let other = tmp.path().join("other-baselines");
    std::fs::create_dir(&other).unwrap();
    let (code, text) =
        suite(&sub, &filter, &[("KERNELGATE_HISTORY", "off"), ("KERNELGATE_BASELINES", other.to_str().unwrap())]);
    assert_eq!(code, 3, "{text}");
    assert!(text.contains(&format!("{} does not exist", other.join("sm_90/resources.csv").display())), "{text}");
}

#[test]
fn a_bad_file_or_one_file_name_in_two_folders_stops_the_run_and_the_program() {
    let tmp = tempfile::tempdir().unwrap();
    let root = project(tmp.path(), "kernels = [\"src/cuda\"]\nbaseline = \"perf\"\n");
    let sub = root.join("tools/sub");
    let file = root.join("kernelgate.toml");
    let says = format!("{}:2: unknown key `baseline`; did you mean `baselines`?", file.display());
    let (code, text) = suite(&sub, &["--list"], &[]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains(&says), "{text}");
    let o =
        support::command(support::kernelgate_binary()).current_dir(&sub).args(["baseline", "list"]).output().unwrap();
    let text = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{text}");
    assert!(text.contains(&says), "{text}");

    support::copy(&root.join("src/cuda"), &root.join("more"));
    std::fs::write(&file, "kernels = [\"src/cuda\", \"more\"]\n").unwrap();
    let (code, text) = suite(&sub, &["--list"], &[]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("more/blocksum.cu: has the file name of src/cuda/blocksum.cu"), "{text}");
    // kernelgate compile holds the project to the same rule.
    let o = support::command(support::kernelgate_binary())
        .current_dir(&sub)
        .args(["compile", "../../more/blocksum.cu"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("src/cuda/blocksum.cu: has the file name of more/blocksum.cu"), "{text}");
    std::fs::write(&file, "kernels = []\n").unwrap();
    let (code, text) = suite(&sub, &["--list"], &[]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains(":1: kernels names no folder"), "{text}");
}

#[test]
fn a_table_of_nvrtc_options_for_no_file_stops_the_run_and_kernelgate_compile_alike() {
    let tmp = tempfile::tempdir().unwrap();
    let toml = "kernels = [\"src/cuda\"]\n\n[nvrtc.files.\"transpos.cu\"]\noptions = [\"-DTILE=32\"]\n";
    let root = project(tmp.path(), toml);
    let sub = root.join("tools/sub");
    // Said at the table's line of kernelgate.toml, with the file meant.
    let says = format!(
        "{}:3: [nvrtc.files.\"transpos.cu\"] names no kernel file of the kernel folders; did you mean transpose.cu? \
         name a file as its folder holds it (\"layernorm.cu\"), or remove the table",
        root.join("kernelgate.toml").display()
    );
    let (code, text) = suite(&sub, &["--list"], &[]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains(&says), "{text}");
    // Checked before NVRTC runs: no tools needed.
    let o = support::command(support::kernelgate_binary())
        .current_dir(&sub)
        .args(["compile", "../../src/cuda/transpose.cu", "--arch", "sm_90"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains(&says), "{text}");
}

#[test]
fn the_history_hints_name_the_projects_baselines_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let root = project(tmp.path(), "kernels = [\"src/cuda\"]\nbaselines = \"perf/baselines\"\nhistory = \"hist\"\n");
    let sub = root.join("tools/sub");
    let kernelgate = |args: &[&str]| {
        let o = support::command(support::kernelgate_binary()).current_dir(&sub).args(args).output().unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        (o.status.code(), text)
    };
    // From a subfolder: the folder kernelgate.toml names, relative to the project root.
    let fills = "`kernelgate history import perf/baselines/*/runs` fills it from run CSVs";
    let empty = format!("no history under {}: no run is recorded yet", root.join("hist").display());
    let (code, text) = kernelgate(&["history", "runs"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains(&empty) && text.contains(fills), "{text}");
    // An empty history is where a project starts: show and changes say so and exit 0, as runs and
    // quality do, whatever they would look up (JSON: an empty document, the line on stderr).
    for args in [
        &["history", "show", "transpose/naive/4096x4096"][..],
        &["history", "changes"],
        &["history", "changes", "--since", "abc1234"],
        &["history", "show", "transpose/naive/4096x4096", "--format", "json"],
        &["history", "changes", "--format", "json"],
    ] {
        let (code, text) = kernelgate(args);
        assert_eq!(code, Some(0), "{args:?}: {text}");
        assert!(text.contains(&empty) && text.contains(fills), "{args:?}: {text}");
        assert!(!text.contains("import baselines/"), "{text}");
    }
    let o = support::command(support::kernelgate_binary())
        .current_dir(&sub)
        .args(["history", "changes", "--format", "json"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["gpu_keys"], serde_json::json!([]), "{doc}");
    // A run named that the history does not hold is an error, with the same fix.
    let (code, text) = kernelgate(&["history", "previous", "--run", "20261130T120000Z"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains(&format!("no history here: a GPU run records one, and {fills}")), "{text}");
}
