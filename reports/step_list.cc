#include "reports/step_list.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ampscope {

std::vector<size_t> ListedStepPositions(const std::vector<double>& durations) {
  const size_t n = durations.size();
  std::vector<size_t> all(n);
  std::iota(all.begin(), all.end(), size_t{0});
  if (n <= kMaxListedSteps) return all;
  // The middle steps, longest first (ties: the earlier step), then the first kListedLongest.
  std::vector<size_t> middle(all.begin() + kListedHead, all.end() - kListedTail);
  auto key = [&](size_t i) { return std::isfinite(durations[i]) ? durations[i] : -INFINITY; };
  std::partial_sort(middle.begin(), middle.begin() + kListedLongest, middle.end(), [&](size_t a, size_t b) {
    return key(a) != key(b) ? key(a) > key(b) : a < b;
  });
  middle.resize(kListedLongest);
  std::vector<size_t> out(all.begin(), all.begin() + kListedHead);
  std::sort(middle.begin(), middle.end());
  out.insert(out.end(), middle.begin(), middle.end());
  out.insert(out.end(), all.end() - kListedTail, all.end());
  return out;
}

nlohmann::json ListedStepsJson(size_t total, size_t listed) {
  return {{"count", total},
          {"listed", listed},
          {"truncated", listed < total},
          {"rule", "every step up to " + std::to_string(kMaxListedSteps) + "; beyond, the first " +
                       std::to_string(kListedHead) + ", the last " + std::to_string(kListedTail) + " and the " +
                       std::to_string(kListedLongest) + " longest of the others, in step order"}};
}

}  // namespace ampscope
