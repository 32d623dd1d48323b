// The CUDA kernels' index logic, run on the host: every element of C is computed by exactly one
// (block, thread, i, j), and every element of each shared-memory slice is loaded by exactly one
// thread. Runs everywhere, GPU or not.
#include <gtest/gtest.h>

#include <vector>

#include "cuda/gemm_tiling.hpp"

namespace ladder::cuda {
namespace {

TEST(CudaTiling, ElementGridCoversCOnce) {
  for (int n : {1, 31, 32, 33, 100, 257}) {
    std::vector<int> hits(static_cast<std::size_t>(n) * n, 0);
    const int blocks = ElementGrid::blocks(n);
    for (int by = 0; by < blocks; ++by)
      for (int bx = 0; bx < blocks; ++bx)
        for (int ty = 0; ty < ElementGrid::kTile; ++ty)
          for (int tx = 0; tx < ElementGrid::kTile; ++tx) {
            const int row = ElementGrid::row(by, ty), col = ElementGrid::col(bx, tx);
            if (row < n && col < n) ++hits[row * n + col];
          }
    for (int h : hits) ASSERT_EQ(h, 1) << "n=" << n;
  }
}

TEST(CudaTiling, RegisterTileCoversCOnce) {
  using T = RegisterTile;
  for (int n : {1, 7, 63, 64, 65, 130, 257}) {
    std::vector<int> hits(static_cast<std::size_t>(n) * n, 0);
    const int blocks = T::blocks(n);
    for (int by = 0; by < blocks; ++by)
      for (int bx = 0; bx < blocks; ++bx)
        for (int ty = 0; ty < T::kThreadsY; ++ty)
          for (int tx = 0; tx < T::kThreadsX; ++tx)
            for (int i = 0; i < T::kPerThreadM; ++i)
              for (int j = 0; j < T::kPerThreadN; ++j) {
                const int row = T::out_row(by, ty, i), col = T::out_col(bx, tx, j);
                ASSERT_GE(row, by * T::kBlockM);
                ASSERT_LT(row, (by + 1) * T::kBlockM) << "a thread strays outside its block";
                if (row < n && col < n) ++hits[row * n + col];
              }
    for (int h : hits) ASSERT_EQ(h, 1) << "n=" << n;
  }
}

TEST(CudaTiling, RegisterTileLoadsEachSliceElementOnce) {
  using T = RegisterTile;
  std::vector<int> a_hits(T::kBlockM * T::kBlockK, 0), b_hits(T::kBlockK * T::kBlockN, 0);
  for (int t = 0; t < T::kThreads; ++t)
    for (int v = 0; v < 4; ++v) {  // four consecutive floats per thread (a float4)
      ASSERT_LT(T::a_row(t), T::kBlockM);
      ASSERT_LT(T::a_col(t) + v, T::kBlockK);
      ++a_hits[T::a_row(t) * T::kBlockK + T::a_col(t) + v];
      ASSERT_LT(T::b_row(t), T::kBlockK);
      ASSERT_LT(T::b_col(t) + v, T::kBlockN);
      ++b_hits[T::b_row(t) * T::kBlockN + T::b_col(t) + v];
    }
  for (int h : a_hits) EXPECT_EQ(h, 1);
  for (int h : b_hits) EXPECT_EQ(h, 1);
  EXPECT_EQ(T::a_col(0) % 4, 0);  // float4 loads start on 16-byte boundaries of a row
  EXPECT_EQ(T::b_col(5) % 4, 0);
}

}  // namespace
}  // namespace ladder::cuda
