#include "roofline_kernels.hpp"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <limits>

#include "interpreter/interpreter.hpp"

namespace ladder::roofline {
namespace {

constexpr std::int64_t kChains = 8;  // independent FMA chains: covers 4-cycle latency on 2 pipes

std::pair<std::int64_t, std::int64_t> thread_range(std::int64_t blocks) {
  const std::int64_t t = omp_get_thread_num(), threads = omp_get_num_threads();
  return {blocks * t / threads, blocks * (t + 1) / threads};
}

}  // namespace

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2 {
namespace {

inline __m256 load(const float* p) { return _mm256_loadu_ps(p); }
inline __m256d load(const double* p) { return _mm256_loadu_pd(p); }
inline void store(float* p, __m256 v) { _mm256_storeu_ps(p, v); }
inline void store(double* p, __m256d v) { _mm256_storeu_pd(p, v); }
inline __m256 fma(__m256 x, __m256 a, __m256 b) { return _mm256_fmadd_ps(x, a, b); }
inline __m256d fma(__m256d x, __m256d a, __m256d b) { return _mm256_fmadd_pd(x, a, b); }
inline __m256 splat(float v) { return _mm256_set1_ps(v); }
inline __m256d splat(double v) { return _mm256_set1_pd(v); }

#include "vector_sweep.inc"

}  // namespace
}  // namespace avx2

void avx2_f32(const float* in, float* out, std::int64_t n, int k, float a, float b) { avx2::vector_sweep(in, out, n, k, a, b); }
void avx2_f64(const double* in, double* out, std::int64_t n, int k, double a, double b) {
  avx2::vector_sweep(in, out, n, k, a, b);
}
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,fma")
namespace avx512 {
namespace {

inline __m512 load(const float* p) { return _mm512_loadu_ps(p); }
inline __m512d load(const double* p) { return _mm512_loadu_pd(p); }
inline void store(float* p, __m512 v) { _mm512_storeu_ps(p, v); }
inline void store(double* p, __m512d v) { _mm512_storeu_pd(p, v); }
inline __m512 fma(__m512 x, __m512 a, __m512 b) { return _mm512_fmadd_ps(x, a, b); }
inline __m512d fma(__m512d x, __m512d a, __m512d b) { return _mm512_fmadd_pd(x, a, b); }
inline __m512 splat(float v) { return _mm512_set1_ps(v); }
inline __m512d splat(double v) { return _mm512_set1_pd(v); }

#include "vector_sweep.inc"

}  // namespace
}  // namespace avx512

void avx512_f32(const float* in, float* out, std::int64_t n, int k, float a, float b) {
  avx512::vector_sweep(in, out, n, k, a, b);
}
void avx512_f64(const double* in, double* out, std::int64_t n, int k, double a, double b) {
  avx512::vector_sweep(in, out, n, k, a, b);
}
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("fma")
// Scalar: no vectoriser; and no loop-idiom rewrite, which turns the k = 0 copy into memcpy (whose
// large copies use streaming stores, a different kernel from the one being measured).
#pragma GCC optimize("no-tree-vectorize", "no-tree-slp-vectorize", "no-tree-loop-distribute-patterns")

namespace {

inline float scalar_fma(float x, float a, float b) { return __builtin_fmaf(x, a, b); }
inline double scalar_fma(double x, double a, double b) { return __builtin_fma(x, a, b); }

template <class T>
void scalar_sweep(const T* in, T* out, std::int64_t n, int k, T a, T b) {
  const std::int64_t blocks = n / kChains;
#pragma omp parallel
  {
    auto [first, last] = thread_range(blocks);
    for (std::int64_t blk = first; blk < last; ++blk) {
      const std::int64_t i = blk * kChains;
      T v[kChains];
#pragma GCC unroll 8
      for (int c = 0; c < kChains; ++c) v[c] = in[i + c];
      for (int j = 0; j < k; ++j) {
#pragma GCC unroll 8
        for (int c = 0; c < kChains; ++c) v[c] = scalar_fma(v[c], a, b);
      }
#pragma GCC unroll 8
      for (int c = 0; c < kChains; ++c) out[i + c] = v[c];
    }
  }
  for (std::int64_t i = blocks * kChains; i < n; ++i) {
    T y = in[i];
    for (int j = 0; j < k; ++j) y = scalar_fma(y, a, b);
    out[i] = y;
  }
}

}  // namespace

void scalar_f32(const float* in, float* out, std::int64_t n, int k, float a, float b) { scalar_sweep(in, out, n, k, a, b); }
void scalar_f64(const double* in, double* out, std::int64_t n, int k, double a, double b) { scalar_sweep(in, out, n, k, a, b); }

#pragma GCC pop_options

// def sweep(x, out, n, k, a, b):
//     for i in range(n):
//         y = x[i]
//         for j in range(k):
//             y = y * a + b
//         out[i] = y
struct BoxedSweep::Impl {
  boxed::Code code;
  boxed::Globals globals;
  boxed::Object *x = nullptr, *out = nullptr, *n = nullptr;
  std::int64_t count = 0;
};

BoxedSweep::BoxedSweep(const double* in, std::int64_t n) : impl_(new Impl) {
  using boxed::Op;
  enum Local { X, OUT, N, K, A, B, I, Y, J, kCount };
  auto& c = impl_->code;
  c.num_locals = kCount;
  auto [i_top, i_exit] = c.emit_for_in_range(N, I);
  c.emit(Op::load_fast, X);  // y = x[i]
  c.emit(Op::load_fast, I);
  c.emit(Op::binary_subscr);
  c.emit(Op::store_fast, Y);
  auto [j_top, j_exit] = c.emit_for_in_range(K, J);
  c.emit(Op::load_fast, Y);  // y = y * a + b
  c.emit(Op::load_fast, A);
  c.emit(Op::binary_multiply);
  c.emit(Op::load_fast, B);
  c.emit(Op::binary_add);
  c.emit(Op::store_fast, Y);
  c.emit_jump(Op::jump, j_top);
  c.bind(j_exit);
  c.emit(Op::load_fast, Y);  // out[i] = y
  c.emit(Op::load_fast, OUT);
  c.emit(Op::load_fast, I);
  c.emit(Op::store_subscr);
  c.emit_jump(Op::jump, i_top);
  c.bind(i_exit);
  c.emit(Op::load_const, c.add_const(boxed::none()));
  c.emit(Op::return_value);
  c.finish();

  impl_->count = n;
  impl_->x = boxed::new_list(static_cast<std::size_t>(n));
  impl_->out = boxed::new_list(static_cast<std::size_t>(n));
  auto& items = static_cast<boxed::ListObject*>(impl_->x)->items;
  for (std::int64_t i = 0; i < n; ++i) items[i] = boxed::new_float(in[i]);
  impl_->n = boxed::new_int(n);
}

BoxedSweep::~BoxedSweep() {
  boxed::decref(impl_->x);
  boxed::decref(impl_->out);
  boxed::decref(impl_->n);
  delete impl_;
}

void BoxedSweep::run(int k, double a, double b) {
  boxed::Object* k_obj = boxed::new_int(k);
  boxed::Object* a_obj = boxed::new_float(a);
  boxed::Object* b_obj = boxed::new_float(b);
  boxed::Object* r = boxed::execute(impl_->code, {impl_->x, impl_->out, impl_->n, k_obj, a_obj, b_obj}, impl_->globals);
  boxed::decref(r);
  boxed::decref(k_obj);
  boxed::decref(a_obj);
  boxed::decref(b_obj);
}

void BoxedSweep::result(double* out) const {
  const auto& items = static_cast<boxed::ListObject*>(impl_->out)->items;
  for (std::int64_t i = 0; i < impl_->count; ++i)
    out[i] = items[i]->type == &boxed::none_type ? std::numeric_limits<double>::quiet_NaN() : boxed::as_double(items[i]);
}

}  // namespace ladder::roofline
