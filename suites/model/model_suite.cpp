#include "model_suite.hpp"

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

#ifdef LADDER_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef LADDER_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#include <tuple>

#include "onednn/onednn_support.hpp"
#endif
#ifdef LADDER_HAVE_CUDA
#include "cuda/compute_capability.hpp"
#include "cuda/device_gemm.hpp"
#include "model_cuda.hpp"
#endif
#include "vector_ops.hpp"

namespace ladder::model {
namespace {

#ifdef LADDER_HAVE_OPENBLAS
// GEMMs through OpenBLAS, the rest on all cores.
struct BlasGemm {
  static constexpr bool kConcurrentCalls = true;
  // Only the OpenMP build runs a call made inside a parallel region on its calling thread; the
  // pthread build would start its own pool from every thread and oversubscribe the cores.
  static bool concurrent_now() { return openblas_get_parallel() == 2; }
  bool parallel = true;
  void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
            std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc) const {
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, static_cast<blasint>(m),
                static_cast<blasint>(n), static_cast<blasint>(k), alpha, a, static_cast<blasint>(lda), b,
                static_cast<blasint>(ldb), beta, c, static_cast<blasint>(ldc));
  }
};
#endif

#ifdef LADDER_HAVE_ONEDNN
// GEMMs with bf16 inputs and f32 accumulation through oneDNN (AMX where the CPU has it). Each
// operand is converted to bf16 by a oneDNN reorder straight from its strided (and possibly
// transposed) f32 layout, so the conversion is part of the operation's time; alpha and beta go
// in as the matmul's output scale and sum post-op, so C is written in place. The primitives are
// made once per shape and reused.
struct OnednnBf16Gemm {
  struct Plan {
    dnnl::memory::desc a_f32, b_f32, a_bf16, b_bf16, c_f32;
    dnnl::reorder to_a, to_b;
    dnnl::matmul matmul;
    std::string implementation;
  };
  struct State {
    dnnl::engine engine = onednn_cpu_engine();
    dnnl::stream stream{engine};
    std::map<std::vector<double>, Plan> plans;
    std::vector<bf16> operands;  // both operands of a call, converted: A, then B
  };
  bool parallel = true;
  std::shared_ptr<State> state = std::make_shared<State>();

  void reserve_operands(std::int64_t elements) const { state->operands.resize(elements); }
  // The matmul implementations the calls so far chose, each once ("brg:avx512_core_amx" on AMX).
  std::string implementation() const {
    std::set<std::string> names;
    for (const auto& [key, plan] : state->plans) names.insert(plan.implementation);
    std::string joined;
    for (const auto& name : names) joined += (joined.empty() ? "" : "+") + name;
    return joined;
  }
  double operand_bytes() const { return static_cast<double>(state->operands.size() * sizeof(bf16)); }

