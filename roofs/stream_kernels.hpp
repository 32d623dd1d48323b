// STREAM's four kernels (McCalpin): copy c=a, scale b=s·c, add c=a+b, triad a=b+s·c, across all
// cores, counting bytes as STREAM does: the words each kernel names (2 for copy and scale, 3 for
// add and triad), not the write-allocate reads that a cached store also costs.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ladder::cuda {

// STREAM on the device (stream_kernels.cu, CUDA builds only), f32 and f64: out-of-place copy and triad a = b + s·c, grid-stride
// loops of 16-byte vectors (the arrays as cudaMalloc returns them: 256-byte aligned).
void launch_copy(const float* in, float* out, std::int64_t n, void* stream);
void launch_copy(const double* in, double* out, std::int64_t n, void* stream);
void launch_triad(float* a, const float* b, const float* c, float s, std::int64_t n, void* stream);
void launch_triad(double* a, const double* b, const double* c, double s, std::int64_t n, void* stream);

}  // namespace ladder::cuda

namespace ladder::stream {

enum class Kernel { copy, scale, add, triad };
constexpr Kernel kKernels[] = {Kernel::copy, Kernel::scale, Kernel::add, Kernel::triad};

std::string kernel_name(Kernel k);
int words_moved(Kernel k);  // per element, as STREAM counts

constexpr double kScalar = 3.0;
// Initial values: a = 1, b = 2, c = 0.5 (no output is all zero), exact in f32 and f64.
constexpr double kA = 1.0, kB = 2.0, kC = 0.5;

// The value every output element holds after one run of `k` on the initial arrays.
double expected_output(Kernel k);

template <class T>
struct Arrays {
  std::int64_t n = 0;
  T* a = nullptr;
  T* b = nullptr;
  T* c = nullptr;
  T* output(Kernel k) const { return k == Kernel::copy || k == Kernel::add ? c : k == Kernel::scale ? b : a; }
};

// One pass of the kernel over all elements, on all cores (OpenMP static schedule, like STREAM).
// `nontemporal` writes with streaming stores (no write-allocate, no cache pollution) where the
// CPU has AVX; it is reported unavailable otherwise.
template <class T>
void run(Kernel k, const Arrays<T>& arrays, bool nontemporal);

// Fills with the initial values, on all cores (first touch places pages by thread).
template <class T>
void initialise(const Arrays<T>& arrays);

// Sum of the output, in double: n × expected_output when every element was written correctly.
template <class T>
double checksum(Kernel k, const Arrays<T>& arrays);

}  // namespace ladder::stream
