// The CPU ladder in order (cpu_rungs.def): each rung removes one layer of cost from the one above
// it; then the peak probes that measure the units the rungs run on.
#include "../core/registry.hpp"

namespace ladder {

#define LADDER_CPU_RUNG(factory) GemmRung factory();
#include "cpu_rungs.def"
#undef LADDER_CPU_RUNG
void register_peak_probes(Registry& registry);

void register_cpu(Registry& r) {
#define LADDER_CPU_RUNG(factory) r.add(factory());
#include "cpu_rungs.def"
#undef LADDER_CPU_RUNG
  register_peak_probes(r);
}

}  // namespace ladder
