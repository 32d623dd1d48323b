#include <fmt/format.h>

#include <map>

#include "roofline_suite.hpp"
#include "roofs/ceilings.hpp"
#include "run_reading.hpp"

namespace ladder {

std::string format_roofline_summary(const std::vector<Run>& runs, const Ceilings& ceilings) {
  // (rung, dtype) → k → run
  std::map<std::pair<std::string, std::string>, std::map<std::int64_t, const Run*>> sweeps;
  for (const auto& [axes, run] : suite_runs(runs, kRooflineSuite)) sweeps[{axes->rung, axes->dtype}][axes->size] = run;
  std::string out;
  for (const auto& [series, points] : sweeps) {
    const auto& low = *points.begin();
    const auto& high = *points.rbegin();
    const double low_bandwidth = counter(*low.second, "bytes_per_second");
    // The device's sweep against device memory, the host's against STREAM triad in DRAM.
    const bool device = series.first == kRooflineDeviceRung;
    const double memory = device ? ceilings.device.memory_bytes_per_second() : ceilings.triad_bytes_per_second;
    out +=
        fmt::format("  {:<7}{:<5}k={:<4}{:>6.1f} GB/s ({:>3.0f}% of {})  k={:<4}{:>7.1f} GFLOP/s ({:>3.0f}% of peak)  {}\n",
                    series.first, series.second, low.first, low_bandwidth / 1e9, memory > 0 ? 100 * low_bandwidth / memory : 0.0,
                    device ? "device memory" : "triad", high.first, counter(*high.second, "flops") / 1e9,
                    100 * counter(*high.second, "peak_fraction"), high.second->report_label);
  }
  return out;
}

std::vector<ReportSection> roofline_report(const ReportRequest& request) {
  return {{"The roofline sweep against the ceilings:", format_roofline_summary(request.runs, request.ceilings)}};
}

}  // namespace ladder
