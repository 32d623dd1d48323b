// Whether the machine was quiet while a run measured it: what other processes (and, in a VM, the
// hypervisor) took of the CPUs, from /proc/stat against this process's own usage.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace ladder {

// This process's cgroup's CPU limit and its throttling counters (cgroup v2's cpu.max and cpu.stat,
// or v1's cpu.cfs_quota_us, cpu.cfs_period_us and cpu.stat), read from `cgroup_file` (the text of
// /proc/self/cgroup) under `root` (/sys/fs/cgroup). quota_cpus 0: no quota found.
struct CgroupCpu {
  double quota_cpus = 0;  // quota / period
  double periods = 0, throttled_periods = 0, throttled_seconds = 0;
};
CgroupCpu read_cgroup_cpu(const std::string& cgroup_file, const std::string& root);

// A number from a one-line file (a cgroup's); -1 where it is absent, not a number or "max".
double file_number(const std::string& path);

// The CPUs this process may run on (its affinity: taskset, a cpuset); 0 where it cannot be read.
int allowed_cpu_count();

struct CpuSample {
  double wall_seconds = 0;   // steady clock
  double busy_seconds = 0;   // all CPUs: user + nice + system + irq + softirq (from /proc/stat)
  double steal_seconds = 0;  // all CPUs: time the hypervisor gave to other guests
  double self_seconds = 0;   // this process: user + system (getrusage)
  double load_average = -1;  // /proc/loadavg's one-minute figure
  int allowed_cpus = 0;      // the CPUs this process may run on (sched_getaffinity); 0 unknown
  CgroupCpu cgroup;          // its cgroup's CPU quota and throttling so far
};
CpuSample sample_cpu();

// Above this share of all CPUs' time taken by others (or stolen), a run is marked noisy.
inline constexpr double kNoisyOtherShare = 0.05;
// On two or more cores, an all-core peak below this multiple of one core's contradicts itself.
inline constexpr double kMinAllCoreSpeedup = 1.3;

struct NoiseReport {
  double other_cpu_seconds = 0;  // busy time not ours
  double steal_seconds = 0;
  double other_share = 0;  // (other + steal) / (wall × logical CPUs)
  double load_before = -1, load_after = -1;
  double quota_cpus = 0;                      // the cgroup's CPU quota (0: none)
  double throttled_periods = 0, periods = 0;  // during the run
  std::vector<std::string> reasons;           // empty: quiet
  bool noisy() const { return !reasons.empty(); }
  // Keys for the JSON context: noise_*.
  std::vector<std::pair<std::string, std::string>> context() const;
};

// `threads` against `logical_cpus` (oversubscription), against the CPUs the process may use (its
// affinity) and its cgroup's CPU quota, and the two samples (others' time, the quota's throttling);
// `peak_pairs` are
// (name, one-core peak, all-core peak) per dtype measured, checked for contradiction.
struct PeakPair {
  std::string dtype;
  double one_core = 0, all_cores = 0;
};
NoiseReport assess_noise(const CpuSample& before, const CpuSample& after, int logical_cpus, int threads,
                         const std::vector<PeakPair>& peaks);

// The share of all CPUs' time that others took (or the hypervisor stole) between two samples; 0
// for a window shorter than kShortestNoiseWindow seconds.
inline constexpr double kShortestNoiseWindow = 0.5;
double others_share(const CpuSample& before, const CpuSample& after, int logical_cpus);

// The share of the cgroup's CPU periods between two samples in which its quota throttled the
// process; 0 without a quota, or where no period ended between them.
double throttled_share(const CpuSample& before, const CpuSample& after);

// Each case's own shares, as counters: others_share over the case (0 for one shorter than
// kShortestNoiseWindow; a burst during one case is below the whole run's threshold) and
// throttled_share (which cases a quota slowed, not only that it slowed the run).
inline constexpr const char* kCaseNoiseCounter = "noise_other_share";
inline constexpr const char* kCaseThrottledCounter = "noise_throttled_share";
struct CaseNoise {
  std::string name;
  double other_share = 0, throttled_share = 0;
};

// Adds a reason naming the cases during which others took more than kNoisyOtherShare of the CPUs'
// time, and one naming the cases the cgroup's quota throttled.
void name_noisy_cases(NoiseReport& noise, const std::vector<CaseNoise>& cases);

// The warnings known before any case runs, from samples around the ceilings' measurement (others'
// time counts whatever this process does meanwhile): more threads than CPUs, others busy. (The
// load average is recorded but not judged: it still carries the minute before the run, the build
// that preceded it included.)
std::vector<std::string> startup_noise_warnings(const CpuSample& before, const CpuSample& after, int logical_cpus, int threads);

}  // namespace ladder
