#include "machine.hpp"

#include <fmt/format.h>
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

namespace ladder {
namespace {

std::string read_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::int64_t parse_size(const std::string& text) {  // "32K", "1024K", "32M"
  if (text.empty()) return 0;
  std::int64_t value = std::stoll(text);
  switch (text.back()) {
    case 'K':
      return value << 10;
    case 'M':
      return value << 20;
    case 'G':
      return value << 30;
    default:
      return value;
  }
}

int count_cpus_in_list(const std::string& list) {  // "0-3,8"
  int count = 0;
  std::stringstream ss(list);
  std::string part;
  while (std::getline(ss, part, ',')) {
    auto dash = part.find('-');
    if (dash == std::string::npos) {
      ++count;
    } else {
      count += std::stoi(part.substr(dash + 1)) - std::stoi(part.substr(0, dash)) + 1;
    }
  }
  return count;
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

MachineInfo machine_info() {
  MachineInfo m;
  const CpuFeatures& f = cpu_features();
  m.cpu_model = f.brand.empty() ? "unknown CPU" : f.brand;
  m.cpu_vendor = f.vendor;
  m.microarchitecture = microarchitecture(f.vendor, f.family, f.model);
  m.isa_flags = f.flags();
  m.logical_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  m.threads = omp_get_max_threads();
  m.allowed_cpus = allowed_cpu_count();
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/sys/devices/system/cpu/cpu0/cache", ec)) {
    if (entry.path().filename().string().rfind("index", 0) != 0) continue;
    CacheLevel c;
    c.level = std::atoi(read_line(entry.path() / "level").c_str());
    c.type = read_line(entry.path() / "type");
    c.bytes = parse_size(read_line(entry.path() / "size"));
    c.shared_by = count_cpus_in_list(read_line(entry.path() / "shared_cpu_list"));
    m.caches.push_back(c);
  }
  std::sort(m.caches.begin(), m.caches.end(),
            [](const CacheLevel& a, const CacheLevel& b) { return a.level != b.level ? a.level < b.level : a.type < b.type; });
  m.memory_total_bytes = meminfo_bytes("MemTotal");
  m.memory_available_bytes = meminfo_bytes("MemAvailable");
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
  ctx.emplace_back("benchmark_library_version", LADDER_BENCHMARK_VERSION);
  ctx.emplace_back("fmt_version", fmt::format("{}.{}.{}", FMT_VERSION / 10000, FMT_VERSION / 100 % 100, FMT_VERSION % 100));
  ctx.emplace_back("openmp_version", std::to_string(_OPENMP));
  return ctx;
}

double cache_line_bytes() {
  const long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
  return line > 0 ? static_cast<double>(line) : 64.0;
}

}  // namespace ladder
