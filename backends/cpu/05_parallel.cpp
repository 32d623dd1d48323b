// Rung 5, parallel: the tiled kernel, unchanged, with the rows of C split evenly across all
// cores by OpenMP. Each core runs its own strips over a shared, read-only B: the speedup should
// approach the core count until the cores share a bottleneck (L3 or memory bandwidth).
#include <omp.h>

#include <algorithm>

#include "../core/registry.hpp"
#include "tiled_kernel.hpp"

namespace ladder {

GemmRung parallel_rung() {
  GemmRung rung;
  rung.name = "parallel";
  rung.threading = Threading::all_cores;
  rung.mechanism = Mechanism::cores;
  rung.unit = Unit::fastest;
  rung.parent = "tiled";
  rung.summary = "the tiled kernel with C's rows split across all cores (OpenMP)";
  rung.traffic = gemm_tiled_traffic;
  rung.register_block = {kTiledRows, kTiledCols};
  rung.prepare = [](const GemmOperands& op) {
    return make_kernel([op] {
// teach: begin (the lines docs/ladder.md shows)
#pragma omp parallel
      {
        const std::int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
        // Whole register blocks of rows per thread, so only the last one has a ragged edge.
        const std::int64_t strips = (op.n + kTiledRows - 1) / kTiledRows;
        const std::int64_t begin = std::min(op.n, strips * t / threads * kTiledRows);
        const std::int64_t end = std::min(op.n, strips * (t + 1) / threads * kTiledRows);
        if (begin < end) gemm_tiled_rows(op.n, op.a, op.b, op.c, begin, end);
      }
      // teach: end
    });
  };
  return rung;
}

}  // namespace ladder
