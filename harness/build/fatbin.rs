//! Reading a fatbin (`*.fatbin`: `nvcc -fatbin -gencode ...`, CMake's `CUDA_FATBIN_COMPILATION`):
//! one file holding a cubin per architecture and PTX for the driver to compile on later ones. The
//! driver loads the whole file and picks the part for its GPU (CUDA C++ Programming Guide,
//! "Application Compatibility"); kernelgate reads the parts to name the kernels, check the
//! parameters, and gate each architecture's cubin. Pure: it uses only `std`.
//!
//! The container (checked against nvcc 13.0's output; NVIDIA does not document it): a 16-byte
//! header (`u32` magic `0xba55ed50`, `u16` version, `u16` header size, `u64` size of the parts),
//! then each part: `u16` kind (1 PTX, 2 ELF), `u16` version, `u32` header size, `u64` payload size,
//! the architecture as a `u32` at offset 28 (`90`), the flags as a `u64` at offset 40, the payload
//! after the header. A payload compressed by nvcc (`-compress-mode=size`: zstd, flag `0x8000`;
//! older releases' LZ4, flag `0x2000`) is not read: kernelgate names it and the fix.

use crate::cubin::{self, Cubin, CubinEntry};
use crate::{Error, ErrorKind};

/// The fatbin magic, little-endian at the start of the file.
pub const MAGIC: u32 = 0xba55_ed50;

/// Flags of a compressed payload (LZ4, zstd).
const COMPRESSED: u64 = 0x2000 | 0x8000;

/// What one part of a fatbin holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartKind {
    /// PTX text, for the driver to compile (`compute_XY`).
    Ptx,
    /// A cubin (`sm_XY`).
    Cubin,
}

/// One part of a fatbin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part<'a> {
    /// PTX or cubin.
    pub kind: PartKind,
    /// Its architecture: `sm_90` for a cubin, `compute_90` for PTX.
    pub arch: String,
    /// Whether nvcc compressed it ([the module's documentation](self)).
    pub compressed: bool,
    /// Its bytes as the file holds them.
    pub payload: &'a [u8],
}

/// An [`ErrorKind::NotModule`] error with `message`.
fn not_module(message: String) -> Error {
    Error::new(ErrorKind::NotModule, message)
}

/// Whether `bytes` starts with the fatbin magic.
pub fn is_fatbin(bytes: &[u8]) -> bool {
    bytes.get(..4) == Some(&MAGIC.to_le_bytes()[..])
}

/// The parts of the fatbin `bytes`, in file order.
///
/// # Errors
/// [`ErrorKind::NotModule`], a sentence without the file's name, when `bytes` is not a fatbin, a
/// part runs past its end or is of an unknown kind.
pub fn parts(bytes: &[u8]) -> Result<Vec<Part<'_>>, Error> {
    const FIX: &str = "build it with `nvcc -fatbin -gencode arch=compute_XY,code=sm_XY ...`, or give the file the \
                       extension of what it is (.cubin, .ptx)";
    if !is_fatbin(bytes) {
        return Err(not_module(format!(
            "is not a fatbin: it does not start with the fatbin magic 0x{MAGIC:08x}; {FIX}"
        )));
    }
    let cut = || not_module(format!("is not a whole fatbin: a part runs past its end; {FIX}"));
    let u16_at = |at: usize| bytes.get(at..at + 2).map(|b| u16::from_le_bytes([b[0], b[1]]));
    let u32_at = |at: usize| bytes.get(at..at + 4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")));
    let u64_at = |at: usize| bytes.get(at..at + 8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
    let header = usize::from(u16_at(6).ok_or_else(cut)?);
    let size = usize::try_from(u64_at(8).ok_or_else(cut)?).map_err(|_| cut())?;
    let end = header.checked_add(size).filter(|&e| e <= bytes.len()).ok_or_else(cut)?;
    let mut out = Vec::new();
    let mut at = header;
    while at < end {
        let kind = u16_at(at).ok_or_else(cut)?;
        let part_header = u32_at(at + 4).ok_or_else(cut)? as usize;
        let payload = usize::try_from(u64_at(at + 8).ok_or_else(cut)?).map_err(|_| cut())?;
        let arch = u32_at(at + 28).ok_or_else(cut)?;
        let flags = u64_at(at + 40).ok_or_else(cut)?;
        let start = at.checked_add(part_header).ok_or_else(cut)?;
        let stop = start.checked_add(payload).filter(|&s| s <= end).ok_or_else(cut)?;
        let kind = match kind {
            1 => PartKind::Ptx,
            2 => PartKind::Cubin,
            other => {
                return Err(not_module(format!(
                    "holds a part of kind {other}, neither PTX (1) nor a cubin (2); {FIX}"
                )));
            }
        };
        let arch = match kind {
            PartKind::Ptx => format!("compute_{arch}"),
            PartKind::Cubin => format!("sm_{arch}"),
        };
        out.push(Part { kind, arch, compressed: flags & COMPRESSED != 0, payload: &bytes[start..stop] });
        at = stop;
    }
    Ok(out)
}

/// What [`read`] finds in a fatbin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fatbin {
    /// Each cubin it holds, by architecture (`sm_80`), read ([`cubin::read`]), in file order.
    pub cubins: Vec<Cubin>,
    /// The architectures of its PTX parts (`compute_90`), in file order.
    pub ptx: Vec<String>,
    /// The architectures of its compressed cubins, which kernelgate does not read.
    pub compressed: Vec<String>,
    /// Its kernels: those of its first cubin, sorted by name.
    pub entries: Vec<CubinEntry>,
}

