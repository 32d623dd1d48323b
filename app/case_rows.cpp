#include "case_rows.hpp"

#include <fmt/format.h>

#include <cmath>
#include <sstream>

#include "benchmark_compat.hpp"
#include "repetitions.hpp"
#include "roofs/regime.hpp"

namespace ladder {

namespace {

using Run = benchmark::BenchmarkReporter::Run;

const double* counter_of(const Run& run, const char* name) {
  const auto it = run.counters.find(name);
  return it == run.counters.end() ? nullptr : &it->second.value;
}

std::string seconds_text(double seconds) {
  if (seconds >= 1) return fmt::format("{:.3g} s", seconds);
  if (seconds >= 1e-3) return fmt::format("{:.3g} ms", seconds * 1e3);
  if (seconds >= 1e-6) return fmt::format("{:.3g} us", seconds * 1e6);
  return fmt::format("{:.3g} ns", seconds * 1e9);
}

// 436.7 G, 12.3 M: three or four significant digits and an SI prefix.
std::string si(double value) {
  static constexpr const char* kPrefixes[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  while (std::abs(value) >= 1000 && i < 5) value /= 1000, ++i;
  return fmt::format("{:.4g} {}", value, kPrefixes[i]);
}

std::string case_name_of(const Run& run) {
  benchmark::BenchmarkName name = run.run_name;
  name.repetitions.clear();
  name.time_type.clear();  // "real_time" / "manual_time": how it is timed, said in --help
  return name.str();
}

}  // namespace

std::string case_row_header() {
  return fmt::format("{:<36} {:>9} {:>6} {:>14}  {}\n", "case", "time", "+-cv", "rate", "bound (% of roof); error");
}

std::string case_row(const std::vector<Run>& runs) {
  const Run* shown = nullptr;
  double cv = -1;
  for (const Run& run : runs) {
    if (run.run_type == Run::RT_Aggregate) {
      if (run.aggregate_name == "median") shown = &run;
      if (run.aggregate_name == "cv") cv = run.real_accumulated_time;  // a fraction, not a time
    }
  }
  if (!shown)
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      // Repetitions come in one call and their statistics in the next (Google Benchmark reports
      // the two apart): the row waits for the median, but for a failure, which has none.
      if (run.repetitions > 1 && !run_failed(run)) continue;
      shown = &run;
    }
  if (!shown) return "";
  const std::string name = case_name_of(*shown);
  if (run_failed(*shown)) return fmt::format("{:<36} FAILED: {}\n", name, run_error(*shown));
  const double seconds = shown->GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(shown->time_unit);
  std::string rate;
  // FLOP/s where the case does arithmetic (a roofline point at zero intensity does none: its bytes).
  const double* flops = counter_of(*shown, "flops");
  const double* bytes = counter_of(*shown, "bytes_per_second");
  if (flops && (*flops > 0 || !bytes))
    rate = si(*flops) + "FLOP/s";
  else if (bytes)
    rate = si(*bytes) + "B/s";
  std::string bound;
  if (const double* code = counter_of(*shown, "regime"); code && *code >= 0 && *code < std::size(kRegimeNames))
    bound = kRegimeNames[static_cast<int>(*code)];
  if (const double* roof = counter_of(*shown, "roof_fraction"))
    bound += fmt::format("{}{:.0f}%", bound.empty() ? "" : " ", 100 * *roof);
  if (const double* error = counter_of(*shown, "rel_error"))
    bound += fmt::format("{}err {:.1e}", bound.empty() ? "" : "; ", *error);
  return fmt::format("{:<36} {:>9} {:>6} {:>14}  {}\n", name, seconds_text(seconds),
                     cv >= 0 ? fmt::format("{:.1f}%", 100 * cv) : "", rate, bound);
}

std::string debug_library_note(const benchmark::BenchmarkReporter::Context& context) {
  std::ostringstream basic;
  benchmark::BenchmarkReporter::PrintBasicContext(&basic, context);
  if (basic.str().find("built as DEBUG") == std::string::npos) return "";
  return "note: Google Benchmark's library was compiled without NDEBUG (it says \"built as DEBUG\"): it only starts, "
         "pauses and stops the clock around each batch of iterations, and the timed loop is ladderbench's own "
         "optimised code, so the figures are unaffected\n";
}

CollectingReporter::CollectingReporter(Console& console, RowStyle style, bool colour) : console_(console), style_(style) {
  if (style == RowStyle::verbose)
    full_rows_ = std::make_unique<benchmark::ConsoleReporter>(colour ? benchmark::ConsoleReporter::OO_Defaults
                                                                     : benchmark::ConsoleReporter::OO_Tabular);
}

bool CollectingReporter::ReportContext(const Context& context) {
  if (context_printed_) return true;
  context_printed_ = true;
  if (style_ == RowStyle::none) return true;
  bool printed = true;
  if (style_ == RowStyle::verbose) {
    console_.status("");
    printed = full_rows_->ReportContext(context);
  }
  console_.say(stderr, debug_library_note(context));
  if (style_ == RowStyle::compact) console_.table(stdout, "\n" + case_row_header());
  return printed;
}

void CollectingReporter::ReportRuns(const std::vector<Run>& runs) {
  std::vector<Run> named = runs;
  for (Run& run : named) drop_repeats_from_name(run);
  runs_.insert(runs_.end(), named.begin(), named.end());
  if (style_ == RowStyle::verbose) {
    console_.status("");
    full_rows_->ReportRuns(named);
  } else if (style_ == RowStyle::compact) {
    console_.table(stdout, case_row(named));
  }
}

}  // namespace ladder
