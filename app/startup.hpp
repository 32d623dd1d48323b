// What the program does around the cases: runs itself again where a library needs its environment
// set before it loads, lists the suites' rungs, and writes the machine and the ceilings into the
// results' context.
#pragma once
#include <string>
#include <vector>

#include "roofs/ceilings.hpp"
#include "core/load.hpp"
#include "core/machine.hpp"
#include "suite.hpp"

namespace ladder {

// A library that reads its environment only when it loads (OpenBLAS's core type) is set up by
// running the program again with that environment; the reason goes to the console and the context.
void apply_environment_fixes(char** argv);

// What set this run up differently from what was asked (the environment's fixes, arrays capped
// below 4x the cache), printed once under the run's header: an error that stops the run before
// it starts stays the only line on every machine.
std::vector<std::string> setup_notes();

// --list: every suite's rungs, each "available" or "unavailable: <reason>", and the peak probes.
void print_list();

// Where a GPU answers, points NVML at it (found by its PCI bus id) for the GPU cases' telemetry.
void start_gpu_telemetry();

void add_context(const MachineInfo& machine, const Ceilings& ceilings, const std::string& profile);

// The context's case_axes: every case of the run by its name, with its suite, rung, dtype,
// size_axis and size, as one JSON object (the report tools read a case's axes from it, never
// from its name).
std::string case_axes_json(const std::vector<BenchmarkCase>& cases);

// The peaks a noisy machine contradicts: one core's and all cores' per dtype measured.
std::vector<PeakPair> peak_pairs(const Ceilings& ceilings);

}  // namespace ladder
