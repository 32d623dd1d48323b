// Rungs onednn and onednn-bf16: oneDNN's matmul primitive, created once per problem (outside
// the timing), picking a JIT-generated kernel for this CPU's ISA:
// AVX-512 for f32; for bf16, AMX tiles where the CPU has them, else AVX512_BF16 dot products.
// The implementation it chose is in each result's label.
// Rungs onednn-packed and onednn-bf16-packed, each above its row-major twin: what changed is B's
// layout, the one oneDNN picks for the kernel (blocked panels it streams without re-packing on
// every call), reordered once outside the timing; that should be faster by the packing the
// row-major rung repeats on every call.
#include <oneapi/dnnl/dnnl.hpp>

#include <chrono>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "../core/cpu_features.hpp"
#include "../core/registry.hpp"
#include "onednn_support.hpp"

namespace ladder {
namespace {

std::string onednn_version() {
  const dnnl_version_t* v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

// `packed`: the weights (B) in the layout oneDNN picks for this matmul (format_tag::any), put
// there by a reorder once, outside the timing, as a library user's weights are prepared once; the
// reorder's time is a counter of its own. The pair (row-major, packed) shows what layout buys.
class OnednnMatmul final : public GemmKernel {
 public:
  OnednnMatmul(const GemmOperands& op, DType dtype, bool packed) : engine_(onednn_cpu_engine()), stream_(engine_) {
    using tag = dnnl::memory::format_tag;
    using dt = dnnl::memory::data_type;
    const dt input = dtype == DType::bf16 ? dt::bf16 : dt::f32;
    const dnnl::memory::dims shape = {op.n, op.n};
    dnnl::memory::desc a_md(shape, input, tag::ab), b_md(shape, input, tag::ab), c_md(shape, dt::f32, tag::ab);
    const dnnl::memory::desc weights_md = packed ? dnnl::memory::desc(shape, input, tag::any) : b_md;
    const dnnl::matmul::primitive_desc pd = make_matmul(engine_, a_md, weights_md, c_md);
    implementation_ = pd.impl_info_str();
    matmul_ = dnnl::matmul(pd);
    void* a = const_cast<void*>(dtype == DType::bf16 ? static_cast<const void*>(op.a_bf16) : op.a);
    void* b = const_cast<void*>(dtype == DType::bf16 ? static_cast<const void*>(op.b_bf16) : op.b);
    dnnl::memory b_memory(b_md, engine_, b);
    if (packed && pd.weights_desc() != b_md) {
      weights_ = dnnl::memory(pd.weights_desc(), engine_);
      const auto start = std::chrono::steady_clock::now();
      dnnl::reorder(b_memory, weights_).execute(stream_, b_memory, weights_);
      stream_.wait();
      reorder_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      layout_ = "; B reordered once into oneDNN's layout";
    } else {
      weights_ = b_memory;
      if (packed) layout_ = "; oneDNN kept B row-major";
    }
    args_ = {{DNNL_ARG_SRC, dnnl::memory(a_md, engine_, a)},
             {DNNL_ARG_WEIGHTS, weights_},
             {DNNL_ARG_DST, dnnl::memory(c_md, engine_, op.c)}};
  }
  void run() override {
    matmul_.execute(stream_, args_);
    stream_.wait();
  }
  std::string label() const override { return "oneDNN " + implementation_ + layout_; }
  std::vector<std::pair<std::string, double>> counters() const override {
    if (layout_.empty()) return {};
    return {{"reorder_seconds", reorder_seconds_}};  // B into oneDNN's layout, once, not timed
  }

 private:
  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::matmul matmul_;
  dnnl::memory weights_;
  std::unordered_map<int, dnnl::memory> args_;
  std::string implementation_, layout_;
  double reorder_seconds_ = 0;
};

GemmRung onednn_matmul_rung(const OptionalRung& line, bool packed) {
  GemmRung rung;
  namespace o = optional_rung;
  const DType dtype = line.dtype;
  rung.name = line.name;
  rung.dtype = dtype;
  rung.threading = Threading::all_cores;
  rung.picks_own_threads = true;  // its parallel() runs small work on the calling thread
  rung.small_gemm_sweep = !packed;
  if (packed) rung.rivals = {{dtype == DType::bf16 ? o::onednn_bf16.name : o::onednn.name, ""}};  // the layout's gain
  // oneDNN's bf16 runs on AMX tiles where the CPU has them (and no cap forbids them), else on
  // AVX512-BF16 dot products: vector instructions, no matrix unit.
  const Mechanism bf16_mechanism =
      isa_unavailable_reason(Isa::amx).empty() ? Mechanism::matrix_units : Mechanism::bf16_dot_products;
  rung.mechanism = packed ? Mechanism::layout : dtype == DType::bf16 ? bf16_mechanism : Mechanism::tuned_library;
  rung.unit = Unit::fastest;  // AMX tiles, AVX512-BF16 dot products or FMA units: the library picks
  rung.traffic = compulsory_traffic_only;
  // The packed rungs over their unpacked selves; bf16 over oneDNN's f32; f32 over the best hand-written kernel.
  rung.parent = packed                 ? std::string(dtype == DType::bf16 ? o::onednn_bf16.name : o::onednn.name)
                : dtype == DType::bf16 ? std::string(o::onednn.name)
                                       : std::string("avx512|avx2");
  const std::string what =
      dtype == DType::bf16 ? "oneDNN matmul, bf16 in, f32 out (AMX or AVX512_BF16)" : "oneDNN matmul f32 (JIT for this ISA)";
  rung.summary = what + (packed ? ", B reordered once into the layout oneDNN picks (outside the timing)" : "") + ", all cores";
  if (dtype == DType::bf16) rung.unavailable_reason = [] { return onednn_bf16_unavailable_reason(); };
  rung.prepare = [dtype, packed](const GemmOperands& op) {
    return std::unique_ptr<GemmKernel>(std::make_unique<OnednnMatmul>(op, dtype, packed));
  };
  return rung;
}

}  // namespace

dnnl::engine onednn_cpu_engine() {
  static const bool capped = [] {
    switch (max_isa()) {
      case Isa::scalar:
        dnnl::set_max_cpu_isa(dnnl::cpu_isa::sse41);
        break;  // oneDNN's lowest
      case Isa::avx2:
        dnnl::set_max_cpu_isa(dnnl::cpu_isa::avx2);
        break;
      case Isa::avx512:
        dnnl::set_max_cpu_isa(dnnl::cpu_isa::avx512_core_vnni);
        break;  // no bf16
      case Isa::avx512_bf16:
        dnnl::set_max_cpu_isa(dnnl::cpu_isa::avx512_core_bf16);
        break;
      case Isa::amx:
        break;  // no cap
    }
    return true;
  }();
  (void)capped;
  return dnnl::engine(dnnl::engine::kind::cpu, 0);
}

const std::string& onednn_bf16_unavailable_reason() {
  // The smallest real call, not only the primitive's creation: a 16x16 product of small integers
  // (exact in bf16 and in its f32 sums), run once and checked element by element.
  static const std::string reason = [] {
    constexpr std::int64_t n = 16;
    std::vector<bf16> a(n * n), b(n * n);
    std::vector<float> c(n * n, std::numeric_limits<float>::quiet_NaN());
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        a[i * n + j] = to_bf16(static_cast<float>((i + j) % 5 - 2));
        b[i * n + j] = to_bf16(static_cast<float>((i * j) % 3 - 1));
      }
    try {
      OnednnMatmul matmul({n, nullptr, nullptr, a.data(), b.data(), nullptr, nullptr, c.data()}, DType::bf16, false);
      matmul.run();
    } catch (const dnnl::error& e) {
      const std::string cap = max_isa() == Isa::amx ? "" : " capped at LADDER_MAX_ISA=" + std::string(isa_name(max_isa()));
      return "oneDNN " + onednn_version() + " has no bf16 matmul for this CPU" + cap + " (" + e.what() + ")";
    }
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        float want = 0;
        for (std::int64_t k = 0; k < n; ++k) want += to_float(a[i * n + k]) * to_float(b[k * n + j]);
        if (c[i * n + j] != want)
          return "oneDNN " + onednn_version() + "'s bf16 matmul gave a wrong result at n = 16 (C[" + std::to_string(i) + "][" +
                 std::to_string(j) + "] = " + std::to_string(c[i * n + j]) + ", not " + std::to_string(want) + ")";
      }
    return std::string();
  }();
  return reason;
}

