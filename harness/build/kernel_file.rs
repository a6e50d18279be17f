//! The kinds of kernel file a kernel folder holds, and what each declares: CUDA C++ sources
//! (`*.cu`, compiled by kernelgate with NVRTC, scanned by [`crate::entry_scan`]), PTX modules
//! built by the project's own compiler (`*.ptx`: `nvcc -ptx`, CMake's `CUDA_PTX_COMPILATION`,
//! Triton, candle's `bindgen_cuda`) and cubins (`*.cubin`: `nvcc -cubin`, Triton AOT; read by
//! [`crate::cubin`]), which kernelgate loads as they are. Pure: it uses only `std`.
//!
//! Every kind travels as text ([`kernel_text`]): a cubin as the hexadecimal of its bytes.
//!
//! A PTX module is read, not compiled: its entry points are its `.entry` directives, each
//! parameter's size comes from its `.param` declaration, and its `.version` (the PTX ISA) and
//! `.target` (the architecture it was built for) say which drivers and GPUs can load it (PTX ISA
//! reference, "PTX Module Directives" and "Kernel Function Parameters":
//! <https://docs.nvidia.com/cuda/parallel-thread-execution/>).

use crate::entry_scan::{self, Declared};
use crate::{Error, ErrorKind};

/// What kind of kernel file a file name names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// CUDA C++ source (`.cu`), compiled by kernelgate with NVRTC.
    Cuda,
    /// A PTX module (`.ptx`) built by the project's own compiler, loaded as it is.
    Ptx,
    /// A cubin (`.cubin`): one architecture's machine code, built by the project's own compiler and
    /// loaded as it is ([`crate::cubin`]).
    Cubin,
    /// A fatbin (`.fatbin`): a cubin per architecture and PTX, built by the project's own compiler;
    /// the driver loads the part for its GPU ([`crate::fatbin`]).
    Fatbin,
}

/// The extensions of kernel files, each with its kind.
pub const EXTENSIONS: [(&str, Kind); 4] =
    [("cu", Kind::Cuda), ("ptx", Kind::Ptx), ("cubin", Kind::Cubin), ("fatbin", Kind::Fatbin)];

/// Whether `file` is a prebuilt module (PTX or cubin), loaded as it is rather than compiled by
/// kernelgate: it takes no NVRTC options and no definitions. Pure.
pub fn is_prebuilt(file: &str) -> bool {
    matches!(kind_of(file), Some(Kind::Ptx | Kind::Cubin | Kind::Fatbin))
}

/// Whether `file` is a binary module (cubin or fatbin), whose text is the hexadecimal of its bytes
/// ([`kernel_text`]). Pure.
pub fn is_binary(file: &str) -> bool {
    matches!(kind_of(file), Some(Kind::Cubin | Kind::Fatbin))
}

/// The text kernelgate keeps of kernel file `file` read as `bytes`, named `shown` in messages: the
/// UTF-8 text of a source or PTX module ([`crate::entry_scan::utf8_text`]), the hexadecimal of a
/// cubin's bytes ([`crate::cubin::to_text`]). One text is one module: it is hashed, cached and
/// handed to the compile workers and A/B's revisions whatever the file's kind. Pure.
///
/// # Errors
/// [`crate::entry_scan::utf8_text`]'s, for a text file that is not UTF-8.
pub fn kernel_text(file: &str, bytes: Vec<u8>, shown: &str) -> Result<String, Error> {
    match is_binary(file) {
        true => Ok(crate::cubin::to_text(&bytes)),
        false => entry_scan::utf8_text(bytes, shown),
    }
}

/// The kernels of the binary module `file` (a cubin's, [`crate::cubin::read`]; a fatbin's, those of
/// its cubins, [`crate::fatbin::read`]) from its text ([`kernel_text`]); `None` for a file of
/// another kind.
///
/// # Errors
/// The reader's error, or [`ErrorKind::NotModule`] when the text is not a binary module's.
pub fn binary_entries(file: &str, text: &str) -> Option<Result<Vec<crate::cubin::CubinEntry>, Error>> {
    let bytes = || {
        crate::cubin::from_text(text)
            .ok_or_else(|| Error::new(ErrorKind::NotModule, "is not a binary module's text (kernel_file::kernel_text)"))
    };
    match kind_of(file)? {
        Kind::Cubin => Some(bytes().and_then(|b| crate::cubin::read(&b)).map(|c| c.entries)),
        Kind::Fatbin => Some(bytes().and_then(|b| crate::fatbin::read(&b)).map(|f| f.entries)),
        Kind::Cuda | Kind::Ptx => None,
    }
}

