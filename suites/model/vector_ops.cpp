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

namespace ladder::model {

#pragma GCC push_options
#pragma GCC target("avx512f")
namespace avx512 {
namespace {

// 16 lanes; a tail is a lane mask, free on every load and store.
struct V {
  static constexpr std::int64_t kLanes = 16;
  using Reg = __m512;
  using Mask = __mmask16;
  static Mask tail(std::int64_t remaining) { return remaining >= 16 ? Mask(0xffff) : static_cast<Mask>((1u << remaining) - 1); }
  static Reg set1(float x) { return _mm512_set1_ps(x); }
  static Reg zero() { return _mm512_setzero_ps(); }
  static Reg iota() { return _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15); }
  static Reg load(Mask m, const float* p) { return _mm512_maskz_loadu_ps(m, p); }
  static Reg load_or(Reg fill, Mask m, const float* p) { return _mm512_mask_loadu_ps(fill, m, p); }
  static void store(float* p, Mask m, Reg v) { _mm512_mask_storeu_ps(p, m, v); }
  static Reg keep(Mask m, Reg v) { return _mm512_maskz_mov_ps(m, v); }
  static Reg add(Reg a, Reg b) { return _mm512_add_ps(a, b); }
  static Reg sub(Reg a, Reg b) { return _mm512_sub_ps(a, b); }
  static Reg mul(Reg a, Reg b) { return _mm512_mul_ps(a, b); }
  static Reg div(Reg a, Reg b) { return _mm512_div_ps(a, b); }
  static Reg fmadd(Reg a, Reg b, Reg c) { return _mm512_fmadd_ps(a, b, c); }
  static Reg fnmadd(Reg a, Reg b, Reg c) { return _mm512_fnmadd_ps(a, b, c); }
  static Reg min(Reg a, Reg b) { return _mm512_min_ps(a, b); }
  static Reg max(Reg a, Reg b) { return _mm512_max_ps(a, b); }
  static Reg round(Reg x) { return _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static Reg scale(Reg p, Reg n) { return _mm512_scalef_ps(p, n); }  // vscalefps: exact, any n
  static void store_aligned(float* p, Reg v) { _mm512_store_ps(p, v); }
};

#include "vector_rows.inc"

}  // namespace
}  // namespace avx512
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2 {
namespace {

// 8 lanes. AVX2's masked loads and stores take a vector of lane masks and are slow stores on
// AMD (vmaskmovps), so whole vectors use plain loads and stores and only a row's tail is masked.
struct V {
  static constexpr std::int64_t kLanes = 8;
  using Reg = __m256;
  struct Mask {
    bool whole;
    __m256i lanes;
  };
  static Mask tail(std::int64_t remaining) {
    const __m256i below = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(std::min<std::int64_t>(remaining, 8))),
                                             _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    return {remaining >= 8, below};
  }
  static Reg set1(float x) { return _mm256_set1_ps(x); }
  static Reg zero() { return _mm256_setzero_ps(); }
  static Reg iota() { return _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7); }
  static Reg load(Mask m, const float* p) { return m.whole ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, m.lanes); }
  static Reg load_or(Reg fill, Mask m, const float* p) {
    return m.whole ? _mm256_loadu_ps(p) : _mm256_blendv_ps(fill, _mm256_maskload_ps(p, m.lanes), _mm256_castsi256_ps(m.lanes));
  }
  static void store(float* p, Mask m, Reg v) {
    if (m.whole)
      _mm256_storeu_ps(p, v);
    else
      _mm256_maskstore_ps(p, m.lanes, v);
  }
  static Reg keep(Mask m, Reg v) { return _mm256_and_ps(_mm256_castsi256_ps(m.lanes), v); }
  static Reg add(Reg a, Reg b) { return _mm256_add_ps(a, b); }
  static Reg sub(Reg a, Reg b) { return _mm256_sub_ps(a, b); }
  static Reg mul(Reg a, Reg b) { return _mm256_mul_ps(a, b); }
  static Reg div(Reg a, Reg b) { return _mm256_div_ps(a, b); }
  static Reg fmadd(Reg a, Reg b, Reg c) { return _mm256_fmadd_ps(a, b, c); }
  static Reg fnmadd(Reg a, Reg b, Reg c) { return _mm256_fnmadd_ps(a, b, c); }
  static Reg min(Reg a, Reg b) { return _mm256_min_ps(a, b); }
  static Reg max(Reg a, Reg b) { return _mm256_max_ps(a, b); }
  static Reg round(Reg x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  // p·2^n built from exponent bits, in two halves: n reaches -149 and 128 (exp_v's clamp), past
  // the single-float exponent range of 2^n alone, while each half stays within it.
  static Reg scale(Reg p, Reg n) {
    const __m256i whole = _mm256_cvtps_epi32(n);
    const __m256i low = _mm256_srai_epi32(whole, 1), high = _mm256_sub_epi32(whole, low);
    return _mm256_mul_ps(_mm256_mul_ps(p, power_of_two(low)), power_of_two(high));
  }
  static Reg power_of_two(__m256i e) {  // e in -126..127
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(e, _mm256_set1_epi32(127)), 23));
  }
  static void store_aligned(float* p, Reg v) { _mm256_store_ps(p, v); }
};

#include "vector_rows.inc"

}  // namespace
}  // namespace avx2
#pragma GCC pop_options

Isa widest_vector_isa() {
  for (Isa isa : {Isa::avx512, Isa::avx2})
    if (isa_unavailable_reason(isa).empty()) return isa;
  return Isa::scalar;
}

VectorOps::VectorOps() : ScalarOps<float>{true}, isa(widest_vector_isa()) {}

// Each operation: rows split across the cores, each row by the kernel of the chosen ISA.
void VectorOps::softmax_rows(float* m, std::int64_t rows, std::int64_t cols) const {
  if (isa == Isa::scalar) return ScalarOps<float>::softmax_rows(m, rows, cols);
  const auto row_kernel = isa == Isa::avx512 ? avx512::softmax_row : avx2::softmax_row;
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) row_kernel(m + r * cols, cols);
}

void VectorOps::soft_argmax(const float* probs, std::int64_t L, std::int64_t W, float* flow) const {
  if (isa == Isa::scalar) return ScalarOps<float>::soft_argmax(probs, L, W, flow);
  const auto row_kernel = isa == Isa::avx512 ? avx512::soft_argmax_row : avx2::soft_argmax_row;
#pragma omp parallel for schedule(static)
  for (std::int64_t p = 0; p < L; ++p) row_kernel(probs + p * L, L, W, p, flow);
}

void VectorOps::layernorm(const float* in, float* out, const float* gamma, const float* beta, std::int64_t rows,
                          std::int64_t cols) const {
  if (isa == Isa::scalar) return ScalarOps<float>::layernorm(in, out, gamma, beta, rows, cols);
  const auto row_kernel = isa == Isa::avx512 ? avx512::layernorm_row : avx2::layernorm_row;
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) row_kernel(in + r * cols, out + r * cols, gamma, beta, cols);
}

void VectorOps::gelu(float* v, std::int64_t count) const {
  if (isa == Isa::scalar) return ScalarOps<float>::gelu(v, count);
  const auto span_kernel = isa == Isa::avx512 ? avx512::gelu_span : avx2::gelu_span;
  constexpr std::int64_t kChunk = 4096;  // contiguous pieces per thread, whole vectors
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; i += kChunk) span_kernel(v + i, std::min(kChunk, count - i));
}

}  // namespace ladder::model
