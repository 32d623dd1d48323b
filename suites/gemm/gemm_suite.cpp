#include "gemm_suite.hpp"

#include "ceilings.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <mutex>

namespace ladder {
namespace {

// Uniform in [-1, 1) on a grid of 2^-23: the hash's top 24 bits, so every value is exact in f32.
float input_value(std::uint64_t seed, std::int64_t index) {
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ull + static_cast<std::uint64_t>(index);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return static_cast<float>(static_cast<double>(x >> 40) / (1 << 23) - 1.0);
}

int threads_of(const GemmRung& rung) {
  return rung.threading == Threading::all_cores ? omp_get_max_threads() : 1;
}

}  // namespace

// i-k-j so that it vectorises, rows across cores.
void reference_gemm(std::int64_t n, const float* a, const float* b, double* c) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    double* c_row = c + i * n;
    std::fill(c_row, c_row + n, 0.0);
    for (std::int64_t k = 0; k < n; ++k) {
      const double a_ik = a[i * n + k];
      const float* b_row = b + k * n;
      for (std::int64_t j = 0; j < n; ++j) c_row[j] += a_ik * static_cast<double>(b_row[j]);
    }
  }
}

GemmOperands operands(const GemmInputs& in, float* c) {
  return {in.n, in.a.data(), in.b.data(), in.a_bf16.data(), in.b_bf16.data(), in.a_f16.data(), in.b_f16.data(), c};
}

