//! Reading a cubin (`*.cubin`: `nvcc -cubin`, CMake's `CUDA_CUBIN_COMPILATION`, Triton AOT): the
//! ELF image of one architecture's machine code (SASS) that the driver loads as it is, with no JIT.
//! Pure: it uses only `std`, reading the ELF64 headers by hand (System V ABI, "ELF Header" and
//! "Sections": <https://refspecs.linuxfoundation.org/elf/gabi4+/contents.html>).
//!
//! What a cubin says, and where (checked against `cuobjdump -elf` and `cuobjdump -res-usage` of
//! nvcc 13.0's output; NVIDIA does not document the `.nv.info` encoding, and LLVM's
//! `llvm/BinaryFormat/ELF.h` names the architecture fields):
//! - **The architecture** is in `e_flags`: bits 8..16 from ELF ABI version 8 (CUDA 12.8 on), the
//!   low byte before (`0x5a` is `sm_90`).
//! - **The kernels** are the functions with a section `.nv.info.<name>`: the attributes of one
//!   entry point (device functions that are called, not inlined, have none).
//! - **Each parameter's size** is an `EIATTR_KPARAM_INFO` attribute (0x17) of that section: 12
//!   bytes, `u32` index, `u16` ordinal, `u16` offset, and a `u32` whose bits 18..32 are the size in
//!   bytes.
//! - **Registers and stack** are `EIATTR_REGCOUNT` (0x2f) and `EIATTR_FRAME_SIZE` (0x11) in the
//!   cubin's `.nv.info`, each a (`u32` symbol index, `u32` value) pair; **static shared memory** is
//!   the size of the section `.nv.shared.<name>`, less the 1 KiB per block the system reserves
//!   where the cubin lays it into that section (from sm_90: the cubin then has a section
//!   `.nv.shared.reserved.0`; `mixed` of `harness/tests/fixtures/cubin/kernels.cu` has a section of 2048
//!   bytes for sm_90 where ptxas reports `1024 bytes smem`, and 1024 for sm_80), so that the figure is
//!   ptxas's, to which an occupancy calculation adds the reserved KiB itself.
//! - **The ptxas that made it** is named in the note `.note.nv.tkinfo`.

use std::collections::BTreeMap;

use crate::{Error, ErrorKind};

/// `e_machine` of a CUDA ELF image (`EM_CUDA`).
const EM_CUDA: u16 = 190;

/// One kernel (entry point) of a cubin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CubinEntry {
    /// The name the image holds: the C name of an `extern "C"` kernel, the mangled name of a C++ one.
    pub name: String,
    /// The size of each parameter in bytes, in order (8 for a pointer, 4 for an `int`).
    pub params: Vec<u32>,
    /// Registers per thread (`EIATTR_REGCOUNT`); `None` when the image does not say.
    pub regs: Option<u32>,
    /// The stack frame per thread, bytes (`EIATTR_FRAME_SIZE`); `None` when the image does not say.
    pub frame_bytes: Option<u64>,
    /// Static shared memory per block, bytes, as ptxas reports it (the size of `.nv.shared.<name>`,
    /// less [`RESERVED_SHARED`] where the cubin lays the reserved region into it; 0 without one).
    pub shared_static_bytes: u64,
}

/// What [`read`] finds in a cubin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cubin {
    /// The architecture its SASS is for, `sm_90`.
    pub arch: String,
    /// Its kernels, sorted by name.
    pub entries: Vec<CubinEntry>,
    /// The release of the ptxas that made it, `major.minor` (`13.0`), from the tool note
    /// `.note.nv.tkinfo` (`Cuda compilation tools, release 13.0, V13.0.88`); `None` without one.
    pub compiler: Option<String>,
}

/// One section: its name, its bytes in the file (none for NOBITS, `.nv.shared.*`) and its size.
struct Section<'a> {
    name: &'a str,
    data: &'a [u8],
    size: usize,
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// The NUL-terminated name at `at` in the string table `table`.
fn name_at(table: &[u8], at: usize) -> Option<&str> {
    let rest = table.get(at..)?;
    std::str::from_utf8(&rest[..rest.iter().position(|&c| c == 0)?]).ok()
}

