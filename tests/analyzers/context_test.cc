// Tests of analyzers/context: the one sync-point definition (hand-built traces with hand-counted
// points, and every shared trace: the report's syncs per step and the sync finding count the same
// points), and sums with extreme times (saturating, UBSan-clean).
#include "analyzers/context/context.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analyzers/analyze.h"
#include "base/saturating.h"
#include "support/test_support.h"
#include "support/trace_builder.h"
#include "trace/reader.h"

namespace ampscope {
namespace context_test {
namespace {

using testing::TraceBuilder;
constexpr TimeNs kUs = 1000;

// Hand-counted sync points (the rules of analyzers/context/context.cc, from CUDA's documented API sync
// behaviour and nsys's cuda_memcpy_sync rule):
//   step 0: .item() = cudaMemcpyAsync D2H into pageable memory + cudaStreamSynchronize 5 µs later
//           on the same thread -> ONE point;
//   step 0: a synchronous 1 MB H2D cudaMemcpy -> a point (not small);
//   step 1: a synchronous 4 KB H2D cudaMemcpy -> no point (<= 64 KB is staged);
//   step 1: a cudaMemcpyAsync D2H into pinned memory -> no point (truly async);
//   step 1: a cudaMemcpyAsync whose record the reader marked synchronous (async = false), D2H
//           1 MB -> a point (the record says the host waited);
//   step 1: cudaDeviceSynchronize 51 µs after that copy -> a point of its own (joins need <= 50 µs).
// Total 4 points in 2 steps: 2.0 per step, per-step counts 2 and 2. The CUPTI sync record is
// not a point (the trace has runtime calls).
TEST(RankContextSyncs, OneDefinitionHandCounted) {
  TraceBuilder b;
  b.AddRange("ProfilerStep#0", 0, 100 * kUs);
  b.AddRange("ProfilerStep#1", 100 * kUs, 200 * kUs);
  int64_t c = b.NewCorrelation();
  b.AddApi("cudaMemcpyAsync", 10 * kUs, 12 * kUs, c);
  b.AddMemcpy(11 * kUs, 12 * kUs, c, MemcpyKind::kDtoH, 4, MemoryKind::kDevice, MemoryKind::kPageable);
  b.AddApi("cudaStreamSynchronize", 17 * kUs, 30 * kUs, b.NewCorrelation());
  c = b.NewCorrelation();
  b.AddApi("cudaMemcpy", 40 * kUs, 50 * kUs, c);
  b.AddMemcpy(41 * kUs, 49 * kUs, c, MemcpyKind::kHtoD, 1 << 20, MemoryKind::kPageable, MemoryKind::kDevice);
  c = b.NewCorrelation();
  b.AddApi("cudaMemcpy", 110 * kUs, 112 * kUs, c);
  b.AddMemcpy(110 * kUs, 111 * kUs, c, MemcpyKind::kHtoD, 4096, MemoryKind::kPageable, MemoryKind::kDevice);
  c = b.NewCorrelation();
  b.AddApi("cudaMemcpyAsync", 120 * kUs, 121 * kUs, c);
  b.AddMemcpy(121 * kUs, 122 * kUs, c, MemcpyKind::kDtoH, 4096, MemoryKind::kDevice, MemoryKind::kPinned);
  c = b.NewCorrelation();
  b.AddApi("cudaMemcpyAsync", 130 * kUs, 140 * kUs, c);
  b.AddMemcpy(131 * kUs, 139 * kUs, c, MemcpyKind::kDtoH, 1 << 20, MemoryKind::kDevice, MemoryKind::kPinned).async =
      false;
  b.AddApi("cudaDeviceSynchronize", 191 * kUs, 199 * kUs, b.NewCorrelation());  // 51 µs later: not joined
  b.AddSync(SyncType::kStreamSync, 17 * kUs, 30 * kUs, -1);
  Trace t = b.Build();

  const AnalysisOptions options;
  const RankContext ctx(t, options);
  const std::vector<SyncPoint>& p = ctx.sync_points();
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].api, "cudaMemcpyAsync DtoH + cudaStreamSynchronize");
  EXPECT_EQ(p[0].start_ns, 10 * kUs);
  EXPECT_EQ(p[0].end_ns, 30 * kUs);
  EXPECT_EQ(p[0].blocked_ns, 2 * kUs + 13 * kUs);  // the two calls, not the 5 µs between them
  EXPECT_EQ(p[1].api, "cudaMemcpy HtoD");
  EXPECT_EQ(p[2].api, "cudaMemcpyAsync DtoH");
  EXPECT_EQ(p[3].api, "cudaDeviceSynchronize");
  EXPECT_EQ(p[0].step_index, 0);
  EXPECT_EQ(p[1].step_index, 0);
  EXPECT_EQ(p[2].step_index, 1);
  EXPECT_EQ(p[3].step_index, 1);

