// The stream suite's GPU half: copy and triad in device memory, STREAM's byte count.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "cuda/device_kernels.hpp"
#include "device_case.hpp"
#include "roofs/stream_kernels.hpp"
#include "stream_suite.hpp"

namespace ladder {

using cuda::DeviceBuffer;
using cuda::DeviceTimer;

std::vector<BenchmarkCase> device_stream_cases(const SuiteRequest& request) {
  std::vector<BenchmarkCase> cases;
  if (!device_unavailable_reason().empty()) return cases;
  const std::int64_t n = device_elements(request);
  for (bool triad : {false, true}) {
    const std::string rung = triad ? kDeviceTriad : kDeviceCopy;
    if (!rung_requested(request, rung)) continue;
    cases.push_back(
        device_case(case_name(kStreamSuite, rung, "f32", fmt::format("n:{}", n)), [n, triad](benchmark::State& state) {
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
            if (triad)
              cuda::launch_triad(fa, fb, fc, 3.0f, n, timer.stream());
            else
              cuda::launch_copy(fa, fc, n, timer.stream());  // c = a
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
          const double bytes =
              stream::words_moved(triad ? stream::Kernel::triad : stream::Kernel::copy) * 4.0 * static_cast<double>(n);
          state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
          state.counters["bytes"] = bytes;
          state.counters["n"] = static_cast<double>(n);
          state.SetLabel("device memory; STREAM byte count");
        }));
  }
  return cases;
}

}  // namespace ladder
