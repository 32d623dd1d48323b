// The machine as hwloc describes it: caches, cores, sockets, NUMA nodes, GPUs on PCI, memory
// limits and where threads go. Over 400 lines as one file because every part reads the one loaded
// topology (topology(), kept private here), whether this machine's or a recorded one's.
#include "machine.hpp"

#include <fmt/format.h>
#include <hwloc.h>
#include <sys/resource.h>
#include <omp.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "build_info.hpp"  // generated at configure time
#include "cpu_features.hpp"
#include "load.hpp"
#include "git_sha.hpp"  // generated at build time
#include "cpu/inner_loops.hpp"

namespace ladder {
namespace {

// The machine's topology, loaded once: hwloc reads /sys and cpuid here, or a recorded machine
// from HWLOC_XMLFILE / HWLOC_SYNTHETIC. Disallowed CPUs stay in (they are the machine's; the
// process's own set is asked apart), and the PCI devices that matter (GPUs) are kept.
class Topology {
 public:
  Topology() {
    hwloc_topology_init(&topology_);
    hwloc_topology_set_flags(topology_, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
    hwloc_topology_set_io_types_filter(topology_, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    loaded_ = hwloc_topology_load(topology_) == 0;
  }
  ~Topology() { hwloc_topology_destroy(topology_); }
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
  hwloc_topology_t get() const { return loaded_ ? topology_ : nullptr; }

 private:
  hwloc_topology_t topology_{};
  bool loaded_ = false;
};

hwloc_topology_t topology() {
  static const Topology instance;
  return instance.get();
}

// The CPUs this process may run on: its binding (taskset) within the allowed set (a cpuset);
// on a recorded machine, all of them.
hwloc_bitmap_t allowed_cpuset(hwloc_topology_t t) {
  hwloc_bitmap_t set = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(t));
  if (hwloc_topology_is_thissystem(t)) {
    hwloc_bitmap_t bound = hwloc_bitmap_alloc();
    if (hwloc_get_cpubind(t, bound, HWLOC_CPUBIND_PROCESS) == 0) hwloc_bitmap_and(set, set, bound);
    hwloc_bitmap_free(bound);
  }
  return set;
}

int count_within(hwloc_topology_t t, hwloc_obj_type_t type, hwloc_const_bitmap_t cpus) {
  int count = 0;
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_obj_by_type(t, type, o));)
    if (!cpus || hwloc_bitmap_intersects(o->cpuset, cpus)) ++count;
  return count;
}

std::string cache_type_name(hwloc_obj_cache_type_e type) {
  switch (type) {
    case HWLOC_OBJ_CACHE_DATA:
      return "Data";
    case HWLOC_OBJ_CACHE_INSTRUCTION:
      return "Instruction";
    default:
      return "Unified";
  }
}

std::vector<CacheLevel> caches_of(hwloc_topology_t t, hwloc_const_bitmap_t cpus) {
  std::vector<CacheLevel> caches;
  for (hwloc_obj_type_t type = HWLOC_OBJ_L1CACHE; type <= HWLOC_OBJ_L3ICACHE; type = static_cast<hwloc_obj_type_t>(type + 1)) {
    if (!hwloc_obj_type_is_cache(type)) continue;
    const hwloc_obj_t first = hwloc_get_obj_by_type(t, type, 0);
    if (!first) continue;
    CacheLevel c;
    c.level = static_cast<int>(first->attr->cache.depth);
    c.type = cache_type_name(first->attr->cache.type);
    c.bytes = static_cast<std::int64_t>(first->attr->cache.size);
    c.shared_by = hwloc_bitmap_weight(first->cpuset);
    c.instances = count_within(t, type, cpus);
    caches.push_back(c);
  }
  std::sort(caches.begin(), caches.end(),
            [](const CacheLevel& a, const CacheLevel& b) { return a.level != b.level ? a.level < b.level : a.type < b.type; });
  return caches;
}

std::string list_of(hwloc_const_bitmap_t set) {
  char* text = nullptr;
  hwloc_bitmap_list_asprintf(&text, set);
  std::string list = text ? text : "";
  std::free(text);
  return list;
}

// GPUs as PCI devices (class 03xx, display) of NVIDIA or AMD: found without their drivers.
std::vector<GpuLocation> gpus_of(hwloc_topology_t t) {
  std::vector<GpuLocation> gpus;
  for (hwloc_obj_t pci = nullptr; (pci = hwloc_get_next_pcidev(t, pci));) {
    const auto& a = pci->attr->pcidev;
    if (a.class_id >> 8 != 0x03 || (a.vendor_id != 0x10de && a.vendor_id != 0x1002)) continue;
    GpuLocation g;
    g.pci_bus_id = fmt::format("{:04x}:{:02x}:{:02x}.{:x}", a.domain, a.bus, a.dev, a.func);
    const hwloc_obj_t near = hwloc_get_non_io_ancestor_obj(t, pci);
    if (const hwloc_obj_t package = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, near))
      g.package = static_cast<int>(package->os_index);
    else if (near && near->type == HWLOC_OBJ_PACKAGE)
      g.package = static_cast<int>(near->os_index);
    if (near && near->nodeset && !hwloc_bitmap_iszero(near->nodeset))  // all of them where it hangs from the machine
      g.numa_nodes = list_of(near->nodeset);
    gpus.push_back(g);
  }
  return gpus;
}

