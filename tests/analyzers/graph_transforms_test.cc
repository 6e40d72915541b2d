// The what-if transforms (analyzers/graph/transforms.h, docs/whatif.md) on small built traces,
// each with its answer computed by hand in the comments: the run's timeline, the replayed
// timeline with the fix, and so the saving. Every case also checks that the unchanged replay
// gives the measured steps back and that the saving is no more than the time the fix changes.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "analyzers/context/context.h"
#include "analyzers/graph/amp_transform.h"
#include "analyzers/graph/graph_builder.h"
#include "analyzers/graph/transforms.h"
#include "analyzers/graph/whatif.h"
#include "analyzers/peaks/gpu_peaks.h"
#include "support/trace_builder.h"

namespace ampscope {
namespace graph_transforms_test {
namespace {

using testing::TraceBuilder;
using testing::Us;

struct Outcome {
  TimeNs measured = 0, replayed = 0, with_fix = 0, changed = 0;
  graph::PathBreakdown path;
};

// Replays `trace` unchanged and with `fix` (a function of the context, built after it).
template <typename MakeFix>
Outcome Replay(const Trace& trace, MakeFix make_fix, const AnalysisOptions& options = {}) {
  const RankContext ctx(trace, options);
  const graph::Transform fix = make_fix(ctx);
  const graph::WhatIfResult w = graph::RunWhatIf(ctx, {&fix});
  Outcome o;
  EXPECT_TRUE(w.path->available) << w.path->reason;
  o.measured = w.path->measured_window_ns;
  o.replayed = w.path->replayed_window_ns;
  o.with_fix = w.outcomes[0].replayed_window_ns;
  o.changed = w.outcomes[0].changed_ns;
  o.path = w.path->window;
  // The unchanged replay is the run; the fix saves no more than the time it changes.
  EXPECT_EQ(o.replayed, o.measured);
  EXPECT_EQ(w.path->replay_error_pct, 0.0);
  EXPECT_LE(o.replayed - o.with_fix, o.changed);
  EXPECT_EQ(o.path.length_ns, o.replayed);
  return o;
}

TimeNs Cat(const graph::PathBreakdown& b, graph::PathCategory c) { return b.ns[static_cast<size_t>(c)]; }

// One step on thread 1 from 0 to `cpu_end` µs.
TraceBuilder StepOf(double cpu_end) {
  TraceBuilder b;
  b.AddA100();
  b.AddRange("ProfilerStep#1", Us(0), Us(cpu_end));
  return b;
}

TEST(GraphTransforms, ScaleKernelsOnAGpuBoundStep) {
  // Host: three 1 µs launches at 1, 2, 3 µs; the CPU range ends at 100 µs. GPU: K1 [10, 210),
  // K2 [210, 410), K3 [410, 610) back to back on stream 7. The step ends with K3: 610 µs.
  TraceBuilder b = StepOf(100);
  b.LaunchKernel("elementwise_kernel_a", Us(1), Us(1), Us(10), Us(210));
  b.LaunchKernel("elementwise_kernel_b", Us(2), Us(1), Us(210), Us(410));
  b.LaunchKernel("elementwise_kernel_c", Us(3), Us(1), Us(410), Us(610));
  const Trace t = b.Build();
  // K2 at half its time: K2 [210, 310), K3 [310, 510): the step ends at 510 µs, 100 µs sooner.
  const Outcome o = Replay(t, [](const RankContext& ctx) { return graph::ScaleKernels(ctx.trace(), {1}, 0.5, "K2"); });
  EXPECT_EQ(o.measured, Us(610));
  EXPECT_EQ(o.with_fix, Us(510));
  // Critical path: K3, K2, K1 (600 µs of GPU compute), the launch latency of K1 (10 - 1 = 9 µs,
  // the trace's 5th-percentile latency) and the host time before the first launch (1 µs, no op
  // covers it).
  EXPECT_EQ(Cat(o.path, graph::PathCategory::kGpuCompute), Us(600));
  EXPECT_EQ(Cat(o.path, graph::PathCategory::kLaunchDelay), Us(9));
  EXPECT_EQ(Cat(o.path, graph::PathCategory::kUnrecordedHost), Us(1));
}

TEST(GraphTransforms, RemovingASyncLetsTheHostRunAhead) {
  // Host: launch [10, 15) -> K1 [20, 220); cudaStreamSynchronize [15, 225) waits for K1;
  // launch [300, 305) -> K2 [310, 350); the CPU range ends at 400 µs. The step lasts 400 µs.
  TraceBuilder b = StepOf(400);
  const KernelEvent& k1 = b.LaunchKernel("gemm_kernel", Us(10), Us(5), Us(20), Us(220));
  const int32_t stream = k1.stream;
  const int64_t sync = b.NewCorrelation();
  b.AddApi("cudaStreamSynchronize", Us(15), Us(225), sync);
  b.AddSync(SyncType::kStreamSync, Us(15), Us(225), sync).stream = stream;
  b.LaunchKernel("gemm_kernel", Us(300), Us(5), Us(310), Us(350));
  const Trace t = b.Build();
  // Without the sync (its call gone): the host's 75 µs before the second launch start at 15,
  // so that launch is [90, 95); K2 waits for K1 on its stream: [220, 260); the host's last
  // 95 µs end at 190. The step ends with K2 at 260 µs: 140 µs sooner.
  const Outcome o = Replay(t, [](const RankContext& ctx) {
    std::vector<uint32_t> calls;
    for (uint32_t i = 0; i < ctx.trace().api_calls.size(); ++i)
      if (ctx.api_role(i) == ApiRole::kSync) calls.push_back(i);
    return graph::RemoveNodes(ctx.trace(), {}, calls, "the sync");
  });
  EXPECT_EQ(o.measured, Us(400));
  EXPECT_EQ(o.with_fix, Us(260));
  EXPECT_EQ(o.changed, Us(210));  // the sync's measured time
}

TEST(GraphTransforms, OverlappedCommunicationStillRunsBesideTheStep) {
  // A communication-bound step: K1 [20, 70) on stream 7 (launched at [10, 15)), an all-reduce
  // [70, 370) on stream 20 (launched at [15, 20)), a cudaStreamSynchronize [20, 375) on it, then
  // K2 [390, 440) (launched at [380, 385)); the CPU range ends at 450 µs.
  TraceBuilder b = StepOf(450);
  b.LaunchKernel("gemm_kernel", Us(10), Us(5), Us(20), Us(70));
  b.LaunchKernel("ncclKernel_AllReduce_RING_LL_Sum_float", Us(15), Us(5), Us(70), Us(370), 20);
  const int64_t sync = b.NewCorrelation();
  b.AddApi("cudaStreamSynchronize", Us(20), Us(375), sync);
  b.AddSync(SyncType::kStreamSync, Us(20), Us(375), sync).stream = 20;
  b.LaunchKernel("gemm_kernel", Us(380), Us(5), Us(390), Us(440));
  const Trace t = b.Build();
  // Full overlap: nothing waits for the all-reduce, and the host's and K2's work (150 µs from
  // the step's start) fits under it. But it still runs: the step lasts its 300 µs, not 150.
  const Outcome o = Replay(t, [](const RankContext& ctx) { return graph::OverlapKernels(ctx.trace(), {1}, "the all-reduce"); });
  EXPECT_EQ(o.measured, Us(450));
  EXPECT_EQ(o.with_fix, Us(300));
  // Removed instead (it would take no time at all), the step would be shorter than the
  // all-reduce alone.
  const Outcome removed = Replay(t, [](const RankContext& ctx) { return graph::ScaleKernels(ctx.trace(), {1}, 0.0, "the all-reduce"); });
  EXPECT_LT(removed.with_fix, Us(300));
}

TEST(GraphTransforms, FusedChainTakesTheFusedTime) {
  // K1 [100, 130), K2 [130, 170), K3 [170, 220) back to back, launched at 1, 2, 3 µs; CPU range
  // [0, 50). Fused into one kernel of 50 µs where K3 ran (its longest member): K1 and K2 take no
  // time, K3 [100, 150): the step ends at 150 µs instead of 220, 70 µs = 30 + 40 + 50 - 50.
  TraceBuilder b = StepOf(50);
  b.LaunchKernel("elementwise_kernel_a", Us(1), Us(1), Us(100), Us(130));
  b.LaunchKernel("elementwise_kernel_b", Us(2), Us(1), Us(130), Us(170));
  b.LaunchKernel("elementwise_kernel_c", Us(3), Us(1), Us(170), Us(220));
  const Trace t = b.Build();
  const Outcome o = Replay(t, [](const RankContext& ctx) { return graph::FuseChains(ctx.trace(), {{0, 1, 2}}, {Us(50)}, "the chain"); });
  EXPECT_EQ(o.measured, Us(220));
  EXPECT_EQ(o.with_fix, Us(150));
  EXPECT_EQ(o.changed, Us(120));  // the chain's kernels
}

TEST(GraphTransforms, AmpRetimesAnFp32GemmFromItsFlopsAtTheTensorCorePeak) {
  // An A100-SXM4-80GB (datasheet: 312 TFLOP/s fp16 Tensor Core, 19.5 TFLOP/s fp32, 2039 GB/s)
  // runs aten::mm of two fp32 1024 x 1024 matrices as a 500 µs SIMT kernel [100, 600).
  TraceBuilder b = StepOf(50);
  b.AddCpuOp("aten::mm", Us(0.5), Us(3), 7, "[\"float\",\"float\"]", "[[1024,1024],[1024,1024]]");
  KernelEvent& k = b.LaunchKernel("ampere_sgemm_128x64_nn", Us(1), Us(1), Us(100), Us(600));
  k.external_id = 7;
  const Trace t = b.Build();
  const GpuPeak* a100 = LookupGpuPeak("NVIDIA A100-SXM4-80GB");
  ASSERT_NE(a100, nullptr);
  ASSERT_EQ(a100->fp16_tflops, 312);
  ASSERT_EQ(a100->fp32_tflops, 19.5);
  ASSERT_EQ(a100->hbm_gbs, 2039);
  graph::AmpEstimate est;
  const Outcome o = Replay(t, [&](const RankContext& ctx) {
    graph::AmpInputs in;
    in.peak = a100;
    est = graph::AmpTransform(ctx, in);
    return est.transform;
  });
  // FLOPs 2 x 1024^3 at 312 TFLOP/s x 0.5 (no fp16 GEMM in the trace: the default efficiency)
  // take 13.77 µs; half the 3 x 4 MiB at 70% of 2039 GB/s take 4.41 µs; but no kernel gains
  // more than the peak ratio 19.5 / 312: 500 x 0.0625 = 31.25 µs. A forward op also casts its
  // weight: a third of its fp32 traffic, read at 4 and written at 2 bytes an element:
  // 0.5 x 12,582,912 B / (0.7 x 2039 GB/s) = 4.408 µs. So 35.658 µs.
  const double cast_us = 0.5 * 12582912.0 / (0.7 * 2039e9) * 1e6;
  const double expected_us = 31.25 + cast_us;
  EXPECT_EQ(est.matmul_kernels, 1u);
  EXPECT_EQ(est.matmul_kernels_with_shapes, 1u);
  EXPECT_NEAR(static_cast<double>(est.whatif_kernel_ns) / 1e3, expected_us, 0.002);
  EXPECT_EQ(est.kernel_ns, Us(500));
  // The step ended with the kernel at 600 µs; now at 100 + 35.658.
  EXPECT_NEAR(static_cast<double>(o.with_fix) / 1e3, 100 + expected_us, 0.002);
}

// A GPU with no peak row (an MI250 here, or a name the table lacks): the matmuls take the fallback
// ratios, and the selection says so instead of "at 0 TFLOP/s".
TEST(GraphTransforms, AmpWithoutAPeakSaysSoNotZeroTflops) {
  TraceBuilder b = StepOf(50);
  b.LaunchKernel("ampere_sgemm_128x64_nn", Us(1), Us(1), Us(100), Us(600));
  const Trace t = b.Build();
  graph::AmpEstimate est;
  Replay(t, [&](const RankContext& ctx) {
    graph::AmpInputs in;  // no peak
    in.fallback_fp32_ratio = 0.25;
    est = graph::AmpTransform(ctx, in);
    return est.transform;
  });
  EXPECT_EQ(est.matmul_kernels, 1u);
  EXPECT_EQ(est.transform.selection.find("0 TFLOP/s"), std::string::npos) << est.transform.selection;
  EXPECT_NE(est.transform.selection.find("at 0.25x (fp32)"), std::string::npos) << est.transform.selection;
  EXPECT_NE(est.transform.selection.find("no fp16/bf16 peak is known for this GPU"), std::string::npos);
}

// Without op shapes and without an fp16/bf16 matmul of its own, an fp32 SIMT GEMM on a V100 gains
// at most the typical 3x (amp_transform.h: Carilli et al., GTC 2018, 2-4x on Volta), not the
// peak ratio x the default efficiency ratio (125 / 15.7 x 0.7 / 0.5 = 5.7x).
TEST(GraphTransforms, AmpWithoutShapesOnAV100GainsTheTypicalSpeedup) {
  // A V100 step: an fp32 SIMT GEMM [100, 750) (650 µs, no recorded shapes) and an elementwise
  // kernel [750, 1100) (350 µs), both launched at the start (CPU range [0, 50)).
  TraceBuilder b;
  b.AddDevice(0, "Tesla V100-SXM2-32GB", 7, 0);
  b.AddRange("ProfilerStep#1", Us(0), Us(50));
  b.LaunchKernel("volta_sgemm_128x64_nn", Us(1), Us(1), Us(100), Us(750));
  b.LaunchKernel("elementwise_kernel", Us(2), Us(1), Us(750), Us(1100));
  const Trace t = b.Build();
  const GpuPeak* v100 = LookupGpuPeak("Tesla V100-SXM2-32GB");
  ASSERT_NE(v100, nullptr);
  ASSERT_EQ(v100->fp32_tflops, 15.7);
  ASSERT_EQ(v100->fp16_tflops, 125);
  graph::AmpEstimate est;
  Replay(t, [&](const RankContext& ctx) {
    graph::AmpInputs in;
    in.peak = v100;
    est = graph::AmpTransform(ctx, in);
    return est.transform;
  });
  // GEMM: 650 / 3 = 216.667 µs; elementwise: half its bytes, 175 µs. 1000 µs of kernels become
  // 391.667 µs: 2.55x, where the peak-ratio fallback made the GEMM 114.2 µs (289.2 µs, 3.46x).
  EXPECT_EQ(est.matmul_kernels, 1u);
  EXPECT_EQ(est.matmul_kernels_with_shapes, 0u);
  EXPECT_NEAR(static_cast<double>(est.matmul_whatif_ns) / 1e3, 650.0 / 3.0, 0.001);
  EXPECT_EQ(est.memory_bound_whatif_ns, Us(175));
  EXPECT_NEAR(static_cast<double>(est.whatif_kernel_ns) / 1e3, 650.0 / 3.0 + 175.0, 0.001);
  EXPECT_NE(est.transform.selection.find("1 fp32 SIMT kernels without shapes at most 3x faster"), std::string::npos)
      << est.transform.selection;
}

TEST(GraphTransforms, NoDataLoaderWait) {
  // The DataLoader range takes [0, 1000) µs of the step, then a launch [1000, 1005) -> kernel
  // [1010, 1090); the CPU range ends at 1100. Without the DataLoader's time the launch is at 0,
  // the kernel [10, 90), the CPU range ends at 100: 1000 µs sooner.
  TraceBuilder b = StepOf(1100);
  b.AddRange("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", Us(0), Us(1000));
  b.LaunchKernel("gemm_kernel", Us(1000), Us(5), Us(1010), Us(1090));
  const Trace t = b.Build();
  const Outcome o = Replay(t, [](const RankContext&) { return graph::NoDataLoaderWait("DataLoader"); });
  EXPECT_EQ(o.measured, Us(1100));
  EXPECT_EQ(o.with_fix, Us(100));
  EXPECT_EQ(Cat(o.path, graph::PathCategory::kHostBound), Us(1000) + Us(5));  // the DataLoader and the launch call
}

TEST(GraphTransforms, CudaGraphLaunchCollapsesLaunchOverhead) {
  // Four 10 µs launches at 20, 50, 80, 110 µs (20 µs of host time between them); each kernel
  // runs 2 µs, 15 µs after its launch starts; the CPU range ends at 130. Replayed as a CUDA
  // graph: the launches and the host time between them take nothing, so the host reaches the
  // last 10 µs at 20 and ends at 30; the kernels start 1 µs after the (collapsed) launch and run
  // back to back [21, 29). The step ends at 30 µs instead of 130.
  TraceBuilder b = StepOf(130);
  for (int i = 0; i < 4; ++i) b.LaunchKernel("elementwise_kernel", Us(20 + 30 * i), Us(10), Us(35 + 30 * i), Us(37 + 30 * i));
  const Trace t = b.Build();
  const Outcome o = Replay(t, [](const RankContext& ctx) { return graph::CudaGraphLaunch(ctx, {0, 1, 2, 3}, "all"); });
  EXPECT_EQ(o.measured, Us(130));
  EXPECT_EQ(o.with_fix, Us(30));
}

TEST(GraphTransforms, NoStragglerDelayThroughAnEventWait) {
  // An all-reduce on stream 20 [100, 1100) launched at 10; the thread records an event after it
  // (cudaEventRecord [15, 16)), makes stream 7 wait for it (cudaStreamWaitEvent [17, 18)) and
  // launches K [1100, 1200) on stream 7. The step (CPU range [0, 50)) ends with K at 1200 µs.
  // With the all-reduce 800 µs shorter (the late rank's delay): it ends at 300, K [300, 400).
  TraceBuilder b = StepOf(50);
  b.LaunchKernel("ncclKernel_AllReduce_RING_LL_Sum_float", Us(10), Us(2), Us(100), Us(1100), 20);
  b.AddApi("cudaEventRecord", Us(15), Us(16), b.NewCorrelation());
  b.AddApi("cudaStreamWaitEvent", Us(17), Us(18), b.NewCorrelation());
  b.LaunchKernel("gemm_kernel", Us(20), Us(1), Us(1100), Us(1200), 7);
  const Trace t = b.Build();
  const Outcome o = Replay(t, [](const RankContext& ctx) { return graph::NoStragglerDelay(ctx.trace(), {{0, Us(800)}}, "rank 3's delay"); });
  EXPECT_EQ(o.measured, Us(1200));
  EXPECT_EQ(o.with_fix, Us(400));
  EXPECT_EQ(Cat(o.path, graph::PathCategory::kCommunication), Us(1000));
}

TEST(GraphTransforms, RemovedStepShiftsTheNextOne) {
  // Three steps of 100 µs, each with a kernel [10, 90) µs into it. Without the second step the
  // third starts where the first ended: 200 µs in all.
  TraceBuilder b;
  b.AddA100();
  for (int s = 0; s < 3; ++s) {
    b.AddRange("ProfilerStep#" + std::to_string(s + 1), Us(100 * s), Us(100 * s + 100));
    b.LaunchKernel("gemm_kernel", Us(100 * s + 2), Us(3), Us(100 * s + 10), Us(100 * s + 90));
  }
  const Trace t = b.Build();
  const Outcome o = Replay(t, [](const RankContext&) { return graph::RemoveSteps({1}, "step 2"); });
  EXPECT_EQ(o.measured, Us(300));
  EXPECT_EQ(o.with_fix, Us(200));
}

TEST(GraphTransforms, AWindowThatStartsAfterTheFirstStepReplaysItsMeasuredSteps) {
  // The host runs ahead of the GPU: step s (1..3) has the CPU range [100(s-1), 100s) µs and
  // launches one kernel at 100(s-1) + 10 (a 1 µs call). K1 runs [20, 500), K2 [500, 700) and
  // K3 [700, 900) back to back on one stream. A step lasts from its CPU start, or from where the
  // step before it ended if that is later, to the end of its GPU work (steps.cc): #1 [0, 500),
  // #2 [500, 700), #3 [700, 900).
  TraceBuilder b;
  b.AddA100();
  const double kernel[4] = {20, 500, 700, 900};
  for (int s = 1; s <= 3; ++s) {
    b.AddRange("ProfilerStep#" + std::to_string(s), Us(100 * (s - 1)), Us(100 * s));
    b.LaunchKernel("gemm_kernel", Us(100 * (s - 1) + 10), Us(1), Us(kernel[s - 1]), Us(kernel[s]));
  }
  const Trace t = b.Build();
  // --steps 2..3: step 1 lies before the window. Measured: 200 + 200 = 400 µs. Step 2 starts
  // where step 1 ended (500), not at its CPU start (100): replayed from its CPU start it was
  // 600 µs (an error of 200%).
  AnalysisOptions from_step_2;
  from_step_2.first_step = 2;
  from_step_2.last_step = 3;
  // K2 at half its time: K2 [500, 600), K3 [600, 800): steps [500, 600) and [600, 800), 300 µs.
  const Outcome o = Replay(t, [](const RankContext& ctx) { return graph::ScaleKernels(ctx.trace(), {1}, 0.5, "K2"); }, from_step_2);
  EXPECT_EQ(o.measured, Us(400));
  EXPECT_EQ(o.with_fix, Us(300));
  // The path of each step is its kernel: 200 + 200 µs of GPU compute.
  EXPECT_EQ(Cat(o.path, graph::PathCategory::kGpuCompute), Us(400));
  // The whole trace: 500 + 200 + 200 µs, and the same 100 µs saved.
  const Outcome all = Replay(t, [](const RankContext& ctx) { return graph::ScaleKernels(ctx.trace(), {1}, 0.5, "K2"); });
  EXPECT_EQ(all.measured, Us(900));
  EXPECT_EQ(all.with_fix, Us(800));
}

TEST(GraphTransforms, AWindowThatStartsUnderQueuedWorkSavesAtMostTheSteadyState) {
  // Step 1 (CPU [0, 100) µs) launches K1 [20, 500) at 10; step 2 (CPU [100, 300)) launches K2
  // [500, 900) at 110, then works on the host until 300. Step 2 lasts [500, 900): 400 µs, all of
  // it K2; its 200 µs of host work ran under K1, before the step began.
  TraceBuilder b;
  b.AddA100();
  b.AddRange("ProfilerStep#1", Us(0), Us(100));
  b.AddRange("ProfilerStep#2", Us(100), Us(300));
  b.LaunchKernel("gemm_kernel", Us(10), Us(1), Us(20), Us(500));
  b.LaunchKernel("gemm_kernel", Us(110), Us(1), Us(500), Us(900));
  b.AddCpuOp("aten::host_work", Us(111), Us(300));
  const Trace t = b.Build();
  AnalysisOptions step_2;
  step_2.first_step = step_2.last_step = 2;
  // K2 at a quarter of its time. Replayed from the measured start (500) it would end at 600: a
  // step of 100 µs, 75% saved, as if the host's 200 µs were free. In steady state every step
  // pays its host time: the fixes are replayed from the step's CPU start with K1 done by then
  // (the drained start), and a window lasts the longer of its host span and its GPU chain (here K2).
  // Unchanged: max(300 - 100, 400) = 400 µs (the measured step); with K2 at 100 µs: max(200,
  // 100) = 200 µs. Saved: 200 µs, 50%.
  const Outcome o = Replay(t, [](const RankContext& ctx) { return graph::ScaleKernels(ctx.trace(), {1}, 0.25, "K2"); }, step_2);
  EXPECT_EQ(o.measured, Us(400));
  EXPECT_EQ(o.with_fix, Us(200));
}

// The main thread launches K0 at [10, 15), then makes no call for 7,985 µs (it waits in
// backward() for the autograd thread), then launches K at [8000, 8005) and runs to the end of its
// step at 9000. Thread 2 makes 20 launches of 100 µs every 350 µs from 1000 (its last ends at
// 7750). The main thread's wait ends 250 µs after thread 2's last call: a join.
TraceBuilder MainThreadWaitsForThread2() {
  TraceBuilder b = StepOf(9000);
  b.LaunchKernel("gemm_kernel", Us(10), Us(5), Us(20), Us(30));
  for (int i = 0; i < 20; ++i)
    b.LaunchKernel("elementwise_kernel", Us(1000 + 350 * i), Us(100), Us(1115 + 350 * i), Us(1120 + 350 * i), 7, 2);
  b.LaunchKernel("gemm_kernel", Us(8000), Us(5), Us(8010), Us(8020));
  return b;
}

// Thread 2's launches collapsed as a CUDA graph: its calls and the host time between them take
// nothing, so it is done at 1000 (its first call stays where it began).
graph::Transform CollapseThread2(const RankContext& ctx) {
  std::vector<uint32_t> k;
  for (uint32_t i = 1; i <= 20; ++i) k.push_back(i);
  return graph::CudaGraphLaunch(ctx, k, "thread 2's launches");
}

TEST(GraphTransforms, AThreadThatWaitsForAnotherJoinsIt) {
  // Nothing records the main thread's wait. With thread 2 done at 1000, the main thread resumes
  // 250 µs later, launches at [1250, 1255) and ends its step 995 µs later, at 2250.
  const Outcome o = Replay(MainThreadWaitsForThread2().Build(), CollapseThread2);
  EXPECT_EQ(o.measured, Us(9000));
  EXPECT_EQ(o.with_fix, Us(2250));
  // The path crosses to thread 2: its 20 calls (2,000 µs) are host-bound time on it.
  EXPECT_GE(Cat(o.path, graph::PathCategory::kHostBound), Us(2000));
}

TEST(GraphTransforms, AJoinWaitsForTheThreadThatWorkedNotTheOneThatPolled) {
  // The same run, plus thread 3 polling: 12 cudaEventQuery calls of 5 µs every 620 µs from
  // 1100, the last at [7920, 7925), after thread 2's last call (7750) and inside the join's
  // window. The main thread waited for thread 2, which made 20 calls in its wait: with thread 2
  // collapsed the step ends at 2250 as above (thread 3 starting at 1100 splits the main thread's
  // gap there: max(1100, 1000 + 250) = 1250 still). Joined to the poller, it would stay at 9000.
  TraceBuilder b = MainThreadWaitsForThread2();
  for (int i = 0; i < 12; ++i) b.AddApi("cudaEventQuery", Us(1100 + 620 * i), Us(1105 + 620 * i), b.NewCorrelation(), 3);
  const Outcome o = Replay(b.Build(), CollapseThread2);
  EXPECT_EQ(o.measured, Us(9000));
  EXPECT_EQ(o.with_fix, Us(2250));
}

TEST(GraphTransforms, AWaitInsideARecordedRangeJoinsToo) {
  // The same run, where the main thread records its wait: a `## backward ##` range over
  // [12, 8000) holding one CPU op of its own, the loss [20, 300) (280 µs). The range records where
  // the thread waited, not work: the gap [15, 8000) keeps the op's 280 µs as its own time and
  // waits for thread 2. Replayed: max(15 + 280, 1000 + 250) = 1250, the step ends at 2250 as above.
  TraceBuilder b = MainThreadWaitsForThread2();
  b.AddRange("## backward ##", Us(12), Us(8000));
  b.AddCpuOp("aten::cross_entropy_loss", Us(20), Us(300));
  const Outcome o = Replay(b.Build(), CollapseThread2);
  EXPECT_EQ(o.measured, Us(9000));
  EXPECT_EQ(o.with_fix, Us(2250));
}

TEST(GraphTransforms, AWaitInADataLoaderRangeIsNoJoin) {
  // The same wait inside a DataLoader range is the data pipeline's: thread 2 finishing sooner
  // does not shorten it, and the step stays as long as measured.
  TraceBuilder b = MainThreadWaitsForThread2();
  b.AddRange("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", Us(12), Us(8000));
  const Outcome o = Replay(b.Build(), CollapseThread2);
  EXPECT_EQ(o.measured, Us(9000));
  EXPECT_EQ(o.with_fix, Us(9000));
}

TEST(GraphTransforms, AThreadTheStepsThreadStartedMovesWithIt) {
  // The main thread makes 10 launches of 100 µs from 10 (the last ends at 1010; kernels
  // [30 + 100i, 40 + 100i) on stream 7), then 90 µs later, at 1100, thread 2 makes its first call:
  // a launch [1100, 1105) of K [1120, 3000) on stream 8, the step's last activity. A fork: thread
  // 2 starts from the main thread's node that ends at 1100, not at a fixed 1100.
  TraceBuilder b = StepOf(1200);
  for (int i = 0; i < 10; ++i) b.LaunchKernel("elementwise_kernel", Us(10 + 100 * i), Us(100), Us(30 + 100 * i), Us(40 + 100 * i));
  b.LaunchKernel("gemm_kernel", Us(1100), Us(5), Us(1120), Us(3000), 8, 2);
  // The main thread's launches collapsed as a CUDA graph: its calls take nothing from 10, its 90
  // µs gap ends at 100, thread 2 launches at 100 and K starts a launch latency (20 µs, every
  // kernel's) later, at 120, and ends at 2000.
  const Outcome o = Replay(b.Build(), [](const RankContext& ctx) {
    std::vector<uint32_t> k;
    for (uint32_t i = 0; i < 10; ++i) k.push_back(i);
    return graph::CudaGraphLaunch(ctx, k, "the main thread's launches");
  });
  EXPECT_EQ(o.measured, Us(3000));
  EXPECT_EQ(o.with_fix, Us(2000));
}

// A host that polls memory a kernel writes (DeepEP's dispatch waits so for its token counts):
// the main thread launches K1 [20, 3020) at [10, 15) and K2 [3020, 5020) at [20, 25), both on
// stream 7, makes no call for 4,975 µs, and launches K3 at [5000, 5005), 20 µs before K2 ends
// (K2 writes what the host polls for, then finishes). K3 runs [5025, 5125) after K2; the CPU
// range ends at 5010. Nothing records the wait; its end at K2's end is its trace.
TraceBuilder HostPollsForK2(TimeNs resume) {
  TraceBuilder b = StepOf(5010);
  b.LaunchKernel("gemm_kernel", Us(10), Us(5), Us(20), Us(3020));
  b.LaunchKernel("elementwise_kernel_notify", Us(20), Us(5), Us(3020), Us(5020));
  b.LaunchKernel("elementwise_kernel", resume, Us(5), Us(5025), Us(5125));
  return b;
}

graph::Transform HalveK1(const RankContext& ctx) { return graph::ScaleKernels(ctx.trace(), {0}, 0.5, "K1"); }

uint64_t HiddenWaits(const Trace& t) {
  const RankContext ctx(t, {});
  return graph::RunWhatIf(ctx, {}).path->hidden_waits;
}

TEST(GraphTransforms, AHostThatPollsForAKernelWaitsForIt) {
  const Trace t = HostPollsForK2(Us(5000)).Build();
  EXPECT_EQ(HiddenWaits(t), 1u);
  // K1 at half its time: K1 [20, 1520), K2 [1520, 3520); the host resumes 20 µs before K2 ends,
  // at 3500 (its gap's own time is 0: no CPU op in it), launches K3 at [3500, 3505); K3 starts
  // after K2 and the measured 5 µs of slack, [3525, 3625); the CPU range ends 5 µs after the
  // launch, at 3510. The step ends at 3625: 1,500 µs sooner, K1's half. Before hidden waits the
  // gap kept its 4,975 µs, the host launched K3 at 5000 still, and the fix saved 10 µs.
  const Outcome o = Replay(t, HalveK1);
  EXPECT_EQ(o.measured, Us(5125));
  EXPECT_EQ(o.with_fix, Us(3625));
  // The critical path runs through the GPU: K3, K2 and K1 (5,105 µs of GPU compute).
  EXPECT_EQ(Cat(o.path, graph::PathCategory::kGpuCompute), Us(5105));
  EXPECT_LE(Cat(o.path, graph::PathCategory::kHostBound) + Cat(o.path, graph::PathCategory::kUnrecordedHost), Us(15));
}

TEST(GraphTransforms, AHostThatGoesOnLongBeforeTheKernelEndsIsNoWait) {
  // The host resumes at 4400, 620 µs before K2 ends (more than a tenth of K2's 2,000 µs): its own
  // work, not a wait. K1 at half its time: the host still launches K3 at 4400, and K3 starts at
  // max(4400 + 10 µs launch latency, K2's end 3520) + 5 µs slack = 4415, ending at 4515; the CPU
  // range ends at 5010. The step ends at 5010: 115 µs sooner (K3 no longer runs past the CPU).
  const Trace t = HostPollsForK2(Us(4400)).Build();
  EXPECT_EQ(HiddenWaits(t), 0u);
  const Outcome o = Replay(t, HalveK1);
  EXPECT_EQ(o.measured, Us(5125));
  EXPECT_EQ(o.with_fix, Us(5010));
}

TEST(GraphTransforms, AHostBusyInAnOpWhileTheKernelRunsIsNoWait) {
  // The same gap covered by a CPU op [30, 4990): the thread was working, whenever K2 ended. K1
  // at half its time: the host still launches K3 at 5000; K3 starts at max(5000 + 10 µs launch
  // latency, K2's end 3520) + 5 µs slack = 5015 and ends at 5115: 10 µs sooner, not 1,500.
  TraceBuilder b = HostPollsForK2(Us(5000));
  b.AddCpuOp("aten::nonzero_cpu_work", Us(30), Us(4990));
  const Trace t = b.Build();
  EXPECT_EQ(HiddenWaits(t), 0u);
  EXPECT_EQ(Replay(t, HalveK1).with_fix, Us(5115));
}

TEST(GraphTransforms, AKernelAnotherThreadQueuedAfterIsNotTheOneWaitedFor) {
  // Thread 2 launches K4 [5020, 5022) on stream 7 at [100, 105), after K2: K2 is no longer the last
  // work queued on the stream, so the host's resume at K2's end proves nothing.
  TraceBuilder b = HostPollsForK2(Us(5000));
  b.LaunchKernel("elementwise_kernel_other", Us(100), Us(5), Us(5020), Us(5022), 7, 2);
  EXPECT_EQ(HiddenWaits(b.Build()), 0u);
}

TEST(GraphTransforms, RemovedCopyLetsTheStreamMoveOn) {
  // A 300 µs D2D copy [10, 310) then a kernel [310, 410) on the same stream, both launched at the
  // start (CPU range [0, 20)).
  TraceBuilder b = StepOf(20);
  const int64_t corr = b.NewCorrelation();
  b.AddApi("cudaMemcpyAsync", Us(1), Us(3), corr);
  b.AddMemcpy(Us(10), Us(310), corr, MemcpyKind::kDtoD, 1 << 20, MemoryKind::kDevice, MemoryKind::kDevice);
  b.LaunchKernel("elementwise_kernel", Us(4), Us(2), Us(310), Us(410));
  const Trace t = b.Build();
  // The launch latency kept is taken from kernels (docs/whatif.md): the kernel's 310 - 4 = 306 µs,
  // capped at 50 µs. Replayed: the copy takes no time at 10; the kernel starts at
  // max(4 + 50, 10) = 54 and ends at 154: the step ends 256 µs sooner.
  const Outcome o = Replay(t, [](const RankContext& ctx) { return graph::ScaleCopies(ctx.trace(), {0}, 0.0, "the D2D copy"); });
  EXPECT_EQ(o.measured, Us(410));
  EXPECT_EQ(o.with_fix, Us(154));
  EXPECT_EQ(Cat(o.path, graph::PathCategory::kGpuMemory), Us(300));
}

// A host-bound step: four per-call sites on thread 1 (a c10d op of 50 µs each, [20, 70),
// [120, 170), [220, 270), [320, 370)), each with a 5 µs launch at its end ([60, 65), ...) of a
// 5 µs kernel; 50 µs of other host work between them; the CPU range is [0, 500) and the GPU
// finishes long before it: the step is the host's 500 µs.
TraceBuilder HostBoundSites() {
  TraceBuilder b = StepOf(500);
  for (int i = 0; i < 4; ++i) {
    b.AddCpuOp("c10d::allreduce_", Us(20 + 100 * i), Us(70 + 100 * i));
    b.LaunchKernel("elementwise_kernel", Us(60 + 100 * i), Us(5), Us(70 + 100 * i), Us(75 + 100 * i));
    b.AddCpuOp("aten::mul", Us(70 + 100 * i), Us(120 + 100 * i));
  }
  return b;
}
graph::CallSites FourSitesInOneGroup() {
  graph::CallSites g;
  g.tid = 1;
  for (int i = 0; i < 4; ++i) g.sites.push_back({Us(20 + 100 * i), Us(70 + 100 * i)});
  g.kept_ns = Us(50);  // the coalesced call costs what one call did
  return g;
}

TEST(GraphTransforms, CoalescedCallsLoseTheirHostCost) {
  const Trace t = HostBoundSites().Build();
  // Coalesced into one call (issued at the last site, which keeps its 50 µs): the first three
  // sites' host time goes, 3 x 50 = 150 µs (their launches, [60, 65) ... included). By hand, the
  // thread's gaps and calls: [0, 60) loses [20, 60) -> 20; launch 0 -> 0; [65, 160) loses
  // [65, 70) and [120, 160) -> 50; launch 1 -> 0; [165, 260) -> 50; launch 2 -> 0; [265, 360)
  // loses [265, 270) -> 90; launch 3 stays 5; [365, 500) stays 135. 20 + 50 + 50 + 90 + 5 + 135
  // = 350 µs, and the kernels (5 µs each) never hold the host back.
  const Outcome o = Replay(t, [](const RankContext& ctx) {
    return graph::CoalesceCalls(ctx, {FourSitesInOneGroup()}, "four calls as one");
  });
  EXPECT_EQ(o.measured, Us(500));
  EXPECT_EQ(o.with_fix, Us(350));
  EXPECT_EQ(o.changed, Us(150));
  const RankContext ctx(t, AnalysisOptions{});
  const graph::Transform fix = graph::CoalesceCalls(ctx, {FourSitesInOneGroup()}, "four calls as one");
  EXPECT_EQ(fix.name, graph::kCoalesceCalls);
  EXPECT_EQ(fix.calls_removed.size(), 3u);  // the three launches inside removed sites
  // Two groups of two (two buckets): each keeps its last site; 2 x 50 µs go.
  const Outcome two = Replay(t, [](const RankContext& c) {
    graph::CallSites a = FourSitesInOneGroup(), z = FourSitesInOneGroup();
    a.sites.resize(2);
    z.sites.erase(z.sites.begin(), z.sites.begin() + 2);
    return graph::CoalesceCalls(c, {a, z}, "two buckets");
  });
  EXPECT_EQ(two.with_fix, Us(400));
}

TEST(GraphTransforms, CoalescedCallsRemoveHostTimeOnTheirOwnThreadOnly) {
  // The same thread 1, and a thread 2 that launches at [5, 6) and at [480, 481) a 219 µs kernel
  // [481, 700) on stream 9: the step ends with it at 700 µs. Thread 2's gap [6, 480) spans the
  // sites' times but is not theirs: it keeps its time, so the step still ends at 700 while
  // thread 1 ends at 350. (Removed from every thread, the kernel would end at 550.)
  TraceBuilder b = HostBoundSites();
  b.LaunchKernel("elementwise_kernel", Us(5), Us(1), Us(8), Us(9), 9, 2);
  b.LaunchKernel("elementwise_kernel", Us(480), Us(1), Us(481), Us(700), 9, 2);
  const Trace t = b.Build();
  const Outcome o = Replay(t, [](const RankContext& ctx) {
    return graph::CoalesceCalls(ctx, {FourSitesInOneGroup()}, "four calls as one");
  });
  EXPECT_EQ(o.measured, Us(700));
  EXPECT_EQ(o.with_fix, Us(700));
}

// `queued` 0.5 µs launches at 1, 2, ... µs of kernels the GPU runs back to back, 100 µs each:
// K_i [100 + 100 i, 200 + 100 i); then a launch at 71 µs that returns at 202 µs (131 µs) of the
// next kernel, and host work until the step's CPU range ends at 8202 µs.
Trace QueuedLaunchesThenALongOne(int queued) {
  TraceBuilder b = StepOf(8202);
  for (int i = 0; i < queued; ++i) b.LaunchKernel("gemm_kernel", Us(1 + i), Us(0.5), Us(100 + 100 * i), Us(200 + 100 * i));
  b.LaunchKernel("gemm_kernel", Us(71), Us(131), Us(100 + 100 * queued), Us(200 + 100 * queued));
  b.AddCpuOp("aten::host_work", Us(202), Us(8202));
  return b.Build();
}

TEST(GraphTransforms, ABackPressuredLaunchWaitsForTheKernelThatMadeRoom) {
  // The host launches K0..K69 with 0.5 µs calls at 1, 2, ..., 70 µs; the GPU runs them back to
  // back, 100 µs each: K_i [100 + 100 i, 200 + 100 i). The 71st launch, at 71 µs, finds 70
  // launches queued and none done, and returns at 202 µs, 2 µs after K0 ended: 131 µs, more than
  // 10 x the calls' median (0.5 µs) and 50 µs more: a launch held back by a full queue. Its
  // kernel K70 runs [7100, 7200). Then the host works until its CPU range ends at 8202 µs: the
  // step is host-bound, [0, 8202).
  const Trace t = QueuedLaunchesThenALongOne(70);
  {
    const RankContext ctx(t, {});
    graph::GraphBuilder builder(ctx);
    ASSERT_EQ(builder.back_pressured().size(), 1u);
    const ApiCall& held = t.api_calls[builder.back_pressured()[0].first];
    EXPECT_EQ(held.start_ns, Us(71));
    EXPECT_EQ(builder.back_pressured()[0].second, Us(0.5));  // its own time: the typical launch
  }
  // K0 at half its time: K0 [100, 150) and every later kernel 50 µs sooner. The held launch
  // returns 2 µs after K0 ends, at 152 (its own 0.5 µs from 71 is less), so the host's 8000 µs
  // after it end at 8152: the step ends 50 µs sooner. Modelled as host time (the 131 µs call
  // kept), the host would still end at 8202 and the fix would save nothing.
  const Outcome o = Replay(t, [](const RankContext& ctx) { return graph::ScaleKernels(ctx.trace(), {0}, 0.5, "K0"); });
  EXPECT_EQ(o.measured, Us(8202));
  EXPECT_EQ(o.with_fix, Us(8152));
}

// A long launch while few activities are queued (lazy module loading, a cold start) is host time.
TEST(GraphTransforms, ALongLaunchWithAShortQueueIsHostTime) {
  // As above, but only 10 launches queued before the 131 µs call: not a full queue.
  const Trace t = QueuedLaunchesThenALongOne(10);
  const RankContext ctx(t, {});
  graph::GraphBuilder builder(ctx);
  EXPECT_TRUE(builder.back_pressured().empty());
  const Outcome o = Replay(t, [](const RankContext& c) { return graph::ScaleKernels(c.trace(), {0}, 0.5, "K0"); });
  EXPECT_EQ(o.with_fix, Us(8202));
}

TEST(GraphTransforms, CombineKeepsTheShortestDuration) {
  TraceBuilder b = StepOf(50);
  b.LaunchKernel("elementwise_kernel", Us(1), Us(1), Us(10), Us(110));
  const Trace t = b.Build();
  const graph::Transform half = graph::ScaleKernels(t, {0}, 0.5, "half");
  const graph::Transform quarter = graph::ScaleKernels(t, {0}, 0.25, "quarter");
  const graph::Transform both = graph::Combine({&half, &quarter});
  ASSERT_EQ(both.kernels.size(), 1u);
  EXPECT_EQ(both.kernels[0].second, Us(25));
}

}  // namespace
}  // namespace graph_transforms_test
}  // namespace ampscope
