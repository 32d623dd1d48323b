#include "repetitions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "core/statistics.hpp"
#include "benchmark_compat.hpp"

namespace ladder {

namespace {

// A repetition's time per iteration, in seconds (wall or manual: what the case reports).
double seconds_per_iteration(const Run& run) {
  return run.iterations > 0 ? run.real_accumulated_time / static_cast<double>(run.iterations) : 0;
}

double cv(const std::vector<double>& v) {
  const double m = mean(v);
  return v.size() < 2 || m == 0 ? 0 : sample_stddev(v) / m;
}

}  // namespace

std::string RepetitionPolicy::describe() const {
  return fmt::format(
      "adaptive: every case {} times, then {} more a round for the cases whose repetitions' coefficient of variation "
      "exceeds {:.0f}%, up to {} each, noisiest first, as many as the extra rounds' budget ({:.0f}% of the first "
      "round's time) pays for",
      floor, step, 100 * target_cv, cap, 100 * budget_share);
}

void drop_repeats_from_name(Run& run) { run.run_name.repetitions.clear(); }

namespace {
std::string case_key(const Run& run) {
  benchmark::BenchmarkName name = run.run_name;
  name.repetitions.clear();
  return name.str();
}
}  // namespace

std::map<std::string, std::vector<const Run*>> repetitions_by_case(const std::vector<Run>& runs) {
  std::map<std::string, std::vector<const Run*>> by_case;
  for (const Run& run : runs)
    if (run.run_type == Run::RT_Iteration && !run_failed(run)) by_case[case_key(run)].push_back(&run);
  return by_case;
}

double coefficient_of_variation(const std::vector<const Run*>& repetitions) {
  std::vector<double> seconds;
  seconds.reserve(repetitions.size());
  for (const Run* r : repetitions) seconds.push_back(seconds_per_iteration(*r));
  return cv(seconds);
}

namespace {

// A case that needs another round: fewer repetitions than the cap, and a spread above the target.
struct NoisyCase {
  std::string name;  // the name it was registered under
  std::vector<const Run*> repetitions;
  double cv = 0;
};

std::vector<NoisyCase> noisy_cases(const std::vector<Run>& runs, const RepetitionPolicy& policy) {
  std::vector<NoisyCase> noisy;
  for (const auto& [key, repetitions] : repetitions_by_case(runs)) {
    if (static_cast<int>(repetitions.size()) >= policy.cap) continue;
    if (const double spread = coefficient_of_variation(repetitions); spread > policy.target_cv)
      noisy.push_back({repetitions.front()->run_name.function_name, repetitions, spread});
  }
  return noisy;
}

}  // namespace

std::vector<std::string> cases_needing_more(const std::vector<Run>& runs, const RepetitionPolicy& policy) {
  const std::vector<NoisyCase> noisy = noisy_cases(runs, policy);
  std::vector<std::string> names;
  names.reserve(noisy.size());
  for (const NoisyCase& c : noisy) names.push_back(c.name);
  return names;
}

std::vector<std::string> cases_for_round(const std::vector<Run>& runs, const RepetitionPolicy& policy, double seconds_left,
                                         double wall_per_timed_second) {
  std::vector<NoisyCase> noisy = noisy_cases(runs, policy);
  std::stable_sort(noisy.begin(), noisy.end(), [](const NoisyCase& a, const NoisyCase& b) { return a.cv > b.cv; });
  std::vector<std::string> chosen;
  for (const NoisyCase& c : noisy) {
    double timed = 0;
    for (const Run* r : c.repetitions) timed += r->real_accumulated_time;
    const double cost = policy.step * timed / static_cast<double>(c.repetitions.size()) * wall_per_timed_second;
    if (cost <= seconds_left) {
      chosen.push_back(c.name);
      seconds_left -= cost;
    }
  }
  return chosen;
}

double timed_seconds(const std::vector<Run>& runs) {
  double total = 0;
  for (const Run& run : runs)
    if (run.run_type == Run::RT_Iteration) total += run.real_accumulated_time;
  return total;
}

std::vector<Run> merged_aggregates(const std::vector<Run>& runs) {
  using Statistic = std::function<double(const std::vector<double>&)>;
  const std::vector<std::pair<std::string, Statistic>> statistics{
      {"mean", mean}, {"median", median}, {"stddev", sample_stddev}, {"cv", cv}};
  std::vector<Run> aggregates;
  for (const auto& [name, repetitions] : repetitions_by_case(runs)) {
    if (repetitions.size() < 2) continue;
    std::vector<double> real, cpu;
    std::map<std::string, std::vector<double>> counters;
    for (const Run* r : repetitions) {
      real.push_back(seconds_per_iteration(*r));
      cpu.push_back(r->iterations > 0 ? r->cpu_accumulated_time / static_cast<double>(r->iterations) : 0);
      for (const auto& [key, counter] : r->counters) counters[key].push_back(counter.value);
    }
    for (const auto& [aggregate, statistic] : statistics) {
      Run a = *repetitions.front();
      drop_repeats_from_name(a);
      a.run_type = Run::RT_Aggregate;
      a.aggregate_name = aggregate;
      a.aggregate_unit = aggregate == "cv" ? benchmark::StatisticUnit::kPercentage : benchmark::StatisticUnit::kTime;
      a.repetitions = static_cast<int64_t>(repetitions.size());
      a.repetition_index = Run::no_repetition_index;
      // One iteration holding the statistic: the reporters print accumulated time / iterations.
      a.iterations = 1;
      a.real_accumulated_time = statistic(real);
      a.cpu_accumulated_time = statistic(cpu);
      for (auto& [key, counter] : a.counters) counter.value = statistic(counters[key]);
      aggregates.push_back(a);
    }
  }
  return aggregates;
}

std::vector<Run> RoundNumbering::repetitions(const std::vector<Run>& runs) {
  std::vector<Run> kept;
  for (const Run& run : runs) {
    if (run.run_type == Run::RT_Aggregate) continue;
    Run copy = run;
    drop_repeats_from_name(copy);
    copy.repetition_index = seen_[case_key(run)]++;
    kept.push_back(copy);
  }
  return kept;
}

}  // namespace ladder
