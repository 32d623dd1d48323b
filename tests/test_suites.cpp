// The suites as the program knows them: each named once, with its rungs, and every case a suite
// makes belongs to one of its rungs (or, for the overhead suite's tiny GEMMs, to a GEMM rung).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/machine.hpp"
#include "core/registry.hpp"
#include "gemm/gemm_suite.hpp"
#include "suite.hpp"

namespace ladder {
namespace {

TEST(Suites, EachIsNamedOnceWithASummaryAndItsRungs) {
  std::set<std::string> names;
  for (const Suite& s : suites()) {
    EXPECT_TRUE(names.insert(s.name).second) << s.name << " is registered twice";
    EXPECT_FALSE(s.summary.empty()) << s.name;
    ASSERT_TRUE(s.rungs && s.cases) << s.name;
    EXPECT_EQ(find_suite(s.name), &s);
    std::set<std::string> rungs;
    for (const SuiteRung& r : s.rungs()) {
      EXPECT_TRUE(rungs.insert(r.name).second) << s.name << "/" << r.name << " is listed twice";
      EXPECT_FALSE(r.summary.empty()) << s.name << "/" << r.name;
      EXPECT_FALSE(r.where.empty()) << s.name << "/" << r.name;
    }
    EXPECT_FALSE(rungs.empty()) << s.name;
  }
  EXPECT_EQ(find_suite("fft"), nullptr);
}

// A request on this machine under `profile`, as the command line makes one.
SuiteRequest request_here(const MachineInfo& machine, Profile profile) {
  SuiteRequest request;
  request.profile = profile;
  request.machine = &machine;
  request.host_usable_bytes = 1e9;
  return request;
}

// A smoke request's cases, built but not run: each is <suite>/<rung>/... with a rung of that
// suite that is available here, so that --list and --rungs know every case's rung.
TEST(Suites, EveryCaseBelongsToAnAvailableRungOfItsSuite) {
  const MachineInfo machine = machine_info();
  const SuiteRequest request = request_here(machine, Profile::smoke);
  for (const Suite& s : suites()) {
    std::set<std::string> available;
    for (const SuiteRung& r : s.rungs())
      if (r.unavailable_reason().empty()) available.insert(r.name);
    for (const BenchmarkCase& c : s.cases(request)) {
      EXPECT_EQ(c.name, case_name(c.axes));
      EXPECT_FALSE(c.axes.size_axis.empty()) << c.name;
      if (c.axes.suite == kGemmSuite && s.name != kGemmSuite) {  // the overhead suite's tiny GEMMs
        const GemmRung* rung = registry().find_gemm(c.axes.rung);
        ASSERT_NE(rung, nullptr) << c.name;
        EXPECT_TRUE(rung->small_gemm_sweep) << c.name;
        continue;
      }
      EXPECT_EQ(c.axes.suite, s.name) << c.name;
      EXPECT_TRUE(available.count(c.axes.rung)) << c.name << ": its rung is not an available rung of " << s.name;
    }
  }
}

// naive's cliff at its cap (n = 1024, a power of two) is shown only against a neighbour on each side.
TEST(Suites, TheSweepTakesACappedRungOneSizePastItsCap) {
  const MachineInfo machine = machine_info();
  SuiteRequest request = request_here(machine, Profile::sweep);
  request.rungs = {"naive"};
  std::vector<std::int64_t> sizes;
  for (const BenchmarkCase& c : gemm_cases(request)) sizes.push_back(c.axes.size);
  const GemmRung* naive = registry().find_gemm("naive");
  ASSERT_NE(naive, nullptr);
  ASSERT_EQ(naive->max_n, 1024);
  ASSERT_FALSE(sizes.empty());
  EXPECT_EQ(sizes.back(), 1448);  // the sweep's next size past 1024, and none beyond it
  EXPECT_EQ(std::count(sizes.begin(), sizes.end(), 1024), 1);
}

TEST(Suites, ADeviceRungSaysWhyItCannotRunWithoutADevice) {
  const SuiteRung r = device_rung("x", "f32", "a test rung");
  EXPECT_EQ(r.where, "GPU");
  EXPECT_EQ(r.unavailable_reason(), device_unavailable_reason());
}

}  // namespace
}  // namespace ladder
