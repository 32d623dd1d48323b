// Compiled in every build: peak() is plain arithmetic that the GEMM and model suites call
// whether or not a device exists; only the measuring needs the CUDA backend.
#include "roofs/device_ceilings.hpp"

#include "core/gpu_telemetry.hpp"
#include "core/registry.hpp"

#include <algorithm>
#include <stdexcept>

#ifdef LADDER_HAVE_CUDA
#include "cuda/cuda_device.hpp"
#include "cuda/device_kernels.hpp"
#include "roofs/stream_kernels.hpp"
#endif

namespace ladder {

double DeviceCeilings::peak(DType dtype) const {
  auto library = [&](const char* mode) {
    for (const auto& [name, rate] : cublas)
      if (name == mode) return rate;
    return 0.0;
  };
  switch (dtype) {
    case DType::f32:
      return std::max(fma_f32, library(optional_rung::cublas.name));
    case DType::tf32:
      return library(optional_rung::cublas_tf32.name);
    case DType::f16:
      return std::max(fma_f16, library(optional_rung::cublas_f16.name));
    case DType::bf16:
      return std::max(fma_bf16, library(optional_rung::cublas_bf16.name));
    case DType::f64:
      return fma_f64;
    default:
      return 0;
  }
}

std::vector<GpuTheoretical> DeviceCeilings::theoretical() const {
  if (probe_clock_hz > 0)
    return gpu_theoretical_peaks(compute_capability, sms, probe_clock_hz, "the SM clock NVML read while the f32 FMA probe ran");
  return gpu_theoretical_peaks(compute_capability, sms, max_clock_hz,
                               "the device's maximum SM clock; no NVML to read the clock it ran at");
}

double DeviceCeilings::memory_bytes_per_second() const {
  return std::max({copy_bytes_per_second, read_bytes_per_second, write_bytes_per_second});
}

double DeviceCeilings::bandwidth(double working_set) const {
  const bool fits_l2 = l2_read_bytes_per_second > 0 && working_set <= l2_bytes;
  return fits_l2 ? std::max(l2_read_bytes_per_second, memory_bytes_per_second()) : memory_bytes_per_second();
}

DeviceCeilings measure_device_ceilings([[maybe_unused]] bool smoke) {
  DeviceCeilings d;
#ifdef LADDER_HAVE_CUDA
  if (!cuda::unavailable_reason().empty()) return d;
  for (const auto& [key, value] : cuda::device_context()) {
    if (key == "gpu_name") d.name = value;
    if (key == "gpu_sms") d.sms = std::stoi(value);
    if (key == "gpu_clock_khz") d.max_clock_hz = std::stod(value) * 1e3;
  }
  d.compute_capability = cuda::compute_capability();
  cuda::DeviceTimer timer;
  cuda::DeviceBuffer sink(16);
  telemetry::Sampler clock_sampler(1);
  const bool sample_clock = telemetry::Nvml::instance().unavailable_reason().empty();
  // Each probe sized from a short launch to about 20 ms (2 in the smoke profile): a fixed count
  // would take seconds where a format runs at 1/32 or 1/64 of f32's rate (f64 on a T4 or an RTX).
  const double target_seconds = smoke ? 2e-3 : 20e-3;
  auto probe_rate = [&](cuda::FmaFormat format, bool read_clock) {
    constexpr std::int64_t kShort = 16;
    timer.start();
    cuda::launch_fma_probe(format, sink.get(), kShort, timer.stream());
    const double short_seconds = timer.stop();
    const std::int64_t iterations = std::clamp<std::int64_t>(
        static_cast<std::int64_t>(kShort * target_seconds / std::max(short_seconds, 1e-7)), kShort, std::int64_t{1} << 24);
    double best = 0;
    for (int trial = 0; trial < 3; ++trial) {
      if (read_clock) clock_sampler.start();
      timer.start();
      const double flops = cuda::launch_fma_probe(format, sink.get(), iterations, timer.stream());
      best = std::max(best, flops / timer.stop());
      if (read_clock) d.probe_clock_hz = std::max(d.probe_clock_hz, clock_sampler.stop().sm_clock_median_mhz * 1e6);
    }
    return best;
  };
  d.fma_f32 = probe_rate(cuda::FmaFormat::f32, sample_clock);
  d.fma_f16 = probe_rate(cuda::FmaFormat::f16x2, false);
  if (d.compute_capability >= 80) d.fma_bf16 = probe_rate(cuda::FmaFormat::bf16x2, false);
  d.fma_f64 = probe_rate(cuda::FmaFormat::f64, false);
  for (const char* mode : {optional_rung::cublas.name, optional_rung::cublas_tf32.name, optional_rung::cublas_f16.name,
                           optional_rung::cublas_bf16.name})
    if (double rate = cuda::cublas_best_rate(mode, smoke ? 256 : 8192); rate > 0) d.cublas.emplace_back(mode, rate);
  const std::int64_t n = smoke ? (1 << 16) : (std::int64_t{1} << 26);
  cuda::DeviceBuffer in(n * 4), out(n * 4);
  // Ten looks: on an H200 three gave 3.35 TB/s where the stream suite's copy of the same size,
  // later in the run, gave 3.61.
  for (int trial = 0; trial < 10; ++trial) {
    timer.start();
    cuda::launch_copy(static_cast<const float*>(in.get()), static_cast<float*>(out.get()), n, timer.stream());
    d.copy_bytes_per_second = std::max(d.copy_bytes_per_second, 8.0 * n / timer.stop());
  }
  // A probe that fails its check leaves its rate at 0 (device memory's roof is then the others'
  // best) and says why, rather than ending the run.
  auto probe = [&d](double& rate, auto&& measure) {
    try {
      rate = measure();
    } catch (const std::exception& e) {
      d.failures.emplace_back(e.what());
    }
  };
  // L2: half of it, so that the whole buffer stays there; passes enough for about a millisecond.
  d.l2_bytes = cuda::l2_cache_bytes();
  if (d.l2_bytes > 0)
    probe(d.l2_read_bytes_per_second,
          [&] { return cuda::read_rate(static_cast<std::int64_t>(d.l2_bytes / 2), smoke ? 4 : 256); });
  // Device memory on its own: a buffer eight times L2 (at least 256 MiB), read once and written once.
  const std::int64_t far_beyond_l2 =
      smoke ? (std::int64_t{1} << 24) : std::max(std::int64_t{1} << 28, static_cast<std::int64_t>(8 * d.l2_bytes));
  probe(d.read_bytes_per_second, [&] { return cuda::read_rate(far_beyond_l2, 1); });
  probe(d.write_bytes_per_second, [&] { return cuda::write_rate(far_beyond_l2); });
  timer.start();
  for (int i = 0; i < 1000; ++i) cuda::launch_empty(timer.stream());
  d.launch_seconds = timer.stop() / 1000;
#endif
  return d;
}

}  // namespace ladder
