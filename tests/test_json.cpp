// A smoke run at tiny sizes: the file is a Google Benchmark JSON document with the context and
// counters the report tools rely on, every available rung verified, nothing left half-written.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;

std::vector<std::string> split_text(const std::string& text, char separator) {
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, separator);) items.push_back(item);
  return items;
}

class SmokeRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // One file for this process's run (another test binary may run the program at the same time).
    path_ = fs::path(LADDER_TEST_TMP) / fmt::format("smoke-{}.json", getpid());
    fs::remove(path_);
    std::string command = fmt::format(
        "'{}' --profile smoke --benchmark_min_time=0.001 "
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
  for (const char* key : {"date",
                          "host_name",
                          "num_cpus",
                          "caches",
                          "library_build_type",  // Google Benchmark's
                          "machine_id",
                          "cpu_model",
                          "cpu_isa_flags",
                          "cpu_logical_cores",
                          "threads",
                          "memory_total_bytes",
                          "compiler",
                          "cxx_flags",
                          "rung_flags",
                          "git_sha",
                          "benchmark_library_version",
                          "fmt_version",
                          "max_isa",
                          "peak_f32_flops",
                          "peak_f32_source",
                          "peak_f64_flops",
                          "peak_f32_flops_one_core",
                          "ladder_order",
                          "bandwidth_stream_triad_bytes_per_second",
                          "bandwidth_main_memory_roof_bytes_per_second",
                          "ridge_point_f32_flop_per_byte",
                          "overhead_call_seconds",
                          "overhead_omp_fork_join_seconds",
                          "overhead_bytecode_dispatch_seconds",
                          "overhead_boxed_add_seconds",
                          "model_out_of_memory_side_16GB",
                          "model_cpu_elementwise_isa",
                          "cpu_microarchitecture"})
    EXPECT_TRUE(ctx.contains(key)) << key;
  // The sweep says where each backend stopped and why: every one that ran it, and cpu wherever
  // the model suite ran cpu (a build without OpenBLAS has none).
  for (const auto& b : doc_["benchmarks"]) {
    const std::string name = b.value("name", "");
    if (name.rfind("model/cpu/", 0) == 0) {
      EXPECT_TRUE(ctx.contains("model_sweep/cpu"));
    }
    if (name.rfind("model-sweep/", 0) != 0) continue;
    const std::string backend = name.substr(12, name.find('/', 12) - 12);
    EXPECT_TRUE(ctx.contains("model_sweep/" + backend)) << backend;
  }
  EXPECT_GT(std::stod(ctx["peak_f32_flops"].get<std::string>()), 1e8);
  // A build with CUDA names its runtime and cuBLAS versions, with or without a device.
  if (ctx.contains("cuda_device_status")) {
    for (const char* key : {"cuda_runtime_version", "cuda_driver_version", "cublas_version"})
      EXPECT_TRUE(ctx.contains(key)) << key;
    if (ctx.contains("cublas_version")) {
      const std::string version = ctx["cublas_version"].get<std::string>();
      EXPECT_EQ(std::count(version.begin(), version.end(), '.'), 2) << version;
      EXPECT_NE(version.rfind("0.", 0), 0u) << version;
    }
  }
  // With a device: its measured ceilings, L2's read bandwidth among them.
  if (ctx.contains("gpu_name"))
    for (const char* key :
         {"gpu_peak_f32_fma_flops", "gpu_bandwidth_copy_bytes_per_second", "gpu_bandwidth_read_bytes_per_second",
          "gpu_bandwidth_write_bytes_per_second", "gpu_bandwidth_memory_roof_bytes_per_second",
          "gpu_bandwidth_l2_read_bytes_per_second", "gpu_l2_bytes", "gpu_overhead_launch_seconds"}) {
      ASSERT_TRUE(ctx.contains(key)) << key;
      EXPECT_GT(std::stod(ctx[key].get<std::string>()), 0) << key;
    }
  // The sweep's plateaus (which levels show depends on the machine and the smoke sweep's reach).
  int one_core = 0, all_cores = 0;
  for (auto it = ctx.begin(); it != ctx.end(); ++it) {
    if (it.key().rfind("bandwidth_L", 0) != 0) continue;
    one_core += it.key().find("_one_core_") != std::string::npos;
    all_cores += it.key().find("_all_cores_") != std::string::npos;
  }
  EXPECT_GT(one_core, 0);
  EXPECT_GT(all_cores, 0);
}

