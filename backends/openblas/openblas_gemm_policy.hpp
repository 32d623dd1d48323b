// The model's GEMM policy through OpenBLAS (suites/model/forward.hpp calls gemm() for each matrix
// product of a pass), beside the GEMM rung of the same library.
#pragma once
#include <cblas.h>

#include <cstdint>

namespace ladder {

// GEMMs through OpenBLAS, the rest on all cores.
struct BlasGemm {
  static constexpr bool kConcurrentCalls = true;
  // Only the OpenMP build runs a call made inside a parallel region on its calling thread; the
  // pthread build would start its own pool from every thread and oversubscribe the cores.
  static bool concurrent_now() { return openblas_get_parallel() == 2; }
  bool parallel = true;
  void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
            std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc) const {
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, static_cast<blasint>(m),
                static_cast<blasint>(n), static_cast<blasint>(k), alpha, a, static_cast<blasint>(lda), b,
                static_cast<blasint>(ldb), beta, c, static_cast<blasint>(ldc));
  }
};

}  // namespace ladder
