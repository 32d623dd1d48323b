#include "model_suite.hpp"

#include "model_report.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>

#include "roofs/ceilings.hpp"
#include "roofs/regime.hpp"
#include "core/compare.hpp"
#include "core/registry.hpp"
#include "vector_ops.hpp"

namespace ladder::model {
namespace {

// The verifier every rung uses (NaN, Inf, all-zero or a size mismatch: an infinite error).
double relative_l2(const std::vector<float>& got, const std::vector<float>& ref) {
  const std::vector<double> reference(ref.begin(), ref.end());
  const Verdict v = compare_to_reference(got, reference, std::numeric_limits<double>::infinity());
  return v.ok ? v.relative_error : INFINITY;
}

std::string config_key(const Config& c) {
  return fmt::format("{}x{}x{}x{}x{}", c.height, c.width, c.channels, c.layers, c.heads);
}

// The reference output of a configuration, computed once per run.
const Output& reference_output(const Config& c) {
  static std::mutex mutex;
  static std::map<std::string, Output> cache;
  std::lock_guard lock(mutex);
  const std::string key = config_key(c);
  auto it = cache.find(key);
  if (it == cache.end()) {
    Output out;
    OpTimes ignored;
    Forward<ScalarOps<double>, LoopGemm>(c, make_weights(c), make_inputs(c), ScalarOps<double>{true}, LoopGemm{true})
        .run(out, ignored);
    it = cache.emplace(key, std::move(out)).first;
  }
  return it->second;
}

std::string describe(const Config& c) {
  return fmt::format("{} ({}x{}, C={}, {} layers, {} heads)", c.name.empty() ? "custom" : c.name, c.height, c.width, c.channels,
                     c.layers, c.heads);
}

// One backend on one configuration against the reference; empty when it passes. Each pair is
// checked once per run, whichever cases ask.
std::string check_backend(const Backend& b, const Config& c) {
  static std::mutex mutex;
  static std::map<std::string, std::string> verdicts;
  const std::string key = b.name + "@" + config_key(c);
  {
    std::lock_guard lock(mutex);
    if (auto it = verdicts.find(key); it != verdicts.end()) return it->second;
  }
  std::string verdict;
  Output out;
  OpTimes ignored;
  try {
    b.prepare(c, make_weights(c), make_inputs(c)).run(out, ignored);
    const double error = output_error(out, reference_output(c));
    if (!(error <= tolerance(b.dtype)))
      verdict = fmt::format("relative L2 error {:.3g} on {} exceeds {:.0e}", error, describe(c), tolerance(b.dtype));
  } catch (const std::exception& e) {
    verdict = fmt::format("threw on {}: {}", describe(c), e.what());
  }
  std::lock_guard lock(mutex);
  return verdicts[key] = verdict;
}

std::string verify(const Backend& b, const Config& timed) {
  for (const Config& c : {defined_config("tiny"), defined_config("small"), verification_config(timed)})
    if (auto verdict = check_backend(b, c); !verdict.empty()) return verdict;
  return {};
}

}  // namespace

double reference_flops(const Config& c) {
  double flops = 0;
  for (const auto& cost : op_costs(c)) flops += cost.flops;
  return flops;
}

Config verification_config(const Config& timed) {
  if (reference_flops(timed) <= kModelReferenceFlopBudget) return timed;
  // The same channels, layers and heads (each token's operations the same shapes), on fewer tokens.
  Config reduced = timed;
  reduced.name = "reduced";
  const double aspect = static_cast<double>(timed.width) / timed.height;
  for (int side = std::min(timed.height, timed.width); side > 1; --side) {
    reduced.height = side;
    reduced.width = std::max(1, static_cast<int>(std::lround(side * aspect)));
    if (reference_flops(reduced) <= kModelReferenceFlopBudget && validate(reduced).empty()) return reduced;
  }
  reduced.height = reduced.width = 1;
  return reduced;
}

double tolerance(DType dtype) {
  switch (dtype) {
    case DType::bf16:
      return kToleranceBf16;
    case DType::tf32:
    case DType::f16:
      return kToleranceTf32;
    default:
      return kTolerance;
  }
}

double output_error(const Output& got, const Output& reference) {
  return std::max(relative_l2(got.flow, reference.flow), relative_l2(got.head, reference.head));
}

}  // namespace ladder::model