// What ran, as the software itself said: every rung that ran names the version of what it ran on,
// and every CPU rung compiled in its own file its hottest loop as the build read it.
TEST_F(SmokeRun, TheContextRecordsWhatEachRungThatRanRanOn) {
  const auto& ctx = doc_["context"];
  const std::map<std::string, std::vector<std::string>> needs = {
      {"python", {"software/python"}},
      {"numpy", {"software/numpy"}},
      {"torch", {"software/torch"}},
      {"torch-bf16", {"software/torch-bf16"}},
      {"openblas", {"openblas_config", "openblas_core", "openblas_threads"}},
      {"onednn", {"onednn_version", "onednn_isa"}},
      {"onednn-bf16", {"onednn_version", "onednn_isa"}}};
  std::set<std::string> ran;
  for (const auto& b : doc_["benchmarks"]) {
    const std::string name = b.value("run_name", "");
    if (name.rfind("gemm/", 0) == 0) ran.insert(name.substr(5, name.find('/', 5) - 5));
  }
  ASSERT_FALSE(ran.empty());
  for (const auto& [rung, keys] : needs) {
    if (!ran.count(rung)) continue;
    for (const auto& key : keys) EXPECT_TRUE(ctx.contains(key)) << rung << " ran without " << key;
  }
  EXPECT_EQ(ctx.value("rung_inner_loop_fields", ""), "instructions,arithmetic,stack_loads,stack_stores,flops");
  for (const char* rung : {"naive", "interchange", "tiled"}) {
    ASSERT_TRUE(ctx.contains(std::string("rung_inner_loop/") + rung)) << rung;
    const auto fields = split_text(ctx[std::string("rung_inner_loop/") + rung].get<std::string>(), ',');
    ASSERT_EQ(fields.size(), 5u) << rung;
    EXPECT_GT(std::stoi(fields[1]), 0) << rung << ": its loop does arithmetic";
    EXPECT_GT(std::stoi(fields[4]), 0) << rung << ": its loop does FLOPs";
  }
}

// The names a context key lists, '|'-separated (mechanism_names, unit_names, profile_names).
std::set<std::string> context_names(const nlohmann::json& ctx, const char* key) {
  const auto names = split_text(ctx.value(key, std::string()), '|');
  return {names.begin(), names.end()};
}

// The names a report module compares something against: for each match of `compared` (its second
// group the operands, `== "X"` or `in ("X", "Y")`), every quoted name up to the next clause
// (`mechanism == "x" or "tf32" in rung`, `... and "dot products" in unit`, `... else "other"`).
std::vector<std::string> compared_names(const std::string& source, const std::regex& compared) {
  static const std::regex quoted(R"re("([^"]+)")re");
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(source.begin(), source.end(), compared); it != std::sregex_iterator(); ++it) {
    std::string operands = (*it)[2];
    for (const char* clause : {" or ", " and ", " else "}) operands = operands.substr(0, operands.find(clause));
    for (auto q = std::sregex_iterator(operands.begin(), operands.end(), quoted); q != std::sregex_iterator(); ++q)
      names.push_back((*q)[1]);
  }
  return names;
}

// The mechanisms and units the ladder report compares against (scripts/ladderreport/ladder.py, why.py)
// are the program's own names, as the context lists them: a name changed on one side fails here.
TEST_F(SmokeRun, TheLadderReportKnowsOnlyTheProgramsMechanismsAndUnits) {
  const auto& ctx = doc_["context"];
  ASSERT_TRUE(ctx.contains("mechanism_names"));
  const std::set<std::string> names = context_names(ctx, "mechanism_names");
  EXPECT_TRUE(names.count("hand-written kernel") && names.count("SIMD width")) << ctx["mechanism_names"];
  std::string source;
  for (const char* module : {"ladder.py", "why.py"}) {
    std::ifstream in(std::string(LADDER_SOURCE_DIR) + "/scripts/ladderreport/" + module);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(text.empty()) << module;
    source += text;
  }
  // mechanism == "X", below_mechanism in ("X", "Y").
  const auto mechanisms = compared_names(source, std::regex(R"(mechanism (==|!=|in) ([^:\n]*))"));
  for (const std::string& name : mechanisms)
    EXPECT_TRUE(names.count(name)) << "the ladder report compares a mechanism against '" << name << "', which no rung has";
  EXPECT_GT(mechanisms.size(), 10u);
  // The same for the units it compares against (`kind == "X"`), from the context's unit_names.
  ASSERT_TRUE(ctx.contains("unit_names"));
  const std::set<std::string> units = context_names(ctx, "unit_names");
  const auto kinds = compared_names(source, std::regex(R"re(kind (==) ("[^"]+"))re"));
  for (const std::string& name : kinds)
    EXPECT_TRUE(units.count(name)) << "the ladder report compares a unit against '" << name
                                   << "', which the program does not name";
  EXPECT_GT(kinds.size(), 0u);
}

// The profiles the report tools compare against are the program's own.
TEST_F(SmokeRun, TheReportToolsKnowOnlyTheProgramsProfiles) {
  const auto& ctx = doc_["context"];
  ASSERT_TRUE(ctx.contains("profile_names"));
  const std::set<std::string> profiles = context_names(ctx, "profile_names");
  EXPECT_TRUE(profiles.count(ctx["profile"].get<std::string>())) << ctx["profile_names"];
  // `get("profile") == "X"`, `profile in ("X", "Y")`.
  const std::regex compared(R"re(profile"?\)? (==|in) ([^:\n]*))re");
  std::size_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(LADDER_SOURCE_DIR) + "/scripts/ladderreport")) {
    if (entry.path().extension() != ".py" || entry.path().filename().string().starts_with("test_")) continue;
    std::ifstream in(entry.path());
    const std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const std::string& name : compared_names(source, compared)) {
      ++seen;
      EXPECT_TRUE(profiles.count(name)) << entry.path().filename() << " compares a profile against '" << name << "'";
    }
  }
  EXPECT_GT(seen, 0u);
}

