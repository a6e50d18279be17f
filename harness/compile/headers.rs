//! Where NVRTC looks for headers, and how its log names files: the header folders of a compile
//! ([`include_dirs`], [`include_options`]), the hint for a header it could not open
//! ([`header_hint`]), and the log with the file named as the run shows it ([`named_log`]). Pure
//! but for [`include_options`], which reads the environment and the file system once per root.

/// Where `scripts/get-nvrtc` puts CCCL's headers (CUB, libcu++, Thrust: the `include/cccl` folder
/// of the pinned `nvidia-cuda-cccl` wheel), relative to the project root (git-ignored): this folder
/// holds `cccl/`.
pub const LOCAL_INCLUDE: &str = ".nvrtc/include";

/// The header folders handed to NVRTC (`--include-path`), so that a kernel can include
/// `<cooperative_groups.h>`, `<cuda_fp16.h>`, CCCL's `<cuda/barrier>` or CUB's
/// `<cub/block/block_reduce.cuh>`. Where a CUDA toolkit is installed, its own: `<root>/include`
/// and, where it exists, `<root>/include/cccl` (CUDA 13 keeps CCCL there), of the first of
/// `$CUDA_HOME`, `$CUDA_PATH`, `/usr/local/cuda` whose `include` folder exists; the toolkit comes
/// first because its headers match the NVRTC of a GPU runner, and its folders are then the only
/// ones. Without a toolkit, `<project>/.nvrtc/include` ([`LOCAL_INCLUDE`]) and its `cccl/` where
/// `scripts/get-nvrtc` made them (CI: PyPI's NVRTC has no headers, the `nvidia-cuda-cccl` wheel has
/// CCCL's); else none. Pure: `env` reads a variable, `is_dir` the file system, `project` is the
/// root of the project whose kernels are compiled ([`crate::project::Project::root`]), `None` for
/// files of no project.
pub fn include_dirs(
    env: &dyn Fn(&str) -> Option<String>,
    is_dir: &dyn Fn(&std::path::Path) -> bool,
    project: Option<&std::path::Path>,
) -> Vec<std::path::PathBuf> {
    let roots = ["CUDA_HOME", "CUDA_PATH"]
        .into_iter()
        .filter_map(|v| env(v).filter(|d| !d.is_empty()))
        .map(std::path::PathBuf::from)
        .chain([std::path::PathBuf::from("/usr/local/cuda")]);
    let with_cccl = |include: std::path::PathBuf| {
        let cccl = include.join("cccl");
        if is_dir(&cccl) { vec![include, cccl] } else { vec![include] }
    };
    for root in roots {
        let include = root.join("include");
        if is_dir(&include) {
            return with_cccl(include);
        }
    }
    match project.map(|p| p.join(LOCAL_INCLUDE)) {
        Some(local) if is_dir(&local) => with_cccl(local),
        _ => Vec::new(),
    }
}

/// [`include_dirs`] of this process for the project at `root` (`None`: files of no project), as
/// NVRTC options (`--include-path=<folder>`): the header folders of every compile of that
/// project's kernels. The root is handed down from where the run or command made its
/// [`crate::project::Project`] ([`crate::source::Sources::root`]), so a process that runs in two
/// projects (an embedded run started in another project's folder after a first) compiles each
/// project's kernels with its own `.nvrtc/include`.
///
/// Found once per process and root: the toolkit's folders and the variables that name it describe
/// the machine as the process found it, so every compile of one project in a process, and every
/// module kept for it ([`crate::compile::module_ptx`]), sees the same folders.
pub fn include_options(root: Option<&std::path::Path>) -> Vec<String> {
    type Found = std::collections::HashMap<Option<std::path::PathBuf>, Vec<String>>;
    static FOUND: std::sync::OnceLock<std::sync::Mutex<Found>> = std::sync::OnceLock::new();
    let mut found = FOUND.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
    found
        .entry(root.map(std::path::Path::to_path_buf))
        .or_insert_with(|| {
            include_dirs(&|k| std::env::var(k).ok(), &|p| p.is_dir(), root)
                .into_iter()
                .map(|d| format!("--include-path={}", d.display()))
                .collect()
        })
        .clone()
}

