// The causes experts name first (issue 32), on small hand-built traces with names and sizes of
// their own (the shared traces are causes_shared_traces_test.cc): blocking input copies are not
// user syncs, hand-written attention, communication by collective type and per-parameter
// all-reduce, device-to-device copies, the optimizer step, and the consistency of the matrix and
// checklist with the findings. Every expected number is worked out in the comments.
#include <gtest/gtest.h>

#include <string>

#include "analyzers/diagnosis/catalog.h"
#include "analyzers/roofline/roofline_result.h"
#include "diagnosis_builder.h"

namespace ampscope {
namespace causes_test {
namespace {

using namespace diagnosis_test;

const char* kHgemm = "ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_stages_64x3_nn";
const char* kSoftmaxFwd = "void <unnamed>::softmax_warp_forward<c10::Half, c10::Half, float, (int)7, (bool)0, (bool)0>(T2 *, const T1 *, int, int, int, const bool *, int, bool)";
const char* kDiv = "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<c10::Half, c10::Half, c10::Half, at::native::binary_internal::DivFunctor<c10::Half> >, std::array<char*, 3ul> >(int, at::native::BinaryFunctor<c10::Half, c10::Half, c10::Half, at::native::binary_internal::DivFunctor<c10::Half> >, std::array<char*, 3ul>)";

double CausePct(const RankAnalysis& ra, const std::string& cause) {
  for (const DimensionResult& d : ra.matrix)
    if (d.id == "task_parallelism")
      if (const Field* f = FindField(d.metrics, "idle_by_cause_pct"))
        if (const auto* causes = std::get_if<FieldList>(&f->value)) return FieldNumber(*causes, cause).value_or(-1);
  return -1;
}

// ---------------------------------------------------------------------------------------
// 2. Blocking input copies

// Two 3000 µs steps. Each copies a 6 MB batch from pageable memory (cudaMemcpyAsync
// [20, 620], the copy [30, 600] on the GPU) and PyTorch's stream sync after it [625, 640];
// then 8 KB of labels (cudaMemcpyAsync [645, 650], copy [655, 656], stream sync [652, 660]);
// then 1440 µs of host time with no events before an 800 µs GEMM launched at 2100, running
// [2105, 2905]. Before issue 32 the two stream syncs were 2 user syncs per step: a
// host_device_sync finding charged with the 1.5 ms gap.
RankAnalysis InputCopySteps(MemoryKind batch_memory, bool amd = false) {
  TraceBuilder b;
  if (amd) b.SetDevice("AMD Instinct MI300X", 9, 4, GpuVendor::kAmd);
  for (int s = 0; s < 2; ++s) {
    const double base = s * 3000.0;
    b.Step(s, base, base + 3000);
    b.Memcpy(MemcpyKind::kHtoD, batch_memory, MemoryKind::kDevice, 6'000'000, base + 20, base + 620, base + 30, 570);
    b.Api("cudaStreamSynchronize", base + 625, base + 640);
    b.Memcpy(MemcpyKind::kHtoD, MemoryKind::kPageable, MemoryKind::kDevice, 8192, base + 645, base + 650, base + 655, 1);
    b.Api("cudaStreamSynchronize", base + 652, base + 660);
    b.Kernel(kTcGemm, base + 2100, base + 2105, 800);
  }
  return b.Analyze();
}

TEST(Causes, BlockingInputCopiesAreNotUserSyncs) {
  const RankAnalysis ra = InputCopySteps(MemoryKind::kPageable);
  // Per step: the pageable batch copy joined with its stream sync, and the labels copy joined
  // with its own: 2 input-copy points per step, none a user sync.
  EXPECT_EQ(ra.syncs.input_copy_count, 4u);
  EXPECT_DOUBLE_EQ(ra.syncs.syncs_per_step, 2.0);
  EXPECT_EQ(ra.syncs.by_api.count("cudaMemcpyAsync HtoD + cudaStreamSynchronize"), 1u);
  EXPECT_EQ(FindFinding(ra, "host_device_sync"), nullptr);
  const Finding* pageable = FindFinding(ra, "pageable_h2d_copies");
  ASSERT_NE(pageable, nullptr);
  EXPECT_NE(pageable->recommendation.find("non_blocking=True"), std::string::npos);
  // The gap after the copies is host time, none of it host_sync. Per step: [600, 655] less the
  // pageable calls it overlaps ([600, 620], [645, 650]) = 30 µs host_launch; [656, 2105]: no host
  // activity in [660, 2100] (1440 µs >= 1 ms) = host_untraced, the other 9 µs host_launch. Step
  // starts: [0, 30] less the batch copy's call [20, 30] = 20 µs host_launch (both steps); step
  // 0's end [2905, 3000] = 95 µs host_launch (step 1's end gap has no next work: other).
  // host_launch (59 + 95 + 59) / 6000 = 3.55%; host_untraced 2880 / 6000 = 48%; pageable_copy
  // (10 + 20 + 5) x 2 / 6000 = 1.17%.
  EXPECT_NEAR(CausePct(ra, "host_sync"), 0.0, 1e-9);
  EXPECT_NEAR(CausePct(ra, "host_untraced"), 48.0, 0.01);
  EXPECT_NEAR(CausePct(ra, "host_launch"), 3.55, 0.01);
  EXPECT_NEAR(CausePct(ra, "pageable_copy"), 1.17, 0.01);
  for (const DimensionResult& d : ra.matrix)
    if (d.id == "task_parallelism") {
      EXPECT_EQ(FieldNumber(d.metrics, "syncs_per_step_beyond_grad_scaler").value_or(-1), 0.0);
      EXPECT_EQ(FieldNumber(d.metrics, "input_copy_syncs_per_step").value_or(-1), 2.0);
    }
}

// The same steps with their ops: the batch's aten::to [15, 642) around its copy and sync, the
// labels' aten::to [644, 662) around theirs, and aten::linear [2095, 2110) around the GEMM's
// launch. The host time no event covers is [662, 2095) in each step; the GPU idle gap around it
// is [656, 2105) (the labels copy ends at 656, the GEMM starts at 2105), 1,449 µs, 2,898 µs in
// the 2 steps. The low-utilization finding says where it lies: between aten::to (which copied
// from pageable memory) and aten::linear, in the step's range.
TEST(Causes, UntracedHostTimeIsPlacedBetweenTheOpsAroundIt) {
  TraceBuilder b;
  for (int s = 0; s < 2; ++s) {
    const double base = s * 3000.0;
    b.Step(s, base, base + 3000);
    b.Op("aten::to", base + 15, base + 642);
    b.Memcpy(MemcpyKind::kHtoD, MemoryKind::kPageable, MemoryKind::kDevice, 6'000'000, base + 20, base + 620, base + 30, 570);
    b.Api("cudaStreamSynchronize", base + 625, base + 640);
    b.Op("aten::to", base + 644, base + 662);
    b.Memcpy(MemcpyKind::kHtoD, MemoryKind::kPageable, MemoryKind::kDevice, 8192, base + 645, base + 650, base + 655, 1);
    b.Api("cudaStreamSynchronize", base + 652, base + 660);
    b.Op("aten::linear", base + 2095, base + 2110);
    b.Kernel(kTcGemm, base + 2100, base + 2105, 800);
  }
  const RankAnalysis ra = b.Analyze();
  const Finding* low = FindFinding(ra, "low_gpu_utilization");
  ASSERT_NE(low, nullptr);
  const Field* sites = FindField(low->evidence, "untraced_host_sites");
  ASSERT_NE(sites, nullptr);
  const auto& list = std::get<std::vector<FieldList>>(sites->value);
  ASSERT_FALSE(list.empty());
  EXPECT_EQ(FieldString(list[0], "after").value_or(""), "aten::to");
  EXPECT_EQ(FieldString(list[0], "before").value_or(""), "aten::linear");
  EXPECT_EQ(FieldString(list[0], "inside").value_or(""), "ProfilerStep");
  EXPECT_EQ(std::get<bool>(FindField(list[0], "after_pageable_h2d_copy")->value), true);
  EXPECT_EQ(FieldNumber(list[0], "stretches").value_or(-1), 2);
  EXPECT_NEAR(FieldNumber(list[0], "gpu_idle_us").value_or(-1), 2898, 0.001);
  EXPECT_NE(low->recommendation.find("The longest GPU idle gaps with it (2.9 ms in 2) lie between aten::to and aten::linear (aten::to copied from pageable memory"),
            std::string::npos)
      << low->recommendation;
}

// Two 3000 µs steps. Each runs an 1000 µs GEMM [20, 1020) launched at 10, then a CUDA graph
// launched at [30, 40) whose first node (a GEMM) runs [2020, 2520), while the host sits in a
// cudaStreamSynchronize [50, 2530). The GPU idles [1020, 2020) with the graph already queued (its
// launch returned at 40): 1000 µs a step, 2000 of 6000 µs = 33.33%, queued 980 µs before the gap.
// The sync did not open that gap: its return could not start work the GPU already had.
// `graph_launch_us` and `sync_end_us` move the launch after the sync, into the gap (a host that
// launched late).
RankAnalysis QueuedGraphSteps(double graph_launch_us, double sync_end_us) {
  TraceBuilder b;
  for (int s = 0; s < 2; ++s) {
    const double base = s * 3000.0;
    b.Step(s, base, base + 3000);
    b.Kernel(kTcGemm, base + 10, base + 20, 1000);
    b.GraphKernel(kHgemm, base + graph_launch_us, base + 2020, 500);
    b.Api("cudaStreamSynchronize", base + 50, base + sync_end_us);
  }
  return b.Analyze();
}

TEST(Causes, GpuIdleWithItsWorkQueuedIsAStallNotASync) {
  const RankAnalysis ra = QueuedGraphSteps(30, 2530);
  // host_sync: only the gaps the sync's return opens, [2520, 3000) and [5520, 6000) (the sync
  // returned within 20 µs of the GPU running dry), 960 / 6000 = 16%; with the queued gaps it
  // would be 2960 / 6000 = 49.33%.
  EXPECT_NEAR(CausePct(ra, "host_sync"), 16.0, 0.01);
  EXPECT_GE(CausePct(ra, "other"), 33.33);
  const Finding* stall = FindFinding(ra, "queued_work_stalled");
  ASSERT_NE(stall, nullptr);
  EXPECT_NEAR(FieldNumber(stall->evidence, "stalled_pct").value_or(-1), 33.33, 0.01);
  EXPECT_NEAR(FieldNumber(stall->evidence, "stalled_us_per_step").value_or(-1), 1000, 0.001);
  EXPECT_EQ(FieldNumber(stall->evidence, "stretches").value_or(-1), 2);
  EXPECT_NEAR(FieldNumber(stall->evidence, "in_cuda_graphs_pct").value_or(-1), 100, 0.001);
  const auto& sites = std::get<std::vector<FieldList>>(FindField(stall->evidence, "sites")->value);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(FieldString(sites[0], "launch").value_or(""), "cudaGraphLaunch");
  EXPECT_NEAR(FieldNumber(sites[0], "queued_for_us").value_or(-1), 980, 0.001);
  EXPECT_NE(stall->recommendation.find("CUDA graph"), std::string::npos) << stall->recommendation;
  // Everything after the graph's node follows it, so the replay gives back the whole stall.
  EXPECT_NEAR(stall->est_saving_pct, 33.33, 0.5);
}

TEST(Causes, GpuIdleWhileTheHostLaunchesLateIsNotAStall) {
  // The sync [50, 1400), then the graph launched at 1500, inside the gap: the GPU waited for the
  // host (host_wait), which sat in the sync when the GPU ran dry - the sync's gap, no stall.
  const RankAnalysis ra = QueuedGraphSteps(1500, 1400);
  EXPECT_EQ(FindFinding(ra, "queued_work_stalled"), nullptr);
  EXPECT_GT(CausePct(ra, "host_sync"), 0.0);
}

// A dropped finding's fix is not in the joint replays a residual finding's saving comes from.
// Two 10000 µs steps: a GEMM [20, 520) launched at 10, a CUDA graph launched at [30, 40) whose
// node runs [1520, 2020) (a queued stall of 1000 µs a step, 10% of the window), then no host
// event until a GEMM launched at 9000 runs [9010, 9510). The host's silence decides the step, so
// the stall's fix alone saves nothing (queued_work_stalled is dropped). low_gpu_utilization's fix
// removes that silence; with the GPU chain as it ran (the stall kept: 500 + 1000 + 500 + 500 µs)
// a step still lasts at least 2500 µs, so its saving is at most 7500 of 10000 µs, 75%. Replayed
// beside the dropped stall fix it read up to 85%.
TEST(Causes, ADroppedFixDoesNotInflateTheResidualSaving) {
  TraceBuilder b;
  for (int s = 0; s < 2; ++s) {
    const double base = s * 10000.0;
    b.Step(s, base, base + 10000);
    b.Kernel(kTcGemm, base + 10, base + 20, 500);
    b.GraphKernel(kHgemm, base + 30, base + 1520, 500);
    b.Kernel(kTcGemm, base + 9000, base + 9010, 500);
  }
  const RankAnalysis ra = b.Analyze();
  EXPECT_EQ(FindFinding(ra, "queued_work_stalled"), nullptr);
  const Finding* low = FindFinding(ra, "low_gpu_utilization");
  ASSERT_NE(low, nullptr);
  EXPECT_GT(low->est_saving_pct, 50.0);
  EXPECT_LE(low->est_saving_pct, 75.0);
  EXPECT_LE(ra.joint_saving_pct, 75.0);
}

TEST(Causes, PageableCopyAdviceNamesTheRuntimeOfTheGpu) {
  // The advice names the runtime call the trace's GPU uses: hipMemcpyAsync on an AMD GPU.
  const RankAnalysis nvidia_ra = InputCopySteps(MemoryKind::kPageable);  // kept: the finding points into it
  const Finding* nvidia = FindFinding(nvidia_ra, "pageable_h2d_copies");
  ASSERT_NE(nvidia, nullptr);
  EXPECT_NE(nvidia->recommendation.find("cudaMemcpyAsync returns"), std::string::npos) << nvidia->recommendation;
  const RankAnalysis amd = InputCopySteps(MemoryKind::kPageable, /*amd=*/true);
  const Finding* f = FindFinding(amd, "pageable_h2d_copies");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->recommendation.find("hipMemcpyAsync returns"), std::string::npos) << f->recommendation;
  EXPECT_EQ(f->recommendation.find("cudaMemcpy"), std::string::npos) << f->recommendation;
}

TEST(Causes, PinnedCopyWithoutNonBlockingIsAnInputCopy) {
  // The same from pinned memory: the batch copy does not block by itself, but the stream sync
  // PyTorch issues after a copy without non_blocking=True makes it one point.
  const RankAnalysis ra = InputCopySteps(MemoryKind::kPinned);
  EXPECT_EQ(ra.syncs.input_copy_count, 4u);
  EXPECT_EQ(FindFinding(ra, "host_device_sync"), nullptr);
  EXPECT_NEAR(CausePct(ra, "host_sync"), 0.0, 1e-9);
}

// ---------------------------------------------------------------------------------------
// 3. Hand-written attention

// Hugging Face "eager" attention, fp16, batch 4, 8 heads, 100 tokens, head_dim 32, in a
// GPU-bound step (CPU range [0, 310) µs, every kernel launched inside it): matmul (300 µs) ->
// div (50) -> softmax (200) -> dropout (50) -> matmul (300), then a 1000 µs linear, back to back
// on the GPU from 30 µs to 1930. Attention = 900 µs of 1900 µs of kernels (47.4%).
RankAnalysis EagerAttentionStep(const std::string& softmax_dims, bool with_ops = true) {
  TraceBuilder b;
  b.Step(0, 0, 310);
  const std::string h = R"("c10::Half")";
  auto op = [&](const char* name, double s, double e, const std::string& dims, const std::string& types) {
    if (with_ops) b.Op(name, s, e, types, dims);
  };
  op("aten::matmul", 10, 60, "[[4,8,100,32],[4,8,32,100]]", "[" + h + "," + h + "]");
  b.Kernel(kHgemm, 20, 30, 300);
  op("aten::div", 70, 90, "[[4,8,100,100],[]]", "[" + h + ",\"Scalar\"]");
  b.Kernel(kDiv, 75, 330, 50);
  op("aten::softmax", 100, 130, softmax_dims, "[" + h + ",\"Scalar\",\"\"]");
  b.Kernel(kSoftmaxFwd, 105, 380, 200);
  op("aten::dropout", 140, 160, "[[4,8,100,100],[],[]]", "[" + h + ",\"Scalar\",\"Scalar\"]");
  b.Kernel(kDiv, 145, 580, 50);
  op("aten::matmul", 170, 220, "[[4,8,100,100],[4,8,100,32]]", "[" + h + "," + h + "]");
  b.Kernel(kHgemm, 180, 630, 300);
  op("aten::linear", 230, 300, "[[400,256],[1024,256],[1024]]", "[" + h + "," + h + "," + h + "]");
  b.Kernel(kHgemm, 240, 930, 1000);
  return b.Analyze();
}

TEST(Causes, EagerAttentionWithShapes) {
  const RankAnalysis ra = EagerAttentionStep("[[4,8,100,100],[],[]]");
  const Finding* f = FindFinding(ra, "eager_attention");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(FieldNumber(f->evidence, "attention_time_us").value(), 900, 1e-6);
  EXPECT_NEAR(FieldNumber(f->evidence, "pct_of_gpu_time").value(), 47.37, 0.01);  // 900 / 1900
  EXPECT_NEAR(FieldNumber(f->evidence, "softmax_time_us").value(), 200, 1e-6);
  EXPECT_NEAR(FieldNumber(f->evidence, "gemm_time_us").value(), 600, 1e-6);
  // SDPA on the A100-80GB: 4·32·100·100·32 = 4.1 MFLOP at 30% of 312 TFLOP/s = 0.04 µs, q/k/v/out
  // 819,200 bytes at 2039 GB/s = 0.40 µs, so the 5 µs per-call floor: the five attention kernels
  // replay at 5/900 of their time (below the 2x floor's 1/2). The launch latency kept is the 5th
  // percentile of kernel start - launch (10, 255, 275, 435, 450, 690 µs: 10 µs), so each kernel
  // now starts 10 µs after its launch: the linear at 240 + 10 = 250, ending at 1250 (the host's
  // range ends at 310). The step: 1930 µs measured, 1250 replayed: 680 / 1930 = 35.23%.
  EXPECT_NEAR(f->est_saving_pct, 100.0 * 680 / 1930, 0.01);
  EXPECT_EQ(FieldString(f->evidence, "whatif_transform").value_or(""), "scale_kernels");
  const Field* shapes = FindField(f->evidence, "shapes");
  ASSERT_NE(shapes, nullptr);
  const auto& rows = std::get<std::vector<FieldList>>(shapes->value);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(FieldNumber(rows[0], "batch").value_or(-1), 4);
  EXPECT_EQ(FieldNumber(rows[0], "heads").value_or(-1), 8);
  EXPECT_EQ(FieldNumber(rows[0], "seq_q").value_or(-1), 100);
  EXPECT_EQ(FieldNumber(rows[0], "seq_kv").value_or(-1), 100);
  EXPECT_EQ(FieldNumber(rows[0], "head_dim").value_or(-1), 32);
  EXPECT_EQ(FieldNumber(rows[0], "attention_matrix_bytes").value_or(-1), 4 * 8 * 100 * 100 * 2);  // 640,000
  EXPECT_NE(f->recommendation.find("scaled_dot_product_attention"), std::string::npos);
  EXPECT_NE(f->recommendation.find("attn_implementation=\"sdpa\""), std::string::npos);
  // 100 is not a multiple of 8: the GEMMs fall back; their slowness is the attention's.
  EXPECT_NE(f->recommendation.find("not a multiple of 8"), std::string::npos);
  EXPECT_EQ(ra.findings.front().id, "eager_attention");
}

TEST(Causes, EagerAttentionNeedsAnAttentionShapedSoftmax) {
  // A softmax over a 2-D tensor between two GEMMs (a classifier head) is not attention.
  EXPECT_EQ(FindFinding(EagerAttentionStep("[[3200,100],[],[]]"), "eager_attention"), nullptr);
}

// An MoE router without recorded shapes: a gate linear (20 µs), softmax, topk, an expert linear
// (600 µs). Neither product multiplies two activations, and their costs differ 30x: not attention,
// with host ops or (kernels alone) without.
RankAnalysis RouterStep(bool with_ops) {
  TraceBuilder b;
  b.Step(0, 0, 1200);
  if (with_ops) b.Op("aten::linear", 10, 40);
  b.Kernel(kHgemm, 20, 30, 20);
  if (with_ops) b.Op("aten::softmax", 50, 70);
  b.Kernel(kSoftmaxFwd, 55, 60, 200);
  if (with_ops) b.Op("aten::topk", 80, 90);
  if (with_ops) b.Op("aten::linear", 100, 130);
  b.Kernel(kHgemm, 110, 270, 600);
  return b.Analyze();
}

TEST(Causes, RouterSoftmaxIsNotAttention) {
  EXPECT_EQ(FindFinding(RouterStep(true), "eager_attention"), nullptr);
  EXPECT_EQ(FindFinding(RouterStep(false), "eager_attention"), nullptr);
}

TEST(Causes, EagerAttentionFromKernelsWithoutHostOps) {
  // The same kernels with no cpu_ops: found on the stream's kernel sequence, shapes unknown.
  const RankAnalysis ra = EagerAttentionStep("", /*with_ops=*/false);
  const Finding* f = FindFinding(ra, "eager_attention");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(FieldNumber(f->evidence, "attention_time_us").value(), 900, 1e-6);
  const auto& rows = std::get<std::vector<FieldList>>(FindField(f->evidence, "shapes")->value);
  EXPECT_TRUE(FieldIsNull(rows[0], "heads"));
  EXPECT_NE(f->recommendation.find("unknown"), std::string::npos);
}

// ---------------------------------------------------------------------------------------
// 4. Communication by collective type

const char* kAllGather = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

// One GPU-bound step: a 1000 µs GEMM [10, 1010) on stream 7 launched at 5 µs, then `n`
// collectives of `dur` µs back to back on the same stream from 1010 with no compute beside them,
// launched one after another (3 µs each) from 10 µs; the CPU range ends 10 µs after the last
// launch. The step ends with the last collective, at 1010 + n x dur.
RankAnalysis CollectiveStep(const char* kernel, int n, double dur) {
  TraceBuilder b;
  b.Step(0, 0, 20 + 3 * n);
  b.Kernel(kTcGemm, 5, 10, 1000);
  for (int i = 0; i < n; ++i) b.Kernel(kernel, 10 + 3 * i, 1010 + i * dur, dur);
  return b.Analyze();
}

TEST(Causes, AllGatherGetsFsdpAdviceNotDdp) {
  // 4 all-gathers of 150 µs, none overlapped: 600 µs of the 1610 µs step exposed. Replayed fully
  // overlapped (the collectives take no time on the path), the step ends with the GEMM at 1010:
  // 600 / 1610 = 37.27%.
  const RankAnalysis ra = CollectiveStep(kAllGather, 4, 150);
  const Finding* f = FindFinding(ra, "exposed_communication");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->est_saving_pct, 100.0 * 600 / 1610, 0.01);
  const auto& types = std::get<std::vector<FieldList>>(FindField(f->evidence, "by_type")->value);
  ASSERT_EQ(types.size(), 1u);
  EXPECT_EQ(FieldString(types[0], "type").value_or(""), "all_gather");
  EXPECT_EQ(FieldNumber(types[0], "calls").value_or(-1), 4);
  EXPECT_NE(f->recommendation.find("limit_all_gathers"), std::string::npos) << f->recommendation;
  EXPECT_EQ(f->recommendation.find("bucket_cap_mb"), std::string::npos) << f->recommendation;
  EXPECT_EQ(FindFinding(ra, "per_parameter_allreduce"), nullptr);
}

TEST(Causes, PerParameterAllReduceBothSides) {
  // 150 all-reduces of 5 µs per step (>= 100, median under 100 µs), no overlap: 750 µs of the
  // 1760 µs step exposed, per_parameter_allreduce's; nothing left for exposed_communication.
  // Replayed with the all-reduces overlapped, the step ends with the GEMM at 1010: 750 / 1760.
  RankAnalysis ra = CollectiveStep(kNccl, 150, 5);
  const Finding* f = FindFinding(ra, "per_parameter_allreduce");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(FieldNumber(f->evidence, "allreduce_per_step").value(), 150, 1e-9);
  EXPECT_NEAR(f->est_saving_pct, 100.0 * 750 / 1760, 0.01);
  EXPECT_NE(f->recommendation.find("bucket_cap_mb"), std::string::npos);
  EXPECT_EQ(FindFinding(ra, "exposed_communication"), nullptr);
  // 60 per step (below 100): DDP's buckets at work; the exposed time is exposed_communication's,
  // advised by its all-reduce type.
  ra = CollectiveStep(kNccl, 60, 5);
  EXPECT_EQ(FindFinding(ra, "per_parameter_allreduce"), nullptr);
  f = FindFinding(ra, "exposed_communication");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->recommendation.find("bucket_cap_mb"), std::string::npos);
}

