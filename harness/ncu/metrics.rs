//! The metric set kernelgate asks ncu for, and the metrics it derives from them.
//!
//! Names are ncu's own, verbatim (Nsight Compute "Kernel Profiling Guide", Metrics Reference and
//! Metrics Decoder). Each was checked valid on gh100 (H200) with ncu 2025.3.1 by
//! `ncu --query-metrics-mode suffix --chip gh100`; ncu silently drops a name that is not valid on
//! the chip, so [`super::parse::require_metrics`] turns a missing one into an error.

use crate::case::{Case, Param};
use std::collections::BTreeMap;

/// Metrics collected for every case, with what each is for.
pub const DEFAULT_METRICS: &[(&str, &str)] = &[
    ("gpu__time_duration.sum", "kernel duration, ns"),
    ("dram__bytes_read.sum", "DRAM bytes read"),
    ("dram__bytes_write.sum", "DRAM bytes written"),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "global load sectors"),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "global load requests"),
    ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "global store sectors"),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "global store requests"),
    ("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", "bytes used per fetched load sector, % of 32"),
    ("smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct", "bytes used per stored sector, % of 32"),
    ("smsp__sass_inst_executed_op_global_ld.sum", "global load instructions (warp level)"),
    ("smsp__sass_inst_executed_op_global_st.sum", "global store instructions (warp level)"),
    ("smsp__sass_inst_executed_op_shared_ld.sum", "shared load instructions (warp level)"),
    ("smsp__sass_inst_executed_op_shared_st.sum", "shared store instructions (warp level)"),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "shared load wavefronts"),
    ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "shared store wavefronts"),
    (
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "shared load bank conflicts (counts arbitration too on sm_80+)",
    ),
    (
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        "shared store bank conflicts (counts arbitration too on sm_80+)",
    ),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy, %"),
    ("sm__maximum_warps_per_active_cycle_pct", "theoretical occupancy, %"),
    ("launch__occupancy_limit_blocks", "occupancy limit from the block-count limit, blocks"),
    ("launch__occupancy_limit_registers", "occupancy limit from registers, blocks"),
    ("launch__occupancy_limit_shared_mem", "occupancy limit from shared memory, blocks"),
    ("launch__occupancy_limit_warps", "occupancy limit from warps, blocks"),
    ("launch__registers_per_thread", "registers per thread"),
    ("l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum", "local-memory (spill) load bytes"),
    ("l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum", "local-memory (spill) store bytes"),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "global atomic requests"),
    ("l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", "global reduction requests"),
];

/// The metric names to request for `case`: [`DEFAULT_METRICS`] then the case's own, deduplicated.
pub fn requested(case: &Case) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = DEFAULT_METRICS.iter().map(|(n, _)| *n).collect();
    for extra in &case.metrics {
        if !names.contains(extra) {
            names.push(extra);
        }
    }
    names
}

/// A derived metric: its name, unit and meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DerivedMetric {
    /// Plain name with the unit in it.
    pub name: &'static str,
    /// Unit.
    pub unit: &'static str,
    /// Formula, in ncu names.
    pub formula: &'static str,
}

