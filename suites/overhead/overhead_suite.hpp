#pragma once
#include <string_view>
#include <vector>

#include "suite.hpp"

namespace ladder {

// overhead/<what>/-/ops:<per iteration>: fixed costs, each as seconds_per_op; plus the smallest
// GEMMs (n = 1 … 64) through each rung marked small_gemm_sweep, where the call costs more than
// the arithmetic; with a GPU, a launch, a synchronisation and a small cuBLAS call.
inline constexpr std::string_view kOverheadSuite = "overhead";
Suite overhead_suite();
std::vector<BenchmarkCase> overhead_cases(const SuiteRequest& request);

// The GPU half (overhead_device.cpp): its rungs, known in every build, and its cases, none where
// no device answers.
inline constexpr const char* kCudaLaunch = "cuda-launch";
inline constexpr const char* kCudaSync = "cuda-sync";
inline constexpr const char* kCublasSmall = "cublas-small";
inline constexpr const char* kCudaChain = "cuda-chain";
inline constexpr const char* kCudaGraph = "cuda-graph";
std::vector<BenchmarkCase> device_overhead_cases(const SuiteRequest& request);

}  // namespace ladder
