//! The terminal: the device block printed at the start of a run and the results table printed at
//! its end.

use crate::model::{Ceilings, DeviceFacts};
use crate::record::CaseResult;
use std::fmt::Write as _;

pub use crate::units::duration;

/// The device block printed at the start of a run, with the file of the NVRTC this process
/// loaded ([`crate::nvrtc::load`], cached: opening the GPU has loaded it by then).
pub fn device(f: &DeviceFacts) -> String {
    device_with_nvrtc(f, crate::nvrtc::load().ok().map(|n| n.path.as_path()))
}

/// [`device`] with the NVRTC file given: `NVRTC 13.0 (/path/libnvrtc.so.13)`.
pub fn device_with_nvrtc(f: &DeviceFacts, nvrtc_path: Option<&std::path::Path>) -> String {
    let nvrtc = match nvrtc_path {
        Some(path) => format!("{} ({})", f.nvrtc_version, path.display()),
        None => f.nvrtc_version.clone(),
    };
    format!(
        "kernelgate: {} (compute capability {}.{}, {} SMs, {} MiB, L2 {} MiB, ECC {}), driver {}, CUDA {}, NVRTC {}\n\
         kernelgate: device-to-device copy bandwidth {:.0} GB/s (read + write, median of 20 x 1 GiB); GPU key {}",
        f.name,
        f.cc_major,
        f.cc_minor,
        f.sm_count,
        f.memory_mib(),
        f.l2_bytes >> 20,
        if f.ecc { "on" } else { "off" },
        f.driver_version,
        f.cuda_driver_version,
        nvrtc,
        f.copy_bandwidth_gbps,
        f.gpu_key,
    ) + &peaks(f)
}

/// The device block's line of theoretical peaks from the driver's attributes (the physics
/// guard's ceilings, [`crate::guard`]), empty when the driver gave none.
fn peaks(f: &DeviceFacts) -> String {
    let dram = f.dram_peak_gbps().map(|g| {
        format!("DRAM {g:.0} GB/s (memory clock {} MHz x {}-bit bus x 2)", f.memory_clock_khz / 1000, f.memory_bus_bits)
    });
    let fp32 = f.fp32_peak_gflops().map(|g| {
        format!(
            "fp32 {g:.0} GFLOP/s ({} SMs x {} MHz x {} lanes x 2)",
            f.sm_count,
            f.sm_clock_max_khz / 1000,
            crate::model::fp32_lanes_per_sm(f.cc_major, f.cc_minor).unwrap_or(0)
        )
    });
    let known: Vec<String> = dram.into_iter().chain(fp32).collect();
    if known.is_empty() { String::new() } else { format!("\nkernelgate: theoretical peaks: {}", known.join(", ")) }
}

/// The line of the device block that gives the GPU's measured ceilings
/// ([`crate::ceilings::probe`]): each as its median and its relative MAD (`±0.12%`); `None` when
/// none was measured.
pub fn ceilings(c: &Ceilings) -> Option<String> {
    let first = c.measured.first()?;
    let parts: Vec<String> = c
        .measured
        .iter()
        .map(|m| {
            let value = if m.ceiling.unit() == "s" {
                crate::units::duration(m.value)
            } else {
                format!("{:.0} {}", m.value, m.ceiling.unit())
            };
            format!("{} {value} ±{:.2}%", m.ceiling, 100.0 * m.spread)
        })
        .collect();
    Some(format!(
        "kernelgate: ceilings (median of {} samples, ± relative MAD; DRAM read and write after the L2 flush; measured in {:.2} s): {}",
        first.samples,
        c.wall_s,
        parts.join(", ")
    ))
}

