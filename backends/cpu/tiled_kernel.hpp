// The cache-tiled, auto-vectorised kernel shared by the tiled (one core) and parallel (all
// cores) rungs; both files are compiled with the same native flags.
#pragma once
#include <cstdint>
#include <vector>

#include "../core/gemm.hpp"

namespace ladder {

constexpr std::int64_t kTiledRows = 6;   // rows of C per register block: split work in these
constexpr std::int64_t kTiledCols = 32;  // columns of C per register block: 2 × 16 f32 lanes

// C[rows begin..end) = A[rows] · B, blocked for registers and cache (see 04_tiled.cpp).
void gemm_tiled_rows(std::int64_t n, const float* a, const float* b, float* c, std::int64_t row_begin, std::int64_t row_end);

// Its traffic model (traffic_models.hpp's tiled_traffic at its own blocking).
std::vector<TrafficTerm> gemm_tiled_traffic(std::int64_t n, int threads);

}  // namespace ladder
