#include "selection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

namespace ladder {

bool suite_selected(const Options& options, const Suite& suite) {
  return options.suites.empty() || options.suites.count(suite.name);
}

std::vector<BenchmarkCase> apply_filter(const std::vector<BenchmarkCase>& cases, const std::optional<std::string>& filter) {
  if (!filter || filter->empty() || *filter == "all" || *filter == ".") return cases;
  const bool negate = (*filter)[0] == '-';
  std::regex re;
  try {
    re = std::regex(negate ? filter->substr(1) : *filter, std::regex::extended);
  } catch (const std::regex_error& e) {
    usage_error(fmt::format("--benchmark_filter '{}' is not a valid regular expression: {}", *filter, e.what()));
  }
  std::vector<BenchmarkCase> kept;
  for (const auto& c : cases)
    if (std::regex_search(c.name, re) != negate) kept.push_back(c);
  return kept;
}

namespace {

// Why nothing is left to run, where a rung or a whole suite cannot run on this machine.
[[noreturn]] void refuse_empty_run(const Options& options) {
  for (const auto& name : options.rungs)
    for (const Suite& suite : suites()) {
      if (!suite_selected(options, suite)) continue;  // gemm and model share rung names, not reasons
      for (const SuiteRung& rung : suite.rungs())
        if (rung.name == name)
          if (const std::string reason = rung.unavailable_reason(); !reason.empty())
            usage_error(fmt::format("no case to run: {} is unavailable: {}", name, reason));
    }
  for (const Suite& suite : suites()) {
    if (!suite_selected(options, suite) || options.suites.size() != 1) continue;
    const auto rungs = suite.rungs();
    std::string reason = rungs.empty() ? "" : rungs.front().unavailable_reason();
    for (const SuiteRung& rung : rungs)
      if (rung.unavailable_reason() != reason) reason.clear();
    if (!reason.empty())
      usage_error(fmt::format("no case to run: every rung of the {} suite is unavailable: {}", suite.name, reason));
  }
  usage_error("no case to run: the suites, filter, rungs and sizes select nothing available");
}

}  // namespace

std::vector<BenchmarkCase> select_cases(const Options& options, const SuiteRequest& request) {
  std::vector<BenchmarkCase> cases;
  for (const Suite& suite : suites()) {
    if (!suite_selected(options, suite)) continue;
    for (auto& c : suite.cases(request))  // a name twice (overhead's tiny GEMMs and gemm's own) runs once
      if (std::none_of(cases.begin(), cases.end(), [&](const BenchmarkCase& k) { return k.name == c.name; }))
        cases.push_back(std::move(c));
  }
  cases = apply_filter(cases, options.filter);
  if (cases.empty()) refuse_empty_run(options);
  return cases;
}

void check_memory(const std::vector<BenchmarkCase>& cases, const MemoryLimit& memory, const SuiteRequest& request) {
  if (memory.bytes > 0) {
    if (const double whole = run_memory_bytes(cases); whole > request.host_usable_bytes) {
      std::string largest;
      double largest_bytes = 0;
      for (const auto& c : cases)
        if (c.shared_memory_bytes + c.memory_bytes > largest_bytes) {
          largest_bytes = c.shared_memory_bytes + c.memory_bytes;
          largest = c.name;
        }
      usage_error(
          fmt::format("the run would hold about {:.1f} GB at once (its largest case, {}, {:.1f} GB), but {} leaves "
                      "{:.1f} GB, of which it may use 80%",
                      whole / 1e9, largest, largest_bytes / 1e9, memory.source, memory.bytes / 1e9));
    }
  }
  for (const auto& c : cases)
    if (c.device_memory_bytes > 0 && c.device_memory_bytes > request.device_usable_bytes())
      usage_error(fmt::format("{} needs about {:.1f} GB of GPU memory, but only {:.1f} GB is free on the device", c.name,
                              c.device_memory_bytes / 1e9, request.device_usable_bytes() / 0.9 / 1e9));
}

}  // namespace ladder
