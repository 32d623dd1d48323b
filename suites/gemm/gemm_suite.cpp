#include "gemm_suite.hpp"

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

int threads_of(const GemmRung& rung) { return rung.threading == Threading::all_cores ? omp_get_max_threads() : 1; }

}  // namespace

// i-k-j so that it vectorises, rows across cores.
void reference_gemm_rows(std::int64_t n, const float* a, const float* b, const std::vector<std::int64_t>& rows, double* c) {
  const auto count = static_cast<std::int64_t>(rows.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < count; ++r) {
    const std::int64_t i = rows[static_cast<std::size_t>(r)];
    double* c_row = c + r * n;
    std::fill(c_row, c_row + n, 0.0);
    for (std::int64_t k = 0; k < n; ++k) {
      const double a_ik = a[i * n + k];
      const float* b_row = b + k * n;
      for (std::int64_t j = 0; j < n; ++j) c_row[j] += a_ik * static_cast<double>(b_row[j]);
    }
  }
}

void reference_gemm(std::int64_t n, const float* a, const float* b, double* c) {
  std::vector<std::int64_t> rows(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)] = i;
  reference_gemm_rows(n, a, b, rows, c);
}

std::int64_t verified_row_count(std::int64_t n) {
  const double row_flops = 2.0 * static_cast<double>(n) * static_cast<double>(n);
  return std::min<std::int64_t>(n, std::max<std::int64_t>(64, static_cast<std::int64_t>(kReferenceFlopBudget / row_flops)));
}

std::vector<std::int64_t> verified_rows(std::int64_t n) {
  const std::int64_t count = verified_row_count(n);
  std::vector<std::int64_t> rows;
  rows.reserve(static_cast<std::size_t>(count));
  if (count == n) {
    for (std::int64_t i = 0; i < n; ++i) rows.push_back(i);
    return rows;
  }
  for (std::int64_t r = 0; r < count; ++r) {
    const std::int64_t begin = r * n / count, end = (r + 1) * n / count;
    const auto offset = static_cast<std::int64_t>(std::fabs(input_value(3, r) * static_cast<float>(end - begin)));
    rows.push_back(begin + std::min(offset, end - begin - 1));
  }
  return rows;
}

struct GemmInputs::Rounded {
  std::mutex mutex;
  std::unique_ptr<AlignedBuffer<double>> bf16, f16;
};

const AlignedBuffer<double>& GemmInputs::reference_for(DType dtype) const {
  if (!verified_against_rounded_inputs(dtype)) return reference;
  std::lock_guard lock(rounded_->mutex);
  auto& slot = dtype == DType::bf16 ? rounded_->bf16 : rounded_->f16;
  if (!slot) {
    const std::size_t count = a.size();
    AlignedBuffer<float> a_rounded(count), b_rounded(count);
    for (std::size_t i = 0; i < count; ++i) {
      a_rounded[i] = dtype == DType::bf16 ? to_float(a_bf16[i]) : to_float(a_f16[i]);
      b_rounded[i] = dtype == DType::bf16 ? to_float(b_bf16[i]) : to_float(b_f16[i]);
    }
    slot = std::make_unique<AlignedBuffer<double>>(rows.size() * static_cast<std::size_t>(n));
    reference_gemm_rows(n, a_rounded.data(), b_rounded.data(), rows, slot->data());
  }
  return *slot;
}

Verdict check_gemm_output(DType dtype, const GemmInputs& in, const float* c, bool rounds_output) {
  const std::size_t n = static_cast<std::size_t>(in.n);
  std::vector<float> sampled;
  std::span<const float> got(c, n * n);
  if (in.rows.size() != n) {
    sampled.resize(in.rows.size() * n);
    for (std::size_t r = 0; r < in.rows.size(); ++r)
      std::copy_n(c + static_cast<std::size_t>(in.rows[r]) * n, n, sampled.begin() + static_cast<std::ptrdiff_t>(r * n));
    got = sampled;
  }
  const double tolerance = verification_tolerance(dtype) + (rounds_output ? unit_roundoff(dtype) : 0.0);
  Verdict verdict = compare_to_reference(got, in.reference_for(dtype).span(), tolerance, in.n);
  // The figure reported is what the format costs: the error against the f32 inputs' product.
  if (verdict.ok && verified_against_rounded_inputs(dtype))
    verdict.relative_error = compare_to_reference(got, in.reference.span(), 1.0).relative_error;
  return verdict;
}

