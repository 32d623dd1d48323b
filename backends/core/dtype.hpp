// Element types the ladder measures, their names in case names and their verification tolerances.
#pragma once
#include <bit>
#include <cstdint>
#include <string_view>

namespace ladder {

enum class DType { f32, bf16, f64 };

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::bf16: return "bf16";
    case DType::f64: return "f64";
  }
  return "?";
}

// Relative L2 error a rung may show against the double reference. bf16 keeps 8 mantissa bits.
constexpr double dtype_tolerance(DType t) {
  switch (t) {
    case DType::f32: return 1e-5;
    case DType::bf16: return 1e-2;
    case DType::f64: return 1e-12;
  }
  return 0;
}

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

}  // namespace ladder
