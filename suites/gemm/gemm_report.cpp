#include "gemm_report.hpp"

#include <fmt/format.h>

#include <iterator>
#include <map>

#include "core/text.hpp"
#include "gemm_suite.hpp"
#include "roofs/ceilings.hpp"

namespace ladder {

namespace {

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

std::vector<LadderRow> ladder_rows(const Registry& registry, const std::vector<Run>& runs, std::int64_t ladder_n) {
  // rung name → (n → run)
  std::map<std::string, std::map<std::int64_t, const Run*>> by_rung;
  for (const auto& [axes, run] : suite_runs(runs, kGemmSuite, true)) by_rung[axes->rung][axes->size] = run;
  std::vector<LadderRow> rows;
  for (const GemmRung& rung : registry.gemm) {
    auto it = by_rung.find(rung.name);
    if (it == by_rung.end()) continue;
    const auto& sizes = it->second;
    // The ladder size, else the largest size below it, else the smallest that ran.
    auto pick = sizes.upper_bound(ladder_n);
    if (pick != sizes.begin()) pick = std::prev(pick);
    const Run* run = pick->second;
    LadderRow row;
    row.rung = rung.name;
    row.parent = rung.parent;
    row.dtype = std::string(dtype_name(rung.dtype));
    row.n = pick->first;
    if (run_failed(*run)) {
      row.error = run_error(*run);
    } else {
      row.seconds = run_seconds(*run);
      row.flops = counter(*run, "flops");
      row.peak_fraction = counter(*run, "peak_fraction");
      row.threads = static_cast<int>(counter(*run, "threads"));
      if (run->counters.count("rel_error")) row.rel_error = counter(*run, "rel_error");
      row.cv = repetitions_cv(runs, *run);
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

std::string format_ratios(const std::vector<Run>& runs) {
  // (rung, n) → FLOP/s
  std::map<std::pair<std::string, std::int64_t>, double> rate;
  for (const auto& [axes, run] : suite_runs(runs, kGemmSuite)) rate[{axes->rung, axes->size}] = counter(*run, "flops");
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

std::vector<ReportSection> gemm_report(const ReportRequest& request) {
  const std::int64_t ladder_n = request.profile == Profile::ladder ? kCommonSize : kLadderSize;
  std::vector<ReportSection> sections;
  if (auto rows = ladder_rows(registry(), request.runs, ladder_n); !rows.empty())
    sections.push_back({fmt::format("The ladder (gemm, C = A*B, n = {} or the rung's cap; % of this machine's measured peak; "
                                    "rel error: relative L2 error against a double-precision product, what the number format "
                                    "costs)",
                                    ladder_n),
                        format_ladder(rows)});
  sections.push_back({"Head to head, same run:", format_ratios(request.runs)});
  return sections;
}

ContextEntries gemm_context(const Ceilings& ceilings) {
  ContextEntries context;
  std::string order;  // context keys come out sorted by name: the ladder's order needs its own entry
  for (const auto& rung : registry().gemm) {
    context.emplace_back("rung/" + rung.name, gemm_rung_description(rung));
    context.emplace_back("rung_where/" + rung.name, std::string(threading_name(rung.threading)));
    if (!rung.parent.empty()) context.emplace_back("rung_parent/" + rung.name, rung.parent);
    if (rung.serial_sum) context.emplace_back("rung_serial_sum/" + rung.name, "one chain of dependent adds");
    if (const auto& block = rung.register_block; block.rows > 0 && block.cols > 0)
      context.emplace_back("rung_register_block/" + rung.name, fmt::format("{}x{}", block.rows, block.cols));
    // Its traffic model's terms by number (a case's traffic_term counter; 0: the compulsory bytes).
    context.emplace_back("rung_traffic/" + rung.name + "/0", "A and B read once, C written once");
    if (rung.traffic)
      for (std::size_t i = 0; const TrafficTerm& term : rung.traffic(1024, 1))
        context.emplace_back(fmt::format("rung_traffic/{}/{}", rung.name, ++i), term.what);
    if (const GemmUnit unit = gemm_unit(rung, ceilings); !unit.name.empty()) {
      context.emplace_back("rung_unit/" + rung.name, unit.name);
      context.emplace_back("rung_unit_kind/" + rung.name, unit_name(unit.unit));
      context.emplace_back("rung_unit_peak_flops/" + rung.name, fmt::format("{:.6g}", unit.peak));
    }
    // The rate its model allows over the sweep's sizes and on to the common size ("n:FLOP/s,..."):
    // the curve its measured rates are set against.
    if (has_traffic_model(rung)) {
      std::vector<std::int64_t> sizes = kSweepSizes;
      sizes.insert(sizes.end(), {2896, kCommonSize});
      std::string curve;
      for (const std::int64_t n : sizes)
        if (const double rate = gemm_model_rate(rung, n, ceilings); rate > 0)
          curve += fmt::format("{}{}:{:.4g}", curve.empty() ? "" : ",", n, rate);
      if (!curve.empty()) context.emplace_back("rung_model_rate/" + rung.name, curve);
    }
    order += (order.empty() ? "" : ",") + rung.name;
  }
  context.emplace_back("ladder_order", order);
  context.emplace_back("mechanism_names", mechanism_names());
  context.emplace_back("unit_names", unit_names());
  return context;
}

}  // namespace ladder