GemmOperands operands(const GemmInputs& in, float* c) {
  return {in.n, in.a.data(), in.b.data(), in.a_bf16.data(), in.b_bf16.data(), in.a_f16.data(), in.b_f16.data(), c};
}

namespace {

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
    return {rung.dtype == DType::f32 ? "GPU CUDA cores" : "GPU tensor cores", peak};
  }
  const double peak = ceilings.peaks.machine_peak(rung.dtype);
  if (peak <= 0) return {};
  // The probe that set the peak names the unit: "amx-bf16 x16 threads", "avx512-bf16 …", "avx512-fma …".
  const std::string source = ceilings.peaks.machine_peak_source(rung.dtype);
  const std::string unit = source.find("amx") != std::string::npos    ? "AMX tiles"
                           : source.find("bf16") != std::string::npos ? "AVX512-BF16 dot products"
                                                                      : "FMA units";
  return {"CPU " + unit, peak};
}

namespace {

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
  // A kernel's exceptions (and running out of memory) become the case's error in register_cases.
  std::unique_ptr<GemmKernel> kernel = rung.prepare(op);
  const auto poison = [&] {
    std::fill(c.data(), c.data() + c.size(), std::numeric_limits<float>::quiet_NaN());
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
  const auto start = std::chrono::steady_clock::now();
  const auto timed_call = [&] {
    kernel->run();
    if (auto seconds = kernel->self_timed_seconds()) {
      state.SetIterationTime(*seconds);
      loop_seconds += *seconds;
    }
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  };
  if (const std::int64_t batch = kernel->calls_per_run(); batch > 1) {
    while (state.KeepRunningBatch(batch)) timed_call();
  } else {
    for (auto _ : state) timed_call();
  }
  if (!rung.self_timed) loop_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Verified again after timing: the output the timed calls left, then (where more than one call
  // was timed) one more call on a poisoned C, so that a kernel right once and idle after fails.
  if (!verified("the output after timing is wrong: ")) return;
  if (state.iterations() > 1) {
    poison();
    kernel->run();
    if (!verified("a call after timing left a wrong output: ")) return;
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
    if (double peak = gemm_unit(rung, *ceilings).peak; peak > 0)
      state.counters["peak_fraction"] = Counter(problem.flops() / peak, Counter::kIsIterationInvariantRate);
    // The regime: which of compute, memory (the level holding A, B and C) and fixed cost bounds
    // it, and how close it comes to that roof.
    const int threads = threads_of(rung);
    const Roofs roofs{ceilings->peak(rung.dtype, threads), ceilings->bandwidth(problem.bytes() / threads, threads),
                      gemm_overhead_floor(rung, problem, *ceilings)};
    label += (label.empty() ? "" : "; ") + set_regime(state, problem.flops(), problem.bytes(), roofs);
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
  for (std::int64_t i = 0; i < count; ++i) {
    in.a[i] = input_value(1, i);
    in.b[i] = input_value(2, i);
    in.a_bf16[i] = to_bf16(in.a[i]);
    in.b_bf16[i] = to_bf16(in.b[i]);
    in.a_f16[i] = to_f16(in.a[i]);
    in.b_f16[i] = to_f16(in.b[i]);
  }
  in.rows = verified_rows(n);
  in.reference = AlignedBuffer<double>(in.rows.size() * static_cast<std::size_t>(n));
  reference_gemm_rows(n, in.a.data(), in.b.data(), in.rows, in.reference.data());
  in.rounded_ = std::make_shared<GemmInputs::Rounded>();
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

double gemm_inputs_bytes(std::int64_t n) {
  const double elements = static_cast<double>(n) * static_cast<double>(n);
  const double reference_elements = static_cast<double>(verified_row_count(n)) * static_cast<double>(n);
  // A and B in f32, bf16 and f16; three references in double (f32, bf16 and f16 inputs).
  return elements * (4 + 4 + 2 + 2 + 2 + 2) + reference_elements * 8 * 3;
}

double gemm_case_bytes(std::int64_t n) {
  const double elements = static_cast<double>(n) * static_cast<double>(n);
  // The timed C, the verification's C, and room for a rung's packed or rounded copies of A and B.
  return elements * (4 + 4 + 8);
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
  result.verdict = check_gemm_output(rung.dtype, in, c.data(), rung.rounds_output);
  if (in.rows.size() != static_cast<std::size_t>(in.n))
    result.label += fmt::format("{}verified on {} of {} rows (sampled)", result.label.empty() ? "" : "; ", in.rows.size(), in.n);
  return result;
}

std::string gemm_case_name(const GemmRung& rung, std::int64_t n) {
  return case_name(kGemmSuite, rung.name, dtype_name(rung.dtype), fmt::format("n:{}", n));
}

std::vector<GemmCase> plan_gemm_cases(const std::vector<const GemmRung*>& rungs, const std::vector<std::int64_t>& sizes,
                                      bool uncapped) {
  std::vector<GemmCase> cases;
  for (const GemmRung* rung : rungs) {
    std::vector<std::int64_t> rung_sizes;
    for (std::int64_t n : sizes) {
      std::int64_t effective = (!uncapped && rung->max_n > 0) ? std::min(n, rung->max_n) : n;
      if (std::find(rung_sizes.begin(), rung_sizes.end(), effective) == rung_sizes.end()) rung_sizes.push_back(effective);
    }
    for (std::int64_t n : rung_sizes) cases.push_back({gemm_case_name(*rung, n), rung, n});
  }
  return cases;
}

std::vector<std::int64_t> gemm_profile_sizes(const std::string& profile, Threading where) {
  if (profile == "quick") return {kLadderSize, 2048};
  if (profile == "smoke") return {8, 33};
  if (profile == "ladder") {
    if (where == Threading::device) return {kCommonSize, kGpuComputeBoundSize};
    return {kCommonSize};
  }
  return {64, 128, 256, 512, kLadderSize, 2048, 4096};
}

BenchmarkCase gemm_case(const GemmCase& g, const Ceilings* ceilings) {
  BenchmarkCase c;
  c.name = g.name;
  c.timing = g.rung->self_timed ? Timing::manual : Timing::wall;
  c.on_device = g.rung->threading == Threading::device;
  c.memory_bytes = gemm_case_bytes(g.n);
  c.shared_memory_key = fmt::format("gemm inputs n={}", g.n);
  c.shared_memory_bytes = gemm_inputs_bytes(g.n);
  c.body = [g, ceilings](benchmark::State& state) { run_gemm_case(state, g, ceilings); };
  return c;
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
  std::vector<BenchmarkCase> cases;
  for (const GemmRung* rung : rungs) {
    const auto sizes = request.sizes.value_or(gemm_profile_sizes(request.profile, rung->threading));
    for (const GemmCase& g : plan_gemm_cases({rung}, sizes, request.uncapped)) cases.push_back(gemm_case(g, request.ceilings));
  }
  return cases;
}

namespace {

std::vector<SuiteRung> gemm_rungs() {
  std::vector<SuiteRung> rungs;
  for (const GemmRung& rung : registry().gemm)
    rungs.push_back({rung.name, std::string(dtype_name(rung.dtype)), std::string(threading_name(rung.threading)),
                     rung.max_n > 0 ? fmt::format("n<={}", rung.max_n) : "", rung.mechanism + ": " + rung.summary,
                     rung.unavailable_reason});
  return rungs;
}

}  // namespace

Suite gemm_suite() {
  return {
      .name = std::string(kGemmSuite), .summary = "the ladder: C = A*B at every rung", .rungs = gemm_rungs, .cases = gemm_cases};
}

}  // namespace ladder
