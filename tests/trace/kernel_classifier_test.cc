// Tests of the kernel classifier (trace/classify/kernel_classifier.cc).
//
// Expected values come from:
//   - shared/reference/kernel_names.tsv: real names, labelled from the naming conventions
//     (every row must classify as labelled; 'P' rows are prefixes the source cut off and are
//     classified as the prefix text itself; a '?' Tensor Core label accepts any answer);
//   - names written here by hand from the same conventions (other tiles, archs, dtypes) that are
//     NOT in the table, each with the reason for its expected label;
//   - real names seen in the shared traces (nccl_data, a100_16rank_recsys, tb_plugin ResNet50),
//     labelled by hand from their template arguments and the library that emits them.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/test_support.h"
#include "trace/classify/kernel_classifier.h"

namespace ampscope {
namespace kernel_classifier_test {
namespace {

struct Label {
  std::string category;
  std::string precision;
  char tc;  // 'Y', 'N', '?'
};

std::string Describe(const std::string& name, const KernelClass& c) {
  return "name: " + name + "\n got: " + KernelCategoryName(c.category) + " / " + PrecisionName(c.precision) +
         " / tc " + TensorCoreUseName(c.tensor_core) + "\n rule: " + DescribeKernelRule(c.rule);
}

void ExpectClass(const std::string& name, const Label& want) {
  KernelClass c = ClassifyKernel(name);
  EXPECT_EQ(KernelCategoryName(c.category), want.category) << Describe(name, c);
  EXPECT_EQ(PrecisionName(c.precision), want.precision) << Describe(name, c);
  if (want.tc == 'Y') {
    EXPECT_EQ(c.tensor_core, TensorCoreUse::kYes) << Describe(name, c);
  } else if (want.tc == 'N') {
    EXPECT_EQ(c.tensor_core, TensorCoreUse::kNo) << Describe(name, c);
  } else if (want.tc == 'U') {
    EXPECT_EQ(c.tensor_core, TensorCoreUse::kUnknown) << Describe(name, c);
  }
}

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : line) {
    if (ch == '\t') {
      out.push_back(cur);
      cur.clear();
    } else if (ch != '\r') {
      cur += ch;
    }
  }
  out.push_back(cur);
  return out;
}

TEST(KernelClassifier, EveryLabelledNameInKernelNamesTsv) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  std::ifstream in(testing::SharedPath("reference/kernel_names.tsv"));
  ASSERT_TRUE(in) << "cannot open kernel_names.tsv";
  std::string line;
  int rows = 0;
  bool header_seen = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = SplitTabs(line);
    ASSERT_EQ(f.size(), 6u) << line;
    if (!header_seen) {  // "arch category precision tensor_core complete name"
      header_seen = true;
      ASSERT_EQ(f[1], "category");
      continue;
    }
    ASSERT_TRUE(f[3] == "Y" || f[3] == "N" || f[3] == "?") << line;
    ASSERT_TRUE(f[4] == "Y" || f[4] == "P") << line;
    SCOPED_TRACE("tsv row: " + line);
    ExpectClass(f[5], Label{f[1], f[2], f[3][0]});
    ++rows;
  }
  // The file has 127 labelled names (diagnosis_rules.md §C); a short read would hide failures.
  EXPECT_EQ(rows, 127);
}

