// The values fill_uniform writes (device_kernels.cu): uniform in [-1, 1) from a hash of the seed
// and the index, so any element can be made in any order by any thread. Callable on the host, where
// tests/test_cuda_tiling.cpp checks the range and the spread without a GPU.
#pragma once
#include <cstdint>

#include "../core/host_device.hpp"

namespace ladder::cuda {

// lowbias32, a 32-bit integer hash: neighbouring inputs give unrelated outputs.
LADDER_HD inline std::uint32_t mix32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// 24 random bits scaled to [-1, 1): every value exact in f32.
LADDER_HD inline float uniform_value(std::uint32_t seed, std::int64_t index) {
  const auto low = static_cast<std::uint32_t>(index), high = static_cast<std::uint32_t>(index >> 32);
  const std::uint32_t h = mix32(low ^ mix32(seed + high * 0x9e3779b9U));
  return static_cast<float>(h >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

}  // namespace ladder::cuda
