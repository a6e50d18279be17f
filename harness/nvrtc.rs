//! Finding `libnvrtc` without `LD_LIBRARY_PATH`.
//!
//! cudarc (feature `dynamic-loading`) opens NVRTC on first use by bare names
//! (`cudarc::get_lib_name_candidates("nvrtc")`: `libnvrtc.so`, ..., `libnvrtc.so.13`), which only
//! the loader's own path can satisfy. glibc's `dlopen` of a bare name returns an already loaded
//! library whose SONAME matches, so kernelgate looks for `libnvrtc.so.13` itself, opens it by full
//! path before cudarc's first NVRTC call and keeps it open for the life of the process. It then
//! checks that cudarc's names do resolve to that library.
//!
//! # Search order
//! The first library that opens and reports NVRTC [`NVRTC_MAJOR`]`.x` wins ([`plan`]):
//! 1. `KERNELGATE_NVRTC`: a `libnvrtc.so.13` file, or a folder holding one. When set, nothing else
//!    is searched: a value that does not hold a usable NVRTC is an error naming it.
//! 2. the loader: the first of cudarc's names that `dlopen` opens (`LD_LIBRARY_PATH`, the
//!    `ldconfig` cache, the default folders), which is what cudarc would load by itself;
//! 3. `$CUDA_HOME`, then `$CUDA_PATH`: `lib64/`, `lib/`, `targets/<arch>-linux/lib/`;
//! 4. `/usr/local/cuda/`: the same folders;
//! 5. `/usr/local/cuda-13*/`: the same folders, newest version first;
//! 6. `<project root>/.nvrtc/lib/`, where `scripts/get-nvrtc` unpacks the pinned PyPI wheel;
//! 7. Python environments' `nvidia/cu13/lib/` (the `nvidia-cuda-nvrtc` wheel), newest Python
//!    first: `<project root>/.venv`, `$VIRTUAL_ENV`, the user's site-packages
//!    (`$PYTHONUSERBASE` or `~/.local`), the system's (`/usr/local/lib/python3*/dist-packages`,
//!    `/usr/lib/python3/dist-packages`, `/usr/local/lib/python3*/site-packages`,
//!    `/usr/lib/python3*/site-packages`), and last the folders that `python3` on `PATH` reports
//!    (`site.getsitepackages()` and the user site: a pyenv or conda Python).
//!
//! The library loads `libnvrtc-builtins.so.13.*` itself, from its own folder (the 13.5.37 wheel's
//! `libnvrtc.so.13` carries `RPATH $ORIGIN`; a toolkit keeps both files in one folder too), so the
//! two files must stay together.
#![allow(unsafe_code)]

use crate::error::{Error, Result};
use std::ffi::{CStr, OsStr, c_char, c_int, c_void};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The NVRTC major version kernelgate loads: cudarc is built for CUDA 13 (feature `cuda-13000` in
/// Cargo.toml), and NVRTC's SONAME carries the major version.
pub const NVRTC_MAJOR: i32 = 13;

/// File name searched in every folder: NVRTC's SONAME for [`NVRTC_MAJOR`].
pub const LIBRARY: &str = "libnvrtc.so.13";

/// Environment variable naming the library (or its folder) to use, searched first and alone.
pub const ENV_VAR: &str = "KERNELGATE_NVRTC";

/// Where `scripts/get-nvrtc` puts the libraries, relative to the project root (git-ignored).
pub const LOCAL_DIR: &str = ".nvrtc/lib";

/// The NVRTC version `scripts/get-nvrtc` and CI install (`nvidia-cuda-nvrtc` on PyPI).
pub const PINNED_WHEEL: &str = "13.5.37";

/// One place searched, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// `KERNELGATE_NVRTC`: the files it names (a file, or `<folder>/libnvrtc.so.13`).
    Env {
        /// The variable's value.
        value: String,
        /// Files to try.
        files: Vec<PathBuf>,
    },
    /// The loader's own search, through cudarc's names.
    Loader,
    /// Files at a known place; `label` names the place in messages (`CUDA_HOME=/opt/cuda`,
    /// `/usr/local/cuda-13*`). `files` is empty when a pattern matched nothing.
    Files {
        /// The place, for messages.
        label: String,
        /// Candidate files, in order.
        files: Vec<PathBuf>,
    },
    /// The site-packages folders `python3` on `PATH` reports (not pure: runs Python).
    AskPython,
}

