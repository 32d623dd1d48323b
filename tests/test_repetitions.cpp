// Adaptive repetitions: which cases need another round, and the statistics over every round.
#include <gtest/gtest.h>

#include "repetitions.hpp"

namespace ladder {
namespace {

using BenchRun = benchmark::BenchmarkReporter::Run;

// A failed repetition as this build's Google Benchmark marks one (1.7: error_occurred; 1.8: skipped).
template <class R>
void mark_failed(R& r) {
  if constexpr (requires { r.error_occurred; })
    r.error_occurred = true;
  else
    r.skipped = decltype(r.skipped)::SkippedWithError;
}

BenchRun repetition(const std::string& name, double seconds, double flops, int iterations = 2) {
  BenchRun r;
  r.run_name.function_name = name;
  r.run_name.time_type = "real_time";
  r.run_type = BenchRun::RT_Iteration;
  r.time_unit = benchmark::kSecond;
  r.iterations = iterations;
  r.real_accumulated_time = seconds * iterations;
  r.cpu_accumulated_time = seconds * iterations;
  r.counters["flops"] = benchmark::Counter(flops);
  return r;
}

TEST(Repetitions, OnlyCasesThatSpreadAndHaveRoomGetAnotherRound) {
  RepetitionPolicy policy;
  policy.cap = 6;
  std::vector<BenchRun> runs;
  for (double s : {1.00, 1.01, 0.99, 1.00}) runs.push_back(repetition("quiet", s, 1 / s));
  for (double s : {1.0, 1.3, 0.8, 1.1}) runs.push_back(repetition("noisy", s, 1 / s));
  for (double s : {1.0, 1.3, 0.8, 1.1, 1.2, 0.9}) runs.push_back(repetition("noisy-at-its-cap", s, 1 / s));
  BenchRun failed = repetition("failed", 1.0, 1.0);
  mark_failed(failed);
  runs.push_back(failed);
  BenchRun aggregate = repetition("quiet", 99, 99);
  aggregate.run_type = BenchRun::RT_Aggregate;  // a round's own statistics are no repetition
  runs.push_back(aggregate);
  EXPECT_EQ(cases_needing_more(runs, policy), std::vector<std::string>{"noisy"});
  EXPECT_NEAR(coefficient_of_variation(repetitions_by_case(runs)["quiet/real_time"]), 0.0082, 0.0001);
}

// A round takes the noisiest cases first, as many as the seconds left pay for, each costed at
// `step` more of its own repetitions scaled by the first round's wall time per timed second.
TEST(Repetitions, ARoundTakesTheNoisiestCasesTheBudgetPaysFor) {
  RepetitionPolicy policy;  // step 4
  std::vector<BenchRun> runs;
  for (double s : {1.0, 1.1, 0.9, 1.0}) runs.push_back(repetition("slow-noisy", s, 1, 1));          // cost 4 x 1 s
  for (double s : {0.1, 0.2, 0.05, 0.15}) runs.push_back(repetition("fast-noisier", s, 1, 1));      // cost 4 x 0.125 s
  for (double s : {0.100, 0.106, 0.104, 0.110}) runs.push_back(repetition("fast-noisy", s, 1, 1));  // cost 4 x 0.105 s
  for (double s : {1.00, 1.001, 0.999, 1.0}) runs.push_back(repetition("quiet", s, 1, 1));
  EXPECT_DOUBLE_EQ(timed_seconds(runs), 4.0 + 0.5 + 0.42 + 4.0);
  using Names = std::vector<std::string>;
  EXPECT_EQ(cases_for_round(runs, policy, 100, 1), (Names{"fast-noisier", "slow-noisy", "fast-noisy"}));
  // 1 s: the slow case (4 s) is passed over for the fast ones behind it.
  EXPECT_EQ(cases_for_round(runs, policy, 1, 1), (Names{"fast-noisier", "fast-noisy"}));
  // The same seconds at twice the wall time per timed second: only the noisiest fast one.
  EXPECT_EQ(cases_for_round(runs, policy, 1, 2), (Names{"fast-noisier"}));
  EXPECT_TRUE(cases_for_round(runs, policy, 0, 1).empty());
  EXPECT_TRUE(cases_for_round(runs, policy, -1, 1).empty());  // past the deadline
}

TEST(Repetitions, StatisticsCoverEveryRoundAndNumberTheRepetitions) {
  std::vector<BenchRun> runs;
  for (double s : {2.0, 4.0}) runs.push_back(repetition("case", s, 8 / s));
  BenchRun round_aggregate = repetition("case", 3.0, 3.0);
  round_aggregate.run_type = BenchRun::RT_Aggregate;
  round_aggregate.aggregate_name = "median";
  runs.push_back(round_aggregate);
  for (double s : {6.0, 8.0, 10.0}) runs.push_back(repetition("case", s, 8 / s, 1));  // a second round
  const std::vector<BenchRun> kept = renumbered_repetitions(runs);
  ASSERT_EQ(kept.size(), 5u);
  for (std::size_t i = 0; i < kept.size(); ++i) EXPECT_EQ(kept[i].repetition_index, static_cast<int64_t>(i));
  const std::vector<BenchRun> aggregates = merged_aggregates(kept);
  ASSERT_EQ(aggregates.size(), 4u);
  std::map<std::string, const BenchRun*> by;
  for (const BenchRun& a : aggregates) by[a.aggregate_name] = &a;
  EXPECT_EQ(by["median"]->repetitions, 5);
  EXPECT_DOUBLE_EQ(by["median"]->GetAdjustedRealTime(), 6.0);  // in the case's unit (seconds here)
  EXPECT_DOUBLE_EQ(by["mean"]->GetAdjustedRealTime(), 6.0);
  EXPECT_NEAR(by["stddev"]->GetAdjustedRealTime(), 3.1623, 1e-4);
  EXPECT_NEAR(by["cv"]->real_accumulated_time, 3.1623 / 6.0, 1e-4);
  EXPECT_EQ(by["cv"]->aggregate_unit, benchmark::StatisticUnit::kPercentage);
  EXPECT_DOUBLE_EQ(by["median"]->counters.at("flops").value, 8.0 / 6);  // the median of 4, 2, 4/3, 1, 0.8
}

}  // namespace
}  // namespace ladder
