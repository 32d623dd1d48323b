// The roofline suite's GPU half: the same sweep of FMAs per element in f32 and f16, set
// against the device's own roofs.
#include <fmt/format.h>

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "roofs/ceilings.hpp"
#include "roofs/regime.hpp"
#include "core/dtype.hpp"
#include "cuda/device_kernels.hpp"
#include "device_case.hpp"
#include "roofline_suite.hpp"

namespace ladder {

using cuda::DeviceBuffer;
using cuda::DeviceTimer;

namespace {

// The roofline sweep's input, in f32 and f16, and its sum. Made once per size and shared by every
// case: Google Benchmark calls a case once per round while it sizes the iteration count, and
// making 64 Mi values (f16 conversions included) on each call took about a minute of the device
// suites on an H200.
struct RooflineInputs {
  std::vector<float> values;
  std::vector<f16> halves;
  double sum = 0;
};

const RooflineInputs& roofline_inputs(std::int64_t n) {
  static std::mutex mutex;
  static std::map<std::int64_t, std::unique_ptr<RooflineInputs>> made;
  std::lock_guard lock(mutex);
  auto& inputs = made[n];
  if (!inputs) {
    inputs = std::make_unique<RooflineInputs>();
    inputs->values.resize(static_cast<std::size_t>(n));
    inputs->halves.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      inputs->sum += inputs->values[i] = static_cast<float>(i % 7 - 3);
      inputs->halves[i] = to_f16(inputs->values[i]);
    }
  }
  return *inputs;
}

}  // namespace

std::vector<BenchmarkCase> device_roofline_cases(const SuiteRequest& request) {
  std::vector<BenchmarkCase> cases;
  if (!device_unavailable_reason().empty() || !rung_requested(request, kRooflineDeviceRung)) return cases;
  const std::int64_t n = device_elements(request);
  std::vector<int> ks = {0};
  for (int k = 1; k <= 512; k *= 2)
    if (!smoke(request) || k == 1 || k == 8) ks.push_back(k);
  for (bool half : {false, true})
    for (int k : ks) {
      cases.push_back(device_case(
          {kRooflineSuite, kRooflineDeviceRung, half ? "f16" : "f32", "k", k},
          [=, ceilings = request.ceilings](benchmark::State& state) {
            const std::size_t element = half ? 2 : 4;
            const RooflineInputs& inputs = roofline_inputs(n);
            const double input_sum = inputs.sum;
            DeviceBuffer in(n * element), out(n * element);
            in.upload(half ? static_cast<const void*>(inputs.halves.data()) : inputs.values.data(), n * element);
            DeviceTimer timer;
            auto run = [&] {
              if (half)
                cuda::launch_roofline_f16(in.get(), out.get(), n, k, 1.0f, 1.0f, timer.stream());
              else
                cuda::launch_roofline_f32(static_cast<const float*>(in.get()), static_cast<float*>(out.get()), n, k, 1.0f, 1.0f,
                                          timer.stream());
            };
            run();
            timer.synchronize();
            const auto sum = [&] {
              return half ? cuda::device_sum_f16(out.get(), n) : cuda::device_sum(static_cast<const float*>(out.get()), n);
            };
            if (sum() != input_sum + static_cast<double>(n) * k) {  // out = in + k, exact in f16 up to 2048
              state.SkipWithError("verification failed: checksum differs from its closed form");
              return;
            }
            timed_loop(state, timer, run);
            // One more call on a poisoned output, as on the host.
            out.poison();
            run();
            timer.synchronize();
            if (sum() != input_sum + static_cast<double>(n) * k) {
              state.SkipWithError("a call after timing left a wrong output (checksum differs from its closed form)");
              return;
            }
            const roofline::RooflineProblem problem{n, k, static_cast<int>(element)};
            set_roofline_counters(state, problem);
            state.counters["threads"] = 1;
            if (!ceilings || ceilings->device.name.empty()) return;
            // Its own roofs, as on the CPU: the FMA probe of its dtype, device memory, one launch.
            const DeviceCeilings& device = ceilings->device;
            const double peak = half ? device.fma_f16 : device.fma_f32;
            using benchmark::Counter;
            if (peak > 0 && k > 0)
              state.counters["peak_fraction"] = Counter(problem.flops() / peak, Counter::kIsIterationInvariantRate);
            state.SetLabel(set_regime(state, problem.flops(), problem.bytes(),
                                      {peak, device.bandwidth(problem.bytes()), device.launch_seconds}));
          }));
    }
  return cases;
}

}  // namespace ladder