// Names not in kernel_names.tsv, written from the conventions it documents. Each line says why.
TEST(KernelClassifier, UnseenNamesFollowingTheConventions) {
  const std::vector<std::pair<std::string, Label>> cases = {
      // legacy cuBLAS: <arch>_[<in>_]<acc><mma>gemm_[<out>_]<tile>_...
      {"ampere_bf16_s16816gemm_bf16_256x64_ldg8_f2f_stages_64x4_tn", {"gemm", "bf16", 'Y'}},  // other tile
      {"ampere_fp16_s16816gemm_fp16_256x256_ldg8_relu_f2f_stages_32x3_nt", {"gemm", "fp16", 'Y'}},
      {"turing_fp16_s1688gemm_fp16_64x128_sliced1x2_ldg8_f2f_nn", {"gemm", "fp16", 'Y'}},  // fp16 tag beats s1688's tf32
      {"volta_h884gemm_128x64_ldg8_tn", {"gemm", "fp16", 'Y'}},
      {"ampere_h16816gemm_128x128_ldg8_stages_64x3_nn", {"gemm", "fp16", 'Y'}},  // h = fp16 inputs
      {"turing_h1688gemm_256x128_ldg8_tn", {"gemm", "fp16", 'Y'}},
      {"volta_sgemm_256x128_tn", {"gemm", "fp32", 'N'}},
      {"ampere_sgemm_64x32_sliced1x4_nt", {"gemm", "fp32", 'N'}},
      {"maxwell_dgemm_64x64_nn", {"gemm", "fp64", 'N'}},
      {"ampere_cgemm_32x32_tn", {"gemm", "fp32", 'N'}},  // complex single, CUDA cores
      {"turing_fp16_s1688cudnn_fp16_128x64_ldg8_relu_f2f_exp_interior_nhwc_tn_v1", {"conv", "fp16", 'Y'}},
      {"ampere_scudnn_128x32_relu_small_nn_v1", {"conv", "fp32", 'N'}},
      {"cudnn_infer_ampere_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", {"conv", "fp32", 'N'}},
      // xmma on other archs and dtypes
      {"sm86_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
       {"gemm", "bf16", 'Y'}},
      {"sm90_xmma_dgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x256x64_warpgroupsize2x1x1_g1_"
       "execute_segment_k_off_kernel__5x_cudnn",
       {"conv", "fp16", 'Y'}},
      {"sm80_xmma_wgrad_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize64x64x64_stage4_warpsize2x2x1_g1_"
       "tensor16x8x16_execute_kernel__5x_cudnn",
       {"conv", "bf16", 'Y'}},
      {"sm90_xmma_gemm_tf32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_"
       "cublas",
       {"gemm", "tf32", 'Y'}},
      {"sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn_n_tilesize128x128x128_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_"
       "cublas",
       {"gemm", "fp8", 'Y'}},
      {"sm80_xmma_gemm_i8i8_i8i32_f32_tn_n_tilesize128x128x64_stage3_warpsize2x2x1_tensor16x8x32_kernel",
       {"gemm", "int8", 'Y'}},
      // CUTLASS 2
      {"cutlass_80_tensorop_s1688gemm_64x128_32x3_tt_align4", {"gemm", "tf32", 'Y'}},  // s1688 on sm80 = TF32
      {"void cutlass::Kernel<cutlass_80_tensorop_f16_s16816gemm_f16_128x256_64x3_nn_align8>(T1::Params)",
       {"gemm", "fp16", 'Y'}},
      {"cutlass_80_tensorop_bf16_s16816gemm_bf16_64x64_64x5_tn_align8", {"gemm", "bf16", 'Y'}},
      {"cutlass_75_tensorop_h1688gemm_256x128_32x2_nn_align8", {"gemm", "fp16", 'Y'}},
      {"cutlass_80_tensorop_d884gemm_64x32_16x4_nn_align1", {"gemm", "fp64", 'Y'}},  // FP64 Tensor Cores (A100)
      {"cutlass_80_tensorop_i16832gemm_s8_128x128_64x3_tn_align16", {"gemm", "int8", 'Y'}},
      {"cutlass_80_simt_sgemm_128x128_8x4_nn_align1", {"gemm", "fp32", 'N'}},
      {"cutlass_80_simt_dgemm_64x64_8x5_tn_align1", {"gemm", "fp64", 'N'}},
      {"void cutlass_cudnn_infer::Kernel<cutlass_tensorop_h16816fprop_optimized_f16_256x128_32x3_nhwc_align8>("
       "cutlass_tensorop_h16816fprop_optimized_f16_256x128_32x3_nhwc_align8::Params)",
       {"conv", "fp16", 'Y'}},
      {"void cutlass_cudnn_train::Kernel<cutlass_tensorop_s1688wgrad_optimized_tf32_128x128_16x5_nhwc_align4>("
       "cutlass_tensorop_s1688wgrad_optimized_tf32_128x128_16x5_nhwc_align4::Params)",
       {"conv", "tf32", 'Y'}},
      // CUTLASS 3 on Hopper and Blackwell
      {"cutlass3x_sm90_tensorop_s64x256x16gemm_bf16_bf16_f32_void_bf16_128x256x64_1x2x1_0_ntn_align8_warpspecialized_"
       "cooperative_epi_tma",
       {"gemm", "bf16", 'Y'}},
      {"cutlass3x_sm90_tensorop_s64x128x32gemm_e4m3_e4m3_f32_bf16_bf16_128x128x128_1x1x1_0_tnt_align16_warpspecialized_"
       "pingpong_fp8_fastaccum_epi_tma",
       {"gemm", "fp8", 'Y'}},
      {"cutlass3x_sm100_tensorop_s128x256x16gemm_f16_f16_f32_f16_f16_256x256x64_2x1x1_0_tnn_align8_2sm",
       {"gemm", "fp16", 'Y'}},
      {"cutlass3x_sm100_bstensorop_s256x256x32gemm_ue8m0xe4m3_ue8m0xe4m3_f32_bf16_bf16_256x256x128_2x1x1_0_tnt_align32_"
       "2sm",
       {"gemm", "fp8", 'Y'}},  // block-scaled: ue8m0 is the scale type, e4m3 the elements
      {"cutlass3x_sm90_tensorop_s64x128x8tf32gemm_tf32_tf32_f32_f32_f32_128x128x32_1x1x1_0_tnn_align4_warpspecialized_"
       "cooperative_epi_tma",
       {"gemm", "tf32", 'Y'}},
      // cuBLASLt nvjet: other tiles, archs and type codes
      {"nvjet_hsh_128x256_64x4_1x2_h_bz_coopA_TNN", {"gemm", "fp16", 'Y'}},
      {"nvjet_tst_64x8_64x16_4x1_v_bz_splitK_TNT", {"gemm", "bf16", 'Y'}},
      {"nvjet_sm100_tst_256x256_64x4_2x1_2cta_v_bz_TNT", {"gemm", "bf16", 'Y'}},
      {"nvjet_sm90_hss_320x128_64x3_2x1_v_bz_NNT", {"gemm", "fp16", 'Y'}},
      {"nvjet_qqtst_128x256_128x6_2x1_2cta_v_bz_TNT", {"gemm", "fp8", 'Y'}},
      {"nvjet_sss_tf32_64x128_64x5_2x1_v_bz_NNT", {"gemm", "tf32", 'Y'}},
      // attention
      {"void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<64, 128, 128, 8, 2, 4, "
       "2, false, false, cutlass::bfloat16_t, Flash_kernel_traits<64, 128, 128, 8, cutlass::bfloat16_t> >, true, "
       "false, false, false, false, false>(Flash_bwd_params)",
       {"attention", "bf16", 'Y'}},
      {"void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash::CollectiveMainloopFwdSm90<2,"
       " cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >, cute::tuple<cute::C<128>, cute::C<128>, cute::C<128> >, 128, "
       "cutlass::half_t, float, cutlass::arch::Sm90, true, false> > > >(T1::Params)",
       {"attention", "fp16", 'Y'}},  // FlashAttention 3
      {"fmha_cutlassF_bf16_aligned_64x128_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t, "
       "cutlass::arch::Sm80, true, 64, 128, 128, true, true>::Params)",
       {"attention", "bf16", 'Y'}},
      // NCCL
      {"ncclDevKernel_AllReduce_Sum_bf16_TREE_LL128(ncclDevKernelArgsStorage<4096ul>)", {"communication", "bf16", 'N'}},
      {"ncclDevKernel_ReduceScatter_Sum_f32_RING_SIMPLE", {"communication", "fp32", 'N'}},
      {"ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
       {"communication", "unknown", 'N'}},  // int8_t = raw bytes for NCCL, not a math precision
      // PyTorch native kernels with other dtypes
      {"void at::native::vectorized_elementwise_kernel<4, at::native::float16_copy_kernel_cuda(at::TensorIteratorBase&)"
       "::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::float16_copy_kernel_cuda(at::TensorIteratorBase&)"
       "::{lambda(float)#1}, std::array<char*, 2ul>)",
       {"cast", "fp16", 'N'}},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::float16tofloat32_copy_kernel_cuda("
       "at::TensorIteratorBase&)::{lambda(c10::Half)#1}, std::array<char*, 2ul> >",
       {"cast", "fp16", 'N'}},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::Half>, std::array<char*, 3ul> "
       ">(int, at::native::CUDAFunctor_add<c10::Half>, std::array<char*, 3ul>)",
       {"elementwise", "fp16", 'N'}},
      {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, "
       "c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)",
       {"normalization", "bf16", 'N'}},
      {"void (anonymous namespace)::softmax_warp_forward<c10::Half, c10::Half, float, 10, false, false>(c10::Half*, "
       "c10::Half const*, int, int, int, bool const*, int, bool)",
       {"softmax", "fp16", 'N'}},
      {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::Half, at::native::func_wrapper_t<c10::Half, "
       "at::native::sum_functor<c10::Half, float, c10::Half>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>,"
       " unsigned int, c10::Half, 4> >",
       {"reduction", "fp16", 'N'}},
      {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
       "namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::UnaryOpFunctor<c10::Half, 1, 1, 0>, "
       "at::native::_amp_foreach_non_finite_check_and_unscale_cuda_(c10::ArrayRef<at::Tensor>, at::Tensor&, at::Tensor "
       "const&)::{lambda()#1}::operator()() const::{lambda()#3}::operator()() const::{lambda(c10::Half)#1}>",
       {"amp_scaler", "fp16", 'N'}},
      {"void cudnn::ops::nhwcToNchwKernel<__half, __half, float, true, false, (cudnnKernelDataType_t)0>("
       "cudnn::ops::nhwc2nchw_params_t<float>, __half const*, __half*)",
       {"layout_transform", "fp16", 'N'}},
      {"nhwcToNchwKernel", {"layout_transform", "fp16", 'N'}},
      {"void cudnn::bn_bw_1C11_kernel_new<__nv_bfloat16, float, float2, 128, true, 1>", {"normalization", "bf16", 'N'}},
      // Triton / Inductor
      {"triton_poi_fused__to_copy_mul_sigmoid_3", {"triton_fused", "unknown", 'U'}},
      {"triton_red_fused__log_softmax_convert_element_type_9", {"triton_fused", "unknown", 'U'}},
      {"triton_tem_fused_addmm_relu_4", {"gemm", "unknown", 'U'}},  // Inductor GEMM template
      // ROCm: the MI<M>x<N>x<K> code is a CDNA Matrix Core (MFMA) instruction, the Tensor Core equivalent
      {"Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB1_APM1", {"gemm", "fp16", 'Y'}},
      {"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x256x64_MI16x16x1", {"gemm", "bf16", 'Y'}},
  };
  for (const auto& [name, want] : cases) {
    SCOPED_TRACE(name);
    ExpectClass(name, want);
  }
}

