#pragma once
#include <vector>

#include "core/machine.hpp"
#include "suite.hpp"

namespace ladder {

// overhead/<what>/-/ops:<per iteration>: fixed costs, each as seconds_per_op; plus the smallest
// GEMMs (n = 1 … 64) through every library rung, where the call costs more than the arithmetic.
std::vector<BenchmarkCase> overhead_cases(const SuiteRequest& request, const MachineInfo& machine);
std::vector<std::string> overhead_rung_names();

}  // namespace ladder
