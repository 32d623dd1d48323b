// Verification: a rung's output against the double-precision reference.
#pragma once
#include <cstdint>
#include <span>
#include <string>

namespace ladder {

struct Verdict {
  bool ok = false;
  double relative_error = 0;       // ||got - ref||_2 / ||ref||_2
  double worst_row_error = 0;      // the largest row's ||got - ref||_2 against a row's share of ||ref||_2
  double worst_element_error = 0;  // the largest |got - ref| against max(|ref|, its row's rms of ref)
  std::string message;             // why it failed; empty when ok
};

// Fails on NaN/Inf anywhere, on an all-zero output (where the reference is not), and on a
// relative L2 error above `tolerance`. With `row_length` > 0 it also fails where one row's error
// exceeds kRowToleranceFactor × tolerance, measured against the root-mean-square row of the
// reference: a fault confined to a few elements (a zeroed tile) is diluted in the global norm as n
// grows, but not in its row's. And every element is held to kElementToleranceFactor × tolerance of
// the larger of its reference's magnitude and its row's root-mean-square (an element near zero is
// no smaller a target than its row's typical one): one wrong element, which no norm over n
// elements can see at large n, fails (as benchdnn checks each element).
inline constexpr double kRowToleranceFactor = 4;
inline constexpr double kElementToleranceFactor = 4;
Verdict compare_to_reference(std::span<const float> got, std::span<const double> reference, double tolerance,
                             std::int64_t row_length = 0);

}  // namespace ladder
