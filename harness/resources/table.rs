//! `baselines/<arch>/resources.csv`: the blessed resource figures of every kernel at every launch
//! configuration, for one architecture. The one module that reads and writes it.
//!
//! The file is kept in a folder per architecture (`baselines/sm_80/`, `baselines/sm_90/`) beside
//! the per-GPU folders, because the figures belong to the architecture and the compiler, not to a
//! GPU, and because a folder is what [`crate::store`] commits atomically: a lock, a
//! `manifest.json` that vouches for the file, and a refusal (naming the file and the fix) of a file
//! cut short or edited by hand. `kernelgate baseline list` does not take these folders for GPU
//! keys (they hold no `baseline.csv`).
//!
//! One row per (file, kernel, block, dynamic shared bytes), sorted, columns [`COLUMNS`]; numbers
//! in their shortest round-trip form, so a change of one kernel changes only its lines.

use crate::error::{Error, Result};
use crate::store::table::Table;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// File name of the table in an architecture's folder.
pub const RESOURCES_FILE: &str = "resources.csv";

/// Version of the table's columns.
pub const SCHEMA: u32 = 1;

/// The command that blesses the compile trials of kernel file `file` (`vectorization.cu`: the
/// trials `compile/vectorization.cu/<arch>` of every architecture, which write that file's rows of
/// both tables), or of every file for `None`. `compile/` and the trailing `/` delimit the name, so
/// the filter (libtest's substring match) selects that file's trials alone. It follows `--`, the
/// form that also takes more arguments.
pub fn bless_command(file: Option<&str>) -> String {
    let filter = file.map_or_else(|| "compile/".to_string(), |f| format!("compile/{f}/"));
    format!("KERNELGATE_BLESS=1 cargo test --release --test kernels -- {filter}")
}

/// Columns of `resources.csv`, in order: `schema_version` and the fields of [`Row`].
pub const COLUMNS: [&str; 13] = [
    "schema_version",
    "file",
    "kernel",
    "block",
    "shared_dynamic_bytes",
    "regs",
    "spill_store_bytes",
    "spill_load_bytes",
    "local_bytes",
    "shared_static_bytes",
    "occupancy_warps",
    "occupancy_pct",
    "nvrtc",
];

/// One kernel at one launch configuration on one architecture: ptxas's figures and the theoretical
/// occupancy they give.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The kernel file, `transpose.cu`.
    pub file: String,
    /// The entry point.
    pub kernel: String,
    /// Threads per block of the cases that launch it; `None` (an empty field) for a kernel that no
    /// case launches, which has no occupancy.
    pub block: Option<u32>,
    /// Dynamic shared memory per block of those launches, bytes.
    pub shared_dynamic_bytes: u32,
    /// Registers per thread.
    pub regs: u32,
    /// Bytes of spill stores in the code (ptxas's count; [`super::Usage::spill_store_bytes`]).
    pub spill_store_bytes: u64,
    /// Bytes of spill loads in the code (ptxas's count).
    pub spill_load_bytes: u64,
    /// Local memory (stack) per thread, bytes.
    pub local_bytes: u64,
    /// Static shared memory per block, bytes.
    pub shared_static_bytes: u64,
    /// Theoretical resident warps per SM at `block`; `None` when `block` is.
    pub occupancy_warps: Option<u32>,
    /// The same as a percentage of the SM's maximum warps.
    pub occupancy_pct: Option<f64>,
    /// The NVRTC (and so the ptxas) that compiled it, as written: `major.minor` (`13.5`, what a
    /// bless writes) or `major.minor.patch` (`13.5.37`); [`parse`] refuses any other text, and the
    /// gate compares [`nvrtc_version`]s, so `13.5.0` is gated as `13.5`.
    pub nvrtc: String,
}

