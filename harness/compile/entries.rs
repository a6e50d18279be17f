//! Whether a compiled file declares the entry points the suite expects: `build.rs`'s list and the
//! template instances compiled, with a message naming the fix when not (C++ linkage, a macro).

use super::{Lowered, itanium_name, ptx_entries, suite_name};
use crate::{nvrtc, source::KernelSource};

/// `Err` with the message of the compile trial when the PTX of `source` for `arch` does not declare
/// exactly the entry points that `build.rs` listed and the template instances `lowered` (by their
/// name expressions).
pub(crate) fn check_entries(
    source: &KernelSource,
    arch: &str,
    ptx: &str,
    lowered: &[Lowered],
) -> std::result::Result<(), String> {
    let mut found: Vec<&str> = ptx_entries(ptx).into_iter().map(|e| suite_name(lowered, e)).collect();
    let mut listed: Vec<&str> = source.entries.to_vec();
    listed.extend(lowered.iter().map(|l| l.expression.as_str()));
    found.sort_unstable();
    listed.sort_unstable();
    if found == listed {
        return Ok(());
    }
    let used = nvrtc::load().map_or_else(|e| e.to_string(), |n| n.to_string());
    let mangled: Vec<String> = found
        .iter()
        .filter(|f| !listed.contains(f))
        .filter_map(|f| itanium_name(f).map(|name| format!("{name} (PTX entry {f})")))
        .collect();
    let fix = if mangled.is_empty() {
        String::new()
    } else {
        // The build helper's sentence, which says the same of a file whose only kernels it found so.
        format!("; {}", crate::entry_scan::cpp_linkage_fix(&mangled, &crate::entry_scan::module_name(source.file)))
    };
    let unseen: Vec<&str> = found.iter().copied().filter(|f| !listed.contains(f) && !f.starts_with("_Z")).collect();
    let cause = unseen_cause(&unseen, &crate::entry_scan::kernel_macros(source.source));
    Err(format!(
        "{}: the source defines entry points {listed:?} (as build.rs scans it) but the PTX for {arch} declares \
         {found:?} ({used}){fix}{cause}",
        source.path
    ))
}

