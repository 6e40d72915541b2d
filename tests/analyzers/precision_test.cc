// Tests of analyzers/precision/precision.cc: Tensor Core share, FP32 SIMT share, TF32, casts, op-level precision.
//
// Where the expected values come from:
//   - SyntheticTrace: a hand-built trace; every expected number is computed by hand in the comments.
//   - Shared real traces: numbers computed independently with Python over the gzip'd JSON
//     (a script that does not use ampscope; it is reproduced in the comments of each test), and the
//     TensorBoard plugin's own recommendation text for the ResNet50 trace (shared/traces/README.md).
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analyzers/analyze.h"
#include "analyzers/precision/precision.h"
#include "reports/json_report.h"
#include "reports/precision_json.h"
#include "support/test_support.h"
#include "support/trace_builder.h"
#include "trace/formats/kineto/kineto_reader.h"

namespace ampscope {
namespace precision_test {
namespace {

using nlohmann::json;

// ---------------------------------------------------------------------------------------
// A hand-built trace

// On the shared builder (tests/support/trace_builder.h), with this file's conventions: ns,
// 5 ns cudaLaunchKernel calls carrying the op's External id, no pids, correlations from 100.
struct Builder {
  Builder() { b.set_next_correlation(100); }
  testing::TraceBuilder b;
  Trace& t = b.trace();

