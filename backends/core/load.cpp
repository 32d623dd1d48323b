#include "load.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

namespace ladder {

double file_number(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return -1;
  try {
    return std::stod(text);
  } catch (...) {
    return -1;
  }
}

int allowed_cpu_count() {
  cpu_set_t allowed;
  return sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 0;
}

CgroupCpu read_cgroup_cpu(const std::string& cgroup_file, const std::string& root) {
  CgroupCpu c;
  std::istringstream lines(cgroup_file);
  for (std::string line; std::getline(lines, line);) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1), path = line.substr(second + 1);
    const bool v2 = line.rfind("0::", 0) == 0;
    bool has_cpu = false;
    for (std::size_t at = 0; at <= controllers.size();) {
      const auto comma = std::min(controllers.find(',', at), controllers.size());
      has_cpu = has_cpu || controllers.substr(at, comma - at) == "cpu";
      at = comma + 1;
    }
    if (!v2 && !has_cpu) continue;
    std::string dir = root;
    if (!v2) dir.append("/").append(controllers);
    dir += path;
    std::ifstream stat(dir + "/cpu.stat");
    if (!stat) continue;
    for (std::string key; stat >> key;) {
      double value = 0;
      stat >> value;
      if (key == "nr_periods") c.periods = value;
      if (key == "nr_throttled") c.throttled_periods = value;
      if (key == "throttled_usec") c.throttled_seconds = value / 1e6;  // v2
      if (key == "throttled_time") c.throttled_seconds = value / 1e9;  // v1, ns
    }
    if (v2) {
      std::ifstream max(dir + "/cpu.max");
      std::string quota;
      double period = 0;
      if (max >> quota >> period && quota != "max" && period > 0) c.quota_cpus = std::stod(quota) / period;
    } else if (const double quota = file_number(dir + "/cpu.cfs_quota_us"), period = file_number(dir + "/cpu.cfs_period_us");
               quota > 0 && period > 0) {
      c.quota_cpus = quota / period;
    }
    if (c.periods > 0 || c.quota_cpus > 0) break;
  }
  return c;
}

CpuSample sample_cpu() {
  CpuSample s;
  s.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  std::ifstream stat("/proc/stat");
  std::string line;
  if (std::getline(stat, line) && line.rfind("cpu ", 0) == 0) {
    std::istringstream fields(line.substr(4));
    double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    fields >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
    s.busy_seconds = (user + nice + system + irq + softirq) / tick;
    s.steal_seconds = steal / tick;
  }
  // Ours: this process's threads and the children it waited for (the python rung's interpreter).
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage usage{};
    if (getrusage(who, &usage) == 0)
      s.self_seconds += static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                        static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  }
  std::ifstream load("/proc/loadavg");
  if (!(load >> s.load_average)) s.load_average = -1;
  s.allowed_cpus = allowed_cpu_count();
  std::ifstream cgroup("/proc/self/cgroup");
  std::stringstream text;
  text << cgroup.rdbuf();
  s.cgroup = read_cgroup_cpu(text.str(), "/sys/fs/cgroup");
  return s;
}

namespace {

// CPU time others took between two samples (busy time that was not ours), and what a hypervisor stole.
double others_busy(const CpuSample& before, const CpuSample& after) {
  return std::max(0.0, (after.busy_seconds - before.busy_seconds) - (after.self_seconds - before.self_seconds));
}
// The CPUs the threads can share: those of the process's affinity where it was read, else all.
int usable_cpus(const CpuSample& sample, int logical_cpus) {
  return sample.allowed_cpus > 0 ? std::min(sample.allowed_cpus, logical_cpus) : logical_cpus;
}

double stolen(const CpuSample& before, const CpuSample& after) {
  return std::max(0.0, after.steal_seconds - before.steal_seconds);
}

}  // namespace

double others_share(const CpuSample& before, const CpuSample& after, int logical_cpus) {
  const double wall = after.wall_seconds - before.wall_seconds;
  // /proc/stat counts in ticks of 10 ms: a shorter window says nothing.
  if (wall < kShortestNoiseWindow || logical_cpus <= 0) return 0;
  return (others_busy(before, after) + stolen(before, after)) / (wall * logical_cpus);
}

std::vector<std::string> startup_noise_warnings(const CpuSample& before, const CpuSample& after, int logical_cpus, int threads) {
  std::vector<std::string> warnings;
  if (const int usable = usable_cpus(after, logical_cpus); threads > usable)
    warnings.push_back(fmt::format("{} threads on {} logical CPUs (OMP_NUM_THREADS?): the all-core rungs oversubscribe the cores",
                                   threads, usable));
  if (const double share = others_share(before, after, logical_cpus); share > kNoisyOtherShare)
    warnings.push_back(
        fmt::format("other processes took {:.0f}% of the CPUs' time while the ceilings were measured: the "
                    "figures will read low and vary",
                    100 * share));
  return warnings;
}

