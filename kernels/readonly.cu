// The read-only data path: one gather, out[i] = in[j(i)], loaded three ways.
//   plain     `const float*` the compiler cannot prove read-only (out may alias in): LDG.E
//   restrict  `const float* __restrict__`: read-only for the kernel's lifetime, LDG.E.CONSTANT
//   ldg       `__ldg()` on plain pointers: LDG.E.CONSTANT, the same instruction
// On compute capability 3.5 the non-coherent loads went through a separate texture cache, the reason
// `__ldg` was once worth writing. Since Volta the L1 and texture caches are one unit (Volta Tuning
// Guide, "Unified Shared Memory/L1/Texture Cache"), and ordinary global loads are cached in it too:
// the default `ld` is `ld.ca`, cache at all levels (PTX ISA, "Cache Operators"; that LDG.E caches in
// L1 by default on sm_80: NVIDIA forum thread 299470, "How does cuda global memory's L1 caching
// work"). So on sm_80 and sm_90 the three variants are expected to hit the same cache at the same
// rate and take the same time: the lesson is the absence of a difference.
// Reference: CUDA C++ Programming Guide, "Global Memory" of compute capability 5.x (`__ldg`, and the
// compiler using it by itself when it can prove the data read-only).
//
// j(i) = (i & ~mask) | (idx[i] & mask), idx a permutation of 0..n-1:
//   mask = ~0 (passed as -1): j = idx[i], a random gather over the whole input, no reuse;
//   mask = 255: j is random within the 256-float window that holds i, so the 8 warps of a 256-thread
//   block read 256 random floats of one 1 KiB window between them, and L1 can serve the repeats.
// Launch: one thread per element, 256-thread blocks for the window to be the block's; n a multiple
// of the window (mask + 1) unless mask is -1, so that j < n.

extern "C" __global__ void gather_plain(const float* in, const unsigned* idx, float* out, int n, int mask)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned m = (unsigned)mask;
    if (i < n) out[i] = in[((unsigned)i & ~m) | (idx[i] & m)];
}

extern "C" __global__ void gather_restrict(const float* __restrict__ in, const unsigned* __restrict__ idx,
                                           float* __restrict__ out, int n, int mask)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned m = (unsigned)mask;
    if (i < n) out[i] = in[((unsigned)i & ~m) | (idx[i] & m)];
}

extern "C" __global__ void gather_ldg(const float* in, const unsigned* idx, float* out, int n, int mask)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned m = (unsigned)mask;
    if (i < n) out[i] = __ldg(&in[((unsigned)i & ~m) | (__ldg(&idx[i]) & m)]);
}
