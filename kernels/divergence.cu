// Branch divergence: the same arithmetic, chosen per lane or per warp.
// Each element runs one of two formulas of STEPS fused multiply-adds; half the elements take each.
// When the choice differs between the lanes of one warp, the warp runs both formulas one after the
// other, each with half its threads masked off: twice the instructions for the same work.
// Reference: CUDA C++ Programming Guide, "SIMT Architecture" (a warp executes one common
// instruction at a time; divergent paths are executed serially, disabling the threads not on the
// path); CUDA C++ Best Practices Guide, "Branching and Divergence".
// Launch: one thread per element, blockDim.x a multiple of 64 (then lane parity is element parity,
// and the warp index's parity is bit 5 of the element index); any n.

#define STEPS 256

// acc <- 0.75 acc + x, STEPS times: a chain of dependent FMAs converging to 4x.
__device__ __forceinline__ float formula_a(float x)
{
    float acc = x;
#pragma unroll
    for (int k = 0; k < STEPS; ++k) acc = fmaf(acc, 0.75f, x);
    return acc;
}

// acc <- acc + x / 256, STEPS times: another chain, another operand order (so that the compiler
// cannot merge the two branches into one chain with selected constants).
__device__ __forceinline__ float formula_b(float x)
{
    float acc = x;
#pragma unroll
    for (int k = 0; k < STEPS; ++k) acc = fmaf(x, 0.00390625f, acc);
    return acc;
}

// Odd lanes take formula b, even lanes formula a: every warp diverges.
extern "C" __global__ void branch_by_lane(const float* __restrict__ in, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    float y;
    if (threadIdx.x & 1)
        y = formula_b(x);
    else
        y = formula_a(x);
    out[i] = y;
}

// Odd warps take formula b, even warps formula a: every warp agrees, none diverges.
extern "C" __global__ void branch_by_warp(const float* __restrict__ in, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i];
    float y;
    if ((threadIdx.x >> 5) & 1)
        y = formula_b(x);
    else
        y = formula_a(x);
    out[i] = y;
}
