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

// cuda-warptile: a block of 256 threads (8 warps, 2 down × 4 across) computes a 128×128 tile of
// C, each warp a 64×32 part of it and each thread 8×8 elements: two by two blocks of 4×4, 32 rows
// and 16 columns apart, so that the float4 reads of a quarter-warp from shared memory fall in
// distinct banks. A and B come in slices 16 deep, copied to shared memory as 16-byte chunks
// (asynchronously on sm_80+) while the slice before them is multiplied: two stages, double-buffered.
struct WarpTile {
  static constexpr int kBlockM = 128, kBlockN = 128, kBlockK = 16, kStages = 2;
  static constexpr int kWarpsM = 2, kWarpsN = 4, kThreads = 32 * kWarpsM * kWarpsN;
  static constexpr int kWarpM = kBlockM / kWarpsM, kWarpN = kBlockN / kWarpsN;          // 64 × 32
  static constexpr int kLanesM = 8, kLanesN = 4;                                        // a warp's 32 lanes over its part
  static constexpr int kSub = 4;                                                        // the 4×4 blocks
  static constexpr int kPerThreadM = kWarpM / kLanesM, kPerThreadN = kWarpN / kLanesN;  // 8 × 8
  // A's slice is kept row-major (as it arrives: no transpose in an asynchronous copy), each row
  // padded by one chunk so that rows 4 apart do not share banks; B's slice is row-major, unpadded.
  static constexpr int kStrideA = kBlockK + 4, kStrideB = kBlockN;
  static constexpr int kSliceA = kBlockM * kStrideA, kSliceB = kBlockK * kStrideB;  // floats per stage
  static constexpr int kChunksA = kBlockM * kBlockK / 4, kChunksB = kBlockK * kBlockN / 4;

  LADDER_HD static int warp_m(int t) { return t / 32 / kWarpsN; }
  LADDER_HD static int warp_n(int t) { return t / 32 % kWarpsN; }
  LADDER_HD static int lane_m(int t) { return t % 32 / kLanesN; }
  LADDER_HD static int lane_n(int t) { return t % 32 % kLanesN; }
  // The block-relative row of thread t's i-th row of C (i < 8) and column of its j-th column.
  LADDER_HD static int tile_row(int t, int i) {
    return warp_m(t) * kWarpM + i / kSub * (kWarpM / 2) + lane_m(t) * kSub + i % kSub;
  }
  LADDER_HD static int tile_col(int t, int j) {
    return warp_n(t) * kWarpN + j / kSub * (kWarpN / 2) + lane_n(t) * kSub + j % kSub;
  }
  // Chunk c (4 floats) of A's 128×16 slice and of B's 16×128 slice: its row and first column.
  LADDER_HD static int a_chunk_row(int c) { return c / (kBlockK / 4); }
  LADDER_HD static int a_chunk_col(int c) { return c % (kBlockK / 4) * 4; }
  LADDER_HD static int b_chunk_row(int c) { return c / (kBlockN / 4); }
  LADDER_HD static int b_chunk_col(int c) { return c % (kBlockN / 4) * 4; }
  LADDER_HD static int blocks(int n) { return (n + kBlockM - 1) / kBlockM; }
};

// cuda-mma-f16 and cuda-mma-bf16: the same 128×128 block and 2 × 4 warps, each warp's 64×32 part
// now 4 × 2 tensor-core fragments of 16×16 (WMMA, f32 accumulators). Slices 32 deep of 16-bit A
// and B, 16-byte chunks of 8 elements, three stages in flight; rows padded by one chunk so the
// eight rows a fragment load reads at once fall in distinct banks.
struct MmaTile {
  static constexpr int kBlockM = 128, kBlockN = 128, kBlockK = 32, kStages = 3;
  static constexpr int kWarpsM = 2, kWarpsN = 4, kThreads = 32 * kWarpsM * kWarpsN;
  static constexpr int kWarpM = kBlockM / kWarpsM, kWarpN = kBlockN / kWarpsN;  // 64 × 32
  static constexpr int kFragment = 16, kFragmentsM = kWarpM / kFragment, kFragmentsN = kWarpN / kFragment;
  static constexpr int kChunk = 8;  // 16-bit elements in 16 bytes
  static constexpr int kStrideA = kBlockK + kChunk, kStrideB = kBlockN + kChunk;
  static constexpr int kSliceA = kBlockM * kStrideA, kSliceB = kBlockK * kStrideB;  // elements per stage
  static constexpr int kChunksA = kBlockM * kBlockK / kChunk, kChunksB = kBlockK * kBlockN / kChunk;
  static constexpr int kSharedBytes = kStages * (kSliceA + kSliceB) * 2;
  // After the last slice, each warp stages one 16×16 f32 fragment at a time for the edge's stores.
  static constexpr int kEpilogueBytes = kThreads / 32 * kFragment * kFragment * 4;

  LADDER_HD static int warp_m(int warp) { return warp / kWarpsN; }
  LADDER_HD static int warp_n(int warp) { return warp % kWarpsN; }
  // The block-relative first row and column of warp w's fragment (fm, fn).
  LADDER_HD static int fragment_row(int warp, int fm) { return warp_m(warp) * kWarpM + fm * kFragment; }
  LADDER_HD static int fragment_col(int warp, int fn) { return warp_n(warp) * kWarpN + fn * kFragment; }
  LADDER_HD static int a_chunk_row(int c) { return c / (kBlockK / kChunk); }
  LADDER_HD static int a_chunk_col(int c) { return c % (kBlockK / kChunk) * kChunk; }
  LADDER_HD static int b_chunk_row(int c) { return c / (kBlockN / kChunk); }
  LADDER_HD static int b_chunk_col(int c) { return c % (kBlockN / kChunk) * kChunk; }
  LADDER_HD static int blocks(int n) { return (n + kBlockM - 1) / kBlockM; }
};

}  // namespace ladder::cuda