namespace {

// Verification runs once per case, on the case's first call; later calls (Google Benchmark calls
// a case several times while it sizes the iteration count) reuse the verdict.
std::mutex g_verified_mutex;
std::map<std::string, GemmVerification> g_verified;

void run_gemm_case(benchmark::State& state, const GemmCase& gemm_case, const Ceilings* ceilings) {
  const GemmRung& rung = *gemm_case.rung;
  const GemmProblem problem{gemm_case.n, rung.dtype};
  GemmVerification verification;
  {
    std::lock_guard lock(g_verified_mutex);
    auto it = g_verified.find(gemm_case.name);
    if (it == g_verified.end()) {
      it = g_verified.emplace(gemm_case.name, verify_gemm_rung(rung, cached_gemm_inputs(gemm_case.n))).first;
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
  std::unique_ptr<GemmKernel> kernel;
  try {
    kernel = rung.prepare(op);
    for (auto _ : state) {
      kernel->run();
      if (auto seconds = kernel->self_timed_seconds()) state.SetIterationTime(*seconds);
      benchmark::DoNotOptimize(c.data());
      benchmark::ClobberMemory();
    }
  } catch (const std::exception& e) {
    state.SkipWithError(fmt::format("{} failed: {}", gemm_case.name, e.what()).c_str());
    return;
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
    const DeviceCeilings* device = ceilings && !ceilings->device.name.empty() ? &ceilings->device : nullptr;
    if (double peak = device ? device->peak(rung.dtype) : 0; peak > 0) {
      state.counters["peak_fraction"] = Counter(problem.flops() / peak, Counter::kIsIterationInvariantRate);
      Regime regime = classify(problem.flops(), peak, problem.bytes(), device->bandwidth(problem.bytes()), device->launch_seconds);
      state.counters["roof_fraction"] = Counter(regime.bound_seconds(), Counter::kIsIterationInvariantRate);
      label += (label.empty() ? "" : "; ") + regime.name + "-bound";
    }
  } else if (ceilings) {
    if (double peak = ceilings->peaks.machine_peak(rung.dtype); peak > 0)
      state.counters["peak_fraction"] = Counter(problem.flops() / peak, Counter::kIsIterationInvariantRate);
    // The regime: which of compute, memory (the level holding A, B and C) and fixed cost bounds
    // it, and how close it comes to that roof.
    const int threads = threads_of(rung);
    Regime regime = classify(problem.flops(), ceilings->peak(rung.dtype, threads), problem.bytes(),
                             ceilings->bandwidth(problem.bytes() / threads, threads), gemm_overhead_floor(rung, problem, *ceilings));
    state.counters["roof_fraction"] = Counter(regime.bound_seconds(), Counter::kIsIterationInvariantRate);
    label += (label.empty() ? "" : "; ") + regime.name + "-bound";
  }
  if (!label.empty()) state.SetLabel(label);
}

}  // namespace

double gemm_overhead_floor(const GemmRung& rung, const GemmProblem& problem, const Ceilings& c) {
  const bool forks = rung.threading == Threading::all_cores && !rung.picks_own_threads;
  return (forks ? c.fork_join_seconds : c.call_seconds) + problem.flops() * rung.dispatches_per_flop * c.dispatch_seconds;
}

GemmInputs make_gemm_inputs(std::int64_t n) {
  GemmInputs in;
  in.n = n;
  const std::int64_t count = n * n;
  in.a = AlignedBuffer<float>(count);
  in.b = AlignedBuffer<float>(count);
  in.a_bf16 = AlignedBuffer<bf16>(count);
  in.b_bf16 = AlignedBuffer<bf16>(count);
  in.a_f16 = AlignedBuffer<f16>(count);
  in.b_f16 = AlignedBuffer<f16>(count);
  in.reference = AlignedBuffer<double>(count);
  for (std::int64_t i = 0; i < count; ++i) {
    in.a[i] = input_value(1, i);
    in.b[i] = input_value(2, i);
    in.a_bf16[i] = to_bf16(in.a[i]);
    in.b_bf16[i] = to_bf16(in.b[i]);
    in.a_f16[i] = to_f16(in.a[i]);
    in.b_f16[i] = to_f16(in.b[i]);
  }
  reference_gemm(n, in.a.data(), in.b.data(), in.reference.data());
  return in;
}

const GemmInputs& cached_gemm_inputs(std::int64_t n) {
  static std::mutex mutex;
  static std::map<std::int64_t, std::unique_ptr<GemmInputs>> cache;
  std::lock_guard lock(mutex);
  auto& slot = cache[n];
  if (!slot) slot = std::make_unique<GemmInputs>(make_gemm_inputs(n));
  return *slot;
}

double gemm_case_bytes(std::int64_t n) {
  const double elements = static_cast<double>(n) * static_cast<double>(n);
  // A, B (f32 and bf16), C, the reference in double, and room for a rung's packed copies.
  return elements * (4 + 4 + 2 + 2 + 2 + 2 + 4 + 8 + 8);
}

GemmVerification verify_gemm_rung(const GemmRung& rung, const GemmInputs& in) {
  GemmVerification result;
  AlignedBuffer<float> c(in.n * in.n);
  std::fill(c.data(), c.data() + c.size(), std::numeric_limits<float>::quiet_NaN());
  GemmOperands op = operands(in, c.data());
  try {
    auto kernel = rung.prepare(op);
    kernel->run();
    kernel->copy_output();
    result.label = kernel->label();
  } catch (const std::exception& e) {
    result.verdict.message = std::string("threw: ") + e.what();
    return result;
  }
  result.verdict = compare_to_reference(c.span(), in.reference.span(), dtype_tolerance(rung.dtype));
  return result;
}

std::string gemm_case_name(const GemmRung& rung, std::int64_t n) {
  return fmt::format("gemm/{}/{}/n:{}", rung.name, dtype_name(rung.dtype), n);
}

std::vector<GemmCase> plan_gemm_cases(const std::vector<const GemmRung*>& rungs,
                                      const std::vector<std::int64_t>& sizes, bool uncapped) {
  std::vector<GemmCase> cases;
  for (const GemmRung* rung : rungs) {
    std::vector<std::int64_t> rung_sizes;
    for (std::int64_t n : sizes) {
      std::int64_t effective = (!uncapped && rung->max_n > 0) ? std::min(n, rung->max_n) : n;
      if (std::find(rung_sizes.begin(), rung_sizes.end(), effective) == rung_sizes.end())
        rung_sizes.push_back(effective);
    }
    for (std::int64_t n : rung_sizes) cases.push_back({gemm_case_name(*rung, n), rung, n});
  }
  return cases;
}

std::vector<std::int64_t> gemm_profile_sizes(const std::string& profile) {
  if (profile == "quick") return {kLadderSize, 2048};
  if (profile == "smoke") return {8, 33};
  return {64, 128, 256, 512, kLadderSize, 2048, 4096};
}

std::vector<BenchmarkCase> gemm_cases(const SuiteRequest& request) {
  std::vector<const GemmRung*> rungs;
  for (const auto& rung : registry().gemm) {
    if (!rung_requested(request, rung.name)) continue;
    if (auto reason = rung.unavailable_reason(); !reason.empty()) {
      if (!request.rungs.empty())
        std::fprintf(stderr, "ladderbench: skipping gemm/%s: unavailable: %s\n", rung.name.c_str(), reason.c_str());
      continue;
    }
    rungs.push_back(&rung);
  }
  const auto sizes = request.sizes.value_or(gemm_profile_sizes(request.profile));
  std::vector<BenchmarkCase> cases;
  for (const GemmCase& g : plan_gemm_cases(rungs, sizes, request.uncapped)) {
    BenchmarkCase c;
    c.name = g.name;
    c.timing = g.rung->self_timed ? Timing::manual : Timing::wall;
    c.memory_bytes = gemm_case_bytes(g.n);
    const Ceilings* ceilings = request.ceilings;
    c.body = [g, ceilings](benchmark::State& state) { run_gemm_case(state, g, ceilings); };
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace ladder
