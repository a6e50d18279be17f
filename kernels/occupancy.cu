// Occupancy and registers: one register-heavy kernel compiled with and without __launch_bounds__.
// Each thread keeps ACC accumulators live across a loop over its k inputs, so it needs about ACC + 12
// registers (ptxas 13.5 for sm_90: 68 for ACC = 56, 76 for ACC = 64). An SM has 65536 registers and
// room for 2048 threads; allocation is per warp in units of 256 registers, i.e. per thread in steps
// of 8 (CUDA C++ Programming Guide, "Compute Capabilities", technical specifications; the CUDA
// Occupancy Calculator). With 256-thread blocks:
//   65-72 registers: floor(65536 / (72 * 256)) = 3 blocks = 24 of 64 warps (37.5 %),
//   57-64 registers: floor(65536 / (64 * 256)) = 4 blocks = 32 of 64 warps (50 %).
// __launch_bounds__(256, 4) asks for 4 resident blocks of 256 threads, which caps ptxas at 64
// registers per thread (CUDA C++ Programming Guide, "Launch Bounds"). For ACC = 56 that costs one
// 8-byte spill per loop iteration (ptxas 13.5); for ACC = 64 the 64 accumulators alone fill the
// 64 registers, so ptxas must spill many of them, every iteration.
// The loop is latency-bound: each iteration's load feeds all ACC FMAs, and the loop is not unrolled,
// so a warp waits for its load every iteration; more resident warps hide more of that wait.
// Launch: one thread per output, 256-thread blocks, ceil(n / 256) blocks. `in` is k rows of n
// floats (row s holds every thread's s-th input, so each load is coalesced); k >= 1.

template <int ACC>
__device__ __forceinline__ void accumulate(const float* __restrict__ in, float* __restrict__ out, int n, int k)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    float acc[ACC];
    float x0 = in[t];
#pragma unroll
    for (int j = 0; j < ACC; ++j) acc[j] = x0 * (float)(j + 1);
#pragma unroll 1
    for (int s = 1; s < k; ++s) {
        float v = in[(long long)s * n + t];
#pragma unroll
        for (int j = 0; j < ACC; ++j) acc[j] = fmaf(acc[j], v, 0.0078125f * (float)(j + 1));
    }
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < ACC; ++j) sum = fmaf(acc[j], 0.03125f, sum);
    out[t] = sum;
}

// 56 accumulators, registers as ptxas likes them.
extern "C" __global__ void accumulate56(const float* __restrict__ in, float* __restrict__ out, int n, int k)
{
    accumulate<56>(in, out, n, k);
}

// 56 accumulators in at most 64 registers: 4 blocks of 256 threads per SM.
extern "C" __global__ __launch_bounds__(256, 4) void accumulate56_bounded(const float* __restrict__ in, float* __restrict__ out, int n, int k)
{
    accumulate<56>(in, out, n, k);
}

// 64 accumulators, registers as ptxas likes them.
extern "C" __global__ void accumulate64(const float* __restrict__ in, float* __restrict__ out, int n, int k)
{
    accumulate<64>(in, out, n, k);
}

// 64 accumulators in at most 64 registers: occupancy bought with spills.
extern "C" __global__ __launch_bounds__(256, 4) void accumulate64_bounded(const float* __restrict__ in, float* __restrict__ out, int n, int k)
{
    accumulate<64>(in, out, n, k);
}
