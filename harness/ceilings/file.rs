//! `<run>-ceilings.csv`: the ceilings each GPU of a run measured, one row per GPU and ceiling,
//! beside the run CSV (`<run>.csv`). A file of its own rather than columns of the run CSV: the
//! values belong to the run and GPU, not to a trial (the run CSV would repeat 7 x 5 values on every
//! row), and its schema can grow without a new run-CSV schema that every loader and `kernelgate
//! history import` must learn. Each trial's own ceiling is in the run CSV, as its
//! `pct_of_<ceiling>_ceiling` statistic ([`crate::record::statistics`]).

use crate::error::{Error, Result};
use crate::model::{Ceiling, Ceilings, DeviceFacts};
use std::path::Path;

/// The end of a ceilings CSV's name: `<stem>-ceilings.csv` beside the run CSV `<stem>.csv`.
pub const SUFFIX: &str = "-ceilings.csv";

/// Version of the columns of [`Row`]; bumped when a column changes meaning.
pub const CEILINGS_CSV_SCHEMA: u32 = 1;

/// One row: one ceiling of one GPU.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Row {
    /// [`CEILINGS_CSV_SCHEMA`].
    pub schema_version: u32,
    /// The run, as in the run CSV.
    pub run_id: String,
    /// Baseline folder key of the GPU.
    pub gpu_key: String,
    /// NVML UUID of the physical GPU (`unknown` without NVML).
    pub gpu_uuid: String,
    /// CUDA ordinal the run used.
    pub ordinal: usize,
    /// The ceiling's name ([`crate::model::Ceiling::name`]).
    pub ceiling: &'static str,
    /// Its value: the median ([`crate::ceilings::measured`]).
    pub value: f64,
    /// Unit of `value`: `GB/s`, `GFLOP/s` or `s`.
    pub unit: &'static str,
    /// Relative spread: MAD / median of the sample times (a fraction).
    pub spread: f64,
    /// Timed samples.
    pub samples: usize,
    /// Work of one sample, in `work_unit`.
    pub work: f64,
    /// `byte`, `flop` or `launch`.
    pub work_unit: &'static str,
    /// The L2 was flushed before each sample ([`crate::ceilings::probe::flushed`]).
    pub l2_flushed: bool,
}

/// The rows of one GPU's ceilings in run `run_id`.
pub fn rows(run_id: &str, facts: &DeviceFacts, ceilings: &Ceilings) -> Vec<Row> {
    ceilings
        .measured
        .iter()
        .map(|m| Row {
            schema_version: CEILINGS_CSV_SCHEMA,
            run_id: run_id.to_string(),
            gpu_key: facts.gpu_key.clone(),
            gpu_uuid: facts.uuid.clone(),
            ordinal: facts.ordinal,
            ceiling: m.ceiling.name(),
            value: m.value,
            unit: m.ceiling.unit(),
            spread: m.spread,
            samples: m.samples,
            work: m.work,
            work_unit: match m.ceiling.unit() {
                "GFLOP/s" => "flop",
                "s" => "launch",
                _ => "byte",
            },
            l2_flushed: super::probe::flushed(m.ceiling),
        })
        .collect()
}

/// One ceiling as read back from a `<run>-ceilings.csv` ([`parse`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    /// The run, as in the run CSV.
    pub run_id: String,
    /// NVML UUID of the physical GPU (`unknown` without NVML).
    pub gpu_uuid: String,
    /// Which ceiling.
    pub ceiling: Ceiling,
    /// Its value, in [`Ceiling::unit`].
    pub value: f64,
}

