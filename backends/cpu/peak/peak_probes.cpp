// Peak probes: register-only multiply-add loops, one per kind of arithmetic unit. Each keeps
// enough independent accumulators to cover the FMA latency on every core we target (4 cycles,
// 2 pipes), touches no memory, and returns the FLOPs done so the work cannot be deleted.
// The ladder's "% of peak" is measured against these, on this machine, in the same run.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "../../core/registry.hpp"

namespace ladder {
namespace {

volatile float g_sink;  // results land here so the loops are not dead code

// The horizontal sum through memory: GCC 12 warns falsely inside _mm512_reduce_add_ps.
template <class Vector>
float sum_lanes(const Vector& v) {
  float lanes[sizeof(Vector) / sizeof(float)];
  std::memcpy(lanes, &v, sizeof lanes);
  float sum = 0;
  for (float x : lanes) sum += x;
  return sum;
}

#pragma GCC push_options
#pragma GCC target("fma")
double scalar_fma_loop(std::int64_t iterations) {
  constexpr int kAcc = 12;
  __m128 acc[kAcc];
  const __m128 m = _mm_set_ss(0.999999f), c = _mm_set_ss(1e-3f);
  for (int i = 0; i < kAcc; ++i) acc[i] = _mm_set_ss(static_cast<float>(i));
  for (std::int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < kAcc; ++i) acc[i] = _mm_fmadd_ss(acc[i], m, c);  // vfmadd231ss
  }
  float sum = 0;
  for (int i = 0; i < kAcc; ++i) sum += _mm_cvtss_f32(acc[i]);
  g_sink = sum;
  return 2.0 * kAcc * static_cast<double>(iterations);
}

// One dependent chain of adds, as naive's inner loop compiles: ISO C++ does not fuse its multiply
// and add (-ffp-contract=off), so each step is a multiply, which overlaps the others, and an add,
// which waits for the one before. The rate is one multiply-add per add latency, two FLOPs counted
// a step as naive's multiply-add has: the report sets naive's rate beside it (GemmRung::serial_sum).
double scalar_add_chain_loop(std::int64_t iterations) {
  constexpr int kSteps = 8;
  __m128 acc = _mm_set_ss(1.0f);
  const __m128 c = _mm_set_ss(1e-7f);
  for (std::int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 8
    for (int i = 0; i < kSteps; ++i) acc = _mm_add_ss(acc, c);  // vaddss: each waits for the last
  }
  g_sink = _mm_cvtss_f32(acc);
  return 2.0 * kSteps * static_cast<double>(iterations);
}

double scalar_fma_f64_loop(std::int64_t iterations) {
  constexpr int kAcc = 12;
  __m128d acc[kAcc];
  const __m128d m = _mm_set_sd(0.999999), c = _mm_set_sd(1e-3);
  for (int i = 0; i < kAcc; ++i) acc[i] = _mm_set_sd(static_cast<double>(i));
  for (std::int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < kAcc; ++i) acc[i] = _mm_fmadd_sd(acc[i], m, c);  // vfmadd231sd
  }
  double sum = 0;
  for (int i = 0; i < kAcc; ++i) sum += _mm_cvtsd_f64(acc[i]);
  g_sink = static_cast<float>(sum);
  return 2.0 * kAcc * static_cast<double>(iterations);
}
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma")
inline __m256 splat(float v) { return _mm256_set1_ps(v); }
inline __m256d splat(double v) { return _mm256_set1_pd(v); }
inline __m256 fma(__m256 x, __m256 m, __m256 c) { return _mm256_fmadd_ps(x, m, c); }
inline __m256d fma(__m256d x, __m256d m, __m256d c) { return _mm256_fmadd_pd(x, m, c); }
inline __m256 add(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
inline __m256d add(__m256d a, __m256d b) { return _mm256_add_pd(a, b); }
inline float first_lane(__m256 v) { return _mm256_cvtss_f32(v); }
inline float first_lane(__m256d v) { return static_cast<float>(_mm256_cvtsd_f64(v)); }

template <class T>  // float or double: 8 or 4 lanes of a 256-bit register
double avx2_fma_loop(std::int64_t iterations) {
  using Reg = decltype(splat(T()));
  constexpr int kAcc = 12, kLanes = sizeof(Reg) / sizeof(T);
  Reg acc[kAcc];
  const Reg m = splat(T(0.999999)), c = splat(T(1e-3));
  for (int i = 0; i < kAcc; ++i) acc[i] = splat(static_cast<T>(i));
  for (std::int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < kAcc; ++i) acc[i] = fma(acc[i], m, c);
  }
  Reg sum = acc[0];
  for (int i = 1; i < kAcc; ++i) sum = add(sum, acc[i]);
  g_sink = first_lane(sum);
  return 2.0 * kLanes * kAcc * static_cast<double>(iterations);
}
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,fma")
double avx512_fma_loop(std::int64_t iterations) {
  constexpr int kAcc = 16;
  __m512 acc[kAcc];
  const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-3f);
  for (int i = 0; i < kAcc; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  for (std::int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < kAcc; ++i) acc[i] = _mm512_fmadd_ps(acc[i], m, c);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < kAcc; ++i) sum = _mm512_add_ps(sum, acc[i]);
  g_sink = sum_lanes(sum);
  return 2.0 * 16 * kAcc * static_cast<double>(iterations);
}

