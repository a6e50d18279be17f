//! `manifest.json`: the commit record of a store folder: its generation, and each file's length,
//! line count and SHA-256. Pure: bytes in, bytes out.

use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::path::Path;

/// File name of the manifest in a store folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// Version of the manifest's format; a manifest of another version is refused.
pub const MANIFEST_SCHEMA: u32 = 1;

/// The commit record of one generation of a store folder.
///
/// JSON, pretty-printed so that it diffs line by line in git. JSON rather than CSV because a
/// manifest cut short at any byte no longer parses (its closing brace is last), while a CSV file
/// cut at a line boundary would still be a valid CSV file with fewer rows.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// [`MANIFEST_SCHEMA`].
    pub schema_version: u32,
    /// Counts the commits of the folder, from 1.
    pub generation: u64,
    /// Every file of the generation, sorted by name.
    pub files: Vec<FileEntry>,
}

/// What the manifest vouches for about one file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileEntry {
    /// File name in the folder.
    pub name: String,
    /// Length, bytes.
    pub bytes: u64,
    /// Lines: the number of `\n` bytes (a CSV file's header and rows); for messages.
    pub lines: u64,
    /// SHA-256 of the contents, lower-case hex.
    pub sha256: String,
}

impl FileEntry {
    /// The entry that vouches for `bytes` under `name`.
    pub fn of(name: &str, bytes: &[u8]) -> FileEntry {
        FileEntry {
            name: name.to_string(),
            bytes: bytes.len() as u64,
            lines: bytes.iter().filter(|&&b| b == b'\n').count() as u64,
            sha256: super::sha256_hex(bytes),
        }
    }

    /// Whether `bytes` are exactly what this entry vouches for.
    pub fn matches(&self, bytes: &[u8]) -> bool {
        bytes.len() as u64 == self.bytes && super::sha256_hex(bytes) == self.sha256
    }

    /// `1234 bytes (56 lines, sha256 0123456789ab…)`, for messages.
    pub fn describe(&self) -> String {
        let lines = if self.lines == 1 { "1 line".to_string() } else { format!("{} lines", self.lines) };
        format!("{} bytes ({lines}, sha256 {}…)", self.bytes, &self.sha256[..self.sha256.len().min(12)])
    }
}

impl Manifest {
    /// The manifest of generation `generation` holding `files` (name to contents).
    pub fn new(generation: u64, files: &BTreeMap<String, Vec<u8>>) -> Manifest {
        Manifest {
            schema_version: MANIFEST_SCHEMA,
            generation,
            files: files.iter().map(|(name, bytes)| FileEntry::of(name, bytes)).collect(),
        }
    }

    /// The entry for `name`.
    pub fn entry(&self, name: &str) -> Option<&FileEntry> {
        self.files.iter().find(|f| f.name == name)
    }

    /// The manifest's bytes: pretty JSON and a final newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut text = serde_json::to_string_pretty(self).expect("a manifest always serializes");
        text.push('\n');
        text.into_bytes()
    }

    /// Parses a manifest read from `path`.
    ///
    /// # Errors
    /// [`Error::Store`] naming `path` and the line when the bytes are not a manifest (cut short,
    /// not JSON, unknown fields), when its schema is not [`MANIFEST_SCHEMA`], when a file is listed
    /// twice, or when a hash is not 64 hex digits.
    pub fn parse(bytes: &[u8], path: &Path) -> Result<Manifest> {
        let error = |line: Option<usize>, message: String| Error::Store { path: path.to_path_buf(), line, message };
        let manifest: Manifest = serde_json::from_slice(bytes).map_err(|e| {
            let what = if e.is_eof() { "is cut short" } else { "is not a kernelgate manifest" };
            error(Some(e.line()), format!("{what} ({e})"))
        })?;
        if manifest.schema_version != MANIFEST_SCHEMA {
            return Err(error(
                None,
                format!(
                    "has schema_version {}, but this kernelgate reads {MANIFEST_SCHEMA}; use the kernelgate that \
                     wrote it",
                    manifest.schema_version
                ),
            ));
        }
        let mut seen = std::collections::BTreeSet::new();
        for f in &manifest.files {
            if !seen.insert(f.name.as_str()) {
                return Err(error(None, format!("lists {} twice", f.name)));
            }
            if f.sha256.len() != 64 || !f.sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(error(
                    None,
                    format!("holds {:?} as the sha256 of {}, not 64 hex digits", f.sha256, f.name),
                ));
            }
        }
        Ok(manifest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> BTreeMap<String, Vec<u8>> {
        BTreeMap::from([("a.csv".to_string(), b"h\n1\n".to_vec()), ("b.csv".to_string(), b"h\n".to_vec())])
    }

    #[test]
    fn round_trip_and_known_hash() {
        let m = Manifest::new(7, &files());
        let path = Path::new("m.json");
        assert_eq!(Manifest::parse(&m.to_bytes(), path).unwrap(), m);
        let a = m.entry("a.csv").unwrap();
        assert_eq!((a.bytes, a.lines), (4, 2));
        // printf 'h\n1\n' | sha256sum
        assert_eq!(a.sha256, "733e3611b3b9ec754cb628ae0ce9d5f30f09ced371d95b0c605d6c97a75d0545");
        assert!(a.matches(b"h\n1\n") && !a.matches(b"h\n1") && !a.matches(b"h\n2\n"));
        assert!(String::from_utf8(m.to_bytes()).unwrap().contains("\n  \"generation\": 7,\n"));
    }

    #[test]
    fn cut_at_every_byte_is_refused() {
        let bytes = Manifest::new(3, &files()).to_bytes();
        // The last byte is the newline after the closing brace: cutting it loses nothing.
        for cut in 0..bytes.len() - 1 {
            let e = Manifest::parse(&bytes[..cut], Path::new("m.json")).unwrap_err().to_string();
            assert!(
                e.starts_with("m.json:") && (e.contains("cut short") || e.contains("not a kernelgate")),
                "{cut}: {e}"
            );
        }
    }

    #[test]
    fn bad_manifests_name_the_problem() {
        let mut m = Manifest::new(1, &files());
        m.schema_version = 2;
        let e = Manifest::parse(&m.to_bytes(), Path::new("m.json")).unwrap_err().to_string();
        assert!(e.contains("schema_version 2"), "{e}");
        let mut m = Manifest::new(1, &files());
        m.files[1].name = "a.csv".into();
        assert!(Manifest::parse(&m.to_bytes(), Path::new("m.json")).unwrap_err().to_string().contains("a.csv twice"));
        let mut m = Manifest::new(1, &files());
        m.files[0].sha256 = "xyz".into();
        assert!(Manifest::parse(&m.to_bytes(), Path::new("m.json")).unwrap_err().to_string().contains("64 hex"));
        let text = String::from_utf8(Manifest::new(1, &files()).to_bytes()).unwrap().replace("\"lines\"", "\"rows\"");
        let e = Manifest::parse(text.as_bytes(), Path::new("m.json")).unwrap_err().to_string();
        assert!(e.contains("not a kernelgate manifest"), "{e}");
    }
}
