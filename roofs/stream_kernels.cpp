#include "roofs/stream_kernels.hpp"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>

namespace ladder::stream {

std::string kernel_name(Kernel k) {
  switch (k) {
    case Kernel::copy:
      return "copy";
    case Kernel::scale:
      return "scale";
    case Kernel::add:
      return "add";
    case Kernel::triad:
      return "triad";
  }
  return "?";
}

int words_moved(Kernel k) { return k == Kernel::copy || k == Kernel::scale ? 2 : 3; }

double expected_output(Kernel k) {
  switch (k) {
    case Kernel::copy:
      return kA;
    case Kernel::scale:
      return kScalar * kC;
    case Kernel::add:
      return kA + kB;
    case Kernel::triad:
      return kB + kScalar * kC;
  }
  return 0;
}

namespace {

// The element range of this thread, as OpenMP's static schedule would give it.
std::pair<std::int64_t, std::int64_t> my_range(std::int64_t n) {
  const std::int64_t t = omp_get_thread_num(), threads = omp_get_num_threads();
  return {n * t / threads, n * (t + 1) / threads};
}

template <class T>
void cached(Kernel k, const Arrays<T>& x) {
  T* __restrict a = x.a;
  T* __restrict b = x.b;
  T* __restrict c = x.c;
  const T s = static_cast<T>(kScalar);
  const std::int64_t n = x.n;
  // The OpenMP loops differ, but clang-tidy compares their outlined regions and finds them equal.
  switch (k) {
    case Kernel::copy:  // NOLINT(bugprone-branch-clone)
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < n; ++i) c[i] = a[i];
      break;
    case Kernel::scale:
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < n; ++i) b[i] = s * c[i];
      break;
    case Kernel::add:
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
      break;
    case Kernel::triad:
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
      break;
  }
}

#pragma GCC push_options
#pragma GCC target("avx2,fma")

// 256-bit streaming stores need 32-byte alignment: a scalar head and tail around the vector body.
template <class T, class Body, class Scalar>
void nt_range(T* out, std::int64_t begin, std::int64_t end, Body body, Scalar scalar) {
  constexpr std::int64_t lanes = 32 / sizeof(T);
  std::int64_t i = begin;
  for (; i < end && reinterpret_cast<std::uintptr_t>(out + i) % 32 != 0; ++i) scalar(i);
  for (; i + lanes <= end; i += lanes) body(i);
  for (; i < end; ++i) scalar(i);
}

// The same four kernels over 256-bit vectors of either width, stored with streaming stores.
inline __m256d load(const double* p) { return _mm256_loadu_pd(p); }
inline __m256 load(const float* p) { return _mm256_loadu_ps(p); }
inline void stream_store(double* p, __m256d v) { _mm256_stream_pd(p, v); }
inline void stream_store(float* p, __m256 v) { _mm256_stream_ps(p, v); }
inline __m256d add(__m256d x, __m256d y) { return _mm256_add_pd(x, y); }
inline __m256 add(__m256 x, __m256 y) { return _mm256_add_ps(x, y); }
inline __m256d mul(__m256d x, __m256d y) { return _mm256_mul_pd(x, y); }
inline __m256 mul(__m256 x, __m256 y) { return _mm256_mul_ps(x, y); }
inline __m256d splat(double v) { return _mm256_set1_pd(v); }
inline __m256 splat(float v) { return _mm256_set1_ps(v); }

template <class T>
void streaming_kernel(Kernel k, const Arrays<T>& x) {
  T* a = x.a;
  T* b = x.b;
  T* c = x.c;
  const T s = static_cast<T>(kScalar);
  const auto sv = splat(s);
#pragma omp parallel
  {
    auto [begin, end] = my_range(x.n);
    switch (k) {
      case Kernel::copy:
        nt_range(c, begin, end, [&](std::int64_t i) { stream_store(c + i, load(a + i)); }, [&](std::int64_t i) { c[i] = a[i]; });
        break;
      case Kernel::scale:
        nt_range(
            b, begin, end, [&](std::int64_t i) { stream_store(b + i, mul(sv, load(c + i))); },
            [&](std::int64_t i) { b[i] = s * c[i]; });
        break;
      case Kernel::add:
        nt_range(
            c, begin, end, [&](std::int64_t i) { stream_store(c + i, add(load(a + i), load(b + i))); },
            [&](std::int64_t i) { c[i] = a[i] + b[i]; });
        break;
      case Kernel::triad:
        nt_range(
            a, begin, end, [&](std::int64_t i) { stream_store(a + i, add(load(b + i), mul(sv, load(c + i)))); },
            [&](std::int64_t i) { a[i] = b[i] + s * c[i]; });
        break;
    }
  }
  _mm_sfence();  // streaming stores are weakly ordered: make them visible before the timer stops
}

#pragma GCC pop_options

}  // namespace

template <class T>
void run(Kernel k, const Arrays<T>& arrays, bool nontemporal) {
  if (!nontemporal) return cached(k, arrays);
  streaming_kernel(k, arrays);
}

template <class T>
void initialise(const Arrays<T>& x) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < x.n; ++i) {
    x.a[i] = static_cast<T>(kA);
    x.b[i] = static_cast<T>(kB);
    x.c[i] = static_cast<T>(kC);
  }
}

template <class T>
double checksum(Kernel k, const Arrays<T>& x) {
  const T* out = x.output(k);
  double sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::int64_t i = 0; i < x.n; ++i) sum += out[i];
  return sum;
}

template void run<float>(Kernel, const Arrays<float>&, bool);
template void run<double>(Kernel, const Arrays<double>&, bool);
template void initialise<float>(const Arrays<float>&);
template void initialise<double>(const Arrays<double>&);
template double checksum<float>(Kernel, const Arrays<float>&);
template double checksum<double>(Kernel, const Arrays<double>&);

}  // namespace ladder::stream
