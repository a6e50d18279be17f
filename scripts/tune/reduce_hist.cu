// scripts/tune/reduce_hist.cu: checks and times kernels/reduction.cu and kernels/histogram.cu next
// to CUB (cub::DeviceReduce::Sum, cub::DeviceHistogram::HistogramEven) and a device-to-device copy
// of the same input bytes (the bandwidth ceiling), cold as kernelgate's suite times: before every
// sample the L2 is flushed by writing a buffer of 2 x L2 size (cudaMemsetAsync, as nvbench), then
// CUDA events around the launch(es); median of >= 20 samples after warm-up.
//
// Build and run on the GPU runner, from the project root:
//   nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -o /tmp/reduce_hist scripts/tune/reduce_hist.cu && /tmp/reduce_hist
// `/tmp/reduce_hist checks` runs only the checks; `/tmp/reduce_hist profile` runs only the checks at the
// timed sizes (one launch of each kernel and configuration, for ncu -k).
// Sizes: reduction n = 2^26 floats (256 MiB); histogram 2^28 bytes (256 MiB), uniform bytes and
// skewed bytes (each byte 7 with probability 231/256, else uniform: ~90 % sevens, printed).
// The tune_* kernels below are experiments for the notes, not part of the suite.

#include <cub/cub.cuh>

#include "../../kernels/histogram.cu"
#include "../../kernels/reduction.cu"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#define CK(call)                                                                                    \
    do {                                                                                            \
        cudaError_t err_ = (call);                                                                  \
        if (err_ != cudaSuccess) {                                                                  \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
            std::exit(2);                                                                           \
        }                                                                                           \
    } while (0)
#define CK_LAUNCH() CK(cudaGetLastError())

// ---------------------------------------------------------------------------------------------
// Experiments.

// reduce_shuffle_vec4 with U independent 16-byte loads issued before their additions.
template <int U>
__global__ void tune_reduce_vec4_unroll(const float* __restrict__ in, float* __restrict__ out, int n)
{
    int n4 = n >> 2;
    int stride = gridDim.x * blockDim.x;
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const float4* in4 = reinterpret_cast<const float4*>(in);
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    int i = tid;
    for (; i + (U - 1) * stride < n4; i += U * stride) {
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = in4[i + u * stride];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            acc.x += v[u].x;
            acc.y += v[u].y;
            acc.z += v[u].z;
            acc.w += v[u].w;
        }
    }
    for (; i < n4; i += stride) {
        float4 v = in4[i];
        acc.x += v.x;
        acc.y += v.y;
        acc.z += v.z;
        acc.w += v.w;
    }
    float sum = (acc.x + acc.y) + (acc.z + acc.w);
    int tail = 4 * n4 + tid;
    if (tail < n) sum += in[tail];
    sum = reduce_block_sum(sum);
    if (threadIdx.x == 0) atomicAdd(out, sum);
}

// reduce_shuffle_vec4 with streaming loads (__ldcs: ld.global.cs, evict-first in L2).
__global__ void tune_reduce_vec4_cs(const float* __restrict__ in, float* __restrict__ out, int n)
{
    int n4 = n >> 2;
    int stride = gridDim.x * blockDim.x;
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const float4* in4 = reinterpret_cast<const float4*>(in);
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int i = tid; i < n4; i += stride) {
        float4 v = __ldcs(in4 + i);
        acc.x += v.x;
        acc.y += v.y;
        acc.z += v.z;
        acc.w += v.w;
    }
    float sum = (acc.x + acc.y) + (acc.z + acc.w);
    int tail = 4 * n4 + tid;
    if (tail < n) sum += __ldcs(in + tail);
    sum = reduce_block_sum(sum);
    if (threadIdx.x == 0) atomicAdd(out, sum);
}

// Diagnostic flush by reading (leaves the L2 full of clean lines, unlike the suite's memset).
__global__ void tune_read_flush(const uint4* __restrict__ buf, size_t n16, unsigned int* sink)
{
    unsigned int x = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = buf[i];
        x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (x == 0x9e3779b9u) *sink = x;  // keeps the loads; practically never taken
}

