// What differs between the Google Benchmark versions the program builds against: 1.7 (Debian 12)
// and 1.8 or later (Debian 13, Ubuntu 24.04 as on a lent H200).
#pragma once
#include <cstdio>
#include <string>
#include <string_view>

namespace ladder {

// Whether a run failed (and has no figures), and why. 1.7 says so with error_occurred and
// error_message; 1.8 replaced them with skipped and skip_message. Templates, so that the branch
// for the other version is never compiled.
template <class Run>
bool run_failed(const Run& run) {
  if constexpr (requires { run.error_occurred; })
    return run.error_occurred;
  else
    return run.skipped != decltype(run.skipped){};  // anything but NotSkipped
}
template <class Run>
std::string run_error(const Run& run) {
  if constexpr (requires { run.error_message; })
    return run.error_message;
  else
    return run.skip_message;
}

// --benchmark_min_time=<value> as this build's Google Benchmark reads it (`version`: "1.7.1",
// "1.8.3"). 1.8 takes "<seconds>s" (or "<n>x", iterations) and warns on every case at a bare
// number, the only form 1.7 reads; seconds are written in the library's form either way.
inline std::string min_time_flag(std::string value, std::string_view version) {
  int major = 0, minor = 0;
  std::sscanf(std::string(version).c_str(), "%d.%d", &major, &minor);
  const bool takes_a_unit = major > 1 || (major == 1 && minor >= 8);
  if (!value.empty() && value.back() == 'x') return "--benchmark_min_time=" + value;  // 1.8's iterations
  if (!value.empty() && value.back() == 's') value.pop_back();
  return "--benchmark_min_time=" + value + (takes_a_unit ? "s" : "");
}

}  // namespace ladder