/// The `(major, minor)` of an `nvrtc` column: `13.5` and `13.5.37` give `(13, 5)`; `None` for any
/// other text (a missing part, a sign, a space, a letter, a leading zero: `13`, `v13.5`, ` 13.5`,
/// `13.05`, `13.5-custom`, `thirteen`, empty). NVRTC reports its version as two integers
/// (`nvrtcVersion`), which is what a bless writes.
pub fn nvrtc_version(text: &str) -> Option<(u32, u32)> {
    let parts: Vec<&str> = text.split('.').collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    let mut numbers = Vec::with_capacity(3);
    for p in parts {
        let digits = !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
        if !digits || (p.len() > 1 && p.starts_with('0')) {
            return None;
        }
        numbers.push(p.parse::<u32>().ok()?);
    }
    Some((numbers[0], numbers[1]))
}

/// The identity of a row: file, kernel, block, dynamic shared bytes.
pub type Key = (String, String, Option<u32>, u32);

impl Row {
    /// The row's identity.
    pub fn key(&self) -> Key {
        (self.file.clone(), self.kernel.clone(), self.block, self.shared_dynamic_bytes)
    }
}

/// The folder of `arch`'s table under a baselines folder (`<root>/baselines` or
/// `KERNELGATE_BASELINES`): `<baselines>/<arch>`.
pub fn dir_for(baselines: &Path, arch: &str) -> PathBuf {
    baselines.join(arch)
}

/// The table in `dir`.
fn table(dir: &Path) -> Table<'_, Row> {
    Table { dir, file: RESOURCES_FILE, what: "resource table folder", parse, write: to_csv }
}

/// The rows of `dir`'s table, sorted by key; empty when the folder or the file does not exist.
/// Writes nothing.
///
/// # Errors
/// [`Error::Store`] when the file does not match what the folder's manifest vouches for;
/// [`Error::Io`]; [`Error::Baseline`] naming the file, the line and the column of a row that does
/// not parse ([`parse`]).
pub fn load(dir: &Path) -> Result<Vec<Row>> {
    table(dir).load()
}

/// Changes `dir`'s table as one atomic step under the folder's lock: reads it as it is now, hands
/// the rows to `change` (which returns `None` to write nothing) and commits the new table. A
/// folder that does not exist is created. Returns `change`'s value.
///
/// # Errors
/// As [`load`] (nothing written); [`Error::Io`] when the folder cannot be written (the previous
/// table stays whole).
pub fn update<T>(dir: &Path, change: impl FnOnce(&mut Vec<Row>) -> Option<T>) -> Result<Option<T>> {
    table(dir).update(change)
}

/// Vouches for `dir`'s table as it is now (after a hand edit or a git merge): parses it as
/// [`load`] would and commits a new manifest. Returns the new generation.
///
/// # Errors
/// [`Error::Baseline`] when the folder holds no table, or a row does not parse (nothing written);
/// [`Error::Io`].
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
    let opt = |v: Option<String>| v.unwrap_or_default();
    for r in sorted {
        writer
            .write_record([
                SCHEMA.to_string(),
                r.file.clone(),
                r.kernel.clone(),
                opt(r.block.map(|b| b.to_string())),
                r.shared_dynamic_bytes.to_string(),
                r.regs.to_string(),
                r.spill_store_bytes.to_string(),
                r.spill_load_bytes.to_string(),
                r.local_bytes.to_string(),
                r.shared_static_bytes.to_string(),
                opt(r.occupancy_warps.map(|w| w.to_string())),
                opt(r.occupancy_pct.map(|p| p.to_string())),
                r.nvrtc.clone(),
            ])
            .map_err(csv_error)?;
    }
    writer.into_inner().map_err(|e| Error::io(path)(e.into_error()))
}

