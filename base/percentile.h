// The p-th percentile of a sample, by linear interpolation between the closest ranks (numpy's
// default): the one definition of the step-time percentiles (analyzers/results/results.cc and
// the step summary of a sampled trace, trace/formats/kineto/kineto_step_sample.cc).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace ampscope {

// `sorted` ascending; each value is read as a double divided by `divisor` (1e3: ns as µs, as
// NsToUs does).
template <typename T>
double PercentileOfSorted(const std::vector<T>& sorted, double p, double divisor = 1.0) {
  if (sorted.empty()) return 0;
  const double pos = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double a = static_cast<double>(sorted[lo]) / divisor, b = static_cast<double>(sorted[hi]) / divisor;
  return a + (b - a) * (pos - static_cast<double>(lo));
}

inline double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return PercentileOfSorted(v, p);
}

}  // namespace ampscope
