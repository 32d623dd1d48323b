#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/compare.hpp"
#include "core/dtype.hpp"

namespace ladder {
namespace {

TEST(Compare, AcceptsExactAndRejectsBeyondTolerance) {
  std::vector<double> ref = {1, 2, 3, 4};
  std::vector<float> same = {1, 2, 3, 4}, close = {1, 2, 3, 4.0001f}, far = {1, 2, 3, 5};
  EXPECT_TRUE(compare_to_reference(same, ref, 1e-5).ok);
  EXPECT_TRUE(compare_to_reference(close, ref, 1e-4).ok);
  Verdict v = compare_to_reference(far, ref, 1e-2);
  EXPECT_FALSE(v.ok);
  EXPECT_NEAR(v.relative_error, 1 / std::sqrt(30.0), 1e-12);
}

TEST(Compare, RejectsNaNInfAndZeros) {
  std::vector<double> ref = {1, 2};
  std::vector<float> nan = {1, std::numeric_limits<float>::quiet_NaN()};
  std::vector<float> inf = {std::numeric_limits<float>::infinity(), 2};
  std::vector<float> zero = {0, 0};
  EXPECT_FALSE(compare_to_reference(nan, ref, 1).ok);
  EXPECT_FALSE(compare_to_reference(inf, ref, 1).ok);
  EXPECT_EQ(compare_to_reference(zero, ref, 10).message, "output is all zero");
  std::vector<float> short_output = {1};
  EXPECT_FALSE(compare_to_reference(short_output, ref, 1).ok);
}

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(to_bf16(1.0f).bits, 0x3f80);
  EXPECT_EQ(to_float(to_bf16(3.0f)), 3.0f);
  EXPECT_EQ(to_bf16(1.00390625f).bits, 0x3f80);  // halfway: down to even
  EXPECT_EQ(to_bf16(1.01171875f).bits, 0x3f82);  // halfway: up to even
  EXPECT_TRUE(std::isnan(to_float(to_bf16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(F16, RoundTripsAndRoundsToNearestEven) {
  for (float x :
       {0.0f, 1.0f, -3.0f, 0.5f, 65504.0f, 6.103515625e-05f /* smallest normal */, 5.9604645e-08f /* smallest subnormal */})
    EXPECT_EQ(to_float(to_f16(x)), x) << x;
  EXPECT_EQ(to_f16(1.0f).bits, 0x3c00);
  EXPECT_EQ(to_f16(-2.0f).bits, 0xc000);
  EXPECT_EQ(to_f16(1.0f + 1.0f / 2048).bits, 0x3c00);  // halfway: down to even
  EXPECT_EQ(to_f16(1.0f + 3.0f / 2048).bits, 0x3c02);  // halfway: up to even
  EXPECT_EQ(to_f16(70000.0f).bits, 0x7c00);            // overflow: infinity
  EXPECT_EQ(to_f16(2.0e-8f).bits, 0x0000);             // below half the smallest subnormal
  EXPECT_TRUE(std::isnan(to_float(to_f16(std::numeric_limits<float>::quiet_NaN()))));
}

}  // namespace
}  // namespace ladder
