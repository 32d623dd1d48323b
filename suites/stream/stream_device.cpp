// The stream suite's GPU half: copy and triad in device memory, f32 and f64, STREAM's byte count,
// each array a stated multiple of L2 (device_stream_sizes.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "cuda/cuda_device.hpp"
#include "cuda/device_kernels.hpp"
#include "device_case.hpp"
#include "device_stream_sizes.hpp"
#include "roofs/stream_kernels.hpp"
#include "stream_suite.hpp"

namespace ladder {

using cuda::DeviceBuffer;
using cuda::DeviceTimer;

namespace {

std::string array_label(const DeviceStreamSize& size, std::int64_t bytes) {
  const double mib = static_cast<double>(bytes) / (1 << 20);
  if (size.of_l2 <= 0) return fmt::format("each array {:.0f} MiB (L2's size unknown)", mib);
  return fmt::format("each array {:g}x L2 ({:.1f} MiB): {}", size.of_l2, mib,
                     size.of_l2 < 1 ? "L2 can hold it" : "device memory");
}

template <class T>
BenchmarkCase device_stream_case(const std::string& rung, bool triad, const DeviceStreamSize& size) {
  const std::int64_t n = size.elements;
  const char* dtype = sizeof(T) == 8 ? "f64" : "f32";
  return device_case({kStreamSuite, rung, dtype, "n", n}, [n, triad, size](benchmark::State& state) {
    const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(n);
    std::vector<T> host(static_cast<std::size_t>(n), T(1));
    DeviceBuffer a(bytes), b(bytes), c(bytes);
    a.upload(host.data(), bytes);  // a = 1
    std::fill(host.begin(), host.end(), T(2));
    b.upload(host.data(), bytes);  // b = 2
    std::fill(host.begin(), host.end(), T(0.5));
    c.upload(host.data(), bytes);  // c = 0.5
    auto* ta = static_cast<T*>(a.get());
    auto* tb = static_cast<T*>(b.get());
    auto* tc = static_cast<T*>(c.get());
    DeviceTimer timer;
    auto run = [&] {
      if (triad)
        cuda::launch_triad(ta, tb, tc, T(3), n, timer.stream());
      else
        cuda::launch_copy(ta, tc, n, timer.stream());  // c = a
    };
    auto sum = [&] { return cuda::device_sum(triad ? ta : tc, n); };
    run();
    timer.synchronize();
    const double expected = (triad ? 2.0 + 3.0 * 0.5 : 1.0) * static_cast<double>(n);
    if (sum() != expected) {
      state.SkipWithError("verification failed: checksum differs from its closed form");
      return;
    }
    timed_loop(state, timer, run);
    // One more call on a poisoned output, as on the host: a kernel right once and idle after fails.
    (triad ? a : c).poison();
    run();
    timer.synchronize();
    if (sum() != expected) {
      state.SkipWithError("a call after timing left a wrong output (checksum differs from its closed form)");
      return;
    }
    const double moved =
        stream::words_moved(triad ? stream::Kernel::triad : stream::Kernel::copy) * sizeof(T) * static_cast<double>(n);
    state.SetBytesProcessed(static_cast<std::int64_t>(moved) * state.iterations());
    state.counters["bytes"] = moved;
    state.counters["n"] = static_cast<double>(n);
    if (size.of_l2 > 0) state.counters["array_of_l2"] = size.of_l2;
    state.SetLabel(array_label(size, static_cast<std::int64_t>(bytes)) + "; STREAM byte count");
  });
}

}  // namespace

std::vector<BenchmarkCase> device_stream_cases(const SuiteRequest& request) {
  std::vector<BenchmarkCase> cases;
  if (!device_unavailable_reason().empty()) return cases;
  const double l2 = cuda::l2_cache_bytes();
  const double usable = request.device_usable_bytes ? request.device_usable_bytes() : 0;
  for (int element : {4, 8})
    for (bool triad : {false, true}) {
      const std::string rung = triad ? kDeviceTriad : kDeviceCopy;
      if (!rung_requested(request, rung)) continue;
      for (const DeviceStreamSize& size : device_stream_sizes(request.profile, l2, element, triad ? 3 : 2, usable))
        cases.push_back(element == 8 ? device_stream_case<double>(rung, triad, size)
                                     : device_stream_case<float>(rung, triad, size));
    }
  return cases;
}

}  // namespace ladder
