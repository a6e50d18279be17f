//! The physics guard: a trial whose median implies more DRAM bandwidth or more fp32 throughput than
//! the GPU has is `invalid`, with the arithmetic in the message. Such a median is not a record but
//! a broken measurement: a check that passes a wrong result, a result cached between launches, or
//! a wrong declared count ([`Case::bytes`], [`Case::flops`]). Pure: numbers in, a sentence out.
//!
//! Two ceilings, each an upper bound the hardware cannot pass:
//! - **DRAM bandwidth**: the larger of the run's measured device-to-device copy bandwidth times
//!   [`COPY_MARGIN`] and the theoretical peak from the driver's attributes (memory clock x 2 x bus
//!   width, [`DeviceFacts::dram_peak_gbps`]). Applied to the declared bytes beyond what the L2 can
//!   hold: outputs written into L2 may still be there, dirty, when the stop event is recorded, so
//!   up to one L2 of them need not have reached DRAM. Not applied to programs that copy host
//!   memory (PCIe moves those bytes; the DRAM ceiling is the wrong one and no PCIe ceiling is
//!   measured).
//! - **fp32 throughput**: SMs x peak SM clock x fp32 lanes per SM x 2 ([`DeviceFacts::fp32_peak_gflops`]),
//!   on the declared FLOPs (an FMA counts 2 there and here). cuBLAS's SGEMM is held to it too: the
//!   suite calls it in cuBLAS's default math mode, fp32 without tensor cores (cuBLAS docs,
//!   `cublasSetMathMode`: `CUBLAS_DEFAULT_MATH`).
//!
//! The time each rate is computed from is the slow end of what was measured: the median times
//! (1 + the half-width of its 95 % confidence interval) plus [`EVENT_RESOLUTION_S`], so that no
//! noise or timer granularity can make a possible result look impossible. A median dominated by
//! launch latency implies little bandwidth and is never flagged; there is no hot (unflushed) mode
//! in the suite, so every sample starts from a flushed L2 ([`crate::measure::measure_cold`]).

use crate::case::{Case, Param};
use crate::model::DeviceFacts;

/// How far above the run's measured device-to-device copy bandwidth a median may imply DRAM
/// traffic before it is impossible: 1.25. kernelgate's choice, from what the H200 measured
/// (baselines/nvidia-h200-sm90/BENCHMARK.md and the run CSVs beside it): the copy itself measured
/// 4208-4237 GB/s; the fastest suite trial reached 98.6 % of it (`vectorization/copy_vec4`, 128.9 us
/// for 536,870,912 bytes against 4223 GB/s, run 8c8c911); a read-only reduction reached 99.5 %
/// with a read-based flush, and 62 us (4,330 GB/s, 1.025x the copy) under ncu, where ncu put it at
/// 86-91 % of DRAM peak, a peak of about 4,750 GB/s or 1.13x the copy. 1.25x is above that peak
/// with room for a read-only kernel that beats a copy (no read-write turnaround); on the fastest
/// trial, a byte count 1.4x too large is still caught (the unit tests), the planted 10x by far.
pub const COPY_MARGIN: f64 = 1.25;

/// Resolution of a CUDA event time, s: 0.5 us, "a resolution of around 0.5 microseconds"
/// (CUDA Runtime API, `cudaEventElapsedTime`). Added to the time a rate is computed from.
pub const EVENT_RESOLUTION_S: f64 = 0.5e-6;

/// What the guard holds a median against: a device's ceilings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ceilings {
    /// The run's measured device-to-device copy bandwidth, GB/s (read + write); `None` where it was
    /// not measured (NaN in [`DeviceFacts::copy_bandwidth_gbps`]).
    pub copy_gbps: Option<f64>,
    /// Theoretical DRAM bandwidth, GB/s, from the driver's attributes; `None` where unknown.
    pub dram_peak_gbps: Option<f64>,
    /// Theoretical fp32 throughput, GFLOP/s; `None` where unknown.
    pub fp32_peak_gflops: Option<f64>,
    /// L2 cache, bytes: declared bytes up to this much may not have reached DRAM.
    pub l2_bytes: u64,
}

