// How the suites' and ceilings' grid-stride kernels are launched: 256 threads a block, and
// enough blocks to fill the selected device's multiprocessors (32 each) or cover the work.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_device.hpp"

namespace ladder::cuda {

inline constexpr int kThreads = 256;

inline cudaStream_t as_stream(void* s) { return static_cast<cudaStream_t>(s); }

// The selected device's multiprocessors (--device N); 1 where it does not answer.
inline int multiprocessors() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_index());
  return sms > 0 ? sms : 1;
}

inline int grid_for(std::int64_t work) {
  const std::int64_t wanted = (work + kThreads - 1) / kThreads;
  const std::int64_t cap = static_cast<std::int64_t>(multiprocessors()) * 32;  // enough blocks in flight
  return static_cast<int>(wanted < cap ? (wanted > 0 ? wanted : 1) : cap);
}

}  // namespace ladder::cuda
