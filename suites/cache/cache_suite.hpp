#pragma once
#include <string_view>
#include <vector>

#include "suite.hpp"

namespace ladder {

// cache/<one-core|all-cores>/u64/bytes:<working set per thread>, 4 KiB .. 4x the last-level cache
// (two sizes per octave in the full profile, one in the quick one).
inline constexpr std::string_view kCacheSuite = "cache";
Suite cache_suite();
std::vector<BenchmarkCase> cache_cases(const SuiteRequest& request);

}  // namespace ladder
