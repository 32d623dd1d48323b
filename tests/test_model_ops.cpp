// The model's operations one at a time: each element-wise operation of the CPU backends (vectorised
// and scalar) and of the CUDA kernels against double loops, the GELU formula, and the column-major
// call that cuBLAS is given.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "model/row_math.hpp"
#include "model/vector_ops.hpp"
#ifdef LADDER_HAVE_CUDA
#include "cuda/cuda_device.hpp"
#include "model/model_cuda.hpp"
#endif

namespace ladder::model {
namespace {
// Each element-wise operation on its own: the cpu backends' vectorised ones (and their scalar
// fallback) against the double loops, on rows that end mid-vector and on values that stress exp.
std::vector<float> random_values(std::size_t n, float scale, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

double max_relative_gap(const std::vector<float>& got, const std::vector<double>& want) {
  double gap = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    gap = std::max(gap, std::fabs(got[i] - want[i]) / std::max(1e-3, std::fabs(want[i])));
  return gap;
}

template <class Ops>
void check_each_operation(const Ops& ops, const char* what) {
  const ScalarOps<double> ref;
  for (std::int64_t cols : {1, 5, 16, 17, 100, 1024}) {
    const std::int64_t rows = 3;
    SCOPED_TRACE(::testing::Message() << what << ", cols " << cols);
    {  // softmax, values up to ±60 (exp over- and underflows without the max subtracted)
      auto v = random_values(rows * cols, 60.0f, 1);
      std::vector<double> want(v.begin(), v.end());
      ops.softmax_rows(v.data(), rows, cols);
      ref.softmax_rows(want.data(), rows, cols);
      EXPECT_LT(max_relative_gap(v, want), 1e-5);
    }
    {  // LayerNorm with an offset (the mean must come out) and per-column gamma and beta
      auto v = random_values(rows * cols, 2.0f, 2), gamma = random_values(cols, 1.0f, 3), beta = random_values(cols, 1.0f, 4);
      for (auto& x : v) x += 5;
      std::vector<float> out(v.size());
      std::vector<double> vd(v.begin(), v.end()), gd(gamma.begin(), gamma.end()), bd(beta.begin(), beta.end()), want(v.size());
      ops.layernorm(v.data(), out.data(), gamma.data(), beta.data(), rows, cols);
      ref.layernorm(vd.data(), want.data(), gd.data(), bd.data(), rows, cols);
      for (std::size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], want[i], cols == 1 ? 1e-3 : 2e-5) << i;
    }
    {  // GELU across its whole shape, far tails included
      auto v = random_values(rows * cols, 12.0f, 5);
      std::vector<double> want(v.begin(), v.end());
      ops.gelu(v.data(), rows * cols);
      ref.gelu(want.data(), rows * cols);
      for (std::size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], want[i], 1e-5 * std::max(1.0, std::fabs(want[i]))) << i;
    }
    {  // transpose (rows x cols → cols x rows), bias per column, residual add
      const auto v = random_values(rows * cols, 1.0f, 9), bias = random_values(cols, 1.0f, 10),
                 y = random_values(rows * cols, 1.0f, 11);
      std::vector<float> t(v.size()), x = v;
      ops.transpose(v.data(), rows, cols, t.data());
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < cols; ++c) EXPECT_EQ(t[c * rows + r], v[r * cols + c]);
      ops.add_bias(x.data(), bias.data(), rows, cols);
      ops.add_into(x.data(), y.data(), rows * cols);
      for (std::int64_t i = 0; i < rows * cols; ++i) EXPECT_FLOAT_EQ(x[i], v[i] + bias[i % cols] + y[i]) << i;
    }
    {  // soft-argmax over an L-pixel image `cols` wide (rows of the distribution end mid-vector)
      const std::int64_t W = cols, L = W * 3;
      auto probs = random_values(L * L, 1.0f, 6);
      for (auto& x : probs) x = std::fabs(x) / static_cast<float>(L);
      std::vector<double> pd(probs.begin(), probs.end()), want(2 * L);
      std::vector<float> flow(2 * L);
      ops.soft_argmax(probs.data(), L, W, flow.data());
      ref.soft_argmax(pd.data(), L, W, want.data());
      // Sums of thousands of f32 terms: compared as the model's outputs are, by relative L2 error.
      double diff = 0, norm = 0;
      for (std::int64_t i = 0; i < 2 * L; ++i) {
        diff += (flow[i] - want[i]) * (flow[i] - want[i]);
        norm += want[i] * want[i];
      }
      EXPECT_LT(std::sqrt(diff / norm), 1e-5);
    }
  }
}

TEST(ModelOps, EachElementwiseOperationMatchesTheDoubleLoops) {
  check_each_operation(ScalarOps<float>{}, "scalar f32");
  // Every kernel set this CPU can run, not only the one VectorOps picks (the widest).
  for (Isa isa : {Isa::avx512, Isa::avx2, Isa::scalar}) {
    if (const std::string reason = isa_unavailable_reason(isa); !reason.empty()) {
      std::printf("vector ops, %s: not checked here: %s\n", std::string(isa_name(isa)).c_str(), reason.c_str());
      continue;
    }
    VectorOps vector;
    vector.isa = isa;
    check_each_operation(vector, ("vector ops, " + std::string(isa_name(isa))).c_str());
  }
}

