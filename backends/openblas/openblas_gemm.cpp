// Rung 8, openblas: cblas_sgemm from OpenBLAS (its OpenMP build where there is one, so its
// threads are ours; its pthread build gets its thread count set to ours before every problem):
// the same BLIS-like structure as the avx512 rung, with micro-kernels tuned per CPU model by
// people who do nothing else, chosen at run time for the CPU it finds.
#include <cblas.h>
#include <omp.h>

#include <cstdlib>
#include <optional>
#include <set>
#include <string>

#include "../core/cpu_features.hpp"
#include "../core/registry.hpp"

namespace ladder {
namespace {

// The kernels OpenBLAS chose, and whether ladderbench chose them for it (openblas_core_fix).
std::string chosen_core() {
  std::string text = "OpenBLAS " + std::string(openblas_get_corename()) + " kernels";
  if (const char* detected = std::getenv("LADDER_OPENBLAS_DETECTED"); detected && *detected)
    text += std::string(" (OPENBLAS_CORETYPE set by ladderbench: OpenBLAS took this CPU for a ") + detected + ")";
  else if (const char* forced = std::getenv("OPENBLAS_CORETYPE"); forced && *forced)
    text += std::string(" (OPENBLAS_CORETYPE=") + forced + ")";
  return text;
}

std::string openblas_build() {
  switch (openblas_get_parallel()) {
    case 0:
      return "sequential";
    case 1:
      return "pthreads";
    default:
      return "openmp";
  }
}

}  // namespace

std::optional<EnvironmentFix> openblas_core_fix() {
  if (const char* forced = std::getenv("OPENBLAS_CORETYPE"); forced && *forced) return std::nullopt;  // the user's
  const std::string detected = openblas_get_corename();
  const std::string core = openblas_core_for(detected, cpu_features().avx2 && max_isa() >= Isa::avx2,
                                             cpu_features().avx512f && max_isa() >= Isa::avx512);
  if (core.empty()) return std::nullopt;
  return EnvironmentFix{
      {{"OPENBLAS_CORETYPE", core}, {"LADDER_OPENBLAS_DETECTED", detected}},
      "OpenBLAS took this CPU for a " + detected + "; running it with OPENBLAS_CORETYPE=" + core + ", the kernels of its ISA"};
}

GemmRung openblas_rung(const OptionalRung& o) {
  GemmRung rung;
  rung.name = o.name;
  rung.threading = Threading::all_cores;
  rung.picks_own_threads = true;  // one thread below its size thresholds
  rung.small_gemm_sweep = true;
  rung.mechanism = Mechanism::tuned_library;
  rung.unit = Unit::fastest;
  rung.traffic = compulsory_traffic_only;
  rung.parent = "avx512|avx2";  // the best hand-written kernel of the same units
  rung.summary = "cblas_sgemm (OpenBLAS, " + openblas_build() + " build), all cores";
  rung.prepare = [](const GemmOperands& op) {
    openblas_set_num_threads(omp_get_max_threads());
    const auto n = static_cast<blasint>(op.n);
    struct Kernel final : GemmKernel {
      GemmOperands op;
      blasint n;
      void run() override {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, op.a, n, op.b, n, 0.0f, op.c, n);
      }
      std::string label() const override {
        return chosen_core() + ", " + openblas_build() + " build, " + std::to_string(openblas_get_num_threads()) + " threads";
      }
    };
    auto kernel = std::make_unique<Kernel>();
    kernel->op = op, kernel->n = n;
    return kernel;
  };
  return rung;
}

void register_openblas(Registry& r) {
#define LADDER_RUNGS_DEF "openblas/rungs.def"
#include "core/add_gemm_rungs.inc"
  r.context.emplace_back("openblas_config", [] { return std::string(openblas_get_config()); });
  r.context.emplace_back("openblas_parallel", [] { return openblas_build(); });
  r.context.emplace_back("openblas_threads", [] {
    openblas_set_num_threads(omp_get_max_threads());  // as every use of it sets them
    return std::to_string(openblas_get_num_threads());
  });
  r.context.emplace_back("openblas_core", [] { return chosen_core(); });
  r.environment_fixes.emplace_back(openblas_core_fix);
}

}  // namespace ladder