impl Ceilings {
    /// The ceilings of the device `facts` describe.
    pub fn of(facts: &DeviceFacts) -> Ceilings {
        let copy = facts.copy_bandwidth_gbps;
        Ceilings {
            copy_gbps: (copy.is_finite() && copy > 0.0).then_some(copy),
            dram_peak_gbps: facts.dram_peak_gbps(),
            fp32_peak_gflops: facts.fp32_peak_gflops(),
            l2_bytes: facts.l2_bytes,
        }
    }

    /// The DRAM bandwidth no median may imply, GB/s: max(copy x [`COPY_MARGIN`], theoretical
    /// peak); `None` when neither is known.
    pub fn bandwidth_limit_gbps(&self) -> Option<f64> {
        let copy = self.copy_gbps.map(|c| c * COPY_MARGIN);
        match (copy, self.dram_peak_gbps) {
            (Some(c), Some(p)) => Some(c.max(p)),
            (c, p) => c.or(p),
        }
    }
}

/// What a trial's median claims: its declared work and how long it took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Claim {
    /// Declared bytes ([`Case::bytes`]).
    pub bytes: u64,
    /// Declared FLOPs ([`Case::flops`]); 0 for none.
    pub flops: u64,
    /// The median time, s.
    pub median_s: f64,
    /// Half-width of the median's 95 % confidence interval, relative (a fraction); `None` when not
    /// known (the median is then taken as it is).
    pub median_ci: Option<f64>,
    /// The program copies to or from host memory: the DRAM ceiling does not apply.
    pub host_memory: bool,
}

impl Claim {
    /// `case`'s claim at `median_s` with its interval's relative half-width `median_ci`.
    pub fn of(case: &Case, median_s: f64, median_ci: Option<f64>) -> Claim {
        Claim {
            bytes: case.bytes,
            flops: case.flops,
            median_s,
            median_ci,
            host_memory: case.params.iter().any(|p| matches!(p, Param::Host { .. })),
        }
    }

    /// The slow end of the measured time, s: median x (1 + half-width) + [`EVENT_RESOLUTION_S`].
    pub fn slow_s(&self) -> f64 {
        self.median_s * (1.0 + self.median_ci.filter(|h| h.is_finite() && *h > 0.0).unwrap_or(0.0)) + EVENT_RESOLUTION_S
    }
}

/// Why `claim` is physically impossible on a device with `ceilings`, when it is: the DRAM rule
/// first, then the fp32 rule (the module's documentation), each sentence with its arithmetic and
/// the three causes to look for. `None` when both hold, or neither ceiling is known, or the
/// median is not a positive time.
pub fn impossible(claim: &Claim, ceilings: &Ceilings) -> Option<String> {
    if !(claim.median_s > 0.0 && claim.median_s.is_finite()) {
        return None;
    }
    let reasons: Vec<String> =
        [bandwidth(claim, ceilings), throughput(claim, ceilings)].into_iter().flatten().collect();
    (!reasons.is_empty()).then(|| {
        format!(
            "{}: a broken check, a result cached between launches, or a wrong declared count (Case::bytes, \
             Case::flops)",
            reasons.join("; ")
        )
    })
}

/// The guard over both versions of a same-run A/B trial: this build's claim `b` first, then the
/// reference version's `a`, named `a_label` (e.g. `A (kernels/planted.cu at main)`). Either one
/// impossible makes the pair's comparison meaningless: a B timed against an impossibly fast A
/// would read as a regression. Pure.
pub fn impossible_paired(b: &Claim, a: &Claim, a_label: &str, ceilings: &Ceilings) -> Option<String> {
    impossible(b, ceilings)
        .or_else(|| impossible(a, ceilings).map(|why| format!("{a_label}, the reference side: {why}")))
}

