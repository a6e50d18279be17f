// scripts/tune/matmul.cu: checks and times kernels/matmul.cu against cuBLAS SGEMM, standalone (no Rust).
//
// Build and run on a GPU machine from this folder:
//   nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -Xptxas -v -o matmul-tune matmul.cu -lcublas && ./matmul-tune
//
// 1. Correctness: every kernel (the four entry points, the tuning variants of the cp.async body and
//    cuBLAS) on small odd shapes, against a float64 product on the CPU; then on the timed shapes
//    against cuBLAS (all of C) and against float64 on 16 sampled rows. Inputs are fresh uniform
//    [-1, 1) draws for each shape; C is poisoned with NaN before each launch, so an unwritten element
//    fails. Error: max |c - ref| / max |ref| over C (or the sampled rows).
// 2. Timing, cold like the suite: before each timed launch a buffer of twice the L2 size is written
//    (cudaMemsetAsync), then the launch alone sits between two CUDA events; 3 warm-up launches,
//    25 samples, median. TFLOP/s = 2*M*N*K / median; % of cuBLAS = cuBLAS median / kernel median.
//
// Variants `cpa_BMxBN_kBK_sSTAGES_bMINB[_swz]` instantiate mm_cp_async_body with other shapes to choose
// the one that matmul_cp_async uses; MINB is the blocks-per-multiprocessor hint of __launch_bounds__,
// _swz the XOR-swizzled unpadded A layout. Results of the runs: results/README.md.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <string>
#include <vector>

#include "../../kernels/matmul.cu"

#define CK(x)                                                                                        \
    do {                                                                                             \
        cudaError_t e_ = (x);                                                                        \
        if (e_ != cudaSuccess) {                                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));      \
            exit(1);                                                                                 \
        }                                                                                            \
    } while (0)
#define CB(x)                                                                                        \
    do {                                                                                             \
        cublasStatus_t s_ = (x);                                                                     \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                           \
            fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__, __LINE__, #x, (int)s_);      \
            exit(1);                                                                                 \
        }                                                                                            \
    } while (0)

template <int BM, int BN, int BK, int ST, int MINB, bool SWZ>
__global__ void __launch_bounds__((BM / 64) * (BN / 32) * 32, MINB)
    tune_cpa(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K)
{
    mm_cp_async_body<BM, BN, BK, ST, SWZ>(A, B, C, M, N, K);
}

typedef void (*KernFn)(const float*, const float*, float*, int, int, int);

struct Kern {
    std::string name;
    KernFn fn;  // null: cuBLAS
    dim3 block;
    int tile_m, tile_n;  // grid = (ceil(N/tile_n), ceil(M/tile_m))
};

template <int BM, int BN, int BK, int ST, int MINB, bool SWZ = false>
Kern variant()
{
    char name[64];
    snprintf(name, sizeof name, "cpa_%dx%d_k%d_s%d_b%d%s", BM, BN, BK, ST, MINB, SWZ ? "_swz" : "");
    return Kern{name, tune_cpa<BM, BN, BK, ST, MINB, SWZ>, dim3((BM / 64) * (BN / 32) * 32), BM, BN};
}

static cublasHandle_t g_blas;

static void launch(const Kern& k, const float* A, const float* B, float* C, int M, int N, int K)
{
    if (!k.fn) {
        // Row-major C = A B is column-major C^T = B^T A^T: B as an N x K column-major matrix (ld N),
        // A as K x M (ld K), C as N x M (ld N).
        const float one = 1.0f, zero = 0.0f;
        CB(cublasSgemm(g_blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N));
        return;
    }
    dim3 grid((N + k.tile_n - 1) / k.tile_n, (M + k.tile_m - 1) / k.tile_m);
    k.fn<<<grid, k.block>>>(A, B, C, M, N, K);
    CK(cudaGetLastError());
}

static unsigned long long g_seed = 0x9E3779B97F4A7C15ull;
static void fill_random(std::vector<float>& v)
{
    for (auto& x : v) {
        g_seed = g_seed * 6364136223846793005ull + 1442695040888963407ull;
        x = (float)((g_seed >> 40) * (1.0 / 16777216.0) * 2.0 - 1.0);
    }
}

// max |c - ref| / max |ref|; infinity if any c is NaN (the poison) or infinite.
static double max_rel_err(const std::vector<float>& c, const std::vector<double>& ref)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < c.size(); ++i) {
        if (!std::isfinite(c[i])) return INFINITY;
        num = std::max(num, std::fabs((double)c[i] - ref[i]));
        den = std::max(den, std::fabs(ref[i]));
    }
    return den > 0 ? num / den : num;
}

