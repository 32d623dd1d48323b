// Every rung this build registered, against the double reference, on sizes that are not
// multiples of any block or tile (1, 7, 33, 100, 131, 257). Unavailable rungs are skipped with
// their reason, never silently passed.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <vector>

#include "core/compare.hpp"
#include "python/python_process.hpp"
#include "cpu/row_blocks.hpp"
#include "gemm/gemm_suite.hpp"
#include "roofs/ceilings.hpp"

namespace ladder {
namespace {

struct RungSize {
  std::string rung;
  std::int64_t n;
};

void PrintTo(const RungSize& c, std::ostream* os) { *os << c.rung << " at n=" << c.n; }

std::vector<RungSize> all_cases() {
  std::vector<RungSize> cases;
  for (const auto& rung : registry().gemm)
    for (std::int64_t n : {1, 7, 33, 100, 131, 257}) cases.push_back({rung.name, n});
  return cases;
}

class RungMatchesReference : public ::testing::TestWithParam<RungSize> {};

TEST_P(RungMatchesReference, WithinTolerance) {
  const GemmRung* rung = registry().find_gemm(GetParam().rung);
  ASSERT_NE(rung, nullptr);
  if (auto reason = rung->unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  const GemmInputs& in = cached_gemm_inputs(GetParam().n);
  GemmVerification v = verify_gemm_rung(*rung, in);
  // A library rung with a 16-bit output may round its sums too at some sizes (PyTorch 1.13's bf16
  // path for small products): refusing it is right, and the test says so; garbage still fails.
  if (!v.verdict.ok && rung->rounds_output &&
      v.verdict.relative_error < 4 * (verification_tolerance(rung->dtype) + unit_roundoff(rung->dtype)))
    GTEST_SKIP() << "refused, as it should be: " << v.verdict.message;
  EXPECT_TRUE(v.verdict.ok) << v.verdict.message;
  EXPECT_LE(v.verdict.relative_error, dtype_tolerance(rung->dtype));
}

INSTANTIATE_TEST_SUITE_P(AllRungs, RungMatchesReference, ::testing::ValuesIn(all_cases()), [](const auto& info) {
  std::string name = info.param.rung + "_n" + std::to_string(info.param.n);
  for (char& ch : name)
    if (ch == '-') ch = '_';
  return name;
});

// Large enough that avx2 and avx512 pack B in several column blocks and run several K blocks
// (avx512's are 16 MiB and 1024 deep: it needs n > 2048), and tiled/parallel several K blocks: a
// prime, so every block and tile has a ragged edge.
TEST(LargeSize, BlockedRungsCrossTheirPackingBlocks) {
  for (const auto& [name, n] : {std::pair{"parallel", 1531}, std::pair{"avx2", 1531}, std::pair{"avx512", 2053}}) {
    const GemmRung* rung = registry().find_gemm(name);
    ASSERT_NE(rung, nullptr);
    if (auto reason = rung->unavailable_reason(); !reason.empty()) continue;
    const GemmInputs& in = cached_gemm_inputs(n);
    GemmVerification v = verify_gemm_rung(*rung, in);
    EXPECT_TRUE(v.verdict.ok) << name << ": " << v.verdict.message;
  }
}

// The packed rungs report a call's packing alone (pack_seconds), and packing leaves C as it was:
// the loops run without their micro-kernels, so the output the timed call left stays right.
TEST(PackedRungs, ReportTheirPackingAloneAfterTimingAndLeaveTheOutputAlone) {
  bool ran = false;
  for (const char* name : {"avx2", "avx512"}) {
    const GemmRung* rung = registry().find_gemm(name);
    ASSERT_NE(rung, nullptr);
    if (!rung->unavailable_reason().empty()) continue;
    const GemmInputs& in = cached_gemm_inputs(91);
    AlignedBuffer<float> c(in.n * in.n);
    auto kernel = rung->prepare(operands(in, c.data()));
    kernel->run();
    const auto counters = kernel->counters();
    ASSERT_EQ(counters.size(), 1u) << name;
    EXPECT_EQ(counters[0].first, "pack_seconds") << name;
    EXPECT_GT(counters[0].second, 0) << name;
    EXPECT_TRUE(std::isfinite(counters[0].second)) << name;
    const Verdict v = check_gemm_output(rung->dtype, in, c.data());
    EXPECT_TRUE(v.ok) << name << ": " << v.message;
    ran = true;
  }
  if (!ran) GTEST_SKIP() << "neither AVX2 nor AVX-512 here";
}

// The pipelined GPU kernels copy 16-byte chunks only where every row is 16-byte aligned (n a
// multiple of 4 floats, of 8 16-bit values) and store whole fragments only in blocks wholly
// inside C: the odd sizes above take neither path, so these sizes do (128 and 256: every block
// inside; 136: aligned rows with ragged blocks; 1032: many slices in flight and both).
TEST(LargeSize, PipelinedGpuRungsTakeTheirAlignedPathsAndInnerBlocks) {
  bool ran = false;
  for (const char* name : {"cuda-warptile", "cuda-mma-f16", "cuda-mma-bf16"}) {
    const GemmRung* rung = registry().find_gemm(name);
    if (rung == nullptr || !rung->unavailable_reason().empty()) continue;
    for (std::int64_t n : {128, 136, 256, 1032}) {
      GemmVerification v = verify_gemm_rung(*rung, cached_gemm_inputs(n));
      EXPECT_TRUE(v.verdict.ok) << name << " at n=" << n << ": " << v.verdict.message;
      EXPECT_LE(v.verdict.relative_error, dtype_tolerance(rung->dtype)) << name << " at n=" << n;
    }
    ran = true;
  }
  if (!ran) GTEST_SKIP() << "no GPU here";
}

// C's rows among the cores for avx2 and avx512: every row once, whole micro-tiles, at most the
// A block's rows, blocks within one micro-tile of each other, and a multiple of the thread count
// where there are enough micro-tiles (so no core idles or waits through a short last block).
TEST(RowBlocks, EveryCoreGetsAnEqualShareOfWholeMicroTiles) {
  for (std::int64_t unit : {6, 12})
    for (std::int64_t threads : {1, 2, 3, 64, 192})
      for (std::int64_t n : {1, 5, 6, 7, 95, 96, 97, 128, 257, 1024, 1531, 4096}) {
        const auto starts = balanced_row_blocks(n, unit, 96, threads);
        const std::int64_t blocks = static_cast<std::int64_t>(starts.size()) - 1, units = (n + unit - 1) / unit;
        SCOPED_TRACE(testing::Message() << "n=" << n << " unit=" << unit << " threads=" << threads);
        ASSERT_GE(blocks, 1);
        EXPECT_EQ(starts.front(), 0);
        EXPECT_EQ(starts.back(), n);
        EXPECT_TRUE(blocks % threads == 0 || blocks == units) << blocks << " blocks";
        std::int64_t smallest = n, largest = 0;
        for (std::int64_t b = 0; b < blocks; ++b) {
          const std::int64_t rows = starts[b + 1] - starts[b];
          EXPECT_GT(rows, 0);
          EXPECT_LE(rows, 96);
          if (b + 1 < blocks) {
            EXPECT_EQ(rows % unit, 0);
            smallest = std::min(smallest, rows);
          }
          largest = std::max(largest, rows);
        }
        if (blocks > 1) {
          EXPECT_LE(largest - smallest, unit);
        }
      }
  // The case that motivated it: n = 1024 on two cores is 12 blocks of 84 or 90 rows, not 11 of 96.
  const auto two_cores = balanced_row_blocks(1024, 6, 96, 2);
  EXPECT_EQ(two_cores.size(), 13u);
}

// The verifier must catch what a broken rung does: garbage, an untouched (poisoned) output,
// zeros, and C += A·B instead of C = A·B.
GemmRung broken_rung(std::function<void(const GemmOperands&)> body) {
  GemmRung rung;
  rung.name = "broken";
  rung.prepare = [body](const GemmOperands& op) { return make_kernel([op, body] { body(op); }); };
  return rung;
}

TEST(Verification, RejectsAnOutputThatWasNeverWritten) {
  auto v = verify_gemm_rung(broken_rung([](const GemmOperands&) {}), cached_gemm_inputs(33));
  EXPECT_FALSE(v.verdict.ok);
  EXPECT_NE(v.verdict.message.find("not finite"), std::string::npos) << v.verdict.message;
}

TEST(Verification, RejectsAllZeros) {
  auto v = verify_gemm_rung(broken_rung([](const GemmOperands& op) { std::fill(op.c, op.c + op.n * op.n, 0.0f); }),
                            cached_gemm_inputs(33));
  EXPECT_FALSE(v.verdict.ok);
  EXPECT_EQ(v.verdict.message, "output is all zero");
}

TEST(Verification, RejectsAnOffByOneIndex) {
  auto v = verify_gemm_rung(broken_rung([](const GemmOperands& op) {
                              const auto n = op.n;
                              for (std::int64_t i = 0; i < n; ++i)
                                for (std::int64_t j = 0; j < n; ++j) {
                                  float s = 0;
                                  for (std::int64_t k = 0; k + 1 < n; ++k) s += op.a[i * n + k] * op.b[k * n + j];
                                  op.c[i * n + j] = s;
                                }
                            }),
                            cached_gemm_inputs(33));
  EXPECT_FALSE(v.verdict.ok);
  EXPECT_NE(v.verdict.message.find("relative L2 error"), std::string::npos) << v.verdict.message;
}

TEST(Verification, ReportsAThrowingRung) {
  auto v = verify_gemm_rung(broken_rung([](const GemmOperands&) { throw std::runtime_error("boom"); }), cached_gemm_inputs(7));
  EXPECT_FALSE(v.verdict.ok);
  EXPECT_EQ(v.verdict.message, "threw: boom");
}

TEST(GemmProblem, CountsFlopsAndBytesOnce) {
  GemmProblem f32{1000, DType::f32}, bf16{1000, DType::bf16};
  EXPECT_DOUBLE_EQ(f32.flops(), 2e9);
  EXPECT_DOUBLE_EQ(f32.bytes(), 1e6 * 12);  // A, B read (4 bytes), C written (4 bytes)
  EXPECT_DOUBLE_EQ(bf16.bytes(), 1e6 * 8);  // A, B in bf16
  EXPECT_DOUBLE_EQ(f32.intensity(), 2e9 / 12e6);
}

// The product of A and B in double after `round` has been applied to every input, against the
// reference: what a rung in that format would show if its sums were exact.
double rounding_error(const GemmInputs& in, const std::function<float(float)>& round) {
  const std::size_t count = in.a.size();
  std::vector<float> a(count), b(count);
  for (std::size_t i = 0; i < count; ++i) a[i] = round(in.a[i]), b[i] = round(in.b[i]);
  std::vector<double> c(count);
  reference_gemm(in.n, a.data(), b.data(), c.data());
  AlignedBuffer<float> c32(count);
  for (std::size_t i = 0; i < count; ++i) c32[i] = static_cast<float>(c[i]);
  return compare_to_reference(c32.span(), in.reference.span(), 1.0).relative_error;
}

// The inputs are not exact in the narrow formats, so each rung's rel_error shows what its format
// costs and the tolerances are approached, not idle: rounding to bf16 or f16 shows, and stays
// inside the tolerance, as does tf32 on hardware that truncates (keeps the top 10 mantissa bits).
TEST(GemmInputs, RoundingToEachFormatShowsAndFitsItsTolerance) {
  for (std::int64_t n : {1, 7, 33, 257}) {
    SCOPED_TRACE(testing::Message() << "n=" << n);
    const GemmInputs& in = cached_gemm_inputs(n);
    bool has_negative = false, has_positive = false, inexact_in_bf16 = false;
    for (std::size_t i = 0; i < in.a.size(); ++i) {
      ASSERT_GE(in.a[i], -1.0f);
      ASSERT_LT(in.a[i], 1.0f);
      has_negative |= in.a[i] < 0;
      has_positive |= in.a[i] > 0;
      inexact_in_bf16 |= to_float(in.a_bf16[i]) != in.a[i];
    }
    EXPECT_TRUE(inexact_in_bf16);
    if (n > 1) {
      EXPECT_TRUE(has_negative && has_positive);
    }
    const double bf16_error = rounding_error(in, [](float x) { return to_float(to_bf16(x)); });
    const double f16_error = rounding_error(in, [](float x) { return to_float(to_f16(x)); });
    const double tf32_truncated =
        rounding_error(in, [](float x) { return std::bit_cast<float>(std::bit_cast<std::uint32_t>(x) & ~0x1fffu); });
    EXPECT_GT(bf16_error, 1e-4);
    EXPECT_LT(bf16_error, dtype_tolerance(DType::bf16) / 2);
    EXPECT_GT(f16_error, 1e-5);
    EXPECT_LT(f16_error, dtype_tolerance(DType::f16) / 2);
    EXPECT_LT(tf32_truncated, dtype_tolerance(DType::tf32) * 0.75);
  }
}

TEST(PlanCases, CapsSlowRungsAtTheirLimitOnce) {
  const GemmRung* boxed = registry().find_gemm("boxed");
  const GemmRung* avx = registry().find_gemm("autovec");
  ASSERT_TRUE(boxed && avx);
  auto cases = plan_gemm_cases({boxed, avx}, {64, 1024, 2048}, false);
  std::vector<std::string> names;
  for (auto& c : cases) names.push_back(c.name());
  EXPECT_EQ(names, (std::vector<std::string>{"gemm/boxed/f32/n:64", "gemm/boxed/f32/n:128", "gemm/autovec/f32/n:64",
                                             "gemm/autovec/f32/n:1024", "gemm/autovec/f32/n:2048"}));
  auto uncapped = plan_gemm_cases({boxed}, {1024}, true);
  ASSERT_EQ(uncapped.size(), 1u);
  EXPECT_EQ(uncapped[0].n, 1024);
}

TEST(PlanCases, TheLadderProfileTimesEveryRungAtOneCommonSizeAndTheGpuAlsoWhereItIsComputeBound) {
  EXPECT_EQ(gemm_profile_sizes(Profile::ladder, Threading::one_core), (std::vector<std::int64_t>{4096}));
  EXPECT_EQ(gemm_profile_sizes(Profile::ladder, Threading::all_cores), (std::vector<std::int64_t>{4096}));
  EXPECT_EQ(gemm_profile_sizes(Profile::ladder, Threading::device), (std::vector<std::int64_t>{4096, 8192}));
  // The full profile's sizes do not depend on where a rung runs.
  EXPECT_EQ(gemm_profile_sizes(Profile::full, Threading::device), gemm_profile_sizes(Profile::full, Threading::one_core));
  // A slow rung stays at its cap, once.
  const GemmRung* boxed = registry().find_gemm("boxed");
  ASSERT_TRUE(boxed);
  auto cases = plan_gemm_cases({boxed}, gemm_profile_sizes(Profile::ladder, boxed->threading), false);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].n, boxed->max_n);
}

TEST(GemmUnit, EachRungIsSetAgainstThePeakOfTheUnitItRunsOn) {
  Ceilings c;
  c.peaks.measurements = {{"avx2-fma", DType::f32, 2, 100e9},
                          {"avx512-fma", DType::f32, 2, 200e9},
                          {"avx512-bf16", DType::bf16, 2, 400e9},
                          {"amx-bf16", DType::bf16, 2, 4000e9}};
  GemmRung cpu_f32{.name = "x", .dtype = DType::f32, .threading = Threading::all_cores, .unit = Unit::fastest};
  GemmRung cpu_bf16{.name = "y", .dtype = DType::bf16, .threading = Threading::all_cores, .unit = Unit::fastest};
  GemmRung gpu_f32{.name = "z", .dtype = DType::f32, .threading = Threading::device, .unit = Unit::cuda_cores};
  GemmRung gpu_f16{.name = "w", .dtype = DType::f16, .threading = Threading::device, .unit = Unit::tensor_cores};
  EXPECT_EQ(gemm_unit(cpu_f32, c).name, "CPU FMA units");
  EXPECT_DOUBLE_EQ(gemm_unit(cpu_f32, c).peak, 200e9);
  // One core's rung against one core's peak; a rung built without vectorisation against the scalar probe.
  c.peaks.measurements.insert(c.peaks.measurements.begin(),
                              {{"avx512-fma", DType::f32, 1, 110e9}, {"scalar-fma", DType::f32, 1, 14e9}});
  GemmRung one_core{.name = "v", .dtype = DType::f32, .threading = Threading::one_core, .unit = Unit::fastest};
  EXPECT_EQ(gemm_unit(one_core, c).name, "CPU FMA units, one core");
  EXPECT_DOUBLE_EQ(gemm_unit(one_core, c).peak, 110e9);
  GemmRung scalar{.name = "u", .dtype = DType::f32, .threading = Threading::one_core, .unit = Unit::scalar_fma};
  EXPECT_EQ(gemm_unit(scalar, c).name, "CPU scalar FMA, one core");
  EXPECT_DOUBLE_EQ(gemm_unit(scalar, c).peak, 14e9);
  // AVX2 code on an AVX-512 machine: against the AVX2 probe, on all the run's threads.
  c.threads = 2;
  GemmRung avx2{.name = "t", .dtype = DType::f32, .threading = Threading::all_cores, .unit = Unit::avx2_fma};
  EXPECT_EQ(gemm_unit(avx2, c).name, "CPU FMA units (avx2-fma)");
  EXPECT_DOUBLE_EQ(gemm_unit(avx2, c).peak, 100e9);
  EXPECT_EQ(gemm_unit(cpu_bf16, c).name, "CPU AMX tiles");
  EXPECT_EQ(gemm_unit(cpu_bf16, c).unit, Unit::amx_tiles);
  EXPECT_DOUBLE_EQ(gemm_unit(cpu_bf16, c).peak, 4000e9);
  c.peaks.measurements.pop_back();  // no AMX: the vector unit's dot products set the bf16 peak
  EXPECT_EQ(gemm_unit(cpu_bf16, c).name, "CPU AVX512-BF16 dot products");
  EXPECT_EQ(gemm_unit(cpu_bf16, c).unit, Unit::bf16_dot_products);
  EXPECT_DOUBLE_EQ(gemm_unit(cpu_bf16, c).peak, 400e9);
  // No device measured: a GPU rung has no unit, and no peak to be a fraction of.
  EXPECT_TRUE(gemm_unit(gpu_f32, c).name.empty());
  c.device.name = "a GPU";
  c.device.fma_f32 = 50e12;
  c.device.cublas = {{"cublas", 51e12}, {"cublas-f16", 700e12}};
  EXPECT_EQ(gemm_unit(gpu_f32, c).name, "GPU CUDA cores");
  EXPECT_DOUBLE_EQ(gemm_unit(gpu_f32, c).peak, 51e12);
  EXPECT_EQ(gemm_unit(gpu_f16, c).name, "GPU tensor cores");
  EXPECT_DOUBLE_EQ(gemm_unit(gpu_f16, c).peak, 700e12);
}

}  // namespace
}  // namespace ladder

namespace ladder {
namespace {

// An interpreter is chosen by running a probe through the shell: one with single quotes in it (the
// jax rung's `jax.devices('gpu')`) must reach Python as written, not end the shell's quoting.
TEST(PythonProcess, AProbeWithSingleQuotesReachesTheInterpreterIntact) {
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  const std::string any = python_with("import sys");
  if (any.empty()) GTEST_SKIP() << "no Python here";
  EXPECT_EQ(python_with("import sys; sys.exit(0 if 'a' + \"'\" == \"a'\" else 1)"), any);
  EXPECT_EQ(python_with("import sys; sys.exit(1 if 'x' else 0)"), "");
}

}  // namespace
}  // namespace ladder
