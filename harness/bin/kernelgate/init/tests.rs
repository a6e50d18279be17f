//! Tests of `kernelgate init` ([`super`]).

use super::*;

fn checkout() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("harness")).unwrap();
    std::fs::write(dir.path().join("harness/Cargo.toml"), "").unwrap();
    dir
}

#[test]
fn a_new_folder_gets_a_crate_and_an_example_and_nothing_is_replaced() {
    let (kg, dir) = (checkout(), tempfile::tempdir().unwrap());
    let at = dir.path().join("gpu-tests");
    let init = Init { dir: at.clone(), kernels: Vec::new(), kernelgate: Source::Checkout(kg.path().into()) };
    assert_eq!(init_command(&init).unwrap(), 0);
    for f in [
        "Cargo.toml",
        "src/lib.rs",
        "kernelgate.toml",
        "build.rs",
        "tests/kernels.rs",
        "tests/kernel_cases/mod.rs",
        "tests/kernel_cases_cpu.rs",
        "kernels/scale.cu",
        ".gitignore",
    ] {
        assert!(at.join(f).is_file(), "{f}");
    }
    let manifest = std::fs::read_to_string(at.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"gpu-tests\"") && manifest.contains("harness = false"), "{manifest}");
    assert!(manifest.contains(&format!("{}/harness", kg.path().canonicalize().unwrap().display())), "{manifest}");
    let cases = std::fs::read_to_string(at.join("tests/kernel_cases/mod.rs")).unwrap();
    assert!(cases.contains("k::scale::scale") && cases.contains("pub fn cases"), "{cases}");
    let suite = std::fs::read_to_string(at.join("tests/kernels.rs")).unwrap();
    assert!(suite.contains("mod kernel_cases;") && suite.contains("kernelgate::main!"), "{suite}");
    let cpu = std::fs::read_to_string(at.join("tests/kernel_cases_cpu.rs")).unwrap();
    assert!(cpu.contains("#[test]") && cpu.contains("assert_references_fit(&kernel_cases::sized(1 << 12))"), "{cpu}");
    // A second init (now in a crate) names what exists and writes nothing.
    std::fs::remove_file(at.join("build.rs")).unwrap();
    let err = init_command(&init).unwrap_err().to_string();
    for f in ["kernels/scale.cu", "kernelgate.toml", "tests/kernels.rs", ".github/workflows/kernelgate.yml"] {
        assert!(err.contains(f), "{f}: {err}");
    }
    assert!(!err.contains("build.rs"), "{err}");
    assert!(err.contains("never replaces a file") && err.contains("nothing was written"), "{err}");
    assert!(!at.join("build.rs").exists(), "nothing written");
}

#[test]
fn a_rust_crate_with_kernel_folders_gets_no_manifest_and_no_example() {
    let (kg, dir) = (checkout(), tempfile::tempdir().unwrap());
    std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"mine\"\n").unwrap();
    std::fs::create_dir_all(dir.path().join("src/cuda")).unwrap();
    let init = Init {
        dir: dir.path().into(),
        kernels: vec!["src/cuda".into()],
        kernelgate: Source::Checkout(kg.path().into()),
    };
    init_command(&init).unwrap();
    assert_eq!(std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap(), "[package]\nname = \"mine\"\n");
    assert!(!dir.path().join("kernels").exists() && !dir.path().join("src/lib.rs").exists());
    let toml = std::fs::read_to_string(dir.path().join("kernelgate.toml")).unwrap();
    assert!(toml.contains("kernels = [\"src/cuda\"]"), "{toml}");
    assert!(std::fs::read_to_string(dir.path().join("tests/kernel_cases/mod.rs")).unwrap().contains("Vec::new()"));
}

#[test]
fn in_a_repository_the_workflow_goes_to_its_top_and_runs_in_the_crate() {
    let (kg, dir) = (checkout(), tempfile::tempdir().unwrap());
    git2::Repository::init(dir.path()).unwrap();
    let at = dir.path().join("tests/gpu");
    let init = Init { dir: at.clone(), kernels: Vec::new(), kernelgate: Source::Checkout(kg.path().into()) };
    init_command(&init).unwrap();
    let workflow = std::fs::read_to_string(dir.path().join(".github/workflows/kernelgate.yml")).unwrap();
    assert!(workflow.contains("working-directory: tests/gpu"), "{workflow}");
    assert!(!at.join(".github").exists());
    // A runner that lost its GPU or NVRTC fails the job rather than passing with every trial ignored.
    for required in ["KERNELGATE_REQUIRE_GPU: \"1\"", "KERNELGATE_REQUIRE_NVRTC: \"1\""] {
        assert!(workflow.contains(required), "{workflow}");
    }
    // A pull request is timed against its merge base in one process; the run files are the crate's.
    assert!(workflow.contains("if: github.event_name == 'pull_request'"), "{workflow}");
    assert!(workflow.contains("KERNELGATE_AB=\"$(git merge-base \"origin/$GITHUB_BASE_REF\" HEAD)\""), "{workflow}");
    assert!(workflow.contains("path: tests/gpu/target/kernelgate/runs/\n"), "{workflow}");
    // The build and the history outlive the checkout's clean.
    for kept in ["CARGO_TARGET_DIR=$keep/target", "KERNELGATE_HISTORY=$keep/history"] {
        assert!(workflow.contains(kept), "{workflow}");
    }
}