// Real names from the shared traces (not in the TSV), labelled by hand.
TEST(KernelClassifier, RealNamesFromSharedTraces) {
  const std::vector<std::pair<std::string, Label>> cases = {
      // nccl_data (A100, TF32): cuDNN's embedded CUTLASS conv, mangled; tfloat32_t is the element type.
      {"_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11threadblock22ImplicitGemmMultistag"
       "eINS_4gemm9GemmShapeILi128ELi128ELi32EEENS4_52Conv2dWgradOutputGradientTileAccessIteratorOptimizedINS_11Matri"
       "xShapeILi128ELi32EEENS_10tfloat32_tENS_9transform29PitchLinearWarpRakedThreadMapINS_16PitchLinearShapeILi128ELi32"
       "EEELi128ENSF_ILi8ELi4EEELi4EEENS_12AlignedArrayISC_Li4ELi16EEEEENSD_11threadblock25RegularTileAccessIteratorISB_"
       "SC_NS_6layout40ColumnMajorTensorOpMultiplicandCongruousILi32ELi32EEELi1ESI_Li16EEELNS_4arch14CacheOperation4Kind"
       "E0ENS4_48Conv2dWgradActivationTileAccessIteratorOptimizedINSA_ILi32ELi128EEESC_SI_SK_EENSN_ISW_SC_NSO_37RowMajorT"
       "ensorOpMultiplicandCongruousILi32ELi32EEELi0ESI_Li16EEELSU_0ENS6_11threadblock9MmaPolicyINS6_4warp11MmaTensorOpIN"
       "S7_ILi64ELi64ELi32EEESC_SQ_SC_SZ_fNSO_8RowMajorENS13_17MmaTensorOpPolicyINSS_3MmaINS7_ILi16ELi8ELi8EEELi32ESC_S1"
       "6_SC_NSO_11ColumnMajorEfS16_NSS_13OpMultiplyAddEEENSA_ILi1ELi1EEEEELi1ELb0EbEE",
       {"conv", "tf32", 'Y'}},
      {"sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4_warpsize2x2x1_"
       "g1_tensor16x8x8_alignc4_execute_kernel_cudnn_infer",
       {"conv", "tf32", 'Y'}},
      {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>("
       "cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4::Params)",
       {"gemm", "tf32", 'Y'}},
      {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", {"communication", "fp32", 'N'}},
      {"void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>("
       "cudnn::ops::nchw2nhwc_params_t<float>, float const*, float*)",
       {"layout_transform", "fp32", 'N'}},
      {"void cutlass_cudnn_train::Kernel<cutlass_cudnn_train::reduction::kernel::ReduceSplitK<cutlass_cudnn_train::"
       "MatrixShape<4, 128>, cutlass_cudnn_train::epilogue::thread::LinearCombination<float, 4, float, float>>>",
       {"conv", "fp32", 'N'}},
      {"void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, true, true, false>", {"gemm", "fp32", 'N'}},
      // a100_16rank_recsys
      {"triton__0d1d2d3d4d5d", {"triton_fused", "unknown", 'U'}},
      {"void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>, float, float>", {"optimizer", "fp32", 'N'}},
      {"void gemmk1_kernel<float, 256, 5, false, false, false, false, cublasGemvTensorStridedBatched<float const> >",
       {"gemm", "fp32", 'N'}},
      {"void epilogue::impl::globalKernel<float, float, float, true, true>(int, int, long, float*, cublasLtEpilogue_t, "
       "int)",
       {"gemm", "fp32", 'N'}},
      {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 128, 1>", {"memcpy_like", "fp32", 'N'}},
      {"void at::native::unrolled_elementwise_kernel<at::native::CUDAFunctor_add<double>, at::detail::Array<char*, 3>, "
       "TrivialOffsetCalculator<2, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, "
       "at::native::memory::LoadWithCast<2>, at::native::memory::StoreWithCast<1> >",
       {"elementwise", "fp64", 'N'}},  // type promotion inside an add is not a cast kernel
      // tb_plugin ResNet50 (V100, FP32)
      {"void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, float const*, int)",
       {"conv", "fp32", 'N'}},
      {"void cudnn::cnn::wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, 512>(int, int, int, float const*)",
       {"conv", "fp32", 'N'}},
      {"void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_nonfused::"
       "WinogradDataParams<float, float>)",
       {"conv", "fp32", 'N'}},
      {"cask_cudnn::computeOffsetsKernel(cask_cudnn::ComputeOffsetsParams)", {"conv", "unknown", 'N'}},
      {"void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>(int, float const*)",
       {"reduction", "fp32", 'N'}},
      {"void cunn_ClassNLLCriterion_updateOutput_kernel<float, float>(float*, float*)", {"reduction", "fp32", 'N'}},
      // ROCm trace (MI250)
      {"Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1", {"gemm", "fp32", 'Y'}},
  };
  for (const auto& [name, want] : cases) {
    SCOPED_TRACE(name);
    ExpectClass(name, want);
  }
}

TEST(KernelClassifier, Fp32SimtFlagOnlyForFp32CudaCoreGemmsAndConvs) {
  EXPECT_TRUE(ClassifyKernel("volta_sgemm_128x64_nn").fp32_simt_gemm);
  EXPECT_TRUE(ClassifyKernel("cutlass_80_simt_sgemm_64x64_8x5_tn_align1").fp32_simt_gemm);
  EXPECT_TRUE(ClassifyKernel("volta_scudnn_128x64_relu_interior_nn_v1").fp32_simt_gemm);
  EXPECT_TRUE(ClassifyKernel("void implicit_convolve_sgemm<float, float, 128, 6, 7, 3, 3, 5, 1, false, true, true>")
                  .fp32_simt_gemm);
  EXPECT_TRUE(ClassifyKernel("void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16>").fp32_simt_gemm);
  EXPECT_TRUE(ClassifyKernel("gemmSN_TN_kernel").fp32_simt_gemm);
  // Not fp32, or not CUDA-core math, or an auxiliary kernel.
  EXPECT_FALSE(ClassifyKernel("maxwell_dgemm_64x64_nn").fp32_simt_gemm);
  EXPECT_FALSE(ClassifyKernel("gemv2T_kernel_val").fp32_simt_gemm);  // precision unknown
  EXPECT_FALSE(ClassifyKernel("cutlass_80_tensorop_s1688gemm_128x128_16x5_tn_align4").fp32_simt_gemm);
  EXPECT_FALSE(ClassifyKernel("void splitKreduce_kernel<float, float, float, float>").fp32_simt_gemm);
  EXPECT_FALSE(ClassifyKernel("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, "
                              "at::detail::Array<char*, 3> >")
                   .fp32_simt_gemm);
}

TEST(KernelClassifier, FlagsFusedCastsAndRocm) {
  EXPECT_TRUE(ClassifyKernel("triton_per_fused__to_copy_add_mean_mul_pow_rsqrt_0").fused_cast);
  EXPECT_TRUE(ClassifyKernel("triton_red_fused_convert_element_type_div_exp_prepare_softmax_online_sub_0").fused_cast);
  EXPECT_FALSE(ClassifyKernel("triton_poi_fused_add_addmm_gelu_mul_0").fused_cast);
  EXPECT_TRUE(ClassifyKernel("Cijk_Ailk_Bljk_SB_MT64x16x16_MI16x16x1_SN").rocm);
  EXPECT_TRUE(ClassifyKernel("__amd_rocclr_fillBufferAligned").rocm);
  EXPECT_FALSE(ClassifyKernel("volta_sgemm_128x64_nn").rocm);
}

TEST(KernelClassifier, UnmatchedNamesAreOtherWithTagPrecision) {
  KernelClass c = ClassifyKernel(
      "void split_embedding_codegen_forward_unweighted_kernel<c10::Half, c10::Half, float, false, long, 2ul, 32ul>");
  EXPECT_EQ(c.category, KernelCategory::kOther);
  EXPECT_EQ(c.precision, Precision::kFp16);
  EXPECT_EQ(c.tensor_core, TensorCoreUse::kNo);
  EXPECT_EQ(c.rule, kNoKernelRule);
  EXPECT_EQ(ClassifyKernel("").category, KernelCategory::kOther);
  EXPECT_EQ(ClassifyKernel("").precision, Precision::kUnknown);
  EXPECT_EQ(ClassifyKernel("at::cuda::(anonymous namespace)::spin_kernel(long)").precision, Precision::kUnknown);
}

TEST(KernelClassifier, TypeTagPass) {
  EXPECT_EQ(PrecisionFromTypeTags("[\"c10::Half\",\"float\"]"), Precision::kFp16);
  EXPECT_EQ(PrecisionFromTypeTags("[\"GenericList\",\"c10::BFloat16\"]"), Precision::kBf16);
  EXPECT_EQ(PrecisionFromTypeTags("[\"long int\",\"float\"]"), Precision::kFp32);
  EXPECT_EQ(PrecisionFromTypeTags("[\"double\"]"), Precision::kFp64);
  EXPECT_EQ(PrecisionFromTypeTags("[\"c10::Float8_e4m3fn\",\"c10::BFloat16\"]"), Precision::kFp8);
  EXPECT_EQ(PrecisionFromTypeTags("cutlass::float_e4m3_t"), Precision::kFp8);  // not "float"
  EXPECT_EQ(PrecisionFromTypeTags("__nv_bfloat16"), Precision::kBf16);
  EXPECT_EQ(PrecisionFromTypeTags("cutlass::half_t"), Precision::kFp16);
  EXPECT_EQ(PrecisionFromTypeTags("[\"Int\",\"Bool\",\"\"]"), Precision::kUnknown);
  // Words that only contain a tag are not tags.
  EXPECT_EQ(PrecisionFromTypeTags("aligned16 halfway floats sf16 f16x"), Precision::kUnknown);
}

// Custom GEMM libraries (issue 32): the kernel's own function name says GEMM, the type tags give
// the precision, and math in fp8 or tf32 (formats only Tensor Cores compute) is Tensor Core work.
// The first names are DeepSeek-V3's, as the shared trace kineto/deepseek/train.json.gz has them
// (H800, sm90: "FP8 grouped GEMMs (dpsk kernels)" in shared/traces/README.md); the rest are
// written from the same conventions with other libraries, types and words, each with its reason.
TEST(KernelClassifier, CustomGemmLibrariesByStructureAndPrecision) {
  const std::vector<std::pair<std::string, Label>> cases = {
      {"void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_dptp128c_acc::GemmKernel>(dpsk::grouped_gemm::cuda::"
       "fp8_dptp128c_acc::GemmKernel::Params)",
       {"gemm", "fp8", 'Y'}},
      {"void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel>(dpsk::grouped_gemm::cuda::fp8_ptp128c::"
       "GemmKernel::Params)",
       {"gemm", "fp8", 'Y'}},
      {"void cutlass::device_kernel<dpsk::grouped_gemm::cuda::m_grouped_fp8_ptp128c::GemmKernel>(dpsk::grouped_gemm::cuda::"
       "m_grouped_fp8_ptp128c::GemmKernel::Params)",
       {"gemm", "fp8", 'Y'}},
      // Same namespace, not GEMMs: the kernel's own name is a transpose or a TMA descriptor fill.
      {"void dpsk::grouped_gemm::cuda::utils::transpose<512, 128, 4, 4>(unsigned char const*, unsigned char*, int, int, int, int)",
       {"other", "unknown", 'N'}},
      {"dpsk::grouped_gemm::cuda::utils::fill_tensormaps_kernel(CUtensorMap_st, CUtensorMap_st*, void*, int, long)",
       {"other", "unknown", 'N'}},
      // An fp8 cast is fp8 data, not fp8 math on Tensor Cores.
      {"void cuda::per_token_cast_to_fp8_with_channels<__nv_bfloat16, 128, false, 128, false>(__nv_bfloat16 const*, int, "
       "unsigned char*, float*, int, int, int, int, bool, float, __nv_fp8_interpretation_t)",
       {"other", "fp8", 'N'}},
      // Hand-written: a MoE library's grouped GEMM in e4m3 (CUTLASS's float_e4m3_t) -> fp8, Tensor Cores.
      {"void moe::CutlassGroupedGemmKernel<cutlass::float_e4m3_t, cutlass::bfloat16_t, 128>(moe::Params)", {"gemm", "fp8", 'Y'}},
      // fbgemm-style rowwise-scaled GEMM: its own name says gemm, "f8f8bf16" reads fp8 first.
      {"void fbgemm_gpu::f8f8bf16_rowwise_gemm_kernel<256>(fbgemm_gpu::Args)", {"gemm", "fp8", 'Y'}},
      // tf32 exists only on Tensor Cores.
      {"void mylib::tf32_batched_gemm_kernel<float, 64>(float const*, float*)", {"gemm", "tf32", 'Y'}},
      // bf16 and int8 GEMMs can run on CUDA cores: the name cannot tell.
      {"void moe::grouped_gemm_kernel<__nv_bfloat16, 128>(__nv_bfloat16 const*, __nv_bfloat16*)", {"gemm", "bf16", 'U'}},
      {"void mylib::GemmInt8Kernel<int8_t, int>(int8_t const*, int*)", {"gemm", "int8", 'U'}},
      // "gemma" is a model, not a GEMM: vLLM's Gemma RMSNorm stays a normalization.
      {"void vllm::gemma_rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, float)",
       {"normalization", "bf16", 'N'}},
  };
  for (const auto& [name, label] : cases) {
    SCOPED_TRACE(name);
    ExpectClass(name, label);
  }
}

// Expert-parallel communication (issue 32): DeepEP's kernels (deep_ep::, and DeepSeek's own build
// dpsk::ep::) in its intranode / internode / internode_ll namespaces named dispatch, combine or
// notify are the MoE all-to-all; nothing else is. The first six names are the shared DeepSeek
// trace's, as written there:
//   zcat kineto/deepseek/train.json.gz | grep -o '"name": "[^"]*dpsk[^"]*"' | sort | uniq -c
// (8 combine, 12 cached_notify, 4 notify_dispatch, 2 x 4 dispatch, 4 get_dispatch_layout); the
// rest are written from DeepEP's sources (csrc/kernels/{intranode,internode,internode_ll,layout}.cu).
TEST(KernelClassifier, ExpertParallelCommunicationIsAllToAll) {
  const std::vector<std::string> comm = {
      "void dpsk::ep::internode::combine<false, 8, __nv_bfloat16, 8, 2, 16, 24>(int4*, float*, bool const*, int4 const*, "
      "float const*, int4 const*, int4 const*, int const*, int const*, dpsk::ep::internode::SourceMeta const*, int const*, "
      "int const*, int const*, int, int, int, int, void*, int, int, void**, int, int, int, int, int*)",
      "void dpsk::ep::internode::cached_notify<false>(int, int, int, int, int*, int, int, int const*, int const*, int*, "
      "void*, void**, int**, int, int, int, int*, bool, int)",
      "void dpsk::ep::internode::notify_dispatch<false, 8>(int const*, long*, int, int const*, int*, int const*, int*, int, "
      "bool const*, int, int, int, int, int, int, int, int*, int*, int*, int*, void*, void**, int**, int, int, int*, int)",
      "void dpsk::ep::internode::dispatch<false, 8, true, 8>(int4*, float*, long*, float*, dpsk::ep::internode::SourceMeta*, "
      "int4 const*, float const*, long const*, float const*, int*, int*, int*, int*, int const*, int const*, int const*, "
      "int const*, int, int, int, int, int, bool const*, void*, int, int, void**, int, int, int, int, int*)",
      "void dpsk::ep::internode::dispatch<false, 8, false, 8>(int4*, float*, long*, float*, dpsk::ep::internode::SourceMeta*, "
      "int4 const*, float const*, long const*, float const*, int*, int*, int*, int*, int const*, int const*, int const*, "
      "int const*, int, int, int, int, int, bool const*, void*, int, int, void**, int, int, int, int, int*)",
      // DeepEP upstream: NVLink-only (intranode) and low-latency (internode_ll) kernels.
      "void deep_ep::intranode::dispatch<8, 768, 6144>(int4*, float*, int*, long*, float*, int*, int*, int4 const*)",
      "void deep_ep::intranode::cached_notify_combine<8>(void**, int*, int, int, int, int**, int)",
      "void deep_ep::internode_ll::combine<7168, 9>(void*, void*, int*, void const*, long const*, float const*)",
  };
  for (const std::string& name : comm) {
    SCOPED_TRACE(name);
    const KernelClass c = ClassifyKernel(name);
    EXPECT_EQ(c.category, KernelCategory::kCommunication) << Describe(name, c);
    EXPECT_EQ(c.collective, CollectiveType::kAllToAll) << Describe(name, c);
    EXPECT_EQ(c.tensor_core, TensorCoreUse::kNo) << Describe(name, c);
    // No precision from the transfer's vector types (int4 is 16 bytes of anything, not int8).
    EXPECT_EQ(c.precision, Precision::kUnknown) << Describe(name, c);
    EXPECT_NE(c.role, KernelRole::kNcclCollective) << Describe(name, c);
  }
  const std::vector<std::pair<std::string, Label>> not_comm = {
      // DeepEP's layout kernel counts tokens per rank and expert on one GPU: no communication
      // (in the shared trace; upstream it is deep_ep::layout::get_dispatch_layout).
      {"void dpsk::ep::cuda::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*, int, int, int, int)",
       {"other", "unknown", 'N'}},
      {"void deep_ep::layout::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*, int, int, int, int)",
       {"other", "unknown", 'N'}},
      // A MoE grouped GEMM that "dispatches" tokens to experts is a GEMM, even in such a namespace:
      // its own function name is the GEMM kernel.
      {"void cutlass::device_kernel<moe::internode::dispatch::GemmKernel>(moe::internode::dispatch::GemmKernel::Params)",
       {"gemm", "unknown", 'U'}},
      {"void moe::dispatch_grouped_gemm_kernel<__nv_bfloat16, 128>(__nv_bfloat16 const*, __nv_bfloat16*)",
       {"gemm", "bf16", 'U'}},
      // The namespace must be the kernel's own, not a parameter's type.
      {"void moe::permute_dispatch<__nv_bfloat16>(deep_ep::internode::SourceMeta const*, __nv_bfloat16*)",
       {"other", "bf16", 'N'}},
  };
  for (const auto& [name, label] : not_comm) {
    SCOPED_TRACE(name);
    ExpectClass(name, label);
    EXPECT_EQ(ClassifyKernel(name).collective, CollectiveType::kUnknown);
  }
  // NCCL kernels carry no class-level collective: CollectiveTypeOfKernel reads it from the name.
  EXPECT_EQ(ClassifyKernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)").collective,
            CollectiveType::kUnknown);
}

TEST(KernelClassifier, RuleDescriptions) {
  KernelClass c = ClassifyKernel("cutlass_80_tensorop_s1688gemm_128x128_16x5_tn_align4");
  ASSERT_NE(c.rule, kNoKernelRule);
  ASSERT_LT(c.rule, KernelRuleCount());
  std::string d = DescribeKernelRule(c.rule);
  EXPECT_NE(d.find("s1688"), std::string::npos) << d;
  EXPECT_NE(d.find("tf32"), std::string::npos) << d;
  EXPECT_NE(DescribeKernelRule(kNoKernelRule).find("no rule"), std::string::npos);
}

TEST(KernelClassifier, NamesOfEnums) {
  EXPECT_STREQ(KernelCategoryName(KernelCategory::kMemcpyLike), "memcpy_like");
  EXPECT_STREQ(KernelCategoryName(KernelCategory::kAmpScaler), "amp_scaler");
  EXPECT_STREQ(KernelCategoryName(KernelCategory::kTritonFused), "triton_fused");
  EXPECT_STREQ(KernelCategoryName(KernelCategory::kLayoutTransform), "layout_transform");
  EXPECT_STREQ(PrecisionName(Precision::kTf32), "tf32");
  EXPECT_STREQ(PrecisionName(Precision::kUnknown), "unknown");
  EXPECT_STREQ(TensorCoreUseName(TensorCoreUse::kUnknown), "unknown");
}

}  // namespace
}  // namespace kernel_classifier_test
}  // namespace ampscope
