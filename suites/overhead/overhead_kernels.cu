// The overhead suite's GPU kernels: a chain of empty kernels, launched one by one or replayed as
// one CUDA graph (overhead_kernels.hpp); CUDA builds only.
#include <cuda_runtime.h>

#include <functional>
#include <memory>

#include "cuda/cuda_device.hpp"
#include "cuda/launch_shape.cuh"
#include "overhead_kernels.hpp"

namespace ladder::cuda {
namespace {

__global__ void empty_kernel() {}

}  // namespace

std::function<void()> empty_kernel_chain(int count, bool as_graph, void* stream) {
  cudaStream_t s = as_stream(stream);
  if (!as_graph)
    return [count, s] {
      for (int i = 0; i < count; ++i) empty_kernel<<<1, 1, 0, s>>>();
    };
  cudaGraph_t graph = nullptr;
  check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  for (int i = 0; i < count; ++i) empty_kernel<<<1, 1, 0, s>>>();
  check(cudaStreamEndCapture(s, &graph), "cudaStreamEndCapture");
  cudaGraphExec_t exec = nullptr;
  check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  cudaGraphDestroy(graph);
  std::shared_ptr<CUgraphExec_st> owned(exec, [](cudaGraphExec_t e) { cudaGraphExecDestroy(e); });
  return [owned, s] { check(cudaGraphLaunch(owned.get(), s), "cudaGraphLaunch"); };
}

}  // namespace ladder::cuda
