#include <cuda/barrier>
extern "C" __global__ void barrier_copy(const float* x, float* y, int n) {
    __shared__ float tile[256];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) cuda::memcpy_async(&tile[threadIdx.x], &x[i], sizeof(float), bar);
    bar.arrive_and_wait();
    if (i < n) y[i] = tile[threadIdx.x];
}
