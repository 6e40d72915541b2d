// Advice from the facts of the run (issue 32 points 5, 7, 8, 9), on shared real traces and on
// small built traces with other names and sizes:
//   5. the Tensor-Core-eligible work has one definition, its share is of all kernel time, and its
//      percentage and its time agree wherever they are printed; TF32 advice only where TF32 does
//      not run already;
//   7. no cuDNN or Tensor Core wording on ROCm runs; no Tensor Core share beside status unknown;
//   8. an architecture inferred from kernel names gives the advice and the MFU of that GPU;
//   9. custom GEMM libraries in fp8 are Tensor Core work.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "analyzers/analyze.h"
#include "analyzers/roofline/roofline_result.h"
#include "support/test_support.h"
#include "support/trace_builder.h"
#include "trace/formats/kineto/kineto_reader.h"

namespace ampscope {
namespace run_facts_advice_test {
namespace {

using testing::Us;

const Finding* FindFinding(const RankAnalysis& ra, const std::string& id) {
  for (const Finding& f : ra.findings)
    if (f.id == id) return &f;
  return nullptr;
}
const ChecklistItem* Check(const RankAnalysis& ra, const std::string& id) {
  for (const ChecklistItem& c : ra.checklist)
    if (c.id == id) return &c;
  return nullptr;
}
const DimensionResult* Dim(const RankAnalysis& ra, const std::string& id) {
  for (const DimensionResult& d : ra.matrix)
    if (d.id == id) return &d;
  return nullptr;
}
double Number(const Finding& f, const std::string& key) {
  for (const Field& x : f.evidence) {
    if (x.key != key) continue;
    if (const auto* d = std::get_if<double>(&x.value)) return *d;
    if (const auto* i = std::get_if<int64_t>(&x.value)) return static_cast<double>(*i);
  }
  return -1;
}
bool Has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

RankAnalysis AnalyzeShared(const std::string& relative) {
  StatusOr<Trace> t = ReadKinetoTrace(testing::SharedPath(relative));
  EXPECT_TRUE(t.ok()) << relative << ": " << (t.ok() ? "" : t.status().message());
  if (!t.ok()) return {};
  StatusOr<RankAnalysis> ra = AnalyzeTrace(*t, AnalysisOptions{});
  EXPECT_TRUE(ra.ok());
  return ra.ok() ? std::move(ra).value() : RankAnalysis{};
}

// Ops and kernels on one thread, kernels back to back on stream 7, one ProfilerStep.
struct BuiltRun {
  testing::TraceBuilder b;
  TimeNs gpu = Us(10);
  void Step(double end_us) { b.AddRange("ProfilerStep#1", 0, Us(end_us)); }
  void Op(const std::string& name, double s, double e, const std::string& dims = "", const std::string& types = "") {
    b.AddCpuOp(name, Us(s), Us(e), -1, types, dims);
  }
  // A kernel launched at host time `at_us` (inside the op around it, if any), lasting `dur_us`.
  void Kernel(const std::string& name, double at_us, double dur_us, const std::string& launch = "cudaLaunchKernel") {
    const int64_t c = b.NewCorrelation();
    b.AddApi(launch, Us(at_us), Us(at_us + 1), c);
    b.AddKernel(name, gpu, gpu + Us(dur_us), c);
    gpu += Us(dur_us) + Us(1);
  }
  RankAnalysis Analyze() {
    StatusOr<RankAnalysis> ra = AnalyzeTrace(b.Finalize(), AnalysisOptions{});
    EXPECT_TRUE(ra.ok());
    return ra.ok() ? std::move(ra).value() : RankAnalysis{};
  }
};

const char* kSgemm = "volta_sgemm_128x64_nn";
const char* kTf32Gemm = "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params)";
const char* kTf32Conv = "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel_cudnn";
const char* kAdd = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int)";

// The eligible work counts every matmul kernel, also those no op launched, and its share is of
// all kernel time: 200 us of sgemm under aten::mm, 600 us of sgemm launched outside any op, 200 us
// of adds under aten::add. Eligible = 800 us of 1,000 us = 80% (the op-level share, 200 of the 400
// us that ops launched, is 50%: the plugin's figure, kept in precision.op_level).
TEST(EligibleWork, ShareAndTimeAreOneQuantity) {
  BuiltRun r;
  r.b.AddA100();
  r.Step(5000);
  r.Op("aten::mm", 100, 300, "[[64,512],[512,512]]", R"(["float","float"])");
  r.Kernel(kSgemm, 150, 200);
  for (int i = 0; i < 3; ++i) r.Kernel(kSgemm, 400 + 10.0 * i, 200);
  r.Op("aten::add", 600, 800, "[[64,512],[64,512]]", R"(["float","float"])");
  r.Kernel(kAdd, 650, 200);
  const RankAnalysis ra = r.Analyze();
  ASSERT_TRUE(ra.precision.op_level.available);
  EXPECT_NEAR(*ra.precision.op_level.eligible_kernel_time_pct, 50.0, 1e-9);
  EXPECT_NEAR(ra.precision.eligible.time_us, 800.0, 1e-6);
  EXPECT_NEAR(*ra.precision.eligible.pct_of_kernel_time, 80.0, 1e-9);
  const Finding* amp = FindFinding(ra, "amp_not_in_use");
  ASSERT_NE(amp, nullptr);
  EXPECT_NEAR(Number(*amp, "eligible_kernel_time_pct"), 80.0, 1e-9);
  EXPECT_NEAR(Number(*amp, "eligible_kernel_time_us"), 800.0, 1e-6);
  EXPECT_TRUE(Has(amp->recommendation, "80% of kernel time (0.8 ms)")) << amp->recommendation;
  EXPECT_TRUE(Has(Check(ra, "tensor_core_utilization")->evidence, "80.0% of kernel time (0.8 ms)"))
      << Check(ra, "tensor_core_utilization")->evidence;
  // An A100 whose fp32 GEMMs never use TF32: the switch is named.
  EXPECT_TRUE(Has(amp->recommendation, "torch.backends.cuda.matmul.allow_tf32 = True")) << amp->recommendation;
}

// TF32 kernels already run: never "at least allow TF32". Convolutions in TF32 and GEMMs in fp32
// SIMT: only the matmul switch is named; TF32 GEMMs beside fp32 ones (the switch is on, some
// shapes stay on CUDA cores): nothing about TF32.
TEST(EligibleWork, Tf32AdviceOnlyWhereTf32DoesNotRun) {
  BuiltRun convs;
  convs.b.AddA100();
  convs.Step(5000);
  for (int i = 0; i < 4; ++i) convs.Kernel(kTf32Conv, 100 + 10.0 * i, 300);
  convs.Kernel(kSgemm, 200, 150);
  const RankAnalysis a = convs.Analyze();
  const Finding* amp = FindFinding(a, "amp_not_in_use");
  ASSERT_NE(amp, nullptr);
  EXPECT_FALSE(Has(amp->recommendation, "at least allow TF32")) << amp->recommendation;
  EXPECT_TRUE(Has(amp->recommendation, "although its convolutions do")) << amp->recommendation;
  EXPECT_FALSE(Has(amp->recommendation, "cudnn.allow_tf32")) << amp->recommendation;
  EXPECT_TRUE(Has(amp->recommendation, "in tf32 ")) << amp->recommendation;  // what it runs in now

  BuiltRun mixed;
  mixed.b.AddA100();
  mixed.Step(5000);
  for (int i = 0; i < 3; ++i) mixed.Kernel(kTf32Gemm, 100 + 10.0 * i, 250);
  mixed.Kernel(kSgemm, 200, 100);
  const RankAnalysis m = mixed.Analyze();
  const Finding* amp2 = FindFinding(m, "amp_not_in_use");
  ASSERT_NE(amp2, nullptr);
  EXPECT_FALSE(Has(amp2->recommendation, "allow_tf32")) << amp2->recommendation;
  EXPECT_FALSE(Has(amp2->recommendation, "float32_matmul_precision")) << amp2->recommendation;
}

// Shared traces that run TF32 (README: py4ai "TF32 convs ... TF32 is already in use"; nccl_data
// "TF32 Tensor Core convs and GEMMs"): no "at least allow TF32", and the eligible share printed
// with its time is the same quantity.
TEST(EligibleWork, SharedTracesThatRunTf32) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=...)");
  for (const char* path : {"traces/kineto/py4ai/trace.json.gz", "traces/kineto/hta/nccl_data.json.gz"}) {
    SCOPED_TRACE(path);
    const RankAnalysis ra = AnalyzeShared(path);
    const Finding* amp = FindFinding(ra, "amp_not_in_use");
    ASSERT_NE(amp, nullptr);
    EXPECT_FALSE(Has(amp->recommendation, "at least allow TF32")) << amp->recommendation;
    EXPECT_TRUE(Has(amp->recommendation, "in tf32")) << amp->recommendation;
    const double pct = Number(*amp, "eligible_kernel_time_pct"), us = Number(*amp, "eligible_kernel_time_us");
    EXPECT_NEAR(pct, 100.0 * us / ra.precision.kernel_time_us, 0.01);
  }
  // nccl_data: both switches on (TF32 GEMMs and convs run): nothing about TF32 at all.
  const RankAnalysis nccl = AnalyzeShared("traces/kineto/hta/nccl_data.json.gz");
  EXPECT_FALSE(Has(FindFinding(nccl, "amp_not_in_use")->recommendation, "allow_tf32"));
}