/// The kind of kernel file `file` (a name or path) is, by its extension; `None` for any other
/// file (a header, a note), which kernel folders may hold too. Pure.
///
/// # Example
/// ```
/// use kernelgate_build::kernel_file::{kind_of, Kind};
/// assert_eq!(kind_of("transpose.cu"), Some(Kind::Cuda));
/// assert_eq!(kind_of("build/softmax.ptx"), Some(Kind::Ptx));
/// assert_eq!(kind_of("common.cuh"), None);
/// ```
pub fn kind_of(file: &str) -> Option<Kind> {
    let (_, extension) = file.rsplit_once('.')?;
    EXTENSIONS.iter().find(|(e, _)| *e == extension).map(|(_, kind)| *kind)
}

/// `file` without its kernel-file extension (`softmax.ptx` -> `softmax`): how tables and reports
/// name a file's kernels (`softmax/row_max`). Pure.
pub fn stem(file: &str) -> &str {
    EXTENSIONS.iter().find_map(|(e, _)| file.strip_suffix(&format!(".{e}")[..])).unwrap_or(file)
}

/// The kernels kernel file `file` with text `text` declares, checked as the build helper and the
/// run-time reader both need them: [`entry_scan::declared`] for CUDA C++, [`ptx_declared`] for PTX,
/// [`crate::cubin::read`] for a cubin (whose kernels have no line: 0).
///
/// # Errors
/// Theirs: [`ErrorKind::NoKernel`], [`ErrorKind::Redeclared`], [`ErrorKind::NotModule`] (a `.ptx`
/// file that is not PTX, a cubin that is not one), with a message without the file's name (which
/// the caller adds).
pub fn declared(file: &str, text: &str) -> Result<Declared, Error> {
    match kind_of(file) {
        Some(Kind::Ptx) => ptx_declared(text),
        // A binary module's kernels have no line: 0.
        Some(Kind::Cubin | Kind::Fatbin) => binary_entries(file, text).expect("a binary module").map(|entries| {
            Declared { entries: entries.into_iter().map(|e| (e.name, 0)).collect(), templates: Vec::new() }
        }),
        _ => entry_scan::declared_as(text, &entry_scan::module_name(file)),
    }
}

/// One `.entry` of a PTX module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PtxEntry {
    /// The entry's name as the module holds it: the C name of an `extern "C"` kernel, the mangled
    /// name of a C++ one (`_Z7softmaxPKfPfi`).
    pub name: String,
    /// The 1-based line of its `.entry` directive.
    pub line: usize,
    /// The size of each parameter in bytes, in order: 8 for a pointer or a 64-bit scalar, 4 for an
    /// `int` or `float`, the array's size for a struct passed by value (`.param .align 8 .b8 p[24]`).
    pub params: Vec<u32>,
    /// Each parameter's declaration as the module writes it, in order, without `.param` and with
    /// its white space made single spaces: `.u64 .ptr .align 1 row_max_param_0`, `.align 8 .b8
    /// s[24]` (PTX ISA, "Kernel Function Parameters"). The harness reads the types from them.
    pub declarations: Vec<String>,
}

