// What every suite hands to the program: cases, each a Google Benchmark case with its name
// (suite/rung/dtype/n:N), its body, how it is timed and how much memory it needs.
#pragma once
#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ladder {

struct Ceilings;

enum class Timing {
  wall,    // wall-clock time around the loop (UseRealTime): right for multi-threaded work
  manual,  // the body reports each iteration's time (self-timed external processes)
};

struct BenchmarkCase {
  std::string name;
  std::function<void(benchmark::State&)> body;
  Timing timing = Timing::wall;
  double memory_bytes = 0;         // what the case allocates, for refusing sizes that cannot fit
  double device_memory_bytes = 0;  // the same in GPU memory
};

// What the command line asked for, as every suite reads it.
struct SuiteRequest {
  std::string profile = "full";                    // quick | full | smoke (tiny sizes, for tests)
  std::optional<std::vector<std::int64_t>> sizes;  // --sizes: replaces the profile's
  std::vector<std::string> rungs;                  // --rungs: empty means all available
  bool uncapped = false;                           // --no-cap
  std::optional<std::string> model_config;         // --model H,W,C,layers,heads
  const Ceilings* ceilings = nullptr;              // measured before the cases run
};

bool rung_requested(const SuiteRequest& request, const std::string& rung);

// The arrays of the memory-bound suites: 4x the last-level cache, so that DRAM answers; tiny in
// the smoke profile, where only correctness counts.
std::int64_t large_array_bytes(const SuiteRequest& request, std::int64_t last_level_cache_bytes);

// Registers the cases with Google Benchmark; `on_first_call` runs once per case before its
// first call (progress for long runs).
void register_cases(const std::vector<BenchmarkCase>& cases,
                    const std::function<void(const BenchmarkCase&)>& on_first_call);

}  // namespace ladder
