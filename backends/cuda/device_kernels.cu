#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "cuda_device.hpp"
#include "device_kernels.hpp"
#include "launch_shape.cuh"
#include "uniform_fill.hpp"

namespace ladder::cuda {
namespace {

__global__ void empty_kernel() {}

// FMA-only peak probes: 8 independent chains a thread (enough to cover the FMA latency at full
// occupancy), 16 steps of them unrolled between loop tests, so that the loop's own instructions
// take about 2% of the issue slots (with one step a loop they took about a quarter: an H200 reached
// 0.78 of its f32 peak). Each format's multiply and add keep the values bounded, away from zero
// and subnormals, whatever the iteration count.
constexpr int kProbeChains = 8, kProbeSteps = 16;

template <class T>
struct ProbeFma;
template <>
struct ProbeFma<float> {
  static __device__ float start(int c) { return 1.0f + 0.01f * (threadIdx.x % 32 + c); }
  static __device__ float m() { return 0.999999f; }
  static __device__ float add() { return 1e-3f; }
  static __device__ float fma(float v, float m, float a) { return fmaf(v, m, a); }
  static __device__ bool impossible(float v) { return v == 12345.678f; }
};
template <>
struct ProbeFma<double> {
  static __device__ double start(int c) { return 1.0 + 0.01 * (threadIdx.x % 32 + c); }
  static __device__ double m() { return 0.999999; }
  static __device__ double add() { return 1e-3; }
  static __device__ double fma(double v, double m, double a) { return ::fma(v, m, a); }
  static __device__ bool impossible(double v) { return v == 12345.678; }
};
template <>
struct ProbeFma<__half2> {
  static __device__ __half2 start(int c) { return __float2half2_rn(0.001f * (c + 1)); }
  static __device__ __half2 m() { return __float2half2_rn(0.999f); }
  static __device__ __half2 add() { return __float2half2_rn(0.0001f); }
  static __device__ __half2 fma(__half2 v, __half2 m, __half2 a) { return __hfma2(v, m, a); }
  static __device__ bool impossible(__half2 v) { return __low2float(v) == 12345.0f; }
};
template <>
struct ProbeFma<__nv_bfloat162> {
  static __device__ __nv_bfloat162 start(int c) { return __float2bfloat162_rn(0.001f * (c + 1)); }
  static __device__ __nv_bfloat162 m() { return __float2bfloat162_rn(0.99f); }
  static __device__ __nv_bfloat162 add() { return __float2bfloat162_rn(0.001f); }
  static __device__ __nv_bfloat162 fma(__nv_bfloat162 v, __nv_bfloat162 m, __nv_bfloat162 a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __hfma2(v, m, a);
#else
    __trap();  // bf16 arithmetic came with sm_80: the host does not launch it before
    return v;
#endif
  }
  static __device__ bool impossible(__nv_bfloat162 v) { return __low2float(v) == 12345.0f; }
};

template <class T>
__global__ void fma_probe_kernel(T* sink, std::int64_t iterations) {
  using F = ProbeFma<T>;
  T v[kProbeChains];
#pragma unroll
  for (int c = 0; c < kProbeChains; ++c) v[c] = F::start(c);
  const T m = F::m(), add = F::add();
  for (std::int64_t it = 0; it < iterations; ++it) {
#pragma unroll
    for (int step = 0; step < kProbeSteps; ++step) {
#pragma unroll
      for (int c = 0; c < kProbeChains; ++c) v[c] = F::fma(v[c], m, add);
    }
  }
  bool any = false;
#pragma unroll
  for (int c = 0; c < kProbeChains; ++c) any |= F::impossible(v[c]);
  if (any) *sink = v[0];  // never true; keeps every chain alive
}

__device__ inline double as_double(float v) { return v; }
__device__ inline double as_double(double v) { return v; }
__device__ inline double as_double(__half v) { return __half2float(v); }

// The sum of n values in double, for closed-form checks: each thread's share, then one atomic.
template <class T>
__global__ void sum_kernel(const T* __restrict__ data, std::int64_t n, double* out) {
  double s = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    s += as_double(data[i]);
  atomicAdd(out, s);
}

// The sum of one value per thread over the block, in thread 0 (in double: exact for the
// integer-valued sums below). Every thread of the block must call it.
__device__ double block_sum(double value) {
  __shared__ double per_warp[32];
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffffu, value, offset);
  if (threadIdx.x % 32 == 0) per_warp[threadIdx.x / 32] = value;
  __syncthreads();
  double total = 0;
  if (threadIdx.x == 0)
    for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w) total += per_warp[w];
  return total;
}