/// The rows of a `resources.csv` (read from `path`, for messages), sorted by key.
///
/// # Errors
/// [`Error::Baseline`] naming `path`, the 1-based line and the column, with the fix: not CSV, no
/// header or another header, a `schema_version` other than [`SCHEMA`], a row of the wrong length,
/// a number that does not parse (or a negative one, or a percentage outside 0..=100), an empty
/// file or kernel name, an `nvrtc` that is not a version ([`nvrtc_version`]), occupancy given
/// without a block (or a block without occupancy), or a key twice. Every read of the table
/// ([`load`], [`update`]) and [`reseal`] go through here.
pub fn parse(bytes: &[u8], path: &Path) -> Result<Vec<Row>> {
    let fix = format!("re-bless with {}, or restore the file from git", bless_command(None));
    let bad = |line: Option<usize>, what: String| Error::Baseline {
        path: path.to_path_buf(),
        line,
        message: format!("{what}; {fix}"),
    };
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(bytes);
    let mut records = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| {
            bad(e.position().map(|p| p.line() as usize), format!("the file cannot be read as CSV ({e})"))
        })?;
        let line = record.position().map_or(records.len() + 1, |p| p.line() as usize);
        records.push((line, record));
    }
    let expected = COLUMNS.join(",");
    let Some((header_line, header)) = records.first() else {
        return Err(bad(None, format!("the file is empty; its first line should be the header `{expected}`")));
    };
    if header.iter().ne(COLUMNS) {
        let found: Vec<&str> = header.iter().collect();
        return Err(bad(Some(*header_line), format!("the header is `{}`, not `{expected}`", found.join(","))));
    }
    let mut rows = Vec::new();
    let mut seen = BTreeSet::new();
    for (line, record) in records.iter().skip(1) {
        let line = Some(*line);
        if record.len() != COLUMNS.len() {
            let what = format!("this row has {} fields, the header {}", record.len(), COLUMNS.len());
            return Err(bad(line, what));
        }
        let field = |i: usize| record.get(i).unwrap_or_default();
        let number = |i: usize| -> Result<u64> {
            field(i).parse::<u64>().map_err(|_| {
                bad(line, format!("column `{}` holds {:?}, not a whole number of 0 or more", COLUMNS[i], field(i)))
            })
        };
        let small = |i: usize| -> Result<u32> {
            u32::try_from(number(i)?)
                .map_err(|_| bad(line, format!("column `{}` holds {}, too large", COLUMNS[i], field(i))))
        };
        let optional =
            |i: usize| -> Result<Option<u32>> { if field(i).is_empty() { Ok(None) } else { small(i).map(Some) } };
        if field(0).parse::<u32>().ok() != Some(SCHEMA) {
            let what = format!(
                "column `schema_version` holds {:?}; this kernelgate reads schema {SCHEMA} (a newer kernelgate wrote it?)",
                field(0)
            );
            return Err(bad(line, what));
        }
        for i in [1, 2] {
            if field(i).is_empty() {
                return Err(bad(line, format!("column `{}` is empty", COLUMNS[i])));
            }
        }
        let pct = match field(11) {
            "" => None,
            text => match text.parse::<f64>() {
                Ok(p) if (0.0..=100.0).contains(&p) => Some(p),
                _ => {
                    return Err(bad(line, format!("column `occupancy_pct` holds {text:?}, not a percentage 0 to 100")));
                }
            },
        };
        if nvrtc_version(field(12)).is_none() {
            let what = format!(
                "column `nvrtc` holds {:?}, which is not an NVRTC version: write the major.minor of the NVRTC that \
                 compiled the row as the run's first line prints it (13.5), or major.minor.patch (13.5.37), digits \
                 only, and reseal the folder (kernelgate baseline reseal {})",
                field(12),
                path.parent().map_or_else(|| ".".into(), |d| d.display().to_string())
            );
            return Err(bad(line, what));
        }
        let row = Row {
            file: field(1).to_string(),
            kernel: field(2).to_string(),
            block: optional(3)?,
            shared_dynamic_bytes: small(4)?,
            regs: small(5)?,
            spill_store_bytes: number(6)?,
            spill_load_bytes: number(7)?,
            local_bytes: number(8)?,
            shared_static_bytes: number(9)?,
            occupancy_warps: optional(10)?,
            occupancy_pct: pct,
            nvrtc: field(12).to_string(),
        };
        if row.block.is_some() != row.occupancy_warps.is_some() || row.block.is_some() != row.occupancy_pct.is_some() {
            let what = "`block`, `occupancy_warps` and `occupancy_pct` are given together or not at all (empty for a \
                        kernel no case launches)";
            return Err(bad(line, what.to_string()));
        }
        let arch = path.parent().and_then(Path::file_name).and_then(|n| n.to_str()).unwrap_or("");
        if let Some(why) = impossible(&row, arch) {
            return Err(bad(line, why));
        }
        if !seen.insert(row.key()) {
            let what = format!(
                "{} {} at block {} with {} bytes of dynamic shared memory is listed twice",
                row.file,
                row.kernel,
                row.block.map_or("(none)".to_string(), |b| b.to_string()),
                row.shared_dynamic_bytes
            );
            return Err(bad(line, what));
        }
        rows.push(row);
    }
    rows.sort_by_key(|r| r.key());
    Ok(rows)
}