// Privatised histogram with `COPIES` sub-histograms per block: 1 = one shared histogram per block;
// 8 = one per warp (hist[warp][bin], banks follow the data).
template <int COPIES>
__global__ void tune_hist_copies(const unsigned int* __restrict__ words, unsigned int* __restrict__ bins, int n_words)
{
    __shared__ unsigned int hist[COPIES * HIST_BINS];
    for (int i = threadIdx.x; i < COPIES * HIST_BINS; i += blockDim.x) hist[i] = 0u;
    __syncthreads();
    unsigned int* mine = hist + ((threadIdx.x >> 5) % COPIES) * HIST_BINS;
    int stride = gridDim.x * blockDim.x;
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int n_vec = n_words >> 2;
    const uint4* vec = reinterpret_cast<const uint4*>(words);
    for (int i = tid; i < n_vec; i += stride) {
        uint4 v = vec[i];
        unsigned int w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int k = 0; k < 4; ++k) atomicAdd(&mine[(w[j] >> (8 * k)) & 0xffu], 1u);
    }
    for (int i = 4 * n_vec + tid; i < n_words; i += stride) {
        unsigned int w = words[i];
#pragma unroll
        for (int k = 0; k < 4; ++k) atomicAdd(&mine[(w >> (8 * k)) & 0xffu], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x) {
        unsigned int total = 0u;
        for (int c = 0; c < COPIES; ++c) total += hist[c * HIST_BINS + b];
        if (total != 0u) atomicAdd(&bins[b], total);
    }
}

// ---------------------------------------------------------------------------------------------
// Host side.

static uint64_t splitmix(uint64_t& s)
{
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// Uniform floats in [0, 1), multiples of 2^-24.
static void fill_uniform(std::vector<float>& v, uint64_t seed)
{
    for (auto& x : v) x = (float)(splitmix(seed) >> 40) * (1.0f / 16777216.0f);
}

// Bytes: uniform, or skewed (7 with probability 0.9, else a uniform byte).
static void fill_bytes(std::vector<unsigned char>& v, uint64_t seed, bool skewed)
{
    size_t i = 0;
    for (; i + 8 <= v.size(); i += 8) {
        uint64_t r = splitmix(seed);
        if (!skewed) {
            std::memcpy(&v[i], &r, 8);
            continue;
        }
        uint64_t r2 = splitmix(seed);
        for (int j = 0; j < 8; ++j) {
            unsigned pick = (unsigned)((r2 >> (8 * j)) & 0xff);  // 0..255; 231 of 256 values pass
            v[i + j] = (pick * 10u < 2304u) ? (unsigned char)7 : (unsigned char)(r >> (8 * j));
        }
    }
    for (; i < v.size(); ++i) v[i] = (unsigned char)splitmix(seed);
}

struct Gpu {
    cudaDeviceProp prop{};
    int sms = 0;
    void* flush = nullptr;
    size_t flush_bytes = 0;
    cudaEvent_t start{}, stop{};
    bool read_flush = false;  // diagnostic: flush by reading instead of the suite's memset
    unsigned int* sink = nullptr;
};

struct Timing {
    double median_us, min_us, max_us;
    int samples;
};

// Cold timing: per sample, flush L2 (memset of 2 x L2 bytes), `pre` (zeroing, not timed), events
// around `body`. Warm-up 3 runs (1 when a run takes over 20 ms); 30 samples (20 when slow).
static Timing time_cold(Gpu& g, const std::function<void()>& pre, const std::function<void()>& body)
{
    auto one = [&]() {
        if (g.read_flush) {
            tune_read_flush<<<8 * g.sms, 256>>>((const uint4*)g.flush, g.flush_bytes / 16, g.sink);
            CK_LAUNCH();
        } else {
            CK(cudaMemsetAsync(g.flush, 0, g.flush_bytes));
        }
        pre();
        CK(cudaEventRecord(g.start));
        body();
        CK(cudaEventRecord(g.stop));
        CK(cudaEventSynchronize(g.stop));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, g.start, g.stop));
        return ms;
    };
    float first = one();
    int warm = first > 20.0f ? 0 : 2;
    int samples = first > 20.0f ? 20 : 30;
    for (int i = 0; i < warm; ++i) one();
    std::vector<float> t;
    for (int i = 0; i < samples; ++i) t.push_back(one());
    std::sort(t.begin(), t.end());
    double med = samples % 2 ? t[samples / 2] : 0.5 * (t[samples / 2 - 1] + t[samples / 2]);
    return {med * 1e3, t.front() * 1e3, t.back() * 1e3, samples};
}

