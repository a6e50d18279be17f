// Transfers and streams: host<->device copies from pageable vs pinned memory, and a chunked
// copy-compute-copy pipeline on one stream vs several, where the copy engines (one per direction)
// and the SMs work on different chunks at once.
// Reference: NVIDIA Developer Blog, "How to Optimize Data Transfers in CUDA C/C++" and "How to
// Overlap Data Transfers in CUDA C/C++" (Harris, 2012); CUDA C++ Best Practices Guide, "Pinned
// Memory" and "Asynchronous and Overlapping Transfers with Computation".

// out[i] = a * in[i] + b for i < n: the compute stage of the pipeline, one chunk per launch.
extern "C" __global__ void pipeline_scale(const float* __restrict__ in, float* __restrict__ out, float a, float b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * in[i] + b;
}
