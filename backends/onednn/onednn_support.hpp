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

// Empty when oneDNN can create a bf16 matmul (bf16 in, f32 out) on this CPU; otherwise why not,
// in one line. Asked once per process.
const std::string& onednn_bf16_unavailable_reason();

}  // namespace ladder
