// Row sums of a matrix, one block per row: BLOCK threads stride along the row, then a
// shared-memory tree. BLOCK is no constant of this file: each case builds it with its own
// -DBLOCK=<threads> (Kernel::define in tests/kernels.rs), as a tuner passes its parameters.
#ifndef BLOCK
#error "rowsum.cu is built with -DBLOCK=<threads per block>: k::rowsum::row_sum.define(\"BLOCK\", 256)"
#endif

extern "C" __global__ void __launch_bounds__(BLOCK) row_sum(const float* __restrict__ x, float* __restrict__ y, int cols)
{
    __shared__ float partial[BLOCK];
    const float* row = x + (size_t)blockIdx.x * cols;
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += BLOCK) sum += row[c];
    partial[threadIdx.x] = sum;
    __syncthreads();
#pragma unroll
    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) y[blockIdx.x] = partial[0];
}
