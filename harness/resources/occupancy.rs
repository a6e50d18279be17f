//! Theoretical occupancy: how many warps of a kernel can be resident on one SM at once, from its
//! registers per thread, its shared memory and its block size. Pure.
//!
//! The formula is the CUDA Occupancy Calculator's, as `cuda_occupancy.h` (CUDA toolkit,
//! `cudaOccMaxActiveBlocksPerMultiprocessor`) implements it and `cudaOccupancyMaxActiveBlocksPerMultiprocessor`
//! answers on a GPU: resident blocks per SM are the least of four limits,
//!
//! - **warps**: `max_warps_per_sm / ceil(block / 32)`;
//! - **blocks**: `max_blocks_per_sm`;
//! - **registers**: registers are allocated per warp, `regs x 32` rounded up to the register
//!   allocation unit (256), in each of the SM's 4 sub-partitions: `(registers_per_sm / 4) /
//!   regs_per_warp` warps per sub-partition, x 4, divided by the block's warps. A block whose
//!   register allocation exceeds `registers_per_block` (with its warps rounded up to a multiple of
//!   4, the hardware's check), or more than 255 registers per thread, cannot launch (0);
//! - **shared memory**: `static + dynamic + reserved` (1 KB per block on sm_80 and later) rounded
//!   up to the allocation unit (128 bytes), into the SM's shared memory (the default carve-out: the
//!   whole of it); a block needing more than the per-block opt-in maximum (plus the reserve) cannot
//!   launch (0).
//!
//! Occupancy is resident blocks x warps per block, in warps and as a percentage of
//! `max_warps_per_sm`. The per-architecture numbers are [`SM_80`] and [`SM_90`].

/// The per-SM and per-block limits of one architecture that occupancy depends on.
///
/// Sources: CUDA C++ Programming Guide, "Compute Capabilities", table "Technical Specifications per
/// Compute Capability" (warps, blocks, registers and shared memory per SM and per block, the 1 KB
/// reserved per block); the CUDA Occupancy Calculator and `cuda_occupancy.h` for the allocation
/// units (`cudaOccRegAllocationGranularity`: 256; `cudaOccSMemAllocationGranularity`: 128 on 8.x
/// and 9.x; `cudaOccSubPartitionsPerMultiprocessor`: 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchLimits {
    /// The architecture, as NVRTC names it (`sm_90`).
    pub arch: &'static str,
    /// Threads per warp.
    pub warp_size: u32,
    /// Resident warps per SM.
    pub max_warps_per_sm: u32,
    /// Resident blocks per SM.
    pub max_blocks_per_sm: u32,
    /// Threads per block.
    pub max_threads_per_block: u32,
    /// 32-bit registers per SM.
    pub registers_per_sm: u32,
    /// 32-bit registers one block may use.
    pub registers_per_block: u32,
    /// Registers one thread may use.
    pub max_registers_per_thread: u32,
    /// Registers are allocated to a warp in multiples of this many.
    pub register_allocation_unit: u32,
    /// Register file partitions per SM; warps are allocated registers in each.
    pub sub_partitions: u32,
    /// Shared memory per SM, bytes (the largest carve-out).
    pub shared_per_sm: u32,
    /// Shared memory one block may use with the opt-in attribute, bytes (without the reserve).
    pub shared_per_block_optin: u32,
    /// Shared memory is allocated to a block in multiples of this many bytes.
    pub shared_allocation_unit: u32,
    /// Shared memory the system reserves per resident block, bytes.
    pub reserved_shared_per_block: u32,
}

/// Compute capability 8.0 (A100): 164 KB of shared memory per SM, 163 KB per block with opt-in.
pub const SM_80: ArchLimits = ArchLimits {
    arch: "sm_80",
    warp_size: 32,
    max_warps_per_sm: 64,
    max_blocks_per_sm: 32,
    max_threads_per_block: 1024,
    registers_per_sm: 65536,
    registers_per_block: 65536,
    max_registers_per_thread: 255,
    register_allocation_unit: 256,
    sub_partitions: 4,
    shared_per_sm: 164 * 1024,
    shared_per_block_optin: 163 * 1024,
    shared_allocation_unit: 128,
    reserved_shared_per_block: 1024,
};

