#include "compare.hpp"

#include <fmt/format.h>

#include <cmath>

namespace ladder {

Verdict compare_to_reference(std::span<const float> got, std::span<const double> reference,
                             double tolerance) {
  Verdict v;
  if (got.size() != reference.size()) {
    v.message = fmt::format("output has {} elements, the reference {}", got.size(), reference.size());
    return v;
  }
  double diff2 = 0, ref2 = 0, got2 = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    double g = got[i];
    if (!std::isfinite(g)) {
      v.message = fmt::format("output element {} is {} (not finite)", i, g);
      return v;
    }
    double d = g - reference[i];
    diff2 += d * d;
    ref2 += reference[i] * reference[i];
    got2 += g * g;
  }
  if (got2 == 0 && ref2 != 0) {
    v.message = "output is all zero";
    return v;
  }
  v.relative_error = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  if (!(v.relative_error <= tolerance)) {
    v.message = fmt::format("relative L2 error {:.3g} exceeds the tolerance {:.0e}",
                            v.relative_error, tolerance);
    return v;
  }
  v.ok = true;
  return v;
}

}  // namespace ladder
