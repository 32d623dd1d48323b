// Rung 6, avx512: the BLIS structure written by hand. A 12×32 micro-kernel keeps 24 zmm
// accumulators in registers for a whole K block, so each loaded B vector feeds 12 FMAs and
// nothing touches C inside the loop; A and B are packed into contiguous micro-panels (no TLB
// or cache-set conflicts, unit-stride streams): a column block of B in L3, an A block in L2,
// a B micro-panel in L1. All cores share the packed B and take A's row blocks dynamically.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <vector>

#include "../core/buffer.hpp"
#include "../core/registry.hpp"

namespace ladder {
namespace {

// 12×32 measured best on Zen 4 among 6×64, 8×48, 12×32 and 14×32 (24-28 accumulators each).
constexpr std::int64_t kMR = 12;        // micro-tile rows: broadcasts of A per k
constexpr std::int64_t kNV = 2;         // zmm vectors of B per k
constexpr std::int64_t kNR = kNV * 16;  // micro-tile columns
constexpr std::int64_t kKC = 256;   // K block: B micro-panel 256×32×4 = 32 KiB (L1)
constexpr std::int64_t kMC = 96;    // A block 96×256×4 = 96 KiB (L2); small blocks balance cores
constexpr std::int64_t kPackedB = 2 << 20;  // packed B column block: at most 8 MiB of floats (L3)

constexpr std::int64_t round_up(std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; }

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,fma")

// C tile (kMR×kNR at c, row stride ldc) = or += packed A micro-panel · packed B micro-panel.
template <bool Accumulate>
void micro_kernel(std::int64_t kc, const float* __restrict ap, const float* __restrict bp,
                  float* __restrict c, std::int64_t ldc) {
  __m512 acc[kMR][kNV];
#pragma GCC unroll 16
  for (int r = 0; r < kMR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) acc[r][v] = _mm512_setzero_ps();
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

// A block (mc×kc at a, row stride lda) → micro-panels of kMR rows, k-major, zero-padded.
void pack_a(std::int64_t mc, std::int64_t kc, const float* a, std::int64_t lda, float* out) {
  for (std::int64_t i0 = 0; i0 < mc; i0 += kMR) {
    const std::int64_t rows = std::min(kMR, mc - i0);
    for (std::int64_t k = 0; k < kc; ++k) {
      for (std::int64_t r = 0; r < rows; ++r) out[r] = a[(i0 + r) * lda + k];
      for (std::int64_t r = rows; r < kMR; ++r) out[r] = 0;
      out += kMR;
    }
  }
}

// One micro-panel of B (kc×cols at b, row stride ldb) → kc rows of kNR, zero-padded.
void pack_b_panel(std::int64_t kc, std::int64_t cols, const float* b, std::int64_t ldb, float* out) {
  for (std::int64_t k = 0; k < kc; ++k) {
    const float* row = b + k * ldb;
    if (cols == kNR) {
      for (int v = 0; v < kNV; ++v) _mm512_store_ps(out + 16 * v, _mm512_loadu_ps(row + 16 * v));
    } else {
      for (std::int64_t j = 0; j < cols; ++j) out[j] = row[j];
      for (std::int64_t j = cols; j < kNR; ++j) out[j] = 0;
    }
    out += kNR;
  }
}

// A tile at the edge of C goes through a full-size scratch tile, then only its valid part is
// written; interior tiles go straight to C.
void edge_tile(bool accumulate, std::int64_t kc, const float* ap, const float* bp, float* c,
               std::int64_t ldc, std::int64_t rows, std::int64_t cols) {
  alignas(64) float scratch[kMR * kNR];
  micro_kernel<false>(kc, ap, bp, scratch, kNR);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; ++j)
      c[r * ldc + j] = (accumulate ? c[r * ldc + j] : 0.0f) + scratch[r * kNR + j];
}

struct Workspace {
  std::int64_t nc = 0;                        // columns per packed B block
  AlignedBuffer<float> b_block;               // all of K × nc, as kc×kNR micro-panels per K block
  std::vector<AlignedBuffer<float>> a_block;  // kMC × kKC per thread
};

// Columns per packed B block: all of K for as many columns as fit kPackedB, whole micro-panels.
std::int64_t column_block(std::int64_t n) {
  const std::int64_t fit = std::max<std::int64_t>(kNR, kPackedB / round_up(n, kNR) / kNR * kNR);
  return std::min(round_up(n, kNR), fit);
}

void gemm_avx512(std::int64_t n, const float* a, const float* b, float* c, Workspace& ws) {
  const std::int64_t row_blocks = (n + kMC - 1) / kMC;
#pragma omp parallel
  {
    float* a_packed = ws.a_block[omp_get_thread_num()].data();
    float* b_packed = ws.b_block.data();
    for (std::int64_t jc = 0; jc < n; jc += ws.nc) {
      const std::int64_t nc = std::min(ws.nc, n - jc), nc_padded = round_up(nc, kNR);
      // The K block starting at pc holds kc × nc_padded floats, at b_packed + pc * nc_padded.
#pragma omp for schedule(static) collapse(2)
      for (std::int64_t pc = 0; pc < n; pc += kKC)
        for (std::int64_t jr = 0; jr < nc; jr += kNR) {
          const std::int64_t kc = std::min(kKC, n - pc);
          pack_b_panel(kc, std::min(kNR, nc - jr), b + pc * n + jc + jr, n, b_packed + pc * nc_padded + jr * kc);
        }
      // (implicit barrier: the B block is complete.) A thread owns a row block for all of K, so
      // no two threads touch the same C tile and a slow core simply takes fewer blocks.
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t block = 0; block < row_blocks; ++block) {
        const std::int64_t ic = block * kMC, mc = std::min(kMC, n - ic);
        for (std::int64_t pc = 0; pc < n; pc += kKC) {
          const std::int64_t kc = std::min(kKC, n - pc);
          const bool accumulate = pc > 0;  // the first K block overwrites C
          pack_a(mc, kc, a + ic * n + pc, n, a_packed);
          for (std::int64_t jr = 0; jr < nc; jr += kNR) {
            const std::int64_t cols = std::min(kNR, nc - jr);
            const float* bp = b_packed + pc * nc_padded + jr * kc;
            for (std::int64_t ir = 0; ir < mc; ir += kMR) {
              const std::int64_t rows = std::min(kMR, mc - ir);
              const float* ap = a_packed + ir * kc;
              float* ct = c + (ic + ir) * n + jc + jr;
              if (rows == kMR && cols == kNR) {
                if (accumulate) micro_kernel<true>(kc, ap, bp, ct, n);
                else micro_kernel<false>(kc, ap, bp, ct, n);
              } else {
                edge_tile(accumulate, kc, ap, bp, ct, n, rows, cols);
              }
            }
          }
        }
      }
    }
  }
}

#pragma GCC pop_options

}  // namespace

GemmRung avx512_rung() {
  GemmRung rung;
  rung.name = "avx512";
  rung.threading = Threading::all_cores;
  rung.mechanism = "hand-written kernel";
  rung.summary = "hand-written AVX-512 12x32 micro-kernel, packed panels (BLIS structure), all cores";
  rung.unavailable_reason = [] { return isa_unavailable_reason(Isa::avx512); };
  rung.prepare = [](const GemmOperands& op) {
    auto ws = std::make_shared<Workspace>();
    ws->nc = column_block(op.n);
    ws->b_block = AlignedBuffer<float>(op.n * ws->nc);
    for (int t = 0; t < omp_get_max_threads(); ++t)
      ws->a_block.emplace_back(round_up(std::min(kMC, op.n), kMR) * kKC);
    return make_kernel([op, ws] { gemm_avx512(op.n, op.a, op.b, op.c, *ws); });
  };
  return rung;
}

}  // namespace ladder
