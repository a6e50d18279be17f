// Shared memory per block and occupancy: one kernel that stages each block's tile of `tile` floats
// in dynamic shared memory and writes it back reversed, launched with 16, 96 and 200 KiB of
// dynamic shared memory per block.
//
// An sm_90 SM has 228 KiB of shared memory, a block may take at most 227 KiB, and the driver
// reserves 1 KiB per block; a block asking for more than 48 KiB of dynamic shared memory must be
// opted in (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`; CUDA C++ Programming Guide, "Shared
// Memory" and "Compute Capabilities", technical specifications for 9.0). Resident 256-thread
// blocks per SM are then at most floor(228 / (S + 1)) for S KiB per block: 13 for 16 KiB (the
// thread limit, 2048 / 256 = 8, binds first), 2 for 96 KiB, 1 for 200 KiB. The copy is bound by
// the latency of its loads, so fewer resident warps move fewer bytes at once.
//
// Launch: one block per tile, 256 threads; the dynamic shared memory is `tile` floats. The last
// tile may be partial (`n` need not be a multiple of `tile`).

extern "C" __global__ void stage_reversed(const float* __restrict__ in, float* __restrict__ out, int n, int tile)
{
    extern __shared__ float staged[];
    long long base = (long long)blockIdx.x * tile;
    int len = (int)min((long long)tile, (long long)n - base);
    for (int i = threadIdx.x; i < len; i += blockDim.x) staged[i] = in[base + i];
    __syncthreads();
    for (int i = threadIdx.x; i < len; i += blockDim.x) out[base + i] = staged[len - 1 - i];
}
