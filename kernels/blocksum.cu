// Block-wide sums as a template: one kernel, instantiated by the case table for three tile shapes
// (`k::blocksum::block_sum.with("256, 8")`: NVRTC's name expressions, docs/adding-kernels.md,
// "Templated kernels"), with CUB's cub::BlockReduce from CCCL's headers. No `extern "C"` wrapper:
// kernelgate asks NVRTC for each instance by its name expression and launches it by the name NVRTC
// lowered it to (nvrtcAddNameExpression, nvrtcGetLoweredName; NVRTC documentation, "Accessing
// Lowered Names").
//
// Launch: blockDim.x = BLOCK_THREADS (required), gridDim.x = ceil(n / (BLOCK_THREADS *
// ITEMS_PER_THREAD)), no dynamic shared memory (CUB's temp storage is static). out[b] = the sum of
// block b's tile of BLOCK_THREADS * ITEMS_PER_THREAD floats of `in` (the last tile may be partial:
// n need not be a multiple of the tile). Each thread loads its items striped (thread t reads
// t, t + BLOCK_THREADS, ...: coalesced), sums them in order, then cub::BlockReduce sums the
// threads' sums (warp shuffles, one barrier).
// Error bound (Higham, as in kernels/reduction.cu): the longest chain of additions is
// ITEMS_PER_THREAD in a thread (the first onto 0), 5 shuffle steps in its warp and at most 4 more for the block's
// warp sums (512 threads: 16 warps), so k = ITEMS_PER_THREAD + 9.

#include <cub/block/block_reduce.cuh>

template <int BLOCK_THREADS, int ITEMS_PER_THREAD>
__global__ void __launch_bounds__(BLOCK_THREADS) block_sum(const float* __restrict__ in, float* __restrict__ out, int n)
{
    using Reduce = cub::BlockReduce<float, BLOCK_THREADS>;
    __shared__ typename Reduce::TempStorage storage;
    long long base = (long long)blockIdx.x * (BLOCK_THREADS * ITEMS_PER_THREAD);
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
        long long at = base + (long long)i * BLOCK_THREADS + threadIdx.x;
        if (at < n) sum += in[at];
    }
    float total = Reduce(storage).Sum(sum);
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}
