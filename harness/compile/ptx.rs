//! The PTX NVRTC makes, read as text without a GPU: its entry points and their parameters, the
//! source name in a mangled one, and the module's identity (the run CSV's `module_sha256`).

/// The source name in an Itanium C++ ABI mangled name of a function at namespace scope
/// (`_Z6squarePfi` → `square`, `_Z5scaleILi4EEvPf` → `scale`): `_Z`, the name's length in decimal,
/// the name ("Itanium C++ ABI", section 5.1.2, `<unqualified-name>` as `<source-name>`). `None` for
/// a name that is not mangled that way (a nested name `_ZN...` included). Pure.
pub fn itanium_name(mangled: &str) -> Option<&str> {
    let rest = mangled.strip_prefix("_Z")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    rest.get(digits..digits + len)
}

/// The identity of a module's code: SHA-256 (lowercase hex) of its PTX, with what differs between
/// two compiles of one source taken out, so that every runner of a pool records one module for one
/// code. Two things differ:
/// - **Folders.** With `-lineinfo` NVRTC names each file whose lines the code holds in a `.file`
///   directive by its absolute path: `.file 1 "<current folder>/blocksum.cu"`, `.file 2
///   "<toolkit>/include/cub/block/block_reduce.cuh"` (PTX ISA, "Debugging Directives: .file";
///   `harness/tests/fixtures/ptx/` holds such PTX). Two checkouts in other folders, or two toolkits
///   installed in other places, would make two modules of one code; so each `.file` path is
///   replaced by its last component, the file's name. The `.loc` lines
///   that point into those files (file number, line, column) stay: an edit that moves a kernel's
///   lines is another module, as before.
/// - **Internal names.** NVRTC names a translation unit's internal-linkage symbols (libcu++'s
///   `cuda::std` customization-point objects that CCCL's headers bring, anonymous namespaces) after
///   a module id and the compiling process's id (`_ZN48_INTERNAL_00000000_11_blocksum_cu_8e9d8e83_30504...`:
///   module id `8e9d8e83`, process 30504), and for a file whose kernels are all templates the module
///   id changes on every compile (NVRTC 13.0 and 13.5: `harness/tests/fixtures/ptx/` holds
///   `kernels/blocksum.cu` compiled by two processes; NVIDIA's developer forum, "Non-deterministic
///   compilation when anonymous namespaces are used", reports the same of nvcc). So in every such
///   name the module id and process id are replaced by `MODULE` and the name's length by `L`, and
///   the `.debug_str` section (those names again, as bytes, from `-lineinfo`) is left out.
///
/// PTX with neither (no `-lineinfo`, no internal names: a prebuilt `.ptx` module) is hashed as it
/// is, as `sha256sum` prints it. Pure.
pub fn ptx_sha256(ptx: &str) -> String {
    use sha2::{Digest, Sha256};
    let tokens = module_tokens(ptx);
    let hex = |d: &[u8]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
    if tokens.is_empty() && !ptx.lines().any(|l| file_directive_name(l).is_some()) {
        return hex(&Sha256::digest(ptx.as_bytes()));
    }
    let mut hash = Sha256::new();
    let mut in_debug_str = false;
    for line in ptx.lines() {
        let t = line.trim();
        if t.starts_with(".section") {
            in_debug_str = !tokens.is_empty() && t.split_whitespace().nth(1) == Some(".debug_str");
        }
        if in_debug_str {
            in_debug_str = t != "}";
            continue;
        }
        match file_directive_name(line) {
            Some(named) => hash.update(named.as_bytes()),
            None => hash.update(canonical_names(line, &tokens).as_bytes()),
        }
        hash.update(b"\n");
    }
    hex(&hash.finalize())
}

/// A `.file` directive (`\t.file\t1 "/work/repo/kernels/blocksum.cu"`, optionally followed by a
/// timestamp and a size: PTX ISA, "Debugging Directives: .file") with its path cut to the last
/// component (`\t.file\t1 "blocksum.cu"`); `None` for any other line. Pure.
fn file_directive_name(line: &str) -> Option<String> {
    let rest = line.trim_start().strip_prefix(".file")?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let open = line.find('"')?;
    let close = open + 1 + line[open + 1..].find('"')?;
    let path = &line[open + 1..close];
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    Some(format!("{}{name}{}", &line[..=open], &line[close..]))
}

