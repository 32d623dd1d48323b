// The model's forward pass, once, for every CPU backend: T is the number type (double for the
// reference, float otherwise) and Exec the execution policy: how a GEMM is done and whether the
// element-wise operations run on all cores. Every operation is timed into `times` by its type.
#pragma once
#include <chrono>
#include <cmath>
#include <vector>

#include "model.hpp"

namespace ladder::model {

struct OpTimes {
  double seconds[kOps] = {};
};

// Times the enclosing block into times.seconds[op].
class OpScope {
 public:
  OpScope(OpTimes& times, Op op) : times_(times), op_(op), start_(std::chrono::steady_clock::now()) {}
  ~OpScope() {
    times_.seconds[static_cast<int>(op_)] +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  OpTimes& times_;
  Op op_;
  std::chrono::steady_clock::time_point start_;
};

// Row-major C = alpha·op(A)·op(B) + beta·C by plain loops (the naive and reference backends).
struct LoopGemm {
  bool parallel = false;
  template <class T>
  void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a,
            std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc) const {
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

template <class T, class Exec>
class Forward {
 public:
  Forward(const Config& c, const Weights& w, const Exec& exec) : c_(c), exec_(exec) {
    auto convert = [](const std::vector<float>& v) { return std::vector<T>(v.begin(), v.end()); };
    for (const auto& l : w.layers)
      layers_.push_back({convert(l.ln1_gamma), convert(l.ln1_beta), convert(l.w_qkv), convert(l.b_qkv), convert(l.w_out),
                         convert(l.b_out), convert(l.ln2_gamma), convert(l.ln2_beta), convert(l.w_mlp1), convert(l.b_mlp1),
                         convert(l.w_mlp2), convert(l.b_mlp2)});
    w_head_ = convert(w.w_head);
    b_head_ = convert(w.b_head);
    const std::int64_t L = c.tokens(), C = c.channels;
    corr_.resize(L * L);
    x_.resize(L * C);
    h_.resize(L * C);
    qkv_.resize(L * 3 * C);
    scores_.resize(static_cast<std::size_t>(c.heads) * L * L);
    attn_.resize(L * C);
    tmp_.resize(L * C);
    mlp_.resize(L * 4 * C);
  }

  void run(const Inputs& in, Output& out, OpTimes& times) {
    const std::int64_t L = c_.tokens(), C = c_.channels, heads = c_.heads, dh = c_.head_dim();
    const std::vector<T> f1(in.f1.begin(), in.f1.end()), f2(in.f2.begin(), in.f2.end());
    const bool par = exec_.parallel;
    {  // corr[p][q] = <f1[:, p], f2[:, q]> / sqrt(C): f1 is C x L, so A = f1 transposed
      OpScope s(times, Op::corr_gemm);
      exec_.gemm(true, false, L, L, C, T(1) / std::sqrt(T(C)), f1.data(), L, f2.data(), L, T(0), corr_.data(), L);
    }
    {
      OpScope s(times, Op::corr_softmax);
      softmax_rows(corr_.data(), L, L);
    }
    {  // the expected match position under each row's distribution, minus the pixel's own
      OpScope s(times, Op::soft_argmax);
      out.flow.assign(2 * L, 0.0f);
      const std::int64_t W = c_.width;
#pragma omp parallel for if (par) schedule(static)
      for (std::int64_t p = 0; p < L; ++p) {
        T mx = 0, my = 0;
        const T* row = corr_.data() + p * L;
        for (std::int64_t q = 0; q < L; ++q) {
          mx += row[q] * T(q % W);
          my += row[q] * T(q / W);
        }
        out.flow[2 * p] = static_cast<float>(mx - T(p % W));
        out.flow[2 * p + 1] = static_cast<float>(my - T(p / W));
      }
    }
    {  // the tokens: f1's pixels as rows (the residual stream starts here)
      OpScope s(times, Op::residual);
      for (std::int64_t ch = 0; ch < C; ++ch)
        for (std::int64_t p = 0; p < L; ++p) x_[p * C + ch] = f1[ch * L + p];
    }
    for (const auto& l : layers_) {
      layernorm(x_.data(), h_.data(), l.ln1_gamma.data(), l.ln1_beta.data(), L, C, times);
      linear(h_.data(), l.w_qkv.data(), l.b_qkv.data(), qkv_.data(), L, C, 3 * C, Op::qkv_gemm, times);
      {
        OpScope s(times, Op::attn_scores);
        for (std::int64_t hd = 0; hd < heads; ++hd)
          exec_.gemm(false, true, L, L, dh, T(1) / std::sqrt(T(dh)), qkv_.data() + hd * dh, 3 * C,
                     qkv_.data() + C + hd * dh, 3 * C, T(0), scores_.data() + hd * L * L, L);
      }
      {
        OpScope s(times, Op::attn_softmax);
        softmax_rows(scores_.data(), heads * L, L);
      }
      {
        OpScope s(times, Op::attn_values);
        for (std::int64_t hd = 0; hd < heads; ++hd)
          exec_.gemm(false, false, L, dh, L, T(1), scores_.data() + hd * L * L, L, qkv_.data() + 2 * C + hd * dh, 3 * C, T(0),
                     attn_.data() + hd * dh, C);
      }
      linear(attn_.data(), l.w_out.data(), l.b_out.data(), tmp_.data(), L, C, C, Op::out_gemm, times);
      add_into(x_.data(), tmp_.data(), L * C, times);
      layernorm(x_.data(), h_.data(), l.ln2_gamma.data(), l.ln2_beta.data(), L, C, times);
      linear(h_.data(), l.w_mlp1.data(), l.b_mlp1.data(), mlp_.data(), L, C, 4 * C, Op::mlp_gemm, times);
      gelu(mlp_.data(), L * 4 * C, times);
      linear(mlp_.data(), l.w_mlp2.data(), l.b_mlp2.data(), tmp_.data(), L, 4 * C, C, Op::mlp_gemm, times);
      add_into(x_.data(), tmp_.data(), L * C, times);
    }
    std::vector<T> head(L * kHeadOutputs);
    linear(x_.data(), w_head_.data(), b_head_.data(), head.data(), L, C, kHeadOutputs, Op::head_gemm, times);
    out.head.assign(head.begin(), head.end());
  }

 private:
  struct Layer {
    std::vector<T> ln1_gamma, ln1_beta, w_qkv, b_qkv, w_out, b_out, ln2_gamma, ln2_beta, w_mlp1, b_mlp1, w_mlp2, b_mlp2;
  };

  void softmax_rows(T* m, std::int64_t rows, std::int64_t cols) const {
#pragma omp parallel for if (exec_.parallel) schedule(static)
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

  void layernorm(const T* in, T* out, const T* gamma, const T* beta, std::int64_t rows, std::int64_t cols, OpTimes& times) const {
    OpScope s(times, Op::layernorm);
#pragma omp parallel for if (exec_.parallel) schedule(static)
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

  // out (rows x n) = in (rows x k) · w (k x n) + bias
  void linear(const T* in, const T* w, const T* bias, T* out, std::int64_t rows, std::int64_t k, std::int64_t n, Op op,
              OpTimes& times) const {
    OpScope s(times, op);
    exec_.gemm(false, false, rows, n, k, T(1), in, k, w, n, T(0), out, n);
#pragma omp parallel for if (exec_.parallel) schedule(static)
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = 0; j < n; ++j) out[r * n + j] += bias[j];
  }

  void gelu(T* v, std::int64_t count, OpTimes& times) const {  // the tanh approximation
    OpScope s(times, Op::gelu);
    const T k = std::sqrt(T(2) / T(3.14159265358979323846));
#pragma omp parallel for if (exec_.parallel) schedule(static)
    for (std::int64_t i = 0; i < count; ++i) v[i] = T(0.5) * v[i] * (T(1) + std::tanh(k * (v[i] + T(0.044715) * v[i] * v[i] * v[i])));
  }

  void add_into(T* x, const T* y, std::int64_t count, OpTimes& times) const {
    OpScope s(times, Op::residual);
#pragma omp parallel for if (exec_.parallel) schedule(static)
    for (std::int64_t i = 0; i < count; ++i) x[i] += y[i];
  }

  Config c_;
  Exec exec_;
  std::vector<Layer> layers_;
  std::vector<T> w_head_, b_head_, corr_, x_, h_, qkv_, scores_, attn_, tmp_, mlp_;
};

}  // namespace ladder::model
