// The model's forward pass, once, for every backend. Two policies make a backend:
//  - Ops: where the numbers live (Ops::Array: host vectors or device memory), in what type
//    (Ops::Real: double for the reference, float otherwise), and the element-wise operations
//    (softmax, soft-argmax, LayerNorm, GELU, bias and residual adds);
//  - Gemm: how a matrix product is done (plain loops, OpenBLAS, oneDNN bf16, cuBLAS).
// Every operation is timed into `times` by its type; Ops::sync() waits for a device first.
#pragma once
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

#include "model.hpp"

namespace ladder::model {

struct OpTimes {
  double seconds[kOps] = {};
};

// Times the enclosing block into times.seconds[op], after the work it enqueued has finished.
template <class Ops>
class OpScope {
 public:
  OpScope(const Ops& ops, OpTimes& times, Op op) : ops_(ops), times_(times), op_(op), start_(std::chrono::steady_clock::now()) {}
  ~OpScope() {
    ops_.sync();
    times_.seconds[static_cast<int>(op_)] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  const Ops& ops_;
  OpTimes& times_;
  Op op_;
  std::chrono::steady_clock::time_point start_;
};

// Element-wise operations as plain scalar loops on host vectors: the reference (T = double,
// one core) and the naive backend (float, one core). `parallel` spreads rows over OpenMP threads.
template <class T>
struct ScalarOps {
  using Real = T;
  using Array = std::vector<T>;
  bool parallel = false;

  Array make(std::size_t count) const { return Array(count); }
  Array upload(const std::vector<float>& v) const { return Array(v.begin(), v.end()); }
  std::vector<float> download(const Array& a) const { return std::vector<float>(a.begin(), a.end()); }
  void sync() const {}

  // Each row of m (rows x cols) replaced by its softmax.
  void softmax_rows(T* m, std::int64_t rows, std::int64_t cols) const {
#pragma omp parallel for if (parallel) schedule(static)
    for (std::int64_t r = 0; r < rows; ++r) {
      T* row = m + r * cols;
      T max = row[0];
      for (std::int64_t j = 1; j < cols; ++j) max = row[j] > max ? row[j] : max;
      T sum = 0;
      for (std::int64_t j = 0; j < cols; ++j) sum += row[j] = std::exp(row[j] - max);
      const T inverse = T(1) / sum;
      for (std::int64_t j = 0; j < cols; ++j) row[j] *= inverse;
    }
  }

  // flow[2p], flow[2p+1]: the expected (x, y) under row p of probs (L x L, pixels W wide),
  // minus pixel p's own position.
  void soft_argmax(const T* probs, std::int64_t L, std::int64_t W, T* flow) const {
#pragma omp parallel for if (parallel) schedule(static)
    for (std::int64_t p = 0; p < L; ++p) {
      T mx = 0, my = 0;
      const T* row = probs + p * L;
      for (std::int64_t q = 0; q < L; ++q) {
        mx += row[q] * T(q % W);
        const std::int64_t y = q / W;  // the pixel's row
        my += row[q] * T(y);
      }
      flow[2 * p] = mx - T(p % W);
      const std::int64_t y = p / W;
      flow[2 * p + 1] = my - T(y);
    }
  }

  // out (cols x rows) = in (rows x cols) transposed: channel-major features to token rows.
  void transpose(const T* in, std::int64_t rows, std::int64_t cols, T* out) const {
#pragma omp parallel for if (parallel) schedule(static)
    for (std::int64_t c = 0; c < cols; ++c)
      for (std::int64_t r = 0; r < rows; ++r) out[c * rows + r] = in[r * cols + c];
  }

  void layernorm(const T* in, T* out, const T* gamma, const T* beta, std::int64_t rows, std::int64_t cols) const {
#pragma omp parallel for if (parallel) schedule(static)
    for (std::int64_t r = 0; r < rows; ++r) {
      const T* x = in + r * cols;
      T mean = 0, var = 0;
      for (std::int64_t j = 0; j < cols; ++j) mean += x[j];
      mean /= T(cols);
      for (std::int64_t j = 0; j < cols; ++j) var += (x[j] - mean) * (x[j] - mean);
      const T scale = T(1) / std::sqrt(var / T(cols) + T(1e-5));
      for (std::int64_t j = 0; j < cols; ++j) out[r * cols + j] = (x[j] - mean) * scale * gamma[j] + beta[j];
    }
  }

  void add_bias(T* out, const T* bias, std::int64_t rows, std::int64_t cols) const {
#pragma omp parallel for if (parallel) schedule(static)
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = 0; j < cols; ++j) out[r * cols + j] += bias[j];
  }

  void gelu(T* v, std::int64_t count) const {  // the tanh approximation
    const T k = std::sqrt(T(2) / T(3.14159265358979323846));
#pragma omp parallel for if (parallel) schedule(static)
    for (std::int64_t i = 0; i < count; ++i)
      v[i] = T(0.5) * v[i] * (T(1) + std::tanh(k * (v[i] + T(0.044715) * v[i] * v[i] * v[i])));
  }

