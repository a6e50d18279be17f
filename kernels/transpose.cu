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