/// Compute capability 9.0 (H100, H200): 228 KB of shared memory per SM, 227 KB per block with
/// opt-in.
pub const SM_90: ArchLimits = ArchLimits {
    arch: "sm_90",
    warp_size: 32,
    max_warps_per_sm: 64,
    max_blocks_per_sm: 32,
    max_threads_per_block: 1024,
    registers_per_sm: 65536,
    registers_per_block: 65536,
    max_registers_per_thread: 255,
    register_allocation_unit: 256,
    sub_partitions: 4,
    shared_per_sm: 228 * 1024,
    shared_per_block_optin: 227 * 1024,
    shared_allocation_unit: 128,
    reserved_shared_per_block: 1024,
};

/// The limits of `arch` (`sm_80`, `sm_90`); `None` for an architecture without a table here.
pub fn limits(arch: &str) -> Option<&'static ArchLimits> {
    [&SM_80, &SM_90].into_iter().find(|l| l.arch == arch)
}

/// What a kernel asks of an SM per block: the input of [`occupancy`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Demand {
    /// Threads per block (the product of the block's dimensions).
    pub block: u32,
    /// Registers per thread (ptxas's "Used N registers").
    pub regs: u32,
    /// Static shared memory per block, bytes (ptxas's "N bytes smem").
    pub shared_static: u32,
    /// Dynamic shared memory per block, bytes (the launch's).
    pub shared_dynamic: u32,
}

/// Which limit sets the occupancy (the first of registers, shared memory, warps, blocks that
/// equals the least).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limiter {
    /// The register file.
    Registers,
    /// Shared memory.
    SharedMemory,
    /// Resident warps per SM.
    Warps,
    /// Resident blocks per SM.
    Blocks,
}

impl std::fmt::Display for Limiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Limiter::Registers => "registers",
            Limiter::SharedMemory => "shared memory",
            Limiter::Warps => "warps per SM",
            Limiter::Blocks => "blocks per SM",
        })
    }
}

/// The theoretical occupancy of one launch configuration on one SM.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Occupancy {
    /// Resident blocks per SM; 0 when the block cannot launch at all.
    pub blocks: u32,
    /// Resident warps per SM: `blocks x ceil(block / warp_size)`.
    pub warps: u32,
    /// `warps / max_warps_per_sm`, percent.
    pub pct: f64,
    /// The limit that set it.
    pub limited_by: Limiter,
}

/// The theoretical occupancy of `demand` on an SM of `limits` (module docs: the occupancy
/// calculator's formula). A block larger than `max_threads_per_block`, or of 0 threads, gives 0.
pub fn occupancy(limits: &ArchLimits, demand: Demand) -> Occupancy {
    let l = limits;
    let warps_per_block = demand.block.div_ceil(l.warp_size);
    let by_warps = if demand.block == 0 || demand.block > l.max_threads_per_block {
        0
    } else {
        l.max_warps_per_sm / warps_per_block
    };
    let by_blocks = l.max_blocks_per_sm;
    let by_registers = {
        let per_warp =
            (u64::from(demand.regs) * u64::from(l.warp_size)).next_multiple_of(u64::from(l.register_allocation_unit));
        let per_block = per_warp * u64::from(warps_per_block);
        let assumed = per_warp * u64::from(warps_per_block.next_multiple_of(l.sub_partitions));
        let cap = u64::from(l.registers_per_block);
        if demand.regs > l.max_registers_per_thread || per_block > cap || assumed > cap {
            0
        } else if per_warp == 0 || warps_per_block == 0 {
            u32::MAX
        } else {
            let warps_per_sub_partition = u64::from(l.registers_per_sm / l.sub_partitions) / per_warp;
            let warps = warps_per_sub_partition * u64::from(l.sub_partitions);
            u32::try_from(warps / u64::from(warps_per_block)).unwrap_or(u32::MAX)
        }
    };
    let by_shared = {
        let used =
            u64::from(demand.shared_static) + u64::from(demand.shared_dynamic) + u64::from(l.reserved_shared_per_block);
        let allocated = used.next_multiple_of(u64::from(l.shared_allocation_unit));
        if allocated > u64::from(l.shared_per_block_optin) + u64::from(l.reserved_shared_per_block) {
            0
        } else {
            // No shared memory at all (no reserve either) sets no limit.
            u64::from(l.shared_per_sm).checked_div(allocated).map_or(u32::MAX, |b| u32::try_from(b).unwrap_or(u32::MAX))
        }
    };
    let blocks = by_registers.min(by_shared).min(by_warps).min(by_blocks);
    let limited_by = if blocks == by_registers {
        Limiter::Registers
    } else if blocks == by_shared {
        Limiter::SharedMemory
    } else if blocks == by_warps {
        Limiter::Warps
    } else {
        Limiter::Blocks
    };
    let warps = blocks * warps_per_block;
    Occupancy { blocks, warps, pct: 100.0 * f64::from(warps) / f64::from(l.max_warps_per_sm), limited_by }
}

