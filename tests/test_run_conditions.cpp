// The conditions a run is measured under: the memory budget and the array sizes a profile may use,
// and the noise the run names (other processes' time, oversubscription, a CPU quota, a burst).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/load.hpp"
#include "core/machine.hpp"
#include "roofs/ceilings.hpp"
#include "suite.hpp"

namespace ladder {
namespace {

// Item 12: what the whole run holds, each size's inputs once, and the process's own limits.
TEST(MemoryBudget, SharedInputsCountOncePerKeyAndTheLargestCaseOnTop) {
  std::vector<BenchmarkCase> cases(4);
  cases[0].shared_memory_key = cases[1].shared_memory_key = "gemm inputs n=1";
  cases[0].shared_memory_bytes = cases[1].shared_memory_bytes = 100;
  cases[2].shared_memory_key = "gemm inputs n=2";
  cases[2].shared_memory_bytes = 200;
  cases[0].memory_bytes = 5;
  cases[3].memory_bytes = 40;
  EXPECT_DOUBLE_EQ(run_memory_bytes(cases), 100 + 200 + 40);
}

TEST(MemoryBudget, TheTightestLimitNamesItself) {
  EXPECT_EQ(tightest_memory_limit(8e9, -1, -1).source, "MemAvailable");
  const MemoryLimit ulimit = tightest_memory_limit(8e9, 6e8, -1);
  EXPECT_DOUBLE_EQ(ulimit.bytes, 6e8);
  EXPECT_NE(ulimit.source.find("ulimit -v"), std::string::npos);
  const MemoryLimit cgroup = tightest_memory_limit(8e9, 6e9, 2e9);
  EXPECT_NE(cgroup.source.find("cgroup's memory limit"), std::string::npos);
  EXPECT_GT(memory_limit().bytes, 0);
}

// Item 13: a VM that reports its host's 480 MiB L3 keeps the profiles' promise of time and memory.
TEST(ArraySizes, AreCappedByTheProfileAndByMemoryAndSaySo) {
  const std::int64_t huge_l3 = std::int64_t{480} << 20, small_l3 = std::int64_t{32} << 20;
  ArraySize quick = large_array_size(Profile::quick, huge_l3, 3, 24e9);
  EXPECT_EQ(quick.bytes, kLargeArrayQuickCap);
  EXPECT_NE(quick.capped_by.find("quick profile"), std::string::npos);
  ArraySize full = large_array_size(Profile::full, huge_l3, 3, 24e9);
  EXPECT_EQ(full.bytes, kLargeArrayFullCap);
  ArraySize tight = large_array_size(Profile::full, huge_l3, 3, 2e9);  // 25% of 2 GB over 3 arrays
  EXPECT_LE(static_cast<double>(tight.bytes), 0.25 * 2e9 / 3);
  EXPECT_NE(tight.capped_by.find("memory"), std::string::npos);
  ArraySize usual = large_array_size(Profile::quick, small_l3, 3, 24e9);
  EXPECT_EQ(usual.bytes, 4 * small_l3);
  EXPECT_TRUE(usual.capped_by.empty());
  EXPECT_EQ(large_array_size(Profile::smoke, huge_l3, 3, 24e9).bytes, std::int64_t{512} << 10);
}

// Item 14: a busy machine is named.
TEST(Noise, OthersTimeOversubscriptionAndContradictoryCeilingsAreNamed) {
  CpuSample before, after;
  before.wall_seconds = 0;
  after.wall_seconds = 100;
  after.busy_seconds = 180;  // two CPUs, 100 s: 200 s in all
  after.self_seconds = 100;  // ours: one CPU's worth
  NoiseReport busy = assess_noise(before, after, 2, 2, {});
  EXPECT_NEAR(busy.other_share, 0.4, 1e-9);
  ASSERT_TRUE(busy.noisy());
  EXPECT_NE(busy.reasons[0].find("40%"), std::string::npos) << busy.reasons[0];

  after.busy_seconds = 101;
  EXPECT_FALSE(assess_noise(before, after, 2, 2, {}).noisy());
  EXPECT_TRUE(assess_noise(before, after, 2, 64, {}).noisy());  // OMP_NUM_THREADS=64 on 2 cores
  const NoiseReport contradiction = assess_noise(before, after, 2, 2, {{"f32", 214.6e9, 214e9}});
  ASSERT_TRUE(contradiction.noisy());
  EXPECT_NE(contradiction.reasons[0].find("contradict"), std::string::npos);
  EXPECT_FALSE(assess_noise(before, after, 2, 2, {{"f32", 214.6e9, 422e9}}).noisy());
  EXPECT_EQ(contradiction.context()[0].second, "noisy");
}

// A CPU quota that throttled the run, and a run held to fewer CPUs than the machine has, are named
// (the 20 ms peak probes fit inside a quota: the run measured half speed and read "quiet").
TEST(Noise, AThrottlingQuotaAndARestrictedAffinityAreNamed) {
  CpuSample before, after;
  after.wall_seconds = 100;
  after.busy_seconds = after.self_seconds = 100;
  before.allowed_cpus = after.allowed_cpus = 2;
  before.cgroup = {1.0, 1000, 10, 0.5};
  after.cgroup = {1.0, 1249, 225, 21.5};
  const NoiseReport throttled = assess_noise(before, after, 2, 2, {});
  ASSERT_TRUE(throttled.noisy());
  EXPECT_NE(throttled.reasons[0].find("throttled the run in 215 of 249 periods (21.0 s)"), std::string::npos)
      << throttled.reasons[0];
  after.cgroup = before.cgroup;
  ASSERT_TRUE(assess_noise(before, after, 2, 2, {}).noisy());  // a quota of 1 CPU under 2 threads
  after.cgroup = before.cgroup = {};
  EXPECT_FALSE(assess_noise(before, after, 2, 2, {}).noisy());
  after.allowed_cpus = 1;  // taskset -c 0
  const NoiseReport pinned = assess_noise(before, after, 2, 1, {});
  ASSERT_TRUE(pinned.noisy());
  EXPECT_NE(pinned.reasons[0].find("could run on 1 of the 2 logical CPUs"), std::string::npos) << pinned.reasons[0];
}

// A burst during one case (35% of the CPUs for its second) is named, though the whole run read quiet.
TEST(Noise, ABurstDuringOneCaseIsNamed) {
  CpuSample before, after;
  after.wall_seconds = 100;
  after.busy_seconds = after.self_seconds = 100;
  NoiseReport noise = assess_noise(before, after, 2, 2, {});
  ASSERT_FALSE(noise.noisy());
  name_noisy_cases(noise, {{"gemm/a/f32/n:8", 0.01}, {"gemm/b/f32/n:8", 0.35}, {"gemm/b/f32/n:8", 0.2}});
  ASSERT_TRUE(noise.noisy());
  EXPECT_NE(noise.reasons[0].find("up to 35% of the CPUs' time during 1 case(s): gemm/b/f32/n:8"), std::string::npos)
      << noise.reasons[0];
}

// Which cases a CPU quota throttled, from each case's own samples of the cgroup's counters.
TEST(Noise, TheCasesAQuotaThrottledAreNamed) {
  CpuSample before, after;
  before.cgroup = {1.0, 1000, 10, 0.5};
  after.cgroup = {1.0, 1040, 40, 3.5};
  EXPECT_DOUBLE_EQ(throttled_share(before, after), 0.75);
  EXPECT_DOUBLE_EQ(throttled_share(before, before), 0);  // no period ended: nothing to say
  NoiseReport noise;
  name_noisy_cases(noise, {{"gemm/a/f32/n:8", 0, 0}, {"gemm/openblas/f32/n:1024", 0, 0.75}, {"gemm/avx512/f32/n:1024", 0, 0.5}});
  ASSERT_EQ(noise.reasons.size(), 1u);
  EXPECT_NE(
      noise.reasons[0].find("throttled up to 75% of the periods of 2 case(s): gemm/openblas/f32/n:1024, gemm/avx512/f32/n:1024"),
      std::string::npos)
      << noise.reasons[0];
}

// cgroup v2 (cpu.max, cpu.stat in microseconds) and v1 (cfs quota and period, cpu.stat in ns).
TEST(Noise, TheCgroupsCpuQuotaIsReadInBothVersions) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("ladder-cgroup-" + std::to_string(::getpid()));
  fs::create_directories(root / "user.slice/run");
  std::ofstream(root / "user.slice/run/cpu.max") << "50000 100000\n";
  std::ofstream(root / "user.slice/run/cpu.stat") << "usage_usec 5\nnr_periods 249\nnr_throttled 215\nthrottled_usec 21000000\n";
  const CgroupCpu v2 = read_cgroup_cpu("0::/user.slice/run\n", root.string());
  EXPECT_DOUBLE_EQ(v2.quota_cpus, 0.5);
  EXPECT_DOUBLE_EQ(v2.throttled_periods, 215);
  EXPECT_DOUBLE_EQ(v2.throttled_seconds, 21);
  fs::create_directories(root / "cpu,cpuacct/job");
  std::ofstream(root / "cpu,cpuacct/job/cpu.cfs_quota_us") << "100000\n";
  std::ofstream(root / "cpu,cpuacct/job/cpu.cfs_period_us") << "100000\n";
  std::ofstream(root / "cpu,cpuacct/job/cpu.stat") << "nr_periods 10\nnr_throttled 3\nthrottled_time 2000000000\n";
  const CgroupCpu v1 = read_cgroup_cpu("5:memory:/job\n4:cpu,cpuacct:/job\n", root.string());
  EXPECT_DOUBLE_EQ(v1.quota_cpus, 1.0);
  EXPECT_DOUBLE_EQ(v1.periods, 10);
  EXPECT_DOUBLE_EQ(v1.throttled_seconds, 2);
  EXPECT_DOUBLE_EQ(read_cgroup_cpu("0::/nowhere\n", root.string()).quota_cpus, 0);
  fs::remove_all(root);
}

TEST(Noise, TheMachineCanBeSampled) {
  const CpuSample s = sample_cpu();
  EXPECT_GT(s.wall_seconds, 0);
  EXPECT_GT(s.busy_seconds, 0);
}

}  // namespace
}  // namespace ladder
