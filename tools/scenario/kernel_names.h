// Real CUDA kernel names used by the scenario generator.
// Names marked [tsv] appear verbatim in shared/reference/kernel_names.tsv; the others are the
// names PyTorch 2.x / cuBLAS / cuDNN / NCCL print for the same kernels with another dtype or
// functor (same templates as the labelled ones).
#pragma once

#include <string>
#include <string_view>

namespace ampscope::scenario::names {

// Element type spellings in PyTorch kernel templates.
enum class Dt { kFloat, kHalf, kBFloat16 };
inline const char* CType(Dt d) {
  switch (d) {
    case Dt::kHalf: return "c10::Half";
    case Dt::kBFloat16: return "c10::BFloat16";
    default: return "float";
  }
}

// ---- GEMMs (cuBLAS) -------------------------------------------------------------------
// [tsv] all of them.
inline constexpr std::string_view kGemmF16Fwd = "ampere_fp16_s16816gemm_fp16_128x64_ldg8_f2f_stages_64x4_tn";
inline constexpr std::string_view kGemmF16Dgrad = "ampere_fp16_s16816gemm_fp16_128x64_ldg8_f2f_stages_64x4_nn";
inline constexpr std::string_view kGemmF16Wgrad = "ampere_fp16_s1688gemm_fp16_256x64_ldg8_f2f_nt";
inline constexpr std::string_view kGemmF16Big =
    "sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize96x64x32_stage3_warpsize2x2x1_tensor16x8x16_kernel";
inline constexpr std::string_view kGemmF16SmallTile =
    "sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize32x32x64_stage6_warpsize2x2x1_tensor16x8x16_execute_kernel__5x_cublas";
inline constexpr std::string_view kGemmBf16Fwd = "ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_32x3_tn";
inline constexpr std::string_view kGemmBf16Dgrad = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_nn";
inline constexpr std::string_view kGemmBf16Wgrad = "ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x3_nn";
inline constexpr std::string_view kGemmF32Fwd = "ampere_sgemm_128x64_tn";
inline constexpr std::string_view kGemmF32Dgrad = "ampere_sgemm_128x128_nn";
inline constexpr std::string_view kGemmF32Wgrad = "ampere_sgemm_64x64_nt";

// ---- Convolutions (cuDNN) --------------------------------------------------------------
inline constexpr std::string_view kConvFprop =  // [tsv]
    "sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize256x64x32_stage3_warpsize4x1x1_g1_tensor16x8x16_execute_kernel__5x_cudnn";
inline constexpr std::string_view kConvDgrad =
    "sm80_xmma_dgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_warpsize2x2x1_g1_tensor16x8x16_execute_kernel__5x_cudnn";
inline constexpr std::string_view kConvWgrad =
    "sm80_xmma_wgrad_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_stage4_warpsize2x2x1_g1_tensor16x8x16_execute_kernel__5x_cudnn";
inline constexpr std::string_view kNchwToNhwc =
    "void cudnn::ops::nchwToNhwcKernel<__half, __half, float, false, true, (cudnnKernelDataType_t)0>(cudnn::ops::nchw2nhwc_params_t<float>, __half const*, __half*)";
inline constexpr std::string_view kNhwcToNchw =
    "void cudnn::ops::nhwcToNchwKernel<__half, __half, float, true, false, (cudnnKernelDataType_t)0>(cudnn::ops::nhwc2nchw_params_t<float>, __half const*, __half*)";
inline constexpr std::string_view kBnFwd =  // [tsv]
    "void cudnn::bn_fw_tr_1C11_kernel_NCHW<__half, float, 512, true, 1>(cudnnTensorStruct, __half const*, cudnnTensorStruct, __half*, float const*, float const*, float, float, float*, float*, float*, float*, float, float)";
inline constexpr std::string_view kBnBwd =
    "void cudnn::bn_bw_1C11_kernel_new<__half, float, float2, 512, true, 1>(float, float, float, float, cudnnTensorStruct, __half const*, cudnnTensorStruct, __half const*, cudnnTensorStruct, __half*, float const*, float*, float*, float const*, float const*, float)";

// ---- Attention ------------------------------------------------------------------------
std::string FlashFwd(Dt dt, int head_dim);
std::string FlashBwdDot(Dt dt, int head_dim);
std::string FlashBwdMain(Dt dt, int head_dim);
std::string FlashBwdConvert(Dt dt, int head_dim);
inline constexpr std::string_view kMemEffFwdF32 =
    "fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)";
inline constexpr std::string_view kMemEffBwdF32 =
    "fmha_cutlassB_f32_aligned_64x64_k128_sm80(PyTorchMemEffAttention::AttentionBackwardKernel<cutlass::arch::Sm80, float, true, false, false, 64, 64, 128, false>::Params)";

// ---- PyTorch elementwise / reductions / norms -----------------------------------------
std::string CastToLow(Dt low);            // f32 -> f16/bf16 (aten::_to_copy under autocast)
std::string CastToFloat(Dt low);          // f16/bf16 -> f32 (ToCopyBackward0, loss upcast)
std::string LayerNormFwd(Dt dt);          // vectorized_layer_norm_kernel<T, float>
std::string LayerNormBwdInput(Dt dt);
std::string LayerNormBwdGammaBeta(Dt dt);
std::string Gelu(Dt dt);
std::string GeluBackward(Dt dt);
std::string ResidualAddMixed();           // fp32 + fp16 -> fp32 (LoadWithCast)
std::string Add(Dt dt);                   // same-dtype add (grad accumulation)
std::string MulScalar(Dt dt);             // x * scalar
std::string Mul(Dt dt);                   // x * y
std::string Fill(Dt dt);
std::string Tanh(Dt dt);
std::string Pow(Dt dt);
std::string Rsqrt(Dt dt);
std::string ReluClamp(Dt dt);
std::string ReluBackward(Dt dt);
std::string ReduceMean(Dt dt);
std::string ReduceSum(Dt dt);
std::string ReduceAnyBool();
std::string CompareNe(Dt dt);
std::string LogSoftmaxFwd(Dt dt);
std::string LogSoftmaxBwd(Dt dt);
std::string NllLossFwd(Dt dt);
std::string NllLossBwd(Dt dt);
std::string Div(Dt dt);
std::string AdaptiveAvgPool(Dt dt);

// ---- GradScaler and optimizers --------------------------------------------------------
extern const char* const kAmpUnscale;      // [tsv]
extern const char* const kAmpUpdateScale;  // [tsv]
std::string ForeachLerp(Dt dt);
std::string ForeachMulScalar(Dt dt);
std::string ForeachAddcmul(Dt dt);  // [tsv] for float
std::string ForeachSqrt(Dt dt);
std::string ForeachDivScalar(Dt dt);
std::string ForeachAddScalar(Dt dt);
std::string ForeachAddcdiv(Dt dt);
std::string FusedAdamW(Dt dt);
std::string Lerp(Dt dt);
std::string Addcmul(Dt dt);
std::string Addcdiv(Dt dt);
std::string Sqrt(Dt dt);
std::string AddScalarInplace(Dt dt);

// ---- NCCL -----------------------------------------------------------------------------
inline constexpr std::string_view kNcclAllReduceF32 =
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

}  // namespace ampscope::scenario::names