  void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
            std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc) const {
    using dt = dnnl::memory::data_type;
    using tag = dnnl::memory::format_tag;
    State& s = *state;
    const std::vector<double> key = {double(trans_a), double(trans_b), double(m),   double(n), double(k),
                                     alpha,           double(lda),     double(ldb), beta,      double(ldc)};
    auto it = s.plans.find(key);
    if (it == s.plans.end()) {
      Plan p;
      p.a_f32 = dnnl::memory::desc({m, k}, dt::f32, trans_a ? dnnl::memory::dims{1, lda} : dnnl::memory::dims{lda, 1});
      p.b_f32 = dnnl::memory::desc({k, n}, dt::f32, trans_b ? dnnl::memory::dims{1, ldb} : dnnl::memory::dims{ldb, 1});
      p.a_bf16 = dnnl::memory::desc({m, k}, dt::bf16, tag::ab);
      p.b_bf16 = dnnl::memory::desc({k, n}, dt::bf16, tag::ab);
      p.c_f32 = dnnl::memory::desc({m, n}, dt::f32, dnnl::memory::dims{ldc, 1});
      p.to_a = dnnl::reorder(dnnl::reorder::primitive_desc(s.engine, p.a_f32, s.engine, p.a_bf16));
      p.to_b = dnnl::reorder(dnnl::reorder::primitive_desc(s.engine, p.b_f32, s.engine, p.b_bf16));
      // C = alpha * A·B + beta * C: the scale, then the sum, as post-ops.
      dnnl::primitive_attr attr;
      dnnl::post_ops ops;
      if (alpha != 1.0f) append_scale(ops, alpha);
      if (beta != 0.0f) ops.append_sum(beta);
      if (ops.len() > 0) attr.set_post_ops(ops);
      const dnnl::matmul::primitive_desc pd = make_matmul(s.engine, p.a_bf16, p.b_bf16, p.c_f32, attr);
      p.implementation = pd.impl_info_str();
      p.matmul = dnnl::matmul(pd);
      it = s.plans.emplace(key, std::move(p)).first;
    }
    const Plan& p = it->second;
    if (s.operands.size() < static_cast<std::size_t>(m * k + k * n)) reserve_operands(m * k + k * n);
    dnnl::memory a16(p.a_bf16, s.engine, s.operands.data()), b16(p.b_bf16, s.engine, s.operands.data() + m * k);
    dnnl::memory a32(p.a_f32, s.engine, const_cast<float*>(a)), b32(p.b_f32, s.engine, const_cast<float*>(b));  // read only
    p.to_a.execute(s.stream, a32, a16);
    p.to_b.execute(s.stream, b32, b16);
    p.matmul.execute(s.stream,
                     {{DNNL_ARG_SRC, a16}, {DNNL_ARG_WEIGHTS, b16}, {DNNL_ARG_DST, dnnl::memory(p.c_f32, s.engine, c)}});
    s.stream.wait();
  }
};
#endif

template <class Ops, class Gemm>
Prepared make(const Config& c, const Weights& w, const Inputs& in, Ops ops, Gemm gemm) {
  auto forward = std::make_shared<Forward<Ops, Gemm>>(c, w, in, std::move(ops), std::move(gemm));
  Prepared prepared{[forward](Output& out, OpTimes& times) { forward->run(out, times); },
                    [forward] { return forward->allocated_bytes(); }};
  if constexpr (requires { forward->gemm_policy().implementation(); })
    prepared.gemm_implementation = [forward] { return forward->gemm_policy().implementation(); };
  return prepared;
}

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
  for (const Config& c : {*named_config("tiny"), *named_config("small"), verification_config(timed)})
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

