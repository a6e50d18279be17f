// Matrix transpose, out (cols x rows) = in (rows x cols)^T, row-major floats.
// Launch: TILE_DIM x BLOCK_ROWS threads (32 x 8), grid ceil(cols/32) x ceil(rows/32); each thread
// moves TILE_DIM / BLOCK_ROWS = 4 elements. Sizes need not be multiples of 32.
// Reference: Mark Harris, "An Efficient Matrix Transpose in CUDA C/C++", NVIDIA Developer Blog.

#define TILE_DIM 32
#define BLOCK_ROWS 8

// Coalesced read along a row of `in`, strided write down a column of `out`.
extern "C" __global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    int x = blockIdx.x * TILE_DIM + threadIdx.x;  // column of in
    int y = blockIdx.y * TILE_DIM + threadIdx.y;  // row of in
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < cols && y + j < rows) out[(long long)x * rows + (y + j)] = in[(long long)(y + j) * cols + x];
}

// The opposite trade: each thread's loop reads down a column of `in` (strided), writes along a row
// of `out` (coalesced).
extern "C" __global__ void transpose_strided_read(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    int x = blockIdx.x * TILE_DIM + threadIdx.x;  // column of out = row of in
    int y = blockIdx.y * TILE_DIM + threadIdx.y;  // row of out = column of in
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < rows && y + j < cols) out[(long long)(y + j) * rows + x] = in[(long long)x * cols + (y + j)];
}

// Through a 32 x 32 shared tile: both global accesses coalesced, but the tile is read down a column,
// so the 32 threads of a warp hit one bank (a 32-way bank conflict).
extern "C" __global__ void transpose_shared(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(long long)(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;  // column of out
    y = blockIdx.x * TILE_DIM + threadIdx.y;  // row of out
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < rows && y + j < cols) out[(long long)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

// The same with each tile row padded by one float: column reads fall in 32 different banks.
extern "C" __global__ void transpose_shared_padded(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(long long)(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < rows && y + j < cols) out[(long long)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

// No padding; logical element (r, c) lives at tile[r][c ^ r]. A row write and a column read each
// touch 32 distinct banks, and the tile keeps its 4 KiB.
extern "C" __global__ void transpose_shared_swizzled(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        int r = threadIdx.y + j;
        if (x < cols && y + j < rows) tile[r][threadIdx.x ^ r] = in[(long long)(y + j) * cols + x];
    }
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        int c = threadIdx.y + j;
        if (x < rows && y + j < cols) out[(long long)(y + j) * rows + x] = tile[threadIdx.x][c ^ threadIdx.x];
    }
}

// The best-known variant: a 64 x 64 tile moved by 32 x 8 threads, 16 elements per thread, with
// 8-byte (float2) global loads and stores and no shared-memory bank conflicts.
// - Loads: each warp instruction reads 256 contiguous bytes of one row of `in` (float2 per thread);
//   each thread loads rows 2p and 2p+1 at columns 2tx and 2tx+1, a 2 x 2 block, and transposes it in
//   registers into two pairs: column 2tx's rows (2p, 2p+1) and column 2tx+1's rows (2p, 2p+1).
// - The shared tile holds float2 pairs: tile[c][q] is tile column c (a row of `out`), rows 2p and
//   2p+1, stored at q = p ^ swizzle(c). An 8-byte shared access is served half a warp per wavefront
//   and is conflict-free when the 16 threads of each half use 16 different 8-byte bank pairs, i.e.
//   16 different q mod 16. swizzle(c) = (c ^ (c >> 4)) & 15 takes 16 different values on every half
//   warp's columns in both store patterns below (2tx and 2tx + 1; tx and tx + 32), and the write
//   phase reads a whole row of the tile (q = tx ^ swizzle(c)), so every shared access is
//   conflict-free and the tile needs no padding (16 KiB).
// - Stores: each warp instruction writes 256 contiguous bytes of one row of `out`.
// - Edge path: a tile that is cut by the matrix edge, or a shape with an odd number of rows or
//   columns (rows of `in` or `out` not 8-byte aligned), takes scalar, bounds-checked loads of columns
//   tx and tx + 32 and stores of rows tx and tx + 32 (still coalesced, still conflict-free). The
//   choice is the same for the whole block, so no warp diverges.
// Launch: 32 x 8 threads, grid ceil(cols / 64) x ceil(rows / 64).
#define BEST_TILE 64

__device__ __forceinline__ int best_swizzle(int c)
{
    return (c ^ (c >> 4)) & 15;
}

extern "C" __global__ void transpose_best(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    __shared__ float2 tile[BEST_TILE][BEST_TILE / 2];
    const int r0 = blockIdx.y * BEST_TILE;  // first row of in
    const int c0 = blockIdx.x * BEST_TILE;  // first column of in
    const int tx = threadIdx.x, ty = threadIdx.y;
    const bool vector = r0 + BEST_TILE <= rows && c0 + BEST_TILE <= cols && rows % 2 == 0 && cols % 2 == 0;
    if (vector) {
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const int p = ty + 8 * k;  // row pair 2p, 2p + 1
            const float* row = in + (long long)(r0 + 2 * p) * cols + c0 + 2 * tx;
            const float2 a = *reinterpret_cast<const float2*>(row);         // row 2p
            const float2 b = *reinterpret_cast<const float2*>(row + cols);  // row 2p + 1
            tile[2 * tx][p ^ best_swizzle(2 * tx)] = make_float2(a.x, b.x);
            tile[2 * tx + 1][p ^ best_swizzle(2 * tx + 1)] = make_float2(a.y, b.y);
        }
    } else {
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const int p = ty + 8 * k;
            const int r = r0 + 2 * p;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int c = tx + 32 * h;
                const bool in_cols = c0 + c < cols;
                const float a = in_cols && r < rows ? in[(long long)r * cols + c0 + c] : 0.0f;
                const float b = in_cols && r + 1 < rows ? in[(long long)(r + 1) * cols + c0 + c] : 0.0f;
                tile[c][p ^ best_swizzle(c)] = make_float2(a, b);
            }
        }
    }
    __syncthreads();
    if (vector) {
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            const int c = ty + 8 * k;  // column of in = row of out
            *reinterpret_cast<float2*>(out + (long long)(c0 + c) * rows + r0 + 2 * tx) = tile[c][tx ^ best_swizzle(c)];
        }
    } else {
        const float* flat = reinterpret_cast<const float*>(tile);
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            const int c = ty + 8 * k;
            if (c0 + c >= cols) break;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = tx + 32 * h;  // row of in = column of out
                if (r0 + r < rows)
                    out[(long long)(c0 + c) * rows + r0 + r] = flat[c * BEST_TILE + 2 * ((r >> 1) ^ best_swizzle(c)) + (r & 1)];
            }
        }
    }
}
