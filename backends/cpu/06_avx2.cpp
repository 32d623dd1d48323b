// Rung 6 on AVX2 CPUs, avx2: the BLIS structure written by hand, as `avx512` is, for 256-bit
// registers. A 6×16 micro-kernel keeps 12 ymm accumulators in registers for a whole K block, so
// each loaded B vector feeds 6 FMAs and nothing touches C inside the loop; A and B are packed
// into contiguous micro-panels (packed_gemm.inc). Why faster than `parallel`: the compiler's
// 6×32 block needs 24 accumulators and AVX2 has 16 registers (it spills), and unpacked B rows a
// matrix apart conflict in the caches and the TLB.
// What brought it level with OpenBLAS on two cores (Zen 3 VM, 512 KiB L2 a core, 32 KiB L1):
// a K block of 512 and A blocks of 96 rows (were 256 and 96, then 768 and 48), and C's tile
// prefetched as the micro-kernel starts. The B micro-panel (32 KiB) then comes from L1 or L2,
// which 6 FMAs a loaded vector allows, beside A's block (192 KiB) in L2; each K block still ends
// with a load, add and store of every C tile and a repack of A. The 96-row A block halves how
// often the packed B block (8 MiB, in L3) is streamed again against 48 rows, which told most at
// n = 4096, where A (64 MiB) streams past it through L3. Medians of 7 interleaved
// repetitions against openblas, two cores: 768/48 gave 0.85-0.97x at n = 2048 and 0.87x at 4096;
// 512/96 gives 0.99-1.07x at 2048 (three runs) and 0.91-1.04x at 4096 (one core: 0.93x at 2048;
// this VM's runs fall in groups some 10% apart, so each ratio is of one run's interleaved
// repetitions).
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

// 6×16, BLIS's Haswell sgemm shape: 12 accumulators, 2 B vectors and an A broadcast in 16 ymm.
constexpr std::int64_t kMR = 6;             // micro-tile rows: broadcasts of A per k
constexpr std::int64_t kNV = 2;             // ymm vectors of B per k
constexpr std::int64_t kNR = kNV * 8;       // micro-tile columns
constexpr std::int64_t kKC = 512;           // K block: B micro-panel 512×16×4 = 32 KiB (L1's size; L2)
constexpr std::int64_t kMC = 96;            // A block at most 96×512×4 = 192 KiB (L2); row_blocks.hpp sizes them
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
  // teach: begin (the lines docs/ladder.md shows)
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
  // teach: end
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
  rung.mechanism = Mechanism::hand_written;
  rung.parent = "parallel";
  rung.unit = Unit::avx2_fma;
  rung.rivals = {{optional_rung::openblas.name, ""}, {optional_rung::onednn.name, ""}};
  rung.summary = "hand-written AVX2 6x16 micro-kernel, packed panels (BLIS structure), all cores";
  rung.unavailable_reason = [] { return isa_unavailable_reason(Isa::avx2); };
  rung.traffic = [](std::int64_t n, int threads) { return packed_traffic(n, threads, kMR, kNR, kKC, kMC, kPackedB / kKC); };
  rung.prepare = prepare_packed;
  return rung;
}

}  // namespace ladder