NoiseReport assess_noise(const CpuSample& before, const CpuSample& after, int logical_cpus, int threads,
                         const std::vector<PeakPair>& peaks) {
  NoiseReport r;
  const double wall = after.wall_seconds - before.wall_seconds;
  r.other_cpu_seconds = others_busy(before, after);
  r.steal_seconds = stolen(before, after);
  r.load_before = before.load_average;
  r.load_after = after.load_average;
  r.other_share = others_share(before, after, logical_cpus);
  if (r.other_share > kNoisyOtherShare)
    r.reasons.push_back(
        fmt::format("other processes (or the hypervisor) took {:.0f}% of the CPUs' time during the run "
                    "({:.1f} s busy, {:.1f} s stolen, over {:.0f} s on {} CPUs)",
                    100 * r.other_share, r.other_cpu_seconds, r.steal_seconds, wall, logical_cpus));
  if (const int usable = usable_cpus(after, logical_cpus); threads > usable)
    r.reasons.push_back(
        fmt::format("{} threads on {} logical CPUs: the all-core rungs oversubscribed the cores", threads, usable));
  if (after.allowed_cpus > 0 && after.allowed_cpus < logical_cpus)
    r.reasons.push_back(
        fmt::format("the process could run on {} of the {} logical CPUs (its affinity: taskset, a cpuset): "
                    "its all-core figures are that many CPUs' (filed under its own machine id)",
                    after.allowed_cpus, logical_cpus));
  r.quota_cpus = after.cgroup.quota_cpus;
  r.periods = after.cgroup.periods - before.cgroup.periods;
  r.throttled_periods = after.cgroup.throttled_periods - before.cgroup.throttled_periods;
  if (r.throttled_periods > 0)
    r.reasons.push_back(
        fmt::format("the cgroup's CPU quota ({:.2g} CPUs) throttled the run in {:.0f} of {:.0f} periods ({:.1f} s)", r.quota_cpus,
                    r.throttled_periods, r.periods, after.cgroup.throttled_seconds - before.cgroup.throttled_seconds));
  else if (r.quota_cpus > 0 && r.quota_cpus < threads)
    r.reasons.push_back(fmt::format("the cgroup's CPU quota ({:.2g} CPUs) is below the {} threads the all-core rungs ran on",
                                    r.quota_cpus, threads));
  if (threads >= 2)
    for (const auto& p : peaks)
      if (p.one_core > 0 && p.all_cores > 0 && p.all_cores < kMinAllCoreSpeedup * p.one_core)
        r.reasons.push_back(
            fmt::format("the {} all-core peak ({:.1f} GFLOP/s) is below {}x one core's ({:.1f}) on {} threads: "
                        "the ceilings contradict themselves, so the cores were shared",
                        p.dtype, p.all_cores / 1e9, kMinAllCoreSpeedup, p.one_core / 1e9, threads));
  return r;
}

double throttled_share(const CpuSample& before, const CpuSample& after) {
  const double periods = after.cgroup.periods - before.cgroup.periods;
  return periods > 0 ? std::max(0.0, after.cgroup.throttled_periods - before.cgroup.throttled_periods) / periods : 0;
}

namespace {

// "a, b, c and 2 more": the first three names, each once.
std::string some_names(const std::vector<std::string>& names) {
  std::string list;
  for (std::size_t i = 0; i < std::min<std::size_t>(names.size(), 3); ++i) list += (i ? ", " : "") + names[i];
  if (names.size() > 3) list += fmt::format(" and {} more", names.size() - 3);
  return list;
}

void add_once(std::vector<std::string>& names, const std::string& name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
}

}  // namespace

void name_noisy_cases(NoiseReport& noise, const std::vector<CaseNoise>& cases) {
  std::vector<std::string> busy, throttled;
  double worst_busy = 0, worst_throttled = 0;
  for (const CaseNoise& c : cases) {
    if (c.other_share > kNoisyOtherShare) {
      worst_busy = std::max(worst_busy, c.other_share);
      add_once(busy, c.name);
    }
    if (c.throttled_share > 0) {
      worst_throttled = std::max(worst_throttled, c.throttled_share);
      add_once(throttled, c.name);
    }
  }
  if (!busy.empty())
    noise.reasons.push_back(
        fmt::format("other processes took up to {:.0f}% of the CPUs' time during {} case(s): {} (their "
                    "noise_other_share counters)",
                    100 * worst_busy, busy.size(), some_names(busy)));
  if (!throttled.empty())
    noise.reasons.push_back(fmt::format(
        "the cgroup's CPU quota throttled up to {:.0f}% of the periods of {} case(s): {} (their noise_throttled_share counters)",
        100 * worst_throttled, throttled.size(), some_names(throttled)));
}

std::vector<std::pair<std::string, std::string>> NoiseReport::context() const {
  std::string joined;
  for (const auto& reason : reasons) joined += (joined.empty() ? "" : "; ") + reason;
  return {{"noise_verdict", noisy() ? "noisy" : "quiet"},
          {"noise_reasons", joined},
          {"noise_other_cpu_seconds", fmt::format("{:.2f}", other_cpu_seconds)},
          {"noise_steal_seconds", fmt::format("{:.2f}", steal_seconds)},
          {"noise_other_share", fmt::format("{:.4f}", other_share)},
          {"noise_load_average_before", fmt::format("{:.2f}", load_before)},
          {"noise_load_average_after", fmt::format("{:.2f}", load_after)},
          {"noise_cpu_quota_cpus", quota_cpus > 0 ? fmt::format("{:.3g}", quota_cpus) : "none"},
          {"noise_throttled_periods", fmt::format("{:.0f} of {:.0f}", throttled_periods, periods)}};
}

}  // namespace ladder
