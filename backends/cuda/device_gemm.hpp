// What every GPU GEMM rung shares: A and B copied to device memory once (that transfer timed
// on its own, so a table can show the PCIe cost beside the kernel's), C in device memory, CUDA
// events around the launch alone, and C brought back only for verification.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "core/gemm.hpp"

namespace ladder::cuda {

struct DeviceOperands {
  std::int64_t n = 0;
  const void* a = nullptr;  // n×n, row-major, of the rung's input type
  const void* b = nullptr;
  float* c = nullptr;      // n×n f32
  void* stream = nullptr;  // cudaStream_t
};

// A GemmKernel over device buffers: `launch` enqueues the multiply on the given stream.
std::unique_ptr<GemmKernel> make_device_gemm(const GemmOperands& op, DType input,
                                             std::function<void(const DeviceOperands&)> launch, std::string label = {});

// A rung whose kernel multiplies f32 operands in device memory (cuda-naive, cuda-tiled,
// cuda-regtile): `launch` enqueues the kernel; the rest is what every such rung shares. `parent`:
// the rung it refines (GemmRung::parent).
GemmRung device_f32_rung(std::string name, Mechanism mechanism, std::string parent, std::string summary,
                         std::function<void(const DeviceOperands&)> launch);

// Unavailable reason for a rung that needs compute capability `minimum` (e.g. 80 for TF32).
std::string unavailable_below(int minimum, const char* what);
// The same for a rung whose number format is `dtype` (TF32 and BF16 need sm_80, f16 sm_70).
std::string unavailable_for(DType dtype, const char* what);

}  // namespace ladder::cuda