/// The NVRTC that this process uses.
#[derive(Debug)]
pub struct Nvrtc {
    /// The file opened (for the loader step: the file the loader picked, from `dladdr`).
    pub path: PathBuf,
    /// `nvrtcVersion()`: (major, minor).
    pub version: (i32, i32),
    /// Which search step found it ([`Place`]'s label).
    pub found_by: String,
    /// Kept open for the life of the process, so that cudarc's `dlopen` by name finds it.
    _library: libloading::os::unix::Library,
}

impl std::fmt::Display for Nvrtc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NVRTC {}.{} ({}, found by {})", self.version.0, self.version.1, self.path.display(), self.found_by)
    }
}

/// Why no NVRTC is used; kept so that every caller gets the same answer.
#[derive(Debug, Clone)]
enum Missing {
    /// `KERNELGATE_NVRTC` is set and does not name a usable NVRTC.
    Env { value: String, why: String },
    /// Nothing usable was found.
    NotFound(String),
}

/// The NVRTC of this process: searched for and opened on the first call ([`plan`]'s order), the
/// same answer afterwards. Call it before any cudarc NVRTC function.
///
/// # Errors
/// [`Error::Config`] naming `KERNELGATE_NVRTC` when it is set and unusable; [`Error::Unavailable`]
/// when nothing was found, with every place searched, every candidate rejected and why, and the
/// fix.
pub fn load() -> Result<&'static Nvrtc> {
    /// The answer, process-wide rather than a run's: it describes the machine (the libraries
    /// installed, the variables the process started with and the project folder it was in at the
    /// first call), and cudarc sends every NVRTC call of the process to one library, the one
    /// checked here (`check_cudarc_resolves_to`), so a later run could use no other.
    static FOUND: OnceLock<std::result::Result<Nvrtc, Missing>> = OnceLock::new();
    match FOUND.get_or_init(search) {
        Ok(nvrtc) => Ok(nvrtc),
        Err(Missing::Env { value, why }) => Err(Error::Config {
            name: ENV_VAR,
            value: value.clone(),
            expected: format!(
                "a {LIBRARY} of CUDA {NVRTC_MAJOR} or the folder holding it ({why}); unset it to search the \
                 usual places"
            ),
        }),
        Err(Missing::NotFound(reason)) => Err(Error::Unavailable(reason.clone())),
    }
}

/// The line a run prints first about its NVRTC: `kernelgate: NVRTC 13.5 (<file>, found by
/// <place>)`, or why there is none (the compile trials then carry the full reason). `cuda_sources`:
/// whether the project's kernel folders hold a CUDA source; with prebuilt modules alone, whose
/// compile trials need ptxas and no NVRTC, the line says what still needs it (the GPU trials'
/// ceiling probes, the library's own CUDA source).
pub fn run_header(cuda_sources: bool) -> String {
    header(load().map(|nvrtc| nvrtc.to_string()), cuda_sources)
}

/// [`run_header`]'s line for what the search found (pure).
fn header(found: Result<String>, cuda_sources: bool) -> String {
    match found {
        Ok(nvrtc) => format!("kernelgate: {nvrtc}"),
        Err(e) if !cuda_sources => format!(
            "kernelgate: no usable {LIBRARY} ({e}): the kernel folders hold prebuilt modules only, whose compile \
             trials need none; a GPU run needs it for its ceiling probes"
        ),
        Err(e @ Error::Config { .. }) => format!("kernelgate: compile trials fail: {e}"),
        Err(_) => format!(
            "kernelgate: no {LIBRARY} found: compile trials are ignored (failed with KERNELGATE_REQUIRE_NVRTC=1); \
             their message lists where it was searched and the fix"
        ),
    }
}

