// The CUDA kernels' host-testable logic, run on the host: every element of C is computed by
// exactly one (block, thread, i, j), every element of each shared-memory slice is loaded by
// exactly one thread, the random fill is uniform, and a T4 is told which rungs it cannot run.
// Runs everywhere, GPU or not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "cuda/compute_capability.hpp"
#include "cuda/gemm_tiling.hpp"
#include "cuda/uniform_fill.hpp"

namespace ladder::cuda {
namespace {

// sm_75 (T4) has f16 tensor cores but neither TF32 nor BF16 ones; sm_80 (A100) and sm_90 (H100,
// H200) have all three.
TEST(ComputeCapability, AT4LacksTf32AndBf16ButRunsF16AndF32) {
  EXPECT_EQ(capability_shortfall(minimum_capability(DType::bf16), 75, "cublas-bf16"),
            "cublas-bf16 needs compute capability 8.0; this device has 7.5");
  EXPECT_EQ(capability_shortfall(minimum_capability(DType::tf32), 75, "cublas-tf32"),
            "cublas-tf32 needs compute capability 8.0; this device has 7.5");
  EXPECT_EQ(capability_shortfall(minimum_capability(DType::f16), 75, "cublas-f16"), "");
  EXPECT_EQ(capability_shortfall(minimum_capability(DType::f32), 75, "cublas"), "");
  for (int newer : {80, 86, 90})
    for (DType t : {DType::f32, DType::tf32, DType::f16, DType::bf16})
      EXPECT_EQ(capability_shortfall(minimum_capability(t), newer, "rung"), "") << newer;
  EXPECT_NE(capability_shortfall(minimum_capability(DType::f16), 61, "cublas-f16"), "");  // Pascal: none
}

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

// The operands of the cuBLAS ceiling probes: in [-1, 1), mean 0, variance 1/3, neighbours
// unrelated, and a different stream per seed and beyond 2^32 elements.
TEST(CudaFill, UniformValuesSpreadOverMinusOneToOne) {
  const int count = 1 << 20;
  double sum = 0, squares = 0, neighbours = 0;
  float previous = uniform_value(7, 0), low = 1, high = -1;
  for (int i = 1; i <= count; ++i) {
    const float v = uniform_value(7, i);
    ASSERT_GE(v, -1.0f);
    ASSERT_LT(v, 1.0f);
    low = std::min(low, v);
    high = std::max(high, v);
    sum += v;
    squares += static_cast<double>(v) * v;
    neighbours += static_cast<double>(v) * previous;
    previous = v;
  }
  EXPECT_NEAR(sum / count, 0.0, 3e-3);
  EXPECT_NEAR(squares / count, 1.0 / 3, 3e-3);
  EXPECT_NEAR(neighbours / count, 0.0, 3e-3);
  EXPECT_LT(low, -0.999f);
  EXPECT_GT(high, 0.999f);
  int same_across_seeds = 0, same_across_2_32 = 0;
  for (int i = 0; i < 1000; ++i) {
    same_across_seeds += uniform_value(1, i) == uniform_value(2, i);
    same_across_2_32 += uniform_value(1, i) == uniform_value(1, i + (std::int64_t{1} << 32));
  }
  EXPECT_LT(same_across_seeds, 5);
  EXPECT_LT(same_across_2_32, 5);
}

}  // namespace
}  // namespace ladder::cuda