static const double TOL = 1e-4;  // fp32 accumulation over K <= 4096 lands near 1e-6 of max |ref|

int main()
{
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device %s, %d SMs, L2 %d B, sm_%d%d\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize,
           prop.major, prop.minor);
    CB(cublasCreate(&g_blas));
    CB(cublasSetMathMode(g_blas, CUBLAS_DEFAULT_MATH));  // plain fp32, no TF32

    std::vector<Kern> kerns = {
        {"cublas_sgemm", nullptr, dim3(1), 1, 1},
        {"matmul_naive", matmul_naive, dim3(16, 16), 16, 16},
        {"matmul_tiled16", matmul_tiled16, dim3(16, 16), 16, 16},
        {"matmul_tiled32_padded", matmul_tiled32_padded, dim3(32, 32), 32, 32},
        {"matmul_cp_async", matmul_cp_async, dim3(256), 128, 128},
        variant<128, 128, 8, 4, 2>(),
        variant<128, 128, 16, 2, 2, true>(),
        variant<128, 128, 16, 3, 2, true>(),
        variant<128, 128, 8, 4, 2, true>(),
    };

    size_t maxe = 4096ull * 4096ull + 64;
    float *dA, *dB, *dC;
    CK(cudaMalloc(&dA, maxe * 4));
    CK(cudaMalloc(&dB, maxe * 4));
    CK(cudaMalloc(&dC, maxe * 4));

    // ---- 1. small shapes against float64 on the CPU. off: offset (floats) of A, B and C from a
    // 256-byte-aligned base, 1 making every row start unaligned.
    struct Small { int M, N, K, off; };
    const Small smalls[] = {{257, 263, 259, 0}, {257, 264, 260, 0}, {128, 128, 16, 0}, {1, 1, 1, 0},
                            {300, 200, 1000, 1}, {129, 132, 36, 0}};
    bool all_ok = true;
    for (const Small& s : smalls) {
        std::vector<float> A((size_t)s.M * s.K), B((size_t)s.K * s.N), C((size_t)s.M * s.N);
        fill_random(A);
        fill_random(B);
        std::vector<double> ref((size_t)s.M * s.N, 0.0);
        for (int i = 0; i < s.M; ++i)
            for (int k = 0; k < s.K; ++k) {
                double a = A[(size_t)i * s.K + k];
                for (int j = 0; j < s.N; ++j) ref[(size_t)i * s.N + j] += a * B[(size_t)k * s.N + j];
            }
        float *a = dA + s.off, *b = dB + s.off, *c = dC + s.off;
        CK(cudaMemcpy(a, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(b, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
        printf("check %dx%dx%d offset %d vs float64 CPU:", s.M, s.N, s.K, s.off);
        for (const Kern& k : kerns) {
            CK(cudaMemset(c, 0xFF, C.size() * 4));  // NaN poison
            launch(k, a, b, c, s.M, s.N, s.K);
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(C.data(), c, C.size() * 4, cudaMemcpyDeviceToHost));
            double e = max_rel_err(C, ref);
            bool ok = e <= TOL;
            all_ok &= ok;
            printf(" %s=%.2e%s", k.name.c_str(), e, ok ? "" : "(FAIL)");
        }
        printf("\n");
    }

    // ---- 2. large shapes: check against cuBLAS, then time.
    struct Shape { int M, N, K; };
    const Shape shapes[] = {{4096, 4096, 4096}, {4000, 4000, 1000}, {4001, 3999, 1001}};
    float* flush;
    size_t flush_bytes = 2ull * prop.l2CacheSize;
    CK(cudaMalloc(&flush, flush_bytes));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    const int WARM = 3, SAMPLES = 25;

    struct Row { std::string name; Shape s; double err, err64, ms, tflops, pct; };
    std::vector<Row> rows;
    FILE* csv = nullptr;
    if (const char* out = getenv("OUT")) {
        std::string p = std::string(out) + "/matmul-tune.csv";
        csv = fopen(p.c_str(), "w");
        if (csv) fprintf(csv, "kernel,M,N,K,max_rel_err_vs_cublas,max_rel_err_vs_f64_16rows,median_ms,tflops,pct_cublas,samples_ms\n");
    }
    for (const Shape& s : shapes) {
        std::vector<float> A((size_t)s.M * s.K), B((size_t)s.K * s.N);
        fill_random(A);
        fill_random(B);
        CK(cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
        size_t mn = (size_t)s.M * s.N;
        std::vector<float> Cb(mn), C(mn);
        CK(cudaMemset(dC, 0xFF, mn * 4));
        launch(kerns[0], dA, dB, dC, s.M, s.N, s.K);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(Cb.data(), dC, mn * 4, cudaMemcpyDeviceToHost));
        std::vector<double> ref(Cb.begin(), Cb.end());
        // float64 rows on the CPU for a sample of rows, so the cuBLAS reference is itself checked.
        const int SROWS = 16;
        std::vector<int> srow(SROWS);
        std::vector<double> sref((size_t)SROWS * s.N, 0.0);
        for (int r = 0; r < SROWS; ++r) {
            srow[r] = (int)((long long)r * (s.M - 1) / (SROWS - 1));
            for (int k = 0; k < s.K; ++k) {
                double a = A[(size_t)srow[r] * s.K + k];
                for (int j = 0; j < s.N; ++j) sref[(size_t)r * s.N + j] += a * B[(size_t)k * s.N + j];
            }
        }
        auto sampled_err = [&](const std::vector<float>& c) {
            std::vector<float> rows_c((size_t)SROWS * s.N);
            for (int r = 0; r < SROWS; ++r)
                std::copy(c.begin() + (size_t)srow[r] * s.N, c.begin() + (size_t)(srow[r] + 1) * s.N,
                          rows_c.begin() + (size_t)r * s.N);
            return max_rel_err(rows_c, sref);
        };
        double flops = 2.0 * s.M * s.N * s.K;
        double blas_ms = 0;
        for (const Kern& k : kerns) {
            CK(cudaMemset(dC, 0xFF, mn * 4));
            launch(k, dA, dB, dC, s.M, s.N, s.K);
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(C.data(), dC, mn * 4, cudaMemcpyDeviceToHost));
            double err = k.fn ? max_rel_err(C, ref) : 0.0;
            double err64 = sampled_err(C);
            if (err > TOL || err64 > TOL) all_ok = false;
            for (int w = 0; w < WARM; ++w) launch(k, dA, dB, dC, s.M, s.N, s.K);
            std::vector<float> ms(SAMPLES);
            for (int i = 0; i < SAMPLES; ++i) {
                CK(cudaMemsetAsync(flush, i & 0xFF, flush_bytes));
                CK(cudaEventRecord(e0));
                launch(k, dA, dB, dC, s.M, s.N, s.K);
                CK(cudaEventRecord(e1));
                CK(cudaEventSynchronize(e1));
                CK(cudaEventElapsedTime(&ms[i], e0, e1));
            }
            std::vector<float> sorted = ms;
            std::sort(sorted.begin(), sorted.end());
            double med = SAMPLES % 2 ? sorted[SAMPLES / 2] : 0.5 * (sorted[SAMPLES / 2 - 1] + sorted[SAMPLES / 2]);
            if (!k.fn) blas_ms = med;
            Row r{k.name, s, err, err64, med, flops / (med * 1e-3) / 1e12, 100.0 * blas_ms / med};
            rows.push_back(r);
            if (csv) {
                fprintf(csv, "%s,%d,%d,%d,%.3e,%.3e,%.6f,%.3f,%.2f,", r.name.c_str(), s.M, s.N, s.K, r.err, r.err64, r.ms, r.tflops,
                        r.pct);
                for (int i = 0; i < SAMPLES; ++i) fprintf(csv, "%s%.6f", i ? " " : "", ms[i]);
                fprintf(csv, "\n");
            }
        }
    }
    if (csv) fclose(csv);

    printf("\n%-27s %-15s %9s %9s %10s %8s %8s\n", "kernel", "MxNxK", "err_blas", "err_f64", "median_ms",
           "TFLOP/s", "%cuBLAS");
    for (const Row& r : rows) {
        char shape[32];
        snprintf(shape, sizeof shape, "%dx%dx%d", r.s.M, r.s.N, r.s.K);
        printf("%-27s %-15s %9.2e %9.2e %10.4f %8.2f %8.1f%s\n", r.name.c_str(), shape, r.err, r.err64, r.ms, r.tflops,
               r.pct, r.err > TOL || r.err64 > TOL ? "  FAIL" : "");
    }
    printf("\nall checks %s (tolerance %.0e)\n", all_ok ? "passed" : "FAILED", TOL);
    cublasDestroy(g_blas);
    return all_ok ? 0 : 2;
}
