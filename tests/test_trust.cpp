// Nothing wrong is timed: faults injected into kernels through test-only rungs, run through the
// same case body the program times; the verification bounds at the profiles' sizes; the model
// verified at what it times. The conditions a run is measured under: test_run_conditions.cpp.
#include <benchmark/benchmark.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "roofs/ceilings.hpp"
#include "core/load.hpp"
#include "core/machine.hpp"
#include "gemm/gemm_suite.hpp"
#include "benchmark_compat.hpp"
#include "model/model.hpp"
#include "model/model_suite.hpp"
#include "suite.hpp"

namespace ladder {
namespace {

struct Outcome {
  bool failed = false;
  std::string message;
};

class Collector : public benchmark::ConsoleReporter {
 public:
  Collector() : ConsoleReporter(OO_None) {
    SetOutputStream(&sink_);
    SetErrorStream(&sink_);
  }
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override { runs_.insert(runs_.end(), runs.begin(), runs.end()); }
  std::vector<Run> runs_;
  std::ostringstream sink_;
};

// The case as the program times it: Google Benchmark sizes the iterations, verifies, times.
Outcome time_case(const GemmRung& rung, std::int64_t n, const Ceilings* ceilings = nullptr) {
  static const bool initialised = [] {
    std::string min_time = min_time_flag("0.02", LADDER_BENCHMARK_VERSION);
    std::vector<char*> argv = {const_cast<char*>("test"), min_time.data()};
    int argc = 2;
    benchmark::Initialize(&argc, argv.data());
    return true;
  }();
  (void)initialised;
  benchmark::ClearRegisteredBenchmarks();
  register_cases({gemm_case({&rung, n}, ceilings)}, nullptr);
  Collector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);
  Outcome o;
  for (const auto& run : collector.runs_)
    if (run_failed(run)) {
      o.failed = true;
      o.message = run_error(run);
    }
  return o;
}

// C = A·B, right, in the rung's own format (f32, or the bf16 operands as floats).
void correct_product(const GemmOperands& op, DType dtype) {
  const std::int64_t n = op.n;
  std::fill(op.c, op.c + n * n, 0.0f);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = 0; k < n; ++k) {
      const float a = dtype == DType::bf16 ? to_float(op.a_bf16[i * n + k]) : op.a[i * n + k];
      for (std::int64_t j = 0; j < n; ++j)
        op.c[i * n + j] += a * (dtype == DType::bf16 ? to_float(op.b_bf16[k * n + j]) : op.b[k * n + j]);
    }
}

GemmRung fault_rung(std::string name, DType dtype, std::function<std::unique_ptr<GemmKernel>(const GemmOperands&)> prepare) {
  GemmRung rung;
  rung.name = std::move(name);
  rung.dtype = dtype;
  rung.summary = "test-only: an injected fault";
  rung.mechanism = Mechanism::hand_written;
  rung.prepare = std::move(prepare);
  return rung;
}

TEST(FaultInjection, ACorrectKernelPassesBeforeAndAfterTiming) {
  const GemmRung rung = fault_rung("test-correct", DType::f32,
                                   [](const GemmOperands& op) { return make_kernel([op] { correct_product(op, DType::f32); }); });
  const Outcome o = time_case(rung, 48);
  EXPECT_FALSE(o.failed) << o.message;
}

// Item 1: right on its first call, then idle. Its first call is the verification's when the
// fault counts calls across kernels, and the timed kernel's own first call when it counts its own.
TEST(FaultInjection, AKernelRightOnceThenIdleIsCaughtAfterTiming) {
  static std::atomic<int> calls{0};
  calls = 0;
  const GemmRung global = fault_rung("test-right-once", DType::f32, [](const GemmOperands& op) {
    return make_kernel([op] {
      if (calls++ == 0) correct_product(op, DType::f32);
    });
  });
  Outcome o = time_case(global, 48);
  EXPECT_TRUE(o.failed);
  EXPECT_NE(o.message.find("left a wrong output"), std::string::npos) << o.message;

  const GemmRung per_kernel = fault_rung("test-right-once-each", DType::f32, [](const GemmOperands& op) {
    auto own_calls = std::make_shared<int>(0);
    return make_kernel([op, own_calls] {
      if ((*own_calls)++ == 0) correct_product(op, DType::f32);
    });
  });
  o = time_case(per_kernel, 48);
  EXPECT_TRUE(o.failed);
  EXPECT_NE(o.message.find("left a wrong output"), std::string::npos) << o.message;
}