const std::vector<Backend>& backends() {
  static const std::vector<Backend> all = [] {
    std::vector<Backend> b;
    b.push_back(
        {"reference", DType::f64, Threading::one_core, "plain loops in double: the oracle", [] { return std::string(); },
         [](const Config& c, const Weights& w, const Inputs& in) { return make(c, w, in, ScalarOps<double>{}, LoopGemm{}); },
         20});
    b.push_back(
        {"naive", DType::f32, Threading::one_core, "single-threaded scalar f32 loops", [] { return std::string(); },
         [](const Config& c, const Weights& w, const Inputs& in) { return make(c, w, in, ScalarOps<float>{}, LoopGemm{}); },
         1024});
#ifdef LADDER_HAVE_OPENBLAS
    b.push_back({"cpu", DType::f32, Threading::all_cores,
                 "f32: GEMMs through OpenBLAS, the rest in AVX-512 or AVX2 (the widest present) on all cores",
                 [] { return std::string(); },
                 [](const Config& c, const Weights& w, const Inputs& in) {
                   openblas_set_num_threads(omp_get_max_threads());
                   return make(c, w, in, VectorOps{}, BlasGemm{});
                 },
                 0});
#endif
#ifdef LADDER_HAVE_ONEDNN
    b.push_back(
        {"cpu-bf16", DType::bf16, Threading::all_cores, "GEMMs in bf16 through oneDNN (AMX where present), the rest as in cpu",
         [] { return onednn_bf16_unavailable_reason(); },
         [](const Config& c, const Weights& w, const Inputs& in) { return make(c, w, in, VectorOps{}, OnednnBf16Gemm{}); }, 0});
#endif
#ifdef LADDER_HAVE_CUDA
    struct GpuMode {
      const char* name;
      DType dtype;
      gpu::GemmMode mode;
      const char* summary;
    };
    for (const GpuMode m :
         {GpuMode{"cuda", DType::f32, gpu::GemmMode::f32, "f32: cuBLAS GEMMs (no tensor cores), CUDA kernels for the rest"},
          GpuMode{"cuda-tf32", DType::tf32, gpu::GemmMode::tf32, "cuBLAS GEMMs on tensor cores in TF32, the rest as in cuda"},
          GpuMode{"cuda-f16", DType::f16, gpu::GemmMode::f16,
                  "cuBLAS GEMMs on tensor cores with f16 operands (f32 accumulation), the rest as in cuda"}})
      b.push_back({m.name, m.dtype, Threading::device, m.summary,
                   [m] { return cuda::unavailable_below(cuda::minimum_capability(m.dtype), m.name); },
                   [m](const Config& c, const Weights& w, const Inputs& in) {
                     auto context = gpu::make_context();
                     return make(c, w, in, gpu::CudaOps{context}, gpu::CublasGemm{context, m.mode});
                   },
                   0});
#endif
    // The backends this build left out (no OpenBLAS, oneDNN or CUDA), known and unavailable.
    for (const auto& o : optional_rungs()) {
      if (o.kind != RungKind::model || backend_built(o.backend)) continue;
      b.push_back({o.name, o.dtype, o.threading(), not_built_summary(o.backend),
                   [reason = not_built_reason(o.backend)] { return reason; },
                   [](const Config&, const Weights&, const Inputs&) -> Prepared {
                     throw std::logic_error("a model backend this build left out was prepared");
                   },
                   0});
    }
    return b;
  }();
  return all;
}

double backend_footprint_bytes(const Backend& b, const Config& c) {
  const bool converts_operands = b.dtype == DType::bf16 || b.dtype == DType::f16;
  return footprint_bytes(c, b.dtype == DType::f64 ? 8 : 4, converts_operands ? 2 : 0);
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const auto& b : backends()) names.push_back(b.name);
  return names;
}

}  // namespace ladder::model

