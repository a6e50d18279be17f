// CUB, the vendor reference of the reduction and histogram families: the same problems as
// kernels/reduction.cu and kernels/histogram.cu, written with CUB's block-level primitives
// (cub::BlockLoad, cub::BlockReduce, cub::BlockHistogram) at the tile shapes that CUB's own
// device-level algorithms use on sm_90. CUB is header-only; NVRTC finds it in CCCL's headers (the
// CUDA toolkit's include/cccl, or .nvrtc/include/cccl from scripts/get-nvrtc; harness/compile.rs,
// include_dirs). A file of its own: with CUB's headers it takes ~5 s per arch to compile, reduction.cu ~1 s.
// References: CCCL 3.0 (CUDA 13.0), cub/device/dispatch/tuning/tuning_reduce.cuh (policy_hub,
// Policy600, used from sm_60 up to sm_100), cub/device/dispatch/dispatch_reduce.cuh (grid: 5 x
// resident blocks per SM x SM count, CUB_SUBSCRIPTION_FACTOR), tuning_histogram.cuh (sm90_tuning
// for 1-byte samples, 1 channel, 4-byte counters) and dispatch_histogram.cuh (grid: resident blocks
// per SM x SM count); NVIDIA, "CUB" documentation, https://nvidia.github.io/cccl/cub/.

#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>

// DeviceReduce's tile on sm_60..sm_90 for 4-byte items (Policy600): 256 threads x 16 items, loaded
// as 4-item vectors (float4), reduced with BLOCK_REDUCE_WARP_REDUCTIONS.
#define CUB_REDUCE_THREADS 256
#define CUB_REDUCE_VECS 4
#define CUB_REDUCE_TILE (CUB_REDUCE_THREADS * CUB_REDUCE_VECS * 4)

// Launch: blockDim.x = 256 (CUB_REDUCE_THREADS, required), gridDim.x = any (DeviceReduce's grid is
// 5 x resident blocks per SM x SM count: 40 x SM count at 8 resident blocks of 256), shared: CUB's
// BlockReduce temp storage (static); `in` 16-byte aligned; out[0] zeroed before each launch.
// out[0] += sum of in[0..n). Blocks take the n / 4096 full tiles in turn (tile t to block t mod G;
// DeviceReduce gives each block consecutive tiles, GridEvenShare); each thread loads 4 float4 of
// a tile with cub::BlockLoad in the striped arrangement (thread i reads float4 i, i + 256, ...:
// coalesced 16-byte loads, as DeviceReduce's vectorized loads are) and sums them into a running
// sum; the block that would take the next tile also sums the partial tile (n mod 4096 floats, 16
// guarded scalar loads per thread). Then cub::BlockReduce (warp shuffles, one barrier) and one
// atomicAdd per block, where DeviceReduce writes per-block partials and reduces them in a second
// kernel.
// Error bound (Higham, as in kernels/reduction.cu): the longest chain of additions is
// k = 16 + 1 + ceil((n / 4096) / G) + 13 + G: at most 15 additions within a tile (or the partial
// tile) plus 1 into the running sum, one per tile the thread takes, 5 shuffle steps in the warp and
// at most 8 more for the warps' sums, and G atomics.
extern "C" __global__ void __launch_bounds__(CUB_REDUCE_THREADS) cub_reduce_sum(const float* __restrict__ in, float* __restrict__ out, int n)
{
    using Load = cub::BlockLoad<float4, CUB_REDUCE_THREADS, CUB_REDUCE_VECS, cub::BLOCK_LOAD_STRIPED>;
    using Reduce = cub::BlockReduce<float, CUB_REDUCE_THREADS, cub::BLOCK_REDUCE_WARP_REDUCTIONS>;
    __shared__ typename Reduce::TempStorage reduce_storage;
    const float4* in4 = reinterpret_cast<const float4*>(in);
    int tiles = n / CUB_REDUCE_TILE;
    float sum = 0.0f;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        float4 v[CUB_REDUCE_VECS];
        Load().Load(in4 + (size_t)t * (CUB_REDUCE_TILE / 4), v);
        float s = 0.0f;
#pragma unroll
        for (int j = 0; j < CUB_REDUCE_VECS; ++j) s += (v[j].x + v[j].y) + (v[j].z + v[j].w);
        sum += s;
    }
    if (blockIdx.x == tiles % gridDim.x) {
        float items[CUB_REDUCE_VECS * 4];
        int base = tiles * CUB_REDUCE_TILE;
        cub::LoadDirectStriped<CUB_REDUCE_THREADS>((int)threadIdx.x, in + base, items, n - base, 0.0f);
        float s = 0.0f;
#pragma unroll
        for (int j = 0; j < CUB_REDUCE_VECS * 4; ++j) s += items[j];
        sum += s;
    }
    float total = Reduce(reduce_storage).Sum(sum);
    if (threadIdx.x == 0) atomicAdd(out, total);
}

