#include "pcie_suite.hpp"

#include <fmt/format.h>

namespace ladder {

Suite pcie_suite() {
  Suite s;
  s.name = kPcieSuite;
  s.summary = "host-device copies, pinned and pageable (GPU builds, with a device)";
  s.rungs = [] {
    std::vector<SuiteRung> rungs;
    for (bool to_device : {true, false})
      for (bool pinned : {true, false})
        rungs.push_back(
            device_rung(pcie_rung(to_device, pinned), "u8",
                        fmt::format("{} over PCIe from {} host memory", to_device ? "to the device" : "from the device",
                                    pinned ? "pinned (page-locked)" : "pageable")));
    return rungs;
  };
  s.cases = device_pcie_cases;
  return s;
}

}  // namespace ladder