// Point 8: the sampled A100 trace has no deviceProperties; its sm80 kernel names give the
// architecture, so the advice is bf16 without a GradScaler and the MFU uses the A100's peaks,
// saying they were assumed.
TEST(InferredArchitecture, SampledA100TraceGetsBf16AdviceAndMfu) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=...)");
  const RankAnalysis ra = AnalyzeShared("traces/kineto/hta/sampled_rank-1.json.gz");
  const Finding* amp = FindFinding(ra, "amp_not_in_use");
  ASSERT_NE(amp, nullptr);
  EXPECT_TRUE(Has(amp->recommendation, "dtype=torch.bfloat16")) << amp->recommendation;
  EXPECT_FALSE(Has(amp->recommendation, "GradScaler('cuda')")) << amp->recommendation;
  ASSERT_EQ(ra.input.devices.size(), 1u);
  EXPECT_EQ(ra.input.devices[0].device.cc_major, 8);
  ASSERT_TRUE(ra.input.devices[0].peak.has_value());
  EXPECT_EQ(ra.input.devices[0].peak->id, "A100-80GB-SXM4");
  EXPECT_TRUE(Has(ra.input.devices[0].peak_match, "assumed")) << ra.input.devices[0].peak_match;
  ASSERT_NE(ra.roofline, nullptr);
  ASSERT_TRUE(ra.roofline->gpu.peak.has_value()) << ra.roofline->gpu.match;
  EXPECT_EQ(ra.roofline->gpu.peak->id, "A100-80GB-SXM4");
  EXPECT_TRUE(Has(ra.roofline->gpu.match, "assumed")) << ra.roofline->gpu.match;
  EXPECT_TRUE(ra.roofline->summary.mfu_pct.has_value()) << ra.roofline->summary.mfu_reason;
}

