#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "roofline_kernels.hpp"
#include "suite.hpp"

namespace ladder {

// roofline/<scalar|avx512|boxed>/<f32|f64>/k:<FMAs per element>, k = 0, 1, 2, 4, ... 512.
inline constexpr std::string_view kRooflineSuite = "roofline";
Suite roofline_suite();
std::vector<BenchmarkCase> roofline_cases(const SuiteRequest& request);
std::vector<int> roofline_intensities();

// The GPU half (roofline_device.cpp): roofline/cuda/<f32|f16>/k:<k>; none where no device answers.
inline constexpr const char* kRooflineDeviceRung = "cuda";
std::vector<BenchmarkCase> device_roofline_cases(const SuiteRequest& request);

// Each sweep's two ends: bandwidth at the lowest intensity against STREAM triad (the device's
// against its memory), FLOP/s at the highest against its peak probe; the suite's report.
std::string format_roofline_summary(const std::vector<benchmark::BenchmarkReporter::Run>& runs, const Ceilings& ceilings);
std::vector<ReportSection> roofline_report(const ReportRequest& request);

// flops (rate), bytes, intensity and k of one pass, from the problem, on any device's case.
void set_roofline_counters(benchmark::State& state, const roofline::RooflineProblem& problem);

}  // namespace ladder
