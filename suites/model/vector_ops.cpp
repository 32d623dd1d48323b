#include "vector_ops.hpp"

// GCC 12's AVX-512 headers pass _mm512_undefined_ps() as the unused merge source and then warn
// about it once inlined (GCC bug 105593, fixed in 13): silenced for the header alone.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <algorithm>
#include <cmath>

#include "core/cpu_features.hpp"

namespace ladder::model {

#pragma GCC push_options
#pragma GCC target("avx512f")
namespace {

// e^x for 16 lanes: x = n·ln2 + r with |r| <= ln2/2, e^r by its Taylor series to r^7 (the
// remainder is below 2^-27, under an f32 ulp), and 2^n applied exactly by vscalefps.
inline __m512 exp16(__m512 x) {
  x = _mm512_max_ps(_mm512_min_ps(x, _mm512_set1_ps(88.5f)), _mm512_set1_ps(-103.0f));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), x);  // ln2 in two parts,
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.428606765330187e-06f), r);    // so n·ln2 is exact
  __m512 p = _mm512_set1_ps(1.0f / 5040);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 720));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(p, n);
}

// Horizontal sum and max through memory (GCC 12's _mm512_reduce_* warn about their own headers).
inline float sum16(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  float sum = 0;
  for (float x : lanes) sum += x;
  return sum;
}
inline float max16(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  float max = lanes[0];
  for (float x : lanes) max = x > max ? x : max;
  return max;
}

// Lanes [0, remaining) of a 16-wide step.
inline __mmask16 tail(std::int64_t remaining) {
  return remaining >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << remaining) - 1);
}

void softmax_row(float* row, std::int64_t cols) {
  __m512 vmax = _mm512_set1_ps(-INFINITY);
  for (std::int64_t j = 0; j < cols; j += 16)
    vmax = _mm512_max_ps(vmax, _mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY), tail(cols - j), row + j));
  const __m512 max = _mm512_set1_ps(max16(vmax));
  __m512 vsum = _mm512_setzero_ps();
  for (std::int64_t j = 0; j < cols; j += 16) {
    const __mmask16 m = tail(cols - j);
    const __m512 e = exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, row + j), max));
    _mm512_mask_storeu_ps(row + j, m, e);
    vsum = _mm512_add_ps(vsum, _mm512_maskz_mov_ps(m, e));
  }
  const __m512 inverse = _mm512_set1_ps(1.0f / sum16(vsum));
  for (std::int64_t j = 0; j < cols; j += 16) {
    const __mmask16 m = tail(cols - j);
    _mm512_mask_storeu_ps(row + j, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, row + j), inverse));
  }
}

// Over the image rows y of the distribution: sum_x row, and sum_x x·row, 16 columns at a time.
void soft_argmax_row(const float* row, std::int64_t L, std::int64_t W, std::int64_t p, float* flow) {
  const __m512 iota = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m512 mx = _mm512_setzero_ps(), my = _mm512_setzero_ps();
  for (std::int64_t y = 0; y * W < L; ++y) {
    const float* line = row + y * W;
    const __m512 vy = _mm512_set1_ps(static_cast<float>(y));
    for (std::int64_t x = 0; x < W; x += 16) {
      const __m512 v = _mm512_maskz_loadu_ps(tail(W - x), line + x);
      mx = _mm512_fmadd_ps(v, _mm512_add_ps(iota, _mm512_set1_ps(static_cast<float>(x))), mx);
      my = _mm512_fmadd_ps(v, vy, my);
    }
  }
  flow[2 * p] = sum16(mx) - static_cast<float>(p % W);
  flow[2 * p + 1] = sum16(my) - static_cast<float>(p / W);
}

void layernorm_row(const float* x, float* out, const float* gamma, const float* beta, std::int64_t cols) {
  __m512 vsum = _mm512_setzero_ps();
  for (std::int64_t j = 0; j < cols; j += 16) vsum = _mm512_add_ps(vsum, _mm512_maskz_loadu_ps(tail(cols - j), x + j));
  const __m512 mean = _mm512_set1_ps(sum16(vsum) / static_cast<float>(cols));
  __m512 vvar = _mm512_setzero_ps();
  for (std::int64_t j = 0; j < cols; j += 16) {
    const __mmask16 m = tail(cols - j);
    const __m512 d = _mm512_maskz_sub_ps(m, _mm512_maskz_loadu_ps(m, x + j), mean);
    vvar = _mm512_fmadd_ps(d, d, vvar);
  }
  const __m512 scale =
      _mm512_set1_ps(1.0f / std::sqrt(sum16(vvar) / static_cast<float>(cols) + 1e-5f));
  for (std::int64_t j = 0; j < cols; j += 16) {
    const __mmask16 m = tail(cols - j);
    const __m512 d = _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + j), mean), scale);
    _mm512_mask_storeu_ps(out + j, m, _mm512_fmadd_ps(d, _mm512_maskz_loadu_ps(m, gamma + j), _mm512_maskz_loadu_ps(m, beta + j)));
  }
}

// 0.5·v·(1 + tanh(u)) = v / (1 + e^(-2u)), u = k·(v + 0.044715·v³): one exp and no cancellation.
void gelu_span(float* v, std::int64_t count) {
  const __m512 k2 = _mm512_set1_ps(-2.0f * 0.7978845608028654f), c = _mm512_set1_ps(0.044715f), one = _mm512_set1_ps(1.0f);
  for (std::int64_t i = 0; i < count; i += 16) {
    const __mmask16 m = tail(count - i);
    const __m512 x = _mm512_maskz_loadu_ps(m, v + i);
    const __m512 u = _mm512_fmadd_ps(_mm512_mul_ps(c, x), _mm512_mul_ps(x, x), x);
    _mm512_mask_storeu_ps(v + i, m, _mm512_div_ps(x, _mm512_add_ps(one, exp16(_mm512_mul_ps(k2, u)))));
  }
}

}  // namespace
#pragma GCC pop_options

VectorOps::VectorOps() : ScalarOps<float>{true}, avx512(isa_unavailable_reason(Isa::avx512).empty()) {}

void VectorOps::softmax_rows(float* m, std::int64_t rows, std::int64_t cols) const {
  if (!avx512) return ScalarOps<float>::softmax_rows(m, rows, cols);
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) softmax_row(m + r * cols, cols);
}

void VectorOps::soft_argmax(const float* probs, std::int64_t L, std::int64_t W, float* flow) const {
  if (!avx512) return ScalarOps<float>::soft_argmax(probs, L, W, flow);
#pragma omp parallel for schedule(static)
  for (std::int64_t p = 0; p < L; ++p) soft_argmax_row(probs + p * L, L, W, p, flow);
}

void VectorOps::layernorm(const float* in, float* out, const float* gamma, const float* beta, std::int64_t rows,
                          std::int64_t cols) const {
  if (!avx512) return ScalarOps<float>::layernorm(in, out, gamma, beta, rows, cols);
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) layernorm_row(in + r * cols, out + r * cols, gamma, beta, cols);
}

void VectorOps::gelu(float* v, std::int64_t count) const {
  if (!avx512) return ScalarOps<float>::gelu(v, count);
  constexpr std::int64_t kChunk = 4096;  // contiguous pieces per thread, whole vectors
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; i += kChunk) gelu_span(v + i, std::min(kChunk, count - i));
}

}  // namespace ladder::model
