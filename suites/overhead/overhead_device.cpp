// The overhead suite's GPU half: a launch, a synchronisation, a small cuBLAS call, and a chain
// of small kernels launched one by one against the same chain replayed as a CUDA graph.
#include <fmt/format.h>

#include <chrono>

#include "cuda/device_kernels.hpp"
#include "device_case.hpp"
#include "overhead_kernels.hpp"
#include "overhead_suite.hpp"

namespace ladder {

using cuda::DeviceTimer;

std::vector<BenchmarkCase> device_overhead_cases(const SuiteRequest& request) {
  std::vector<BenchmarkCase> cases;
  if (!device_unavailable_reason().empty()) return cases;
  auto per_op = [](benchmark::State& state, double ops) {
    using benchmark::Counter;
    state.counters["seconds_per_op"] = Counter(ops, Counter::kIsIterationInvariantRate | Counter::kInvert);
    state.SetItemsProcessed(static_cast<std::int64_t>(ops) * state.iterations());
  };
  if (rung_requested(request, kCudaLaunch))
    cases.push_back(device_case({kOverheadSuite, kCudaLaunch, "-", "ops", 1000}, [per_op](benchmark::State& state) {
      DeviceTimer timer;
      timed_loop(state, timer, [&] {
        for (int i = 0; i < 1000; ++i) cuda::launch_empty(timer.stream());
      });
      per_op(state, 1000);
    }));
  if (rung_requested(request, kCudaSync))
    cases.push_back(device_case({kOverheadSuite, kCudaSync, "-", "ops", 1000}, [per_op](benchmark::State& state) {
      DeviceTimer timer;  // wall time here: the host's wait is what a synchronisation costs
      for (auto _ : state) {
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < 1000; ++i) {
          cuda::launch_empty(timer.stream());
          timer.synchronize();
        }
        state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      per_op(state, 1000);
    }));
  if (rung_requested(request, kCublasSmall))
    cases.push_back(device_case({kOverheadSuite, kCublasSmall, "f32", "n", 16}, [per_op](benchmark::State& state) {
      auto gemm = cuda::small_cublas_gemm(16);
      DeviceTimer timer;
      timed_loop(state, timer, [&] {
        for (int i = 0; i < 100; ++i) gemm(timer.stream());
      });
      per_op(state, 100);
    }));
  for (bool graph : {false, true}) {
    const std::string rung = graph ? kCudaGraph : kCudaChain;
    if (!rung_requested(request, rung)) continue;
    cases.push_back(device_case({kOverheadSuite, rung, "-", "ops", 20}, [graph, per_op](benchmark::State& state) {
      DeviceTimer timer;
      auto replay = cuda::empty_kernel_chain(20, graph, timer.stream());
      timed_loop(state, timer, [&] { replay(); });
      per_op(state, 20);
      state.SetLabel(graph ? "20 empty kernels replayed as one CUDA graph" : "20 empty kernels launched one by one");
    }));
  }
  return cases;
}

}  // namespace ladder
