// Small hand-built traces for the diagnosis tests (diagnosis_test.cc, advice_test.cc): real
// kernel names and a µs-based wrapper over the shared builder (tests/support/trace_builder.h).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analyzers/analyze.h"
#include "support/trace_builder.h"
#include "trace/model.h"

namespace ampscope {
namespace diagnosis_test {

// Real kernel names (shared/reference/kernel_names.tsv).
inline const char* kTcGemm = "ampere_fp16_s16816gemm_fp16_128x64_ldg8_f2f_stages_64x4_tn";
inline const char* kSgemm = "ampere_sgemm_128x64_tn";
inline const char* kAdd = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<long>, std::array<char*, 2ul> >(int, at::native::CUDAFunctorOnSelf_add<long>, std::array<char*, 2ul>)";
inline const char* kLayerNorm = "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)";
inline const char* kNchwToNhwc = "nchwToNhwcKernel";
inline const char* kConv = "sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize256x64x32_stage3_warpsize4x1x1_g1_tensor16x8x16_execute_kernel__5x_cudnn";
inline const char* kNccl = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
inline const char* kUnscale = "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::UnaryOpFunctor<float, 1, 1, 0>, at::native::_amp_foreach_non_finite_check_and_unscale_cuda_(c10::ArrayRef<at::Tensor>, at::Tensor&, at::Tensor const&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}>(at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::UnaryOpFunctor<float, 1, 1, 0>, at::native::_amp_foreach_non_finite_check_and_unscale_cuda_(c10::ArrayRef<at::Tensor>, at::Tensor&, at::Tensor const&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1})";
inline const char* kUpdate = "at::native::amp_update_scale_cuda_kernel(float*, int*, float*, double, double, int)";
inline const char* kForeach = "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float>";

// A one-GPU trace (an A100-SXM4-80GB) written in µs, on the shared builder
// (tests/support/trace_builder.h): launches are 3 µs cudaLaunchKernel calls, copies
// cudaMemcpyAsync calls, all on pid 1 and stream 7.
class TraceBuilder {
 public:
  TraceBuilder() {
    b_.AddA100();
    b_.trace().metadata.format = SourceFormat::kKineto;
    b_.trace().metadata.rank = 0;
    b_.trace().metadata.world_size = 1;
  }
  void Step(int n, double start_us, double end_us) { AddRange("ProfilerStep#" + std::to_string(n), start_us, end_us); }
  void AddRange(const std::string& name, double s, double e, int64_t tid = 1) {
    b_.AddRange(name, Us(s), Us(e), RangeKind::kCpuAnnotation, tid);
  }
  int64_t Api(const std::string& name, double s, double e, int64_t tid = 1) {
    const int64_t corr = b_.NewCorrelation();
    b_.AddApi(name, Us(s), Us(e), corr, tid);
    return corr;
  }
  // A kernel launched at `launch_us` (a 3 µs cudaLaunchKernel) running [start, start + dur).
  void Kernel(const std::string& name, double launch_us, double start_us, double dur_us, int stream = 7) {
    b_.LaunchKernel(name, Us(launch_us), Us(launch_us + 3) - Us(launch_us), Us(start_us), Us(start_us + dur_us), stream);
  }
  // A CUDA graph launched at `launch_us` (a 10 µs cudaGraphLaunch) whose first node is a kernel
  // running [start, start + dur).
  void GraphKernel(const std::string& name, double launch_us, double start_us, double dur_us, int stream = 7) {
    const int64_t corr = Api("cudaGraphLaunch", launch_us, launch_us + 10);
    b_.AddKernel(name, Us(start_us), Us(start_us + dur_us), corr, stream).graph_id = 1;
  }
  // A back-to-back run of kernels on stream 7, each launched 5 µs before the previous ends.
  double Run(const std::string& name, double start_us, int n, double dur_us, double gap_us = 1) {
    double t = start_us;
    for (int i = 0; i < n; ++i) {
      Kernel(name, std::max(0.0, t - 5), t, dur_us);
      t += dur_us + gap_us;
    }
    return t;
  }
  void Memcpy(MemcpyKind kind, MemoryKind src, MemoryKind dst, uint64_t bytes, double api_s, double api_e, double s, double dur) {
    const int64_t corr = Api("cudaMemcpyAsync", api_s, api_e);
    b_.AddMemcpy(Us(s), Us(s + dur), corr, kind, bytes, src, dst);
  }
  void Op(const std::string& name, double s, double e, const std::string& types = "", const std::string& dims = "", int64_t ext = -1) {
    b_.AddCpuOp(name, Us(s), Us(e), ext, types, dims);
  }
  // Replaces the A100 with another device (compute capability cc_major.cc_minor).
  void SetDevice(const std::string& name, int cc_major, int cc_minor, GpuVendor vendor = GpuVendor::kNvidia) {
    b_.trace().devices.clear();
    b_.AddDevice(0, name, cc_major, cc_minor).vendor = vendor;
  }
  void Memory(double t_us, int64_t allocated, int64_t reserved) { b_.AddMemory(Us(t_us), 1, allocated, reserved); }
  Trace& trace() { return b_.trace(); }
  // The finished trace (sorted, as a reader leaves it), for tests that analyse it their own way.
  Trace Build() { return b_.Build(); }
  RankAnalysis Analyze() {
    auto ra = AnalyzeTrace(b_.Finalize(), AnalysisOptions{});
    EXPECT_TRUE(ra.ok());
    return std::move(ra).value();
  }

 private:
  static TimeNs Us(double us) { return testing::Us(us); }
  testing::TraceBuilder b_;
};

inline const Finding* FindFinding(const RankAnalysis& ra, const std::string& id) {
  for (const Finding& f : ra.findings)
    if (f.id == id) return &f;
  return nullptr;
}
inline const ChecklistItem& Check(const RankAnalysis& ra, const std::string& id) {
  for (const ChecklistItem& c : ra.checklist)
    if (c.id == id) return c;
  static ChecklistItem none;
  ADD_FAILURE() << "no checklist item " << id;
  return none;
}
inline const DimensionResult& Dim(const RankAnalysis& ra, const std::string& id) {
  for (const DimensionResult& d : ra.matrix)
    if (d.id == id) return d;
  static DimensionResult none;
  ADD_FAILURE() << "no dimension " << id;
  return none;
}

}  // namespace diagnosis_test
}  // namespace ampscope
