// Advice that is right for the run (issue 12), on small hand-built traces: the recommendation
// follows the GPU's architecture, the optimizer that ran, training vs inference, what autocast
// itself does, the GradScaler's skipped steps, and a trace with nothing measured. Expected
// texts and numbers are worked out by hand in the comments; the real-trace side of each point is
// in advice_shared_traces_test.cc.
#include <gtest/gtest.h>

#include <string>

#include "analyzers/analyze.h"
#include "analyzers/diagnosis/diagnosis.h"
#include "diagnosis_builder.h"

namespace ampscope {
namespace advice_test {
namespace {

using namespace diagnosis_test;

const char* kVoltaSgemm = "volta_sgemm_128x64_nn";
const char* kFill = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)";

bool Has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// An fp32 run: 600 µs of SIMT GEMMs in a 1000 µs step, with a backward op so it is training.
RankAnalysis Fp32Run(const std::string& device, int cc_major, int cc_minor, bool training = true) {
  TraceBuilder b;
  b.SetDevice(device, cc_major, cc_minor);
  b.Step(1, 0, 1000);
  b.Op("aten::mm", 5, 9, "float, float", "[[64, 64], [64, 64]]");
  if (training) b.AddRange("autograd::engine::evaluate_function: MmBackward0", 700, 720);
  b.Run(cc_major >= 8 ? "ampere_sgemm_128x64_tn" : kVoltaSgemm, 10, 1, 600, 0);
  return b.Analyze();
}

TEST(Advice, AutocastDtypeFollowsTheArchitecture) {
  // sm70 (V100): no bf16 Tensor Cores -> fp16 autocast with a GradScaler, and no TF32.
  RankAnalysis v100 = Fp32Run("Tesla V100-SXM2-32GB", 7, 0);
  const Finding* f = FindFinding(v100, "amp_not_in_use");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(Has(f->recommendation, "dtype=torch.float16")) << f->recommendation;
  EXPECT_TRUE(Has(f->recommendation, "GradScaler")) << f->recommendation;
  EXPECT_TRUE(Has(f->recommendation, "sm70 has no bf16 Tensor Cores")) << f->recommendation;
  EXPECT_FALSE(Has(f->recommendation, "bfloat16")) << f->recommendation;
  EXPECT_FALSE(Has(f->recommendation, "TF32")) << f->recommendation;
  // sm75 (T4): the same.
  RankAnalysis run1 = Fp32Run("Tesla T4", 7, 5);
  f = FindFinding(run1, "amp_not_in_use");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(Has(f->recommendation, "dtype=torch.float16")) << f->recommendation;
  EXPECT_FALSE(Has(f->recommendation, "bfloat16")) << f->recommendation;
  // sm80 (A100): bf16, which needs no GradScaler; TF32 as the fallback.
  RankAnalysis run2 = Fp32Run("NVIDIA A100-SXM4-80GB", 8, 0);
  f = FindFinding(run2, "amp_not_in_use");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(Has(f->recommendation, "dtype=torch.bfloat16")) << f->recommendation;
  EXPECT_TRUE(Has(f->recommendation, "needs no GradScaler")) << f->recommendation;
  EXPECT_TRUE(Has(f->recommendation, "TF32")) << f->recommendation;
  // Inference on sm70: fp16 autocast, no GradScaler.
  RankAnalysis run3 = Fp32Run("Tesla V100-SXM2-32GB", 7, 0, false);
  f = FindFinding(run3, "amp_not_in_use");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(Has(f->recommendation, "dtype=torch.float16")) << f->recommendation;
  EXPECT_FALSE(Has(f->recommendation, "GradScaler")) << f->recommendation;
}

// 64 per-parameter add kernels (5 µs, launched every 15 µs) inside `optimizer`'s step range:
// idle 630 µs of 3000 (diagnosis_test's UnfusedOptimizerNeedsManyPerParameterKernels).
RankAnalysis PerParameterOptimizer(const std::string& optimizer) {
  TraceBuilder b;
  b.Step(1, 0, 3000);
  b.Run(kTcGemm, 10, 1, 1000);
  b.AddRange("Optimizer.step#" + optimizer + ".step", 1100, 1100 + 15.0 * 64 + 20);
  for (int i = 0; i < 64; ++i) {
    const double l = 1110 + 15.0 * i;
    b.Kernel(kAdd, l, l + 5, 5);
  }
  return b.Analyze();
}

TEST(Advice, OptimizerAdviceNamesTheOptimizerThatRan) {
  RankAnalysis sgd = PerParameterOptimizer("SGD");
  const Finding* f = FindFinding(sgd, "unfused_optimizer");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(Has(f->recommendation, "torch.optim.SGD(params, foreach=True) or fused=True")) << f->recommendation;
  EXPECT_FALSE(Has(f->recommendation, "AdamW")) << f->recommendation;
  // RMSprop has foreach but no fused implementation (torch.optim docs).
  RankAnalysis rmsprop = PerParameterOptimizer("RMSprop");
  f = FindFinding(rmsprop, "unfused_optimizer");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(Has(f->recommendation, "torch.optim.RMSprop(params, foreach=True)")) << f->recommendation;
  EXPECT_FALSE(Has(f->recommendation, "fused=True")) << f->recommendation;
  // LBFGS has neither: nothing to advise.
  EXPECT_EQ(FindFinding(PerParameterOptimizer("LBFGS"), "unfused_optimizer"), nullptr);
}

TEST(Advice, ZeroGradFillsAreNotAFusionChainOfTheModel) {
  // 40 fill kernels of 10 µs (1 µs apart) inside Optimizer.zero_grad, in a 2000 µs step: no
  // unfused chain. The step ends with its CPU range (the host launches each fill 5 µs before it
  // runs), so removing the fills saves what they cost the host: their 40 launch calls of 3 µs,
  // 120 µs = 6% of the step (replayed, docs/whatif.md).
  TraceBuilder b;
  b.Step(1, 0, 2000);
  b.Run(kTcGemm, 10, 1, 900);
  b.AddRange("Optimizer.zero_grad#SGD.zero_grad", 1000, 1500);
  b.Run(kFill, 1010, 40, 10);
  RankAnalysis ra = b.Analyze();
  EXPECT_EQ(FindFinding(ra, "unfused_elementwise_chains"), nullptr);
  const Finding* f = FindFinding(ra, "zero_grad_fills");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->est_saving_pct, 6.0, 0.01);
  EXPECT_TRUE(Has(f->recommendation, "zero_grad(set_to_none=True)")) << f->recommendation;
  EXPECT_TRUE(Has(f->recommendation, "SGD.zero_grad()")) << f->recommendation;
  // The same fills outside zero_grad, as the model's own chain, with casts: still a chain of
  // fills, not of model kernels.
  TraceBuilder c;
  c.Step(1, 0, 2000);
  c.Run(kTcGemm, 10, 1, 900);
  c.Run(kFill, 1010, 40, 10);
  EXPECT_EQ(FindFinding(c.Analyze(), "unfused_elementwise_chains"), nullptr);
}

// bf16 inference: a bf16 GEMM and a layer norm with bf16 inputs; no backward, no optimizer.
TEST(Advice, InferenceGetsNoTrainingAdvice) {
  TraceBuilder b;
  b.Step(1, 0, 1000);
  b.Op("aten::linear", 5, 9, "c10::BFloat16, c10::BFloat16", "[[64, 64], [64, 64]]");
  b.Op("aten::layer_norm", 600, 700, "c10::BFloat16, , c10::BFloat16, c10::BFloat16", "[[64, 64], [], [64], [64]]");
  b.Run("ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_tn", 10, 1, 500);
  b.Kernel(kLayerNorm, 605, 610, 80);
  RankAnalysis ra = b.Analyze();
  EXPECT_EQ(FindFinding(ra, "loss_or_norm_in_low_precision"), nullptr);
  EXPECT_EQ(FindFinding(ra, "fp16_without_grad_scaler"), nullptr);
  EXPECT_EQ(Check(ra, "grad_scaler").status, CheckStatus::kNotApplicable);
  EXPECT_TRUE(Has(Check(ra, "grad_scaler").evidence, "inference")) << Check(ra, "grad_scaler").evidence;
}

// A training step whose layer norm gets bf16 input: with autocast the inner call runs fp32.
RankAnalysis LayerNormInTraining(bool autocast_inner_fp32) {
  TraceBuilder b;
  b.Step(1, 0, 1000);
  b.Op("aten::linear", 5, 9, "c10::BFloat16, c10::BFloat16", "[[64, 64], [64, 64]]");
  b.AddRange("autograd::engine::evaluate_function: MmBackward0", 800, 820);
  b.Op("aten::layer_norm", 600, 700, "c10::BFloat16, , c10::BFloat16, c10::BFloat16", "[[64, 64], [], [64], [64]]");
  b.Op("aten::native_layer_norm", 602, 698, autocast_inner_fp32 ? "float, , float, float" : "c10::BFloat16, , c10::BFloat16, c10::BFloat16",
       "[[64, 64], [], [64], [64]]");
  b.Run("ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_tn", 10, 1, 500);
  b.Kernel(autocast_inner_fp32 ? kLayerNorm : "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)",
           605, 610, 80);
  return b.Analyze();
}

TEST(Advice, AutocastsOwnCastsAreNotUserErrors) {
  EXPECT_EQ(FindFinding(LayerNormInTraining(true), "loss_or_norm_in_low_precision"), nullptr);
  RankAnalysis ra = LayerNormInTraining(false);
  const Finding* f = FindFinding(ra, "loss_or_norm_in_low_precision");
  ASSERT_NE(f, nullptr);
  // One call (the outer layer_norm; the inner native_layer_norm is its own dispatch), its kernel 80 µs.
  EXPECT_EQ(FieldNumber(f->evidence, "calls").value_or(-1), 1);
  EXPECT_NEAR(FieldNumber(f->evidence, "kernel_time_us").value_or(-1), 80.0, 1e-9);
  EXPECT_EQ(f->severity, FindingSeverity::kInfo);  // a numerics risk, no time saving
  EXPECT_EQ(Check(ra, "autocast_coverage").status, CheckStatus::kWarn);
}

TEST(Advice, NothingMeasuredIsNotNothingToFix) {
  // Host ops only: torch.profiler with activities=[ProfilerActivity.CPU].
  TraceBuilder b;
  b.trace().devices.clear();
  b.Step(1, 0, 1000);
  b.Step(2, 1000, 2000);
  b.Op("aten::mm", 10, 400, "float, float", "[[64, 64], [64, 64]]");
  b.Op("aten::mm", 1010, 1400, "float, float", "[[64, 64], [64, 64]]");
  RankAnalysis ra = b.Analyze();
  ASSERT_EQ(ra.findings.size(), 1u);
  const Finding& f = ra.findings.front();
  EXPECT_EQ(f.id, "no_gpu_activity_recorded");
  EXPECT_TRUE(Has(f.recommendation, "ProfilerActivity.CUDA")) << f.recommendation;
  EXPECT_TRUE(Has(FieldString(f.evidence, "likely_cause").value_or(""), "activities=[ProfilerActivity.CPU]"));
  // Every item is unknown, data_pipeline too (no DataLoader ranges).
  for (const ChecklistItem& c : ra.checklist) {
    EXPECT_EQ(c.status, CheckStatus::kUnknown) << c.id;
    EXPECT_TRUE(Has(c.evidence, "no GPU activity was recorded")) << c.id;
    // The cause is the finding's to say, once (issue 36): not repeated in every item.
    EXPECT_FALSE(Has(c.evidence, "ProfilerActivity")) << c.id << ": " << c.evidence;
    EXPECT_TRUE(Has(c.evidence, "no_gpu_activity_recorded")) << c.id;
  }
  for (const DimensionResult& d : ra.matrix) EXPECT_FALSE(Has(d.headline.source, "ProfilerActivity")) << d.id;
  for (const DimensionResult& d : ra.matrix) EXPECT_EQ(d.status, DimensionStatus::kUnknown) << d.id;
  EXPECT_EQ(ra.joint_saving_pct, 0.0);
}

TEST(Advice, WarningsCarryASavingAndTheJointSavingIsCapped) {
  // 4 x 175 µs of sgemm, each followed by a cudaStreamSynchronize that keeps the host 300 µs
  // past the kernel's end: GPU busy 35% of the 2000 µs step, idle (opened by the syncs) the rest.
  // amp_not_in_use saves busy time, host_device_sync idle time; the joint saving counts each
  // kind at most once (<= 35 + 65).
  TraceBuilder b;
  b.Step(1, 0, 2000);
  b.Op("aten::mm", 5, 9, "float, float", "[[64, 64], [64, 64]]");
  double t = 10;
  for (int i = 0; i < 4; ++i) {
    b.Kernel("ampere_sgemm_128x64_tn", t, t + 5, 175);
    b.Api("cudaStreamSynchronize", t + 3, t + 480);
    t += 485;
  }
  RankAnalysis ra = b.Analyze();
  ASSERT_FALSE(ra.findings.empty());
  double previous = 1e9;
  for (const Finding& f : ra.findings) {
    if (f.severity != FindingSeverity::kInfo) {
      EXPECT_GT(f.est_saving_pct, 0.0) << f.id;
    }
    EXPECT_LE(f.est_saving_pct, previous) << f.id;  // ranked by saving
    previous = f.est_saving_pct;
  }
  EXPECT_GT(ra.joint_saving_pct, 0.0);
  EXPECT_LE(ra.joint_saving_pct, 100.0);
}

}  // namespace
}  // namespace advice_test
}  // namespace ampscope
