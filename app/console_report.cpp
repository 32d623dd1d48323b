#include "console_report.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "progress.hpp"

#include "core/registry.hpp"
#include "gemm/gemm_suite.hpp"
#include "ladder_table.hpp"
#include "model/model_suite.hpp"

namespace ladder {

namespace {
// A title (prose, wrapped) over a table (clipped to the terminal).
void print_titled(Console& console, const std::string& title, const std::string& body) {
  if (body.empty()) return;
  console.always(stdout, "\n" + title + "\n");
  console.table(stdout, body, true);
}
}  // namespace

void print_console_reports(const std::vector<benchmark::BenchmarkReporter::Run>& runs, const Ceilings& ceilings,
                           const std::string& profile, Console& console) {
  const auto print_section = [&console](const std::string& title, const std::string& body) {
    print_titled(console, title, body);
  };
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
  if (const std::string check = format_roof_check(runs); !check.empty())
    console.always(stdout, "\nEach case against its roof (roof_fraction, medians):\n" + check);
}

std::string closing_lines(const ClosingFacts& facts) {
  std::string out = "\n";
  if (facts.noise.noisy()) {
    std::string reasons;
    for (const auto& reason : facts.noise.reasons) reasons += (reasons.empty() ? "" : "; ") + reason;
    out += fmt::format("This machine was not quiet during the run (noise_verdict noisy): {}\n", reasons);
  } else {
    out += fmt::format("The machine was quiet during the run: others took {:.1f}% of its CPUs' time (noise_verdict quiet)\n",
                       100 * facts.noise.other_share);
  }
  out += fmt::format("{} case(s) in {}{}\n", facts.cases, format_duration(facts.seconds),
                     facts.failed > 0 ? fmt::format(", {} FAILED (named above; exit status 1)", facts.failed) : "");
  if (!facts.results_path) return out + "No results file was written (--benchmark_out=FILE writes one).\n";
  const std::string& path = *facts.results_path;
  out += fmt::format("Results: {}\nNext:\n", path);
  const std::string report = ".venv/bin/python scripts/report.py";
  if (facts.gemm_ran) out += fmt::format("  {} ladder {}\n      the ladder report: each rung's speed and why\n", report, path);
  if (facts.previous_run)
    out += fmt::format("  {} compare {} {}\n      against this machine's previous run, case by case\n", report,
                       *facts.previous_run, path);
  out += fmt::format(
      "  {} publish\n      every table, figure and ladder report in results/ and plots/, remade from each "
      "machine's newest run\n",
      report);
  return out;
}

std::optional<std::string> previous_run(const std::string& results_path, const std::string& profile) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path ours = fs::absolute(results_path, error);
  const fs::path folder = ours.parent_path();
  std::optional<fs::path> newest;
  fs::file_time_type newest_time{};
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    const fs::path& path = entry.path();
    const std::string name = path.filename().string();
    // Regular files only, never through a link: a FIFO named *.json would hang the read.
    if (!fs::is_regular_file(entry.symlink_status(error))) continue;
    if (path == ours || path.extension() != ".json" || name.find(".partial") != std::string::npos ||
        name.find(".interrupted") != std::string::npos || name.find(".gpu") != std::string::npos)
      continue;
    const auto time = entry.last_write_time(error);
    if (error || (newest && time <= newest_time)) continue;
    std::ifstream in(path);
    const auto doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_discarded() || !doc.contains("context") || doc["context"].value("profile", "") != profile) continue;
    newest = path;
    newest_time = time;
  }
  if (!newest) return std::nullopt;
  // As the user named the results: relative to the same place.
  return (fs::path(results_path).parent_path() / newest->filename()).string();
}

int count_cases(const std::vector<benchmark::BenchmarkReporter::Run>& runs) {
  std::set<std::string> names;
  for (const auto& run : runs) names.insert(run.run_name.str());
  return static_cast<int>(names.size());
}

bool any_gemm_case(const std::vector<benchmark::BenchmarkReporter::Run>& runs) {
  for (const auto& run : runs)
    if (run.run_name.function_name.rfind("gemm/", 0) == 0) return true;
  return false;
}

}  // namespace ladder
