// The command line: ladderbench's own options, and Google Benchmark's flags checked here before
// anything is measured (a bad one costs one line and exit 2, not the ceilings' half minute).
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/profile.hpp"
#include "results_file.hpp"
#include "suite.hpp"

namespace ladder {

constexpr int kUsageError = 2;
constexpr int kRunError = 1;

struct Options {
  std::set<std::string> suites;
  std::vector<std::string> rungs;
  std::optional<std::vector<std::int64_t>> sizes;
  Profile profile = Profile::full;
  bool uncapped = false;
  std::optional<int> device;              // --device N
  bool every_device = false;              // --device all (every_device.hpp)
  bool adaptive = false;                  // --adaptive, or the full and ladder profiles' default (see main)
  std::optional<double> adaptive_cv;      // --adaptive-cv: the coefficient of variation to reach
  std::optional<double> adaptive_budget;  // --adaptive-budget: the extra rounds' share of the first round's time
  int cores = 0;                          // --cores N: the first N cores only
  int numa = -1;                          // --numa NODE: that NUMA node's cores and memory only
  bool smt = false;                       // --smt: a thread a hardware thread, not a core
  bool list = false;
  bool plan = false;  // --plan: what the run would do, without doing it
  bool print_machine_id = false;
  bool list_tests = false;  // --benchmark_list_tests: Google Benchmark lists the cases and runs none
  std::optional<std::string> filter;
  std::optional<std::string> model_config;
  std::optional<std::string> out_path;
  ResultsFormat out_format = ResultsFormat::json;
  bool user_min_time = false;
  bool user_repetitions = false;
  bool no_color = false;                    // --no-color
  bool quiet = false;                       // --quiet: errors and the closing summary only
  bool verbose = false;                     // --verbose: Google Benchmark's full rows
  std::optional<double> min_time_seconds;   // --benchmark_min_time, where given in seconds
  int repetitions = 1;                      // --benchmark_repetitions
  std::vector<std::string> benchmark_args;  // passed on to Google Benchmark
};

[[noreturn]] void usage_error(const std::string& message);

// Exits with the help text (0) or a usage error (2) where the command line asks for it.
Options parse_options(int argc, char** argv);

// What the command line asks of every suite (the run adds its ceilings, machine and memory).
SuiteRequest suite_request(const Options& options);

// Google Benchmark's flags whose values it would take and fail on later (or abort on): an error
// message, or empty where the value is good. `version` as in min_time_flag.
std::string check_benchmark_flag(std::string_view name, std::string_view value, std::string_view version);

}  // namespace ladder
