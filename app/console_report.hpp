// What the console shows after the cases: the ladder, head-to-head ratios, the model by
// operation and against resolution, the roofline against the ceilings, each case against its
// roof, the ceilings, and whether the machine was quiet. All from the runs that went to the file.
#pragma once
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "roofs/ceilings.hpp"
#include "core/load.hpp"

namespace ladder {

void print_console_reports(const std::vector<benchmark::BenchmarkReporter::Run>& runs, const Ceilings& ceilings,
                           const NoiseReport& noise, const std::string& profile);

}  // namespace ladder