// "HWLOC_XMLFILE=x.xml": the variable that asks hwloc for a recorded machine; empty where none.
std::string recorded_topology_variable() {
  for (const char* variable : {"HWLOC_XMLFILE", "HWLOC_SYNTHETIC"})
    if (const char* value = std::getenv(variable); value && *value) return fmt::format("{}={}", variable, value);
  return "";
}

std::string info_of(hwloc_topology_t t, const char* name) {
  const hwloc_obj_t package = hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, 0);
  const char* value = package ? hwloc_obj_get_info_by_name(package, name) : nullptr;
  return value ? value : "";
}

std::int64_t meminfo_bytes(const std::string& key) {
  std::ifstream in("/proc/meminfo");
  std::string name;
  std::int64_t kib;
  std::string unit;
  while (in >> name >> kib) {
    std::getline(in, unit);
    if (name == key + ":") return kib * 1024;
  }
  return 0;
}

}  // namespace

std::int64_t memory_available_bytes() { return meminfo_bytes("MemAvailable"); }

MemoryLimit tightest_memory_limit(double mem_available, double address_space_left, double cgroup_left) {
  MemoryLimit limit{mem_available, "MemAvailable"};
  if (address_space_left >= 0 && address_space_left < limit.bytes)
    limit = {address_space_left, "the address-space limit (ulimit -v) less what the process maps"};
  if (cgroup_left >= 0 && cgroup_left < limit.bytes) limit = {cgroup_left, "the cgroup's memory limit less what it already uses"};
  return limit;
}

MemoryLimit memory_limit() {
  if (const hwloc_topology_t t = topology(); t && !hwloc_topology_is_thissystem(t))
    return {static_cast<double>(hwloc_get_root_obj(t)->total_memory), "the recorded machine's memory, all of it free"};
  double address_space_left = -1;
  if (rlimit r{}; getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY) {
    std::ifstream statm("/proc/self/statm");
    double pages = 0;
    statm >> pages;
    address_space_left = std::max(0.0, static_cast<double>(r.rlim_cur) - pages * static_cast<double>(sysconf(_SC_PAGESIZE)));
  }
  double cgroup_left = -1;
  std::ifstream self("/proc/self/cgroup");
  for (std::string line; std::getline(self, line);) {
    double max = -1, current = -1;
    if (line.rfind("0::", 0) == 0) {  // cgroup v2's single hierarchy
      const std::string dir = "/sys/fs/cgroup" + line.substr(3);
      max = file_number(dir + "/memory.max"), current = file_number(dir + "/memory.current");
    } else if (const auto at = line.find(":memory:"); at != std::string::npos) {  // v1's memory controller
      const std::string dir = "/sys/fs/cgroup/memory" + line.substr(at + 8);
      max = file_number(dir + "/memory.limit_in_bytes"), current = file_number(dir + "/memory.usage_in_bytes");
      if (max >= 0x1p62) max = -1;  // v1 says "no limit" with a number near 2^63
    }
    if (max >= 0) cgroup_left = std::max(0.0, max - std::max(0.0, current));
  }
  return tightest_memory_limit(static_cast<double>(memory_available_bytes()), address_space_left, cgroup_left);
}

