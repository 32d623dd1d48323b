#include "model_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

#include "model.hpp"
#include "model_suite.hpp"
#include "roofs/regime.hpp"

namespace ladder {

namespace {

// Where several backends ran one configuration: its operations as rows, a column per backend
// (ms per pass and share), so that PyTorch's time stands beside our own backends' on each row.
std::string format_model_ops_side_by_side(
    const std::map<std::int64_t, std::vector<std::pair<std::string, const Run*>>>& by_tokens) {
  using Backends = std::vector<std::pair<std::string, const Run*>>;
  // Three backends a block keep a row within 100 columns; more come in further blocks.
  constexpr std::size_t kBackendsPerBlock = 3;
  std::vector<std::pair<std::int64_t, Backends>> blocks;
  for (const auto& [tokens, all] : by_tokens) {
    if (all.size() < 2) continue;
    for (std::size_t first = 0; first < all.size(); first += kBackendsPerBlock)
      blocks.emplace_back(tokens, Backends(all.begin() + first, all.begin() + std::min(all.size(), first + kBackendsPerBlock)));
  }
  std::string out;
  for (const auto& [tokens, backends] : blocks) {
    out += fmt::format("  side by side, tokens:{} (ms per pass, share of the operations' time)\n    {:<26}", tokens, "operation");
    for (const auto& [backend, run] : backends) out += fmt::format(" {:>18}", backend);
    out += "\n";
    for (int i = 0; i < model::kOps; ++i) {
      const std::string op = model::op_name(static_cast<model::Op>(i));
      out += fmt::format("    {:<26}", op);
      for (const auto& [backend, run] : backends)
        out += run->counters.count("op/" + op + "/seconds")
                   ? fmt::format(" {:>10.3f} {:>6.1f}%", counter(*run, ("op/" + op + "/seconds").c_str()) * 1e3,
                                 100 * counter(*run, ("op/" + op + "/share").c_str()))
                   : fmt::format(" {:>18}", "-");  // a compiled pass: kernels that span several operations
      out += "\n";
    }
    for (const auto& row_and_key : {std::pair{"library kernels (compiled)", "library_kernel_seconds"},
                                    std::pair{"generated kernels (compiled)", "generated_kernel_seconds"}}) {
      const char* row = row_and_key.first;
      const char* key = row_and_key.second;
      const bool any =
          std::any_of(backends.begin(), backends.end(), [key](const auto& b) { return b.second->counters.count(key) > 0; });
      if (!any) continue;
      out += fmt::format("    {:<26}", row);
      for (const auto& [backend, run] : backends)
        out += run->counters.count(key) ? fmt::format(" {:>10.3f} {:>7}", counter(*run, key) * 1e3, "")
                                        : fmt::format(" {:>18}", "-");
      out += "\n";
    }
    out += fmt::format("    {:<26}", "whole pass (timed)");
    for (const auto& [backend, run] : backends) out += fmt::format(" {:>10.3f} {:>7}", run_seconds(*run) * 1e3, "");
    out += "\n";
    const bool framework = std::any_of(backends.begin(), backends.end(),
                                       [](const auto& b) { return b.second->counters.count("framework_seconds"); });
    if (framework) {
      out += fmt::format("    {:<26}", "framework, outside the ops");
      for (const auto& [backend, run] : backends)
        out += run->counters.count("framework_seconds")
                   ? fmt::format(" {:>10.3f} {:>6.1f}%", counter(*run, "framework_seconds") * 1e3,
                                 100 * counter(*run, "framework_share"))
                   : fmt::format(" {:>18}", "-");
      out += "\n";
    }
  }
  return out;
}

}  // namespace

std::string format_model_ops(const std::vector<Run>& runs) {
  std::string out;
  std::map<std::int64_t, std::vector<std::pair<std::string, const Run*>>> by_tokens;
  for (const auto& [axes, run] : suite_runs(runs, kModelSuite)) {
    by_tokens[axes->size].emplace_back(axes->rung, run);
    out += fmt::format(
        "  {} ({}), {:.3g} ms per pass\n", run->run_name.str(),
        run->report_label.substr(0, std::min(run->report_label.find("; verified"), run->report_label.find("; regimes"))),
        run_seconds(*run) * 1e3);
    // The regime's code (roofs/regime.hpp); a median of an even number of repetitions may fall
    // between two codes, where the nearer one is as good a summary as any.
    auto regime_of = [case_run = run](const std::string& op) {
      const std::string key = "op/" + op + "/regime";
      if (!case_run->counters.count(key)) return std::string();
      const long code = std::lround(counter(*case_run, key.c_str()));
      return code >= 0 && code < static_cast<long>(std::size(kRegimeNames)) ? std::string(kRegimeNames[code]) : std::string();
    };
    if (run->counters.count("library_kernel_seconds"))
      out += fmt::format(
          "    not split by operation (compiled: its kernels each span several): library kernels {:.3f} ms, generated "
          "kernels {:.3f} ms a pass{}; compiled once in {:.1f} s\n",
          counter(*run, "library_kernel_seconds") * 1e3, counter(*run, "generated_kernel_seconds") * 1e3,
          run->counters.count("framework_seconds")
              ? fmt::format(", framework {:.3f} ms ({:.1f}%)", counter(*run, "framework_seconds") * 1e3,
                            100 * counter(*run, "framework_share"))
              : std::string(),
          counter(*run, "compile_seconds"));
    else
      out += fmt::format("    {:<14} {:>10} {:>7} {:>10} {:>10} {:>9}  {}\n", "operation", "ms", "share", "GFLOP/s", "GB/s",
                         "% of roof", "bound by");
    for (const auto& [counter, value] : run->counters) {
      if (counter.rfind("op/", 0) != 0 || counter.size() < 8 || counter.compare(counter.size() - 8, 8, "/seconds") != 0) continue;
      const std::string op = counter.substr(3, counter.size() - 11);
      out += fmt::format("    {:<14} {:>10.3f} {:>6.1f}% {:>10.2f} {:>10.2f} {:>8.1f}%  {}\n", op,
                         static_cast<double>(value) * 1e3, 100 * ::ladder::counter(*run, "op/" + op + "/share"),
                         ::ladder::counter(*run, ("op/" + op + "/flops").c_str()) / 1e9,
                         ::ladder::counter(*run, ("op/" + op + "/bytes_per_second").c_str()) / 1e9,
                         100 * ::ladder::counter(*run, ("op/" + op + "/roof_fraction").c_str()), regime_of(op));
    }
  }
  return out + format_model_ops_side_by_side(by_tokens);
}

std::string format_model_sweep(const std::vector<Run>& runs) {
  std::map<std::string, std::map<std::int64_t, const Run*>> sweeps;  // backend/dtype → side
  for (const auto& [axes, run] : suite_runs(runs, kModelSweepSuite)) sweeps[axes->rung + "/" + axes->dtype][axes->size] = run;
  std::string out;
  for (const auto& [backend, sides] : sweeps) {
    out += fmt::format("  {}\n    {:>5} {:>7} {:>12} {:>9} {:>10} {:>12} {:>10}\n", backend, "H=W", "tokens", "per pass",
                       "GFLOP/s", "growth", "(HW)^2 ops", "memory");
    double previous_seconds = 0, previous_tokens = 0;
    for (const auto& [side, run] : sides) {
      const double seconds = run_seconds(*run);
      const double tokens = counter(*run, "tokens");
      // The share of the operations whose work grows as (HW)^2, as each case's counters say.
      double share = 0;
      for (const auto& [name, value] : run->counters)
        if (name.rfind("op/", 0) == 0 && name.ends_with("/grows_quadratically") && value > 0.5)
          share +=
              counter(*run, (name.substr(0, name.size() - std::string_view("grows_quadratically").size()) + "share").c_str());
      const std::string growth =
          previous_seconds > 0 && tokens > previous_tokens
              ? fmt::format("(HW)^{:.2f}", std::log(seconds / previous_seconds) / std::log(tokens / previous_tokens))
              : "";
      out += fmt::format("    {:>5} {:>7.0f} {:>12} {:>9.1f} {:>10} {:>11.0f}% {:>7.2f} GB\n", side, tokens, format_time(seconds),
                         counter(*run, "flops") / 1e9, growth, 100 * share, counter(*run, "memory_bytes") / 1e9);
      previous_seconds = seconds;
      previous_tokens = tokens;
    }
  }
  return out;
}

std::vector<ReportSection> model_report(const ReportRequest& request) {
  const std::string ops = format_model_ops(request.runs);
  if (ops.empty()) return {};
  return {{"The model, by operation:", ops + model_memory_table()}};
}

std::vector<ReportSection> model_sweep_report(const ReportRequest& request) {
  return {{"The model against resolution (time per pass grows as (HW)^2 once the volumes dominate):",
           format_model_sweep(request.runs)}};
}

}  // namespace ladder