/// The DRAM rule's sentence, when it is broken.
fn bandwidth(claim: &Claim, c: &Ceilings) -> Option<String> {
    if claim.host_memory {
        return None;
    }
    let limit = c.bandwidth_limit_gbps()?;
    let beyond_l2 = claim.bytes.saturating_sub(c.l2_bytes);
    let needed = beyond_l2 as f64 / claim.slow_s() / 1e9;
    if needed <= limit {
        return None;
    }
    let at_median = claim.bytes as f64 / claim.median_s / 1e9;
    let against = match c.copy_gbps {
        Some(copy) => {
            format!(", {:.1}x the measured device-to-device copy bandwidth {} GB/s", at_median / copy, grouped(copy))
        }
        None => String::new(),
    };
    // (name, name with its figure) of each known ceiling.
    let parts: Vec<(String, String)> = [
        c.copy_gbps.map(|copy| {
            let name = format!("{COPY_MARGIN}x the copy");
            (name.clone(), format!("{name} = {} GB/s", grouped(copy * COPY_MARGIN)))
        }),
        c.dram_peak_gbps
            .map(|p| ("the driver's DRAM peak".to_string(), format!("the driver's DRAM peak {} GB/s", grouped(p)))),
    ]
    .into_iter()
    .flatten()
    .collect();
    let which = match parts.as_slice() {
        [(one, _)] => one.clone(),
        _ => format!("the larger of {}", parts.iter().map(|(_, full)| full.as_str()).collect::<Vec<_>>().join(" and ")),
    };
    Some(format!(
        "declares {} moved in {} = {} GB/s{against}; even the {} beyond the {} L2 in {} (the median's slow end) need \
         {} GB/s, over the limit {} GB/s ({})",
        bytes(claim.bytes),
        crate::units::duration(claim.median_s),
        grouped(at_median),
        bytes(beyond_l2),
        bytes(c.l2_bytes),
        crate::units::duration(claim.slow_s()),
        grouped(needed),
        grouped(limit),
        which,
    ))
}

/// The fp32 rule's sentence, when it is broken.
fn throughput(claim: &Claim, c: &Ceilings) -> Option<String> {
    let peak = c.fp32_peak_gflops?;
    if claim.flops == 0 {
        return None;
    }
    let needed = claim.flops as f64 / claim.slow_s() / 1e9;
    (needed > peak).then(|| {
        let at_median = claim.flops as f64 / claim.median_s / 1e9;
        format!(
            "declares {} FLOP in {} = {} GFLOP/s, {:.1}x the fp32 peak {} GFLOP/s (SMs x peak SM clock x fp32 lanes \
             per SM x 2; {} GFLOP/s at the median's slow end {})",
            grouped(claim.flops as f64),
            crate::units::duration(claim.median_s),
            grouped(at_median),
            at_median / peak,
            grouped(peak),
            grouped(needed),
            crate::units::duration(claim.slow_s()),
        )
    })
}

/// A whole number with `,` between groups of three digits: `42,800`.
fn grouped(v: f64) -> String {
    let digits = format!("{:.0}", v.abs());
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    if v < 0.0 { format!("-{out}") } else { out }
}

/// Bytes in decimal units with three significant digits: `1.34 GB`, `62.9 MB`, `512 kB`.
fn bytes(b: u64) -> String {
    let b = b as f64;
    let (value, unit) = if b >= 1e9 {
        (b / 1e9, "GB")
    } else if b >= 1e6 {
        (b / 1e6, "MB")
    } else if b >= 1e3 {
        (b / 1e3, "kB")
    } else {
        (b, "B")
    };
    let decimals = if value >= 100.0 || unit == "B" {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    format!("{value:.decimals$} {unit}")
}

#[cfg(test)]
mod tests;
