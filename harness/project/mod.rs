//! The project: where a repository keeps its kernels, baselines, history and run files. Made once,
//! where a run or a `kernelgate` command starts ([`Project::discover`]), and handed down; no other
//! code searches for a root or joins a path literal onto one.
//!
//! A project is the folder holding `kernelgate.toml` ([`FILE`]), the nearest at or above the
//! current folder; without one, the current folder itself (cargo runs a test binary in its
//! package's folder). Every key of the file is optional, and no file at all means every default:
//!
//! ```toml
//! # kernelgate.toml: paths relative to this file's folder
//! kernels = ["kernels"]            # the folders of the .cu files the cases launch
//! baselines = "baselines"          # one folder per GPU key, and <arch>/resources.csv
//! history = ".kernelgate/history"  # the history stores each run is appended to
//! out_dir = "target/kernelgate"    # runs/*.csv and the run's other files
//!
//! [nvrtc]                          # NVRTC options after kernelgate's, for every kernel file
//! options = ["--use_fast_math"]    # one argument each: "-DNAME=VALUE", "--std=c++20", ...
//! include = ["third_party/include"]  # --include-path folders, relative to this file's folder
//!
//! [nvrtc.files."layernorm.cu"]     # one kernel file (by name), after the options above
//! options = ["-DBLOCK=256"]
//! ```
//!
//! The variables override the file: `KERNELGATE_BASELINES`, `KERNELGATE_HISTORY` (a folder, or
//! `off`) and `KERNELGATE_OUT_DIR` ([`crate::config::Config`], relative to the current folder, as
//! a shell reads them).

use crate::config::{Config, History};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// The project file's name: `kernelgate.toml` (the build helper's [`kernelgate_build::PROJECT_FILE`]).
pub const FILE: &str = kernelgate_build::PROJECT_FILE;

/// The keys of `kernelgate.toml` as written, each optional ([`Project`] has the defaults). A key
/// that is not one of these is an error naming its line, as a misspelt key would otherwise be
/// ignored: the build helper's list of keys (`kernelgate_build::project_file::KEYS`) is checked
/// first, so that the run and the build refuse a file with one message ([`Settings::parse`]).
#[derive(Debug, Default, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// `kernels`: one folder (`"kernels"`) or several (`["kernels", "src/attention"]`).
    pub kernels: Option<Folders>,
    /// `baselines`: the folder of the per-GPU baseline folders.
    pub baselines: Option<PathBuf>,
    /// `history`: the folder of the history stores.
    pub history: Option<PathBuf>,
    /// `out_dir`: where run files go.
    pub out_dir: Option<PathBuf>,
    /// `[nvrtc]`: the project's NVRTC options.
    pub nvrtc: Option<Nvrtc>,
    /// `[build]`: how another revision's prebuilt modules are made, for A/B.
    pub build: Option<BuildCommand>,
}

/// `[build]` of `kernelgate.toml`: the project's own build of its prebuilt modules (PTX, cubins,
/// fatbins), which a same-run A/B runs in a checkout of the other revision before reading its
/// kernel folders there ([`crate::history::revision::Revision::read`]), so that modules the
/// repository does not commit (a build folder git ignores) are compared too.
#[derive(Debug, Default, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildCommand {
    /// `command`: a shell command (`sh -c`), run in the checkout's project root: `make ptx`,
    /// `cmake --build build --target kernels`, `scripts/build-modules`.
    pub command: String,
}

/// `[nvrtc]` of `kernelgate.toml`: NVRTC options for every kernel file, and per file.
#[derive(Debug, Default, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Nvrtc {
    /// `options`: NVRTC options, one argument each ([`refused_option`] says which
    /// are refused).
    #[serde(default)]
    pub options: Vec<String>,
    /// `include`: header folders, relative to the project root (`--include-path`), searched before
    /// the toolkit's ([`crate::compile::include_dirs`]).
    #[serde(default)]
    pub include: Vec<PathBuf>,
    /// `[nvrtc.files."name.cu"]`: options and folders for one kernel file, after those above.
    #[serde(default)]
    pub files: std::collections::BTreeMap<String, NvrtcFile>,
}

/// `[nvrtc.files."name.cu"]`: one kernel file's own options and header folders.
#[derive(Debug, Default, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NvrtcFile {
    /// `options`, as [`Nvrtc::options`].
    #[serde(default)]
    pub options: Vec<String>,
    /// `include`, as [`Nvrtc::include`].
    #[serde(default)]
    pub include: Vec<PathBuf>,
}

