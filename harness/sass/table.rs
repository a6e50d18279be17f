//! `baselines/<arch>/sass/opcodes.csv`: the blessed SASS of every kernel, as opcode counts, for
//! one architecture. The one module that reads and writes it.
//!
//! One row per (file, function, opcode): how many instructions of that opcode (with its modifiers,
//! `LDG.E.128.CONSTANT`) the function's code holds, and which NVRTC compiled it and which nvdisasm
//! read it. Opcode counts rather than classes, so that a failing gate can show which instructions
//! came and went, and a new class needs no re-bless. The folder is a [`crate::store::Store`] of its own (a lock,
//! a manifest, a refusal of hand edits), beside `resources.csv`'s folder, so the two tables are
//! blessed and resealed apart.

use crate::error::{Error, Result};
use crate::store::table::Table;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// File name of the table in its folder.
pub const SASS_FILE: &str = "opcodes.csv";

/// The folder of the table under an architecture's folder.
pub const SASS_DIR: &str = "sass";

/// Version of the table's columns.
pub const SCHEMA: u32 = 1;

/// Columns of `opcodes.csv`, in order.
pub const COLUMNS: [&str; 7] = ["schema_version", "file", "function", "opcode", "count", "nvrtc", "nvdisasm"];

/// One opcode of one function on one architecture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The kernel file, `vectorization.cu`.
    pub file: String,
    /// The function: a kernel, or a device function the compiler kept as a call.
    pub function: String,
    /// The opcode with its modifiers, `LDG.E.128.CONSTANT`.
    pub opcode: String,
    /// Instructions of that opcode in the function's code (a static count).
    pub count: u64,
    /// The NVRTC that compiled it, `major.minor` (`13.5`).
    pub nvrtc: String,
    /// The nvdisasm that read it, as it reports its release (`13.5.37`).
    pub nvdisasm: String,
}

/// The identity of a row: file, function, opcode.
pub type Key = (String, String, String);

impl Row {
    /// The row's identity.
    pub fn key(&self) -> Key {
        (self.file.clone(), self.function.clone(), self.opcode.clone())
    }
}

/// The table's folder for `arch` under a baselines folder: `<baselines>/<arch>/sass`.
pub fn dir_for(baselines: &Path, arch: &str) -> PathBuf {
    baselines.join(arch).join(SASS_DIR)
}

/// The table in `dir`.
fn table(dir: &Path) -> Table<'_, Row> {
    Table { dir, file: SASS_FILE, what: "SASS table folder", parse, write: to_csv }
}

/// The rows of `dir`'s table, sorted by key; empty when the folder or the file does not exist.
///
/// # Errors
/// [`Error::Store`] when the file does not match the folder's manifest; [`Error::Io`];
/// [`Error::Baseline`] naming the file, line and column of a row that does not parse ([`parse`]).
pub fn load(dir: &Path) -> Result<Vec<Row>> {
    table(dir).load()
}

/// Changes `dir`'s table as one atomic step under the folder's lock (as
/// `crate::resources::table::update`): `change` gets the rows as they are now and returns `None`
/// to write nothing.
///
/// # Errors
/// As [`load`] (nothing written); [`Error::Io`] when the folder cannot be written.
pub fn update<T>(dir: &Path, change: impl FnOnce(&mut Vec<Row>) -> Option<T>) -> Result<Option<T>> {
    table(dir).update(change)
}

/// Vouches for `dir`'s table as it is now (after a hand edit or a git merge), once it parses.
///
/// # Errors
/// [`Error::Baseline`] when the folder holds no table or a row does not parse; [`Error::Io`].
pub fn reseal(dir: &Path) -> Result<u64> {
    table(dir).reseal()
}

/// The table as CSV bytes: the header, then the rows sorted by key.
///
/// # Errors
/// [`Error::Csv`] (not expected: the writer writes to memory).
pub fn to_csv(rows: &[Row], path: &Path) -> Result<Vec<u8>> {
    let mut sorted: Vec<&Row> = rows.iter().collect();
    sorted.sort_by_key(|r| r.key());
    let csv_error = |source| Error::Csv { path: path.to_path_buf(), source };
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(COLUMNS).map_err(csv_error)?;
    for r in sorted {
        let count = r.count.to_string();
        let fields = [&SCHEMA.to_string(), &r.file, &r.function, &r.opcode, &count, &r.nvrtc, &r.nvdisasm];
        writer.write_record(fields).map_err(csv_error)?;
    }
    writer.into_inner().map_err(|e| Error::io(path)(e.into_error()))
}

