// The operands every GEMM rung gets, the same for every rung at a size, and the check of a
// rung's output against their product computed in double.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>

#include "gemm_suite.hpp"
#include "core/machine.hpp"

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
  // Filled (so first touched) by the run's threads, each its contiguous share: the rows of A a
  // parallel rung's thread works on lie on that thread's NUMA node, B spread over all of them.
#pragma omp parallel for schedule(static)
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

GemmVerification verify_gemm_rung(const GemmRung& rung, const GemmInputs& in, bool time_a_warm_call) {
  GemmVerification result;
  AlignedBuffer<float> c(in.n * in.n);
  parallel_fill(c.data(), c.size(), std::numeric_limits<float>::quiet_NaN());
  GemmOperands op = operands(in, c.data());
  try {
    const auto prepare_start = std::chrono::steady_clock::now();
    auto kernel = rung.prepare(op);
    result.prepare_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - prepare_start).count();
    result.calls_per_run = kernel->calls_per_run();
    kernel->run();
    kernel->copy_output();
    result.label = kernel->label();
    // The fastest of up to five warm runs within 20 ms (at least one): a microsecond call's one
    // hiccup would otherwise be its time. A run of a batching kernel makes calls_per_run calls.
    double spent = 0;
    for (int call = 0; time_a_warm_call && call < 5 && spent < 0.02; ++call) {
      const auto start = std::chrono::steady_clock::now();
      kernel->run();
      kernel->copy_output();  // a device call ends when its output is back
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double per_call = seconds / static_cast<double>(std::max<std::int64_t>(1, result.calls_per_run));
      result.warm_call_seconds = call == 0 ? per_call : std::min(result.warm_call_seconds, per_call);
      spent += seconds;
    }
  } catch (const std::exception& e) {
    result.verdict.message = std::string("threw: ") + e.what();
    return result;
  }
  result.verdict = check_gemm_output(rung.dtype, in, c.data(), rung.rounds_output);
  if (in.rows.size() != static_cast<std::size_t>(in.n))
    result.label += fmt::format("{}verified on {} of {} rows (sampled)", result.label.empty() ? "" : "; ", in.rows.size(), in.n);
  return result;
}

namespace {
std::mutex g_warm_mutex;
struct WarmCall {
  double seconds = 0;              // a call's
  std::int64_t calls_per_run = 1;  // the kernel's batch
};
std::map<std::pair<std::string, std::int64_t>, WarmCall> g_warm_calls;  // by (rung, n)

void record_warm_call(const std::string& rung, std::int64_t n, double seconds, std::int64_t calls_per_run = 1) {
  std::lock_guard lock(g_warm_mutex);
  g_warm_calls[{rung, n}] = {seconds, calls_per_run};
}

WarmCall warm_call_of(const std::string& rung, std::int64_t n) {
  std::lock_guard lock(g_warm_mutex);
  const auto it = g_warm_calls.find({rung, n});
  return it == g_warm_calls.end() ? WarmCall{} : it->second;
}

double warm_call(const std::string& rung, std::int64_t n) { return warm_call_of(rung, n).seconds; }
}  // namespace

double estimated_gemm_call_seconds(const GemmRung& rung, std::int64_t n) {
  constexpr std::int64_t kSecondSize = 2 * kProbeSize;
  const double small = warm_call(rung.name, kProbeSize);
  // A GPU call at n = 64 is its launch, which no n^3 scales.
  if (small <= 0 || rung.threading == Threading::device) return 0;
  if (n <= kProbeSize) return small;
  const auto cube = [](double x) { return x * x * x; };
  const double cubic = small * cube(static_cast<double>(n) / kProbeSize);
  if (cubic < 0.01) return cubic;  // under the minimum time however it scales
  if (warm_call(rung.name, kSecondSize) <= 0) {
    const GemmVerification v = verify_gemm_rung(rung, cached_gemm_inputs(kSecondSize), true);
    record_warm_call(rung.name, kSecondSize, v.verdict.ok ? v.warm_call_seconds : -1);
  }
  const double large = warm_call(rung.name, kSecondSize);
  if (large <= 0) return 0;
  // Eight times the arithmetic took under four times as long: the calls are mostly their fixed
  // cost (a fork-join, a dispatch, a Python round trip), and their difference, multiplied by
  // (n / 128)^3, would make noise minutes. Such a rung is fast at any n: its fixed cost, at least.
  if (large < 4 * small) return std::max(small, large);
  // a + b n^3 through both calls.
  const double per_cube = (large - small) / (cube(kSecondSize) - cube(kProbeSize));
  const double fixed = std::max(0.0, small - per_cube * cube(kProbeSize));
  return fixed + per_cube * cube(static_cast<double>(n));
}

double estimated_gemm_batch_seconds(const GemmRung& rung) {
  const WarmCall check = warm_call_of(rung.name, kProbeSize);
  return check.calls_per_run > 1 ? static_cast<double>(check.calls_per_run) * check.seconds : 0;
}

const std::string& gemm_rung_unavailable_reason(const GemmRung& rung) {
  static std::mutex mutex;
  static std::map<std::string, std::string> reasons;
  std::lock_guard lock(mutex);
  if (auto it = reasons.find(rung.name); it != reasons.end()) return it->second;
  std::string reason = rung.unavailable_reason();
  if (reason.empty() && !machine_is_recorded()) {
    const GemmVerification v = verify_gemm_rung(rung, cached_gemm_inputs(kProbeSize), true);
    if (v.verdict.ok) {
      record_warm_call(rung.name, kProbeSize, v.warm_call_seconds, v.calls_per_run);
      record_rung_prepare_seconds(rung.name, v.prepare_seconds);
    } else {
      const std::string& why = v.verdict.message;
      reason = fmt::format("a real call at n = {} failed: {}", kProbeSize, why.substr(0, why.find('\n')));
    }
  }
  return reasons[rung.name] = reason;
}

}  // namespace ladder
