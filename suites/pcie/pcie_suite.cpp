#include "pcie_suite.hpp"

#include <fmt/format.h>

namespace ladder {

namespace {

std::vector<SuiteRung> pcie_rungs() {
  std::vector<SuiteRung> rungs;
  for (bool to_device : {true, false})
    for (bool pinned : {true, false})
      rungs.push_back(device_rung(pcie_rung(to_device, pinned), "u8",
                                  fmt::format("{} over PCIe from {} host memory", to_device ? "to the device" : "from the device",
                                              pinned ? "pinned (page-locked)" : "pageable")));
  return rungs;
}

}  // namespace

Suite pcie_suite() {
  return {.name = std::string(kPcieSuite),
          .summary = "host-device copies, pinned and pageable (GPU builds, with a device)",
          .rungs = pcie_rungs,
          .cases = device_pcie_cases};
}

}  // namespace ladder
