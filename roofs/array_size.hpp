#pragma once
#include "core/profile.hpp"
#include <cstdint>
#include <string>

namespace ladder {

// The arrays of the memory-bound suites: 4x the last-level cache, so that DRAM answers; tiny in
// the smoke profile, where only correctness counts. Capped, so that a VM that reports its host's
// whole L3 (480 MiB seen on a 2-core guest) keeps the profile's promise of time and memory: by
// kLargeArrayCap of the profile, and by kLargeArrayMemoryFraction of the memory the run may use
// divided among the `arrays` the suite holds at once. `capped_by` says which cap applied, if any.
inline constexpr std::int64_t kLargeArrayQuickCap = std::int64_t{256} << 20;
inline constexpr std::int64_t kLargeArrayFullCap = std::int64_t{1} << 30;
inline constexpr double kLargeArrayMemoryFraction = 0.25;
struct ArraySize {
  std::int64_t bytes = 0;
  std::string capped_by;  // empty, or why the size is below 4x the last-level cache
};
ArraySize large_array_size(Profile profile, std::int64_t last_level_cache_bytes, int arrays, double usable_memory_bytes);

}  // namespace ladder
