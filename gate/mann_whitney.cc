#include "gate/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ampscope::gate {

const char* MannWhitneyMethodName(MannWhitneyMethod method) {
  switch (method) {
    case MannWhitneyMethod::kExact:
      return "exact";
    case MannWhitneyMethod::kNormal:
      return "normal";
    case MannWhitneyMethod::kNotApplicable:
      break;
  }
  return "n/a";
}

double MannWhitneyExactUpperTail(int n_x, int n_y, double u) {
  if (n_x <= 0 || n_y <= 0) return 1.0;
  const int n = n_x + n_y;
  // ways[k][s]: number of k-element subsets of the ranks {1..r} (r grows in the outer loop)
  // whose rank sum is s. Under H0 every n_x-subset of {1..n} is equally likely to be x's ranks.
  const int max_sum = n_x * (2 * n - n_x + 1) / 2;  // sum of the n_x largest ranks
  std::vector<std::vector<double>> ways(n_x + 1, std::vector<double>(max_sum + 1, 0.0));
  ways[0][0] = 1.0;
  for (int r = 1; r <= n; ++r) {
    for (int k = std::min(r, n_x); k >= 1; --k) {
      std::vector<double>& row = ways[k];
      const std::vector<double>& prev = ways[k - 1];
      for (int s = max_sum; s >= r; --s) row[s] += prev[s - r];
    }
  }
  const int min_sum = n_x * (n_x + 1) / 2;
  // U = rank sum - min_sum; P(U >= u) = P(rank sum >= u + min_sum). U is an integer without ties.
  const int first = min_sum + static_cast<int>(std::ceil(u - 1e-9));
  double upper = 0, total = 0;
  for (int s = min_sum; s <= max_sum; ++s) {
    total += ways[n_x][s];
    if (s >= first) upper += ways[n_x][s];
  }
  if (first <= min_sum) return 1.0;
  return total > 0 ? upper / total : 1.0;
}

MannWhitneyResult MannWhitneyGreater(const std::vector<double>& x, const std::vector<double>& y,
                                     const MannWhitneyOptions& options) {
  MannWhitneyResult result;
  result.n_x = static_cast<int>(x.size());
  result.n_y = static_cast<int>(y.size());
  if (x.empty() || y.empty()) return result;

  // Pool, sort, and give tied values their mean rank (midrank).
  struct Item {
    double value;
    bool from_x;
  };
  std::vector<Item> pooled;
  pooled.reserve(x.size() + y.size());
  for (double v : x) pooled.push_back({v, true});
  for (double v : y) pooled.push_back({v, false});
  std::sort(pooled.begin(), pooled.end(), [](const Item& a, const Item& b) { return a.value < b.value; });

  const double n = static_cast<double>(pooled.size());
  double rank_sum_x = 0;
  double tie_term = 0;  // sum over tie groups of t^3 - t
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i + 1;
    while (j < pooled.size() && pooled[j].value == pooled[i].value) ++j;
    const double t = static_cast<double>(j - i);
    const double midrank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (size_t k = i; k < j; ++k)
      if (pooled[k].from_x) rank_sum_x += midrank;
    if (t > 1) {
      tie_term += t * t * t - t;
      result.ties = true;
    }
    i = j;
  }

  const double n_x = static_cast<double>(x.size());
  const double n_y = static_cast<double>(y.size());
  result.u = rank_sum_x - n_x * (n_x + 1) / 2.0;

  if (!result.ties && result.n_x <= options.max_exact_n && result.n_y <= options.max_exact_n) {
    result.method = MannWhitneyMethod::kExact;
    result.p_value = MannWhitneyExactUpperTail(result.n_x, result.n_y, result.u);
    return result;
  }

  result.method = MannWhitneyMethod::kNormal;
  const double mean_u = n_x * n_y / 2.0;
  const double variance = n_x * n_y / 12.0 * ((n + 1) - tie_term / (n * (n - 1)));
  if (!(variance > 0)) {
    // Every value is the same: the samples carry no evidence of a shift.
    result.p_value = 1.0;
    return result;
  }
  double numerator = result.u - mean_u;
  if (options.continuity_correction) numerator -= 0.5;
  result.z = numerator / std::sqrt(variance);
  result.p_value = 0.5 * std::erfc(result.z / std::sqrt(2.0));  // 1 - Phi(z)
  result.p_value = std::clamp(result.p_value, 0.0, 1.0);
  return result;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  double lower = *std::max_element(values.begin(), values.begin() + mid);
  return (lower + upper) / 2.0;
}

}  // namespace ampscope::gate
