// What a result needs to be read on another day: the machine, the build, the libraries.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ladder {

struct CacheLevel {
  int level = 0;
  std::string type;  // Data, Instruction, Unified
  std::int64_t bytes = 0;
  int shared_by = 1;  // logical CPUs sharing one instance
  int instances = 1;  // instances serving the CPUs this process may run on
};

// Where a GPU sits: its PCI address and the package and NUMA nodes nearest it (the CPU memory a
// copy to it crosses least).
struct GpuLocation {
  std::string pci_bus_id;  // "0000:17:00.0"
  int package = -1;        // -1: not attached below one package
  std::string numa_nodes;  // "0", "0-1"; empty where the topology does not say
};
// "0000:17:00.0 on package 0, NUMA node 0" ("?" for what the topology does not say).
std::string describe(const GpuLocation& gpu);

// The machine as hwloc describes it (sockets, NUMA nodes, cores, caches, GPUs on PCI), with the
// CPU's identity and ISA from cpuid. HWLOC_XMLFILE or HWLOC_SYNTHETIC (hwloc's own variables) and
// LADDER_TEST_CPU (cpu_features.hpp) make it describe a recorded machine instead: `recorded` is
// then set, and only --list and --plan run.
struct MachineInfo {
  std::string cpu_model, cpu_vendor, isa_flags;
  std::string microarchitecture;  // from cpuid: "zen4"; empty where we do not know the core
  int packages = 0, numa_nodes = 0, cores = 0;
  int logical_cpus = 0;
  int allowed_cpus = 0;   // those this process may run on (its affinity: taskset, a cpuset); 0 unknown
  int allowed_cores = 0;  // the cores those CPUs belong to
  int threads = 0;        // what the all-core rungs use (OpenMP's max threads)
  std::string placement;  // where those threads run (place_threads)
  std::vector<CacheLevel> caches;
  std::vector<GpuLocation> gpus;
  std::int64_t memory_total_bytes = 0, memory_available_bytes = 0;
  std::string os;
  std::string recorded;  // empty: this machine; else what describes another ("HWLOC_XMLFILE=x.xml")
};

MachineInfo machine_info();
// Whether the machine described is a recorded one (MachineInfo::recorded), cheaply: a rung's
// availability is then judged by its own check alone, without a real call here.
bool machine_is_recorded();
// Empty, or why the machine cannot be described, in one line: hwloc failed, or a recorded
// topology asked for (HWLOC_XMLFILE, HWLOC_SYNTHETIC) did not load and this machine's came instead.
std::string topology_error();

// Where the run's threads go, set once before any OpenMP region: the process restricted to its
// first `cores` cores or to NUMA node `numa` (its memory bound there too), then one OpenMP thread
// a core (a thread a hardware thread with `smt`), thread t bound to the t-th core of the allowed
// set in hwloc's order (package by package, so that the first threads fill one socket). Where
// OMP_NUM_THREADS or OMP_PROC_BIND is set, those are the user's: left as they are. On a recorded
// machine nothing is bound; the counts are what it would get. The main thread stays unbound (what
// it starts inherits the process's CPUs).
struct PlacementRequest {
  int cores = 0;  // 0: all allowed
  int numa = -1;  // -1: any
  bool smt = false;
};
struct Placement {
  int threads = 0;
  std::string description;  // for the context and the plan
  std::string error;        // a request this machine cannot meet, in one line
};
Placement place_threads(const PlacementRequest& request);
// The cores of the first package among those the run's threads are bound to (0 where the threads
// are not bound by place_threads): the one-socket STREAM's thread count.
int first_package_cores();

// hwloc's XML of the machine's topology, to keep beside a results file.
std::string topology_xml();
std::string hwloc_version();
// The cores' highest clock as the OS states it (hwloc's FrequencyMaxMHz, from cpufreq); 0 where
// it does not (most VMs).
double max_clock_mhz();

// A stable, filesystem-safe name for this machine's results folder: the brand string's words
// and the logical CPU count ("amd-epyc-9965-192-core-384c"); where the brand names no model
// (a VM's "AMD EPYC"), the microarchitecture joins it, so that two kinds of core do not share
// one folder ("amd-epyc-zen4-2c"). A run restricted to fewer CPUs than the machine has is filed
// apart ("amd-epyc-zen4-2c-on-1"): it measured a smaller machine.
std::string machine_id(const MachineInfo& info);

// The last level of data (or unified) cache: one instance's size, its instances; null where no
// cache is described.
const CacheLevel* last_level_cache(const MachineInfo& machine);
// The bytes of the last-level cache serving the CPUs this process may run on: one instance's
// size times the instances (a 2-socket EPYC 9965 running on every core has 24 x 32 MiB);
// 64 MiB where no cache is described.
std::int64_t last_level_cache_bytes(const MachineInfo& machine);

// Bytes of memory available now (MemAvailable), for refusing sizes that cannot fit.
std::int64_t memory_available_bytes();

// The memory this process can still allocate, and which limit says so: the machine's
// MemAvailable, the address-space limit (`ulimit -v`, RLIMIT_AS) less what the process maps
// already, or its cgroup's memory.max less its memory.current; the smallest of them.
struct MemoryLimit {
  double bytes = 0;
  std::string source;  // "MemAvailable", "the address-space limit (ulimit -v)", "the cgroup's memory.max"
};
MemoryLimit memory_limit();
// The same from given figures (tests); a limit < 0 is absent.
MemoryLimit tightest_memory_limit(double mem_available, double address_space_left, double cgroup_left);

// Key/value pairs for the JSON context: machine, build, git SHA.
std::vector<std::pair<std::string, std::string>> build_context();

// The bytes a cache line holds on this machine (64 where the system does not say).
double cache_line_bytes();

}  // namespace ladder