  const RankAnalysis ra = AnalyzeRank(ctx);
  EXPECT_DOUBLE_EQ(ra.syncs.syncs_per_step, 2.0);
  EXPECT_EQ(ra.syncs.api_sync_count, 4u);
  EXPECT_EQ(ra.syncs.cuda_sync_event_count, 1u);
  EXPECT_EQ(ra.syncs.by_api.at("cudaMemcpyAsync DtoH + cudaStreamSynchronize"), 1u);
  EXPECT_EQ(ra.syncs.api_sync_time_ns, (2 + 13 + 10 + 10 + 8) * kUs);
  ASSERT_EQ(ra.per_step.size(), 2u);
  EXPECT_EQ(ra.per_step[0].syncs, 2u);
  EXPECT_EQ(ra.per_step[1].syncs, 2u);
}

// Without any runtime call, CUPTI's synchronization records are the points (stream-wait-event
// records are GPU-side waits, not host-blocking).
TEST(RankContextSyncs, CuptiRecordsOnlyWithoutRuntimeCalls) {
  TraceBuilder b;
  b.AddRange("ProfilerStep#0", 0, 100 * kUs);
  b.AddSync(SyncType::kStreamSync, 10 * kUs, 20 * kUs, -1);
  b.AddSync(SyncType::kStreamWaitEvent, 30 * kUs, 31 * kUs, -1);
  b.AddSync(SyncType::kContextSync, 40 * kUs, 45 * kUs, -1);
  Trace t = b.Build();
  const AnalysisOptions options;
  const RankContext ctx(t, options);
  ASSERT_EQ(ctx.sync_points().size(), 2u);
  EXPECT_EQ(ctx.sync_points()[0].api, "cuda_sync:stream_sync");
  const RankAnalysis ra = AnalyzeRank(ctx);
  EXPECT_EQ(ra.syncs.api_sync_count, 0u);
  EXPECT_DOUBLE_EQ(ra.syncs.syncs_per_step, 2.0);
}

// Every shared trace: the report's syncs per step x steps, its per-step counts and its by_api
// counts are the context's points, and the host_sync finding (when it fires) counts the same
// points (its evidence: GradScaler's syncs + the others per step, rounded to 2 decimals).
TEST(RankContextSyncs, ReportAndFindingCountTheSamePointsOnEverySharedTrace) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/traces (the real traces) not found");
  std::vector<std::string> paths;
  for (const char* dir : {"traces/kineto", "traces/nsys"}) {
    const std::string root = testing::SharedPath(dir);
    AMPSCOPE_REQUIRE_INPUT(std::filesystem::is_directory(root), root + " missing");
    for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
      const std::string p = e.path().string();
      if (e.is_regular_file() && (p.find(".json") != std::string::npos || p.find(".sqlite") != std::string::npos))
        paths.push_back(p);
    }
  }
  ASSERT_GE(paths.size(), 20u);  // 22 Kineto traces and the nsys exports (shared/traces/README.md)
  size_t with_syncs = 0, with_finding = 0;
  for (const std::string& path : paths) {
    StatusOr<Trace> t = ReadTrace(path);
    ASSERT_TRUE(t.ok()) << path << ": " << t.status().message();
    const AnalysisOptions options;
    const RankContext ctx(*t, options);
    const RankAnalysis ra = AnalyzeRank(ctx);
    const uint64_t points = ctx.sync_points().size();
    with_syncs += points > 0;
    const size_t steps = ra.steps.steps.size();
    if (steps > 0) {
      EXPECT_NEAR(ra.syncs.syncs_per_step * static_cast<double>(steps), static_cast<double>(points), 1e-6) << path;
      uint64_t per_step_sum = 0;
      for (const StepMetrics& s : ra.per_step) per_step_sum += s.syncs;
      EXPECT_EQ(per_step_sum, points) << path;
    }
    uint64_t by_api = 0;
    for (const auto& [api, n] : ra.syncs.by_api) by_api += n;
    EXPECT_EQ(by_api, points) << path;
    for (const Finding& f : ra.findings) {
      if (f.id != "host_device_sync") continue;
      ++with_finding;
      const double n = static_cast<double>(std::max<size_t>(1, steps));
      // The finding counts user syncs; GradScaler's and the blocking input copies are named apart.
      const double counted = FieldNumber(f.evidence, "grad_scaler_syncs").value_or(-1) +
                             FieldNumber(f.evidence, "input_copy_syncs").value_or(-1) +
                             FieldNumber(f.evidence, "syncs_per_step_beyond_scaler").value_or(-1) * n;
      EXPECT_NEAR(counted, static_cast<double>(points), 0.005 * n + 1e-6) << path;
      if (steps > 0) {
        EXPECT_NEAR(counted / n, ra.syncs.syncs_per_step, 0.005 + 1e-9) << path;
      }
    }
  }
  EXPECT_GT(with_syncs, 5u);    // the check must see real syncs
  EXPECT_GT(with_finding, 0u);  // and the finding on at least one trace
}