// The case's body with Google Benchmark's iterations fixed, so a fault can be placed on known calls.
Outcome time_case_iterations(const GemmRung& rung, std::int64_t n, benchmark::IterationCount iterations) {
  time_case(fault_rung("test-initialise", DType::f32,
                       [](const GemmOperands& op) { return make_kernel([op] { correct_product(op, DType::f32); }); }),
            8);
  benchmark::ClearRegisteredBenchmarks();
  const BenchmarkCase c = gemm_case({&rung, n}, nullptr);
  benchmark::RegisterBenchmark(c.name.c_str(), c.body)->Iterations(iterations)->UseRealTime();
  Collector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);
  Outcome o;
  for (const auto& run : collector.runs_)
    if (run_failed(run)) o = {true, run_error(run)};
  return o;
}

// Wrong on the timed calls 1 to 9 of 10, right on the last and on every call after: only a timed
// call checked itself can see it.
TEST(FaultInjection, AKernelWrongOnSomeTimedCallsIsCaught) {
  const GemmRung rung = fault_rung("test-wrong-while-timed", DType::f32, [](const GemmOperands& op) {
    auto own_calls = std::make_shared<int>(0);
    return make_kernel([op, own_calls] {
      correct_product(op, DType::f32);
      if (const int call = (*own_calls)++; call >= 1 && call <= 9) op.c[5] += 1.0f;
    });
  });
  // verify_gemm_rung's kernel is its own (call 0); the timed kernel's calls 0..9 are the 10 timed.
  const Outcome o = time_case_iterations(rung, 48, 10);
  EXPECT_TRUE(o.failed);
  EXPECT_NE(o.message.find("of 10 left a wrong output"), std::string::npos) << o.message;
}

// A kernel that computes only when its output does not already look done: right whenever checked,
// and at n = 8 far below any impossible rate.
TEST(FaultInjection, AKernelThatSkipsWorkOnADoneOutputIsCaughtAtATinySize) {
  const GemmRung rung = fault_rung("test-lazy", DType::f32, [](const GemmOperands& op) {
    return make_kernel([op] {
      if (std::isnan(op.c[0])) correct_product(op, DType::f32);
    });
  });
  const Outcome o = time_case(rung, 8);
  EXPECT_TRUE(o.failed);
  EXPECT_NE(o.message.find("it skips work"), std::string::npos) << o.message;
}

// A kernel that writes a stored answer instead of computing it: verified right every time, but its
// rate is impossible against the machine's peak.
TEST(FaultInjection, ARateAboveThePeakIsAnError) {
  const GemmRung rung = fault_rung("test-memo", DType::f32, [](const GemmOperands& op) {
    auto answer = std::make_shared<std::vector<float>>(static_cast<std::size_t>(op.n * op.n));
    GemmOperands scratch = op;
    scratch.c = answer->data();
    correct_product(scratch, DType::f32);
    return make_kernel([op, answer] { std::copy(answer->begin(), answer->end(), op.c); });
  });
  Ceilings ceilings;
  ceilings.threads = 1;
  ceilings.peaks.measurements.push_back({"test-fma", DType::f32, 1, 1e9});  // 1 GFLOP/s
  const Outcome o = time_case(rung, 256, &ceilings);
  EXPECT_TRUE(o.failed);
  EXPECT_NE(o.message.find("it cannot have done the work"), std::string::npos) << o.message;
}

// Item 2: a zeroed 16x16 tile of a bf16 product, end to end through the timed case.
TEST(FaultInjection, AZeroedTileOfABf16ProductIsCaught) {
  const auto zero_tile = [](const GemmOperands& op) {
    for (std::int64_t i = 32; i < 48; ++i) std::fill(op.c + i * op.n + 64, op.c + i * op.n + 80, 0.0f);
  };
  const GemmRung right = fault_rung(
      "test-bf16", DType::bf16, [](const GemmOperands& op) { return make_kernel([op] { correct_product(op, DType::bf16); }); });
  Outcome o = time_case(right, 257);
  EXPECT_FALSE(o.failed) << o.message;
  const GemmRung faulty = fault_rung("test-bf16-tile", DType::bf16, [zero_tile](const GemmOperands& op) {
    return make_kernel([op, zero_tile] {
      correct_product(op, DType::bf16);
      zero_tile(op);
    });
  });
  o = time_case(faulty, 257);
  EXPECT_TRUE(o.failed);
  EXPECT_NE(o.message.find("verification failed"), std::string::npos) << o.message;
}

