//! `Settings` and `Project`: the file's keys and errors, the options per file, the variables over
//! the file, the root and the kernel folders as the repository names them.

use super::*;

fn parse(text: &str) -> Result<Settings> {
    Settings::parse(text, Path::new("kernelgate.toml"))
}

#[test]
fn every_key_is_optional_and_one_folder_or_several_are_read() {
    assert_eq!(parse("").unwrap(), Settings::default());
    let s = parse("kernels = \"cuda\"\nbaselines = \"perf/baselines\"\n").unwrap();
    assert_eq!(s.kernels, Some(Folders::One("cuda".into())));
    assert_eq!(s.baselines, Some(PathBuf::from("perf/baselines")));
    let s = parse("# a comment\nkernels = [\"a\", \"b/c\"]\nhistory = \"h\"\nout_dir = \"o\"\n").unwrap();
    assert_eq!(s.kernels, Some(Folders::Several(vec!["a".into(), "b/c".into()])));
    assert_eq!((s.history, s.out_dir), (Some("h".into()), Some("o".into())));
}

#[test]
fn a_bad_file_is_refused_naming_its_line() {
    let e = parse("kernels = [\"a\"]\nbaseline = \"b\"\n").unwrap_err().to_string();
    assert!(e.starts_with("kernelgate.toml:2: unknown key `baseline`; did you mean `baselines`?"), "{e}");
    let e = parse("\n\nkernels = 3\n").unwrap_err().to_string();
    assert!(e.starts_with("kernelgate.toml:3: invalid type: integer `3`, expected a folder or a list"), "{e}");
    assert!(!e.contains("untagged"), "serde's internals stay out of it: {e}");
    let e = parse("kernels = [\"a\", 3]\n").unwrap_err().to_string();
    assert!(e.starts_with("kernelgate.toml:1: invalid type: integer `3`, expected a folder"), "{e}");
    let e = parse("kernels = [\"kernels\", \"src\", \"./kernels/\"]\n").unwrap_err().to_string();
    assert!(e.starts_with("kernelgate.toml:1: kernels names one folder twice (\"kernels\" and \"./kernels/\")"), "{e}");
    let e = parse("kernels = [\"a\"\n").unwrap_err().to_string();
    assert!(e.starts_with("kernelgate.toml:"), "{e}");
    let e = parse("out_dir = \"o\"\nkernels = []\n").unwrap_err().to_string();
    assert!(e.starts_with("kernelgate.toml:2: kernels names no folder"), "{e}");
}

#[test]
fn nvrtc_options_are_read_per_project_and_file_and_a_bad_one_is_named_with_its_line() {
    let s =
        parse("[nvrtc]\noptions = [\"--use_fast_math\"]\n\n[nvrtc.files.\"a.cu\"]\noptions = [\"-DB=2\"]\n").unwrap();
    let nvrtc = s.nvrtc.clone().unwrap();
    assert_eq!(
        (nvrtc.options.as_slice(), nvrtc.files["a.cu"].options.as_slice()),
        (&["--use_fast_math".to_string()][..], &["-DB=2".to_string()][..])
    );
    let p = Project::new(Path::new("/repo"), None, s, &Config::default());
    assert_eq!(p.nvrtc_options("a.cu").unwrap(), ["--use_fast_math", "-DB=2"]);
    assert_eq!(p.nvrtc_options("b.cu").unwrap(), ["--use_fast_math"]);
    // A prebuilt PTX module is not compiled by NVRTC: no options, and a table of its own is refused.
    assert!(p.nvrtc_options("softmax.ptx").unwrap().is_empty());
    let e = parse("kernels = \"gpu\"\n\n[nvrtc.files.\"softmax.ptx\"]\noptions = [\"--use_fast_math\"]\n").unwrap_err();
    let e = e.to_string();
    assert!(
        e.starts_with("kernelgate.toml:3: [nvrtc.files.\"softmax.ptx\"] gives NVRTC options to a prebuilt module"),
        "{e}"
    );
    assert!(e.contains("nvcc -ptx"), "{e}");
    assert!(
        Project::new(Path::new("/repo"), None, Settings::default(), &Config::default())
            .nvrtc_options("a.cu")
            .unwrap()
            .is_empty()
    );
    let e = parse("kernels = \"k\"\n[nvrtc]\noptions = [\"--use_fast_math\",\n  \"-D BLOCK=256\"]\n")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("kernelgate.toml:4: [nvrtc] option \"-D BLOCK=256\" holds white space"), "{e}");
    let e = parse("[nvrtc.files.\"a.cu\"]\noptions = [\"-arch=sm_90a\"]\n").unwrap_err().to_string();
    assert!(e.starts_with("kernelgate.toml:2: [nvrtc] option \"-arch=sm_90a\" sets the architecture"), "{e}");
    let e = parse("[nvrtc]\nflags = []\n").unwrap_err().to_string();
    assert!(e.starts_with("kernelgate.toml:2: unknown key `flags` in [nvrtc]"), "{e}");
    let s = parse("[nvrtc]\ninclude = [\"missing\"]\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = Project::new(dir.path(), Some(dir.path().join(FILE)), s, &Config::default());
    let e = p.nvrtc_options("a.cu").unwrap_err().to_string();
    assert!(e.contains("kernelgate.toml: [nvrtc] include names missing, which is not a folder"), "{e}");
}