/// The `<module id>_<process id>` of each `<length>_INTERNAL_<8 hex>_<n>_<n characters>_<8 hex>_<digits>`
/// name in `ptx` (an Itanium source-name: its length, then that many characters), each once.
fn module_tokens(ptx: &str) -> Vec<String> {
    let is_hex = |s: &str| s.len() == 8 && s.bytes().all(|b| b.is_ascii_hexdigit());
    let mut tokens: Vec<String> = Vec::new();
    for (at, _) in ptx.match_indices("_INTERNAL_") {
        let digits = ptx[..at].bytes().rev().take_while(u8::is_ascii_digit).count();
        let Ok(length) = ptx[at - digits..at].parse::<usize>() else { continue };
        let Some(name) = ptx.get(at + "_INTERNAL_".len()..at + length) else { continue };
        // <8 hex>_<n>_<n characters>_<module id>_<process id>
        let Some(rest) = name.get(9..).filter(|_| name.get(..8).is_some_and(is_hex) && name.as_bytes()[8] == b'_')
        else {
            continue;
        };
        let n_digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let Ok(n) = rest[..n_digits].parse::<usize>() else { continue };
        let Some(token) = rest.get(n_digits + 1 + n + 1..) else { continue };
        let valid = token.len() > 9
            && is_hex(&token[..8])
            && token.as_bytes()[8] == b'_'
            && token[9..].bytes().all(|b| b.is_ascii_digit());
        if valid && !tokens.iter().any(|t| t == token) {
            tokens.push(token.to_string());
        }
    }
    tokens
}

/// `line` with each of `tokens` ([`module_tokens`]) replaced by `MODULE`, and the length of the
/// `_INTERNAL_...` or `_GLOBAL__N_...` name holding it by `L`. Pure.
fn canonical_names(line: &str, tokens: &[String]) -> String {
    let mut out = line.to_string();
    for token in tokens {
        while let Some(p) = out.find(token.as_str()) {
            let start = ["_INTERNAL_", "_GLOBAL__N_"].iter().filter_map(|n| out[..p].rfind(n)).max();
            out.replace_range(p..p + token.len(), "MODULE");
            if let Some(s) = start {
                let digits = out[..s].bytes().rev().take_while(u8::is_ascii_digit).count();
                out.replace_range(s - digits..s, "L");
            }
        }
    }
    out
}

/// The `.entry` names declared in a PTX module, in order: `.visible` ones (`extern "C"` kernels)
/// and `.weak` ones (template instances, which C++ may define in several translation units; PTX
/// ISA, "Linking Directives").
pub fn ptx_entries(ptx: &str) -> Vec<&str> {
    ptx.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            l.strip_prefix(".visible .entry ").or_else(|| l.strip_prefix(".weak .entry "))
        })
        .map(|rest| rest.split(['(', ' ']).next().unwrap_or(rest))
        .collect()
}

