// The GEMM workload: deterministic inputs, the double-precision reference, verification, and
// one Google Benchmark case per (rung, size): gemm/<rung>/<dtype>/n:<n>.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/buffer.hpp"
#include "core/compare.hpp"
#include "core/peak.hpp"
#include "core/registry.hpp"
#include "suite.hpp"

namespace ladder {

struct GemmInputs {
  std::int64_t n = 0;
  AlignedBuffer<float> a, b;
  AlignedBuffer<bf16> a_bf16, b_bf16;
  AlignedBuffer<f16> a_f16, b_f16;
  AlignedBuffer<double> reference;  // A·B in double
};

// Uniform random values in [-1, 1), exact in f32 but not in bf16, f16 or tf32, and of either sign:
// a rung's `rel_error` is the precision its number format costs (about 4e-3 for bf16, 5e-4 for
// f16 and tf32, 4e-7 for f32 sums), which the tolerance bounds, and sums cancel as real ones do.
GemmInputs make_gemm_inputs(std::int64_t n);
// C = A·B in double for n×n row-major f32 inputs: the reference every rung is checked against
// (tests call it on inputs rounded to a narrower format, to see what the format alone costs).
void reference_gemm(std::int64_t n, const float* a, const float* b, double* c);
const GemmInputs& cached_gemm_inputs(std::int64_t n);  // one per n, for the whole run

// The operands a rung sees, over these inputs and the output c.
GemmOperands operands(const GemmInputs& inputs, float* c);

// Memory a case of size n needs (inputs, output, reference), for refusing sizes that cannot fit.
double gemm_case_bytes(std::int64_t n);

// Prepare the rung, poison C with NaN, run once, compare with the reference.
struct GemmVerification {
  Verdict verdict;
  std::string label;  // the kernel's own label (e.g. the oneDNN implementation)
};
GemmVerification verify_gemm_rung(const GemmRung& rung, const GemmInputs& inputs);

std::string gemm_case_name(const GemmRung& rung, std::int64_t n);

// The fixed cost below which a case of this rung cannot go: a call, or an OpenMP fork and join
// where the rung opens a parallel region on every call, plus the interpreted rungs' dispatches.
double gemm_overhead_floor(const GemmRung& rung, const GemmProblem& problem, const Ceilings& ceilings);

struct GemmCase {
  std::string name;
  const GemmRung* rung = nullptr;
  std::int64_t n = 0;
};

// Every (rung, size) pair to run: sizes above a rung's cap become the cap (once), unless
// `uncapped`. Rungs keep registry order; sizes keep the given order.
std::vector<GemmCase> plan_gemm_cases(const std::vector<const GemmRung*>& rungs,
                                      const std::vector<std::int64_t>& sizes, bool uncapped);

// The profile's sizes: the ladder size n=1024 for every rung, plus n=2048 where the all-core
// rungs are compared head to head; the full profile adds a sweep. Slow rungs stop at their cap.
constexpr std::int64_t kLadderSize = 1024;
std::vector<std::int64_t> gemm_profile_sizes(const std::string& profile);

// gemm/<rung>/<dtype>/n:<n> for every available, requested rung at the requested sizes.
// Rungs asked for by name but unavailable are reported on stderr and skipped.
std::vector<BenchmarkCase> gemm_cases(const SuiteRequest& request);

}  // namespace ladder
