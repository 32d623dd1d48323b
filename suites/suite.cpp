#include "suite.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <map>
#include <cstdio>
#include <memory>
#include <mutex>

#include <unistd.h>

#include "core/gpu_telemetry.hpp"
#include "core/load.hpp"
#include "core/machine.hpp"

namespace ladder {

const Suite* find_suite(const std::string& name) {
  for (const Suite& s : suites())
    if (s.name == name) return &s;
  return nullptr;
}

std::function<std::vector<BenchmarkCase>(const SuiteRequest&)> host_then_device(CaseMaker host, CaseMaker device) {
  return [host, device](const SuiteRequest& request) {
    auto cases = host(request);
    for (auto& c : device(request)) cases.push_back(std::move(c));
    return cases;
  };
}

SuiteRung device_rung(std::string name, std::string dtype, std::string summary) {
  return {std::move(name), std::move(dtype), "GPU", "", std::move(summary), device_unavailable_reason};
}

std::string case_name(const CaseAxes& axes) {
  return fmt::format("{}/{}/{}/{}:{}", axes.suite, axes.rung, axes.dtype, axes.size_axis, axes.size);
}

BenchmarkCase case_with_axes(CaseAxes axes) {
  BenchmarkCase c;
  c.name = case_name(axes);
  c.axes = std::move(axes);
  return c;
}

namespace {
std::mutex g_axes_mutex;
std::map<std::string, CaseAxes, std::less<>> g_axes;
}  // namespace

void record_axes(const std::vector<BenchmarkCase>& cases) {
  std::lock_guard lock(g_axes_mutex);
  for (const BenchmarkCase& c : cases) g_axes.try_emplace(c.name, c.axes);
}

const CaseAxes* registered_axes(const std::string& name) {
  std::lock_guard lock(g_axes_mutex);
  const auto it = g_axes.find(name);
  return it == g_axes.end() ? nullptr : &it->second;  // entries are never erased: the pointer stays valid
}

bool rung_requested(const SuiteRequest& request, const std::string& rung) {
  return request.rungs.empty() || std::find(request.rungs.begin(), request.rungs.end(), rung) != request.rungs.end();
}

namespace {
std::mutex g_prepare_mutex;
std::map<std::string, double> g_prepare_seconds;
}  // namespace

void record_rung_prepare_seconds(const std::string& rung, double seconds) {
  std::lock_guard lock(g_prepare_mutex);
  g_prepare_seconds[rung] = seconds;
}

double rung_prepare_seconds(const std::string& rung) {
  std::lock_guard lock(g_prepare_mutex);
  const auto it = g_prepare_seconds.find(rung);
  return it == g_prepare_seconds.end() ? 0 : it->second;
}

namespace {
std::mutex g_cap_mutex;
std::vector<std::string> g_cap_notes;
std::vector<std::int64_t> g_array_bytes;
}  // namespace

std::int64_t large_array_bytes(const SuiteRequest& request, std::int64_t last_level_cache_bytes, int arrays) {
  const ArraySize size = large_array_size(request.profile, last_level_cache_bytes, arrays, memory_limit().bytes);
  {
    std::lock_guard lock(g_cap_mutex);
    if (std::find(g_array_bytes.begin(), g_array_bytes.end(), size.bytes) == g_array_bytes.end())
      g_array_bytes.push_back(size.bytes);
  }
  if (!size.capped_by.empty()) {
    const std::string note = fmt::format("{} MiB an array instead of 4 x the last-level cache ({} MiB): {}", size.bytes >> 20,
                                         (4 * last_level_cache_bytes) >> 20, size.capped_by);
    std::lock_guard lock(g_cap_mutex);
    // Printed with the run's header (main.cpp), never ahead of an error that stops the run.
    if (std::find(g_cap_notes.begin(), g_cap_notes.end(), note) == g_cap_notes.end()) g_cap_notes.push_back(note);
  }
  return size.bytes;
}

std::vector<std::string> array_cap_notes() {
  std::lock_guard lock(g_cap_mutex);
  return g_cap_notes;
}

std::vector<std::int64_t> large_array_sizes() {
  std::lock_guard lock(g_cap_mutex);
  return g_array_bytes;
}

namespace {
std::vector<std::string> g_header_notes;  // guarded by g_cap_mutex
}  // namespace

void note_under_header(const std::string& note) {
  std::lock_guard lock(g_cap_mutex);
  if (std::find(g_header_notes.begin(), g_header_notes.end(), note) == g_header_notes.end()) g_header_notes.push_back(note);
}

std::vector<std::string> notes_under_header() {
  std::lock_guard lock(g_cap_mutex);
  std::vector<std::string> notes = g_cap_notes;
  notes.insert(notes.end(), g_header_notes.begin(), g_header_notes.end());
  return notes;
}

double shared_memory_bytes(const std::vector<BenchmarkCase>& cases) {
  std::map<std::string, double> shared;
  for (const auto& c : cases)
    if (!c.shared_memory_key.empty()) shared[c.shared_memory_key] = std::max(shared[c.shared_memory_key], c.shared_memory_bytes);
  double total = 0;
  for (const auto& [key, bytes] : shared) total += bytes;
  return total;
}

double run_memory_bytes(const std::vector<BenchmarkCase>& cases) {
  double largest_case = 0;
  for (const auto& c : cases) largest_case = std::max(largest_case, c.memory_bytes);
  return shared_memory_bytes(cases) + largest_case;
}

void set_telemetry_counters(benchmark::State& state, const telemetry::Summary& s) {
  if (s.samples == 0) return;
  state.counters["gpu_sm_clock_min_mhz"] = s.sm_clock_min_mhz;
  state.counters["gpu_sm_clock_median_mhz"] = s.sm_clock_median_mhz;
  state.counters["gpu_memory_clock_median_mhz"] = s.memory_clock_median_mhz;
  state.counters["gpu_power_max_watts"] = s.power_max_watts;
  state.counters["gpu_temperature_max_c"] = s.temperature_max_c;
  // A bit mask (the context's gpu_clock_event_reason_bits names the bits); 0: never throttled.
  state.counters["gpu_slowdown_reasons"] = static_cast<double>(s.slowdown_reasons);
}

void register_cases(const std::vector<BenchmarkCase>& cases, const std::function<void(const BenchmarkCase&)>& on_first_call,
                    int repetitions) {
  benchmark::ClearRegisteredBenchmarks();
  record_axes(cases);
  for (const BenchmarkCase& c : cases) {
    auto spent = std::make_shared<std::optional<double>>();  // this case's own seconds so far
    auto* b = benchmark::RegisterBenchmark(c.name.c_str(), [c, spent, on_first_call](benchmark::State& state) {
      const auto started = std::chrono::steady_clock::now();
      if (!*spent) {
        *spent = 0.0;
        if (on_first_call) on_first_call(c);
      }
      telemetry::Sampler sampler;
      const bool sampled = c.on_device && telemetry::Nvml::instance().unavailable_reason().empty();
      if (sampled) sampler.start();
      // What others took of the CPUs during this case alone: a burst the whole run's share dilutes.
      const CpuSample before = sample_cpu();
      try {
        c.body(state);
      } catch (const std::bad_alloc&) {
        state.SkipWithError(fmt::format("{} ran out of memory", c.name).c_str());
      } catch (const std::exception& e) {
        state.SkipWithError(fmt::format("{} failed: {}", c.name, e.what()).c_str());
      }
      static const int logical_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
      const CpuSample after = sample_cpu();
      state.counters[kCaseNoiseCounter] = others_share(before, after, logical_cpus);
      if (after.cgroup.quota_cpus > 0) state.counters[kCaseThrottledCounter] = throttled_share(before, after);
      if (sampled) set_telemetry_counters(state, sampler.stop());
      if (c.on_device) state.counters["gpu_device_index"] = selected_device();  // --device N, --device all
      **spent += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      state.counters[kCaseBusyCounter] = **spent;
    });
    // Wall-clock time: multi-threaded work must not be judged by one thread's CPU time.
    if (c.timing == Timing::manual) {
      b->UseManualTime();
    } else {
      b->UseRealTime();
    }
    b->Unit(benchmark::kMillisecond);
    if (repetitions > 0) b->Repetitions(repetitions);
  }
}

}  // namespace ladder
