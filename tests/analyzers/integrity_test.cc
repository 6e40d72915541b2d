// Trace integrity (analyzers/integrity/) on small traces built by hand, one per check, with
// other names and sizes than the shared traces; each expected value is a hand calculation that
// the comment next to it shows. Shared traces: integrity_shared_traces_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "analyzers/analyze.h"
#include "analyzers/context/iterations.h"
#include "analyzers/diagnosis/diagnosis.h"
#include "analyzers/diagnosis/facts.h"
#include "analyzers/integrity/integrity.h"
#include "analyzers/integrity/warmup.h"
#include "pipeline/job.h"
#include "support/trace_builder.h"

namespace ampscope {
namespace integrity_test {
namespace {

using testing::TraceBuilder;
using testing::Us;

constexpr TimeNs kMs = 1'000'000;

const IntegrityCheck& Check(const TraceIntegrity& t, const std::string& id) {
  static const IntegrityCheck kMissing{};
  const IntegrityCheck* c = t.Find(id);
  EXPECT_NE(c, nullptr) << id;
  return c != nullptr ? *c : kMissing;
}

const Finding* FindFinding(const RankAnalysis& ra, const std::string& id) {
  for (const Finding& f : ra.findings)
    if (f.id == id) return &f;
  return nullptr;
}

RankAnalysis Analyze(const Trace& t, const AnalysisOptions& options = {}) {
  StatusOr<RankAnalysis> ra = AnalyzeTrace(t, options);
  EXPECT_TRUE(ra.ok());
  return ra.ok() ? std::move(ra).value() : RankAnalysis{};
}

// ---- steady-state detection on durations (the pure rule) ---------------------------------------

TEST(WarmupRule, AFourPointEightSecondFirstStepBeforeTwentyNineSteadyOnesIsWarmup) {
  // The maintainers' case: 4.8 s, then 29 steps of 290, 297 or 304 ms (10, 10 and 9 of them:
  // median 297 ms). 4.8 s is 16.2x that and longer than 1.2x the longest (364.8 ms): warm-up.
  // The second step (290 ms) is steady.
  std::vector<TimeNs> d = {4800 * kMs};
  for (int i = 0; i < 29; ++i) d.push_back((290 + (i * 7) % 21) * kMs);
  const WarmupVerdict v = FindWarmupSteps(d, {});
  ASSERT_EQ(v.steps.size(), 1u);
  EXPECT_EQ(v.steps[0], 0u);
  EXPECT_NE(v.reasons[0].find("4.80 s"), std::string::npos) << v.reasons[0];
  EXPECT_NE(v.reasons[0].find("16.2x"), std::string::npos) << v.reasons[0];
}

TEST(WarmupRule, GradientAccumulationIsNotWarmup) {
  // Every 4th step runs the optimizer and lasts 1.6x the others (80 vs 50 ms), from the first
  // step on: the first step is no longer than the later optimizer steps, so nothing is warm-up.
  std::vector<TimeNs> d;
  for (int i = 0; i < 24; ++i) d.push_back((i % 4 == 0 ? 80 : 50) * kMs);
  EXPECT_TRUE(FindWarmupSteps(d, {}).steps.empty());
  // Shifted (the long step last in each group of 4) and with jitter: the same.
  d.clear();
  for (int i = 0; i < 24; ++i) d.push_back((i % 4 == 3 ? 80 : 50) * kMs + (i % 3) * kMs / 2);
  EXPECT_TRUE(FindWarmupSteps(d, {}).steps.empty());
}

TEST(WarmupRule, SeveralWarmupStepsStopAtTheFirstSteadyOne) {
  // 2.0 s, 1.5 s, then 10 x 1.0 s. Step 0: 2.0 >= 1.5 x median 1.0 and > 1.2 x longest later
  // (1.5 -> 1.8): warm-up. Step 1: 1.5 >= 1.5 x 1.0 and > 1.2 x 1.0: warm-up. Step 2: steady.
  std::vector<TimeNs> d = {2000 * kMs, 1500 * kMs};
  for (int i = 0; i < 10; ++i) d.push_back(1000 * kMs);
  const WarmupVerdict v = FindWarmupSteps(d, {});
  EXPECT_EQ(v.steps, (std::vector<size_t>{0, 1}));
}

TEST(WarmupRule, AModeratelyLongerStepIsWarmupOnlyWhenOneTimeWorkExplainsIt) {
  // 130 ms then 9 x 100 ms: 1.3x the median, not the 1.5x of the duration rule alone.
  std::vector<TimeNs> d = {130 * kMs};
  for (int i = 0; i < 9; ++i) d.push_back(100 * kMs);
  EXPECT_TRUE(FindWarmupSteps(d, {}).steps.empty());
  // With 20 ms of one-time work in it (>= half of its 30 ms excess) and none later: warm-up.
  std::vector<ColdStartWork> work(d.size());
  work[0].first_launch_ns = 20 * kMs;
  work[0].first_launches = 3;
  work[0].first_launch_min_ns = 5 * kMs;
  work[0].first_launch_max_ns = 8 * kMs;
  const WarmupVerdict v = FindWarmupSteps(d, work);
  ASSERT_EQ(v.steps.size(), 1u);
  EXPECT_NE(v.reasons[0].find("3 first kernel launches of 5.0 ms-8.0 ms"), std::string::npos) << v.reasons[0];
  // 10 ms of it (a third of the excess) does not explain it.
  work[0].first_launch_ns = 10 * kMs;
  EXPECT_TRUE(FindWarmupSteps(d, work).steps.empty());
}

TEST(WarmupRule, AllocationWorkThatRecursIsNotOneTimeWork) {
  // Gradient accumulation over 4 micro-batches: every 4th step runs the optimizer, lasts 80 ms and
  // makes 4 cudaMalloc calls of 5 ms (20 ms); the others last 50 ms. The first step is that
  // optimizer step plus 1 ms (81 ms, 1.25% longer). By hand: the 19 later steps have median 50 ms
  // and longest 80 ms; 81 ms is 1.62x the median but not > 1.2 x 80 = 96 ms, so only one-time work
  // could make it warm-up, and it would need >= (81 - 50) / 2 = 15.5 ms of it. Its 20 ms of
  // allocations recur in steps 4, 8, 12, 16 (20 ms each): 20 - 20 = 0 ms is one-time. Not
  // warm-up. (The median of the later steps' work, 0 ms because 15 of 19 allocate nothing, made
  // all 20 ms one-time.)
  std::vector<TimeNs> d;
  std::vector<ColdStartWork> work(20);
  for (size_t i = 0; i < 20; ++i) {
    d.push_back((i % 4 == 0 ? 80 : 50) * kMs + (i == 0 ? kMs : 0));
    if (i % 4 == 0) {
      work[i].malloc_ns = 20 * kMs;
      work[i].mallocs = 4;
    }
  }
  EXPECT_TRUE(FindWarmupSteps(d, work).steps.empty());
  // When only the first step allocates (the optimizer state, created once), the same 20 ms are
  // one-time: 20 >= 15.5 ms, warm-up.
  for (size_t i = 1; i < work.size(); ++i) work[i] = ColdStartWork{};
  const WarmupVerdict once = FindWarmupSteps(d, work);
  ASSERT_EQ(once.steps.size(), 1u);
  EXPECT_NE(once.reasons[0].find("4 device allocations 20.0 ms"), std::string::npos) << once.reasons[0];
}

TEST(WarmupRule, OneStepAloneAndShorterFirstStepsAreNotJudged) {
  EXPECT_TRUE(FindWarmupSteps({5000 * kMs}, {}).steps.empty());
  // The CPU running ahead makes the first steps shorter, never warm-up.
  EXPECT_TRUE(FindWarmupSteps({35 * kMs, 72 * kMs, 96 * kMs, 95 * kMs, 96 * kMs}, {}).steps.empty());
}

// ---- iterations without ProfilerStep ----------------------------------------------------------

// `n` iterations of `period` on thread 1: a DataLoader range at the start, a forward with two
// kernels, an optimizer range at the end with one kernel.
TraceBuilder TrainingLoop(int n, TimeNs period, const std::string& optimizer, bool dataloader = true,
                          TimeNs first_extra = 0) {
  TraceBuilder b;
  b.AddA100();
  TimeNs t = 0;
  for (int i = 0; i < n; ++i) {
    const TimeNs len = period + (i == 0 ? first_extra : 0);
    if (dataloader) b.AddRange("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", t, t + len / 10);
    b.LaunchKernel("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn", t + len / 5, Us(5), t + len / 5 + Us(10),
                   t + len / 2);
    b.LaunchKernel("vectorized_elementwise_kernel", t + len / 2, Us(5), t + len / 2 + Us(10), t + len * 6 / 10);
    if (!optimizer.empty()) {
      b.AddRange(optimizer, t + len * 7 / 10, t + len * 9 / 10);
      b.LaunchKernel("multi_tensor_apply_kernel", t + len * 7 / 10 + Us(10), Us(5), t + len * 7 / 10 + Us(20),
                     t + len * 8 / 10);
    }
    t += len;
  }
  return b;
}

TEST(Iterations, OptimizerStepRangesMakeOneStepEach) {
  // 34 iterations of 40 ms: 34 Optimizer.step ranges, so 34 steps (the first starts with the
  // thread's first activity, the DataLoader range at 0), not one window.
  TraceBuilder b = TrainingLoop(34, 40 * kMs, "Optimizer.step#AdamW.step");
  const RankAnalysis ra = Analyze(b.Build());
  EXPECT_EQ(ra.steps.source, StepSource::kOptimizerStep);
  EXPECT_EQ(ra.steps.anchor, "Optimizer.step#AdamW.step");
  ASSERT_EQ(ra.steps.steps.size(), 34u);
  EXPECT_EQ(ra.steps.steps[0].cpu_start_ns, 0);
  // Iteration 1 runs from the end of optimizer step 0 (0.9 x 40 ms) to the end of step 1.
  EXPECT_EQ(ra.steps.steps[1].cpu_start_ns, 36 * kMs);
  EXPECT_EQ(ra.steps.steps[1].cpu_end_ns, 76 * kMs);
  EXPECT_TRUE(ra.steps.flagged.empty());
}

TEST(Iterations, DataLoaderThenForwardWhenThereIsNoOptimizer) {
  // Inference with a DataLoader: 12 iterations begin with its __next__.
  TraceBuilder dl = TrainingLoop(12, 25 * kMs, "");
  const RankAnalysis a = Analyze(dl.Build());
  EXPECT_EQ(a.steps.source, StepSource::kDataLoader);
  EXPECT_EQ(a.steps.steps.size(), 12u);
  // No DataLoader, no optimizer: a repeating top-level forward (nested module forwards inside it
  // are the same iteration).
  TraceBuilder b;
  for (int i = 0; i < 7; ++i) {
    const TimeNs t = i * 15 * kMs;
    b.AddRange("DistributedDataParallel.forward", t, t + 10 * kMs);
    b.AddRange("nn.Module: Encoder", t + kMs, t + 9 * kMs);
    b.LaunchKernel("sm90_xmma_gemm_bf16bf16_bf16f32", t + 2 * kMs, Us(4), t + 2 * kMs + Us(10), t + 8 * kMs);
  }
  const RankAnalysis f = Analyze(b.Build());
  EXPECT_EQ(f.steps.source, StepSource::kForward);
  EXPECT_EQ(f.steps.anchor, "DistributedDataParallel.forward");
  EXPECT_EQ(f.steps.steps.size(), 7u);
}

TEST(Iterations, TwoOptimizerClassesPerIterationCountOnce) {
  // Each iteration runs Shampoo.step then EMAOptimizer.step: one name is taken, 9 steps, not 18.
  TraceBuilder b = TrainingLoop(9, 30 * kMs, "Optimizer.step#Shampoo.step", false);
  for (int i = 0; i < 9; ++i)
    b.AddRange("Optimizer.step#EMAOptimizer.step", i * 30 * kMs + 27 * kMs, i * 30 * kMs + 28 * kMs);
  const RankAnalysis ra = Analyze(b.Build());
  EXPECT_EQ(ra.steps.source, StepSource::kOptimizerStep);
  EXPECT_EQ(ra.steps.steps.size(), 9u);
}

TEST(Iterations, OneRecurringRangeIsNotEnoughAndProfilerStepsWin) {
  TraceBuilder one = TrainingLoop(1, 30 * kMs, "Optimizer.step#SGD.step", false);
  EXPECT_EQ(Analyze(one.Build()).steps.source, StepSource::kNone);
  TraceBuilder b = TrainingLoop(4, 30 * kMs, "Optimizer.step#SGD.step");
  for (int i = 0; i < 4; ++i) b.AddRange("ProfilerStep#" + std::to_string(i + 3), i * 30 * kMs, (i + 1) * 30 * kMs);
  const RankAnalysis ra = Analyze(b.Build());
  EXPECT_EQ(ra.steps.source, StepSource::kProfilerStep);
  EXPECT_EQ(ra.steps.steps.size(), 4u);
}

TEST(Iterations, NoStepsMeansWindowWordsNotPerStep) {
  // One forward and no recurring range: no steps. Whatever a finding says, it says it of the
  // window ("per step" would mean "per trace").
  TraceBuilder b;
  b.AddA100();
  for (int i = 0; i < 400; ++i)
    b.LaunchKernel("vectorized_elementwise_kernel", i * Us(100), Us(4), i * Us(100) + Us(50), i * Us(100) + Us(53));
  const RankAnalysis ra = Analyze(b.Build());
  ASSERT_EQ(ra.steps.source, StepSource::kNone);
  ASSERT_FALSE(ra.findings.empty());
  for (const Finding& f : ra.findings) {
    EXPECT_EQ(f.title.find("per step"), std::string::npos) << f.id << ": " << f.title;
    EXPECT_EQ(f.recommendation.find("per step"), std::string::npos) << f.id << ": " << f.recommendation;
  }
  for (const ChecklistItem& c : ra.checklist) EXPECT_EQ(c.evidence.find("of step"), std::string::npos) << c.evidence;
}

// ---- warmup ----------------------------------------------------------------------------------

// 30 ProfilerSteps of 50 ms; the first lasts 2.4 s more and launches each kernel for the first
// time through a 40 ms launch (lazy module loading), after a 300 ms cudaStreamCreate (handles).
Trace WarmupTrace() {
  TraceBuilder b;
  b.AddA100();
  TimeNs t = 0;
  for (int i = 0; i < 30; ++i) {
    const TimeNs len = i == 0 ? 2450 * kMs : 50 * kMs;
    b.AddRange("ProfilerStep#" + std::to_string(i + 1), t, t + len);
    const TimeNs launch = i == 0 ? 40 * kMs : Us(5);
    if (i == 0) b.AddApi("cudaStreamCreateWithPriority", t + kMs, t + 301 * kMs, -1);
    const TimeNs k0 = t + len - 40 * kMs;
    b.LaunchKernel("sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize128x128x32", k0 - launch - Us(10), launch, k0, k0 + 20 * kMs);
    b.LaunchKernel("cunn_SoftMaxForward", k0 - Us(5), Us(3), k0 + 20 * kMs, k0 + 30 * kMs);
    t += len;
  }
  return b.Build();
}

TEST(Warmup, TheColdFirstStepIsLeftOutAndNamed) {
  const Trace t = WarmupTrace();
  const RankAnalysis ra = Analyze(t);
  EXPECT_EQ(ra.steps.detected, 30u);
  ASSERT_EQ(ra.steps.steps.size(), 29u);
  EXPECT_EQ(ra.steps.steps.front().number, 2);
  ASSERT_EQ(ra.steps.flagged.size(), 1u);
  EXPECT_EQ(ra.steps.flagged[0].kind, StepFlagKind::kWarmup);
  EXPECT_TRUE(ra.steps.flagged[0].excluded);
  EXPECT_EQ(ra.steps.flagged[0].window.number, 1);
  // 2450 ms against 50 ms: 49.0x; the one-time work: 1 slow first launch (the GEMM's, 40 ms;
  // the softmax launch is 3 µs) and 300 ms of stream creation.
  const std::string& why = ra.steps.flagged[0].reason;
  EXPECT_NE(why.find("2.45 s, 49.0x"), std::string::npos) << why;
  EXPECT_NE(why.find("1 first kernel launch of 40.0 ms"), std::string::npos) << why;
  EXPECT_NE(why.find("handle and plan creation 300.0 ms"), std::string::npos) << why;
  // The mean step time is the steady one: 50 ms, not (2450 + 29 x 50) / 30 = 130 ms.
  EXPECT_NEAR(ra.step_stats.mean_us, 50'000.0, 1.0);
  const IntegrityCheck& c = Check(ra.integrity, "warmup");
  EXPECT_EQ(c.status, IntegrityStatus::kWarn);
  EXPECT_TRUE(c.affects.empty());  // left out: nothing in the report rests on it
  EXPECT_NE(c.evidence.find("step 1"), std::string::npos) << c.evidence;
}

TEST(Warmup, GradientAccumulationStepsAreAllAnalysed) {
  // The false-positive guard on a whole trace: 24 ProfilerSteps, every 4th (the first included)
  // runs the optimizer and lasts 72 ms against 45 ms (1.6x). Each step's kernels are launched in
  // 5 µs, so there is no one-time work either. Every step is analysed, none flagged.
  TraceBuilder b;
  b.AddA100();
  TimeNs t = 0;
  for (int i = 0; i < 24; ++i) {
    const bool optimizer = i % 4 == 0;
    const TimeNs len = optimizer ? 72 * kMs : 45 * kMs;
    b.AddRange("ProfilerStep#" + std::to_string(i), t, t + len);
    b.LaunchKernel("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", t + kMs, Us(5), t + kMs + Us(20), t + 40 * kMs);
    if (optimizer) {
      b.AddRange("Optimizer.step#AdamW.step", t + 41 * kMs, t + 70 * kMs);
      b.LaunchKernel("multi_tensor_apply_kernel", t + 41 * kMs, Us(5), t + 41 * kMs + Us(20), t + 69 * kMs);
    }
    t += len;
  }
  const RankAnalysis ra = Analyze(b.Build());
  EXPECT_EQ(ra.steps.steps.size(), 24u);
  EXPECT_TRUE(ra.steps.flagged.empty());
  EXPECT_EQ(Check(ra.integrity, "warmup").status, IntegrityStatus::kOk);
}

TEST(Warmup, GradientAccumulationThatAllocatesEveryOptimizerStepIsAnalysedWhole) {
  // The same run as a trace: 20 ProfilerSteps; every 4th (from the first) runs the optimizer for
  // 80 ms and begins with 4 cudaMalloc calls of 5 ms; the first of them lasts 81 ms. By hand (see
  // AllocationWorkThatRecursIsNotOneTimeWork): its allocations recur in every optimizer step, so
  // nothing is warm-up: all 20 steps are analysed and the warmup check is ok (no first launches or
  // handle work; device allocations are not counted as cold-start work of the window).
  TraceBuilder b;
  b.AddA100();
  TimeNs t = 0;
  for (int i = 0; i < 20; ++i) {
    const bool optimizer = i % 4 == 0;
    const TimeNs len = (optimizer ? 80 : 50) * kMs + (i == 0 ? kMs : 0);
    b.AddRange("ProfilerStep#" + std::to_string(i), t, t + len);
    TimeNs at = t + Us(100);
    if (optimizer)
      for (int k = 0; k < 4; ++k, at += 5 * kMs + Us(10)) b.AddApi("cudaMalloc", at, at + 5 * kMs, -1);
    b.LaunchKernel("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", at, Us(5), at + Us(20), t + len - 2 * kMs);
    t += len;
  }
  const RankAnalysis ra = Analyze(b.Build());
  EXPECT_EQ(ra.steps.steps.size(), 20u);
  EXPECT_TRUE(ra.steps.flagged.empty());
  EXPECT_EQ(Check(ra.integrity, "warmup").status, IntegrityStatus::kOk) << Check(ra.integrity, "warmup").evidence;
}

TEST(Warmup, IncludeWarmupAndStepsKeepItAndSaySo) {
  const Trace t = WarmupTrace();
  AnalysisOptions keep;
  keep.include_warmup = true;
  const RankAnalysis ra = Analyze(t, keep);
  EXPECT_EQ(ra.steps.steps.size(), 30u);
  ASSERT_EQ(ra.steps.flagged.size(), 1u);
  EXPECT_FALSE(ra.steps.flagged[0].excluded);
  const IntegrityCheck& c = Check(ra.integrity, "warmup");
  EXPECT_EQ(c.status, IntegrityStatus::kFail);
  EXPECT_NE(std::find(c.affects.begin(), c.affects.end(), "steps.time_us"), c.affects.end());
  EXPECT_NE(c.evidence.find("--include-warmup"), std::string::npos) << c.evidence;
  // --steps 1..5 selects ProfilerStep#1..#5 (step numbers): the warm-up step #1 is analysed, and named.
  AnalysisOptions some;
  some.first_step = 1;
  some.last_step = 5;
  const RankAnalysis s = Analyze(t, some);
  EXPECT_EQ(s.steps.steps.size(), 5u);
  EXPECT_EQ(s.steps.steps.front().number, 1);
  EXPECT_EQ(Check(s.integrity, "warmup").status, IntegrityStatus::kFail);
  // --steps 2..5 leaves it out by itself: nothing flagged.
  some.first_step = 2;
  EXPECT_TRUE(Analyze(t, some).steps.flagged.empty());
}

TEST(Warmup, AColdStartWindowGivesColdStartProfiledNotLaunchBound) {
  // One inference call, no steps: 60 kernels of 3 µs, each launched for the first time through a
  // 5 ms launch (lazy module loading). Without steps the window is the span of GPU work, from the
  // first kernel (5.01 ms) to the last end (59 x 5.1 + 5.013 ms): 300.903 ms, with the 59 later
  // launches in it: 295 ms of one-time work, 98%: a cold start. The tiny kernels and the idle GPU
  // would otherwise read as launch-bound.
  TraceBuilder b;
  b.AddA100();
  b.AddCpuOp("aten::conv2d", 0, 310 * kMs);
  for (int i = 0; i < 60; ++i) {
    const TimeNs t = i * Us(5100);
    b.LaunchKernel("implicit_convolve_sgemm_" + std::to_string(i), t, 5 * kMs, t + Us(5010), t + Us(5013));
  }
  const RankAnalysis ra = Analyze(b.Build());
  ASSERT_EQ(ra.steps.source, StepSource::kNone);
  const IntegrityCheck& c = Check(ra.integrity, "warmup");
  EXPECT_EQ(c.status, IntegrityStatus::kFail);
  EXPECT_NE(c.evidence.find("98% of it (295.0 ms of 300.9 ms)"), std::string::npos) << c.evidence;
  EXPECT_NE(c.evidence.find("59 first kernel launches"), std::string::npos) << c.evidence;
  const Finding* cold = FindFinding(ra, "cold_start_profiled");
  ASSERT_NE(cold, nullptr);
  EXPECT_NE(cold->recommendation.find("torch.profiler.schedule(wait=1, warmup=1, active=3)"), std::string::npos);
  EXPECT_EQ(FindFinding(ra, "launch_bound"), nullptr);
  EXPECT_EQ(FindFinding(ra, "low_gpu_utilization"), nullptr);
}

// The cold call of AColdStartWindowGivesColdStartProfiledNotLaunchBound (59 first launches of
// 5 ms in a 300.9 ms window: 98% one-time work) that also allocates as a cold process does: 10
// cudaMalloc of 2 ms at the start and 6 cudaFree of 2 ms between the launches (12 ms of frees,
// 4% of the window: without steps, frees are what allocation_churn counts, and they are well over
// its 0.5%).
TraceBuilder ColdCallThatAllocates() {
  TraceBuilder b;
  b.AddA100();
  b.AddCpuOp("aten::conv2d", 0, 310 * kMs);
  for (int i = 0; i < 10; ++i) b.AddApi("cudaMalloc", Us(10) + i * Us(2010), Us(10) + i * Us(2010) + 2 * kMs, -1);
  for (int i = 0; i < 60; ++i) {
    const TimeNs t = 25 * kMs + i * Us(5100);
    b.LaunchKernel("implicit_convolve_sgemm_" + std::to_string(i), t, 5 * kMs, t + Us(5010), t + Us(5013));
    if (i % 10 == 5) b.AddApi("cudaFree", t + Us(5020), t + Us(5020) + 2 * kMs, -1);
  }
  return b;
}

TEST(Warmup, OnAColdStartWindowAllocationChurnGivesWayAndTheColdStartLeads) {
  // ColdCallThatAllocates. By hand: the window is a cold start, so the allocator calls are start-up, not
  // churn: allocation_churn gives way (named in cold_start_profiled's `replaces`), and
  // cold_start_profiled is a warning (its fix is a better profile) ranked first of all findings.
  TraceBuilder b = ColdCallThatAllocates();
  const RankAnalysis ra = Analyze(b.Build());
  ASSERT_EQ(ra.steps.source, StepSource::kNone);
  const IntegrityCheck& c = Check(ra.integrity, "warmup");
  ASSERT_EQ(c.status, IntegrityStatus::kFail) << c.evidence;
  EXPECT_EQ(FindFinding(ra, "allocation_churn"), nullptr);
  ASSERT_FALSE(ra.findings.empty());
  const Finding& first = ra.findings.front();
  EXPECT_EQ(first.id, "cold_start_profiled");
  EXPECT_EQ(first.severity, FindingSeverity::kWarning);
  EXPECT_EQ(first.est_saving_pct, 0.0);
  const Field* replaces = FindField(first.evidence, "replaces");
  ASSERT_NE(replaces, nullptr);
  const auto& ids = std::get<std::vector<std::string>>(replaces->value);
  EXPECT_NE(std::find(ids.begin(), ids.end(), "allocation_churn"), ids.end());
  // The memory item failed on those frees alone (no [memory] events, so no fragmentation or peak
  // finding): on a cold window it is unknown, with no value, and its failing finding is gone.
  const auto memory = std::find_if(ra.checklist.begin(), ra.checklist.end(), [](const ChecklistItem& i) { return i.id == "memory_fragmentation"; });
  ASSERT_NE(memory, ra.checklist.end());
  EXPECT_EQ(memory->status, CheckStatus::kUnknown) << memory->evidence;
  EXPECT_FALSE(memory->value.has_value());
  EXPECT_FALSE(memory->how_to_know.empty());
}

TEST(Warmup, AColdWindowKeepsAMemoryItemThatFailsOnItsOwnMeasure) {
  // ColdCallThatAllocates, plus a [memory] event whose peak allocated memory, 80.0 GB, is 94.1% of the A100's
  // 84.99 GB (memory_peak_near_capacity: over 90%): that failure is measured, not start-up, so the
  // item keeps it.
  TraceBuilder b = ColdCallThatAllocates();
  b.AddMemory(Us(30), 0, 80'000'000'000, 80'500'000'000);
  const RankAnalysis ra = Analyze(b.Build());
  ASSERT_NE(FindFinding(ra, "cold_start_profiled"), nullptr);
  ASSERT_NE(FindFinding(ra, "memory_peak_near_capacity"), nullptr);
  const auto memory = std::find_if(ra.checklist.begin(), ra.checklist.end(), [](const ChecklistItem& i) { return i.id == "memory_fragmentation"; });
  ASSERT_NE(memory, ra.checklist.end());
  EXPECT_NE(memory->status, CheckStatus::kUnknown) << memory->evidence;
}

TEST(Warmup, TheColdStartFindingRanksFirstAndStaysAWarning) {
  // The ranking alone (docs/findings.md, "Ranking"): a finding with a 5% saving, a risk with none,
  // and cold_start_profiled added last, as ApplyRankIntegrity adds it. cold_start_profiled comes
  // first, then by saving; the risk (fp16 without a scaler, rated warning) is info for want of a
  // saving, cold_start_profiled stays a warning.
  std::vector<Finding> findings;
  diagnosis::FindingSink out(findings);
  out.Add("host_device_sync", 5.0, "syncs", "remove them");
  out.Add("fp16_without_grad_scaler", 0.0, "no scaler", "add one");
  out.Add("cold_start_profiled", 0.0, "cold start", "profile after warm-up");
  EXPECT_EQ(findings[1].severity, FindingSeverity::kInfo);
  EXPECT_EQ(findings[2].severity, FindingSeverity::kWarning);
  diagnosis::RankFindings(findings);
  ASSERT_EQ(findings.size(), 3u);
  EXPECT_EQ(findings[0].id, "cold_start_profiled");
  EXPECT_EQ(findings[1].id, "host_device_sync");
  EXPECT_EQ(findings[2].id, "fp16_without_grad_scaler");
}

// ---- sampling --------------------------------------------------------------------------------

// 4 steps of 20 launches each; correlation ids advance by `stride` per launch.
Trace Launches(int64_t stride, int without_kernels = 0) {
  TraceBuilder b;
  b.AddA100();
  int64_t corr = 1000;
  for (int s = 0; s < 4; ++s) {
    const TimeNs t0 = s * 10 * kMs;
    b.AddRange("ProfilerStep#" + std::to_string(s), t0, t0 + 10 * kMs);
    for (int i = 0; i < 20; ++i) {
      const TimeNs t = t0 + i * Us(400);
      b.AddApi("cudaLaunchKernel", t, t + Us(5), corr);
      if (s * 20 + i >= without_kernels) b.AddKernel("void at::native::reduce_kernel<512, 1>", t + Us(20), t + Us(300), corr);
      corr += stride;
    }
  }
  return b.Build();
}

TEST(Sampling, ThinnedCorrelationIdsFailDenseOnesPass) {
  // 80 launches, ids every 3: 1 call per 3 ids (ok). Every 100: 1 per ~99 ids, median gap 100 (fail).
  EXPECT_EQ(Check(Analyze(Launches(3)).integrity, "sampling").status, IntegrityStatus::kOk);
  const RankAnalysis sampled = Analyze(Launches(100));
  const IntegrityCheck& c = Check(sampled.integrity, "sampling");
  EXPECT_EQ(c.status, IntegrityStatus::kFail);
  EXPECT_NE(c.evidence.find("1 runtime call per 99 correlation ids"), std::string::npos) << c.evidence;
  EXPECT_NE(std::find(c.affects.begin(), c.affects.end(), "gpu.idle_pct"), c.affects.end());
  for (const Finding& f : sampled.findings)
    if (std::find(c.affects.begin(), c.affects.end(), f.id) != c.affects.end()) {
      EXPECT_EQ(f.confidence, Confidence::kLow) << f.id;
    }
}

TEST(Sampling, LaunchesWithoutTheirKernels) {
  // 16 of 80 launches (20%) have no kernel: fail.
  const RankAnalysis ra = Analyze(Launches(2, 16));
  const IntegrityCheck& c = Check(ra.integrity, "sampling");
  EXPECT_EQ(c.status, IntegrityStatus::kFail);
  EXPECT_NE(c.evidence.find("16 of 80 kernel launches (20.0%)"), std::string::npos) << c.evidence;
}

// ---- empty steps, cut steps ------------------------------------------------------------------

// `n` ProfilerSteps of 10 ms; kernels[i] kernels in step i.
Trace StepsWithKernels(const std::vector<int>& kernels) {
  TraceBuilder b;
  b.AddA100();
  for (size_t s = 0; s < kernels.size(); ++s) {
    const TimeNs t0 = static_cast<TimeNs>(s) * 10 * kMs;
    b.AddRange("ProfilerStep#" + std::to_string(s + 40), t0, t0 + 10 * kMs);
    for (int i = 0; i < kernels[s]; ++i)
      b.LaunchKernel("elementwise_kernel_with_index", t0 + i * Us(200), Us(5), t0 + i * Us(200) + Us(30),
                     t0 + i * Us(200) + Us(150));
  }
  return b.Build();
}

TEST(EmptySteps, StepsWithoutGpuWorkInTheMiddle) {
  // 8 steps, the 3rd-5th without kernels: 3 of 8 >= 25%: fail.
  const RankAnalysis ra = Analyze(StepsWithKernels({20, 20, 0, 0, 0, 20, 20, 20}));
  const IntegrityCheck& c = Check(ra.integrity, "empty_steps");
  EXPECT_EQ(c.status, IntegrityStatus::kFail);
  EXPECT_NE(c.evidence.find("3 of 8 analysed steps"), std::string::npos) << c.evidence;
  // One step with 4 of the median 20 kernels among 8: warn.
  EXPECT_EQ(Check(Analyze(StepsWithKernels({20, 20, 20, 4, 20, 20, 20, 20})).integrity, "empty_steps").status,
            IntegrityStatus::kWarn);
  EXPECT_EQ(Check(Analyze(StepsWithKernels({20, 20, 20, 20})).integrity, "empty_steps").status, IntegrityStatus::kOk);
}

TEST(EmptySteps, MostStepsEmptyIsStillEmptyAndNoneWithKernelsSaysSo) {
  // 7 steps, 5 without kernels; the first, without GPU work at the profile's start, is left out as
  // cut (CutSteps), so 6 are analysed: 4 are empty beside the 2 with kernels although the median is
  // 0 (4 of 6 >= 25%: fail). It read "every analysed step has GPU work (median 0 kernels per step)".
  const RankAnalysis most_empty = Analyze(StepsWithKernels({0, 20, 0, 0, 0, 20, 0}));
  const IntegrityCheck& most = Check(most_empty.integrity, "empty_steps");
  EXPECT_EQ(most.status, IntegrityStatus::kFail);
  EXPECT_NE(most.evidence.find("4 of 6 analysed steps have no GPU work recorded (median 0 kernels"), std::string::npos)
      << most.evidence;
  // No step has kernels (a recording without GPU work): nothing to compare, and not "every step has GPU work".
  const RankAnalysis no_kernels = Analyze(StepsWithKernels({0, 0, 0}));
  const IntegrityCheck& none = Check(no_kernels.integrity, "empty_steps");
  EXPECT_EQ(none.status, IntegrityStatus::kOk);
  EXPECT_EQ(none.evidence.find("every analysed step has GPU work"), std::string::npos) << none.evidence;
  EXPECT_NE(none.evidence.find("no analysed step has kernels"), std::string::npos) << none.evidence;
}

TEST(CutSteps, ALastStepWithLittleGpuWorkIsLeftOut) {
  // 5 steps; the last launched 3 kernels, under half of the fewest of the others (18): cut.
  const RankAnalysis ra = Analyze(StepsWithKernels({20, 18, 20, 20, 3}));
  EXPECT_EQ(ra.steps.steps.size(), 4u);
  ASSERT_EQ(ra.steps.flagged.size(), 1u);
  EXPECT_EQ(ra.steps.flagged[0].kind, StepFlagKind::kCut);
  EXPECT_EQ(ra.steps.flagged[0].window.number, 44);
  EXPECT_EQ(Check(ra.integrity, "cut_steps").status, IntegrityStatus::kWarn);
  // Steps that alternate (a long and a short half) are not cut: 9 is not under half of 9.
  EXPECT_TRUE(Analyze(StepsWithKernels({20, 9, 20, 9, 20, 9})).steps.flagged.empty());
  // Trailing steps without GPU work: 3 of 6 cut, fail (most steps' GPU work is missing).
  const RankAnalysis many = Analyze(StepsWithKernels({20, 20, 20, 0, 0, 0}));
  EXPECT_EQ(many.steps.steps.size(), 3u);
  EXPECT_EQ(Check(many.integrity, "cut_steps").status, IntegrityStatus::kFail);
}

// ---- dropped events, CUDA graphs -------------------------------------------------------------

TEST(DroppedEvents, CuptiDropsAndOverflowMarkers) {
  Trace t = StepsWithKernels({20, 20, 20});
  EXPECT_EQ(Check(Analyze(t).integrity, "dropped_events").status, IntegrityStatus::kOk);
  t.diagnostics.AddCount(DiagCode::kCuptiDroppedRecords, 3, -1, "dropped");
  // 3 dropped records of ~180 events (< 1%? no: 3 / 183 = 1.6%): fail.
  t.metadata.event_count = 183;
  EXPECT_EQ(Check(Analyze(t).integrity, "dropped_events").status, IntegrityStatus::kFail);
  t.metadata.event_count = 10'000;  // 3 of 10,000: warn
  EXPECT_EQ(Check(Analyze(t).integrity, "dropped_events").status, IntegrityStatus::kWarn);
  // An apex-style "check_overflow" range is training code, not a profiler marker.
  TraceBuilder b;
  b.AddRange("ProfilerStep#1", 0, 10 * kMs);
  b.AddRange("check_overflow", kMs, 2 * kMs);
  b.LaunchKernel("k", Us(10), Us(5), Us(20), Us(30));
  EXPECT_EQ(Check(Analyze(b.Build()).integrity, "dropped_events").status, IntegrityStatus::kOk);
  b.AddRange("CUPTI activity buffer overflow", 3 * kMs, 3 * kMs);
  EXPECT_EQ(Check(Analyze(b.Build()).integrity, "dropped_events").status, IntegrityStatus::kWarn);
}

TEST(DroppedEvents, AProfilerThatStoppedEarlyFails) {
  // However few records it counted, a profiler that stopped collecting lost everything after.
  Trace t = StepsWithKernels({20, 20, 20});
  t.metadata.event_count = 1'000'000;
  t.diagnostics.AddCount(DiagCode::kProfilerStoppedEarly, 1, -1, "stopped early");
  const IntegrityCheck c = Check(Analyze(t).integrity, "dropped_events");
  EXPECT_EQ(c.status, IntegrityStatus::kFail);
  EXPECT_NE(c.evidence.find("stopped collecting early"), std::string::npos) << c.evidence;
}

TEST(CudaGraphs, GraphLaunchesWithoutKernels) {
  // 6 graph replays, each cudaGraphLaunch with a correlation id; kernels recorded for 2 of them.
  TraceBuilder b;
  b.AddA100();
  for (int i = 0; i < 6; ++i) {
    const TimeNs t = i * 5 * kMs;
    b.AddRange("ProfilerStep#" + std::to_string(i), t, t + 5 * kMs);
    const int64_t corr = b.NewCorrelation();
    b.AddApi("cudaGraphLaunch", t + Us(10), t + Us(30), corr);
    if (i < 2) b.AddKernel("sm90_xmma_gemm_bf16bf16", t + Us(40), t + 4 * kMs, corr).graph_id = 7;
  }
  const RankAnalysis ra = Analyze(b.Build());
  const IntegrityCheck& c = Check(ra.integrity, "cuda_graphs");
  EXPECT_EQ(c.status, IntegrityStatus::kFail);  // 4 of 6 = 67% >= 50%
  EXPECT_NE(c.evidence.find("4 of 6 CUDA-graph launches"), std::string::npos) << c.evidence;
  EXPECT_NE(std::find(c.affects.begin(), c.affects.end(), "gpu.busy_pct"), c.affects.end());
}

// ---- the job: missing ranks, clock offsets ----------------------------------------------------

RankAnalysis RankOf(int32_t rank, int32_t world, const std::string& host = "") {
  RankAnalysis r;
  r.rank = rank;
  r.input.trace_rank = rank;
  r.input.world_size = world;
  r.input.path = "rank" + std::to_string(rank) + ".json";
  r.comm.host = host;
  return r;
}

TEST(JobIntegrity, ThreeRanksOfAWorldOfSixteenAreAPartialJob) {
  // Ranks 0, 5 and 9 of 16: 13 missing (1-4, 6-8, 10-15).
  JobAnalysis job = BuildJob({RankOf(0, 16), RankOf(5, 16), RankOf(9, 16)});
  EXPECT_EQ(job.missing_ranks, 13u);
  EXPECT_EQ(job.world_size, 16);
  const IntegrityCheck& c = Check(job.integrity, "missing_ranks");
  EXPECT_EQ(c.status, IntegrityStatus::kWarn);
  EXPECT_NE(c.evidence.find("missing: 1-4, 6-8, 10-15"), std::string::npos) << c.evidence;
  ASSERT_FALSE(job.warnings.empty());
  EXPECT_NE(job.warnings.back().find("3 of the 16 ranks"), std::string::npos) << job.warnings.back();
  // All 4 of 4: nothing missing. One rank alone: not a partial job.
  JobAnalysis all = BuildJob({RankOf(0, 4), RankOf(1, 4), RankOf(2, 4), RankOf(3, 4)});
  EXPECT_EQ(all.missing_ranks, 0u);
  EXPECT_EQ(Check(all.integrity, "missing_ranks").status, IntegrityStatus::kOk);
  EXPECT_EQ(Check(BuildJob({RankOf(3, 64)}).integrity, "missing_ranks").status, IntegrityStatus::kOk);
}

CollectiveCall Collective(int64_t seq, TimeNs start, TimeNs end) {
  CollectiveCall c;
  c.type = CollectiveType::kAllReduce;
  c.process_group = "0";
  c.match_key = "0";
  c.seq = seq;
  c.start_ns = start;
  c.end_ns = end;
  return c;
}

TEST(JobIntegrity, ClockOffsetsFromTheEndsOfCollectives) {
  // Two hosts; 5 all-reduces that end together on both ranks' true clock; rank 1's clock reads
  // 3 ms later. The median end of each collective is halfway: offsets -1.5 and +1.5 ms, a
  // spread of 3.0 ms > 50 µs: warn.
  RankAnalysis a = RankOf(0, 2, "node-a"), b = RankOf(1, 2, "node-b");
  for (int i = 0; i < 5; ++i) {
    const TimeNs end = (i + 1) * 20 * kMs;
    a.collectives.push_back(Collective(i, end - 2 * kMs, end));
    b.collectives.push_back(Collective(i, end - 1 * kMs + 3 * kMs, end + 3 * kMs));
  }
  JobAnalysis job = BuildJob({a, b});
  const IntegrityCheck& c = Check(job.integrity, "clock_offsets");
  EXPECT_EQ(c.status, IntegrityStatus::kWarn);
  EXPECT_NE(c.evidence.find("up to 3.0 ms"), std::string::npos) << c.evidence;
  // The same ends on one clock: ok.
  RankAnalysis c0 = RankOf(0, 2, "node-a"), c1 = RankOf(1, 2, "node-b");
  for (int i = 0; i < 5; ++i) {
    const TimeNs end = (i + 1) * 20 * kMs;
    c0.collectives.push_back(Collective(i, end - 2 * kMs, end));
    c1.collectives.push_back(Collective(i, end - 1 * kMs, end + Us(4)));
  }
  EXPECT_EQ(Check(BuildJob({c0, c1}).integrity, "clock_offsets").status, IntegrityStatus::kOk);
}

}  // namespace
}  // namespace integrity_test
}  // namespace ampscope