/// The text of `ptx` with its comments (`// ...`, `/* ... */`) blanked out, line breaks kept, so
/// that a commented-out `.entry` is not one and line numbers still count. Pure.
fn without_comments(ptx: &str) -> String {
    let mut out = String::with_capacity(ptx.len());
    let mut chars = ptx.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                while chars.peek().is_some_and(|&n| n != '\n') {
                    chars.next();
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                    }
                    if last == '*' && n == '/' {
                        break;
                    }
                    last = n;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

/// The size in bytes of one `.param` declaration's text (`.param .u64 .ptr .align 1 a`, `.param
/// .align 4 .b8 s[12]`); `None` when no type is given. PTX ISA, "Fundamental Types".
fn param_size(declaration: &str) -> Option<u32> {
    let words: Vec<&str> = declaration.split_whitespace().collect();
    let scalar = words.iter().find_map(|w| {
        let bits = w.strip_prefix(".u").or(w.strip_prefix(".s")).or(w.strip_prefix(".b")).or(w.strip_prefix(".f"))?;
        bits.parse::<u32>().ok().filter(|b| matches!(b, 8 | 16 | 32 | 64 | 128)).map(|b| b / 8)
    })?;
    let count = words
        .last()
        .and_then(|name| name.split_once('['))
        .and_then(|(_, n)| n.trim_end_matches(']').trim().parse::<u32>().ok())
        .unwrap_or(1);
    Some(scalar * count)
}

/// Every `.entry` of the PTX module `ptx`, in order, with its line and parameter sizes
/// ([`PtxEntry`]); comments are skipped. Pure.
///
/// # Example
/// ```
/// use kernelgate_build::kernel_file::ptx_entries;
/// let ptx = ".version 9.0\n.target sm_90\n.address_size 64\n\n\
///            .visible .entry scale(\n\t.param .u64 .ptr .align 1 scale_param_0,\n\t.param .f32 scale_param_1\n)\n{\n\tret;\n}\n";
/// let entries = ptx_entries(ptx);
/// assert_eq!((entries[0].name.as_str(), entries[0].line, entries[0].params.as_slice()), ("scale", 5, &[8, 4][..]));
/// ```
pub fn ptx_entries(ptx: &str) -> Vec<PtxEntry> {
    let text = without_comments(ptx);
    let mut entries = Vec::new();
    let mut at = 0;
    while let Some(found) = text[at..].find(".entry") {
        let start = at + found;
        at = start + ".entry".len();
        // `.entry` as a directive: at a line's start or after `.visible`/`.weak`, followed by white space.
        let before = text[..start].rsplit('\n').next().unwrap_or("").split_whitespace().collect::<Vec<_>>();
        let directive = before.iter().all(|w| matches!(*w, ".visible" | ".weak"));
        if !directive || !text[at..].starts_with(char::is_whitespace) {
            continue;
        }
        let rest = text[at..].trim_start();
        let name: String =
            rest.chars().take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%')).collect();
        if name.is_empty() {
            continue;
        }
        let line = text[..start].matches('\n').count() + 1;
        let after = &rest[name.len()..];
        let declared: Vec<&str> = match after.trim_start().strip_prefix('(') {
            Some(list) => {
                let list = &list[..list.find(')').unwrap_or(list.len())];
                list.split(',').filter(|p| p.contains(".param")).collect()
            }
            None => Vec::new(),
        };
        let params = declared.iter().map(|p| param_size(p).unwrap_or(0)).collect();
        let declarations = declared
            .iter()
            .map(|p| p.split_whitespace().filter(|w| *w != ".param").collect::<Vec<_>>().join(" "))
            .collect();
        entries.push(PtxEntry { name, line, params, declarations });
    }
    entries
}

/// The first operand of directive `directive` (`.version`, `.target`) in `ptx`, outside comments;
/// `None` when the module has none. Pure.
fn directive_operand(ptx: &str, directive: &str) -> Option<String> {
    without_comments(ptx).lines().find_map(|line| {
        let mut words = line.split_whitespace();
        (words.next() == Some(directive)).then(|| words.next().map(|w| w.trim_end_matches(',').to_string()))?
    })
}

/// The PTX ISA version `.version` of `ptx` declares, as `(major, minor)` (`.version 9.0` ->
/// `(9, 0)`); `None` when it has none or it cannot be read. A driver loads PTX of the ISA versions
/// its CUDA release knows, and no newer (PTX ISA reference, "PTX ISA Version"). Pure.
pub fn ptx_version(ptx: &str) -> Option<(u32, u32)> {
    let version = directive_operand(ptx, ".version")?;
    let (major, minor) = version.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The architecture `.target` of `ptx` names (`sm_90`, `sm_90a`, `sm_100f`); `None` when it has
/// none. Pure.
pub fn ptx_target(ptx: &str) -> Option<String> {
    directive_operand(ptx, ".target")
}

/// What a PTX module declares, as [`declared`] needs it: its entries ([`ptx_entries`]) and no
/// templates (a template's instances are in a module by their mangled names already).
///
/// # Errors
/// When `ptx` has no `.version` or `.target` directive (not a PTX module), declares no `.entry`, or
/// one entry twice.
pub fn ptx_declared(ptx: &str) -> Result<Declared, Error> {
    if ptx_version(ptx).is_none() || ptx_target(ptx).is_none() {
        return Err(Error::new(
            ErrorKind::NotModule,
            "is not a PTX module: it lacks the `.version` and `.target` directives every PTX module starts with; a \
             .ptx file in a kernel folder is loaded as PTX (build it with `nvcc -ptx`, or give it another extension)",
        ));
    }
    let entries: Vec<(String, usize)> = ptx_entries(ptx).into_iter().map(|e| (e.name, e.line)).collect();
    if entries.is_empty() {
        return Err(Error::new(
            ErrorKind::NoKernel,
            "declares no `.entry` (no kernel): a module built from kernels declares one per `__global__` function; \
             build it from the .cu file that holds them",
        ));
    }
    for (i, (name, line)) in entries.iter().enumerate() {
        if let Some((_, first)) = entries[..i].iter().find(|(n, _)| n == name) {
            return Err(Error::new(
                ErrorKind::Redeclared,
                format!("line {line}: the entry `{name}` is declared twice (first at line {first})"),
            ));
        }
    }
    Ok(Declared { entries, templates: Vec::new() })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NVCC_PTX: &str = "//\n// Generated by NVIDIA NVVM Compiler\n//\n// Compiler Build ID: CL-36424714\n\
        // Cuda compilation tools, release 13.0, V13.0.88\n// Based on NVVM 7.0.1\n//\n\n\
        .version 9.0\n.target sm_90\n.address_size 64\n\n\t// .globl\trow_max\n\n\
        .visible .entry row_max(\n\t.param .u64 .ptr .align 1 row_max_param_0,\n\t.param .u64 .ptr .align 1 row_max_param_1,\n\t.param .u32 row_max_param_2\n)\n{\n\tret;\n}\n\
        // .visible .entry commented(\n/* .visible .entry blocked(\n */\n\
        .visible .entry _Z5scaleILi4EEvPf(\n\t.param .align 8 .b8 _Z5scaleILi4EEvPf_param_0[24],\n\t.param .f16 p1\n)\n{\n\tret;\n}\n";

    #[test]
    fn entries_lines_and_parameter_sizes_are_read_and_comments_skipped() {
        let entries = ptx_entries(NVCC_PTX);
        let names: Vec<_> = entries.iter().map(|e| (e.name.as_str(), e.line, e.params.clone())).collect();
        assert_eq!(names, [("row_max", 15, vec![8, 8, 4]), ("_Z5scaleILi4EEvPf", 26, vec![24, 2])]);
        assert_eq!(
            entries[0].declarations,
            [".u64 .ptr .align 1 row_max_param_0", ".u64 .ptr .align 1 row_max_param_1", ".u32 row_max_param_2"]
        );
        assert_eq!(entries[1].declarations, [".align 8 .b8 _Z5scaleILi4EEvPf_param_0[24]", ".f16 p1"]);
        assert_eq!((ptx_version(NVCC_PTX), ptx_target(NVCC_PTX).as_deref()), (Some((9, 0)), Some("sm_90")));
        let declared = declared("softmax.ptx", NVCC_PTX).unwrap();
        assert_eq!(declared.entries.len(), 2);
        assert!(declared.templates.is_empty());
    }

    #[test]
    fn a_file_that_is_not_ptx_or_declares_no_entry_is_refused() {
        let e = declared("notes.ptx", "extern \"C\" __global__ void k() {}\n").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotModule);
        assert!(e.message().contains("not a PTX module") && e.message().contains("nvcc -ptx"), "{e}");
        let e =
            declared("empty.ptx", ".version 9.0\n.target sm_90\n.address_size 64\n.func helper()\n{\n}\n").unwrap_err();
        assert!(e.kind() == ErrorKind::NoKernel && e.message().contains("no `.entry`"), "{e}");
        let twice = ".version 9.0\n.target sm_90\n.visible .entry a()\n{\n}\n.visible .entry a()\n{\n}\n";
        let e = declared("t.ptx", twice).unwrap_err();
        assert!(e.kind() == ErrorKind::Redeclared && e.message().starts_with("line 6:"), "{e}");
        // A .cu file is still scanned as CUDA C++; a kernel of C++ linkage is told the fix with the
        // module of the file's constants.
        assert!(declared("k.cu", "extern \"C\" __global__ void k() {}\n").is_ok());
        let e = declared("my-ops.cu", "__global__ void k() {}\n").unwrap_err();
        assert!(e.kind() == ErrorKind::NoKernel && e.message().contains("(`k::my_ops::<template>.with("), "{e}");
    }

    #[test]
    fn kinds_and_stems() {
        assert_eq!(
            (kind_of("a.cu"), kind_of("a.ptx"), kind_of("a.cubin"), kind_of("a.fatbin"), kind_of("a.o")),
            (Some(Kind::Cuda), Some(Kind::Ptx), Some(Kind::Cubin), Some(Kind::Fatbin), None)
        );
        assert_eq!((stem("softmax.ptx"), stem("transpose.cu"), stem("notes")), ("softmax", "transpose", "notes"));
        assert_eq!(
            (entry_scan::module_name("softmax.ptx"), entry_scan::module_name("gemm.sm_90.cubin")),
            ("softmax".into(), "gemm_sm_90".into())
        );
    }

    /// A cubin is kept as the hexadecimal of its bytes and declares its kernels, without lines; a
    /// file that is not one is named with the fix.
    #[test]
    fn a_cubin_declares_its_kernels_from_its_bytes() {
        let bytes = include_bytes!("../tests/fixtures/cubin/kernels.cubin").to_vec();
        let text = kernel_text("k.cubin", bytes, "k.cubin").unwrap();
        let d = declared("k.cubin", &text).unwrap();
        assert_eq!(d.entries[1], ("axpy".to_string(), 0));
        let not = kernel_text("k.cubin", b"extern \"C\" __global__ void k() {}\n".to_vec(), "k.cubin").unwrap();
        let e = declared("k.cubin", &not).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotModule);
        assert!(e.message().starts_with("is not a cubin: it does not start with the ELF magic"), "{e}");
    }
}
