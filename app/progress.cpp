#include "progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ladder {

double estimated_seconds_left(int total, int done, double elapsed, double prior_per_case) {
  const double per_case = (elapsed + kPriorWeight * prior_per_case) / (done + kPriorWeight);
  return std::max(0, total - done) * per_case;
}

double planned_seconds_left(double planned_total, double planned_done, double elapsed_done, double in_current,
                            double mean_planned) {
  const double pull = kPriorWeight * mean_planned;
  const double pace = (elapsed_done + pull) / (planned_done + pull);
  return std::max(0.0, (planned_total - planned_done) * pace - in_current);
}

std::string format_duration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
  return fmt::format("{} h {:02} min", s / 3600, s % 3600 / 60);
}

void Progress::phase(const std::string& what) {
  phase_ = what;
  if (what.empty())
    console_.status("");
  else
    show();
}

void Progress::round(int number, int cases, double budget_seconds) {
  round_ = number;
  round_cases_ = cases;
  round_budget_ = budget_seconds;
  started_ = 0;
  round_start_ = Clock::now();
  phase_.clear();
}

void Progress::planned(std::map<std::string, double> seconds) {
  planned_ = std::move(seconds);
  planned_total_ = 0;
  for (const auto& [name, s] : planned_) planned_total_ += s;
}

void Progress::case_started(const std::string& name) {
  ++started_;
  case_ = name;
  case_start_ = Clock::now();
  if (round_ == 1 && !planned_.empty()) {
    planned_done_ += planned_current_;
    elapsed_done_ = since(round_start_);
    const auto it = planned_.find(name);
    planned_current_ = it == planned_.end() ? 0 : it->second;
  }
  show();
}

void Progress::finish() { console_.status(""); }

std::string Progress::line() const {
  const std::string elapsed = format_duration(since(run_start_));
  if (round_ == 0) return fmt::format("{}: {}", elapsed, phase_);
  const int done = started_ - 1;
  double left = round_ == 1 && !planned_.empty()
                    ? planned_seconds_left(planned_total_, planned_done_, elapsed_done_, since(case_start_),
                                           planned_total_ / static_cast<double>(planned_.size()))
                    : estimated_seconds_left(round_cases_, done, since(round_start_), prior_per_case_);
  std::string left_text = "~" + format_duration(left) + " left";
  if (round_ == 1 && extra_share_ > 0)
    left_text += ", then up to " + format_duration(extra_share_ * (since(round_start_) + left)) + " of extra rounds";
  // The adaptive rounds stop at their budget: what is left is at most the budget's rest.
  if (round_budget_ > 0) {
    left = std::min(left, std::max(0.0, round_budget_ - since(round_start_)));
    left_text = "at most " + format_duration(left) + " left";
  }
  const std::string round = round_ > 1 ? fmt::format("round {}, ", round_) : "";
  return fmt::format("[{}{}/{}] {}, {}: {}", round, started_, round_cases_, elapsed, left_text, case_);
}

void Progress::show() {
  if (console_.quiet()) return;
  if (console_.status_line()) {
    console_.status(line());
    return;
  }
  // A pipe: a plain line now and then, and always the first case's and the last case's.
  if (round_ == 0) return;  // the phases before the cases say themselves
  const bool last = started_ == round_cases_;
  if (last_pipe_line_ && !last && since(*last_pipe_line_) < kPipeSeconds) return;
  last_pipe_line_ = Clock::now();
  console_.say(stderr, line() + "\n");
}

}  // namespace ladder