  uint32_t Op(const char* name, TimeNs s, TimeNs e, int64_t ext, const char* types = nullptr, int64_t tid = 1) {
    b.AddCpuOp(name, s, e, ext, types ? types : "", "", tid, /*pid=*/-1);
    return static_cast<uint32_t>(t.cpu_ops.size() - 1);
  }
  // A launch call at `launch_ns` on `tid` carrying External id `ext`, and its kernel [ks, ks+dur).
  void Kernel(const char* name, TimeNs launch_ns, int64_t ext, TimeNs ks, TimeNs dur, int64_t tid = 1) {
    const int64_t corr = b.NewCorrelation();
    b.AddApi("cudaLaunchKernel", launch_ns, launch_ns + 5, corr, tid, /*pid=*/-1).external_id = ext;
    b.AddKernel(name, ks, ks + dur, corr);
  }
};

constexpr const char* kFp16Gemm = "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn";
constexpr const char* kHalfAdd =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::Half>, std::array<char*, 3ul> >";
constexpr const char* kTf32Conv =
    "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8";
constexpr const char* kSgemm = "ampere_sgemm_128x64_nn";
constexpr const char* kAdam =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>>";
constexpr const char* kCast =
    "void at::native::vectorized_elementwise_kernel<4, at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)"
    "::{lambda(float)#1}, std::array<char*, 2ul> >";
constexpr const char* kSgemm2 = "volta_sgemm_64x64_nn";
constexpr const char* kNccl = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL";
constexpr const char* kTriton = "triton_poi_fused__to_copy_add_0";
constexpr const char* kOutside = "volta_h884gemm_64x64_nt";

Trace SyntheticTrace() {
  Builder b;
  Device d;
  d.id = 0;
  d.name = "NVIDIA A100-SXM4-80GB";
  d.vendor = GpuVendor::kNvidia;
  d.cc_major = 8;
  d.cc_minor = 0;
  b.t.devices.push_back(d);
  // Thread 1. Nesting: linear > addmm; conv2d > convolution > cudnn_convolution; Optimizer.step > add_.
  b.Op("aten::linear", 0, 1000, 1, "[\"c10::Half\",\"c10::Half\",\"c10::Half\"]");
  b.Op("aten::addmm", 100, 900, 2, "[\"c10::Half\",\"c10::Half\",\"c10::Half\",\"Scalar\",\"Scalar\"]");
  b.Op("aten::relu", 1000, 1200, 3, "[\"c10::Half\"]");
  b.Op("aten::conv2d", 1300, 2000, 4, "[\"float\",\"float\",\"\",\"GenericList\"]");
  b.Op("aten::convolution", 1310, 1990, 5);
  b.Op("aten::cudnn_convolution", 1320, 1980, 6);
  b.Op("Optimizer.step#SGD.step", 2100, 2500, 7);
  b.Op("aten::add_", 2200, 2300, 8, "[\"float\",\"float\",\"Scalar\"]");
  b.Op("aten::mm", 2600, 2700, 9);
  // Kernels (launch time, External id, kernel start, duration in ns).
  b.Kernel(kFp16Gemm, 200, 2, 300, 300);     // addmm: TC fp16 GEMM
  b.Kernel(kHalfAdd, 1100, 3, 1150, 50);     // relu (not eligible)
  b.Kernel(kTriton, 1150, 3, 1160, 20);      // relu; Triton: TC unknown, fused cast
  b.Kernel(kTf32Conv, 1400, 6, 1450, 400);   // cudnn_convolution: TC tf32 conv
  b.Kernel(kSgemm, 1500, 6, 1860, 100);      // cudnn_convolution: FP32 SIMT GEMM
  b.Kernel(kCast, 2150, 7, 2160, 40);        // Optimizer.step itself: excluded from "all ops"
  b.Kernel(kAdam, 2250, 8, 2260, 60);        // add_ (not eligible)
  b.Kernel(kSgemm2, 2650, 0, 2660, 70);      // External id 0: joined by containment to aten::mm
  b.Kernel(kNccl, 3000, -1, 3000, 500, 2);   // thread 2, no op around it: unattributed
  b.Kernel(kOutside, 900000, 2, 1000000, 1000);  // outside the step window
  // Measured Tensor Core activity: two samples in the window (40, 60), one outside.
  StringId active = b.t.strings.Intern("tensor_active_pct");
  b.t.counters.push_back({100, active, 0, 40.0});
  b.t.counters.push_back({200, active, 0, 60.0});
  b.t.counters.push_back({10000000, active, 0, 0.0});
  return b.t;
}

StepAnalysis OneStep(TimeNs s, TimeNs e) {
  StepAnalysis sa;
  sa.source = StepSource::kProfilerStep;
  StepWindow w;
  w.number = 1;
  w.cpu_start_ns = w.start_ns = s;
  w.cpu_end_ns = w.end_ns = e;
  sa.steps.push_back(w);
  sa.window_start_ns = s;
  sa.window_end_ns = e;
  return sa;
}

double Num(const json& j, const char* pointer) {
  json v = j.at(json::json_pointer(pointer));
  EXPECT_TRUE(v.is_number()) << pointer << " = " << v.dump();
  return v.is_number() ? v.get<double>() : NAN;
}

TEST(Precision, SyntheticTraceByHand) {
  Trace t = SyntheticTrace();
  RankAnalysis ra;
  ra.steps = OneStep(0, 5000);
  AnalyzePrecision(t, ra);

  // Kernels in the window: 300+50+20+400+100+40+60+70+500 = 1540 ns (the h884 GEMM at 1 ms is outside).
  const json tc = TensorCoresJson(ra.tensor_cores);
  EXPECT_NEAR(Num(tc, "/kernel_time_pct"), 100.0 * 700 / 1540, 1e-3);  // fp16 GEMM 300 + tf32 conv 400
  EXPECT_NEAR(Num(tc, "/unknown_tc_kernel_time_pct"), 100.0 * 20 / 1540, 1e-3);  // the Triton kernel
  EXPECT_EQ(tc["source"], "measured");
  EXPECT_NEAR(Num(tc, "/active_pct"), 50.0, 1e-9);  // mean of 40 and 60; the sample outside is ignored
  ASSERT_EQ(tc["top_kernels"].size(), 2u);
  EXPECT_EQ(tc["top_kernels"][0]["name"], kTf32Conv);
  EXPECT_EQ(tc["top_kernels"][1]["name"], kFp16Gemm);

  const json p = PrecisionJson(ra.precision);
  // GEMM+conv time: 300 (fp16 GEMM) + 400 (tf32 conv) + 100 + 70 (SIMT sgemm) = 870; SIMT 170.
  EXPECT_NEAR(Num(p, "/fp32_simt_gemm_pct_of_gemm"), 100.0 * 170 / 870, 1e-3);
  ASSERT_EQ(p["fp32_simt_top"].size(), 2u);
  EXPECT_EQ(p["fp32_simt_top"][0]["name"], kSgemm);
  EXPECT_EQ(p["tf32"]["used"], true);
  EXPECT_EQ(p["tf32"]["gpu_supports"], true);
  EXPECT_EQ(p["tf32"]["fp32_gemm_on_ampere"], true);
  EXPECT_NEAR(Num(p, "/tf32/tf32_kernel_time_pct"), 100.0 * 400 / 1540, 1e-3);
  // FP32 GEMMs ran as sgemm (matmul TF32 off), FP32 convs as TF32 xmma (cuDNN TF32 on).
  EXPECT_EQ(p["tf32"]["allow_tf32"]["matmul"], "off");
  EXPECT_EQ(p["tf32"]["allow_tf32"]["cudnn"], "on");
  EXPECT_EQ(p["casts"]["count"], 1);
  EXPECT_NEAR(Num(p, "/casts/count_per_step"), 1.0, 1e-9);
  EXPECT_NEAR(Num(p, "/casts/time_us"), 0.04, 1e-9);
  EXPECT_EQ(p["casts"]["fused_cast_kernels"]["count"], 1);
  EXPECT_NEAR(Num(p, "/kernel_time_by_precision_pct/fp16"), 100.0 * (300 + 50) / 1540, 1e-3);

  // Op level. Kernels attributed to ops other than Optimizer.*: addmm 300, relu 70, cudnn_convolution
  // 500, add_ 60, mm 70 = 1000. Bottom-most eligible: addmm (not linear), cudnn_convolution (not
  // conv2d/convolution), mm = 870. The NCCL kernel (500) has no op.
  const json& ol = p["op_level"];
  EXPECT_EQ(ol["available"], true);
  EXPECT_EQ(ol["has_input_types"], true);
  EXPECT_NEAR(Num(ol, "/op_kernel_time_us"), 1.0, 1e-9);
  EXPECT_NEAR(Num(ol, "/eligible_kernel_time_us"), 0.87, 1e-9);
  EXPECT_NEAR(Num(ol, "/eligible_kernel_time_pct"), 87.0, 1e-9);
  EXPECT_NEAR(Num(ol, "/eligible_pct_of_all_kernel_time"), 100.0 * 870 / 1540, 1e-3);
  EXPECT_NEAR(Num(ol, "/unattributed_kernel_time_us"), 0.5, 1e-9);
  // addmm ran in fp16 (300); cudnn_convolution fp32 (from conv2d's Input type, 500); mm fp32 (its kernels, 70).
  EXPECT_NEAR(Num(ol, "/lowp_share_pct"), 100.0 * 300 / 870, 1e-3);
  EXPECT_NEAR(Num(ol, "/fp32_share_pct"), 100.0 * 570 / 870, 1e-3);
  ASSERT_EQ(ol["ops"].size(), 3u);
  EXPECT_EQ(ol["ops"][0]["name"], "aten::cudnn_convolution");
  EXPECT_EQ(ol["ops"][0]["dtype"], "fp32");
  EXPECT_EQ(ol["ops"][0]["dtype_source"], "parent_input_type");
  EXPECT_EQ(ol["ops"][0]["kernel_precision"], "tf32");
  EXPECT_EQ(ol["ops"][0]["calls"], 1);
  EXPECT_NEAR(Num(ol["ops"][0], "/tensor_core_pct"), 80.0, 1e-9);  // 400 of 500
  ASSERT_EQ(ol["ops"][0]["kernels"].size(), 2u);
  EXPECT_EQ(ol["ops"][0]["kernels"][0]["name"], kTf32Conv);
  EXPECT_EQ(ol["ops"][1]["name"], "aten::addmm");
  EXPECT_EQ(ol["ops"][1]["dtype"], "fp16");
  EXPECT_EQ(ol["ops"][1]["dtype_source"], "input_type");
  EXPECT_EQ(ol["ops"][2]["name"], "aten::mm");
  EXPECT_EQ(ol["ops"][2]["dtype"], "fp32");
  EXPECT_EQ(ol["ops"][2]["dtype_source"], "kernels");
  ASSERT_EQ(ol["fp32_ops_top"].size(), 2u);
  EXPECT_EQ(ol["fp32_ops_top"][0]["name"], "aten::cudnn_convolution");

  // The GPU arrays were all zero, so they are filled: GEMM 300+100+70, conv 400.
  EXPECT_EQ(ra.gpu.kernel_time_by_category_ns[static_cast<size_t>(KernelCategory::kGemm)], 470);
  EXPECT_EQ(ra.gpu.kernel_time_by_category_ns[static_cast<size_t>(KernelCategory::kConv)], 400);
  EXPECT_EQ(ra.gpu.kernel_time_by_precision_ns[static_cast<size_t>(Precision::kTf32)], 400);

  // Top kernels: all 9 names in the window, by time; the one outside is absent.
  ASSERT_EQ(ra.top_kernels.size(), 9u);
  EXPECT_EQ(ra.top_kernels[0].name_str, kNccl);
  EXPECT_EQ(ra.top_kernels[0].total_ns, 500);
  EXPECT_EQ(ra.top_kernels[0].cls.category, KernelCategory::kCommunication);
  for (const KernelSummary& s : ra.top_kernels) EXPECT_NE(s.name_str, kOutside);
}

TEST(Precision, WithoutStepsTheWholeTraceCounts) {
  Trace t = SyntheticTrace();
  std::vector<KernelSummary> all = SummarizeKernels(t, StepAnalysis{});
  ASSERT_EQ(all.size(), 10u);
  EXPECT_EQ(all[0].name_str, kOutside);  // 1000 ns, now inside
  EXPECT_EQ(all[0].count, 1u);
  EXPECT_EQ(all[0].min_ns, 1000);
  EXPECT_EQ(all[0].cls.tensor_core, TensorCoreUse::kYes);
}

TEST(Precision, DoesNotOverwriteFilledGpuArraysAndHandlesNoOps) {
  Trace t = SyntheticTrace();
  t.cpu_ops.clear();
  t.counters.clear();
  RankAnalysis ra;
  ra.gpu.kernel_time_by_category_ns[0] = 12345;
  AnalyzePrecision(t, ra);
  EXPECT_EQ(ra.gpu.kernel_time_by_category_ns[0], 12345);
  EXPECT_EQ(PrecisionJson(ra.precision)["op_level"]["available"], false);
  EXPECT_TRUE(TensorCoresJson(ra.tensor_cores)["active_pct"].is_null());
  EXPECT_EQ(TensorCoresJson(ra.tensor_cores)["source"], "estimated");
  EXPECT_TRUE(PrecisionJson(ra.precision)["casts"]["count_per_step"].is_null());  // no steps
}

TEST(Precision, EmptyTrace) {
  Trace t;
  RankAnalysis ra;
  AnalyzePrecision(t, ra);
  EXPECT_TRUE(TensorCoresJson(ra.tensor_cores)["kernel_time_pct"].is_null());
  EXPECT_TRUE(PrecisionJson(ra.precision)["fp32_simt_gemm_pct_of_gemm"].is_null());
  EXPECT_TRUE(PrecisionJson(ra.precision)["tf32"]["gpu_supports"].is_null());
  EXPECT_EQ(PrecisionJson(ra.precision)["tf32"]["allow_tf32"]["matmul"], "unknown");
  EXPECT_TRUE(ra.top_kernels.empty());
}

TEST(Precision, EligibleOpNames) {
  // tb_plugin TC_OP_Allowlist and autocast's lower-precision list, exact names.
  for (const char* n : {"aten::conv2d", "aten::cudnn_convolution", "aten::addmm", "aten::mm", "aten::bmm",
                        "aten::linear", "aten::matmul", "aten::einsum", "aten::cudnn_convolution_backward_input",
                        "aten::convolution_backward", "aten::_scaled_dot_product_flash_attention", "aten::addmm_"})
    EXPECT_TRUE(IsTensorCoreEligibleOp(n)) << n;
  // Backward nodes with and without the version suffix.
  for (const char* n : {"MmBackward", "MmBackward0", "AddmmBackward0", "CudnnConvolutionBackward",
                        "ConvolutionBackward0", "BmmBackward0"})
    EXPECT_TRUE(IsTensorCoreEligibleOp(n)) << n;
  for (const char* n : {"aten::add", "aten::relu", "aten::layer_norm", "aten::softmax", "aten::mm_out_extra",
                        "autograd::engine::evaluate_function: MmBackward0", "Mm", "aten::conv2", ""})
    EXPECT_FALSE(IsTensorCoreEligibleOp(n)) << n;
  EXPECT_TRUE(IsExcludedFromOpKernelTime("Optimizer.step#SGD.step"));
  EXPECT_TRUE(IsExcludedFromOpKernelTime("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"));
  EXPECT_TRUE(IsExcludedFromOpKernelTime("DistributedDataParallel.forward"));
  EXPECT_TRUE(IsExcludedFromOpKernelTime("ProfilerStep#5"));
  EXPECT_FALSE(IsExcludedFromOpKernelTime("aten::add_"));
  EXPECT_FALSE(IsExcludedFromOpKernelTime("enumerate(DataLoader)#x"));
}

// ---------------------------------------------------------------------------------------
// Real traces
//
// Step windows are built here, the same way as in the Python used for the goldens:
// each ProfilerStep#N range, extended to the end of the kernels whose launching runtime call starts
// inside the range; a kernel counts if its start lies in a window.
//
// Python (reads the .json.gz directly; no ampscope code):
//   steps = [e for e in ev if e['name'].startswith('ProfilerStep#') and e['ph'] == 'X']
//   rt = {e['args']['correlation']: e for e in ev if e['cat'].lower() in ('runtime','cuda_runtime','cuda_driver')}
//   window = (s.ts, max(s.ts+s.dur, max(k.ts+k.dur for kernels whose rt.ts in [s.ts, s.ts+s.dur])))
//   TF32 Tensor Core kernel = 'tensorop_s1688' in name, or 'xmma' and 'tf32f32' in name, or
//                             'ImplicitGemmConvolution' and 'tfloat32' and 'TensorOp' in name
//   conv if 'fprop'/'dgrad'/'wgrad'/'Convolution' in the name, else GEMM; Triton = name starts 'triton'.

StepAnalysis ProfilerStepWindows(const Trace& t) {
  LaunchIndex launches(t);
  StepAnalysis sa;
  sa.source = StepSource::kProfilerStep;
  for (const Range& r : t.ranges) {
    std::string_view name = t.str(r.name);
    if (name.substr(0, 13) != "ProfilerStep#" || r.kind != RangeKind::kCpuAnnotation) continue;
    StepWindow w;
    w.name = std::string(name);
    w.cpu_start_ns = w.start_ns = r.start_ns;
    w.cpu_end_ns = w.end_ns = r.end_ns;
    for (const KernelEvent& k : t.kernels) {
      int64_t a = launches.Find(k.correlation);
      if (a < 0) continue;
      TimeNs ls = t.api_calls[static_cast<size_t>(a)].start_ns;
      if (ls >= r.start_ns && ls <= r.end_ns) w.end_ns = std::max(w.end_ns, k.end_ns);
    }
    sa.steps.push_back(w);
  }
  if (!sa.steps.empty()) {
    sa.window_start_ns = sa.steps.front().start_ns;
    sa.window_end_ns = sa.steps.back().end_ns;
  }
  return sa;
}

RankAnalysis AnalyzeShared(const std::string& rel, size_t expected_steps) {
  StatusOr<Trace> t = ReadKinetoTrace(testing::SharedPath(rel));
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.status().message());
  RankAnalysis ra;
  if (!t.ok()) return ra;
  ra.steps = ProfilerStepWindows(*t);
  EXPECT_EQ(ra.steps.steps.size(), expected_steps);
  AnalyzePrecision(*t, ra);
  return ra;
}

bool AnyNameContains(const json& list, const std::string& needle) {
  for (const json& e : list)
    if (e["name"].get<std::string>().find(needle) != std::string::npos) return true;
  return false;
}

// ResNet50 FP32 training on a V100 (tb_plugin sample worker0.1623143089861).
//  - The plugin reports "Kernel time using Tensor Cores: 0.0%".
//  - Its recommendation says "Kernels with 68% time are launched by Tensor Cores eligible operators".
//    The plugin (tensor_cores_parser.py _get_tc_eligible_ops_kernel_ratio, node.py, tensor_core.py)
//    computes: sum of kernel time of the bottom-most TC-eligible ops (an op in TC_OP_Allowlist, or one
//    that launched TC kernels, with no eligible descendant; kernels are attached to the op whose
//    External id the runtime call carries, i.e. the innermost op) / sum of kernel time of all ops
//    (excluding DataLoader __next__, Optimizer.*, DP/DDP forward), then rounds to a whole percent.
//    A Python re-implementation of exactly that over the JSON gives 399991 / 591532 us = 67.620%:
//    cudnn_convolution_backward_weight 141933 + cudnn_convolution_backward_input 130967 +
//    cudnn_convolution 126619 + mm 275 + addmm 197 us.
TEST(PrecisionGolden, TbPluginResNet50V100Fp32) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  RankAnalysis ra = AnalyzeShared("traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz", 6);
  EXPECT_NEAR(Num(TensorCoresJson(ra.tensor_cores), "/kernel_time_pct"), 0.0, 1e-9);
  EXPECT_TRUE(TensorCoresJson(ra.tensor_cores)["top_kernels"].empty());
  const json ol = PrecisionJson(ra.precision)["op_level"];
  EXPECT_NEAR(Num(ol, "/eligible_kernel_time_pct"), 68.0, 1.0);     // the plugin's number
  EXPECT_NEAR(Num(ol, "/eligible_kernel_time_pct"), 67.620, 0.001);  // the re-implementation's
  EXPECT_NEAR(Num(ol, "/eligible_kernel_time_us"), 399991.0, 0.5);
  EXPECT_NEAR(Num(ol, "/op_kernel_time_us"), 591532.0, 0.5);
  // FP32 run: every eligible op ran in fp32 (Input type "float").
  EXPECT_NEAR(Num(ol, "/lowp_share_pct"), 0.0, 1e-9);
  EXPECT_NEAR(Num(ol, "/fp32_share_pct"), 100.0, 1e-9);
  EXPECT_EQ(ol["ops"][0]["name"], "aten::cudnn_convolution_backward_weight");
  EXPECT_EQ(ol["ops"][0]["dtype"], "fp32");
  EXPECT_EQ(PrecisionJson(ra.precision)["tf32"]["gpu_supports"], false);  // cc 7.0
  // Nearly all GEMM/conv time is CUDA-core FP32 (sgemm, scudnn, implicit_convolve_sgemm, cuDNN engines).
  EXPECT_GT(Num(PrecisionJson(ra.precision), "/fp32_simt_gemm_pct_of_gemm"), 95.0);
}

// Two-rank DDP ResNet-like training on an A100, TF32 (HTA nccl_data).
// Python: 2700 kernels in 3 windows, 162532.340 us; TF32 Tensor Core kernels 23.756%:
// GEMMs (cutlass_80_tensorop_s1688gemm*) 19484.339 us, convs (sm80_xmma_*_tf32f32*, cuDNN CUTLASS
// s1688fprop/dgrad/wgrad tf32, ImplicitGemmConvolution<tfloat32_t>) 19126.913 us.
TEST(PrecisionGolden, NcclDataA100Tf32) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  RankAnalysis ra = AnalyzeShared("traces/kineto/hta/nccl_data.json.gz", 3);
  EXPECT_NEAR(Num(TensorCoresJson(ra.tensor_cores), "/kernel_time_us"), 162532.340, 0.001);
  EXPECT_NEAR(Num(TensorCoresJson(ra.tensor_cores), "/kernel_time_pct"), 23.756, 0.001);
  EXPECT_NEAR(Num(TensorCoresJson(ra.tensor_cores), "/tc_kernel_time_us"), 19484.339 + 19126.913, 0.002);
  EXPECT_TRUE(AnyNameContains(TensorCoresJson(ra.tensor_cores)["top_kernels"], "cutlass_80_tensorop_s1688gemm"));
  EXPECT_TRUE(AnyNameContains(TensorCoresJson(ra.tensor_cores)["top_kernels"], "ImplicitGemmConvolution"));
  const json tf32 = PrecisionJson(ra.precision)["tf32"];
  EXPECT_EQ(tf32["used"], true);
  EXPECT_EQ(tf32["gpu_supports"], true);
  EXPECT_NEAR(Num(tf32, "/tf32_kernel_time_pct"), 23.756, 0.001);
  EXPECT_TRUE(AnyNameContains(tf32["top"], "sm80_xmma_"));
  // TF32 share of GEMM+conv time: 38611.252 us of all GEMM/conv kernels (TF32 + the few sgemm/scudnn ones).
  EXPECT_NEAR(Num(PrecisionJson(ra.precision), "/kernel_time_by_precision_pct/tf32"), 23.756, 0.001);
  EXPECT_EQ(PrecisionJson(ra.precision)["op_level"]["has_input_types"], false);
}

