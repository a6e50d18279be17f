// Narrow element types, as a model's kernels use them: bfloat16 and half activations with float
// accumulation, and an FP8 E4M3 quantization. The headers are the CUDA toolkit's (NVRTC finds them
// in the toolkit, or where scripts/get-nvrtc put them).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

// RMS norm of each row of a bfloat16 matrix: y = x / sqrt(mean(x^2) + eps) * w, accumulated in
// float; also writes each row's 1 / rms in float. One block of BLOCK threads per row.
#define BLOCK 256
extern "C" __global__ void rmsnorm_bf16(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y,
                                        float* rstd, int cols, float eps) {
    __shared__ float partial[BLOCK];
    const __nv_bfloat16* row = x + (size_t)blockIdx.x * cols;
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += BLOCK) {
        float v = __bfloat162float(row[c]);
        sum += v * v;
    }
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) {
            partial[threadIdx.x] += partial[threadIdx.x + s];
        }
        __syncthreads();
    }
    float r = rsqrtf(partial[0] / cols + eps);
    for (int c = threadIdx.x; c < cols; c += BLOCK) {
        float v = __bfloat162float(row[c]) * r * __bfloat162float(w[c]);
        y[(size_t)blockIdx.x * cols + c] = __float2bfloat16(v);
    }
    if (threadIdx.x == 0) {
        rstd[blockIdx.x] = r;
    }
}

// SiLU of half values, y = x / (1 + e^-x), computed in float and rounded once to half.
extern "C" __global__ void silu_f16(const __half* x, __half* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = __half2float(x[i]);
        y[i] = __float2half(v / (1.0f + expf(-v)));
    }
}

// Quantizes float values to FP8 E4M3 after scaling: q = sat(x * scale), rounded to nearest even and
// saturated to +-448 (__NV_SATFINITE), as per-tensor scaled FP8 inference does.
extern "C" __global__ void quantize_e4m3(const float* x, __nv_fp8_storage_t* q, float scale, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        q[i] = __nv_cvt_float_to_fp8(x[i] * scale, __NV_SATFINITE, __NV_E4M3);
    }
}
