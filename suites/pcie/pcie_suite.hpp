#pragma once
#include <string_view>
#include <string>
#include <vector>

#include "suite.hpp"

namespace ladder {

// pcie/<h2d|d2h>-<pinned|pageable>/u8/bytes:<bytes>: host-device copies; GPU builds with a device.
inline constexpr std::string_view kPcieSuite = "pcie";
Suite pcie_suite();
inline std::string pcie_rung(bool to_device, bool pinned) {
  return std::string(to_device ? "h2d" : "d2h") + (pinned ? "-pinned" : "-pageable");
}
std::vector<BenchmarkCase> device_pcie_cases(const SuiteRequest& request);  // pcie_device.cpp

}  // namespace ladder