  void add_into(T* x, const T* y, std::int64_t count) const {
#pragma omp parallel for if (parallel) schedule(static)
    for (std::int64_t i = 0; i < count; ++i) x[i] += y[i];
  }
};

// Row-major C = alpha·op(A)·op(B) + beta·C by plain loops (the naive and reference backends).
struct LoopGemm {
  bool parallel = false;
  template <class T>
  void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a, std::int64_t lda,
            const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc) const {
#pragma omp parallel for if (parallel) schedule(static)
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        T sum = 0;
        for (std::int64_t p = 0; p < k; ++p)
          sum += (trans_a ? a[p * lda + i] : a[i * lda + p]) * (trans_b ? b[j * ldb + p] : b[p * ldb + j]);
        c[i * ldc + j] = alpha * sum + (beta == T(0) ? T(0) : beta * c[i * ldc + j]);
      }
  }
};

// A Gemm policy may say `static constexpr bool kConcurrentCalls = true`: its calls may run from
// several threads at once, each then single-threaded (OpenBLAS's OpenMP build does so inside a
// parallel region). The attention heads' GEMMs, thin (head_dim wide), then run one head per
// thread instead of each head split across all threads, where there are at least as many heads
// as threads: 1.3-1.4x faster on `medium` on two cores.
template <class Gemm>
constexpr bool concurrent_calls() {
  if constexpr (requires { Gemm::kConcurrentCalls; }) return Gemm::kConcurrentCalls;
  return false;
}

template <class Ops, class Gemm>
class Forward {
 public:
  using T = typename Ops::Real;
  using Array = typename Ops::Array;

  // Weights and inputs are placed where the backend computes once, here; run() is the pass.
  Forward(const Config& c, const Weights& w, const Inputs& in, Ops ops, Gemm gemm)
      : c_(c), ops_(std::move(ops)), gemm_(std::move(gemm)) {
    for (const auto& l : w.layers)
      layers_.push_back({up(l.ln1_gamma), up(l.ln1_beta), up(l.w_qkv), up(l.b_qkv), up(l.w_out), up(l.b_out), up(l.ln2_gamma),
                         up(l.ln2_beta), up(l.w_mlp1), up(l.b_mlp1), up(l.w_mlp2), up(l.b_mlp2)});
    w_head_ = up(w.w_head);
    b_head_ = up(w.b_head);
    f1_ = up(in.f1);
    f2_ = up(in.f2);
    const std::int64_t L = c.tokens(), C = c.channels;
    corr_ = ops_.make(L * L);
    scores_ = ops_.make(static_cast<std::size_t>(c.heads) * L * L);
    x_ = ops_.make(L * C);
    h_ = ops_.make(L * C);
    qkv_ = ops_.make(L * 3 * C);
    attn_ = ops_.make(L * C);
    tmp_ = ops_.make(L * C);
    mlp_ = ops_.make(L * 4 * C);
    flow_ = ops_.make(2 * L);
    head_ = ops_.make(L * kHeadOutputs);
    // A policy that converts GEMM operands (to bf16 or f16) gets its buffer now, so that no pass
    // allocates and the footprint check before allocating covers it.
    if constexpr (requires { gemm_.reserve_operands(std::int64_t{}); })
      gemm_.reserve_operands(static_cast<std::int64_t>(gemm_operand_elements(c)));
  }

  void run(Output& out, OpTimes& times) {
    const std::int64_t L = c_.tokens(), C = c_.channels, heads = c_.heads, dh = c_.head_dim();
    {  // corr[p][q] = <f1[:, p], f2[:, q]> / sqrt(C): f1 is C x L, so A = f1 transposed
      OpScope s(ops_, times, Op::corr_gemm);
      gemm_.gemm(true, false, L, L, C, T(1) / std::sqrt(T(C)), f1_.data(), L, f2_.data(), L, T(0), corr_.data(), L);
    }
    {
      OpScope s(ops_, times, Op::corr_softmax);
      ops_.softmax_rows(corr_.data(), L, L);
    }
    {  // the expected match position under each row's distribution, minus the pixel's own
      OpScope s(ops_, times, Op::soft_argmax);
      ops_.soft_argmax(corr_.data(), L, c_.width, flow_.data());
    }
    {  // the tokens: f1's pixels as rows (the residual stream starts here)
      OpScope s(ops_, times, Op::residual);
      ops_.transpose(f1_.data(), C, L, x_.data());
    }
    for (const auto& l : layers_) {
      layernorm(x_, h_, l.ln1_gamma, l.ln1_beta, times);
      linear(h_, l.w_qkv, l.b_qkv, qkv_, C, 3 * C, Op::qkv_gemm, times);
      {
        OpScope s(ops_, times, Op::attn_scores);
        for_each_head([&](std::int64_t hd) {
          gemm_.gemm(false, true, L, L, dh, T(1) / std::sqrt(T(dh)), qkv_.data() + hd * dh, 3 * C, qkv_.data() + C + hd * dh,
                     3 * C, T(0), scores_.data() + hd * L * L, L);
        });
      }
      {
        OpScope s(ops_, times, Op::attn_softmax);
        ops_.softmax_rows(scores_.data(), heads * L, L);
      }
      {
        OpScope s(ops_, times, Op::attn_values);
        for_each_head([&](std::int64_t hd) {
          gemm_.gemm(false, false, L, dh, L, T(1), scores_.data() + hd * L * L, L, qkv_.data() + 2 * C + hd * dh, 3 * C, T(0),
                     attn_.data() + hd * dh, C);
        });
      }
      linear(attn_, l.w_out, l.b_out, tmp_, C, C, Op::out_gemm, times);
      add_into(x_, tmp_, times);
      layernorm(x_, h_, l.ln2_gamma, l.ln2_beta, times);
      linear(h_, l.w_mlp1, l.b_mlp1, mlp_, C, 4 * C, Op::mlp_gemm, times);
      {
        OpScope s(ops_, times, Op::gelu);
        ops_.gelu(mlp_.data(), L * 4 * C);
      }
      linear(mlp_, l.w_mlp2, l.b_mlp2, tmp_, 4 * C, C, Op::mlp_gemm, times);
      add_into(x_, tmp_, times);
    }
    linear(x_, w_head_, b_head_, head_, C, kHeadOutputs, Op::head_gemm, times);
    out.flow = ops_.download(flow_);
    out.head = ops_.download(head_);
  }

