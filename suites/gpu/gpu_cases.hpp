// The GPU's side of the regimes: device STREAM, PCIe, the roofline sweep on the device, and
// launch overhead (one launch, a synchronisation, a small cuBLAS call, and a chain of small
// kernels launched one by one against the same chain replayed as a CUDA graph). Built with the
// CUDA backend; empty where no device answers. All timed with CUDA events (manual time).
#pragma once
#include <vector>

#include "suite.hpp"

namespace ladder {

std::vector<BenchmarkCase> gpu_stream_cases(const SuiteRequest& request);
std::vector<BenchmarkCase> gpu_pcie_cases(const SuiteRequest& request);
std::vector<BenchmarkCase> gpu_roofline_cases(const SuiteRequest& request);
std::vector<BenchmarkCase> gpu_overhead_cases(const SuiteRequest& request);
std::vector<std::string> gpu_rung_names();

}  // namespace ladder
