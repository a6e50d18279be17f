// Does shared memory keep its contents from one kernel to the next on this GPU? (kernelgate's
// poisoning shared memory before a checked run so that a read of shared memory nobody wrote shows.)
// Build and run on the GPU machine:  nvcc -O3 -arch=sm_90 -o smem_persistence smem_persistence.cu && ./smem_persistence
// Its output on an H200 (GPU-b760cc64, 2026-11-30) is in baselines/nvidia-h200-sm90/benchmark/b16.tgz
// (probe.txt) and BENCHMARK.md. Kept as it ran.
#include <cstdio>
#include <cstdint>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); return 1; } } while (0)

extern "C" __global__ void poison(uint32_t pattern, uint32_t* sink)
{
    extern __shared__ uint32_t s[];
    extern __shared__ uint32_t s_dyn[];
    volatile uint32_t* v = s;
    int words = 0;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(words));
    words /= 4;
    for (int i = threadIdx.x; i < words; i += blockDim.x) v[i] = pattern;
    __syncthreads();
    if (v[(threadIdx.x * 7) % words] == 0x12345678u) sink[0] = 1;
}
extern "C" __global__ void read_static(uint32_t* out)
{
    __shared__ uint32_t s[256];
    out[blockIdx.x * 256 + threadIdx.x] = reinterpret_cast<volatile uint32_t*>(s)[threadIdx.x];
}
extern "C" __global__ void read_dynamic(uint32_t* out)
{
    extern __shared__ uint32_t d[];
    out[blockIdx.x * 256 + threadIdx.x] = reinterpret_cast<volatile uint32_t*>(d)[threadIdx.x];
}
// The plant candidate: a block sum whose tail threads (i >= n) leave s[t] unset.
extern "C" __global__ void block_sum_tail_unset(const float* x, float* out, int n)
{
    __shared__ float s[256];
    int t = threadIdx.x, i = blockIdx.x * 256 + t;
    if (i < n) s[t] = x[i];
    __syncthreads();
    for (int h = 128; h > 0; h >>= 1) { if (t < h) s[t] += s[t + h]; __syncthreads(); }
    if (t == 0) out[blockIdx.x] = s[0];
}
extern "C" __global__ void no_shared(uint32_t* out) { out[threadIdx.x] += 1; }

int count(uint32_t* d, int n, uint32_t pattern, uint32_t* zeros)
{
    std::vector<uint32_t> h(n);
    cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost);
    int c = 0; *zeros = 0;
    for (auto v : h) { c += v == pattern; *zeros += v == 0; }
    return c;
}

int main()
{
    int sms, optin;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    printf("SMs %d, opt-in shared per block %d B\n", sms, optin);
    CK(cudaFuncSetAttribute(poison, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    const int blocks = 4 * sms, n = blocks * 256;
    uint32_t *out, *sink; float *x, *sums;
    CK(cudaMalloc(&out, n * 4)); CK(cudaMalloc(&sink, 4)); CK(cudaMalloc(&x, n * 4)); CK(cudaMalloc(&sums, blocks * 4));
    std::vector<float> hx(n, 1.0f);
    CK(cudaMemcpy(x, hx.data(), n * 4, cudaMemcpyHostToDevice));
    uint32_t z;
    read_static<<<blocks, 256>>>(out); CK(cudaDeviceSynchronize());
    int c = count(out, n, 0xFFFFFFFFu, &z);
    printf("fresh context, static read: %d of %d words zero\n", z, n);
    uint32_t patterns[2] = {0xFFFFFFFFu, 0x7FC00001u};
    for (uint32_t p : patterns) {
        poison<<<sms, 1024, optin>>>(p, sink); CK(cudaDeviceSynchronize());
        read_static<<<blocks, 256>>>(out); CK(cudaDeviceSynchronize());
        c = count(out, n, p, &z);
        printf("poison %08x then static read: %d of %d words hold the pattern, %d zero\n", p, c, n, z);
        poison<<<sms, 1024, optin>>>(p, sink);
        read_dynamic<<<blocks, 256, 1024>>>(out); CK(cudaDeviceSynchronize());
        c = count(out, n, p, &z);
        printf("poison %08x then dynamic read: %d of %d hold it\n", p, c, n);
        poison<<<sms, 1024, optin>>>(p, sink);
        no_shared<<<1, 32>>>(sink); cudaMemset(x + n - 1, 0, 4); CK(cudaMemcpy(x + n - 1, hx.data(), 4, cudaMemcpyHostToDevice));
        read_static<<<blocks, 256>>>(out); CK(cudaDeviceSynchronize());
        c = count(out, n, p, &z);
        printf("poison %08x, other kernel + copies, then static read: %d of %d hold it\n", p, c, n);
    }
    // The plant candidate: n2 = blocks*256 - 100 elements of 1.0; the last block's sum should be 156.
    const int n2 = n - 100;
    for (int pass = 0; pass < 3; ++pass) {
        if (pass == 1) poison<<<sms, 1024, optin>>>(0xFFFFFFFFu, sink);
        if (pass == 2) poison<<<sms, 1024, optin>>>(0u, sink);
        block_sum_tail_unset<<<blocks, 256>>>(x, sums, n2); CK(cudaDeviceSynchronize());
        float last; CK(cudaMemcpy(&last, sums + blocks - 1, 4, cudaMemcpyDeviceToHost));
        printf("block_sum_tail_unset %s: last block %g (want 156)\n", pass == 0 ? "after reads" : pass == 1 ? "after poison 0xFF" : "after poison 0", last);
    }
    return 0;
}
