// STREAM copy and triad on the device (declared in stream_kernels.hpp beside the CPU's), for the
// device memory roof and the stream suite's GPU half; CUDA builds only.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/launch_shape.cuh"
#include "stream_kernels.hpp"

namespace ladder::cuda {
namespace {

// STREAM copy and triad, 16 bytes a load and a store (float4, double2: a quarter of the memory
// instructions of one element each, so more bytes are in flight per thread), grid-stride; the
// last elements past a whole vector one at a time.
template <class T>
struct Vec16;
template <>
struct Vec16<float> {
  using type = float4;
  static constexpr int lanes = 4;
};
template <>
struct Vec16<double> {
  using type = double2;
  static constexpr int lanes = 2;
};

__device__ inline float4 triad_of(float4 b, float4 c, float s) {
  return make_float4(b.x + s * c.x, b.y + s * c.y, b.z + s * c.z, b.w + s * c.w);
}
__device__ inline double2 triad_of(double2 b, double2 c, double s) { return make_double2(b.x + s * c.x, b.y + s * c.y); }

template <class T>
__global__ void copy_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t n) {
  using V = typename Vec16<T>::type;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t first = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t vectors = n / Vec16<T>::lanes;
  for (std::int64_t i = first; i < vectors; i += stride) reinterpret_cast<V*>(out)[i] = reinterpret_cast<const V*>(in)[i];
  for (std::int64_t i = vectors * Vec16<T>::lanes + first; i < n; i += stride) out[i] = in[i];
}

template <class T>
__global__ void triad_kernel(T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c, T s, std::int64_t n) {
  using V = typename Vec16<T>::type;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t first = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t vectors = n / Vec16<T>::lanes;
  for (std::int64_t i = first; i < vectors; i += stride)
    reinterpret_cast<V*>(a)[i] = triad_of(reinterpret_cast<const V*>(b)[i], reinterpret_cast<const V*>(c)[i], s);
  for (std::int64_t i = vectors * Vec16<T>::lanes + first; i < n; i += stride) a[i] = b[i] + s * c[i];
}

}  // namespace

void launch_copy(const float* in, float* out, std::int64_t n, void* stream) {
  copy_kernel<float><<<grid_for(n / 4 + 1), kThreads, 0, as_stream(stream)>>>(in, out, n);
}
void launch_copy(const double* in, double* out, std::int64_t n, void* stream) {
  copy_kernel<double><<<grid_for(n / 2 + 1), kThreads, 0, as_stream(stream)>>>(in, out, n);
}
void launch_triad(float* a, const float* b, const float* c, float s, std::int64_t n, void* stream) {
  triad_kernel<float><<<grid_for(n / 4 + 1), kThreads, 0, as_stream(stream)>>>(a, b, c, s, n);
}
void launch_triad(double* a, const double* b, const double* c, double s, std::int64_t n, void* stream) {
  triad_kernel<double><<<grid_for(n / 2 + 1), kThreads, 0, as_stream(stream)>>>(a, b, c, s, n);
}

}  // namespace ladder::cuda
