// out = a * x + b * y, one float per thread, and four floats per thread through float4 loads.

extern "C" __global__ void axpby(const float* x, const float* y, float* out, float a, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = a * x[i] + b * y[i];
    }
}

// n4 = n / 4; the buffers are 16-byte aligned (cuMemAlloc's 256-byte alignment).
extern "C" __global__ void axpby_vec4(const float4* x, const float4* y, float4* out, float a, float b, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 u = x[i], v = y[i];
        out[i] = make_float4(a * u.x + b * v.x, a * u.y + b * v.y, a * u.z + b * v.z, a * u.w + b * v.w);
    }
}
