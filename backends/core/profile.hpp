// The run's profile: how much it measures. Declared once; the command line, the suites and the
// results' context (profile) use these names.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "text.hpp"

namespace ladder {

enum class Profile {
  smoke,   // tiny sizes, for the tests
  quick,   // the ladder at two sizes, every suite briefly
  full,    // every size, repeated adaptively
  ladder,  // the GEMM ladder alone at one common size, repeated adaptively
  sweep,   // the CPU rungs with a traffic model over n across the cache levels, against their model
};
inline constexpr const char* kProfileNames[] = {"smoke", "quick", "full", "ladder", "sweep"};
static_assert(std::size(kProfileNames) == static_cast<std::size_t>(Profile::sweep) + 1);

inline const char* profile_name(Profile p) { return kProfileNames[static_cast<int>(p)]; }

// "smoke|quick|full|ladder": the context's profile_names, which report tools read the names from.
inline std::string profile_names() { return join(std::begin(kProfileNames), std::end(kProfileNames), '|'); }

inline std::optional<Profile> parse_profile(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kProfileNames); ++i)
    if (name == kProfileNames[i]) return static_cast<Profile>(i);
  return std::nullopt;
}

}  // namespace ladder