/// The build helper's list of keys (which it and [`Settings::parse`] check a file against) is
/// the keys [`Settings`] reads: a file of every listed key, each table's, parses into a
/// `Settings` with every field set. A field added to `Settings` breaks the destructuring
/// below; a key added to the list alone is refused by serde here.
#[test]
fn the_build_helpers_list_of_keys_is_the_keys_settings_reads() {
    const EVERY_KEY: &str = "kernels = [\"k\"]\nbaselines = \"b\"\nhistory = \"h\"\nout_dir = \"o\"\n\
                             [nvrtc]\noptions = [\"-DX=1\"]\ninclude = [\"i\"]\n\
                             [nvrtc.files.\"a.cu\"]\noptions = [\"-DY=1\"]\ninclude = [\"j\"]\n\
                             [build]\ncommand = \"make\"\n";
    let table: toml::Table = EVERY_KEY.parse().unwrap();
    let keys = |t: &toml::Table| t.keys().cloned().collect::<std::collections::BTreeSet<String>>();
    let nvrtc = table["nvrtc"].as_table().unwrap();
    let written = [
        ("", keys(&table)),
        ("nvrtc", keys(nvrtc)),
        (kernelgate_build::project_file::FILE_TABLE, keys(nvrtc["files"]["a.cu"].as_table().unwrap())),
        ("build", keys(table["build"].as_table().unwrap())),
    ];
    let listed: Vec<(&str, std::collections::BTreeSet<String>)> = kernelgate_build::project_file::KEYS
        .iter()
        .map(|(t, k)| (*t, k.iter().map(|k| k.to_string()).collect()))
        .collect();
    assert_eq!(listed, written, "the file below holds every listed key of every table");
    let Settings { kernels, baselines, history, out_dir, nvrtc, build } = parse(EVERY_KEY).unwrap();
    let Nvrtc { options, include, files } = nvrtc.unwrap();
    let NvrtcFile { options: file_options, include: file_include } = &files["a.cu"];
    let BuildCommand { command } = build.unwrap();
    assert!(kernels.is_some() && baselines.is_some() && history.is_some() && out_dir.is_some());
    assert!(!options.is_empty() && !include.is_empty() && !file_options.is_empty() && !file_include.is_empty());
    assert_eq!(command, "make");
}

#[test]
fn the_variables_override_the_file_and_the_file_the_defaults() {
    let root = Path::new("/repo");
    let p = Project::new(root, None, Settings::default(), &Config::default());
    assert_eq!(p.kernels, [root.join("kernels")]);
    assert_eq!(p.baselines, root.join("baselines"));
    assert_eq!((p.history, p.history_named), (Some(root.join(".kernelgate/history")), false));
    assert_eq!(p.out_dir, root.join("target/kernelgate"));
    let settings =
        parse("kernels = [\"cuda\", \"/abs/k\"]\nbaselines = \"b\"\nhistory = \"h\"\nout_dir = \"o\"\n").unwrap();
    let p = Project::new(root, Some(root.join(FILE)), settings.clone(), &Config::default());
    assert_eq!(p.kernels, [root.join("cuda"), PathBuf::from("/abs/k")]);
    assert_eq!((p.baselines, p.history, p.out_dir), (root.join("b"), Some(root.join("h")), root.join("o")));
    assert!(p.history_named);
    let config =
        Config { baselines: Some("vb".into()), out_dir: Some("vo".into()), history: History::Off, ..Config::default() };
    let p = Project::new(root, None, settings, &config);
    assert_eq!((p.baselines, p.history, p.out_dir), ("vb".into(), None, "vo".into()));
}

#[test]
fn the_nearest_file_above_is_the_root_and_without_one_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("a/b");
    std::fs::create_dir_all(&deep).unwrap();
    let p = Project::discover(&deep, &Config::default()).unwrap();
    assert_eq!((p.root.as_path(), p.file.as_ref()), (deep.as_path(), None));
    std::fs::write(dir.path().join("a").join(FILE), "baselines = \"perf\"\n").unwrap();
    let p = Project::discover(&deep, &Config::default()).unwrap();
    assert_eq!(p.root, dir.path().join("a"));
    assert_eq!(p.baselines, dir.path().join("a/perf"));
    std::fs::write(dir.path().join("a").join(FILE), "baselines = 1\n").unwrap();
    let e = Project::discover(&deep, &Config::default()).unwrap_err().to_string();
    assert!(e.contains(&format!("a/{FILE}:1: ")), "{e}");
}

#[test]
fn kernel_folders_are_named_as_the_repository_names_them() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src/cuda")).unwrap();
    let settings = parse("kernels = [\"src/cuda\", \".\"]\n").unwrap();
    let p = Project::new(dir.path(), None, settings, &Config::default());
    assert_eq!(p.kernels_in(dir.path()).unwrap(), ["src/cuda", ""]);
    let other = tempfile::tempdir().unwrap();
    let e = p.kernels_in(other.path()).unwrap_err();
    assert!(e.workdir == other.path() && e.to_string().contains("lies outside the git repository"), "{e}");
    assert_eq!(p.shown(&dir.path().join("src/cuda/a.cu")), "src/cuda/a.cu");
}
