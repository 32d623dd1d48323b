// The GEMM workload as the rungs see it: C = A·B, square n, row-major, C overwritten.
// FLOP and byte counts are defined here, once; everything else reads them.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dtype.hpp"
#include "text.hpp"

namespace ladder {

struct GemmProblem {
  std::int64_t n = 0;
  DType dtype = DType::f32;  // the inputs' type; C and accumulation are always f32

  double flops() const { return 2.0 * static_cast<double>(n) * n * n; }
  // Compulsory traffic: A and B read once, C written once.
  double bytes() const {
    double input = dtype == DType::bf16 || dtype == DType::f16 ? 2.0 : 4.0;
    return static_cast<double>(n) * n * (2 * input + 4);
  }
  double intensity() const { return flops() / bytes(); }
};

// Traffic a rung's loops generate beyond its compulsory bytes: each term the bytes one call moves
// into L1 from the level that holds `working_set` (the bytes one thread must keep in a cache for
// those bytes to come from it). Where the working set fits L1 the term costs nothing beyond the core's
// loads; else its time is bytes / the measured bandwidth of the level holding it, and the largest
// such time is the rung's memory bound (the ladder's "memory-bound", and the bandwidth it reached).
struct TrafficTerm {
  std::string what;  // "B streamed once per row of C"
  double working_set = 0;
  double bytes = 0;
};

// The traffic model of a rung whose loops are not ours to model: the compulsory bytes only.
inline std::vector<TrafficTerm> compulsory_traffic_only(std::int64_t /*n*/, int /*threads*/) { return {}; }

// Inputs exist in both f32 and bf16; a rung reads those of its dtype and writes c.
struct GemmOperands {
  std::int64_t n = 0;
  const float* a = nullptr;
  const float* b = nullptr;
  const bf16* a_bf16 = nullptr;
  const bf16* b_bf16 = nullptr;
  const f16* a_f16 = nullptr;
  const f16* b_f16 = nullptr;
  float* c = nullptr;
};

// A rung prepared for one problem: set-up (plans, primitive creation, boxing the inputs) happens
// before, run() is what is timed.
class GemmKernel {
 public:
  virtual ~GemmKernel() = default;
  virtual void run() = 0;
  // Rungs whose result lives elsewhere (device memory) bring it to `c` here: called after run()
  // when the result is verified, never inside the timed loop.
  virtual void copy_output() {}
  // Rungs whose result lives elsewhere fill it with NaN here (the host's C is poisoned by the
  // caller), so that a call that skips its work shows when the output is verified after timing.
  virtual void poison_output() {}
  // Rungs that run outside this process (the CPython reference) time themselves.
  virtual std::optional<double> self_timed_seconds() const { return std::nullopt; }
  // A self-timed kernel may make several calls in one run() (self_timed_seconds() is then their
  // total), so that a call of microseconds is not drowned by the cost of asking another process
  // for it; the case counts each as one iteration.
  virtual std::int64_t calls_per_run() const { return 1; }
  // How many calls of `one_call_seconds` make a run of about `run_seconds` (at least one, at most
  // `most`): what a self-timed kernel returns from calls_per_run().
  static std::int64_t calls_for(double one_call_seconds, double run_seconds, std::int64_t most) {
    if (one_call_seconds <= 0) return 1;
    return std::clamp<std::int64_t>(static_cast<std::int64_t>(run_seconds / one_call_seconds), 1, most);
  }
  // What the library chose (e.g. oneDNN's implementation), for the result's label.
  virtual std::string label() const { return {}; }
  // Figures of the rung's own beside its time (e.g. the seconds to move A and B to a GPU).
  virtual std::vector<std::pair<std::string, double>> counters() const { return {}; }
};

// The common case: a kernel that is just a function of the operands.
template <class F>
std::unique_ptr<GemmKernel> make_kernel(F&& body) {
  struct Kernel final : GemmKernel {
    explicit Kernel(F&& f) : f_(std::forward<F>(f)) {}
    void run() override { f_(); }
    std::decay_t<F> f_;
  };
  return std::make_unique<Kernel>(std::forward<F>(body));
}

enum class Threading { one_core, all_cores, device };

constexpr std::string_view threading_name(Threading t) {
  return t == Threading::all_cores ? "all cores" : t == Threading::device ? "GPU" : "1 core";
}

// What a rung removes or adds over the one it refines, the reason it should be faster. Declared
// here once: the results' context lists the names (mechanism_names) and the report tools read
// them from there.
enum class Mechanism {
  none,  // not set: a registration without one fails Registry.EveryRungSaysWhatItIsAndWhatItRefines
  reference,
  interpretation,
  loop_order,
  simd,
  tiling,
  cores,
  hand_written,
  tuned_library,
  layout,
  matrix_units,
  bf16_dot_products,
  gpu,
  python_call,
  not_built,
};
inline constexpr const char* kMechanismNames[] = {
    "none",
    "reference",
    "interpretation and boxing",
    "loop order and cache lines",
    "SIMD width",
    "cache tiling",
    "cores",
    "hand-written kernel",
    "tuned library",
    "ahead-of-time layout",
    "matrix units",
    "bf16 dot products",
    "GPU",
    "Python library call",
    "not built",
};
static_assert(std::size(kMechanismNames) == static_cast<std::size_t>(Mechanism::not_built) + 1);
inline const char* mechanism_name(Mechanism m) { return kMechanismNames[static_cast<int>(m)]; }
// "reference|interpretation and boxing|...": every name but none's, for the context.
inline std::string mechanism_names() { return join(std::begin(kMechanismNames) + 1, std::end(kMechanismNames), '|'); }

// The unit a rung's arithmetic runs on, whose measured peak is its compute roof. Every rung names
// one (Registry.EveryRungSaysWhatItIsAndWhatItRefines fails on none): a rung held to one unit by
// how it is built (scalar code, AVX2 code on a CPU with AVX-512) names that unit's probe; the
// others name `fastest`, resolved on the machine to the fastest unit for their dtype (AMX tiles,
// AVX512-BF16 dot products or the FMA units); a GPU rung names CUDA cores or tensor cores. The
// results' context lists the names (unit_names) and each rung's resolved one (rung_unit_kind/<rung>).
enum class Unit {
  none,
  fastest,
  scalar_fma,
  avx2_fma,
  avx512_fma,
  fma_units,
  amx_tiles,
  bf16_dot_products,
  cuda_cores,
  tensor_cores,
};
inline constexpr const char* kUnitNames[] = {
    "none",
    "the fastest for its dtype",
    "CPU scalar FMA",
    "CPU FMA units (avx2-fma)",
    "CPU FMA units (avx512-fma)",
    "CPU FMA units",
    "CPU AMX tiles",
    "CPU AVX512-BF16 dot products",
    "GPU CUDA cores",
    "GPU tensor cores",
};
static_assert(std::size(kUnitNames) == static_cast<std::size_t>(Unit::tensor_cores) + 1);
inline const char* unit_name(Unit u) { return kUnitNames[static_cast<int>(u)]; }
// The peak probe of a unit a rung is held to ("scalar-fma"); empty for the others.
inline std::string_view unit_probe(Unit u) {
  return u == Unit::scalar_fma ? "scalar-fma" : u == Unit::avx2_fma ? "avx2-fma" : u == Unit::avx512_fma ? "avx512-fma" : "";
}
// A GPU rung's unit: the CUDA cores in f32, the tensor cores in any narrower format.
inline Unit gpu_unit(DType dtype) { return dtype == DType::f32 ? Unit::cuda_cores : Unit::tensor_cores; }
// "the fastest for its dtype|CPU scalar FMA|...": every name but none's, for the context.
inline std::string unit_names() { return join(std::begin(kUnitNames) + 1, std::end(kUnitNames), '|'); }

struct GemmRung {
  std::string name;  // "avx512": the case is gemm/<name>/<dtype>/n:<n>
  DType dtype = DType::f32;
  Threading threading = Threading::one_core;
  // Largest n a profile runs this rung at (interpreted and scalar rungs would take hours at
  // the ladder size); 0 means no cap. --no-cap lifts it.
  std::int64_t max_n = 0;
  bool self_timed = false;  // the kernel reports its own time (see GemmKernel)
  // The unit its arithmetic runs on (Unit): its compute roof.
  Unit unit = Unit::none;
  // Interpreted rungs: bytecode dispatches per FLOP of their program, for the overhead floor.
  double dispatches_per_flop = 0;
  // A library that picks its own thread count (OpenBLAS, oneDNN) may run a small problem on the
  // calling thread, so an OpenMP fork and join is no floor on its time; only the call is.
  bool picks_own_threads = false;
  // The overhead suite also times this rung at n = 1..64, where a call costs more than its
  // arithmetic: the all-core kernels at the top of the CPU ladder and the libraries beside them.
  bool small_gemm_sweep = false;
  // Its inner loop's sum is one chain of dependent adds (naive's): the peak probe scalar-add-chain
  // measures one such chain, which the report sets its rate beside (context: rung_serial_sum/<rung>).
  bool serial_sum = false;
  // Its output is in its 16-bit format (PyTorch's matmul of bf16 tensors returns bf16): verified
  // against the rounded operands' product with that format's rounding of each element allowed.
  bool rounds_output = false;
  std::string summary = {};  // one line for --list: what this rung is
  // The rungs the console's "head to head" sets this one beside (a hand-written kernel and the
  // libraries it should match), each with the ratio it aims at and the size that ratio is for
  // (0: every size), where there is one.
  struct Rival {
    std::string rung;
    std::string target;
    std::int64_t target_n = 0;
  };
  std::vector<Rival> rivals = {};
  // What this rung removes or adds over the one below it (Mechanism): the ladder report predicts
  // each step's factor from it.
  Mechanism mechanism = Mechanism::none;
  // The rung this one refines (its relative speedup and its prediction are over that one), or, for
  // a library or framework rung, the baseline it is set against; several, '|'-separated, where the
  // first that ran is meant (the best hand-written rung of the same unit: "avx512|avx2"). Empty
  // only for the chain's start.
  std::string parent = {};
  // The terms of its traffic model at size n on `threads` threads (see TrafficTerm; working sets
  // per thread, bytes over all of them): every rung names one, compulsory_traffic_only where only
  // the compulsory bytes are modelled (a library's blocking is its own, a GPU's traffic is not
  // modelled, an interpreter's is its own data structures').
  std::function<std::vector<TrafficTerm>(std::int64_t n, int threads)> traffic = {};
  // The block of C its fast path computes in registers, where the blocks at C's edges (n not a
  // multiple of it) take a general path instead (context: rung_register_block/<rung>, "6x32"); 0
  // where it has no such path (a library's, or edges padded into whole blocks).
  struct RegisterBlock {
    std::int64_t rows = 0, cols = 0;
  };
  RegisterBlock register_block = {};
  // Empty when the rung can run here; otherwise why not.
  std::function<std::string()> unavailable_reason = [] { return std::string(); };
  std::function<std::unique_ptr<GemmKernel>(const GemmOperands&)> prepare = {};
};

}  // namespace ladder