impl Fatbin {
    /// The cubin for `arch` (`sm_90`): the one built for it, else the newest of the same major
    /// architecture built for an older minor one (which the driver would load); `None` without one.
    pub fn cubin_for(&self, arch: &str) -> Option<&Cubin> {
        let number =
            |a: &str| a.strip_prefix("sm_").and_then(|n| n.trim_end_matches(char::is_alphabetic).parse::<u32>().ok());
        let want = number(arch)?;
        self.cubins
            .iter()
            .filter(|c| number(&c.arch).is_some_and(|n| n / 10 == want / 10 && n <= want))
            .max_by_key(|c| number(&c.arch))
    }

    /// Its parts' architectures, for messages: `sm_80, sm_90, compute_90`.
    pub fn archs(&self) -> String {
        let cubins = self.cubins.iter().map(|c| c.arch.clone());
        let compressed = self.compressed.iter().map(|a| format!("{a} (compressed)"));
        cubins.chain(compressed).chain(self.ptx.iter().cloned()).collect::<Vec<_>>().join(", ")
    }
}

/// Reads the fatbin `bytes`: its parts ([`parts`]), each uncompressed cubin ([`cubin::read`]), and
/// its kernels.
///
/// # Errors
/// [`parts`]'s; a cubin's ([`cubin::read`]), naming its architecture; [`ErrorKind::Unsupported`]
/// when it holds no cubin kernelgate can read (PTX only, or every cubin compressed), naming what it
/// holds and the fix; [`ErrorKind::CubinsDiffer`] when two cubins declare other kernels.
pub fn read(bytes: &[u8]) -> Result<Fatbin, Error> {
    let mut fat = Fatbin { cubins: Vec::new(), ptx: Vec::new(), compressed: Vec::new(), entries: Vec::new() };
    for part in parts(bytes)? {
        match (part.kind, part.compressed) {
            (PartKind::Ptx, _) => fat.ptx.push(part.arch),
            (PartKind::Cubin, true) => fat.compressed.push(part.arch),
            (PartKind::Cubin, false) => {
                let read =
                    cubin::read(part.payload).map_err(|why| why.context(&format!("its cubin for {}", part.arch)))?;
                fat.cubins.push(read);
            }
        }
    }
    let Some(first) = fat.cubins.first() else {
        let holds = if fat.compressed.is_empty() { "no cubin" } else { "only compressed cubins" };
        return Err(Error::new(
            ErrorKind::Unsupported,
            format!(
                "holds {holds} ({}): kernelgate reads a fatbin's kernels and resources from its cubins, uncompressed; \
             build it with `-gencode arch=compute_XY,code=sm_XY` for the GPUs you gate and without \
             `-compress-mode=size` (`-no-compress` is sure), or ship the PTX as a .ptx file",
                fat.archs()
            ),
        ));
    };
    let names = |c: &Cubin| c.entries.iter().map(|e| e.name.clone()).collect::<Vec<_>>();
    if let Some(other) = fat.cubins.iter().find(|c| names(c) != names(first)) {
        return Err(Error::new(
            ErrorKind::CubinsDiffer,
            format!(
                "its cubins declare other kernels ({}: {:?}; {}: {:?}): build every architecture from the same source",
                first.arch,
                names(first),
                other.arch,
                names(other)
            ),
        ));
    }
    fat.entries = first.entries.clone();
    Ok(fat)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `harness/tests/fixtures/cubin/kernels.fatbin`: `nvcc -fatbin -no-compress -gencode
    /// arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]` (CUDA 13.0) of
    /// `harness/tests/fixtures/cubin/kernels.cu`; `kernels-zstd.fatbin` the same with `-compress-mode=size`.
    const KERNELS: &[u8] = include_bytes!("../tests/fixtures/cubin/kernels.fatbin");
    const ZSTD: &[u8] = include_bytes!("../tests/fixtures/cubin/kernels-zstd.fatbin");

    #[test]
    fn a_fatbin_gives_its_cubins_ptx_and_kernels() {
        let archs: Vec<(PartKind, String, bool)> =
            parts(KERNELS).unwrap().into_iter().map(|p| (p.kind, p.arch, p.compressed)).collect();
        assert_eq!(
            archs,
            [
                (PartKind::Cubin, "sm_80".into(), false),
                (PartKind::Cubin, "sm_90".into(), false),
                (PartKind::Ptx, "compute_90".into(), false)
            ]
        );
        let fat = read(KERNELS).unwrap();
        assert_eq!(fat.archs(), "sm_80, sm_90, compute_90");
        let names: Vec<&str> = fat.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["_Z4tmplILi4EEvPf", "axpy", "calls", "mixed"]);
        assert_eq!(fat.entries[1].params, [8, 8, 4, 4]);
        assert_eq!(fat.cubin_for("sm_90").map(|c| c.arch.as_str()), Some("sm_90"));
        assert_eq!(fat.cubin_for("sm_86").map(|c| c.arch.as_str()), Some("sm_80"), "the driver's pick");
        assert_eq!(fat.cubin_for("sm_100"), None);
    }

    #[test]
    fn a_compressed_or_cut_fatbin_is_named_with_the_fix() {
        let e = read(ZSTD).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unsupported);
        assert!(
            e.message()
                .starts_with("holds only compressed cubins (sm_80 (compressed), sm_90 (compressed), compute_90)"),
            "{e}"
        );
        assert!(e.message().contains("-no-compress"), "{e}");
        let e = read(&KERNELS[..KERNELS.len() - 100]).unwrap_err();
        assert!(e.kind() == ErrorKind::NotModule && e.message().starts_with("is not a whole fatbin"), "{e}");
        assert!(read(b"\x7fELF").unwrap_err().message().starts_with("is not a fatbin"));
    }
}
