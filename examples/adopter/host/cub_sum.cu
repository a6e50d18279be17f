// A host launcher, as a team's own library would hold one: cub::DeviceReduce::Sum over `n` floats,
// enqueued on the stream it is given. kernelgate cannot compile host code, so this file is built by
// nvcc into a shared library (scripts/build-host) that tests/kernels.rs loads at run time and calls
// from a host step of the program it times (Step::Host).
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

// The temporary storage CUB asks for, allocated on the first call and kept: a timed call allocates
// nothing, and a program captured as a CUDA graph could not allocate.
static void* temp = nullptr;
static size_t temp_bytes = 0;

// Returns a cudaError_t (0: success).
extern "C" int cub_sum(const float* in, float* out, int n, cudaStream_t stream)
{
    size_t need = 0;
    cudaError_t e = cub::DeviceReduce::Sum(nullptr, need, in, out, n, stream);
    if (e != cudaSuccess) return e;
    if (need > temp_bytes) {
        if (temp != nullptr) cudaFree(temp);
        temp = nullptr;
        temp_bytes = 0;
        e = cudaMalloc(&temp, need);
        if (e != cudaSuccess) return e;
        temp_bytes = need;
    }
    return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n, stream);
}
