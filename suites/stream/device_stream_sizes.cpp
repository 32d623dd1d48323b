#include "device_stream_sizes.hpp"

namespace ladder {

std::vector<DeviceStreamSize> device_stream_sizes(Profile profile, double l2_bytes, int element_bytes, int arrays,
                                                  double usable_bytes) {
  auto size = [&](double bytes) {
    const auto elements = static_cast<std::int64_t>(bytes / element_bytes);
    return DeviceStreamSize{elements, l2_bytes > 0 ? static_cast<double>(elements) * element_bytes / l2_bytes : 0};
  };
  if (profile == Profile::smoke) return {size(static_cast<double>((1 << 16) + 6) * element_bytes)};
  std::vector<double> multiples = {8};
  if (profile == Profile::full) multiples = {0.125, 0.25, 0.5, 1, 2, 4, 8};
  std::vector<DeviceStreamSize> sizes;
  for (double multiple : multiples) {
    const double bytes = l2_bytes > 0 ? multiple * l2_bytes : static_cast<double>(std::int64_t{1} << 28);
    if (usable_bytes > 0 && bytes * arrays > usable_bytes) continue;
    sizes.push_back(size(bytes));
    if (l2_bytes <= 0) break;
  }
  return sizes;
}

}  // namespace ladder
