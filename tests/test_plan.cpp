// --plan's estimate: what an earlier run's interleaved repetitions say a case costs, and what a
// call longer than the minimum time costs a case.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "plan.hpp"

namespace ladder {
namespace {

std::string write_run(const std::string& name, const std::string& benchmarks) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << R"({"context": {"ceilings_seconds": "3.5"}, "benchmarks": [)" << benchmarks << "]}";
  return path.string();
}

TEST(Plan, AnEarlierRunCostsACaseByItsOwnSecondsOverTheFirstRoundsRepetitions) {
  // Repetitions interleaved with another case's: case_busy_seconds is this case's own sum so far.
  const std::string path = write_run("ladder-plan-history.json", R"(
    {"run_name": "gemm/a/f32/n:8/real_time", "run_type": "iteration", "repetition_index": 0, "case_busy_seconds": 3.0},
    {"run_name": "gemm/b/f32/n:8/real_time", "run_type": "iteration", "repetition_index": 0, "case_busy_seconds": 1.0},
    {"run_name": "gemm/a/f32/n:8/real_time", "run_type": "iteration", "repetition_index": 1, "case_busy_seconds": 5.0},
    {"run_name": "gemm/a/f32/n:8/real_time", "run_type": "aggregate", "repetition_index": 1, "case_busy_seconds": 99.0},
    {"run_name": "gemm/a/f32/n:8/real_time", "run_type": "iteration", "repetition_index": 2, "case_busy_seconds": 7.0})");
  const History history = read_history(path);
  EXPECT_DOUBLE_EQ(history.ceilings_seconds, 3.5);
  EXPECT_DOUBLE_EQ(history.case_cost("gemm/a/f32/n:8", 2), 5.0);   // its first round: two repetitions
  EXPECT_DOUBLE_EQ(history.case_cost("gemm/a/f32/n:8", 6), 14.0);  // more than it had: its three scaled
  EXPECT_DOUBLE_EQ(history.case_cost("gemm/b/f32/n:8", 1), 1.0);
  EXPECT_DOUBLE_EQ(history.case_cost("gemm/c/f32/n:8", 1), 0);
}

TEST(Plan, AFileFromBeforeTheBusyCounterGivesNoHistory) {
  // case_wall_seconds ran from a case's first call to its last: its neighbours' repetitions too.
  const std::string path = write_run("ladder-plan-old.json", R"(
    {"run_name": "gemm/a/f32/n:8/real_time", "run_type": "iteration", "repetition_index": 3, "case_wall_seconds": 260.0})");
  EXPECT_DOUBLE_EQ(read_history(path).case_cost("gemm/a/f32/n:8", 4), 0);
}

TEST(Plan, ARepetitionIsGoogleBenchmarksSizingRunsUntilOneLastsTheMinimumTime) {
  const RepetitionRuns long_call = repetition_runs(2.0, 0.5);  // one call outlasts it
  EXPECT_DOUBLE_EQ(long_call.first_seconds, 2.0);
  EXPECT_EQ(long_call.first_runs, 1);
  EXPECT_DOUBLE_EQ(long_call.later_seconds, 2.0);
  const RepetitionRuns aimed = repetition_runs(0.3, 0.5);  // 1 iteration, then 3 (1.4 x 0.5 / 0.3)
  EXPECT_NEAR(aimed.first_seconds, 0.3 + 0.9, 1e-9);
  EXPECT_EQ(aimed.first_runs, 2);
  EXPECT_NEAR(aimed.later_seconds, 0.9, 1e-9);              // later repetitions reuse the last run's iterations
  const RepetitionRuns small = repetition_runs(1e-6, 0.5);  // ten times more a run, then aimed
  EXPECT_GT(small.first_seconds, 0.5);
  EXPECT_LT(small.first_seconds, 2 * 0.5);  // the last run aimed at 1.4 x, the runs before it a tenth each
  EXPECT_EQ(small.first_runs, 7);           // 1, 10, ..., 10^5 iterations, then 1.4 x 0.5 / 0.1 as many
  // Batched to a millisecond a run, the first run is a millisecond: 1, 10, 100 ms, then aimed.
  EXPECT_EQ(repetition_runs(1e-6, 0.5, 1e-3).first_runs, 4);
}

// A two-thread machine's plan of `cases` under a profile's repetitions and minimum time.
Plan plan_of(const std::vector<BenchmarkCase>& cases, const std::string& profile, int repetitions, double min_time) {
  MachineInfo machine;
  machine.threads = 2;
  PlanRequest request;
  request.profile = profile;
  request.repetitions = repetitions;
  request.min_time_seconds = min_time;
  request.cases = cases;
  return make_plan(machine, request);
}

TEST(Plan, ARungPreparedInEveryCallOfItsCasePaysItsPreparationInEachSizingRunAndRepetition) {
  // A Python rung starts its interpreter whenever Google Benchmark calls its case.
  record_rung_prepare_seconds("plan-test-session", 0.9);
  BenchmarkCase session, plain;
  session.name = "gemm/plan-test-session/f32/n:1024";
  session.rung = "plan-test-session";
  session.call_seconds = 0.01;
  plain = session;
  plain.name = "gemm/plan-test-plain/f32/n:1024";
  plain.rung = "plan-test-plain";
  const Plan plan = plan_of({session, plain}, "quick", 2, 0.2);
  // The verification, three sizing runs (1, 10, 28 calls of 10 ms), one more repetition.
  ASSERT_EQ(repetition_runs(0.01, 0.2).first_runs, 3);
  EXPECT_NEAR(plan.case_seconds.at(session.name) - plan.case_seconds.at(plain.name), (1 + 3 + 1) * 0.9, 1e-9);
}

TEST(Plan, ACaseWhoseCallOutlastsTheMinimumTimeIsCostedByItsCalls) {
  BenchmarkCase slow, fast;
  slow.name = "gemm/slow/f32/n:4096";
  slow.call_seconds = 20;
  fast.name = "gemm/fast/f32/n:4096";
  const Plan plan = plan_of({slow, fast}, "ladder", 4, 0.5);
  // Four timed calls and the two verifications around them.
  EXPECT_GE(plan.case_seconds.at(slow.name), 6 * 20);
  EXPECT_LT(plan.case_seconds.at(slow.name), 6 * 20 + 5);
  EXPECT_DOUBLE_EQ(plan.case_seconds.at(fast.name), prior_case_seconds(4, 0.5));
}

}  // namespace
}  // namespace ladder
