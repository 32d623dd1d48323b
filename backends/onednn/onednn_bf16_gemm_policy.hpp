// The model's GEMM policy through oneDNN in bf16 (suites/model/forward.hpp calls gemm() for each
// matrix product of a pass), beside the GEMM rungs of the same library.
#pragma once
#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "onednn/onednn_support.hpp"

namespace ladder {

// GEMMs with bf16 inputs and f32 accumulation through oneDNN (AMX where the CPU has it). Each
// operand is converted to bf16 by a oneDNN reorder straight from its strided (and possibly
// transposed) f32 layout, so the conversion is part of the operation's time; alpha and beta go
// in as the matmul's output scale and sum post-op, so C is written in place. The primitives are
// made once per shape and reused.
struct OnednnBf16Gemm {
  struct Plan {
    dnnl::memory::desc a_f32, b_f32, a_bf16, b_bf16, c_f32;
    dnnl::reorder to_a, to_b;
    dnnl::matmul matmul;
    std::string implementation;
  };
  struct State {
    dnnl::engine engine = onednn_cpu_engine();
    dnnl::stream stream{engine};
    std::map<std::vector<double>, Plan> plans;
    std::vector<bf16> operands;  // both operands of a call, converted: A, then B
  };
  bool parallel = true;
  std::shared_ptr<State> state = std::make_shared<State>();

  void reserve_operands(std::int64_t elements) const { state->operands.resize(elements); }
  // The matmul implementations the calls so far chose, each once ("brg:avx512_core_amx" on AMX).
  std::string implementation() const {
    std::set<std::string> names;
    for (const auto& [key, plan] : state->plans) names.insert(plan.implementation);
    std::string joined;
    for (const auto& name : names) joined += (joined.empty() ? "" : "+") + name;
    return joined;
  }
  double operand_bytes() const { return static_cast<double>(state->operands.size() * sizeof(bf16)); }

  void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
            std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc) const {
    using dt = dnnl::memory::data_type;
    using tag = dnnl::memory::format_tag;
    State& s = *state;
    const std::vector<double> key = {double(trans_a), double(trans_b), double(m),   double(n), double(k),
                                     alpha,           double(lda),     double(ldb), beta,      double(ldc)};
    auto it = s.plans.find(key);
    if (it == s.plans.end()) {
      Plan p;
      p.a_f32 = dnnl::memory::desc({m, k}, dt::f32, trans_a ? dnnl::memory::dims{1, lda} : dnnl::memory::dims{lda, 1});
      p.b_f32 = dnnl::memory::desc({k, n}, dt::f32, trans_b ? dnnl::memory::dims{1, ldb} : dnnl::memory::dims{ldb, 1});
      p.a_bf16 = dnnl::memory::desc({m, k}, dt::bf16, tag::ab);
      p.b_bf16 = dnnl::memory::desc({k, n}, dt::bf16, tag::ab);
      p.c_f32 = dnnl::memory::desc({m, n}, dt::f32, dnnl::memory::dims{ldc, 1});
      p.to_a = dnnl::reorder(dnnl::reorder::primitive_desc(s.engine, p.a_f32, s.engine, p.a_bf16));
      p.to_b = dnnl::reorder(dnnl::reorder::primitive_desc(s.engine, p.b_f32, s.engine, p.b_bf16));
      // C = alpha * A·B + beta * C: the scale, then the sum, as post-ops.
      dnnl::primitive_attr attr;
      dnnl::post_ops ops;
      if (alpha != 1.0f) append_scale(ops, alpha);
      if (beta != 0.0f) ops.append_sum(beta);
      if (ops.len() > 0) attr.set_post_ops(ops);
      const dnnl::matmul::primitive_desc pd = make_matmul(s.engine, p.a_bf16, p.b_bf16, p.c_f32, attr);
      p.implementation = pd.impl_info_str();
      p.matmul = dnnl::matmul(pd);
      it = s.plans.emplace(key, std::move(p)).first;
    }
    const Plan& p = it->second;
    if (s.operands.size() < static_cast<std::size_t>(m * k + k * n)) reserve_operands(m * k + k * n);
    dnnl::memory a16(p.a_bf16, s.engine, s.operands.data()), b16(p.b_bf16, s.engine, s.operands.data() + m * k);
    dnnl::memory a32(p.a_f32, s.engine, const_cast<float*>(a)), b32(p.b_f32, s.engine, const_cast<float*>(b));  // read only
    p.to_a.execute(s.stream, a32, a16);
    p.to_b.execute(s.stream, b32, b16);
    p.matmul.execute(s.stream,
                     {{DNNL_ARG_SRC, a16}, {DNNL_ARG_WEIGHTS, b16}, {DNNL_ARG_DST, dnnl::memory(p.c_f32, s.engine, c)}});
    s.stream.wait();
  }
};

}  // namespace ladder
