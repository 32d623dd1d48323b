// Rung 1, naive: the boxed program's i-j-k loop, compiled. Values are unboxed f32 in registers,
// there is no dispatch, allocation or reference count: only loads, a multiply-add and a branch.
// Built without vectorisation (see CMakeLists.txt): one element per instruction.
#include "../core/machine.hpp"
#include "../core/registry.hpp"

namespace ladder {

// teach: begin (the lines docs/ladder.md shows)
static void gemm_naive(std::int64_t n, const float* a, const float* b, float* c) {
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      float sum = 0;
      for (std::int64_t k = 0; k < n; ++k) sum += a[i * n + k] * b[k * n + j];  // B walks a column
      c[i * n + j] = sum;
    }
}
// teach: end

GemmRung naive_rung() {
  GemmRung rung;
  rung.name = "naive";
  rung.threading = Threading::one_core;
  rung.unit = Unit::scalar_fma;
  // Its sum is one chain of dependent adds (the multiplies overlap): one multiply-add per add
  // latency, but for the overlap of the next element's chain with this one's tail.
  rung.serial_sum = true;
  rung.max_n = 1024;
  rung.mechanism = Mechanism::interpretation;
  rung.parent = "boxed";
  rung.summary = "i-j-k scalar loops, -O2, vectorisation off";
  // Each multiply-add steps down a column of B to a new cache line; the line serves the next
  // column's walk (j + 1) only while the column's n lines stay in a cache.
  rung.traffic = [](std::int64_t n, int) {
    const double line = cache_line_bytes(), size = static_cast<double>(n);
    return std::vector<TrafficTerm>{
        {"a cache line of B per multiply-add (the walk down B's column)", line * size, line * size * size * size}};
  };
  rung.prepare = [](const GemmOperands& op) { return make_kernel([op] { gemm_naive(op.n, op.a, op.b, op.c); }); };
  return rung;
}

}  // namespace ladder