/// A line for a compile log that says NVRTC could not open a header: the header, where NVRTC
/// looked (`includes`, the compile's `--include-path` options: [`include_options`] and the
/// project's own) and the fix; `None` when the log holds no
/// `could not open source file "X"` / `cannot open source file "X"`. A header of CCCL (`cub/`,
/// `cuda/`, `thrust/`, `nv/`) not found is fixed by `scripts/get-nvrtc`, which installs CCCL's
/// headers into [`LOCAL_INCLUDE`]; the hint says so. Pure.
pub fn header_hint(log: &str, includes: &[String]) -> Option<String> {
    let at = log.find("open source file \"")? + "open source file \"".len();
    let header = &log[at..at + log[at..].find('"')?];
    let searched = if includes.is_empty() {
        format!(
            "no include path: no CUDA toolkit was found at $CUDA_HOME, $CUDA_PATH or /usr/local/cuda, and no \
             {LOCAL_INCLUDE} in the project"
        )
    } else {
        let dirs: Vec<&str> = includes.iter().map(|o| o.trim_start_matches("--include-path=")).collect();
        format!("the include path {}", dirs.join(", "))
    };
    let cccl = ["cub/", "cuda/", "thrust/", "nv/"].iter().any(|p| header.starts_with(p));
    let fix = if cccl {
        format!(
            "a header of CCCL (CUB, libcu++, Thrust): run scripts/get-nvrtc in the project root, which puts CCCL's \
             headers into {LOCAL_INCLUDE}/cccl (used when no CUDA toolkit is found), or name a CUDA 13 toolkit with \
             CUDA_HOME"
        )
    } else {
        format!(
            "a header of the project's own (`#include \"common.cuh\"` beside the kernel file): NVRTC does not look \
             beside the file, so name its folder in kernelgate.toml, `[nvrtc] include = [\"src/cuda\"]`; the \
             toolkit's own headers (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h, cooperative_groups.h, ...) are put into \
             {LOCAL_INCLUDE} by scripts/get-nvrtc, or come with a CUDA toolkit (CUDA_HOME naming one); the C and C++ \
             libraries' headers (assert.h, float.h, cstdio) are in neither: keep host code and host includes out of \
             NVRTC's sight with `#ifndef __CUDACC_RTC__`, or paste what the kernel needs into its file"
        )
    };
    Some(format!("kernelgate: NVRTC found no {header:?} ({searched}); {fix} (docs/adding-kernels.md, \"Headers\")"))
}

/// `log` with [`header_hint`]'s line after it, where it has one; `options` are the compile's.
pub(super) fn with_hint(log: String, options: &[String]) -> String {
    let includes: Vec<String> = options.iter().filter(|o| o.starts_with("--include-path=")).cloned().collect();
    match header_hint(&log, &includes) {
        Some(hint) => format!("{log}\n{hint}"),
        None => log,
    }
}