/// Runs the search of [`load`] with this process's environment and file system.
fn search() -> std::result::Result<Nvrtc, Missing> {
    let root = std::env::current_dir().ok().map(|d| crate::project::root_of(&d));
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let places = plan(&env, root.as_deref(), std::env::consts::ARCH, &list_dir);
    let mut searched: Vec<String> = Vec::new();
    let mut rejected: Vec<String> = Vec::new();
    for place in &places {
        let (label, files) = match place {
            Place::Env { value, files } => {
                let mut why = Vec::new();
                for file in files {
                    match open(file, &format!("{ENV_VAR}={value}")) {
                        Ok(nvrtc) => return Ok(nvrtc),
                        Err(e) => why.push(e),
                    }
                }
                return Err(Missing::Env { value: value.clone(), why: why.join("; ") });
            }
            Place::Loader => {
                match open_by_loader() {
                    Some(Ok(nvrtc)) => return Ok(nvrtc),
                    Some(Err(e)) => rejected.push(e),
                    None => {}
                }
                searched.push("the loader (LD_LIBRARY_PATH, ldconfig cache, default folders) by cudarc's names".into());
                continue;
            }
            Place::Files { label, files } => (label.clone(), files.clone()),
            Place::AskPython => match python_site_files() {
                Some(files) => ("site-packages of `python3` on PATH".to_string(), files),
                None => ("site-packages of `python3` on PATH (no python3 ran)".to_string(), Vec::new()),
            },
        };
        for file in files.iter().filter(|f| f.exists()) {
            match open(file, &label) {
                Ok(nvrtc) => return Ok(nvrtc),
                Err(e) => rejected.push(e),
            }
        }
        searched.push(searched_entry(&label, &files));
    }
    Err(Missing::NotFound(not_found_message(&searched, &rejected)))
}

/// How a place appears in the not-found message: the label and the folders looked in.
fn searched_entry(label: &str, files: &[PathBuf]) -> String {
    if files.is_empty() {
        return if label.ends_with(')') { label.to_string() } else { format!("{label} (no match)") };
    }
    let dirs: Vec<String> = files.iter().map(|f| f.parent().unwrap_or(f).display().to_string()).collect();
    format!("{label}: {}", dirs.join(", "))
}

/// The reason given when no NVRTC was found: every place searched, every candidate rejected, the fix.
fn not_found_message(searched: &[String], rejected: &[String]) -> String {
    let mut message = format!(
        "{LIBRARY} (NVRTC {NVRTC_MAJOR}) not found, so kernels cannot be compiled. Searched, in order: {ENV_VAR} \
         (unset); {}.",
        searched.join("; ")
    );
    if !rejected.is_empty() {
        message.push_str(&format!(" Rejected: {}.", rejected.join("; ")));
    }
    message.push_str(&format!(
        " Fix: run kernelgate's `scripts/get-nvrtc <project root>` (NVRTC {PINNED_WHEEL} from PyPI into {LOCAL_DIR}/, \
         what CI uses; needs curl), install a CUDA {NVRTC_MAJOR} toolkit, or set {ENV_VAR} to a {LIBRARY} or \
         its folder"
    ));
    message
}