/// Why `demand` cannot launch on an SM of `limits` (its [`occupancy`] is 0 blocks), naming the
/// limit and its value (module docs); `None` when at least one block fits. The checks are the
/// formula's: threads per block, registers per thread and per block, shared memory per block
/// against the opt-in maximum.
pub fn why_not_launchable(limits: &ArchLimits, demand: Demand) -> Option<String> {
    let l = limits;
    if occupancy(l, demand).blocks > 0 {
        return None;
    }
    let arch = l.arch;
    if demand.block == 0 || demand.block > l.max_threads_per_block {
        return Some(format!("{} threads per block; {arch} allows 1 to {}", demand.block, l.max_threads_per_block));
    }
    if demand.regs > l.max_registers_per_thread {
        return Some(format!(
            "{} registers per thread, above {arch}'s {} per thread",
            demand.regs, l.max_registers_per_thread
        ));
    }
    let shared = u64::from(demand.shared_static) + u64::from(demand.shared_dynamic);
    if shared > u64::from(l.shared_per_block_optin) {
        return Some(format!(
            "{shared} bytes of shared memory per block ({} static + {} dynamic), above {arch}'s opt-in maximum \
             of {} bytes ({} KiB) per block",
            demand.shared_static,
            demand.shared_dynamic,
            l.shared_per_block_optin,
            l.shared_per_block_optin / 1024
        ));
    }
    Some(format!(
        "{} registers per thread x {} threads, above {arch}'s {} registers per block (allocated per warp in \
         units of {})",
        demand.regs, demand.block, l.registers_per_block, l.register_allocation_unit
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(limits: &ArchLimits, block: u32, regs: u32, shared_static: u32, shared_dynamic: u32) -> (u32, u32, f64) {
        let o = occupancy(limits, Demand { block, regs, shared_static, shared_dynamic });
        (o.blocks, o.warps, o.pct)
    }

    /// Each expected value worked by hand from the module's formula.
    #[test]
    fn registers_set_occupancy_in_steps() {
        // 32 regs: 1024 per warp; 16384 / 1024 = 16 warps per sub-partition, 64 per SM: 8 blocks of 8 warps.
        assert_eq!(at(&SM_90, 256, 32, 0, 0), (8, 64, 100.0));
        // 33 regs: 1056 rounds up to 1280 (5 x 256), as 40 does: 12 warps per sub-partition, 48 per
        // SM, 6 blocks: 75 %.
        assert_eq!(at(&SM_90, 256, 33, 0, 0), (6, 48, 75.0));
        assert_eq!(at(&SM_90, 256, 40, 0, 0), (6, 48, 75.0));
        // 72 regs: 2304 per warp; 16384 / 2304 = 7 warps per sub-partition, 28 per SM, 3 blocks: 24 warps.
        assert_eq!(at(&SM_90, 256, 72, 0, 0), (3, 24, 37.5));
        let o = occupancy(&SM_80, Demand { block: 256, regs: 72, shared_static: 0, shared_dynamic: 0 });
        assert_eq!(o.limited_by, Limiter::Registers);
    }

    #[test]
    fn a_block_over_the_register_file_cannot_launch() {
        // 64 regs x 1024 threads = 65536: fits, one block, 32 warps.
        assert_eq!(at(&SM_90, 1024, 64, 0, 0), (1, 32, 50.0));
        // 72 x 32 rounded = 2304 per warp x 32 warps = 73728 > 65536.
        assert_eq!(at(&SM_90, 1024, 72, 0, 0), (0, 0, 0.0));
        assert_eq!(at(&SM_90, 32, 256, 0, 0).0, 0, "more than 255 registers per thread");
    }

    #[test]
    fn odd_warp_counts_round_for_the_hardware_check_only() {
        // block 96 = 3 warps; 32 regs: 64 warps per SM by registers, 21 blocks by warps (64 / 3): 63 warps.
        assert_eq!(at(&SM_90, 96, 32, 0, 0), (21, 63, 98.4375));
        // 168 regs: 5376 per warp; the hardware check assumes 4 warps: 21504 <= 65536, fits;
        // 16384 / 5376 = 3 warps per sub-partition, 12 per SM, 4 blocks of 3 warps.
        assert_eq!(at(&SM_90, 96, 168, 0, 0), (4, 12, 18.75));
    }

    #[test]
    fn small_blocks_are_limited_by_the_block_count() {
        let o = occupancy(&SM_80, Demand { block: 32, regs: 16, shared_static: 0, shared_dynamic: 0 });
        assert_eq!((o.blocks, o.warps, o.pct, o.limited_by), (32, 32, 50.0, Limiter::Blocks));
        let o = occupancy(&SM_80, Demand { block: 1024, regs: 16, shared_static: 0, shared_dynamic: 0 });
        assert_eq!((o.blocks, o.warps, o.limited_by), (2, 64, Limiter::Warps));
    }

    #[test]
    fn shared_memory_counts_the_reserve_and_the_allocation_unit() {
        // sm_80, 48 KB static: 49152 + 1024 = 50176 (a multiple of 128); 167936 / 50176 = 3 blocks of 4 warps.
        let o = occupancy(&SM_80, Demand { block: 128, regs: 16, shared_static: 48 * 1024, shared_dynamic: 0 });
        assert_eq!((o.blocks, o.warps, o.pct, o.limited_by), (3, 12, 18.75, Limiter::SharedMemory));
        // sm_90, same: 233472 / 50176 = 4 blocks.
        assert_eq!(at(&SM_90, 128, 16, 48 * 1024, 0).0, 4);
        // The allocation unit decides: 54926 + 1024 = 55950 bytes would fit 3 times into 167936
        // (3.0015), but it is allocated as 56064 (438 x 128), which fits twice.
        assert_eq!(at(&SM_80, 128, 16, 0, 54926).0, 2);
        assert_eq!(at(&SM_80, 128, 16, 0, 54926 - 128).0, 3, "55822 -> 55936, 3 x 55936 <= 167936");
        // Static and dynamic add up.
        assert_eq!(at(&SM_80, 128, 16, 24 * 1024, 24 * 1024), at(&SM_80, 128, 16, 48 * 1024, 0));
    }

    #[test]
    fn the_per_block_opt_in_maximum_is_the_edge() {
        // 163 KB + 1 KB reserve = 164 KB = the whole SM: one block.
        assert_eq!(at(&SM_80, 128, 16, 0, 163 * 1024).0, 1);
        assert_eq!(at(&SM_80, 128, 16, 0, 163 * 1024 + 1).0, 0);
        assert_eq!(at(&SM_90, 128, 16, 0, 227 * 1024).0, 1);
    }

    #[test]
    fn blocks_out_of_range_cannot_launch() {
        assert_eq!(at(&SM_90, 1025, 16, 0, 0).0, 0);
        assert_eq!(at(&SM_90, 0, 16, 0, 0).0, 0);
    }

    #[test]
    fn a_block_that_cannot_launch_is_told_why() {
        let demand = |block, regs, shared_dynamic| Demand { block, regs, shared_static: 0, shared_dynamic };
        // The smem family's 200 KiB tile: fits sm_90 (227 KiB), not sm_80 (163 KiB).
        assert_eq!(why_not_launchable(&SM_90, demand(256, 9, 200 * 1024)), None);
        assert_eq!(
            why_not_launchable(&SM_80, demand(256, 9, 200 * 1024)).as_deref(),
            Some(
                "204800 bytes of shared memory per block (0 static + 204800 dynamic), above sm_80's opt-in maximum \
                 of 166912 bytes (163 KiB) per block"
            )
        );
        assert!(why_not_launchable(&SM_90, demand(1025, 16, 0)).unwrap().starts_with("1025 threads per block"));
        assert!(why_not_launchable(&SM_90, demand(32, 256, 0)).unwrap().starts_with("256 registers per thread"));
        // 255 registers: 8192 per warp x 32 warps is four times the 65536 a block may hold.
        let regs = why_not_launchable(&SM_90, demand(1024, 255, 0)).unwrap();
        assert!(regs.starts_with("255 registers per thread x 1024 threads, above sm_90's 65536"), "{regs}");
        assert_eq!(at(&SM_90, 1024, 255, 0, 0).0, 0);
    }

    #[test]
    fn the_two_architectures_are_known() {
        assert_eq!(limits("sm_80"), Some(&SM_80));
        assert_eq!(limits("sm_90"), Some(&SM_90));
        assert_eq!(limits("sm_86"), None);
    }
}
