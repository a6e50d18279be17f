//! A launch configuration: the grid (fixed, or per SM for grid-stride loops), the block and the
//! dynamic shared memory, with the opt-in limit above which the kernel must be allowed more.

/// Grid size: fixed, or a multiple of the device's SM count (for grid-stride loops).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grid {
    /// Blocks per dimension.
    Fixed([u32; 3]),
    /// `blocks_per_sm x SM count` blocks in x.
    PerSm(u32),
}

/// Launch configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    /// Grid, in blocks.
    pub grid: Grid,
    /// Block, in threads.
    pub block: [u32; 3],
    /// Dynamic shared memory per block, bytes. Above [`DEFAULT_DYNAMIC_SHARED_LIMIT`] the kernel is
    /// opted in before its launch (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`), up to the
    /// device's per-block maximum (227 KiB on sm_90).
    pub shared_bytes: u32,
}

/// The dynamic shared memory a kernel may take per block without opting in: 48 KiB (CUDA C++
/// Programming Guide, "Shared Memory": allocations above 48 KB per block are architecture-specific
/// and must use dynamic shared memory with an explicit opt-in, `cudaFuncSetAttribute(...,
/// cudaFuncAttributeMaxDynamicSharedMemorySize, ...)`).
pub const DEFAULT_DYNAMIC_SHARED_LIMIT: u32 = 48 * 1024;

impl std::fmt::Display for Launch {
    /// `grid 16x1x1 block 256x1x1 shared 0 B`, or `grid 4 per SM …` for a [`Grid::PerSm`] grid.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let dims = |d: [u32; 3]| format!("{}x{}x{}", d[0], d[1], d[2]);
        match self.grid {
            Grid::Fixed(g) => write!(f, "grid {}", dims(g))?,
            Grid::PerSm(n) => write!(f, "grid {n} per SM")?,
        }
        write!(f, " block {} shared {} B", dims(self.block), self.shared_bytes)
    }
}

impl Launch {
    /// One thread per element: `ceil(n / block)` blocks of `block` threads.
    pub fn linear(n: usize, block: u32) -> Launch {
        let blocks = u32::try_from(n.div_ceil(block as usize)).expect("grid.x fits in u32");
        Launch { grid: Grid::Fixed([blocks, 1, 1]), block: [block, 1, 1], shared_bytes: 0 }
    }

    /// A 2-D grid of `grid` blocks of `block` threads.
    pub fn grid2d(grid: [u32; 2], block: [u32; 2]) -> Launch {
        Launch { grid: Grid::Fixed([grid[0], grid[1], 1]), block: [block[0], block[1], 1], shared_bytes: 0 }
    }

    /// `blocks_per_sm` blocks per SM of `block` threads, for grid-stride loops.
    pub fn per_sm(blocks_per_sm: u32, block: u32) -> Launch {
        Launch { grid: Grid::PerSm(blocks_per_sm), block: [block, 1, 1], shared_bytes: 0 }
    }

    /// The grid for a device with `sm_count` SMs.
    pub fn grid_for(&self, sm_count: u32) -> [u32; 3] {
        match self.grid {
            Grid::Fixed(g) => g,
            Grid::PerSm(k) => [k * sm_count, 1, 1],
        }
    }
}
