// The model's CUDA kernels and cuBLAS calls (the policies declared in model_cuda.hpp). Row
// operations (softmax, soft-argmax, LayerNorm) give each row one block of 256 threads, which
// stride over the row and meet in a block reduction; element-wise ones are grid-stride loops.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "cuda/cuda_device.hpp"
#include "model_cuda.hpp"
#include "row_math.hpp"

namespace ladder::model::gpu {

struct Context {
  cudaStream_t stream = nullptr;
  cublasHandle_t handle = nullptr;
  __half* scratch = nullptr;  // f16 mode: both operands packed, grown as needed
  std::size_t scratch_count = 0;
  ~Context() {
    if (scratch) cudaFree(scratch);
    if (handle) cublasDestroy(handle);
    if (stream) cudaStreamDestroy(stream);
  }
};

namespace {

constexpr int kThreads = 256;

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": " + cublasGetStatusString(status));
}

void check_launch(const char* what) { cuda::check(cudaGetLastError(), what); }

int blocks_for(std::int64_t count) {
  const std::int64_t wanted = (count + kThreads - 1) / kThreads;
  return static_cast<int>(wanted < 65535 ? (wanted > 0 ? wanted : 1) : 65535);
}

// The sum (or max) of one value per thread, in every thread of the block.
template <class Combine>
__device__ float block_reduce(float value, Combine combine) {
  __shared__ float partial[kThreads / 32];
  for (int offset = 16; offset > 0; offset /= 2) value = combine(value, __shfl_xor_sync(0xffffffffu, value, offset));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();  // partial[] may still be read from a previous reduction
  if (lane == 0) partial[warp] = value;
  __syncthreads();
  value = partial[0];
  for (int w = 1; w < kThreads / 32; ++w) value = combine(value, partial[w]);
  return value;
}

struct Add {
  __device__ float operator()(float a, float b) const { return a + b; }
};
struct Max {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

__global__ void softmax_rows_kernel(float* m, std::int64_t cols) {
  float* row = m + blockIdx.x * cols;
  float max = -INFINITY;
  for (std::int64_t j = threadIdx.x; j < cols; j += kThreads) max = fmaxf(max, row[j]);
  max = block_reduce(max, Max{});
  float sum = 0;
  for (std::int64_t j = threadIdx.x; j < cols; j += kThreads) sum += row[j] = expf(row[j] - max);
  const float inverse = 1.0f / block_reduce(sum, Add{});
  for (std::int64_t j = threadIdx.x; j < cols; j += kThreads) row[j] *= inverse;
}

__global__ void soft_argmax_kernel(const float* probs, std::int64_t L, std::int64_t W, float* flow) {
  const std::int64_t p = blockIdx.x;
  const float* row = probs + p * L;
  float mx = 0, my = 0;
  for (std::int64_t q = threadIdx.x; q < L; q += kThreads) {
    mx += row[q] * pixel_x(q, W);
    my += row[q] * pixel_y(q, W);
  }
  mx = block_reduce(mx, Add{});
  my = block_reduce(my, Add{});
  if (threadIdx.x == 0) {
    flow[2 * p] = mx - pixel_x(p, W);
    flow[2 * p + 1] = my - pixel_y(p, W);
  }
}

// 32x32 tiles through shared memory, so that both the reads and the writes are coalesced.
__global__ void transpose_kernel(const float* in, std::int64_t rows, std::int64_t cols, float* out) {
  __shared__ float tile[32][33];
  const std::int64_t r0 = static_cast<std::int64_t>(blockIdx.y) * 32, c0 = static_cast<std::int64_t>(blockIdx.x) * 32;
  for (int i = threadIdx.y; i < 32; i += 8)
    if (r0 + i < rows && c0 + threadIdx.x < cols) tile[i][threadIdx.x] = in[(r0 + i) * cols + c0 + threadIdx.x];
  __syncthreads();
  for (int i = threadIdx.y; i < 32; i += 8)
    if (c0 + i < cols && r0 + threadIdx.x < rows) out[(c0 + i) * rows + r0 + threadIdx.x] = tile[threadIdx.x][i];
}

__global__ void layernorm_kernel(const float* in, float* out, const float* gamma, const float* beta, std::int64_t cols) {
  const float* x = in + blockIdx.x * cols;
  float* y = out + blockIdx.x * cols;
  float sum = 0;
  for (std::int64_t j = threadIdx.x; j < cols; j += kThreads) sum += x[j];
  const float mean = block_reduce(sum, Add{}) / static_cast<float>(cols);
  float var = 0;
  for (std::int64_t j = threadIdx.x; j < cols; j += kThreads) var += (x[j] - mean) * (x[j] - mean);
  const float scale = rsqrtf(block_reduce(var, Add{}) / static_cast<float>(cols) + 1e-5f);
  for (std::int64_t j = threadIdx.x; j < cols; j += kThreads) y[j] = (x[j] - mean) * scale * gamma[j] + beta[j];
}

__global__ void add_bias_kernel(float* out, const float* bias, std::int64_t count, std::int64_t cols) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * kThreads)
    out[i] += bias[i % cols];
}

