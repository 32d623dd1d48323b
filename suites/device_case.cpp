#include "device_case.hpp"

#include "cuda/cuda_device.hpp"

namespace ladder {

std::string device_unavailable_reason() { return cuda::unavailable_reason(); }
double device_free_memory_bytes() { return cuda::free_memory_bytes(); }
std::string select_device(int index) { return cuda::select_device(index); }
std::string device_pci_bus_id() { return cuda::pci_bus_id(); }
int device_count() { return cuda::device_count(); }
int selected_device() { return cuda::device_index(); }

BenchmarkCase device_case(CaseAxes axes, std::function<void(benchmark::State&)> body) {
  BenchmarkCase c = case_with_axes(std::move(axes));
  c.timing = Timing::manual;
  c.on_device = true;
  c.body = [body = std::move(body)](benchmark::State& state) {
    try {
      body(state);
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
    }
  };
  return c;
}

}  // namespace ladder