/// `kernels = "one"` or `kernels = ["one", "two"]`.
#[derive(Debug, Clone, PartialEq)]
pub enum Folders {
    /// One folder.
    One(PathBuf),
    /// Several, in the order given.
    Several(Vec<PathBuf>),
}

/// What a `kernels` value of another type is told: the two forms it takes.
const FOLDERS_EXPECTED: &str = "a folder or a list of folders, relative to the project root (`kernels = \"kernels\"`, or `kernels = [\"src/cuda\", \"kernels\"]`)";

impl<'de> serde::Deserialize<'de> for Folders {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Folders, D::Error> {
        struct One;
        impl<'de> serde::de::Visitor<'de> for One {
            type Value = PathBuf;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(FOLDERS_EXPECTED)
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<PathBuf, E> {
                Ok(PathBuf::from(v))
            }
        }
        struct Element;
        impl<'de> serde::de::DeserializeSeed<'de> for Element {
            type Value = PathBuf;
            fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<PathBuf, D::Error> {
                d.deserialize_str(One)
            }
        }
        struct Any;
        impl<'de> serde::de::Visitor<'de> for Any {
            type Value = Folders;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(FOLDERS_EXPECTED)
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Folders, E> {
                Ok(Folders::One(PathBuf::from(v)))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Folders, A::Error> {
                let mut list = Vec::new();
                while let Some(folder) = seq.next_element_seed(Element)? {
                    list.push(folder);
                }
                Ok(Folders::Several(list))
            }
        }
        deserializer.deserialize_any(Any)
    }
}

impl Settings {
    /// Parses the text of a `kernelgate.toml`; `path` names it in errors. Pure.
    ///
    /// # Errors
    /// [`Error::Project`] naming `path` and the line of the fault (TOML that does not parse, a key
    /// kernelgate does not know, a value of the wrong type, an empty list of kernel folders). A key
    /// kernelgate does not know is named as the build helper names it
    /// (`kernelgate_build::project_file::unknown_key`: the key, its table, `did you mean ...?`
    /// where a known key is within two edits, and the fix).
    ///
    /// # Example
    /// ```
    /// use kernelgate::project::Settings;
    /// let s = Settings::parse("kernels = [\"src/cuda\"]\n", "kernelgate.toml".as_ref()).unwrap();
    /// assert!(s.baselines.is_none());
    /// let e = Settings::parse("kernel = \"src\"\n", "kernelgate.toml".as_ref()).unwrap_err();
    /// assert!(e.to_string().starts_with("kernelgate.toml:1: unknown key `kernel`; did you mean `kernels`?"));
    /// ```
    pub fn parse(text: &str, path: &Path) -> Result<Settings> {
        if let Some(unknown) = kernelgate_build::project_file::unknown_key(text) {
            return Err(Error::Project { path: path.into(), line: Some(unknown.line), message: unknown.to_string() });
        }
        let settings: Settings = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|span| text[..span.start.min(text.len())].matches('\n').count() + 1);
            Error::Project { path: path.into(), line, message: e.message().trim_end().to_string() }
        })?;
        if let Some(nvrtc) = &settings.nvrtc {
            // A prebuilt PTX module is not compiled by NVRTC: a table of options for one is refused
            // here, naming its line, as Project::nvrtc_options refuses it.
            if let Some(ptx) = nvrtc.files.keys().find(|f| crate::kernel_file::is_prebuilt(f)) {
                let line =
                    text.lines().position(|l| l.contains("[nvrtc.files.") && l.contains(ptx.as_str())).map(|i| i + 1);
                return Err(Error::Project { path: path.into(), line, message: ptx_table(ptx) });
            }
            let named = nvrtc.options.iter().chain(nvrtc.files.values().flat_map(|f| &f.options));
            for option in named {
                if let Some(why) = refused_option(option) {
                    // The line that names the option, for the message.
                    let quoted = format!("{option:?}");
                    let line = text.lines().position(|l| l.contains(&quoted)).map(|i| i + 1);
                    return Err(Error::Project { path: path.into(), line, message: format!("[nvrtc] option {why}") });
                }
            }
        }
        if let Some(Folders::Several(list)) = &settings.kernels
            && let Some((first, again)) = repeated_folder(list)
        {
            let line = text.lines().position(|l| l.trim_start().starts_with("kernels")).map(|i| i + 1);
            return Err(Error::Project {
                path: path.into(),
                line,
                message: format!(
                    "kernels names one folder twice ({:?} and {:?}), which would read each of its files twice; \
                     name each folder once",
                    first.display().to_string(),
                    again.display().to_string()
                ),
            });
        }
        if matches!(&settings.kernels, Some(Folders::Several(list)) if list.is_empty()) {
            let line = text.lines().position(|l| l.trim_start().starts_with("kernels")).map(|i| i + 1);
            return Err(Error::Project {
                path: path.into(),
                line,
                message: "kernels names no folder; name at least one (`kernels = [\"kernels\"]`), or leave the key \
                          out for kernels/"
                    .into(),
            });
        }
        Ok(settings)
    }
}

