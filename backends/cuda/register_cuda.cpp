// The GPU ladder: the same GEMM, verified against the same CPU reference, timed with CUDA
// events. Where no GPU or driver answers, every rung here reports the CUDA runtime's reason.
#include "../core/registry.hpp"
#include "cuda_device.hpp"

namespace ladder {

GemmRung cuda_naive_rung();
GemmRung cuda_tiled_rung();
GemmRung cuda_regtile_rung();
void add_cublas_rungs(Registry& registry);

void register_cuda(Registry& r) {
  r.add(cuda_naive_rung());
  r.add(cuda_tiled_rung());
  r.add(cuda_regtile_rung());
  add_cublas_rungs(r);
  for (auto& [key, value] : cuda::device_context()) r.context.emplace_back(key, [value] { return value; });
}

}  // namespace ladder
