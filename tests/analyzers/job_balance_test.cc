// The job view's per-rank balance (pipeline/job.cc Balance): the one derivation of per-rank
// step, compute and communication time and their imbalance (max / mean over ranks).
//
// Before, the report carried two: job.per_rank summed kernel time over each rank's whole window,
// collectives.balance divided it by the rank's steps. They agree when every rank profiled the
// same number of steps and disagree otherwise; per step is the one kept (a rank that profiled
// two steps is not twice as busy as one that profiled one). Expected values are read off the
// hand-built timelines below.
#include <vector>

#include <gtest/gtest.h>

#include "analyzers/analyze.h"
#include "pipeline/job.h"
#include "support/trace_builder.h"

namespace ampscope {
namespace job_balance_test {
namespace {

using testing::TraceBuilder;
using testing::Us;

constexpr char kGemm[] = "volta_sgemm_128x64_nn";
constexpr char kNccl[] = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)";

// `steps` steps of 1 ms, each with `gemm_us` of GEMM and `nccl_us` of NCCL kernel time.
Trace Rank(int32_t rank, int steps, TimeNs gemm_us, TimeNs nccl_us) {
  TraceBuilder b;
  b.AddA100();
  b.trace().metadata.rank = rank;
  for (int s = 0; s < steps; ++s) {
    const TimeNs t0 = Us(1'000) * s;
    b.AddRange("ProfilerStep#" + std::to_string(s + 1), t0, t0 + Us(1'000));
    b.LaunchKernel(kGemm, t0 + Us(10), Us(5), t0 + Us(20), t0 + Us(20 + gemm_us));
    b.LaunchKernel(kNccl, t0 + Us(30 + gemm_us), Us(5), t0 + Us(40 + gemm_us), t0 + Us(40 + gemm_us + nccl_us),
                   /*stream=*/20);
  }
  return b.Build();
}

TEST(JobBalance, KernelTimeIsPerStepSoStepCountsDoNotCount) {
  // Rank 0 profiled two steps, rank 1 one; per step they do the same work.
  std::vector<Trace> traces = {Rank(0, 2, 300, 100), Rank(1, 1, 300, 100)};
  const JobAnalysis job = AnalyzeJob(traces, AnalysisOptions());
  ASSERT_EQ(job.balance.ranks.size(), 2u);
  for (const RankBalance& b : job.balance.ranks) {
    EXPECT_EQ(b.compute_per_step_ns, Us(300)) << "rank " << b.rank;
    EXPECT_EQ(b.communication_per_step_ns, Us(100)) << "rank " << b.rank;
  }
  EXPECT_EQ(job.balance.ranks[0].steps, 2u);
  EXPECT_EQ(job.balance.ranks[1].steps, 1u);
  // Balanced per step (summed over the window, rank 0 would look 4/3 busier: 600 / 450).
  EXPECT_DOUBLE_EQ(job.balance.compute_imbalance.value_or(-1), 1.0);
  EXPECT_DOUBLE_EQ(job.balance.communication_imbalance.value_or(-1), 1.0);
}

TEST(JobBalance, ImbalanceIsMaxOverMean) {
  // Communication per step 100 and 300 µs: mean 200, max 300 -> 1.5. Compute 300 and 100 -> 1.5.
  std::vector<Trace> traces = {Rank(0, 1, 300, 100), Rank(1, 1, 100, 300)};
  const JobAnalysis job = AnalyzeJob(traces, AnalysisOptions());
  EXPECT_DOUBLE_EQ(job.balance.communication_imbalance.value_or(-1), 1.5);
  EXPECT_DOUBLE_EQ(job.balance.compute_imbalance.value_or(-1), 1.5);
  ASSERT_TRUE(job.balance.step_time_imbalance.has_value());
}

TEST(JobBalance, OneRankHasNothingToBalance) {
  std::vector<Trace> traces = {Rank(0, 1, 300, 100)};
  const JobAnalysis job = AnalyzeJob(traces, AnalysisOptions());
  EXPECT_FALSE(job.balance.compute_imbalance.has_value());
  EXPECT_FALSE(job.balance.communication_imbalance.has_value());
  EXPECT_FALSE(job.balance.step_time_imbalance.has_value());
}

}  // namespace
}  // namespace job_balance_test
}  // namespace ampscope
