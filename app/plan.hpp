// What a run would do on this machine, without doing it (--plan): its cases, the memory it
// holds at once, its threads and where they run, and an estimate of its wall time.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/machine.hpp"
#include "suite.hpp"

namespace ladder {

// What one case costs before any is measured: its repetitions at the minimum time (Google
// Benchmark's sizing runs included), plus its verification.
double prior_case_seconds(int repetitions, double min_time_seconds);

// The repetitions of a case whose call takes `call_seconds`, as Google Benchmark runs them: the
// first, its sizing runs from one call (or a batch of `batch_seconds`) until one lasts the
// minimum time (a call longer than it: that call alone); each later one, that last run's
// iterations once.
struct RepetitionRuns {
  double first_seconds = 0;
  int first_runs = 0;
  double later_seconds = 0;
};
RepetitionRuns repetition_runs(double call_seconds, double min_time_seconds, double batch_seconds = 0);

// What an earlier run of the same profile took, from its results file (read once): each case's
// seconds after each repetition (case_busy_seconds, by repetition index), the ceilings' seconds
// and the triad bandwidth they measured; empty or 0 where the file does not say (a file from
// before the counter: its case_wall_seconds spanned the other cases' interleaved repetitions).
struct History {
  std::map<std::string, std::map<int, double>> case_seconds;
  // A case's seconds over its first `repetitions` (scaled from those it had where fewer); 0: none.
  double case_cost(const std::string& name, int repetitions) const;
  double ceilings_seconds = 0, triad_bytes_per_second = 0;
};
History read_history(const std::string& results_path);

// The ceilings' probes (read sweeps on one core and on all, triad, peaks, overheads), estimated
// from their sizes at `dram_bytes_per_second` (every size taken at that floor, so too long
// rather than too short).
double estimated_ceilings_seconds(const MachineInfo& machine, double dram_bytes_per_second, bool smoke);

struct PlanRequest {
  std::string profile;  // as the results name it: the profile's name, or "custom sizes"
  bool smoke = false;   // the smoke profile's ceilings (a few small probes)
  std::vector<BenchmarkCase> cases;
  double memory_usable_bytes = 0;
  std::string memory_source;
  int repetitions = 1;
  double min_time_seconds = 0.5;
  double extra_rounds_share = 0;            // adaptive rounds: up to this share of the first round
  std::optional<std::string> history_path;  // an earlier run of this profile here
  std::vector<std::string> array_notes;     // why the large arrays are smaller than 4 x the cache
  std::vector<std::int64_t> array_sizes;    // the large arrays' sizes the suites chose
  double setup_seconds = 0;                 // finding the rungs and the cases, as the plan itself did
};

struct Plan {
  std::vector<std::string> case_lines;         // one a case: name, memory, estimated seconds
  std::map<std::string, double> case_seconds;  // each case's estimate, by name
  std::vector<std::string> lines;              // the machine, threads, arrays, memory, the estimate
  std::string summary;                         // one line: cases, memory, threads, time
  double seconds = 0;
};

Plan make_plan(const MachineInfo& machine, const PlanRequest& request);

}  // namespace ladder
