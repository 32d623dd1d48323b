// The GPU ladder: the same GEMM, verified against the same CPU reference, timed with CUDA
// events. Where no GPU or driver answers, every rung here reports the CUDA runtime's reason.
#include "../core/registry.hpp"
#include "cuda_device.hpp"

namespace ladder {

// Each rung's factory, in its numbered file.
#define LADDER_BACKEND(display, option)
#define LADDER_GEMM_RUNG(id, name, dtype, factory) GemmRung factory(const OptionalRung& rung);
#define LADDER_MODEL_RUNG(id, name, dtype)
#include "rungs.def"
#undef LADDER_BACKEND
#undef LADDER_GEMM_RUNG
#undef LADDER_MODEL_RUNG

void register_cuda(Registry& r) {
#define LADDER_RUNGS_DEF "cuda/rungs.def"
#include "core/add_gemm_rungs.inc"
  for (auto& [key, value] : cuda::device_context()) r.context.emplace_back(key, [value] { return value; });
}

}  // namespace ladder
