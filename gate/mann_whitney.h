// One-sided Mann-Whitney U (Wilcoxon rank-sum) test, used by the gate to decide whether per-step
// times of the current run are significantly larger than the baseline's.
//
// Conventions follow scipy.stats.mannwhitneyu(x, y, alternative="greater"):
//   U = R_x - n_x (n_x + 1) / 2, where R_x is the sum of the (mid)ranks of x in the pooled sample;
//   p = P(U' >= U) under H0 (both samples from one distribution).
// Method:
//   exact  when there are no ties and n_x, n_y <= max_exact_n: the null distribution of U is
//          enumerated exactly (count of rank subsets by rank sum);
//   normal otherwise: z = (U - n_x n_y / 2 - 0.5) / sigma, with the tie-corrected variance
//          sigma^2 = n_x n_y / 12 * ((N + 1) - sum(t^3 - t) / (N (N - 1))) and a continuity
//          correction of 0.5; p = 1 - Phi(z).
#pragma once

#include <string>
#include <vector>

namespace ampscope::gate {

enum class MannWhitneyMethod { kExact, kNormal, kNotApplicable };

const char* MannWhitneyMethodName(MannWhitneyMethod method);

struct MannWhitneyOptions {
  // Largest sample size (each side) for the exact distribution. Up to 20 per side the counts are
  // below C(40, 20) ~ 1.4e11 and exact in a double; the normal approximation is already close there.
  int max_exact_n = 20;
  bool continuity_correction = true;
};

struct MannWhitneyResult {
  double u = 0;        // U of x (the sample tested for being larger)
  double p_value = 1;  // one-sided, H1: x stochastically greater than y
  double z = 0;        // normal method only; 0 otherwise
  MannWhitneyMethod method = MannWhitneyMethod::kNotApplicable;
  bool ties = false;   // some value occurs more than once in the pooled sample
  int n_x = 0;
  int n_y = 0;
};

// H1: values in x tend to be larger than values in y. Empty x or y gives p = 1 and
// method kNotApplicable (no evidence either way).
MannWhitneyResult MannWhitneyGreater(const std::vector<double>& x, const std::vector<double>& y,
                                     const MannWhitneyOptions& options = {});

// Exact upper tail P(U >= u) of the null distribution for sample sizes n_x, n_y without ties
// (exposed for tests: table critical values can be checked directly).
double MannWhitneyExactUpperTail(int n_x, int n_y, double u);

// Median (mean of the two middle values for an even count). Empty input gives 0.
double Median(std::vector<double> values);

}  // namespace ampscope::gate
