// The overhead suite's GPU kernels (overhead_kernels.cu, CUDA builds only).
#pragma once
#include <functional>

namespace ladder::cuda {

// A chain of `count` empty kernels on `stream`: launched one by one, or captured once into a
// CUDA graph and replayed. The returned function enqueues one chain.
std::function<void()> empty_kernel_chain(int count, bool as_graph, void* stream);

}  // namespace ladder::cuda
