// The AMX GEMM, written against a tile-operation policy `Tiles` (zero_accumulators, load_a,
// load_b, multiply_accumulate, store_accumulators: whole steps, since AMX intrinsics take the
// tile number as a literal) so that the same code runs on
// AMX hardware (07_amx.cpp) and on a software model of the tile unit (tests/), which checks the
// packing and indexing on machines without AMX.
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
constexpr std::int64_t kTileK = 32;       // bf16 elements per A tile row (64 bytes)
constexpr std::int64_t kBlock = 32;       // C block per step: 2×2 tiles
constexpr std::int64_t kColumnSet = 256;  // columns whose B panels stay in L2 while rows pass

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

// Padded copies: A as mp×kp row-major bf16; B in VNNI layout, kp/2 rows of np×2 bf16, so that
// element (k, j) sits at [(k/2)*np + j]*2 + k%2. Padding is zero, which adds nothing.
struct Packed {
  std::int64_t n = 0, mp = 0, kp = 0, np = 0;
  bf16* a = nullptr;
  bf16* b = nullptr;
};

inline Packed packed_shape(std::int64_t n) {
  Packed p;
  p.n = n;
  p.mp = round_up(n, kBlock);
  p.kp = round_up(n, kTileK);
  p.np = round_up(n, kBlock);
  return p;
}

// Called inside a parallel region: each thread packs its share.
inline void pack(const Packed& p, const bf16* a, const bf16* b) {
  const bf16 zero{0};
#pragma omp for schedule(static) nowait
  for (std::int64_t i = 0; i < p.mp; ++i) {
    bf16* row = p.a + i * p.kp;
    if (i < p.n) {
      std::memcpy(row, a + i * p.n, sizeof(bf16) * p.n);
      std::fill(row + p.n, row + p.kp, zero);
    } else {
      std::fill(row, row + p.kp, zero);
    }
  }
#pragma omp for schedule(static)
  for (std::int64_t kpair = 0; kpair < p.kp / 2; ++kpair) {
    bf16* row = p.b + kpair * p.np * 2;
    for (std::int64_t j = 0; j < p.np; ++j)
      for (std::int64_t h = 0; h < 2; ++h) {
        const std::int64_t k = kpair * 2 + h;
        row[j * 2 + h] = (k < p.n && j < p.n) ? b[k * p.n + j] : zero;
      }
  }
}

// C = A·B for the packed operands; every thread of the enclosing parallel region takes part.
template <class Tiles>
void multiply(const Packed& p, float* c) {
  const TileConfig cfg = gemm_tile_config();
  Tiles::configure(&cfg);
  alignas(64) float scratch[kBlock * kBlock];
  const std::int64_t a_stride = p.kp * 2, b_stride = p.np * 4;  // bytes per tile row
  for (std::int64_t col_set = 0; col_set < p.np; col_set += kColumnSet) {
    const std::int64_t col_set_end = std::min(p.np, col_set + kColumnSet);
#pragma omp for schedule(static)
    for (std::int64_t i0 = 0; i0 < p.mp; i0 += kBlock) {
      for (std::int64_t j0 = col_set; j0 < col_set_end; j0 += kBlock) {
        Tiles::zero_accumulators();
        for (std::int64_t k0 = 0; k0 < p.kp; k0 += kTileK) {
          const bf16* a_tile = p.a + i0 * p.kp + k0;
          const bf16* b_tile = p.b + ((k0 / 2) * p.np + j0) * 2;
          Tiles::load_a(a_tile, a_tile + kTileRows * p.kp, a_stride);
          Tiles::load_b(b_tile, b_tile + kTileRows * 2, b_stride);
          Tiles::multiply_accumulate();
        }
        const std::int64_t rows = std::min(kBlock, p.n - i0), cols = std::min(kBlock, p.n - j0);
        if (rows == kBlock && cols == kBlock) {
          float* ct = c + i0 * p.n + j0;
          const std::int64_t c_stride = p.n * 4;
          Tiles::store_accumulators(ct, ct + kTileRows, ct + kTileRows * p.n,
                                    ct + kTileRows * p.n + kTileRows, c_stride);
        } else if (rows > 0 && cols > 0) {
          Tiles::store_accumulators(scratch, scratch + kTileRows, scratch + kTileRows * kBlock,
                                    scratch + kTileRows * kBlock + kTileRows, kBlock * 4);
          for (std::int64_t r = 0; r < rows; ++r)
            std::memcpy(c + (i0 + r) * p.n + j0, scratch + r * kBlock, sizeof(float) * cols);
        }
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
    for (int r = 0; r < state().cfg.rows[T]; ++r)
      std::memcpy(state().tile[T][r], bytes + r * stride, state().cfg.colsb[T]);
  }
  template <int T>
  static void store(void* base, std::int64_t stride) {
    auto* bytes = static_cast<unsigned char*>(base);
    for (int r = 0; r < state().cfg.rows[T]; ++r)
      std::memcpy(bytes + r * stride, state().tile[T][r], state().cfg.colsb[T]);
  }
  static void zero_accumulators() {
    zero<0>(), zero<1>(), zero<2>(), zero<3>();
  }
  static void load_a(const void* upper, const void* lower, std::int64_t stride) {
    load<4>(upper, stride), load<5>(lower, stride);
  }
  static void load_b(const void* left, const void* right, std::int64_t stride) {
    load<6>(left, stride), load<7>(right, stride);
  }
  static void multiply_accumulate() {
    dot<0, 4, 6>(), dot<1, 4, 7>(), dot<2, 5, 6>(), dot<3, 5, 7>();
  }
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
