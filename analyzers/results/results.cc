#include "analyzers/results/results.h"

#include <algorithm>
#include <cmath>

#include "analyzers/results/analysis.h"
#include "base/units.h"

namespace ampscope {

namespace {

// Linear interpolation between closest ranks (numpy's default percentile).
double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double pos = p / 100.0 * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

StepStats ComputeStepStats(const StepAnalysis& steps) {
  StepStats s;
  for (const StepWindow& w : steps.steps) s.durations_us.push_back(NsToUs(w.duration_ns()));
  if (s.durations_us.empty()) return s;
  double sum = 0;
  for (double d : s.durations_us) sum += d;
  s.mean_us = sum / s.durations_us.size();
  s.median_us = Percentile(s.durations_us, 50);
  s.p90_us = Percentile(s.durations_us, 90);
  s.min_us = *std::min_element(s.durations_us.begin(), s.durations_us.end());
  s.max_us = *std::max_element(s.durations_us.begin(), s.durations_us.end());
  return s;
}

}  // namespace ampscope
