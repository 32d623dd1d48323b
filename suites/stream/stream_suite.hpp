#pragma once
#include <string_view>
#include <string>
#include <vector>

#include "suite.hpp"

namespace ladder {

// stream/<kernel>[-nt]/<f64|f32>/n:<elements>: each array at least 4x the last-level cache; with
// a GPU, stream/device-<copy|triad>/<f32|f64>/n:<elements>, each array a multiple of L2 (eight
// times; the full profile sweeps L2/8 … 8×L2).
inline constexpr std::string_view kStreamSuite = "stream";
Suite stream_suite();
std::vector<BenchmarkCase> stream_cases(const SuiteRequest& request);

// The GPU half (stream_device.cpp): its rungs, known in every build, and its cases, none where
// no device answers.
inline constexpr const char* kDeviceCopy = "device-copy";
inline constexpr const char* kDeviceTriad = "device-triad";
std::vector<BenchmarkCase> device_stream_cases(const SuiteRequest& request);

}  // namespace ladder