/// The workflow is YAML GitHub reads: every line a key, a list item, a comment or a block
/// scalar's text, indented by steps of two spaces, with no tab; the steps of a job in order.
#[test]
fn the_workflow_is_well_formed_at_the_top_and_in_a_folder() {
    for (submodules, inside) in [(false, ""), (true, "tests/gpu")] {
        let text = workflow(submodules, inside);
        assert!(!text.contains('\t') && !text.contains("{{") && !text.contains("}}"), "{text}");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let indent = line.len() - line.trim_start().len();
            assert_eq!(indent % 2, 0, "{line:?} in\n{text}");
        }
        let steps: Vec<&str> = text.lines().filter(|l| l.starts_with("      - ")).collect();
        assert_eq!(steps.len(), 5, "{text}");
        assert!(steps[0].contains("actions/checkout@v4") && steps[4].contains("actions/upload-artifact@v4"));
        assert_eq!(text.contains("working-directory"), !inside.is_empty(), "{text}");
    }
}

/// kernelgate inside the project's repository (a submodule): the manifest names it by a path
/// relative to the crate, which the runner's checkout has too, and the workflow checks out
/// submodules.
#[test]
fn a_checkout_inside_the_repository_is_named_by_a_relative_path() {
    let dir = tempfile::tempdir().unwrap();
    git2::Repository::init(dir.path()).unwrap();
    let kg = dir.path().join("third_party/kernelgate");
    std::fs::create_dir_all(kg.join("harness")).unwrap();
    std::fs::write(kg.join("harness/Cargo.toml"), "").unwrap();
    std::fs::write(kg.join(".git"), "gitdir: ../../.git/modules/kernelgate\n").unwrap();
    let at = dir.path().join("tests/gpu");
    init_command(&Init { dir: at.clone(), kernels: Vec::new(), kernelgate: Source::Checkout(kg) }).unwrap();
    let manifest = std::fs::read_to_string(at.join("Cargo.toml")).unwrap();
    for line in [
        "kernelgate = { path = \"../../third_party/kernelgate/harness\" }",
        "kernelgate-build = { path = \"../../third_party/kernelgate/harness/build\" }",
        "nvtx-sys = { path = \"../../third_party/kernelgate/vendor/nvtx-sys\" }",
    ] {
        assert!(manifest.contains(line), "{line}: {manifest}");
    }
    let workflow = std::fs::read_to_string(dir.path().join(".github/workflows/kernelgate.yml")).unwrap();
    assert!(workflow.contains("          fetch-depth: 0 # A/B reads the merge base's kernels, and runs are keyed to commits\n          submodules: true\n"), "{workflow}");
}

/// A checkout outside the crate's repository stays absolute (only this machine has it), and
/// the workflow does not ask for submodules.
#[test]
fn a_checkout_outside_the_repository_is_named_by_its_absolute_path() {
    let (kg, dir) = (checkout(), tempfile::tempdir().unwrap());
    git2::Repository::init(dir.path()).unwrap();
    init_command(&Init { dir: dir.path().into(), kernels: Vec::new(), kernelgate: Source::Checkout(kg.path().into()) })
        .unwrap();
    let manifest = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
    let at = kg.path().canonicalize().unwrap();
    assert!(manifest.contains(&format!("kernelgate = {{ path = \"{}/harness\" }}", at.display())), "{manifest}");
    let workflow = std::fs::read_to_string(dir.path().join(".github/workflows/kernelgate.yml")).unwrap();
    assert!(!workflow.contains("submodules"), "{workflow}");
}

