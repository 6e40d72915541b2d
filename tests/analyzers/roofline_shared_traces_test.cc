// Every shared Kineto trace gets a roofline result or a stated reason why not.
//
// What each trace can give is read off the trace itself (shared/traces/README.md and its
// deviceProperties): which ones record shapes (Input Dims), which record Concrete Inputs, which
// GPU they ran on. The 2021 ResNet50 captures record Input Dims but not stride/padding: their
// convolutions get the output shape from the trace (the autograd node's grad_output), and every
// forward convolution of ResNet50 must then be known.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analyzers/analyze.h"
#include "analyzers/context/op_tree.h"
#include "analyzers/roofline/roofline.h"
#include "support/test_support.h"
#include "trace/formats/kineto/kineto_reader.h"

namespace ampscope {
namespace roofline_shared_traces_test {
namespace {

struct Expect {
  const char* path;
  bool available;     // a roofline section (else: a reason)
  const char* gpu;    // peak row expected, or "" for not found
};

const Expect kTraces[] = {
    {"traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz", true, "V100-SXM2-16/32GB"},
    {"traces/kineto/tb_plugin/worker0.1623143566756.pt.trace.json.gz", true, "V100-SXM2-16/32GB"},
    {"traces/kineto/tb_plugin/gpu_metrics_input.json", false, "V100-SXM2-16/32GB"},        // no Input Dims
    {"traces/kineto/hta/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", false, "V100-SXM2-16/32GB"},  // no Input Dims
    {"traces/kineto/hta/nccl_data.json.gz", false, "A100-40GB-SXM4"},                      // no Input Dims
    {"traces/kineto/hta/a100_16rank_recsys_rank0.json.gz", true, "A100-80GB-SXM4"},
    // No deviceProperties: its cutlass_80_/ampere_ kernels prove sm80, whose A100 is assumed (issue 32).
    {"traces/kineto/hta/sampled_rank-0.json.gz", true, "A100-80GB-SXM4"},
    {"traces/kineto/hta/benchmark_result_493459_1694039959_trace.json.gz", false, "A100-40GB-SXM4"},
    {"traces/kineto/hta/event_sync_trace.json.gz", false, "A100-40GB-SXM4"},
    {"traces/kineto/hta/triton_example.json.gz", false, "A100-40GB-SXM4"},                 // only a Triton op
    {"traces/kineto/hta/mi250_minitoy_train_ROCm6_2_kineto.json.gz", true, ""},            // "AMD Radeon Graphics"
    {"traces/kineto/param_dlrm_8ranks/worker0_step_12.1694128201545.pt.trace.json.gz", true, "V100-SXM2-16/32GB"},
    {"traces/kineto/deepseek/train.json.gz", false, "H800-SXM5-80GB"},                     // no Input Dims
    {"traces/kineto/tracelens_mi210/gpu_only_trace.json.gz", false, "MI210"},              // no cpu_op at all
    {"traces/kineto/tracelens_mi300_qwen/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", true, "MI300X"},
};

TEST(RooflineSharedTraces, EveryTraceGetsAResultOrAReason) {
  for (const Expect& e : kTraces) {
    const std::string path = testing::SharedPath(e.path);
    SCOPED_TRACE(e.path);
    AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(path), "shared input not available: " + path);
    auto t = ReadKinetoTrace(path);
    ASSERT_TRUE(t.ok()) << t.status().message();
    const Trace& trace = t.value();
    const OpTree tree = OpTree::Build(trace);
    LaunchIndex launches(trace);
    const StepAnalysis steps = DetectSteps(trace, AnalysisOptions(), launches);
    const auto r = roofline::AnalyzeRoofline(trace, tree, steps, roofline::RooflineOptions());
    std::printf("  %-72s %s | gpu %s | steps %zu | step %.2f GFLOP | %.2f TFLOP/s | MFU %s | rows %zu | "
                "modelled %.0f of %.0f us\n",
                e.path, r.available ? "available" : ("not available: " + r.reason).c_str(),
                r.gpu.peak ? r.gpu.peak->id.c_str() : ("unknown (" + r.gpu.match.substr(0, 60) + ")").c_str(),
                r.steps.size(), r.summary.step_gflop, r.summary.achieved_tflops,
                r.summary.mfu_pct ? std::to_string(*r.summary.mfu_pct).c_str() : r.summary.mfu_reason.substr(0, 50).c_str(),
                r.ops.size(), r.coverage.modelled_kernel_time_us, r.coverage.kernel_time_us);
    EXPECT_EQ(r.available, e.available) << r.reason;
    if (!r.available) {
      EXPECT_FALSE(r.reason.empty());
    }
    if (std::string(e.gpu).empty()) {
      EXPECT_FALSE(r.gpu.peak.has_value());
      EXPECT_FALSE(r.gpu.match.empty());
    } else {
      ASSERT_TRUE(r.gpu.peak.has_value()) << r.gpu.match;
      EXPECT_EQ(r.gpu.peak->id, e.gpu);
    }
    if (r.available) {
      EXPECT_FALSE(r.ops.empty());
      EXPECT_TRUE(r.summary.mfu_pct.has_value() || !r.summary.mfu_reason.empty());
    }
  }
}

// ResNet50, batch 32, 2021 format (no stride/padding recorded). Reference: torchvision's model
// card for resnet50 lists 4.09 GFLOPS per 224x224 image, counted as multiply-adds (the ResNet
// paper, He et al. 2015, Table 1: 3.8 x 10^9 "FLOPs" = multiply-adds). So the forward GEMMs and
// convolutions of one step are about 2 x 4.09e9 x 32 = 261.8 GFLOP; within 2% here. Every forward
// convolution must be known: its output shape comes from the trace.
TEST(RooflineSharedTraces, ResNet50ForwardFlopsMatchTheModelCard) {
  const std::string path = testing::SharedPath("traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz");
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(path), "shared input not available: " + path);
  auto t = ReadKinetoTrace(path);
  ASSERT_TRUE(t.ok()) << t.status().message();
  const OpTree tree = OpTree::Build(t.value());
  LaunchIndex launches(t.value());
  const StepAnalysis steps = DetectSteps(t.value(), AnalysisOptions(), launches);
  ASSERT_EQ(steps.steps.size(), 6u);
  const auto r = roofline::AnalyzeRoofline(t.value(), tree, steps, roofline::RooflineOptions());
  ASSERT_TRUE(r.available) << r.reason;
  double fwd = 0, bwd = 0;
  uint64_t conv_calls = 0;
  for (const roofline::OpRow& row : r.ops) {
    if (row.id.family == roofline::OpFamily::kConvFwd) {
      EXPECT_TRUE(row.work.known) << row.id.op << " " << row.id.input_dims << ": " << row.work.note;
      conv_calls += row.timing.count;
    }
    if (row.id.unit != roofline::MathUnit::kMatrix || !row.work.known) continue;
    (row.id.backward ? bwd : fwd) += row.work.gflop * static_cast<double>(row.timing.count);
  }
  fwd /= 6;
  bwd /= 6;
  std::printf("  ResNet50 per step: forward %.2f GFLOP, backward %.2f GFLOP, step %.2f GFLOP, MFU %.2f%%\n", fwd, bwd,
              r.summary.step_gflop, r.summary.mfu_pct.value_or(-1));
  EXPECT_EQ(conv_calls, 6u * 53);  // 53 convolutions per forward pass (torchvision resnet50)
  EXPECT_NEAR(fwd, 2 * 4.09 * 32, 0.02 * 2 * 4.09 * 32);
  // Backward: dgrad + wgrad for every layer but no dgrad for the stem (its input needs none):
  // a little under twice the forward.
  EXPECT_GT(bwd, 1.8 * fwd);
  EXPECT_LT(bwd, 2.0 * fwd);
  EXPECT_NEAR(r.summary.step_gflop, fwd + bwd, 1e-6 * (fwd + bwd));
  EXPECT_EQ(r.summary.peak_precision, Precision::kFp32);  // an fp32 run (README: not AMP)
  ASSERT_TRUE(r.summary.mfu_pct.has_value());
  EXPECT_DOUBLE_EQ(*r.summary.peak_tflops, 15.7);  // V100 fp32
}

}  // namespace
}  // namespace roofline_shared_traces_test
}  // namespace ampscope
