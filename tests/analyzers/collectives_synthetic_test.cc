// Cross-rank matching by sequence number and the straggler's local cause, on small hand-built
// ranks (tests/support's builder). Every expected value is read off the timeline below.
//
// Three ranks on one host, one ProfilerStep#1 [0, 10 ms] each, NCCL all-reduces on process
// group "0" carrying Kineto's "Seq":
//   ranks 0, 1: compute kernel [0.2, 1.0] ms, then all-reduce seq 7 [1.1, 3.0] ms (waiting);
//   rank 2:     DataLoader batch fetch [0.1, 2.0] ms (GPU idle), compute [2.05, 2.9] ms, then
//               all-reduce seq 7 [2.95, 3.0] ms. Its earlier seq 6 [60, 90] µs is missing from
//               ranks 0 and 1 (their traces start later), so ordinals would pair the wrong calls.
// Expected: seq 7 matched on 3 ranks, skew 2.95 - 1.1 = 1.85 ms, rank 2 last, next-to-last 1.1 ms
// -> 1.85 ms caused; the window before rank 2's seq 7 is [0.09, 2.95] ms (from the end of its seq 6),
// its GPU idle gap [0.09, 2.05] ms splits into data_loader 1.9 ms (the DataLoader range) and host launch;
// the others had no DataLoader time, so the local cause is data_loader with 1.9 ms excess.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analyzers/analyze.h"
#include "analyzers/collectives/collectives.h"
#include "pipeline/job.h"
#include "support/trace_builder.h"

namespace ampscope {
namespace collectives_synthetic_test {
namespace {

using testing::TraceBuilder;
using testing::Us;

void AddAllReduce(TraceBuilder& b, TimeNs launch, TimeNs start, TimeNs end, int64_t seq) {
  KernelEvent& k = b.LaunchKernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
                                  launch, Us(5), start, end, /*stream=*/20);
  CommInfo c;
  c.collective = b.Str("allreduce");
  c.dtype = b.Str("Float");
  c.process_group = b.Str("0");
  c.in_nelems = 1 << 20;
  c.out_nelems = 1 << 20;
  c.group_size = 3;
  c.seq = seq;
  k.comm_index = static_cast<int32_t>(b.trace().comm_infos.size());
  b.trace().comm_infos.push_back(c);
}

Trace Rank(int32_t rank, bool late) {
  TraceBuilder b;
  b.AddA100();
  Trace& t = b.trace();
  t.metadata.rank = rank;
  t.metadata.world_size = 3;
  t.metadata.host = "node0";
  // The step's CPU range ends after its last launch: the step ends with the all-reduce (3 ms).
  b.AddRange("ProfilerStep#1", 0, Us(late ? 2'950 : 1'200));
  if (late) {
    AddAllReduce(b, Us(50), Us(60), Us(90), /*seq=*/6);  // not in ranks 0 and 1
    b.AddRange("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", Us(100), Us(2'000));
    b.LaunchKernel("volta_sgemm_128x64_nn", Us(2'000), Us(5), Us(2'050), Us(2'900));
    AddAllReduce(b, Us(2'900), Us(2'950), Us(3'000), 7);
  } else {
    b.LaunchKernel("volta_sgemm_128x64_nn", Us(100), Us(5), Us(200), Us(1'000));
    AddAllReduce(b, Us(1'000), Us(1'100), Us(3'000), 7);
  }
  return b.Build();
}

TEST(CollectivesSynthetic, MatchesBySeqAndNamesTheDataLoaderAsCause) {
  std::vector<Trace> traces = {Rank(0, false), Rank(1, false), Rank(2, true)};
  JobAnalysis job = AnalyzeJob(traces, AnalysisOptions());
  ASSERT_EQ(job.ranks.size(), 3u);
  const CrossRankResult& x = job.collectives;
  EXPECT_TRUE(x.clocks_comparable) << x.clock_note;  // one host
  ASSERT_EQ(x.collectives.size(), 1u);                 // seq 7; seq 6 only on rank 2
  EXPECT_EQ(x.unmatched_calls, 1u);
  const MatchedCollective& m = x.collectives[0];
  EXPECT_TRUE(m.by_seq);
  EXPECT_EQ(m.index, 7);
  EXPECT_EQ(m.type, CollectiveType::kAllReduce);
  EXPECT_EQ(m.ranks, 3);
  EXPECT_EQ(m.last_rank, 2);
  EXPECT_EQ(m.skew_ns.value_or(-1), Us(1'850));
  EXPECT_EQ(m.last_delay_ns.value_or(-1), Us(1'850));
  EXPECT_EQ(m.transfer_ns.value_or(-1), Us(50));  // all three run together in [2.95, 3.0] ms
  EXPECT_EQ(m.bytes, (1 << 20) * 4);              // In msg nelems x Float
  // all-reduce busBw = bytes / 50 µs x 2(n-1)/n, n = 3
  EXPECT_NEAR(m.busbw_gbs.value_or(-1), (1 << 22) / 50'000.0 * 2.0 * 2.0 / 3.0, 1e-9);

  ASSERT_TRUE(x.straggler.has_value());
  const StragglerResult& s = *x.straggler;
  EXPECT_EQ(s.rank, 2);
  EXPECT_EQ(s.max_skew_ns, Us(1'850));
  EXPECT_EQ(s.wait_caused_ns, Us(1'850));
  EXPECT_EQ(s.cause.name, "data_loader");
  EXPECT_EQ(s.cause.rank_ns[static_cast<size_t>(PreCollectiveBucket::kDataLoader)], Us(1'900));
  EXPECT_EQ(s.cause.excess_ns, Us(1'900));
  EXPECT_EQ(s.cause.late_step_start_ns, 0);
  std::optional<Finding> f = StragglerFinding(x);
  ASSERT_TRUE(f.has_value());
  EXPECT_NE(f->recommendation.find("DataLoader"), std::string::npos);
  // Replayed (docs/whatif.md): every rank's step ends with the all-reduce at 3.0 ms; ranks 0 and
  // 1 wait in it from 1.1 ms for rank 2 (1.85 ms, all of it on their critical path), rank 2
  // arrives 1.85 ms late. Without that delay every rank ends at 1.15 ms: 1.85 / 3.0 = 61.67%.
  EXPECT_EQ(s.replayed_saving_ns, Us(1'850));
  EXPECT_EQ(s.job_window_ns, Us(3'000));
  EXPECT_NEAR(f->est_saving_pct, 100.0 * 1850 / 3000, 0.01);
}

TEST(CollectivesSynthetic, OrdinalsWhenThereIsNoSeq) {
  std::vector<Trace> traces = {Rank(0, false), Rank(1, false)};
  for (Trace& t : traces)
    for (CommInfo& c : t.comm_infos) c.seq = -1;
  JobAnalysis job = AnalyzeJob(traces, AnalysisOptions());
  ASSERT_EQ(job.collectives.collectives.size(), 1u);
  EXPECT_FALSE(job.collectives.collectives[0].by_seq);
  EXPECT_EQ(job.collectives.collectives[0].index, 0);
  // Both arrive together: no one made the other wait, so no straggler.
  EXPECT_FALSE(job.collectives.straggler.has_value());
}

}  // namespace
}  // namespace collectives_synthetic_test
}  // namespace ampscope
