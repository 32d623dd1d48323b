// What the console shows after the cases: each suite's report (suite.hpp), each case against its
// roof, and the run's closing lines. All from the runs that went to the file.
#pragma once
#include <benchmark/benchmark.h>

#include <optional>
#include <string>
#include <vector>

#include "console.hpp"
#include "core/load.hpp"
#include "roofs/ceilings.hpp"
#include "run_reading.hpp"
#include "suite.hpp"

namespace ladder {

// The suites' closing tables (part of the closing summary, shown under --quiet too), then the roof check.
void print_console_reports(const std::vector<Run>& runs, const Ceilings& ceilings, Profile profile, Console& console);

// Every roof_fraction of the run (GEMM and roofline cases, each model operation; medians where
// repetitions made them): how many exceed 1, and the largest. Empty where no case has one.
std::string format_roof_check(const std::vector<Run>& runs);

// What the run's last lines say: the noise verdict with its reasons in one line, how many cases
// ran and failed in how long, where the results went, and the commands to run next.
struct ClosingFacts {
  NoiseReport noise;
  std::optional<std::string> results_path;  // empty: nothing was written
  int cases = 0, failed = 0;
  double seconds = 0;
  std::vector<ReportCommand> report_commands;  // the suites' report.py views of what ran
  std::optional<std::string> previous_run;     // this machine's run before, to compare with
};
std::string closing_lines(const ClosingFacts& facts);

// This machine's run before `results_path`: the newest other results file of the same profile in
// its folder (neither partial nor interrupted nor another device's), if there is one.
std::optional<std::string> previous_run(const std::string& results_path, const std::string& profile);

// The cases the runs hold (each once, however many repetitions).
int count_cases(const std::vector<Run>& runs);
// The report.py views of the suites whose cases the runs hold, in the suites' order.
std::vector<ReportCommand> report_commands(const std::vector<Run>& runs);

}  // namespace ladder