// A host-bound step (4600 µs): 150 per-parameter all-reduces, each issued under its own
// c10d::allreduce_ op of 20 µs ([10 + 30i, 30 + 30i)) with its launch at [25 + 30i, 28 + 30i) of
// a 2 µs kernel on stream 20, 10 µs of other host time between them; the CPU range ends at 4600
// and the GPU never holds the host back. Without message sizes a bucket takes 32 calls: 150
// calls fill 5 buckets of 30, each keeping its last call's cost, so 145 calls x 20 µs = 2900 µs
// of the host's time go (the kernels, hidden too, were never on the path): the step ends at
// 1700 µs, 2900 / 4600 = 63.04%. Hiding the kernels alone (the fix before issue 32) saved 0.
TEST(Causes, PerParameterAllReduceOnAHostBoundStepSavesTheHostCost) {
  TraceBuilder b;
  b.Step(0, 0, 4600);
  for (int i = 0; i < 150; ++i) {
    b.Op("c10d::allreduce_", 10 + 30.0 * i, 30 + 30.0 * i);
    b.Kernel(kNccl, 25 + 30.0 * i, 30 + 30.0 * i, 2, 20);
  }
  const RankAnalysis ra = b.Analyze();
  const Finding* f = FindFinding(ra, "per_parameter_allreduce");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(FieldString(f->evidence, "whatif_transform").value_or(""), "coalesce_calls");
  EXPECT_NEAR(FieldNumber(f->evidence, "calls_eliminated_per_step").value_or(-1), 145, 1e-9);
  EXPECT_NEAR(f->est_saving_pct, 100.0 * 2900 / 4600, 0.01);
  EXPECT_NEAR(FieldNumber(f->evidence, "whatif_saving_us").value_or(-1), 2900, 0.001);
}

