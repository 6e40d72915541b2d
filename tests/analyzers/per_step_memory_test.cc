// Issue 38, point 6: memory per step. On 200,000 ProfilerSteps `analyze` peaked at ~4.5x the
// trace's size, most of it per-step state of the analysis (docs/bench.md has the figures, and
// scripts/hostile_bench.sh measures them). These tests pin the structural part of the cuts on a
// reduced trace: per-step vectors are sized once (growth by doubling left up to half of each
// unused), the idle gaps and their causes (~2 a step) live once, handed from the context to
// the rank's result, not copied while the diagnosis runs, and so do the steps; the causes are
// kept sparse, and so are the critical path's steps. Equal merged busy lists are kept once, and the joint fix shares a fix's
// removed host time instead of copying it.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analyzers/analyze.h"
#include "analyzers/diagnosis/facts.h"
#include "analyzers/graph/critical_path_result.h"
#include "analyzers/graph/graph_builder.h"
#include "analyzers/graph/transforms.h"
#include "pipeline/job.h"
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
  // The gaps' cause splits are sparse: here each gap has one cause (the host launching late),
  // 17 B (gap, first piece, cause, time), not 72 B of eight slots.
  const IdleGapCauseTable& causes = ctx.gap_causes();
  ASSERT_GE(causes.size(), static_cast<size_t>(kSteps));
  EXPECT_EQ(causes.pieces(), causes.size());
  EXPECT_EQ(causes.allocated_bytes(), causes.size() * 17);
  EXPECT_EQ(ctx.windows().capacity(), ctx.windows().size());
  // The idle gaps (two a step here) too.
  ASSERT_GE(ctx.idle_gaps().size(), static_cast<size_t>(2 * kSteps) - 4);
  EXPECT_LE(ctx.idle_gaps().capacity(), ctx.idle_gaps().size() + ctx.idle_gaps().size() / 4);
  // Merged intervals (one a step here) keep at most a quarter of their size unused.
  for (const std::vector<Interval>* merged : {&ctx.busy().all_by_device.at(0), &ctx.busy().kernels(0),
                                              &ctx.busy().compute(), &ctx.host().active}) {
    ASSERT_GE(merged->size(), static_cast<size_t>(kSteps) - 2);
    EXPECT_LE(merged->capacity(), merged->size() + merged->size() / 4);
  }

  // The dependency graph's chunks, one a step, are made from the steps when asked (not kept
  // through every replay): each step's CPU range, up to the next step's CPU start (by hand: 100 µs
  // after its own in ManySteps), the last to its own CPU end; the first starts no earlier than
  // its measured start.
  const graph::GraphBuilder builder(ctx);
  const std::vector<StepWindow>& steps = ctx.steps().steps;
  ASSERT_EQ(builder.chunk_count(), steps.size());
  for (size_t k : {size_t{0}, size_t{1}, steps.size() / 2, steps.size() - 1}) {
    const graph::ChunkInfo c = builder.chunk(k);
    EXPECT_EQ(c.step, static_cast<int64_t>(k));
    EXPECT_EQ(c.cpu_start_ns, steps[k].cpu_start_ns);
    EXPECT_EQ(c.cpu_end_ns, steps[k].cpu_end_ns);
    EXPECT_EQ(c.begin_ns, steps[k].cpu_start_ns);
    EXPECT_EQ(c.end_ns, k + 1 < steps.size() ? steps[k].cpu_start_ns + 100 * kUs : steps[k].cpu_end_ns);
    EXPECT_EQ(c.floor_ns, k == 0 ? steps[0].start_ns : std::numeric_limits<TimeNs>::min());
  }

  StatusOr<RankAnalysis> ra = AnalyzeTrace(t, options);
  ASSERT_TRUE(ra.ok()) << ra.status().message();
  ASSERT_EQ(ra->per_step.size(), ra->steps.steps.size());
  EXPECT_EQ(ra->per_step.capacity(), ra->per_step.size());
  ASSERT_NE(ra->critical_path, nullptr);
  ASSERT_EQ(ra->critical_path->steps.size(), ra->steps.steps.size());
  // Sparse (CriticalPathSteps): 12 B a step and 9 B a piece, the pieces' slack at most a quarter.
  const graph::CriticalPathSteps& path_steps = ra->critical_path->steps;
  const size_t n = path_steps.size(), pieces = path_steps.pieces();
  EXPECT_LE(path_steps.allocated_bytes(), n * 12 + (pieces + pieces / 4) * 9);
  EXPECT_LT(path_steps.allocated_bytes(), n * sizeof(graph::CriticalPathStep));
}