__global__ void gelu_kernel(float* v, std::int64_t count) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * kThreads)
    v[i] = gelu_tanh(v[i]);
}

__global__ void add_into_kernel(float* x, const float* y, std::int64_t count) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * kThreads)
    x[i] += y[i];
}

// dst (rows x cols, packed) = src (rows x cols with leading dimension ld), rounded to f16.
__global__ void pack_f16_kernel(const float* src, std::int64_t rows, std::int64_t cols, std::int64_t ld, __half* dst) {
  const std::int64_t count = rows * cols;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * kThreads)
    dst[i] = __float2half_rn(src[(i / cols) * ld + i % cols]);
}

}  // namespace

std::shared_ptr<Context> make_context() {
  auto c = std::make_shared<Context>();
  cuda::check(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking), "cudaStreamCreate");
  check_cublas(cublasCreate(&c->handle), "cublasCreate");
  check_cublas(cublasSetStream(c->handle, c->stream), "cublasSetStream");
  return c;
}

CudaOps::Array CudaOps::make(std::size_t count) const {
  void* raw = nullptr;
  cuda::check(cudaMalloc(&raw, count * sizeof(float) + (count == 0)), "cudaMalloc");
  return Array(std::shared_ptr<float>(static_cast<float*>(raw), [](float* p) { cudaFree(p); }), count);
}

CudaOps::Array CudaOps::upload(const std::vector<float>& v) const {
  Array a = make(v.size());
  cuda::check(cudaMemcpyAsync(a.data(), v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice, context->stream),
              "cudaMemcpyAsync (upload)");
  sync();  // v may go away once we return
  return a;
}

std::vector<float> CudaOps::download(const Array& a) const {
  std::vector<float> v(a.size());
  cuda::check(cudaMemcpyAsync(v.data(), a.data(), v.size() * sizeof(float), cudaMemcpyDeviceToHost, context->stream),
              "cudaMemcpyAsync (download)");
  sync();
  return v;
}

void CudaOps::sync() const { cuda::check(cudaStreamSynchronize(context->stream), "cudaStreamSynchronize"); }

void CudaOps::softmax_rows(float* m, std::int64_t rows, std::int64_t cols) const {
  softmax_rows_kernel<<<static_cast<unsigned>(rows), kThreads, 0, context->stream>>>(m, cols);
  check_launch("softmax_rows_kernel");
}

void CudaOps::soft_argmax(const float* probs, std::int64_t L, std::int64_t W, float* flow) const {
  soft_argmax_kernel<<<static_cast<unsigned>(L), kThreads, 0, context->stream>>>(probs, L, W, flow);
  check_launch("soft_argmax_kernel");
}

void CudaOps::transpose(const float* in, std::int64_t rows, std::int64_t cols, float* out) const {
  const dim3 grid(static_cast<unsigned>((cols + 31) / 32), static_cast<unsigned>((rows + 31) / 32)), block(32, 8);
  transpose_kernel<<<grid, block, 0, context->stream>>>(in, rows, cols, out);
  check_launch("transpose_kernel");
}