// host_bound: a 5005 µs step that launches a 20 µs fp16 GEMM at 5 ([10, 30)), spends [10, 4990)
// in one recorded op (aten::linear) and launches a second 20 µs GEMM at 4980 ([4985, 5005)). The
// critical path is the second GEMM, its launch delay (2 µs) and the host before it: host time
// 4983 / 5005 = 99.6% of it. No finding's fix saves 3% (the GPU is idle for the first 10 µs, and
// 7 µs of host time are unrecorded). So host_bound says the host is the bottleneck, with the op
// by its own time (4980 µs), and claims no saving. A GPU-bound step (the second GEMM 20,000 µs)
// has none.
TEST(Causes, HostBoundWindowThatNoFindingExplains) {
  auto step = [](double gemm_us) {
    TraceBuilder b;
    b.Step(0, 0, 4995);
    b.Kernel(kTcGemm, 5, 10, 20);
    b.Op("aten::linear", 10, 4990);
    b.Kernel(kTcGemm, 4980, 4985, gemm_us);
    return b.Analyze();
  };
  const RankAnalysis ra = step(20);
  const Finding* f = FindFinding(ra, "host_bound");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->est_saving_pct, 0.0);
  EXPECT_EQ(f->severity, FindingSeverity::kInfo);
  EXPECT_GE(FieldNumber(f->evidence, "host_pct_of_critical_path").value_or(0), 99.0);
  const auto& ops = std::get<std::vector<FieldList>>(FindField(f->evidence, "top_host_ops_by_self_time")->value);
  ASSERT_FALSE(ops.empty());
  EXPECT_EQ(FieldString(ops[0], "op").value_or(""), "aten::linear");
  EXPECT_NEAR(FieldNumber(ops[0], "self_us_per_step").value_or(-1), 4980, 0.001);
  EXPECT_NE(f->recommendation.find("no GPU-side fix"), std::string::npos) << f->recommendation;
  for (const Finding& g : ra.findings) EXPECT_LT(g.est_saving_pct, 3.0) << g.id;
  EXPECT_EQ(FindFinding(step(20000), "host_bound"), nullptr);
}

