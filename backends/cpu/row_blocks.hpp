// How the packed GEMM loops (packed_gemm.inc) share C's rows among the cores: blocks of whole
// micro-tiles, at most `target` rows each, as many blocks as a multiple of the thread count, and
// within one micro-tile of each other. Blocks of exactly `target` rows would leave n = 1024 with
// 11 blocks of 96: on two cores one waits for the other through the last block, and on 64
// cores 53 would have no work at all.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace ladder {

constexpr std::int64_t round_up(std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; }

// Block b is rows [starts[b], starts[b + 1]); starts.front() = 0 and starts.back() = n.
// `unit` is the micro-tile's row count; `target` a multiple of it.
inline std::vector<std::int64_t> balanced_row_blocks(std::int64_t n, std::int64_t unit, std::int64_t target,
                                                     std::int64_t threads) {
  const std::int64_t units = (n + unit - 1) / unit;
  const std::int64_t at_least = (n + target - 1) / target;  // blocks of at most `target` rows
  const std::int64_t blocks = std::max<std::int64_t>(1, std::min(units, round_up(at_least, threads)));
  std::vector<std::int64_t> starts;
  for (std::int64_t b = 0; b <= blocks; ++b) starts.push_back(std::min(n, b * units / blocks * unit));
  return starts;
}

}  // namespace ladder
