#include "roofs/read_bandwidth.hpp"

#include "roofs/array_size.hpp"
#include "core/machine.hpp"
#include "core/statistics.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>

namespace ladder::cache {
namespace {

// 64-bit integer sums (associative, so the compiler may vectorise them freely) over four
// independent vector accumulators; built with the native ISA flags. The vector type is as wide
// as the native registers: a wider one is split and spilled through the stack (on AVX2, a
// 64-byte type read at about a quarter of L1's bandwidth).
#if defined(__AVX512F__)
constexpr int kVectorBytes = 64;
#elif defined(__AVX2__)
constexpr int kVectorBytes = 32;
#else
constexpr int kVectorBytes = 16;
#endif
constexpr int kLanes = kVectorBytes / 8;
constexpr std::int64_t kBlockWords = 4 * kLanes;
typedef std::uint64_t u64v __attribute__((vector_size(kVectorBytes)));

__attribute__((noinline)) std::uint64_t sum_words(const std::uint64_t* __restrict data, std::int64_t words) {
  u64v acc0 = {}, acc1 = {}, acc2 = {}, acc3 = {};
  const std::int64_t blocks = words / kBlockWords;
  for (std::int64_t i = 0; i < blocks; ++i) {
    const u64v* v = reinterpret_cast<const u64v*>(data + i * kBlockWords);
    acc0 += v[0];
    acc1 += v[1];
    acc2 += v[2];
    acc3 += v[3];
  }
  u64v acc = acc0 + acc1 + acc2 + acc3;
  std::uint64_t sum = 0;
  for (int lane = 0; lane < kLanes; ++lane) sum += acc[lane];
  for (std::int64_t i = blocks * kBlockWords; i < words; ++i) sum += data[i];
  return sum;
}

}  // namespace

ReadBuffers::ReadBuffers(std::int64_t bytes_per_thread, int threads) : words_(std::max<std::int64_t>(32, bytes_per_thread / 8)) {
  buffers_.resize(static_cast<std::size_t>(threads));
#pragma omp parallel num_threads(threads)
  {
    auto& mine = buffers_[omp_get_thread_num()];
    mine = AlignedBuffer<std::uint64_t>(words_);
    std::fill(mine.data(), mine.data() + words_, 1u);
  }
}

std::uint64_t ReadBuffers::read_prefix(std::int64_t passes, std::int64_t words) const {
  std::uint64_t total = 0;
#pragma omp parallel num_threads(threads()) reduction(+ : total)
  {
    const auto& mine = buffers_[omp_get_thread_num()];
    for (std::int64_t p = 0; p < passes; ++p) {
      total += sum_words(mine.data(), words);
      asm volatile("" ::: "memory");  // each pass must load again: no hoisting the sum out
    }
  }
  return total;
}

std::uint64_t ReadBuffers::expected_prefix(std::int64_t passes, std::int64_t words) const {
  return static_cast<std::uint64_t>(passes * words * threads());
}

std::int64_t ReadBuffers::passes_for_timing(std::int64_t words) { return std::max<std::int64_t>(1, (16 << 20) / (words * 8)); }

std::vector<std::int64_t> sweep_sizes(const MachineInfo& machine) {
  // Per thread, on every thread at once: past 4 x the cache one core sees (one instance of the
  // last level), capped as the memory-bound suites' arrays are.
  const CacheLevel* last = last_level_cache(machine);
  const std::int64_t one_instance = last ? last->bytes : std::int64_t{64} << 20;
  const double top = static_cast<double>(
      large_array_size(Profile::full, one_instance, std::max(1, machine.threads), memory_limit().bytes).bytes);
  std::vector<std::int64_t> sizes;
  for (int half_octaves = 0;; ++half_octaves) {
    double bytes = 4096.0 * std::pow(2.0, half_octaves / 2.0);
    if (bytes > top * 1.001) break;
    sizes.push_back(static_cast<std::int64_t>(bytes / 64) * 64);
  }
  return sizes;
}

std::vector<Plateau> detect_plateaus(const std::vector<BandwidthPoint>& curve, const std::vector<CacheLevel>& caches,
                                     int threads) {
  // All-core L2 and L3 can differ by less than 20%; noise within a level is smaller than that, and a
  // level split by a noisy point is merged back below.
  constexpr double kTolerance = 1.15;
  std::vector<std::vector<BandwidthPoint>> runs;
  for (const auto& p : curve) {
    if (!runs.empty()) {
      std::vector<double> rates;
      for (const auto& q : runs.back()) rates.push_back(q.bytes_per_second);
      const double m = median(rates);
      if (p.bytes_per_second <= m * kTolerance && p.bytes_per_second >= m / kTolerance) {
        runs.back().push_back(p);
        continue;
      }
    }
    runs.push_back({p});
  }

  // Capacity of each data cache level per thread: a cache shared by several threads is split.
  std::vector<std::pair<int, double>> capacity;  // level, bytes per thread
  for (const auto& c : caches) {
    if (c.type == "Instruction") continue;
    double sharers = std::max(1, std::min(c.shared_by, threads));
    capacity.emplace_back(c.level, static_cast<double>(c.bytes) / sharers);
  }
  std::sort(capacity.begin(), capacity.end());

  std::vector<Plateau> plateaus;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const auto& run = runs[r];
    if (run.size() < 2) continue;  // a transition between levels, not a level
    std::vector<double> rates;
    rates.reserve(run.size());
    for (const auto& q : run) rates.push_back(q.bytes_per_second);
    Plateau p;
    p.from_bytes = run.front().bytes;
    p.to_bytes = run.back().bytes;
    p.bytes_per_second = median(rates);
    p.points = static_cast<int>(run.size());
    const double middle = std::sqrt(static_cast<double>(p.from_bytes) * static_cast<double>(p.to_bytes));
    p.level = "DRAM";
    for (auto [level, bytes] : capacity)
      if (middle <= bytes) {
        p.level = fmt::format("L{}", level);  // (not "L" + to_string: GCC 12 -O3 warns falsely)
        break;
      }
    // Main memory is the slowest level: a run past the caches' stated sizes that the sweep's later
    // points fall below is still in a cache (a VM's two vCPUs on two host CCDs have twice the L3
    // the guest is told of: 155 GB/s "DRAM" at 16-23 MiB a thread, then 60-90), not DRAM.
    if (p.level == "DRAM") {
      bool falls_later = false;
      for (std::size_t later = r + 1; later < runs.size(); ++later)
        for (const auto& q : runs[later]) falls_later |= q.bytes_per_second * kTolerance < p.bytes_per_second;
      if (falls_later) continue;
    }
    // Two runs that land in one level (a noisy point split it) become one plateau.
    if (!plateaus.empty() && plateaus.back().level == p.level) {
      Plateau& last = plateaus.back();
      last.bytes_per_second = (last.bytes_per_second * last.points + p.bytes_per_second * p.points) / (last.points + p.points);
      last.to_bytes = p.to_bytes;
      last.points += p.points;
      continue;
    }
    plateaus.push_back(p);
  }
  return plateaus;
}

}  // namespace ladder::cache
