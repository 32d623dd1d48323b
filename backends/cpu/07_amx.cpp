// Rung 7, amx (bf16 inputs, f32 accumulation): the matrix unit instead of vector FMAs. One
// TDPBF16PS instruction does a 16×16×32 block of multiply-adds (8192 of them) where an AVX-512
// FMA does 16, and bf16 halves the bytes per element. The kernel is amx_kernel.hpp; this file
// binds it to the real tile instructions and runs it on all cores.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include "../core/buffer.hpp"
#include "../core/registry.hpp"

#pragma GCC push_options
#pragma GCC target("amx-tile,amx-bf16,avx512f,avx512bw,avx512vl")

#include "amx_kernel.hpp"

namespace ladder {
namespace {

struct HardwareTiles {
  static void configure(const amx::TileConfig* cfg) { _tile_loadconfig(cfg); }
  static void release() { _tile_release(); }
  static void zero_accumulators() {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
  }
  static void load_a(const void* upper, const void* lower, std::int64_t stride) {
    _tile_loadd(4, upper, stride);
    _tile_loadd(5, lower, stride);
  }
  static void load_b(const void* left, const void* right, std::int64_t stride) {
    _tile_loadd(6, left, stride);
    _tile_loadd(7, right, stride);
  }
  static void multiply_accumulate() {
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  static void store_accumulators(void* c00, void* c01, void* c10, void* c11, std::int64_t stride) {
    _tile_stored(0, c00, stride);
    _tile_stored(1, c01, stride);
    _tile_stored(2, c10, stride);
    _tile_stored(3, c11, stride);
  }
};

void gemm_amx(const amx::Packed& packed, const bf16* a, const bf16* b, float* c) {
#pragma omp parallel
  amx::gemm<HardwareTiles>(packed, a, b, c);
}

}  // namespace
}  // namespace ladder

#pragma GCC pop_options

namespace ladder {

GemmRung amx_rung() {
  GemmRung rung;
  rung.name = "amx";
  rung.small_gemm_sweep = true;
  rung.dtype = DType::bf16;
  rung.threading = Threading::all_cores;
  rung.mechanism = Mechanism::matrix_units;
  rung.unit = Unit::amx_tiles;
  rung.traffic = compulsory_traffic_only;
  rung.parent = "avx512";  // bf16 tiles against the f32 vector kernel
  rung.rivals = {{optional_rung::onednn_bf16_packed.name, ">= 0.8", 2048}, {optional_rung::onednn_bf16.name, ""}};
  rung.summary = "hand-written AMX tile kernel (TDPBF16PS, 32x32 C blocks, tile-ordered packing), bf16 in, f32 out, all cores";
  rung.unavailable_reason = [] { return isa_unavailable_reason(Isa::amx); };
  rung.prepare = [](const GemmOperands& op) {
    struct Buffers {
      amx::Packed shape;
      AlignedBuffer<bf16> a, b_panel;
    };
    auto buf = std::make_shared<Buffers>();
    buf->shape = amx::packed_shape(op.n);
    buf->a = AlignedBuffer<bf16>(buf->shape.a_elements());
    buf->b_panel = AlignedBuffer<bf16>(buf->shape.b_panel_elements());
    buf->shape.a = buf->a.data();
    buf->shape.b_panel = buf->b_panel.data();
    return make_kernel([op, buf] { gemm_amx(buf->shape, op.a_bf16, op.b_bf16, op.c); });
  };
  return rung;
}

}  // namespace ladder
