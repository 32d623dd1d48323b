// The model: every backend against the double reference (tiny, and an odd configuration), the FLOP
// and byte counts against a hand count, the GPU's error bound, the PyTorch backend's split of a
// pass, the sweep. Each operation on its own: test_model_ops.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/dtype.hpp"
#include "model/forward.hpp"
#include "model/model_suite.hpp"
#include "model/vector_ops.hpp"

namespace ladder::model {
namespace {

Output run_backend(const Backend& b, const Config& c) {
  Output out;
  OpTimes times;
  b.prepare(c, make_weights(c), make_inputs(c)).run(out, times);
  for (double s : times.seconds) EXPECT_GE(s, 0);
  return out;
}

Output reference(const Config& c) {
  Output out;
  OpTimes times;
  Forward<ScalarOps<double>, LoopGemm>(c, make_weights(c), make_inputs(c), ScalarOps<double>{}, LoopGemm{}).run(out, times);
  return out;
}

TEST(Model, EveryBackendMatchesTheReference) {
  // tiny: H != W, C = 12 not a multiple of the vector width; odd: C = 10 with 2 heads of 5.
  for (const Config& c : {*named_config("tiny"), Config{"odd", 3, 7, 10, 1, 2}}) {
    const Output ref = reference(c);
    ASSERT_EQ(ref.flow.size(), static_cast<std::size_t>(2 * c.tokens()));
    ASSERT_EQ(ref.head.size(), static_cast<std::size_t>(kHeadOutputs * c.tokens()));
    for (const Backend& b : backends()) {
      if (!b.unavailable_reason().empty()) continue;
      const double error = output_error(run_backend(b, c), ref);
      EXPECT_LE(error, tolerance(b.dtype)) << b.name << " on " << c.name;
      if (b.dtype == DType::bf16) {
        EXPECT_GT(error, 1e-6) << "bf16 should differ from the double reference at all";
      }
    }
  }
}

TEST(Model, OutputsAreNotTrivial) {
  const Output ref = reference(*named_config("tiny"));
  double flow = 0, head = 0;
  for (float v : ref.flow) flow += std::fabs(v);
  for (float v : ref.head) head += std::fabs(v);
  EXPECT_GT(flow, 0.1);
  EXPECT_GT(head, 0.1);
}

TEST(Model, SoftArgmaxOfAPeakedCorrelationFindsTheMatch) {
  // f2 equal to f1 with large, distinct features: each pixel's best match is itself, so the flow
  // is close to zero everywhere.
  Config c{"self", 3, 4, 8, 0, 1};
  Inputs in = make_inputs(c);
  for (auto& v : in.f1) v *= 30;
  in.f2 = in.f1;
  Output out;
  OpTimes times;
  Forward<ScalarOps<double>, LoopGemm>(c, make_weights(c), in, ScalarOps<double>{}, LoopGemm{}).run(out, times);
  for (float v : out.flow) EXPECT_NEAR(v, 0.0, 1e-3);
}

TEST(Model, FlopAndByteCountsMatchAHandCount) {
  // H=2, W=2 (L=4), C=4, 1 layer, 2 heads.
  const auto cost = op_costs(Config{"hand", 2, 2, 4, 1, 2});
  auto at = [&](Op op) { return cost[static_cast<int>(op)]; };
  EXPECT_DOUBLE_EQ(at(Op::corr_gemm).flops, 2.0 * 4 * 4 * 4);         // L x L outputs, C multiply-adds each
  EXPECT_DOUBLE_EQ(at(Op::corr_gemm).bytes, 4.0 * (2 * 4 * 4 + 16));  // f1, f2 read; the volume written
  EXPECT_DOUBLE_EQ(at(Op::qkv_gemm).flops, 2.0 * 4 * 4 * 12);         // L x 3C outputs, C each
  EXPECT_DOUBLE_EQ(at(Op::attn_scores).flops, 2.0 * 16 * 4);          // heads x L x L x head_dim
  EXPECT_DOUBLE_EQ(at(Op::attn_softmax).flops, 5.0 * 2 * 16);
  EXPECT_DOUBLE_EQ(at(Op::mlp_gemm).flops, 2.0 * 2 * 4 * 4 * 16);  // two GEMMs of L x C x 4C
  EXPECT_DOUBLE_EQ(at(Op::head_gemm).flops, 2.0 * 4 * 4 * 2);
  // Two residual adds (x and y read, x written) and the transpose of f1 into x (read, written).
  EXPECT_DOUBLE_EQ(at(Op::residual).flops, 2.0 * 16);
  EXPECT_DOUBLE_EQ(at(Op::residual).bytes, 4.0 * (2 * 3 * 16 + 2 * 16));
  EXPECT_DOUBLE_EQ(at(Op::residual).calls, 3);
  // What one call touches: an add reads x and y and writes x back; a softmax and GELU work in place.
  EXPECT_DOUBLE_EQ(at(Op::residual).working_set, 4.0 * 2 * 16);
  EXPECT_DOUBLE_EQ(at(Op::corr_softmax).working_set, 4.0 * 16);
  EXPECT_DOUBLE_EQ(at(Op::attn_softmax).working_set, 4.0 * 2 * 16);           // both heads' scores in one call
  EXPECT_DOUBLE_EQ(at(Op::attn_scores).working_set, 4.0 * (2 * 4 * 2 + 16));  // one head: Q and K slices, L x L out
  EXPECT_DOUBLE_EQ(at(Op::corr_gemm).working_set, at(Op::corr_gemm).bytes);
  double total = 0;
  for (const auto& c : cost) total += c.flops;
  EXPECT_GT(total, at(Op::corr_gemm).flops);
}

TEST(Model, FootprintGrowsAsTheSquareOfThePixelsAndSetsTheOutOfMemoryPoint) {
  const Config a{"a", 32, 32, 64, 1, 4}, b{"b", 64, 64, 64, 1, 4};
  // Four times the pixels: the L x L terms, which dominate, grow sixteenfold.
  EXPECT_GT(footprint_bytes(b) / footprint_bytes(a), 14.0);
  EXPECT_EQ(footprint_bytes(a, 8), 2 * footprint_bytes(a, 4));
  const int side = first_resolution_over(16e9, 256, 4, 8);
  EXPECT_GT(footprint_bytes(Config{"", side, side, 256, 4, 8}), 16e9);
  EXPECT_LE(footprint_bytes(Config{"", side - 8, side - 8, 256, 4, 8}), 16e9);
  EXPECT_LT(first_resolution_over(16e9, 256, 4, 8), first_resolution_over(80e9, 256, 4, 8));
}

TEST(Model, CommandLineConfigurationsAreParsedAndChecked) {
  std::string error;
  auto c = parse_config("6,5,16,1,2", error);
  ASSERT_TRUE(c.has_value()) << error;
  EXPECT_EQ(c->tokens(), 30);
  EXPECT_EQ(c->head_dim(), 8);
  EXPECT_FALSE(parse_config("6,5,16,1", error).has_value());
  EXPECT_NE(error.find("five"), std::string::npos) << error;
  EXPECT_FALSE(parse_config("6,5,x,1,2", error).has_value());
  EXPECT_FALSE(parse_config("6,5,10,1,3", error).has_value());
  EXPECT_EQ(error, "C must be a multiple of heads");
}

TEST(Model, ConfigurationsAreValidatedAndNamed) {
  EXPECT_EQ(validate(Config{"x", 4, 4, 10, 1, 3}), "C must be a multiple of heads");
  EXPECT_EQ(validate(Config{"x", 0, 4, 8, 1, 2}), "H, W, C and heads must be positive, layers not negative");
  for (const auto& name : config_names()) EXPECT_EQ(validate(*named_config(name)), "") << name;
  const Config small = *named_config("small");
  EXPECT_EQ(small.tokens(), 256);
  EXPECT_EQ(small.head_dim(), 16);
  EXPECT_FALSE(named_config("huge").has_value());
}

// The GPU backends' tolerance, shown here without a GPU: the f32 pass with every GEMM operand
// rounded as TF32 and f16 tensor cores round it stays within kToleranceTf32.
struct RoundedGemm {
  float (*round)(float);
  void gemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a, std::int64_t lda,
            const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc) const {
    // Only the span the operand covers: it may be a head's columns inside a wider buffer.
    std::vector<float> ra(((ta ? k : m) - 1) * lda + (ta ? m : k)), rb(((tb ? n : k) - 1) * ldb + (tb ? k : n));
    for (std::size_t i = 0; i < ra.size(); ++i) ra[i] = round(a[i]);
    for (std::size_t i = 0; i < rb.size(); ++i) rb[i] = round(b[i]);
    LoopGemm{}.gemm(ta, tb, m, n, k, alpha, ra.data(), lda, rb.data(), ldb, beta, c, ldc);
  }
};

float round_tf32(float x) {  // to 10 stored mantissa bits, nearest-even
  std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  u += 0xfffu + ((u >> 13) & 1u);
  return std::bit_cast<float>(u & ~0x1fffu);
}
float round_f16(float x) { return to_float(to_f16(x)); }

TEST(Model, TensorCoreRoundingStaysWithinTheGpuTolerance) {
  for (const char* name : {"tiny", "small"}) {
    const Config c = *named_config(name);
    const Output ref = reference(c);
    for (auto round : {round_tf32, round_f16}) {
      Output out;
      OpTimes times;
      Forward<ScalarOps<float>, RoundedGemm>(c, make_weights(c), make_inputs(c), ScalarOps<float>{true}, RoundedGemm{round})
          .run(out, times);
      const double error = output_error(out, ref);
      EXPECT_LE(error, kToleranceTf32) << name;
      EXPECT_GT(error, 1e-6) << name << ": the rounding should show";
      std::printf("%s, %s-rounded GEMM operands: relative error %.3g\n", name, round == round_tf32 ? "tf32" : "f16", error);
    }
  }
}

TEST(Model, TheFootprintCountsWhatTheForwardPassAllocates) {
  // After a pass, so that a conversion buffer that had to grow during it would show.
  for (const Config& c : {*named_config("tiny"), *named_config("small"), Config{"odd", 3, 7, 10, 1, 2}})
    for (const Backend& b : backends()) {
      // A framework's memory is its allocator's (torch: the process's peak), not our count.
      if (!b.unavailable_reason().empty() || b.out_of_place) continue;
      Prepared pass = b.prepare(c, make_weights(c), make_inputs(c));
      Output out;
      OpTimes times;
      pass.run(out, times);
      EXPECT_EQ(pass.allocated_bytes(), backend_footprint_bytes(b, c)) << b.name << " " << c.name;
    }
}

// A backend by name where it can run here (the PyTorch ones: where Python has torch), else null.
const Backend* available_backend(const std::string& name) {
  auto it = std::find_if(backends().begin(), backends().end(), [&](const Backend& b) { return b.name == name; });
  return it == backends().end() || !it->unavailable_reason().empty() ? nullptr : &*it;
}
const Backend* torch_cpu_backend() { return available_backend("torch"); }

// One pass on a poisoned output: its error against the reference.
double error_of_a_pass_after_poison(const Backend& b, const Config& c) {
  Prepared pass = b.prepare(c, make_weights(c), make_inputs(c));
  Output out;
  OpTimes times;
  pass.poison();
  pass.run(out, times);
  return output_error(out, reference(c));
}

TEST(ModelTorch, ThePassIsSplitIntoTheThirteenOperationsAndTheFrameworksRest) {
  const Backend* b = torch_cpu_backend();
  if (!b) GTEST_SKIP() << "no Python with PyTorch here";
  const Config c = *named_config("small");
  Prepared pass = b->prepare(c, make_weights(c), make_inputs(c));
  Output out;
  OpTimes times;
  pass.run(out, times);
  EXPECT_LE(output_error(out, reference(c)), tolerance(b->dtype));
  EXPECT_GE(pass.passes_per_run, 1);
  EXPECT_GT(pass.last_pass_seconds(), 0);
  ASSERT_TRUE(pass.profile);
  const ProfiledPass profiled = pass.profile();
  double sum = 0;
  for (int i = 0; i < kOps; ++i) {
    EXPECT_GT(profiled.per_pass.seconds[i], 0) << op_name(static_cast<Op>(i)) << " never ran under its name";
    sum += profiled.per_pass.seconds[i];
  }
  EXPECT_LE(sum, profiled.pass_seconds);
  EXPECT_TRUE(profiled.by_operation);
  ASSERT_TRUE(profiled.framework_seconds);
  EXPECT_NEAR(*profiled.framework_seconds, profiled.pass_seconds - sum, 1e-9);
  EXPECT_FALSE(profiled.basis.empty());
  EXPECT_NE(pass.framework().find("PyTorch"), std::string::npos) << pass.framework();
}

// torch.compile's module, where the interpreter has PyTorch 2 (LADDER_PYTHON): verified like every
// backend, its pass split by kind of kernel (they span several operations), its compilation apart.
TEST(ModelTorch, TheCompiledModuleIsVerifiedAndSplitByKindOfKernel) {
  const Backend* b = available_backend("torch-compile");
  if (!b) GTEST_SKIP() << "no Python with PyTorch 2 here (LADDER_PYTHON may name one)";
  const Config c{"odd", 3, 7, 10, 1, 2};
  EXPECT_LE(error_of_a_pass_after_poison(*b, c), tolerance(b->dtype));
  Prepared pass = b->prepare(c, make_weights(c), make_inputs(c));
  const ProfiledPass profiled = pass.profile();
  EXPECT_FALSE(profiled.by_operation);
  ASSERT_TRUE(profiled.library_kernel_seconds && profiled.generated_kernel_seconds && profiled.compile_seconds);
  EXPECT_GT(*profiled.library_kernel_seconds, 0) << "the matrix products never ran as library calls";
  EXPECT_NEAR(*profiled.library_kernel_seconds + *profiled.generated_kernel_seconds, profiled.pass_seconds,
              1e-9 + 1e-6 * profiled.pass_seconds);
  EXPECT_GT(*profiled.compile_seconds, profiled.pass_seconds);
  EXPECT_NE(pass.framework().find("torch.compile"), std::string::npos) << pass.framework();
}

TEST(ModelTorch, APassAfterThePoisonWritesTheOutputAgain) {
  const Backend* b = torch_cpu_backend();
  if (!b) GTEST_SKIP() << "no Python with PyTorch here";
  EXPECT_LE(error_of_a_pass_after_poison(*b, Config{"odd", 3, 7, 10, 1, 2}), tolerance(b->dtype));
}

// The label names oneDNN's kernels, so that a run on an AMX machine shows whether AMX was used.
TEST(Model, TheBf16BackendNamesTheOnednnKernelsItRan) {
  const auto it = std::find_if(backends().begin(), backends().end(), [](const Backend& b) { return b.name == "cpu-bf16"; });
  if (it == backends().end()) GTEST_SKIP() << "no oneDNN in this build";
  if (!it->unavailable_reason().empty()) GTEST_SKIP() << it->unavailable_reason();
  const Config c = *named_config("tiny");
  Prepared pass = it->prepare(c, make_weights(c), make_inputs(c));
  EXPECT_EQ(pass.gemm_implementation(), "") << "no call yet";
  Output out;
  OpTimes times;
  pass.run(out, times);
  EXPECT_NE(pass.gemm_implementation(), "");
}

// Records the operand elements of every GEMM call and what the pass reserved for them.
struct OperandRecordingGemm {
  std::shared_ptr<std::int64_t> reserved = std::make_shared<std::int64_t>(0), largest = std::make_shared<std::int64_t>(0);
  void reserve_operands(std::int64_t elements) const { *reserved = elements; }
  template <class T>
  void gemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a, std::int64_t lda, const T* b,
            std::int64_t ldb, T beta, T* c, std::int64_t ldc) const {
    *largest = std::max(*largest, m * k + k * n);
    LoopGemm{}.gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
};

TEST(Model, TheOperandBufferIsTheLargestGemmCallsOperands) {
  for (const Config& c : {*named_config("tiny"), *named_config("small"), Config{"odd", 3, 7, 10, 1, 2},
                          Config{"wide", 2, 3, 64, 1, 4}}) {  // wide: C > L, the MLP weights are the largest
    OperandRecordingGemm recorder;
    Output out;
    OpTimes times;
    Forward<ScalarOps<float>, OperandRecordingGemm>(c, make_weights(c), make_inputs(c), ScalarOps<float>{}, recorder)
        .run(out, times);
    EXPECT_EQ(*recorder.reserved, *recorder.largest) << c.name;
    EXPECT_EQ(gemm_operand_elements(c), static_cast<double>(*recorder.largest)) << c.name;
  }
  // By hand: small (L = 256, C = 64): the second MLP GEMM, L·4C + 4C·C; medium (L = 1024,
  // C = 128, head_dim 16): the attention values, L·L + L·16, which grow as (HW)².
  EXPECT_EQ(gemm_operand_elements(*named_config("small")), 256.0 * 256 + 256 * 64);
  EXPECT_EQ(gemm_operand_elements(*named_config("medium")), 1024.0 * 1024 + 1024 * 16);
}

// The sweep stops where memory ends: with room for the 48x48 pass and not the 64x64 one, and no
// time budget (--no-cap), it is 16..48 for every CPU backend, and its note says why.
TEST(ModelSweep, StopsWhereMemoryEndsAndSaysSo) {
  // Every build registers `cpu`; one without OpenBLAS registers it as unavailable.
  const auto cpu = std::find_if(backends().begin(), backends().end(), [](const Backend& b) { return b.name == "cpu"; });
  ASSERT_NE(cpu, backends().end());
  if (auto reason = cpu->unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  const Config at48{"", 48, 48, 256, 4, 8};
  SuiteRequest request;
  request.rungs = {"cpu"};
  request.uncapped = true;
  request.host_usable_bytes = footprint_bytes(at48) * 1.01;
  ModelSweep sweep;
  auto cases = sweep.cases(request);
  sweep.trim(cases, request);  // --no-cap: nothing to trim, no trial pass
  std::vector<std::string> names;
  for (const auto& c : cases) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"model-sweep/cpu/f32/side:16", "model-sweep/cpu/f32/side:24",
                                             "model-sweep/cpu/f32/side:32", "model-sweep/cpu/f32/side:48"}));
  const auto notes = sweep.context();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].first, "model_sweep/cpu");
  EXPECT_NE(notes[0].second.find("memory"), std::string::npos) << notes[0].second;
  EXPECT_NE(notes[0].second.find("ends the sweep at 48"), std::string::npos) << notes[0].second;
  EXPECT_EQ(notes[0].second.rfind("sides 16..48;", 0), 0u) << notes[0].second;
  EXPECT_GT(cases.back().memory_bytes, cases.front().memory_bytes);
}

}  // namespace
}  // namespace ladder::model
