#include "console_report.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "core/registry.hpp"
#include "gemm/gemm_suite.hpp"
#include "ladder_table.hpp"
#include "model/model_suite.hpp"

namespace ladder {

namespace {
void print_section(const std::string& title, const std::string& body) {
  if (!body.empty()) std::fputs(fmt::format("\n{}\n{}", title, body).c_str(), stdout);
}
}  // namespace

void print_console_reports(const std::vector<benchmark::BenchmarkReporter::Run>& runs, const Ceilings& ceilings,
                           const NoiseReport& noise, const std::string& profile) {
  const std::int64_t ladder_n = profile == "ladder" ? kCommonSize : kLadderSize;
  if (auto rows = ladder_rows(registry(), runs, ladder_n); !rows.empty())
    print_section(fmt::format("The ladder (gemm, C = A*B, n = {} or the rung's cap; % of this machine's measured peak; "
                              "rel error: relative L2 error against a double-precision product, what the number format costs)",
                              ladder_n),
                  format_ladder(rows));
  print_section("Head to head, same run:", format_ratios(runs));
  if (auto ops = format_model_ops(runs); !ops.empty()) print_section("The model, by operation:", ops + model_memory_table());
  print_section("The model against resolution (time per pass grows as (HW)^2 once the volumes dominate):",
                format_model_sweep(runs));
  print_section("The roofline sweep against the ceilings:", format_roofline_summary(runs, ceilings));
  print_section("Each case against its roof (roof_fraction, medians):", format_roof_check(runs));
  std::fputs(("\n" + format_ceilings(ceilings)).c_str(), stdout);
  if (noise.noisy()) {
    std::fputs("\nThis machine was not quiet during the run (noise_verdict: noisy in the results):\n", stdout);
    for (const auto& reason : noise.reasons) std::fputs(("  - " + reason + "\n").c_str(), stdout);
  }
}

}  // namespace ladder
