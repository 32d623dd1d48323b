// The table printed at the end of a run, built from the same runs that go into the JSON.
#pragma once
#include <benchmark/benchmark.h>

#include <string>
#include <string_view>
#include <vector>

#include "core/registry.hpp"

namespace ladder {

struct Ceilings;

// Whether a run failed (and has no figures), and why. Google Benchmark 1.7 (Debian 12) says so
// with error_occurred and error_message; 1.8 (Ubuntu 24.04, as on a lent H200) replaced them with
// skipped and skip_message. Templates, so that the branch for the other version is never compiled.
template <class Run>
bool run_failed(const Run& run) {
  if constexpr (requires { run.error_occurred; })
    return run.error_occurred;
  else
    return run.skipped != decltype(run.skipped){};  // anything but NotSkipped
}
template <class Run>
std::string run_error(const Run& run) {
  if constexpr (requires { run.error_message; })
    return run.error_message;
  else
    return run.skip_message;
}

// The pieces of `text` between separators, empty ones included ("a,,b" → a, "", b).
std::vector<std::string> split(const std::string& text, char separator);

// --benchmark_min_time=<value> as this build's Google Benchmark reads it (`version`: "1.7.1",
// "1.8.3"). 1.8 takes "<seconds>s" (or "<n>x", iterations) and warns on every case at a bare
// number, the only form 1.7 reads; seconds are written in the library's form either way.
std::string min_time_flag(std::string value, std::string_view version);

struct LadderRow {
  std::string rung;
  std::string dtype;
  std::int64_t n = 0;
  int threads = 0;
  double seconds = 0;
  double flops = 0;          // FLOP/s
  double peak_fraction = 0;  // 0 when no peak was measured
  std::string error;         // non-empty: the case failed and has no speed
  double rel_error = -1;     // against the double reference: what the number format costs (<0: none)
  double cv = 0;             // the repetitions' coefficient of variation (0: one repetition)
  std::string parent;        // the rung it improves on ("avx512|avx2": the first of them that ran)
};
// Above this coefficient of variation of its repetitions a case is marked noisy (as in report.py).
inline constexpr double kNoisyCv = 0.10;

// One row per rung of the registry that ran: at `ladder_n`, or for rungs capped below it at
// their largest n that ran. Medians are used where repetitions produced them.
std::vector<LadderRow> ladder_rows(const Registry& registry, const std::vector<benchmark::BenchmarkReporter::Run>& runs,
                                   std::int64_t ladder_n);

// rung, n, time, GFLOP/s, % of peak, speedup over its parent (the rung it improves on, as the
// published ladder report has it), over boxed, and the relative error against the reference;
// within 100 columns, notes (noisy rows, rates above the peak) under the table.
std::string format_ladder(const std::vector<LadderRow>& rows);

// Head-to-head ratios of rungs measured in this run (same n), e.g. avx512 against openblas.
std::string format_ratios(const std::vector<benchmark::BenchmarkReporter::Run>& runs);

// Each model case's time split by operation type: ms per pass, share, GFLOP/s, GB/s.
std::string format_model_ops(const std::vector<benchmark::BenchmarkReporter::Run>& runs);

// The model's resolution sweep per backend: side, tokens, time per pass, GFLOP/s, growth of the
// time against the previous side (as an exponent of HW: 2 is quadratic), the share of the
// (HW)^2 operations, and the memory the pass holds.
std::string format_model_sweep(const std::vector<benchmark::BenchmarkReporter::Run>& runs);

// Each roofline sweep's two ends: bandwidth at the lowest intensity against STREAM triad, FLOP/s
// at the highest against its peak probe.
std::string format_roofline_summary(const std::vector<benchmark::BenchmarkReporter::Run>& runs, const Ceilings& ceilings);

// Every roof_fraction of the run (GEMM and roofline cases, each model operation; medians where
// repetitions made them): how many exceed 1, and the largest. Empty where no case has one.
std::string format_roof_check(const std::vector<benchmark::BenchmarkReporter::Run>& runs);

}  // namespace ladder