// `passes` sweeps over n float4s past L1 (ld.global.cg), from L2 where the buffer fits there and
// from device memory otherwise, summed in each thread so that no load can be dropped; the sums
// meet in *total for a closed-form check.
__global__ void read_passes_kernel(const float4* __restrict__ data, std::int64_t n, int passes, double* total) {
  // Four independent 16-byte loads per step, so that enough reads are in flight to fill the
  // memory system.
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t first = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  float s = 0;
  for (int pass = 0; pass < passes; ++pass) {
    std::int64_t i = first;
    for (; i + 3 * stride < n; i += 4 * stride) {
      const float4 a = __ldcg(data + i), b = __ldcg(data + i + stride);
      const float4 c = __ldcg(data + i + 2 * stride), d = __ldcg(data + i + 3 * stride);
      s += ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w)) + ((c.x + c.y) + (c.z + c.w)) + ((d.x + d.y) + (d.z + d.w));
    }
    for (; i < n; i += stride) {
      const float4 v = __ldcg(data + i);
      s += (v.x + v.y) + (v.z + v.w);
    }
  }
  // One atomic per block: one per thread (a million on an H200) cost more than one pass over
  // 480 MiB and read device memory at 253 GB/s.
  const double block_total = block_sum(static_cast<double>(s));
  if (threadIdx.x == 0) atomicAdd(total, block_total);
}

template <class T>
__global__ void fill_uniform_kernel(T* data, std::int64_t n, std::uint32_t seed) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const float value = uniform_value(seed, i);
    if constexpr (std::is_same_v<T, float>)
      data[i] = value;
    else if constexpr (std::is_same_v<T, __half>)
      data[i] = __float2half_rn(value);
    else
      data[i] = __float2bfloat16_rn(value);
  }
}