// Built: a device known only by an inferred sm90 (no name), fp32 GEMMs under aten::mm: bf16
// advice, the H100's peaks assumed for the MFU; an inferred sm70 keeps fp16 with a GradScaler and
// says the names prove only sm70.
TEST(InferredArchitecture, BuiltTracesOfOtherArchitectures) {
  auto run = [](int major, const char* token) {
    BuiltRun r;
    Device& d = r.b.AddDevice(0, "", major, 0);
    d.vendor = GpuVendor::kNvidia;
    d.arch_basis = std::string("inferred from kernel names: compute capability >= ") + std::to_string(major) + ".0 (token " + token + ")";
    r.Step(20000);
    for (int i = 0; i < 4; ++i) {
      r.Op("aten::mm", 100 + 1000.0 * i, 900 + 1000.0 * i, "[[1024,1024],[1024,1024]]", R"(["float","float"])");
      r.Kernel(kSgemm, 200 + 1000.0 * i, 800);
    }
    r.Op("autograd::engine::evaluate_function: MmBackward0", 5000, 6000);
    return r.Analyze();
  };
  const RankAnalysis hopper = run(9, "sm90");
  const Finding* amp = FindFinding(hopper, "amp_not_in_use");
  ASSERT_NE(amp, nullptr);
  EXPECT_TRUE(Has(amp->recommendation, "dtype=torch.bfloat16")) << amp->recommendation;
  ASSERT_TRUE(hopper.input.devices[0].peak.has_value());
  EXPECT_EQ(hopper.input.devices[0].peak->id, "H100-SXM5-80GB");
  ASSERT_NE(hopper.roofline, nullptr);
  EXPECT_TRUE(hopper.roofline->summary.mfu_pct.has_value()) << hopper.roofline->summary.mfu_reason;

  const RankAnalysis volta = run(7, "volta_");
  const Finding* amp7 = FindFinding(volta, "amp_not_in_use");
  ASSERT_NE(amp7, nullptr);
  EXPECT_TRUE(Has(amp7->recommendation, "dtype=torch.float16")) << amp7->recommendation;
  EXPECT_TRUE(Has(amp7->recommendation, "prove only sm70")) << amp7->recommendation;
}

