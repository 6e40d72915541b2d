// Mann-Whitney U: checked against hand calculation, published critical-value tables, and
// scipy 1.10.1 (Debian python3-scipy):
//   scipy.stats.mannwhitneyu(x, y, alternative="greater", method="exact" | "asymptotic")
// ("asymptotic" uses the tie-corrected variance and a 0.5 continuity correction, as we do).
#include "gate/mann_whitney.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace ampscope::gate {
namespace mann_whitney_test {
namespace {

// Relative tolerance for p-values quoted from scipy with 16 significant digits.
void ExpectP(double expected, double actual) { EXPECT_NEAR(actual, expected, expected * 1e-9 + 1e-15); }

TEST(MannWhitneyTest, HandComputedTinySamples) {
  // n=2+2: the 6 equally likely rank pairs for x have rank sums 3,4,5,5,6,7, i.e. U = 0,1,2,2,3,4.
  // x={3,4} above y={1,2}: U=4, P(U>=4) = 1/6.
  MannWhitneyResult r = MannWhitneyGreater({3, 4}, {1, 2});
  EXPECT_EQ(r.method, MannWhitneyMethod::kExact);
  EXPECT_DOUBLE_EQ(r.u, 4);
  EXPECT_DOUBLE_EQ(r.p_value, 1.0 / 6.0);
  // x={2,4}, y={1,3}: ranks 2 and 4, U = 6 - 3 = 3, P(U>=3) = 2/6.
  r = MannWhitneyGreater({2, 4}, {1, 3});
  EXPECT_DOUBLE_EQ(r.u, 3);
  EXPECT_DOUBLE_EQ(r.p_value, 2.0 / 6.0);
  // x entirely below y: U=0, P(U>=0) = 1.
  r = MannWhitneyGreater({1, 2}, {3, 4});
  EXPECT_DOUBLE_EQ(r.u, 0);
  EXPECT_DOUBLE_EQ(r.p_value, 1.0);
}

TEST(MannWhitneyTest, ExactTailMatchesPublishedCriticalValues) {
  // One-tailed critical values U_crit of the Mann-Whitney table (reject when the smaller U <= U_crit):
  // n1=n2=5: alpha .05 -> 4, .01 -> 1; n1=n2=10: .05 -> 27, .01 -> 19; n1=n2=20: .05 -> 138, .01 -> 114;
  // n1=8, n2=12: .01 -> 17. (Standard tables, e.g. the ones reproduced in most statistics textbooks;
  // each value cross-checked with scipy.stats._mannwhitneyu._mwu_state.sf in scipy 1.10.1.)
  // By symmetry P(U <= k) = P(U >= n1 n2 - k), so U_crit is the largest k with
  // upper_tail(n1 n2 - k) <= alpha.
  struct Row {
    int n1, n2;
    double alpha;
    int u_crit;
  };
  const Row rows[] = {{5, 5, 0.05, 4},      {5, 5, 0.01, 1},      {10, 10, 0.05, 27}, {10, 10, 0.01, 19},
                      {20, 20, 0.05, 138},  {20, 20, 0.01, 114},  {8, 12, 0.01, 17}};
  for (const Row& row : rows) {
    const int nn = row.n1 * row.n2;
    EXPECT_LE(MannWhitneyExactUpperTail(row.n1, row.n2, nn - row.u_crit), row.alpha)
        << row.n1 << "x" << row.n2 << " alpha " << row.alpha;
    EXPECT_GT(MannWhitneyExactUpperTail(row.n1, row.n2, nn - row.u_crit - 1), row.alpha)
        << row.n1 << "x" << row.n2 << " alpha " << row.alpha;
  }
  // Two exact tail values from scipy 1.10.1: _mwu_state.sf(81, 10, 10) and sf(100-20, 10, 10).
  ExpectP(0.009271688064257724, MannWhitneyExactUpperTail(10, 10, 81));
  ExpectP(0.011615319664855269, MannWhitneyExactUpperTail(10, 10, 80));
}

TEST(MannWhitneyTest, ExactDistributionIsADistribution) {
  // P(U >= 0) = 1, and the tails are symmetric: P(U >= k) = P(U <= n1 n2 - k)
  // = 1 - P(U >= n1 n2 - k + 1).
  for (int n1 : {1, 3, 7}) {
    for (int n2 : {1, 4, 9}) {
      EXPECT_DOUBLE_EQ(MannWhitneyExactUpperTail(n1, n2, 0), 1.0);
      for (int k = 1; k <= n1 * n2; ++k)
        EXPECT_NEAR(MannWhitneyExactUpperTail(n1, n2, k), 1.0 - MannWhitneyExactUpperTail(n1, n2, n1 * n2 - k + 1),
                    1e-12);
    }
  }
}

TEST(MannWhitneyTest, ExactMatchesScipyWithoutTies) {
  // scipy: mannwhitneyu(x, y, alternative="greater", method="exact") -> U=38, p=0.006993006993006993 (=1/143)
  const std::vector<double> x = {101.2, 99.8, 103.5, 104.1, 100.9, 102.2, 105.0};
  const std::vector<double> y = {98.7, 100.1, 99.5, 101.0, 97.9, 99.9};
  MannWhitneyResult r = MannWhitneyGreater(x, y);
  EXPECT_EQ(r.method, MannWhitneyMethod::kExact);
  EXPECT_FALSE(r.ties);
  EXPECT_DOUBLE_EQ(r.u, 38);
  ExpectP(0.006993006993006993, r.p_value);

  // 12 vs 15: scipy exact U=152, p=0.0008697147814121835.
  const std::vector<double> x2 = {10.3, 10.9, 11.4, 10.1, 10.75, 11.2, 10.6, 11.05, 10.45, 10.95, 11.6, 10.2};
  const std::vector<double> y2 = {10.0, 10.35, 9.8, 10.5, 10.15, 9.95, 10.65, 10.05, 9.7, 10.25, 10.85, 9.9, 10.4, 10.55, 9.6};
  r = MannWhitneyGreater(x2, y2);
  EXPECT_EQ(r.method, MannWhitneyMethod::kExact);
  EXPECT_DOUBLE_EQ(r.u, 152);
  ExpectP(0.0008697147814121835, r.p_value);

  // 20 vs 20 (the largest exact size by default): scipy exact U=225, p=0.25583062185083755.
  std::vector<double> x3, y3;
  for (int i = 0; i < 20; ++i) {
    x3.push_back(50 + (i * 13 % 41) + 0.5);
    y3.push_back(45 + (i * 17 % 43));
  }
  r = MannWhitneyGreater(x3, y3);
  EXPECT_EQ(r.method, MannWhitneyMethod::kExact);
  EXPECT_DOUBLE_EQ(r.u, 225);
  ExpectP(0.25583062185083755, r.p_value);
}

TEST(MannWhitneyTest, NormalApproximationMatchesScipyAsymptotic) {
  // Same 7 vs 6 and 12 vs 15 samples, forced to the normal approximation:
  // scipy method="asymptotic": p=0.00920808028815198 and p=0.0013459469065696015.
  MannWhitneyOptions normal;
  normal.max_exact_n = 0;
  MannWhitneyResult r = MannWhitneyGreater({101.2, 99.8, 103.5, 104.1, 100.9, 102.2, 105.0},
                                           {98.7, 100.1, 99.5, 101.0, 97.9, 99.9}, normal);
  EXPECT_EQ(r.method, MannWhitneyMethod::kNormal);
  ExpectP(0.00920808028815198, r.p_value);
  r = MannWhitneyGreater({10.3, 10.9, 11.4, 10.1, 10.75, 11.2, 10.6, 11.05, 10.45, 10.95, 11.6, 10.2},
                         {10.0, 10.35, 9.8, 10.5, 10.15, 9.95, 10.65, 10.05, 9.7, 10.25, 10.85, 9.9, 10.4, 10.55, 9.6},
                         normal);
  ExpectP(0.0013459469065696015, r.p_value);
}

TEST(MannWhitneyTest, TiesUseTieCorrectedNormalApproximation) {
  // scipy asymptotic (ties force it): U=46.5, p=0.06660888427756888.
  MannWhitneyResult r = MannWhitneyGreater({5, 6, 6, 7, 8, 8, 8, 9}, {4, 5, 5, 6, 6, 7, 7, 8});
  EXPECT_TRUE(r.ties);
  EXPECT_EQ(r.method, MannWhitneyMethod::kNormal);
  EXPECT_DOUBLE_EQ(r.u, 46.5);
  ExpectP(0.06660888427756888, r.p_value);
  // U=25.5, p=0.10158695879254287.
  r = MannWhitneyGreater({1, 2, 2, 3, 3, 3, 4}, {1, 1, 2, 2, 3});
  EXPECT_DOUBLE_EQ(r.u, 25.5);
  ExpectP(0.10158695879254287, r.p_value);

  // 30 vs 30 with a few ties: scipy asymptotic U=611.5, p=0.008645569448727875.
  std::vector<double> x, y;
  for (int i = 0; i < 30; ++i) {
    x.push_back(1000 + (i * 7919 % 101) / 10.0 + 2.0);
    y.push_back(1000 + (i * 104729 % 103) / 10.0);
  }
  r = MannWhitneyGreater(x, y);
  EXPECT_EQ(r.method, MannWhitneyMethod::kNormal);
  EXPECT_DOUBLE_EQ(r.u, 611.5);
  ExpectP(0.008645569448727875, r.p_value);

  // 25 vs 40 integers (heavy ties), both directions: scipy U=482 p=0.5985563641952927 and
  // U=518 p=0.4066699178720967.
  std::vector<double> a, b;
  for (int i = 0; i < 25; ++i) a.push_back((i * 37 % 23) + 3);
  for (int i = 0; i < 40; ++i) b.push_back(i * 53 % 29);
  r = MannWhitneyGreater(a, b);
  EXPECT_DOUBLE_EQ(r.u, 482);
  ExpectP(0.5985563641952927, r.p_value);
  r = MannWhitneyGreater(b, a);
  EXPECT_DOUBLE_EQ(r.u, 518);
  ExpectP(0.4066699178720967, r.p_value);
}

TEST(MannWhitneyTest, DegenerateInputs) {
  // No data on one side: no evidence.
  MannWhitneyResult r = MannWhitneyGreater({}, {1, 2, 3});
  EXPECT_EQ(r.method, MannWhitneyMethod::kNotApplicable);
  EXPECT_DOUBLE_EQ(r.p_value, 1.0);
  // All values identical: zero variance, no evidence of a shift.
  r = MannWhitneyGreater({5, 5, 5}, {5, 5, 5, 5});
  EXPECT_DOUBLE_EQ(r.p_value, 1.0);
  EXPECT_DOUBLE_EQ(r.u, 6);  // = n1 n2 / 2
}

TEST(MannWhitneyTest, Median) {
  EXPECT_DOUBLE_EQ(Median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(Median({7}), 7);
  EXPECT_DOUBLE_EQ(Median({}), 0);
}

}  // namespace
}  // namespace mann_whitney_test
}  // namespace ampscope::gate
