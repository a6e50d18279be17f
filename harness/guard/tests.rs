//! The physics guard on the figures of the committed H200 run `20261201T165209Z-8c8c911`
//! (baselines/nvidia-h200-sm90/runs/): its copy bandwidth, its L2 (60 MiB, the run's log), its
//! SM clock (1980 MHz, NVML's `sm_clock` of every trial) and its medians.

use super::*;

/// The run's copy bandwidth, GB/s.
const COPY: f64 = 4223.206434886277;
/// The run's L2, bytes (`L2 60 MiB` in its log).
const L2: u64 = 60 << 20;
/// 132 SMs x 1980 MHz x 128 fp32 lanes x 2, GFLOP/s.
const FP32_PEAK: f64 = 66908.16;

/// The run's ceilings: its measured copy, no DRAM peak read (the run predates the attribute),
/// the fp32 peak from NVML's clock.
fn h200() -> Ceilings {
    Ceilings { copy_gbps: Some(COPY), dram_peak_gbps: None, fp32_peak_gflops: Some(FP32_PEAK), l2_bytes: L2 }
}

fn claim(bytes: u64, flops: u64, median_s: f64) -> Claim {
    Claim { bytes, flops, median_s, median_ci: None, host_memory: false }
}

#[test]
fn every_median_of_the_committed_run_is_possible() {
    // (trial, bytes, flops, median s) as the run CSV holds them: the fastest by bandwidth
    // (copy_vec4, 98.6 % of the copy), by FLOP/s (cuBLAS, divergence/by_warp), and launch-bound.
    let trials = [
        ("vectorization/copy_vec4/67108864", 536_870_912, 0, 0.000_128_895_998_001_098_64),
        ("layout/particles_soa/16777216", 536_870_912, 0, 0.000_134_047_999_978_065_48),
        ("reduction/shuffle_vec4/67108864", 268_435_456, 67_108_864, 0.000_072_832_003_235_816_95),
        ("divergence/by_warp/4194304", 33_554_432, 2_147_483_648, 0.000_042_784_001_678_228_38),
        ("matmul/cublas/4096x4096x4096", 201_326_592, 137_438_953_472, 0.002_674_015_998_840_332),
        ("launch/graph/4096x8", 262_144, 0, 0.000_010_719_999_670_982_361),
    ];
    for (trial, bytes, flops, median) in trials {
        assert_eq!(impossible(&claim(bytes, flops, median), &h200()), None, "{trial}");
    }
}

#[test]
fn a_copy_declaring_ten_times_its_bytes_is_impossible_with_the_arithmetic() {
    // coalescing/copy/67108864's median (202.8 us for 536,870,912 bytes) with 10x the bytes.
    let c = claim(5_368_709_120, 0, 0.000_202_751_994_132_995_6);
    let why = impossible(&c, &h200()).expect("10x the bytes of a real copy");
    assert_eq!(
        why,
        "declares 5.37 GB moved in 202.8 us = 26,479 GB/s, 6.3x the measured device-to-device copy bandwidth \
         4,223 GB/s; even the 5.31 GB beyond the 62.9 MB L2 in 203.3 us (the median's slow end) need 26,105 GB/s, \
         over the limit 5,279 GB/s (1.25x the copy): a broken check, a result cached between launches, \
         or a wrong declared count (Case::bytes, Case::flops)"
    );
    // The arithmetic: (5,368,709,120 - 62,914,560) B / (202.752 us + 0.5 us) = 26,105 GB/s.
    let needed = (5_368_709_120u64 - L2) as f64 / c.slow_s() / 1e9;
    assert!((needed - 26_104.5).abs() < 0.1, "{needed}");
}

