// Rung 2, interchange: i-k-j instead of i-j-k, still scalar. The inner loop now walks a row of B
// and a row of C with unit stride, so each 64-byte cache line fetched serves 16 floats instead
// of one; the column walk down B, a cache miss per multiply at large n, is gone.
#include "../core/registry.hpp"
#include "traffic_models.hpp"

namespace ladder {

// teach: begin (the lines docs/ladder.md shows)
static void gemm_interchange(std::int64_t n, const float* a, const float* b, float* c) {
  for (std::int64_t i = 0; i < n; ++i) {
    float* c_row = c + i * n;
    for (std::int64_t j = 0; j < n; ++j) c_row[j] = 0;
    for (std::int64_t k = 0; k < n; ++k) {
      const float a_ik = a[i * n + k];
      const float* b_row = b + k * n;
      for (std::int64_t j = 0; j < n; ++j) c_row[j] += a_ik * b_row[j];
    }
  }
}
// teach: end

GemmRung interchange_rung() {
  GemmRung rung;
  rung.name = "interchange";
  rung.threading = Threading::one_core;
  rung.unit = Unit::scalar_fma;
  // The common size itself: B streamed once per row of A costs about 20 s a call at n = 4096 on
  // one core (minutes with its repetitions), so it is measured there, not extrapolated.
  rung.max_n = 4096;
  rung.mechanism = Mechanism::loop_order;
  rung.parent = "naive";
  rung.summary = "i-k-j scalar loops: unit-stride inner loop, vectorisation off";
  rung.traffic = row_streaming_traffic;
  rung.prepare = [](const GemmOperands& op) { return make_kernel([op] { gemm_interchange(op.n, op.a, op.b, op.c); }); };
  return rung;
}

}  // namespace ladder