// Item 2 at every size a profile runs (and 8192, where GPU rungs may go): a correct kernel's error
// passes, the same output with one zeroed 16x16 tile fails, for each dtype's bound. The correct
// error is modelled per element: f32 accumulation (1e-6) for f32, and for bf16 and f16, whose
// reference is the product of their rounded operands; the format's own rounding (5e-4) for tf32.
TEST(VerificationBounds, AZeroedTileCannotHideAtAnyProfileSize) {
  for (std::int64_t n : {1024, 2048, 4096, 8192}) {
    const std::size_t count = static_cast<std::size_t>(n * n);
    std::vector<double> reference(count);
    std::mt19937_64 random(static_cast<std::uint64_t>(n));
    std::normal_distribution<double> value(0.0, std::sqrt(static_cast<double>(n) / 9.0)), noise(0.0, 1.0);
    for (auto& r : reference) r = value(random);
    for (DType dtype : {DType::f32, DType::bf16, DType::f16, DType::tf32}) {
      const double relative = dtype == DType::tf32 ? 5e-4 : 1e-6;
      std::vector<float> got(count);
      for (std::size_t i = 0; i < count; ++i) got[i] = static_cast<float>(reference[i] * (1 + relative * noise(random)));
      const Verdict good = compare_to_reference(got, reference, verification_tolerance(dtype), n);
      EXPECT_TRUE(good.ok) << dtype_name(dtype) << " n=" << n << ": " << good.message;
      for (std::int64_t i = n / 3; i < n / 3 + 16; ++i)
        std::fill(got.begin() + i * n + n / 2, got.begin() + i * n + n / 2 + 16, 0.0f);
      const Verdict bad = compare_to_reference(got, reference, verification_tolerance(dtype), n);
      EXPECT_FALSE(bad.ok) << dtype_name(dtype) << " n=" << n << ": a zeroed tile passed with error " << bad.relative_error
                           << ", worst row " << bad.worst_row_error;
    }
  }
}

// One element of C off by a relative 1e-3, which a norm over n^2 elements cannot see at these
// sizes (1e-3 / n), fails for every format whose own error is below it; the correct output passes.
TEST(VerificationBounds, OneWrongElementCannotHideAtAnyProfileSize) {
  for (std::int64_t n : {1024, 2048, 4096}) {
    const std::size_t count = static_cast<std::size_t>(n * n);
    std::vector<double> reference(count);
    std::mt19937_64 random(static_cast<std::uint64_t>(n) + 1);
    std::normal_distribution<double> value(0.0, std::sqrt(static_cast<double>(n) / 9.0)), noise(0.0, 1.0);
    for (auto& r : reference) r = value(random);
    std::vector<float> got(count);
    for (std::size_t i = 0; i < count; ++i) got[i] = static_cast<float>(reference[i] * (1 + 1e-6 * noise(random)));
    for (DType dtype : {DType::f32, DType::bf16, DType::f16}) {
      EXPECT_TRUE(compare_to_reference(got, reference, verification_tolerance(dtype), n).ok) << dtype_name(dtype);
      for (const std::size_t wrong : {count / 3 + static_cast<std::size_t>(n / 2), std::size_t{0}, count - 1}) {
        std::vector<float> faulty = got;
        faulty[wrong] = static_cast<float>(reference[wrong] * (1 + 1e-3));
        const Verdict v = compare_to_reference(faulty, reference, verification_tolerance(dtype), n);
        if (std::fabs(reference[wrong]) < 0.5 * std::sqrt(static_cast<double>(n) / 9.0)) continue;  // too small to see
        EXPECT_FALSE(v.ok) << dtype_name(dtype) << " n=" << n << ": element " << wrong << " passed, relative error "
                           << v.relative_error;
        // The element's own bound sees it, whichever check spoke first (a large element shows in its row too).
        EXPECT_GT(v.worst_element_error, kElementToleranceFactor * verification_tolerance(dtype)) << v.message;
      }
    }
  }
}

