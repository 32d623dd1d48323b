// Rung 12, cuda-regtile: each thread now computes a 4×4 block of C in registers, from 4 values
// of A and 4 of B per k read out of shared memory: 16 multiply-adds per 8 shared loads instead
// of 1 per 2, so the FMA units, not shared-memory bandwidth, set the pace. Slices of A and B are
// loaded as float4 (one 16-byte transaction per thread) where the rows allow.
#include "../core/registry.hpp"
#include "cuda_device.hpp"
#include "device_gemm.hpp"
#include "gemm_tiling.hpp"

namespace ladder {
namespace {

using Tile = cuda::RegisterTile;

// Four consecutive floats of row `row` from column `col`, zero past the matrix's edge.
__device__ inline float4 load4(const float* __restrict__ m, int n, int row, int col, bool vector_ok) {
  if (row >= n) return make_float4(0, 0, 0, 0);
  const float* p = m + static_cast<long long>(row) * n + col;
  if (vector_ok && col + 3 < n) return *reinterpret_cast<const float4*>(p);
  return make_float4(col < n ? p[0] : 0.0f, col + 1 < n ? p[1] : 0.0f, col + 2 < n ? p[2] : 0.0f, col + 3 < n ? p[3] : 0.0f);
}

__global__ void __launch_bounds__(Tile::kThreads)
    regtile_kernel(int n, const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c) {
  __shared__ float a_slice[Tile::kBlockK][Tile::kBlockM];                // transposed: a column of A is a row here
  __shared__ __align__(16) float b_slice[Tile::kBlockK][Tile::kBlockN];  // stored to as float4
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * Tile::kThreadsX + tx;
  const bool vector_ok = n % 4 == 0;  // every row then starts 16-byte aligned
  float acc[Tile::kPerThreadM][Tile::kPerThreadN] = {};
  for (int k0 = 0; k0 < n; k0 += Tile::kBlockK) {
    const float4 av = load4(a, n, blockIdx.y * Tile::kBlockM + Tile::a_row(t), k0 + Tile::a_col(t), vector_ok);
    a_slice[Tile::a_col(t) + 0][Tile::a_row(t)] = av.x;
    a_slice[Tile::a_col(t) + 1][Tile::a_row(t)] = av.y;
    a_slice[Tile::a_col(t) + 2][Tile::a_row(t)] = av.z;
    a_slice[Tile::a_col(t) + 3][Tile::a_row(t)] = av.w;
    const float4 bv = load4(b, n, k0 + Tile::b_row(t), blockIdx.x * Tile::kBlockN + Tile::b_col(t), vector_ok);
    *reinterpret_cast<float4*>(&b_slice[Tile::b_row(t)][Tile::b_col(t)]) = bv;
    __syncthreads();
    // teach: begin (the lines docs/ladder.md shows)
#pragma unroll
    for (int k = 0; k < Tile::kBlockK; ++k) {
      float a_frag[Tile::kPerThreadM], b_frag[Tile::kPerThreadN];
#pragma unroll
      for (int i = 0; i < Tile::kPerThreadM; ++i) a_frag[i] = a_slice[k][ty + Tile::kThreadsY * i];
#pragma unroll
      for (int j = 0; j < Tile::kPerThreadN; ++j) b_frag[j] = b_slice[k][tx + Tile::kThreadsX * j];
#pragma unroll
      for (int i = 0; i < Tile::kPerThreadM; ++i)
#pragma unroll
        for (int j = 0; j < Tile::kPerThreadN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
    }
    // teach: end
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < Tile::kPerThreadM; ++i)
#pragma unroll
    for (int j = 0; j < Tile::kPerThreadN; ++j) {
      const int row = Tile::out_row(blockIdx.y, ty, i), col = Tile::out_col(blockIdx.x, tx, j);
      if (row < n && col < n) c[static_cast<long long>(row) * n + col] = acc[i][j];
    }
}

}  // namespace

GemmRung cuda_regtile_rung(const OptionalRung& which) {
  return cuda::device_f32_rung(
      which.name, Mechanism::hand_written, optional_rung::cuda_tiled.name,
      "CUDA, 64x64 block tiles, 4x4 register blocks per thread, float4 loads", [](const cuda::DeviceOperands& d) {
        const int n = static_cast<int>(d.n), blocks = Tile::blocks(n);
        regtile_kernel<<<dim3(blocks, blocks), dim3(Tile::kThreadsX, Tile::kThreadsY), 0, static_cast<cudaStream_t>(d.stream)>>>(
            n, static_cast<const float*>(d.a), static_cast<const float*>(d.b), d.c);
      });
}

}  // namespace ladder
