#include <gtest/gtest.h>

#include <map>

#include "benchmark_compat.hpp"
#include "console_report.hpp"
#include "gemm/gemm_report.hpp"
#include "model/model_report.hpp"
#include "roofline/roofline_suite.hpp"
#include "roofs/ceilings.hpp"

namespace ladder {
namespace {

// A run as Google Benchmark reports it: one iteration of the case, with these counters; its
// axes recorded as register_cases records them.
Run run_with(const CaseAxes& axes, const std::map<std::string, double>& counters) {
  record_axes({case_with_axes(axes)});
  Run r;
  r.run_name.function_name = case_name(axes);
  r.run_name.time_type = "real_time";
  r.iterations = 1;
  for (const auto& [key, value] : counters) r.counters[key] = value;
  return r;
}

// Each rung's speedup is over its parent (the first of its alternatives that ran), as in the
// published ladder report, not over the row above it; the table fits 100 columns.
TEST(Reports, ShowsSpeedupsOverParentAndBoxedAndFailures) {
  std::vector<LadderRow> rows = {
      {"boxed", "f32", 128, 1, 0.1, 4e7, 0.0002, "", -1, 0, "python"},
      {"naive", "f32", 1024, 1, 2.0, 1e9, 0.004, "", -1, 0, "boxed"},
      {"broken", "f32", 1024, 0, 0, 0, 0, "verification failed: output is all zero"},
      {"autovec", "f32", 1024, 1, 0.05, 4e10, 0.17, "", -1, 0, "interchange|naive"},
      {"openblas", "f32", 1024, 2, 0.01, 2e11, 0.5, "", -1, 0, "avx512|autovec"},
  };
  std::string table = format_ladder(rows);
  EXPECT_NE(table.find("25.00x boxed"), std::string::npos) << table;   // naive over boxed
  EXPECT_NE(table.find("40.00x naive"), std::string::npos) << table;   // autovec over naive (interchange did not run)
  EXPECT_NE(table.find("5.00x autovec"), std::string::npos) << table;  // not over the row above
  EXPECT_NE(table.find("1000x"), std::string::npos) << table;          // autovec over boxed
  for (std::size_t start = 0, end; (end = table.find('\n', start)) != std::string::npos; start = end + 1)
    EXPECT_LE(end - start, 100u) << table.substr(start, end - start);
  EXPECT_NE(table.find("FAILED: verification failed: output is all zero"), std::string::npos) << table;
  EXPECT_NE(table.find("17.0%"), std::string::npos) << table;
  EXPECT_EQ(table.find("note:"), std::string::npos) << table;
  EXPECT_EQ(table.find("e-0"), std::string::npos) << "no rel_error given, none shown: " << table;
  rows.push_back({"onednn-bf16", "bf16", 1024, 2, 0.005, 3.8e11, 1.61, "", 4.4e-3});
  table = format_ladder(rows);
  EXPECT_NE(table.find("4.4e-03"), std::string::npos) << table;
  EXPECT_NE(table.find("note: onednn-bf16 ran above the bf16 peak measured at the start (161%)"), std::string::npos) << table;
}

// Each operation's regime comes from its op/<op>/regime counter (a code of roofs/regime.hpp),
// not from the label.
TEST(Reports, ModelOpsNameEachOperationsRegimeFromItsCounter) {
  auto r = run_with({"model", "cpu", "f32", "tokens", 256}, {{"op/corr_gemm/seconds", 0.002},
                                                             {"op/corr_gemm/share", 0.8},
                                                             {"op/corr_gemm/regime", 1},
                                                             {"op/gelu/seconds", 0.0005},
                                                             {"op/gelu/share", 0.2},
                                                             {"op/gelu/regime", 2}});
  r.report_label = "config small (16x16); verified at this configuration; regimes: corr_gemm=compute,gelu=compute";
  const std::string table = format_model_ops({r});
  EXPECT_NE(table.find("corr_gemm"), std::string::npos) << table;
  EXPECT_NE(table.find("memory"), std::string::npos) << table;
  EXPECT_NE(table.find("overhead"), std::string::npos) << table;
  EXPECT_EQ(table.find("compute"), std::string::npos) << "the label's words are not read: " << table;
}

// A compiled pass has no operations (its kernels span several): its own line says so with its
// kernels by kind, and beside a backend that has them its cells are "-", never 0 ms.
TEST(Reports, ACompiledPassStandsBesideOperationsWithoutInventingThem) {
  auto split = run_with({"model", "cpu", "f32", "tokens", 256}, {{"op/corr_gemm/seconds", 0.002}, {"op/corr_gemm/share", 1}});
  auto compiled = run_with({"model", "torch-compile", "f32", "tokens", 256},
                           {{"library_kernel_seconds", 0.004}, {"generated_kernel_seconds", 0.006}, {"compile_seconds", 12}});
  const std::string table = format_model_ops({split, compiled});
  EXPECT_NE(table.find("library kernels 4.000 ms, generated kernels 6.000 ms a pass; compiled once in 12.0 s"), std::string::npos)
      << table;
  const auto row = table.find("    corr_gemm    ", table.find("side by side"));
  ASSERT_NE(row, std::string::npos) << table;
  const std::string line = table.substr(row, table.find('\n', row) - row);
  EXPECT_NE(line.find("2.000"), std::string::npos) << line;
  EXPECT_NE(line.find(" -"), std::string::npos) << line;
  EXPECT_EQ(line.find("0.000"), std::string::npos) << line;
  EXPECT_NE(table.find("library kernels (compiled)"), std::string::npos) << table;
}

// Four times the tokens in sixteen times the time: the sweep table calls that (HW)^2.
TEST(Reports, ModelSweepShowsTheGrowthExponent) {
  auto run = [](const CaseAxes& axes, double seconds, double tokens) {
    auto r = run_with(axes, {{"tokens", tokens},
                             {"flops", 1e9},
                             {"memory_bytes", tokens * 1e5},
                             {"op/attn_softmax/share", 0.5},
                             {"op/attn_softmax/grows_quadratically", 1},
                             {"op/corr_gemm/share", 0.25},
                             {"op/corr_gemm/grows_quadratically", 1},
                             {"op/gelu/share", 0.25},
                             {"op/gelu/grows_quadratically", 0}});
    r.real_accumulated_time = seconds;
    r.time_unit = benchmark::kSecond;
    return r;
  };
  const std::string table = format_model_sweep(
      {run({"model-sweep", "cpu", "f32", "side", 16}, 0.5, 256), run({"model-sweep", "cpu", "f32", "side", 32}, 8.0, 1024)});
  EXPECT_NE(table.find("cpu/f32"), std::string::npos) << table;
  EXPECT_NE(table.find("(HW)^2.00"), std::string::npos) << table;
  EXPECT_NE(table.find("75%"), std::string::npos) << table;  // the (HW)^2 operations' share
  EXPECT_NE(table.find("8.00 s"), std::string::npos) << table;
}

// The device's sweep is set against device memory and its own probe, not the host's STREAM triad
// (an H200's 3.5 TB/s read as 4000% of the host's triad before).
TEST(Reports, TheDevicesRooflineSweepIsSetAgainstTheDevicesCeilings) {
  auto run = [](const CaseAxes& axes, double bytes_per_second, double flops, double peak_fraction) {
    return run_with(axes, {{"bytes_per_second", bytes_per_second}, {"flops", flops}, {"peak_fraction", peak_fraction}});
  };
  Ceilings c;
  c.triad_bytes_per_second = 100e9;
  c.device.name = "a GPU";
  c.device.copy_bytes_per_second = 3.0e12, c.device.read_bytes_per_second = 3.5e12, c.device.write_bytes_per_second = 3.9e12;
  const std::string table = format_roofline_summary(
      {run({"roofline", "cuda", "f32", "k", 0}, 3.51e12, 0, 0), run({"roofline", "cuda", "f32", "k", 512}, 2e11, 32e12, 0.6),
       run({"roofline", "avx2", "f32", "k", 0}, 50e9, 0, 0), run({"roofline", "avx2", "f32", "k", 512}, 1e9, 150e9, 0.75)},
      c);
  EXPECT_NE(table.find("( 90% of device memory)"), std::string::npos) << table;
  EXPECT_NE(table.find("( 60% of peak)"), std::string::npos) << table;
  EXPECT_NE(table.find("( 50% of triad)"), std::string::npos) << table;
}

TEST(Reports, RoofCheckCountsFiguresAboveTheirRoofAndNamesTheLargest) {
  std::vector<ladder::Run> runs = {
      run_with({"gemm", "avx2", "f32", "n", 1024}, {{"roof_fraction", 0.8}}),
      run_with({"model", "cpu", "f32", "tokens", 20}, {{"op/residual/roof_fraction", 0.9}, {"op/gelu/roof_fraction", 0.5}})};
  std::string check = format_roof_check(runs);
  EXPECT_NE(check.find("all 3 figures at or below their roof (the closest: 0.90, model/cpu/f32/tokens:20 residual)"),
            std::string::npos)
      << check;
  runs.push_back(run_with({"roofline", "avx2", "f64", "k", 4}, {{"roof_fraction", 1.24}}));
  check = format_roof_check(runs);
  EXPECT_NE(check.find("1 of 4 figures above their roof (the largest: 1.24, roofline/avx2/f64/k:4)"), std::string::npos) << check;
  runs.push_back(run_with({"gemm", "cublas", "f32", "n", 2048}, {{"roof_fraction", 1.3}}));  // a GPU case
  check = format_roof_check(runs);
  EXPECT_NE(check.find("2 of 5 figures above their roof (the largest: 1.30, gemm/cublas/f32/n:2048)"), std::string::npos)
      << check;
  EXPECT_EQ(format_roof_check({run_with({"stream", "copy", "f64", "n", 8}, {{"bytes", 16}})}), "");
}

// 1.8 warned "should have a suffix" on every case of a lent H200's run at a bare number of seconds;
// 1.7 reads nothing else. Seconds go out in the library's form; 1.8's iteration counts pass as given.
TEST(Reports, MinTimeIsWrittenAsThisGoogleBenchmarkReadsIt) {
  EXPECT_EQ(min_time_flag("0.2", "1.7.1"), "--benchmark_min_time=0.2");
  EXPECT_EQ(min_time_flag("0.2s", "1.7.1"), "--benchmark_min_time=0.2");
  EXPECT_EQ(min_time_flag("0.2", "1.8.3"), "--benchmark_min_time=0.2s");
  EXPECT_EQ(min_time_flag("0.2s", "1.8.3"), "--benchmark_min_time=0.2s");
  EXPECT_EQ(min_time_flag("100x", "1.8.3"), "--benchmark_min_time=100x");
  EXPECT_EQ(min_time_flag("0.5", "1.9.0"), "--benchmark_min_time=0.5s");
  EXPECT_EQ(min_time_flag("0.5", "2.0"), "--benchmark_min_time=0.5s");
}

// Google Benchmark 1.8's Run (skipped, skip_message) and 1.7's (error_occurred, error_message):
// both read the same way, so the program builds against either.
TEST(Reports, AFailedRunReadsTheSameUnderGoogleBenchmark17And18) {
  struct Run17 {
    bool error_occurred = false;
    std::string error_message;
  };
  enum Skipped : unsigned { NotSkipped = 0, SkippedWithMessage, SkippedWithError };
  struct Run18 {
    Skipped skipped = NotSkipped;
    std::string skip_message;
  };
  EXPECT_FALSE(run_failed(Run17{}));
  EXPECT_FALSE(run_failed(Run18{}));
  EXPECT_TRUE(run_failed(Run17{true, "verification failed"}));
  EXPECT_TRUE(run_failed(Run18{SkippedWithError, "verification failed"}));
  EXPECT_EQ(run_error(Run17{true, "verification failed"}), "verification failed");
  EXPECT_EQ(run_error(Run18{SkippedWithError, "verification failed"}), "verification failed");
}

// The head-to-head pairs come from the rungs' own rivals: a hand-written kernel beside the
// library it should match, with its target only at the size the target is for.
TEST(Reports, HeadToHeadSetsEachRungBesideItsRivalsWithTheTargetAtItsSize) {
  auto gemm = [](const CaseAxes& axes, double flops) { return run_with(axes, {{"flops", flops}}); };
  const std::string table =
      format_ratios({gemm({"gemm", "avx512", "f32", "n", 2048}, 210e9), gemm({"gemm", "openblas", "f32", "n", 2048}, 200e9),
                     gemm({"gemm", "avx512", "f32", "n", 1024}, 100e9), gemm({"gemm", "openblas", "f32", "n", 1024}, 200e9),
                     gemm({"gemm", "boxed", "f32", "n", 64}, 1e6), gemm({"gemm", "python", "f32", "n", 64}, 2e6)});
  EXPECT_NE(table.find("avx512             / openblas           at n=2048    1.05x   (target >= 1.0)"), std::string::npos)
      << table;
  EXPECT_NE(table.find("avx512             / openblas           at n=1024    0.50x\n"), std::string::npos) << table;
  EXPECT_NE(table.find("boxed              / python             at n=64      0.50x   (target within 1/3 .. 3)"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("onednn"), std::string::npos) << "no rival without a figure: " << table;
}

}  // namespace
}  // namespace ladder

namespace ladder {
namespace {

// A case whose repetitions spread by more than 10% is marked noisy in the console's ladder.
TEST(Reports, ACaseWithNoisyRepetitionsIsMarked) {
  Registry registry;
  GemmRung rung;
  rung.name = "naive";
  registry.gemm.push_back(rung);
  auto median = run_with({"gemm", "naive", "f32", "n", 1024}, {{"flops", 1e9}, {"threads", 1}});
  median.run_type = benchmark::BenchmarkReporter::Run::RT_Aggregate;
  median.aggregate_name = "median";
  median.real_accumulated_time = 2.0;
  median.time_unit = benchmark::kSecond;
  auto cv = median;
  cv.aggregate_name = "cv";
  cv.real_accumulated_time = 0.25;
  auto rows = ladder_rows(registry, {median, cv}, 1024);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].cv, 0.25);
  EXPECT_NE(format_ladder(rows).find("noisy (CV 25%)"), std::string::npos) << format_ladder(rows);
  cv.real_accumulated_time = 0.02;
  EXPECT_EQ(format_ladder(ladder_rows(registry, {median, cv}, 1024)).find("noisy"), std::string::npos);
}

}  // namespace
}  // namespace ladder
