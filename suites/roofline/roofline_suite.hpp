#pragma once
#include <vector>

#include "core/machine.hpp"
#include "roofline_kernels.hpp"
#include "suite.hpp"

namespace ladder {

// roofline/<scalar|avx512|boxed>/<f32|f64>/k:<FMAs per element>, k = 0, 1, 2, 4, ... 512.
std::vector<BenchmarkCase> roofline_cases(const SuiteRequest& request, const MachineInfo& machine);
std::vector<std::string> roofline_rung_names();
std::vector<int> roofline_intensities();

// flops (rate), bytes, intensity and k of one pass, from the problem, on any device's case.
void set_roofline_counters(benchmark::State& state, const roofline::RooflineProblem& problem);

}  // namespace ladder
