// The machine's ceilings, measured at the start of every run (harness/ceilings/probe.rs): device-
// memory read and write bandwidth, fp32 FMA throughput, shared-memory bandwidth and the time of an
// empty launch. No case launches these; each writes its result only under a condition its inputs
// never meet, so that the compiler keeps every load and FMA and the kernels move no other bytes.
// References: Williams, Waterman & Patterson, "Roofline" (CACM 52(4), 2009); NVIDIA Developer Blog,
// "How to Implement Performance Metrics in CUDA C/C++" (effective bandwidth = bytes / time).

// Reads n4 float4s once, four independent 16-byte loads in flight per thread per iteration of a
// grid-stride loop; writes out[0] only if the sum is -1 (the probe's input is positive).
extern "C" __global__ void ceiling_read(const float4* __restrict__ in, unsigned long long n4, float* out)
{
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (; i + 3 * stride < n4; i += 4 * stride) {
        float4 a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
        acc.x += (a.x + b.x) + (c.x + d.x);
        acc.y += (a.y + b.y) + (c.y + d.y);
        acc.z += (a.z + b.z) + (c.z + d.z);
        acc.w += (a.w + b.w) + (c.w + d.w);
    }
    for (; i < n4; i += stride) {
        float4 a = in[i];
        acc.x += a.x; acc.y += a.y; acc.z += a.z; acc.w += a.w;
    }
    float s = (acc.x + acc.y) + (acc.z + acc.w);
    if (s == -1.0f) out[0] = s;
}

// Writes v to n4 float4s once (16-byte stores, grid-stride).
extern "C" __global__ void ceiling_write(float4* __restrict__ out, unsigned long long n4, float v)
{
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    float4 x = make_float4(v, v, v, v);
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride)
        out[i] = x;
}

// 8 independent chains of x = x * a + b per thread, 16 steps unrolled per iteration: iters * 128
// FMAs (256 FLOP) per thread, in registers. With 0 < a < 1 and b > 0 every chain stays positive, so
// out[0] is never written.
extern "C" __global__ void ceiling_fma(float a, float b, int iters, float* out)
{
    float x0 = threadIdx.x * 1e-3f, x1 = x0 + 1.0f, x2 = x0 + 2.0f, x3 = x0 + 3.0f;
    float x4 = x0 + 4.0f, x5 = x0 + 5.0f, x6 = x0 + 6.0f, x7 = x0 + 7.0f;
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            x0 = fmaf(x0, a, b); x1 = fmaf(x1, a, b); x2 = fmaf(x2, a, b); x3 = fmaf(x3, a, b);
            x4 = fmaf(x4, a, b); x5 = fmaf(x5, a, b); x6 = fmaf(x6, a, b); x7 = fmaf(x7, a, b);
        }
    }
    float s = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
    if (s == -1.0f) out[0] = s;
}

// Float4 elements of ceiling_shared's static shared array: 16 KiB per block.
#define CEILING_SHARED_F4 1024

// Fills 16 KiB of shared memory, then each thread makes iters * 8 128-bit loads from it: thread t
// of a warp reads element (t + 32 k) mod 1024, so each quarter-warp's 8 loads cover the 32 banks
// once (conflict-free). The sums stay positive, so out[0] is never written.
extern "C" __global__ void ceiling_shared(int iters, float* out)
{
    __shared__ float4 s[CEILING_SHARED_F4];
    for (int i = threadIdx.x; i < CEILING_SHARED_F4; i += blockDim.x)
        s[i] = make_float4(1.0f, 2.0f, 3.0f, (float)i);
    __syncthreads();
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    unsigned int j = threadIdx.x;
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            float4 v = s[(j + 32u * k) & (CEILING_SHARED_F4 - 1)];
            acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
        }
        j += 256u;
    }
    float sum = (acc.x + acc.y) + (acc.z + acc.w);
    if (sum == -1.0f) out[0] = sum;
}

// Does nothing: the cost of a launch.
extern "C" __global__ void ceiling_empty()
{
}