/// The results table: one row per timed case, in the order given.
///
/// Columns: trial; median time; noise (stddev / mean); samples; effective bandwidth (declared
/// bytes / median); the achieved rate as % of the trial's own ceiling and that ceiling's name
/// ([`CaseResult::bound`]; `-` without one); GFLOP/s where the case declares FLOPs; the speed as %
/// of the vendor reference of the trial's family and size (`87% CUB`:
/// [`super::vendor::pct_of_vendor`] over `references`; `-` without); `timeout` where the noise target was not met; the change of the median against
/// the baseline and the gate's verdict; registers per thread and theoretical occupancy of the
/// program's first launch, from the driver (`-` without).
pub fn table(results: &[CaseResult], references: &[super::vendor::VendorReference]) -> String {
    let vendor = super::vendor::pct_of_vendor(results, references);
    let width = results.iter().map(|r| r.trial.len()).max().unwrap_or(5).max(5);
    let mut out = String::new();
    writeln!(
        out,
        "{:<width$}  {:>10}  {:>6}  {:>7}  {:>8}  {:>6} {:<10}  {:>8}  {:>11}  {:<9}  {:>7}  {:<11}  {:>4}  {:>5}",
        "trial",
        "median",
        "noise",
        "samples",
        "GB/s",
        "%ceil",
        "ceiling",
        "GFLOP/s",
        "%vendor",
        "stop",
        "vs base",
        "verdict",
        "regs",
        "occ"
    )
    .unwrap();
    for (r, vendor) in results.iter().zip(vendor) {
        let vendor = vendor.map_or("-".to_string(), |(pct, name)| format!("{pct:.0}% {name}"));
        let gflops = r.gflops().map_or("-".to_string(), |g| format!("{g:.1}"));
        let pct = r.pct_of_bound().map_or("-".to_string(), |p| format!("{p:.1}%"));
        let ceiling = r.bound.map_or("-", |b| b.ceiling.name());
        let delta = r.comparison.as_ref().map_or("-".to_string(), |c| crate::units::signed_pct(100.0 * c.delta));
        let (regs, occ) = r.resources.map_or(("-".to_string(), "-".to_string()), |x| {
            (x.registers.to_string(), format!("{:.0}%", x.occupancy_pct))
        });
        writeln!(
            out,
            "{:<width$}  {:>10}  {:>5.2}%  {:>7}  {:>8.1}  {:>6} {:<10}  {:>8}  {:>11}  {:<9}  {:>7}  {:<11}  {:>4}  {:>5}",
            r.trial,
            duration(r.summary.median_s),
            r.summary.noise_pct,
            r.summary.n,
            r.bandwidth_gbps(),
            pct,
            ceiling,
            gflops,
            vendor,
            r.stop.as_str(),
            delta,
            r.verdict.as_str(),
            regs,
            occ,
        )
        .unwrap();
    }
    out
}

