// The GPU ladder: the same GEMM, verified against the same CPU reference, timed with CUDA
// events. Where no GPU or driver answers, every rung here reports the CUDA runtime's reason.
#include "../core/registry.hpp"
#include "cuda_device.hpp"

namespace ladder {

GemmRung cuda_naive_rung();
GemmRung cuda_tiled_rung();
GemmRung cuda_regtile_rung();
GemmRung cuda_warptile_rung();
GemmRung cublas_rung(const OptionalRung& which);
GemmRung cuda_mma_f16_rung();
GemmRung cuda_mma_bf16_rung();

void register_cuda(Registry& r) {
  r.add(cuda_naive_rung());
  r.add(cuda_tiled_rung());
  r.add(cuda_regtile_rung());
  r.add(cuda_warptile_rung());
  namespace o = optional_rung;
  r.add(cublas_rung(o::cublas));
  r.add(cublas_rung(o::cublas_tf32));
  // Each hand-written tensor-core rung just below cuBLAS in its format: the pair is the lesson.
  r.add(cuda_mma_f16_rung());
  r.add(cublas_rung(o::cublas_f16));
  r.add(cuda_mma_bf16_rung());
  r.add(cublas_rung(o::cublas_bf16));
  for (auto& [key, value] : cuda::device_context()) r.context.emplace_back(key, [value] { return value; });
}

}  // namespace ladder
