// The GPU's ceilings, measured before the cases like the CPU's: FMA-only peaks (f32, f16),
// the best cuBLAS rate per dtype (the tensor cores' practical roof), device copy bandwidth and
// the cost of one kernel launch.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/dtype.hpp"

namespace ladder {

struct DeviceCeilings {
  std::string name;  // empty: no device
  double fma_f32 = 0, fma_f16 = 0;                       // FLOP/s of the FMA probes
  std::vector<std::pair<std::string, double>> cublas;    // mode → best FLOP/s
  double copy_bytes_per_second = 0;                      // device-to-device, STREAM count
  double launch_seconds = 0;                             // one empty kernel, back to back
  double peak(DType dtype) const;  // the best of the FMA probe and cuBLAS for that dtype
};

DeviceCeilings measure_device_ceilings(bool smoke);

}  // namespace ladder
