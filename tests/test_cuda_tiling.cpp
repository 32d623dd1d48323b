// The CUDA kernels' host-testable logic, run on the host: every element of C is computed by
// exactly one (block, thread, i, j), every element of each shared-memory slice is loaded by
// exactly one thread, the pipelined kernels' copies are aligned and their shared-memory reads
// conflict-free, the random fill is uniform, and a T4 is told which rungs it cannot run.
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

// The banks a set of 16-byte shared-memory reads touches, where each distinct address takes four
// consecutive 4-byte banks of 32. A quarter-warp's float4 reads (or the eight rows one phase of a
// tensor-core fragment load reads) are conflict-free when no two distinct addresses share a bank.
bool distinct_banks(const std::vector<int>& byte_offsets) {
  std::vector<int> addresses = byte_offsets;
  std::sort(addresses.begin(), addresses.end());
  addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());
  std::vector<int> used(32, 0);
  for (int address : addresses)
    for (int w = 0; w < 4; ++w)
      if (++used[(address / 4 + w) % 32] > 1) return false;
  return true;
}

TEST(CudaTiling, WarpTileCoversCOnceEachThreadInsideItsWarpsPart) {
  using T = WarpTile;
  static_assert(T::kLanesM * T::kLanesN == 32 && T::kSub * 2 * T::kLanesM == T::kWarpM && T::kSub * 2 * T::kLanesN == T::kWarpN);
  for (int n : {1, 5, 127, 128, 129, 260}) {
    std::vector<int> hits(static_cast<std::size_t>(n) * n, 0);
    const int blocks = T::blocks(n);
    for (int by = 0; by < blocks; ++by)
      for (int bx = 0; bx < blocks; ++bx)
        for (int t = 0; t < T::kThreads; ++t)
          for (int i = 0; i < T::kPerThreadM; ++i)
            for (int j = 0; j < T::kPerThreadN; ++j) {
              const int r = T::tile_row(t, i), c = T::tile_col(t, j);
              ASSERT_GE(r, T::warp_m(t) * T::kWarpM);
              ASSERT_LT(r, (T::warp_m(t) + 1) * T::kWarpM) << "a thread strays outside its warp's part";
              ASSERT_GE(c, T::warp_n(t) * T::kWarpN);
              ASSERT_LT(c, (T::warp_n(t) + 1) * T::kWarpN);
              const int row = by * T::kBlockM + r, col = bx * T::kBlockN + c;
              if (row < n && col < n) ++hits[row * n + col];
            }
    for (int h : hits) ASSERT_EQ(h, 1) << "n=" << n;
  }
}

// Every element of a tile's A slice (kBlockM×kBlockK) and B slice (kBlockK×kBlockN) is copied by
// exactly one chunk of `chunk` elements of `element_bytes`, each to a 16-byte aligned place in
// shared memory (cp.async's unit).
template <class T>
void expect_each_slice_element_copied_once(int chunk, int element_bytes) {
  std::vector<int> a_hits(T::kBlockM * T::kBlockK, 0), b_hits(T::kBlockK * T::kBlockN, 0);
  for (int c = 0; c < T::kChunksA; ++c) {
    ASSERT_EQ((T::a_chunk_row(c) * T::kStrideA + T::a_chunk_col(c)) * element_bytes % 16, 0)
        << "cp.async needs 16-byte aligned chunks";
    for (int v = 0; v < chunk; ++v) ++a_hits[T::a_chunk_row(c) * T::kBlockK + T::a_chunk_col(c) + v];
  }
  for (int c = 0; c < T::kChunksB; ++c) {
    ASSERT_EQ((T::b_chunk_row(c) * T::kStrideB + T::b_chunk_col(c)) * element_bytes % 16, 0);
    for (int v = 0; v < chunk; ++v) ++b_hits[T::b_chunk_row(c) * T::kBlockN + T::b_chunk_col(c) + v];
  }
  for (int h : a_hits) EXPECT_EQ(h, 1);
  for (int h : b_hits) EXPECT_EQ(h, 1);
}

TEST(CudaTiling, WarpTileCopiesEachSliceElementOnceIn16ByteChunks) {
  using T = WarpTile;
  expect_each_slice_element_copied_once<T>(4, 4);
  EXPECT_EQ(T::kChunksA % T::kThreads, 0);  // every thread copies the same number of chunks
  EXPECT_EQ(T::kChunksB % T::kThreads, 0);
  EXPECT_LE(T::kStages * (T::kSliceA + T::kSliceB) * 4, 48 * 1024) << "static shared memory is at most 48 KiB";
}

