#include "device_gemm.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "compute_capability.hpp"
#include "cuda_device.hpp"

namespace ladder::cuda {
namespace {

class DeviceGemm final : public GemmKernel {
 public:
  DeviceGemm(const GemmOperands& op, DType input, std::function<void(const DeviceOperands&)> launch, std::string label)
      : host_c_(op.c), launch_(std::move(launch)), label_(std::move(label)) {
    check(cudaSetDevice(device_index()), "cudaSetDevice");
    const std::size_t count = static_cast<std::size_t>(op.n) * op.n;
    const std::size_t element = input == DType::f16 || input == DType::bf16 ? 2 : 4;
    const void* host_a = input == DType::f16    ? static_cast<const void*>(op.a_f16)
                         : input == DType::bf16 ? static_cast<const void*>(op.a_bf16)
                                                : op.a;
    const void* host_b = input == DType::f16    ? static_cast<const void*>(op.b_f16)
                         : input == DType::bf16 ? static_cast<const void*>(op.b_bf16)
                                                : op.b;
    check(cudaStreamCreate(&stream_), "cudaStreamCreate");
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
    check(cudaMalloc(&a_, count * element), "cudaMalloc(A)");
    check(cudaMalloc(&b_, count * element), "cudaMalloc(B)");
    check(cudaMalloc(reinterpret_cast<void**>(&c_), count * sizeof(float)), "cudaMalloc(C)");
    bytes_ = count * sizeof(float);
    // The cost of getting A and B to the device, from pageable host memory as a user's arrays are.
    check(cudaEventRecord(start_, stream_), "cudaEventRecord");
    check(cudaMemcpyAsync(a_, host_a, count * element, cudaMemcpyHostToDevice, stream_), "cudaMemcpy(A)");
    check(cudaMemcpyAsync(b_, host_b, count * element, cudaMemcpyHostToDevice, stream_), "cudaMemcpy(B)");
    check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    cudaEventElapsedTime(&ms, start_, stop_);
    transfer_seconds_ = ms / 1e3;
    check(cudaMemset(c_, 0xff, count * sizeof(float)), "cudaMemset(C)");  // NaN: a skipped store shows
    operands_ = {op.n, a_, b_, c_, stream_};
  }
  ~DeviceGemm() override {
    cudaFree(a_);
    cudaFree(b_);
    cudaFree(c_);
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
    cudaStreamDestroy(stream_);
  }
  void run() override {
    check(cudaEventRecord(start_, stream_), "cudaEventRecord");
    launch_(operands_);
    check(cudaGetLastError(), "kernel launch");
    check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    seconds_ = ms / 1e3;
  }
  void poison_output() override { check(cudaMemset(c_, 0xff, bytes_), "cudaMemset(C)"); }
  void copy_output() override { check(cudaMemcpy(host_c_, c_, bytes_, cudaMemcpyDeviceToHost), "cudaMemcpy(C)"); }
  std::optional<double> self_timed_seconds() const override { return seconds_; }
  std::string label() const override { return label_; }
  std::vector<std::pair<std::string, double>> counters() const override {
    return {{"transfer_seconds", transfer_seconds_}};  // A and B to the device, pageable host memory
  }

 private:
  float* host_c_;
  std::function<void(const DeviceOperands&)> launch_;
  std::string label_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  void *a_ = nullptr, *b_ = nullptr;
  float* c_ = nullptr;
  std::size_t bytes_ = 0;
  DeviceOperands operands_;
  double seconds_ = 0, transfer_seconds_ = 0;
};

}  // namespace

std::unique_ptr<GemmKernel> make_device_gemm(const GemmOperands& op, DType input,
                                             std::function<void(const DeviceOperands&)> launch, std::string label) {
  return std::make_unique<DeviceGemm>(op, input, std::move(launch), std::move(label));
}

GemmRung device_f32_rung(std::string name, Mechanism mechanism, std::string parent, std::string summary,
                         std::function<void(const DeviceOperands&)> launch) {
  GemmRung rung;
  rung.name = std::move(name);
  rung.threading = Threading::device;
  rung.self_timed = true;
  rung.mechanism = mechanism;
  rung.unit = Unit::cuda_cores;
  rung.traffic = compulsory_traffic_only;
  rung.parent = std::move(parent);
  rung.summary = std::move(summary);
  rung.unavailable_reason = [] { return unavailable_reason(); };
  rung.prepare = [launch = std::move(launch)](const GemmOperands& op) { return make_device_gemm(op, DType::f32, launch); };
  return rung;
}

std::string unavailable_below(int minimum, const char* what) {
  if (const auto& reason = unavailable_reason(); !reason.empty()) return reason;
  return capability_shortfall(minimum, compute_capability(), what);
}

std::string unavailable_for(DType dtype, const char* what) { return unavailable_below(minimum_capability(dtype), what); }

}  // namespace ladder::cuda
