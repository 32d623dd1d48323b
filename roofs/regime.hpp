// Which roof bounds a piece of work, and how near the measured time comes to it: the one place a
// regime is decided and written into a case (the roof_fraction counter, the "-bound" label).
#pragma once
#include <benchmark/benchmark.h>

#include <string>

namespace ladder {

// The roofs a piece of work meets: the peak of the unit it runs on, the bandwidth of the memory
// level holding its data, and the fixed cost it cannot go below (a call, a launch, a fork).
struct Roofs {
  double peak_flops = 0;
  double bytes_per_second = 0;
  double overhead_seconds = 0;
};

// The regimes by code: a case's `regime` counter (and a model operation's op/<op>/regime) is the
// index here; the context's regime_codes says the same for report tools.
inline constexpr const char* kRegimeNames[] = {"compute", "memory", "overhead"};
std::string regime_codes();  // "0 compute, 1 memory, 2 overhead"

// Each bound is the work over its roof: flops / peak, bytes / bandwidth, the fixed cost as given.
struct Regime {
  int code = 0;      // index into kRegimeNames
  std::string name;  // "compute", "memory" or "overhead"
  double compute_seconds = 0, memory_seconds = 0, overhead_seconds = 0;
  double bound_seconds() const;  // the largest of the three lower bounds on time
};

Regime classify(double flops, double bytes, const Roofs& roofs);

// Sets the case's roof_fraction (the bound over the measured time of an iteration) and regime
// (its code) and returns "<regime>-bound" for its label.
std::string set_regime(benchmark::State& state, double flops, double bytes, const Roofs& roofs);

}  // namespace ladder