namespace {
int g_first_package_cores = 0;
Placement g_placement;  // place_threads's, for machine_info

}  // namespace

int first_package_cores() { return g_first_package_cores; }

Placement place_threads(const PlacementRequest& request) {
  Placement p;
  const hwloc_topology_t t = topology();
  if (!t) {
    p.threads = omp_get_max_threads();
    p.description = "as OpenMP chose (hwloc could not read the machine)";
    return p;
  }
  hwloc_bitmap_t cpus = allowed_cpuset(t);
  if (request.numa >= 0) {
    const hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(t, static_cast<unsigned>(request.numa));
    if (!node || !hwloc_bitmap_intersects(node->cpuset, cpus)) {
      const int nodes = count_within(t, HWLOC_OBJ_NUMANODE, nullptr);
      p.error = fmt::format("--numa {}: no such NUMA node among those this process may use ({} node{})", request.numa, nodes,
                            nodes == 1 ? "" : "s");
      hwloc_bitmap_free(cpus);
      return p;
    }
    hwloc_bitmap_and(cpus, cpus, node->cpuset);
  }
  // The cores, in hwloc's order, with the allowed CPUs of each.
  std::vector<hwloc_bitmap_t> cores;
  for (hwloc_obj_t core = nullptr; (core = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_CORE, core));) {
    if (!hwloc_bitmap_intersects(core->cpuset, cpus)) continue;
    hwloc_bitmap_t set = hwloc_bitmap_dup(core->cpuset);
    hwloc_bitmap_and(set, set, cpus);
    cores.push_back(set);
  }
  if (request.cores > 0) {
    if (request.cores > static_cast<int>(cores.size())) {
      p.error =
          fmt::format("--cores {}: this process may use {} core{}", request.cores, cores.size(), cores.size() == 1 ? "" : "s");
      for (auto* set : cores) hwloc_bitmap_free(set);
      hwloc_bitmap_free(cpus);
      return p;
    }
    for (std::size_t i = static_cast<std::size_t>(request.cores); i < cores.size(); ++i) hwloc_bitmap_free(cores[i]);
    cores.resize(static_cast<std::size_t>(request.cores));
  }
  hwloc_bitmap_zero(cpus);
  for (auto* set : cores) hwloc_bitmap_or(cpus, cpus, set);
  const bool here = hwloc_topology_is_thissystem(t);
  const bool restricted = request.cores > 0 || request.numa >= 0;
  if (here && restricted) {
    hwloc_set_cpubind(t, cpus, HWLOC_CPUBIND_PROCESS);
    if (request.numa >= 0)
      hwloc_set_membind(t, hwloc_get_numanode_obj_by_os_index(t, static_cast<unsigned>(request.numa))->nodeset,
                        HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_PROCESS | HWLOC_MEMBIND_BYNODESET);
  }

  // One thread a core, or one a hardware thread.
  std::vector<hwloc_bitmap_t> places;
  if (request.smt) {
    for (auto* core : cores)
      for (int pu = hwloc_bitmap_first(core); pu >= 0; pu = hwloc_bitmap_next(core, pu)) {
        hwloc_bitmap_t one = hwloc_bitmap_alloc();
        hwloc_bitmap_only(one, static_cast<unsigned>(pu));
        places.push_back(one);
      }
  } else {
    for (auto* core : cores) places.push_back(hwloc_bitmap_dup(core));
  }
  const char* user_threads = std::getenv("OMP_NUM_THREADS");
  const char* user_bind = std::getenv("OMP_PROC_BIND");
  const bool users_threads = user_threads && *user_threads, users_binding = user_bind && *user_bind;
  if (!here) {
    p.threads = users_threads ? std::max(1, std::atoi(user_threads)) : static_cast<int>(places.size());
  } else {
    if (!users_threads) omp_set_num_threads(std::max<int>(1, static_cast<int>(places.size())));
    p.threads = omp_get_max_threads();
  }
  const int packages_used = std::max(1, count_within(t, HWLOC_OBJ_PACKAGE, cpus));
  const auto counted = [](std::size_t n, const std::string& what) { return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s"); };
  const std::string place = request.smt ? "hardware thread" : "core";
  const std::string threads = counted(static_cast<std::size_t>(p.threads), "thread");
  const std::string where = fmt::format("{} of {} (CPUs {})", counted(cores.size(), "core"),
                                        counted(static_cast<std::size_t>(packages_used), "package"), list_of(cpus));
  if (users_binding) {
    p.description = fmt::format("{} on {}; placed by OMP_PROC_BIND={} (yours)", threads, where, user_bind);
  } else if (here && p.threads > static_cast<int>(places.size())) {
    // More threads than places (OMP_NUM_THREADS): they share the cores as the OS sees fit; far
    // more are refused before anything runs (main.cpp), never started here.
    p.description =
        fmt::format("{} (OMP_NUM_THREADS) on {}: more than its {}, so not bound", threads, where, counted(places.size(), place));
  } else if (!here) {
    p.description = fmt::format("{} on {}, bound one a {} (a recorded machine)", threads, where, place);
  } else {
    // Thread i to place i: the pages each thread first touches then stay on its socket. The main
    // thread (thread 0) is left unbound, with place 0 free for it: what it starts (a Python rung's
    // interpreter, a library's own threads) inherits the process's CPUs, not one core.
#pragma omp parallel
    {
      const int i = omp_get_thread_num();
      if (i > 0) hwloc_set_cpubind(t, places[static_cast<std::size_t>(i)], HWLOC_CPUBIND_THREAD);
    }
    p.description = fmt::format("{} on {}, bound one a {}, the main thread free", threads, where, place);
  }
  // The first package's cores among those bound: the one-socket STREAM's threads.
  if (!users_binding && packages_used > 1) {
    const hwloc_obj_t first = hwloc_get_next_obj_covering_cpuset_by_type(t, cores.front(), HWLOC_OBJ_PACKAGE, nullptr);
    int n = 0;
    for (auto* place : places) n += first && hwloc_bitmap_isincluded(place, first->cpuset) ? 1 : 0;
    g_first_package_cores = n;
  }
  for (auto* set : places) hwloc_bitmap_free(set);
  for (auto* set : cores) hwloc_bitmap_free(set);
  hwloc_bitmap_free(cpus);
  g_placement = p;
  return p;
}

