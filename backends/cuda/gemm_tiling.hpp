// Which thread of which block computes and loads what, for the CUDA GEMM kernels: plain
// functions usable on the device and on the host, so the index logic is unit-tested here
// without a GPU (tests/test_cuda_tiling.cpp).
#pragma once
#include "../core/host_device.hpp"

namespace ladder::cuda {

// cuda-naive and cuda-tiled: one thread per element of C, blocks of kTile × kTile threads.
struct ElementGrid {
  static constexpr int kTile = 32;
  LADDER_HD static int row(int block_y, int thread_y) { return block_y * kTile + thread_y; }
  LADDER_HD static int col(int block_x, int thread_x) { return block_x * kTile + thread_x; }
  LADDER_HD static int blocks(int n) { return (n + kTile - 1) / kTile; }
};

// cuda-regtile: a block of 16×16 threads computes a 64×64 tile of C, each thread 4×4 elements
// strided by 16 (so a warp's stores and shared-memory reads are contiguous); A and B come
// through shared memory in 64×16 and 16×64 slices, each thread loading four consecutive floats
// (one float4 where the row allows it) of each.
struct RegisterTile {
  static constexpr int kBlockM = 64, kBlockN = 64, kBlockK = 16;
  static constexpr int kThreadsX = 16, kThreadsY = 16, kThreads = kThreadsX * kThreadsY;
  static constexpr int kPerThreadM = kBlockM / kThreadsY, kPerThreadN = kBlockN / kThreadsX;  // 4 × 4
  LADDER_HD static int out_row(int block_y, int thread_y, int i) { return block_y * kBlockM + thread_y + kThreadsY * i; }
  LADDER_HD static int out_col(int block_x, int thread_x, int j) { return block_x * kBlockN + thread_x + kThreadsX * j; }
  // The A slice is 64 rows × 16 columns: thread t loads row t/4, columns 4·(t%4) .. +3.
  LADDER_HD static int a_row(int t) { return t / (kBlockK / 4); }
  LADDER_HD static int a_col(int t) { return (t % (kBlockK / 4)) * 4; }
  // The B slice is 16 rows × 64 columns: thread t loads row t/16, columns 4·(t%16) .. +3.
  LADDER_HD static int b_row(int t) { return t / (kBlockN / 4); }
  LADDER_HD static int b_col(int t) { return (t % (kBlockN / 4)) * 4; }
  LADDER_HD static int blocks(int n) { return (n + kBlockM - 1) / kBlockM; }
};

}  // namespace ladder::cuda
