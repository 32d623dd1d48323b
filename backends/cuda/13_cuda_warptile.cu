// Rung 13, cuda-warptile: what cuBLAS's f32 kernels do that cuda-regtile does not. Blocks of
// 128×128 (four times regtile's area, so each value brought from device memory serves twice the
// multiply-adds), each warp a 64×32 part and each thread 8×8 elements: 64 multiply-adds per 16
// 16-byte shared-memory reads, against regtile's 16 per 8 four-byte ones. The next slice of A
// and B is copied into a second shared-memory buffer while this one is multiplied (cp.async on
// sm_80+, which bypasses the registers), so the FMA units do not wait for device memory.
#include "../core/registry.hpp"
#include "async_copy.cuh"
#include "cuda_device.hpp"
#include "device_gemm.hpp"
#include "gemm_tiling.hpp"

namespace ladder {
namespace {

using Tile = cuda::WarpTile;

// Slice `slice` (columns slice·16 .. of A's block rows, rows slice·16 .. of B's block columns)
// into the shared buffers `as` and `bs`.
__device__ inline void load_slice(float* as, float* bs, const float* __restrict__ a, const float* __restrict__ b, int n,
                                  int slice, bool aligned) {
  const int k0 = slice * Tile::kBlockK;
  for (int c = threadIdx.x; c < Tile::kChunksA; c += Tile::kThreads)
    cuda::copy_row_chunk<float, 4>(as + Tile::a_chunk_row(c) * Tile::kStrideA + Tile::a_chunk_col(c), a, n,
                                   blockIdx.y * Tile::kBlockM + Tile::a_chunk_row(c), k0 + Tile::a_chunk_col(c), aligned);
  for (int c = threadIdx.x; c < Tile::kChunksB; c += Tile::kThreads)
    cuda::copy_row_chunk<float, 4>(bs + Tile::b_chunk_row(c) * Tile::kStrideB + Tile::b_chunk_col(c), b, n,
                                   k0 + Tile::b_chunk_row(c), blockIdx.x * Tile::kBlockN + Tile::b_chunk_col(c), aligned);
}

__global__ void __launch_bounds__(Tile::kThreads, 2)
    warptile_kernel(int n, const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c) {
  __shared__ __align__(16) float a_slices[Tile::kStages][Tile::kSliceA];
  __shared__ __align__(16) float b_slices[Tile::kStages][Tile::kSliceB];
  const int t = threadIdx.x;
  const bool aligned = n % 4 == 0;  // every row then starts on a 16-byte boundary
  const int slices = (n + Tile::kBlockK - 1) / Tile::kBlockK;
  float acc[Tile::kPerThreadM][Tile::kPerThreadN] = {};

  // One slice ahead: slice s + 1 is in flight while slice s is multiplied.
  load_slice(a_slices[0], b_slices[0], a, b, n, 0, aligned);
  cuda::commit_copies();
  for (int s = 0; s < slices; ++s) {
    cuda::wait_copies<0>();
    __syncthreads();  // slice s is everyone's, and slice s - 1's buffer is free
    if (s + 1 < slices) load_slice(a_slices[(s + 1) % 2], b_slices[(s + 1) % 2], a, b, n, s + 1, aligned);
    cuda::commit_copies();
    const float* as = a_slices[s % 2];
    const float* bs = b_slices[s % 2];
#pragma unroll
    for (int k4 = 0; k4 < Tile::kBlockK; k4 += 4) {
      float4 a_rows[Tile::kPerThreadM];  // A[row i][k4 .. k4+3] for the thread's 8 rows
#pragma unroll
      for (int i = 0; i < Tile::kPerThreadM; ++i)
        a_rows[i] = *reinterpret_cast<const float4*>(as + Tile::tile_row(t, i) * Tile::kStrideA + k4);
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        float b_cols[Tile::kPerThreadN];
#pragma unroll
        for (int j = 0; j < Tile::kPerThreadN; j += Tile::kSub) {
          const float4 v = *reinterpret_cast<const float4*>(bs + (k4 + kk) * Tile::kStrideB + Tile::tile_col(t, j));
          b_cols[j] = v.x, b_cols[j + 1] = v.y, b_cols[j + 2] = v.z, b_cols[j + 3] = v.w;
        }
        // teach: begin (the lines docs/ladder.md shows)
#pragma unroll
        for (int i = 0; i < Tile::kPerThreadM; ++i) {
          const float a_ik = kk == 0 ? a_rows[i].x : kk == 1 ? a_rows[i].y : kk == 2 ? a_rows[i].z : a_rows[i].w;
#pragma unroll
          for (int j = 0; j < Tile::kPerThreadN; ++j) acc[i][j] += a_ik * b_cols[j];
        }
        // teach: end
      }
    }
  }

#pragma unroll
  for (int i = 0; i < Tile::kPerThreadM; ++i) {
    const int row = blockIdx.y * Tile::kBlockM + Tile::tile_row(t, i);
    if (row >= n) continue;
#pragma unroll
    for (int j = 0; j < Tile::kPerThreadN; j += Tile::kSub) {
      const int col = blockIdx.x * Tile::kBlockN + Tile::tile_col(t, j);
      float* out = c + static_cast<long long>(row) * n + col;
      if (aligned && col + 3 < n) {
        *reinterpret_cast<float4*>(out) = make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
      } else {
#pragma unroll
        for (int e = 0; e < Tile::kSub; ++e)
          if (col + e < n) out[e] = acc[i][j + e];
      }
    }
  }
}

}  // namespace

GemmRung cuda_warptile_rung(const OptionalRung& which) {
  GemmRung rung = cuda::device_f32_rung(
      which.name, Mechanism::hand_written, optional_rung::cuda_regtile.name,
      "CUDA, 128x128 blocks, 64x32 per warp, 8x8 per thread, double-buffered cp.async slices", [](const cuda::DeviceOperands& d) {
        const int n = static_cast<int>(d.n), blocks = Tile::blocks(n);
        warptile_kernel<<<dim3(blocks, blocks), Tile::kThreads, 0, static_cast<cudaStream_t>(d.stream)>>>(
            n, static_cast<const float*>(d.a), static_cast<const float*>(d.b), d.c);
      });
  rung.rivals = {{optional_rung::cublas.name, ">= 0.85", 4096}};
  return rung;
}

}  // namespace ladder