static double gamma_k(double k)
{
    double u = std::ldexp(1.0, -24);
    if (k * u >= 1.0) return INFINITY;
    return k * u / (1.0 - k * u);
}

static long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// Reduction kernel under test: launch (zeroing done by the caller), its k for Higham's bound.
struct RedKernel {
    std::string name;
    std::string config;
    bool atomic;                                       // out must be zeroed first
    std::function<void(const float*, float*, int)> launch;
    std::function<double(long long)> k;                // k(n)
};

static int failures = 0;

int main(int argc, char** argv)
{
    bool profile = argc > 1 && std::strcmp(argv[1], "profile") == 0;
    bool checks_only = profile || (argc > 1 && std::strcmp(argv[1], "checks") == 0);
    Gpu g;
    CK(cudaGetDeviceProperties(&g.prop, 0));
    g.sms = g.prop.multiProcessorCount;
    g.flush_bytes = 2 * (size_t)g.prop.l2CacheSize;
    CK(cudaMalloc(&g.flush, g.flush_bytes));
    CK(cudaMemset(g.flush, 1, g.flush_bytes));
    CK(cudaMalloc(&g.sink, 4));
    CK(cudaEventCreate(&g.start));  // default flags: timing enabled
    CK(cudaEventCreate(&g.stop));
    int drv = 0, rt = 0;
    CK(cudaDriverGetVersion(&drv));
    CK(cudaRuntimeGetVersion(&rt));
    std::printf("device: %s, cc %d.%d, %d SMs, L2 %d B, driver %d, runtime %d, CUB %d\n", g.prop.name, g.prop.major,
                g.prop.minor, g.sms, g.prop.l2CacheSize, drv, rt, CUB_VERSION);

    const int B = 256;
    const int n_red = 1 << 26;
    const long long n_bytes = 1ll << 28;
    const int n_words = (int)(n_bytes / 4);

    float *d_in = nullptr, *d_out = nullptr, *d_partials = nullptr;
    void* d_copy = nullptr;
    unsigned int *d_words = nullptr, *d_words_skew = nullptr, *d_bins = nullptr;
    CK(cudaMalloc(&d_in, (size_t)n_red * 4));
    CK(cudaMalloc(&d_out, 4));
    CK(cudaMalloc(&d_partials, 64 * g.sms * sizeof(float)));
    CK(cudaMalloc(&d_copy, (size_t)n_bytes));
    CK(cudaMalloc(&d_words, (size_t)n_bytes));
    CK(cudaMalloc(&d_words_skew, (size_t)n_bytes));
    CK(cudaMalloc(&d_bins, 256 * 4));

    // CUB temp storage, allocated once for the largest calls.
    size_t red_temp = 0, hist_temp = 0;
    CK(cub::DeviceReduce::Sum(nullptr, red_temp, d_in, d_out, n_red));
    CK(cub::DeviceHistogram::HistogramEven(nullptr, hist_temp, (const unsigned char*)d_words, d_bins, 257, 0, 256,
                                            (int)n_bytes));
    void* d_red_temp = nullptr;
    void* d_hist_temp = nullptr;
    CK(cudaMalloc(&d_red_temp, red_temp));
    CK(cudaMalloc(&d_hist_temp, hist_temp));
    std::printf("CUB temp storage: DeviceReduce::Sum %zu B, DeviceHistogram::HistogramEven %zu B\n", red_temp,
                hist_temp);

    // ---- reduction kernels ------------------------------------------------------------------
    auto shuffle_k = [&](int per_sm) {
        return [=](long long n) {
            long long G = (long long)per_sm * g.sms;
            return (double)(ceil_div(n, G * B) + 10 + G);
        };
    };
    auto vec4_k = [&](int per_sm) {
        return [=](long long n) {
            long long G = (long long)per_sm * g.sms;
            return (double)(ceil_div(n / 4, G * B) + 3 + 10 + G);
        };
    };
    auto tree_k = [&](long long n) { return (double)(8 + ceil_div(n, B)); };

    std::vector<RedKernel> red;
    red.push_back({"reduce_interleaved", "B=256 G=ceil(n/256)", true,
                   [&](const float* in, float* out, int n) {
                       reduce_interleaved<<<(unsigned)ceil_div(n, B), B>>>(in, out, n);
                       CK_LAUNCH();
                   },
                   tree_k});
    red.push_back({"reduce_sequential", "B=256 G=ceil(n/256)", true,
                   [&](const float* in, float* out, int n) {
                       reduce_sequential<<<(unsigned)ceil_div(n, B), B>>>(in, out, n);
                       CK_LAUNCH();
                   },
                   tree_k});
    for (int per_sm : {4, 8, 16}) {
        red.push_back({"reduce_shuffle", "B=256 G=" + std::to_string(per_sm) + "xSM", true,
                       [&, per_sm](const float* in, float* out, int n) {
                           reduce_shuffle<<<per_sm * g.sms, B>>>(in, out, n);
                           CK_LAUNCH();
                       },
                       shuffle_k(per_sm)});
    }
    for (int per_sm : {2, 4, 8, 16, 32}) {
        red.push_back({"reduce_shuffle_vec4", "B=256 G=" + std::to_string(per_sm) + "xSM", true,
                       [&, per_sm](const float* in, float* out, int n) {
                           reduce_shuffle_vec4<<<per_sm * g.sms, B>>>(in, out, n);
                           CK_LAUNCH();
                       },
                       vec4_k(per_sm)});
    }
    for (int per_sm : {4, 8}) {
        red.push_back({"tune_reduce_vec4_unroll<4>", "B=256 G=" + std::to_string(per_sm) + "xSM", true,
                       [&, per_sm](const float* in, float* out, int n) {
                           tune_reduce_vec4_unroll<4><<<per_sm * g.sms, B>>>(in, out, n);
                           CK_LAUNCH();
                       },
                       vec4_k(per_sm)});
    }
    for (int per_sm : {8, 16}) {
        red.push_back({"tune_reduce_vec4_unroll<8>", "B=256 G=" + std::to_string(per_sm) + "xSM", true,
                       [&, per_sm](const float* in, float* out, int n) {
                           tune_reduce_vec4_unroll<8><<<per_sm * g.sms, B>>>(in, out, n);
                           CK_LAUNCH();
                       },
                       vec4_k(per_sm)});
        red.push_back({"tune_reduce_vec4_cs", "B=256 G=" + std::to_string(per_sm) + "xSM", true,
                       [&, per_sm](const float* in, float* out, int n) {
                           tune_reduce_vec4_cs<<<per_sm * g.sms, B>>>(in, out, n);
                           CK_LAUNCH();
                       },
                       vec4_k(per_sm)});
    }
    for (int per_sm : {4, 8, 16}) {
        red.push_back({"reduce_partials+reduce_final", "B=256 G=" + std::to_string(per_sm) + "xSM, final B=256", false,
                       [&, per_sm](const float* in, float* out, int n) {
                           int G = per_sm * g.sms;
                           reduce_partials<<<G, B>>>(in, d_partials, n);
                           CK_LAUNCH();
                           reduce_final<<<1, B>>>(d_partials, out, G);
                           CK_LAUNCH();
                       },
                       [=](long long n) {
                           long long G = (long long)per_sm * g.sms;
                           return (double)(ceil_div(n / 4, G * B) + 3 + 10 + ceil_div(G, B) + 10);
                       }});
    }
    red.push_back({"cub::DeviceReduce::Sum", "CUB " + std::to_string(CUB_VERSION), false,
                   [&](const float* in, float* out, int n) {
                       size_t t = red_temp;
                       CK(cub::DeviceReduce::Sum(d_red_temp, t, in, out, n));
                       CK_LAUNCH();
                   },
                   // CUB's order is not ours to derive; k = 4096 is an assumption that only checks how we
                   // call it (its blocks sum per thread, then a block tree, then a second kernel).
                   [](long long) { return 4096.0; }});

    // Checks: fresh data per size; sizes not multiples of 4, 32 or 256 included.
    std::printf("\n== reduction checks (|err| <= gamma_k * sum|x|; ratio = |err| / bound) ==\n");
    std::vector<int> sizes = {1, 3, 255, 257, 1000003, n_red - 5, n_red};
    if (profile) sizes = {n_red};
    std::vector<float> h(n_red);
    uint64_t seed = 12345;
    for (int n : sizes) {
        std::vector<float> x(n);
        fill_uniform(x, seed++);
        double exact = 0.0;
        for (float v : x) exact += (double)v;
        CK(cudaMemcpy(d_in, x.data(), (size_t)n * 4, cudaMemcpyHostToDevice));
        double worst_ratio = 0.0;
        for (auto& k : red) {
            if (k.atomic)
                CK(cudaMemset(d_out, 0, 4));
            else {
                float poison = NAN;
                CK(cudaMemcpy(d_out, &poison, 4, cudaMemcpyHostToDevice));
            }
            k.launch(d_in, d_out, n);
            CK(cudaDeviceSynchronize());
            float got = 0;
            CK(cudaMemcpy(&got, d_out, 4, cudaMemcpyDeviceToHost));
            double bound = gamma_k(k.k(n)) * exact;
            double err = std::fabs((double)got - exact);
            bool ok = std::isfinite(got) && err <= bound;
            double ratio = bound > 0 ? err / bound : (err == 0 ? 0 : INFINITY);
            worst_ratio = std::max(worst_ratio, ratio);
            if (!ok) {
                ++failures;
                std::printf("FAIL %s [%s] n=%d: got %.9g, exact %.9g, err %.3g > bound %.3g (k=%.0f)\n", k.name.c_str(),
                            k.config.c_str(), n, got, exact, err, bound, k.k(n));
            } else if (n == n_red) {
                std::printf("ok   %-30s %-32s n=%d err %.3g bound %.3g (k=%.0f) ratio %.2e\n", k.name.c_str(),
                            k.config.c_str(), n, err, bound, k.k(n), ratio);
            }
        }
        std::printf("n=%d: %zu kernels, worst |err|/bound %.2e\n", n, red.size(), worst_ratio);
        if (n == n_red) h = x;
    }

    // ---- histogram kernels ------------------------------------------------------------------
    struct HistKernel {
        std::string name, config;
        std::function<void(const unsigned int*, unsigned int*, int)> launch;
    };
    auto occ = [&](const void* f, int block) {
        int blocks = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, block, 0));
        return blocks;
    };
    int occ_global = occ((const void*)histogram_global, B);
    int occ_priv = occ((const void*)histogram_privatized, B);
    int occ_priv512 = occ((const void*)histogram_privatized, 512);
    int occ_c1 = occ((const void*)tune_hist_copies<1>, B);
    int occ_c8 = occ((const void*)tune_hist_copies<8>, B);
    std::printf("\noccupancy (blocks/SM): histogram_global@256 %d, histogram_privatized@256 %d, @512 %d, "
                "tune_hist_copies<1>@256 %d, <8>@256 %d\n",
                occ_global, occ_priv, occ_priv512, occ_c1, occ_c8);
    std::vector<HistKernel> hist;
    hist.push_back({"histogram_global", "B=256 G=" + std::to_string(occ_global) + "xSM (occupancy)",
                    [&](const unsigned int* w, unsigned int* b, int n) {
                        histogram_global<<<occ_global * g.sms, B>>>(w, b, n);
                        CK_LAUNCH();
                    }});
    for (int per_sm : {occ_priv, 2 * occ_priv, 4 * occ_priv}) {
        hist.push_back({"histogram_privatized", "B=256 G=" + std::to_string(per_sm) + "xSM",
                        [&, per_sm](const unsigned int* w, unsigned int* b, int n) {
                            histogram_privatized<<<per_sm * g.sms, B>>>(w, b, n);
                            CK_LAUNCH();
                        }});
    }
    hist.push_back({"histogram_privatized", "B=512 G=" + std::to_string(occ_priv512) + "xSM",
                    [&](const unsigned int* w, unsigned int* b, int n) {
                        histogram_privatized<<<occ_priv512 * g.sms, 512>>>(w, b, n);
                        CK_LAUNCH();
                    }});
    hist.push_back({"tune_hist_copies<1>", "B=256 G=" + std::to_string(occ_c1) + "xSM",
                    [&](const unsigned int* w, unsigned int* b, int n) {
                        tune_hist_copies<1><<<occ_c1 * g.sms, B>>>(w, b, n);
                        CK_LAUNCH();
                    }});
    hist.push_back({"tune_hist_copies<8>", "B=256 G=" + std::to_string(occ_c8) + "xSM",
                    [&](const unsigned int* w, unsigned int* b, int n) {
                        tune_hist_copies<8><<<occ_c8 * g.sms, B>>>(w, b, n);
                        CK_LAUNCH();
                    }});
    hist.push_back({"cub::HistogramEven", "CUB " + std::to_string(CUB_VERSION) + ", 257 levels [0,256)",
                    [&](const unsigned int* w, unsigned int* b, int n) {
                        size_t t = hist_temp;
                        CK(cub::DeviceHistogram::HistogramEven(d_hist_temp, t, (const unsigned char*)w, b, 257, 0, 256,
                                                                4 * n));
                        CK_LAUNCH();
                    }});

    std::printf("\n== histogram checks (exact) ==\n");
    std::vector<int> word_counts = {1, 5, 1000003, n_words};
    if (profile) word_counts = {n_words};
    for (int nw : word_counts) {
        for (int skew = 0; skew < 2; ++skew) {
            std::vector<unsigned char> bytes((size_t)nw * 4);
            fill_bytes(bytes, 777 + nw + skew, skew == 1);
            std::vector<unsigned int> ref(256, 0);
            for (unsigned char c : bytes) ref[c]++;
            unsigned int* dst = skew ? d_words_skew : d_words;
            CK(cudaMemcpy(dst, bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
            int bad = 0;
            for (auto& k : hist) {
                CK(cudaMemset(d_bins, 0, 256 * 4));
                k.launch(dst, d_bins, nw);
                CK(cudaDeviceSynchronize());
                std::vector<unsigned int> got(256);
                CK(cudaMemcpy(got.data(), d_bins, 256 * 4, cudaMemcpyDeviceToHost));
                for (int b = 0; b < 256; ++b)
                    if (got[b] != ref[b]) {
                        ++failures;
                        ++bad;
                        std::printf("FAIL %s [%s] n_words=%d %s: bin %d got %u want %u\n", k.name.c_str(),
                                    k.config.c_str(), nw, skew ? "skewed" : "uniform", b, got[b], ref[b]);
                        break;
                    }
            }
            std::printf("n_words=%d %s: %zu kernels, %s (bin 7 holds %.2f %% of bytes)\n", nw,
                        skew ? "skewed" : "uniform", hist.size(), bad ? "MISMATCH" : "all exact",
                        100.0 * ref[7] / (double)bytes.size());
            // The last size is the timed one: d_words / d_words_skew keep it.
        }
    }
    if (checks_only) {
        std::printf("\nchecks only; failures: %d\n", failures);
        return failures ? 1 : 0;
    }

    // ---- timing -------------------------------------------------------------------------------
    CK(cudaMemcpy(d_in, h.data(), (size_t)n_red * 4, cudaMemcpyHostToDevice));
    auto nothing = [] {};
    Timing copy = time_cold(g, nothing, [&] {
        CK(cudaMemcpyAsync(d_copy, d_in, (size_t)n_bytes, cudaMemcpyDeviceToDevice));
    });
    double copy_gbs = 2.0 * n_bytes / (copy.median_us * 1e3);  // read + write
    std::printf("\n== timing: cold (L2 flushed by a %zu B memset before each sample), median of N ==\n",
                g.flush_bytes);
    std::printf("copy D2D %lld B: median %.2f us (min %.2f max %.2f, N=%d) = %.1f GB/s read+write\n", n_bytes,
                copy.median_us, copy.min_us, copy.max_us, copy.samples, copy_gbs);

    auto row_header = [] {
        std::printf("%-30s %-34s %10s %10s %10s %9s %8s %8s\n", "kernel", "launch", "median_us", "min_us", "max_us",
                    "GB/s", "%CUB", "%copy");
    };
    auto row = [&](const std::string& name, const std::string& cfg, const Timing& t, double bytes, double cub_us) {
        double gbs = bytes / (t.median_us * 1e3);
        std::printf("%-30s %-34s %10.2f %10.2f %10.2f %9.1f %8.1f %8.1f\n", name.c_str(), cfg.c_str(), t.median_us,
                    t.min_us, t.max_us, gbs, 100.0 * cub_us / t.median_us, 100.0 * gbs / copy_gbs);
    };

    // Reduction: CUB first (the reference), then the others.
    std::printf("\n-- reduction, n = 2^26 floats (%lld B read) --\n", 4ll * n_red);
    row_header();
    std::vector<Timing> red_t(red.size());
    for (size_t i = red.size(); i-- > 0;) {
        auto& k = red[i];
        red_t[i] = time_cold(
            g, [&] { if (k.atomic) CK(cudaMemsetAsync(d_out, 0, 4)); }, [&] { k.launch(d_in, d_out, n_red); });
    }
    double cub_red_us = red_t.back().median_us;
    for (size_t i = 0; i < red.size(); ++i) row(red[i].name, red[i].config, red_t[i], 4.0 * n_red, cub_red_us);

    for (int skew = 0; skew < 2; ++skew) {
        unsigned int* src = skew ? d_words_skew : d_words;
        std::printf("\n-- histogram, 2^28 bytes %s --\n", skew ? "skewed (~90 % one value)" : "uniform");
        row_header();
        std::vector<Timing> t(hist.size());
        for (size_t i = hist.size(); i-- > 0;) {
            auto& k = hist[i];
            t[i] = time_cold(g, [&] { CK(cudaMemsetAsync(d_bins, 0, 256 * 4)); },
                             [&] { k.launch(src, d_bins, n_words); });
        }
        for (size_t i = 0; i < hist.size(); ++i)
            row(hist[i].name, hist[i].config, t[i], (double)n_bytes, t.back().median_us);
    }
    // Diagnostic, not the suite's method: the memset flush leaves up to L2-size dirty lines that are
    // written back while the next timed launch runs. Flushing by a read kernel leaves clean lines;
    // the difference is what the memset flush costs each measurement.
    g.read_flush = true;
    std::printf("\n-- diagnostic: L2 flushed by reading %zu B (clean lines) instead of the memset --\n", g.flush_bytes);
    Timing copy_r = time_cold(g, nothing, [&] {
        CK(cudaMemcpyAsync(d_copy, d_in, (size_t)n_bytes, cudaMemcpyDeviceToDevice));
    });
    double copy_r_gbs = 2.0 * n_bytes / (copy_r.median_us * 1e3);
    std::printf("copy D2D: median %.2f us (min %.2f max %.2f) = %.1f GB/s read+write\n", copy_r.median_us,
                copy_r.min_us, copy_r.max_us, copy_r_gbs);
    for (size_t i = 0; i < red.size(); ++i) {
        auto& k = red[i];
        if (k.name != "reduce_shuffle_vec4" && k.name != "cub::DeviceReduce::Sum" && k.name != "tune_reduce_vec4_cs")
            continue;
        Timing t = time_cold(
            g, [&] { if (k.atomic) CK(cudaMemsetAsync(d_out, 0, 4)); }, [&] { k.launch(d_in, d_out, n_red); });
        double gbs = 4.0 * n_red / (t.median_us * 1e3);
        std::printf("%-30s %-34s median %.2f us (min %.2f max %.2f) %.1f GB/s = %.1f %% of this copy\n",
                    k.name.c_str(), k.config.c_str(), t.median_us, t.min_us, t.max_us, gbs, 100.0 * gbs / copy_r_gbs);
    }
    g.read_flush = false;

    std::printf("\nfailures: %d\n", failures);
    return failures ? 1 : 0;
}
