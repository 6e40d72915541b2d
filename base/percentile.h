// The p-th percentile of a sample, by linear interpolation between the closest ranks (numpy's
// default): the one definition of the step-time percentiles (analyzers/results/results.cc and
// the step summary of a sampled trace, trace/formats/kineto/kineto_step_sample.cc).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace ampscope {

inline double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = p / 100.0 * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace ampscope
