// Rung 11, cuda-tiled: a block of 32×32 threads stages 32×32 tiles of A and B in shared memory
// and every thread reads them from there: each element fetched from device memory now serves
// 32 multiply-adds instead of one (the GPU form of the CPU's cache tiling).
#include "../core/registry.hpp"
#include "cuda_device.hpp"
#include "device_gemm.hpp"
#include "gemm_tiling.hpp"

namespace ladder {
namespace {

constexpr int kTile = cuda::ElementGrid::kTile;

// teach: begin (the lines docs/ladder.md shows)
__global__ void tiled_kernel(int n, const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c) {
  __shared__ float a_tile[kTile][kTile];
  __shared__ float b_tile[kTile][kTile + 1];  // +1: no bank conflicts
  const int row = cuda::ElementGrid::row(blockIdx.y, threadIdx.y), col = cuda::ElementGrid::col(blockIdx.x, threadIdx.x);
  float sum = 0;
  for (int k0 = 0; k0 < n; k0 += kTile) {
    const int a_col = k0 + threadIdx.x, b_row = k0 + threadIdx.y;
    a_tile[threadIdx.y][threadIdx.x] = row < n && a_col < n ? a[row * n + a_col] : 0.0f;
    b_tile[threadIdx.y][threadIdx.x] = b_row < n && col < n ? b[b_row * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) sum += a_tile[threadIdx.y][k] * b_tile[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) c[row * n + col] = sum;
}
// teach: end

}  // namespace

GemmRung cuda_tiled_rung(const OptionalRung& which) {
  return cuda::device_f32_rung(
      which.name, Mechanism::tiling, optional_rung::cuda_naive.name, "CUDA, 32x32 shared-memory tiles of A and B per block",
      [](const cuda::DeviceOperands& d) {
        const int n = static_cast<int>(d.n), blocks = cuda::ElementGrid::blocks(n);
        tiled_kernel<<<dim3(blocks, blocks), dim3(kTile, kTile), 0, static_cast<cudaStream_t>(d.stream)>>>(
            n, static_cast<const float*>(d.a), static_cast<const float*>(d.b), d.c);
      });
}

}  // namespace ladder
