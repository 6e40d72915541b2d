// Short kernel names (render/kernel_names.h) on real names: the labelled names of
// shared/reference/kernel_names.tsv and names from the shared traces. The expected short names
// are written by hand from the rules in kernel_names.h (template head plus the innermost
// operation; numbers, plumbing and namespaces dropped; generic wrappers unwrapped).
#include "render/kernel_names.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "support/test_support.h"

namespace ampscope::render {
namespace kernel_names_test {
namespace {

// The `name` column (6th) of every labelled row of kernel_names.tsv.
std::vector<std::string> TsvNames() {
  std::vector<std::string> names;
  std::ifstream in(testing::SharedPath("reference/kernel_names.tsv"));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("arch\t", 0) == 0) continue;
    std::vector<std::string> cols;
    std::istringstream fields(line);
    for (std::string f; std::getline(fields, f, '\t');) cols.push_back(f);
    if (cols.size() >= 6) names.push_back(cols[5]);
  }
  return names;
}

#define REQUIRE_TSV(names) \
  AMPSCOPE_REQUIRE_INPUT(!(names).empty(), "shared/reference/kernel_names.tsv not available")

TEST(ShortKernelName, TheIssueExamples) {
  // Issue 17's examples (the first as PyTorch prints it in traces).
  EXPECT_EQ(ShortKernelName("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<at::native::MulFunctor<"
                            "float> >(at::TensorIteratorBase&, at::native::MulFunctor<float> const&)::{lambda(int)#1}>(int, "
                            "at::native::gpu_kernel_impl<at::native::MulFunctor<float> >(at::TensorIteratorBase&, "
                            "at::native::MulFunctor<float> const&)::{lambda(int)#1})"),
            "elementwise_kernel<MulFunctor<float>>");
  // From the tb_plugin ResNet50 trace (kernels.top of its report).
  EXPECT_EQ(ShortKernelName("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
                            "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)"),
            "vectorized_elementwise_kernel<FillFunctor<float>>");
  EXPECT_EQ(ShortKernelName("void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, float const*, "
                            "int, float const*, int, float*, kernel_grad_params, unsigned long long, int, unsigned long long, "
                            "int, float, int, int, int)"),
            "cudnn::dgrad_engine<float>");
  EXPECT_EQ(ShortKernelName("volta_sgemm_64x64_nt"), "volta_sgemm_64x64_nt");
  // From the HTA nccl trace.
  EXPECT_EQ(ShortKernelName("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"),
            "ncclKernel_AllReduce_RING_LL_Sum_float");
  EXPECT_EQ(ShortKernelName("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>("
                            "cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4::Params)"),
            "cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4");
  // Names the analyzers already cut ("..."): shortened as far as they go, the cut marked.
  EXPECT_EQ(ShortKernelName("at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, ..."),
            "vectorized_elementwise_kernel<FillFunctor<float>>");
  EXPECT_EQ(ShortKernelName("at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::fun..."),
            "reduce_kernel<ReduceOp<float, \xE2\x80\xA6>>");
}

TEST(ShortKernelName, LabelledNamesOfTheReferenceTable) {
  const std::vector<std::string> names = TsvNames();
  REQUIRE_TSV(names);
  const std::set<std::string> in_tsv(names.begin(), names.end());
  // name in kernel_names.tsv -> short name by the rules of kernel_names.h.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"ampere_fp16_s16816gemm_fp16_128x128_ldg8_relu_f2f_stages_32x5_tn",
       "ampere_fp16_s16816gemm_fp16_128x128_ldg8_relu_f2f_stages_32x5_tn"},  // cuBLAS names stay whole
      {"void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x64_16x6_tn_align4>(T1::Params)",
       "cutlass_80_tensorop_s1688gemm_128x64_16x6_tn_align4"},
      {"_ZN7cutlass7Kernel2I66cutlass_80_tensorop_f16_s16816gemm_relu_f16_256x128_32x3_tn_align8EEE",
       "cutlass_80_tensorop_f16_s16816gemm_relu_f16_256x128_32x3_tn_align8"},  // mangled, read up to the cut
      {"_Z23implicit_convolve_sgemmIffLi1024ELi5ELi5ELi3ELi3ELi3ELi1ELb0ELb1ELb1EEviiiPKT_iPT0_S2_18kernel_conv_paramsyiffiPKS3_S7_bii",
       "implicit_convolve_sgemm<float, float>"},  // demangled first
      {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<__half, float, 512, true, 1>(cudnnTensorStruct, __half const*, cudnnTensorStruct, "
       "__half*, float const*, float const*, float, float, float*, float*, float*, float*, float, float)",
       "cudnn::bn_fw_tr_1C11_kernel_NCHW<__half, float>"},
      {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<2>, "
       "at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float>",
       "multi_tensor_apply_kernel<BinaryOpListAlphaFunctor<float>, plus<float>>"},
      {"_ZN2at6native51_GLOBAL__N__49690f20_18_fused_adam_impl_cu_ffd69f6925multi_tensor_apply_kernelINS1_"
       "32FusedOptimizerTensorListMetadataILi4EEENS1_20FusedAdamMathFunctorIdLi4EEEJdddddbbPfS7_EEEvT_T0_DpT1_",
       "multi_tensor_apply_kernel<FusedAdamMathFunctor<double>>"},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)::"
       "{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)::"
       "{lambda(float)#1}, std::array<char*, 2ul>)",
       "vectorized_elementwise_kernel<bfloat16_copy_kernel_cuda>"},  // a lambda is named by its function
      {"void at::native::vectorized_elementwise_kernel<(int)4, at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase &)::"
       "[lambda(float) (instance 1)], std::array<char *, (unsigned long)2>>",
       "vectorized_elementwise_kernel<bfloat16_copy_kernel_cuda>"},  // the other demangler's spelling
      {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float>, unsigned int, "
       "float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float>, unsigned int, float, 4>)",
       "reduce_kernel<MeanOps<float, float>>"},  // the innermost operation
      {"void <unnamed>::softmax_warp_backward<c10::BFloat16, c10::BFloat16, float, (int)9, (bool)1, (bool)0>(T2 *, const T1 *, "
       "const T1 *, int, int, int, const bool *)",
       "softmax_warp_backward<BFloat16, BFloat16, float>"},
      {"void at::native::vectorized_elementwise_kernel<8, at::native::FillFunctor<unsigned char>, std::array<char*, 1ul> >",
       "vectorized_elementwise_kernel<FillFunctor<unsigned char>>"},
      {"at::native::amp_update_scale_cuda_kernel(float*, int*, float*, double, double, int)", "amp_update_scale_cuda_kernel"},
      {"ncclDevKernel_AllReduce_Sum_f16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "ncclDevKernel_AllReduce_Sum_f16_RING_LL"},
      {"triton_poi_fused_add_addmm_gelu_mul_0", "triton_poi_fused_add_addmm_gelu_mul_0"},
      {"nvjet_tst_128x256_64x4_1x2_h_bz_coopA_TNT", "nvjet_tst_128x256_64x4_1x2_h_bz_coopA_TNT"},
  };
  for (const auto& [name, expected] : cases) {
    EXPECT_TRUE(in_tsv.count(name)) << "not a name of kernel_names.tsv: " << name;
    EXPECT_EQ(ShortKernelName(name), expected) << name;
  }
}

