// The roofline sweep on the device (declared in roofline_kernels.hpp beside the CPU's kernels);
// CUDA builds only.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/launch_shape.cuh"
#include "roofline_kernels.hpp"

namespace ladder::cuda {
namespace {

// The roofline kernel: four elements a thread, loaded and stored as one 16-byte vector, their k
// multiply-adds four independent chains, eight steps of them between loop tests. One element a
// thread (one dependent chain, and a loop test per FMA) reached 0.61 of the FMA probe at k = 512
// on an H200; the work counted is unchanged: exactly k multiply-adds per element, so out = in + k
// still checks it.
template <class T>
struct alignas(16) Four {
  T v[4];
};

// One 16-byte load or store: copying Four<__half2> member by member compiles to four 4-byte ones.
template <class T>
__device__ inline Four<T> load_four(const Four<T>* p) {
  const uint4 raw = *reinterpret_cast<const uint4*>(p);
  Four<T> value;
  memcpy(&value, &raw, sizeof value);
  return value;
}
template <class T>
__device__ inline void store_four(Four<T>* p, const Four<T>& value) {
  uint4 raw;
  memcpy(&raw, &value, sizeof raw);
  *reinterpret_cast<uint4*>(p) = raw;
}

__device__ inline float fma_of(float y, float a, float b) { return fmaf(y, a, b); }
__device__ inline __half2 fma_of(__half2 y, __half2 a, __half2 b) { return __hfma2(y, a, b); }

template <class T>
__device__ inline T chain(T y, int k, T a, T b) {
  for (int j = 0; j < k; ++j) y = fma_of(y, a, b);
  return y;
}

// T: float (elements) or __half2 (pairs of f16 elements); n counts T values.
template <class T>
__global__ void roofline_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t n, int k, T a, T b) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t first = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t groups = n / 4;
  const auto* in4 = reinterpret_cast<const Four<T>*>(in);  // cudaMalloc's buffers are 256-byte aligned
  auto* out4 = reinterpret_cast<Four<T>*>(out);
  for (std::int64_t g = first; g < groups; g += stride) {
    Four<T> y = load_four(in4 + g);
    int j = 0;
    for (; j + 8 <= k; j += 8) {
#pragma unroll
      for (int u = 0; u < 8; ++u) {
#pragma unroll
        for (int e = 0; e < 4; ++e) y.v[e] = fma_of(y.v[e], a, b);
      }
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) y.v[e] = chain(y.v[e], k - j, a, b);
    store_four(out4 + g, y);
  }
  for (std::int64_t i = groups * 4 + first; i < n; i += stride) out[i] = chain(in[i], k, a, b);  // the last n % 4
}

}  // namespace

void launch_roofline_f32(const float* in, float* out, std::int64_t n, int k, float a, float b, void* stream) {
  roofline_kernel<float><<<grid_for(n / 4 + 1), kThreads, 0, as_stream(stream)>>>(in, out, n, k, a, b);
}
void launch_roofline_f16(const void* in, void* out, std::int64_t n, int k, float a, float b, void* stream) {
  roofline_kernel<__half2><<<grid_for(n / 8 + 1), kThreads, 0, as_stream(stream)>>>(
      static_cast<const __half2*>(in), static_cast<__half2*>(out), n / 2, k, __float2half2_rn(a), __float2half2_rn(b));
}
}  // namespace ladder::cuda