// DeviceHistogram's tile on sm_90 for 1-byte samples into 4-byte counters (sm90_tuning): 768
// threads x 12 samples, BLOCK_LOAD_DIRECT (each thread reads 12 consecutive bytes, as 3 words),
// counted with shared-memory atomics (mem_preference SMEM: BlockHistogram's BLOCK_HISTO_ATOMIC).
#define CUB_HIST_THREADS 768
#define CUB_HIST_WORDS 3
#define CUB_HIST_TILE (CUB_HIST_THREADS * CUB_HIST_WORDS)
#define CUB_HIST_BINS 256

// Launch: blockDim.x = 768 (CUB_HIST_THREADS, required), gridDim.x = any (DeviceHistogram's grid is
// resident blocks per SM x SM count), shared 1 KiB of bins (static); bins zeroed before each launch.
// bins[b] += number of bytes equal to b in words[0..n_words) (4 bytes per word), as
// kernels/histogram.cu. Each block zeroes one 256-bin histogram in shared memory
// (BlockHistogram::InitHistogram), takes full tiles of 2304 words in turn (tile t to block t mod G),
// loads 3 words per thread with cub::BlockLoad (direct, blocked) and counts their 12 bytes with
// BlockHistogram::Composite (one shared atomic per byte, no sub-histograms: a hot bin serialises
// the block's atomics on one address); the block that would take the next tile counts the partial
// tile's words with the same shared atomics. Then one global atomicAdd per non-zero bin.
extern "C" __global__ void __launch_bounds__(CUB_HIST_THREADS) cub_histogram(const unsigned int* __restrict__ words, unsigned int* __restrict__ bins, int n_words)
{
    using Load = cub::BlockLoad<unsigned int, CUB_HIST_THREADS, CUB_HIST_WORDS, cub::BLOCK_LOAD_DIRECT>;
    using Histogram = cub::BlockHistogram<unsigned char, CUB_HIST_THREADS, 4 * CUB_HIST_WORDS, CUB_HIST_BINS, cub::BLOCK_HISTO_ATOMIC>;
    __shared__ unsigned int hist[CUB_HIST_BINS];
    Histogram().InitHistogram(hist);
    __syncthreads();
    int tiles = n_words / CUB_HIST_TILE;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        unsigned int w[CUB_HIST_WORDS];
        Load().Load(words + (size_t)t * CUB_HIST_TILE, w);
        unsigned char items[4 * CUB_HIST_WORDS];
#pragma unroll
        for (int j = 0; j < 4 * CUB_HIST_WORDS; ++j) items[j] = (unsigned char)(w[j / 4] >> (8 * (j % 4)));
        Histogram().Composite(items, hist);
    }
    if (blockIdx.x == tiles % gridDim.x) {
        for (int i = tiles * CUB_HIST_TILE + (int)threadIdx.x; i < n_words; i += CUB_HIST_THREADS) {
            unsigned int w = words[i];
#pragma unroll
            for (int k = 0; k < 4; ++k) atomicAdd(&hist[(w >> (8 * k)) & 0xffu], 1u);
        }
    }
    __syncthreads();
    for (int b = threadIdx.x; b < CUB_HIST_BINS; b += CUB_HIST_THREADS) {
        unsigned int count = hist[b];
        if (count != 0u) atomicAdd(&bins[b], count);
    }
}
