// Planted bugs: kernels that are wrong on purpose, kept to test kernelgate itself (issue 11): its
// crash isolation, KERNELGATE_KERNEL_TIMEOUT and its compute-sanitizer mode. The planted/ family
// runs only with KERNELGATE_PLANTED=1. Each kernel says which bug it carries and which tool should
// catch it. References: CUDA C++ Programming Guide ("Device Memory Accesses", "Synchronization
// Functions"); Compute Sanitizer user manual (memcheck, racecheck, initcheck).

// out[i] = 2 x[i] for i < n; the last thread also writes out[n], one float past the end of `out`.
// Passes a check of out[0..n) by luck (allocations are larger than asked); memcheck catches it.
extern "C" __global__ void oob_write(const float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * x[i];
    if (i == n - 1) out[n] = 0.0f;  // planted: out of bounds by one element
}

// out[i] = x of the thread mirrored in its block (a block-wide reverse through shared memory), with
// the __syncthreads() between the shared write and the read left out: a read-after-write race
// between warps. racecheck catches it.
extern "C" __global__ void reverse_no_sync(const float* x, float* out, int n)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? x[i] : 0.0f;
    // planted: __syncthreads() missing here
    if (i < n) out[i] = s[blockDim.x - 1 - t];
}

// out[b] = the sum of block b's elements x[256b .. 256b + 255] that are below n, by a tree in shared
// memory. Threads past the end (i >= n) leave s[t] unset, and the tree adds it: the last block's sum
// is right only when the shared words it did not write happen to hold zeros, as they do in a fresh
// context. kernelgate's check catches it: it fills shared memory with 0xFF bytes (NaN) before every
// checked run (harness/shared_poison.rs); compute-sanitizer's initcheck covers global memory only.
extern "C" __global__ void uninit_shared(const float* x, float* out, int n)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (i < n) s[t] = x[i];  // planted: no `else s[t] = 0.0f;`
    __syncthreads();
    for (int h = 128; h > 0; h >>= 1) {
        if (t < h) s[t] += s[t + h];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// out[i] = x[4i+1] + x[4i+2] + x[4i+3] + x[4i+4], read as one float4 from x + 1: a 16-byte load
// from an address 4 bytes past 16-byte alignment. The GPU faults (misaligned address, a sticky
// error); memcheck names the access.
extern "C" __global__ void misaligned_float4(const float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 v = reinterpret_cast<const float4*>(x + 1)[i];  // planted: x + 1 is not 16-byte aligned
        out[i] = v.x + v.y + v.z + v.w;
    }
}

// out[i] = x[i], and a second store through a pointer built from the integer `address` (the case
// passes 0): a write near address 0, where nothing is mapped. The GPU faults (illegal address, a
// sticky error).
extern "C" __global__ void illegal_address(const float* x, float* out, int address, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = x[i];
        reinterpret_cast<float*>(static_cast<size_t>(address))[i] = x[i];  // planted: unmapped address
    }
}

// Spins until flag[0] is at least 2, which nothing ever writes (the case draws it in [-1, 1)), then
// copies x to out: a kernel that never ends. KERNELGATE_KERNEL_TIMEOUT must stop it.
extern "C" __global__ void spin_forever(const float* flag, const float* x, float* out, int n)
{
    while (*reinterpret_cast<const volatile float*>(flag) < 2.0f) {
        // planted: nothing sets the flag
    }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i];
}

// out[i] = x[i]: a correct copy. Its case declares ten times the bytes it moves (Case::bytes), so
// its median implies ten times the bandwidth it reached, far past the device's ceiling: the physics
// guard (harness/guard/) makes it `invalid`.
extern "C" __global__ void too_fast_copy(const float* x, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i];
}

// Blocks of this kernel that have finished, over every launch since the module was loaded: each
// block adds one when it is done.
__device__ unsigned int wrong_later_blocks_done;

// out[i] = 2 x[i] on the first launch of the module, 2 x[i] + 1 on every later one. A block reads
// how many blocks have finished before it starts: during the first launch fewer than a grid's worth
// (at most the other blocks of that launch), from the second on at least one grid's worth. The
// check launches it once and passes; the re-check after timing (harness/recheck.rs) fails it.
extern "C" __global__ void wrong_later(const float* x, float* out, int n)
{
    unsigned int finished = *reinterpret_cast<volatile unsigned int*>(&wrong_later_blocks_done);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float bias = finished >= gridDim.x ? 1.0f : 0.0f;  // planted: later launches add 1
    if (i < n) out[i] = 2.0f * x[i] + bias;
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(&wrong_later_blocks_done, 1u);
}