/// The sections of the ELF64 little-endian image `b`, with the symbol names of its symbol table by
/// index (empty where there is none).
fn sections(b: &[u8]) -> Option<(Vec<Section<'_>>, Vec<&str>)> {
    let (shoff, shentsize, shnum, shstrndx) =
        (u64_at(b, 0x28)? as usize, u16_at(b, 0x3a)? as usize, u16_at(b, 0x3c)? as usize, u16_at(b, 0x3e)? as usize);
    if shentsize < 64 {
        return None;
    }
    let mut raw = Vec::with_capacity(shnum);
    for i in 0..shnum {
        let h = shoff.checked_add(i.checked_mul(shentsize)?)?;
        let (name, kind) = (u32_at(b, h)? as usize, u32_at(b, h + 4)?);
        let (offset, size, link) = (u64_at(b, h + 0x18)? as usize, u64_at(b, h + 0x20)? as usize, u32_at(b, h + 0x28)?);
        // A NOBITS section (8: `.nv.shared.*`) has a size and no bytes in the file.
        let data: &[u8] = if kind == 8 { &[] } else { b.get(offset..offset.checked_add(size)?)? };
        raw.push((name, kind, data, size, link));
    }
    let names = raw.get(shstrndx)?.2;
    let mut out = Vec::with_capacity(shnum);
    let mut symbols = Vec::new();
    for &(name, kind, data, size, link) in &raw {
        let name = name_at(names, name)?;
        if kind == 2 {
            // SYMTAB: 24-byte entries, `st_name` first, into the string table `sh_link` names.
            let strings = raw.get(link as usize)?.2;
            symbols = data.chunks_exact(24).map(|s| name_at(strings, u32_at(s, 0)? as usize)).collect::<Option<_>>()?;
        }
        out.push(Section { name, data, size });
    }
    Some((out, symbols))
}

/// The attributes of one `.nv.info` section: (attribute, value or payload). Each is a 4-byte
/// header, format (`u8`), attribute (`u8`) and a `u16` that is the value itself, or for the format
/// `EIFMT_SVAL` (4) the length of the payload that follows.
fn attributes(info: &[u8]) -> Option<Vec<(u8, &[u8])>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < info.len() {
        let (format, attribute) = (*info.get(at)?, *info.get(at + 1)?);
        let value = info.get(at + 2..at + 4)?;
        at += 4;
        if format == 4 {
            let len = u16_at(value, 0)? as usize;
            out.push((attribute, info.get(at..at + len)?));
            at += len;
        } else {
            out.push((attribute, value));
        }
    }
    Some(out)
}

/// Shared memory per block the system reserves from sm_80 on, bytes (CUDA C++ Programming Guide,
/// "Shared Memory" of compute capability 8.x and 9.x), which a cubin with a `.nv.shared.reserved.0`
/// section counts in each kernel's `.nv.shared.<name>`.
pub const RESERVED_SHARED: u64 = 1024;

/// `EIATTR_KPARAM_INFO`: one parameter's ordinal, offset and size.
const KPARAM_INFO: u8 = 0x17;
/// `EIATTR_REGCOUNT`.
const REGCOUNT: u8 = 0x2f;
/// `EIATTR_FRAME_SIZE`.
const FRAME_SIZE: u8 = 0x11;

