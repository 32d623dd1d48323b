// From the command line to the cases that run: each selected suite's cases (a name twice runs
// once), then --benchmark_filter; refused in one line where nothing is left or the run cannot fit.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/machine.hpp"
#include "options.hpp"
#include "suite.hpp"

namespace ladder {

bool suite_selected(const Options& options, const Suite& suite);

// The cases the filter selects, matched as Google Benchmark does (a leading '-' negates) but
// against the plain case names, so that '^gemm/avx512/f32/n:1024$' works.
std::vector<BenchmarkCase> apply_filter(const std::vector<BenchmarkCase>& cases, const std::optional<std::string>& filter);

// Every selected suite's cases, filtered; exits with a usage error that says why where none is
// left (a named rung unavailable here, a suite whose rungs all are).
std::vector<BenchmarkCase> select_cases(const Options& options, const SuiteRequest& request);

// Refuses, before anything is allocated, a run that cannot fit: the run as a whole in host
// memory (what stays allocated for all of it plus its largest case), then each case on the GPU.
void check_memory(const std::vector<BenchmarkCase>& cases, const MemoryLimit& memory, const SuiteRequest& request);

}  // namespace ladder
