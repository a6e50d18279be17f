#include <cub/block/block_histogram.cuh>
extern "C" __global__ void __launch_bounds__(256) cub_block_hist(const unsigned char* x, unsigned int* bins, int n) {
    using BlockHistogram = cub::BlockHistogram<unsigned char, 256, 4, 256>;
    __shared__ typename BlockHistogram::TempStorage temp;
    __shared__ unsigned int smem[256];
    unsigned char items[4];
    int base = (blockIdx.x * 256 + threadIdx.x) * 4;
    for (int k = 0; k < 4; ++k) items[k] = base + k < n ? x[base + k] : 0;
    BlockHistogram(temp).Histogram(items, smem);
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], smem[threadIdx.x]);
}
