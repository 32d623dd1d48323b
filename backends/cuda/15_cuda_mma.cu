// Rungs cuda-mma-f16 and cuda-mma-bf16: cuda-warptile's blocks and warps, with each warp's
// 64×32 part now computed by the tensor cores (WMMA: 16×16×16 products of 16-bit inputs into f32
// accumulators, which the compiler turns into mma.sync) instead of the FMA units: one
// instruction does 4,096 multiply-adds, where an FMA does one per lane. Inputs are half the
// bytes of f32, and three slices of A and B are in flight (cp.async) so the tensor cores, now
// far faster than the copies, wait less. The GPU's counterpart of the CPU's hand-written `amx`.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <type_traits>

#include "../core/registry.hpp"
#include "async_copy.cuh"
#include "cuda_device.hpp"
#include "device_gemm.hpp"
#include "gemm_tiling.hpp"

namespace ladder {
namespace {

using Tile = cuda::MmaTile;
namespace wmma = nvcuda::wmma;

template <class T>
__device__ inline void load_slice(T* as, T* bs, const T* __restrict__ a, const T* __restrict__ b, int n, int slice,
                                  bool aligned) {
  const int k0 = slice * Tile::kBlockK;
  for (int c = threadIdx.x; c < Tile::kChunksA; c += Tile::kThreads)
    cuda::copy_row_chunk<T, Tile::kChunk>(as + Tile::a_chunk_row(c) * Tile::kStrideA + Tile::a_chunk_col(c), a, n,
                                          blockIdx.y * Tile::kBlockM + Tile::a_chunk_row(c), k0 + Tile::a_chunk_col(c), aligned);
  for (int c = threadIdx.x; c < Tile::kChunksB; c += Tile::kThreads)
    cuda::copy_row_chunk<T, Tile::kChunk>(bs + Tile::b_chunk_row(c) * Tile::kStrideB + Tile::b_chunk_col(c), b, n,
                                          k0 + Tile::b_chunk_row(c), blockIdx.x * Tile::kBlockN + Tile::b_chunk_col(c), aligned);
}

template <class T>
__device__ inline void mma_block(int n, const T* __restrict__ a, const T* __restrict__ b, float* __restrict__ c,
                                 unsigned char* shared) {
  T* const as = reinterpret_cast<T*>(shared);
  T* const bs = as + Tile::kStages * Tile::kSliceA;
  const int warp = threadIdx.x / 32;
  const bool aligned = n % Tile::kChunk == 0;  // every row then starts on a 16-byte boundary
  const int slices = (n + Tile::kBlockK - 1) / Tile::kBlockK;

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[Tile::kFragmentsM][Tile::kFragmentsN];
#pragma unroll
  for (int fm = 0; fm < Tile::kFragmentsM; ++fm) {
#pragma unroll
    for (int fn = 0; fn < Tile::kFragmentsN; ++fn) wmma::fill_fragment(acc[fm][fn], 0.0f);
  }

  // kStages - 1 slices ahead; a group is committed every step (empty past the last slice) so
  // that "all but kStages - 2 groups done" always means "slice s is here".
#pragma unroll
  for (int s = 0; s < Tile::kStages - 1; ++s) {
    if (s < slices) load_slice(as + s * Tile::kSliceA, bs + s * Tile::kSliceB, a, b, n, s, aligned);
    cuda::commit_copies();
  }
  for (int s = 0; s < slices; ++s) {
    cuda::wait_copies<Tile::kStages - 2>();
    __syncthreads();  // slice s is everyone's; the buffer slice s - 1 used is free
    const int next = s + Tile::kStages - 1;
    if (next < slices)
      load_slice(as + next % Tile::kStages * Tile::kSliceA, bs + next % Tile::kStages * Tile::kSliceB, a, b, n, next, aligned);
    cuda::commit_copies();
    const T* a_slice = as + s % Tile::kStages * Tile::kSliceA;
    const T* b_slice = bs + s % Tile::kStages * Tile::kSliceB;
    // teach: begin (the lines docs/ladder.md shows)
#pragma unroll
    for (int k = 0; k < Tile::kBlockK; k += Tile::kFragment) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a_frag[Tile::kFragmentsM];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> b_frag[Tile::kFragmentsN];
#pragma unroll
      for (int fm = 0; fm < Tile::kFragmentsM; ++fm)
        wmma::load_matrix_sync(a_frag[fm], a_slice + Tile::fragment_row(warp, fm) * Tile::kStrideA + k, Tile::kStrideA);
#pragma unroll
      for (int fn = 0; fn < Tile::kFragmentsN; ++fn)
        wmma::load_matrix_sync(b_frag[fn], b_slice + k * Tile::kStrideB + Tile::fragment_col(warp, fn), Tile::kStrideB);
#pragma unroll
      for (int fm = 0; fm < Tile::kFragmentsM; ++fm)
#pragma unroll
        for (int fn = 0; fn < Tile::kFragmentsN; ++fn) wmma::mma_sync(acc[fm][fn], a_frag[fm], b_frag[fn], acc[fm][fn]);
    }
    // teach: end
  }

