// What this CPU lets oneDNN do, asked of oneDNN itself: its bf16 kernels need more than the
// CPU's flags say (oneDNN 2.x has none below AVX-512, not even a reference one), so the bf16
// users ask here rather than guess from cpuid.
#pragma once
#include <oneapi/dnnl/dnnl.hpp>

#include <string>

namespace ladder {

// The CPU engine every oneDNN use here goes through. Its first call applies LADDER_MAX_ISA to
// oneDNN's JIT too (dnnl::set_max_cpu_isa), so that a capped run stands for the smaller CPU
// throughout: oneDNN takes the cap only before its first primitive.
dnnl::engine onednn_cpu_engine();

// oneDNN 2.x (Debian 12) and 3.x (Debian 13) differ where a matmul is described: 3.0 removed
// matmul::desc (primitive descriptors take the memory descriptors directly) and output scales, and
// put append_eltwise's scale elsewhere. Everything else here is one code path for both.
inline dnnl::matmul::primitive_desc make_matmul(const dnnl::engine& engine, const dnnl::memory::desc& a,
                                                const dnnl::memory::desc& b, const dnnl::memory::desc& c,
                                                const dnnl::primitive_attr& attr = dnnl::primitive_attr()) {
#if DNNL_VERSION_MAJOR >= 3
  return dnnl::matmul::primitive_desc(engine, a, b, c, attr);
#else
  return dnnl::matmul::primitive_desc(dnnl::matmul::desc(a, b, c), attr, engine);
#endif
}

// dst = alpha * dst as a post-op (both versions; the 2.x output scales are gone in 3.x).
inline void append_scale(dnnl::post_ops& ops, float alpha) {
#if DNNL_VERSION_MAJOR >= 3
  ops.append_eltwise(dnnl::algorithm::eltwise_linear, alpha, 0.0f);
#else
  ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, alpha, 0.0f);
#endif
}

// Empty when oneDNN runs a bf16 matmul (bf16 in, f32 out) on this CPU and its 16x16 result is right; else why not,
// in one line. Asked once per process.
const std::string& onednn_bf16_unavailable_reason();

}  // namespace ladder
