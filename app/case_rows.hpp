// What the console shows of each case as it ends: one row a person reads (name, time and its
// spread, rate, regime and share of its roof, error against the reference) within the terminal's
// width, every other counter left to the results file; --verbose shows Google Benchmark's own
// full rows instead, --quiet none. Every run is kept for the closing tables either way.
#pragma once
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "console.hpp"

namespace ladder {

enum class RowStyle { compact, verbose, none };

// The row of one case from the runs Google Benchmark reports when it ends (its repetitions and
// their aggregates, or a single run): the median and its CV where repetitions made them.
std::string case_row(const std::vector<benchmark::BenchmarkReporter::Run>& runs);
// The column heads above the rows.
std::string case_row_header();

// What the header says of Google Benchmark's build, where its library was compiled without
// NDEBUG and prints "Library was built as DEBUG" (Debian's package): whether that touches the
// figures. Empty where the library does not say so.
std::string debug_library_note(const benchmark::BenchmarkReporter::Context& context);

class CollectingReporter : public benchmark::BenchmarkReporter {
 public:
  CollectingReporter(Console& console, RowStyle style, bool colour);
  // The machine's context once, however many rounds the run takes.
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  const std::vector<Run>& runs() const { return runs_; }
  // After adaptive rounds: the repetitions of every round and the statistics over all of them.
  void replace_runs(std::vector<Run> runs) { runs_ = std::move(runs); }

 private:
  Console& console_;
  RowStyle style_;
  std::unique_ptr<benchmark::ConsoleReporter> full_rows_;  // --verbose
  std::vector<Run> runs_;
  bool context_printed_ = false;
};

}  // namespace ladder
