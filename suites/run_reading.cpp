#include "run_reading.hpp"

#include <fmt/format.h>

namespace ladder {

double counter(const Run& run, std::string_view name) {
  const auto it = run.counters.find(std::string(name));
  return it == run.counters.end() ? 0.0 : static_cast<double>(it->second);
}

double run_seconds(const Run& run) { return run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit); }

std::map<std::string, const Run*> representative_runs(const std::vector<Run>& runs) {
  std::map<std::string, const Run*> chosen;
  for (const auto& run : runs) {
    const std::string key = run.run_name.str();
    if (run.run_type == Run::RT_Aggregate) {
      if (run.aggregate_name == "median") chosen[key] = &run;  // reported after its repetitions
    } else if (!chosen.count(key)) {
      chosen[key] = &run;
    }
  }
  return chosen;
}

double repetitions_cv(const std::vector<Run>& runs, const Run& run) {
  for (const auto& other : runs)
    if (other.run_type == Run::RT_Aggregate && other.aggregate_name == "cv" && other.run_name.str() == run.run_name.str())
      return other.real_accumulated_time;  // a fraction, not a time
  return 0;
}

const CaseAxes* axes_of(const Run& run) { return registered_axes(run.run_name.function_name); }

std::vector<SuiteRun> suite_runs(const std::vector<Run>& runs, std::string_view suite, bool failed_too) {
  std::vector<SuiteRun> chosen;
  for (const auto& [key, run] : representative_runs(runs)) {
    const CaseAxes* axes = axes_of(*run);
    if (axes && axes->suite == suite && (failed_too || !run_failed(*run))) chosen.push_back({axes, run});
  }
  return chosen;
}

std::string format_time(double seconds) {
  if (seconds >= 1) return fmt::format("{:.2f} s", seconds);
  if (seconds >= 1e-3) return fmt::format("{:.2f} ms", seconds * 1e3);
  return fmt::format("{:.1f} us", seconds * 1e6);
}

}  // namespace ladder
