// The AMX GEMM, written against a tile-operation policy `Tiles` (zero_accumulators, load_a,
// load_b, multiply_accumulate, store_accumulators: whole steps, since AMX intrinsics take the
// tile number as a literal) so that the same code runs on
// AMX hardware (07_amx.cpp) and on a software model of the tile unit (tests/), which checks the
// packing and indexing on machines without AMX. gemm() is the entry point.
//
// Tiles: tmm0..3 hold a 32×32 f32 block of C (2×2 tiles of 16×16), tmm4..5 two 16×32 bf16 A
// tiles, tmm6..7 two B tiles in VNNI layout (16 K-pairs × 16 columns × 2). One K step of 32
// is 4 tile loads and 4 TDPBF16PS (each 16×16×32 multiply-adds).
//
// Include this after the standard headers below (07_amx.cpp includes it inside a target region).
#pragma once
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "../core/dtype.hpp"

namespace ladder::amx {

constexpr std::int64_t kTileRows = 16;
constexpr std::int64_t kTileK = 32;                         // bf16 elements per A tile row (64 bytes)
constexpr std::int64_t kTileElements = kTileRows * kTileK;  // bf16 per A or B tile: 1 KB
constexpr std::int64_t kBlock = 32;                         // C block per step: 2×2 tiles
constexpr std::int64_t kColumnSet = 256;                    // columns of B packed at a time (1 MB at n = 2048)

constexpr std::int64_t round_up(std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; }

// The 64-byte LDTILECFG operand: palette 1, every tile used 16 rows × 64 bytes.
struct alignas(64) TileConfig {
  std::uint8_t palette = 1;
  std::uint8_t start_row = 0;
  std::uint8_t reserved[14] = {};
  std::uint16_t colsb[16] = {};
  std::uint8_t rows[16] = {};
};

inline TileConfig gemm_tile_config() {
  TileConfig cfg;
  for (int t = 0; t < 8; ++t) {
    cfg.colsb[t] = 64;
    cfg.rows[t] = 16;
  }
  return cfg;
}

// Padded copies in tile order: every 16×32 A tile and every 16-pair × 16-column B tile is 1 KB
// of contiguous memory (tile row stride 64 bytes), and one row tile's (or column tile's) K steps
// follow each other. Loading tiles straight from the n×n matrices instead uses a stride of n·2
// bytes: at n = 2048 that is 4 KB, so all 16 rows of a tile fall into one L1 set (12 ways) and
// loads miss; here a C block's K loop reads two sequential streams.
//   A tile (r, s): rows 16r..16r+15, k 32s..32s+31, element (i, k) at [(i%16)*32 + k%32].
//   B tile (c, s) of the current column set's panel: k 32s..32s+31, its columns 16c..16c+15 in
//   VNNI order: (k, j) at [((k%32)/2)*32 + (j%16)*2 + k%2], a tile row holding 16 pairs of k.
// A is packed whole; B one column set at a time into a panel that all threads share and that
// stays in L2 while every row block passes over it (as oneDNN's brgemm copies B per block).
// Padding is zero, which adds nothing.
struct Packed {
  std::int64_t n = 0, mp = 0, kp = 0, np = 0;
  bf16* a = nullptr;        // a_elements()
  bf16* b_panel = nullptr;  // b_panel_elements()
  std::int64_t k_steps() const { return kp / kTileK; }
  std::int64_t a_elements() const { return mp * kp; }
  std::int64_t b_panel_elements() const { return kp * std::min(np, kColumnSet); }
  bf16* a_tile(std::int64_t row_tile, std::int64_t step) const { return a + (row_tile * k_steps() + step) * kTileElements; }
  bf16* b_tile(std::int64_t col_tile_in_set, std::int64_t step) const {
    return b_panel + (col_tile_in_set * k_steps() + step) * kTileElements;
  }
};

inline Packed packed_shape(std::int64_t n) {
  Packed p;
  p.n = n;
  p.mp = round_up(n, kBlock);
  p.kp = round_up(n, kTileK);
  p.np = round_up(n, kBlock);
  return p;
}

// Each thread packs about the 32-row blocks that the static schedule of gemm()'s C blocks gives
// it, so the A it packs is mostly the A it uses (pack_b_panel's barrier follows, so any thread may
// read any of it). A source row is read in order; its 64-byte pieces go to consecutive K tiles.
inline void pack_a(const Packed& p, const bf16* a) {
  const bf16 zero{0};
  const std::int64_t n = p.n;
#pragma omp for schedule(static) nowait
  for (std::int64_t i0 = 0; i0 < p.mp; i0 += kBlock)
    for (std::int64_t i = i0; i < i0 + kBlock; ++i) {
      bf16* dst = p.a_tile(i / kTileRows, 0) + (i % kTileRows) * kTileK;
      for (std::int64_t s = 0; s < p.k_steps(); ++s, dst += kTileElements) {
        const std::int64_t k0 = s * kTileK;
        if (i < n && k0 + kTileK <= n) {
          std::memcpy(dst, a + i * n + k0, sizeof(bf16) * kTileK);
        } else {
          for (std::int64_t kk = 0; kk < kTileK; ++kk) dst[kk] = (i < n && k0 + kk < n) ? a[i * n + k0 + kk] : zero;
        }
      }
    }
}

// Columns [j_begin, j_end) of B into the panel, split over the threads by K steps; each row pair
// is read in order and interleaved into the column tiles.
inline void pack_b_panel(const Packed& p, const bf16* b, std::int64_t j_begin, std::int64_t j_end) {
  const bf16 zero{0};
  const std::int64_t n = p.n;
#pragma omp for schedule(static)
  for (std::int64_t s = 0; s < p.k_steps(); ++s)
    for (std::int64_t pair = 0; pair < kTileK / 2; ++pair) {
      const std::int64_t k = s * kTileK + 2 * pair;
      for (std::int64_t j0 = j_begin; j0 < j_end; j0 += kTileRows) {
        bf16* dst = p.b_tile((j0 - j_begin) / kTileRows, s) + pair * kTileK;
        if (k + 1 < n && j0 + kTileRows <= n) {
          // Through plain uint16 arrays, which the compiler turns into a vector interleave.
          std::uint16_t even[kTileRows], odd[kTileRows], pairs[kTileK];
          std::memcpy(even, b + k * n + j0, sizeof(even));
          std::memcpy(odd, b + (k + 1) * n + j0, sizeof(odd));
          for (std::int64_t jj = 0; jj < kTileRows; ++jj) {
            pairs[2 * jj] = even[jj];
            pairs[2 * jj + 1] = odd[jj];
          }
          std::memcpy(dst, pairs, sizeof(pairs));
        } else {
          for (std::int64_t jj = 0; jj < kTileRows; ++jj)
            for (std::int64_t h = 0; h < 2; ++h) dst[2 * jj + h] = (k + h < n && j0 + jj < n) ? b[(k + h) * n + j0 + jj] : zero;
        }
      }
    }
}

// C = A·B (n×n, row-major); called inside a parallel region, whose threads all take part.
template <class Tiles>
void gemm(const Packed& p, const bf16* a, const bf16* b, float* c) {
  pack_a(p, a);
  const TileConfig cfg = gemm_tile_config();
  Tiles::configure(&cfg);
  alignas(64) float scratch[kBlock * kBlock];
  constexpr std::int64_t tile_stride = kTileK * sizeof(bf16);  // 64 bytes: packed tiles are dense
  for (std::int64_t col_set = 0; col_set < p.np; col_set += kColumnSet) {
    const std::int64_t col_set_end = std::min(p.np, col_set + kColumnSet);
    // Its closing barrier also waits for every thread's pack_a.
    pack_b_panel(p, b, col_set, col_set_end);
    // Its closing barrier keeps the panel until every thread is done with it.
    // Every C block of the set is a work item, row by row: a static share is then about the row
    // blocks this thread packed, and where there are more threads than row blocks (n = 1024 has
    // 32) the extra threads take columns instead of idling.
    const std::int64_t col_blocks = (col_set_end - col_set) / kBlock;
#pragma omp for schedule(static)
    for (std::int64_t item = 0; item < p.mp / kBlock * col_blocks; ++item) {
      const std::int64_t i0 = item / col_blocks * kBlock, j0 = col_set + item % col_blocks * kBlock;
      const bf16 *upper = p.a_tile(i0 / kTileRows, 0), *lower = p.a_tile(i0 / kTileRows + 1, 0);
      const std::int64_t col_tile = (j0 - col_set) / kTileRows;
      const bf16 *left = p.b_tile(col_tile, 0), *right = p.b_tile(col_tile + 1, 0);
      Tiles::zero_accumulators();
      for (std::int64_t s = 0; s < p.k_steps(); ++s) {
        const std::int64_t offset = s * kTileElements;
        Tiles::load_a(upper + offset, lower + offset, tile_stride);
        Tiles::load_b(left + offset, right + offset, tile_stride);
        Tiles::multiply_accumulate();
      }
      const std::int64_t rows = std::min(kBlock, p.n - i0), cols = std::min(kBlock, p.n - j0);
      if (rows == kBlock && cols == kBlock) {
        float* ct = c + i0 * p.n + j0;
        const std::int64_t c_stride = p.n * 4;
        Tiles::store_accumulators(ct, ct + kTileRows, ct + kTileRows * p.n, ct + kTileRows * p.n + kTileRows, c_stride);
      } else if (rows > 0 && cols > 0) {
        Tiles::store_accumulators(scratch, scratch + kTileRows, scratch + kTileRows * kBlock,
                                  scratch + kTileRows * kBlock + kTileRows, kBlock * 4);
        for (std::int64_t r = 0; r < rows; ++r) std::memcpy(c + (i0 + r) * p.n + j0, scratch + r * kBlock, sizeof(float) * cols);
      }
    }
  }
  Tiles::release();
}

// A software model of the tile unit with AMX's semantics for the operations above.
struct EmulatedTiles {
  struct State {
    alignas(64) unsigned char tile[8][16][64];
    TileConfig cfg;
  };
  static State& state() {
    static thread_local State s;
    return s;
  }
  static void configure(const TileConfig* cfg) { state().cfg = *cfg; }
  static void release() {}
  template <int T>
  static void zero() {
    std::memset(state().tile[T], 0, sizeof(state().tile[T]));
  }
  template <int T>
  static void load(const void* base, std::int64_t stride) {
    auto* bytes = static_cast<const unsigned char*>(base);
    for (int r = 0; r < state().cfg.rows[T]; ++r) std::memcpy(state().tile[T][r], bytes + r * stride, state().cfg.colsb[T]);
  }
  template <int T>
  static void store(void* base, std::int64_t stride) {
    auto* bytes = static_cast<unsigned char*>(base);
    for (int r = 0; r < state().cfg.rows[T]; ++r) std::memcpy(bytes + r * stride, state().tile[T][r], state().cfg.colsb[T]);
  }
  static void zero_accumulators() { zero<0>(), zero<1>(), zero<2>(), zero<3>(); }
  static void load_a(const void* upper, const void* lower, std::int64_t stride) {
    load<4>(upper, stride), load<5>(lower, stride);
  }
  static void load_b(const void* left, const void* right, std::int64_t stride) { load<6>(left, stride), load<7>(right, stride); }
  static void multiply_accumulate() { dot<0, 4, 6>(), dot<1, 4, 7>(), dot<2, 5, 6>(), dot<3, 5, 7>(); }
  static void store_accumulators(void* c00, void* c01, void* c10, void* c11, std::int64_t stride) {
    store<0>(c00, stride), store<1>(c01, stride), store<2>(c10, stride), store<3>(c11, stride);
  }
  // TDPBF16PS: C[m][n] += sum over pairs p of A[m][2p]·B[p][2n] + A[m][2p+1]·B[p][2n+1].
  template <int C, int A, int B>
  static void dot() {
    State& s = state();
    const int m_rows = s.cfg.rows[C], n_cols = s.cfg.colsb[C] / 4, pairs = s.cfg.colsb[A] / 4;
    for (int m = 0; m < m_rows; ++m)
      for (int n = 0; n < n_cols; ++n) {
        float acc;
        std::memcpy(&acc, &s.tile[C][m][n * 4], 4);
        for (int p = 0; p < pairs; ++p)
          for (int h = 0; h < 2; ++h) {
            bf16 x, y;
            std::memcpy(&x, &s.tile[A][m][(p * 2 + h) * 2], 2);
            std::memcpy(&y, &s.tile[B][p][(n * 2 + h) * 2], 2);
            acc += to_float(x) * to_float(y);
          }
        std::memcpy(&s.tile[C][m][n * 4], &acc, 4);
      }
  }
};

}  // namespace ladder::amx
