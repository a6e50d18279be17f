// Row softmax of a bf16 matrix, built by nvcc into gpu/softmax.ptx (scripts/build-ptx), not by
// kernelgate: the way a team's own build (nvcc, CMake, candle's bindgen_cuda) makes the modules it
// ships. The max and the sum of each row are reduced in float; the row is written back in bf16.
//
// Two variants of one template: a warp per row (rows of up to 32 * ITEMS elements), and a block
// per row reducing through shared memory. C++ templates, instantiated behind extern "C" names so
// that the module's entry points are the names kernelgate's cases launch.
#include <cuda_bf16.h>

namespace {

__device__ __forceinline__ float warp_max(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}

__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// One warp per row: lane i holds elements i, i + 32, ..., in registers.
template <int ITEMS>
__device__ void softmax_warp(const __nv_bfloat16* x, __nv_bfloat16* y, int rows, int cols) {
    const int warps = blockDim.x / 32;
    const int row = blockIdx.x * warps + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= rows) return;
    const __nv_bfloat16* in = x + (size_t)row * cols;
    float v[ITEMS];
    float m = -INFINITY;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const int c = lane + 32 * i;
        v[i] = c < cols ? __bfloat162float(in[c]) : -INFINITY;
        m = fmaxf(m, v[i]);
    }
    m = warp_max(m);
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        v[i] = __expf(v[i] - m);
        s += v[i];
    }
    const float inv = 1.0f / warp_sum(s);
    __nv_bfloat16* out = y + (size_t)row * cols;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const int c = lane + 32 * i;
        if (c < cols) out[c] = __float2bfloat16(v[i] * inv);
    }
}

// One block per row: each thread strides over the row three times (max, sum, write), the block's
// partial results combined through shared memory.
template <int BLOCK>
__device__ void softmax_block(const __nv_bfloat16* x, __nv_bfloat16* y, int rows, int cols) {
    __shared__ float partial[BLOCK / 32];
    const int row = blockIdx.x;
    if (row >= rows) return;
    const __nv_bfloat16* in = x + (size_t)row * cols;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += BLOCK) m = fmaxf(m, __bfloat162float(in[c]));
    m = warp_max(m);
    if (lane == 0) partial[warp] = m;
    __syncthreads();
    m = lane < BLOCK / 32 ? partial[lane] : -INFINITY;
    m = warp_max(m);
    __syncthreads();
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += BLOCK) s += __expf(__bfloat162float(in[c]) - m);
    s = warp_sum(s);
    if (lane == 0) partial[warp] = s;
    __syncthreads();
    s = lane < BLOCK / 32 ? partial[lane] : 0.0f;
    const float inv = 1.0f / warp_sum(s);
    __nv_bfloat16* out = y + (size_t)row * cols;
    for (int c = threadIdx.x; c < cols; c += BLOCK) out[c] = __float2bfloat16(__expf(__bfloat162float(in[c]) - m) * inv);
}

}  // namespace

// Rows of up to 1024 elements, 4 rows per block of 128 threads.
extern "C" __global__ void __launch_bounds__(128) softmax_warp_1024(const __nv_bfloat16* x, __nv_bfloat16* y, int rows, int cols) {
    softmax_warp<32>(x, y, rows, cols);
}

extern "C" __global__ void __launch_bounds__(256) softmax_block_256(const __nv_bfloat16* x, __nv_bfloat16* y, int rows, int cols) {
    softmax_block<256>(x, y, rows, cols);
}
