// The arithmetic-intensity sweep (in the style of mixbench and the Empirical Roofline Toolkit):
// each element is loaded once, put through k multiply-adds, and stored once, so intensity is
// 2k FLOP per (load + store). At k = 0 the kernel is a copy and memory bounds it; at large k
// the FMA units do. The multiply-adds are y = y*a + b with a = 1 and b = 1 passed at run time,
// so out[i] = in[i] + k exactly: the checksum has a closed form and skipped work shows.
#pragma once
#include <cstdint>
#include <string>

namespace ladder::cuda {

// The roofline kernel on the device (roofline_kernels.cu, CUDA builds only): out = in after k multiply-adds y = y·a + b per
// element, four elements a thread in 16-byte vectors (four independent chains). f16 works on pairs (half2, two lanes per
// instruction); n counts f16 elements and must be even.
void launch_roofline_f32(const float* in, float* out, std::int64_t n, int k, float a, float b, void* stream);
void launch_roofline_f16(const void* in, void* out, std::int64_t n, int k, float a, float b, void* stream);

}  // namespace ladder::cuda

namespace ladder::roofline {

// FLOPs and bytes of one pass, defined once for every device: k multiply-adds per element;
// one load and one store of it.
struct RooflineProblem {
  std::int64_t n = 0;  // elements
  int k = 0;           // multiply-adds per element
  int element_bytes = 4;
  double flops() const { return 2.0 * k * static_cast<double>(n); }
  double bytes() const { return 2.0 * element_bytes * static_cast<double>(n); }
  double intensity() const { return flops() / bytes(); }
};

// All cores: vector (AVX-512 or AVX2, 8 independent vectors in flight) and scalar (8
// independent elements in flight, one lane each) variants.
void avx2_f32(const float* in, float* out, std::int64_t n, int k, float a, float b);
void avx2_f64(const double* in, double* out, std::int64_t n, int k, double a, double b);
void avx512_f32(const float* in, float* out, std::int64_t n, int k, float a, float b);
void avx512_f64(const double* in, double* out, std::int64_t n, int k, double a, double b);
void scalar_f32(const float* in, float* out, std::int64_t n, int k, float a, float b);
void scalar_f64(const double* in, double* out, std::int64_t n, int k, double a, double b);

// The same loop as bytecode in the boxed interpreter (Python floats: f64), one core.
class BoxedSweep {
 public:
  BoxedSweep(const double* in, std::int64_t n);
  ~BoxedSweep();
  void run(int k, double a, double b);  // out = kernel(in)
  void result(double* out) const;

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace ladder::roofline
