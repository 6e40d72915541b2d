// The GPU architecture a trace's kernel names prove (trace/classify/kernel_arch.h), checked
// against what the traces themselves say:
//   - every name of shared/reference/kernel_names.tsv labelled with an architecture (sm70 ...
//     sm90, or "sm80+"/"sm90+"): the bound a name proves is never above its label;
//   - every shared Kineto trace whose deviceProperties give the compute capability: the bound its
//     kernel names prove is never above it, and equal to it where the README says the trace has
//     that architecture's kernels (V100 volta_*, A100 cutlass_80_/sm80_xmma, RTX 3090 sm86_xmma,
//     H800/H100 sm90_xmma);
//   - the sampled A100 trace without deviceProperties (hta/sampled_rank-1, README: "sm80 kernels:
//     cutlass_80_*, ampere_sgemm, Policy800"): the reader gives its device compute capability 8.0
//     with the basis;
//   - names written here by hand from the same conventions, with other tokens and architectures,
//     and a small Kineto trace without deviceProperties read end to end.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "support/test_support.h"
#include "support/trace_builder.h"
#include "trace/classify/kernel_arch.h"
#include "trace/formats/kineto/kineto_reader.h"

namespace ampscope {
namespace kernel_arch_test {
namespace {

int Arch10(int major, int minor) { return major * 10 + minor; }

std::vector<std::string> Tabs(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == '\t') out.emplace_back();
    else if (c != '\r') out.back() += c;
  }
  return out;
}

TEST(KernelArch, NeverAboveTheLabelledArchitectureOfKernelNamesTsv) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=...)");
  std::ifstream in(testing::SharedPath("reference/kernel_names.tsv"));
  ASSERT_TRUE(in);
  std::string line;
  int labelled = 0, proved = 0, exact = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = Tabs(line);
    ASSERT_EQ(f.size(), 6u) << line;
    const std::string& arch = f[0];
    if (arch.size() < 4 || arch.compare(0, 2, "sm") != 0) continue;  // header, "any"
    ++labelled;
    const int label = std::stoi(arch.substr(2, 2));
    const std::optional<KernelArch> a = KernelArchOf(f[5]);
    if (!a) continue;
    ++proved;
    SCOPED_TRACE(line);
    EXPECT_LE(Arch10(a->cc_major, a->cc_minor), label) << "token " << a->token;
    exact += Arch10(a->cc_major, a->cc_minor) == label;
  }
  EXPECT_EQ(labelled, 82);  // 14 sm70, 8 sm75, 34 sm80, 7 sm80+, 7 sm90, 12 sm90+ rows
  // Most labelled names carry their architecture (volta_, turing_, ampere_, sm90_xmma, nvjet,
  // cutlass3x_sm90); the rest are family-neutral (cutlass templates, xmma without an sm prefix).
  EXPECT_GE(proved, 60);
  EXPECT_GE(exact, 55);
}

struct SharedCase {
  const char* path;
  int device_arch;   // deviceProperties computeMajor * 10 + computeMinor
  int proved_arch;   // what the kernel names prove (hand-checked token, README row)
};

TEST(KernelArch, SharedTracesWithDeviceProperties) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=...)");
  const SharedCase cases[] = {
      // V100s (cc 7.0): volta_* kernels; the DLRM ranks also run CUB "Policy800" kernels, which
      // are no evidence of sm80.
      {"traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz", 70, 70},
      {"traces/kineto/hta/df_index_resolver.json.gz", 70, 70},
      {"traces/kineto/param_dlrm_8ranks/worker0_step_12.1694128201545.pt.trace.json.gz", 70, 70},
      // A100s (cc 8.0): cutlass_80_tensorop_*, sm80_xmma_*, ampere_sgemm_*.
      {"traces/kineto/hta/nccl_data.json.gz", 80, 80},
      {"traces/kineto/hta/a100_16rank_recsys_rank0.json.gz", 80, 80},
      // RTX 3090 (cc 8.6): sm86_xmma_fprop_*; RTX 3080 (cc 8.6): only ampere_/cutlass_80_ kernels,
      // so the names prove 8.0, a lower bound.
      {"traces/kineto/py4ai/trace.json.gz", 86, 86},
      {"traces/kineto/pytorch_sandbox/trace-num-workers-8-batch-size-2056.json.gz", 86, 80},
      // H800 / H100 (cc 9.0): sm90_xmma_*, FlashAttention-3 (...Sm90).
      {"traces/kineto/deepseek/train.json.gz", 90, 90},
      {"traces/kineto/tracelens_h100_owlv2/google_owlv2-large-patch14-ensemble__1016001.json.gz", 90, 90},
  };
  for (const SharedCase& c : cases) {
    SCOPED_TRACE(c.path);
    StatusOr<Trace> t = ReadKinetoTrace(testing::SharedPath(c.path));
    ASSERT_TRUE(t.ok()) << t.status().message();
    ASSERT_FALSE(t->devices.empty());
    EXPECT_EQ(Arch10(t->devices.front().cc_major, t->devices.front().cc_minor), c.device_arch);
    EXPECT_TRUE(t->devices.front().arch_basis.empty());  // known from deviceProperties
    const ArchEvidence e = InferArchFromKernels(*t);
    EXPECT_EQ(Arch10(e.cc_major, e.cc_minor), c.proved_arch) << e.Basis();
    EXPECT_LE(Arch10(e.cc_major, e.cc_minor), c.device_arch);
  }
}