double avx512_fma_f64_loop(std::int64_t iterations) {
  constexpr int kAcc = 16;
  __m512d acc[kAcc];
  const __m512d m = _mm512_set1_pd(0.999999), c = _mm512_set1_pd(1e-3);
  for (int i = 0; i < kAcc; ++i) acc[i] = _mm512_set1_pd(static_cast<double>(i));
  for (std::int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < kAcc; ++i) acc[i] = _mm512_fmadd_pd(acc[i], m, c);
  }
  __m512d sum = acc[0];
  for (int i = 1; i < kAcc; ++i) sum = _mm512_add_pd(sum, acc[i]);
  double lanes[8];
  std::memcpy(lanes, &sum, sizeof lanes);
  g_sink = static_cast<float>(lanes[0] + lanes[7]);
  return 2.0 * 8 * kAcc * static_cast<double>(iterations);
}
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bf16")
// VDPBF16PS: per f32 lane, two bf16 products added to the accumulator (4 FLOPs a lane).
double avx512_bf16_loop(std::int64_t iterations) {
  constexpr int kAcc = 16;
  __m512 acc[kAcc];
  const __m512bh x = _mm512_cvtne2ps_pbh(_mm512_set1_ps(1e-3f), _mm512_set1_ps(1e-3f));
  for (int i = 0; i < kAcc; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  for (std::int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < kAcc; ++i) acc[i] = _mm512_dpbf16_ps(acc[i], x, x);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < kAcc; ++i) sum = _mm512_add_ps(sum, acc[i]);
  g_sink = sum_lanes(sum);
  return 4.0 * 16 * kAcc * static_cast<double>(iterations);
}
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("amx-tile,amx-bf16")
// TDPBF16PS on full 16×16 (K=32) tiles: 4 independent accumulators, operands never reloaded.
double amx_bf16_loop(std::int64_t iterations) {
  alignas(64) std::uint8_t cfg[64] = {};
  cfg[0] = 1;  // palette 1
  for (int t = 0; t < 8; ++t) {
    std::uint16_t colsb = 64;
    std::memcpy(&cfg[16 + 2 * t], &colsb, 2);
    cfg[48 + t] = 16;
  }
  _tile_loadconfig(cfg);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  alignas(64) std::uint16_t operand[16 * 32];
  for (auto& v : operand) v = 0x3a83;  // bf16 ~1e-3
  _tile_loadd(4, operand, 64);
  _tile_loadd(5, operand, 64);
  _tile_loadd(6, operand, 64);
  _tile_loadd(7, operand, 64);
  for (std::int64_t it = 0; it < iterations; ++it) {
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  alignas(64) float out[16 * 16];
  _tile_stored(0, out, 64);
  _tile_release();
  g_sink = out[0];
  return 4.0 * 2 * 16 * 16 * 32 * static_cast<double>(iterations);
}
#pragma GCC pop_options

}  // namespace

void register_peak_probes(Registry& r) {
  r.add(PeakProbe{"scalar-fma", DType::f32, Isa::avx2, scalar_fma_loop});
  r.add(PeakProbe{"scalar-add-chain", DType::f32, Isa::avx2, scalar_add_chain_loop});
  r.add(PeakProbe{"avx2-fma", DType::f32, Isa::avx2, avx2_fma_loop<float>});
  r.add(PeakProbe{"avx512-fma", DType::f32, Isa::avx512, avx512_fma_loop});
  r.add(PeakProbe{"scalar-fma-f64", DType::f64, Isa::avx2, scalar_fma_f64_loop});
  r.add(PeakProbe{"avx2-fma-f64", DType::f64, Isa::avx2, avx2_fma_loop<double>});
  r.add(PeakProbe{"avx512-fma-f64", DType::f64, Isa::avx512, avx512_fma_f64_loop});
  r.add(PeakProbe{"avx512-bf16", DType::bf16, Isa::avx512_bf16, avx512_bf16_loop});
  r.add(PeakProbe{"amx-bf16", DType::bf16, Isa::amx, amx_bf16_loop});
}

}  // namespace ladder