std::string topology_error() {
  const hwloc_topology_t t = topology();
  if (const std::string asked = recorded_topology_variable(); !asked.empty()) {
    if (!t) return asked + ": hwloc cannot load it";
    // hwloc falls back to this machine where it cannot load the description, and HWLOC_THISSYSTEM=1
    // makes a loaded one claim to be this machine: neither can be told from the other here.
    if (hwloc_topology_is_thissystem(t)) {
      const char* declared = std::getenv("HWLOC_THISSYSTEM");
      return asked + (declared && std::string(declared) == "1"
                          ? ": taken as this machine, as HWLOC_THISSYSTEM=1 asks (or not loaded at all); unset "
                            "HWLOC_THISSYSTEM to plan the recorded machine"
                          : ": hwloc did not load it (it read this machine instead)");
    }
  }
  return t ? "" : "hwloc cannot read this machine's topology";
}

bool machine_is_recorded() {
  const hwloc_topology_t t = topology();
  return cpu_is_described() || (t && !hwloc_topology_is_thissystem(t));
}

std::string describe(const GpuLocation& gpu) {
  return fmt::format("{} on package {}, NUMA node {}", gpu.pci_bus_id, gpu.package < 0 ? "?" : std::to_string(gpu.package),
                     gpu.numa_nodes.empty() ? "?" : gpu.numa_nodes);
}

