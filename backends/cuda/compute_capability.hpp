// Which compute capability a GPU rung or model backend needs for its number format, and what a
// smaller device is told. Host-only and header-only, so the T4 answer (sm_75: no TF32, no BF16
// tensor cores) is tested on every machine, GPU or not.
#pragma once
#include <fmt/format.h>

#include <string>
#include <string_view>

#include "core/dtype.hpp"

namespace ladder::cuda {

// Compute capability as major*10 + minor. TF32 and BF16 tensor cores came with Ampere (8.0);
// f16 tensor cores with Volta (7.0); pedantic f32 runs on any device.
constexpr int minimum_capability(DType t) {
  switch (t) {
    case DType::tf32:
    case DType::bf16:
      return 80;
    case DType::f16:
      return 70;
    default:
      return 0;
  }
}

// Empty where `device` (major*10 + minor) has what `what` needs, else the reason it cannot run.
inline std::string capability_shortfall(int minimum, int device, std::string_view what) {
  if (device >= minimum) return {};
  return fmt::format("{} needs compute capability {}.{}; this device has {}.{}", what, minimum / 10, minimum % 10, device / 10,
                     device % 10);
}

}  // namespace ladder::cuda
