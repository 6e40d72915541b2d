// Readable short kernel names for tables and charts (the full name goes on hover / --wide).
//
// A C++ kernel name is shortened to its template head plus the operation it runs:
//   void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<
//       at::native::MulFunctor<float> >(at::TensorIteratorBase&, ...)::{lambda(int)#1}>(int, ...)
//     -> elementwise_kernel<MulFunctor<float>>
//   void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>,
//       at::detail::Array<char*, 1> >(int, ...)
//     -> vectorized_elementwise_kernel<FillFunctor<float>>
//   void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, ...)
//     -> cudnn::dgrad_engine<float>
//   void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x64_16x6_tn_align4>(T1::Params)
//     -> cutlass_80_tensorop_s1688gemm_128x64_16x6_tn_align4
// Rules (syntax only: nothing here says what a kernel does, that is trace/classify's job):
//   - mangled names (_Z...) are demangled first; "void " and the parameter list are dropped;
//   - namespaces are dropped, except a library's outermost one on the kernel itself (cudnn::);
//   - integer and bool template arguments are dropped;
//   - when template arguments name an operation (a functor: ...Functor, ...Op(s), std::plus;
//     or a lambda, named by the function it is defined in), only the innermost operations are
//     kept; otherwise the remaining type arguments are kept, two levels deep;
//   - a generic wrapper (cutlass::Kernel<X>, Kernel2<X>, device_kernel<X>) shows X.
// Names that are already cut ("...") are shortened as far as they go.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ampscope::render {

std::string ShortKernelName(std::string_view name);

// ShortKernelName of each, told apart where distinct full names share a short name: each of those
// gets the words of its full name that differ from the others' at the same place (template
// arguments the short name dropped), e.g. "implicit_convolve_sgemm<float, float> [128 6 7]" and
// "... [1024 5 5]"; at most four words, else " #k" (the k-th of them, in the given order).
// Equal full names keep equal short names.
std::vector<std::string> DistinctShortNames(const std::vector<std::string>& full_names);

}  // namespace ampscope::render
