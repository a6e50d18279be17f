// The maximum of each row of a row-major matrix: one block per row, a shared-memory tree.

template <int BLOCK>
__global__ void row_max(const float* in, float* out, int cols) {
    __shared__ float best[BLOCK];
    const float* row = in + (size_t)blockIdx.x * cols;
    float m = __int_as_float(0xff800000);  // -infinity (NVRTC has no <math.h> INFINITY)
    for (int c = threadIdx.x; c < cols; c += BLOCK) {
        m = fmaxf(m, row[c]);
    }
    best[threadIdx.x] = m;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) {
            best[threadIdx.x] = fmaxf(best[threadIdx.x], best[threadIdx.x + s]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        out[blockIdx.x] = best[0];
    }
}