// Point 9: DeepSeek-V3 on an H800 (README: "FP8 grouped GEMMs (dpsk kernels)"). The dpsk GEMMs
// (cutlass::device_kernel<...::GemmKernel>, 30.5% of kernel time by the trace's own durations:
// 32,756 + 22,926 + 18,838 of 244,041 us) are fp8 Tensor Core work.
TEST(CustomGemms, DeepSeekFp8GroupedGemmsAreTensorCoreWork) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=...)");
  const RankAnalysis ra = AnalyzeShared("traces/kineto/deepseek/train.json.gz");
  ASSERT_TRUE(ra.tensor_cores.kernel_time_pct.has_value());
  EXPECT_GE(*ra.tensor_cores.kernel_time_pct, 30.5 + 6.0);  // the dpsk GEMMs, plus FlashAttention-3 fwd/bwd
  double fp8 = 0;
  for (const auto& [p, pct] : ra.precision.kernel_time_by_precision_pct)
    if (p == Precision::kFp8) fp8 = pct;
  EXPECT_GE(fp8, 30.5);
  const ChecklistItem* tc = Check(ra, "tensor_core_utilization");
  ASSERT_NE(tc, nullptr);
  EXPECT_NE(tc->status, CheckStatus::kFail) << tc->evidence;
}

// Built: fp8 GEMMs of another library, 70% of kernel time, on an H100: the Tensor Core share is
// theirs, and the item passes.
TEST(CustomGemms, BuiltFp8GroupedGemmOfAnotherLibrary) {
  BuiltRun r;
  r.b.AddDevice(0, "NVIDIA H100 80GB HBM3", 9, 0).vendor = GpuVendor::kNvidia;
  r.Step(5000);
  for (int i = 0; i < 7; ++i) r.Kernel("void moe::CutlassGroupedGemmKernel<cutlass::float_e4m3_t, cutlass::bfloat16_t, 128>(moe::Params)", 100 + 10.0 * i, 100);
  for (int i = 0; i < 3; ++i) r.Kernel(kAdd, 200 + 10.0 * i, 100);
  const RankAnalysis ra = r.Analyze();
  EXPECT_NEAR(*ra.tensor_cores.kernel_time_pct, 70.0, 1e-9);
  EXPECT_EQ(Check(ra, "tensor_core_utilization")->status, CheckStatus::kPass);
}

