// The run's progress: which case of how many, the phase, the time spent and an estimate of the
// time left. On a terminal one status line redrawn at each case; through a pipe a plain line at
// most every kPipeSeconds (a log that shows the run is alive without a line per case).
#pragma once
#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "console.hpp"

namespace ladder {

// Seconds left in a round of `total` cases when `done` have finished in `elapsed` seconds: each
// case left is taken to cost what the cases done cost on average, that average pulled toward
// `prior_per_case` (what a case costs before any is measured: its repetitions at the minimum time,
// plus Google Benchmark's sizing and the verification) as if the prior were kPriorWeight cases
// already seen, so that the first few cases do not swing the estimate.
double estimated_seconds_left(int total, int done, double elapsed, double prior_per_case);
inline constexpr double kPriorWeight = 3;

// The same from the plan's estimate of each case (make_plan): the cases left, as planned, scaled
// by how the cases done compare with their plan (elapsed_done seconds for planned_done planned),
// that ratio pulled toward 1 as if kPriorWeight cases of `mean_planned` had gone as planned;
// less the time the current case has run already.
double planned_seconds_left(double planned_total, double planned_done, double elapsed_done, double in_current,
                            double mean_planned);

// "42 s", "3 min 05 s", "1 h 02 min".
std::string format_duration(double seconds);

class Progress {
 public:
  static constexpr double kPipeSeconds = 10;
  Progress(Console& console, double prior_per_case) : console_(console), prior_per_case_(prior_per_case) {}

  // The ceilings, or any phase before the cases; empty: the phase is over.
  void phase(const std::string& what);
  // A round of `cases` cases starts; `budget_seconds` > 0: the round may take no longer (the
  // adaptive rounds' budget), 0: estimated from its cases.
  void round(int number, int cases, double budget_seconds = 0);
  // The next case of the round starts (its first call: verification, then timing).
  void case_started(const std::string& name);
  // The first round is followed by adaptive rounds that may take up to `share` of its time.
  void extra_rounds(double share) { extra_share_ = share; }
  // The plan's estimate of each case of the first round, by name: the time left follows it.
  void planned(std::map<std::string, double> seconds);
  // The cases are over: the status line goes.
  void finish();
  double elapsed_seconds() const { return since(run_start_); }

  // What the status line (or the pipe's line) says now.
  std::string line() const;

 private:
  using Clock = std::chrono::steady_clock;
  double since(Clock::time_point t) const { return std::chrono::duration<double>(Clock::now() - t).count(); }
  void show();

  Console& console_;
  double prior_per_case_;
  Clock::time_point run_start_ = Clock::now();
  Clock::time_point round_start_ = Clock::now();
  std::optional<Clock::time_point> last_pipe_line_;  // none yet: the next line is written
  std::string phase_;
  int round_ = 0, round_cases_ = 0, started_ = 0;
  double round_budget_ = 0;
  double extra_share_ = 0;
  std::string case_;
  Clock::time_point case_start_ = Clock::now();
  std::map<std::string, double> planned_;
  double planned_total_ = 0, planned_done_ = 0, planned_current_ = 0, elapsed_done_ = 0;
};

}  // namespace ladder