namespace ladder {

std::string model_memory_table() {
  using namespace model;
  const Config large = defined_config("large");
  std::string out =
      fmt::format("  f32 footprint at C={}, {} layers, {} heads (the volume and the scores grow as (HW)^2):", large.channels,
                  large.layers, large.heads);
  for (int side : {16, 32, 64, 128, 256})
    out += fmt::format(" {}x{} {:.3g} GB;", side, side,
                       footprint_bytes(Config{"", side, side, large.channels, large.layers, large.heads}) / 1e9);
  out += "\n  a device runs out of memory at H = W =";
  for (double gb : {16.0, 40.0, 80.0})
    out += fmt::format(" {} ({:.0f} GB);", first_resolution_over(gb * 1e9, large.channels, large.layers, large.heads), gb);
  return out + "\n";
}

std::vector<std::pair<std::string, std::string>> model_memory_context() {
  using namespace model;
  const Config large = defined_config("large");
  std::vector<std::pair<std::string, std::string>> ctx;
  for (double gb : {16.0, 40.0, 80.0})
    ctx.emplace_back(fmt::format("model_out_of_memory_side_{:.0f}GB", gb),
                     fmt::format("{} (C={}, {} layers, {} heads, f32)",
                                 first_resolution_over(gb * 1e9, large.channels, large.layers, large.heads), large.channels,
                                 large.layers, large.heads));
  // Which element-wise kernels the cpu backends run here (the CPU's widest under LADDER_MAX_ISA).
  ctx.emplace_back("model_cpu_elementwise_isa", std::string(isa_name(widest_vector_isa())));
  // The standard configurations by their counters (config_height … config_heads), so that a
  // report names a case's configuration without reading its label.
  for (const auto& name : config_names()) {
    const Config c = defined_config(name);
    ctx.emplace_back("model_config/" + name, fmt::format("{} {} {} {} {}", c.height, c.width, c.channels, c.layers, c.heads));
  }
  return ctx;
}

namespace {

using namespace model;

// Verifies the backend (once), then times passes of one configuration and reports each
// operation's time, share, rates and regime against the machine's (or the device's) ceilings.
void time_passes(benchmark::State& state, const Backend& b, const Config& c, const Ceilings* ceilings) {
  if (auto verdict = verify(b, c); !verdict.empty()) {
    state.SkipWithError(("verification failed: " + verdict).c_str());
    return;
  }
  const Prepared pass = b.prepare(c, make_weights(c), make_inputs(c));
  // What every timed pass must leave: the reference where this configuration was verified itself;
  // else this backend's own verified-shape pass, run once before timing.
  const Config checked = verification_config(c);
  const bool verified_here = config_key(checked) == config_key(c);
  Output expected, out;
  OpTimes times, untimed;
  if (!verified_here) pass.run(expected, untimed);
  const Output& oracle = verified_here ? reference_output(c) : expected;
  const auto poison = [](Output& o) {
    std::fill(o.flow.begin(), o.flow.end(), std::numeric_limits<float>::quiet_NaN());
    std::fill(o.head.begin(), o.head.end(), std::numeric_limits<float>::quiet_NaN());
  };
  out = oracle;
  poison(out);
  const auto timed_run = [&] {
    pass.run(out, times);
    if (b.self_timed) state.SetIterationTime(pass.last_pass_seconds());
  };
  if (pass.passes_per_run > 1) {
    while (state.KeepRunningBatch(pass.passes_per_run)) timed_run();
  } else {
    for (auto _ : state) timed_run();
  }
  // Verified again after timing: what the timed passes left, and one more pass on a poisoned output.
  const auto verified = [&](const char* when) {
    const double error = output_error(out, oracle);
    if (error <= tolerance(b.dtype)) return true;
    state.SkipWithError(fmt::format("{}: relative L2 error {:.3g} against {} exceeds {:.0e}", when, error,
                                    verified_here ? "the reference" : "its own verified pass", tolerance(b.dtype))
                            .c_str());
    return false;
  };
  if (!verified("the output after timing is wrong")) return;
  poison(out);
  pass.poison();
  pass.run(out, untimed);
  if (!verified("a pass after timing left a wrong output")) return;
  // Per operation type: seconds per pass, share of the pass, and rates from its FLOPs and bytes;
  // from a timer around each operation, or from the backend's own profiler.
  const auto costs = op_costs(c);
  double seconds_per_pass[kOps], total_flops = 0, total_bytes = 0, timed = 0;
  for (const auto& cost : costs) {
    total_flops += cost.flops;
    total_bytes += cost.bytes;
  }
  std::string split_by;
  bool by_operation = true;
  using benchmark::Counter;
  if (pass.profile) {
    const ProfiledPass profiled = pass.profile();
    by_operation = profiled.by_operation;
    for (int i = 0; i < kOps; ++i) seconds_per_pass[i] = profiled.per_pass.seconds[i];
    // What the framework adds to a pass: outside the operations' time (on a GPU, the time it did
    // not compute), as a share of the profiled passes' wall time.
    if (profiled.framework_seconds) {
      state.counters["framework_seconds"] = *profiled.framework_seconds;
      state.counters["framework_share"] = *profiled.framework_seconds / profiled.pass_seconds;
    }
    state.counters["profiled_pass_seconds"] = profiled.pass_seconds;
    // A compiled pass: its kernels by kind, and the compilation it paid once.
    if (profiled.library_kernel_seconds) state.counters["library_kernel_seconds"] = *profiled.library_kernel_seconds;
    if (profiled.generated_kernel_seconds) state.counters["generated_kernel_seconds"] = *profiled.generated_kernel_seconds;
    if (profiled.compile_seconds) state.counters["compile_seconds"] = *profiled.compile_seconds;
    split_by = by_operation ? fmt::format("split by operation: {}; ", profiled.basis)
                            : fmt::format("not split by operation (its kernels each span several): {}; ", profiled.basis);
  } else {
    for (int i = 0; i < kOps; ++i) seconds_per_pass[i] = times.seconds[i] / static_cast<double>(state.iterations());
  }
  for (int i = 0; i < kOps; ++i) timed += seconds_per_pass[i];
  for (int i = 0; i < kOps && by_operation; ++i) {
    const std::string op = op_name(static_cast<Op>(i));
    const double seconds = seconds_per_pass[i];
    state.counters["op/" + op + "/seconds"] = seconds;
    state.counters["op/" + op + "/share"] = timed > 0 ? seconds / timed : 0;
    state.counters["op/" + op + "/flops"] = seconds > 0 ? costs[i].flops / seconds : 0;
    state.counters["op/" + op + "/bytes_per_second"] = seconds > 0 ? costs[i].bytes / seconds : 0;
    // The counts themselves, so that report tools read them from here instead of redefining them.
    state.counters["op/" + op + "/flop_count"] = costs[i].flops;
    state.counters["op/" + op + "/byte_count"] = costs[i].bytes;
    // What the operation is, for the tables that group operations.
    state.counters["op/" + op + "/is_gemm"] = is_gemm(static_cast<Op>(i)) ? 1 : 0;
    state.counters["op/" + op + "/grows_quadratically"] = grows_quadratically(static_cast<Op>(i)) ? 1 : 0;
  }
  // Which roof bounds each operation on this machine, and how close it comes to it.
  std::string regimes;
  const bool device = b.threading == Threading::device;
  if (by_operation && ceilings && (!device || !ceilings->device.name.empty())) {
    const int threads = b.threading == Threading::all_cores ? ceilings->threads : 1;
    for (int i = 0; i < kOps; ++i) {
      const double bandwidth = device ? ceilings->device.bandwidth(costs[i].working_set)
                                      : ceilings->bandwidth(costs[i].working_set / threads, threads);
      // GEMMs run in the backend's number format; everything else in f32 (f64 in the reference).
      const Op op = static_cast<Op>(i);
      const bool matrix = is_gemm(op);
      // Each call's certain fixed cost: a kernel launch; on the host an OpenMP fork and join for
      // the all-core element-wise loops, but only a call for a GEMM, whose library may run a
      // small one on the calling thread.
      const double call = device                                           ? ceilings->device.launch_seconds
                          : b.threading == Threading::all_cores && !matrix ? ceilings->fork_join_seconds
                                                                           : ceilings->call_seconds;
      const DType unit = matrix || b.dtype == DType::f64 ? b.dtype : DType::f32;
      const double peak = device ? ceilings->device.peak(unit) : ceilings->peak(unit, threads);
      const Regime r = classify(costs[i].flops, costs[i].bytes, {peak, bandwidth, call * costs[i].calls});
      state.counters["op/" + std::string(op_name(op)) + "/roof_fraction"] =
          seconds_per_pass[i] > 0 ? r.bound_seconds() / seconds_per_pass[i] : 0;
      state.counters["op/" + std::string(op_name(op)) + "/regime"] = r.code;
      regimes += fmt::format("{}{}={}", regimes.empty() ? "" : ",", op_name(op), r.name);
    }
  }
  state.counters["flops"] = Counter(total_flops, Counter::kIsIterationInvariantRate);
  state.counters["bytes"] = total_bytes;
  state.counters["tokens"] = static_cast<double>(c.tokens());
  // The configuration as data (the context's model_config/<name> names the standard ones).
  state.counters["config_height"] = static_cast<double>(c.height);
  state.counters["config_width"] = static_cast<double>(c.width);
  state.counters["config_channels"] = static_cast<double>(c.channels);
  state.counters["config_layers"] = static_cast<double>(c.layers);
  state.counters["config_heads"] = static_cast<double>(c.heads);
  state.counters["memory_bytes"] = pass.allocated_bytes();
  state.counters["threads"] = b.threading == Threading::all_cores ? omp_get_max_threads() : 1;
  const std::string gemms = pass.gemm_implementation();
  const std::string verified_at =
      verified_here ? "verified at this configuration"
                    : fmt::format("verified at {}x{} (same C, layers, heads; the reference here costs {:.0f} GFLOP)",
                                  checked.height, checked.width, reference_flops(c) / 1e9);
  const std::string framework = pass.framework();
  std::string label =
      fmt::format("config {}; {}; {}{}{}", describe(c), verified_at, gemms.empty() ? "" : "GEMMs: oneDNN " + gemms + "; ",
                  framework.empty() ? "" : framework + "; ", split_by);
  state.SetLabel(regimes.empty() ? label.substr(0, label.size() - 2) : label + "regimes: " + regimes);
}

}  // namespace

BenchmarkCase model_case(CaseAxes axes, const model::Backend& b, const model::Config& c, const Ceilings* ceilings) {
  BenchmarkCase bc = case_with_axes(std::move(axes));
  const double footprint = backend_footprint_bytes(b, c);
  bc.on_device = b.threading == Threading::device;
  bc.timing = b.self_timed ? Timing::manual : Timing::wall;
  if (b.threading == Threading::device) {
    bc.device_memory_bytes = footprint;
    bc.memory_bytes = 4.0 * (2.0 * c.channels * c.tokens() + 4.0 * c.tokens());  // inputs and outputs on the host
  } else {
    bc.memory_bytes = footprint;
  }
  bc.rung = b.name;
  bc.body = [b, c, ceilings](benchmark::State& state) { time_passes(state, b, c, ceilings); };
  return bc;
}

std::vector<BenchmarkCase> model_cases(const SuiteRequest& request) {
  using namespace model;
  std::vector<Config> configs;
  if (request.model_config) {
    std::string error;
    if (auto c = parse_config(*request.model_config, error)) configs.push_back(*c);  // checked by the command line
  } else {
    for (const auto& name : request.profile == Profile::smoke   ? std::vector<std::string>{"tiny"}
                            : request.profile == Profile::quick ? std::vector<std::string>{"small", "medium"}
                                                                : config_names())
      configs.push_back(defined_config(name));
  }
  std::vector<BenchmarkCase> cases;
  for (const Backend& b : backends()) {
    if (!rung_requested(request, b.name) || !b.unavailable_reason().empty()) continue;
    for (const Config& c : configs) {
      if (b.max_layers_tokens && c.tokens() > b.max_layers_tokens && !request.model_config) continue;
      cases.push_back(model_case({kModelSuite, b.name, dtype_name(b.dtype), "tokens", c.tokens()}, b, c, request.ceilings));
    }
  }
  return cases;
}

std::vector<SuiteRung> model_rungs() {
  std::vector<SuiteRung> rungs;
  for (const model::Backend& b : model::backends())
    rungs.push_back({b.name, std::string(dtype_name(b.dtype)), std::string(threading_name(b.threading)), "", b.summary,
                     b.unavailable_reason});
  return rungs;
}

Suite model_suite() {
  return {.name = std::string(kModelSuite),
          .summary = "a dense-matching network (4D correlation + transformer) per backend",
          .rungs = model_rungs,
          .cases = model_cases,
          .context = [](const Ceilings&) { return model_memory_context(); },
          .report = model_report,
          .check =
              [](const SuiteRequest& request) {
                std::string error;
                if (request.model_config) model::parse_config(*request.model_config, error);
                return error;
              }};
}

}  // namespace ladder
