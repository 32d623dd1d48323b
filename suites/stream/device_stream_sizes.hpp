// The device STREAM's array lengths, each a stated multiple of the GPU's L2: eight times L2 by
// default (STREAM's rule is four times the caches; a GPU's L2 keeps part of a smaller array
// between calls), and in the full profile a sweep from L2/8 to 8×L2 in octaves, so that the step
// from L2 to device memory shows. Host code: it needs only L2's size and the memory to spare.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/profile.hpp"

namespace ladder {

struct DeviceStreamSize {
  std::int64_t elements = 0;
  double of_l2 = 0;  // each array's bytes over L2's (0 where L2's size is unknown)
};

// `arrays`: how many arrays of that length the kernel needs at once (3 for triad); a size whose
// arrays would not fit in `usable_bytes` (where known: above 0) is left out. Where L2's size is
// unknown (0), one size of 256 MiB an array. The smoke profile: one tiny size, for tests.
std::vector<DeviceStreamSize> device_stream_sizes(Profile profile, double l2_bytes, int element_bytes, int arrays,
                                                  double usable_bytes);

}  // namespace ladder
