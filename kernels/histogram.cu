// Histogram of bytes into 256 bins: bins[b] += number of bytes equal to b in words[0..n_words),
// each 32-bit word holding 4 bytes (n_bytes = 4 * n_words). bins must be zeroed before each launch.
// The lesson: one global atomic per byte (every byte a read-modify-write at the L2, serialised on
// hot bins) against privatised bins in shared memory, flushed with one global atomic per non-zero
// bin per block.
// References: Nikolay Sakharnykh, "GPU Pro Tip: Fast Histograms Using Shared Atomics on Maxwell"
// (NVIDIA Developer Blog, 2015); Kirk & Hwu, "Programming Massively Parallel Processors", ch. 9
// (privatisation, and several sub-histograms per block against contention).

#define HIST_BINS 256
// Sub-histograms per block of histogram_privatized: one per lane of a warp.
#define HIST_COPIES 32

// Launch: blockDim.x = 256 (any), gridDim.x = any (scripts/tune uses resident blocks per SM x SM
// count: 8 x on sm_90), no shared memory; `words` 16-byte aligned. Slow by design: a 2^28-byte
// launch took 33 ms and 69 ms on uniform bytes, 183 ms and 187 ms on skewed bytes, on two H200s
// (medians, scripts/tune/reduce_hist.cu).
// Grid-stride over 16-byte vectors of 4 words (plus a scalar tail of n_words % 4 words); one global
// atomicAdd per byte.
extern "C" __global__ void histogram_global(const unsigned int* __restrict__ words, unsigned int* __restrict__ bins, int n_words)
{
    int stride = gridDim.x * blockDim.x;
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int n_vec = n_words >> 2;
    const uint4* vec = reinterpret_cast<const uint4*>(words);
    for (int i = tid; i < n_vec; i += stride) {
        uint4 v = vec[i];
        unsigned int w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int j = 0; j < 4; ++j) {
#pragma unroll
            for (int k = 0; k < 4; ++k) atomicAdd(&bins[(w[j] >> (8 * k)) & 0xffu], 1u);
        }
    }
    for (int i = 4 * n_vec + tid; i < n_words; i += stride) {
        unsigned int w = words[i];
#pragma unroll
        for (int k = 0; k < 4; ++k) atomicAdd(&bins[(w >> (8 * k)) & 0xffu], 1u);
    }
}

// Counts the 4 bytes of `w` into the lane's sub-histogram: bin b of copy c lives at
// hist[b * HIST_COPIES + c], so lane c always hits bank c (32 banks of 4 bytes): no bank conflict
// and no two lanes of a warp on one address, whatever the data. Only warps of the same block that
// hit the same bin in the same copy contend.
__device__ __forceinline__ void hist_count_word(unsigned int* hist, unsigned int lane, unsigned int w)
{
#pragma unroll
    for (int k = 0; k < 4; ++k) atomicAdd(&hist[((w >> (8 * k)) & 0xffu) * HIST_COPIES + lane], 1u);
}

// Launch: blockDim.x = 256 or 512 (any multiple of 32), gridDim.x = resident blocks per SM x SM
// count (cudaOccupancyMaxActiveBlocksPerMultiprocessor: 6 at 256 threads, bounded by shared memory,
// 4 at 512 on sm_90; more blocks than resident measured slower: each block zeroes and flushes its
// 32 KiB), shared 32 KiB (static: 256 bins x 32 copies x 4 bytes); `words` 16-byte aligned.
// Per-block privatised bins with one sub-histogram per lane (HIST_COPIES = 32), so skewed data
// costs no more shared-memory conflicts than uniform data; grid-stride over 16-byte vectors (plus
// a scalar tail); then each thread folds the 32 copies of its bins (rotated, so the 32 lanes read
// 32 banks) and adds each non-zero total to global memory with one atomicAdd.
// Counters: a block's copy counts at most its share of the bytes, below 2^32 for n_words < 2^31.
extern "C" __global__ void histogram_privatized(const unsigned int* __restrict__ words, unsigned int* __restrict__ bins, int n_words)
{
    __shared__ unsigned int hist[HIST_BINS * HIST_COPIES];
    for (int i = threadIdx.x; i < HIST_BINS * HIST_COPIES; i += blockDim.x) hist[i] = 0u;
    __syncthreads();

    unsigned int lane = threadIdx.x & 31u;
    int stride = gridDim.x * blockDim.x;
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int n_vec = n_words >> 2;
    const uint4* vec = reinterpret_cast<const uint4*>(words);
    for (int i = tid; i < n_vec; i += stride) {
        uint4 v = vec[i];
        hist_count_word(hist, lane, v.x);
        hist_count_word(hist, lane, v.y);
        hist_count_word(hist, lane, v.z);
        hist_count_word(hist, lane, v.w);
    }
    for (int i = 4 * n_vec + tid; i < n_words; i += stride) hist_count_word(hist, lane, words[i]);
    __syncthreads();

    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x) {
        unsigned int total = 0u;
#pragma unroll
        for (int c = 0; c < HIST_COPIES; ++c) total += hist[b * HIST_COPIES + ((c + b) & (HIST_COPIES - 1))];
        if (total != 0u) atomicAdd(&bins[b], total);
    }
}