/// A finished GPU trial's line: the median, its change against what it was compared with, the
/// verdict, and the trial's wall time (s): `206.8 us  +2.00%  regressed  5.5 s`; without a
/// comparison `206.8 us  no-baseline  5.5 s`; without a result (the trial failed before timing,
/// or was not timed) the wall time alone.
pub fn trial_line(result: Option<&CaseResult>, seconds: f64) -> String {
    let took = format!("{seconds:.1} s");
    let Some(r) = result else { return took };
    let median = crate::units::duration(r.summary.median_s);
    let verdict = r.verdict.as_str();
    match &r.comparison {
        Some(c) => format!("{median}  {}  {verdict}  {took}", crate::units::signed_pct(100.0 * c.delta)),
        None => format!("{median}  {verdict}  {took}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Ceiling;
    use crate::record::tests::{facts, result};

    #[test]
    fn table_golden() {
        let ceilings = crate::ceilings::tests::fixture();
        let bound = |declared, r: CaseResult| CaseResult {
            bound: crate::ceilings::bound(declared, r.bytes, r.flops, &ceilings),
            ..r
        };
        let rows = [
            bound(None, result("coalescing/copy/67108864", 131.94e-6, 536_870_912, 0)),
            bound(Some(Ceiling::DramRead), result("reduction/shuffle/67108864", 80e-6, 268_435_456, 67_108_864)),
            // 75.31 us: cub::DeviceReduce::Sum's H200 median in the standalone tuner
            // (baselines/nvidia-h200-sm90/BENCHMARK.md); 75.31 / 80.0 = 94 % of CUB's speed.
            bound(Some(Ceiling::DramRead), result("reduction/cub/67108864", 75.31e-6, 268_435_456, 67_108_864)),
            result("launch/one_by_one/4096x8", 18e-6, 0, 0),
            bound(None, result("vectorization/saxpy/67108864", 200e-6, 805_306_368, 134_217_728)),
        ];
        // 4069.1 / 4223.2 GB/s = 96.3 %; 3355.4 / 3800 = 88.3 % (the fixture's ceilings).
        let expected = "\
trial                             median   noise  samples      GB/s   %ceil ceiling      GFLOP/s      %vendor  stop       vs base  verdict      regs    occ
coalescing/copy/67108864        131.9 us   0.10%      100    4069.1   96.3% copy               -            -  converged        -  no-baseline     -      -
reduction/shuffle/67108864       80.0 us   0.10%      100    3355.4   88.3% dram_read      838.9      94% CUB  converged        -  no-baseline     -      -
reduction/cub/67108864           75.3 us   0.10%      100    3564.4   93.8% dram_read      891.1     100% CUB  converged        -  no-baseline     -      -
launch/one_by_one/4096x8         18.0 us   0.10%      100       0.0       - -                  -            -  converged        -  no-baseline     -      -
vectorization/saxpy/67108864    200.0 us   0.10%      100    4026.5   95.3% copy           671.1            -  converged        -  no-baseline     -      -
";
        let cub = [super::super::vendor::VendorReference { trial: "reduction/cub/67108864".into(), vendor: "CUB" }];
        assert_eq!(table(&rows, &cub), expected);
    }

    #[test]
    fn the_ceilings_line() {
        let mut c = crate::ceilings::tests::fixture();
        c.measured.push(crate::model::Measured {
            ceiling: Ceiling::Launch,
            value: 2.5e-6,
            spread: 0.01,
            samples: 20,
            work: 100.0,
        });
        assert_eq!(
            ceilings(&c).unwrap(),
            "kernelgate: ceilings (median of 20 samples, ± relative MAD; DRAM read and write after the L2 flush; measured in 0.00 s): \
             dram_read 3800 GB/s ±0.20%, dram_write 3900 GB/s ±0.20%, copy 4223 GB/s ±0.20%, fma 60000 GFLOP/s ±0.20%, \
             shared 30000 GB/s ±0.20%, launch 2.5 us ±1.00%"
        );
        assert_eq!(ceilings(&Ceilings::default()), None);
    }

    #[test]
    fn device_block_names_everything_recorded() {
        let nvrtc = std::path::Path::new("/p/.nvrtc/lib/libnvrtc.so.13");
        let text = device_with_nvrtc(&facts(), Some(nvrtc));
        for part in [
            "NVIDIA H200",
            "9.0",
            "132 SMs",
            "143771 MiB",
            "580.159.04",
            "CUDA 13.0",
            "NVRTC 13.0 (/p/.nvrtc/lib/libnvrtc.so.13)",
            "4000 GB/s",
            "nvidia-h200-sm90",
        ] {
            assert!(text.contains(part), "{part} missing from {text}");
        }
        assert!(!text.contains("theoretical peaks"), "no attribute read, no line: {text}");
        // Fixture inputs for the line's arithmetic, not an H200's attributes.
        let read =
            DeviceFacts { memory_clock_khz: 2_619_000, memory_bus_bits: 5120, sm_clock_max_khz: 1_980_000, ..facts() };
        let text = device_with_nvrtc(&read, None);
        assert!(
            text.ends_with(
                "kernelgate: theoretical peaks: DRAM 3352 GB/s (memory clock 2619 MHz x 5120-bit bus x 2), \
                 fp32 66908 GFLOP/s (132 SMs x 1980 MHz x 128 lanes x 2)"
            ),
            "{text}"
        );
    }

    #[test]
    fn a_trial_line_gives_median_change_verdict_and_time() {
        assert_eq!(trial_line(None, 2.04), "2.0 s", "without a result, the time alone");
        let r = crate::record::tests::result("t/v/1", 206.8e-6, 8, 0);
        assert_eq!(trial_line(Some(&r), 5.51), "206.8 us  no-baseline  5.5 s");
        let c = crate::gate::timing::Comparison {
            verdict: crate::gate::Verdict::Regressed,
            baseline_median_s: 202.75e-6,
            median_s: 206.8e-6,
            delta: 0.02,
            p_value: 0.0,
            p_adjusted: 0.0,
            min_effect: 0.01,
            median_ci: 0.001,
            quantum_s: 0.0,
        };
        let r = crate::record::CaseResult { verdict: crate::gate::Verdict::Regressed, comparison: Some(c), ..r };
        assert_eq!(trial_line(Some(&r), 5.51), "206.8 us  +2.00%  regressed  5.5 s");
    }
}
