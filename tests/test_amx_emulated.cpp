// The AMX kernel's packing, blocking and edge handling, run on a software model of the tile unit
// so that they are checked on machines without AMX (like CI). The hardware rung shares this
// code; only the five tile operations differ.
#include <gtest/gtest.h>

#include <vector>

#include "core/buffer.hpp"
#include "core/compare.hpp"
#include "cpu/amx_kernel.hpp"
#include "gemm/gemm_suite.hpp"

namespace ladder {
namespace {

class AmxKernelOnEmulatedTiles : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(AmxKernelOnEmulatedTiles, MatchesReference) {
  const GemmInputs& in = cached_gemm_inputs(GetParam());
  amx::Packed p = amx::packed_shape(in.n);
  AlignedBuffer<bf16> a(p.a_elements()), b_panel(p.b_panel_elements());
  p.a = a.data();
  p.b_panel = b_panel.data();
  AlignedBuffer<float> c(in.n * in.n);
  std::fill(c.data(), c.data() + c.size(), std::numeric_limits<float>::quiet_NaN());
#pragma omp parallel
  amx::gemm<amx::EmulatedTiles>(p, in.a_bf16.data(), in.b_bf16.data(), c.data());
  // Against the product of the bf16 inputs themselves, so only the f32 sums may differ: an f32
  // tolerance, far tighter than bf16's, leaves a packing or edge error nowhere to hide.
  std::vector<float> a_rounded(in.a.size()), b_rounded(in.b.size());
  for (std::size_t i = 0; i < in.a.size(); ++i) a_rounded[i] = to_float(in.a_bf16[i]), b_rounded[i] = to_float(in.b_bf16[i]);
  AlignedBuffer<double> bf16_reference(in.n * in.n);
  reference_gemm(in.n, a_rounded.data(), b_rounded.data(), bf16_reference.data());
  Verdict v = compare_to_reference(c.span(), bf16_reference.span(), dtype_tolerance(DType::f32));
  EXPECT_TRUE(v.ok) << v.message;
}

// 300 spans two column sets of 256 and ends mid-tile.
INSTANTIATE_TEST_SUITE_P(Sizes, AmxKernelOnEmulatedTiles, ::testing::Values(1, 7, 33, 100, 131, 257, 300));

TEST(AmxTileModel, DotProductFollowsTdpbf16psPairing) {
  using T = amx::EmulatedTiles;
  amx::TileConfig cfg = amx::gemm_tile_config();
  T::configure(&cfg);
  alignas(64) bf16 a[16][32], b[16][32];  // A: 16 rows × 32 k; B: 16 k-pairs × 16 columns × 2
  for (int m = 0; m < 16; ++m)
    for (int k = 0; k < 32; ++k) a[m][k] = to_bf16(static_cast<float>((m + k) % 3));
  for (int p = 0; p < 16; ++p)
    for (int n = 0; n < 16; ++n)
      for (int h = 0; h < 2; ++h) b[p][n * 2 + h] = to_bf16(static_cast<float>((2 * p + h + n) % 4));
  T::zero_accumulators();
  T::load_a(a, a, 64);
  T::load_b(b, b, 64);
  T::multiply_accumulate();
  alignas(64) float c[4][16][16];
  T::store_accumulators(c[0], c[1], c[2], c[3], 64);
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 16; ++n) {
      float expected = 0;
      for (int k = 0; k < 32; ++k) expected += static_cast<float>((m + k) % 3) * static_cast<float>((k + n) % 4);
      ASSERT_EQ(c[0][m][n], expected) << m << "," << n;
    }
}

}  // namespace
}  // namespace ladder
