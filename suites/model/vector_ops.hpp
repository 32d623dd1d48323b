// The cpu backends' element-wise operations. Changed from ScalarOps<float>: exp (softmax, GELU)
// is a vector polynomial instead of a libm call per element, and the row reductions (max, sum,
// mean, variance, soft-argmax) run in vector registers, which the compiler may not do for the
// scalar loops without -ffast-math (it would reorder the sums). Why faster: on the `medium`
// model the scalar softmax ran at ~13% of its memory roof, bound by one exp call per element.
// The kernels are written once (vector_rows.inc) and built for AVX-512 (16 lanes) and AVX2+FMA
// (8 lanes); the CPU's widest, under LADDER_MAX_ISA, runs; with neither, the scalar loops.
#pragma once
#include "core/cpu_features.hpp"
#include "forward.hpp"

namespace ladder::model {

// The widest kernel set this CPU runs under LADDER_MAX_ISA: avx512, avx2, or scalar.
Isa widest_vector_isa();

struct VectorOps : ScalarOps<float> {
  VectorOps();            // reads the CPU's features once
  Isa isa = Isa::scalar;  // avx512, avx2 or scalar: whose kernels run

  void softmax_rows(float* m, std::int64_t rows, std::int64_t cols) const;
  void soft_argmax(const float* probs, std::int64_t L, std::int64_t W, float* flow) const;
  void layernorm(const float* in, float* out, const float* gamma, const float* beta, std::int64_t rows, std::int64_t cols) const;
  void gelu(float* v, std::int64_t count) const;
};

}  // namespace ladder::model
