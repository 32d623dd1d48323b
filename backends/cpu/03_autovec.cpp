// Rung 3, autovec: the interchange loop, unchanged, with the compiler's auto-vectoriser on for
// the native ISA (-O3 -march=native, 512-bit vectors preferred). The unit-stride inner loop
// becomes SIMD: with AVX-512, 16 f32 multiply-adds per instruction instead of one.
#include "../core/registry.hpp"
#include "traffic_models.hpp"

namespace ladder {

// teach: begin (the lines docs/ladder.md shows)
static void gemm_autovec(std::int64_t n, const float* __restrict a, const float* __restrict b, float* __restrict c) {
  for (std::int64_t i = 0; i < n; ++i) {
    float* __restrict c_row = c + i * n;
    for (std::int64_t j = 0; j < n; ++j) c_row[j] = 0;
    for (std::int64_t k = 0; k < n; ++k) {
      const float a_ik = a[i * n + k];
      const float* __restrict b_row = b + k * n;
      for (std::int64_t j = 0; j < n; ++j) c_row[j] += a_ik * b_row[j];
    }
  }
}
// teach: end

GemmRung autovec_rung() {
  GemmRung rung;
  rung.name = "autovec";
  rung.threading = Threading::one_core;
  rung.mechanism = Mechanism::simd;
  rung.unit = Unit::fastest;  // the widest vectors -march=native allows
  rung.parent = "interchange";
  rung.summary = "i-k-j loops auto-vectorised for the native ISA (-O3 -march=native)";
  rung.traffic = row_streaming_traffic;
  rung.prepare = [](const GemmOperands& op) { return make_kernel([op] { gemm_autovec(op.n, op.a, op.b, op.c); }); };
  return rung;
}

}  // namespace ladder
