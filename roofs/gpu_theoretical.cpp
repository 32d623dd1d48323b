#include "roofs/gpu_theoretical.hpp"

#include <fmt/format.h>

#include <array>

namespace ladder {

namespace {

// Results per clock per SM of the CUDA cores (FMA, no tensor cores), from NVIDIA's whitepapers
// and datasheets: V100 (7.0), T4 (7.5), A100 (8.0: f16 78 TFLOP/s non-tensor at 108 SMs and
// 1.41 GHz, bf16 39), GA10x (8.6), AD10x (8.9), H100/H200 (9.0: f32 66.9, f16 and bf16 133.8,
// f64 33.5 TFLOP/s at 132 SMs and 1.98 GHz).
struct Row {
  int capability;
  int f32, f16, bf16, f64;
};
constexpr std::array kTable{
    Row{70, 64, 128, 0, 32},   Row{75, 64, 128, 0, 2},    Row{80, 64, 256, 128, 32},
    Row{86, 128, 128, 128, 2}, Row{89, 128, 128, 128, 2}, Row{90, 128, 256, 256, 64},
};

}  // namespace

int fma_results_per_clock_per_sm(int capability, const std::string& format) {
  for (const Row& row : kTable) {
    if (row.capability != capability) continue;
    if (format == "f32") return row.f32;
    if (format == "f16") return row.f16;
    if (format == "bf16") return row.bf16;
    if (format == "f64") return row.f64;
  }
  return 0;
}

std::vector<GpuTheoretical> gpu_theoretical_peaks(int capability, int sms, double clock_hz, const std::string& clock_source) {
  std::vector<GpuTheoretical> peaks;
  if (sms <= 0 || clock_hz <= 0) return peaks;
  for (const char* format : {"f32", "f16", "bf16", "f64"}) {
    const int per_sm = fma_results_per_clock_per_sm(capability, format);
    if (per_sm == 0) continue;
    const double value = 2.0 * sms * per_sm * clock_hz;
    peaks.push_back({fmt::format("gpu_theoretical_peak_{}_flops", format), value,
                     fmt::format("{} SMs x {} {} FMA results per clock per SM (sm_{}) x 2 x {:.0f} MHz ({})", sms, per_sm, format,
                                 capability, clock_hz / 1e6, clock_source)});
  }
  return peaks;
}

}  // namespace ladder
