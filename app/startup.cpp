#include "startup.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/gpu_telemetry.hpp"
#include "core/profile.hpp"
#include "core/registry.hpp"
#include "roofs/regime.hpp"
#include "run_reading.hpp"
#include "suite.hpp"

namespace ladder {

namespace {
std::string g_exec_failure;  // why the environment's fixes could not be applied by running again
}  // namespace

void apply_environment_fixes(char** argv) {
  if (std::getenv("LADDER_ENVIRONMENT_FIXED")) return;
  std::string reasons;
  for (const auto& fix : registry().environment_fixes)
    if (auto f = fix()) {
      for (const auto& [name, value] : f->variables) setenv(name.c_str(), value.c_str(), 1);
      reasons += (reasons.empty() ? "" : "; ") + f->reason;
    }
  if (reasons.empty()) return;
  // The process run again says why with its header (setup_notes), so that an error that stops
  // it is still its only line.
  setenv("LADDER_ENVIRONMENT_FIXED", reasons.c_str(), 1);
  execv("/proc/self/exe", argv);
  unsetenv("LADDER_ENVIRONMENT_FIXED");
  g_exec_failure = fmt::format("{} was needed, but running again failed ({}); going on as it is", reasons, std::strerror(errno));
}

std::vector<std::string> setup_notes() {
  std::vector<std::string> notes;
  if (const char* fixed = std::getenv("LADDER_ENVIRONMENT_FIXED"); fixed && *fixed) notes.emplace_back(fixed);
  if (!g_exec_failure.empty()) notes.push_back(g_exec_failure);
  for (const auto& note : notes_under_header()) notes.push_back(note);
  return notes;
}

void print_list() {
  for (const Suite& suite : suites())
    for (const SuiteRung& rung : suite.rungs()) {
      const std::string reason = rung.unavailable_reason();
      fmt::print("{:<27} {:<8} {:<10} {:<8} {}\n", suite.name + "/" + rung.name, rung.dtype, rung.where, rung.note,
                 reason.empty() ? "available" : "unavailable: " + reason);
      fmt::print("    {}\n", rung.summary);
    }
  for (const auto& probe : registry().peak_probes) {
    const std::string reason = isa_unavailable_reason(probe.isa);
    fmt::print("peak/{:<22} {:<8} {}\n", probe.name, dtype_name(probe.dtype),
               reason.empty() ? "available" : "unavailable: " + reason);
  }
}

namespace {
std::string g_telemetry_reason = "no GPU";
}  // namespace

void start_gpu_telemetry() {
  if (!device_unavailable_reason().empty()) return;
  g_telemetry_reason = telemetry::Nvml::instance().select(device_pci_bus_id());
}

void add_context(const MachineInfo& m, const Ceilings& ceilings, const std::string& profile) {
  using benchmark::AddCustomContext;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) AddCustomContext("host_name", host);
  if (device_unavailable_reason().empty()) {
    const auto& nvml = telemetry::Nvml::instance();
    AddCustomContext("gpu_telemetry", g_telemetry_reason.empty() ? "NVML, every 10 ms while each GPU case runs"
                                                                 : "unavailable: " + g_telemetry_reason);
    if (g_telemetry_reason.empty()) {
      AddCustomContext("gpu_uuid", nvml.uuid());
      AddCustomContext("nvidia_driver_version", nvml.driver_version());
      AddCustomContext("gpu_clock_event_reason_bits", telemetry::reason_legend());
    }
  }
  AddCustomContext("machine_id", machine_id(m));
  AddCustomContext("cpu_model", m.cpu_model);
  AddCustomContext("cpu_vendor", m.cpu_vendor);
  AddCustomContext("cpu_microarchitecture", m.microarchitecture.empty() ? "unknown" : m.microarchitecture);
  AddCustomContext("cpu_isa_flags", m.isa_flags);
  AddCustomContext("cpu_packages", std::to_string(m.packages));
  AddCustomContext("numa_nodes", std::to_string(m.numa_nodes));
  AddCustomContext("cpu_cores", std::to_string(m.cores));
  AddCustomContext("cpu_logical_cores", std::to_string(m.logical_cpus));
  AddCustomContext("cpu_allowed", fmt::format("{} logical cpus on {} cores", m.allowed_cpus, m.allowed_cores));
  AddCustomContext("threads", std::to_string(m.threads));
  AddCustomContext("thread_placement", m.placement);
  for (const auto& c : m.caches)
    AddCustomContext(fmt::format("cache_l{}_{}", c.level,
                                 c.type == "Unified" ? "unified"
                                 : c.type == "Data"  ? "data"
                                                     : "instruction"),
                     fmt::format("{} bytes, shared by {} cpus, {} serving the allowed cpus", c.bytes, c.shared_by, c.instances));
  AddCustomContext("last_level_cache_bytes", std::to_string(last_level_cache_bytes(m)));
  for (std::size_t i = 0; i < m.gpus.size(); ++i) AddCustomContext(fmt::format("gpu_pci_{}", i), describe(m.gpus[i]));
  AddCustomContext("hwloc_version", hwloc_version());
  AddCustomContext("hwloc_topology_xml", topology_xml());
  // What one miss brings in: the ladder report's prediction for the loop-order rung.
  AddCustomContext("cache_line_bytes", fmt::format("{:.0f}", cache_line_bytes()));
  AddCustomContext("memory_total_bytes", std::to_string(m.memory_total_bytes));
  AddCustomContext("os", m.os);
  AddCustomContext("max_isa", std::string(isa_name(max_isa())));
  AddCustomContext("profile", profile);
  AddCustomContext("profile_names", profile_names());
  for (const auto& [key, value] : build_context()) AddCustomContext(key, value);
  for (const auto& [key, value] : registry().context) AddCustomContext(key, value());
  for (const auto& [key, value] : take_software_context()) AddCustomContext(key, value);
  for (const auto& [key, value] : ceilings_context(ceilings)) AddCustomContext(key, value);
  AddCustomContext("regime_codes", regime_codes());
  for (const Suite& suite : suites())
    if (suite.context)
      for (const auto& [key, value] : suite.context(ceilings)) AddCustomContext(key, value);
  AddCustomContext("noisy_cv", fmt::format("{:g}", kNoisyCv));
  if (const char* fixed = std::getenv("LADDER_ENVIRONMENT_FIXED")) AddCustomContext("environment_fixed", fixed);
}

std::string case_axes_json(const std::vector<BenchmarkCase>& cases) {
  nlohmann::json axes = nlohmann::json::object();
  for (const BenchmarkCase& c : cases)
    axes[c.name] = {{"suite", c.axes.suite},
                    {"rung", c.axes.rung},
                    {"dtype", c.axes.dtype},
                    {"size_axis", c.axes.size_axis},
                    {"size", c.axes.size}};
  return axes.dump();
}

std::vector<PeakPair> peak_pairs(const Ceilings& c) {
  std::vector<PeakPair> pairs;
  for (DType dtype : {DType::f32, DType::f64, DType::bf16})
    if (c.threads >= 2 && c.peaks.peak_at(dtype, 1) > 0)
      pairs.push_back({std::string(dtype_name(dtype)), c.peaks.peak_at(dtype, 1), c.peaks.peak_at(dtype, c.threads)});
  return pairs;
}

}  // namespace ladder
