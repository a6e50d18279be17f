//! The device a result was measured on: the facts recorded with every result, and the GPU key that
//! names its baseline folder.

/// What is recorded about the device with every result.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DeviceFacts {
    /// Marketing name as the driver reports it (`NVIDIA H200`).
    pub name: String,
    /// Baseline folder key, `vendor-model-smXY` ([`gpu_key`]).
    pub gpu_key: String,
    /// Compute capability major.
    pub cc_major: i32,
    /// Compute capability minor.
    pub cc_minor: i32,
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// Device memory, bytes.
    pub memory_bytes: u64,
    /// L2 cache, bytes.
    pub l2_bytes: u64,
    /// Kernel driver version from NVML (`580.159.04`), or `unknown` without NVML.
    pub driver_version: String,
    /// CUDA version the driver supports, `major.minor` (`cuDriverGetVersion`).
    pub cuda_driver_version: String,
    /// NVRTC version used to compile, `major.minor`.
    pub nvrtc_version: String,
    /// ECC enabled.
    pub ecc: bool,
    /// Measured device-to-device copy bandwidth, GB/s (1e9 bytes/s), bytes read plus bytes written;
    /// median of the copy-probe samples (the ceilings stage's `copy`,
    /// [`crate::ceilings::probe::COPY_PROBE_BYTES`]).
    pub copy_bandwidth_gbps: f64,
    /// Peak memory clock, kHz (`CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE`); 0 where the driver does
    /// not say. [`DeviceFacts::dram_peak_gbps`] reads it.
    pub memory_clock_khz: u32,
    /// Global memory bus width, bits (`CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH`); 0 where the
    /// driver does not say.
    pub memory_bus_bits: u32,
    /// Peak SM clock, kHz (`CU_DEVICE_ATTRIBUTE_CLOCK_RATE`); 0 where the driver does not say.
    /// [`DeviceFacts::fp32_peak_gflops`] reads it.
    pub sm_clock_max_khz: u32,
    /// CUDA device ordinal the run used (`KERNELGATE_DEVICES`).
    pub ordinal: usize,
    /// The physical GPU: NVML UUID (`GPU-20ce1a7a-…`); `unknown` without NVML.
    pub uuid: String,
    /// Board serial number (NVML); `unknown` without NVML or where the board has none.
    pub serial: String,
    /// VBIOS version (NVML); `unknown` without NVML.
    pub vbios: String,
    /// PCI bus id, `domain:bus:device.function` (`00000000:18:00.0`), from the CUDA driver.
    pub pci_bus_id: String,
}

impl DeviceFacts {
    /// Compute capability as written in CSVs and baselines, `major.minor` (`9.0`).
    pub fn compute_capability(&self) -> String {
        format!("{}.{}", self.cc_major, self.cc_minor)
    }

    /// Device memory, MiB.
    pub fn memory_mib(&self) -> u64 {
        self.memory_bytes >> 20
    }

    /// Theoretical DRAM bandwidth, GB/s (1e9 bytes/s): memory clock x 2 (double data rate) x bus
    /// width / 8, as NVIDIA's "How to Implement Performance Metrics in CUDA C/C++" computes it
    /// (<https://developer.nvidia.com/blog/how-implement-performance-metrics-cuda-cc/>, "Theoretical
    /// Bandwidth"); `None` when the driver gave neither figure.
    pub fn dram_peak_gbps(&self) -> Option<f64> {
        (self.memory_clock_khz > 0 && self.memory_bus_bits > 0)
            .then(|| f64::from(self.memory_clock_khz) * 1e3 * 2.0 * f64::from(self.memory_bus_bits) / 8.0 / 1e9)
    }

    /// Theoretical fp32 throughput, GFLOP/s: SMs x peak SM clock x fp32 lanes per SM
    /// ([`fp32_lanes_per_sm`]) x 2 (an FMA counts two operations, as [`crate::case::Case::flops`]
    /// counts them); `None` without the clock or for a compute capability the table lacks.
    pub fn fp32_peak_gflops(&self) -> Option<f64> {
        let lanes = fp32_lanes_per_sm(self.cc_major, self.cc_minor)?;
        (self.sm_clock_max_khz > 0)
            .then(|| f64::from(self.sm_count) * f64::from(self.sm_clock_max_khz) * 1e3 * f64::from(lanes) * 2.0 / 1e9)
    }
}

