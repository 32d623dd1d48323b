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
    // Backends register in ladder order within a dtype; the f32 ladder comes first, then the
    // bf16 rungs that continue it (amx from cpu/, then onednn-bf16).
    std::stable_sort(r.gemm.begin(), r.gemm.end(),
                     [](const GemmRung& x, const GemmRung& y) { return x.dtype < y.dtype; });
    return r;
  }();
  return all;
}

}  // namespace ladder
