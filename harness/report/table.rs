//! The terminal: the device block printed at the start of a run and the results table printed at
//! its end.

use crate::model::DeviceFacts;
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

/// The results table: one row per timed case, in the order given.
///
/// Columns: trial; median time; noise (stddev / mean); samples; effective bandwidth (declared
/// bytes / median); that as % of the run's measured copy bandwidth; GFLOP/s where the case
/// declares FLOPs; the speed as % of the vendor reference of the trial's family and size
/// (`87% CUB`: [`super::vendor::pct_of_vendor`] over `references`; `-` without); `timeout` where the noise target was not met; the change of the median against
/// the baseline and the gate's verdict; registers per thread and theoretical occupancy of the
/// program's first launch, from the driver (`-` without).
pub fn table(results: &[CaseResult], copy_gbps: f64, references: &[super::vendor::VendorReference]) -> String {
    let vendor = super::vendor::pct_of_vendor(results, references);
    let width = results.iter().map(|r| r.trial.len()).max().unwrap_or(5).max(5);
    let mut out = String::new();
    writeln!(
        out,
        "{:<width$}  {:>10}  {:>6}  {:>7}  {:>8}  {:>6}  {:>8}  {:>11}  {:<9}  {:>7}  {:<11}  {:>4}  {:>5}",
        "trial",
        "median",
        "noise",
        "samples",
        "GB/s",
        "%copy",
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
        let delta = r.comparison.as_ref().map_or("-".to_string(), |c| crate::units::signed_pct(100.0 * c.delta));
        let (regs, occ) = r.resources.map_or(("-".to_string(), "-".to_string()), |x| {
            (x.registers.to_string(), format!("{:.0}%", x.occupancy_pct))
        });
        writeln!(
            out,
            "{:<width$}  {:>10}  {:>5.2}%  {:>7}  {:>8.1}  {:>5.1}%  {:>8}  {:>11}  {:<9}  {:>7}  {:<11}  {:>4}  {:>5}",
            r.trial,
            duration(r.summary.median_s),
            r.summary.noise_pct,
            r.summary.n,
            r.bandwidth_gbps(),
            r.pct_of_copy(copy_gbps),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::tests::{facts, result};

    #[test]
    fn table_golden() {
        let rows = [
            result("coalescing/copy/67108864", 131.94e-6, 536_870_912, 0),
            // H200 medians: cub::DeviceReduce::Sum in the standalone tuner, and the suite's
            // shuffle_vec4 (baselines/nvidia-h200-sm90/BENCHMARK.md).
            result("reduction/cub/67108864", 75.31e-6, 268_435_456, 0),
            result("reduction/shuffle_vec4/67108864", 72.9e-6, 268_435_456, 0),
            result("vectorization/saxpy/67108864", 200e-6, 805_306_368, 134_217_728),
        ];
        let cub = [super::super::vendor::VendorReference { trial: "reduction/cub/67108864".into(), vendor: "CUB" }];
        let expected = "\
trial                                median   noise  samples      GB/s   %copy   GFLOP/s      %vendor  stop       vs base  verdict      regs    occ
coalescing/copy/67108864           131.9 us   0.10%      100    4069.1  101.7%         -            -  converged        -  no-baseline     -      -
reduction/cub/67108864              75.3 us   0.10%      100    3564.4   89.1%         -     100% CUB  converged        -  no-baseline     -      -
reduction/shuffle_vec4/67108864     72.9 us   0.10%      100    3682.2   92.1%         -     103% CUB  converged        -  no-baseline     -      -
vectorization/saxpy/67108864       200.0 us   0.10%      100    4026.5  100.7%     671.1            -  converged        -  no-baseline     -      -
";
        assert_eq!(table(&rows, 4000.0, &cub), expected);
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
}
