#include "regime.hpp"

#include <algorithm>
#include <iterator>

namespace ladder {

double Regime::bound_seconds() const { return std::max({compute_seconds, memory_seconds, overhead_seconds}); }

Regime classify(double flops, double bytes, const Roofs& roofs) {
  Regime r;
  r.compute_seconds = roofs.peak_flops > 0 ? flops / roofs.peak_flops : 0;
  r.memory_seconds = roofs.bytes_per_second > 0 ? bytes / roofs.bytes_per_second : 0;
  r.overhead_seconds = roofs.overhead_seconds;
  const double bound = r.bound_seconds();
  r.code = bound == r.compute_seconds ? 0 : bound == r.memory_seconds ? 1 : 2;
  r.name = kRegimeNames[r.code];
  return r;
}

std::string regime_codes() {
  std::string codes;
  for (int i = 0; i < static_cast<int>(std::size(kRegimeNames)); ++i)
    codes += (codes.empty() ? "" : ", ") + std::to_string(i) + " " + kRegimeNames[i];
  return codes;
}

std::string set_regime(benchmark::State& state, double flops, double bytes, const Roofs& roofs) {
  const Regime regime = classify(flops, bytes, roofs);
  // Bound seconds per iteration as a rate: Google Benchmark divides by the measured time.
  state.counters["roof_fraction"] = benchmark::Counter(regime.bound_seconds(), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["regime"] = regime.code;
  return regime.name + "-bound";
}

}  // namespace ladder
