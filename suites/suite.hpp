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
  double memory_bytes = 0;         // what the case allocates while it runs, freed after it
  double device_memory_bytes = 0;  // the same in GPU memory
  // What the case uses that stays allocated for the whole run and is shared by every case with
  // the same key (a GEMM size's inputs and references): counted once per key.
  std::string shared_memory_key;
  double shared_memory_bytes = 0;
};

// The host memory a whole run holds at its peak: every shared allocation once, plus the largest
// case's own (cases run one at a time, in any order).
double run_memory_bytes(const std::vector<BenchmarkCase>& cases);

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
ArraySize large_array_size(const std::string& profile, std::int64_t last_level_cache_bytes, int arrays,
                           double usable_memory_bytes);
std::int64_t large_array_bytes(const SuiteRequest& request, std::int64_t last_level_cache_bytes, int arrays = 3);
// Each cap that changed a size in this run, as said on the console (for the context).
std::vector<std::string> array_cap_notes();

// Registers the cases with Google Benchmark; `on_first_call` runs once per case before its
// first call (progress for long runs).
void register_cases(const std::vector<BenchmarkCase>& cases,
                    const std::function<void(const BenchmarkCase&)>& on_first_call);

}  // namespace ladder