/// The places to search, in order (the module docs list them). `env` reads a variable (empty values
/// count as unset), `root` is the project root, `arch` `std::env::consts::ARCH`, and `list_dir` the
/// entry names of a folder (empty when it cannot be read), for the `*` patterns. Pure but for one
/// look at the file system: whether `KERNELGATE_NVRTC` names a folder.
pub fn plan(
    env: &dyn Fn(&str) -> Option<String>,
    root: Option<&Path>,
    arch: &str,
    list_dir: &dyn Fn(&Path) -> Vec<String>,
) -> Vec<Place> {
    if let Some(value) = env(ENV_VAR) {
        let path = PathBuf::from(&value);
        let files = if path.is_dir() { vec![path.join(LIBRARY)] } else { vec![path] };
        return vec![Place::Env { value, files }];
    }
    let mut places = vec![Place::Loader];
    let toolkit_dirs = |top: &Path| -> Vec<PathBuf> {
        let mut dirs = vec![top.join("lib64"), top.join("lib")];
        dirs.extend(toolkit_target_dirs(arch).iter().map(|t| top.join("targets").join(t).join("lib")));
        dirs
    };
    let files_in = |dirs: Vec<PathBuf>| dirs.into_iter().map(|d| d.join(LIBRARY)).collect::<Vec<_>>();
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        match env(var) {
            Some(top) => places
                .push(Place::Files { label: format!("{var}={top}"), files: files_in(toolkit_dirs(Path::new(&top))) }),
            None => places.push(Place::Files { label: format!("{var} (unset)"), files: Vec::new() }),
        }
    }
    let usr_local = Path::new("/usr/local");
    places
        .push(Place::Files { label: "/usr/local/cuda".into(), files: files_in(toolkit_dirs(&usr_local.join("cuda"))) });
    let versioned = matching(usr_local, &format!("cuda-{NVRTC_MAJOR}"), list_dir);
    places.push(Place::Files {
        label: format!("/usr/local/cuda-{NVRTC_MAJOR}*"),
        files: files_in(versioned.iter().flat_map(|d| toolkit_dirs(d)).collect()),
    });
    if let Some(root) = root {
        places.push(Place::Files {
            label: "scripts/get-nvrtc's folder".into(),
            files: vec![root.join(LOCAL_DIR).join(LIBRARY)],
        });
    }
    // Python environments: `<prefix>/lib/python3*/site-packages` and the like, holding the wheel's
    // `nvidia/cu13/lib`.
    let wheel_dir = format!("nvidia/cu{NVRTC_MAJOR}/lib");
    let in_sites =
        |sites: Vec<PathBuf>| sites.into_iter().map(|s| s.join(&wheel_dir).join(LIBRARY)).collect::<Vec<_>>();
    let pythons = |prefix: &Path, packages: &str| -> Vec<PathBuf> {
        matching(&prefix.join("lib"), "python3", list_dir).into_iter().map(|d| d.join(packages)).collect()
    };
    if let Some(root) = root {
        let venv = root.join(".venv");
        places.push(Place::Files {
            label: format!("{}/lib/python3*/site-packages", venv.display()),
            files: in_sites(pythons(&venv, "site-packages")),
        });
    }
    match env("VIRTUAL_ENV") {
        Some(venv) => places.push(Place::Files {
            label: format!("VIRTUAL_ENV={venv}"),
            files: in_sites(pythons(Path::new(&venv), "site-packages")),
        }),
        None => places.push(Place::Files { label: "VIRTUAL_ENV (unset)".into(), files: Vec::new() }),
    }
    let user_base =
        env("PYTHONUSERBASE").map(PathBuf::from).or_else(|| env("HOME").map(|h| Path::new(&h).join(".local")));
    if let Some(base) = user_base {
        places.push(Place::Files {
            label: format!("{}/lib/python3*/site-packages (user)", base.display()),
            files: in_sites(pythons(&base, "site-packages")),
        });
    }
    let mut system = pythons(usr_local, "dist-packages");
    system.push(PathBuf::from("/usr/lib/python3/dist-packages"));
    system.extend(pythons(usr_local, "site-packages"));
    system.extend(pythons(Path::new("/usr"), "site-packages"));
    places.push(Place::Files {
        label: "system site-packages (/usr/local/lib/python3*/dist-packages, /usr/lib/python3/dist-packages, \
                /usr/local/lib/python3*/site-packages, /usr/lib/python3*/site-packages)"
            .into(),
        files: in_sites(system),
    });
    places.push(Place::AskPython);
    places
}

/// The CUDA toolkit's `targets/` folder names for a Rust target arch: `x86_64-linux`; on aarch64
/// both `sbsa-linux` (servers) and `aarch64-linux` (Jetson).
fn toolkit_target_dirs(arch: &str) -> Vec<String> {
    match arch {
        "aarch64" => vec!["sbsa-linux".into(), "aarch64-linux".into()],
        other => vec![format!("{other}-linux")],
    }
}

/// Entries of `dir` whose names start with `prefix`, highest version first (`cuda-13.10` before
/// `cuda-13.9`, `python3.12` before `python3.9`).
fn matching(dir: &Path, prefix: &str, list_dir: &dyn Fn(&Path) -> Vec<String>) -> Vec<PathBuf> {
    let mut names: Vec<String> = list_dir(dir).into_iter().filter(|n| n.starts_with(prefix)).collect();
    names.sort_by_key(|n| std::cmp::Reverse(version_key(n)));
    names.into_iter().map(|n| dir.join(n)).collect()
}

