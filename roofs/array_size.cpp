#include "array_size.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ladder {

ArraySize large_array_size(Profile profile, std::int64_t last_level_cache_bytes, int arrays, double usable_memory_bytes) {
  if (profile == Profile::smoke) return {std::int64_t{512} << 10, ""};
  ArraySize size{4 * last_level_cache_bytes, ""};
  const std::int64_t profile_cap = profile == Profile::quick ? kLargeArrayQuickCap : kLargeArrayFullCap;
  if (size.bytes > profile_cap)
    size = {profile_cap, fmt::format("the {} profile's cap of {} MiB an array", profile_name(profile), profile_cap >> 20)};
  const auto memory_cap = static_cast<std::int64_t>(kLargeArrayMemoryFraction * usable_memory_bytes / std::max(1, arrays));
  if (usable_memory_bytes > 0 && size.bytes > memory_cap)
    size = {std::max<std::int64_t>(memory_cap, std::int64_t{1} << 20),
            fmt::format("{:.0f}% of the {:.1f} GB of memory usable, over {} arrays", kLargeArrayMemoryFraction * 100,
                        usable_memory_bytes / 1e9, arrays)};
  size.bytes = size.bytes / 4096 * 4096;
  return size;
}

}  // namespace ladder
