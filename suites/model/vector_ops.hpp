// The cpu backends' element-wise operations. Changed from ScalarOps<float>: exp (softmax, GELU)
// is a 16-lane AVX-512 polynomial instead of a libm call per element, and the row reductions
// (max, sum, mean, variance, soft-argmax) run in vector registers, which the compiler may not do
// for the scalar loops without -ffast-math (it would reorder the sums). Why faster: on the
// `medium` model the scalar softmax ran at ~13% of its memory roof, bound by one exp call per
// element. Where AVX-512 is not available (or LADDER_MAX_ISA caps it) the scalar loops run.
#pragma once
#include "forward.hpp"

namespace ladder::model {

struct VectorOps : ScalarOps<float> {
  VectorOps();  // reads the CPU's features once
  bool avx512 = false;

  void softmax_rows(float* m, std::int64_t rows, std::int64_t cols) const;
  void soft_argmax(const float* probs, std::int64_t L, std::int64_t W, float* flow) const;
  void layernorm(const float* in, float* out, const float* gamma, const float* beta, std::int64_t rows, std::int64_t cols) const;
  void gelu(float* v, std::int64_t count) const;
};

}  // namespace ladder::model
