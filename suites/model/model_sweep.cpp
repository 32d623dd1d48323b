// The model against resolution: the same network at square sides from 16 up, as far as memory and
// (unless --no-cap) the profile's time budget a pass allow.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>

#include "core/machine.hpp"
#include "model_report.hpp"
#include "model_suite.hpp"

namespace ladder {
namespace {

using namespace model;

double pass_flops(const Config& c) {
  double flops = 0;
  for (const auto& cost : op_costs(c)) flops += cost.flops;
  return flops;
}

// Seconds of one forward pass (the second of two: the first touches fresh memory).
double one_pass_seconds(const Backend& b, const Config& c) {
  const Prepared pass = b.prepare(c, make_weights(c), make_inputs(c));
  Output out;
  OpTimes times;
  pass.run(out, times);
  const auto start = std::chrono::steady_clock::now();
  pass.run(out, times);
  if (pass.last_pass_seconds) return pass.last_pass_seconds() / static_cast<double>(pass.passes_per_run);  // timed where it ran
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// What the sweep runs: the `large` configuration's C, layers and heads (or --model's), at square
// sides from 16 up; a pass may take `budget` seconds unless --no-cap.
struct SweepShape {
  Config shape;
  std::vector<int> sides;
  double budget = 0;
};

SweepShape sweep_shape(const SuiteRequest& request) {
  SweepShape s;
  const bool smoke = request.profile == Profile::smoke;
  s.shape = smoke ? Config{"", 0, 0, 16, 1, 2} : defined_config("large");
  std::string error;
  if (request.model_config)
    if (auto c = parse_config(*request.model_config, error)) s.shape = *c;  // checked by the command line
  s.sides = smoke ? std::vector<int>{4, 8}
                  : std::vector<int>{16, 24, 32, 48, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512};
  s.budget = smoke || request.uncapped ? INFINITY : request.profile == Profile::quick ? 1.0 : 5.0;
  return s;
}

Config sweep_config(const SweepShape& s, int side) {
  return Config{fmt::format("sweep {}x{}", side, side), side, side, s.shape.channels, s.shape.layers, s.shape.heads};
}

// The side in a case name "model-sweep/<backend>/<dtype>/side:<N>", or 0.
int sweep_side(const std::string& name, const std::string& backend) {
  const std::string prefix = std::string(kModelSweepSuite) + "/" + backend + "/";
  if (name.rfind(prefix, 0) != 0) return 0;
  const auto colon = name.rfind("side:");
  return colon == std::string::npos ? 0 : std::stoi(name.substr(colon + 5));
}

}  // namespace

std::vector<BenchmarkCase> ModelSweep::cases(const SuiteRequest& request) {
  using namespace model;
  const SweepShape sweep = sweep_shape(request);
  std::vector<BenchmarkCase> cases;
  std::lock_guard lock(mutex_);
  notes_.clear();
  for (const Backend& b : backends()) {
    // The slow backends (reference, naive) stay out: their model cases show them at small sizes.
    if (b.max_layers_tokens || !rung_requested(request, b.name) || !b.unavailable_reason().empty()) continue;
    const double memory = b.threading == Threading::device ? request.device_usable_bytes() : request.host_usable_bytes;
    int last = 0;
    for (int side : sweep.sides) {
      const Config c = sweep_config(sweep, side);
      if (backend_footprint_bytes(b, c) > memory) break;
      cases.push_back(model_case({kModelSweepSuite, b.name, dtype_name(b.dtype), "side", side}, b, c, request.ceilings));
      last = side;
    }
    const std::string shape =
        fmt::format("C={}, {} layers, {} heads", sweep.shape.channels, sweep.shape.layers, sweep.shape.heads);
    notes_.emplace_back("model_sweep/" + b.name,
                        last == sweep.sides.back()
                            ? fmt::format("{}; memory would allow more than the sweep's largest side, {}", shape, last)
                            : fmt::format("{}; memory ({:.1f} GB usable) ends the sweep at {}", shape, memory / 1e9, last));
  }
  return cases;
}

void ModelSweep::trim(std::vector<BenchmarkCase>& cases, const SuiteRequest& request) {
  using namespace model;
  const SweepShape sweep = sweep_shape(request);
  // What the rest of the run holds throughout (each size's shared inputs, once): cases() stopped
  // each sweep where a pass alone fills the usable memory, and a side that fits only alone goes.
  const double shared = shared_memory_bytes(cases);
  std::lock_guard lock(mutex_);
  for (auto& [key, note] : notes_) {
    const std::string name = key.substr(key.find('/') + 1);
    int memory_cut = 0;
    for (const auto& c : cases)
      if (const int side = sweep_side(c.name, name); side && c.memory_bytes + shared > request.host_usable_bytes)
        memory_cut = memory_cut ? std::min(memory_cut, side) : side;
    if (memory_cut) {
      std::erase_if(cases, [&](const BenchmarkCase& c) { return sweep_side(c.name, name) >= memory_cut; });
      note += fmt::format("; {} would not fit beside the run's other allocations ({:.1f} GB)", memory_cut, shared / 1e9);
    }
    const auto backend = std::find_if(backends().begin(), backends().end(), [&](const Backend& b) { return b.name == name; });
    std::vector<int> sides;
    for (const auto& c : cases)
      if (int side = sweep_side(c.name, name)) sides.push_back(side);
    if (sides.empty() || backend == backends().end()) {
      note.clear();  // filtered out: nothing to say
      continue;
    }
    std::sort(sides.begin(), sides.end());
    // Walk up the sides predicting each from the last real pass by its FLOP count, and time a real
    // pass wherever one is predicted to take at most a quarter of the budget: the rate falls as
    // the volumes outgrow the caches (186 to 83 GFLOP/s from 32x32 to 112x112 here), so the last
    // real pass must be near the cut for the prediction to hold.
    int cut = 0;
    double predicted = 0, calibrated_seconds = 0, calibrated_flops = 0;
    std::map<int, double> pass_seconds;  // each side's pass, timed or predicted: the plan's estimate
    for (int side : sides) {
      // A recorded machine's passes cannot be timed here: every side that fits is planned.
      if (!std::isfinite(sweep.budget) || machine_is_recorded()) break;
      const Config c = sweep_config(sweep, side);
      if (calibrated_flops > 0) predicted = calibrated_seconds * pass_flops(c) / calibrated_flops;
      if (calibrated_flops > 0 && predicted > sweep.budget) {
        cut = side;
        break;
      }
      if (calibrated_flops == 0 || predicted <= sweep.budget / 4) {
        try {
          calibrated_seconds = one_pass_seconds(*backend, c);
          calibrated_flops = pass_flops(c);
        } catch (const std::exception&) {  // the case itself reports the failure when it verifies
          cut = side == sides.front() ? 0 : side;
          break;
        }
      }
      pass_seconds[side] = calibrated_seconds * pass_flops(c) / calibrated_flops;
    }
    std::erase_if(cases, [&](const BenchmarkCase& c) {
      const int side = sweep_side(c.name, name);
      return cut && side >= cut;
    });
    // A case runs its pass about four times outside the timed ones (verification, a first pass,
    // the poisoned pass after) and for at least the minimum time within: four passes is its floor.
    for (auto& c : cases)
      if (const auto it = pass_seconds.find(sweep_side(c.name, name)); it != pass_seconds.end())
        c.expected_seconds = 4 * it->second;
    const int last = cut ? *std::prev(std::lower_bound(sides.begin(), sides.end(), cut)) : sides.back();
    note = fmt::format("sides {}..{}{}; {}", sides.front(), last,
                       cut ? fmt::format("; {} is predicted to take {:.3g} s a pass, over the profile's budget of {:.3g} s "
                                         "(--no-cap runs every side that fits)",
                                         cut, predicted, sweep.budget)
                           : "",
                       note);
    note_under_header(fmt::format("model-sweep/{}: {}", name, note));
  }
  std::erase_if(notes_, [](const auto& entry) { return entry.second.empty(); });
}

std::vector<std::pair<std::string, std::string>> ModelSweep::context() const {
  std::lock_guard lock(mutex_);
  return notes_;
}

Suite model_sweep_suite() {
  // The sweep's notes live as long as the suite: its cases, trim and context share them.
  auto sweep = std::make_shared<ModelSweep>();
  return {.name = std::string(kModelSweepSuite),
          .summary = "that network at H = W = 16, 24, ... as far as memory and the time budget allow",
          .rungs = model_rungs,
          .cases = [sweep](const SuiteRequest& request) { return sweep->cases(request); },
          .trim = [sweep](std::vector<BenchmarkCase>& cases, const SuiteRequest& request) { sweep->trim(cases, request); },
          .context = [sweep](const Ceilings&) { return sweep->context(); },
          .report = model_sweep_report};
}

}  // namespace ladder