void CudaOps::layernorm(const float* in, float* out, const float* gamma, const float* beta, std::int64_t rows,
                        std::int64_t cols) const {
  layernorm_kernel<<<static_cast<unsigned>(rows), kThreads, 0, context->stream>>>(in, out, gamma, beta, cols);
  check_launch("layernorm_kernel");
}

void CudaOps::add_bias(float* out, const float* bias, std::int64_t rows, std::int64_t cols) const {
  add_bias_kernel<<<blocks_for(rows * cols), kThreads, 0, context->stream>>>(out, bias, rows * cols, cols);
  check_launch("add_bias_kernel");
}

void CudaOps::gelu(float* v, std::int64_t count) const {
  gelu_kernel<<<blocks_for(count), kThreads, 0, context->stream>>>(v, count);
  check_launch("gelu_kernel");
}

void CudaOps::add_into(float* x, const float* y, std::int64_t count) const {
  add_into_kernel<<<blocks_for(count), kThreads, 0, context->stream>>>(x, y, count);
  check_launch("add_into_kernel");
}

void CublasGemm::gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
                      std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc) const {
  const ColumnMajorCall call = column_major_call(trans_a, trans_b, m, n, k);
  const cublasOperation_t op_first = call.trans_first ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_second = call.trans_second ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int cm = static_cast<int>(call.m), cn = static_cast<int>(call.n), ck = static_cast<int>(call.k);
  cublasHandle_t h = context->handle;
  if (mode != GemmMode::f16) {
    const cublasComputeType_t compute = mode == GemmMode::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    check_cublas(cublasGemmEx(h, op_first, op_second, cm, cn, ck, &alpha, b, CUDA_R_32F, static_cast<int>(ldb), a, CUDA_R_32F,
                              static_cast<int>(lda), &beta, c, CUDA_R_32F, static_cast<int>(ldc), compute, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
    return;
  }
  // f16: each operand packed and rounded (the conversion is part of the operation's time).
  const std::int64_t a_rows = trans_a ? k : m, a_cols = trans_a ? m : k;
  const std::int64_t b_rows = trans_b ? n : k, b_cols = trans_b ? k : n;
  if (context->scratch_count < static_cast<std::size_t>(a_rows * a_cols + b_rows * b_cols))
    reserve_operands(a_rows * a_cols + b_rows * b_cols);
  __half* a16 = context->scratch;
  __half* b16 = context->scratch + a_rows * a_cols;
  pack_f16_kernel<<<blocks_for(a_rows * a_cols), kThreads, 0, context->stream>>>(a, a_rows, a_cols, lda, a16);
  pack_f16_kernel<<<blocks_for(b_rows * b_cols), kThreads, 0, context->stream>>>(b, b_rows, b_cols, ldb, b16);
  check_launch("pack_f16_kernel");
  check_cublas(cublasGemmEx(h, op_first, op_second, cm, cn, ck, &alpha, b16, CUDA_R_16F, static_cast<int>(b_cols), a16,
                            CUDA_R_16F, static_cast<int>(a_cols), &beta, c, CUDA_R_32F, static_cast<int>(ldc), CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT),
               "cublasGemmEx (f16)");
}

void CublasGemm::reserve_operands(std::int64_t elements) const {
  const std::size_t needed = static_cast<std::size_t>(elements);
  if (mode != GemmMode::f16 || context->scratch_count >= needed) return;
  // Wait until no queued GEMM reads the old buffer.
  cuda::check(cudaStreamSynchronize(context->stream), "cudaStreamSynchronize");
  if (context->scratch) cudaFree(context->scratch);
  context->scratch = nullptr;
  context->scratch_count = 0;
  cuda::check(cudaMalloc(&context->scratch, needed * sizeof(__half)), "cudaMalloc (f16 scratch)");
  context->scratch_count = needed;
}

double CublasGemm::operand_bytes() const { return static_cast<double>(context->scratch_count * sizeof(__half)); }

}  // namespace ladder::model::gpu