// ---------------------------------------------------------------------------------------
// 11. Device-to-device copies and the optimizer step

// One GPU-bound step: a 1000 µs GEMM [10, 1010) launched at 5 µs, then `n` 4 µs DtoD copies back
// to back on its stream from 1010, each issued under an aten::cat op ([10 + 4i, 13.5 + 4i) µs,
// its cudaMemcpyAsync inside); the CPU range ends 10 µs after the last op. The step ends with the
// last copy, at 1010 + 4n.
RankAnalysis DeviceCopyStep(int n) {
  TraceBuilder b;
  b.Step(0, 0, 20 + 4 * n);
  b.Kernel(kTcGemm, 5, 10, 1000);
  for (int i = 0; i < n; ++i) {
    b.Op("aten::cat", 10 + 4 * i, 13.5 + 4 * i);
    b.Memcpy(MemcpyKind::kDtoD, MemoryKind::kDevice, MemoryKind::kDevice, 1 << 20, 10.5 + 4 * i, 13 + 4 * i, 1010 + 4 * i, 4);
  }
  return b.Analyze();
}

TEST(Causes, DeviceToDeviceCopiesBothSides) {
  // 50 copies x 4 µs = 200 µs of the 1210 µs step = 16.53% (>= 5%), none beside a kernel.
  // Replayed without them the step ends with the GEMM at 1010: 200 / 1210.
  const RankAnalysis ra = DeviceCopyStep(50);
  const Finding* f = FindFinding(ra, "device_to_device_copies");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(FieldNumber(f->evidence, "copies").value_or(-1), 50);
  EXPECT_NEAR(FieldNumber(f->evidence, "pct_of_step").value(), 100.0 * 200 / 1210, 0.005);
  EXPECT_NEAR(f->est_saving_pct, 100.0 * 200 / 1210, 0.01);
  const auto& ops = std::get<std::vector<FieldList>>(FindField(f->evidence, "by_ops")->value);
  EXPECT_EQ(FieldString(ops[0], "ops").value_or(""), "aten::cat");
  // No DDP in this run: no bucket-view advice.
  EXPECT_EQ(f->recommendation.find("gradient_as_bucket_view"), std::string::npos);
  // 10 copies = 40 µs of 1050 µs = 3.8%: below the bar.
  EXPECT_EQ(FindFinding(DeviceCopyStep(10), "device_to_device_copies"), nullptr);
}

