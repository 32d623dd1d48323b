// The model's backends: each a way to run the same forward pass (suites/model/forward.hpp) with
// its element-wise operations and its GEMM policy; a backend this build left out is listed,
// unavailable with the reason.
#include <omp.h>

#include <stdexcept>

#include "core/registry.hpp"
#include "model_suite.hpp"
#include "vector_ops.hpp"

#ifdef LADDER_HAVE_OPENBLAS
#include "openblas/openblas_gemm_policy.hpp"
#endif
#ifdef LADDER_HAVE_ONEDNN
#include "onednn/onednn_bf16_gemm_policy.hpp"
#endif
#ifdef LADDER_HAVE_CUDA
#include "cuda/device_gemm.hpp"
#include "model_cuda.hpp"
#endif

namespace ladder::model {
namespace {

template <class Ops, class Gemm>
Prepared make(const Config& c, const Weights& w, const Inputs& in, Ops ops, Gemm gemm) {
  auto forward = std::make_shared<Forward<Ops, Gemm>>(c, w, in, std::move(ops), std::move(gemm));
  Prepared prepared{[forward](Output& out, OpTimes& times) { forward->run(out, times); },
                    [forward] { return forward->allocated_bytes(); }};
  if constexpr (requires { forward->gemm_policy().implementation(); })
    prepared.gemm_implementation = [forward] { return forward->gemm_policy().implementation(); };
  return prepared;
}

}  // namespace

const std::vector<Backend>& backends() {
  static const std::vector<Backend> all = [] {
    std::vector<Backend> b;
    b.push_back(
        {"reference", DType::f64, Threading::one_core, "plain loops in double: the oracle", [] { return std::string(); },
         [](const Config& c, const Weights& w, const Inputs& in) { return make(c, w, in, ScalarOps<double>{}, LoopGemm{}); },
         20});
    b.push_back(
        {"naive", DType::f32, Threading::one_core, "single-threaded scalar f32 loops", [] { return std::string(); },
         [](const Config& c, const Weights& w, const Inputs& in) { return make(c, w, in, ScalarOps<float>{}, LoopGemm{}); },
         1024});
#ifdef LADDER_HAVE_OPENBLAS
    b.push_back({optional_rung::model_cpu.name, DType::f32, Threading::all_cores,
                 "f32: GEMMs through OpenBLAS, the rest in AVX-512 or AVX2 (the widest present) on all cores",
                 [] { return std::string(); },
                 [](const Config& c, const Weights& w, const Inputs& in) {
                   openblas_set_num_threads(omp_get_max_threads());
                   return make(c, w, in, VectorOps{}, BlasGemm{});
                 },
                 0});
#endif
#ifdef LADDER_HAVE_ONEDNN
    b.push_back(
        {optional_rung::model_cpu_bf16.name, DType::bf16, Threading::all_cores,
         "GEMMs in bf16 through oneDNN (AMX where present), the rest as in cpu", [] { return onednn_bf16_unavailable_reason(); },
         [](const Config& c, const Weights& w, const Inputs& in) { return make(c, w, in, VectorOps{}, OnednnBf16Gemm{}); }, 0});
#endif
#ifdef LADDER_HAVE_CUDA
    struct GpuMode {
      const char* name;
      DType dtype;
      gpu::GemmMode mode;
      const char* summary;
    };
    for (const GpuMode m : {GpuMode{optional_rung::model_cuda.name, DType::f32, gpu::GemmMode::f32,
                                    "f32: cuBLAS GEMMs (no tensor cores), CUDA kernels for the rest"},
                            GpuMode{optional_rung::model_cuda_tf32.name, DType::tf32, gpu::GemmMode::tf32,
                                    "cuBLAS GEMMs on tensor cores in TF32, the rest as in cuda"},
                            GpuMode{optional_rung::model_cuda_f16.name, DType::f16, gpu::GemmMode::f16,
                                    "cuBLAS GEMMs on tensor cores with f16 operands (f32 accumulation), the rest as in cuda"}})
      b.push_back({m.name, m.dtype, Threading::device, m.summary, [m] { return cuda::unavailable_for(m.dtype, m.name); },
                   [m](const Config& c, const Weights& w, const Inputs& in) {
                     auto context = gpu::make_context();
                     return make(c, w, in, gpu::CudaOps{context}, gpu::CublasGemm{context, m.mode});
                   },
                   0});
#endif
    for (auto& t : torch_backends()) b.push_back(std::move(t));
    // The backends this build left out (no OpenBLAS, oneDNN or CUDA), known and unavailable.
    for (const auto& o : optional_rungs()) {
      if (o.kind != RungKind::model || backend_built(o.backend)) continue;
      b.push_back({o.name, o.dtype, o.threading(), not_built_summary(o.backend),
                   [reason = not_built_reason(o.backend)] { return reason; },
                   [](const Config&, const Weights&, const Inputs&) -> Prepared {
                     throw std::logic_error("a model backend this build left out was prepared");
                   },
                   0});
    }
    return b;
  }();
  return all;
}

double backend_footprint_bytes(const Backend& b, const Config& c) {
  const bool converts_operands = b.dtype == DType::bf16 || b.dtype == DType::f16;
  const double ours = footprint_bytes(c, b.dtype == DType::f64 ? 8 : 4, converts_operands ? 2 : 0);
  // An out-of-place framework keeps a volume and its softmax both (4 bytes each, or more).
  const double L = static_cast<double>(c.tokens());
  return b.out_of_place ? ours + 4.0 * L * L * (1 + c.heads) : ours;
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const auto& b : backends()) names.push_back(b.name);
  return names;
}

}  // namespace ladder::model
