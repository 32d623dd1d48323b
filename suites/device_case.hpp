// What the suites' GPU halves share: a case timed with CUDA events (manual time) whose errors
// become the case's error, and the array length of the device STREAM and roofline sweeps.
// Compiled only in CUDA builds; device_absent.cpp stands in for the GPU halves elsewhere.
#pragma once
#include <functional>
#include <string>

#include "cuda/device_kernels.hpp"
#include "suite.hpp"

namespace ladder {

inline bool smoke(const SuiteRequest& r) { return r.profile == Profile::smoke; }

// Large enough to leave every GPU's L2 far behind (H200: 60 MiB), small enough for a T4.
inline std::int64_t device_elements(const SuiteRequest& r) { return smoke(r) ? (1 << 16) + 6 : std::int64_t{1} << 26; }

// A case body timed on the device: `body` enqueues one iteration on the timer's stream.
template <class Body>
void timed_loop(benchmark::State& state, cuda::DeviceTimer& timer, Body body) {
  for (auto _ : state) {
    timer.start();
    body();
    state.SetIterationTime(timer.stop());
  }
}

BenchmarkCase device_case(CaseAxes axes, std::function<void(benchmark::State&)> body);

}  // namespace ladder
