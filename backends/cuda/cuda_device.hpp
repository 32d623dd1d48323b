// The CUDA device as the rungs and the context see it. Plain C++: callable without nvcc.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace ladder::cuda {

// The device the run uses: --device N among those CUDA_VISIBLE_DEVICES leaves (default 0).
// Called before anything else asks for the device; empty on success, else why not (no device
// answers, or N is not one of them).
std::string select_device(int index);
int device_index();
int device_count();  // the devices the runtime sees (after CUDA_VISIBLE_DEVICES); 0 on any error
// The selected device's PCI bus id ("0000:19:00.0"); empty where no device answers.
std::string pci_bus_id();

// Empty when the selected device answers; otherwise the CUDA runtime's own reason, in one line
// (e.g. "cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime version").
const std::string& unavailable_reason();

// Compute capability as major*10 + minor (75 for a T4, 80 for an A100, 90 for an H100/H200).
int compute_capability();

// The selected device's L2 cache in bytes; 0 where no device answers.
double l2_cache_bytes();

// The selected device's free memory now (cudaMemGetInfo); 0 where no device answers.
double free_memory_bytes();

// The selected device's properties and the driver, runtime and cuBLAS versions, for the JSON context.
std::vector<std::pair<std::string, std::string>> device_context();

// Throws std::runtime_error naming the call when a CUDA runtime call failed.
void check(int cuda_error, const char* what);

}  // namespace ladder::cuda
