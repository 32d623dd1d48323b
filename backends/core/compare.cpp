#include "compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ladder {

Verdict compare_to_reference(std::span<const float> got, std::span<const double> reference, double tolerance,
                             std::int64_t row_length) {
  Verdict v;
  if (got.size() != reference.size()) {
    v.message = fmt::format("output has {} elements, the reference {}", got.size(), reference.size());
    return v;
  }
  const std::size_t row = row_length > 0 && got.size() % static_cast<std::size_t>(row_length) == 0
                              ? static_cast<std::size_t>(row_length)
                              : got.size();
  double diff2 = 0, ref2 = 0, got2 = 0, worst_row_diff2 = 0;
  std::size_t worst_row = 0, worst_element = 0;
  for (std::size_t start = 0; start < got.size(); start += row) {
    double row_diff2 = 0, row_ref2 = 0;
    for (std::size_t i = start; i < start + row; ++i) row_ref2 += reference[i] * reference[i];
    const double row_rms = std::sqrt(row_ref2 / static_cast<double>(row));
    for (std::size_t i = start; i < start + row; ++i) {
      double g = got[i];
      if (!std::isfinite(g)) {
        v.message = fmt::format("output element {} is {} (not finite)", i, g);
        return v;
      }
      double d = g - reference[i];
      row_diff2 += d * d;
      got2 += g * g;
      if (const double scale = std::max(std::fabs(reference[i]), row_rms);
          scale > 0 && std::fabs(d) / scale > v.worst_element_error) {
        v.worst_element_error = std::fabs(d) / scale;
        worst_element = i;
      }
    }
    ref2 += row_ref2;
    diff2 += row_diff2;
    if (row_diff2 > worst_row_diff2) {
      worst_row_diff2 = row_diff2;
      worst_row = start / row;
    }
  }
  if (got2 == 0 && ref2 != 0) {
    v.message = "output is all zero";
    return v;
  }
  v.relative_error = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  const std::size_t whole_rows = got.size() / row;  // the output holds whole rows
  const auto rows = static_cast<double>(whole_rows);
  v.worst_row_error = ref2 > 0 ? std::sqrt(worst_row_diff2 * rows / ref2) : std::sqrt(worst_row_diff2);
  if (!(v.relative_error <= tolerance)) {
    v.message = fmt::format("relative L2 error {:.3g} exceeds the tolerance {:.0e}", v.relative_error, tolerance);
    return v;
  }
  if (row < got.size() && !(v.worst_row_error <= kRowToleranceFactor * tolerance)) {
    v.message = fmt::format("row {}'s error {:.3g} exceeds {:g} x the tolerance {:.0e} (a fault confined to part of the output)",
                            worst_row, v.worst_row_error, kRowToleranceFactor, tolerance);
    return v;
  }
  if (row < got.size() && !(v.worst_element_error <= kElementToleranceFactor * tolerance)) {
    v.message =
        fmt::format("element {} (row {}, column {}) is {:.9g}, not {:.9g}: off by {:.3g}, over {:g} x the tolerance {:.0e}",
                    worst_element, worst_element / row, worst_element % row, got[worst_element], reference[worst_element],
                    v.worst_element_error, kElementToleranceFactor, tolerance);
    return v;
  }
  v.ok = true;
  return v;
}

}  // namespace ladder