// Its rungs.def's factories: the matmul on the operands as they come, and on B reordered ahead of time.
GemmRung onednn_rung(const OptionalRung& line) { return onednn_matmul_rung(line, false); }
GemmRung onednn_packed_rung(const OptionalRung& line) { return onednn_matmul_rung(line, true); }

void register_onednn(Registry& r) {
#define LADDER_RUNGS_DEF "onednn/rungs.def"
#include "core/add_gemm_rungs.inc"
  // The ISA its JIT generates code for here, after LADDER_MAX_ISA's cap (the engine applies it).
  r.context.emplace_back("onednn_isa", [] {
    onednn_cpu_engine();
    using isa = dnnl::cpu_isa;
    static constexpr std::pair<isa, const char*> kNames[] = {{isa::sse41, "sse41"},
                                                             {isa::avx, "avx"},
                                                             {isa::avx2, "avx2"},
                                                             {isa::avx2_vnni, "avx2_vnni"},
                                                             {isa::avx512_core, "avx512_core"},
                                                             {isa::avx512_core_vnni, "avx512_core_vnni"},
                                                             {isa::avx512_core_bf16, "avx512_core_bf16"},
                                                             {isa::avx512_core_amx, "avx512_core_amx"}};
    const isa effective = dnnl::get_effective_cpu_isa();
    for (const auto& [value, name] : kNames)
      if (value == effective) return std::string(name);
    return "oneDNN's cpu_isa " + std::to_string(static_cast<int>(effective));
  });
  r.context.emplace_back("onednn_version", [] {
    const dnnl_version_t* v = dnnl_version();
    return onednn_version() + " (" + v->hash + ", cpu runtime " + (v->cpu_runtime == DNNL_RUNTIME_OMP ? "omp" : "other") + ")";
  });
}

}  // namespace ladder