#[test]
fn a_git_source_names_the_repository_and_its_revision() {
    let dir = tempfile::tempdir().unwrap();
    let git = Source::Git { url: "https://example.com/kernelgate.git".into(), rev: Some("b24550b".into()) };
    init_command(&Init { dir: dir.path().into(), kernels: Vec::new(), kernelgate: git }).unwrap();
    let manifest = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
    for name in ["kernelgate", "kernelgate-build", "nvtx-sys"] {
        let line = format!("{name} = {{ git = \"https://example.com/kernelgate.git\", rev = \"b24550b\" }}");
        assert!(manifest.contains(&line), "{line}: {manifest}");
    }
    assert!(!manifest.contains("{ path"), "{manifest}");
    let deps = Deps::Git { url: "u".into(), rev: None };
    assert_eq!(deps.at("harness"), "git = \"u\"");
}

#[test]
fn a_git_url_or_revision_cargo_cannot_take_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let init = |url: &str, rev: Option<&str>| Init {
        dir: dir.path().into(),
        kernels: Vec::new(),
        kernelgate: Source::Git { url: url.into(), rev: rev.map(Into::into) },
    };
    let err = init_command(&init("git@github.com:o/kernelgate", None)).unwrap_err().to_string();
    assert!(err.contains("--git") && err.contains("a URL cargo can fetch"), "{err}");
    let err = init_command(&init("https://example.com/kernelgate.git", Some("HEAD"))).unwrap_err().to_string();
    assert!(err.contains("--rev") && err.contains("a commit id, 7 to 40 hex digits"), "{err}");
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none(), "nothing written");
    init_command(&init("https://example.com/kernelgate.git", Some("b24550be"))).unwrap();
}

#[test]
fn shown_paths_lose_their_folder_and_parent_pairs() {
    assert_eq!(
        tidy(Path::new("gpu-tests/../.github/workflows/kernelgate.yml")),
        Path::new(".github/workflows/kernelgate.yml")
    );
    assert_eq!(tidy(Path::new("../a/./b/../c")), Path::new("../a/c"));
    assert_eq!(tidy(Path::new("a/..")), Path::new("."));
}

#[test]
fn relative_paths_climb_to_the_common_folder() {
    assert_eq!(relative(Path::new("/r/tests/gpu"), Path::new("/r/third_party/kg")), "../../third_party/kg");
    assert_eq!(relative(Path::new("/r"), Path::new("/r/kg")), "kg");
    assert_eq!(relative(Path::new("/r/a"), Path::new("/r")), "..");
    assert_eq!(relative(Path::new("/r"), Path::new("/r")), ".");
}

/// A program that does not run from a checkout's `target/<profile>/` (this test binary runs from
/// `target/release/deps/`, as `cargo install` puts one in `~/.cargo/bin/`) finds the checkout
/// it was built from; one built from the published crate, which no checkout holds, asks for
/// `--kernelgate`.
#[test]
fn the_checkout_defaults_to_the_one_the_program_was_built_from() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    if repo.join("harness/Cargo.toml").is_file() {
        assert_eq!(super::checkout(None).unwrap(), repo);
    } else {
        let err = super::checkout(None).unwrap_err().to_string();
        assert!(err.contains("--kernelgate") && err.contains("so name it"), "{err}");
    }
    assert_eq!(super::checkout(Some("/elsewhere".into())).unwrap(), Path::new("/elsewhere"));
}

#[test]
fn a_missing_kernel_folder_or_checkout_is_refused_by_name() {
    let (kg, dir) = (checkout(), tempfile::tempdir().unwrap());
    let init = Init {
        dir: dir.path().into(),
        kernels: vec!["../nowhere".into()],
        kernelgate: Source::Checkout(kg.path().into()),
    };
    let err = init_command(&init).unwrap_err().to_string();
    assert!(err.contains("--kernels \"../nowhere\" is invalid: a kernel folder, relative to the crate's"), "{err}");
    let init = Init { dir: dir.path().into(), kernels: Vec::new(), kernelgate: Source::Checkout(dir.path().join("x")) };
    let err = init_command(&init).unwrap_err().to_string();
    assert!(
        err.contains("--kernelgate") && err.contains("a kernelgate checkout (no harness/Cargo.toml there)"),
        "{err}"
    );
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none(), "nothing written");
    // A crate's folder that init is to create: its kernel folder is named from it all the same.
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(repo.path().join("src/kernels")).unwrap();
    let init = Init {
        dir: repo.path().join("gpu-tests"),
        kernels: vec!["../src/kernels".into()],
        kernelgate: Source::Checkout(kg.path().into()),
    };
    init_command(&init).unwrap();
    assert!(repo.path().join("gpu-tests/kernelgate.toml").is_file());
}