/// Why no GPU of `arch` (the folder's name, `sm_90`) can have `row`, when none can: registers
/// outside 1 to the architecture's 255 per thread (every kernel holds some: an empty one takes 4
/// on sm_80 and sm_90 with NVRTC 13.5), a block outside 1 to 1024 threads, or an occupancy other
/// than the occupancy calculator's for the row's own block, registers and shared memory
/// ([`super::occupancy::occupancy`], the function a bless writes it with): more warps than an SM
/// holds, a percentage that is not those warps' share, 0 warps for a launch that fits. For an
/// architecture without a table of limits, the bounds alone.
fn impossible(row: &Row, arch: &str) -> Option<String> {
    use super::occupancy::{Demand, limits, occupancy};
    let max_regs = limits(arch).map_or(255, |l| l.max_registers_per_thread);
    if !(1..=max_regs).contains(&row.regs) {
        return Some(format!(
            "column `regs` holds {}, and a kernel uses 1 to {max_regs} registers per thread{}",
            row.regs,
            if arch.is_empty() { String::new() } else { format!(" on {arch}") }
        ));
    }
    let (Some(block), Some(warps), Some(pct)) = (row.block, row.occupancy_warps, row.occupancy_pct) else {
        return None;
    };
    let Some(l) = limits(arch) else {
        return (!(1..=1024).contains(&block)).then(|| format!("column `block` holds {block}, not 1 to 1024 threads"));
    };
    if !(1..=l.max_threads_per_block).contains(&block) {
        return Some(format!(
            "column `block` holds {block}, and {arch} runs blocks of 1 to {} threads",
            l.max_threads_per_block
        ));
    }
    let shared_static = u32::try_from(row.shared_static_bytes).unwrap_or(u32::MAX);
    let demand = Demand { block, regs: row.regs, shared_static, shared_dynamic: row.shared_dynamic_bytes };
    let want = occupancy(l, demand);
    if warps == want.warps && (pct - want.pct).abs() < 0.01 {
        return None;
    }
    Some(format!(
        "columns `occupancy_warps` and `occupancy_pct` hold {warps} warps and {pct} %, but a block of {block} threads \
         with {} registers and {} bytes of shared memory has {} resident warps ({} %) on {arch}, which holds at most \
         {} warps per SM: no GPU of {arch} gives these figures",
        row.regs,
        u64::from(shared_static) + u64::from(row.shared_dynamic_bytes),
        want.warps,
        want.pct,
        l.max_warps_per_sm
    ))
}