// One 2000 µs step: a 900 µs GEMM, then Optimizer.step#<cls>.step [1000, 1900] launching 10
// multi_tensor_apply kernels of 40 µs, 80 µs apart (GPU [1020 + 80i, 1060 + 80i]).
RankAnalysis OptimizerStep(const std::string& cls) {
  TraceBuilder b;
  b.Step(0, 0, 2000);
  b.Kernel(kTcGemm, 5, 10, 900);
  b.AddRange("Optimizer.step#" + cls + ".step", 1000, 1900);
  for (int i = 0; i < 10; ++i) b.Kernel(kForeach, 1010 + 80 * i, 1020 + 80 * i, 40);
  return b.Analyze();
}

TEST(Causes, ForeachOptimizerThatOffersFused) {
  // AdamW offers fused=True. The fix replayed: the ten 40 µs kernels as one fused pass of 2 x 40 µs
  // (each at 80/400 of its time) and their ten 3 µs launches collapsed into one graph-like launch,
  // which also removes the host time between them (9 x 77 µs). The step is host-bound (its CPU
  // range ends at 2000, the last kernel at 1780): the host reaches its end 30 + 693 = 723 µs
  // sooner, while the fused kernels (80 µs from ~1011) end long before: 723 / 2000 = 36.15%.
  RankAnalysis ra = OptimizerStep("AdamW");
  const Finding* f = FindFinding(ra, "optimizer_not_fused");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->est_saving_pct, 36.15, 0.01);
  EXPECT_EQ(FieldString(f->evidence, "whatif_transform").value_or(""), "fused_optimizer");
  EXPECT_NE(f->recommendation.find("torch.optim.AdamW(params, fused=True)"), std::string::npos);
  EXPECT_EQ(FindFinding(ra, "optimizer_step_dominates"), nullptr);  // explained
  // Adagrad offers no fused=: never advised; its 45% step is said, without fused=True.
  ra = OptimizerStep("Adagrad");
  EXPECT_EQ(FindFinding(ra, "optimizer_not_fused"), nullptr);
  f = FindFinding(ra, "optimizer_step_dominates");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(FieldNumber(f->evidence, "optimizer_pct_of_step").value(), 45.0, 1e-9);  // 900 / 2000
  for (const Finding& x : ra.findings) EXPECT_EQ(x.recommendation.find("fused=True"), std::string::npos) << x.id;
  // A second-order optimizer: the preconditioner advice.
  const RankAnalysis soap = OptimizerStep("SOAP");  // kept: the finding points into it
  f = FindFinding(soap, "optimizer_step_dominates");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->recommendation.find("precondition_frequency"), std::string::npos);
}

