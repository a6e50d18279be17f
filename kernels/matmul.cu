// Single-precision matrix product C = A * B, all row-major floats: A is M x K, B is K x N, C is M x N.
// Every entry point takes (const float* A, const float* B, float* C, int M, int N, int K) and is
// correct for any M, N, K >= 1: tiles that reach past an edge are guarded (loads fill zeros, stores
// are skipped). No scaling (alpha = 1, beta = 0): C is overwritten.
//
// The road from the textbook to library speed (issue 10):
//   matmul_naive           one output per thread, every operand read from global memory (L1/L2);
//   matmul_tiled16         16 x 16 shared tiles: each global element is read by 16x fewer blocks;
//   matmul_tiled32_padded  32 x 32 shared tiles, rows padded by one float;
//   matmul_cp_async        128 x 128 block tile, 16-deep k slices copied by cp.async into two shared
//                          stages (the copy of slice t+1 overlaps the arithmetic on slice t), 8 x 8
//                          outputs per thread in registers, 64 x 32 warp tiles, 16-byte shared loads.
// Ideas for the last one from the public write-up by Simon Boehm, "How to Optimize a CUDA Matmul
// Kernel for cuBLAS-like Performance: a Worklog" (siboehm.com, 2022): block tiling, 2-D thread
// tiling, vectorised shared loads, warp tiling. The code here is our own.
//
// Launch configurations (grid x runs over the columns of C, grid y over its rows; all shared memory
// is static, so no kernel needs cuFuncSetAttribute):
//   kernel                 block (x, y)   grid (x, y)                       static shared  outputs/thread
//   matmul_naive           (16, 16)       (ceil(N/16),  ceil(M/16))          0 B            1
//   matmul_tiled16         (16, 16)       (ceil(N/16),  ceil(M/16))          2048 B         1
//   matmul_tiled32_padded  (32, 32)       (ceil(N/32),  ceil(M/32))          8448 B         1
//   matmul_cp_async        (256, 1)       (ceil(N/128), ceil(M/128))         36864 B        64
// FLOPs: 2 * M * N * K for each. Fewest DRAM bytes: 4 * (M*K + K*N + M*N).
//
// NVRTC builds this file with no CUDA headers: only built-in types (float4) and intrinsics, and
// cp.async through inline PTX (sm_80 and later).

// ---------------------------------------------------------------------------------------------------
// matmul_naive: block (16, 16), grid (ceil(N/16), ceil(M/16)), no shared memory, 1 output per thread.
// Thread (x, y) computes C[row][col] with row = blockIdx.y*16 + y, col = blockIdx.x*16 + x. A warp's
// 32 threads span two rows and 16 columns: B is read along rows (coalesced), A's element is shared
// by 16 threads (broadcast).
extern "C" __global__ void matmul_naive(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                        int M, int N, int K)
{
    int col = blockIdx.x * 16 + threadIdx.x;
    int row = blockIdx.y * 16 + threadIdx.y;
    if (row >= M || col >= N) return;
    const float* a = A + (long long)row * K;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += a[k] * B[(long long)k * N + col];
    C[(long long)row * N + col] = acc;
}

// ---------------------------------------------------------------------------------------------------
// matmul_tiled16: block (16, 16), grid (ceil(N/16), ceil(M/16)), static shared 2 * 16*16*4 = 2048 B,
// 1 output per thread. The textbook kernel (Kirk & Hwu, "Programming Massively Parallel Processors",
// ch. 5): per 16-deep slice of K, each thread copies one element of A's tile and one of B's into shared
// memory, then every thread reads 16 of each from there. Elements past an edge load as zero.
#define MM_T16 16
extern "C" __global__ void matmul_tiled16(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                          int M, int N, int K)
{
    __shared__ float As[MM_T16][MM_T16];
    __shared__ float Bs[MM_T16][MM_T16];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * MM_T16 + ty;
    int col = blockIdx.x * MM_T16 + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += MM_T16) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[(long long)row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(long long)(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < MM_T16; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[(long long)row * N + col] = acc;
}

// ---------------------------------------------------------------------------------------------------
// matmul_tiled32_padded: block (32, 32) = 1024 threads, grid (ceil(N/32), ceil(M/32)), static shared
// 2 * 32*33*4 = 8448 B, 1 output per thread. The same scheme with 32 x 32 tiles, which halves the
// global reads again, and each shared row padded by one float. In this loop a warp reads As[ty][k]
// (one address, a broadcast) and Bs[k][tx] (32 consecutive words): neither conflicts with or without
// the padding, which is kept as the texts write it.
#define MM_T32 32
extern "C" __global__ void matmul_tiled32_padded(const float* __restrict__ A, const float* __restrict__ B,
                                                 float* __restrict__ C, int M, int N, int K)
{
    __shared__ float As[MM_T32][MM_T32 + 1];
    __shared__ float Bs[MM_T32][MM_T32 + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * MM_T32 + ty;
    int col = blockIdx.x * MM_T32 + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += MM_T32) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[(long long)row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(long long)(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < MM_T32; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[(long long)row * N + col] = acc;
}

// ---------------------------------------------------------------------------------------------------
// cp.async helpers (PTX ISA, "Data Movement and Conversion Instructions: cp.async", sm_80+).

// 16 bytes global -> shared, cached in L2 only (.cg). Both addresses 16-byte aligned.
__device__ __forceinline__ void mm_cp_async16(float* smem, const float* gmem)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}

// 4 bytes global -> shared; when `valid` is false nothing is read (src-size 0) and the word is zeroed.
__device__ __forceinline__ void mm_cp_async4(float* smem, const float* gmem, bool valid)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    int n = valid ? 4 : 0;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(gmem), "r"(n));
}