/// A synthetic row of `t.cu` for tests: no spills, no local or shared memory, full occupancy
/// when launched.
#[cfg(test)]
pub(crate) fn row(kernel: &str, block: Option<u32>, regs: u32) -> Row {
    Row {
        file: "t.cu".into(),
        kernel: kernel.into(),
        block,
        shared_dynamic_bytes: 0,
        regs,
        spill_store_bytes: 0,
        spill_load_bytes: 0,
        local_bytes: 0,
        shared_static_bytes: 0,
        occupancy_warps: block.map(|_| 64),
        occupancy_pct: block.map(|_| 100.0),
        nvrtc: "13.5".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "schema_version,file,kernel,block,shared_dynamic_bytes,regs,spill_store_bytes,\
                          spill_load_bytes,local_bytes,shared_static_bytes,occupancy_warps,occupancy_pct,nvrtc\n";

    #[test]
    fn rows_round_trip_sorted() {
        let mut a = row("b_kernel", Some(256), 40);
        a.occupancy_warps = Some(48);
        a.occupancy_pct = Some(75.0);
        let rows = vec![a, row("a_kernel", None, 8), row("a_kernel", Some(128), 8)];
        let path = Path::new("r.csv");
        let bytes = to_csv(&rows, path).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert_eq!(
            text,
            format!(
                "{HEADER}1,t.cu,a_kernel,,0,8,0,0,0,0,,,13.5\n1,t.cu,a_kernel,128,0,8,0,0,0,0,64,100,13.5\n\
                 1,t.cu,b_kernel,256,0,40,0,0,0,0,48,75,13.5\n"
            )
        );
        let back = parse(&bytes, path).unwrap();
        assert_eq!(back.len(), 3);
        assert_eq!(back[2].occupancy_pct, Some(75.0));
        assert_eq!(to_csv(&back, path).unwrap(), bytes);
    }

    #[test]
    fn bad_rows_name_the_line_and_column() {
        let path = Path::new("baselines/sm_90/resources.csv");
        let cases = [
            ("1,t.cu,k,256,0,forty,0,0,0,0,64,100,13.5\n", 2, "column `regs` holds \"forty\""),
            ("1,t.cu,k,256,0,40,-8,0,0,0,64,100,13.5\n", 2, "column `spill_store_bytes` holds \"-8\""),
            ("1,t.cu,k,256,0,40,0,0,0,0,64,180,13.5\n", 2, "not a percentage"),
            ("1,t.cu,k,,0,40,0,0,0,0,64,100,13.5\n", 2, "given together"),
            ("2,t.cu,k,256,0,40,0,0,0,0,64,100,13.5\n", 2, "reads schema 1"),
            ("1,t.cu,k,256,0,40,0,0,0,0,64,100\n", 2, "12 fields"),
            ("1,t.cu,k,256,0,8,0,0,0,0,64,100,13.5\n1,t.cu,k,256,0,8,0,0,0,0,64,100,13.5\n", 3, "listed twice"),
            ("1,,k,256,0,8,0,0,0,0,64,100,13.5\n", 2, "column `file` is empty"),
            (
                "1,t.cu,k,256,0,8,0,0,0,0,64,100,v13.5\n",
                2,
                "column `nvrtc` holds \"v13.5\", which is not an NVRTC version",
            ),
            ("1,t.cu,k,256,0,8,0,0,0,0,64,100,\" 13.5\"\n", 2, "column `nvrtc` holds \" 13.5\""),
            ("1,t.cu,k,256,0,8,0,0,0,0,64,100,\n", 2, "column `nvrtc` holds \"\""),
            ("1,t.cu,k,256,0,8,0,0,0,0,64,100,thirteen\n", 2, "column `nvrtc` holds \"thirteen\""),
            // Field report turn4/R30: figures no GPU of the folder's architecture can have.
            ("1,t.cu,k,256,0,0,0,0,0,0,64,100,13.5\n", 2, "column `regs` holds 0, and a kernel uses 1 to 255"),
            ("1,t.cu,k,256,0,300,0,0,0,0,64,100,13.5\n", 2, "column `regs` holds 300"),
            ("1,t.cu,k,256,0,8,0,0,0,0,640,100,13.5\n", 2, "hold 640 warps and 100 %, but a block of 256 threads"),
            ("1,t.cu,k,256,0,8,0,0,0,0,0,0,13.5\n", 2, "has 64 resident warps (100 %) on sm_90"),
            ("1,t.cu,k,256,0,8,0,0,0,0,64,50,13.5\n", 2, "hold 64 warps and 50 %"),
            ("1,t.cu,k,256,0,40,0,0,0,0,64,100,13.5\n", 2, "has 48 resident warps (75 %)"),
            (
                "1,t.cu,k,2048,0,8,0,0,0,0,64,100,13.5\n",
                2,
                "column `block` holds 2048, and sm_90 runs blocks of 1 to 1024",
            ),
        ];
        for (rows, line, what) in cases {
            let err = parse(format!("{HEADER}{rows}").as_bytes(), path).unwrap_err().to_string();
            assert!(err.starts_with(&format!("{}:{line}: ", path.display())), "{err}");
            assert!(err.contains(what) && err.contains("KERNELGATE_BLESS=1"), "{what}: {err}");
        }
        let err = parse(b"kernel,regs\nk,8\n", path).unwrap_err().to_string();
        assert!(err.contains(":1: the header is `kernel,regs`"), "{err}");
        assert!(parse(b"", path).unwrap_err().to_string().contains("the file is empty"));
    }

    #[test]
    fn nvrtc_versions_are_read_strictly() {
        assert_eq!(nvrtc_version("13.5"), Some((13, 5)));
        assert_eq!(nvrtc_version("13.5.0"), Some((13, 5)));
        assert_eq!(nvrtc_version("13.5.37"), Some((13, 5)));
        assert_eq!(nvrtc_version("12.9"), Some((12, 9)));
        assert_eq!(nvrtc_version("13.50"), Some((13, 50)), "NVRTC's minor is an integer");
        for bad in [
            "",
            "13",
            "v13.5",
            " 13.5",
            "13.5 ",
            "13.05",
            "13.5-custom",
            "thirteen",
            "13.5.0.1",
            "13..5",
            "-13.5",
            "+13.5",
        ] {
            assert_eq!(nvrtc_version(bad), None, "{bad:?}");
        }
        // A row as written is kept as written: 13.5.0 is not rewritten to 13.5.
        let mut r = row("k", Some(256), 8);
        r.nvrtc = "13.5.0".into();
        let path = Path::new("r.csv");
        let back = parse(&to_csv(&[r], path).unwrap(), path).unwrap();
        assert_eq!(back[0].nvrtc, "13.5.0");
    }

    #[test]
    fn the_store_commits_and_refuses_hand_edits() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = dir_for(tmp.path(), "sm_90");
        assert!(load(&dir).unwrap().is_empty(), "no folder: no rows");
        update(&dir, |rows| {
            rows.push(row("k", Some(256), 32));
            Some(())
        })
        .unwrap();
        assert_eq!(load(&dir).unwrap(), vec![row("k", Some(256), 32)]);
        assert!(dir.join("manifest.json").is_file());
        let file = dir.join(RESOURCES_FILE);
        // 24 registers at block 256 keep the row's 64 warps (a row no GPU could have is refused).
        let text = std::fs::read_to_string(&file).unwrap().replace(",32,", ",24,");
        std::fs::write(&file, text).unwrap();
        let err = load(&dir).unwrap_err().to_string();
        assert!(err.contains("resources.csv") && err.contains("reseal"), "{err}");
        reseal(&dir).unwrap();
        assert_eq!(load(&dir).unwrap()[0].regs, 24, "a deliberate edit, vouched for");
        assert!(reseal(tmp.path()).unwrap_err().to_string().contains("no resources.csv here"));
    }
}
