// Rung 4, tiled: autovec's loop cut into blocks. A 6×32 block of C is summed over a 256-deep
// K block in local accumulators that the compiler keeps in 12 vector registers, so C is loaded
// and stored once per K block instead of once per multiply-add, and each B vector loaded feeds
// six rows; the K block of B (256×32 floats, 32 KiB) stays in L1/L2 while A's rows pass over
// it. Still plain C++ that the compiler vectorises, still one core.
#include <algorithm>

#include "../core/registry.hpp"
#include "tiled_kernel.hpp"
#include "traffic_models.hpp"

namespace ladder {
namespace {

constexpr std::int64_t kRows = kTiledRows;  // C rows per register block
constexpr std::int64_t kCols = kTiledCols;  // C columns per register block
constexpr std::int64_t kDepth = 256;        // K block

// c[0..rows)[0..cols) (+)= a[0..rows)[0..depth) · b[0..depth)[0..cols); all with row stride n.
// Full blocks take the fixed-size path the vectoriser turns into register accumulators.
template <std::int64_t Rows, std::int64_t Cols>
inline void block(std::int64_t n, const float* __restrict a, const float* __restrict b, float* __restrict c, std::int64_t depth,
                  std::int64_t rows, std::int64_t cols, bool accumulate) {
  float acc[Rows][Cols] = {};
  for (std::int64_t k = 0; k < depth; ++k) {
    const float* __restrict b_row = b + k * n;
    for (std::int64_t r = 0; r < Rows; ++r) {
      const float a_rk = r < rows ? a[r * n + k] : 0.0f;
      for (std::int64_t j = 0; j < Cols; ++j) acc[r][j] += a_rk * (j < cols ? b_row[j] : 0.0f);
    }
  }
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; ++j) c[r * n + j] = (accumulate ? c[r * n + j] : 0.0f) + acc[r][j];
}

// teach: begin (the lines docs/ladder.md shows)
template <std::int64_t Rows, std::int64_t Cols>
inline void full_block(std::int64_t n, const float* __restrict a, const float* __restrict b, float* __restrict c,
                       std::int64_t depth, bool accumulate) {
  float acc[Rows][Cols] = {};
  for (std::int64_t k = 0; k < depth; ++k) {
    const float* __restrict b_row = b + k * n;
#pragma GCC unroll 8
    for (std::int64_t r = 0; r < Rows; ++r) {
      const float a_rk = a[r * n + k];
      for (std::int64_t j = 0; j < Cols; ++j) acc[r][j] += a_rk * b_row[j];
    }
  }
  for (std::int64_t r = 0; r < Rows; ++r)
    for (std::int64_t j = 0; j < Cols; ++j) c[r * n + j] = (accumulate ? c[r * n + j] : 0.0f) + acc[r][j];
}
// teach: end

}  // namespace

void gemm_tiled_rows(std::int64_t n, const float* a, const float* b, float* c, std::int64_t row_begin, std::int64_t row_end) {
  for (std::int64_t k0 = 0; k0 < n; k0 += kDepth) {
    const std::int64_t depth = std::min(kDepth, n - k0);
    const bool accumulate = k0 > 0;  // the first K block overwrites C
    for (std::int64_t j0 = 0; j0 < n; j0 += kCols) {
      const std::int64_t cols = std::min(kCols, n - j0);
      for (std::int64_t i0 = row_begin; i0 < row_end; i0 += kRows) {
        const std::int64_t rows = std::min(kRows, row_end - i0);
        const float* a_block = a + i0 * n + k0;
        const float* b_block = b + k0 * n + j0;
        float* c_block = c + i0 * n + j0;
        if (rows == kRows && cols == kCols) {
          full_block<kRows, kCols>(n, a_block, b_block, c_block, depth, accumulate);
        } else {
          block<kRows, kCols>(n, a_block, b_block, c_block, depth, rows, cols, accumulate);
        }
      }
    }
  }
}

std::vector<TrafficTerm> gemm_tiled_traffic(std::int64_t n, int threads) {
  return tiled_traffic(n, threads, kRows, kCols, kDepth);
}

GemmRung tiled_rung() {
  GemmRung rung;
  rung.name = "tiled";
  rung.threading = Threading::one_core;
  rung.mechanism = Mechanism::tiling;
  rung.unit = Unit::fastest;
  rung.parent = "autovec";
  rung.summary = "blocked for registers (6x32 C block) and cache (256-deep K), auto-vectorised, one core";
  rung.traffic = gemm_tiled_traffic;
  rung.register_block = {kRows, kCols};
  rung.prepare = [](const GemmOperands& op) { return make_kernel([op] { gemm_tiled_rows(op.n, op.a, op.b, op.c, 0, op.n); }); };
  return rung;
}

}  // namespace ladder
