// The sum of n floats, the example's own: each thread adds its grid-stride share, a warp its lanes'
// sums with shuffles, a block its warps' through shared memory, and one atomicAdd per block adds
// the block's sum to *out (zeroed before each run). Its vendor reference is CUB's device-wide sum,
// called from the host (host/cub_sum.cu).
extern "C" __global__ void sum_atomic(const float* __restrict__ x, float* out, int n)
{
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += x[i];
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
    __shared__ float warps[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warps[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < blockDim.x / 32 ? warps[lane] : 0.0f;
        for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
        if (lane == 0) atomicAdd(out, s);
    }
}