/// The rows of an `opcodes.csv` (read from `path`, for messages), sorted by key.
///
/// # Errors
/// [`Error::Baseline`] naming `path`, the 1-based line and the column, with the fix: not CSV,
/// another header, another `schema_version`, a row of the wrong length, an empty name, a count that
/// is not a whole number of 1 or more, an `nvrtc` that is not a version
/// (`crate::resources::table::nvrtc_version`), or a key twice.
pub fn parse(bytes: &[u8], path: &Path) -> Result<Vec<Row>> {
    let fix = format!("re-bless with {}, or restore the file from git", crate::resources::table::bless_command(None));
    let bad = |line: Option<usize>, what: String| Error::Baseline {
        path: path.to_path_buf(),
        line,
        message: format!("{what}; {fix}"),
    };
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(bytes);
    let mut rows = Vec::new();
    let mut seen = BTreeSet::new();
    let expected = COLUMNS.join(",");
    let mut header_seen = false;
    for record in reader.records() {
        let record = record.map_err(|e| {
            bad(e.position().map(|p| p.line() as usize), format!("the file cannot be read as CSV ({e})"))
        })?;
        let line = record.position().map(|p| p.line() as usize);
        if !header_seen {
            if record.iter().ne(COLUMNS) {
                let found: Vec<&str> = record.iter().collect();
                return Err(bad(line, format!("the header is `{}`, not `{expected}`", found.join(","))));
            }
            header_seen = true;
            continue;
        }
        if record.len() != COLUMNS.len() {
            return Err(bad(line, format!("this row has {} fields, the header {}", record.len(), COLUMNS.len())));
        }
        let field = |i: usize| record.get(i).unwrap_or_default();
        if field(0).parse::<u32>().ok() != Some(SCHEMA) {
            let what = format!("column `schema_version` holds {:?}; this kernelgate reads schema {SCHEMA}", field(0));
            return Err(bad(line, what));
        }
        for i in [1, 2, 3, 6] {
            if field(i).is_empty() {
                return Err(bad(line, format!("column `{}` is empty", COLUMNS[i])));
            }
        }
        let count = match field(4).parse::<u64>() {
            Ok(n) if n > 0 => n,
            _ => {
                return Err(bad(line, format!("column `count` holds {:?}, not a whole number of 1 or more", field(4))));
            }
        };
        if crate::resources::table::nvrtc_version(field(5)).is_none() {
            let what = format!("column `nvrtc` holds {:?}, not an NVRTC version (major.minor, 13.5)", field(5));
            return Err(bad(line, what));
        }
        let row = Row {
            file: field(1).to_string(),
            function: field(2).to_string(),
            opcode: field(3).to_string(),
            count,
            nvrtc: field(5).to_string(),
            nvdisasm: field(6).to_string(),
        };
        if !seen.insert(row.key()) {
            return Err(bad(line, format!("{} {} {} is listed twice", row.file, row.function, row.opcode)));
        }
        rows.push(row);
    }
    if !header_seen {
        return Err(bad(None, format!("the file is empty; its first line should be the header `{expected}`")));
    }
    rows.sort_by_key(Row::key);
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(function: &str, opcode: &str, count: u64) -> Row {
        Row {
            file: "t.cu".into(),
            function: function.into(),
            opcode: opcode.into(),
            count,
            nvrtc: "13.5".into(),
            nvdisasm: "13.5.37".into(),
        }
    }

    #[test]
    fn rows_round_trip_sorted_and_the_store_refuses_hand_edits() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = dir_for(tmp.path(), "sm_90");
        assert!(load(&dir).unwrap().is_empty());
        update(&dir, |rows| {
            rows.extend([row("k", "STG.E", 1), row("k", "LDG.E.128", 2)]);
            Some(())
        })
        .unwrap();
        let text = std::fs::read_to_string(dir.join(SASS_FILE)).unwrap();
        assert_eq!(
            text,
            "schema_version,file,function,opcode,count,nvrtc,nvdisasm\n1,t.cu,k,LDG.E.128,2,13.5,13.5.37\n\
             1,t.cu,k,STG.E,1,13.5,13.5.37\n"
        );
        assert_eq!(load(&dir).unwrap()[0], row("k", "LDG.E.128", 2));
        std::fs::write(dir.join(SASS_FILE), text.replace(",2,", ",3,")).unwrap();
        let err = load(&dir).unwrap_err().to_string();
        assert!(err.contains(SASS_FILE) && err.contains("reseal"), "{err}");
        reseal(&dir).unwrap();
        assert_eq!(load(&dir).unwrap()[0].count, 3);
    }

    #[test]
    fn bad_rows_name_the_line_and_column() {
        let path = Path::new("baselines/sm_90/sass/opcodes.csv");
        let header = "schema_version,file,function,opcode,count,nvrtc,nvdisasm\n";
        for (rows, line, what) in [
            ("1,t.cu,k,LDG.E,two,13.5,13.5.37\n", 2, "column `count` holds \"two\""),
            ("1,t.cu,k,LDG.E,0,13.5,13.5.37\n", 2, "1 or more"),
            ("1,t.cu,k,LDG.E,1,v13,13.5.37\n", 2, "column `nvrtc` holds \"v13\""),
            ("1,t.cu,,LDG.E,1,13.5,13.5.37\n", 2, "column `function` is empty"),
            ("1,t.cu,k,LDG.E,1,13.5\n", 2, "6 fields"),
            ("2,t.cu,k,LDG.E,1,13.5,13.5.37\n", 2, "reads schema 1"),
            ("1,t.cu,k,LDG.E,1,13.5,13.5.37\n1,t.cu,k,LDG.E,2,13.5,13.5.37\n", 3, "listed twice"),
        ] {
            let err = parse(format!("{header}{rows}").as_bytes(), path).unwrap_err().to_string();
            assert!(err.starts_with(&format!("{}:{line}: ", path.display())), "{err}");
            assert!(err.contains(what) && err.contains("KERNELGATE_BLESS=1"), "{what}: {err}");
        }
        assert!(parse(b"a,b\n", path).unwrap_err().to_string().contains(":1: the header is `a,b`"));
        assert!(parse(b"", path).unwrap_err().to_string().contains("the file is empty"));
    }
}