// Counters every case of a suite carries.
const std::map<std::string, std::vector<const char*>> kCounters = {
    {"gemm", {"flops", "bytes", "intensity", "threads", "n", "peak_fraction", "roof_fraction", "bytes_per_second", "rel_error"}},
    {"stream", {"bytes", "n", "threads", "bytes_per_second"}},
    {"cache", {"bytes", "working_set_bytes", "threads", "bytes_per_second"}},
    {"roofline", {"flops", "bytes", "intensity", "k", "threads", "roof_fraction", "bytes_per_second"}},
    {"overhead", {"seconds_per_op", "items_per_second", "threads"}},
    {"pcie", {"bytes", "bytes_per_second"}},
    {"model",
     {"flops", "bytes", "tokens", "threads", "memory_bytes", "op/corr_gemm/seconds", "op/corr_gemm/share",
      "op/attn_softmax/flops"}},
    {"model-sweep", {"flops", "tokens", "memory_bytes", "op/corr_gemm/seconds", "op/attn_softmax/share"}},
};

TEST_F(SmokeRun, EveryCaseHasItsSuitesCountersAndNoError) {
  ASSERT_TRUE(doc_.contains("benchmarks"));
  std::set<std::string> suites, gemm_rungs, roofline_rungs;
  for (const auto& b : doc_["benchmarks"]) {
    const std::string name = b["name"];
    EXPECT_FALSE(b.value("error_occurred", false)) << name << ": " << b.value("error_message", "");
    const std::string suite = name.substr(0, name.find('/'));
    const std::string rung = name.substr(suite.size() + 1, name.find('/', suite.size() + 1) - suite.size() - 1);
    suites.insert(suite);
    ASSERT_TRUE(kCounters.count(suite)) << name;
    for (const char* counter : kCounters.at(suite)) {
      // The compiled backends' kernels span several operations: their pass is split by kind of
      // kernel, not by operation (seen on Debian 13, whose PyTorch compiles).
      if (rung.rfind("torch-compile", 0) == 0 && std::string(counter).rfind("op/", 0) == 0) continue;
      EXPECT_TRUE(b.contains(counter)) << name << " lacks " << counter;
    }
    EXPECT_GT(b.value("iterations", 0.0), 0) << name;
    if (suite == "gemm") {
      gemm_rungs.insert(rung);
      EXPECT_GT(b.value("flops", 0.0), 0) << name;
      const std::string label = b.value("label", "");
      EXPECT_NE(label.find("-bound"), std::string::npos) << name << " has no regime in its label: " << label;
    }
    if (suite == "roofline") roofline_rungs.insert(rung);
  }
  // pcie runs only where a device answers (its cases, like every GPU case, were first seen on an H200).
  // The sweep leaves out the slow backends: a build with neither OpenBLAS, oneDNN nor a device
  // has none to sweep, and then no model_sweep/<backend> note either.
  std::set<std::string> expected = {"gemm", "stream", "cache", "roofline", "overhead", "model"};
  if (doc_["context"].contains("gpu_name")) expected.insert("pcie");
  for (const auto& [key, value] : doc_["context"].items())
    if (key.rfind("model_sweep/", 0) == 0) expected.insert("model-sweep");
  EXPECT_EQ(suites, expected);
  for (const char* rung : {"boxed", "naive", "interchange", "autovec", "tiled", "parallel"})
    EXPECT_TRUE(gemm_rungs.count(rung)) << rung << " did not run";
  EXPECT_TRUE(roofline_rungs.count("boxed"));
}

}  // namespace
