// Rungs 14, 15, 17 and 19, cublas: NVIDIA's library. `cublas` is f32 in pedantic mode (plain FMA units, no
// tensor cores): the GPU's counterpart of OpenBLAS. Then the tensor cores, each step a smaller
// number format: `cublas-tf32` (f32 data, 10-bit mantissas in the multiply; sm_80+),
// `cublas-f16` (f16 inputs, f32 accumulation) and `cublas-bf16` (bf16 inputs; sm_80+).
// cuBLAS is column-major: row-major C = A·B is computed as the column-major Cᵀ = Bᵀ·Aᵀ.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string_view>

#include "../core/registry.hpp"
#include "compute_capability.hpp"
#include "cuda_device.hpp"
#include "device_gemm.hpp"
#include "device_kernels.hpp"

namespace ladder {
namespace {

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(fmt::format("{}: {}", what, cublasGetStatusString(status)));
}

struct Mode {
  const char* name;
  DType dtype;  // the case's dtype (tf32 runs on f32 data)
  DType input;  // what is copied to the device
  cudaDataType_t cuda_input;
  cublasComputeType_t compute;
  cublasMath_t math;
  const char* summary;
};

GemmRung mode_rung(const Mode& m) {
  GemmRung rung;
  rung.name = m.name;
  rung.dtype = m.dtype;
  rung.threading = Threading::device;
  rung.self_timed = true;
  rung.mechanism = m.dtype == DType::f32 ? Mechanism::tuned_library : Mechanism::matrix_units;
  rung.unit = gpu_unit(m.dtype);
  rung.traffic = compulsory_traffic_only;
  // cuBLAS f32 against the best hand-written CUDA kernel; a tensor-core mode against f32 on the FMA units.
  rung.parent = m.dtype == DType::f32 ? std::string(optional_rung::cuda_warptile.name) : std::string(optional_rung::cublas.name);
  rung.summary = m.summary;
  // Beside torch-cuda and torch-cuda-tf32 in the overhead suite's small GEMMs: the same call from
  // C, so that PyTorch's dispatch on the GPU is the difference.
  rung.small_gemm_sweep = m.dtype == DType::f32 || m.dtype == DType::tf32;
  rung.unavailable_reason = [m] { return cuda::unavailable_for(m.dtype, m.name); };
  rung.prepare = [m](const GemmOperands& op) {
    std::shared_ptr<cublasContext> handle;
    {
      cublasHandle_t raw = nullptr;
      check_cublas(cublasCreate(&raw), "cublasCreate");
      handle.reset(raw, cublasDestroy);
    }
    check_cublas(cublasSetMathMode(handle.get(), m.math), "cublasSetMathMode");
    return cuda::make_device_gemm(
        op, m.input,
        [m, handle](const cuda::DeviceOperands& d) {
          const int n = static_cast<int>(d.n);
          const float alpha = 1.0f, beta = 0.0f;
          check_cublas(cublasSetStream(handle.get(), static_cast<cudaStream_t>(d.stream)), "cublasSetStream");
          check_cublas(cublasGemmEx(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, d.b, m.cuda_input, n, d.a,
                                    m.cuda_input, n, &beta, d.c, CUDA_R_32F, n, m.compute, CUBLAS_GEMM_DEFAULT),
                       "cublasGemmEx");
        },
        fmt::format("cuBLAS {}", m.name));
  };
  return rung;
}

const Mode kModes[] = {
    {optional_rung::cublas.name, DType::f32, DType::f32, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_PEDANTIC_MATH,
     "cuBLAS f32, pedantic: FMA units only, no tensor cores"},
    {optional_rung::cublas_tf32.name, DType::tf32, DType::f32, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32,
     CUBLAS_TF32_TENSOR_OP_MATH, "cuBLAS on tensor cores in TF32 (f32 data), f32 accumulation"},
    {optional_rung::cublas_f16.name, DType::f16, DType::f16, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUBLAS_DEFAULT_MATH,
     "cuBLAS on tensor cores, f16 inputs, f32 accumulation and output"},
    {optional_rung::cublas_bf16.name, DType::bf16, DType::bf16, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUBLAS_DEFAULT_MATH,
     "cuBLAS on tensor cores, bf16 inputs, f32 accumulation and output"},
};

}  // namespace

GemmRung cublas_rung(const OptionalRung& which) {
  for (const Mode& m : kModes)
    if (std::string_view(m.name) == which.name) return mode_rung(m);
  throw std::logic_error(fmt::format("no cuBLAS mode is named {}", which.name));
}

namespace cuda {

std::function<void(void* stream)> small_cublas_gemm(int n) {
  struct State {
    cublasHandle_t handle = nullptr;
    std::unique_ptr<DeviceBuffer> a, b, c;
    ~State() { cublasDestroy(handle); }
  };
  auto st = std::make_shared<State>();
  check_cublas(cublasCreate(&st->handle), "cublasCreate");
  for (auto* buffer : {&st->a, &st->b, &st->c}) *buffer = std::make_unique<DeviceBuffer>(sizeof(float) * n * n);
  return [st, n](void* stream) {
    const float alpha = 1, beta = 0;
    check_cublas(cublasSetStream(st->handle, static_cast<cudaStream_t>(stream)), "cublasSetStream");
    check_cublas(cublasSgemm(st->handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, static_cast<const float*>(st->b->get()), n,
                             static_cast<const float*>(st->a->get()), n, &beta, static_cast<float*>(st->c->get()), n),
                 "cublasSgemm");
  };
}

double cublas_best_rate(const std::string& mode, std::int64_t n) {
  for (const Mode& m : kModes) {
    if (mode != m.name || !unavailable_for(m.dtype, m.name).empty()) continue;
    const std::size_t element = m.input == DType::f32 ? 4 : 2;
    DeviceBuffer a(element * n * n), b(element * n * n), c(sizeof(float) * n * n);
    // Random operands, not zeros: on zeros an H200's bf16 tensor cores ran 13% faster (894
    // against 788 TFLOP/s, PyTorch 8192³), which would overstate the ceiling every case is set against.
    const FillType fill = m.input == DType::f16 ? FillType::f16 : m.input == DType::bf16 ? FillType::bf16 : FillType::f32;
    fill_uniform(a.get(), n * n, fill, 1);
    fill_uniform(b.get(), n * n, fill, 2);
    cublasHandle_t handle = nullptr;
    check_cublas(cublasCreate(&handle), "cublasCreate");
    std::unique_ptr<cublasContext, cublasStatus_t (*)(cublasHandle_t)> owned(handle, cublasDestroy);
    check_cublas(cublasSetMathMode(handle, m.math), "cublasSetMathMode");
    DeviceTimer timer;
    check_cublas(cublasSetStream(handle, static_cast<cudaStream_t>(timer.stream())), "cublasSetStream");
    const float alpha = 1, beta = 0;
    double best = 0;
    for (int trial = 0; trial < 4; ++trial) {  // the first warms up cuBLAS's heuristics
      timer.start();
      check_cublas(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, b.get(), m.cuda_input, n, a.get(),
                                m.cuda_input, n, &beta, c.get(), CUDA_R_32F, n, m.compute, CUBLAS_GEMM_DEFAULT),
                   "cublasGemmEx");
      if (trial > 0)
        best = std::max(best, 2.0 * n * n * n / timer.stop());
      else
        timer.stop();
    }
    return best;
  }
  return 0;
}

}  // namespace cuda

}  // namespace ladder
