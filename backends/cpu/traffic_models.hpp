// The traffic models the CPU rungs share (TrafficTerm, gemm.hpp), each from its loops' blocking:
// what a rung re-reads, how often, and what must stay in a cache for the re-reads to hit it.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "../core/gemm.hpp"

namespace ladder {

// The i-k-j loops (interchange, autovec): for each row of C every row of B streams past once,
// and C's row is read and written once per k.
inline std::vector<TrafficTerm> row_streaming_traffic(std::int64_t n, int /*threads*/) {
  const double size = static_cast<double>(n), cube = size * size * size;
  return {{"B streamed once per row of C", 4 * size * size, 4 * cube},
          {"C's row read and written once per k", 4 * size, 8 * cube}};
}

// The tiled loops (tiled, parallel: K blocks of `depth`, then `cols`-wide column blocks, then
// `rows`-row register blocks): B's depth x cols block serves every row block; A's depth-deep
// panel (a thread's rows) is re-read for every column block; C's blocks are read and written
// once per K block.
inline std::vector<TrafficTerm> tiled_traffic(std::int64_t n, int threads, std::int64_t rows, std::int64_t cols,
                                              std::int64_t depth) {
  const double size = static_cast<double>(n), cube = size * size * size;
  const double k = static_cast<double>(std::min(depth, n));
  return {{"B's K block re-read for every register block of rows", 4 * k * static_cast<double>(cols),
           4 * cube / static_cast<double>(rows)},
          {"A's K panel re-read for every column block", 4 * k * size / threads, 4 * cube / static_cast<double>(cols)},
          {"C read and written once per K block", 4 * size * size / threads, 8 * cube / k}};
}

// The packed (BLIS) loops of packed_gemm.inc, from a rung's micro-tile (mr x nr) and blocks (kc
// deep; A blocks of mc rows; packed B blocks of nc columns).
inline std::vector<TrafficTerm> packed_traffic(std::int64_t n, int threads, std::int64_t mr, std::int64_t nr, std::int64_t kc,
                                               std::int64_t mc, std::int64_t nc) {
  const double size = static_cast<double>(n), cube = size * size * size;
  const double k = static_cast<double>(std::min(kc, n)), m = static_cast<double>(std::min(mc, n));
  const double columns = static_cast<double>(std::min(nc, n));
  return {{"B's micro-panel re-read for every micro-tile of rows", 4 * k * static_cast<double>(nr),
           4 * cube / static_cast<double>(mr)},
          {"the packed A block re-read for every micro-panel of B", 4 * m * k, 4 * cube / static_cast<double>(nr)},
          {"the packed B block re-read for every A block", 4 * k * columns, 4 * cube / m},
          {"C read and written once per K block", 4 * size * size / threads, 8 * cube / k}};
}

}  // namespace ladder
