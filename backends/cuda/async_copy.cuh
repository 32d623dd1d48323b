// Copies from device memory to shared memory for the pipelined kernels (cuda-warptile,
// cuda-mma-*): on sm_80+ `cp.async`, which moves the bytes without passing through registers and
// lets the copy of the next slice run while this one is multiplied; before sm_80 (the T4) an
// ordinary load and store, so the same kernel runs there, unpipelined. A chunk past the matrix's
// edge is filled with zeros, so the edge tiles need no other case in the arithmetic.
#pragma once
#include <cuda_runtime.h>

namespace ladder::cuda {

// Sixteen bytes from `src` to `dst` (both 16-byte aligned), or sixteen zero bytes where !inside
// (then `src` is not read, but must still be a valid address).
__device__ inline void copy_chunk_async(void* dst, const void* src, bool inside) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const auto shared = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared), "l"(src), "r"(inside ? 16 : 0));
#else
  *static_cast<int4*>(dst) = inside ? *static_cast<const int4*>(src) : make_int4(0, 0, 0, 0);
#endif
}

// Closes the group of copies issued since the last commit.
__device__ inline void commit_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// Waits until at most `Pending` committed groups are still in flight (this thread's copies only:
// a __syncthreads() after it makes every thread's copies visible to all).
template <int Pending>
__device__ inline void wait_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
#endif
}

// `count` consecutive elements of row `row` of an n×n row-major matrix from column `col`, into
// `dst`: one 16-byte copy where the row is 16-byte aligned (n a multiple of `count`: the chunk is
// then wholly inside or wholly outside), else element by element with zeros past the edge.
template <class T, int count>
__device__ inline void copy_row_chunk(T* dst, const T* __restrict__ m, int n, int row, int col, bool aligned) {
  static_assert(sizeof(T) * count == 16, "a chunk is 16 bytes");
  const T* src = m + static_cast<long long>(row) * n + col;
  if (aligned) {
    const bool inside = row < n && col < n;
    copy_chunk_async(dst, inside ? src : m, inside);
    return;
  }
#pragma unroll
  for (int e = 0; e < count; ++e) dst[e] = row < n && col + e < n ? src[e] : T(0.0f);
}

}  // namespace ladder::cuda