// Each quarter-warp's float4 reads of A's rows and of B's columns fall in distinct banks; with
// A's rows unpadded (stride 16 floats) they would not, which this test would catch.
TEST(CudaTiling, WarpTileSharedReadsOfAQuarterWarpAreConflictFree) {
  using T = WarpTile;
  for (int warp = 0; warp < T::kThreads / 32; ++warp)
    for (int quarter = 0; quarter < 4; ++quarter)
      for (int half = 0; half < 2; ++half) {  // the two 4-row (4-column) blocks a thread reads
        std::vector<int> a_reads, b_reads;
        for (int lane = quarter * 8; lane < quarter * 8 + 8; ++lane) {
          const int t = warp * 32 + lane;
          a_reads.push_back(T::tile_row(t, half * T::kSub) * T::kStrideA * 4);
          b_reads.push_back(T::tile_col(t, half * T::kSub) * 4);
        }
        EXPECT_TRUE(distinct_banks(a_reads)) << "A, warp " << warp << " quarter " << quarter;
        EXPECT_TRUE(distinct_banks(b_reads)) << "B, warp " << warp << " quarter " << quarter;
      }
  std::vector<int> unpadded;
  for (int lane = 0; lane < 8; ++lane) unpadded.push_back(T::tile_row(lane, 0) * T::kBlockK * 4);
  EXPECT_FALSE(distinct_banks(unpadded));
}

TEST(CudaTiling, MmaTileFragmentsCoverCOnce) {
  using T = MmaTile;
  for (int n : {1, 9, 127, 128, 136, 257}) {
    std::vector<int> hits(static_cast<std::size_t>(n) * n, 0);
    const int blocks = T::blocks(n);
    for (int by = 0; by < blocks; ++by)
      for (int bx = 0; bx < blocks; ++bx)
        for (int warp = 0; warp < T::kThreads / 32; ++warp)
          for (int fm = 0; fm < T::kFragmentsM; ++fm)
            for (int fn = 0; fn < T::kFragmentsN; ++fn)
              for (int e = 0; e < T::kFragment * T::kFragment; ++e) {
                const int row = by * T::kBlockM + T::fragment_row(warp, fm) + e / T::kFragment;
                const int col = bx * T::kBlockN + T::fragment_col(warp, fn) + e % T::kFragment;
                if (row < n && col < n) ++hits[row * n + col];
              }
    for (int h : hits) ASSERT_EQ(h, 1) << "n=" << n;
  }
}

// WMMA's loads and stores want 32-byte aligned pointers and leading dimensions a multiple of 8
// elements; cp.async 16-byte chunks; and the three stages must fit what a T4's block may ask for.
TEST(CudaTiling, MmaTileSlicesAreCopiedOnceAndEveryFragmentIsAligned) {
  using T = MmaTile;
  expect_each_slice_element_copied_once<T>(T::kChunk, 2);
  EXPECT_EQ(T::kStrideA % 8, 0);
  EXPECT_EQ(T::kStrideB % 8, 0);
  for (int stage = 0; stage < T::kStages; ++stage)
    for (int warp = 0; warp < T::kThreads / 32; ++warp)
      for (int k = 0; k < T::kBlockK; k += T::kFragment) {
        for (int fm = 0; fm < T::kFragmentsM; ++fm)
          EXPECT_EQ((stage * T::kSliceA + T::fragment_row(warp, fm) * T::kStrideA + k) * 2 % 32, 0);
        for (int fn = 0; fn < T::kFragmentsN; ++fn)
          EXPECT_EQ((T::kStages * T::kSliceA + stage * T::kSliceB + k * T::kStrideB + T::fragment_col(warp, fn)) * 2 % 32, 0);
      }
  EXPECT_LE(T::kSharedBytes, 64 * 1024) << "a T4 (sm_75) grants a block at most 64 KiB";
  EXPECT_LE(T::kEpilogueBytes, T::kSharedBytes);
}

// A fragment load reads eight 16-byte rows at a time; the padding puts them in distinct banks.
TEST(CudaTiling, MmaTileEightRowsOfAFragmentFallInDistinctBanks) {
  using T = MmaTile;
  for (int first = 0; first < 16; first += 8) {
    std::vector<int> a_rows, b_rows, unpadded;
    for (int r = first; r < first + 8; ++r) {
      a_rows.push_back(r * T::kStrideA * 2);
      b_rows.push_back(r * T::kStrideB * 2);
      unpadded.push_back(r * T::kBlockN * 2);
    }
    EXPECT_TRUE(distinct_banks(a_rows));
    EXPECT_TRUE(distinct_banks(b_rows));
    EXPECT_FALSE(distinct_banks(unpadded));
  }
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