/// The first folder of `list` named again later (`kernels` and `./kernels/` are one folder): the
/// two names as given. Lexical, as the folders need not exist yet.
fn repeated_folder(list: &[PathBuf]) -> Option<(&PathBuf, &PathBuf)> {
    let plain = |p: &PathBuf| -> Vec<std::ffi::OsString> {
        p.components().filter(|c| *c != std::path::Component::CurDir).map(|c| c.as_os_str().to_owned()).collect()
    };
    list.iter()
        .enumerate()
        .find_map(|(i, again)| list[..i].iter().find(|f| plain(f) == plain(again)).map(|f| (f, again)))
}

/// Why NVRTC option `option`, as a project names it in `kernelgate.toml`, is refused; `None` when
/// it is taken. An option is one argument: it starts with `-` and holds no white space (`-D NAME`
/// with a space would reach NVRTC as one argument it cannot read: write `-DNAME=VALUE`). The
/// options kernelgate sets itself are refused: the architecture (each GPU's and each compile
/// trial's, `--gpu-architecture`, `-arch`), the include path (`include = [...]` names folders
/// relative to the project), ptxas's report and the cache (the resource gate needs them). Pure.
///
/// # Example
/// ```
/// use kernelgate::project::refused_option;
/// assert_eq!(refused_option("--use_fast_math"), None);
/// assert_eq!(refused_option("-DBLOCK=256"), None);
/// assert!(refused_option("-D BLOCK=256").unwrap().contains("-DBLOCK=256"));
/// assert!(refused_option("-arch=sm_90a").unwrap().contains("architecture"));
/// ```
pub fn refused_option(option: &str) -> Option<String> {
    if option.chars().any(char::is_whitespace) {
        let joined: String = option.split_whitespace().collect();
        return Some(format!(
            "{option:?} holds white space: NVRTC takes each option as one argument; write it without the space \
             ({joined:?})"
        ));
    }
    if !option.starts_with('-') || option.len() < 2 {
        return Some(format!(
            "{option:?} is not an NVRTC option (options start with `-`: \"--use_fast_math\", \"-DNAME=VALUE\")"
        ));
    }
    let name = option.split('=').next().unwrap_or(option);
    let kernelgate_sets = [
        ("--gpu-architecture", "the architecture: kernelgate compiles for each GPU's and each compile trial's"),
        ("-arch", "the architecture: kernelgate compiles for each GPU's and each compile trial's"),
        ("--include-path", "the include path: name folders with `include = [...]`, relative to the project root"),
        ("-I", "the include path: name folders with `include = [...]`, relative to the project root"),
        ("--ptxas-options", "ptxas's options: the resource gate reads ptxas's report (`-v`)"),
        ("-Xptxas", "ptxas's options: the resource gate reads ptxas's report (`-v`)"),
        ("--no-cache", "the compile cache: kernelgate turns it off where ptxas's report is read"),
    ];
    kernelgate_sets
        .iter()
        .find(|(set, _)| name == *set || (set.len() == 2 && option.starts_with(set)))
        .map(|(_, what)| format!("{option:?} sets {what}; leave it out"))
}

/// Why a table `[nvrtc.files."<file>"]` for the PTX module `file` is refused, with the fix.
fn ptx_table(file: &str) -> String {
    format!(
        "[nvrtc.files.\"{file}\"] gives NVRTC options to a prebuilt module (PTX or cubin), which kernelgate loads as \
         it is, without NVRTC: give the options to the compiler that builds it (`nvcc -ptx --use_fast_math \
         -DBLOCK=256 ...`), and remove the table"
    )
}