#ifdef LADDER_HAVE_CUDA
// The CUDA kernels through the same checks: each call copies its operands to the device and back.
struct DeviceRoundTrip {
  gpu::CudaOps ops{gpu::make_context()};
  gpu::DeviceArray put(const float* p, std::int64_t n) const { return ops.upload(std::vector<float>(p, p + n)); }
  void get(const gpu::DeviceArray& d, float* p) const {
    const auto v = ops.download(d);
    std::copy(v.begin(), v.end(), p);
  }
  void softmax_rows(float* m, std::int64_t rows, std::int64_t cols) const {
    auto d = put(m, rows * cols);
    ops.softmax_rows(d.data(), rows, cols);
    get(d, m);
  }
  void soft_argmax(const float* probs, std::int64_t L, std::int64_t W, float* flow) const {
    auto d = put(probs, L * L);
    auto f = ops.make(2 * L);
    ops.soft_argmax(d.data(), L, W, f.data());
    get(f, flow);
  }
  void transpose(const float* in, std::int64_t rows, std::int64_t cols, float* out) const {
    auto d = put(in, rows * cols);
    auto t = ops.make(rows * cols);
    ops.transpose(d.data(), rows, cols, t.data());
    get(t, out);
  }
  void layernorm(const float* in, float* out, const float* gamma, const float* beta, std::int64_t rows, std::int64_t cols) const {
    auto d = put(in, rows * cols), g = put(gamma, cols), b = put(beta, cols);
    auto o = ops.make(rows * cols);
    ops.layernorm(d.data(), o.data(), g.data(), b.data(), rows, cols);
    get(o, out);
  }
  void add_bias(float* out, const float* bias, std::int64_t rows, std::int64_t cols) const {
    auto d = put(out, rows * cols), b = put(bias, cols);
    ops.add_bias(d.data(), b.data(), rows, cols);
    get(d, out);
  }
  void gelu(float* v, std::int64_t count) const {
    auto d = put(v, count);
    ops.gelu(d.data(), count);
    get(d, v);
  }
  void add_into(float* x, const float* y, std::int64_t count) const {
    auto d = put(x, count), e = put(y, count);
    ops.add_into(d.data(), e.data(), count);
    get(d, x);
  }
};

TEST(ModelOps, EachCudaKernelMatchesTheDoubleLoops) {
  if (const auto& reason = cuda::unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  check_each_operation(DeviceRoundTrip{}, "CUDA");
}
#endif

TEST(ModelOps, TheKernelsGeluFormulaIsTheTanhApproximation) {  // row_math.hpp, as the CUDA kernel runs it
  const ScalarOps<double> ref;
  for (double v = -12; v <= 12; v += 0.01) {
    double want = v;
    ref.gelu(&want, 1);
    EXPECT_NEAR(gelu_tanh(static_cast<float>(v)), want, 2e-6 * std::max(1.0, std::fabs(want))) << v;
  }
}

// cuBLAS is column-major: a host column-major GEMM called as column_major_call() says must give
// the row-major product, for every transpose and with leading dimensions wider than the rows.
TEST(ModelOps, TheColumnMajorCallComputesTheRowMajorProduct) {
  auto column_major = [](bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
                         const float* b, std::int64_t ldb, float* c, std::int64_t ldc) {
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < m; ++i) {
        float sum = 0;
        for (std::int64_t p = 0; p < k; ++p)
          sum += (ta ? a[i * lda + p] : a[p * lda + i]) * (tb ? b[p * ldb + j] : b[j * ldb + p]);
        c[j * ldc + i] = sum;
      }
  };
  const std::int64_t m = 5, n = 3, k = 4, pad = 2;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const std::int64_t lda = (ta ? m : k) + pad, ldb = (tb ? k : n) + pad, ldc = n + pad;
      const auto a = random_values(static_cast<std::size_t>((ta ? k : m) * lda), 1, 7);
      const auto b = random_values(static_cast<std::size_t>((tb ? n : k) * ldb), 1, 8);
      std::vector<float> want(m * ldc, 0), got(m * ldc, 0);
      LoopGemm{}.gemm(ta, tb, m, n, k, 1.0f, a.data(), lda, b.data(), ldb, 0.0f, want.data(), ldc);
      const ColumnMajorCall call = column_major_call(ta, tb, m, n, k);
      column_major(call.trans_first, call.trans_second, call.m, call.n, call.k, b.data(), ldb, a.data(), lda, got.data(), ldc);
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) EXPECT_NEAR(got[i * ldc + j], want[i * ldc + j], 1e-5) << ta << tb << i << j;
    }
}

}  // namespace
}  // namespace ladder::model
