// The pcie suite: host-device copies, pinned and pageable, each verified by a round trip.
#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <vector>

#include "cuda/device_kernels.hpp"
#include "device_case.hpp"
#include "pcie_suite.hpp"

namespace ladder {

using cuda::DeviceBuffer;
using cuda::DeviceTimer;

std::vector<BenchmarkCase> device_pcie_cases(const SuiteRequest& request) {
  std::vector<BenchmarkCase> cases;
  if (!device_unavailable_reason().empty()) return cases;
  const std::int64_t bytes = smoke(request) ? (1 << 20) : (std::int64_t{256} << 20);
  for (bool to_device : {true, false})
    for (bool pinned : {true, false}) {
      const std::string rung = pcie_rung(to_device, pinned);
      if (!rung_requested(request, rung)) continue;
      cases.push_back(device_case({kPcieSuite, rung, "u8", "bytes", bytes}, [=](benchmark::State& state) {
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
          if (to_device)
            cuda::copy_async(device.get(), host, bytes, cuda::CopyKind::host_to_device, timer.stream());
          else
            cuda::copy_async(host, device.get(), bytes, cuda::CopyKind::device_to_host, timer.stream());
        });
        state.SetBytesProcessed(bytes * state.iterations());
        state.counters["bytes"] = static_cast<double>(bytes);
      }));
    }
  return cases;
}

}  // namespace ladder
