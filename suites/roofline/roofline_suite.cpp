#include "roofline_suite.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <mutex>

#include "roofs/read_bandwidth.hpp"
#include "roofs/ceilings.hpp"
#include "roofs/regime.hpp"
#include "core/buffer.hpp"
#include "core/cpu_features.hpp"
#include "core/machine.hpp"
#include "roofline_kernels.hpp"

namespace ladder {
namespace {

// a and b reach the kernels through memory the compiler cannot see into, so y*1+1 is computed.
volatile double g_multiplier = 1.0, g_addend = 1.0;

constexpr std::int64_t kBoxedElements = 4096;  // the interpreter is slow: a small, cached array

struct Sweep {
  std::string rung;
  bool f64;
  int threads;
  const char* probe;      // the peak probe its FLOP/s are set against
  Isa isa = Isa::scalar;  // what the CPU must offer (the scalar sweep's FMA comes with AVX2)
  void (*f32_kernel)(const float*, float*, std::int64_t, int, float, float) = nullptr;
  void (*f64_kernel)(const double*, double*, std::int64_t, int, double, double) = nullptr;
};

template <class T>
struct SweepBuffers {
  AlignedBuffer<T> in, out;
  double input_sum = 0;
  explicit SweepBuffers(std::int64_t n) : in(n), out(n) {
#pragma omp parallel for schedule(static) reduction(+ : input_sum)
    for (std::int64_t i = 0; i < n; ++i) {
      in[i] = static_cast<T>(i % 7 - 3);
      out[i] = 0;
      input_sum += static_cast<double>(in[i]);
    }
  }
};

template <class T>
SweepBuffers<T>& buffers(std::int64_t n) {
  static std::mutex mutex;
  static std::unique_ptr<SweepBuffers<T>> cached;
  std::lock_guard lock(mutex);
  if (!cached || static_cast<std::int64_t>(cached->in.size()) != n) cached = std::make_unique<SweepBuffers<T>>(n);
  return *cached;
}

template <class T>
double sum(const T* v, std::int64_t n) {
  double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
  for (std::int64_t i = 0; i < n; ++i) s += static_cast<double>(v[i]);
  return s;
}

template <class T>
void run_compiled(benchmark::State& state, const Sweep& sweep, std::int64_t n, int k) {
  auto& buf = buffers<T>(n);
  auto kernel = [&] {
    const T a = static_cast<T>(g_multiplier), b = static_cast<T>(g_addend);
    if constexpr (sizeof(T) == 8) {
      sweep.f64_kernel(buf.in.data(), buf.out.data(), n, k, a, b);
    } else {
      sweep.f32_kernel(buf.in.data(), buf.out.data(), n, k, a, b);
    }
  };
  const double expected = buf.input_sum + static_cast<double>(n) * k;  // out[i] = in[i] + k
  std::fill(buf.out.data(), buf.out.data() + n, std::numeric_limits<T>::quiet_NaN());
  kernel();
  if (sum(buf.out.data(), n) != expected) {
    state.SkipWithError("verification failed: checksum differs from its closed form");
    return;
  }
  for (auto _ : state) {
    kernel();
    benchmark::ClobberMemory();
  }
  if (sum(buf.out.data(), n) != expected) {
    state.SkipWithError("checksum after timing differs from its closed form");
    return;
  }
  // One more call on a poisoned output: a kernel right once and idle after leaves NaN.
  std::fill(buf.out.data(), buf.out.data() + n, std::numeric_limits<T>::quiet_NaN());
  kernel();
  if (sum(buf.out.data(), n) != expected) state.SkipWithError("a call after timing left a wrong output (checksum)");
}

// One call's seconds over n elements at k, for --plan: a call over a sample of kSampleElements a
// thread (in a core's L2), scaled by n. A fixed sample split over hundreds of cores would time
// their fork and join alone. Where k is small the arrays' own level is slower than the sample's,
// but there the calls are short and the minimum time decides the case. 0 on a recorded machine.
template <class T>
double estimated_call_seconds(const Sweep& sweep, std::int64_t n, int k) {
  if (machine_is_recorded()) return 0;
  constexpr std::int64_t kSampleElements = 16 * 1024;
  const std::int64_t elements = std::min(n, kSampleElements * std::max(1, sweep.threads));
  auto& buf = buffers<T>(elements);  // the suite's own arrays, sized for the case when it runs
  double fastest = std::numeric_limits<double>::infinity();
  // The fastest of ten: the first warms the caches; on a busy core a woken thread may wait for
  // the scheduler's next tick (4 ms) in a few of them.
  for (int call = 0; call < 10; ++call) {
    const auto start = std::chrono::steady_clock::now();
    if constexpr (sizeof(T) == 8) {
      sweep.f64_kernel(buf.in.data(), buf.out.data(), elements, k, 1.0, 1.0);
    } else {
      sweep.f32_kernel(buf.in.data(), buf.out.data(), elements, k, 1.0f, 1.0f);
    }
    if (call > 0) fastest = std::min(fastest, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return fastest * static_cast<double>(n) / static_cast<double>(elements);
}

void run_boxed(benchmark::State& state, std::int64_t n, int k) {
  SweepBuffers<double> input(n);
  roofline::BoxedSweep sweep(input.in.data(), n);
  std::vector<double> out(static_cast<std::size_t>(n));
  sweep.run(k, g_multiplier, g_addend);
  sweep.result(out.data());
  if (sum(out.data(), n) != input.input_sum + static_cast<double>(n) * k) {
    state.SkipWithError("verification failed: checksum differs from its closed form");
    return;
  }
  for (auto _ : state) sweep.run(k, g_multiplier, g_addend);
}

}  // namespace

void set_roofline_counters(benchmark::State& state, const roofline::RooflineProblem& problem) {
  using benchmark::Counter;
  state.counters["flops"] = Counter(problem.flops(), Counter::kIsIterationInvariantRate);
  state.SetBytesProcessed(static_cast<std::int64_t>(problem.bytes()) * state.iterations());
  state.counters["bytes"] = problem.bytes();
  state.counters["intensity"] = problem.intensity();
  state.counters["k"] = problem.k;
}

std::vector<int> roofline_intensities() {
  std::vector<int> ks = {0};
  for (int k = 1; k <= 512; k *= 2) ks.push_back(k);
  return ks;
}

namespace {

// The sweeps, one per rung and dtype: the rungs' list and their cases both come from here.
std::vector<Sweep> sweeps(int all) {
  using namespace roofline;
  return {{"scalar", false, all, "scalar-fma", Isa::avx2, scalar_f32, nullptr},
          {"scalar", true, all, "scalar-fma-f64", Isa::avx2, nullptr, scalar_f64},
          {"avx2", false, all, "avx2-fma", Isa::avx2, avx2_f32, nullptr},
          {"avx2", true, all, "avx2-fma-f64", Isa::avx2, nullptr, avx2_f64},
          {"avx512", false, all, "avx512-fma", Isa::avx512, avx512_f32, nullptr},
          {"avx512", true, all, "avx512-fma-f64", Isa::avx512, nullptr, avx512_f64},
          {"boxed", true, 1, "scalar-fma-f64"}};
}

}  // namespace

std::vector<BenchmarkCase> roofline_cases(const SuiteRequest& request) {
  const MachineInfo& machine = *request.machine;
  const std::int64_t array_bytes = large_array_bytes(request, last_level_cache_bytes(machine), 2);
  const bool smoke = request.profile == Profile::smoke;
  std::vector<BenchmarkCase> cases;
  for (const Sweep& sweep : sweeps(machine.threads)) {
    if (!rung_requested(request, sweep.rung)) continue;
    if (!isa_unavailable_reason(sweep.isa).empty()) continue;
    const std::size_t element = sweep.f64 ? 8 : 4;
    const std::int64_t n = sweep.rung == "boxed" ? (smoke ? 257 : kBoxedElements)
                                                 : array_bytes / static_cast<std::int64_t>(element) + (smoke ? 3 : 0);
    for (int k : roofline_intensities()) {
      if (smoke && k != 0 && k != 1 && k != 8) continue;
      BenchmarkCase c = case_with_axes({kRooflineSuite, sweep.rung, sweep.f64 ? "f64" : "f32", "k", k});
      c.memory_bytes = 2.0 * static_cast<double>(n) * static_cast<double>(element);
      if (sweep.rung != "boxed")
        c.call_seconds = sweep.f64 ? estimated_call_seconds<double>(sweep, n, k) : estimated_call_seconds<float>(sweep, n, k);
      const Ceilings* ceilings = request.ceilings;
      c.body = [sweep, n, k, element, ceilings](benchmark::State& state) {
        if (sweep.rung == "boxed") {
          run_boxed(state, n, k);
        } else if (sweep.f64) {
          run_compiled<double>(state, sweep, n, k);
        } else {
          run_compiled<float>(state, sweep, n, k);
        }
        if (state.error_occurred()) return;
        const roofline::RooflineProblem problem{n, k, static_cast<int>(element)};
        const double flops = problem.flops(), bytes = problem.bytes();
        set_roofline_counters(state, problem);
        using benchmark::Counter;
        state.counters["threads"] = sweep.threads;
        if (!ceilings) return;
        // Its own roofs: the probe of its unit (at its thread count) and the level holding its arrays.
        const double peak = ceilings->peaks.probe_peak_at(sweep.probe, sweep.threads == 1 ? 1 : ceilings->threads);
        if (peak > 0 && k > 0) state.counters["peak_fraction"] = Counter(flops / peak, Counter::kIsIterationInvariantRate);
        const double bandwidth = ceilings->bandwidth(bytes / sweep.threads, sweep.threads);
        // The interpreter's floor: about 6 dispatches per multiply-add, 10 per element.
        const double overhead = sweep.rung == "boxed" ? static_cast<double>(n) * (6.0 * k + 10.0) * ceilings->dispatch_seconds
                                                      : ceilings->fork_join_seconds;
        state.SetLabel(set_regime(state, flops, bytes, {peak, bandwidth, overhead}));
      };
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

namespace {

std::vector<SuiteRung> roofline_rungs() {
  std::vector<SuiteRung> rungs;
  for (const Sweep& sweep : sweeps(0)) {
    if (!rungs.empty() && rungs.back().name == sweep.rung) continue;
    const bool boxed = sweep.rung == "boxed";
    rungs.push_back({sweep.rung, boxed ? "f64" : "f32, f64", boxed ? "1 core" : "all cores", "k = 0..512 FMAs per element",
                     boxed ? "the sweep in the boxed interpreter" : "the sweep compiled as " + sweep.rung + " code",
                     [isa = sweep.isa] { return isa_unavailable_reason(isa); }});
  }
  rungs.push_back(device_rung(kRooflineDeviceRung, "f32, f16", "the sweep as a CUDA kernel, against the device's roofs"));
  return rungs;
}

}  // namespace

Suite roofline_suite() {
  return {.name = std::string(kRooflineSuite),
          .summary = "FLOP/s against arithmetic intensity (scalar, avx2, avx512, boxed, GPU)",
          .rungs = roofline_rungs,
          .cases = host_then_device(roofline_cases, device_roofline_cases),
          .report = roofline_report};
}

}  // namespace ladder
