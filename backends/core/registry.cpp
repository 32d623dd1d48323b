#include "registry.hpp"

#include <mutex>
#include <set>

#include <algorithm>
#include <stdexcept>

namespace ladder {

namespace {
std::mutex g_software_mutex;
std::vector<std::pair<std::string, std::string>> g_software;
std::size_t g_software_taken = 0;
}  // namespace

void record_software(const std::string& key, const std::string& value) {
  std::lock_guard lock(g_software_mutex);
  const std::string full = "software/" + key;
  for (const auto& [k, v] : g_software)
    if (k == full) return;
  g_software.emplace_back(full, value);
}

std::vector<std::pair<std::string, std::string>> take_software_context() {
  std::lock_guard lock(g_software_mutex);
  std::vector<std::pair<std::string, std::string>> fresh(g_software.begin() + static_cast<std::ptrdiff_t>(g_software_taken),
                                                         g_software.end());
  g_software_taken = g_software.size();
  return fresh;
}

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

const std::vector<OptionalRung>& optional_rungs() {
  static const std::vector<OptionalRung> all = {
#define LADDER_BACKEND(display, option)
#define LADDER_GEMM_RUNG(id, name, dtype, factory) optional_rung::id,
#define LADDER_MODEL_RUNG(id, name, dtype) optional_rung::id,
#include "optional_backends.inc"
#undef LADDER_BACKEND
#undef LADDER_GEMM_RUNG
#undef LADDER_MODEL_RUNG
  };
  return all;
}

namespace {
struct BackendFacts {
  const char* name;    // "OpenBLAS"
  const char* option;  // its CMake option, "LADDER_WITH_OPENBLAS"
  bool built;
};
const BackendFacts& facts(OptionalBackend backend) {
  static constexpr BackendFacts all[] = {
#define LADDER_BACKEND(display, option) {display, option, LADDER_BACKEND_BUILT},
#define LADDER_GEMM_RUNG(id, name, dtype, factory)
#define LADDER_MODEL_RUNG(id, name, dtype)
#include "optional_backends.inc"
#undef LADDER_BACKEND
#undef LADDER_GEMM_RUNG
#undef LADDER_MODEL_RUNG
  };
  return all[static_cast<int>(backend)];
}

void register_built_backends(Registry& registry) {
#include "backend_registrations.inc"
  (void)registry;
}
}  // namespace

bool backend_built(OptionalBackend backend) { return facts(backend).built; }

std::string not_built_reason(OptionalBackend backend) {
  return std::string("this build has no ") + facts(backend).name + " backend (" + facts(backend).option +
         "=OFF, or AUTO did not find it when configured)";
}

std::string not_built_summary(OptionalBackend backend) {
  return std::string("a rung of the ") + facts(backend).name + " backend, which this build left out";
}

const Registry& registry() {
  static const Registry all = [] {
    Registry r;
    register_cpu(r);
    register_built_backends(r);
    register_python(r);
    for (const auto& o : optional_rungs()) {
      if (o.kind != RungKind::gemm || backend_built(o.backend)) continue;
      GemmRung placeholder;
      placeholder.name = o.name;
      placeholder.dtype = o.dtype;
      placeholder.threading = o.threading();
      placeholder.mechanism = Mechanism::not_built;
      placeholder.unit = o.threading() == Threading::device ? gpu_unit(o.dtype) : Unit::fastest;
      placeholder.traffic = compulsory_traffic_only;
      placeholder.summary = not_built_summary(o.backend);
      placeholder.unavailable_reason = [reason = not_built_reason(o.backend)] { return reason; };
      placeholder.prepare = [](const GemmOperands&) -> std::unique_ptr<GemmKernel> {
        throw std::logic_error("a rung of a backend this build left out was prepared");
      };
      r.add(std::move(placeholder));
    }
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

std::string openblas_core_for(const std::string& detected, bool avx2, bool avx512) {
  // Cores older than AVX: what OpenBLAS (0.3.21 on an Emerald Rapids VM) falls back to when it
  // does not know the CPU model; its kernels there ran 5x below oneDNN.
  static const std::set<std::string> pre_avx = {"Prescott", "Katmai",     "Coppermine", "Northwood", "Banias",     "Core2",
                                                "Penryn",   "Dunnington", "Nehalem",    "Atom",      "Sandybridge"};
  if (!pre_avx.count(detected)) return {};
  if (avx512) return "SkylakeX";
  return avx2 ? "Haswell" : "";
}

}  // namespace ladder