  const int row0 = blockIdx.y * Tile::kBlockM, col0 = blockIdx.x * Tile::kBlockN;
  if (aligned && row0 + Tile::kBlockM <= n && col0 + Tile::kBlockN <= n) {
    // An inner block: fragments straight to C (n a multiple of 8 keeps each one 32-byte aligned).
#pragma unroll
    for (int fm = 0; fm < Tile::kFragmentsM; ++fm)
#pragma unroll
      for (int fn = 0; fn < Tile::kFragmentsN; ++fn)
        wmma::store_matrix_sync(
            c + static_cast<long long>(row0 + Tile::fragment_row(warp, fm)) * n + col0 + Tile::fragment_col(warp, fn),
            acc[fm][fn], n, wmma::mem_row_major);
    return;
  }
  // An edge block: each fragment through the warp's 16×16 scratch, stored element by element
  // where it lies inside C. The scratch reuses the slices' memory once every warp is done with it.
  cuda::wait_copies<0>();
  __syncthreads();
  float* scratch = reinterpret_cast<float*>(shared) + warp * Tile::kFragment * Tile::kFragment;
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int fm = 0; fm < Tile::kFragmentsM; ++fm)
#pragma unroll
    for (int fn = 0; fn < Tile::kFragmentsN; ++fn) {
      wmma::store_matrix_sync(scratch, acc[fm][fn], Tile::kFragment, wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < Tile::kFragment * Tile::kFragment; e += 32) {
        const int row = row0 + Tile::fragment_row(warp, fm) + e / Tile::kFragment;
        const int col = col0 + Tile::fragment_col(warp, fn) + e % Tile::kFragment;
        if (row < n && col < n) c[static_cast<long long>(row) * n + col] = scratch[e];
      }
      __syncwarp();
    }
}

template <class T>
__global__ void __launch_bounds__(Tile::kThreads)
    mma_kernel(int n, const T* __restrict__ a, const T* __restrict__ b, float* __restrict__ c) {
  extern __shared__ __align__(128) unsigned char shared[];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  // bf16 tensor cores came with sm_80: the rung reports itself unavailable before launching.
  if constexpr (std::is_same_v<T, __nv_bfloat16>)
    __trap();
  else
    mma_block(n, a, b, c, shared);
#else
  mma_block(n, a, b, c, shared);
#endif
}

template <class T>
GemmRung mma_rung(const OptionalRung& which, const char* summary) {
  GemmRung rung;
  rung.name = which.name;
  rung.dtype = which.dtype;
  rung.threading = Threading::device;
  rung.self_timed = true;
  rung.mechanism = Mechanism::matrix_units;
  rung.unit = Unit::tensor_cores;
  rung.traffic = compulsory_traffic_only;
  rung.parent = optional_rung::cuda_warptile.name;  // WMMA tiles against the best FMA kernel
  rung.summary = summary;
  rung.unavailable_reason = [which] { return cuda::unavailable_for(which.dtype, which.name); };
  rung.prepare = [which](const GemmOperands& op) {
    auto kernel = cuda::make_device_gemm(op, which.dtype, [](const cuda::DeviceOperands& d) {
      const int n = static_cast<int>(d.n), blocks = Tile::blocks(n);
      mma_kernel<T><<<dim3(blocks, blocks), Tile::kThreads, Tile::kSharedBytes, static_cast<cudaStream_t>(d.stream)>>>(
          n, static_cast<const T*>(d.a), static_cast<const T*>(d.b), d.c);
    });
    // Three stages need more than the 48 KiB of shared memory a block gets without asking.
    cuda::check(cudaFuncSetAttribute(mma_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, Tile::kSharedBytes),
                "cudaFuncSetAttribute(shared memory)");
    return kernel;
  };
  return rung;
}

}  // namespace

GemmRung cuda_mma_f16_rung(const OptionalRung& which) {
  GemmRung rung =
      mma_rung<__half>(which, "CUDA on tensor cores (WMMA), f16 in, f32 accumulation; 128x128 blocks, 3-stage cp.async");
  rung.rivals = {{optional_rung::cublas_f16.name, ">= 0.6", 4096}};
  return rung;
}

GemmRung cuda_mma_bf16_rung(const OptionalRung& which) {
  GemmRung rung =
      mma_rung<__nv_bfloat16>(which, "CUDA on tensor cores (WMMA), bf16 in, f32 accumulation; 128x128 blocks, 3-stage cp.async");
  rung.rivals = {{optional_rung::cublas_bf16.name, ""}};
  return rung;
}

}  // namespace ladder