/// NVRTC's `log` of the program named `name` with the file named `shown` instead, where NVRTC names
/// the program: at the start of a diagnostic's line (`stencil.cu(12): error: ...` becomes
/// `kernels/ops/stencil.cu(12): error: ...`) and in its summary (`1 error detected in the
/// compilation of "stencil.cu".`). A header's lines keep the name NVRTC found it by, and the rest
/// of the log (ptxas's report) is left as it is. Pure.
///
/// # Example
/// ```
/// let log = "stencil.cu(12): error: identifier \"y\" is undefined\n\n1 error detected in the compilation of \"stencil.cu\".\n";
/// assert_eq!(
///     kernelgate::compile::named_log(log, "stencil.cu", "kernels/ops/stencil.cu"),
///     "kernels/ops/stencil.cu(12): error: identifier \"y\" is undefined\n\n1 error detected in the compilation of \"kernels/ops/stencil.cu\".\n"
/// );
/// ```
pub fn named_log(log: &str, name: &str, shown: &str) -> String {
    if name == shown {
        return log.to_string();
    }
    let summary = (format!("compilation of \"{name}\"."), format!("compilation of \"{shown}\"."));
    log.split_inclusive('\n')
        .map(|line| {
            // `<name>(<line>): `: a diagnostic of the program's own text.
            let at_line = line.strip_prefix(name).and_then(|rest| rest.strip_prefix('(')).is_some_and(|rest| {
                let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                digits > 0 && rest[digits..].starts_with("): ")
            });
            if at_line {
                format!("{shown}{}", &line[name.len()..])
            } else if line.contains(" detected in the ") && line.contains(&summary.0) {
                line.replace(&summary.0, &summary.1)
            } else {
                line.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_toolkits_headers_are_searched_where_a_toolkit_is() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
        };
        let dirs = |present: &'static [&'static str]| {
            move |p: &std::path::Path| present.iter().any(|d| p == std::path::Path::new(d))
        };
        let shown = |v: Vec<std::path::PathBuf>| v.iter().map(|p| p.display().to_string()).collect::<Vec<_>>();
        let cuda13 = dirs(&["/usr/local/cuda/include", "/usr/local/cuda/include/cccl"]);
        assert_eq!(
            shown(include_dirs(&env(&[]), &cuda13, None)),
            ["/usr/local/cuda/include", "/usr/local/cuda/include/cccl"]
        );
        let both = dirs(&["/opt/cuda/include", "/usr/local/cuda/include"]);
        assert_eq!(shown(include_dirs(&env(&[("CUDA_HOME", "/opt/cuda")]), &both, None)), ["/opt/cuda/include"]);
        assert_eq!(shown(include_dirs(&env(&[("CUDA_HOME", "/nowhere")]), &dirs(&[]), None)), Vec::<String>::new());
    }

    #[test]
    fn without_a_toolkit_the_headers_of_get_nvrtc_are_searched() {
        let present = |list: &'static [&'static str]| {
            move |p: &std::path::Path| list.iter().any(|d| p == std::path::Path::new(d))
        };
        let shown = |v: Vec<std::path::PathBuf>| v.iter().map(|p| p.display().to_string()).collect::<Vec<_>>();
        let proj = Some(std::path::Path::new("/proj"));
        let local = present(&["/proj/.nvrtc/include", "/proj/.nvrtc/include/cccl"]);
        let no_env = |_: &str| None;
        assert_eq!(shown(include_dirs(&no_env, &local, proj)), ["/proj/.nvrtc/include", "/proj/.nvrtc/include/cccl"]);
        // A toolkit comes first, and alone: its headers match the runner's NVRTC.
        let both = present(&["/usr/local/cuda/include", "/proj/.nvrtc/include", "/proj/.nvrtc/include/cccl"]);
        assert_eq!(shown(include_dirs(&no_env, &both, proj)), ["/usr/local/cuda/include"]);
        assert_eq!(shown(include_dirs(&no_env, &local, None)), Vec::<String>::new(), "no project root known");
        assert_eq!(shown(include_dirs(&no_env, &present(&[]), proj)), Vec::<String>::new(), "get-nvrtc not run");
    }

    #[test]
    fn a_missing_header_is_named_with_where_nvrtc_looked() {
        // NVRTC 13.5.37's log for `#include <cooperative_groups.h>` without an include path.
        let log = "x.cu(1): catastrophic error: could not open source file \"cooperative_groups.h\" (no directories in search list)\n";
        let hint = header_hint(log, &[]).unwrap();
        assert!(
            hint.starts_with("kernelgate: NVRTC found no \"cooperative_groups.h\" (no include path: no CUDA toolkit"),
            "{hint}"
        );
        let hint =
            header_hint("cannot open source file \"common.cuh\"", &["--include-path=/usr/local/cuda/include".into()])
                .unwrap();
        assert!(hint.contains("(the include path /usr/local/cuda/include)"), "{hint}");
        assert!(
            hint.contains("`[nvrtc] include = [\"src/cuda\"]`"),
            "a project's header: its folder in kernelgate.toml: {hint}"
        );
        assert!(hint.contains("#ifndef __CUDACC_RTC__"), "{hint}");
        assert_eq!(header_hint("x.cu(3): error: identifier \"y\" is undefined", &[]), None);
        // NVRTC 13.5.37's line for kernels/cub.cu without CCCL's headers.
        let log = "cub.cu(13): catastrophic error: could not open source file \"cub/block/block_histogram.cuh\" (no directories in search list)";
        let hint = header_hint(log, &[]).unwrap();
        assert!(hint.contains("run scripts/get-nvrtc in the project root"), "{hint}");
        assert!(hint.contains(".nvrtc/include/cccl"), "{hint}");
        let other = header_hint(log.replace("cub/", "mine/").as_str(), &[]).unwrap();
        assert!(
            !other.contains("run scripts/get-nvrtc in the project root")
                && other.contains("paste what the kernel needs")
        );
    }

    #[test]
    fn the_log_names_the_program_by_the_path_shown_and_headers_by_their_own() {
        let log = "st.cu(12): error: identifier \"y\" is undefined\n  x = y;\n      ^\n\n\
                   common.cuh(3): warning #177-D: variable \"q\" was declared but never referenced\n\
                   st.cu.bak(1): not the program\n\
                   st.cu(x): not a line\n\
                   2 errors detected in the compilation of \"st.cu\".\n";
        let named = named_log(log, "st.cu", "gpu/a/st.cu");
        assert!(named.starts_with("gpu/a/st.cu(12): error: identifier \"y\" is undefined\n  x = y;\n"), "{named}");
        for kept in ["\ncommon.cuh(3): warning", "\nst.cu.bak(1): not", "\nst.cu(x): not a line"] {
            assert!(named.contains(kept), "{kept}: {named}");
        }
        assert!(named.ends_with("2 errors detected in the compilation of \"gpu/a/st.cu\".\n"), "{named}");
        assert_eq!(named_log(log, "st.cu", "st.cu"), log);
        // A program named `./-x.cu` (a name that begins with '-') is renamed as well.
        assert_eq!(named_log("./-x.cu(2): error: e\n", "./-x.cu", "k/-x.cu"), "k/-x.cu(2): error: e\n");
    }
}