/// Why the PTX declares C-linkage entries `unseen` that the entry scan did not list, for
/// `check_entries`'s message; empty when there are none. The scan skips directive lines
/// ([`crate::entry_scan`]), so a kernel a `#define` makes is not seen: with `macros` (the source's
/// `#define`s holding `__global__`, [`crate::entry_scan::kernel_macros`]) that is the cause named,
/// else it leads the likely causes. Pure.
pub fn unseen_cause(unseen: &[&str], macros: &[(String, usize)]) -> String {
    const WRITE_OUT: &str = "write each wrapper out as `extern \"C\" __global__ void name(...) { ... }` \
                             (docs/adding-kernels.md, \"Your own kernel\")";
    if unseen.is_empty() {
        return String::new();
    }
    if macros.is_empty() {
        return format!(
            "; the scan did not find {unseen:?}: likely made by a macro (of an included header; entry points a \
             macro makes are not seen: {WRITE_OUT}), or defined in a form it does not read"
        );
    }
    let named: Vec<String> = macros.iter().map(|(name, line)| format!("{name} (line {line})")).collect();
    format!(
        "; {unseen:?} {} made by the macro {}: build.rs skips `#define` bodies, so entry points a macro makes are \
         not seen; {WRITE_OUT}",
        if unseen.len() == 1 { "is likely" } else { "are likely" },
        named.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::super::{check_compiles, nvrtc_available};
    use super::*;

    #[test]
    fn a_kernel_with_cpp_linkage_is_named_with_the_fix() {
        // The entries NVRTC 13.5 declared for `__global__ void square(float*, int)`, a template
        // `scale<4>` instantiated explicitly, and an `extern "C"` kernel.
        assert_eq!(itanium_name("_Z6squarePfi"), Some("square"));
        assert_eq!(itanium_name("_Z5scaleILi4EEvPf"), Some("scale"));
        assert_eq!(itanium_name("ok"), None);
        assert_eq!(itanium_name("_Z99x"), None);
        let source = KernelSource {
            file: "cpp.cu",
            path: "kernels/cpp.cu",
            source: "",
            sha256: "",
            entries: &["ok"],
            templates: &[],
            options: &[],
        };
        let ptx = ".visible .entry _Z6squarePfi(\n.visible .entry ok(\n";
        let message = check_entries(&source, "sm_90", ptx, &[]).unwrap_err();
        assert!(message.contains("square (PTX entry _Z6squarePfi) has C++ linkage"), "{message}");
        assert!(message.contains("declare it `extern \"C\" __global__`"), "{message}");
        assert!(message.contains("Templated kernels"), "{message}");
    }

    #[test]
    fn template_instances_are_named_by_their_expressions_in_the_ptx_checks() {
        let lowered = [Lowered { expression: "scale<4>".into(), lowered: "_Z5scaleILi4EEvPf".into() }];
        assert_eq!(suite_name(&lowered, "_Z5scaleILi4EEvPf"), "scale<4>");
        assert_eq!(suite_name(&lowered, "ok"), "ok");
        let source = KernelSource {
            file: "t.cu",
            path: "kernels/t.cu",
            source: "",
            sha256: "",
            entries: &["ok"],
            templates: &["scale"],
            options: &[],
        };
        // An instance's entry is `.weak` (PTX ISA, "Linking Directives"), an extern "C" kernel's `.visible`.
        let ptx = ".weak .entry _Z5scaleILi4EEvPf(\n.visible .entry ok(\n";
        assert_eq!(ptx_entries(ptx), ["_Z5scaleILi4EEvPf", "ok"]);
        assert_eq!(check_entries(&source, "sm_90", ptx, &lowered), Ok(()));
        let message = check_entries(&source, "sm_90", ptx, &[]).unwrap_err();
        assert!(message.contains("scale (PTX entry _Z5scaleILi4EEvPf) has C++ linkage"), "{message}");
        assert!(message.contains("`k::t::<template>.with(\"<arguments>\")`"), "{message}");
    }

    #[test]
    fn entries_a_macro_makes_are_named_with_the_macro_and_the_fix() {
        let text = "#define WRAP(B) \\\n  extern \"C\" __global__ void scan_##B(int* x) { x[0] = B; }\n\
                    WRAP(128)\nextern \"C\" __global__ void plain(int* x) { x[0] = 1; }\n";
        let source = KernelSource {
            file: "scan.cu",
            path: "/tmp/x/scan.cu",
            source: text,
            sha256: "",
            entries: &["plain"],
            templates: &[],
            options: &[],
        };
        let ptx = ".visible .entry scan_128(\n.visible .entry plain(\n";
        let message = check_entries(&source, "sm_90", ptx, &[]).unwrap_err();
        assert!(message.contains("[\"scan_128\"] is likely made by the macro WRAP (line 1)"), "{message}");
        assert!(message.contains("build.rs skips `#define` bodies"), "{message}");
        assert!(message.contains("write each wrapper out as `extern \"C\" __global__ void name(...)"), "{message}");
        // Without a `#define` of a kernel in the file, the macro is still the first likely cause.
        let no_macro = KernelSource { source: "extern \"C\" __global__ void plain(int* x) {}\n", ..source };
        let message = check_entries(&no_macro, "sm_90", ptx, &[]).unwrap_err();
        assert!(message.contains("the scan did not find [\"scan_128\"]: likely made by a macro"), "{message}");
        // An entry missing from the PTX alone has no such cause.
        let listed = KernelSource { entries: &["plain", "gone"], ..no_macro };
        let message = check_entries(&listed, "sm_90", ".visible .entry plain(\n", &[]).unwrap_err();
        assert!(!message.contains("macro"), "{message}");
    }

    #[test]
    fn a_listed_entry_missing_from_the_ptx_fails_the_compile_trial() {
        if nvrtc_available().is_err() {
            assert!(std::env::var_os("KERNELGATE_REQUIRE_NVRTC").is_none());
            return;
        }
        let source = KernelSource {
            file: "two.cu",
            path: "kernels/two.cu",
            source: "extern \"C\" __global__ void a(float* x) { x[0] = 1.0f; }\n",
            sha256: "",
            entries: &["a", "b"],
            templates: &[],
            options: &[],
        };
        let message = check_compiles(&source, "sm_80").unwrap().unwrap_err();
        assert!(message.contains("[\"a\", \"b\"]") && message.contains("[\"a\"]"), "{message}");
    }
}
