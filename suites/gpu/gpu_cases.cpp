#include "gpu_cases.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <vector>

#include "ceilings.hpp"
#include "core/dtype.hpp"
#include "cuda/cuda_device.hpp"
#include "cuda/device_kernels.hpp"
#include "roofline/roofline_suite.hpp"
#include "stream/stream_kernels.hpp"

namespace ladder {
namespace {

using cuda::DeviceBuffer;
using cuda::DeviceTimer;

bool smoke(const SuiteRequest& r) { return r.profile == "smoke"; }

// Large enough to leave every GPU's L2 far behind (H200: 60 MiB), small enough for a T4.
std::int64_t device_elements(const SuiteRequest& r) { return smoke(r) ? (1 << 16) + 6 : std::int64_t{1} << 26; }

// A case body timed on the device: `body` enqueues one iteration on the timer's stream.
template <class Body>
void timed_loop(benchmark::State& state, DeviceTimer& timer, Body body) {
  for (auto _ : state) {
    timer.start();
    body();
    state.SetIterationTime(timer.stop());
  }
}

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

BenchmarkCase device_case(std::string name, std::function<void(benchmark::State&)> body) {
  BenchmarkCase c;
  c.name = std::move(name);
  c.timing = Timing::manual;
  c.body = [body](benchmark::State& state) {
    try {
      body(state);
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
    }
  };
  return c;
}

}  // namespace

std::vector<std::string> gpu_rung_names() {
  return {"device-copy", "device-triad", "h2d-pinned", "h2d-pageable", "d2h-pinned", "d2h-pageable", "cuda",
          "cuda-launch", "cuda-sync", "cublas-small", "cuda-chain", "cuda-graph"};
}

std::vector<BenchmarkCase> gpu_stream_cases(const SuiteRequest& request) {
  std::vector<BenchmarkCase> cases;
  if (!cuda::unavailable_reason().empty()) return cases;
  const std::int64_t n = device_elements(request);
  for (bool triad : {false, true}) {
    const std::string rung = triad ? "device-triad" : "device-copy";
    if (!rung_requested(request, rung)) continue;
    cases.push_back(device_case(fmt::format("stream/{}/f32/n:{}", rung, n), [n, triad](benchmark::State& state) {
      std::vector<float> host(static_cast<std::size_t>(n), 1.0f);
      DeviceBuffer a(n * 4), b(n * 4), c(n * 4);
      a.upload(host.data(), n * 4);  // a = 1
      std::fill(host.begin(), host.end(), 2.0f);
      b.upload(host.data(), n * 4);  // b = 2
      std::fill(host.begin(), host.end(), 0.5f);
      c.upload(host.data(), n * 4);  // c = 0.5
      auto* fa = static_cast<float*>(a.get());
      auto* fb = static_cast<float*>(b.get());
      auto* fc = static_cast<float*>(c.get());
      DeviceTimer timer;
      auto run = [&] {
        if (triad) cuda::launch_triad(fa, fb, fc, 3.0f, n, timer.stream());
        else cuda::launch_copy(fa, fc, n, timer.stream());  // c = a
      };
      run();
      timer.synchronize();
      const double expected = (triad ? 2.0 + 3.0 * 0.5 : 1.0) * static_cast<double>(n);
      if (cuda::device_sum_f32(triad ? fa : fc, n) != expected) {
        state.SkipWithError("verification failed: checksum differs from its closed form");
        return;
      }
      timed_loop(state, timer, run);
      // One more call on a poisoned output, as on the host: a kernel right once and idle after fails.
      (triad ? a : c).poison();
      run();
      timer.synchronize();
      if (cuda::device_sum_f32(triad ? fa : fc, n) != expected) {
        state.SkipWithError("a call after timing left a wrong output (checksum differs from its closed form)");
        return;
      }
      const double bytes = stream::words_moved(triad ? stream::Kernel::triad : stream::Kernel::copy) * 4.0 * static_cast<double>(n);
      state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
      state.counters["bytes"] = bytes;
      state.counters["n"] = static_cast<double>(n);
      state.SetLabel("device memory; STREAM byte count");
    }));
  }
  return cases;
}

std::vector<BenchmarkCase> gpu_pcie_cases(const SuiteRequest& request) {
  std::vector<BenchmarkCase> cases;
  if (!cuda::unavailable_reason().empty()) return cases;
  const std::int64_t bytes = smoke(request) ? (1 << 20) : (std::int64_t{256} << 20);
  for (bool to_device : {true, false})
    for (bool pinned : {true, false}) {
      const std::string rung = fmt::format("{}-{}", to_device ? "h2d" : "d2h", pinned ? "pinned" : "pageable");
      if (!rung_requested(request, rung)) continue;
      cases.push_back(device_case(fmt::format("pcie/{}/u8/bytes:{}", rung, bytes), [=](benchmark::State& state) {
        std::unique_ptr<cuda::PinnedBuffer> pinned_host;
        std::vector<unsigned char> pageable_host;
        unsigned char* host;
        if (pinned) {
          pinned_host = std::make_unique<cuda::PinnedBuffer>(bytes);
          host = static_cast<unsigned char*>(pinned_host->get());
        } else {
          pageable_host.resize(static_cast<std::size_t>(bytes));
          host = pageable_host.data();
        }
        for (std::int64_t i = 0; i < bytes; ++i) host[i] = static_cast<unsigned char>(i * 7 + 3);
        DeviceBuffer device(bytes);
        DeviceTimer timer;
        // Verify by a round trip: what comes back is what went over.
        device.upload(host, bytes);
        std::vector<unsigned char> back(static_cast<std::size_t>(bytes));
        device.download(back.data(), bytes);
        if (std::memcmp(back.data(), host, bytes) != 0) {
          state.SkipWithError("verification failed: the round trip changed the data");
          return;
        }
        timed_loop(state, timer, [&] {
          if (to_device) cuda::copy_async(device.get(), host, bytes, cuda::CopyKind::host_to_device, timer.stream());
          else cuda::copy_async(host, device.get(), bytes, cuda::CopyKind::device_to_host, timer.stream());
        });
        state.SetBytesProcessed(bytes * state.iterations());
        state.counters["bytes"] = static_cast<double>(bytes);
      }));
    }
  return cases;
}

std::vector<BenchmarkCase> gpu_roofline_cases(const SuiteRequest& request) {
  std::vector<BenchmarkCase> cases;
  if (!cuda::unavailable_reason().empty() || !rung_requested(request, "cuda")) return cases;
  const std::int64_t n = device_elements(request);
  std::vector<int> ks = {0};
  for (int k = 1; k <= 512; k *= 2)
    if (!smoke(request) || k == 1 || k == 8) ks.push_back(k);
  for (bool half : {false, true})
    for (int k : ks) {
      cases.push_back(device_case(fmt::format("roofline/cuda/{}/k:{}", half ? "f16" : "f32", k), [=, ceilings = request.ceilings](benchmark::State& state) {
        const std::size_t element = half ? 2 : 4;
        const RooflineInputs& inputs = roofline_inputs(n);
        const double input_sum = inputs.sum;
        DeviceBuffer in(n * element), out(n * element);
        in.upload(half ? static_cast<const void*>(inputs.halves.data()) : inputs.values.data(), n * element);
        DeviceTimer timer;
        auto run = [&] {
          if (half) cuda::launch_roofline_f16(in.get(), out.get(), n, k, 1.0f, 1.0f, timer.stream());
          else cuda::launch_roofline_f32(static_cast<const float*>(in.get()), static_cast<float*>(out.get()), n, k, 1.0f, 1.0f, timer.stream());
        };
        run();
        timer.synchronize();
        const double sum = half ? cuda::device_sum_f16(out.get(), n) : cuda::device_sum_f32(static_cast<const float*>(out.get()), n);
        if (sum != input_sum + static_cast<double>(n) * k) {  // out = in + k, exact in f16 up to 2048
          state.SkipWithError("verification failed: checksum differs from its closed form");
          return;
        }
        timed_loop(state, timer, run);
        // One more call on a poisoned output, as on the host.
        out.poison();
        run();
        timer.synchronize();
        if ((half ? cuda::device_sum_f16(out.get(), n) : cuda::device_sum_f32(static_cast<const float*>(out.get()), n)) !=
            input_sum + static_cast<double>(n) * k) {
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
        if (peak > 0 && k > 0) state.counters["peak_fraction"] = Counter(problem.flops() / peak, Counter::kIsIterationInvariantRate);
        Regime regime = classify(problem.flops(), peak, problem.bytes(), device.bandwidth(problem.bytes()), device.launch_seconds);
        state.counters["roof_fraction"] = Counter(regime.bound_seconds(), Counter::kIsIterationInvariantRate);
        state.SetLabel(regime.name + "-bound");
      }));
    }
  return cases;
}

std::vector<BenchmarkCase> gpu_overhead_cases(const SuiteRequest& request) {
  std::vector<BenchmarkCase> cases;
  if (!cuda::unavailable_reason().empty()) return cases;
  auto per_op = [](benchmark::State& state, double ops) {
    using benchmark::Counter;
    state.counters["seconds_per_op"] = Counter(ops, Counter::kIsIterationInvariantRate | Counter::kInvert);
    state.SetItemsProcessed(static_cast<std::int64_t>(ops) * state.iterations());
  };
  if (rung_requested(request, "cuda-launch"))
    cases.push_back(device_case("overhead/cuda-launch/-/ops:1000", [per_op](benchmark::State& state) {
      DeviceTimer timer;
      timed_loop(state, timer, [&] {
        for (int i = 0; i < 1000; ++i) cuda::launch_empty(timer.stream());
      });
      per_op(state, 1000);
    }));
  if (rung_requested(request, "cuda-sync"))
    cases.push_back(device_case("overhead/cuda-sync/-/ops:1000", [per_op](benchmark::State& state) {
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
  if (rung_requested(request, "cublas-small"))
    cases.push_back(device_case("overhead/cublas-small/f32/n:16", [per_op](benchmark::State& state) {
      auto gemm = cuda::small_cublas_gemm(16);
      DeviceTimer timer;
      timed_loop(state, timer, [&] {
        for (int i = 0; i < 100; ++i) gemm(timer.stream());
      });
      per_op(state, 100);
    }));
  for (bool graph : {false, true}) {
    const std::string rung = graph ? "cuda-graph" : "cuda-chain";
    if (!rung_requested(request, rung)) continue;
    cases.push_back(device_case(fmt::format("overhead/{}/-/ops:20", rung), [graph, per_op](benchmark::State& state) {
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
