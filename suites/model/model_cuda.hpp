// The model on an NVIDIA GPU: the policies Forward<Ops, Gemm> needs (forward.hpp), callable
// from plain C++. Changed from the `cpu` backend: the same pass on thousands of GPU threads and
// the GPU's own memory; why faster: a GPU's FMA rate and memory bandwidth are 10-100x a small
// CPU's (and TF32/f16 tensor cores multiply again for the GEMMs), once the work is large enough
// to hide a launch (~5 us) per operation. Every number lives in device memory; weights and inputs are copied there once,
// and a pass brings back only the flow and the head's outputs. The GEMMs go to cuBLAS in f32,
// TF32 (tensor cores, f32 data) or f16 (operands rounded to f16 as they are packed, f32
// accumulation); softmax, soft-argmax, LayerNorm, GELU, bias and residual adds are CUDA kernels
// (model_cuda.cu). All work goes to one stream; sync() waits for it, so each operation's time is
// its own (the per-operation timing costs one synchronisation per operation).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

namespace ladder::model::gpu {

// The stream, the cuBLAS handle and the f16 packing scratch one pass shares.
struct Context;
std::shared_ptr<Context> make_context();

class DeviceArray {
 public:
  DeviceArray() = default;
  DeviceArray(std::shared_ptr<float> memory, std::size_t size) : memory_(std::move(memory)), size_(size) {}
  float* data() const { return memory_.get(); }
  std::size_t size() const { return size_; }

 private:
  std::shared_ptr<float> memory_;
  std::size_t size_ = 0;
};

struct CudaOps {
  using Real = float;
  using Array = DeviceArray;
  std::shared_ptr<Context> context;

  Array make(std::size_t count) const;
  Array upload(const std::vector<float>& v) const;
  std::vector<float> download(const Array& a) const;
  void sync() const;

  void softmax_rows(float* m, std::int64_t rows, std::int64_t cols) const;
  void soft_argmax(const float* probs, std::int64_t L, std::int64_t W, float* flow) const;
  void transpose(const float* in, std::int64_t rows, std::int64_t cols, float* out) const;
  void layernorm(const float* in, float* out, const float* gamma, const float* beta, std::int64_t rows, std::int64_t cols) const;
  void add_bias(float* out, const float* bias, std::int64_t rows, std::int64_t cols) const;
  void gelu(float* v, std::int64_t count) const;
  void add_into(float* x, const float* y, std::int64_t count) const;
};

enum class GemmMode { f32, tf32, f16 };

// Row-major C = alpha·op(A)·op(B) + beta·C on device pointers, through cuBLAS.
struct CublasGemm {
  std::shared_ptr<Context> context;
  GemmMode mode = GemmMode::f32;
  void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
            std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc) const;
  // f16 mode: the device buffer both operands are packed into (nothing in the other modes).
  void reserve_operands(std::int64_t elements) const;
  double operand_bytes() const;
};

}  // namespace ladder::model::gpu
