// The model's element-wise formulas, shared by the CUDA kernels and the host (where they are
// unit-tested against the scalar reference, tests/test_model.cpp).
#pragma once
#include <cmath>
#include <cstdint>

#include "core/host_device.hpp"

namespace ladder::model {

// GELU, tanh approximation, in the form 0.5·v·(1 + tanh(u)) = v / (1 + e^(-2u)) with
// u = sqrt(2/pi)·(v + 0.044715·v³): one exp, and no cancellation for negative v.
LADDER_HD inline float gelu_tanh(float v) {
  const float u = 0.7978845608028654f * (v + 0.044715f * v * v * v);
  return v / (1.0f + expf(-2.0f * u));
}

// Pixel q of an image W wide, as (x, y): where soft-argmax weighs a match.
LADDER_HD inline float pixel_x(std::int64_t q, std::int64_t W) { return static_cast<float>(q % W); }
LADDER_HD inline float pixel_y(std::int64_t q, std::int64_t W) {
  const std::int64_t y = q / W;  // the pixel's row
  return static_cast<float>(y);
}

// Row-major C = op(A)·op(B) as cuBLAS (column-major) computes it: Cᵀ = op(B)ᵀ·op(A)ᵀ, so the
// operands swap and so do m and n; a row-major matrix is its transpose in column-major order.
struct ColumnMajorCall {
  bool trans_first, trans_second;  // the transposes of the first and second cuBLAS operands
  std::int64_t m, n, k;            // the column-major problem; B is the first operand, A the second
};
LADDER_HD inline ColumnMajorCall column_major_call(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k) {
  return {trans_b, trans_a, n, m, k};
}

}  // namespace ladder::model