  // What the pass holds, in bytes: footprint_bytes() counts the same buffers.
  double allocated_bytes() const {
    double count = 0;
    for (const auto& l : layers_)
      for (const Array* a : {&l.ln1_gamma, &l.ln1_beta, &l.w_qkv, &l.b_qkv, &l.w_out, &l.b_out, &l.ln2_gamma, &l.ln2_beta,
                             &l.w_mlp1, &l.b_mlp1, &l.w_mlp2, &l.b_mlp2})
        count += static_cast<double>(a->size());
    for (const Array* a :
         {&w_head_, &b_head_, &f1_, &f2_, &corr_, &scores_, &x_, &h_, &qkv_, &attn_, &tmp_, &mlp_, &flow_, &head_})
      count += static_cast<double>(a->size());
    double operands = 0;
    if constexpr (requires { gemm_.operand_bytes(); }) operands = gemm_.operand_bytes();
    return count * sizeof(T) + operands;
  }

  const Ops& ops() const { return ops_; }
  const Gemm& gemm_policy() const { return gemm_; }

 private:
  struct Layer {
    Array ln1_gamma, ln1_beta, w_qkv, b_qkv, w_out, b_out, ln2_gamma, ln2_beta, w_mlp1, b_mlp1, w_mlp2, b_mlp2;
  };

  Array up(const std::vector<float>& v) const { return ops_.upload(v); }

  // One call per head: a head per thread where the Gemm policy allows it and there are at least
  // as many heads as threads (8 heads on 64 cores would leave 56 idle). Otherwise plain calls,
  // each on all threads, outside any OpenMP region (an inactive one makes OpenBLAS use one).
  template <class PerHead>
  void for_each_head(PerHead per_head) const {
    if constexpr (concurrent_calls<Gemm>()) {
      bool now = true;
      if constexpr (requires { Gemm::concurrent_now(); }) now = Gemm::concurrent_now();
      if (now && c_.heads >= omp_get_max_threads()) {
#pragma omp parallel for schedule(static)
        for (std::int64_t hd = 0; hd < c_.heads; ++hd) per_head(hd);
        return;
      }
    }
    for (std::int64_t hd = 0; hd < c_.heads; ++hd) per_head(hd);
  }

  void layernorm(const Array& in, Array& out, const Array& gamma, const Array& beta, OpTimes& times) const {
    OpScope s(ops_, times, Op::layernorm);
    ops_.layernorm(in.data(), out.data(), gamma.data(), beta.data(), c_.tokens(), c_.channels);
  }

  // out (L x n) = in (L x k) · w (k x n) + bias
  void linear(const Array& in, const Array& w, const Array& bias, Array& out, std::int64_t k, std::int64_t n, Op op,
              OpTimes& times) const {
    OpScope s(ops_, times, op);
    gemm_.gemm(false, false, c_.tokens(), n, k, T(1), in.data(), k, w.data(), n, T(0), out.data(), n);
    ops_.add_bias(out.data(), bias.data(), c_.tokens(), n);
  }

  void add_into(Array& x, const Array& y, OpTimes& times) const {
    OpScope s(ops_, times, Op::residual);
    ops_.add_into(x.data(), y.data(), c_.tokens() * c_.channels);
  }

  Config c_;
  Ops ops_;
  Gemm gemm_;
  std::vector<Layer> layers_;
  Array w_head_, b_head_, f1_, f2_, corr_, scores_, x_, h_, qkv_, attn_, tmp_, mlp_, flow_, head_;
};

}  // namespace ladder::model
