// The suites, in the order they run and are listed: a new suite is its folder plus one line here.
#include "cache/cache_suite.hpp"
#include "gemm/gemm_suite.hpp"
#include "model/model_suite.hpp"
#include "overhead/overhead_suite.hpp"
#include "pcie/pcie_suite.hpp"
#include "roofline/roofline_suite.hpp"
#include "stream/stream_suite.hpp"

namespace ladder {

const std::vector<Suite>& suites() {
  static const std::vector<Suite> all = {
      gemm_suite(),     stream_suite(), cache_suite(), roofline_suite(),
      overhead_suite(), pcie_suite(),   model_suite(), model_sweep_suite(),
  };
  return all;
}

}  // namespace ladder