/// The root of the project of the folder `start`: the nearest folder at or above it holding
/// [`FILE`], else `start` ([`Project::discover`]'s rule, for the tools a project keeps beside its
/// root, `scripts/get-nvrtc`'s `.nvrtc/`).
pub fn root_of(start: &Path) -> PathBuf {
    start.ancestors().find(|d| d.join(FILE).is_file()).unwrap_or(start).to_path_buf()
}

/// Where one project keeps things, every path absolute or relative to the current folder as the
/// process was started (the root joined onto the file's relative paths).
#[derive(Debug, Clone, PartialEq)]
pub struct Project {
    /// The folder holding [`FILE`], or the current folder where there is none.
    pub root: PathBuf,
    /// The `kernelgate.toml` read, `None` where the defaults hold.
    pub file: Option<PathBuf>,
    /// The kernel folders, in the order given (default `<root>/kernels`). A file name is one
    /// kernel file of the project: two folders may not hold files of one name.
    pub kernels: Vec<PathBuf>,
    /// The folder of the per-GPU baseline folders (`KERNELGATE_BASELINES`, `baselines`, default
    /// `<root>/baselines`).
    pub baselines: PathBuf,
    /// The folder of the history stores, `None` when `KERNELGATE_HISTORY=off`
    /// (`KERNELGATE_HISTORY`, `history`, default `<root>/.kernelgate/history`).
    pub history: Option<PathBuf>,
    /// Where run files go (`KERNELGATE_OUT_DIR`, `out_dir`, default `<root>/target/kernelgate`).
    pub out_dir: PathBuf,
    /// Whether `history` was named (by `KERNELGATE_HISTORY` or the file) rather than defaulted:
    /// a named folder must exist or be creatable, the default is made quietly.
    pub history_named: bool,
    /// `[nvrtc]` as written (empty without one): [`Project::nvrtc_options`] gives a file's.
    pub nvrtc: Nvrtc,
    /// `[build] command`: the project's build of its prebuilt modules, which A/B runs at the other
    /// revision ([`BuildCommand`]); `None` without one (A/B reads committed files).
    pub build: Option<String>,
}

impl Project {
    /// The project of the folder `start` (the current folder): the nearest folder at or above it
    /// holding [`FILE`], read with [`Settings::parse`]; without one, `start` with every default.
    /// The variables in `config` override the file.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file when it exists and cannot be read; [`Settings::parse`]'s.
    ///
    /// # Example
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::write(dir.path().join("kernelgate.toml"), "kernels = [\"cuda\", \"attention/cuda\"]\n").unwrap();
    /// std::fs::create_dir(dir.path().join("attention")).unwrap();
    /// let project = kernelgate::project::Project::discover(
    ///     &dir.path().join("attention"),
    ///     &kernelgate::config::Config::default(),
    /// )
    /// .unwrap();
    /// assert_eq!(project.root, dir.path());
    /// assert_eq!(project.kernels, [dir.path().join("cuda"), dir.path().join("attention/cuda")]);
    /// assert_eq!(project.baselines, dir.path().join("baselines"));
    /// ```
    pub fn discover(start: &Path, config: &Config) -> Result<Project> {
        let root = root_of(start);
        let file = root.join(FILE);
        if !file.is_file() {
            return Ok(Project::new(&root, None, Settings::default(), config));
        }
        let text = std::fs::read_to_string(&file).map_err(Error::io(&file))?;
        let settings = Settings::parse(&text, &file)?;
        Ok(Project::new(&root, Some(file), settings, config))
    }

    /// The project rooted at `root` with `settings` read from `file` (`None`: no file) and the
    /// variables of `config` over them. Pure.
    pub fn new(root: &Path, file: Option<PathBuf>, settings: Settings, config: &Config) -> Project {
        let at = |p: PathBuf| root.join(p);
        let kernels = match settings.kernels {
            None => vec![root.join("kernels")],
            Some(Folders::One(one)) => vec![at(one)],
            Some(Folders::Several(list)) => list.into_iter().map(at).collect(),
        };
        let (history, history_named) = match &config.history {
            History::Off => (None, true),
            History::Dir(dir) => (Some(dir.clone()), true),
            History::Default => match settings.history {
                Some(dir) => (Some(at(dir)), true),
                None => (Some(root.join(".kernelgate").join("history")), false),
            },
        };
        Project {
            kernels,
            baselines: config.baselines.clone().unwrap_or_else(|| at(settings.baselines.unwrap_or("baselines".into()))),
            history,
            history_named,
            out_dir: config
                .out_dir
                .clone()
                .unwrap_or_else(|| at(settings.out_dir.unwrap_or_else(|| PathBuf::from("target/kernelgate")))),
            nvrtc: settings.nvrtc.unwrap_or_default(),
            build: settings.build.map(|b| b.command),
            file,
            root: root.to_path_buf(),
        }
    }

