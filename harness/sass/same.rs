//! Whether two versions of a kernel file make the same machine code: same-run A/B does not time a
//! case whose versions differ only where the GPU cannot see it.
//!
//! PTX is not the machine code. NVRTC compiles with `-lineinfo` ([`crate::compile::NVRTC_OPTIONS`],
//! for Nsight Compute's source view), so one comment line added at the top of
//! `kernels/coalescing.cu` changes its PTX (every `.loc` line moves) and the cubin's bytes (its
//! line table), while `nvdisasm --print-code` prints the same listing, to the byte (checked with
//! NVRTC and nvdisasm 13.5.37, 2026-12-01; `tests/sass_same.rs` keeps it checked). The listing is
//! the instructions, their encodings and their offsets, function by function: equal listings are
//! the same program for the GPU.

use super::nvdisasm;
use crate::error::Result;

/// What the comparison of two versions of one file found.
#[derive(Debug, Clone, PartialEq)]
pub enum Code {
    /// Both versions disassemble to the same listing for the architecture.
    Same,
    /// The listings differ (the names of the functions whose code differs, or that exist on one side only).
    Differs(Vec<String>),
    /// No comparison could be made (no nvdisasm, or it failed): the reason, for the trial's line.
    Unknown(String),
}

/// One version of a kernel file: its text and its NVRTC options (the project's for it, at that
/// version: [`crate::history::revision::Revision::kernel`]).
pub type Version<'a> = (&'a str, &'a [&'a str]);

/// Compiles `a` and `b` (two versions of kernel file `file`, each with its own options, with the
/// template instances `expressions`) for the real architecture `arch`
/// (`sm_90`) with NVRTC ([`crate::compile::compile_with_log`]), disassembles both cubins
/// ([`nvdisasm::disassemble`]) and compares the listings. A compile error names the file `shown`
/// (as [`crate::compile::compile_with_log`] takes `file`, `shown` and `root`, the root of the
/// project whose header folders NVRTC searches).
///
/// Answered once per process for each (file, versions, architecture): every case of a file asks the
/// same question (the 8 coalescing cases of an A/B run compiled the two texts 8 times each).
///
/// # Errors
/// A compile error of either text ([`crate::Error::Compile`]); a missing or failing nvdisasm is
/// not an error but [`Code::Unknown`].
pub fn compare(
    file: &str,
    shown: &str,
    a: Version<'_>,
    b: Version<'_>,
    arch: &str,
    expressions: &[&str],
    root: Option<&std::path::Path>,
) -> Result<Code> {
    type Key = (String, String, (String, Vec<String>), (String, Vec<String>), Vec<String>, Vec<String>);
    /// The answers given, process-wide rather than a run's: the key is the whole question (the
    /// file, the architecture, both versions' full texts and options, the instances, the project's
    /// header folders), whose answer
    /// depends on nothing else but the tools this process found (NVRTC and nvdisasm, themselves
    /// found once per process), so a later run in the same process can only get the same answer.
    static ANSWERED: std::sync::Mutex<std::collections::BTreeMap<Key, Code>> =
        std::sync::Mutex::new(std::collections::BTreeMap::new());
    let names = expressions.iter().map(|e| e.to_string()).collect();
    let owned = |(text, options): Version<'_>| (text.to_string(), options.iter().map(|o| o.to_string()).collect());
    let key = (file.to_string(), arch.to_string(), owned(a), owned(b), names, crate::compile::include_options(root));
    if let Some(code) = ANSWERED.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(code.clone());
    }
    let code = compare_now(file, shown, a, b, arch, expressions, root)?;
    ANSWERED.lock().unwrap_or_else(|p| p.into_inner()).insert(key, code.clone());
    Ok(code)
}

/// [`compare`] without the memo.
fn compare_now(
    file: &str,
    shown: &str,
    a: Version<'_>,
    b: Version<'_>,
    arch: &str,
    expressions: &[&str],
    root: Option<&std::path::Path>,
) -> Result<Code> {
    let tool = match nvdisasm::load() {
        Ok(tool) => tool,
        Err(e) => return Ok(Code::Unknown(e.to_string())),
    };
    let compiled = |(text, options): Version<'_>| {
        crate::compile::compile_with_log(file, shown, text, arch, expressions, options, root)
    };
    let (a, b) = (compiled(a)?, compiled(b)?);
    match (nvdisasm::disassemble(tool, &a.cubin), nvdisasm::disassemble(tool, &b.cubin)) {
        (Ok(a), Ok(b)) if a == b => Ok(Code::Same),
        (Ok(a), Ok(b)) => Ok(Code::Differs(differing_functions(&a, &b))),
        (Err(e), _) | (_, Err(e)) => Ok(Code::Unknown(e.to_string())),
    }
}

/// The functions whose code differs between two `nvdisasm --print-code` listings, or that only
/// one has, sorted: each function is its `.text.<name>` section's lines. Pure.
pub fn differing_functions(a: &str, b: &str) -> Vec<String> {
    let (fa, fb) = (functions(a), functions(b));
    let names: std::collections::BTreeSet<&str> = fa.keys().chain(fb.keys()).copied().collect();
    names.into_iter().filter(|n| fa.get(n) != fb.get(n)).map(str::to_string).collect()
}

/// A listing's code sections by function name (the `.text.<name>` of each `.section` line), each
/// the lines that follow it up to the next section.
fn functions(listing: &str) -> std::collections::BTreeMap<&str, Vec<&str>> {
    let mut out: std::collections::BTreeMap<&str, Vec<&str>> = std::collections::BTreeMap::new();
    let mut current: Option<&str> = None;
    for line in listing.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix(".section") {
            current = rest.trim().split(',').next().and_then(|s| s.strip_prefix(".text."));
            if let Some(name) = current {
                out.entry(name).or_default();
            }
        } else if let Some(name) = current {
            out.entry(name).or_default().push(t);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_are_compared_one_by_one() {
        let a = "\t.section\t.text.copy,\"ax\",@progbits\n        /*0000*/                   LDC R1, c[0x0][0x28] ;\n\
                 \t.section\t.text.scale,\"ax\",@progbits\n        /*0000*/                   EXIT ;\n";
        let b = a.replace("EXIT", "BRA 0x10");
        assert_eq!(differing_functions(a, a), Vec::<String>::new());
        assert_eq!(differing_functions(a, &b), ["scale"]);
        let only_a =
            "\t.section\t.text.copy,\"ax\",@progbits\n        /*0000*/                   LDC R1, c[0x0][0x28] ;\n";
        assert_eq!(differing_functions(a, only_a), ["scale"]);
    }
}
