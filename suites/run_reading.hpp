// Reading Google Benchmark's runs back for the console reports: the run that stands for a case,
// its counters, its seconds and its axes (as the case was registered, never parsed from its name).
#pragma once
#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "benchmark_compat.hpp"
#include "suite.hpp"

namespace ladder {

using Run = benchmark::BenchmarkReporter::Run;

// Above this coefficient of variation of its repetitions a case is marked noisy (the context's
// noisy_cv, which the report tools read).
inline constexpr double kNoisyCv = 0.10;

// A counter's value, 0 where the run has none.
double counter(const Run& run, std::string_view name);

// The run's time per iteration in seconds.
double run_seconds(const Run& run);

// The run that stands for each case (by its full run name): its median where repetitions made
// one, else its single run.
std::map<std::string, const Run*> representative_runs(const std::vector<Run>& runs);

// The repetitions' coefficient of variation of the case `run` stands for (0 where none was made).
double repetitions_cv(const std::vector<Run>& runs, const Run& run);

// The axes of the case the run timed; null for a case this process never registered.
const CaseAxes* axes_of(const Run& run);

// The runs of one suite's cases that did not fail, each case once (its representative run),
// with their axes.
struct SuiteRun {
  const CaseAxes* axes;
  const Run* run;
};
std::vector<SuiteRun> suite_runs(const std::vector<Run>& runs, std::string_view suite, bool failed_too = false);

// 12.34 s, 5.67 ms or 8.9 us.
std::string format_time(double seconds);

}  // namespace ladder