// Point 7: the MI300X ResNet18 run (bf16, ROCm). No cuDNN and no Tensor Core wording in any
// finding; the transposes (batched_transpose_*_half) are not counted fp16 (the run has no fp16
// GEMM or conv: its igemm convs are bf16); the matrix-core share is shown only with a status.
TEST(RocmRuns, SharedMi300xRunSpeaksOfMatrixCoresAndMiopen) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=...)");
  const RankAnalysis ra = AnalyzeShared("traces/kineto/tracelens_mi300_resnet18/train_resnet18.json.gz");
  for (const Finding& f : ra.findings) {
    EXPECT_FALSE(Has(f.recommendation, "cuDNN")) << f.id << ": " << f.recommendation;
    EXPECT_FALSE(Has(f.recommendation, "Tensor Core")) << f.id << ": " << f.recommendation;
    EXPECT_FALSE(Has(f.title, "Tensor Core")) << f.id << ": " << f.title;
  }
  for (const auto& [p, pct] : ra.precision.kernel_time_by_precision_pct) EXPECT_NE(p, Precision::kFp16) << pct;
  const ChecklistItem* tc = Check(ra, "tensor_core_utilization");
  ASSERT_NE(tc, nullptr);
  EXPECT_TRUE(Has(tc->threshold, "matrix cores (MFMA)")) << tc->threshold;
  EXPECT_FALSE(Has(tc->evidence, "Tensor Core kernels")) << tc->evidence;
  const DimensionResult* ci = Dim(ra, "compute_intensity");
  ASSERT_NE(ci, nullptr);
  EXPECT_EQ(ci->status == DimensionStatus::kUnknown, !ci->headline.value.has_value());
  EXPECT_EQ(tc->status == CheckStatus::kUnknown, !tc->value.has_value());
  // README: 26.57% of kernel time in MFMA GEMMs/convs.
  if (ci->headline.value) {
    EXPECT_NEAR(*ci->headline.value, 26.57, 0.05);
  }
  const Finding* layout = FindFinding(ra, "layout_transforms");
  ASSERT_NE(layout, nullptr);
  EXPECT_TRUE(Has(layout->recommendation, "MIOpen's matrix-core convolutions")) << layout->recommendation;
}

// Built ROCm runs: most kernel time in Composable Kernel "dl" convolutions, whose matrix-core use
// the name cannot tell (dot-lane kernels on the vector ALUs, or not): the status is unknown and no
// share is shown; with MIOpen xdlops convolutions the share is shown with its status.
TEST(RocmRuns, NoShareBesideAnUnknownStatus) {
  auto run = [](const char* conv) {
    BuiltRun r;
    r.b.AddDevice(0, "AMD Instinct MI210", 9, 0).vendor = GpuVendor::kAmd;
    r.b.trace().devices[0].sm_count = 104;
    r.Step(5000);
    for (int i = 0; i < 6; ++i) r.Kernel(conv, 100 + 10.0 * i, 100, "hipExtModuleLaunchKernel");
    for (int i = 0; i < 4; ++i) r.Kernel(kAdd, 200 + 10.0 * i, 100, "hipLaunchKernel");
    return r.Analyze();
  };
  const RankAnalysis unknown = run("_ZN2ck16tensor_operation6device12_GLOBAL__N_130kernel_grouped_conv_fwd_dl_multiple_dINS_");
  EXPECT_EQ(Check(unknown, "tensor_core_utilization")->status, CheckStatus::kUnknown);
  EXPECT_FALSE(Check(unknown, "tensor_core_utilization")->value.has_value());
  EXPECT_EQ(Dim(unknown, "compute_intensity")->status, DimensionStatus::kUnknown);
  EXPECT_FALSE(Dim(unknown, "compute_intensity")->headline.value.has_value());
  const RankAnalysis mfma = run("gridwise_convolution_implicit_gemm_v4r4_xdlops_nchw_kcyx_nkhw");
  ASSERT_TRUE(Check(mfma, "tensor_core_utilization")->value.has_value());
  EXPECT_NEAR(*Check(mfma, "tensor_core_utilization")->value, 60.0, 1e-9);
  EXPECT_EQ(Check(mfma, "tensor_core_utilization")->status, CheckStatus::kWarn);
  EXPECT_TRUE(Has(Check(mfma, "tensor_core_utilization")->evidence, "matrix-core")) << Check(mfma, "tensor_core_utilization")->evidence;
}

}  // namespace
}  // namespace run_facts_advice_test
}  // namespace ampscope