TEST(KernelArch, SampledA100TraceWithoutDeviceProperties) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=...)");
  StatusOr<Trace> t = ReadKinetoTrace(testing::SharedPath("traces/kineto/hta/sampled_rank-1.json.gz"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->devices.size(), 1u);
  const Device& d = t->devices.front();
  EXPECT_TRUE(d.name.empty());
  EXPECT_EQ(d.vendor, GpuVendor::kNvidia);
  EXPECT_EQ(d.cc_major, 8);
  EXPECT_EQ(d.cc_minor, 0);
  EXPECT_NE(d.arch_basis.find("inferred from kernel names: compute capability >= 8.0"), std::string::npos) << d.arch_basis;
  EXPECT_TRUE(d.arch_basis.find("cutlass_80_") != std::string::npos || d.arch_basis.find("ampere_") != std::string::npos)
      << d.arch_basis;
}

TEST(KernelArch, TokensOfEachFamily) {
  struct Case {
    const char* name;
    int arch;  // -1: proves nothing
  };
  const Case cases[] = {
      {"turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_nn", 75},
      {"sm75_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize64x64x64_stage1_warpsize2x2x1_tensor16x8x8_kernel", 75},
      {"void cutlass::Kernel<cutlass_75_tensorop_f16_s1688gemm_f16_256x128_32x2_tn_align8>(Params)", 75},
      {"cudnn_infer_ampere_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", 80},
      {"sm89_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_warpsize2x2x1_g1", 89},
      {"void flash::FlashAttnFwdSm90<flash::CollectiveMainloopFwd<2, cutlass::bfloat16_t> >(Params)", 90},
      {"void cute::SM90_64x128x16_F32BF16BF16_SS_kernel(float*)", 90},
      {"nvjet_tst_128x256_64x4_1x2_h_bz_coopA_TNT", 90},
      {"cutlass3x_sm100_tensorop_gemm_bf16_bf16_f32_bf16_bf16_256x128x64_2x1x1_0_tnt_align8", 100},
      {"void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::arch::Sm120, float> >(Params)", 120},
      // Not architecture evidence: CUB's policy chain, PyTorch's own kernels, words with "sm".
      {"void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<long, long, int>::Policy800, false>(int*)", -1},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int)", -1},
      {"smem_reduce_kernel_256", -1},
      {"void at::native::(anonymous namespace)::softmax_warp_forward<float, float, float, 10, false>", -1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::optional<KernelArch> a = KernelArchOf(c.name);
    EXPECT_EQ(a ? Arch10(a->cc_major, a->cc_minor) : -1, c.arch);
  }
}

// A small Kineto trace of another architecture, without deviceProperties, read end to end: the
// highest bound wins (a Hopper run also runs cutlass_80_ kernels), with how many names prove it.
TEST(KernelArch, KinetoTraceWithoutDevicePropertiesGetsTheInferredArchitecture) {
  const std::string dir = testing::MakeTempDir("kernel_arch");
  const std::string path = dir + "/h100_no_props.json";
  const char* kHopper = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas";
  const char* kAmpere = "void cutlass::Kernel<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>(Params)";
  std::string events;
  for (int i = 0; i < 6; ++i) {
    const std::string name = i % 3 == 0 ? kAmpere : kHopper;
    events += (events.empty() ? "" : ",") + std::string("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"") + name +
              "\",\"pid\":0,\"tid\":7,\"ts\":" + std::to_string(1000 + 100 * i) + ",\"dur\":50,\"args\":{\"device\":0,\"stream\":7}}";
  }
  testing::WriteFile(path, "{\"schemaVersion\":1,\"traceEvents\":[" + events + "]}");
  StatusOr<Trace> t = ReadKinetoTrace(path);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->devices.size(), 1u);
  EXPECT_EQ(t->devices[0].cc_major, 9);
  EXPECT_EQ(t->devices[0].cc_minor, 0);
  EXPECT_EQ(t->devices[0].vendor, GpuVendor::kNvidia);
  EXPECT_NE(t->devices[0].arch_basis.find("compute capability >= 9.0 (1 kernel name built for it"), std::string::npos)
      << t->devices[0].arch_basis;
  EXPECT_NE(t->devices[0].arch_basis.find("token sm90"), std::string::npos) << t->devices[0].arch_basis;
}

}  // namespace
}  // namespace kernel_arch_test
}  // namespace ampscope
