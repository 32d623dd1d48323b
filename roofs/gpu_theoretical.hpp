// A GPU's theoretical peaks without its tensor cores: SMs x results per clock per SM x 2 (an FMA
// is two FLOPs) x the clock, per number format, from the compute capability. Each comes with its
// derivation, as the CPU's theoretical figures do, so that a measured probe can be read against it.
#pragma once
#include <string>
#include <vector>

namespace ladder {

struct GpuTheoretical {
  std::string name;  // "gpu_theoretical_peak_f32_flops"
  double value = 0;
  std::string derivation;
};

// FMA results per clock per SM for a format (f32, f16 as half2, bf16 as bfloat162, f64) on a
// compute capability (major*10+minor); 0 where the format has no such unit or the capability is
// not in the table.
int fma_results_per_clock_per_sm(int compute_capability, const std::string& format);

// Every format the table has for this device. `clock_hz` is the clock the figures are at, and
// `clock_source` says where it came from ("SM clock read while the FMA probe ran", "the
// device's maximum clock"): a device that does not hold its boost clock under load reaches
// less than its maximum allows, and the figure should say which clock it assumed.
std::vector<GpuTheoretical> gpu_theoretical_peaks(int compute_capability, int sms, double clock_hz,
                                                  const std::string& clock_source);

}  // namespace ladder