int probe_blocks() { return multiprocessors() * 8; }  // 8 blocks of 256 threads per SM: full occupancy

}  // namespace

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) { check(cudaMalloc(&ptr_, bytes), "cudaMalloc"); }
DeviceBuffer::~DeviceBuffer() { cudaFree(ptr_); }
void DeviceBuffer::upload(const void* host, std::size_t bytes) {
  check(cudaMemcpy(ptr_, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
}
void DeviceBuffer::poison() { check(cudaMemset(ptr_, 0xff, bytes_), "cudaMemset"); }
void DeviceBuffer::download(void* host, std::size_t bytes) const {
  check(cudaMemcpy(host, ptr_, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
}

PinnedBuffer::PinnedBuffer(std::size_t bytes) { check(cudaMallocHost(&ptr_, bytes), "cudaMallocHost"); }
PinnedBuffer::~PinnedBuffer() { cudaFreeHost(ptr_); }

DeviceTimer::DeviceTimer() {
  check(cudaStreamCreate(reinterpret_cast<cudaStream_t*>(&stream_)), "cudaStreamCreate");
  check(cudaEventCreate(reinterpret_cast<cudaEvent_t*>(&start_)), "cudaEventCreate");
  check(cudaEventCreate(reinterpret_cast<cudaEvent_t*>(&stop_)), "cudaEventCreate");
}
DeviceTimer::~DeviceTimer() {
  cudaEventDestroy(static_cast<cudaEvent_t>(start_));
  cudaEventDestroy(static_cast<cudaEvent_t>(stop_));
  cudaStreamDestroy(as_stream(stream_));
}
void DeviceTimer::start() { check(cudaEventRecord(static_cast<cudaEvent_t>(start_), as_stream(stream_)), "cudaEventRecord"); }
double DeviceTimer::stop() {
  check(cudaGetLastError(), "kernel launch");
  check(cudaEventRecord(static_cast<cudaEvent_t>(stop_), as_stream(stream_)), "cudaEventRecord");
  check(cudaEventSynchronize(static_cast<cudaEvent_t>(stop_)), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start_), static_cast<cudaEvent_t>(stop_)), "cudaEventElapsedTime");
  return ms / 1e3;
}
void DeviceTimer::synchronize() { check(cudaStreamSynchronize(as_stream(stream_)), "cudaStreamSynchronize"); }

void copy_async(void* dst, const void* src, std::size_t bytes, CopyKind kind, void* stream) {
  check(cudaMemcpyAsync(dst, src, bytes, kind == CopyKind::host_to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
                        as_stream(stream)),
        "cudaMemcpyAsync");
}

void launch_empty(void* stream) { empty_kernel<<<1, 1, 0, as_stream(stream)>>>(); }

double launch_fma_probe(FmaFormat format, void* sink, std::int64_t iterations, void* stream) {
  const int blocks = probe_blocks();
  const double fmas = static_cast<double>(kProbeChains) * kProbeSteps * static_cast<double>(iterations) * blocks * kThreads;
  // Each FMA is two FLOPs a lane; a paired format (half2, bfloat162) has two lanes.
  auto launch = [&]<class T>(T* typed_sink, int lanes) {
    fma_probe_kernel<T><<<blocks, kThreads, 0, as_stream(stream)>>>(typed_sink, iterations);
    return 2.0 * lanes * fmas;
  };
  switch (format) {
    case FmaFormat::f32:
      return launch(static_cast<float*>(sink), 1);
    case FmaFormat::f64:
      return launch(static_cast<double*>(sink), 1);
    case FmaFormat::f16x2:
      return launch(static_cast<__half2*>(sink), 2);
    case FmaFormat::bf16x2:
      return launch(static_cast<__nv_bfloat162*>(sink), 2);
  }
  return 0;
}

void fill_uniform(void* data, std::int64_t n, FillType type, std::uint32_t seed) {
  if (type == FillType::f32)
    fill_uniform_kernel<<<grid_for(n), kThreads>>>(static_cast<float*>(data), n, seed);
  else if (type == FillType::f16)
    fill_uniform_kernel<<<grid_for(n), kThreads>>>(static_cast<__half*>(data), n, seed);
  else
    fill_uniform_kernel<<<grid_for(n), kThreads>>>(static_cast<__nv_bfloat16*>(data), n, seed);
  check(cudaGetLastError(), "fill_uniform_kernel");
  check(cudaDeviceSynchronize(), "fill_uniform_kernel");
}

double read_rate(std::int64_t bytes, int passes) {
  const std::int64_t n = bytes / 16;  // float4s
  const int blocks = grid_for(n);
  const std::int64_t per_thread = (n + std::int64_t{blocks} * kThreads - 1) / (std::int64_t{blocks} * kThreads);
  // Ones, so that each thread's float sum stays an exact integer (below 2^24) and the total is known.
  if (n <= 0 || 4.0 * static_cast<double>(per_thread) * passes >= (1 << 24))
    throw std::runtime_error("read_rate: the buffer or pass count is out of range");
  const std::vector<float> ones(static_cast<std::size_t>(n) * 4, 1.0f);
  DeviceBuffer data(static_cast<std::size_t>(n) * 16), total(sizeof(double));
  data.upload(ones.data(), data.bytes());
  DeviceTimer timer;
  cudaStream_t s = as_stream(timer.stream());
  auto read = [&](int count) {  // the sum restarts at 0 before each launch, outside the timing
    check(cudaMemsetAsync(total.get(), 0, sizeof(double), s), "cudaMemsetAsync");
    timer.start();
    read_passes_kernel<<<blocks, kThreads, 0, s>>>(static_cast<const float4*>(data.get()), n, count,
                                                   static_cast<double*>(total.get()));
    return timer.stop();
  };
  read(1);  // brings the buffer into L2 where it fits there
  double best = 0;
  for (int trial = 0; trial < 3; ++trial) best = std::max(best, 16.0 * static_cast<double>(n) * passes / read(passes));
  double sum = 0;
  total.download(&sum, sizeof sum);  // the last launch's
  if (sum != 4.0 * static_cast<double>(n) * passes) throw std::runtime_error("read_rate: wrong sum");
  return best;
}

double write_rate(std::int64_t bytes) {
  DeviceBuffer data(static_cast<std::size_t>(bytes));
  DeviceTimer timer;
  cudaStream_t s = as_stream(timer.stream());
  double best = 0;
  unsigned char value = 0;
  for (int trial = 0; trial < 4; ++trial) {  // the first one also maps the pages in
    value = static_cast<unsigned char>(0x3c + trial);
    timer.start();
    check(cudaMemsetAsync(data.get(), value, static_cast<std::size_t>(bytes), s), "cudaMemsetAsync");
    best = std::max(best, static_cast<double>(bytes) / timer.stop());
  }
  unsigned char last = 0;  // the last fill reached the buffer's end
  check(cudaMemcpy(&last, static_cast<const unsigned char*>(data.get()) + bytes - 1, 1, cudaMemcpyDeviceToHost), "cudaMemcpy");
  if (last != value) throw std::runtime_error("write_rate: the fill did not reach the end of the buffer");
  return best;
}

template <class T>
double sum_on_device(const T* data, std::int64_t n) {
  DeviceBuffer total(sizeof(double));
  check(cudaMemset(total.get(), 0, sizeof(double)), "cudaMemset");
  sum_kernel<T><<<grid_for(n), kThreads>>>(data, n, static_cast<double*>(total.get()));
  double s = 0;
  total.download(&s, sizeof s);
  return s;
}
double device_sum(const float* data, std::int64_t n) { return sum_on_device(data, n); }
double device_sum(const double* data, std::int64_t n) { return sum_on_device(data, n); }
double device_sum_f16(const void* data, std::int64_t n) { return sum_on_device(static_cast<const __half*>(data), n); }

}  // namespace ladder::cuda
