// The GPU's ceilings, measured before the cases like the CPU's: FMA-only peaks (f32, f16, bf16, f64),
// the best cuBLAS rate per dtype (the tensor cores' practical roof), device memory's bandwidth
// (copy, read, write), L2's read bandwidth and the cost of one kernel launch.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/dtype.hpp"
#include "roofs/gpu_theoretical.hpp"

namespace ladder {

struct DeviceCeilings {
  std::string name;                                            // empty: no device
  double fma_f32 = 0, fma_f16 = 0, fma_bf16 = 0, fma_f64 = 0;  // FLOP/s of the FMA probes (bf16: sm_80+)
  std::vector<std::pair<std::string, double>> cublas;          // mode → best FLOP/s
  double copy_bytes_per_second = 0;                            // device-to-device, STREAM count
  double read_bytes_per_second = 0;                            // reads of a buffer far larger than L2
  double write_bytes_per_second = 0;                           // cudaMemset of such a buffer
  double l2_bytes = 0;                                         // the L2 cache's size
  double l2_read_bytes_per_second = 0;                         // reads of a buffer that L2 holds
  double launch_seconds = 0;                                   // one empty kernel, back to back
  std::vector<std::string> failures;  // a bandwidth probe that failed its check: what it said (its rate stays 0)
  // For the theoretical figures: the device's shape, its maximum SM clock, and the SM clock NVML
  // read while the f32 FMA probe ran (0 without NVML).
  int compute_capability = 0, sms = 0;
  double max_clock_hz = 0, probe_clock_hz = 0;
  // The theoretical FMA peaks (f32, f16, bf16, f64) at the clock the probe ran at where it was
  // read, else at the maximum, each with its derivation; empty where the device is not in the table.
  std::vector<GpuTheoretical> theoretical() const;
  double peak(DType dtype) const;  // the best of the FMA probe and cuBLAS for that dtype
  // Device memory's roof: the best of copy, read and write. A kernel that mostly writes (the
  // attention scores) moves its bytes faster than a copy does, so a copy alone is no lower bound.
  double memory_bytes_per_second() const;
  // The memory roof for a call that touches `working_set` bytes: L2's read rate where they can
  // sit in L2 (if above device memory's), device memory's otherwise.
  double bandwidth(double working_set) const;
};

DeviceCeilings measure_device_ceilings(bool smoke);

}  // namespace ladder