MachineInfo machine_info() {
  MachineInfo m;
  const CpuFeatures& f = cpu_features();
  m.cpu_model = f.brand.empty() ? "unknown CPU" : f.brand;
  m.cpu_vendor = f.vendor;
  m.microarchitecture = microarchitecture(f.vendor, f.family, f.model);
  m.isa_flags = f.flags();
  m.threads = g_placement.threads > 0 ? g_placement.threads : omp_get_max_threads();
  m.placement = g_placement.description.empty() ? "not placed: the OS places OpenMP's threads" : g_placement.description;
  const hwloc_topology_t t = topology();
  if (!t) {  // hwloc could not read the machine: what the process itself can see
    m.logical_cpus = m.allowed_cpus = allowed_cpu_count();
    m.memory_total_bytes = meminfo_bytes("MemTotal");
    m.memory_available_bytes = meminfo_bytes("MemAvailable");
    return m;
  }
  const bool here = hwloc_topology_is_thissystem(t);
  if (!here) {
    m.recorded = recorded_topology_variable();
    if (m.recorded.empty()) m.recorded = "a topology that is not this machine's";
    if (!cpu_is_described()) {  // the recorded machine's own identity, where its XML has it
      if (auto brand = info_of(t, "CPUModel"); !brand.empty()) m.cpu_model = brand;
      if (auto vendor = info_of(t, "CPUVendor"); !vendor.empty()) m.cpu_vendor = vendor;
      m.microarchitecture = microarchitecture(m.cpu_vendor, std::atoi(info_of(t, "CPUFamilyNumber").c_str()),
                                              std::atoi(info_of(t, "CPUModelNumber").c_str()));
    }
  } else if (cpu_is_described()) {
    m.recorded = "LADDER_TEST_CPU";
  }
  hwloc_bitmap_t cpus = allowed_cpuset(t);
  m.packages = std::max(1, count_within(t, HWLOC_OBJ_PACKAGE, nullptr));
  m.numa_nodes = std::max(1, count_within(t, HWLOC_OBJ_NUMANODE, nullptr));
  m.cores = count_within(t, HWLOC_OBJ_CORE, nullptr);
  m.logical_cpus = count_within(t, HWLOC_OBJ_PU, nullptr);
  m.allowed_cpus = hwloc_bitmap_weight(cpus);
  m.allowed_cores = count_within(t, HWLOC_OBJ_CORE, cpus);
  m.caches = caches_of(t, cpus);
  m.gpus = gpus_of(t);
  hwloc_bitmap_free(cpus);
  if (here) {
    m.memory_total_bytes = meminfo_bytes("MemTotal");
    m.memory_available_bytes = meminfo_bytes("MemAvailable");
  } else {  // a recorded machine's memory is what its topology holds, all of it free
    m.memory_total_bytes = m.memory_available_bytes = static_cast<std::int64_t>(hwloc_get_root_obj(t)->total_memory);
  }
  utsname u{};
  if (uname(&u) == 0) m.os = fmt::format("{} {} {}", u.sysname, u.release, u.machine);
  return m;
}

std::string machine_id(const MachineInfo& info) {
  std::string model = info.cpu_model;
  if (auto at = model.find('@'); at != std::string::npos) model.erase(at);  // "@ 2.40GHz"
  // Lower-case words of letters and digits, without the ones that name no machine.
  std::vector<std::string> words;
  std::string word;
  for (std::size_t i = 0; i <= model.size(); ++i) {
    char ch = i < model.size() ? model[i] : ' ';
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    } else if (!word.empty()) {
      if (word != "r" && word != "tm" && word != "cpu" && word != "processor") words.push_back(word);
      word.clear();
    }
  }
  const bool names_a_model =
      std::any_of(model.begin(), model.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); });
  if (!names_a_model && !words.empty() && !info.microarchitecture.empty()) words.push_back(info.microarchitecture);
  std::string slug;
  for (const auto& w : words) slug += (slug.empty() ? "" : "-") + w;
  if (slug.empty()) slug = "unknown-cpu";
  if (info.allowed_cpus > 0 && info.allowed_cpus < info.logical_cpus)
    return fmt::format("{}-{}c-on-{}", slug, info.logical_cpus, info.allowed_cpus);
  return fmt::format("{}-{}c", slug, info.logical_cpus);
}