/// fp32 add, multiply or multiply-add results per clock per SM, by compute capability: the CUDA C++
/// Programming Guide's table "Throughput of Native Arithmetic Instructions (Number of Results per
/// Clock Cycle per Multiprocessor)", row "32-bit floating-point add, multiply, multiply-add"
/// (<https://docs.nvidia.com/cuda/cuda-c-programming-guide/#arithmetic-instructions>); `None` for
/// a compute capability not in it (older than 5.0, or newer than this table).
pub fn fp32_lanes_per_sm(cc_major: i32, cc_minor: i32) -> Option<u32> {
    match (cc_major, cc_minor) {
        (5, _) | (6, 1 | 2) | (8, 6 | 7 | 9) | (9, 0) | (10, 0) | (12, 0) => Some(128),
        (6, 0) | (7, _) | (8, 0) => Some(64),
        _ => None,
    }
}

/// `"NVIDIA H200"`, 9.0 -> `"nvidia-h200-sm90"`: lowercase, runs of non-alphanumerics become one `-`.
pub fn gpu_key(name: &str, cc_major: i32, cc_minor: i32) -> String {
    let mut key = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            key.push(c.to_ascii_lowercase());
        } else if !key.ends_with('-') && !key.is_empty() {
            key.push('-');
        }
    }
    let key = key.trim_end_matches('-');
    format!("{key}-sm{cc_major}{cc_minor}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> DeviceFacts {
        DeviceFacts {
            name: "NVIDIA H100 80GB HBM3".into(),
            gpu_key: "nvidia-h100-80gb-hbm3-sm90".into(),
            cc_major: 9,
            cc_minor: 0,
            sm_count: 132,
            memory_bytes: 80 << 30,
            l2_bytes: 50 << 20,
            driver_version: String::new(),
            cuda_driver_version: String::new(),
            nvrtc_version: String::new(),
            ecc: true,
            copy_bandwidth_gbps: f64::NAN,
            memory_clock_khz: 0,
            memory_bus_bits: 0,
            sm_clock_max_khz: 0,
            ordinal: 0,
            uuid: String::new(),
            serial: String::new(),
            vbios: String::new(),
            pci_bus_id: String::new(),
        }
    }

    #[test]
    fn theoretical_peaks_follow_the_formulas() {
        // The arithmetic, on round inputs: 2619 MHz x 2 x 5120 bits / 8 = 3352.32 GB/s;
        // 132 SMs x 1980 MHz x 128 lanes x 2 = 66908.16 GFLOP/s.
        let f =
            DeviceFacts { memory_clock_khz: 2_619_000, memory_bus_bits: 5120, sm_clock_max_khz: 1_980_000, ..facts() };
        assert!((f.dram_peak_gbps().unwrap() - 3352.32).abs() < 1e-6);
        assert!((f.fp32_peak_gflops().unwrap() - 66908.16).abs() < 1e-6);
        let unknown = DeviceFacts { memory_clock_khz: 0, sm_clock_max_khz: 0, ..f.clone() };
        assert_eq!((unknown.dram_peak_gbps(), unknown.fp32_peak_gflops()), (None, None));
        assert_eq!(fp32_lanes_per_sm(8, 0), Some(64), "A100: 64 fp32 lanes per SM");
        assert_eq!(fp32_lanes_per_sm(8, 6), Some(128));
        assert_eq!(fp32_lanes_per_sm(3, 5), None, "not in the table: no FLOP ceiling");
    }

    #[test]
    fn gpu_key_is_vendor_model_sm() {
        assert_eq!(gpu_key("NVIDIA H200", 9, 0), "nvidia-h200-sm90");
        assert_eq!(gpu_key("NVIDIA GeForce RTX 4090", 8, 9), "nvidia-geforce-rtx-4090-sm89");
        assert_eq!(gpu_key("NVIDIA A100-SXM4-80GB ", 8, 0), "nvidia-a100-sxm4-80gb-sm80");
    }
}
