// Verification: a rung's output against the double-precision reference.
#pragma once
#include <span>
#include <string>

namespace ladder {

struct Verdict {
  bool ok = false;
  double relative_error = 0;  // ||got - ref||_2 / ||ref||_2
  std::string message;        // why it failed; empty when ok
};

// Fails on NaN/Inf anywhere, on an all-zero output (where the reference is not), and on a
// relative L2 error above `tolerance`.
Verdict compare_to_reference(std::span<const float> got, std::span<const double> reference,
                             double tolerance);

}  // namespace ladder
