#include "registry.hpp"

#include <algorithm>
#include <stdexcept>

namespace ladder {

void Registry::add(GemmRung rung) {
  if (find_gemm(rung.name)) throw std::logic_error("gemm rung registered twice: " + rung.name);
  if (!rung.prepare) throw std::logic_error("gemm rung without prepare(): " + rung.name);
  gemm.push_back(std::move(rung));
}

void Registry::add(PeakProbe probe) { peak_probes.push_back(std::move(probe)); }

const GemmRung* Registry::find_gemm(std::string_view name) const {
  for (const auto& r : gemm)
    if (r.name == name) return &r;
  return nullptr;
}

const Registry& registry() {
  static const Registry all = [] {
    Registry r;
    register_cpu(r);
#ifdef LADDER_HAVE_OPENBLAS
    register_openblas(r);
#endif
#ifdef LADDER_HAVE_ONEDNN
    register_onednn(r);
#endif
#ifdef LADDER_HAVE_CUDA
    register_cuda(r);
#endif
    // Backends register in ladder order within a device and dtype. The CPU's f32 ladder comes
    // first, then the bf16 rungs that continue it (amx from cpu/, then onednn-bf16); then the
    // GPU's: f32, tf32, f16, bf16 — each step a cheaper number format on the same device.
    auto rank = [](const GemmRung& g) {
      constexpr DType order[] = {DType::f32, DType::tf32, DType::f16, DType::bf16, DType::f64};
      int dtype_rank = static_cast<int>(std::find(std::begin(order), std::end(order), g.dtype) - std::begin(order));
      return std::pair{g.threading == Threading::device ? 1 : 0, dtype_rank};
    };
    std::stable_sort(r.gemm.begin(), r.gemm.end(), [&](const GemmRung& x, const GemmRung& y) { return rank(x) < rank(y); });
    return r;
  }();
  return all;
}

}  // namespace ladder
