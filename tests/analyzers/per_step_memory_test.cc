// Issue 38, point 6: memory per step. On 200,000 ProfilerSteps `analyze` peaked at ~4.5x the
// trace's size, most of it per-step state of the analysis (docs/bench.md has the figures, and
// scripts/hostile_bench.sh measures them). These tests pin the structural part of the cuts on a
// reduced trace: per-step vectors are sized once (growth by doubling left up to half of each
// unused).
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analyzers/analyze.h"
#include "analyzers/graph/critical_path_result.h"
#include "support/trace_builder.h"

namespace ampscope {
namespace per_step_memory_test {
namespace {

constexpr TimeNs kUs = 1000;
constexpr int kSteps = 1500;  // a vector grown by doubling to hold this many has a third unused

// bench/make_hostile_inputs' `steps` trace: each step one launch and one kernel, so each step
// has two idle gaps (before its kernel and after it).
Trace ManySteps(int n) {
  testing::TraceBuilder b;
  b.AddA100();
  for (int i = 0; i < n; ++i) {
    const TimeNs t = (1000 + 100 * static_cast<TimeNs>(i)) * kUs;
    b.AddRange("ProfilerStep#" + std::to_string(i), t, t + 90 * kUs);
    b.LaunchKernel("ampere_fp16_gemm", t + 5 * kUs, 5 * kUs, t + 20 * kUs, t + 80 * kUs);
  }
  return b.Build();
}

TEST(PerStepMemory, PerStepVectorsAreSizedOnce) {
  const Trace t = ManySteps(kSteps);
  const AnalysisOptions options;
  const RankContext ctx(t, options);
  ASSERT_GE(ctx.steps().steps.size(), static_cast<size_t>(kSteps) - 2);
  EXPECT_EQ(ctx.steps().steps.capacity(), ctx.steps().steps.size());
  ASSERT_GE(ctx.gap_causes().size(), static_cast<size_t>(kSteps));
  EXPECT_EQ(ctx.gap_causes().capacity(), ctx.gap_causes().size());
  EXPECT_EQ(ctx.windows().capacity(), ctx.windows().size());
  // Merged intervals (one a step here) keep at most a quarter of their size unused.
  for (const std::vector<Interval>* merged : {&ctx.busy().all_by_device.at(0), &ctx.busy().kernels_by_device.at(0),
                                              &ctx.busy().compute, &ctx.host().active}) {
    ASSERT_GE(merged->size(), static_cast<size_t>(kSteps) - 2);
    EXPECT_LE(merged->capacity(), merged->size() + merged->size() / 4);
  }

  StatusOr<RankAnalysis> ra = AnalyzeTrace(t, options);
  ASSERT_TRUE(ra.ok()) << ra.status().message();
  ASSERT_EQ(ra->per_step.size(), ra->steps.steps.size());
  EXPECT_EQ(ra->per_step.capacity(), ra->per_step.size());
  ASSERT_NE(ra->critical_path, nullptr);
  ASSERT_EQ(ra->critical_path->steps.size(), ra->steps.steps.size());
  EXPECT_EQ(ra->critical_path->steps.capacity(), ra->critical_path->steps.size());
}

}  // namespace
}  // namespace per_step_memory_test
}  // namespace ampscope
