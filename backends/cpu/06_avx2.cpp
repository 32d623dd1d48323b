// Rung 6 on AVX2 CPUs, avx2: the BLIS structure written by hand, as `avx512` is, for 256-bit
// registers. A 6×16 micro-kernel keeps 12 ymm accumulators in registers for a whole K block, so
// each loaded B vector feeds 6 FMAs and nothing touches C inside the loop; A and B are packed
// into contiguous micro-panels (packed_gemm.inc). Why faster than `parallel`: the compiler's
// 6×32 block needs 24 accumulators and AVX2 has 16 registers (it spills), and unpacked B rows a
// matrix apart conflict in the caches and the TLB.
// What brought it level with OpenBLAS on one core and near it on two (Zen 3 VM, 512 KiB L2 a
// core): a deeper K block and a narrower A block (768 deep and 48 rows, were 256 and 96), and
// C's tile prefetched as the micro-kernel starts. Each K block ends with a load, add and store
// of every C tile and a repack of A; 256 deep, that end is some 100 cycles against 1,500 of
// FMAs. The B micro-panel (48 KiB) then streams from L2, which 6 FMAs a loaded vector allows,
// beside A's block (144 KiB); 72 or 96 rows at this depth, or 512 deep, measured 2-5% slower.
// Medians of 5 interleaved repetitions against openblas at n = 2048, single core 0.91-0.93x
// before and 0.98-1.00x after; two cores 0.80-0.83x before and 0.90-1.01x after (runs of this
// VM fall in two groups, 93-97 ms and 103-108 ms, for reasons not found).
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <vector>

#include "../core/buffer.hpp"
#include "../core/registry.hpp"
#include "row_blocks.hpp"  // outside the target region: plain x86-64 code, shared

namespace ladder {
namespace {

// 6×16, BLIS's Haswell sgemm shape: 12 accumulators, 2 B vectors and an A broadcast in 16 ymm.
constexpr std::int64_t kMR = 6;             // micro-tile rows: broadcasts of A per k
constexpr std::int64_t kNV = 2;             // ymm vectors of B per k
constexpr std::int64_t kNR = kNV * 8;       // micro-tile columns
constexpr std::int64_t kKC = 768;           // K block: B micro-panel 768×16×4 = 48 KiB (L2)
constexpr std::int64_t kMC = 48;            // A block at most 48×768×4 = 144 KiB (L2); row_blocks.hpp sizes them
constexpr std::int64_t kPackedB = 2 << 20;  // packed B column block: at most 8 MiB of floats (L3)

#pragma GCC push_options
#pragma GCC target("avx2,fma")

// C tile (kMR×kNR at c, row stride ldc) = or += packed A micro-panel · packed B micro-panel.
template <bool Accumulate>
void micro_kernel(std::int64_t kc, const float* __restrict ap, const float* __restrict bp, float* __restrict c,
                  std::int64_t ldc) {
  __m256 acc[kMR][kNV];
  // The C tile is read only after the loop: asked for now, it arrives while the FMAs run.
#pragma GCC unroll 8
  for (int r = 0; r < kMR; ++r) {
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc + kNR - 1), _MM_HINT_T0);
  }
#pragma GCC unroll 8
  for (int r = 0; r < kMR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) acc[r][v] = _mm256_setzero_ps();
  for (std::int64_t k = 0; k < kc; ++k) {
    __m256 b[kNV];
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) b[v] = _mm256_load_ps(bp + 8 * v);
#pragma GCC unroll 8
    for (int r = 0; r < kMR; ++r) {
      const __m256 a = _mm256_broadcast_ss(ap + r);
#pragma GCC unroll 4
      for (int v = 0; v < kNV; ++v) acc[r][v] = _mm256_fmadd_ps(a, b[v], acc[r][v]);
    }
    ap += kMR;
    bp += kNR;
  }
#pragma GCC unroll 8
  for (int r = 0; r < kMR; ++r) {
    float* row = c + r * ldc;
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) {
      if constexpr (Accumulate) acc[r][v] = _mm256_add_ps(acc[r][v], _mm256_loadu_ps(row + 8 * v));
      _mm256_storeu_ps(row + 8 * v, acc[r][v]);
    }
  }
}

#include "packed_gemm.inc"

#pragma GCC pop_options

}  // namespace

GemmRung avx2_rung() {
  GemmRung rung;
  rung.name = "avx2";
  rung.threading = Threading::all_cores;
  rung.mechanism = "hand-written kernel";
  rung.rivals = {{optional_rung::openblas.name, ""}, {optional_rung::onednn.name, ""}};
  rung.summary = "hand-written AVX2 6x16 micro-kernel, packed panels (BLIS structure), all cores";
  rung.unavailable_reason = [] { return isa_unavailable_reason(Isa::avx2); };
  rung.prepare = prepare_packed;
  return rung;
}

}  // namespace ladder