// Sums over many overlapping kernels with times near the readers' bound (+-2^61 ns) must not
// overflow int64 (undefined behaviour; UBSan builds trap on it): the context saturates instead.
TEST(RankContextSums, ExtremeTimesSaturateInsteadOfOverflowing) {
  TraceBuilder b;
  constexpr TimeNs kBound = TimeNs{1} << 61;
  // Eight kernels of ~2^62 ns each, all overlapping: their durations sum to ~2^65.
  for (int i = 0; i < 8; ++i) b.LaunchKernel("ampere_sgemm_128x64_nn", -kBound + i, 1, -kBound + i, kBound - i);
  Trace t = b.Build();
  const AnalysisOptions options;
  const RankContext ctx(t, options);
  // No steps: the window is the span of the GPU work, [-2^61, 2^61).
  EXPECT_EQ(ctx.window_ns(), 2 * kBound);
  EXPECT_EQ(ctx.kernels().in_window_ns, std::numeric_limits<TimeNs>::max());
  // Merged, the kernels are one interval: busy is the whole window, without overflow.
  EXPECT_EQ(ctx.busy().main_in_windows_ns, 2 * kBound);
  EXPECT_TRUE(ctx.idle_gaps().empty());
  // Overlap sums: two disjoint intervals of ~2^63 ns each: the total is past int64.
  constexpr TimeNs kMax = std::numeric_limits<TimeNs>::max();
  constexpr TimeNs kMin = std::numeric_limits<TimeNs>::min();
  const std::vector<Interval> merged = {{kMin + 1, -1}, {0, kMax}};
  EXPECT_EQ(OverlapNs(merged, kMin, kMax), kMax);
  EXPECT_EQ(OverlapNs(merged, kMin, -1), kMax - 1);
}

TEST(Saturating, ClampsAtTheLimits) {
  constexpr TimeNs kMax = std::numeric_limits<TimeNs>::max();
  constexpr TimeNs kMin = std::numeric_limits<TimeNs>::min();
  EXPECT_EQ(SaturatingAdd(kMax, 1), kMax);
  EXPECT_EQ(SaturatingAdd(kMin, -1), kMin);
  EXPECT_EQ(SaturatingAdd(kMax, kMin), -1);
  EXPECT_EQ(SaturatingSub(kMin, 1), kMin);
  EXPECT_EQ(SaturatingSub(kMax, -1), kMax);
  EXPECT_EQ(SaturatingSub(0, kMin), kMax);
  TimeNs total = kMax - 5;
  SatAccumulate(total, 10);
  EXPECT_EQ(total, kMax);
}

}  // namespace
}  // namespace context_test
}  // namespace ampscope
