#include "console_report.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "progress.hpp"

#include "run_reading.hpp"
#include "suite.hpp"

namespace ladder {

namespace {
// A title (prose, wrapped) over a table (clipped to the terminal).
void print_titled(Console& console, const std::string& title, const std::string& body) {
  if (body.empty()) return;
  console.always(stdout, "\n" + title + "\n");
  console.table(stdout, body, true);
}
}  // namespace

void print_console_reports(const std::vector<Run>& runs, const Ceilings& ceilings, Profile profile, Console& console) {
  const ReportRequest request{runs, ceilings, profile};
  for (const Suite& suite : suites())
    if (suite.report)
      for (const ReportSection& section : suite.report(request)) print_titled(console, section.title, section.body);
  if (const std::string check = format_roof_check(runs); !check.empty())
    console.always(stdout, "\nEach case against its roof (roof_fraction, medians):\n" + check);
}

std::string format_roof_check(const std::vector<Run>& runs) {
  int figures = 0, above = 0;
  double largest = 0;
  std::string where;
  for (const auto& [key, run] : representative_runs(runs)) {
    if (run_failed(*run)) continue;
    const std::string& case_name = run->run_name.function_name;
    for (const auto& [name, value] : run->counters) {
      const bool whole = name == "roof_fraction";
      if (!whole && !(name.rfind("op/", 0) == 0 && name.ends_with("/roof_fraction"))) continue;
      ++figures;
      above += value > 1.0;
      if (value > largest) {
        largest = value;
        where = whole ? case_name : case_name + " " + name.substr(3, name.size() - 3 - std::string("/roof_fraction").size());
      }
    }
  }
  if (figures == 0) return "";
  if (above == 0)
    return fmt::format("  all {} figures at or below their roof (the closest: {:.2f}, {})\n", figures, largest, where);
  return fmt::format(
      "  {} of {} figures above their roof (the largest: {:.2f}, {}). Each roof is a lower bound on the time, from "
      "ceilings measured before the cases and, for a GEMM rung, its traffic model: above 1 means the machine moved in "
      "between (a shared VM's memory bandwidth, clock or fork cost) or the model counted bytes from a slower level than "
      "the caches served them from (a working set near a level's size), not a case beating its roof. Compare the "
      "repetitions, or run again.\n",
      above, figures, largest, where);
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
  for (const ReportCommand& command : facts.report_commands)
    out += fmt::format("  {} {} {}\n      {}\n", report, command.subcommand, path, command.what);
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

std::vector<ReportCommand> report_commands(const std::vector<Run>& runs) {
  std::set<std::string> ran;
  for (const auto& run : runs)
    if (const CaseAxes* axes = axes_of(run)) ran.insert(axes->suite);
  std::vector<ReportCommand> commands;
  for (const Suite& suite : suites())
    if (!suite.report_command.subcommand.empty() && ran.count(suite.name)) commands.push_back(suite.report_command);
  return commands;
}

}  // namespace ladder
