// Rung 8, openblas: cblas_sgemm from OpenBLAS (its OpenMP build, so its threads are ours):
// the same BLIS-like structure as the avx512 rung, with micro-kernels tuned per CPU model by
// people who do nothing else, chosen at run time for the CPU it finds.
#include <cblas.h>
#include <omp.h>

#include "../core/registry.hpp"

namespace ladder {

GemmRung openblas_rung() {
  GemmRung rung;
  rung.name = "openblas";
  rung.threading = Threading::all_cores;
  rung.picks_own_threads = true;  // one thread below its size thresholds
  rung.mechanism = "tuned library";
  rung.summary = "cblas_sgemm (OpenBLAS, OpenMP build), all cores";
  rung.prepare = [](const GemmOperands& op) {
    openblas_set_num_threads(omp_get_max_threads());
    const auto n = static_cast<blasint>(op.n);
    return make_kernel([op, n] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, op.a, n, op.b, n, 0.0f,
                  op.c, n);
    });
  };
  return rung;
}

void register_openblas(Registry& r) {
  r.add(openblas_rung());
  r.context.emplace_back("openblas_config", [] { return std::string(openblas_get_config()); });
  r.context.emplace_back("openblas_parallel", [] {
    switch (openblas_get_parallel()) {
      case 0: return std::string("sequential");
      case 1: return std::string("pthreads");
      default: return std::string("openmp");
    }
  });
  r.context.emplace_back("openblas_core", [] { return std::string(openblas_get_corename()); });
}

}  // namespace ladder