    /// The NVRTC options of the kernel file named `file` (`layernorm.cu`), after kernelgate's own
    /// ([`crate::compile::options_for`]): `[nvrtc]`'s `options`, then its `include` folders as
    /// `--include-path=<root>/<folder>`, then the same of `[nvrtc.files."<file>"]`. Empty without
    /// `[nvrtc]`, and for a prebuilt PTX module (`softmax.ptx`, [`crate::kernel_file`]), which NVRTC
    /// does not compile.
    ///
    /// # Errors
    /// [`Error::Project`] naming `kernelgate.toml` and the folder when an include folder is not a
    /// folder, or naming the table when `[nvrtc.files."<file>"]` gives options to a PTX module (its
    /// options are those of the compiler that built it).
    ///
    /// # Example
    /// ```
    /// use kernelgate::project::{Project, Settings};
    /// let dir = tempfile::tempdir().unwrap();
    /// std::fs::create_dir(dir.path().join("include")).unwrap();
    /// let text = "[nvrtc]\noptions = [\"--use_fast_math\"]\n[nvrtc.files.\"norm.cu\"]\noptions = [\"-DBLOCK=256\"]\ninclude = [\"include\"]\n";
    /// let settings = Settings::parse(text, "kernelgate.toml".as_ref()).unwrap();
    /// let project = Project::new(dir.path(), None, settings, &kernelgate::config::Config::default());
    /// let include = format!("--include-path={}", dir.path().join("include").display());
    /// assert_eq!(project.nvrtc_options("norm.cu").unwrap(), ["--use_fast_math", "-DBLOCK=256", include.as_str()]);
    /// assert_eq!(project.nvrtc_options("other.cu").unwrap(), ["--use_fast_math"]);
    /// ```
    pub fn nvrtc_options(&self, file: &str) -> Result<Vec<String>> {
        let own = self.nvrtc.files.get(file);
        if crate::kernel_file::is_prebuilt(file) {
            return match own {
                None => Ok(Vec::new()),
                Some(_) => Err(Error::Project {
                    path: self.file.clone().unwrap_or_else(|| self.root.join(FILE)),
                    line: None,
                    message: ptx_table(file),
                }),
            };
        }
        let mut options = Vec::new();
        for (list, folders) in
            [(&self.nvrtc.options, &self.nvrtc.include)].into_iter().chain(own.map(|f| (&f.options, &f.include)))
        {
            options.extend(list.iter().cloned());
            for folder in folders {
                let at = self.root.join(folder);
                if !at.is_dir() {
                    return Err(Error::Project {
                        path: self.file.clone().unwrap_or_else(|| self.root.join(FILE)),
                        line: None,
                        message: format!(
                            "[nvrtc] include names {}, which is not a folder ({}); name a folder of header files, \
                             relative to the project root",
                            folder.display(),
                            at.display()
                        ),
                    });
                }
                options.push(format!("--include-path={}", at.display()));
            }
        }
        Ok(options)
    }

    /// Checks that each `[nvrtc.files."<file>"]` table names one of `files`, the names of the
    /// kernel files of the kernel folders (`layernorm.cu`, as [`crate::source::read_project`]
    /// reads them or `kernelgate compile` lists them): a table naming no file (misspelt, renamed,
    /// in a folder `kernels` does not name) would give its options to nothing, silently.
    ///
    /// # Errors
    /// [`Error::Project`] naming `kernelgate.toml` at the table's line (the first line naming the
    /// file quoted, where the file can be read), with the file meant where one of `files` is within
    /// two edits (`did you mean stencil.cu?`, as for a misspelt `KERNELGATE_*` variable), and the fix.
    ///
    /// # Example
    /// ```
    /// use kernelgate::project::{Project, Settings};
    /// let settings = Settings::parse("[nvrtc.files.\"stencl.cu\"]\noptions = [\"-DR=4\"]\n", "kernelgate.toml".as_ref()).unwrap();
    /// let project = Project::new("/repo".as_ref(), None, settings, &kernelgate::config::Config::default());
    /// let err = project.check_nvrtc_files(&["stencil.cu"]).unwrap_err().to_string();
    /// assert!(err.contains("[nvrtc.files.\"stencl.cu\"] names no kernel file of the kernel folders; did you mean stencil.cu?"));
    /// assert!(project.check_nvrtc_files(&["stencl.cu"]).is_ok());
    /// ```
    pub fn check_nvrtc_files(&self, files: &[&str]) -> Result<()> {
        let Some(unknown) = self.nvrtc.files.keys().find(|f| !files.contains(&f.as_str())) else { return Ok(()) };
        let path = self.file.clone().unwrap_or_else(|| self.root.join(FILE));
        // The table's line: the first that names the file quoted (`[nvrtc.files."stencl.cu"]`).
        let quoted = format!("\"{unknown}\"");
        let line = std::fs::read_to_string(&path).ok().and_then(|text| text.lines().position(|l| l.contains(&quoted)));
        Err(Error::Project {
            path,
            line: line.map(|i| i + 1),
            message: format!(
                "[nvrtc.files.\"{unknown}\"] names no kernel file of the kernel folders; {}name a file as its folder \
                 holds it (\"layernorm.cu\"), or remove the table",
                crate::config::env::suggestion(unknown, files)
            ),
        })
    }

