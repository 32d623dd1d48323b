// The model: every backend against the double reference (tiny, and an odd configuration), each
// operation on its own, and the FLOP and byte counts against a hand count.
#include <gtest/gtest.h>

#include <cmath>

#include "model/forward.hpp"
#include "model/model_suite.hpp"

namespace ladder::model {
namespace {

Output run_backend(const Backend& b, const Config& c) {
  Output out;
  OpTimes times;
  b.prepare(c, make_weights(c))(make_inputs(c), out, times);
  for (double s : times.seconds) EXPECT_GE(s, 0);
  return out;
}

Output reference(const Config& c) {
  Output out;
  OpTimes times;
  Forward<double, LoopGemm>(c, make_weights(c), LoopGemm{}).run(make_inputs(c), out, times);
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
      if (b.dtype == DType::bf16) EXPECT_GT(error, 1e-6) << "bf16 should differ from the double reference at all";
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
  Forward<double, LoopGemm>(c, make_weights(c), LoopGemm{}).run(in, out, times);
  for (float v : out.flow) EXPECT_NEAR(v, 0.0, 1e-3);
}

TEST(Model, FlopAndByteCountsMatchAHandCount) {
  // H=2, W=2 (L=4), C=4, 1 layer, 2 heads.
  const auto cost = op_costs(Config{"hand", 2, 2, 4, 1, 2});
  auto at = [&](Op op) { return cost[static_cast<int>(op)]; };
  EXPECT_DOUBLE_EQ(at(Op::corr_gemm).flops, 2.0 * 4 * 4 * 4);      // L x L outputs, C multiply-adds each
  EXPECT_DOUBLE_EQ(at(Op::corr_gemm).bytes, 4.0 * (2 * 4 * 4 + 16));  // f1, f2 read; the volume written
  EXPECT_DOUBLE_EQ(at(Op::qkv_gemm).flops, 2.0 * 4 * 4 * 12);      // L x 3C outputs, C each
  EXPECT_DOUBLE_EQ(at(Op::attn_scores).flops, 2.0 * 16 * 4);       // heads x L x L x head_dim
  EXPECT_DOUBLE_EQ(at(Op::attn_softmax).flops, 5.0 * 2 * 16);
  EXPECT_DOUBLE_EQ(at(Op::mlp_gemm).flops, 2.0 * 2 * 4 * 4 * 16);  // two GEMMs of L x C x 4C
  EXPECT_DOUBLE_EQ(at(Op::head_gemm).flops, 2.0 * 4 * 4 * 2);
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

}  // namespace
}  // namespace ladder::model