// A Shampoo step whose aten::_foreach_mul_ ([1100, 2100) µs) ran PyTorch's per-tensor fallback:
// ten aten::mul_ children of 50 µs ([1100 + 100i, 1150 + 100i)), each launching a 2 µs kernel at
// 1120 + 100i. The step (CPU range [0, 3000), a 500 µs GEMM first) is host-bound. The fix: the
// op issues one multi-tensor call, costing what one per-tensor call did (the children's median,
// 50 µs): [1150, 2100) of the host's time goes, 950 µs (nine launches inside it too), so the
// step ends at 2050: 950 / 3000 = 31.67%.
TEST(Causes, ForeachOpThatRanPerTensorReplaysOneCall) {
  TraceBuilder b;
  b.Step(0, 0, 3000);
  b.Kernel(kTcGemm, 5, 10, 500);
  b.AddRange("Optimizer.step#Shampoo.step", 1000, 2900);
  b.Op("aten::_foreach_mul_", 1100, 2100);
  for (int i = 0; i < 10; ++i) {
    b.Op("aten::mul_", 1100 + 100.0 * i, 1150 + 100.0 * i);
    b.Kernel(kAdd, 1120 + 100.0 * i, 1125 + 100.0 * i, 2);
  }
  const RankAnalysis ra = b.Analyze();
  const Finding* f = FindFinding(ra, "optimizer_step_dominates");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(FieldString(f->evidence, "whatif_transform").value_or(""), "coalesce_calls");
  EXPECT_NEAR(FieldNumber(f->evidence, "foreach_fallback_host_us_per_step").value_or(-1), 1000, 1e-9);
  EXPECT_NEAR(FieldNumber(f->evidence, "foreach_fallback_per_tensor_calls_recorded").value_or(-1), 10, 1e-9);
  EXPECT_NEAR(f->est_saving_pct, 100.0 * 950 / 3000, 0.01);
  EXPECT_NE(f->recommendation.find("per-tensor fallback"), std::string::npos) << f->recommendation;
  EXPECT_NE(f->recommendation.find("precondition_frequency"), std::string::npos) << f->recommendation;
}

