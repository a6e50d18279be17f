// Launch overhead: a step of several tiny kernels, each a few microseconds of work or less, is
// bound by launch and inter-kernel gaps, not by the GPU. Captured once as a CUDA graph and
// replayed, the same step is submitted as one unit and its gaps shrink.
// Reference: CUDA C++ Programming Guide, "CUDA Graphs"; NVIDIA Developer Blog, "Getting Started
// with CUDA Graphs" (2019).

// x[i] *= a for i < n.
extern "C" __global__ void tiny_scale(float* x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

// x[i] += b for i < n.
extern "C" __global__ void tiny_add(float* x, float b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += b;
}
