// Issue 36: the roofline's "not available" reason names what the trace lacks. A trace with
// neither GPU kernels nor cpu_op events (a recording without a GPU) is not "a GPU-only trace".
#include <gtest/gtest.h>

#include "analyzers/analyze.h"
#include "analyzers/roofline/roofline_result.h"
#include "support/trace_builder.h"

namespace ampscope {
namespace roofline_reason_test {
namespace {

using testing::TraceBuilder;
constexpr TimeNs kUs = 1000;

TEST(RooflineReason, NoKernelsAndNoOpsIsNotCalledGpuOnly) {
  TraceBuilder b;
  for (int i = 0; i < 4; ++i) b.AddRange("train_iter#" + std::to_string(i), i * 250 * kUs, (i + 1) * 250 * kUs);
  StatusOr<RankAnalysis> ra = AnalyzeTrace(b.Build(), {});
  ASSERT_TRUE(ra.ok());
  ASSERT_NE(ra->roofline, nullptr);
  EXPECT_EQ(ra->roofline->reason, "no GPU kernels and no cpu_op events in the trace");
}

TEST(RooflineReason, KernelsWithoutOpsIsAGpuOnlyTrace) {
  TraceBuilder b;
  b.LaunchKernel("my_gemm_kernel", 10 * kUs, 2 * kUs, 20 * kUs, 90 * kUs);
  StatusOr<RankAnalysis> ra = AnalyzeTrace(b.Build(), {});
  ASSERT_TRUE(ra.ok());
  ASSERT_NE(ra->roofline, nullptr);
  EXPECT_NE(ra->roofline->reason.find("(a GPU-only trace)"), std::string::npos) << ra->roofline->reason;
}

}  // namespace
}  // namespace roofline_reason_test
}  // namespace ampscope