/// `"cuda-13.10"` -> `[13, 10]`: the numbers in a name, for ordering versions.
fn version_key(name: &str) -> Vec<u64> {
    name.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty()).map(|s| s.parse().unwrap_or(u64::MAX)).collect()
}

/// Entry names of a folder; empty when it cannot be read.
fn list_dir(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default()
}

/// Candidate files in the folders that `python3` on `PATH` reports; `None` when it does not run.
fn python_site_files() -> Option<Vec<PathBuf>> {
    let script = "import site\nfor p in site.getsitepackages() + [site.getusersitepackages()]: print(p)";
    let out =
        std::process::Command::new("python3").args(["-c", script]).output().ok().filter(|o| o.status.success())?;
    let wheel_dir = format!("nvidia/cu{NVRTC_MAJOR}/lib");
    let lines = String::from_utf8_lossy(&out.stdout).into_owned();
    Some(lines.lines().map(|l| Path::new(l.trim()).join(&wheel_dir).join(LIBRARY)).collect())
}

/// A libloading error with its causes (`dlopen failed: <dlerror's message>`).
fn describe(e: &libloading::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

/// `nvrtcResult nvrtcVersion(int* major, int* minor)` (nvrtc.h).
type VersionFn = unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int;

/// Opens `file`, checks that it is NVRTC [`NVRTC_MAJOR`] and that cudarc's names resolve to it.
/// `Err` says why not, naming the file.
///
/// A symbolic link is resolved first: libnvrtc finds `libnvrtc-builtins` through `RPATH $ORIGIN`,
/// the folder it was opened from, which must be the folder the real file sits in.
fn open(file: &Path, found_by: &str) -> std::result::Result<Nvrtc, String> {
    let real = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let file = real.as_path();
    // SAFETY: opening a shared library runs its initializers; libnvrtc's only set up its own state.
    // RTLD_LAZY | RTLD_LOCAL, as cudarc opens it.
    let library = unsafe { libloading::os::unix::Library::new(file) }
        .map_err(|e| format!("{}: cannot be opened: {}", file.display(), describe(&e)))?;
    let version = version_of(&library).map_err(|e| format!("{}: {e}", file.display()))?;
    if version.0 != NVRTC_MAJOR {
        return Err(format!(
            "{}: NVRTC {}.{}, but kernelgate's cudarc is built for NVRTC {NVRTC_MAJOR}",
            file.display(),
            version.0,
            version.1
        ));
    }
    let (library, handle) = raw_handle(library);
    check_cudarc_resolves_to(handle, file)?;
    Ok(Nvrtc { path: file.to_path_buf(), version, found_by: found_by.to_string(), _library: library })
}

/// The loader step: the first of cudarc's names that `dlopen` opens, as cudarc would; `None` when
/// the loader finds none.
fn open_by_loader() -> Option<std::result::Result<Nvrtc, String>> {
    for name in cudarc::get_lib_name_candidates("nvrtc") {
        // SAFETY: as in `open`; this is the call cudarc itself makes (`Library::new(name)`).
        let Ok(library) = (unsafe { libloading::os::unix::Library::new(&name) }) else { continue };
        let (library, handle) = raw_handle(library);
        let path = loaded_path(handle).unwrap_or_else(|| PathBuf::from(&name));
        let found_by = format!("the loader, as {name}");
        return Some(match version_of(&library) {
            Ok(version) if version.0 == NVRTC_MAJOR => Ok(Nvrtc { path, version, found_by, _library: library }),
            Ok((major, minor)) => Err(format!(
                "{} (the loader's {name}, which cudarc opens first): NVRTC {major}.{minor}, but kernelgate's cudarc \
                 is built for NVRTC {NVRTC_MAJOR}; remove it from LD_LIBRARY_PATH or the ldconfig cache",
                path.display()
            )),
            Err(e) => Err(format!("{} (the loader's {name}): {e}", path.display())),
        });
    }
    None
}

/// `nvrtcVersion()` of an opened library.
fn version_of(library: &libloading::os::unix::Library) -> std::result::Result<(i32, i32), String> {
    // SAFETY: `nvrtcVersion` has the signature of `VersionFn` in every NVRTC (nvrtc.h).
    let version: libloading::os::unix::Symbol<VersionFn> = unsafe { library.get(b"nvrtcVersion\0") }
        .map_err(|e| format!("not NVRTC (no nvrtcVersion): {}", describe(&e)))?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: the symbol is NVRTC's `nvrtcVersion`, which writes two ints through valid pointers.
    let status = unsafe { version(&mut major, &mut minor) };
    if status != 0 {
        return Err(format!("nvrtcVersion failed with status {status}"));
    }
    Ok((major, minor))
}

/// The file the loader opened as `handle` (glibc's `dlinfo(RTLD_DI_LINKMAP)`: the link map's
/// `l_name`); `None` where that is not available.
#[cfg(target_env = "gnu")]
fn loaded_path(handle: usize) -> Option<PathBuf> {
    /// The first fields of glibc's `struct link_map` (<link.h>), the only ones read.
    #[repr(C)]
    struct LinkMap {
        l_addr: usize,
        l_name: *const c_char,
    }
    let mut map: *const LinkMap = std::ptr::null();
    // SAFETY: `handle` is a live dlopen handle (its Library is held by the caller); RTLD_DI_LINKMAP
    // writes one `struct link_map*` through the pointer given.
    let status = unsafe { libc::dlinfo(handle as *mut c_void, libc::RTLD_DI_LINKMAP, (&raw mut map).cast()) };
    if status != 0 || map.is_null() {
        return None;
    }
    // SAFETY: glibc's link map for a loaded object; `l_name` is its NUL-terminated path, valid while
    // the object stays loaded.
    let name = unsafe { (*map).l_name };
    if name.is_null() {
        return None;
    }
    // SAFETY: as above.
    let name: &CStr = unsafe { CStr::from_ptr(name) };
    Some(PathBuf::from(OsStr::from_bytes(name.to_bytes())))
}

/// Without glibc the path of a loaded library is not looked up.
#[cfg(not(target_env = "gnu"))]
fn loaded_path(_handle: usize) -> Option<PathBuf> {
    None
}

/// Splits an opened library into itself and its `dlopen` handle (for comparing handles).
fn raw_handle(library: libloading::os::unix::Library) -> (libloading::os::unix::Library, usize) {
    let handle = library.into_raw();
    // SAFETY: `handle` came from `into_raw` just above and is turned back into exactly one Library.
    (unsafe { libloading::os::unix::Library::from_raw(handle) }, handle as usize)
}

/// Checks that the first of cudarc's names that `dlopen` opens is the library already loaded as
/// `handle` (glibc returns the same handle for the same object), so cudarc uses the NVRTC found.
fn check_cudarc_resolves_to(handle: usize, file: &Path) -> std::result::Result<(), String> {
    for name in cudarc::get_lib_name_candidates("nvrtc") {
        // SAFETY: as in `open`: the call cudarc itself makes.
        let Ok(library) = (unsafe { libloading::os::unix::Library::new(&name) }) else { continue };
        let (_library, other_handle) = raw_handle(library);
        let other = loaded_path(other_handle);
        if other_handle == handle {
            return Ok(());
        }
        return Err(format!(
            "{}: opened, but cudarc opens `{name}` first, which the loader resolves to {}; remove that from \
             LD_LIBRARY_PATH or the ldconfig cache",
            file.display(),
            other.map_or_else(|| "another library".to_string(), |p| p.display().to_string())
        ));
    }
    Err(format!("{}: opened, but none of cudarc's names resolves to it (its SONAME is not {LIBRARY})", file.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A project of prebuilt modules alone is not told its compile trials fail without NVRTC (a
    /// new user's report), a project of CUDA sources is.
    #[test]
    fn the_header_says_what_needs_nvrtc() {
        let bad = || Err(Error::Config { name: ENV_VAR, value: "/nonexistent".into(), expected: "a file".into() });
        assert!(header(bad(), true).starts_with("kernelgate: compile trials fail: "));
        let ptx_only = header(bad(), false);
        assert!(ptx_only.contains("prebuilt modules only, whose compile trials need none"), "{ptx_only}");
        assert!(!ptx_only.contains("compile trials fail"), "{ptx_only}");
        assert_eq!(header(Ok("NVRTC 13.0".into()), false), "kernelgate: NVRTC 13.0");
    }
    use std::collections::HashMap;

    /// A fake environment and file tree for [`plan`].
    fn plan_with(vars: &[(&str, &str)], dirs: &[(&str, &[&str])], arch: &str) -> Vec<Place> {
        let vars: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let dirs: HashMap<PathBuf, Vec<String>> =
            dirs.iter().map(|(d, names)| (PathBuf::from(d), names.iter().map(|n| n.to_string()).collect())).collect();
        let env = move |name: &str| vars.get(name).cloned();
        let list = move |dir: &Path| dirs.get(dir).cloned().unwrap_or_default();
        plan(&env, Some(Path::new("/proj")), arch, &list)
    }

    fn files(places: &[Place]) -> Vec<String> {
        places
            .iter()
            .flat_map(|p| match p {
                Place::Env { files, .. } | Place::Files { files, .. } => files.clone(),
                Place::Loader | Place::AskPython => Vec::new(),
            })
            .map(|f| f.display().to_string())
            .collect()
    }

    #[test]
    fn kernelgate_nvrtc_is_searched_alone() {
        let places =
            plan_with(&[("KERNELGATE_NVRTC", "/opt/nv/libnvrtc.so.13.2.1"), ("CUDA_HOME", "/c")], &[], "x86_64");
        assert_eq!(
            places,
            [Place::Env {
                value: "/opt/nv/libnvrtc.so.13.2.1".into(),
                files: vec!["/opt/nv/libnvrtc.so.13.2.1".into()]
            }]
        );
    }

    #[test]
    fn kernelgate_nvrtc_may_name_a_folder() {
        let dir = tempfile::tempdir().unwrap();
        let value = dir.path().display().to_string();
        let places = plan_with(&[("KERNELGATE_NVRTC", &value)], &[], "x86_64");
        assert_eq!(files(&places), [dir.path().join(LIBRARY).display().to_string()]);
    }

    #[test]
    fn the_order_is_loader_toolkits_project_then_python() {
        let places = plan_with(
            &[("CUDA_HOME", "/opt/cuda"), ("VIRTUAL_ENV", "/venv"), ("HOME", "/home/u")],
            &[
                ("/usr/local", &["cuda", "cuda-12.8", "cuda-13.9", "cuda-13.10", "lib"]),
                ("/usr/local/lib", &["python3.11", "python3.9"]),
                ("/venv/lib", &["python3.12"]),
                ("/proj/.venv/lib", &["python3.11"]),
                ("/home/u/.local/lib", &["python3.11"]),
                ("/usr/lib", &["python3.11", "python3"]),
            ],
            "x86_64",
        );
        assert_eq!(places[0], Place::Loader);
        assert_eq!(places.last(), Some(&Place::AskPython));
        let cu = "nvidia/cu13/lib/libnvrtc.so.13";
        let expected = [
            "/opt/cuda/lib64/libnvrtc.so.13".to_string(),
            "/opt/cuda/lib/libnvrtc.so.13".into(),
            "/opt/cuda/targets/x86_64-linux/lib/libnvrtc.so.13".into(),
            "/usr/local/cuda/lib64/libnvrtc.so.13".into(),
            "/usr/local/cuda/lib/libnvrtc.so.13".into(),
            "/usr/local/cuda/targets/x86_64-linux/lib/libnvrtc.so.13".into(),
            "/usr/local/cuda-13.10/lib64/libnvrtc.so.13".into(),
            "/usr/local/cuda-13.10/lib/libnvrtc.so.13".into(),
            "/usr/local/cuda-13.10/targets/x86_64-linux/lib/libnvrtc.so.13".into(),
            "/usr/local/cuda-13.9/lib64/libnvrtc.so.13".into(),
            "/usr/local/cuda-13.9/lib/libnvrtc.so.13".into(),
            "/usr/local/cuda-13.9/targets/x86_64-linux/lib/libnvrtc.so.13".into(),
            "/proj/.nvrtc/lib/libnvrtc.so.13".into(),
            format!("/proj/.venv/lib/python3.11/site-packages/{cu}"),
            format!("/venv/lib/python3.12/site-packages/{cu}"),
            format!("/home/u/.local/lib/python3.11/site-packages/{cu}"),
            format!("/usr/local/lib/python3.11/dist-packages/{cu}"),
            format!("/usr/local/lib/python3.9/dist-packages/{cu}"),
            format!("/usr/lib/python3/dist-packages/{cu}"),
            format!("/usr/local/lib/python3.11/site-packages/{cu}"),
            format!("/usr/local/lib/python3.9/site-packages/{cu}"),
            format!("/usr/lib/python3.11/site-packages/{cu}"),
            format!("/usr/lib/python3/site-packages/{cu}"),
        ];
        assert_eq!(files(&places), expected);
    }

    #[test]
    fn unset_variables_are_named_and_aarch64_has_two_target_folders() {
        let places = plan_with(&[("CUDA_PATH", "/cp"), ("PYTHONUSERBASE", "/pub"), ("HOME", "/h")], &[], "aarch64");
        let labels: Vec<&str> = places
            .iter()
            .filter_map(|p| match p {
                Place::Files { label, .. } => Some(label.as_str()),
                _ => None,
            })
            .collect();
        assert!(labels.contains(&"CUDA_HOME (unset)") && labels.contains(&"VIRTUAL_ENV (unset)"), "{labels:?}");
        assert!(
            labels.contains(&"/pub/lib/python3*/site-packages (user)"),
            "PYTHONUSERBASE wins over HOME: {labels:?}"
        );
        let all = files(&places);
        assert!(all.contains(&"/cp/targets/sbsa-linux/lib/libnvrtc.so.13".to_string()), "{all:?}");
        assert!(all.contains(&"/cp/targets/aarch64-linux/lib/libnvrtc.so.13".to_string()), "{all:?}");
    }

    #[test]
    fn versions_sort_numerically() {
        let list = |_: &Path| vec!["cuda-13.9".to_string(), "cuda-13.10".into(), "cuda-13.1".into(), "other".into()];
        let found: Vec<String> =
            matching(Path::new("/x"), "cuda-13", &list).iter().map(|p| p.display().to_string()).collect();
        assert_eq!(found, ["/x/cuda-13.10", "/x/cuda-13.9", "/x/cuda-13.1"]);
    }

    #[test]
    fn the_not_found_message_names_every_place_and_the_fix() {
        let message =
            not_found_message(&["CUDA_HOME (unset)".into(), "/usr/local/cuda".into()], &["/x: NVRTC 12.8".into()]);
        for part in ["KERNELGATE_NVRTC (unset)", "CUDA_HOME (unset)", "/usr/local/cuda", "Rejected: /x: NVRTC 12.8"] {
            assert!(message.contains(part), "{part} missing: {message}");
        }
        assert!(message.contains("scripts/get-nvrtc") && message.contains("13.5.37"), "{message}");
    }

    #[test]
    fn a_file_that_is_not_nvrtc_is_rejected_with_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join(LIBRARY);
        std::fs::write(&fake, b"not an ELF file").unwrap();
        let err = open(&fake, "test").unwrap_err();
        assert!(err.starts_with(&format!("{}: cannot be opened", fake.display())), "{err}");
    }

    /// Where NVRTC is installed (CI runs scripts/get-nvrtc and sets KERNELGATE_REQUIRE_NVRTC=1),
    /// the process's NVRTC is CUDA 13's, a real file, and cudarc reports the same version.
    #[test]
    fn the_loaded_nvrtc_is_the_one_cudarc_uses() {
        let nvrtc = match load() {
            Ok(n) => n,
            Err(e) => {
                assert!(std::env::var_os("KERNELGATE_REQUIRE_NVRTC").is_none(), "{e}");
                eprintln!("skipped: {e}");
                return;
            }
        };
        assert_eq!(nvrtc.version.0, NVRTC_MAJOR);
        assert!(nvrtc.path.is_file(), "{nvrtc}");
        let (mut major, mut minor) = (0, 0);
        // SAFETY: NVRTC is loaded (above); nvrtcVersion writes two ints.
        unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) }.result().unwrap();
        assert_eq!((major, minor), nvrtc.version);
    }
}
