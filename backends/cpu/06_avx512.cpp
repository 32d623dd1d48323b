// Rung 6, avx512: the BLIS structure written by hand. A 12×32 micro-kernel keeps 24 zmm
// accumulators in registers for a whole K block, so each loaded B vector feeds 12 FMAs and
// nothing touches C inside the loop; A and B are packed into contiguous micro-panels (no TLB
// or cache-set conflicts, unit-stride streams): a column block of B in L3, an A block and the B
// micro-panel it runs against in L2. All cores share the packed B and take A's row blocks
// dynamically.
// What brought it level with OpenBLAS: a deep K block (1024, was 256). Every K block ends with a
// load and a store of each C tile, and every one repacks A: at n = 2048, 256 meant 8 passes over
// C and 8 packs of A per column block, 1024 means 2. The B micro-panel then no longer fits L1
// (128 KiB) and streams from L2, which at 12 FMAs per loaded vector keeps up. With B's column
// block doubled to 16 MiB (half this L3), A is repacked half as often at n = 4096. Zen 4 VM,
// 5 interleaved repetitions, medians against openblas in the same run: 0.97x -> 1.03x at n = 2048,
// 0.94x -> 1.01x at n = 4096; deeper blocks (2048) measured the same.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../core/buffer.hpp"
#include "../core/registry.hpp"
#include "traffic_models.hpp"
#include "row_blocks.hpp"  // outside the target region: plain x86-64 code, shared

namespace ladder {
namespace {

// 12×32 measured best on Zen 4 among 6×64, 8×48, 12×32 and 14×32 (24-28 accumulators each).
constexpr std::int64_t kMR = 12;            // micro-tile rows: broadcasts of A per k
constexpr std::int64_t kNV = 2;             // zmm vectors of B per k
constexpr std::int64_t kNR = kNV * 16;      // micro-tile columns
constexpr std::int64_t kKC = 1024;          // K block: B micro-panel 1024×32×4 = 128 KiB (L2)
constexpr std::int64_t kMC = 96;            // A block at most 96×1024×4 = 384 KiB (L2); row_blocks.hpp sizes them
constexpr std::int64_t kPackedB = 4 << 20;  // packed B column block: at most 16 MiB of floats (L3)

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,fma")

// C tile (kMR×kNR at c, row stride ldc) = or += packed A micro-panel · packed B micro-panel.
template <bool Accumulate>
void micro_kernel(std::int64_t kc, const float* __restrict ap, const float* __restrict bp, float* __restrict c,
                  std::int64_t ldc) {
  __m512 acc[kMR][kNV];
#pragma GCC unroll 16
  for (int r = 0; r < kMR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) acc[r][v] = _mm512_setzero_ps();
  // teach: begin (the lines docs/ladder.md shows)
  for (std::int64_t k = 0; k < kc; ++k) {
    __m512 b[kNV];
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) b[v] = _mm512_load_ps(bp + 16 * v);
#pragma GCC unroll 16
    for (int r = 0; r < kMR; ++r) {
      const __m512 a = _mm512_set1_ps(ap[r]);
#pragma GCC unroll 4
      for (int v = 0; v < kNV; ++v) acc[r][v] = _mm512_fmadd_ps(a, b[v], acc[r][v]);
    }
    ap += kMR;
    bp += kNR;
  }
  // teach: end
#pragma GCC unroll 16
  for (int r = 0; r < kMR; ++r) {
    float* row = c + r * ldc;
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) {
      if constexpr (Accumulate) acc[r][v] = _mm512_add_ps(acc[r][v], _mm512_loadu_ps(row + 16 * v));
      _mm512_storeu_ps(row + 16 * v, acc[r][v]);
    }
  }
}

#include "packed_gemm.inc"

#pragma GCC pop_options

}  // namespace

GemmRung avx512_rung() {
  GemmRung rung;
  rung.name = "avx512";
  rung.small_gemm_sweep = true;
  rung.threading = Threading::all_cores;
  rung.mechanism = Mechanism::hand_written;
  rung.parent = "parallel";
  rung.unit = Unit::avx512_fma;
  rung.rivals = {{optional_rung::openblas.name, ">= 1.0", 2048}, {optional_rung::onednn.name, ""}};
  rung.summary = "hand-written AVX-512 12x32 micro-kernel, packed panels (BLIS structure), all cores";
  rung.unavailable_reason = [] { return isa_unavailable_reason(Isa::avx512); };
  rung.traffic = [](std::int64_t n, int threads) { return packed_traffic(n, threads, kMR, kNR, kKC, kMC, kPackedB / kKC); };
  rung.prepare = prepare_packed;
  return rung;
}

}  // namespace ladder
