// What the console shows after the cases: the ladder, head-to-head ratios, the model by
// operation and against resolution, the roofline against the ceilings, each case against its
// roof, the ceilings, and whether the machine was quiet. All from the runs that went to the file.
#pragma once
#include <benchmark/benchmark.h>

#include <optional>
#include <string>
#include <vector>

#include "console.hpp"
#include "core/load.hpp"
#include "roofs/ceilings.hpp"

namespace ladder {

// The suites' closing tables (part of the closing summary, shown under --quiet too).
void print_console_reports(const std::vector<benchmark::BenchmarkReporter::Run>& runs, const Ceilings& ceilings,
                           const std::string& profile, Console& console);

// What the run's last lines say: the noise verdict with its reasons in one line, how many cases
// ran and failed in how long, where the results went, and the commands to run next.
struct ClosingFacts {
  NoiseReport noise;
  std::optional<std::string> results_path;  // empty: nothing was written
  int cases = 0, failed = 0;
  double seconds = 0;
  bool gemm_ran = false;                    // the ladder report has rows to show
  std::optional<std::string> previous_run;  // this machine's run before, to compare with
};
std::string closing_lines(const ClosingFacts& facts);

// This machine's run before `results_path`: the newest other results file of the same profile in
// its folder (neither partial nor interrupted nor another device's), if there is one.
std::optional<std::string> previous_run(const std::string& results_path, const std::string& profile);

// The cases the runs hold (each once, however many repetitions), and whether any was a GEMM case.
int count_cases(const std::vector<benchmark::BenchmarkReporter::Run>& runs);
bool any_gemm_case(const std::vector<benchmark::BenchmarkReporter::Run>& runs);

}  // namespace ladder
