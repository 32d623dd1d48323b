// The GEMM workload: deterministic inputs, the double-precision reference, verification, and
// one Google Benchmark case per (rung, size): gemm/<rung>/<dtype>/n:<n>.
#pragma once
#include <string_view>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/buffer.hpp"
#include "core/compare.hpp"
#include "core/peak.hpp"
#include "core/registry.hpp"
#include "suite.hpp"

namespace ladder {

// The rows of C a size's verification covers: all of them, unless the double reference of the
// whole product would cost more than kReferenceFlopBudget; then an evenly spread sample (with a
// seeded offset in each stride) whose reference costs about that much, stated in the case's label.
inline constexpr double kReferenceFlopBudget = 3e11;  // n = 5300 in full; seconds on two cores
std::vector<std::int64_t> verified_rows(std::int64_t n);

struct GemmInputs {
  std::int64_t n = 0;
  AlignedBuffer<float> a, b;
  AlignedBuffer<bf16> a_bf16, b_bf16;
  AlignedBuffer<f16> a_f16, b_f16;
  std::vector<std::int64_t> rows;   // the rows of C that are verified (verified_rows(n))
  AlignedBuffer<double> reference;  // those rows of A·B in double, from the f32 inputs

  // The reference a rung of `dtype` is verified against: `reference`, or for bf16 and f16 the
  // product of the operands rounded to that format (made on first use; see verification_tolerance).
  const AlignedBuffer<double>& reference_for(DType dtype) const;

