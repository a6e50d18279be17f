// Sum reduction, fp32: out[0] (+)= sum of in[0..n), for any n >= 1.
// The textbook road: a shared-memory tree with interleaved addressing (divergent warps, modulo),
// then sequential addressing (no divergence inside the first warps), then warp shuffles with one
// barrier per block, then 16-byte grid-stride loads; and a two-pass variant with no atomics.
// References: Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA, 2007); Justin Luitjens,
// "Faster Parallel Reductions on Kepler" (NVIDIA Developer Blog, 2014); CUB's BlockReduce
// (warp-reduce then one shared exchange) for the block step.
//
// The atomic variants add one partial per block into out[0] with atomicAdd: out must be zeroed
// before each launch. The two-pass variant writes out[0] and needs no zeroing.
//
// Error bound for the check (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
// 2002, sec. 4.2): any summation order whose longest chain of floating-point additions
// that one element goes through is k gives |computed - exact| <= gamma_k * sum |x_i|, with
// gamma_k = k u / (1 - k u), u = 2^-24 (fp32 unit roundoff). Per kernel, with B = blockDim.x,
// G = gridDim.x, n4 = n / 4 (rounded down), ceil(a / b) = (a + b - 1) / b, log2(B) for B a power
// of two, and the atomics counted as a chain of G additions (they land in out[0] one after another,
// in any order):
//   reduce_interleaved, reduce_sequential:  k = log2(B) + G,            G = ceil(n / B)
//   reduce_shuffle:                         k = ceil(n / (G*B)) + 10 + G
//   reduce_shuffle_vec4:                    k = ceil(n4 / (G*B)) + 3 + 10 + G
//   reduce_partials then reduce_final:      k = ceil(n4 / (G*B)) + 3 + 10 + ceil(G / Bf) + 10,
//                                           G = blocks of reduce_partials, Bf = blockDim.x of reduce_final
// (10 = 5 shuffle steps in the warp + 5 in the block step; the vec4 kernels' 3 = 2 to fold the four
// float4 lanes + 1 for the scalar tail; the first addition into a zero is exact, so each k is an
// upper bound.)

// Threads per block of the two shared-tree kernels; they need blockDim.x == REDUCE_TREE_BLOCK.
#define REDUCE_TREE_BLOCK 256

// Warp-level sum by shuffles: after it, lane 0 holds the sum of the 32 lanes' `v`.
// Needs all 32 lanes of the warp active.
__device__ __forceinline__ float reduce_warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// Block-level sum with one barrier: each warp reduces by shuffles, lane 0 of each warp writes its
// sum to a 32-slot shared array, then warp 0 reduces those slots. The result is valid in thread 0.
// Needs blockDim.x a multiple of 32 (at most 1024) and every thread of the block to call it.
__device__ __forceinline__ float reduce_block_sum(float v)
{
    __shared__ float warp_sums[32];
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    v = reduce_warp_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : 0.0f;
        v = reduce_warp_sum(v);
    }
    return v;
}

// Sum of in[i] for i = tid, tid + stride, ... < n4*4 read as float4 (16-byte loads), plus the
// scalar tail in[4*n4 .. n). Each float4 lane keeps its own running sum; they are folded at the end.
// `in` must be 16-byte aligned.
__device__ __forceinline__ float reduce_thread_sum_vec4(const float* __restrict__ in, int n)
{
    int n4 = n >> 2;
    int stride = gridDim.x * blockDim.x;
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const float4* in4 = reinterpret_cast<const float4*>(in);
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int i = tid; i < n4; i += stride) {
        float4 v = in4[i];
        acc.x += v.x;
        acc.y += v.y;
        acc.z += v.z;
        acc.w += v.w;
    }
    float sum = (acc.x + acc.y) + (acc.z + acc.w);
    int tail = 4 * n4 + tid;
    if (tail < n) sum += in[tail];  // n - 4*n4 < 4 <= stride floats
    return sum;
}

// Launch: blockDim.x = 256, gridDim.x = ceil(n / 256), shared 1 KiB (static).
// One element per thread into shared memory, then a tree with interleaved addressing: at step s the
// threads whose index is a multiple of 2s add the element s away. Half the threads of every active
// warp idle (divergence), and `%` costs integer instructions.
extern "C" __global__ void reduce_interleaved(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float sdata[REDUCE_TREE_BLOCK];
    unsigned tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(out, sdata[0]);
}

// Launch: blockDim.x = 256, gridDim.x = ceil(n / 256), shared 1 KiB (static).
// The same tree with sequential addressing: at step s the first s threads add the element s away,
// so active threads are contiguous (whole warps idle instead of half of each) and shared accesses
// are conflict-free.
extern "C" __global__ void reduce_sequential(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float sdata[REDUCE_TREE_BLOCK];
    unsigned tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(out, sdata[0]);
}

// Launch: blockDim.x = 256 (any multiple of 32 up to 1024), gridDim.x = any; 8 x SM count (one
// full-occupancy wave) measured as fast as 16 x and faster than 4 x (scripts/tune/reduce_hist.cu,
// H200); shared 128 B (static).
// Grid-stride loop of scalar loads into a register, warp shuffles, one barrier for the block, one
// atomicAdd per block.
extern "C" __global__ void reduce_shuffle(const float* __restrict__ in, float* __restrict__ out, int n)
{
    float sum = 0.0f;
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) sum += in[i];
    sum = reduce_block_sum(sum);
    if (threadIdx.x == 0) atomicAdd(out, sum);
}

// Launch: blockDim.x = 256 (any multiple of 32 up to 1024), gridDim.x = any; 16 x SM count was the
// fastest of 2, 4, 8, 16, 32 x on the H200, by less than the spread of the samples from 4 x up
// (scripts/tune/reduce_hist.cu); shared 128 B (static); `in` 16-byte aligned.
// As reduce_shuffle with float4 grid-stride loads (LDG.E.128) and a scalar tail.
extern "C" __global__ void reduce_shuffle_vec4(const float* __restrict__ in, float* __restrict__ out, int n)
{
    float sum = reduce_block_sum(reduce_thread_sum_vec4(in, n));
    if (threadIdx.x == 0) atomicAdd(out, sum);
}

// Pass 1 of 2. Launch: blockDim.x = 256 (any multiple of 32 up to 1024), gridDim.x = G (any;
// 4 x SM count measured fastest of 4, 8, 16 x, both passes timed together), shared 128 B (static); `in` 16-byte aligned; `partials` holds
// G floats. As reduce_shuffle_vec4, but each block writes its sum to partials[blockIdx.x]: no
// atomics, and the result does not depend on the order in which blocks finish.
extern "C" __global__ void reduce_partials(const float* __restrict__ in, float* __restrict__ partials, int n)
{
    float sum = reduce_block_sum(reduce_thread_sum_vec4(in, n));
    if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

// Pass 2 of 2. Launch: one block, blockDim.x = 256 (any multiple of 32 up to 1024), shared 128 B
// (static). out[0] = sum of partials[0..blocks); out need not be zeroed.
extern "C" __global__ void reduce_final(const float* __restrict__ partials, float* __restrict__ out, int blocks)
{
    float sum = 0.0f;
    for (int i = threadIdx.x; i < blocks; i += blockDim.x) sum += partials[i];
    sum = reduce_block_sum(sum);
    if (threadIdx.x == 0) out[0] = sum;
}