void ExpectSameStep(const graph::CriticalPathStep& got, const graph::CriticalPathStep& want) {
  EXPECT_EQ(got.number, want.number);
  EXPECT_EQ(got.measured_ns, want.measured_ns);
  EXPECT_EQ(got.replayed_ns, want.replayed_ns);
  EXPECT_EQ(got.path.ns, want.path.ns);
  EXPECT_EQ(got.path.gpu_gap_ns, want.path.gpu_gap_ns);
  EXPECT_EQ(got.path.length_ns, want.path.length_ns);
}

// The critical path's steps kept sparse read back as they were added. Pieces by hand: a keeps
// its two categories (numbered 5 = the first, measured = length = replayed); b three categories,
// its gpu gap and its measured time (100 != 95 replayed): 5; c its category, its length (30 !=
// 40 replayed) and its number (9, not 5 + 2): 3; d only its number (10, not 5 + 3): 1. 11 in all.
TEST(PerStepMemory, CriticalPathStepsAreSparseAndReadBackWhole) {
  graph::CriticalPathStep a, b, c, d;
  a.number = 5;
  a.measured_ns = a.replayed_ns = a.path.length_ns = 90;
  a.path.ns[4] = 5;
  a.path.ns[5] = 85;
  b.number = 6;
  b.measured_ns = 100;
  b.replayed_ns = b.path.length_ns = 95;
  b.path.ns[0] = 60;
  b.path.ns[1] = 20;
  b.path.ns[2] = 15;
  b.path.gpu_gap_ns = 7;
  c.number = 9;
  c.measured_ns = c.replayed_ns = 40;
  c.path.ns[6] = 30;
  c.path.length_ns = 30;
  d.number = 10;  // all times 0
  graph::CriticalPathSteps steps;
  steps.Reserve(2);
  for (const graph::CriticalPathStep* s : {&a, &b, &c, &d}) steps.Add(*s);
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps.pieces(), 11u);
  const graph::CriticalPathStep* expected[] = {&a, &b, &c, &d};
  size_t i = 0;
  for (const graph::CriticalPathStep& s : steps) ExpectSameStep(s, *expected[i++]);
  EXPECT_EQ(i, 4u);
  ExpectSameStep(steps[1], b);

  // The window without steps: one step numbered -1.
  graph::CriticalPathStep w;
  w.measured_ns = 500;
  w.replayed_ns = w.path.length_ns = 480;
  w.path.ns[3] = 480;
  graph::CriticalPathSteps window;
  window.Add(w);
  EXPECT_EQ(window.pieces(), 2u);  // its category and its measured time
  ExpectSameStep(window[0], w);
}

// Here the kernels are all the GPU's work and none is communication: all GPU work, kernels and
// compute are one list, kept once.
TEST(PerStepMemory, EqualBusyListsAreKeptOnce) {
  const Trace t = ManySteps(kSteps);
  const AnalysisOptions options;
  const RankContext ctx(t, options);
  const BusyIntervals& busy = ctx.busy();
  EXPECT_EQ(busy.kernels(0).data(), busy.all_by_device.at(0).data());
  EXPECT_EQ(busy.compute().data(), busy.all_by_device.at(0).data());
  EXPECT_EQ(busy.kernel_devices(), std::vector<int32_t>{0});
}

bool Same(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].start_ns != b[i].start_ns || a[i].end_ns != b[i].end_ns) return false;
  return true;
}

