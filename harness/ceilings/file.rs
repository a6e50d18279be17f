//! `<run>-ceilings.csv`: the ceilings each GPU of a run measured, one row per GPU and ceiling,
//! beside the run CSV (`<run>.csv`). A file of its own rather than columns of the run CSV: the
//! values belong to the run and GPU, not to a trial (the run CSV would repeat 7 x 5 values on every
//! row), and its schema can grow without a new run-CSV schema that every loader and `kernelgate
//! history import` must learn. Each trial's own ceiling is in the run CSV, as its
//! `pct_of_<ceiling>_ceiling` statistic ([`crate::record::statistics`]).

use crate::model::{Ceilings, DeviceFacts};

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

#[cfg(test)]
mod tests {
    use super::*;

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
