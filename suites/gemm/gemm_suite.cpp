#include "gemm_suite.hpp"

#include "gemm_report.hpp"

#include "roofs/ceilings.hpp"
#include "roofs/regime.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>

namespace ladder {
namespace {

int threads_of(const GemmRung& rung) { return rung.threading == Threading::all_cores ? omp_get_max_threads() : 1; }

// Verification runs once per case, on the case's first call; later calls (Google Benchmark calls
// a case several times while it sizes the iteration count) reuse the verdict.
std::mutex g_verified_mutex;
std::map<std::string, GemmVerification> g_verified;

}  // namespace

double impossible_rate(const GemmRung& rung, const Ceilings& ceilings) {
  double peak = 0;
  if (rung.threading == Threading::device) {
    peak = ceilings.device.name.empty() ? 0 : ceilings.device.peak(rung.dtype);
  } else {
    // The larger of the all-core peak and one core's times the threads: a busy machine measures
    // the first low, and a limit that a busy moment lowered would fail correct kernels.
    const int threads = threads_of(rung);
    peak = std::max(ceilings.peak(rung.dtype, threads), ceilings.peak(rung.dtype, 1) * threads);
  }
  return kImpossibleRateFactor * peak;
}

GemmUnit gemm_unit(const GemmRung& rung, const Ceilings& ceilings) {
  if (rung.threading == Threading::device) {
    if (ceilings.device.name.empty()) return {};
    const double peak = ceilings.device.peak(rung.dtype);
    if (peak <= 0) return {};
    return {unit_name(rung.unit), peak, rung.unit};
  }
  // A rung held to one unit (scalar code, AVX2 code) is set against that unit's probe.
  const bool one_core = rung.threading == Threading::one_core;
  const std::string where = one_core ? ", one core" : "";
  if (const std::string_view probe = unit_probe(rung.unit); !probe.empty()) {
    const double unit_peak = ceilings.peaks.probe_peak_at(std::string(probe), one_core ? 1 : ceilings.threads);
    return unit_peak > 0 ? GemmUnit{unit_name(rung.unit) + where, unit_peak, rung.unit} : GemmUnit{};
  }
  // One core's rungs against one core's peak, the others against all cores'.
  const double peak = one_core ? ceilings.peaks.peak_at(rung.dtype, 1) : ceilings.peaks.machine_peak(rung.dtype);
  if (peak <= 0) return {};
  // The fastest unit for its dtype: the probe that set the peak names it ("amx-bf16",
  // "avx512-bf16", "avx512-fma").
  Unit unit = rung.unit;
  if (unit == Unit::fastest) {
    const std::string source = ceilings.peaks.machine_peak_source(rung.dtype);
    unit = source.starts_with("amx")                  ? Unit::amx_tiles
           : source.find("bf16") != std::string::npos ? Unit::bf16_dot_products
                                                      : Unit::fma_units;
  }
  return {unit_name(unit) + where, peak, unit};
}

namespace {

void run_gemm_case(benchmark::State& state, const GemmCase& gemm_case, const Ceilings* ceilings) {
  const GemmRung& rung = *gemm_case.rung;
  const GemmProblem problem{gemm_case.n, rung.dtype};
  GemmVerification verification;
  {
    std::lock_guard lock(g_verified_mutex);
    auto it = g_verified.find(gemm_case.name());
    if (it == g_verified.end()) {
      it = g_verified.emplace(gemm_case.name(), verify_gemm_rung(rung, cached_gemm_inputs(gemm_case.n))).first;
    }
    verification = it->second;
  }
  if (!verification.verdict.ok) {
    state.SkipWithError(("verification failed: " + verification.verdict.message).c_str());
    return;
  }

  const GemmInputs& in = cached_gemm_inputs(gemm_case.n);
  AlignedBuffer<float> c(in.n * in.n);
  GemmOperands op = operands(in, c.data());
  // A kernel's exceptions (and running out of memory) become the case's error in register_cases.
  std::unique_ptr<GemmKernel> kernel = rung.prepare(op);
  const auto poison = [&] {
    parallel_fill(c.data(), c.size(), std::numeric_limits<float>::quiet_NaN());
    kernel->poison_output();
  };
  const auto verified = [&](const char* when) {
    kernel->copy_output();
    const Verdict v = check_gemm_output(rung.dtype, in, c.data(), rung.rounds_output);
    if (!v.ok) state.SkipWithError((when + v.message).c_str());
    return v.ok;
  };
  double loop_seconds = 0;
  poison();
  // A few timed calls, drawn at random, start from a poisoned C and are verified in full, timing
  // paused around the poison and the check: a kernel wrong on some calls and right on the last is
  // caught with the chance of drawing a wrong one, in each repetition.
  const std::int64_t batch = kernel->calls_per_run();
  const std::int64_t runs = std::max<std::int64_t>(1, state.max_iterations / std::max<std::int64_t>(1, batch));
  std::set<std::int64_t> checked;
  {
    static std::mutex random_mutex;
    static std::mt19937_64 random(std::random_device{}());
    std::lock_guard lock(random_mutex);
    std::uniform_int_distribution<std::int64_t> pick(0, runs - 1);
    while (checked.size() < static_cast<std::size_t>(std::min<std::int64_t>(runs, kCheckedTimedCalls)))
      checked.insert(pick(random));
  }
  std::int64_t call_index = 0;
  bool wrong_while_timed = false;
  const auto start = std::chrono::steady_clock::now();
  const auto timed_call = [&] {
    const bool check = checked.count(call_index++) > 0;
    if (check) {
      state.PauseTiming();
      poison();
      state.ResumeTiming();
    }
    kernel->run();
    if (auto seconds = kernel->self_timed_seconds()) {
      state.SetIterationTime(*seconds);
      loop_seconds += *seconds;
    }
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
    if (check) {
      state.PauseTiming();
      wrong_while_timed = !verified(fmt::format("timed call {} of {} left a wrong output: ", call_index, runs).c_str());
      if (!wrong_while_timed) state.ResumeTiming();  // after an error Google Benchmark allows no more timing
    }
  };
  if (batch > 1) {
    while (!wrong_while_timed && state.KeepRunningBatch(batch)) timed_call();
  } else {
    for (auto _ : state) {
      timed_call();
      if (wrong_while_timed) break;
    }
  }
  if (wrong_while_timed) return;
  if (!rung.self_timed) loop_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Verified again after timing: the output the timed calls left, then (where more than one call
  // was timed) one more call on a poisoned C, so that a kernel right once and idle after fails.
  if (!verified("the output after timing is wrong: ")) return;
  if (state.iterations() > 1) {
    poison();
    kernel->run();
    if (!verified("a call after timing left a wrong output: ")) return;
  }
  // A kernel that skips its work when C already holds a result times far below what it costs, and
  // at small sizes stays under the impossible rate (the call's own cost hides it): a call that
  // starts from a poisoned C must not be much slower than one that starts from a computed C.
  // The two kinds alternate, timed one by one, and the fastest of each counts: a lazy kernel's
  // every poisoned call computes, while on a busy machine a woken thread pool or a preemption
  // slows calls by milliseconds for a while (CI's 2 cores, another test's threads: the poisoned
  // calls, timed after the loop, read 6.5 ms against the loop's 0.8 ms), which alternating
  // shares between both kinds.
  if (const double per_call = loop_seconds / static_cast<double>(std::max<std::int64_t>(1, state.iterations()));
      !rung.self_timed && rung.threading != Threading::device && state.iterations() > 1 && per_call < 1e-3) {
    const int pairs = std::clamp(static_cast<int>(0.005 / std::max(per_call, 1e-9)), 11, 101);
    const auto timed_run = [&] {
      const auto t0 = std::chrono::steady_clock::now();
      kernel->run();
      benchmark::ClobberMemory();
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    double computed = std::numeric_limits<double>::infinity();
    double poisoned = std::numeric_limits<double>::infinity();
    const auto alternate = [&] {
      for (int k = 0; k < pairs; ++k) {
        computed = std::min(computed, timed_run());
        poison();
        poisoned = std::min(poisoned, timed_run());
      }
    };
    // The clock's own cost (tens of ns, a whole n = 1 call) is in both; a few tens of ns more are
    // allowed, under which no skipped work shows.
    const auto lazy = [&] { return poisoned > kLazyFactor * computed + kLazySlackSeconds; };
    alternate();
    if (lazy()) alternate();  // a second round before judging
    if (lazy()) {
      state.SkipWithError(fmt::format("the fastest of {} calls from a poisoned C took {:.3g} us, of calls from a "
                                      "computed C {:.3g} us: it skips work when its output already looks done",
                                      2 * pairs, poisoned * 1e6, computed * 1e6)
                              .c_str());
      return;
    }
    if (!verified("a call from a poisoned C left a wrong output: ")) return;
  }
  // A rate well above the machine's measured peak is no measurement: the work was not done.
  if (ceilings && loop_seconds > 0) {
    const double rate = problem.flops() * static_cast<double>(state.iterations()) / loop_seconds;
    const double ceiling = impossible_rate(rung, *ceilings);
    if (ceiling > 0 && rate > ceiling) {
      state.SkipWithError(fmt::format("ran at {:.4g} GFLOP/s, above {:.4g} GFLOP/s ({}x this machine's measured peak "
                                      "for {}): it cannot have done the work",
                                      rate / 1e9, ceiling / 1e9, kImpossibleRateFactor, dtype_name(rung.dtype))
                              .c_str());
      return;
    }
  }

  using benchmark::Counter;
  state.counters["flops"] = Counter(problem.flops(), Counter::kIsIterationInvariantRate);
  state.SetBytesProcessed(static_cast<std::int64_t>(problem.bytes()) * state.iterations());
  state.counters["bytes"] = problem.bytes();
  state.counters["intensity"] = problem.intensity();
  state.counters["n"] = static_cast<double>(problem.n);
  state.counters["threads"] = threads_of(rung);
  state.counters["rel_error"] = verification.verdict.relative_error;
  for (const auto& [name, value] : kernel->counters()) state.counters[name] = value;
  std::string label = verification.label;
  if (rung.threading == Threading::device) {
    // Against the GPU's own ceilings: its peak for this dtype (FMA probe or best cuBLAS rate), the
    // memory holding A, B and C (L2 where they fit), and one kernel launch.
    if (double peak = ceilings ? gemm_unit(rung, *ceilings).peak : 0; peak > 0) {
      state.counters["peak_fraction"] = Counter(problem.flops() / peak, Counter::kIsIterationInvariantRate);
      const DeviceCeilings& device = ceilings->device;
      const Roofs roofs{peak, device.bandwidth(problem.bytes()), device.launch_seconds};
      label += (label.empty() ? "" : "; ") + set_regime(state, problem.flops(), problem.bytes(), roofs);
    }
  } else if (ceilings) {
    const GemmUnit unit = gemm_unit(rung, *ceilings);
    if (unit.peak > 0) state.counters["peak_fraction"] = Counter(problem.flops() / unit.peak, Counter::kIsIterationInvariantRate);
    // The regime: which of compute, memory (the traffic the rung's loops really generate, from
    // the level holding each term's working set) and fixed cost bounds it, and how close it
    // comes to that roof.
    const int threads = threads_of(rung);
    const GemmTraffic traffic = gemm_traffic(rung, problem, *ceilings);
    state.counters["traffic_bytes"] = traffic.bytes;
    state.counters["traffic_working_set"] = traffic.working_set;
    state.counters["traffic_term"] = traffic.term;
    const Roofs roofs{unit.peak > 0 ? unit.peak : ceilings->peak(rung.dtype, threads), traffic.bytes_per_second,
                      gemm_overhead_floor(rung, problem, *ceilings)};
    label += (label.empty() ? "" : "; ") + set_regime(state, problem.flops(), traffic.bytes, roofs);
  }
  if (!label.empty()) state.SetLabel(label);
}

}  // namespace

GemmTraffic gemm_traffic(const GemmRung& rung, const GemmProblem& problem, const Ceilings& c) {
  const int threads = threads_of(rung);
  // Term 0, the compulsory bytes: A, B and C, a thread's share of them held where they fit.
  GemmTraffic worst{0, problem.bytes(), problem.bytes() / threads, c.bandwidth(problem.bytes() / threads, threads)};
  if (!rung.traffic || worst.bytes_per_second <= 0) return worst;
  const std::vector<TrafficTerm> terms = rung.traffic(problem.n, threads);
  const auto& plateaus = threads > 1 ? c.plateaus_all_cores : c.plateaus_one_core;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const TrafficTerm& term = terms[i];
    // Held in L1, a term's re-reads are the core's own loads: the compute roof covers them. The
    // machine's L1 size decides; the read sweep's L1 plateau may reach past it (prefetched).
    const bool in_l1 = c.l1_data_bytes > 0 ? term.working_set <= c.l1_data_bytes : c.level(term.working_set, threads) == "L1";
    if (in_l1) continue;
    double lookup = term.working_set;
    if (c.level(lookup, threads) == "L1")
      for (const auto& plateau : plateaus)
        if (plateau.level != "L1") {
          lookup = std::max(lookup, static_cast<double>(plateau.from_bytes));
          break;
        }
    const double bandwidth = c.bandwidth(lookup, threads);
    if (bandwidth > 0 && term.bytes / bandwidth > worst.bytes / worst.bytes_per_second)
      worst = {static_cast<int>(i) + 1, term.bytes, term.working_set, bandwidth};
  }
  return worst;
}

bool has_traffic_model(const GemmRung& rung) {
  return rung.threading != Threading::device && rung.traffic && !rung.traffic(kLadderSize, 1).empty();
}

double gemm_model_rate(const GemmRung& rung, std::int64_t n, const Ceilings& c) {
  const GemmProblem problem{n, rung.dtype};
  const int threads = threads_of(rung);
  const GemmUnit unit = gemm_unit(rung, c);
  const double peak = unit.peak > 0 ? unit.peak : c.peak(rung.dtype, threads);
  if (peak <= 0) return 0;
  const GemmTraffic traffic = gemm_traffic(rung, problem, c);
  const Regime bound =
      classify(problem.flops(), traffic.bytes, {peak, traffic.bytes_per_second, gemm_overhead_floor(rung, problem, c)});
  return bound.bound_seconds() > 0 ? problem.flops() / bound.bound_seconds() : 0;
}

double gemm_overhead_floor(const GemmRung& rung, const GemmProblem& problem, const Ceilings& c) {
  const bool forks = rung.threading == Threading::all_cores && !rung.picks_own_threads;
  return (forks ? c.fork_join_seconds : c.call_seconds) + problem.flops() * rung.dispatches_per_flop * c.dispatch_seconds;
}

std::string gemm_rung_description(const GemmRung& rung) {
  return std::string(mechanism_name(rung.mechanism)) + ": " + rung.summary;
}

CaseAxes gemm_case_axes(const GemmRung& rung, std::int64_t n) { return {kGemmSuite, rung.name, dtype_name(rung.dtype), "n", n}; }

std::vector<GemmCase> plan_gemm_cases(const std::vector<const GemmRung*>& rungs, const std::vector<std::int64_t>& sizes,
                                      bool uncapped) {
  std::vector<GemmCase> cases;
  for (const GemmRung* rung : rungs) {
    std::vector<std::int64_t> rung_sizes;
    for (std::int64_t n : sizes) {
      std::int64_t effective = (!uncapped && rung->max_n > 0) ? std::min(n, rung->max_n) : n;
      if (std::find(rung_sizes.begin(), rung_sizes.end(), effective) == rung_sizes.end()) rung_sizes.push_back(effective);
    }
    for (std::int64_t n : rung_sizes) cases.push_back({rung, n});
  }
  return cases;
}

std::vector<std::int64_t> gemm_profile_sizes(Profile profile, Threading where) {
  if (profile == Profile::quick) return {kLadderSize, 2048};
  if (profile == Profile::smoke) return {8, 33};
  if (profile == Profile::sweep) return kSweepSizes;
  if (profile == Profile::ladder) {
    if (where == Threading::device) return {kCommonSize, kGpuComputeBoundSize};
    return {kCommonSize};
  }
  return {64, 128, 256, 512, kLadderSize, 2048, 4096};
}

BenchmarkCase gemm_case(const GemmCase& g, const Ceilings* ceilings) {
  BenchmarkCase c = case_with_axes(g.axes());
  c.timing = g.rung->self_timed ? Timing::manual : Timing::wall;
  c.on_device = g.rung->threading == Threading::device;
  c.memory_bytes = gemm_case_bytes(g.n);
  c.shared_memory_key = fmt::format("gemm inputs n={}", g.n);
  c.shared_memory_bytes = gemm_inputs_bytes(g.n);
  c.rung = g.rung->name;
  c.call_seconds = estimated_gemm_call_seconds(*g.rung, g.n);
  c.batch_seconds = estimated_gemm_batch_seconds(*g.rung);
  c.body = [g, ceilings](benchmark::State& state) { run_gemm_case(state, g, ceilings); };
  return c;
}

std::vector<BenchmarkCase> gemm_cases(const SuiteRequest& request) {
  std::vector<const GemmRung*> rungs;
  for (const auto& rung : registry().gemm) {
    if (!rung_requested(request, rung.name)) continue;
    if (request.profile == Profile::sweep && request.rungs.empty() && !has_traffic_model(rung)) continue;
    if (const std::string& reason = gemm_rung_unavailable_reason(rung); !reason.empty()) {
      if (!request.rungs.empty()) note_under_header(fmt::format("skipping gemm/{}: unavailable: {}", rung.name, reason));
      continue;
    }
    rungs.push_back(&rung);
  }
  std::vector<BenchmarkCase> cases;
  for (const GemmRung* rung : rungs) {
    auto sizes = request.sizes.value_or(gemm_profile_sizes(request.profile, rung->threading));
    // The ladder profile's rungs capped below the common size run at their cap and at half of it:
    // the report extrapolates them to the common size by n^3 and shows from the two whether their
    // time per FMA held constant (the interpreters' does; a cache-bound rung's grows).
    if (request.profile == Profile::ladder && !request.sizes && !request.uncapped && rung->max_n > 0 && rung->max_n < kCommonSize)
      sizes = {rung->max_n / 2, rung->max_n};
    // The sweep takes a capped rung one size past its cap, so that a cliff at the cap (naive's at
    // n = 1024, a power of two) has a measured neighbour on each side.
    bool uncapped = request.uncapped;
    if (request.profile == Profile::sweep && !request.sizes && !uncapped && rung->max_n > 0) {
      const auto past = std::find_if(sizes.begin(), sizes.end(), [&](std::int64_t n) { return n > rung->max_n; });
      if (past != sizes.end()) sizes.erase(past + 1, sizes.end());
      uncapped = true;
    }
    for (const GemmCase& g : plan_gemm_cases({rung}, sizes, uncapped)) cases.push_back(gemm_case(g, request.ceilings));
  }
  return cases;
}

namespace {

std::vector<SuiteRung> gemm_rungs() {
  std::vector<SuiteRung> rungs;
  for (const GemmRung& rung : registry().gemm)
    rungs.push_back({rung.name, std::string(dtype_name(rung.dtype)), std::string(threading_name(rung.threading)),
                     rung.max_n > 0 ? fmt::format("n<={}", rung.max_n) : "", gemm_rung_description(rung),
                     [&rung] { return gemm_rung_unavailable_reason(rung); }});
  return rungs;
}

}  // namespace

Suite gemm_suite() {
  return {.name = std::string(kGemmSuite),
          .summary = "the ladder: C = A*B at every rung",
          .rungs = gemm_rungs,
          .cases = gemm_cases,
          .context = gemm_context,
          .report = gemm_report,
          .report_command = {"ladder", "the ladder report: each rung's speed and why"},
          .ladder_profile = true};
}

}  // namespace ladder
