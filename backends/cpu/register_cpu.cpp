// The CPU ladder in order: each rung removes one layer of cost from the one above it.
// A new rung: its file in this folder, its name in CMakeLists.txt, one line here.
#include "../core/registry.hpp"

namespace ladder {

GemmRung python_rung();
GemmRung boxed_rung();
GemmRung naive_rung();
GemmRung interchange_rung();
GemmRung autovec_rung();
GemmRung tiled_rung();
GemmRung parallel_rung();
GemmRung avx2_rung();
GemmRung avx512_rung();
GemmRung amx_rung();
void register_peak_probes(Registry& registry);

void register_cpu(Registry& r) {
  r.add(python_rung());
  r.add(boxed_rung());
  r.add(naive_rung());
  r.add(interchange_rung());
  r.add(autovec_rung());
  r.add(tiled_rung());
  r.add(parallel_rung());
  r.add(avx2_rung());
  r.add(avx512_rung());
  r.add(amx_rung());
  register_peak_probes(r);
}

}  // namespace ladder