__device__ __forceinline__ void mm_cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

// Waits until at most N of this thread's committed groups are still in flight.
template <int N>
__device__ __forceinline__ void mm_cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

__device__ __forceinline__ float mm_lane(const float4& v, int i)
{
    return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

__device__ __forceinline__ bool mm_aligned16(const void* p)
{
    return ((unsigned long long)p & 15ull) == 0;
}

// The register-tiled, cp.async-pipelined product (the body of matmul_cp_async; other shapes are
// instantiated by scripts/tune/matmul.cu to choose this one).
//
// Block tile BM x BN, k slice BK, STAGES shared buffers. Threads: (BM/64) * (BN/32) warps of 32. A
// warp owns a 64 x 32 tile of C; its lanes form 8 rows (tm) x 4 columns (tn) and each lane owns
// 8 x 8 outputs: rows wm*64 + tm + 8*i (i < 8) and columns wn*32 + tn*4 + 16*j + e (j < 2, e < 4).
//
// Shared memory, per stage: As[BM][BK+4] (A's tile as stored in A, each row padded by 16 bytes)
// and Bs[BK][BN]. A lane reads A as float4 along k (As[row][k..k+3]); the 8 rows a warp reads at
// once are consecutive, and a row pitch of BK+4 floats (5 or 3 sixteen-byte units for BK = 16 or 8,
// odd) puts them in 8 different 16-byte bank groups: no conflict. B is read as float4 along n; the
// warp's 4 distinct addresses lie in 64 contiguous bytes. Bytes: STAGES*4*(BM*(BK+4) + BK*BN).
// SWIZZLE (a tuning option, unused by the entry point) drops the padding and stores k-unit u of row r
// at unit u ^ ((r / (8/(BK/4))) % (BK/4)) instead, also conflict-free, so that three stages of a
// 128 x 128 x 16 tile fit 48 KB; on the H200 its extra address arithmetic spilled at 128 registers
// and it ran slower (scripts/tune/results/README.md).
//
// Loads: a tile wholly inside the matrix, with rows starting 16-byte aligned (K or N a multiple of 4
// and the base pointer 16-byte aligned), is copied in 16-byte cp.async pieces; any other tile (the
// right or bottom edge, the last k slice, unaligned rows) in 4-byte cp.async pieces that fill zeros
// past the edge. Stores: float4 where the row is aligned and the four columns exist, else scalar.
//
// Pipeline: slices 0..STAGES-2 are requested up front; at slice t the block waits for slice t's
// group, synchronises (so every warp is also done with slice t-1's buffer), requests slice
// t+STAGES-1 into that buffer, and computes on slice t.
template <int BM, int BN, int BK, int STAGES, bool SWIZZLE>
__device__ __forceinline__ void mm_cp_async_body(const float* __restrict__ A, const float* __restrict__ B,
                                                 float* __restrict__ C, int M, int N, int K)
{
    constexpr int WARPS_N = BN / 32;
    constexpr int THREADS = (BM / 64) * WARPS_N * 32;
    constexpr int AP = SWIZZLE ? BK : BK + 4;  // row pitch of As, floats
    constexpr int UNITS = BK / 4;              // 16-byte units per row of As
    static_assert(BM % 64 == 0 && BN % 32 == 0 && BK % 4 == 0 && STAGES >= 2, "tile shape");
    static_assert(!SWIZZLE || (UNITS <= 8 && (UNITS & (UNITS - 1)) == 0), "swizzle needs BK/4 a power of 2, <= 8");
    static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0, "whole 16-byte pieces per thread");

    __shared__ __align__(16) float As[STAGES][BM][AP];
    __shared__ __align__(16) float Bs[STAGES][BK][BN];

    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int wrow = (warp / WARPS_N) * 64 + lane / 4;   // + 8*i
    const int wcol = (warp % WARPS_N) * 32 + (lane % 4) * 4;  // + 16*j + e
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

    const bool a_rows_aligned = (K % 4 == 0) && mm_aligned16(A);
    const bool b_rows_aligned = (N % 4 == 0) && mm_aligned16(B);
    const bool a_block_in = a_rows_aligned && m0 + BM <= M;
    const bool b_block_in = b_rows_aligned && n0 + BN <= N;
    const int tiles = (K + BK - 1) / BK;

    // The 16-byte unit of As row r that holds k-unit u: with SWIZZLE, u XOR (r / (8/UNITS)) % UNITS.
    auto a_unit = [](int r, int u) { return SWIZZLE ? u ^ ((r / (8 / UNITS)) % UNITS) : u; };

    auto load_tile = [&](int t, int stage) {
        const int k0 = t * BK;
        const bool k_in = k0 + BK <= K;
        if (a_block_in && k_in) {
#pragma unroll
            for (int p = 0; p < BM * BK / 4 / THREADS; ++p) {
                int c = tid + p * THREADS;
                int r = c / (BK / 4), kc = (c % (BK / 4)) * 4;
                mm_cp_async16(&As[stage][r][a_unit(r, kc / 4) * 4], A + (long long)(m0 + r) * K + k0 + kc);
            }
        } else {
#pragma unroll
            for (int p = 0; p < BM * BK / 4 / THREADS; ++p) {
                int c = tid + p * THREADS;
                int r = c / (BK / 4), kc = (c % (BK / 4)) * 4;
                int gm = m0 + r;
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    int gk = k0 + kc + e;
                    bool ok = gm < M && gk < K;
                    mm_cp_async4(&As[stage][r][a_unit(r, kc / 4) * 4 + e], ok ? A + (long long)gm * K + gk : A, ok);
                }
            }
        }
        if (b_block_in && k_in) {
#pragma unroll
            for (int p = 0; p < BK * BN / 4 / THREADS; ++p) {
                int c = tid + p * THREADS;
                int r = c / (BN / 4), nc = (c % (BN / 4)) * 4;
                mm_cp_async16(&Bs[stage][r][nc], B + (long long)(k0 + r) * N + n0 + nc);
            }
        } else {
#pragma unroll
            for (int p = 0; p < BK * BN / 4 / THREADS; ++p) {
                int c = tid + p * THREADS;
                int r = c / (BN / 4), nc = (c % (BN / 4)) * 4;
                int gk = k0 + r;
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    int gn = n0 + nc + e;
                    bool ok = gk < K && gn < N;
                    mm_cp_async4(&Bs[stage][r][nc + e], ok ? B + (long long)gk * N + gn : B, ok);
                }
            }
        }
    };

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < tiles) load_tile(s, s);
        mm_cp_async_commit();  // an empty group when there is no slice s keeps the count uniform
    }

    for (int t = 0; t < tiles; ++t) {
        mm_cp_async_wait<STAGES - 2>();
        __syncthreads();
        const int next = t + STAGES - 1;
        if (next < tiles) load_tile(next, next % STAGES);
        mm_cp_async_commit();

        const int st = t % STAGES;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 4) {
            float4 a[8];
#pragma unroll
            for (int i = 0; i < 8; ++i)
                a[i] = *reinterpret_cast<const float4*>(&As[st][wrow + 8 * i][a_unit(wrow + 8 * i, kk / 4) * 4]);
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                float4 b0 = *reinterpret_cast<const float4*>(&Bs[st][kk + k][wcol]);
                float4 b1 = *reinterpret_cast<const float4*>(&Bs[st][kk + k][wcol + 16]);
#pragma unroll
                for (int i = 0; i < 8; ++i) {
                    float av = mm_lane(a[i], k);
                    acc[i][0] += av * b0.x;
                    acc[i][1] += av * b0.y;
                    acc[i][2] += av * b0.z;
                    acc[i][3] += av * b0.w;
                    acc[i][4] += av * b1.x;
                    acc[i][5] += av * b1.y;
                    acc[i][6] += av * b1.z;
                    acc[i][7] += av * b1.w;
                }
            }
        }
    }
    mm_cp_async_wait<0>();  // only empty groups can remain; leave none behind at exit

    const bool c_rows_aligned = (N % 4 == 0) && mm_aligned16(C);
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int gm = m0 + wrow + 8 * i;
        if (gm >= M) continue;
        float* crow = C + (long long)gm * N;
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            const int gn = n0 + wcol + 16 * j;
            if (c_rows_aligned && gn + 3 < N) {
                *reinterpret_cast<float4*>(crow + gn) =
                    make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]);
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    if (gn + e < N) crow[gn + e] = acc[i][4 * j + e];
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// matmul_cp_async: block (256, 1), grid (ceil(N/128), ceil(M/128)), static shared
// 2 * 4 * (128*20 + 16*128) = 36864 B, 64 outputs per thread (8 x 8), at most 128 registers per
// thread (__launch_bounds__(256, 2): two blocks per multiprocessor). Tile 128 x 128, k slice 16,
// two stages; see mm_cp_async_body.
extern "C" __global__ void __launch_bounds__(256, 2)
    matmul_cp_async(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K)
{
    mm_cp_async_body<128, 128, 16, 2, false>(A, B, C, M, N, K);
}
