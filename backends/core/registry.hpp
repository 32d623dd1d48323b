// Every rung and peak probe, registered explicitly by its backend (no self-registering statics:
// a static library's linker may drop them). Names flow from here into cases, JSON and tables.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cpu_features.hpp"
#include "gemm.hpp"

namespace ladder {

// A register-only loop that shows how many FLOP/s one kind of unit delivers.
struct PeakProbe {
  std::string name;  // "avx512-fma"
  DType dtype = DType::f32;
  Isa isa = Isa::scalar;
  // Runs `iterations` of the loop on one thread; returns the FLOPs it did.
  double (*loop)(std::int64_t iterations) = nullptr;
};

struct Registry {
  std::vector<GemmRung> gemm;  // in ladder order: each rung removes one layer from the one above
  std::vector<PeakProbe> peak_probes;
  // Backends' own facts for the JSON context (library versions, configurations).
  std::vector<std::pair<std::string, std::function<std::string()>>> context;

  void add(GemmRung rung);
  void add(PeakProbe probe);
  const GemmRung* find_gemm(std::string_view name) const;
};

void register_cpu(Registry& registry);
void register_openblas(Registry& registry);
void register_onednn(Registry& registry);
void register_cuda(Registry& registry);

// The full registry of this build, in ladder order.
const Registry& registry();

}  // namespace ladder
