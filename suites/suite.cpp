#include "suite.hpp"

#include <algorithm>
#include <memory>

namespace ladder {

bool rung_requested(const SuiteRequest& request, const std::string& rung) {
  return request.rungs.empty() || std::find(request.rungs.begin(), request.rungs.end(), rung) != request.rungs.end();
}

std::int64_t large_array_bytes(const SuiteRequest& request, std::int64_t last_level_cache_bytes) {
  return request.profile == "smoke" ? std::int64_t{512} << 10 : 4 * last_level_cache_bytes;
}

void register_cases(const std::vector<BenchmarkCase>& cases,
                    const std::function<void(const BenchmarkCase&)>& on_first_call) {
  for (const BenchmarkCase& c : cases) {
    auto started = std::make_shared<bool>(false);
    auto* b = benchmark::RegisterBenchmark(c.name.c_str(), [c, started, on_first_call](benchmark::State& state) {
      if (!*started) {
        *started = true;
        if (on_first_call) on_first_call(c);
      }
      c.body(state);
    });
    // Wall-clock time: multi-threaded work must not be judged by one thread's CPU time.
    if (c.timing == Timing::manual) {
      b->UseManualTime();
    } else {
      b->UseRealTime();
    }
    b->Unit(benchmark::kMillisecond);
  }
}

}  // namespace ladder
