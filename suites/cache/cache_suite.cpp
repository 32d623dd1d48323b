#include "cache_suite.hpp"

#include <fmt/format.h>

#include "roofs/read_bandwidth.hpp"

namespace ladder {

std::vector<BenchmarkCase> cache_cases(const SuiteRequest& request) {
  const MachineInfo& machine = *request.machine;
  std::vector<BenchmarkCase> cases;
  const auto sizes = cache::sweep_sizes(machine);
  for (int threads : {1, machine.threads}) {
    const std::string rung = threads == 1 ? "one-core" : "all-cores";
    if (!rung_requested(request, rung) || (threads == 1 && rung == "all-cores")) continue;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      if (request.profile != Profile::full && i % 2) continue;  // whole octaves only
      if (request.profile == Profile::smoke && sizes[i] > (256 << 10)) break;
      const std::int64_t bytes = sizes[i];
      BenchmarkCase c = case_with_axes({kCacheSuite, rung, "u64", "bytes", bytes});
      c.memory_bytes = static_cast<double>(bytes) * threads;
      c.body = [bytes, threads](benchmark::State& state) {
        cache::ReadBuffers buffers(bytes, threads);
        const std::int64_t passes = cache::ReadBuffers::passes_for_timing(buffers.words());
        if (buffers.read(passes) != buffers.expected(passes)) {
          state.SkipWithError("verification failed: the sum of the buffer differs from its closed form");
          return;
        }
        for (auto _ : state) {
          if (buffers.read(passes) != buffers.expected(passes)) {
            state.SkipWithError("checksum differs from its closed form");
            break;
          }
        }
        const double per_iteration = static_cast<double>(passes * buffers.words() * 8 * threads);
        state.SetBytesProcessed(static_cast<std::int64_t>(per_iteration) * state.iterations());
        state.counters["bytes"] = per_iteration;
        state.counters["working_set_bytes"] = static_cast<double>(buffers.words() * 8);
        state.counters["threads"] = threads;
      };
      cases.push_back(std::move(c));
    }
    if (machine.threads == 1) break;
  }
  return cases;
}

namespace {

std::vector<SuiteRung> cache_rungs() {
  return std::vector<SuiteRung>{{"one-core", "u64", "1 core", "", "reads of a working set from 4 KiB to 4x the last-level cache"},
                                {"all-cores", "u64", "all cores", "", "the same on every thread, a working set each"}};
}

}  // namespace

Suite cache_suite() {
  return {.name = std::string(kCacheSuite),
          .summary = "read bandwidth against working-set size, one core and all cores",
          .rungs = cache_rungs,
          .cases = cache_cases};
}

}  // namespace ladder
