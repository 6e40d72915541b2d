// AMD CDNA Matrix Cores (MFMA) count as the Tensor Core equivalent, with their precision.
// Names are copied from the shared traces (`ampscope kernels` on them): TraceLens's MI210 trace
// (gfx90a, "ISA90a"), HTA's MI250 toy trace, TraceLens's MI300X Qwen trace ("ISA942").
// Labels: Tensile encodes the MFMA instruction as MI<M>x<N>x<K> and the input type as the first
// letter of the type word (B bf16, S fp32); MIOpen's igemm "gtcx*" kernels are its xdlops (MFMA)
// implicit-GEMM convolutions; SubTensorOp* are MIOpen's elementwise tensor ops, not GEMMs.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "support/test_support.h"
#include "trace/classify/kernel_classifier.h"
#include "trace/formats/kineto/kineto_reader.h"

namespace ampscope {
namespace amd_matrix_core_test {
namespace {

struct Case {
  const char* name;
  KernelCategory category;
  Precision precision;
  TensorCoreUse tc;
};

TEST(AmdMatrixCores, SharedTraceKernelNames) {
  const Case cases[] = {
      // MI300X Qwen: hipBLASLt bf16 GEMMs and an fp32 bmm.
      {"Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT256x128x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_"
       "CADS0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA942_IU1_K1_LBSPPA1024_LBSPPB512",
       KernelCategory::kGemm, Precision::kBf16, TensorCoreUse::kYes},
      {"Cijk_Ailk_Bljk_S_B_Bias_HA_S_SAV_UserArgs_MT16x16x128_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_",
       KernelCategory::kGemm, Precision::kFp32, TensorCoreUse::kYes},
      // MI210: bf16 with a 32x32 MFMA.
      {"Cijk_Ailk_Bjlk_BBS_BH_Bias_HAS_SAV_UserArgs_MT128x64x32_MI32x32x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_"
       "DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA90a_IU1_K1_LBSPPA0_LBSPPB0_LBSPPM",
       KernelCategory::kGemm, Precision::kBf16, TensorCoreUse::kYes},
      // MI250 toy: fp32 GEMMs on the fp32 MFMA.
      {"Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_"
       "GRVWA2_GRVWB2_GSUAMB_ISA90a_IU1_K1_LBSPPA128_LBSPPB128_LBSPPM0_LPA8_LPB8_LPM0_LRVW4_LWPMn1_M",
       KernelCategory::kGemm, Precision::kFp32, TensorCoreUse::kYes},
      // MI210: MIOpen xdlops convolutions, forward / backward-data / backward-weights.
      {"igemm_fwd_gtcx2_nhwc_bf16_bx0_ex1_bt32x256x32_wt16x64x4_ws1x1_wr1x2_ta1x4x1x1_1x8x1x32_tb1x4x8x1_1x8x1x32_gkgs",
       KernelCategory::kConv, Precision::kBf16, TensorCoreUse::kYes},
      {"igemm_bwd_gtcx2_nhwc_bf16_bx0_ex1_bt32x128x32_wt16x64x4_ws1x1_wr1x1_ta1x4x1x1_1x8x1x32_tb1x4x1x4_1x8x1x32_mh_gkgs",
       KernelCategory::kConv, Precision::kBf16, TensorCoreUse::kYes},
      {"igemm_wrw_gtcx2_nhwc_bf16_bx0_ex1_bt256x128x16_wt32x32x8_ws2x1_wr2x2_ta1x4x1x4_1x4x1x64_tb1x4x1x2_1x4x1x64_gkgs",
       KernelCategory::kConv, Precision::kBf16, TensorCoreUse::kYes},
      // MI210: MIOpen tensor ops contain "TensorOp" but are elementwise, not Tensor Core GEMMs.
      {"SubTensorOpWithCastTensor1d", KernelCategory::kElementwise, Precision::kUnknown, TensorCoreUse::kNo},
      {"SubTensorOpWithScalar1d", KernelCategory::kElementwise, Precision::kUnknown, TensorCoreUse::kNo},
      // MIOpen's batched transposes name the element size: "half" is any 2-byte type, and this
      // MI210 run is bf16 (its igemm kernels say bf16). Not counted fp16: unknown.
      {"batched_transpose_16x64_pack_1x4_ediv_1x2_half", KernelCategory::kLayoutTransform, Precision::kUnknown,
       TensorCoreUse::kNo},
      // MI300X ResNet18 (bf16): the same transposes, and CK's xdl (MFMA) grouped convolution.
      {"batched_transpose_32x32_half", KernelCategory::kLayoutTransform, Precision::kUnknown, TensorCoreUse::kNo},
      {"_ZN2ck16tensor_operation6device12_GLOBAL__N_139kernel_grouped_conv_fwd_xdl_cshuffle_v3INS_34GridwiseGemmMultiD_"
       "xdl_cshuffle_v3INS_13tensor_layout4gemm8RowMajorENS6_11ColumnMajorENS_5TupleIJEEES7_ttftSA_t",
       KernelCategory::kConv, Precision::kUnknown, TensorCoreUse::kYes},
      // MI300X Qwen: ROCm flash attention (Triton); matrix use cannot be told from the name.
      {"attn_fwd", KernelCategory::kAttention, Precision::kUnknown, TensorCoreUse::kUnknown},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const KernelClass k = ClassifyKernel(c.name);
    EXPECT_EQ(KernelCategoryName(k.category), std::string(KernelCategoryName(c.category)));
    EXPECT_EQ(PrecisionName(k.precision), std::string(PrecisionName(c.precision)));
    EXPECT_EQ(TensorCoreUseName(k.tensor_core), std::string(TensorCoreUseName(c.tc)));
    EXPECT_TRUE(k.rocm);
    EXPECT_FALSE(k.fp32_simt_gemm);
  }
}

// MIOpen kernels are matrix-core (MFMA) work only when they are its xdlops kernels. Its other
// convolutions (OpenCL direct, assembly Winograd, implicit GEMM without xdlops, im2col) and its
// activation, pooling and LRN kernels run on the vector ALUs. Names from MIOpen's kernel sources
// (src/kernels: MIOpenConvUni.cl, MIOpenNeuron.cl, MIOpenPooling.cl, MIOpenLRN.cl, Conv_Winograd
// assembly, gridwise_convolution_implicit_gemm_v4r1 / _v4r4_xdlops).
TEST(AmdMatrixCores, MiopenKernelsAreMatrixCoreWorkOnlyWhenMfma) {
  const Case cases[] = {
      {"MIOpenConvUni", KernelCategory::kConv, Precision::kUnknown, TensorCoreUse::kNo},
      {"MIOpenCvFwd11x11", KernelCategory::kConv, Precision::kUnknown, TensorCoreUse::kNo},
      {"MIOpenGroupConvUni", KernelCategory::kConv, Precision::kUnknown, TensorCoreUse::kNo},
      {"miopenSp3AsmConv_v21_1_3_gfx9_fp32_f3x2_stride1", KernelCategory::kConv, Precision::kFp32, TensorCoreUse::kNo},
      {"gridwise_convolution_implicit_gemm_v4r1_nchw_kcyx_nkhw_lds_double_buffer", KernelCategory::kConv, Precision::kUnknown,
       TensorCoreUse::kNo},
      {"gridwise_convolution_implicit_gemm_v4r4_xdlops_nchw_kcyx_nkhw", KernelCategory::kConv, Precision::kUnknown,
       TensorCoreUse::kYes},
      {"MIOpenNeuronFwd", KernelCategory::kElementwise, Precision::kUnknown, TensorCoreUse::kNo},
      {"MIOpenPoolingFwd", KernelCategory::kReduction, Precision::kUnknown, TensorCoreUse::kNo},
      {"MIOpenLRNWithinChannel", KernelCategory::kNormalization, Precision::kUnknown, TensorCoreUse::kNo},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const KernelClass k = ClassifyKernel(c.name);
    EXPECT_EQ(KernelCategoryName(k.category), std::string(KernelCategoryName(c.category)));
    EXPECT_EQ(PrecisionName(k.precision), std::string(PrecisionName(c.precision)));
    EXPECT_EQ(TensorCoreUseName(k.tensor_core), std::string(TensorCoreUseName(c.tc)));
    EXPECT_TRUE(k.rocm);
  }
}

// On every shared ROCm trace, a kernel counted as matrix-core work names its MFMA: Tensile's
// MI<M>x<N>x<K>, MIOpen's igemm gtcx / xdlops, Composable Kernel's xdl.
TEST(AmdMatrixCores, EveryMatrixCoreKernelOfTheSharedRocmTracesNamesItsMfma) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=...)");
  const char* kTraces[] = {
      "traces/kineto/tracelens_mi300_resnet18/train_resnet18.json.gz",
      "traces/kineto/tracelens_mi210/gpu_only_trace.json.gz",
      "traces/kineto/tracelens_mi300_qwen/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
      "traces/kineto/hta/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
  };
  size_t mfma = 0, names = 0;
  for (const char* rel : kTraces) {
    StatusOr<Trace> t = ReadKinetoTrace(testing::SharedPath(rel));
    ASSERT_TRUE(t.ok()) << t.status().message();
    std::set<std::string> seen;
    for (const KernelEvent& k : t->kernels) seen.insert(std::string(t->str(k.name)));
    for (const std::string& n : seen) {
      ++names;
      const KernelClass c = ClassifyKernel(n);
      if (c.tensor_core != TensorCoreUse::kYes) continue;
      ++mfma;
      const bool marked = std::regex_search(n, std::regex("_MI[0-9]+x[0-9]+x|gtcx|xdlops|_xdl"));
      EXPECT_TRUE(marked) << n;
    }
  }
  EXPECT_GT(names, 100u);
  EXPECT_GT(mfma, 30u);
}

TEST(AmdMatrixCores, TensileWithoutAnMfmaCodeStaysUnknown) {
  // A Tensile name without an MI code (a vector-ALU kernel or a truncated name).
  const KernelClass k = ClassifyKernel("Cijk_Ailk_Bljk_SB_MT64x64x8_SE_K1");
  EXPECT_EQ(k.category, KernelCategory::kGemm);
  EXPECT_EQ(k.tensor_core, TensorCoreUse::kUnknown);
  // CUTLASS names with TensorOp are still Tensor Core GEMMs on NVIDIA.
  EXPECT_EQ(ClassifyKernel("cutlass::Kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::threadblock::MmaTensorOp>>")
                .tensor_core,
            TensorCoreUse::kYes);
}

}  // namespace
}  // namespace amd_matrix_core_test
}  // namespace ampscope
