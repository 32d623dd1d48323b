// Read bandwidth against working-set size: each thread sums its own buffer of `bytes`, many
// passes per measurement, so the working set decides which level of the hierarchy answers.
// The plateaus of that curve are the machine's bandwidth ceilings (L1, L2, L3, DRAM).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/buffer.hpp"
#include "core/machine.hpp"

namespace ladder::cache {

// Per-thread buffers of 64-bit words, each first touched by its own thread.
class ReadBuffers {
 public:
  ReadBuffers(std::int64_t bytes_per_thread, int threads);
  std::int64_t words() const { return words_; }
  int threads() const { return static_cast<int>(buffers_.size()); }
  // `passes` sums over every thread's buffer, on `threads()` threads at once. Returns the total,
  // which is passes × words × threads (every word is 1) when every load happened.
  std::uint64_t read(std::int64_t passes) const { return read_prefix(passes, words_); }
  // The same over the first `words` words of each buffer (a smaller working set).
  std::uint64_t read_prefix(std::int64_t passes, std::int64_t words) const;
  std::uint64_t expected(std::int64_t passes) const { return expected_prefix(passes, words_); }
  std::uint64_t expected_prefix(std::int64_t passes, std::int64_t words) const;
  // Passes per measurement so that one reads at least 16 MiB per thread, even in L1.
  static std::int64_t passes_for_timing(std::int64_t words);

 private:
  std::int64_t words_;
  std::vector<AlignedBuffer<std::uint64_t>> buffers_;
};

struct BandwidthPoint {
  std::int64_t bytes = 0;       // working set per thread
  double bytes_per_second = 0;  // all threads together
};

struct Plateau {
  std::string level;                          // "L1", "L2", "L3", "DRAM"
  std::int64_t from_bytes = 0, to_bytes = 0;  // working sets per thread it spans
  double bytes_per_second = 0;                // the median of its points
  int points = 0;
};

// Working sets from 4 KiB to 4× the last-level cache, two per octave, whole cache lines.
std::vector<std::int64_t> sweep_sizes(const MachineInfo& machine);

// Splits a curve (sorted by size) into runs of points within 15% of their run's median; runs
// of at least two points are plateaus, named by the smallest cache level whose capacity (per
// thread, for caches shared by `threads` threads) holds the plateau's middle, else DRAM.
std::vector<Plateau> detect_plateaus(const std::vector<BandwidthPoint>& curve, const std::vector<CacheLevel>& caches,
                                     int threads);

}  // namespace ladder::cache
