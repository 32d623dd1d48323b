#include "plan.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>

#include "progress.hpp"
#include "roofs/read_bandwidth.hpp"

namespace ladder {
namespace {

std::string gib(double bytes) { return fmt::format("{:.1f} GiB", bytes / (1 << 30)); }

std::string mib(double bytes) {
  return bytes >= (1 << 30) ? fmt::format("{:.1f} GiB", bytes / (1 << 30)) : fmt::format("{:.0f} MiB", bytes / (1 << 20));
}

std::string short_duration(double seconds) { return seconds < 10 ? fmt::format("{:.1f} s", seconds) : format_duration(seconds); }

}  // namespace

double prior_case_seconds(int repetitions, double min_time_seconds) { return repetitions * min_time_seconds * 1.3 + 0.2; }

RepetitionRuns repetition_runs(double call_seconds, double min_time_seconds, double batch_seconds) {
  // Google Benchmark's sizing: one iteration, then up to ten times as many, aiming at 1.4 times
  // the minimum time from the last run's time, until a run lasts the minimum time; later
  // repetitions reuse that run's iterations.
  RepetitionRuns runs;
  double iterations = call_seconds > 0 ? std::max(1.0, std::round(batch_seconds / call_seconds)) : 1;
  for (int run = 0; run < 20; ++run) {
    const double run_seconds = iterations * call_seconds;
    runs.first_seconds += run_seconds;
    runs.later_seconds = run_seconds;
    ++runs.first_runs;
    if (run_seconds >= min_time_seconds) break;
    const double multiplier = run_seconds / min_time_seconds > 0.1 ? 1.4 * min_time_seconds / run_seconds : 10.0;
    iterations = std::max(iterations + 1, std::ceil(iterations * multiplier));
  }
  return runs;
}

History read_history(const std::string& results_path) {
  std::ifstream in(results_path);
  const auto doc = nlohmann::json::parse(in, nullptr, false);
  History history;
  if (doc.is_discarded()) return history;
  if (doc.contains("context") && doc["context"].is_object()) {
    const auto& context = doc["context"];
    history.ceilings_seconds = std::atof(context.value("ceilings_seconds", "0").c_str());
    history.triad_bytes_per_second = std::atof(context.value("bandwidth_stream_triad_bytes_per_second", "0").c_str());
  }
  if (!doc.contains("benchmarks")) return history;
  for (const auto& b : doc["benchmarks"]) {
    if (b.value("run_type", "") != "iteration" || !b.contains(kCaseBusyCounter) || !b[kCaseBusyCounter].is_number()) continue;
    std::string name = b.value("run_name", b.value("name", ""));
    for (const std::string suffix : {"/real_time", "/manual_time"})
      if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
        name.erase(name.size() - suffix.size());
    history.case_seconds[name][b.value("repetition_index", 0)] = b[kCaseBusyCounter].get<double>();
  }
  return history;
}

double History::case_cost(const std::string& name, int repetitions) const {
  const auto it = case_seconds.find(name);
  if (it == case_seconds.end() || it->second.empty()) return 0;
  // The counter after the last repetition below `repetitions` (each is the case's sum so far).
  auto last = it->second.lower_bound(repetitions);
  if (last == it->second.begin()) return 0;
  --last;
  return last->second * repetitions / (last->first + 1);
}

double estimated_ceilings_seconds(const MachineInfo& machine, double dram_bytes_per_second, bool smoke) {
  const double bandwidth = std::max(dram_bytes_per_second, 1e9);
  const double threads = std::max(1, machine.threads);
  auto sizes = cache::sweep_sizes(machine);
  if (smoke) std::erase_if(sizes, [](std::int64_t b) { return b > (1 << 20); });
  double seconds = 0;
  for (const double curve_threads : {1.0, threads}) {
    if (sizes.empty()) break;
    seconds += static_cast<double>(sizes.back()) * curve_threads / bandwidth;  // the buffer's first touch
    for (const std::int64_t size : sizes)  // a warming pass and five trials, each at least 16 MiB a thread
      seconds += 6 * std::max(double{1 << 24}, static_cast<double>(size)) * curve_threads / bandwidth;
  }
  const double triad_bytes = smoke ? double{1 << 20} : 4.0 * static_cast<double>(last_level_cache_bytes(machine));
  seconds += 2 * (3 + 4 * 3) * triad_bytes / bandwidth;  // two triads: three arrays written, four passes of three
  seconds += 4 * 6 * 0.02 * 1.5;                         // four overhead probes: growing batches, then five trials
  seconds += 10 * 6 * (smoke ? 0.002 : 0.02);            // the peak probes, one core and all
  return seconds;
}

Plan make_plan(const MachineInfo& machine, const PlanRequest& request) {
  Plan plan;
  const History history = request.history_path ? read_history(*request.history_path) : History{};
  const double prior = prior_case_seconds(request.repetitions, request.min_time_seconds);
  double cases_seconds = 0;
  int from_history = 0;
  std::map<std::string, int> per_suite;
  int from_checks = 0;
  for (const auto& c : request.cases) {
    // A case not measured before: the prior, or its calls where its suite estimated their
    // seconds; each preparation of its rung; and what its suite timed of it (a model-sweep side's
    // passes). Its rung's check ran while the cases were found, which the plan's own time covers.
    // Each of Google Benchmark's calls of the case prepares its rung again (a Python rung starts
    // its interpreter): the verification's, each sizing run's, each later repetition's.
    const double prepare = c.rung.empty() ? 0 : rung_prepare_seconds(c.rung);
    // Where the call's seconds are not known, sized as a call of a tenth of the minimum time.
    const RepetitionRuns runs = repetition_runs(c.call_seconds > 0 ? c.call_seconds : request.min_time_seconds / 10,
                                                request.min_time_seconds, c.batch_seconds);
    const int preparations = 1 + runs.first_runs + (request.repetitions - 1);
    double seconds = prior + c.expected_seconds + preparations * prepare;
    // Where the call's seconds are known, its repetitions' runs as Google Benchmark sizes them,
    // and two calls more: the verification before and after the timing.
    if (c.call_seconds > 0)
      seconds = runs.first_seconds + (request.repetitions - 1) * runs.later_seconds + 2 * c.call_seconds + 0.2 +
                c.expected_seconds + preparations * prepare;
    if (const double earlier = history.case_cost(c.name, request.repetitions); earlier > 0) {
      seconds = earlier;  // the case's own seconds in the earlier run, its verification included
      ++from_history;
    } else if (prepare > 0 || c.expected_seconds > 0 || c.call_seconds > 0) {
      ++from_checks;
    }
    plan.case_seconds[c.name] = seconds;  // the first round's
    seconds *= 1 + request.extra_rounds_share;
    cases_seconds += seconds;
    ++per_suite[c.axes.suite];
    plan.case_lines.push_back(
        fmt::format("  {:<44} {:>9} {:>9}", c.name, c.memory_bytes > 0 ? mib(c.memory_bytes) : "-", short_duration(seconds)));
  }

  // The ceilings: as long as they took in the earlier run, else from their probes' sizes at the
  // earlier run's triad bandwidth, else at a floor.
  double dram = history.triad_bytes_per_second, ceilings_seconds = history.ceilings_seconds;
  std::string ceilings_source;
  if (ceilings_seconds > 0)
    ceilings_source = "as the last run here took";
  else if (dram > 0)
    ceilings_source = fmt::format("their probes' sizes at the last run's triad, {:.1f} GB/s", dram / 1e9);
  if (ceilings_seconds <= 0) {
    if (dram <= 0) {
      // A server's DRAM gives each of its cores 2-5 GB/s when all stream at once; 2 is the floor
      // taken here, so that the estimate errs long.
      dram = 2e9 * std::max(1, machine.threads);
      ceilings_source = fmt::format("their probes' sizes at an assumed 2 GB/s a thread, {:.0f} GB/s", dram / 1e9);
    }
    ceilings_seconds = estimated_ceilings_seconds(machine, dram, request.smoke);
  }
  plan.seconds = request.setup_seconds + ceilings_seconds + cases_seconds;

  std::string suites;
  for (const auto& [suite, count] : per_suite) suites += fmt::format("{}{} {}", suites.empty() ? "" : ", ", suite, count);
  const double held = run_memory_bytes(request.cases);
  const std::int64_t llc = last_level_cache_bytes(machine);
  const CacheLevel* last = last_level_cache(machine);
  const int llc_instances = last ? std::max(1, last->instances) : 1;
  const std::int64_t llc_one = last ? last->bytes : llc;

  plan.lines.push_back(fmt::format("machine: {}{}", machine.cpu_model,
                                   machine.recorded.empty() ? "" : fmt::format(" (recorded: {})", machine.recorded)));
  plan.lines.push_back(fmt::format("topology: {} package{}, {} NUMA node{}, {} cores, {} logical CPUs ({} allowed), {}",
                                   machine.packages, machine.packages == 1 ? "" : "s", machine.numa_nodes,
                                   machine.numa_nodes == 1 ? "" : "s", machine.cores, machine.logical_cpus, machine.allowed_cpus,
                                   gib(static_cast<double>(machine.memory_total_bytes))));
  plan.lines.push_back(fmt::format("last-level cache of the CPUs that run: {} ({} x {})", mib(static_cast<double>(llc)),
                                   llc_instances, mib(static_cast<double>(llc_one))));
  for (const auto& g : machine.gpus) plan.lines.push_back("GPU on PCI: " + describe(g));  // one a line: 8 fit no line
  plan.lines.push_back(
      fmt::format("threads: {} on {} core{}", machine.threads, machine.allowed_cores, machine.allowed_cores == 1 ? "" : "s"));
  plan.lines.push_back(fmt::format("placement: {}", machine.placement));
  if (!request.array_notes.empty()) {
    for (const auto& note : request.array_notes) plan.lines.push_back("large arrays capped: " + note);
  } else if (!request.array_sizes.empty()) {
    std::string sizes;
    for (const std::int64_t bytes : request.array_sizes) sizes += (sizes.empty() ? "" : ", ") + mib(static_cast<double>(bytes));
    plan.lines.push_back(fmt::format("large arrays: {} each (4 x the last-level cache)", sizes));
  }
  plan.lines.push_back(fmt::format("memory held at once: {} of {} usable ({})", gib(held), gib(request.memory_usable_bytes),
                                   request.memory_source));
  plan.lines.push_back(fmt::format("cases: {} ({})", request.cases.size(), suites));
  plan.lines.push_back(fmt::format("estimate: {}", format_duration(plan.seconds)));
  plan.lines.push_back(fmt::format("  finding the rungs {:>10}  as this plan took", format_duration(request.setup_seconds)));
  plan.lines.push_back(fmt::format("  ceilings {:>19}  {}", format_duration(ceilings_seconds), ceilings_source));
  plan.lines.push_back(fmt::format("  cases {:>22}  {} as the last run here took{}", format_duration(cases_seconds), from_history,
                                   request.history_path ? " (" + *request.history_path + ")" : ""));
  plan.lines.push_back(fmt::format("{:>32}{} at {} each: {} repetition{} of {:.2g} s", "",
                                   static_cast<int>(request.cases.size()) - from_history, short_duration(prior),
                                   request.repetitions, request.repetitions == 1 ? "" : "s", request.min_time_seconds));
  if (from_checks > 0)
    plan.lines.push_back(
        fmt::format("{:>32}{} of them also their calls' seconds from two warm calls, their rung's preparation as "
                    "its check took, or their suite's timed passes",
                    "", from_checks));
  if (request.extra_rounds_share > 0)
    plan.lines.push_back(fmt::format("{:>32}and adaptive rounds of up to {:.0f}% more", "", 100 * request.extra_rounds_share));
  plan.summary = fmt::format("plan: {} profile, {} cases, {} held at once, {} threads, about {}", request.profile,
                             request.cases.size(), gib(held), machine.threads, format_duration(plan.seconds));
  return plan;
}

}  // namespace ladder