// BusyIntervals' sharing on hand-built lists: a device's kernels equal to its GPU work read that
// list; unequal ones (a copy outside every kernel) are kept apart, and so is compute that is not
// the one kernel device's kernels.
TEST(PerStepMemory, BusyListsAreSharedOnlyWhenEqual) {
  BusyIntervals busy;
  busy.all_by_device[0] = {{0, 10}, {20, 30}};
  busy.all_by_device[1] = {{0, 10}, {20, 40}};  // device 1 also copies in [30, 40)
  busy.all_by_device[2] = {{5, 6}};             // device 2: only a memset
  busy.SetKernels({{0, {{0, 10}, {20, 30}}}, {1, {{0, 10}, {20, 30}}}});
  EXPECT_EQ(busy.kernel_devices(), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(busy.kernels(0).data(), busy.all_by_device.at(0).data());
  EXPECT_NE(busy.kernels(1).data(), busy.all_by_device.at(1).data());
  EXPECT_TRUE(Same(busy.kernels(1), {{0, 10}, {20, 30}}));
  EXPECT_TRUE(busy.kernels(2).empty());
  EXPECT_TRUE(busy.kernels(7).empty());
  // Two kernel devices: compute is their union, its own list.
  busy.SetCompute({{0, 10}, {20, 30}});
  EXPECT_TRUE(Same(busy.compute(), {{0, 10}, {20, 30}}));
  EXPECT_NE(busy.compute().data(), busy.kernels(0).data());
  EXPECT_NE(busy.compute().data(), busy.kernels(1).data());

  // One kernel device, whose kernels are not all its work: compute equal to its kernels reads
  // the kernels' list; compute without its communication kernel is kept apart.
  BusyIntervals one;
  one.all_by_device[3] = {{0, 50}};
  one.SetKernels({{3, {{0, 10}, {20, 30}}}});
  one.SetCompute({{0, 10}, {20, 30}});
  EXPECT_EQ(one.compute().data(), one.kernels(3).data());
  EXPECT_TRUE(Same(one.compute(), {{0, 10}, {20, 30}}));
  one.SetCompute({{0, 10}});  // [20, 30) was communication
  EXPECT_NE(one.compute().data(), one.kernels(3).data());
  EXPECT_TRUE(Same(one.compute(), {{0, 10}}));
  EXPECT_TRUE(Same(one.kernels(3), {{0, 10}, {20, 30}}));
}

// A Combine in which one part removes host time holds that part's list, not a copy; with two
// such parts it holds their union (by hand: [0, 10) and [5, 20) merge into [0, 20)).
TEST(PerStepMemory, CombineSharesTheOneHostTimeList) {
  const graph::Transform host = graph::RemoveHostTime({{30, 40}, {0, 10}}, "a");
  const graph::Transform steps = graph::RemoveSteps({1}, "b");
  ASSERT_TRUE(Same(host.HostRemoved(), {{0, 10}, {30, 40}}));
  const graph::Transform joint = graph::Combine({&host, &steps});
  EXPECT_EQ(joint.host_removed.get(), host.host_removed.get());
  EXPECT_EQ(joint.steps_removed, std::vector<int64_t>{1});

  const graph::Transform more = graph::RemoveHostTime({{5, 20}}, "c");
  const graph::Transform both = graph::Combine({&host, &steps, &more});
  EXPECT_TRUE(Same(both.HostRemoved(), {{0, 20}, {30, 40}}));
  EXPECT_TRUE(Same(host.HostRemoved(), {{0, 10}, {30, 40}}));  // the parts are unchanged
  EXPECT_TRUE(Same(more.HostRemoved(), {{5, 20}}));
  const graph::Transform none = graph::Combine({&steps});
  EXPECT_EQ(none.host_removed, nullptr);
  EXPECT_TRUE(none.HostRemoved().empty());
}

// One StepFacts a step lives through the diagnosis' replays: its step's times and number are
// read from the steps, not repeated (64 B before).
TEST(PerStepMemory, DiagnosisStepFactsHoldOnlyTheirCounts) {
  EXPECT_LE(sizeof(diagnosis::StepFacts), 40u);
}

// A split reads back whole, whichever causes it has (the zero ones are not stored).
TEST(PerStepMemory, SparseCauseSplitsReadBackWhole) {
  IdleGapCauses none, one, three;
  none.gap = 0;
  one.gap = 2;
  one.ns[static_cast<size_t>(IdleCause::kHost)] = 40 * kUs;
  three.gap = 5;
  three.ns[static_cast<size_t>(IdleCause::kDataLoader)] = 7;
  three.ns[static_cast<size_t>(IdleCause::kAlloc)] = 1;
  three.ns[static_cast<size_t>(IdleCause::kOther)] = 900 * kUs;
  IdleGapCauseTable table;
  table.Reserve(2);
  for (const IdleGapCauses* split : {&none, &one, &three, &one}) table.Add(*split);
  ASSERT_EQ(table.size(), 4u);
  EXPECT_EQ(table.pieces(), 5u);
  const IdleGapCauses expected[] = {none, one, three, one};
  size_t i = 0;
  for (const IdleGapCauses split : table) {
    EXPECT_EQ(split.gap, expected[i].gap);
    EXPECT_EQ(split.ns, expected[i].ns);
    EXPECT_EQ(table.gap(i), expected[i].gap);
    ++i;
  }
  EXPECT_EQ(i, 4u);
  EXPECT_EQ(table[2].ns, three.ns);
}

TEST(PerStepMemory, IdleGapsAreHandedOverNotCopied) {
  const Trace t = ManySteps(kSteps);
  const AnalysisOptions options;
  RankContext ctx(t, options);
  const std::vector<IdleGap> gaps = ctx.idle_gaps();
  const size_t causes = ctx.gap_causes().size();
  ASSERT_GE(gaps.size(), static_cast<size_t>(2 * kSteps) - 4);
  const IdleGap* storage = ctx.idle_gaps().data();
  std::vector<IdleGap> out_gaps;
  IdleGapCauseTable out_causes;
  ctx.ReleaseIdleGaps(out_gaps, out_causes);
  EXPECT_EQ(out_gaps.data(), storage);  // the context's own storage, moved
  EXPECT_TRUE(ctx.idle_gaps().empty());
  EXPECT_TRUE(ctx.gap_causes().empty());
  ASSERT_EQ(out_gaps.size(), gaps.size());
  EXPECT_EQ(out_causes.size(), causes);

  // AnalyzeTrace (which moves them) and AnalyzeRank on a context (which copies them) agree.
  StatusOr<RankAnalysis> moved = AnalyzeTrace(t, options);
  ASSERT_TRUE(moved.ok());
  const RankContext fresh(t, options);
  const RankAnalysis copied = AnalyzeRank(fresh);
  ASSERT_EQ(moved->gpu.idle_gaps.size(), copied.gpu.idle_gaps.size());
  for (size_t i = 0; i < copied.gpu.idle_gaps.size(); ++i) {
    EXPECT_EQ(moved->gpu.idle_gaps[i].start_ns, copied.gpu.idle_gaps[i].start_ns);
    EXPECT_EQ(moved->gpu.idle_gaps[i].end_ns, copied.gpu.idle_gaps[i].end_ns);
    EXPECT_EQ(moved->gpu.idle_gaps[i].kind, copied.gpu.idle_gaps[i].kind);
  }
  ASSERT_EQ(moved->gpu.idle_gap_causes.size(), copied.gpu.idle_gap_causes.size());
  for (size_t i = 0; i < copied.gpu.idle_gap_causes.size(); ++i) {
    EXPECT_EQ(moved->gpu.idle_gap_causes[i].gap, copied.gpu.idle_gap_causes[i].gap);
    EXPECT_EQ(moved->gpu.idle_gap_causes[i].ns, copied.gpu.idle_gap_causes[i].ns);
  }
}

// The rank's result and the context share one copy of the steps while the analysis runs: the
// context lends its steps to the result and reads them there (AnalyzeTrace does).
TEST(PerStepMemory, StepsAreLentNotCopied) {
  const Trace t = ManySteps(kSteps);
  const AnalysisOptions options;
  RankContext ctx(t, options);
  const StepAnalysis before = ctx.steps();
  ASSERT_GE(before.steps.size(), static_cast<size_t>(kSteps) - 2);
  const StepWindow* storage = ctx.steps().steps.data();
  StepAnalysis lent;
  ctx.LendSteps(lent);
  EXPECT_EQ(lent.steps.data(), storage);  // the context's own storage, moved
  EXPECT_EQ(&ctx.steps(), &lent);         // and read from there
  ASSERT_EQ(lent.steps.size(), before.steps.size());
  EXPECT_EQ(lent.steps.back().name, before.steps.back().name);
  EXPECT_EQ(ctx.StepAt(before.steps[7].start_ns), 7);
  EXPECT_EQ(ctx.StepOfLaunch(before.steps[7].cpu_start_ns), 7);

  // AnalyzeTrace (which lends them) and AnalyzeRank on a context (which copies them) agree.
  StatusOr<RankAnalysis> from_trace = AnalyzeTrace(t, options);
  ASSERT_TRUE(from_trace.ok());
  const RankContext fresh(t, options);
  const RankAnalysis from_context = AnalyzeRank(fresh);
  ASSERT_EQ(from_trace->steps.steps.size(), from_context.steps.steps.size());
  EXPECT_EQ(from_trace->steps.steps.front().name, from_context.steps.steps.front().name);
  ASSERT_EQ(from_trace->per_step.size(), from_context.per_step.size());
  EXPECT_EQ(from_trace->findings.size(), from_context.findings.size());
}

// AnalyzeTrace drops the op tree once the diagnosis is done (nothing after it reads the tree);
// a read after that stops the program instead of answering from an empty tree. The result is
// the one AnalyzeRank gives on a context that keeps its tree.
TEST(PerStepMemory, OpTreeIsDroppedAfterTheDiagnosis) {
  const Trace t = ManySteps(kSteps);
  const AnalysisOptions options;
  RankContext ctx(t, options);
  ASSERT_GE(ctx.op_tree().size(), static_cast<size_t>(kSteps));
  ctx.ReleaseOpTree();
  EXPECT_DEATH((void)ctx.op_tree(), "internal check failed");
  EXPECT_DEATH((void)ctx.CpuOpOfKernel(0), "internal check failed");

  StatusOr<RankAnalysis> dropped = AnalyzeTrace(t, options);
  ASSERT_TRUE(dropped.ok());
  const RankContext kept(t, options);
  const RankAnalysis full = AnalyzeRank(kept);
  ASSERT_EQ(dropped->findings.size(), full.findings.size());
  for (size_t i = 0; i < full.findings.size(); ++i) {
    EXPECT_EQ(dropped->findings[i].id, full.findings[i].id);
    EXPECT_EQ(dropped->findings[i].est_saving_pct, full.findings[i].est_saving_pct);
  }
  ASSERT_EQ(dropped->per_step.size(), full.per_step.size());
  for (size_t i = 0; i < full.per_step.size(); ++i) {
    EXPECT_EQ(dropped->per_step[i].busy_pct, full.per_step[i].busy_pct);
    EXPECT_EQ(dropped->per_step[i].kernels, full.per_step[i].kernels);
  }
  EXPECT_EQ(dropped->integrity.checks.size(), full.integrity.checks.size());
}

// A job of one rank is that rank; its idle gaps stay in ranks[0], where the exporters read
// them, and are not copied into the job's summary.
TEST(PerStepMemory, OneRankJobKeepsOneCopyOfTheGaps) {
  const Trace t = ManySteps(kSteps);
  StatusOr<RankAnalysis> ra = AnalyzeTrace(t, AnalysisOptions());
  ASSERT_TRUE(ra.ok());
  const size_t gaps = ra->gpu.idle_gaps.size(), causes = ra->gpu.idle_gap_causes.size();
  ASSERT_GT(gaps, 0u);
  std::vector<RankAnalysis> ranks;
  ranks.push_back(std::move(*ra));
  const JobAnalysis job = BuildJob(std::move(ranks), {});
  ASSERT_EQ(job.ranks.size(), 1u);
  EXPECT_EQ(job.ranks[0].gpu.idle_gaps.size(), gaps);
  EXPECT_EQ(job.ranks[0].gpu.idle_gap_causes.size(), causes);
  EXPECT_TRUE(job.job.gpu.idle_gaps.empty());
  EXPECT_TRUE(job.job.gpu.idle_gap_causes.empty());
  EXPECT_EQ(job.job.per_step.size(), job.ranks[0].per_step.size());
}

}  // namespace
}  // namespace per_step_memory_test
}  // namespace ampscope
