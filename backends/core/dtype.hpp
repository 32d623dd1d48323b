// Element types the ladder measures, their names in case names and their verification tolerances.
#pragma once
#include <bit>
#include <cstdint>
#include <string_view>

namespace ladder {

// tf32: f32 data multiplied on tensor cores with 10-bit mantissas; f16: IEEE half inputs.
enum class DType { f32, bf16, f64, tf32, f16 };

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32:
      return "f32";
    case DType::bf16:
      return "bf16";
    case DType::f64:
      return "f64";
    case DType::tf32:
      return "tf32";
    case DType::f16:
      return "f16";
  }
  return "?";
}

// Relative L2 error a rung may show against the double reference (of the f32 inputs), which
// includes rounding the inputs to the rung's format. bf16 keeps 8 significant bits, f16 and tf32 11.
// tf32 gets 2e-3, not 1e-3: hardware may truncate f32 to tf32 instead of rounding, which doubles
// the error (a truncating model of the n = 1 check gives 9.9e-4). cuBLAS 13.1 on an H200 rounds:
// its errors matched a rounding model to three digits (5.2e-4 at n = 33, 4.8e-4 at 2048).
constexpr double dtype_tolerance(DType t) {
  switch (t) {
    case DType::f32:
      return 1e-5;
    case DType::bf16:
      return 1e-2;
    case DType::f64:
      return 1e-12;
    case DType::tf32:
      return 2e-3;
    case DType::f16:
      return 1e-2;
  }
  return 0;
}

// What a timed kernel is verified against, tight enough that a fault cannot hide under it at any
// size the profiles run. bf16 and f16 rungs take operands already rounded to their format, so
// their output is checked against the double product of those rounded operands: what is left is
// f32 accumulation, like an f32 rung's (a correct kernel shows about 1e-6; 1e-4 leaves room for a
// split or blocked sum), instead of the format's own cost (4e-3 for bf16), under which a zeroed
// 16x16 tile of C hid at n = 2048. tf32's rounding happens inside the hardware (rounding or
// truncating, by device), so it keeps its format bound; its worst-row check (compare.hpp) is what
// a local fault cannot hide under.
constexpr bool verified_against_rounded_inputs(DType t) { return t == DType::bf16 || t == DType::f16; }
constexpr double verification_tolerance(DType t) { return verified_against_rounded_inputs(t) ? 1e-4 : dtype_tolerance(t); }
// The relative error of rounding a number to the format (its unit roundoff): an output rounded
// element by element is off by at most this much in relative L2, and so is each of its rows.
constexpr double unit_roundoff(DType t) { return t == DType::bf16 ? 0x1p-8 : t == DType::f16 ? 0x1p-11 : 0; }

// bfloat16 as raw bits: the top half of an IEEE f32.
struct bf16 {
  std::uint16_t bits;
};

// Round to nearest even, as hardware conversions (vcvtneps2bf16) do; NaN stays NaN.
inline bf16 to_bf16(float x) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return bf16{static_cast<std::uint16_t>((u >> 16) | 0x40)};
  u += 0x7fffu + ((u >> 16) & 1u);
  return bf16{static_cast<std::uint16_t>(u >> 16)};
}

inline float to_float(bf16 x) { return std::bit_cast<float>(static_cast<std::uint32_t>(x.bits) << 16); }

// IEEE binary16 as raw bits.
struct f16 {
  std::uint16_t bits;
};

// Round to nearest even, with subnormals, infinities and NaN, as vcvtps2ph does.
inline f16 to_f16(float x) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  const std::uint16_t sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  const std::uint32_t magnitude = u & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return f16{static_cast<std::uint16_t>(sign | 0x7e00u)};   // NaN
  if (magnitude >= 0x477ff000u) return f16{static_cast<std::uint16_t>(sign | 0x7c00u)};  // overflow → inf
  if (magnitude < 0x38800000u) {                                         // below the smallest normal half: a subnormal or zero
    const float scaled = std::bit_cast<float>(magnitude) * 16777216.0f;  // × 2^24: units of 2^-24
    const auto rounded = static_cast<std::uint32_t>(__builtin_nearbyintf(scaled));
    return f16{static_cast<std::uint16_t>(sign | rounded)};
  }
  const std::uint32_t rebased = magnitude - 0x38000000u;  // exponent bias 127 → 15
  const std::uint32_t rounded = rebased + 0xfffu + ((rebased >> 13) & 1u);
  return f16{static_cast<std::uint16_t>(sign | (rounded >> 13))};
}

inline float to_float(f16 x) {
  const std::uint32_t sign = static_cast<std::uint32_t>(x.bits & 0x8000u) << 16;
  const std::uint32_t exponent = (x.bits >> 10) & 0x1fu, mantissa = x.bits & 0x3ffu;
  if (exponent == 0) {
    const float value = static_cast<float>(mantissa) / 16777216.0f;  // subnormal: m × 2^-24
    return sign ? -value : value;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

}  // namespace ladder