/// Reads the cubin `bytes` ([the module's documentation](self) says what, and where).
///
/// # Errors
/// [`ErrorKind::NotModule`] when `bytes` is not an ELF image, not one for a CUDA GPU (another
/// machine's object, a fatbin, a PTX file given the wrong extension) or cannot be read to its end
/// (a cut-short file); [`ErrorKind::NoKernel`] when it holds no kernel. The message is a sentence
/// without the file's name, which the caller adds.
///
/// # Example
/// ```
/// use kernelgate_build::{ErrorKind, cubin};
/// let e = cubin::read(b".version 9.0\n.target sm_90\n").unwrap_err();
/// assert_eq!(e.kind(), ErrorKind::NotModule);
/// assert!(e.to_string().starts_with("is not a cubin: it does not start with the ELF magic"), "{e}");
/// ```
pub fn read(bytes: &[u8]) -> Result<Cubin, Error> {
    const FIX: &str = "build it with `nvcc -cubin -arch=sm_XY`, or give the file the extension of what it is \
                       (.ptx for PTX text)";
    if bytes.get(..4) != Some(b"\x7fELF") {
        let what = if bytes.starts_with(&0xba55_ed50u32.to_le_bytes()) { " (it is a fatbin)" } else { "" };
        return Err(not_module(format!("is not a cubin: it does not start with the ELF magic{what}; {FIX}")));
    }
    if bytes.get(4) != Some(&2) || bytes.get(5) != Some(&1) {
        return Err(not_module(format!("is not a cubin: not a 64-bit little-endian ELF image; {FIX}")));
    }
    let machine = u16_at(bytes, 0x12).unwrap_or(0);
    if machine != EM_CUDA {
        return Err(not_module(format!(
            "is not a cubin: an ELF image for machine {machine}, not a CUDA GPU ({EM_CUDA}); {FIX}"
        )));
    }
    let cut = || not_module(format!("is not a whole cubin: its section headers or sections run past its end; {FIX}"));
    let flags = u32_at(bytes, 0x30).ok_or_else(cut)?;
    let abi = bytes.get(8).copied().unwrap_or(0);
    let sm = if abi >= 8 { (flags >> 8) & 0xff } else { flags & 0xff };
    let (sections, symbols) = sections(bytes).ok_or_else(cut)?;
    let mut per_symbol: BTreeMap<&str, (Option<u32>, Option<u64>)> = BTreeMap::new();
    for s in sections.iter().filter(|s| s.name == ".nv.info") {
        for (attribute, payload) in attributes(s.data).ok_or_else(cut)? {
            let (Some(symbol), Some(value)) = (u32_at(payload, 0), u32_at(payload, 4)) else { continue };
            let Some(&name) = symbols.get(symbol as usize) else { continue };
            let slot = per_symbol.entry(name).or_default();
            match attribute {
                REGCOUNT => slot.0 = Some(value),
                FRAME_SIZE => slot.1 = Some(u64::from(value)),
                _ => {}
            }
        }
    }
    let mut entries = Vec::new();
    for s in &sections {
        let Some(name) = s.name.strip_prefix(".nv.info.") else { continue };
        let mut params: Vec<(u16, u32)> = Vec::new();
        for (attribute, payload) in attributes(s.data).ok_or_else(cut)? {
            if attribute == KPARAM_INFO
                && let (Some(ordinal), Some(packed)) = (u16_at(payload, 4), u32_at(payload, 8))
            {
                params.push((ordinal, (packed >> 18) & 0x3fff));
            }
        }
        params.sort_unstable();
        let reserved = if sections.iter().any(|t| t.name == ".nv.shared.reserved.0") { RESERVED_SHARED } else { 0 };
        let shared = sections
            .iter()
            .find(|t| t.name.strip_prefix(".nv.shared.") == Some(name))
            .map_or(0, |t| (t.size as u64).saturating_sub(reserved));
        let (regs, frame_bytes) = per_symbol.get(name).copied().unwrap_or_default();
        entries.push(CubinEntry {
            name: name.to_string(),
            params: params.into_iter().map(|(_, size)| size).collect(),
            regs,
            frame_bytes,
            shared_static_bytes: shared,
        });
    }
    if entries.is_empty() {
        return Err(Error::new(
            ErrorKind::NoKernel,
            "declares no kernel: a cubin's kernels are its functions with a `.nv.info.<name>` section; build the \
             file from a source with a `__global__` function",
        ));
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    let compiler = sections.iter().find(|s| s.name == ".note.nv.tkinfo").and_then(|s| release(s.data));
    Ok(Cubin { arch: format!("sm_{sm}"), entries, compiler })
}

/// An [`ErrorKind::NotModule`] error with `message`.
fn not_module(message: String) -> Error {
    Error::new(ErrorKind::NotModule, message)
}

/// The `major.minor` after `release ` in the tool note `note` (`..., release 13.0, V13.0.88`).
fn release(note: &[u8]) -> Option<String> {
    const MARK: &[u8] = b"release ";
    let at = note.windows(MARK.len()).position(|w| w == MARK)? + MARK.len();
    let digits: String =
        note[at..].iter().take_while(|c| c.is_ascii_digit() || **c == b'.').map(|&c| c as char).collect();
    let mut parts = digits.split('.');
    let (major, minor) = (parts.next()?, parts.next()?);
    (!major.is_empty() && !minor.is_empty()).then(|| format!("{major}.{minor}"))
}

/// `bytes` as lowercase hexadecimal: how a cubin travels where kernelgate hands a kernel file's
/// text along (the run's sources, A/B's revisions, the compile workers), so that one text names
/// one module whatever its kind ([`from_text`] reads it back). Pure.
pub fn to_text(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 0xf)] as char);
    }
    out
}

