// Coalescing: how the addresses of one warp's load map onto 32-byte sectors.
// Reference: CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory".
// All kernels: one element per thread, 1-D grid, `n` elements written.

// Consecutive threads read consecutive floats: each warp load touches 4 full sectors.
extern "C" __global__ void copy_coalesced(const float* __restrict__ in, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

// Thread i reads in[i * stride]: for stride >= 8 every float read costs a whole 32-byte sector.
extern "C" __global__ void read_strided(const float* __restrict__ in, float* __restrict__ out, int n, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[(long long)i * stride];
}

// Thread i reads in[idx[i]] with idx a random permutation: scattered sectors, no reuse.
extern "C" __global__ void gather_random(const float* __restrict__ in, const unsigned* __restrict__ idx,
                                         float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[idx[i]];
}
