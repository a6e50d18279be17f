//! Kernels as a case table names them: an entry point of a kernel file ([`Kernel`]), a template
//! instance ([`KernelTemplate::with`]), each with the preprocessor definitions of its build
//! ([`Kernel::define`]), and the names and NVRTC options those make.

use super::KernelSource;
use crate::error::{Error, Result};

/// An entry point: which file, which kernel, and the preprocessor definitions it is compiled with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Kernel {
    /// File name inside its kernel folder.
    pub file: &'static str,
    /// The kernel as the suite names it: an `extern "C" __global__` function's name
    /// (`transpose_naive`), or a template instance's name expression (`block_sum<256, 8>`,
    /// [`KernelTemplate::with`]), which NVRTC lowers to the mangled name the module holds.
    pub entry: &'static str,
    /// Preprocessor definitions of this kernel's build, each one NVRTC option `-DNAME=VALUE`,
    /// sorted by name, given after the file's own options ([`KernelSource::options`]): set with
    /// [`Kernel::define`]. Empty for the build helper's constants: the file as it is.
    pub defines: &'static [&'static str],
}

impl Kernel {
    /// The kernel `entry` of file `file` (`"transpose.cu"`), compiled as the file is: what the build
    /// helper writes for each entry point of a project's kernel files.
    ///
    /// # Example
    /// ```
    /// const COPY: kernelgate::Kernel = kernelgate::Kernel::new("copy.cu", "copy");
    /// assert!(COPY.defines.is_empty());
    /// ```
    pub const fn new(file: &'static str, entry: &'static str) -> Kernel {
        Kernel { file, entry, defines: &[] }
    }

    /// This kernel built with the preprocessor definition `-D<name>=<value>` as well: one source
    /// gives several variants, as KernelTuner builds each configuration (`-Dblock_size_x=256`;
    /// KernelTuner documentation, "Tunable parameters"). Each set of definitions is a module of its
    /// own (compiled once per run, its identity the hash of its PTX with the options), its
    /// own rows in the resource and SASS tables (named as [`Kernel::name`] writes it), and the
    /// A side of an A/B is compiled with the same definitions. Definitions are kept sorted by
    /// name, so the order they are given in does not make another kernel.
    ///
    /// # Example
    /// ```
    /// const REDUCE: kernelgate::Kernel = kernelgate::Kernel::new("reduce.cu", "reduce");
    /// let wide = REDUCE.define("ITEMS", 8).define("BLOCK", 512);
    /// assert_eq!(wide.defines, ["-DBLOCK=512", "-DITEMS=8"]);
    /// assert_eq!(wide.name(), "reduce -DBLOCK=512 -DITEMS=8");
    /// ```
    ///
    /// # Panics
    /// A typo in the case table, with the fix: `name` not a C identifier, an empty `value` or one
    /// holding whitespace (one NVRTC argument each, as `kernelgate.toml`'s options), `name` defined
    /// twice, or a prebuilt PTX module (its compiler's definitions are in it already).
    #[track_caller]
    pub fn define(self, name: &str, value: impl std::fmt::Display) -> Kernel {
        let value = value.to_string();
        let at = format!("{}::{}.define({name:?}, {value:?})", crate::entry_scan::module_name(self.file), self.entry);
        if let Err(why) = define_option(name, &value) {
            panic!("{at}: {why}");
        }
        assert!(
            !crate::kernel_file::is_prebuilt(self.file),
            "{at}: {} is a prebuilt module, compiled already; build one module per definition with its own \
             compiler (nvcc -ptx -D{name}={value}, or -cubin) and name each file",
            self.file
        );
        let prefix = format!("-D{name}=");
        assert!(
            !self.defines.iter().any(|d| d.starts_with(&prefix)),
            "{at}: {name} is defined already ({}); define each name once",
            self.defines.join(" ")
        );
        let mut defines: Vec<String> = self.defines.iter().map(|d| d.to_string()).collect();
        defines.push(format!("{prefix}{value}"));
        Kernel { defines: defines_list(defines), ..self }
    }