TEST(ShortKernelName, PropertiesOverEveryLabelledName) {
  const std::vector<std::string> names = TsvNames();
  REQUIRE_TSV(names);
  EXPECT_GT(names.size(), 100u);
  for (const std::string& name : names) {
    const std::string s = ShortKernelName(name);
    EXPECT_FALSE(s.empty()) << name;
    EXPECT_LE(s.size(), name.size() + 6) << name;  // never longer (but for "…" marks)
    EXPECT_EQ(s.rfind("void ", 0), std::string::npos) << s;
    EXPECT_EQ(s.find('('), std::string::npos) << "a parameter list left in " << s;
    int depth = 0;
    for (char c : s) {
      depth += c == '<' ? 1 : c == '>' ? -1 : 0;
      EXPECT_GE(depth, 0) << s;
    }
    EXPECT_EQ(depth, 0) << "unbalanced <> in " << s;
    // A PyTorch kernel that names a functor keeps it.
    for (const char* functor : {"FillFunctor", "CUDAFunctor_add", "MeanOps", "NormTwoOps", "ArgMaxOps", "UnaryOpFunctor",
                                "BinaryOpListAlphaFunctor", "PointwiseOpScalarFunctor"})
      if (name.find(functor) != std::string::npos) {
        EXPECT_NE(s.find(functor), std::string::npos) << name << " -> " << s;
      }
  }
}

}  // namespace
}  // namespace kernel_names_test
}  // namespace ampscope::render