/// Parameters of each entry point in `ptx`, by name: the `.param` declarations between `.entry
/// name(` and the closing `)` ([`crate::kernel_file::ptx_entries`], which reads their sizes too;
/// PTX ISA, "Kernel Function Parameters"). A kernel launched with another number of arguments
/// reads garbage or faults; the compile trials check every case's launches against these counts
/// without a GPU.
pub fn ptx_param_counts(ptx: &str) -> std::collections::BTreeMap<String, usize> {
    crate::kernel_file::ptx_entries(ptx).into_iter().map(|e| (e.name, e.params.len())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_counted_per_entry() {
        let ptx = "
.visible .entry copy(
\t.param .u64 .ptr .align 1 copy_param_0,
\t.param .u64 .ptr .align 1 copy_param_1,
\t.param .u32 copy_param_2
)
{ ret; }
.visible .entry __launch_bounds_kernel()
.maxntid 256
{ ret; }
";
        let counts = ptx_param_counts(ptx);
        assert_eq!(counts.get("copy"), Some(&3));
        assert_eq!(counts.get("__launch_bounds_kernel"), Some(&0));
    }

    #[test]
    fn the_module_and_process_ids_of_internal_names_do_not_change_the_identity() {
        // kernels/blocksum.cu's `block_sum<128, 4>` compiled by NVRTC 13.0 in two processes.
        let fixture = |n: u32| {
            let path = crate::source::fixture_path(&format!("ptx/blocksum-128x4-nvrtc13.0-process{n}.ptx"));
            std::fs::read_to_string(path).unwrap()
        };
        let (one, two) = (fixture(1), fixture(2));
        assert_ne!(one, two);
        assert_eq!(module_tokens(&one), ["8e9d8e83_30504"]);
        assert_eq!(ptx_sha256(&one), ptx_sha256(&two));
        let line = ".global .align 1 .b8 _ZN48_INTERNAL_00000000_11_blocksum_cu_8e9d8e83_305046ignoreE[1];";
        let tokens = ["8e9d8e83_30504".to_string()];
        assert_eq!(
            canonical_names(line, &tokens),
            ".global .align 1 .b8 _ZNL_INTERNAL_00000000_11_blocksum_cu_MODULE6ignoreE[1];"
        );
        // A process id one digit longer makes the name one longer: still the same identity.
        let longer = one
            .replace(
                "_ZN48_INTERNAL_00000000_11_blocksum_cu_8e9d8e83_30504",
                "_ZN49_INTERNAL_00000000_11_blocksum_cu_8e9d8e83_305041",
            )
            .replace(
                "50_GLOBAL__N__00000000_11_blocksum_cu_8e9d8e83_30504",
                "51_GLOBAL__N__00000000_11_blocksum_cu_8e9d8e83_305041",
            );
        assert_eq!(module_tokens(&longer), ["8e9d8e83_305041"]);
        assert_eq!(ptx_sha256(&longer), ptx_sha256(&one));
        assert_ne!(ptx_sha256(&one), ptx_sha256(&one.replace("add.f32", "sub.f32")), "the code counts");
        // PTX without such names: its plain SHA-256, as the run CSVs always recorded.
        use sha2::{Digest, Sha256};
        let plain = ".visible .entry k(\n";
        let hex: String = Sha256::digest(plain).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(ptx_sha256(plain), hex);
    }

    #[test]
    fn the_folders_of_the_files_do_not_change_the_identity() {
        // params.cu compiled with -lineinfo in /tmp/pp: `.file 1 "/tmp/pp/params.cu"`.
        let path = crate::source::fixture_path("ptx/params-nvrtc13.5-sm_90.ptx");
        let ptx = std::fs::read_to_string(path).unwrap();
        assert!(ptx.contains(".file\t1 \"/tmp/pp/params.cu\""));
        let elsewhere = ptx.replace("/tmp/pp/", "/home/runner/_work/repo/repo/kernels/");
        assert_eq!(ptx_sha256(&elsewhere), ptx_sha256(&ptx), "another checkout's folder: one module");
        assert_ne!(
            ptx_sha256(&ptx.replace("/tmp/pp/params.cu", "/tmp/pp/other.cu")),
            ptx_sha256(&ptx),
            "the name counts"
        );
        assert_ne!(ptx_sha256(&ptx.replace(".loc\t1 8 34", ".loc\t1 9 34")), ptx_sha256(&ptx), "the lines count");
        // With internal names too: another checkout and another toolkit's headers, one module.
        let path = crate::source::fixture_path("ptx/blocksum-128x4-nvrtc13.0-process1.ptx");
        let blocksum = std::fs::read_to_string(path).unwrap();
        let moved = blocksum
            .replace("/work/main/.nvrtc/include/cccl/", "/usr/local/cuda-13.0/include/")
            .replace("/work/main/", "/srv/ci/");
        assert_ne!(moved, blocksum);
        assert_eq!(ptx_sha256(&moved), ptx_sha256(&blocksum));
    }

    #[test]
    fn a_file_directive_keeps_its_name_and_what_follows() {
        assert_eq!(file_directive_name("\t.file\t1 \"/a/b/k.cu\"").as_deref(), Some("\t.file\t1 \"k.cu\""));
        assert_eq!(
            file_directive_name(".file 2 \"C:\\src\\k.cuh\", 1700000000, 512").as_deref(),
            Some(".file 2 \"k.cuh\", 1700000000, 512")
        );
        assert_eq!(file_directive_name(".file 3 \"k.cu\"").as_deref(), Some(".file 3 \"k.cu\""));
        assert_eq!(file_directive_name(".filed 1 \"/a/k.cu\""), None);
        assert_eq!(file_directive_name("\tld.global.f32 %f1, [%rd1]; // \"/a\""), None);
    }

    #[test]
    fn ptx_entries_reads_visible_entries() {
        let ptx = ".version 8.8\n.target sm_90\n.visible .entry copy_vec4(\n\t.param .u64 a\n)\n\
                   .func helper()\n  .visible .entry saxpy(\n";
        assert_eq!(ptx_entries(ptx), vec!["copy_vec4", "saxpy"]);
    }
}