/// The bytes [`to_text`] wrote; `None` for text it did not write (odd length, another character).
pub fn from_text(text: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let t = text.as_bytes();
    if !t.len().is_multiple_of(2) {
        return None;
    }
    t.chunks_exact(2).map(|p| Some(digit(p[0])? << 4 | digit(p[1])?)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `harness/tests/fixtures/cubin/kernels.cubin`: `nvcc -cubin -arch=sm_90` (CUDA 13.0) of
    /// `harness/tests/fixtures/cubin/kernels.cu`; the figures below are `cuobjdump -elf` and
    /// `cuobjdump -res-usage`'s of the same file.
    const KERNELS: &[u8] = include_bytes!("../tests/fixtures/cubin/kernels.cubin");

    #[test]
    fn a_cubin_gives_its_architecture_kernels_parameters_and_resources() {
        let c = read(KERNELS).unwrap();
        assert_eq!((c.arch.as_str(), c.compiler.as_deref()), ("sm_90", Some("13.0")));
        let names: Vec<&str> = c.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["_Z4tmplILi4EEvPf", "axpy", "calls", "mixed"], "the called helper is no kernel");
        let by = |n: &str| c.entries.iter().find(|e| e.name == n).unwrap().clone();
        let axpy = by("axpy");
        assert_eq!(
            (axpy.params, axpy.regs, axpy.frame_bytes, axpy.shared_static_bytes),
            (vec![8, 8, 4, 4], Some(10), Some(0), 0)
        );
        // struct {float; double; int} by value, a pointer, unsigned long long, char, short.
        let mixed = by("mixed");
        // ptxas -v: `Used 14 registers, used 1 barriers, 1024 bytes smem` (its section: 2048).
        assert_eq!((mixed.params, mixed.regs, mixed.shared_static_bytes), (vec![24, 8, 8, 1, 2], Some(14), 1024));
        assert_eq!(by("_Z4tmplILi4EEvPf").regs, Some(8));
    }

    #[test]
    fn what_is_not_a_whole_cubin_is_named() {
        let fatbin = [0x50, 0xed, 0x55, 0xba, 1, 0, 0x10, 0];
        let e = read(&fatbin).unwrap_err();
        assert!(e.kind() == ErrorKind::NotModule && e.message().contains("(it is a fatbin)"), "{e}");
        let cut = read(&KERNELS[..KERNELS.len() / 2]).unwrap_err();
        assert!(cut.kind() == ErrorKind::NotModule && cut.message().starts_with("is not a whole cubin"), "{cut}");
        let mut host = KERNELS.to_vec();
        host[0x12] = 62; // EM_X86_64
        assert!(read(&host).unwrap_err().message().contains("an ELF image for machine 62, not a CUDA GPU (190)"));
    }

    #[test]
    fn the_text_form_is_the_bytes() {
        assert_eq!(to_text(&[0, 0x7f, 0xff]), "007fff");
        assert_eq!(from_text(&to_text(KERNELS)).unwrap(), KERNELS);
        assert_eq!(from_text("0g"), None);
        assert_eq!(from_text("abc"), None);
    }
}