// Item 12: a size whose double reference would take longer than a profile's budget is verified
// on a sample of rows; below that, on all of them.
TEST(VerificationBounds, AHugeSizeIsVerifiedOnASampleOfRows) {
  EXPECT_EQ(verified_rows(4096).size(), 4096u);
  const auto rows = verified_rows(23000);
  ASSERT_GE(rows.size(), 64u);
  EXPECT_LT(rows.size(), 23000u);
  EXPECT_LE(2.0 * 23000.0 * 23000.0 * static_cast<double>(rows.size()), kReferenceFlopBudget * 1.01);
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
  EXPECT_EQ(std::adjacent_find(rows.begin(), rows.end()), rows.end());
  EXPECT_GE(rows.front(), 0);
  EXPECT_LT(rows.back(), 23000);
}

TEST(VerificationBounds, SampledRowsAreCheckedAgainstTheirOwnReference) {
  // n = 64 verified on all rows; the same check on a gathered subset must agree with the whole.
  const GemmInputs& in = cached_gemm_inputs(64);
  std::vector<float> c(64 * 64);
  GemmOperands op = operands(in, c.data());
  correct_product(op, DType::f32);
  EXPECT_TRUE(check_gemm_output(DType::f32, in, c.data()).ok);
  c[5 * 64 + 7] += 1.0f;
  EXPECT_FALSE(check_gemm_output(DType::f32, in, c.data()).ok);
}

// A 16-bit output (PyTorch's bf16 matmul): the correct product rounded to bf16 passes only where
// the rung says its output is rounded, and a product off by 1% in one row still fails.
TEST(VerificationBounds, ARoundedOutputIsAllowedItsFormatsRoundingAndNoMore) {
  const GemmInputs& in = cached_gemm_inputs(100);
  std::vector<float> c(100 * 100);
  GemmOperands op = operands(in, c.data());
  correct_product(op, DType::bf16);
  for (float& x : c) x = to_float(to_bf16(x));
  EXPECT_FALSE(check_gemm_output(DType::bf16, in, c.data()).ok);
  EXPECT_TRUE(check_gemm_output(DType::bf16, in, c.data(), true).ok);
  for (int j = 0; j < 100; ++j) c[37 * 100 + j] *= 1.01f;
  EXPECT_FALSE(check_gemm_output(DType::bf16, in, c.data(), true).ok);
}

// Item 3: the model is verified at the configuration it times, or at a stated reduction of it.
TEST(ModelVerification, TimedConfigurationsAreVerifiedThemselvesOrReducedWithTheSameShapes) {
  for (const char* name : {"tiny", "small", "medium"}) {
    const model::Config c = *model::named_config(name);
    const model::Config checked = model::verification_config(c);
    EXPECT_EQ(checked.height, c.height) << name;
    EXPECT_EQ(checked.width, c.width) << name;
  }
  const model::Config large = *model::named_config("large");
  const model::Config reduced = model::verification_config(large);
  EXPECT_LT(reduced.tokens(), large.tokens());
  EXPECT_GE(reduced.height, 16);
  EXPECT_EQ(reduced.channels, large.channels);
  EXPECT_EQ(reduced.layers, large.layers);
  EXPECT_EQ(reduced.heads, large.heads);
  EXPECT_LE(model::reference_flops(reduced), model::kModelReferenceFlopBudget);
  EXPECT_TRUE(model::validate(reduced).empty());
}

// A model backend right on its verification passes and idle in timing is caught after timing.
TEST(ModelVerification, ABackendIdleAfterItsFirstPassesIsCaught) {
  const model::Backend* naive = nullptr;
  for (const auto& b : model::backends())
    if (b.name == "naive") naive = &b;
  ASSERT_NE(naive, nullptr);
  model::Backend faulty = *naive;
  faulty.name = "test-idle";
  faulty.prepare = [naive](const model::Config& c, const model::Weights& w, const model::Inputs& in) {
    model::Prepared right = naive->prepare(c, w, in);
    auto calls = std::make_shared<int>(0);
    model::Prepared idle = right;
    idle.run = [right, calls](model::Output& out, model::OpTimes& times) {
      if ((*calls)++ == 0) right.run(out, times);
    };
    return idle;
  };
  const model::Config tiny = *model::named_config("tiny");
  benchmark::ClearRegisteredBenchmarks();
  register_cases({model_case({"model", "test-idle", "f32", "tokens", tiny.tokens()}, faulty, tiny, nullptr)}, nullptr);
  Collector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);
  ASSERT_FALSE(collector.runs_.empty());
  EXPECT_TRUE(run_failed(collector.runs_.back()));
  EXPECT_NE(run_error(collector.runs_.back()).find("after timing"), std::string::npos) << run_error(collector.runs_.back());
}

}  // namespace
}  // namespace ladder