 private:
  struct Rounded;
  std::shared_ptr<Rounded> rounded_ = nullptr;
  friend GemmInputs make_gemm_inputs(std::int64_t n);
};

// Uniform random values in [-1, 1), exact in f32 but not in bf16, f16 or tf32, and of either sign:
// a rung's `rel_error` is the precision its number format costs (about 4e-3 for bf16, 5e-4 for
// f16 and tf32, 4e-7 for f32 sums), which the tolerance bounds, and sums cancel as real ones do.
GemmInputs make_gemm_inputs(std::int64_t n);
// C = A·B in double for n×n row-major f32 inputs: the reference every rung is checked against
// (tests call it on inputs rounded to a narrower format, to see what the format alone costs).
void reference_gemm(std::int64_t n, const float* a, const float* b, double* c);
// The same for the given rows of C only, written one after another into c.
void reference_gemm_rows(std::int64_t n, const float* a, const float* b, const std::vector<std::int64_t>& rows, double* c);
const GemmInputs& cached_gemm_inputs(std::int64_t n);  // one per n, for the whole run

// The operands a rung sees, over these inputs and the output c.
GemmOperands operands(const GemmInputs& inputs, float* c);

// Memory for refusing sizes that cannot fit: the inputs and references of a size, held for the
// whole run (every rung at that size shares them), and what one case allocates besides (its C,
// the verification's C, room for a rung's packed copies).
double gemm_inputs_bytes(std::int64_t n);
double gemm_case_bytes(std::int64_t n);

// C checked against the reference of the rung's dtype (verification_tolerance, worst row
// included); relative_error is against the f32 inputs' product: what the number format costs.
// `rounds_output`: c holds a 16-bit output widened to float (GemmRung::rounds_output).
Verdict check_gemm_output(DType dtype, const GemmInputs& inputs, const float* c, bool rounds_output = false);

// Prepare the rung, poison C with NaN, run once, compare with the reference.
struct GemmVerification {
  Verdict verdict;
  std::string label;  // the kernel's own label (e.g. the oneDNN implementation)
  // The fastest warm call's seconds, its caches and any JIT or session warm (asked for: 0 otherwise);
  // of a batching kernel, its run's seconds over its calls.
  double warm_call_seconds = 0;
  // What preparing the kernel took (a Python session's start, oneDNN's primitive, a packing).
  double prepare_seconds = 0;
  std::int64_t calls_per_run = 1;  // the kernel's batch (GemmKernel::calls_per_run)
};
GemmVerification verify_gemm_rung(const GemmRung& rung, const GemmInputs& inputs, bool time_a_warm_call = false);

CaseAxes gemm_case_axes(const GemmRung& rung, std::int64_t n);

// Empty where the rung can run here: its own check passed (a library built, an ISA, a device, an
// interpreter) and then a small real call, n = kProbeSize, ran and was verified, once per
// process; else why not, in one line. Every suite asks this, never the rung's own check alone.
// (Not 16: PyTorch's bf16 matmul below n = 17 rounds its sums to bf16, a path no case takes.)
inline constexpr std::int64_t kProbeSize = 64;
const std::string& gemm_rung_unavailable_reason(const GemmRung& rung);

// One call's seconds at n, for --plan, from warm calls: at most the availability check's call at
// n = 64 where n is no larger; else a + b n^3 through that call and one at n = 128 (made here, once a rung, where the cubic alone
// from 64 exceeds 10 ms); where eight times the arithmetic took under four times as long (calls mostly their fixed cost), the
// slower of the two: at least that at any n. 0: not known (a recorded machine, a GPU rung, an unchecked rung). A rung whose
// working set leaves a cache between n = 128 and n runs slower than this says (autovec at 4096: B streamed from DRAM).
double estimated_gemm_call_seconds(const GemmRung& rung, std::int64_t n);
// The seconds of a rung's batch of calls, where it runs several a run (a Python rung's calls of
// microseconds, batched to about a millisecond), at the check's n = 64; 0 where it runs one.
double estimated_gemm_batch_seconds(const GemmRung& rung);
// "<mechanism>: <summary>": the rung as --list and the context's rung/<rung> describe it.
std::string gemm_rung_description(const GemmRung& rung);

// The rate above which a timed case is refused as impossible: kImpossibleRateFactor times the
// peak the rung's unit was measured at (0 where none was measured). 1.5 leaves room for a peak
// probe that read low and for clocks that rose after it; a kernel that skipped its work reads
// hundreds of times its peak.
inline constexpr double kImpossibleRateFactor = 1.5;
// Timed calls verified in full, drawn at random, in each repetition (the others are timed alone).
inline constexpr std::int64_t kCheckedTimedCalls = 3;
// A timed call this many times faster than a call that must compute (from a poisoned C) skipped work.
inline constexpr double kLazyFactor = 3;
inline constexpr double kLazySlackSeconds = 50e-9;
double impossible_rate(const GemmRung& rung, const Ceilings& ceilings);

// The unit a rung's arithmetic runs on, and that unit's measured peak (what the case's
// peak_fraction is against): on the CPU, the probe that set the machine's peak for the rung's
// dtype (its FMA units for f32; AMX tiles or AVX512-BF16 dot products for bf16), all cores; on
// the GPU, its CUDA cores for f32 and its tensor cores for tf32, f16 and bf16, at the best rate
// measured for that dtype (an FMA probe or cuBLAS). Name empty where nothing was measured.
struct GemmUnit {
  std::string name;  // its unit's name, ", one core" where the rung runs on one
  double peak = 0;
  Unit unit = Unit::none;  // `fastest` resolved on this machine
};
GemmUnit gemm_unit(const GemmRung& rung, const Ceilings& ceilings);

// The traffic term that bounds a CPU rung's memory time at its size: 0 the compulsory bytes, i the
// rung's own term i - 1 (GemmRung::traffic), with its bytes, the working set that decides where
// they come from, and that level's measured bandwidth. Its counters: traffic_term, traffic_bytes,
// traffic_working_set; the context's rung_traffic/<rung>/<term> names each term.
struct GemmTraffic {
  int term = 0;
  double bytes = 0, working_set = 0, bytes_per_second = 0;
};
GemmTraffic gemm_traffic(const GemmRung& rung, const GemmProblem& problem, const Ceilings& ceilings);

// The fixed cost below which a case of this rung cannot go: a call, or an OpenMP fork and join
// where the rung opens a parallel region on every call, plus the interpreted rungs' dispatches.
double gemm_overhead_floor(const GemmRung& rung, const GemmProblem& problem, const Ceilings& ceilings);

struct GemmCase {
  const GemmRung* rung = nullptr;
  std::int64_t n = 0;
  CaseAxes axes() const { return gemm_case_axes(*rung, n); }
  std::string name() const { return case_name(axes()); }
};

// Every (rung, size) pair to run: sizes above a rung's cap become the cap (once), unless
// `uncapped`. Rungs keep registry order; sizes keep the given order.
std::vector<GemmCase> plan_gemm_cases(const std::vector<const GemmRung*>& rungs, const std::vector<std::int64_t>& sizes,
                                      bool uncapped);

// The profile's sizes: the ladder size n=1024 for every rung, plus n=2048 where the all-core
// rungs are compared head to head; the full profile adds a sweep. Slow rungs stop at their cap.
// The ladder profile times every rung at one common size, as a published table compares them
// (rungs capped below it are extrapolated by n^3 in the report), and the GPU's rungs also at a
// size where a tensor-core GEMM is long enough to be bound by its arithmetic, not its launch.
constexpr std::int64_t kLadderSize = 1024;
constexpr std::int64_t kCommonSize = 4096;
constexpr std::int64_t kGpuComputeBoundSize = 8192;
// The sweep profile's sizes: n = 64 ... 2048 in steps of sqrt(2), so that one matrix (4n^2 bytes,
// 16 KiB ... 16 MiB) crosses each cache level's size between two of them.
inline const std::vector<std::int64_t> kSweepSizes = {64, 91, 128, 181, 256, 362, 512, 724, 1024, 1448, 2048};
std::vector<std::int64_t> gemm_profile_sizes(Profile profile, Threading where);

// A CPU rung whose traffic model has terms of its own (the loops below the libraries): what the
// sweep profile runs and the context gives a model curve for.
bool has_traffic_model(const GemmRung& rung);

// The rate the rung's model allows at size n on this machine: its FLOPs over the largest of its
// bounds (its unit's peak, its traffic at the bandwidth of the level holding each term's working
// set, its fixed cost); 0 where the ceilings hold no peak. The sweep's measured rates are set
// against it (the context's rung_model_rate/<rung>).
double gemm_model_rate(const GemmRung& rung, std::int64_t n, const Ceilings& ceilings);

// One case: verify, time, verify again (the output the timed calls left, and one more call on a
// poisoned C), refuse an impossible rate, then the counters and the regime.
BenchmarkCase gemm_case(const GemmCase& gemm_case, const Ceilings* ceilings);

// gemm/<rung>/<dtype>/n:<n> for every available, requested rung at the requested sizes.
// Rungs asked for by name but unavailable are reported on stderr and skipped.
inline constexpr std::string_view kGemmSuite = "gemm";
Suite gemm_suite();
std::vector<BenchmarkCase> gemm_cases(const SuiteRequest& request);

}  // namespace ladder
