#include "cuda_device.hpp"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <stdexcept>

namespace ladder::cuda {

void check(int error, const char* what) {
  if (error != cudaSuccess)
    throw std::runtime_error(fmt::format("{}: {}", what, cudaGetErrorString(static_cast<cudaError_t>(error))));
}

namespace {
int g_device = 0;
}  // namespace

int device_index() { return g_device; }

int device_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

const std::string& unavailable_reason() {
  static const std::string reason = [] {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) return fmt::format("cudaGetDeviceCount: {}", cudaGetErrorString(e));
    if (count == 0) return std::string("the CUDA runtime sees no device");
    if (g_device >= count)
      return fmt::format("there is no device {}: the CUDA runtime sees {} (0..{}, after CUDA_VISIBLE_DEVICES)", g_device, count,
                         count - 1);
    e = cudaSetDevice(g_device);
    if (e != cudaSuccess) return fmt::format("cudaSetDevice({}): {}", g_device, cudaGetErrorString(e));
    return std::string();
  }();
  return reason;
}

std::string select_device(int index) {
  g_device = index;
  return unavailable_reason();
}

std::string pci_bus_id() {
  if (!unavailable_reason().empty()) return "";
  char id[32] = {};
  return cudaDeviceGetPCIBusId(id, sizeof id, g_device) == cudaSuccess ? std::string(id) : "";
}

int compute_capability() {
  if (!unavailable_reason().empty()) return 0;
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, g_device);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, g_device);
  return major * 10 + minor;
}

double l2_cache_bytes() {
  int bytes = 0;
  if (!unavailable_reason().empty() || cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, g_device) != cudaSuccess) return 0;
  return bytes;
}

double free_memory_bytes() {
  if (!unavailable_reason().empty()) return 0;
  std::size_t free = 0, total = 0;
  return cudaMemGetInfo(&free, &total) == cudaSuccess ? static_cast<double>(free) : 0;
}

std::vector<std::pair<std::string, std::string>> device_context() {
  std::vector<std::pair<std::string, std::string>> ctx;
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  ctx.emplace_back("cuda_runtime_version", fmt::format("{}.{}", runtime / 1000, runtime % 1000 / 10));
  ctx.emplace_back("cuda_driver_version", driver ? fmt::format("{}.{}", driver / 1000, driver % 1000 / 10) : "none");
  ctx.emplace_back("cuda_device_status", unavailable_reason().empty() ? "available" : "unavailable: " + unavailable_reason());
  // The library's own version, without a device or a handle (a handle costs a context and a workspace).
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS)
    ctx.emplace_back("cublas_version", fmt::format("{}.{}.{}", major, minor, patch));
  if (!unavailable_reason().empty()) return ctx;
  cudaDeviceProp p{};
  cudaGetDeviceProperties(&p, g_device);
  auto attribute = [](cudaDeviceAttr a) {
    int v = 0;
    cudaDeviceGetAttribute(&v, a, g_device);
    return v;
  };
  ctx.emplace_back("gpu_name", p.name);
  ctx.emplace_back("gpu_device_index", std::to_string(g_device));
  ctx.emplace_back("gpu_pci_bus_id", pci_bus_id());
  ctx.emplace_back("gpu_compute_capability", fmt::format("{}.{}", p.major, p.minor));
  ctx.emplace_back("gpu_sms", std::to_string(p.multiProcessorCount));
  ctx.emplace_back("gpu_clock_khz", std::to_string(attribute(cudaDevAttrClockRate)));
  ctx.emplace_back("gpu_memory_clock_khz", std::to_string(attribute(cudaDevAttrMemoryClockRate)));
  ctx.emplace_back("gpu_memory_bus_bits", std::to_string(attribute(cudaDevAttrGlobalMemoryBusWidth)));
  ctx.emplace_back("gpu_memory_bytes", std::to_string(p.totalGlobalMem));
  ctx.emplace_back("gpu_l2_bytes", std::to_string(p.l2CacheSize));
  return ctx;
}

}  // namespace ladder::cuda