#[test]
fn the_limit_is_the_larger_of_the_copy_margin_and_the_theoretical_peak() {
    let with_peak = |p| Ceilings { dram_peak_gbps: Some(p), ..h200() };
    assert!((h200().bandwidth_limit_gbps().unwrap() - COPY * COPY_MARGIN).abs() < 1e-9);
    assert_eq!(with_peak(9000.0).bandwidth_limit_gbps(), Some(9000.0), "a peak above 1.25x the copy");
    assert!((with_peak(4000.0).bandwidth_limit_gbps().unwrap() - COPY * COPY_MARGIN).abs() < 1e-9, "a low peak");
    let none = Ceilings { copy_gbps: None, dram_peak_gbps: None, ..h200() };
    assert_eq!(none.bandwidth_limit_gbps(), None);
    // Without either, a 10x copy cannot be judged by bytes.
    assert_eq!(impossible(&claim(5_368_709_120, 0, 202.75e-6), &none), None);
    // With the peak only, the sentence names it alone.
    let peak_only = Ceilings { copy_gbps: None, dram_peak_gbps: Some(4800.0), ..h200() };
    let why = impossible(&claim(5_368_709_120, 0, 202.75e-6), &peak_only).unwrap();
    assert!(why.contains("over the limit 4,800 GB/s (the driver's DRAM peak)"), "{why}");
    assert!(!why.contains("copy bandwidth"), "{why}");
    let both = Ceilings { dram_peak_gbps: Some(4800.0), ..h200() };
    let why = impossible(&claim(5_368_709_120, 0, 202.75e-6), &both).unwrap();
    assert!(why.contains("(the larger of 1.25x the copy = 5,279 GB/s and the driver's DRAM peak 4,800 GB/s)"), "{why}");
}

#[test]
fn the_margin_sits_between_the_fastest_real_median_and_a_wrong_count() {
    // copy_vec4's real median passes with its bytes and with 1.25x and 1.35x of them (after the
    // L2 allowance, 4,700 and 5,115 GB/s); from 1.4x (5,322 GB/s) a wrong count is caught.
    let median = 0.000_128_895_998_001_098_64;
    assert_eq!(impossible(&claim(536_870_912 * 5 / 4, 0, median), &h200()), None);
    assert_eq!(impossible(&claim(536_870_912 * 27 / 20, 0, median), &h200()), None);
    assert!(impossible(&claim(536_870_912 * 7 / 5, 0, median), &h200()).is_some());
}

#[test]
fn the_l2_allowance_and_the_slow_end_keep_small_and_noisy_medians_possible() {
    // 60 MiB written in 2 us would be 31 TB/s, but it can sit in the L2: nothing beyond it.
    assert_eq!(impossible(&claim(L2, 0, 2e-6), &h200()), None);
    // A median known only to +-50 % is judged at 1.5x its time (plus the timer's 0.5 us).
    let noisy = Claim { median_ci: Some(0.5), ..claim(536_870_912 * 3 / 2, 0, 0.000_128_9) };
    assert_eq!(impossible(&noisy, &h200()), None, "the slow end is possible");
    assert!(impossible(&Claim { median_ci: None, ..noisy }, &h200()).is_some(), "the median alone is not");
    assert!((noisy.slow_s() - (0.000_128_9 * 1.5 + EVENT_RESOLUTION_S)).abs() < 1e-15);
    let infinite = Claim { median_ci: Some(f64::INFINITY), ..noisy };
    assert!((infinite.slow_s() - (0.000_128_9 + EVENT_RESOLUTION_S)).abs() < 1e-15, "an unknown interval counts 0");
    assert_eq!(impossible(&claim(1, 0, 0.0), &h200()), None, "a zero median is the conditions' business");
}

#[test]
fn host_memory_programs_are_not_held_to_the_dram_ceiling() {
    // transfers/h2d_pinned/16777216: 67,108,864 bytes in 1.219 ms; with 1000x the bytes it would
    // be 55 TB/s, but over PCIe the DRAM ceiling says nothing.
    let pcie = Claim { host_memory: true, ..claim(67_108_864_000, 0, 0.001_219_295_978_546_142_6) };
    assert_eq!(impossible(&pcie, &h200()), None);
    assert!(impossible(&Claim { host_memory: false, ..pcie }, &h200()).is_some());
}