/// The ceilings of a `<run>-ceilings.csv` of schema [`CEILINGS_CSV_SCHEMA`] (`text`, read from
/// `path`), in file order. Only what a report needs is read back: run, GPU, ceiling, value.
///
/// # Errors
/// [`Error::History`] naming `path` and the line: another header or schema version, a ceiling name
/// this kernelgate does not know, a unit that is not the ceiling's, a value that is not a positive
/// finite number.
pub fn parse(text: &str, path: &Path) -> Result<Vec<Read>> {
    let bad =
        |line: u64, message: String| Error::History { path: path.to_path_buf(), line: Some(line as usize), message };
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().map_err(|e| bad(1, format!("not CSV: {e}")))?.clone();
    let expected = ["schema_version", "run_id", "gpu_key", "gpu_uuid", "ordinal", "ceiling", "value", "unit"];
    if header.len() < expected.len() || !expected.iter().zip(header.iter()).all(|(e, h)| *e == h) {
        let header = header.iter().collect::<Vec<_>>().join(",");
        return Err(bad(1, format!("the header is not that of a kernelgate ceilings CSV: {header}")));
    }
    let mut out = Vec::new();
    for record in reader.records() {
        let r = record.map_err(|e| bad(e.position().map_or(0, |p| p.line()), format!("malformed row: {e}")))?;
        let line = r.position().map_or(0, |p| p.line());
        if r[0] != *CEILINGS_CSV_SCHEMA.to_string() {
            return Err(bad(line, format!("schema_version {:?}: this kernelgate reads {CEILINGS_CSV_SCHEMA}", &r[0])));
        }
        let ceiling = Ceiling::from_name(&r[5]).ok_or_else(|| bad(line, format!("no ceiling is named {:?}", &r[5])))?;
        if r[7] != *ceiling.unit() {
            return Err(bad(line, format!("{ceiling} is in {}, not {:?}", ceiling.unit(), &r[7])));
        }
        let value: f64 = r[6].parse().map_err(|_| bad(line, format!("value {:?} is not a number", &r[6])))?;
        if !(value.is_finite() && value > 0.0) {
            return Err(bad(line, format!("{ceiling} is {value:?} {}: no GPU measures that", ceiling.unit())));
        }
        out.push(Read { run_id: r[1].to_string(), gpu_uuid: r[3].to_string(), ceiling, value });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back_and_a_bad_file_is_refused_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run-ceilings.csv");
        let facts = crate::record::tests::facts();
        let written = rows("20261130T030000Z", &facts, &crate::ceilings::tests::fixture());
        crate::record::write_csv(&path, &written).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let read = parse(&text, &path).unwrap();
        assert_eq!(read.len(), written.len());
        for (r, w) in read.iter().zip(&written) {
            assert_eq!(
                (r.run_id.as_str(), r.gpu_uuid.as_str(), r.ceiling.name()),
                (w.run_id.as_str(), w.gpu_uuid.as_str(), w.ceiling)
            );
            assert_eq!(r.value.to_bits(), w.value.to_bits(), "bit for bit");
        }
        let err = |text: &str| parse(text, &path).unwrap_err().to_string();
        let e = err(&text.replace(",copy,", ",cpoy,"));
        assert!(e.contains(":4:") && e.contains("\"cpoy\""), "{e}");
        assert!(err(&text.replace(",60000.0,GFLOP/s", ",60000.0,GB/s")).contains("fma is in GFLOP/s"));
        assert!(err(&text.replace(",3800.0,", ",-1,")).contains("no GPU measures"));
        assert!(err("schema_version,trial,kernel\n").contains("not that of a kernelgate ceilings CSV"));
    }

    #[test]
    fn golden() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run-ceilings.csv");
        let rows = rows("20261130T030000Z", &crate::record::tests::facts(), &crate::ceilings::tests::fixture());
        crate::record::write_csv(&path, &rows).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        assert_eq!(
            lines.next().unwrap(),
            "schema_version,run_id,gpu_key,gpu_uuid,ordinal,ceiling,value,unit,spread,samples,work,work_unit,l2_flushed"
        );
        assert_eq!(
            lines.next().unwrap(),
            "1,20261130T030000Z,nvidia-h200-sm90,GPU-20ce1a7a-fd28-021f-c48b-96e110fd8d88,0,dram_read,3800.0,GB/s,0.002,20,1.0,byte,true"
        );
        assert!(text.contains(",copy,4223.206434886277,GB/s,0.002,20,1.0,byte,false\n"), "{text}");
        assert!(text.contains(",fma,60000.0,GFLOP/s,0.002,20,1.0,flop,false\n"), "{text}");
        assert_eq!(text.lines().count(), 1 + 5);
    }
}
