// The suites' GPU halves in a build without CUDA: their rungs stay known (the suites list them),
// unavailable with the reason, and they make no cases.
#include "core/registry.hpp"
#include "overhead/overhead_suite.hpp"
#include "pcie/pcie_suite.hpp"
#include "roofline/roofline_suite.hpp"
#include "stream/stream_suite.hpp"

namespace ladder {

std::string device_unavailable_reason() { return not_built_reason(OptionalBackend::cuda); }
double device_free_memory_bytes() { return 0; }
std::string select_device(int) { return device_unavailable_reason(); }
std::string device_pci_bus_id() { return ""; }
int device_count() { return 0; }
int selected_device() { return 0; }

std::vector<BenchmarkCase> device_stream_cases(const SuiteRequest&) { return {}; }
std::vector<BenchmarkCase> device_pcie_cases(const SuiteRequest&) { return {}; }
std::vector<BenchmarkCase> device_roofline_cases(const SuiteRequest&) { return {}; }
std::vector<BenchmarkCase> device_overhead_cases(const SuiteRequest&) { return {}; }

}  // namespace ladder