/// Metrics kernelgate derives; see [`derive()`].
pub const DERIVED: &[DerivedMetric] = &[
    DerivedMetric {
        name: "shared_ld_wavefronts_per_inst",
        unit: "wavefront/inst",
        formula: "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum / smsp__sass_inst_executed_op_shared_ld.sum",
    },
    DerivedMetric {
        name: "shared_st_wavefronts_per_inst",
        unit: "wavefront/inst",
        formula: "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum / smsp__sass_inst_executed_op_shared_st.sum",
    },
    DerivedMetric {
        name: "global_ld_bytes_per_sector",
        unit: "byte/sector",
        formula: "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct / 100 * 32",
    },
    DerivedMetric {
        name: "global_st_bytes_per_sector",
        unit: "byte/sector",
        formula: "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct / 100 * 32",
    },
    DerivedMetric {
        name: "global_ld_sectors_per_request",
        unit: "sector/request",
        formula: "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    },
    DerivedMetric {
        name: "dram_overfetch",
        unit: "ratio",
        formula: "(dram__bytes_read.sum + dram__bytes_write.sum) / declared bytes",
    },
    DerivedMetric {
        name: "atomics_per_element",
        unit: "request/element",
        formula: "(l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum + ..._red.sum) / output elements",
    },
];

/// Elements a case produces: the lengths of its compared buffers, summed (the denominator of
/// `atomics_per_element`).
pub fn output_elements(case: &Case) -> u64 {
    case.params
        .iter()
        .map(|p| match p {
            Param::Out { len, .. } | Param::Zeroed { len, .. } | Param::Host { init: None, len, .. } => *len as u64,
            Param::InOut { len, offset, .. } => (len - offset) as u64,
            _ => 0,
        })
        .sum()
}

/// Computes [`DERIVED`] from raw values (`name -> value`, base units). A derived metric whose
/// inputs are missing, or whose denominator is 0 (a kernel with no shared-memory instruction has no
/// wavefronts per instruction), is left out.
pub fn derive(raw: &BTreeMap<String, f64>, declared_bytes: u64, elements: u64) -> BTreeMap<&'static str, f64> {
    let get = |n: &str| raw.get(n).copied();
    let ratio = |num: Option<f64>, den: Option<f64>| match (num, den) {
        (Some(n), Some(d)) if d > 0.0 => Some(n / d),
        _ => None,
    };
    let sum = |a: &str, b: &str| Some(get(a)? + get(b)?);
    let values = [
        ratio(
            get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
            get("smsp__sass_inst_executed_op_shared_ld.sum"),
        ),
        ratio(
            get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
            get("smsp__sass_inst_executed_op_shared_st.sum"),
        ),
        get("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct").map(|p| p / 100.0 * 32.0),
        get("smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct").map(|p| p / 100.0 * 32.0),
        ratio(
            get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
            get("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
        ),
        ratio(sum("dram__bytes_read.sum", "dram__bytes_write.sum"), Some(declared_bytes as f64)),
        ratio(
            sum(
                "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
                "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
            ),
            Some(elements as f64),
        ),
    ];
    DERIVED.iter().zip(values).filter_map(|(d, v)| v.map(|v| (d.name, v))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn derived_from_the_h200_tile_fixture_numbers() {
        // harness/tests/fixtures/ncu/ncu-2025.3.1-h200/tile_raw.csv: a 32x32 tile read by column.
        let r = raw(&[
            ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 1_051_646.0),
            ("smsp__sass_inst_executed_op_shared_ld.sum", 32_768.0),
        ]);
        let d = derive(&r, 0, 0);
        assert!((d["shared_ld_wavefronts_per_inst"] - 32.09).abs() < 0.01);
        assert!(!d.contains_key("shared_st_wavefronts_per_inst"), "no inputs, no value");
        assert!(!d.contains_key("dram_overfetch"), "no DRAM metrics, no overfetch");
    }

    #[test]
    fn zero_denominators_are_left_out() {
        let r = raw(&[
            ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 0.0),
            ("smsp__sass_inst_executed_op_shared_ld.sum", 0.0),
            ("dram__bytes_read.sum", 100.0),
            ("dram__bytes_write.sum", 60.0),
            ("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", 12.5),
            ("l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", 3.0),
            ("l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", 1.0),
        ]);
        let d = derive(&r, 80, 2);
        assert!(!d.contains_key("shared_ld_wavefronts_per_inst"));
        assert_eq!(d["dram_overfetch"], 2.0);
        assert_eq!(d["global_ld_bytes_per_sector"], 4.0);
        assert_eq!(d["atomics_per_element"], 2.0);
    }

    #[test]
    fn metric_names_are_unique_and_verbatim() {
        let mut names: Vec<&str> = DEFAULT_METRICS.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), DEFAULT_METRICS.len());
        // The gh100 trap from ../shared/gpu/README.md: the sm__ form does not exist there.
        assert!(!names.contains(&"sm__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"));
    }
}