    /// How tables and messages name this kernel: [`Kernel::entry`], followed by its definitions
    /// when it has any (`reduce -DBLOCK=512 -DITEMS=8`), so that each build of a file has rows of
    /// its own in the resource and SASS tables.
    pub fn name(&self) -> &'static str {
        if self.defines.is_empty() {
            return self.entry;
        }
        intern(build_name(self.entry, self.defines))
    }

    /// The NVRTC options of this kernel's build: [`build_options`] of `file_options` (its file's,
    /// [`KernelSource::options`], or those of another revision's `kernelgate.toml`) and
    /// [`Kernel::defines`].
    pub fn options<'a>(&self, file_options: &[&'a str]) -> Vec<&'a str> {
        build_options(file_options, self.defines)
    }

    /// Whether `source` (this kernel's file as read) declares this kernel (the entry point, or for
    /// an instance its template): `build.rs` named the kernels when the crate was last built, and
    /// a staged binary reads the kernels as they are where it runs. [`super::Sources::declares`] asks it of the
    /// run's file of this kernel; `kernelgate compile` of a file it read itself.
    ///
    /// # Errors
    /// [`Error::Kernels`] naming the file, the kernel, what the file declares and the fix.
    pub fn declared_in(&self, source: &KernelSource) -> Result<()> {
        let (name, list, what) = match self.entry.split_once('<') {
            Some((template, _)) => (template.trim(), source.templates, "kernel template"),
            None => (self.entry, source.entries, "extern \"C\" __global__ kernel"),
        };
        if list.contains(&name) {
            return Ok(());
        }
        let module = crate::entry_scan::module_name(source.file);
        Err(Error::Kernels {
            path: source.path.into(),
            message: format!(
                "no longer declares the {what} `{name}`, which the case table launches as `k::{module}::{name}` (it \
                 was there when the crate was built; kernels are read when a run starts): restore it, or rename \
                 `k::{module}::{name}` in the case table too (`grep -rnw {name}` over its files finds it), then \
                 bless the new name: KERNELGATE_BLESS=1 cargo test --release --test kernels -- compile/{}/ (the file \
                 declares {})",
                source.file,
                if source.entries.is_empty() && source.templates.is_empty() {
                    "nothing".to_string()
                } else {
                    source
                        .entries
                        .iter()
                        .chain(source.templates)
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
        })
    }

    /// Whether this is a template instance ([`KernelTemplate::with`]): compiled by name expression
    /// and launched by its lowered name.
    pub fn is_instance(&self) -> bool {
        is_name_expression(self.entry)
    }
}

/// Whether a kernel name is a template instance's name expression (`block_sum<256, 8>`) rather
/// than an `extern "C"` function's name: C identifiers hold no `<`. Pure.
pub fn is_name_expression(entry: &str) -> bool {
    entry.contains('<')
}

/// A kernel template of a `kernels/*.cu` file (`template <int BLOCK, int ITEMS> __global__ void
/// block_sum(...)`), which is no entry point until a case instantiates it with [`Self::with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KernelTemplate {
    /// File name inside its kernel folder.
    pub file: &'static str,
    /// The template's name.
    pub name: &'static str,
}

impl KernelTemplate {
    /// The instance with template arguments `args`, written as in C++ between the angle brackets
    /// (`"256, 8"`, `"float, 4"`): the [`Kernel`] whose entry is the name expression
    /// `name<args>`. NVRTC instantiates it (`nvrtcAddNameExpression`) and names the function it
    /// made (`nvrtcGetLoweredName`; NVRTC documentation, "Accessing Lowered Names"); arguments
    /// the template does not take fail the file's compile with NVRTC's message naming the
    /// expression. The two spellings `"256,8"` and `"256, 8"` are two kernels to the suite (their
    /// rows in the resource and SASS tables differ): write each instance one way.
    ///
    /// # Panics
    /// When `args` is empty or holds an unbalanced `<`/`>`: a typo in the case table.
    #[track_caller]
    pub fn with(self, args: &str) -> Kernel {
        let args = args.trim();
        let depth = args.chars().try_fold(0i32, |d, c| match c {
            '<' => Some(d + 1),
            '>' if d == 0 => None,
            '>' => Some(d - 1),
            _ => Some(d),
        });
        assert!(
            !args.is_empty() && depth == Some(0),
            "{}::{}.with({args:?}): give the template arguments as C++ writes them between < and >, e.g. \"256, 8\"",
            self.file.trim_end_matches(".cu"),
            self.name
        );
        Kernel::new(self.file, intern(format!("{}<{args}>", self.name)))
    }
}