namespace ladder {

std::string model_memory_table() {
  using namespace model;
  const Config large = *named_config("large");
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
  const Config large = *named_config("large");
  std::vector<std::pair<std::string, std::string>> ctx;
  for (double gb : {16.0, 40.0, 80.0})
    ctx.emplace_back(fmt::format("model_out_of_memory_side_{:.0f}GB", gb),
                     fmt::format("{} (C={}, {} layers, {} heads, f32)",
                                 first_resolution_over(gb * 1e9, large.channels, large.layers, large.heads), large.channels,
                                 large.layers, large.heads));
  // Which element-wise kernels the cpu backends run here (the CPU's widest under LADDER_MAX_ISA).
  ctx.emplace_back("model_cpu_elementwise_isa", std::string(isa_name(widest_vector_isa())));
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
  for (auto _ : state) pass.run(out, times);
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
  pass.run(out, untimed);
  if (!verified("a pass after timing left a wrong output")) return;
  // Per operation type: seconds per pass, share of the pass, and rates from its FLOPs and bytes.
  const auto costs = op_costs(c);
  double seconds_per_pass[kOps], total_flops = 0, total_bytes = 0, timed = 0;
  for (int i = 0; i < kOps; ++i) {
    seconds_per_pass[i] = times.seconds[i] / static_cast<double>(state.iterations());
    timed += times.seconds[i];
  }
  using benchmark::Counter;
  for (int i = 0; i < kOps; ++i) {
    const std::string op = op_name(static_cast<Op>(i));
    const double seconds = seconds_per_pass[i];
    state.counters["op/" + op + "/seconds"] = seconds;
    state.counters["op/" + op + "/share"] = timed > 0 ? times.seconds[i] / timed : 0;
    state.counters["op/" + op + "/flops"] = seconds > 0 ? costs[i].flops / seconds : 0;
    state.counters["op/" + op + "/bytes_per_second"] = seconds > 0 ? costs[i].bytes / seconds : 0;
    // The counts themselves, so that report tools read them from here instead of redefining them.
    state.counters["op/" + op + "/flop_count"] = costs[i].flops;
    state.counters["op/" + op + "/byte_count"] = costs[i].bytes;
    // What the operation is, for the tables that group operations.
    state.counters["op/" + op + "/is_gemm"] = is_gemm(static_cast<Op>(i)) ? 1 : 0;
    state.counters["op/" + op + "/grows_quadratically"] = grows_quadratically(static_cast<Op>(i)) ? 1 : 0;
    total_flops += costs[i].flops;
    total_bytes += costs[i].bytes;
  }
  // Which roof bounds each operation on this machine, and how close it comes to it.
  std::string regimes;
  const bool device = b.threading == Threading::device;
  if (ceilings && (!device || !ceilings->device.name.empty())) {
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
  state.counters["memory_bytes"] = pass.allocated_bytes();
  state.counters["threads"] = b.threading == Threading::all_cores ? omp_get_max_threads() : 1;
  const std::string gemms = pass.gemm_implementation();
  const std::string verified_at =
      verified_here ? "verified at this configuration"
                    : fmt::format("verified at {}x{} (same C, layers, heads; the reference here costs {:.0f} GFLOP)",
                                  checked.height, checked.width, reference_flops(c) / 1e9);
  state.SetLabel(fmt::format("config {}; {}; {}regimes: {}", describe(c), verified_at,
                             gemms.empty() ? "" : "GEMMs: oneDNN " + gemms + "; ", regimes));
}

}  // namespace

BenchmarkCase model_case(std::string name, const model::Backend& b, const model::Config& c, const Ceilings* ceilings) {
  BenchmarkCase bc;
  bc.name = std::move(name);
  const double footprint = backend_footprint_bytes(b, c);
  if (b.threading == Threading::device) {
    bc.device_memory_bytes = footprint;
    bc.memory_bytes = 4.0 * (2.0 * c.channels * c.tokens() + 4.0 * c.tokens());  // inputs and outputs on the host
  } else {
    bc.memory_bytes = footprint;
  }
  bc.body = [b, c, ceilings](benchmark::State& state) { time_passes(state, b, c, ceilings); };
  return bc;
}

namespace {

std::mutex sweep_notes_mutex;
std::vector<std::pair<std::string, std::string>> sweep_notes;  // backend → what the sweep covers

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
  const bool smoke = request.profile == "smoke";
  s.shape = smoke ? Config{"", 0, 0, 16, 1, 2} : *named_config("large");
  std::string error;
  if (request.model_config) s.shape = *parse_config(*request.model_config, error);  // checked by the command line
  s.sides = smoke ? std::vector<int>{4, 8}
                  : std::vector<int>{16, 24, 32, 48, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512};
  s.budget = smoke || request.uncapped ? INFINITY : request.profile == "quick" ? 1.0 : 5.0;
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

std::vector<BenchmarkCase> model_cases(const SuiteRequest& request) {
  using namespace model;
  std::vector<Config> configs;
  if (request.model_config) {
    std::string error;
    configs.push_back(*parse_config(*request.model_config, error));  // checked by the command line
  } else {
    for (const auto& name : request.profile == "smoke"   ? std::vector<std::string>{"tiny"}
                            : request.profile == "quick" ? std::vector<std::string>{"small", "medium"}
                                                         : config_names())
      configs.push_back(*named_config(name));
  }
  std::vector<BenchmarkCase> cases;
  for (const Backend& b : backends()) {
    if (!rung_requested(request, b.name) || !b.unavailable_reason().empty()) continue;
    for (const Config& c : configs) {
      if (b.max_layers_tokens && c.tokens() > b.max_layers_tokens && !request.model_config) continue;
      cases.push_back(model_case(case_name(kModelSuite, b.name, dtype_name(b.dtype), fmt::format("tokens:{}", c.tokens())), b, c,
                                 request.ceilings));
    }
  }
  return cases;
}

std::vector<BenchmarkCase> model_sweep_cases(const SuiteRequest& request) {
  using namespace model;
  const SweepShape sweep = sweep_shape(request);
  std::vector<BenchmarkCase> cases;
  std::lock_guard lock(sweep_notes_mutex);
  sweep_notes.clear();
  for (const Backend& b : backends()) {
    // The slow backends (reference, naive) stay out: their model cases show them at small sizes.
    if (b.max_layers_tokens || !rung_requested(request, b.name) || !b.unavailable_reason().empty()) continue;
    const double memory = b.threading == Threading::device ? request.device_usable_bytes() : request.host_usable_bytes;
    int last = 0;
    for (int side : sweep.sides) {
      const Config c = sweep_config(sweep, side);
      if (backend_footprint_bytes(b, c) > memory) break;
      cases.push_back(model_case(case_name(kModelSweepSuite, b.name, dtype_name(b.dtype), fmt::format("side:{}", side)), b, c,
                                 request.ceilings));
      last = side;
    }
    const std::string shape =
        fmt::format("C={}, {} layers, {} heads", sweep.shape.channels, sweep.shape.layers, sweep.shape.heads);
    sweep_notes.emplace_back("model_sweep/" + b.name,
                             last == sweep.sides.back()
                                 ? fmt::format("{}; memory would allow more than the sweep's largest side, {}", shape, last)
                                 : fmt::format("{}; memory ({:.1f} GB usable) ends the sweep at {}", shape, memory / 1e9, last));
  }
  return cases;
}

void trim_model_sweep(std::vector<BenchmarkCase>& cases, const SuiteRequest& request) {
  using namespace model;
  const SweepShape sweep = sweep_shape(request);
  std::lock_guard lock(sweep_notes_mutex);
  for (auto& [key, note] : sweep_notes) {
    const std::string name = key.substr(key.find('/') + 1);
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
    for (int side : sides) {
      if (!std::isfinite(sweep.budget)) break;
      const Config c = sweep_config(sweep, side);
      if (calibrated_flops > 0 && (predicted = calibrated_seconds * pass_flops(c) / calibrated_flops) > sweep.budget) {
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
    }
    std::erase_if(cases, [&](const BenchmarkCase& c) {
      const int side = sweep_side(c.name, name);
      return cut && side >= cut;
    });
    const int last = cut ? *std::prev(std::lower_bound(sides.begin(), sides.end(), cut)) : sides.back();
    note = fmt::format("sides {}..{}{}; {}", sides.front(), last,
                       cut ? fmt::format("; {} is predicted to take {:.3g} s a pass, over the profile's budget of {:.3g} s "
                                         "(--no-cap runs every side that fits)",
                                         cut, predicted, sweep.budget)
                           : "",
                       note);
    std::fprintf(stderr, "ladderbench: model-sweep/%s: %s\n", name.c_str(), note.c_str());
  }
  std::erase_if(sweep_notes, [](const auto& entry) { return entry.second.empty(); });
}

std::vector<std::pair<std::string, std::string>> model_sweep_context() {
  std::lock_guard lock(sweep_notes_mutex);
  return sweep_notes;
}

namespace {
std::vector<SuiteRung> model_rungs() {
  std::vector<SuiteRung> rungs;
  for (const model::Backend& b : model::backends())
    rungs.push_back({b.name, std::string(dtype_name(b.dtype)), std::string(threading_name(b.threading)), "", b.summary,
                     b.unavailable_reason});
  return rungs;
}
}  // namespace

Suite model_suite() {
  Suite s;
  s.name = kModelSuite;
  s.summary = "a dense-matching network (4D correlation + transformer) per backend";
  s.rungs = model_rungs;
  s.cases = model_cases;
  s.context = model_memory_context;
  return s;
}

Suite model_sweep_suite() {
  Suite s;
  s.name = kModelSweepSuite;
  s.summary = "that network at H = W = 16, 24, ... as far as memory and the time budget allow";
  s.rungs = model_rungs;
  s.cases = model_sweep_cases;
  s.trim = trim_model_sweep;
  s.context = model_sweep_context;
  return s;
}

}  // namespace ladder