    /// The project of the current folder ([`Project::discover`]) with this process's variables
    /// over it: what a `kernelgate` command and a suite run start from.
    ///
    /// # Errors
    /// [`Error::Io`] when the current folder cannot be read; [`Project::discover`]'s.
    pub fn current(config: &Config) -> Result<Project> {
        let here = std::env::current_dir().map_err(Error::io("the current folder"))?;
        Project::discover(&here, config)
    }

    /// The kernel folders as messages name them, each with a trailing `/`, joined by `, `:
    /// `kernels/` by default, `gpu/` or `kernels/, src/cuda/` as `kernels` names them; `./` for
    /// the root itself. How A/B names a side's kernels (`gpu/ here`, `gpu/ at main = 0123abcd`).
    ///
    /// # Example
    /// ```
    /// use kernelgate::project::{Project, Settings};
    /// let settings = Settings::parse("kernels = [\"gpu\", \"src/cuda\"]", "kernelgate.toml".as_ref()).unwrap();
    /// let project = Project::new("/repo".as_ref(), None, settings, &kernelgate::config::Config::default());
    /// assert_eq!(project.kernels_label(), "gpu/, src/cuda/");
    /// ```
    pub fn kernels_label(&self) -> String {
        let shown = |folder: &PathBuf| match self.shown(folder) {
            s if s.is_empty() => "./".to_string(),
            s => format!("{}/", s.trim_end_matches('/')),
        };
        self.kernels.iter().map(shown).collect::<Vec<_>>().join(", ")
    }

    /// `path` as messages show it: relative to the root where it lies below it (`kernels/a.cu`),
    /// else as it is.
    pub fn shown(&self, path: &Path) -> String {
        path.strip_prefix(&self.root).unwrap_or(path).display().to_string()
    }

    /// The baselines folder as messages show it ([`Project::shown`]: `baselines`,
    /// `perf/baselines`): the folder a hint to fill the history from its run CSVs names
    /// ([`crate::history::import_command`]), handed to what may give that hint.
    pub fn baselines_shown(&self) -> PathBuf {
        PathBuf::from(self.shown(&self.baselines))
    }

    /// The kernel folders relative to the top folder `workdir` of the git repository holding them,
    /// `/`-separated (`kernels`, `src/cuda`; `""` for the top folder itself): how a commit's tree
    /// names them, for reading kernels at another revision.
    ///
    /// # Errors
    /// [`OutsideRepository`] naming the first folder that lies outside `workdir`: git holds no
    /// history of it.
    pub fn kernels_in(&self, workdir: &Path) -> std::result::Result<Vec<String>, OutsideRepository> {
        self.kernels
            .iter()
            .map(|folder| {
                crate::model::folder_in_repository(workdir, folder)
                    .ok_or_else(|| OutsideRepository { folder: folder.clone(), workdir: workdir.to_path_buf() })
            })
            .collect()
    }
}

/// A kernel folder outside the git repository that A/B and bisect read earlier versions from
/// ([`Project::kernels_in`]); the message says the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the kernel folder {} lies outside the git repository at {}: git holds no earlier version of it; move it into \
     the repository, or name folders inside it in {FILE}",
    folder.display(),
    workdir.display()
)]
pub struct OutsideRepository {
    /// The kernel folder.
    pub folder: PathBuf,
    /// The repository's top folder.
    pub workdir: PathBuf,
}

#[cfg(test)]
mod tests;
