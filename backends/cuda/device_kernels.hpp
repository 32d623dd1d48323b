// The GPU's device layer and the ceilings' probes, callable from plain C++: the small RAII
// helpers the GPU suites use, an empty kernel, FMA-only peak probes, read and write rates, device
// sums. All launches go to the stream given (a cudaStream_t as void*). A suite's own kernels live
// in its folder (roofline_kernels.cu, overhead_kernels.cu), STREAM's beside the CPU's in roofs/.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

namespace ladder::cuda {

class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }
  void upload(const void* host, std::size_t bytes);
  void download(void* host, std::size_t bytes) const;
  // All bits set: NaN in f32 and f16, so that a kernel that skips its stores shows.
  void poison();

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Host memory the GPU can DMA from directly (cudaMallocHost).
class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::size_t bytes);
  ~PinnedBuffer();
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

// A stream and two events: seconds between start() and stop() on the device's own clock.
class DeviceTimer {
 public:
  DeviceTimer();
  ~DeviceTimer();
  DeviceTimer(const DeviceTimer&) = delete;
  DeviceTimer& operator=(const DeviceTimer&) = delete;
  void* stream() const { return stream_; }
  void start();
  double stop();  // waits for the stream
  void synchronize();

 private:
  void* stream_ = nullptr;
  void* start_ = nullptr;
  void* stop_ = nullptr;
};

enum class CopyKind { host_to_device, device_to_host };
void copy_async(void* dst, const void* src, std::size_t bytes, CopyKind kind, void* stream);

// An empty kernel, one block of one thread: what a launch costs.
void launch_empty(void* stream);

// FMA-only peak probes: every SM full of threads, each running 8 independent chains, 16 steps a
// loop iteration, for `iterations`. f16 and bf16 run as pairs (half2, bfloat162: two lanes an
// instruction); bf16x2 needs compute capability 8.0. `sink` holds 8 bytes. Returns the FLOPs the
// launch does.
enum class FmaFormat { f32, f16x2, bf16x2, f64 };
double launch_fma_probe(FmaFormat format, void* sink, std::int64_t iterations, void* stream);

// Fills n elements of device memory with uniform_value(seed, index) (uniform_fill.hpp):
// data as a real product's, for rates that depend on it (tensor cores run faster on zeros).
enum class FillType { f32, f16, bf16 };
void fill_uniform(void* data, std::int64_t n, FillType type, std::uint32_t seed);

// Read bandwidth: `passes` sweeps, in one launch, over a buffer of `bytes` after one sweep to warm
// it (a buffer that is a part of L2 then sits there: L2's rate; a larger one, device memory's);
// the best of three launches, checked against the buffer's sum.
double read_rate(std::int64_t bytes, int passes);

// Write bandwidth of device memory: cudaMemsetAsync over `bytes` (best of four; the last fill
// checked at the buffer's end).
double write_rate(std::int64_t bytes);

// Device-side sum (in double) of n floats, doubles or f16 values, for closed-form checks.
double device_sum(const float* data, std::int64_t n);
double device_sum(const double* data, std::int64_t n);
double device_sum_f16(const void* data, std::int64_t n);  // f16 has no host type here: the bytes

// A tiny f32 cuBLAS GEMM (n×n on device buffers it owns); the function enqueues one call.
std::function<void(void* stream)> small_cublas_gemm(int n);

// The best rate (FLOP/s) of one cuBLAS mode ("cublas", "cublas-tf32", "cublas-f16",
// "cublas-bf16") on an n×n problem: the library's ceiling for that dtype. 0 if unavailable.
double cublas_best_rate(const std::string& mode, std::int64_t n);

}  // namespace ladder::cuda
