#include "tools/scenario/kernel_names.h"

#include <fmt/format.h>

namespace ampscope::scenario::names {
namespace {

// cutlass element type of FlashAttention's kernel traits.
const char* CutlassType(Dt dt) { return dt == Dt::kBFloat16 ? "cutlass::bfloat16_t" : "cutlass::half_t"; }

// FlashAttention-2 forward tile shapes as chosen by run_mha_fwd_hdim<D> on sm80.
std::string FwdTraits(Dt dt, int d) {
  const char* t = CutlassType(dt);
  if (d <= 64) return fmt::format("Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, {0}, Flash_kernel_traits<64, 128, 128, 4, {0}> >", t);
  return fmt::format("Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, {0}, Flash_kernel_traits<128, 128, 64, 4, {0}> >", t);
}
std::string BwdTraits(Dt dt, int d) {
  const char* t = CutlassType(dt);
  if (d <= 64) return fmt::format("Flash_bwd_kernel_traits<64, 128, 128, 8, 2, 4, 4, false, false, {0}, Flash_kernel_traits<64, 128, 128, 8, {0}> >", t);
  return fmt::format("Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, {0}, Flash_kernel_traits<128, 64, 128, 8, {0}> >", t);
}

// vectorized_elementwise_kernel<4, F, std::array<char*, N> >(int, F, std::array<char*, N>)
std::string Vectorized(const std::string& functor, int arity) {
  return fmt::format("void at::native::vectorized_elementwise_kernel<4, {0}, std::array<char*, {1}ul> >(int, {0}, std::array<char*, {1}ul>)",
                     functor, arity);
}

std::string MultiTensor(int depth, const std::string& functor_and_args) {
  return fmt::format(
      "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<{0}>, {1}>"
      "(at::native::(anonymous namespace)::TensorListMetadata<{0}>, {1})",
      depth, functor_and_args);
}

}  // namespace

std::string FlashFwd(Dt dt, int d) {
  return fmt::format("void pytorch_flash::flash_fwd_kernel<{}, false, false, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)",
                     FwdTraits(dt, d));
}
std::string FlashBwdDot(Dt dt, int d) {
  return fmt::format("void pytorch_flash::flash_bwd_dot_do_o_kernel<true, {}>(pytorch_flash::Flash_bwd_params)", BwdTraits(dt, d));
}
std::string FlashBwdMain(Dt dt, int d) {
  return fmt::format(
      "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<{}, false, false, false, false, false, true, false, false>(pytorch_flash::Flash_bwd_params)",
      BwdTraits(dt, d));
}
std::string FlashBwdConvert(Dt dt, int d) {
  return fmt::format("void pytorch_flash::flash_bwd_convert_dq_kernel<{}>(pytorch_flash::Flash_bwd_params, int)", BwdTraits(dt, d));
}

std::string CastToLow(Dt low) {
  const char* fn = low == Dt::kBFloat16 ? "bfloat16_copy_kernel_cuda" : "float16_copy_kernel_cuda";
  return Vectorized(fmt::format("at::native::{}(at::TensorIteratorBase&)::{{lambda(float)#1}}", fn), 2);
}
std::string CastToFloat(Dt low) {
  if (low == Dt::kBFloat16) {
    return Vectorized("at::native::bfloat16tofloat32_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(c10::BFloat16)#1}", 2);
  }
  // [tsv] direct_copy with LoadWithCast/StoreWithCast (half -> float upcast).
  const std::string f =
      "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}";
  return fmt::format(
      "void at::native::unrolled_elementwise_kernel<{0}, std::array<char*, 2ul>, 4, TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, "
      "at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1> >(int, {0}, std::array<char*, 2ul>, TrivialOffsetCalculator<1, unsigned int>, "
      "TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1>)",
      f);
}
std::string LayerNormFwd(Dt dt) {
  const char* t = CType(dt);
  return fmt::format("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<{0}, float>(int, float, {0} const*, {0} const*, {0} const*, float*, float*, {0}*)", t);
}
std::string LayerNormBwdInput(Dt dt) {
  const char* t = CType(dt);
  return fmt::format("void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<{0}, float>({0} const*, {0} const*, float const*, float const*, {0} const*, {0}*, int)", t);
}
std::string LayerNormBwdGammaBeta(Dt dt) {
  const char* t = CType(dt);
  return fmt::format("void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel_32x32<{0}, float>(long, long, {0} const*, {0} const*, float const*, float const*, {0}*, {0}*)", t);
}
std::string Gelu(Dt dt) {
  return Vectorized(fmt::format("at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{{lambda()#2}}::operator()() const::{{lambda()#2}}::operator()() const::{{lambda({})#1}}", CType(dt)), 2);
}
std::string GeluBackward(Dt dt) {
  const char* t = CType(dt);
  return Vectorized(fmt::format("at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{{lambda()#2}}::operator()() const::{{lambda()#2}}::operator()() const::{{lambda({0}, {0})#1}}", t), 3);
}
std::string ResidualAddMixed() {
  const std::string f = "at::native::CUDAFunctor_add<float>";
  return fmt::format(
      "void at::native::unrolled_elementwise_kernel<{0}, std::array<char*, 3ul>, 4, TrivialOffsetCalculator<2, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, "
      "at::native::memory::LoadWithCast<2>, at::native::memory::StoreWithCast<1> >(int, {0}, std::array<char*, 3ul>, TrivialOffsetCalculator<2, unsigned int>, "
      "TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<2>, at::native::memory::StoreWithCast<1>)",
      f);
}
std::string Add(Dt dt) { return Vectorized(fmt::format("at::native::CUDAFunctor_add<{}>", CType(dt)), 3); }
std::string MulScalar(Dt dt) {
  const char* t = CType(dt);
  return Vectorized(fmt::format("at::native::AUnaryFunctor<{0}, {0}, {0}, at::native::binary_internal::MulFunctor<float> >", t), 2);
}
std::string Mul(Dt dt) {
  const char* t = CType(dt);
  return Vectorized(fmt::format("at::native::BinaryFunctor<{0}, {0}, {0}, at::native::binary_internal::MulFunctor<float> >", t), 3);
}
std::string Div(Dt dt) {
  const char* t = CType(dt);
  return Vectorized(fmt::format("at::native::BinaryFunctor<{0}, {0}, {0}, at::native::binary_internal::DivFunctor<{0}> >", t), 3);
}
std::string Fill(Dt dt) { return Vectorized(fmt::format("at::native::FillFunctor<{}>", CType(dt)), 1); }
std::string Tanh(Dt dt) {
  return Vectorized(fmt::format("at::native::tanh_kernel_cuda(at::TensorIteratorBase&)::{{lambda()#2}}::operator()() const::{{lambda()#2}}::operator()() const::{{lambda({})#1}}", CType(dt)), 2);
}
std::string Pow(Dt dt) {
  return Vectorized(fmt::format("at::native::(anonymous namespace)::pow_tensor_scalar_kernel_impl<{0}, {0}>(at::TensorIteratorBase&, {0})::{{lambda({0})#2}}", CType(dt)), 2);
}
std::string Rsqrt(Dt dt) {
  return Vectorized(fmt::format("at::native::rsqrt_kernel_cuda(at::TensorIteratorBase&)::{{lambda()#2}}::operator()() const::{{lambda()#2}}::operator()() const::{{lambda({})#1}}", CType(dt)), 2);
}
std::string ReluClamp(Dt dt) {
  return Vectorized(fmt::format("at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{{lambda()#1}}::operator()() const::{{lambda()#14}}::operator()() const::{{lambda({})#1}}", CType(dt)), 2);
}
std::string ReluBackward(Dt dt) {
  const char* t = CType(dt);
  return Vectorized(fmt::format("at::native::(anonymous namespace)::threshold_kernel_impl<{0}>(at::TensorIteratorBase&, {0}, {0})::{{lambda({0}, {0})#1}}", t), 3);
}
std::string ReduceMean(Dt dt) {
  const char* t = CType(dt);
  return fmt::format("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<{0}, at::native::MeanOps<{0}, float, float, {0}>, unsigned int, {0}, 4> >(at::native::ReduceOp<{0}, at::native::MeanOps<{0}, float, float, {0}>, unsigned int, {0}, 4>)", t);
}
std::string ReduceSum(Dt dt) {
  const char* t = CType(dt);
  return fmt::format("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<{0}, at::native::func_wrapper_t<float, at::native::sum_functor<{0}, float, {0}>::operator()(at::TensorIterator&)::{{lambda(float, float)#1}}>, unsigned int, {0}, 4> >(at::native::ReduceOp<{0}, at::native::func_wrapper_t<float, at::native::sum_functor<{0}, float, {0}>::operator()(at::TensorIterator&)::{{lambda(float, float)#1}}>, unsigned int, {0}, 4>)", t);
}
std::string ReduceAnyBool() {
  const std::string op = "at::native::ReduceOp<bool, at::native::func_wrapper_t<bool, at::native::or_kernel_cuda(at::TensorIterator&)::{lambda()#1}::operator()() const::{lambda(bool, bool)#1}>, unsigned int, bool, 4>";
  return fmt::format("void at::native::reduce_kernel<512, 1, {0} >({0})", op);
}
std::string CompareNe(Dt dt) { return Vectorized(fmt::format("at::native::(anonymous namespace)::CompareEqFunctor<{}>", CType(dt)), 3); }
std::string LogSoftmaxFwd(Dt dt) {
  const char* t = CType(dt);
  return fmt::format("void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, {0}, float, {0}, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>({0}*, {0} const*, int)", t);
}
std::string LogSoftmaxBwd(Dt dt) {
  const char* t = CType(dt);
  return fmt::format("void at::native::(anonymous namespace)::cunn_SoftMaxBackward<8, {0}, float, {0}, at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>({0}*, {0} const*, {0} const*, int)", t);
}
std::string NllLossFwd(Dt dt) {
  const char* t = CType(dt);
  return fmt::format("void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<{0}, float, long>({0}*, {0}*, {0} const*, long const*, {0} const*, bool, long, long, long, long)", t);
}
std::string NllLossBwd(Dt dt) {
  const char* t = CType(dt);
  return fmt::format("void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<{0}, long>({0}*, {0} const*, long const*, {0} const*, {0} const*, bool, int, int, long, long)", t);
}
std::string AdaptiveAvgPool(Dt dt) {
  const char* t = CType(dt);
  return fmt::format("void at::native::(anonymous namespace)::adaptive_average_pool<{0}>({0}*, {0}*, int, int, int, int, long, long, long)", t);
}

const char* const kAmpUnscale =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::UnaryOpFunctor<float, 1, 1, 0>, at::native::_amp_foreach_non_finite_check_and_unscale_cuda_(c10::ArrayRef<at::Tensor>, at::Tensor&, at::Tensor const&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}>(at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::UnaryOpFunctor<float, 1, 1, 0>, at::native::_amp_foreach_non_finite_check_and_unscale_cuda_(c10::ArrayRef<at::Tensor>, at::Tensor&, at::Tensor const&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1})";
const char* const kAmpUpdateScale = "at::native::amp_update_scale_cuda_kernel(float*, int*, float*, double, double, int)";

std::string ForeachLerp(Dt dt) {
  const char* t = CType(dt);
  return MultiTensor(3, fmt::format("at::native::(anonymous namespace)::TernaryOpScalarFunctor<{0}, 3, 2, 2>, at::native::LerpFunctor<float>, float", t));
}
std::string ForeachMulScalar(Dt dt) {
  return MultiTensor(1, fmt::format("at::native::(anonymous namespace)::BinaryOpScalarFunctor<{}, 1, 1, 0>, std::multiplies<float>, float", CType(dt)));
}
std::string ForeachAddcmul(Dt dt) {
  return MultiTensor(3, fmt::format("at::native::(anonymous namespace)::PointwiseOpScalarFunctor<{}, 3, 3, 0>, std::multiplies<float>, float", CType(dt)));
}
std::string ForeachSqrt(Dt dt) {
  const char* t = CType(dt);
  return MultiTensor(2, fmt::format("at::native::(anonymous namespace)::UnaryOpFunctor<{0}, 2, 1, 1>, at::native::Sqrt<float>", t));
}
std::string ForeachDivScalar(Dt dt) {
  return MultiTensor(1, fmt::format("at::native::(anonymous namespace)::BinaryOpScalarFunctor<{}, 1, 1, 0>, std::divides<float>, float", CType(dt)));
}
std::string ForeachAddScalar(Dt dt) {
  return MultiTensor(1, fmt::format("at::native::(anonymous namespace)::BinaryOpScalarFunctor<{}, 1, 1, 0>, std::plus<float>, float", CType(dt)));
}
std::string ForeachAddcdiv(Dt dt) {
  return MultiTensor(3, fmt::format("at::native::(anonymous namespace)::PointwiseOpScalarFunctor<{}, 3, 3, 0>, std::divides<float>, float", CType(dt)));
}
std::string FusedAdamW(Dt dt) {
  const std::string args = fmt::format(
      "at::native::(anonymous namespace)::FusedOptimizerTensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<{}, 4>, double, double, double, double, double, bool, bool, float*, float*",
      CType(dt));
  return fmt::format(
      "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<{0}>(at::native::(anonymous namespace)::FusedOptimizerTensorListMetadata<4>, "
      "at::native::(anonymous namespace)::FusedAdamMathFunctor<{1}, 4>, double, double, double, double, double, bool, bool, float*, float*)",
      args, CType(dt));
}
std::string Lerp(Dt dt) {
  return Vectorized(fmt::format("at::native::(anonymous namespace)::lerp_scalar_kernel(at::TensorIteratorBase&, c10::Scalar const&)::{{lambda()#1}}::operator()() const::{{lambda()#2}}::operator()() const::{{lambda({0}, {0})#1}}", CType(dt)), 3);
}
std::string Addcmul(Dt dt) {
  const char* t = CType(dt);
  return Vectorized(fmt::format("at::native::addcmul_cuda_kernel(at::TensorIteratorBase&, c10::Scalar const&)::{{lambda()#2}}::operator()() const::{{lambda()#3}}::operator()() const::{{lambda({0}, {0}, {0})#1}}", t), 4);
}
std::string Addcdiv(Dt dt) {
  const char* t = CType(dt);
  return Vectorized(fmt::format("at::native::addcdiv_cuda_kernel(at::TensorIteratorBase&, c10::Scalar const&)::{{lambda()#2}}::operator()() const::{{lambda()#3}}::operator()() const::{{lambda({0}, {0}, {0})#1}}", t), 4);
}
std::string Sqrt(Dt dt) {
  return Vectorized(fmt::format("at::native::sqrt_kernel_cuda(at::TensorIteratorBase&)::{{lambda()#2}}::operator()() const::{{lambda()#2}}::operator()() const::{{lambda({})#1}}", CType(dt)), 2);
}
std::string AddScalarInplace(Dt dt) { return Vectorized(fmt::format("at::native::CUDAFunctorOnSelf_add<{}>", CType(dt)), 2); }

}  // namespace ampscope::scenario::names
