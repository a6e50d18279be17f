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

    #[test]
    fn gpu_key_is_vendor_model_sm() {
        assert_eq!(gpu_key("NVIDIA H200", 9, 0), "nvidia-h200-sm90");
        assert_eq!(gpu_key("NVIDIA GeForce RTX 4090", 8, 9), "nvidia-geforce-rtx-4090-sm89");
        assert_eq!(gpu_key("NVIDIA A100-SXM4-80GB ", 8, 0), "nvidia-a100-sxm4-80gb-sm80");
    }
}
