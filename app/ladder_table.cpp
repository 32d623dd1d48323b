#include "ladder_table.hpp"

#include "core/registry.hpp"
#include "gemm/gemm_suite.hpp"
#include "model/model_suite.hpp"
#include "repetitions.hpp"
#include "roofline/roofline_suite.hpp"
#include "roofs/ceilings.hpp"
#include "roofs/regime.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

namespace ladder {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> items;
  std::size_t start = 0;
  for (;;) {
    auto at = text.find(separator, start);
    items.push_back(text.substr(start, at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return items;
}

namespace {

struct CaseName {
  std::string suite, rung, dtype;
  std::int64_t n = 0;
};

// "gemm/avx512/f32/n:1024/real_time" → its parts (the size field may be k:, bytes:, ops:).
std::optional<CaseName> parse_case_name(const std::string& name) {
  const std::vector<std::string> parts = split(name, '/');
  if (parts.size() < 4 || parts[3].find(':') == std::string::npos) return std::nullopt;
  CaseName c{parts[0], parts[1], parts[2], 0};
  try {
    c.n = std::stoll(parts[3].substr(parts[3].find(':') + 1));
  } catch (...) {
    return std::nullopt;
  }
  return c;
}

double counter(const benchmark::BenchmarkReporter::Run& run, const char* name) {
  auto it = run.counters.find(name);
  return it == run.counters.end() ? 0.0 : static_cast<double>(it->second);
}

// The run that stands for a case: its median when repetitions made one, else the single run.
std::map<std::string, const benchmark::BenchmarkReporter::Run*> representative_runs(
    const std::vector<benchmark::BenchmarkReporter::Run>& runs) {
  std::map<std::string, const benchmark::BenchmarkReporter::Run*> chosen;
  for (const auto& run : runs) {
    const std::string key = run.run_name.str();
    if (run.run_type == benchmark::BenchmarkReporter::Run::RT_Aggregate) {
      if (run.aggregate_name == "median") chosen[key] = &run;  // reported after its repetitions
    } else if (!chosen.count(key)) {
      chosen[key] = &run;
    }
  }
  return chosen;
}

std::string format_time(double seconds) {
  if (seconds >= 1) return fmt::format("{:.2f} s", seconds);
  if (seconds >= 1e-3) return fmt::format("{:.2f} ms", seconds * 1e3);
  return fmt::format("{:.1f} us", seconds * 1e6);
}

std::string format_rate(double flops) {
  if (flops >= 1e9) return fmt::format("{:.1f}", flops / 1e9);
  return fmt::format("{:.4f}", flops / 1e9);
}

std::string format_factor(double factor) {
  if (factor <= 0) return "-";
  if (factor >= 100) return fmt::format("{:.0f}x", factor);
  return fmt::format("{:.2f}x", factor);
}

}  // namespace

std::vector<LadderRow> ladder_rows(const Registry& registry, const std::vector<benchmark::BenchmarkReporter::Run>& runs,
                                   std::int64_t ladder_n) {
  // rung name → (n → run)
  std::map<std::string, std::map<std::int64_t, const benchmark::BenchmarkReporter::Run*>> by_rung;
  for (const auto& [key, run] : representative_runs(runs)) {
    auto name = parse_case_name(key);
    if (!name || name->suite != kGemmSuite) continue;
    by_rung[name->rung][name->n] = run;
  }
  std::vector<LadderRow> rows;
  for (const GemmRung& rung : registry.gemm) {
    auto it = by_rung.find(rung.name);
    if (it == by_rung.end()) continue;
    const auto& sizes = it->second;
    // The ladder size, else the largest size below it, else the smallest that ran.
    auto pick = sizes.upper_bound(ladder_n);
    const benchmark::BenchmarkReporter::Run* run = pick == sizes.begin() ? pick->second : std::prev(pick)->second;
    LadderRow row;
    row.rung = rung.name;
    row.parent = rung.parent;
    row.dtype = std::string(dtype_name(rung.dtype));
    row.n = parse_case_name(run->run_name.str())->n;
    if (run_failed(*run)) {
      row.error = run_error(*run);
    } else {
      row.seconds = run->GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run->time_unit);
      row.flops = counter(*run, "flops");
      row.peak_fraction = counter(*run, "peak_fraction");
      row.threads = static_cast<int>(counter(*run, "threads"));
      if (run->counters.count("rel_error")) row.rel_error = counter(*run, "rel_error");
      // The repetitions' coefficient of variation, where Google Benchmark made one.
      for (const auto& other : runs)
        if (other.run_type == benchmark::BenchmarkReporter::Run::RT_Aggregate && other.aggregate_name == "cv" &&
            other.run_name.str() == run->run_name.str())
          row.cv = other.real_accumulated_time;  // a fraction, not a time
    }
    rows.push_back(row);
  }
  return rows;
}

std::string format_ladder(const std::vector<LadderRow>& rows) {
  constexpr const char* kRow = "{:<18} {:<5} {:>5} {:>3} {:>9} {:>9} {:>6} {:>17} {:>8} {:>8}\n";
  std::string out =
      fmt::format(kRow, "rung", "dtype", "n", "thr", "time", "GFLOP/s", "% peak", "x over its parent", "x boxed", "rel err");
  std::map<std::string, double> rate;  // of the rows that ran
  for (const auto& row : rows)
    if (row.error.empty()) rate[row.rung] = row.flops;
  // The first of the parent's alternatives that ran.
  const auto parent_of = [&rate](const LadderRow& row) -> std::string {
    for (const std::string& name : split(row.parent, '|'))
      if (rate.count(name) && rate[name] > 0) return name;
    return "";
  };
  const double boxed = rate.count("boxed") ? rate["boxed"] : 0;
  std::string notes;
  for (const auto& row : rows) {
    if (!row.error.empty()) {
      out += fmt::format("{:<18} {:<5} {:>5}  FAILED: {}\n", row.rung, row.dtype, row.n, row.error);
      continue;
    }
    const std::string parent = parent_of(row);
    out += fmt::format(kRow, row.rung, row.dtype, row.n, row.threads, format_time(row.seconds), format_rate(row.flops),
                       row.peak_fraction > 0 ? fmt::format("{:.1f}%", row.peak_fraction * 100) : "-",
                       parent.empty() ? "-" : format_factor(row.flops / rate[parent]) + " " + parent,
                       boxed > 0 ? format_factor(row.flops / boxed) : "-",
                       row.rel_error >= 0 ? fmt::format("{:.1e}", row.rel_error) : "-");
    if (row.cv > kNoisyCv)
      notes += fmt::format("note: {} is noisy (CV {:.0f}%): its repetitions spread more than {:.0f}%\n", row.rung, 100 * row.cv,
                           100 * kNoisyCv);
  }
  out += notes;
  // A rate above the measured peak means the peak probe ran in a noisy spell: say so rather
  // than let the figure stand unexplained.
  for (const auto& row : rows)
    if (row.error.empty() && row.peak_fraction > 1.05)
      out += fmt::format(
          "note: {} ran above the {} peak measured at the start ({:.0f}%): the probe must have met a busy "
          "machine; treat this run's % of peak with care\n",
          row.rung, row.dtype, row.peak_fraction * 100);
  return out;
}

std::string format_ratios(const std::vector<benchmark::BenchmarkReporter::Run>& runs) {
  // (rung, n) → FLOP/s
  std::map<std::pair<std::string, std::int64_t>, double> rate;
  for (const auto& [key, run] : representative_runs(runs)) {
    auto name = parse_case_name(key);
    if (name && name->suite == kGemmSuite && !run_failed(*run)) rate[{name->rung, name->n}] = counter(*run, "flops");
  }
  std::string out;
  for (const GemmRung& ours : registry().gemm)
    for (const GemmRung::Rival& rival : ours.rivals)
      for (const auto& [key, rate_ours] : rate) {
        if (key.first != ours.name) continue;
        auto theirs = rate.find({rival.rung, key.second});
        if (theirs == rate.end() || theirs->second <= 0) continue;
        const bool targeted = !rival.target.empty() && (rival.target_n == 0 || rival.target_n == key.second);
        out += fmt::format("  {:<18} / {:<18} at n={:<5} {:6.2f}x{}\n", ours.name, rival.rung, key.second,
                           rate_ours / theirs->second, targeted ? fmt::format("   (target {})", rival.target) : "");
      }
  return out;
}

}  // namespace ladder

namespace ladder {

std::string format_roofline_summary(const std::vector<benchmark::BenchmarkReporter::Run>& runs, const Ceilings& ceilings) {
  // (rung, dtype) → k → run
  std::map<std::pair<std::string, std::string>, std::map<std::int64_t, const benchmark::BenchmarkReporter::Run*>> sweeps;
  for (const auto& [key, run] : representative_runs(runs)) {
    auto name = parse_case_name(key);
    if (name && name->suite == kRooflineSuite && !run_failed(*run)) sweeps[{name->rung, name->dtype}][name->n] = run;
  }
  std::string out;
  for (const auto& [series, points] : sweeps) {
    const auto& low = *points.begin();
    const auto& high = *points.rbegin();
    const double low_bandwidth = counter(*low.second, "bytes_per_second");
    // The device's sweep against device memory, the host's against STREAM triad in DRAM.
    const bool device = series.first == "cuda";
    const double memory = device ? ceilings.device.memory_bytes_per_second() : ceilings.triad_bytes_per_second;
    out +=
        fmt::format("  {:<7}{:<5}k={:<4}{:>6.1f} GB/s ({:>3.0f}% of {})  k={:<4}{:>7.1f} GFLOP/s ({:>3.0f}% of peak)  {}\n",
                    series.first, series.second, low.first, low_bandwidth / 1e9, memory > 0 ? 100 * low_bandwidth / memory : 0.0,
                    device ? "device memory" : "triad", high.first, counter(*high.second, "flops") / 1e9,
                    100 * counter(*high.second, "peak_fraction"), high.second->report_label);
  }
  return out;
}

std::string format_roof_check(const std::vector<benchmark::BenchmarkReporter::Run>& runs) {
  int figures = 0, above = 0;
  double largest = 0;
  std::string where;
  for (const auto& [key, run] : representative_runs(runs)) {
    if (run_failed(*run)) continue;
    for (const auto& [name, value] : run->counters) {
      const bool whole = name == "roof_fraction";
      if (!whole && !(name.rfind("op/", 0) == 0 && name.ends_with("/roof_fraction"))) continue;
      ++figures;
      above += value > 1.0;
      if (value > largest) {
        largest = value;
        // The case's own name, without the timing Google Benchmark appends (GPU cases time manually).
        const std::string case_name = key.substr(0, key.find_last_of('/'));
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

}  // namespace ladder

namespace ladder {

namespace {

// Where several backends ran one configuration: its operations as rows, a column per backend
// (ms per pass and share), so that PyTorch's time stands beside our own backends' on each row.
std::string format_model_ops_side_by_side(
    const std::map<std::int64_t, std::vector<std::pair<std::string, const benchmark::BenchmarkReporter::Run*>>>& by_tokens) {
  using Backends = std::vector<std::pair<std::string, const benchmark::BenchmarkReporter::Run*>>;
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
    for (const auto& [backend, run] : backends)
      out += fmt::format(" {:>10.3f} {:>7}", run->GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run->time_unit) * 1e3,
                         "");
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

std::string format_model_ops(const std::vector<benchmark::BenchmarkReporter::Run>& runs) {
  std::string out;
  std::map<std::int64_t, std::vector<std::pair<std::string, const benchmark::BenchmarkReporter::Run*>>> by_tokens;
  for (const auto& [key, run] : representative_runs(runs)) {
    auto name = parse_case_name(key);
    if (!name || name->suite != kModelSuite || run_failed(*run)) continue;
    by_tokens[name->n].emplace_back(name->rung, run);
    out += fmt::format(
        "  {} ({}), {:.3g} ms per pass\n", key,
        run->report_label.substr(0, std::min(run->report_label.find("; verified"), run->report_label.find("; regimes"))),
        run->GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run->time_unit) * 1e3);
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
                         static_cast<double>(value) * 1e3, 100 * ::ladder::counter(*run, ("op/" + op + "/share").c_str()),
                         ::ladder::counter(*run, ("op/" + op + "/flops").c_str()) / 1e9,
                         ::ladder::counter(*run, ("op/" + op + "/bytes_per_second").c_str()) / 1e9,
                         100 * ::ladder::counter(*run, ("op/" + op + "/roof_fraction").c_str()), regime_of(op));
    }
  }
  return out + format_model_ops_side_by_side(by_tokens);
}

std::string format_model_sweep(const std::vector<benchmark::BenchmarkReporter::Run>& runs) {
  std::map<std::string, std::map<std::int64_t, const benchmark::BenchmarkReporter::Run*>> sweeps;  // backend/dtype → side
  for (const auto& [key, run] : representative_runs(runs)) {
    auto name = parse_case_name(key);
    if (name && name->suite == kModelSweepSuite && !run_failed(*run)) sweeps[name->rung + "/" + name->dtype][name->n] = run;
  }
  std::string out;
  for (const auto& [backend, sides] : sweeps) {
    out += fmt::format("  {}\n    {:>5} {:>7} {:>12} {:>9} {:>10} {:>12} {:>10}\n", backend, "H=W", "tokens", "per pass",
                       "GFLOP/s", "growth", "(HW)^2 ops", "memory");
    double previous_seconds = 0, previous_tokens = 0;
    for (const auto& [side, run] : sides) {
      const double seconds = run->GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run->time_unit);
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

}  // namespace ladder

namespace ladder {

std::string min_time_flag(std::string value, std::string_view version) {
  int major = 0, minor = 0;
  std::sscanf(std::string(version).c_str(), "%d.%d", &major, &minor);
  const bool takes_a_unit = major > 1 || (major == 1 && minor >= 8);
  if (!value.empty() && value.back() == 'x') return "--benchmark_min_time=" + value;  // 1.8's iterations
  if (!value.empty() && value.back() == 's') value.pop_back();
  return "--benchmark_min_time=" + value + (takes_a_unit ? "s" : "");
}

}  // namespace ladder
