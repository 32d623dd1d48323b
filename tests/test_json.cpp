// A smoke run at tiny sizes: the file is a Google Benchmark JSON document with the context and
// counters the report tools rely on, every available rung verified, nothing left half-written.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;

class SmokeRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // ctest runs each test of this fixture as its own process, possibly at once: one file each.
    path_ = fs::path(LADDER_TEST_TMP) / fmt::format("smoke-{}.json", getpid());
    fs::remove(path_);
    std::string command = fmt::format("'{}' --profile quick --sizes 8,24 --benchmark_min_time=0.001 "
                                      "--benchmark_out='{}' > '{}.log' 2>&1",
                                      LADDERBENCH_EXE, path_.string(), path_.string());
    exit_code_ = std::system(command.c_str());
    std::ifstream in(path_);
    if (in) doc_ = nlohmann::json::parse(in, nullptr, false);
  }
  static void TearDownTestSuite() {
    fs::remove(path_);
    fs::remove(path_.string() + ".log");
  }
  static inline fs::path path_;
  static inline int exit_code_ = -1;
  static inline nlohmann::json doc_;
};

TEST_F(SmokeRun, ExitsCleanlyAndRenamesTheFile) {
  EXPECT_EQ(exit_code_, 0);
  EXPECT_TRUE(fs::exists(path_));
  EXPECT_FALSE(fs::exists(path_.string() + ".partial"));
  ASSERT_FALSE(doc_.is_discarded()) << "not valid JSON";
}

TEST_F(SmokeRun, ContextDescribesMachineBuildAndPeaks) {
  ASSERT_TRUE(doc_.contains("context"));
  const auto& ctx = doc_["context"];
  for (const char* key : {"date", "host_name", "num_cpus", "caches", "library_build_type",  // Google Benchmark's
                          "machine_id", "cpu_model", "cpu_isa_flags", "cpu_logical_cores", "threads",
                          "memory_total_bytes", "compiler", "cxx_flags", "rung_flags", "git_sha",
                          "benchmark_library_version", "fmt_version", "max_isa", "peak_f32_flops",
                          "peak_f32_source"})
    EXPECT_TRUE(ctx.contains(key)) << key;
  EXPECT_GT(std::stod(ctx["peak_f32_flops"].get<std::string>()), 1e8);
}

TEST_F(SmokeRun, EveryCaseHasTheCountersAndNoError) {
  ASSERT_TRUE(doc_.contains("benchmarks"));
  std::set<std::string> rungs;
  for (const auto& b : doc_["benchmarks"]) {
    const std::string name = b["name"];
    EXPECT_FALSE(b.value("error_occurred", false)) << name << ": " << b.value("error_message", "");
    EXPECT_EQ(name.rfind("gemm/", 0), 0u) << name;
    for (const char* counter : {"flops", "bytes", "intensity", "threads", "n", "peak_fraction", "bytes_per_second"})
      EXPECT_TRUE(b.contains(counter)) << name << " lacks " << counter;
    if (b.contains("flops")) EXPECT_GT(b["flops"].get<double>(), 0) << name;
    EXPECT_GT(b["iterations"].get<double>(), 0) << name;
    rungs.insert(name.substr(5, name.find('/', 5) - 5));
  }
  for (const char* rung : {"boxed", "naive", "interchange", "autovec", "tiled", "parallel"})
    EXPECT_TRUE(rungs.count(rung)) << rung << " did not run";
}

}  // namespace