std::vector<std::pair<std::string, std::string>> build_context() {
  std::vector<std::pair<std::string, std::string>> ctx;
  ctx.emplace_back("ladderbench_version", LADDER_VERSION);
  ctx.emplace_back("git_sha", LADDER_GIT_SHA);
  ctx.emplace_back("compiler", fmt::format("{} {}", LADDER_CXX_COMPILER_ID, __VERSION__));
  ctx.emplace_back("build_type", LADDER_BUILD_TYPE);
  ctx.emplace_back("cxx_flags", LADDER_CXX_FLAGS);
  ctx.emplace_back("rung_flags", LADDER_RUNG_FLAGS);
  ctx.emplace_back("rung_inner_loop_fields", "instructions,arithmetic,stack_loads,stack_stores,flops");
  for (const InnerLoop& loop : inner_loops())
    ctx.emplace_back(
        fmt::format("rung_inner_loop/{}", loop.rung),
        fmt::format("{},{},{},{},{}", loop.instructions, loop.arithmetic, loop.stack_loads, loop.stack_stores, loop.flops));
  ctx.emplace_back("benchmark_library_version", LADDER_BENCHMARK_VERSION);
  ctx.emplace_back("fmt_version", fmt::format("{}.{}.{}", FMT_VERSION / 10000, FMT_VERSION / 100 % 100, FMT_VERSION % 100));
  ctx.emplace_back("openmp_version", std::to_string(_OPENMP));
  return ctx;
}

double cache_line_bytes() {
  const hwloc_topology_t t = topology();
  const hwloc_obj_t l1 = t ? hwloc_get_obj_by_type(t, HWLOC_OBJ_L1CACHE, 0) : nullptr;
  return l1 && l1->attr->cache.linesize > 0 ? static_cast<double>(l1->attr->cache.linesize) : 64.0;
}

const CacheLevel* last_level_cache(const MachineInfo& machine) {
  const CacheLevel* last = nullptr;
  for (const auto& c : machine.caches)
    if (c.type != "Instruction" && (!last || c.level > last->level)) last = &c;
  return last;
}

std::int64_t last_level_cache_bytes(const MachineInfo& machine) {
  const CacheLevel* last = last_level_cache(machine);
  return last ? last->bytes * std::max(1, last->instances) : std::int64_t{64} << 20;
}

std::string topology_xml() {
  const hwloc_topology_t t = topology();
  char* buffer = nullptr;
  int length = 0;
  if (!t || hwloc_topology_export_xmlbuffer(t, &buffer, &length, 0) != 0) return "";
  std::string xml(buffer, static_cast<std::size_t>(std::max(0, length - 1)));
  hwloc_free_xmlbuffer(t, buffer);
  return xml;
}

std::string hwloc_version() { return HWLOC_VERSION; }

double max_clock_mhz() {
  const hwloc_topology_t t = topology();
  double most = 0;
  const int kinds = t ? hwloc_cpukinds_get_nr(t, 0) : 0;
  for (int k = 0; k < kinds; ++k) {
    unsigned count = 0;
    hwloc_info_s* infos = nullptr;
    if (hwloc_cpukinds_get_info(t, static_cast<unsigned>(k), nullptr, nullptr, &count, &infos, 0) != 0) continue;
    for (unsigned i = 0; i < count; ++i)
      if (std::string(infos[i].name) == "FrequencyMaxMHz") most = std::max(most, std::atof(infos[i].value));
  }
  return most;
}

}  // namespace ladder
