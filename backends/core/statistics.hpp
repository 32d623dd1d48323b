// The few statistics the program takes of repeated measurements: the read sweep's plateaus, a GPU
// case's telemetry samples, and a case's repetitions across adaptive rounds.
#pragma once
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace ladder {

// The middle value (the mean of the two middle ones for an even count); 0 for none.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

inline double mean(const std::vector<double>& v) {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// The sample standard deviation (n - 1 in the denominator, as Google Benchmark's); 0 below two.
inline double sample_stddev(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = mean(v);
  double sum = 0;
  for (double x : v) sum += (x - m) * (x - m);
  return std::sqrt(sum / static_cast<double>(v.size() - 1));
}

}  // namespace ladder
