// Issue 16: times beyond what the readers accept (trace/time_bounds.h: within +-2^62, one
// trace within 2^61) must still give right spans and saturated sums in the analyzers, never a
// signed overflow: this trace is built by hand at -2^60 and 2^62.
// Before, the window span, the idle-gap sums and the overlap sums overflowed (UBSan "signed
// integer overflow"; in a release build e.g. window_us -9.2e15 with exit 0). In the sanitizer
// tree (scripts/test.sh --asan, -fno-sanitize-recover=all) any overflow left aborts this test.
//
// Expected values are hand-computed from the limits:
//   span = 2^62 - (-2^60) = 4611686018427387904 + 1152921504606846976 = 5764607523034234880
//   two spans = 11529215046068469760 > INT64_MAX = 9223372036854775807, so such sums saturate.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "analyzers/analyze.h"
#include "pipeline/job.h"
#include "support/trace_builder.h"
#include "trace/time_bounds.h"

namespace ampscope {
namespace extreme_times_test {
namespace {

constexpr TimeNs kMaxTraceTimeNs = TimeNs{1} << 62;
constexpr TimeNs kMinTraceTimeNs = -(TimeNs{1} << 60);
constexpr TimeNs kSpan = 5764607523034234880;  // kMaxTraceTimeNs - kMinTraceTimeNs, by hand above
constexpr TimeNs kInt64Max = std::numeric_limits<TimeNs>::max();

static_assert(kMaxTraceTimeNs - kMinTraceTimeNs == kSpan, "the hand-computed span");

TEST(ExtremeTimes, SaturatingHelpersSaturateAndOtherwiseAreExact) {
  EXPECT_EQ(SaturatingAdd(kSpan, kSpan), kInt64Max);
  EXPECT_EQ(SaturatingAdd(TimeNs{-kSpan}, TimeNs{-kSpan}), std::numeric_limits<TimeNs>::min());
  EXPECT_EQ(SaturatingAdd(TimeNs{1000}, TimeNs{-1}), 999);
  EXPECT_EQ(SaturatingSub(kMaxTraceTimeNs, kMinTraceTimeNs), kSpan);
  EXPECT_EQ(SaturatingSub(TimeNs{0} - kSpan, kSpan), std::numeric_limits<TimeNs>::min());
  EXPECT_EQ(SaturatingSub(kSpan, TimeNs{0} - kSpan), kInt64Max);
  EXPECT_TRUE(IsAcceptedTime(kMaxTraceTimeNs));
  EXPECT_TRUE(IsAcceptedTime(kMinTraceTimeNs));
  EXPECT_FALSE(IsAcceptedTime(kMaxTraceTimeNs + 1));
}

// A trace whose events reach both limits: the whole analysis runs without an overflow (the
// reports and exports of such traces: fuzz/regressions/*/times_at_the_accepted_limits*), the span is exact and the sums that exceed int64 saturate.
TEST(ExtremeTimes, AnalysisOfATraceAtBothLimits) {
  testing::TraceBuilder b;
  b.AddA100(0);
  b.AddA100(1);
  const TimeNs lo = kMinTraceTimeNs, hi = kMaxTraceTimeNs;
  // Device 0: two short kernels, one at each end, so its one idle gap is the span less 2000 ns.
  b.LaunchKernel("ampere_fp16_s16816gemm_fp16_128x64_ldg8_f2f_stages_64x4_tn", lo, 10, lo, lo + 1000);
  b.LaunchKernel("ampere_fp16_s16816gemm_fp16_128x64_ldg8_f2f_stages_64x4_tn", hi - 2000, 10, hi - 1000, hi);
  // Device 1: two kernels on two streams over the whole span: their durations sum past INT64_MAX.
  const int64_t c1 = b.NewCorrelation(), c2 = b.NewCorrelation();
  b.AddApi("cudaLaunchKernel", lo, lo + 10, c1);
  b.AddApi("cudaLaunchKernel", lo, lo + 10, c2);
  b.AddKernel("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >()", lo, hi, c1, 7, 1);
  b.AddKernel("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >()", lo, hi, c2, 8, 1);
  // Two host syncs over the whole span: their sum passes INT64_MAX too.
  b.AddApi("cudaDeviceSynchronize", lo, hi, b.NewCorrelation(), 1);
  b.AddApi("cudaDeviceSynchronize", lo, hi, b.NewCorrelation(), 2);
  std::vector<Trace> traces;
  traces.push_back(b.Build());

  const AnalysisOptions options;
  JobAnalysis job = AnalyzeJob(traces, options);
  ASSERT_EQ(job.ranks.size(), 1u);
  const RankAnalysis& r = job.ranks[0];
  // No steps: the window is the whole trace, exactly.
  EXPECT_EQ(r.steps.window_start_ns, lo);
  EXPECT_EQ(r.steps.window_end_ns, hi);
  EXPECT_EQ(r.steps.window_ns(), kSpan);
  // 1000 + 1000 + span + span does not fit: saturated.
  EXPECT_EQ(r.gpu.kernel_time_total_ns, kInt64Max);
  EXPECT_EQ(r.syncs.api_sync_time_ns, kInt64Max);
  // Nothing is negative, however the sums were grouped.
  EXPECT_GE(r.gpu.window_ns, kSpan);
  EXPECT_GE(r.gpu.busy_ns, 0);
  EXPECT_GE(r.gpu.kernel_busy_ns, 0);
  EXPECT_GE(r.gpu.idle.host_wait_ns, 0);
  EXPECT_GE(r.gpu.idle.kernel_wait_ns, 0);
  EXPECT_GE(r.gpu.idle.other_ns, 0);
  for (const auto& [device, busy] : r.gpu.busy_by_device_ns) EXPECT_GE(busy, 0) << "device " << device;
  // Device 0 is busy 2000 ns of the span; device 1 all of it (the union of its two kernels).
  ASSERT_EQ(r.gpu.busy_by_device_ns.count(0), 1u);
  ASSERT_EQ(r.gpu.busy_by_device_ns.count(1), 1u);
  EXPECT_EQ(r.gpu.busy_by_device_ns.at(0), 2000);
  EXPECT_EQ(r.gpu.busy_by_device_ns.at(1), kSpan);
}

}  // namespace
}  // namespace extreme_times_test
}  // namespace ampscope