// ---------------------------------------------------------------------------------------
// 10. Consistency

// fp16 GEMMs (100 µs) and layer norms (400 µs) alternating: Tensor Cores 20% of kernel time
// (fails, AMP in use: no amp_not_in_use), memory-bound 4x GEMM time (bad), no chain (norms are
// not fused by the chain rule). Nothing but the fallbacks explains them.
TEST(Causes, BadAndFailingStatusesAreExplained) {
  TraceBuilder b;
  b.Step(0, 0, 1200);
  double t = 10;
  for (int i = 0; i < 2; ++i) {
    b.Kernel(kTcGemm, t - 5, t, 100);
    b.Kernel(kLayerNorm, t + 96, t + 101, 400);
    t += 510;
  }
  const RankAnalysis ra = b.Analyze();
  const ChecklistItem& tc = Check(ra, "tensor_core_utilization");
  EXPECT_EQ(tc.status, CheckStatus::kFail);
  EXPECT_EQ(tc.findings, std::vector<std::string>{"low_tensor_core_share"});
  const Finding* f = FindFinding(ra, "low_tensor_core_share");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->recommendation.find("normalization 80%"), std::string::npos) << f->recommendation;
  EXPECT_EQ(Dim(ra, "memory_bandwidth").status, DimensionStatus::kBad);
  EXPECT_EQ(Dim(ra, "memory_bandwidth").findings, std::vector<std::string>{"memory_bound_kernels"});
  // fp16 without a GradScaler fails grad_scaler: its value is the fp16 share (100%), not a 0%
  // skip rate.
  // (No host ops: training or inference unknown, so the scaler rule runs.)
  const ChecklistItem& gs = Check(ra, "grad_scaler");
  ASSERT_EQ(gs.status, CheckStatus::kFail);
  ASSERT_TRUE(gs.value.has_value());
  EXPECT_DOUBLE_EQ(*gs.value, 100.0);
  EXPECT_EQ(gs.unit, Unit::kPctFp16);
  EXPECT_EQ(gs.findings, std::vector<std::string>{"fp16_without_grad_scaler"});
}

}  // namespace
}  // namespace causes_test
}  // namespace ampscope
