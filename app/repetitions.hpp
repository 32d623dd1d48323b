// Enough repetitions, adaptively: every case runs a floor of repetitions (interleaved at random
// across cases, as one run does); then, while a time budget lasts, the cases whose repetitions
// still spread more than a target run again, a few more each round, up to a cap. The statistics
// (mean, median, standard deviation, coefficient of variation) are then over all of a case's
// repetitions, whichever round ran them, and replace the ones Google Benchmark computes per round.
#pragma once
#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

namespace ladder {

struct RepetitionPolicy {
  // Four a side is the fewest at which the rank test of `report.py compare` can reach p < 0.05.
  int floor = 4;
  int step = 4;  // repetitions a round adds to a case that needs more
  int cap = 16;  // no case runs more than this
  double target_cv = 0.03;
  double budget_share = 0.25;  // the extra rounds may take this share of the first round's time
  std::string describe() const;
};

using Run = benchmark::BenchmarkReporter::Run;

// A round's repetition count is part of Google Benchmark's name for a case ("/repeats:4"); the
// case's own name is without it, whatever the round.
void drop_repeats_from_name(Run& run);

// Each case's repetitions (runs that are neither aggregates nor failures), by run name.
std::map<std::string, std::vector<const Run*>> repetitions_by_case(const std::vector<Run>& runs);

// The sample standard deviation over the mean of each repetition's time (0 for fewer than two).
double coefficient_of_variation(const std::vector<const Run*>& repetitions);

// The cases (by the name they were registered under) that need another round: fewer
// repetitions than the cap and a coefficient of variation above the target.
std::vector<std::string> cases_needing_more(const std::vector<Run>& runs, const RepetitionPolicy& policy);

// Of the cases needing more, those the next round runs: noisiest first, each where its cost (step
// more repetitions at its own mean repetition's timed seconds, times `wall_per_timed_second`,
// what the first round's wall time was per second timed: set-up, verification and Google
// Benchmark's sizing trials included) still fits in `seconds_left`; a case that does not fit is
// passed over for a cheaper one. So a round never starts what the budget cannot pay for.
std::vector<std::string> cases_for_round(const std::vector<Run>& runs, const RepetitionPolicy& policy, double seconds_left,
                                         double wall_per_timed_second);

// The seconds a set of runs timed (every repetition's accumulated real or manual time).
double timed_seconds(const std::vector<Run>& runs);

// Mean, median, stddev and cv of every case with two or more repetitions, over all of them: each
// repetition's time per iteration and each counter, as Google Benchmark's own aggregates report
// them (the cv in the time's place, as a fraction).
std::vector<Run> merged_aggregates(const std::vector<Run>& runs);

// Google Benchmark's per-round aggregates dropped, and each repetition under the case's own
// name and numbered across rounds (repetition_index 0..N-1 per case, in the order they ran).
// Rounds may come in one at a time (the results file, as they end) or all at once.
class RoundNumbering {
 public:
  std::vector<Run> repetitions(const std::vector<Run>& runs);

 private:
  std::map<std::string, int64_t> seen_;
};
inline std::vector<Run> renumbered_repetitions(const std::vector<Run>& runs) { return RoundNumbering{}.repetitions(runs); }

}  // namespace ladder
