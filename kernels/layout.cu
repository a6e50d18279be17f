// Data layout: the same work with data arranged two ways.
// Reference: CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory";
// NVIDIA Developer Blog, "How to Access Global Memory Efficiently in CUDA C/C++ Kernels".

// Array of structures: four 4-byte fields per particle, read field by field, so each warp-wide load
// instruction strides 16 bytes and uses a quarter of every sector it fetches.
struct Particle { float x, y, vx, vy; };

extern "C" __global__ void particles_aos(const Particle* __restrict__ in, Particle* __restrict__ out,
                                         int n, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i].x, y = in[i].y, vx = in[i].vx, vy = in[i].vy;
    out[i].x = x + vx * dt;
    out[i].y = y + vy * dt;
    out[i].vx = vx;
    out[i].vy = vy;
}

// Structure of arrays: the same update, each field in its own array; every load is coalesced.
extern "C" __global__ void particles_soa(const float* __restrict__ x, const float* __restrict__ y,
                                         const float* __restrict__ vx, const float* __restrict__ vy,
                                         float* __restrict__ ox, float* __restrict__ oy,
                                         float* __restrict__ ovx, float* __restrict__ ovy, int n, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float vxi = vx[i], vyi = vy[i];
    ox[i] = x[i] + vxi * dt;
    oy[i] = y[i] + vyi * dt;
    ovx[i] = vxi;
    ovy[i] = vyi;
}

// out = 2 * in over a rows x cols row-major matrix, threadIdx.x walking along a row:
// a warp covers 32 consecutive floats (coalesced).
extern "C" __global__ void traverse_rowwise(const float* __restrict__ in, float* __restrict__ out,
                                            int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[(long long)r * cols + c] = 2.0f * in[(long long)r * cols + c];
}

// The same map with threadIdx.x walking down a column: the 32 threads of a warp are `cols` floats
// apart, so every access is its own sector.
extern "C" __global__ void traverse_colwise(const float* __restrict__ in, float* __restrict__ out,
                                            int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[(long long)r * cols + c] = 2.0f * in[(long long)r * cols + c];
}