/// The name a kernel or function `name` of a build with the definitions `defines` has in tables
/// and messages: `name` alone without definitions, else `name -DA=1 -DB=2`. Pure.
pub fn build_name(name: &str, defines: &[&str]) -> String {
    defines.iter().fold(name.to_string(), |out, d| format!("{out} {d}"))
}

/// The NVRTC options of a build: the file's `file_options`, then its definitions `defines`
/// ([`Kernel::defines`]), which come last so that they override a file-wide `-D` of the same name.
/// Pure.
pub fn build_options<'a>(file_options: &[&'a str], defines: &[&'static str]) -> Vec<&'a str> {
    file_options.iter().copied().chain(defines.iter().copied()).collect()
}

/// The NVRTC option `-D<name>=<value>` of one preprocessor definition ([`Kernel::define`],
/// `kernelgate compile --define`). Pure.
///
/// # Errors
/// [`BadDefine`]: `name` not a C identifier, `value` empty, or `value` holding whitespace (one
/// NVRTC argument each, as `kernelgate.toml`'s options).
///
/// # Example
/// ```
/// use kernelgate::source::{BadDefine, define_option};
/// assert_eq!(define_option("BLOCK", "256").unwrap(), "-DBLOCK=256");
/// assert_eq!(define_option("2D", "1"), Err(BadDefine::Name { name: "2D".into() }));
/// assert_eq!(define_option("BLOCK", ""), Err(BadDefine::Empty { name: "BLOCK".into() }));
/// ```
pub fn define_option(name: &str, value: &str) -> std::result::Result<String, BadDefine> {
    let identifier = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !identifier {
        return Err(BadDefine::Name { name: name.to_string() });
    }
    if value.is_empty() {
        return Err(BadDefine::Empty { name: name.to_string() });
    }
    if value.chars().any(char::is_whitespace) {
        return Err(BadDefine::Value { name: name.to_string() });
    }
    Ok(format!("-D{name}={value}"))
}

/// Why a preprocessor definition is refused ([`define_option`]); its message says the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BadDefine {
    /// The macro name is not a C identifier.
    #[error(
        "{name:?} is not a macro name: a macro name is a C identifier (letters, digits, _, not first a digit), e.g. BLOCK"
    )]
    Name {
        /// The name as given.
        name: String,
    },
    /// The value is empty: `-DNAME=` would define the macro as nothing.
    #[error("the value of {name} is empty; give one (-D{name}=1), or define it in the kernel file")]
    Empty {
        /// The macro's name.
        name: String,
    },
    /// The value holds whitespace: NVRTC takes each option as one argument.
    #[error("the value is one NVRTC argument -D{name}=<value>, without spaces (write 256, or (1<<8) without spaces)")]
    Value {
        /// The macro's name.
        name: String,
    },
}

/// `defines` (`-DNAME=VALUE` options, [`define_option`]) sorted by name, as a [`Kernel::defines`]
/// list, allocated once per distinct list in the process.
pub fn defines_list(mut defines: Vec<String>) -> &'static [&'static str] {
    defines.sort_by(|a, b| define_name(a).cmp(define_name(b)));
    intern_list(defines)
}

/// The macro name of a `-DNAME=VALUE` option. Pure.
fn define_name(define: &str) -> &str {
    let name = define.trim_start_matches("-D");
    name.split_once('=').map_or(name, |(n, _)| n)
}

/// `list` as a `&'static` slice, allocated once per distinct list in the process, as [`intern`]
/// does for names.
fn intern_list(list: Vec<String>) -> &'static [&'static str] {
    static LISTS: std::sync::Mutex<Vec<&'static [&'static str]>> = std::sync::Mutex::new(Vec::new());
    let mut lists = LISTS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(known) = lists.iter().find(|l| l.iter().eq(list.iter())) {
        return known;
    }
    let leaked: &'static [&'static str] = list.into_iter().map(intern).collect::<Vec<_>>().leak();
    lists.push(leaked);
    leaked
}

/// `name` as a `&'static str`, allocated once per distinct name in the process: the case table is
/// built more than once per run (per filter, scale and A/B side), and [`Kernel`] is `Copy`.
fn intern(name: String) -> &'static str {
    static NAMES: std::sync::Mutex<std::collections::BTreeSet<&'static str>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(known) = names.get(name.as_str()) {
        return known;
    }
    let leaked: &'static str = name.leak();
    names.insert(leaked);
    leaked
}
