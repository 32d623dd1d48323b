// Rung 10, cuda-naive: the naive loop moved to the GPU, one thread per element of C. Thousands
// of threads in flight hide memory latency that a CPU core waits on, but every multiply-add
// still reads A and B from device memory (through L1/L2): no reuse is arranged on purpose.
#include "../core/registry.hpp"
#include "cuda_device.hpp"
#include "device_gemm.hpp"
#include "gemm_tiling.hpp"

namespace ladder {
namespace {

// teach: begin (the lines docs/ladder.md shows)
__global__ void naive_kernel(int n, const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c) {
  const int row = cuda::ElementGrid::row(blockIdx.y, threadIdx.y), col = cuda::ElementGrid::col(blockIdx.x, threadIdx.x);
  if (row >= n || col >= n) return;
  float sum = 0;
  for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];
  c[row * n + col] = sum;
}
// teach: end

}  // namespace

GemmRung cuda_naive_rung(const OptionalRung& which) {
  return cuda::device_f32_rung(which.name, Mechanism::gpu, "parallel",
                               "CUDA, one thread per element of C, operands from device memory",
                               [](const cuda::DeviceOperands& d) {
                                 const int n = static_cast<int>(d.n), blocks = cuda::ElementGrid::blocks(n);
                                 naive_kernel<<<dim3(blocks, blocks), dim3(cuda::ElementGrid::kTile, cuda::ElementGrid::kTile), 0,
                                                static_cast<cudaStream_t>(d.stream)>>>(n, static_cast<const float*>(d.a),
                                                                                       static_cast<const float*>(d.b), d.c);
                               });
}

}  // namespace ladder
