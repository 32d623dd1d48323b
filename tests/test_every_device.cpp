// --device all: each device's child gets its index and its own results file, and the children
// after device 0 only the GPU's cases. Run here with this test binary standing in for ladderbench
// (the children's "FAILED" lines in this test's output are the child asked to fail).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "every_device.hpp"

namespace ladder {
namespace {

using Args = std::vector<std::string>;

TEST(EveryDevice, EachChildNamesItsDeviceAndItsOwnResultsFile) {
  EXPECT_EQ(per_device_out_path("results/run.json", 3), "results/run.gpu3.json");
  EXPECT_EQ(per_device_out_path("run", 0), "run.gpu0");
  EXPECT_EQ(per_device_arguments({"--suite", "stream", "--device", "all", "--benchmark_out=r/a.json"}, 1),
            (Args{"--suite", "stream", "--device", "1", "--benchmark_out=r/a.gpu1.json"}));
  EXPECT_EQ(per_device_arguments({"--device=all", "--benchmark_out", "a.json", "--rungs", "cublas"}, 0),
            (Args{"--device=0", "--benchmark_out", "a.gpu0.json", "--rungs", "cublas"}));
}

// The child: writes whether it was told to run the GPU's cases alone, where the parent test says.
TEST(EveryDevice, AsChildRecordsItsEnvironment) {
  const char* record = std::getenv("LADDER_TEST_EVERY_DEVICE_RECORD");
  if (!record) GTEST_SKIP() << "run as a child of EveryDevice.ChildrenRunInTurnAndOnlyDeviceZeroRunsTheHostsCases";
  std::ofstream(record, std::ios::app) << (std::getenv(kOnlyDeviceCasesVariable) ? "device-only" : "everything") << "\n";
}

TEST(EveryDevice, AsChildFailsWhenAsked) {
  if (!std::getenv("LADDER_TEST_EVERY_DEVICE_FAIL")) GTEST_SKIP() << "run as a child, asked to fail";
  FAIL() << "asked to fail";
}

TEST(EveryDevice, ChildrenRunInTurnAndOnlyDeviceZeroRunsTheHostsCases) {
  const std::string record = ::testing::TempDir() + "every_device_record.txt";
  std::remove(record.c_str());
  setenv("LADDER_TEST_EVERY_DEVICE_RECORD", record.c_str(), 1);
  EXPECT_EQ(run_on_every_device({"--gtest_filter=EveryDevice.AsChildRecordsItsEnvironment"}, 3), 0);
  unsetenv("LADDER_TEST_EVERY_DEVICE_RECORD");
  EXPECT_EQ(std::getenv(kOnlyDeviceCasesVariable), nullptr);  // the parent's own environment is untouched
  std::ifstream in(record);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  EXPECT_EQ(lines, (Args{"everything", "device-only", "device-only"}));
  // A child that fails makes the whole run fail, after every device has had its turn.
  std::remove(record.c_str());
  setenv("LADDER_TEST_EVERY_DEVICE_RECORD", record.c_str(), 1);
  setenv("LADDER_TEST_EVERY_DEVICE_FAIL", "1", 1);
  EXPECT_EQ(run_on_every_device({"--gtest_filter=EveryDevice.AsChild*"}, 2), 1);  // gtest's status for a failure
  unsetenv("LADDER_TEST_EVERY_DEVICE_FAIL");
  unsetenv("LADDER_TEST_EVERY_DEVICE_RECORD");
  std::ifstream again(record);
  lines.clear();
  for (std::string line; std::getline(again, line);) lines.push_back(line);
  EXPECT_EQ(lines, (Args{"everything", "device-only"}));
}

}  // namespace
}  // namespace ladder
