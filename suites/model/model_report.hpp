// What the model suites show on the console: each case's time by operation (and the backends of
// one configuration side by side), and the resolution sweep's growth per backend.
#pragma once
#include <string>
#include <vector>

#include "run_reading.hpp"
#include "suite.hpp"

namespace ladder {

// Each model case's time split by operation type: ms per pass, share, GFLOP/s, GB/s.
std::string format_model_ops(const std::vector<Run>& runs);

// The model's resolution sweep per backend: side, tokens, time per pass, GFLOP/s, growth of the
// time against the previous side (as an exponent of HW: 2 is quadratic), the share of the
// (HW)^2 operations, and the memory the pass holds.
std::string format_model_sweep(const std::vector<Run>& runs);

std::vector<ReportSection> model_report(const ReportRequest& request);
std::vector<ReportSection> model_sweep_report(const ReportRequest& request);

}  // namespace ladder
