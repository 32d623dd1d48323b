#pragma once
#include <vector>

#include "core/machine.hpp"
#include "suite.hpp"

namespace ladder {

// stream/<kernel>[-nt]/<f64|f32>/n:<elements>: each array at least 4x the last-level cache.
std::vector<BenchmarkCase> stream_cases(const SuiteRequest& request, const MachineInfo& machine);
std::vector<std::string> stream_rung_names();

}  // namespace ladder
