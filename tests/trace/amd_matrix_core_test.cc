// AMD CDNA Matrix Cores (MFMA) count as the Tensor Core equivalent, with their precision.
// Names are copied from the shared traces (`ampscope kernels` on them): TraceLens's MI210 trace
// (gfx90a, "ISA90a"), HTA's MI250 toy trace, TraceLens's MI300X Qwen trace ("ISA942").
// Labels: Tensile encodes the MFMA instruction as MI<M>x<N>x<K> and the input type as the first
// letter of the type word (B bf16, S fp32); MIOpen's igemm "gtcx*" kernels are its xdlops (MFMA)
// implicit-GEMM convolutions; SubTensorOp* are MIOpen's elementwise tensor ops, not GEMMs.
#include <gtest/gtest.h>

#include "trace/classify/kernel_classifier.h"

namespace ampscope {
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
      {"batched_transpose_16x64_pack_1x4_ediv_1x2_half", KernelCategory::kLayoutTransform, Precision::kFp16,
       TensorCoreUse::kNo},
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
}  // namespace ampscope
