// Tests of analyzers/roofline on hand-built traces: step FLOPs and MFU, counting each op once,
// precision under autocast, attention (causal, backward recompute), activation recompute (HFU).
// Every expected number is worked out by hand in the comments (2·M·N·K per GEMM; TraceLens's
// addmm convention adds M·N for the bias; peaks from the A100 datasheet row: fp32 19.5, fp16 312).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analyzers/context/op_tree.h"
#include "analyzers/roofline/roofline.h"
#include "support/trace_builder.h"

namespace ampscope {
namespace roofline_test {
namespace {

using roofline::OpRow;

constexpr const char* kSgemm = "ampere_sgemm_128x64_nn";  // fp32, CUDA cores
constexpr const char* kHgemm = "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn";
constexpr const char* kFlash = "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::half_t>>";
constexpr const char* kFlashBwd = "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<64, 128, 128, 8, 4, 4, 4, false, false, cutlass::half_t>>";

// Rows through the one trace builder (tests/support) on an A100-SXM4-80GB: ops with their
// recorded arguments, kernels found through their launch calls, back to back on the GPU.
struct Builder : testing::TraceBuilder {
  int64_t corr = 1;
  TimeNs gpu_clock = 1'000'000;

  Builder() { AddA100(); }
  void Op(const char* name, TimeNs s, TimeNs e, int64_t tid, const std::string& dims, const std::string& types,
          const std::string& concrete = "", int64_t seq = -1) {
    CpuOp& op = AddCpuOp(name, s, e, -1, types, dims, tid);
    op.sequence_number = seq;
    if (!concrete.empty()) op.concrete_inputs = Str(concrete);
  }
  // A kernel launched at host time `at` on `tid` (found through its launch call), lasting `dur`.
  void Kernel(const char* name, TimeNs at, int64_t tid, TimeNs dur) {
    AddApi("cudaLaunchKernel", at, at + 1, corr, tid);
    AddKernel(name, gpu_clock, gpu_clock + dur, corr++);
    gpu_clock += dur + 10;
  }
};

StepAnalysis OneStep(TimeNs end_ns) {
  StepAnalysis s;
  s.source = StepSource::kProfilerStep;
  StepWindow w;
  w.number = 7;
  w.cpu_start_ns = 0;
  w.cpu_end_ns = end_ns;
  w.start_ns = 0;
  w.end_ns = end_ns;
  s.steps.push_back(w);
  s.window_start_ns = 0;
  s.window_end_ns = end_ns;
  return s;
}

const OpRow* FindRow(const roofline::RooflineResult& r, const std::string& op, const std::string& dims) {
  for (const OpRow& row : r.ops)
    if (row.id.op == op && row.id.input_dims == dims) return &row;
  return nullptr;
}

// A 3-layer MLP (batch 32: 784 -> 256 -> 128 -> 10), fp32, one training step.
// Forward, per layer aten::linear > aten::addmm (2·M·N·K + M·N with M = 32):
//   L1 2·32·256·784 + 32·256 = 12845056 + 8192  = 12853248
//   L2 2·32·128·256 + 32·128 =  2097152 + 4096  =  2101248
//   L3 2·32·10·128  + 32·10  =    81920 +  320  =    82240
// Backward, per layer AddmmBackward0 > aten::mm: wgrad for every layer (2·N·K·32: 12845056,
// 2097152, 81920), dgrad for all but the first (the input needs no gradient: 2·32·K·N for L2
// 2097152 and L3 81920). Total 15036736 + 15024128 + 2179072 = 32239936 FLOP.
Builder MlpTrace() {
  Builder b;
  struct Layer {
    int k, n;
  } layers[] = {{784, 256}, {256, 128}, {128, 10}};
  TimeNs t = 100;
  for (const Layer& l : layers) {
    const std::string K = std::to_string(l.k), N = std::to_string(l.n);
    b.Op("aten::linear", t, t + 900, 1, "[[32," + K + "],[" + N + "," + K + "],[" + N + "]]", R"(["float","float","float"])");
    b.Op("aten::t", t + 10, t + 50, 1, "[[" + N + "," + K + "]]", R"(["float"])");
    b.Op("aten::addmm", t + 100, t + 800, 1, "[[" + N + "],[32," + K + "],[" + K + "," + N + "],[],[]]",
         R"(["float","float","float","Scalar","Scalar"])");
    b.Kernel(kSgemm, t + 200, 1, 10'000);
    b.Op("aten::relu", t + 950, t + 990, 1, "[[32," + N + "]]", R"(["float"])");
    b.Kernel("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar>", t + 960, 1, 1'000);
    t += 1'000;
  }
  // Backward on the autograd thread, last layer first.
  t = 10'000;
  for (int i = 2; i >= 0; --i) {
    const std::string K = std::to_string(layers[i].k), N = std::to_string(layers[i].n);
    b.Op("autograd::engine::evaluate_function: AddmmBackward0", t, t + 2'000, 2, "", "");
    b.Op("AddmmBackward0", t + 10, t + 1'990, 2, "[[32," + N + "]]", R"(["float"])");
    if (i > 0) {
      b.Op("aten::mm", t + 100, t + 500, 2, "[[32," + N + "],[" + N + "," + K + "]]", R"(["float","float"])");
      b.Kernel(kSgemm, t + 200, 2, 10'000);
    }
    b.Op("aten::mm", t + 600, t + 1'000, 2, "[[" + N + ",32],[32," + K + "]]", R"(["float","float"])");
    b.Kernel(kSgemm, t + 700, 2, 10'000);
    b.Op("aten::sum", t + 1'100, t + 1'500, 2, "[[32," + N + "],[],[],[]]", R"(["float","ScalarList","Bool",""])");
    t += 3'000;
  }
  return b;
}

TEST(Roofline, MlpTrainingStepFlopsAndMfu) {
  Builder b = MlpTrace();
  const OpTree tree = OpTree::Build(b.trace());
  const StepAnalysis steps = OneStep(10'000'000);  // a 10 ms step
  const auto r = roofline::AnalyzeRoofline(b.trace(), tree, steps, roofline::RooflineOptions());
  ASSERT_TRUE(r.available) << r.reason;
  ASSERT_TRUE(r.gpu.peak.has_value()) << r.gpu.match;
  EXPECT_EQ(r.gpu.peak->id, "A100-80GB-SXM4");
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].number, 7);
  EXPECT_DOUBLE_EQ(r.steps[0].model_gflop, 32239936 / 1e9);
  EXPECT_DOUBLE_EQ(r.summary.step_gflop, 32239936 / 1e9);
  EXPECT_EQ(r.summary.peak_precision, Precision::kFp32);  // sgemm kernels, fp32 inputs
  ASSERT_TRUE(r.summary.peak_tflops.has_value());
  EXPECT_DOUBLE_EQ(*r.summary.peak_tflops, 19.5);
  // 32239936 FLOP in 10 ms = 3.2239936e9 FLOP/s = 0.0032239936 TFLOP/s; / 19.5 x 100.
  EXPECT_NEAR(r.summary.achieved_tflops, 0.0032239936, 1e-15);
  ASSERT_TRUE(r.summary.mfu_pct.has_value()) << r.summary.mfu_reason;
  EXPECT_NEAR(*r.summary.mfu_pct, 0.0032239936 / 19.5 * 100, 1e-12);
  EXPECT_FALSE(r.summary.hfu_pct.has_value());
  EXPECT_FALSE(r.summary.activation_recompute);

  // Rows: the GEMMs that ran (addmm under linear, not linear), forward and backward apart.
  EXPECT_EQ(FindRow(r, "aten::linear", "[[32,784],[256,784],[256]]"), nullptr);
  const OpRow* l1 = FindRow(r, "aten::addmm", "[[256],[32,784],[784,256],[],[]]");
  ASSERT_NE(l1, nullptr);
  EXPECT_DOUBLE_EQ(l1->work.gflop, 12853248 / 1e9);
  EXPECT_EQ(l1->timing.count, 1u);
  EXPECT_DOUBLE_EQ(l1->timing.kernel_time_us, 10);
  // 12853248 FLOP in 10 µs = 1.2853248 TFLOP/s.
  ASSERT_TRUE(l1->timing.tflops.has_value());
  EXPECT_NEAR(*l1->timing.tflops, 1.2853248, 1e-12);
  EXPECT_FALSE(l1->id.backward);
  EXPECT_EQ(l1->id.precision, Precision::kFp32);
  const OpRow* wgrad1 = FindRow(r, "aten::mm", "[[256,32],[32,784]]");
  ASSERT_NE(wgrad1, nullptr);
  EXPECT_TRUE(wgrad1->id.backward);
  EXPECT_DOUBLE_EQ(wgrad1->work.gflop, 12845056 / 1e9);
  // Bytes (12845056 FLOP; (256·32 + 32·784 + 256·784)·4 = 935936 bytes) -> 13.7 FLOP/byte, under
  // the A100's fp32 ridge of 19.5 TFLOP/s / 2.039 TB/s = 9.56 FLOP/byte: compute-bound.
  ASSERT_TRUE(wgrad1->work.bytes.has_value());
  EXPECT_DOUBLE_EQ(*wgrad1->work.bytes, 935936);
  EXPECT_EQ(wgrad1->roof.bound, "compute");
  // relu [32,256]: 8192 FLOP, (8192 + 8192)·4 bytes = 0.125 FLOP/byte: memory-bound.
  const OpRow* relu = FindRow(r, "aten::relu", "[[32,256]]");
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->roof.bound, "memory");
  ASSERT_TRUE(relu->roof.pct_of_peak.has_value());
  // Every kernel ran under a row with known FLOPs (GEMMs and relus).
  EXPECT_DOUBLE_EQ(r.coverage.kernel_time_us, r.coverage.modelled_kernel_time_us);
}

TEST(Roofline, UnknownGpuGivesNoMfuAndSaysWhy) {
  Builder b = MlpTrace();
  b.trace().devices[0].name = "NVIDIA B300";  // not an exact device name: never another GPU's peaks
  const OpTree tree = OpTree::Build(b.trace());
  const auto r = roofline::AnalyzeRoofline(b.trace(), tree, OneStep(10'000'000), roofline::RooflineOptions());
  ASSERT_TRUE(r.available);
  EXPECT_FALSE(r.gpu.peak.has_value());
  EXPECT_FALSE(r.summary.mfu_pct.has_value());
  EXPECT_NE(r.summary.mfu_reason.find("GPU peaks unknown"), std::string::npos) << r.summary.mfu_reason;
  EXPECT_DOUBLE_EQ(r.summary.step_gflop, 32239936 / 1e9);  // FLOPs do not need the GPU
  // --gpu gives the peaks.
  roofline::RooflineOptions o;
  o.gpu_override = "H100-SXM5-80GB";
  const auto r2 = roofline::AnalyzeRoofline(b.trace(), tree, OneStep(10'000'000), o);
  ASSERT_TRUE(r2.summary.mfu_pct.has_value()) << r2.summary.mfu_reason;
  EXPECT_DOUBLE_EQ(*r2.summary.peak_tflops, 66.9);  // H100 SXM fp32
}

// Under autocast an fp16-list op (linear) is recorded with the caller's fp32 tensors, then
// re-dispatched with fp16 ones; an fp32-list op (softmax) the other way round. The math precision
// is the inner op's (and its kernels'), and the nested linears count once.
TEST(Roofline, AutocastPrecisionComesFromTheInnerOpAndKernels) {
  Builder b;
  // linear [64,512] x [1024,512]^T + bias: 2·64·1024·512 + 64·1024 = 67108864 + 65536 = 67174400.
  b.Op("aten::linear", 100, 1000, 1, "[[64,512],[1024,512],[1024]]", R"(["float","float","float"])");
  b.Op("aten::linear", 300, 950, 1, "[[64,512],[1024,512],[1024]]", R"(["c10::Half","c10::Half","c10::Half"])");
  b.Op("aten::addmm", 400, 900, 1, "[[1024],[64,512],[512,1024],[],[]]",
       R"(["c10::Half","c10::Half","c10::Half","Scalar","Scalar"])");
  b.Kernel(kHgemm, 500, 1, 4'000);
  b.Op("aten::softmax", 1100, 1500, 1, "[[64,1024],[],[]]", R"(["c10::Half","Int",""])");
  b.Op("aten::_softmax", 1200, 1400, 1, "[[64,1024],[],[]]", R"(["float","Int","Bool"])");
  b.Kernel("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float>", 1300, 1, 2'000);
  const OpTree tree = OpTree::Build(b.trace());
  const auto r = roofline::AnalyzeRoofline(b.trace(), tree, OneStep(1'000'000), roofline::RooflineOptions());
  ASSERT_TRUE(r.available) << r.reason;
  EXPECT_DOUBLE_EQ(r.summary.step_gflop, 67174400 / 1e9);  // once, not three times
  EXPECT_EQ(r.summary.peak_precision, Precision::kFp16);
  EXPECT_DOUBLE_EQ(*r.summary.peak_tflops, 312);
  const OpRow* addmm = FindRow(r, "aten::addmm", "[[1024],[64,512],[512,1024],[],[]]");
  ASSERT_NE(addmm, nullptr);
  EXPECT_EQ(addmm->id.precision, Precision::kFp16);
  EXPECT_EQ(FindRow(r, "aten::softmax", "[[64,1024],[],[]]"), nullptr);  // the outer call is no row
  const OpRow* sm = FindRow(r, "aten::_softmax", "[[64,1024],[],[]]");
  ASSERT_NE(sm, nullptr);
  EXPECT_EQ(sm->id.precision, Precision::kFp32);
}

// Causal flash attention, forward and backward: q, k, v [2, 4, 128, 64] (fp16).
// Forward 2·(2·2·4·128·128·64) / 2 = 16777216. Backward 5 · 16777216 / 2 = 41943040, of which
// the Q·K^T recompute is 8388608: model FLOPs 16777216 + 33554432 = 50331648, hardware
// FLOPs + 8388608 = 58720256.
TEST(Roofline, AttentionForwardBackwardAndItsRecompute) {
  Builder b;
  const std::string qkv = "[2,4,128,64],[2,4,128,64],[2,4,128,64]";
  b.Op("aten::scaled_dot_product_attention", 100, 1000, 1, "[" + qkv + ",[],[],[],[],[]]",
       R"(["c10::Half","c10::Half","c10::Half","","Double","Bool","",""])", R"(["","","","","0.","True","","False"])", 5);
  b.Op("aten::_scaled_dot_product_flash_attention", 200, 900, 1, "[" + qkv + ",[],[],[],[]]",
       R"(["c10::Half","c10::Half","c10::Half","Double","Bool","Bool",""])", R"(["","","","0.","True","False",""])", 5);
  b.Kernel(kFlash, 300, 1, 5'000);
  b.Op("autograd::engine::evaluate_function: ScaledDotProductFlashAttentionBackward0", 2000, 3000, 2, "", "", "", 5);
  b.Op("ScaledDotProductFlashAttentionBackward0", 2010, 2990, 2, "[[2,4,128,64]]", R"(["c10::Half"])", "", 5);
  b.Op("aten::_scaled_dot_product_flash_attention_backward", 2100, 2900, 2,
       "[[2,4,128,64]," + qkv + ",[2,4,128,64],[2,4,128],[],[],[],[],[],[],[],[]]",
       R"(["c10::Half","c10::Half","c10::Half","c10::Half","c10::Half","float","","","Int","Int","Double","Bool","",""])",
       R"(["","","","","","","","","128","128","0.","True","",""])");
  b.Kernel(kFlashBwd, 2200, 2, 12'000);
  const OpTree tree = OpTree::Build(b.trace());
  const auto r = roofline::AnalyzeRoofline(b.trace(), tree, OneStep(1'000'000), roofline::RooflineOptions());
  ASSERT_TRUE(r.available) << r.reason;
  EXPECT_DOUBLE_EQ(r.steps[0].model_gflop, 50331648 / 1e9);
  EXPECT_DOUBLE_EQ(r.steps[0].hardware_gflop, 58720256 / 1e9);
  EXPECT_FALSE(r.summary.activation_recompute);  // recompute inside the kernel, not of activations
  ASSERT_TRUE(r.summary.mfu_pct.has_value());
  ASSERT_TRUE(r.summary.hfu_pct.has_value());
  EXPECT_NEAR(*r.summary.hfu_pct / *r.summary.mfu_pct, 58720256.0 / 50331648.0, 1e-12);
  const OpRow* fwd = FindRow(r, "aten::_scaled_dot_product_flash_attention", "[" + qkv + ",[],[],[],[]]");
  ASSERT_NE(fwd, nullptr);
  EXPECT_DOUBLE_EQ(fwd->work.gflop, 16777216 / 1e9);
  EXPECT_EQ(fwd->id.family, roofline::OpFamily::kAttentionFwd);
  const OpRow* bwd = FindRow(r, "aten::_scaled_dot_product_flash_attention_backward",
                             "[[2,4,128,64]," + qkv + ",[2,4,128,64],[2,4,128],[],[],[],[],[],[],[],[]]");
  ASSERT_NE(bwd, nullptr);
  EXPECT_TRUE(bwd->id.backward);
  EXPECT_DOUBLE_EQ(bwd->work.gflop, 41943040 / 1e9);  // the op's row shows the work its kernels did
  // 41943040 FLOP in 12 µs = 3.4952533 TFLOP/s.
  EXPECT_NEAR(*bwd->timing.tflops, 41943040 / 12e-6 / 1e12, 1e-9);
}

// Activation checkpointing: the forward ops run again inside the backward pass (with grad on,
// so they get sequence numbers, which gradient ops in backward do not). Model FLOPs exclude the
// re-run; HFU counts it. linear [32,256] x [512,256]^T, no bias: 2·32·512·256 = 8388608, run once
// in forward and once inside CheckpointFunctionBackward, plus its wgrad mm (2·512·32·256 = 8388608).
TEST(Roofline, ActivationRecomputeGivesHfu) {
  Builder b;
  b.Op("aten::linear", 100, 900, 1, "[[32,256],[512,256],[]]", R"(["float","float",""])", "", 40);
  b.Op("aten::mm", 200, 800, 1, "[[32,256],[256,512]]", R"(["float","float"])", "", 41);
  b.Kernel(kSgemm, 300, 1, 1'000);
  b.Op("autograd::engine::evaluate_function: CheckpointFunctionBackward", 2000, 5000, 2, "", "", "", 42);
  b.Op("CheckpointFunctionBackward", 2010, 4990, 2, "[[32,512]]", R"(["float"])", "", 42);
  b.Op("aten::linear", 2100, 2900, 2, "[[32,256],[512,256],[]]", R"(["float","float",""])", "", 50);
  b.Op("aten::mm", 2200, 2800, 2, "[[32,256],[256,512]]", R"(["float","float"])", "", 51);
  b.Kernel(kSgemm, 2300, 2, 1'000);
  b.Op("autograd::engine::evaluate_function: MmBackward0", 3000, 4000, 2, "", "", "", 51);
  b.Op("aten::mm", 3100, 3900, 2, "[[512,32],[32,256]]", R"(["float","float"])");
  b.Kernel(kSgemm, 3200, 2, 1'000);
  const OpTree tree = OpTree::Build(b.trace());
  const auto r = roofline::AnalyzeRoofline(b.trace(), tree, OneStep(1'000'000), roofline::RooflineOptions());
  ASSERT_TRUE(r.available) << r.reason;
  EXPECT_TRUE(r.summary.activation_recompute);
  EXPECT_DOUBLE_EQ(r.steps[0].model_gflop, 2 * 8388608 / 1e9);
  EXPECT_DOUBLE_EQ(r.steps[0].hardware_gflop, 3 * 8388608 / 1e9);
  ASSERT_TRUE(r.summary.hfu_pct.has_value());
  EXPECT_NEAR(*r.summary.hfu_pct / *r.summary.mfu_pct, 1.5, 1e-12);
}

TEST(Roofline, NotAvailableSaysWhy) {
  Builder b;
  b.Kernel(kSgemm, 100, 1, 1'000);
  OpTree tree = OpTree::Build(b.trace());
  auto r = roofline::AnalyzeRoofline(b.trace(), tree, StepAnalysis(), roofline::RooflineOptions());
  EXPECT_FALSE(r.available);
  EXPECT_NE(r.reason.find("no cpu_op"), std::string::npos);
  b.Op("aten::mm", 50, 200, 1, "", "");
  tree = OpTree::Build(b.trace());
  r = roofline::AnalyzeRoofline(b.trace(), tree, StepAnalysis(), roofline::RooflineOptions());
  EXPECT_FALSE(r.available);
  EXPECT_NE(r.reason.find("record_shapes"), std::string::npos);
}

}  // namespace
}  // namespace roofline_test
}  // namespace ampscope