// 16-rank recommender training on an A100 (HTA a100_16rank_recsys rank 0): TF32 CUTLASS GEMMs and
// Triton kernels. Python: 6080 kernels in 5 windows, 401445 us; TF32 CUTLASS GEMMs 119020 us = 29.648%;
// Triton kernels (Tensor Core use unknown) 1.762%.
TEST(PrecisionGolden, RecsysA100Tf32CutlassAndTriton) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  RankAnalysis ra = AnalyzeShared("traces/kineto/hta/a100_16rank_recsys_rank0.json.gz", 5);
  EXPECT_NEAR(Num(TensorCoresJson(ra.tensor_cores), "/kernel_time_us"), 401445.0, 0.001);
  EXPECT_NEAR(Num(TensorCoresJson(ra.tensor_cores), "/kernel_time_pct"), 29.648, 0.001);
  EXPECT_NEAR(Num(TensorCoresJson(ra.tensor_cores), "/tc_kernel_time_us"), 119020.0, 0.001);
  EXPECT_NEAR(Num(TensorCoresJson(ra.tensor_cores), "/unknown_tc_kernel_time_pct"), 1.762, 0.001);
  EXPECT_TRUE(AnyNameContains(TensorCoresJson(ra.tensor_cores)["top_kernels"], "cutlass_80_tensorop_s1688gemm"));
  ASSERT_FALSE(TensorCoresJson(ra.tensor_cores)["unknown_top_kernels"].empty());
  const json tc = TensorCoresJson(ra.tensor_cores);
  for (const json& k : tc["unknown_top_kernels"])
    EXPECT_EQ(k["name"].get<std::string>().substr(0, 6), "triton");
  EXPECT_EQ(PrecisionJson(ra.precision)["kernel_time_by_category_pct"].contains("triton_fused"), true);
  EXPECT_EQ(PrecisionJson(ra.precision)["tf32"]["used"], true);
  EXPECT_EQ(PrecisionJson(ra.precision)["op_level"]["has_input_types"], true);
}

}  // namespace
}  // namespace precision_test
}  // namespace ampscope
