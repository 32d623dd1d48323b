// Rung 8, openblas: cblas_sgemm from OpenBLAS (its OpenMP build where there is one, so its
// threads are ours; its pthread build gets its thread count set to ours before every problem):
// the same BLIS-like structure as the avx512 rung, with micro-kernels tuned per CPU model by
// people who do nothing else, chosen at run time for the CPU it finds.
#include <cblas.h>
#include <omp.h>

#include <cstdlib>
#include <set>
#include <string>

#include "../core/cpu_features.hpp"
#include "../core/registry.hpp"

namespace ladder {
namespace {

// The kernels OpenBLAS chose, and, where it fell back to a pre-AVX core on a CPU with AVX2 (its
// 0.3.21 took an Emerald Rapids Xeon for a Prescott and ran 5x below oneDNN), how to get its own.
std::string chosen_core() {
  static const std::set<std::string> pre_avx = {"Prescott", "Katmai", "Coppermine", "Northwood", "Banias", "Core2",
                                                "Penryn", "Dunnington", "Nehalem", "Atom"};
  std::string core = openblas_get_corename();
  std::string text = "OpenBLAS " + core + " kernels";
  if (const char* forced = std::getenv("OPENBLAS_CORETYPE"); forced && *forced)
    text += std::string(" (OPENBLAS_CORETYPE=") + forced + ")";
  else if (pre_avx.count(core) && cpu_features().avx2)
    text += std::string(" (CPU not recognised: OPENBLAS_CORETYPE=") + (cpu_features().avx512f ? "SkylakeX" : "Haswell") +
            " selects tuned ones)";
  return text;
}

std::string openblas_build() {
  switch (openblas_get_parallel()) {
    case 0: return "sequential";
    case 1: return "pthreads";
    default: return "openmp";
  }
}

}  // namespace

GemmRung openblas_rung() {
  GemmRung rung;
  rung.name = "openblas";
  rung.threading = Threading::all_cores;
  rung.picks_own_threads = true;  // one thread below its size thresholds
  rung.mechanism = "tuned library";
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
  r.add(openblas_rung());
  r.context.emplace_back("openblas_config", [] { return std::string(openblas_get_config()); });
  r.context.emplace_back("openblas_parallel", [] { return openblas_build(); });
  r.context.emplace_back("openblas_threads", [] {
    openblas_set_num_threads(omp_get_max_threads());  // as every use of it sets them
    return std::to_string(openblas_get_num_threads());
  });
  r.context.emplace_back("openblas_core", [] { return std::string(openblas_get_corename()); });
}

}  // namespace ladder