#[test]
fn flops_beyond_the_fp32_peak_are_impossible() {
    // divergence/by_warp/4194304: 2,147,483,648 FLOP in 42.78 us = 50,194 GFLOP/s, 75 % of the
    // peak: possible. Declared 2x, 100,388 GFLOP/s: impossible.
    let median = 0.000_042_784_001_678_228_38;
    assert_eq!(impossible(&claim(33_554_432, 2_147_483_648, median), &h200()), None);
    let why = impossible(&claim(33_554_432, 2 * 2_147_483_648, median), &h200()).unwrap();
    assert_eq!(
        why,
        "declares 4,294,967,296 FLOP in 42.8 us = 100,387 GFLOP/s, 1.5x the fp32 peak 66,908 GFLOP/s (SMs x peak SM \
         clock x fp32 lanes per SM x 2; 99,228 GFLOP/s at the median's slow end 43.3 us): a broken check, a result \
         cached between launches, or a wrong declared count (Case::bytes, Case::flops)"
    );
    let no_peak = Ceilings { fp32_peak_gflops: None, ..h200() };
    assert_eq!(impossible(&claim(33_554_432, 2 * 2_147_483_648, median), &no_peak), None);
}

#[test]
fn both_rules_broken_give_both_sentences() {
    let why = impossible(&claim(5_368_709_120, 1 << 40, 202.75e-6), &h200()).unwrap();
    assert!(why.starts_with("declares 5.37 GB moved"), "{why}");
    assert!(why.contains("; declares 1,099,511,627,776 FLOP in 202.8 us"), "{why}");
    assert_eq!(why.matches("a broken check").count(), 1, "{why}");
}

#[test]
fn ceilings_come_from_the_device_facts() {
    let facts = crate::record::tests::facts();
    let c = Ceilings::of(&facts);
    assert_eq!(c.copy_gbps, Some(facts.copy_bandwidth_gbps));
    assert_eq!((c.dram_peak_gbps, c.fp32_peak_gflops, c.l2_bytes), (None, None, facts.l2_bytes));
    let unmeasured = Ceilings::of(&DeviceFacts { copy_bandwidth_gbps: f64::NAN, ..facts });
    assert_eq!(unmeasured.copy_gbps, None, "the profiled child measures no copy");
}

#[test]
fn numbers_read_as_people_write_them() {
    assert_eq!(
        (grouped(42_800.4), grouped(999.0), grouped(1_000.0), grouped(-1_234_567.0)),
        ("42,800".into(), "999".into(), "1,000".into(), "-1,234,567".into())
    );
    assert_eq!(
        (bytes(1_073_741_824), bytes(62_914_560), bytes(512_000), bytes(12)),
        ("1.07 GB".into(), "62.9 MB".into(), "512 kB".into(), "12 B".into())
    );
}

#[test]
fn a_pair_is_invalid_when_either_side_is_impossible_and_names_the_side() {
    // The planted too_fast copy's declared 1.34 GB at the median call 1 of session 12 measured
    // (55.9 us, benchmark/b39.txz), against the copy of the committed run: impossible.
    let fast = claim(1_342_177_280, 0, 0.000_055_9);
    let fine = claim(536_870_912, 0, 0.000_202_8); // coalescing/copy/67108864 at 202.8 us
    let label = "A (kernels/planted.cu at main)";
    assert_eq!(impossible_paired(&fine, &fine, label, &h200()), None);
    let why = impossible_paired(&fine, &fast, label, &h200()).expect("an impossible A side");
    assert!(why.starts_with("A (kernels/planted.cu at main), the reference side: declares 1.34 GB moved"), "{why}");
    let why = impossible_paired(&fast, &fine, label, &h200()).expect("an impossible B side");
    assert!(why.starts_with("declares 1.34 GB moved"), "this build's side says no side: {why}");
}
