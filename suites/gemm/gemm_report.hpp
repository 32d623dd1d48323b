// What the gemm suite reports: the ladder table and the head-to-head ratios on the console, and
// the ladder's description in the results' context (each rung's mechanism, parent, traffic terms
// and unit), so that the report tools read it from the results, not from a list of their own.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "run_reading.hpp"
#include "suite.hpp"

namespace ladder {

struct Ceilings;

struct LadderRow {
  std::string rung;
  std::string dtype;
  std::int64_t n = 0;
  int threads = 0;
  double seconds = 0;
  double flops = 0;          // FLOP/s
  double peak_fraction = 0;  // 0 when no peak was measured
  std::string error = {};    // non-empty: the case failed and has no speed
  double rel_error = -1;     // against the double reference: what the number format costs (<0: none)
  double cv = 0;             // the repetitions' coefficient of variation (0: one repetition)
  std::string parent = {};   // the rung it improves on ("avx512|avx2": the first of them that ran)
};

// One row per rung of the registry that ran: at `ladder_n`, or for rungs capped below it at
// their largest n that ran. Medians are used where repetitions produced them.
std::vector<LadderRow> ladder_rows(const Registry& registry, const std::vector<Run>& runs, std::int64_t ladder_n);

// rung, n, time, GFLOP/s, % of peak, speedup over its parent (the rung it improves on, as the
// published ladder report has it), over boxed, and the relative error against the reference;
// within 100 columns, notes (noisy rows, rates above the peak) under the table.
std::string format_ladder(const std::vector<LadderRow>& rows);

// Head-to-head ratios of rungs measured in this run (same n), e.g. avx512 against openblas.
std::string format_ratios(const std::vector<Run>& runs);

// The suite's report: the ladder (at the ladder profile's common size there) and the ratios.
std::vector<ReportSection> gemm_report(const ReportRequest& request);

// The suite's context: each rung's mechanism and summary, where it runs, its parent, its traffic
// model's terms, its unit and that unit's measured peak, and the ladder's order.
ContextEntries gemm_context(const Ceilings& ceilings);

}  // namespace ladder
