// The machine's measured compute ceilings: each peak probe run on one core and on all cores.
#pragma once
#include <string>
#include <vector>

#include "registry.hpp"

namespace ladder {

struct PeakMeasurement {
  std::string probe;  // "avx512-fma"
  DType dtype = DType::f32;
  int threads = 1;
  double flops_per_second = 0;
};

struct Peaks {
  std::vector<PeakMeasurement> measurements;  // every available probe, 1 thread and all threads
  std::vector<std::string> skipped;           // "amx-bf16: CPU lacks ..."
  // The best all-core rate for a dtype, and the probe that gave it; 0 and "" when none ran.
  double machine_peak(DType dtype) const;
  // The best rate of a dtype's probes at exactly `threads` threads (1, or all); 0 if none ran.
  double peak_at(DType dtype, int threads) const;
  // The rate of one probe by name at exactly `threads` threads; 0 if it did not run.
  double probe_peak_at(const std::string& probe, int threads) const;
  std::string machine_peak_source(DType dtype) const;
};

// Runs every available probe (about 0.2 s each); `seconds` is the length of one timed trial.
Peaks measure_peaks(const Registry& registry, double seconds = 0.02);

}  // namespace ladder
