// Roles from trace/classify/: kernel roles (the rule table's role column and role markers),
// API roles and host-range/op roles. Expected roles come from what the kernel or call does in
// its source (named next to each name) and from shared/reference/kernel_names.tsv labels.
//
// The analyzers used to match these names themselves (diagnosis.cc: Contains(name,
// "amp_update_scale"), StartsWith(name, "cudaMalloc") ...). Those matches are reproduced below as
// the "legacy" predicates, and the roles must agree with them on every kernel and API name of
// the shared traces and the TSV: that is the evidence that moving the matching into classify/
// changed no result.
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/strings.h"
#include "support/test_support.h"
#include "trace/classify/api_roles.h"
#include "trace/classify/host_roles.h"
#include "trace/classify/kernel_classifier.h"
#include "trace/formats/kineto/kineto_reader.h"

namespace ampscope {
namespace classify_roles_test {
namespace {

KernelRole RoleOf(const std::string& name) { return ClassifyKernel(name).role; }

TEST(KernelRoles, RealPyTorchAndLibraryNames) {
  struct Case {
    const char* name;
    KernelRole role;
    bool multi_tensor_apply;
  };
  const Case kCases[] = {
      // GradScaler.update(): aten/src/ATen/native/cuda/AmpKernels.cu (kernel_names.tsv).
      {"at::native::amp_update_scale_cuda_kernel(float*, int*, float*, double, double, int)",
       KernelRole::kAmpUpdateScale, false},
      // GradScaler.unscale_() on a list of grads: multi_tensor_apply with the unscale lambda (AmpKernels.cu).
      {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
       "TensorListMetadata<1>, at::native::(anonymous namespace)::UnaryOpFunctor<float, 1, 1, 0>, "
       "at::native::_amp_foreach_non_finite_check_and_unscale_cuda_(c10::ArrayRef<at::Tensor>, at::Tensor&, "
       "at::Tensor const&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}>",
       KernelRole::kAmpUnscale, true},
      // ... and on one tensor (the TensorIterator fallback in AmpKernels.cu).
      {"void at::native::vectorized_elementwise_kernel<4, at::native::_amp_non_finite_check_and_unscale_cuda_("
       "at::Tensor&, at::Tensor&, at::Tensor const&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() "
       "const::{lambda(float)#1}, std::array<char*, 1ul> >",
       KernelRole::kAmpUnscale, false},
      // torch.optim.AdamW(fused=True): aten/src/ATen/native/cuda/fused_adamw_impl.cu.
      {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
       "FusedOptimizerTensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, "
       "(at::native::ADAM_MODE)1, false>, double, double, double, double, double, bool, double*, double*, float*>",
       KernelRole::kOptimizerFused, true},
      // torch.optim.SGD(fused=True): aten/src/ATen/native/cuda/FusedSgdKernel.cu.
      {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
       "FusedOptimizerTensorListMetadata<3>, at::native::(anonymous namespace)::FusedSgdMathFunctor<float, 3>, "
       "double, double, double, bool, bool, bool, float*, float*, float const*>",
       KernelRole::kOptimizerFused, true},
      // torch.optim.AdamW(foreach=True): _foreach_add_ etc. (ForeachBinaryOpList.cu; kernel_names.tsv prefix).
      {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
       "TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, "
       "std::plus<float>, float>",
       KernelRole::kOptimizerForeach, true},
      // The for-loop Adam: exp_avg_sq.mul_(beta2).addcmul_(grad, grad) (PointwiseOpsKernel.cu).
      {"void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::addcmul_cuda_kernel("
       "at::TensorIteratorBase&, c10::Scalar const&)::{lambda()#1}::operator()() const::{lambda()#4}::operator()() "
       "const::{lambda(float, float, float)#1}, std::array<char*, 4ul> >",
       KernelRole::kOptimizerPerParam, false},
      // zero_()/fill_(): aten/src/ATen/native/cuda/FillKernel.cu (kernel_names.tsv has the uint8 form).
      {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> "
       ">(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
       KernelRole::kFill, false},
      // autocast's casts: aten/src/ATen/native/cuda/Copy.cu (kernel_names.tsv).
      {"void at::native::vectorized_elementwise_kernel<4, at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)"
       "::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)"
       "::{lambda(float)#1}, std::array<char*, 2ul>)",
       KernelRole::kCast, false},
      // A same-dtype copy (Copy.cu direct_copy_kernel_cuda without a cast; kernel_names.tsv, elementwise).
      {"void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::native::direct_copy_kernel_cuda("
       "at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#8}::operator()() const::{lambda(float)#1}>",
       KernelRole::kCopy, false},
      // torch.cat: aten/src/ATen/native/cuda/Shape.cu.
      {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 4, 64, 64>(float*, "
       "at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 64, 64>, "
       "at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
       KernelRole::kCopy, false},
      // cuDNN's layout transform (kernel_names.tsv).
      {"nchwToNhwcKernel", KernelRole::kLayoutTransform, false},
      // NCCL 2.19+ and the legacy form (kernel_names.tsv).
      {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", KernelRole::kNcclCollective, false},
      {"ncclKernel_AllReduce_RING_LL_Sum_half(ncclDevComm*, unsigned long, ncclWork*)", KernelRole::kNcclCollective, false},
      // No role: a GEMM, an elementwise add.
      {"ampere_sgemm_128x64_tn", KernelRole::kNone, false},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::Half>, std::array<char*, 3ul> >",
       KernelRole::kNone, false},
  };
  for (const Case& c : kCases) {
    const KernelClass k = ClassifyKernel(c.name);
    EXPECT_STREQ(KernelRoleName(k.role), KernelRoleName(c.role)) << c.name;
    EXPECT_EQ(k.multi_tensor_apply, c.multi_tensor_apply) << c.name;
  }
  // Role markers do not move a kernel to another category: the per-parameter and fill kernels
  // stay elementwise, the fused optimizer an optimizer kernel.
  EXPECT_EQ(ClassifyKernel(kCases[6].name).category, KernelCategory::kElementwise);
  EXPECT_EQ(ClassifyKernel(kCases[7].name).category, KernelCategory::kElementwise);
  EXPECT_EQ(ClassifyKernel(kCases[3].name).category, KernelCategory::kOptimizer);
}

// The TSV's labels imply roles: every amp_scaler kernel is an update or an unscale, every
// optimizer kernel fused or foreach, every cast a cast, every layout transform one, and every
// name starting with "nccl" a collective.
TEST(KernelRoles, AgreeWithKernelNamesTsvLabels) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  std::ifstream in(testing::SharedPath("reference/kernel_names.tsv"));
  ASSERT_TRUE(in);
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    size_t from = 0;
    for (size_t tab; (tab = line.find('\t', from)) != std::string::npos; from = tab + 1) f.push_back(line.substr(from, tab - from));
    f.push_back(line.substr(from));
    if (f.size() < 6 || f[0] == "arch") continue;
    const std::string& category = f[1];
    const std::string& name = f[5];
    const KernelRole role = RoleOf(name);
    if (category == "amp_scaler") {
      EXPECT_TRUE(role == KernelRole::kAmpUpdateScale || role == KernelRole::kAmpUnscale) << name;
      ++checked;
    } else if (category == "optimizer") {
      EXPECT_TRUE(role == KernelRole::kOptimizerFused || role == KernelRole::kOptimizerForeach) << name;
      ++checked;
    } else if (category == "cast") {
      EXPECT_EQ(role, KernelRole::kCast) << name;
      ++checked;
    } else if (category == "layout_transform") {
      EXPECT_EQ(role, KernelRole::kLayoutTransform) << name;
      ++checked;
    }
    if (StartsWith(name, "nccl")) {
      EXPECT_EQ(role, KernelRole::kNcclCollective) << name;
    }
    if (Contains(name, "fused_adam")) {
      EXPECT_EQ(role, KernelRole::kOptimizerFused) << name;
    }
    if (Contains(name, "FillFunctor")) {
      EXPECT_EQ(role, KernelRole::kFill) << name;
    }
  }
  EXPECT_GE(checked, 8);
}

// ---- the analyzers' former name matches, as they were written (the oracle) ----
bool LegacyUpdate(std::string_view n) { return Contains(n, "amp_update_scale"); }
bool LegacyUnscale(std::string_view n) { return Contains(n, "non_finite_check_and_unscale"); }
bool LegacyFused(std::string_view n) {
  return Contains(n, "FusedAdam") || Contains(n, "fused_adam") || Contains(n, "FusedSgd") || Contains(n, "fused_sgd") ||
         Contains(n, "FusedOptimizerTensorListMetadata");
}
bool LegacyMultiTensor(std::string_view n) { return Contains(n, "multi_tensor_apply"); }
bool LegacyHtaCompute(std::string_view n) { return n.rfind("nccl", 0) != 0; }
bool LegacySync(std::string_view n) {
  for (std::string_view s : {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
                             "cudaThreadSynchronize", "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize",
                             "hipDeviceSynchronize", "hipStreamSynchronize", "hipEventSynchronize", "hipCtxSynchronize"})
    if (StartsWith(n, s)) return true;
  return false;
}
bool LegacyMemcpyApi(std::string_view n) {
  return StartsWith(n, "cudaMemcpy") || StartsWith(n, "cuMemcpy") || StartsWith(n, "hipMemcpy");
}
// The former matches knew only the CUDA spellings of the allocator; issue 32 adds their HIP
// twins (an MI300X run had 1,360 hipFree calls and "0 allocation calls"), the pinned-host
// allocations that have no cudaMalloc prefix (cudaHostAlloc, cuMemHostAlloc), and
// hipCtxSynchronize.
bool LegacyAllocOrFree(std::string_view n) {
  return StartsWith(n, "cudaMalloc") || StartsWith(n, "cuMemAlloc") || StartsWith(n, "cudaFree") || StartsWith(n, "cuMemFree") ||
         StartsWith(n, "hipMalloc") || StartsWith(n, "hipFree") || StartsWith(n, "hipHostMalloc") || StartsWith(n, "hipHostFree") ||
         StartsWith(n, "hipExtMallocWithFlags") || StartsWith(n, "hipHostAlloc") || StartsWith(n, "cudaHostAlloc") ||
         StartsWith(n, "cuMemHostAlloc");
}
bool LegacyFree(std::string_view n) {
  return StartsWith(n, "cudaFree") || StartsWith(n, "cuMemFree") || StartsWith(n, "hipFree") || StartsWith(n, "hipHostFree");
}

void ExpectKernelRolesMatchLegacy(const std::string& n) {
  const KernelClass c = ClassifyKernel(n);
  EXPECT_EQ(c.role == KernelRole::kAmpUpdateScale, LegacyUpdate(n)) << n;
  EXPECT_EQ(c.role == KernelRole::kAmpUnscale, LegacyUnscale(n)) << n;
  EXPECT_EQ(c.role == KernelRole::kOptimizerFused, LegacyFused(n)) << n;
  EXPECT_EQ(c.multi_tensor_apply, LegacyMultiTensor(n)) << n;
  EXPECT_EQ(c.role != KernelRole::kNcclCollective, LegacyHtaCompute(n)) << n;
  // p.scaler in the sync finding: category amp_scaler or an unscale kernel.
  EXPECT_EQ(c.category == KernelCategory::kAmpScaler || c.role == KernelRole::kAmpUnscale,
            c.category == KernelCategory::kAmpScaler || LegacyUnscale(n))
      << n;
}

void ExpectApiRolesMatchLegacy(const std::string& n) {
  const ApiRole r = ClassifyApi(n);
  EXPECT_EQ(r == ApiRole::kSync, LegacySync(n)) << n;
  EXPECT_EQ(r == ApiRole::kMemcpySync, LegacyMemcpyApi(n) && !Contains(n, "Async")) << n;
  EXPECT_EQ(r == ApiRole::kMemcpyAsync, LegacyMemcpyApi(n) && Contains(n, "Async")) << n;
  EXPECT_EQ(r == ApiRole::kAlloc || r == ApiRole::kFree, LegacyAllocOrFree(n)) << n;
  EXPECT_EQ(r == ApiRole::kFree, LegacyFree(n)) << n;
}

TEST(ClassifyRoles, SameAnswersAsTheFormerAnalyzerMatchesOnEverySharedTrace) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  const char* kTraces[] = {
      "traces/kineto/hta/nccl_data.json.gz",
      "traces/kineto/hta/a100_16rank_recsys_rank0.json.gz",
      "traces/kineto/hta/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
      "traces/kineto/hta/benchmark_result_493459_1694039959_trace.json.gz",
      "traces/kineto/hta/event_sync_trace.json.gz",
      "traces/kineto/hta/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
      "traces/kineto/hta/sampled_rank-0.json.gz",
      "traces/kineto/hta/triton_example.json.gz",
      "traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz",
      "traces/kineto/tb_plugin/worker0.1623143566756.pt.trace.json.gz",
      "traces/kineto/deepseek/train.json.gz",
      "traces/kineto/tracelens_mi210/gpu_only_trace.json.gz",
      "traces/kineto/tracelens_mi300_qwen/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
      "traces/kineto/param_dlrm_8ranks/worker0_step_12.1694128201545.pt.trace.json.gz",
  };
  std::set<std::string> kernels, apis;
  for (const char* rel : kTraces) {
    StatusOr<Trace> t = ReadKinetoTrace(testing::SharedPath(rel));
    ASSERT_TRUE(t.ok()) << t.status().message();
    for (const KernelEvent& k : t->kernels) kernels.insert(std::string(t->str(k.name)));
    for (const ApiCall& a : t->api_calls) apis.insert(std::string(t->str(a.name)));
  }
  EXPECT_GT(kernels.size(), 300u);
  EXPECT_GT(apis.size(), 20u);
  for (const std::string& n : kernels) ExpectKernelRolesMatchLegacy(n);
  for (const std::string& n : apis) ExpectApiRolesMatchLegacy(n);
}

TEST(ApiRoles, Names) {
  struct Case {
    const char* name;
    ApiRole role;
  };
  // CUDA runtime/driver API and HIP names; suffixes as CUPTI and Kineto write them.
  const Case kCases[] = {
      {"cudaDeviceSynchronize", ApiRole::kSync},       {"cudaStreamSynchronize_ptsz", ApiRole::kSync},
      {"cuCtxSynchronize", ApiRole::kSync},            {"hipEventSynchronize", ApiRole::kSync},
      {"cudaStreamWaitEvent", ApiRole::kStreamWait},   {"cuStreamWaitEvent", ApiRole::kStreamWait},
      {"cudaLaunchKernel", ApiRole::kLaunch},          {"cudaLaunchKernel_ptsz", ApiRole::kLaunch},
      {"cuLaunchKernel", ApiRole::kLaunch},            {"cudaGraphLaunch", ApiRole::kLaunch},
      {"hipExtModuleLaunchKernel", ApiRole::kLaunch},  {"cudaMemcpy", ApiRole::kMemcpySync},
      {"cuMemcpyDtoH_v2", ApiRole::kMemcpySync},       {"cudaMemcpyAsync", ApiRole::kMemcpyAsync},
      {"cuMemcpyHtoDAsync_v2", ApiRole::kMemcpyAsync}, {"hipMemcpyAsync", ApiRole::kMemcpyAsync},
      {"cudaMemsetAsync", ApiRole::kMemset},           {"cudaMalloc", ApiRole::kAlloc},
      {"cudaMallocAsync", ApiRole::kAlloc},            {"cuMemAlloc_v2", ApiRole::kAlloc},
      {"cudaFree", ApiRole::kFree},                    {"cuMemFree_v2", ApiRole::kFree},
      {"cudaEventRecord", ApiRole::kOther},            {"cudaGetDevice", ApiRole::kOther},
  };
  for (const Case& c : kCases) EXPECT_STREQ(ApiRoleName(ClassifyApi(c.name)), ApiRoleName(c.role)) << c.name;
  EXPECT_EQ(ApiFamilyOf("cudaLaunchKernel"), ApiFamily::kCudaRuntime);
  EXPECT_EQ(ApiFamilyOf("cuLaunchKernel"), ApiFamily::kCudaDriver);
  EXPECT_EQ(ApiFamilyOf("hipLaunchKernel"), ApiFamily::kHip);
  EXPECT_EQ(ApiFamilyOf("ncclAllReduce"), ApiFamily::kOther);
}

// Every host role of a CUDA name has its HIP twin (hip/hip_runtime_api.h, ROCm 5-6), so that a
// ROCm run is read as a CUDA run is: allocator churn, syncs, copies, launches, event waits and
// graph launches. Pairs: the CUDA runtime name and the HIP name PyTorch's ROCm build (hipify)
// calls in its place.
TEST(ApiRoles, EveryRoleHasItsHipTwin) {
  struct Twin {
    const char* cuda;
    const char* hip;
    ApiRole role;
  };
  const Twin kTwins[] = {
      {"cudaDeviceSynchronize", "hipDeviceSynchronize", ApiRole::kSync},
      {"cudaStreamSynchronize", "hipStreamSynchronize", ApiRole::kSync},
      {"cudaEventSynchronize", "hipEventSynchronize", ApiRole::kSync},
      {"cuCtxSynchronize", "hipCtxSynchronize", ApiRole::kSync},
      {"cudaLaunchKernel", "hipLaunchKernel", ApiRole::kLaunch},
      {"cuLaunchKernel", "hipModuleLaunchKernel", ApiRole::kLaunch},
      {"cudaLaunchKernelExC", "hipLaunchKernelExC", ApiRole::kLaunch},
      {"cudaLaunchCooperativeKernel", "hipLaunchCooperativeKernel", ApiRole::kLaunch},
      {"cuLaunchCooperativeKernel", "hipModuleLaunchCooperativeKernel", ApiRole::kLaunch},
      {"cudaGraphLaunch", "hipGraphLaunch", ApiRole::kLaunch},
      {"cudaMemcpy", "hipMemcpy", ApiRole::kMemcpySync},
      {"cudaMemcpy2D", "hipMemcpy2D", ApiRole::kMemcpySync},
      {"cuMemcpyHtoD_v2", "hipMemcpyHtoD", ApiRole::kMemcpySync},
      {"cudaMemcpyAsync", "hipMemcpyAsync", ApiRole::kMemcpyAsync},
      {"cudaMemcpyPeerAsync", "hipMemcpyPeerAsync", ApiRole::kMemcpyAsync},
      {"cudaMemsetAsync", "hipMemsetAsync", ApiRole::kMemset},
      {"cudaMalloc", "hipMalloc", ApiRole::kAlloc},
      {"cudaMallocAsync", "hipMallocAsync", ApiRole::kAlloc},
      {"cudaMallocManaged", "hipMallocManaged", ApiRole::kAlloc},
      {"cudaMallocHost", "hipHostMalloc", ApiRole::kAlloc},
      {"cudaHostAlloc", "hipHostAlloc", ApiRole::kAlloc},
      {"cudaFree", "hipFree", ApiRole::kFree},
      {"cudaFreeAsync", "hipFreeAsync", ApiRole::kFree},
      {"cudaFreeHost", "hipHostFree", ApiRole::kFree},
      {"cudaStreamWaitEvent", "hipStreamWaitEvent", ApiRole::kStreamWait},
      {"cudaEventRecord", "hipEventRecord", ApiRole::kOther},
  };
  for (const Twin& t : kTwins) {
    EXPECT_STREQ(ApiRoleName(ClassifyApi(t.cuda)), ApiRoleName(t.role)) << t.cuda;
    EXPECT_STREQ(ApiRoleName(ClassifyApi(t.hip)), ApiRoleName(t.role)) << t.hip;
    EXPECT_EQ(ApiFamilyOf(t.hip), ApiFamily::kHip) << t.hip;
  }
  // ROCm's own spellings without a CUDA twin: the code-object launches rocBLAS, hipBLASLt and
  // MIOpen use, and the synchronous copy PyTorch's ROCm copy_ calls (it returns when done).
  EXPECT_EQ(ClassifyApi("hipExtModuleLaunchKernel"), ApiRole::kLaunch);
  EXPECT_EQ(ClassifyApi("hipHccModuleLaunchKernel"), ApiRole::kLaunch);
  EXPECT_EQ(ClassifyApi("hipExtMallocWithFlags"), ApiRole::kAlloc);
  EXPECT_EQ(ClassifyApi("hipMemcpyWithStream"), ApiRole::kMemcpySync);
  // Not allocations: device queries and pointer attributes.
  EXPECT_EQ(ClassifyApi("hipGetDevicePropertiesR0600"), ApiRole::kOther);
  EXPECT_EQ(ClassifyApi("hipPointerGetAttributes"), ApiRole::kOther);
}

// The MI300X ResNet18 run (shared/traces/README.md: 1,360 hipFree and 1,460 hipMalloc calls).
TEST(ApiRoles, HipAllocatorCallsOfTheSharedMi300xRun) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  StatusOr<Trace> t = ReadKinetoTrace(testing::SharedPath("traces/kineto/tracelens_mi300_resnet18/train_resnet18.json.gz"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  std::map<ApiRole, int64_t> roles;
  int64_t hip_malloc = 0, hip_free = 0;
  for (const ApiCall& a : t->api_calls) {
    roles[ClassifyApi(t->str(a.name))]++;
    hip_malloc += t->str(a.name) == "hipMalloc";
    hip_free += t->str(a.name) == "hipFree";
  }
  EXPECT_EQ(hip_malloc, 1460);
  EXPECT_EQ(hip_free, 1360);
  EXPECT_EQ(roles[ApiRole::kFree], 1360);
  EXPECT_EQ(roles[ApiRole::kAlloc], 1460 + 1);  // and one hipHostMalloc (pinned host memory)
  EXPECT_GT(roles[ApiRole::kLaunch], 0);
}

TEST(HostRoles, RangeNamesTorchWrites) {
  // torch/profiler/profiler.py: "ProfilerStep#" + step; torch/utils/data/dataloader.py:
  // "enumerate(DataLoader)#{}.__next__"; torch/optim/optimizer.py: "Optimizer.step#{}.step" and
  // "Optimizer.zero_grad#{}.zero_grad"; torch/nn/parallel/distributed.py:
  // "DistributedDataParallel.forward"; torch/csrc/autograd/engine.cpp (record_function of each
  // backward node): "autograd::engine::evaluate_function: MmBackward0".
  EXPECT_EQ(ClassifyHostRange("ProfilerStep#12"), HostRangeRole::kProfilerStep);
  EXPECT_EQ(ClassifyHostRange("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"), HostRangeRole::kDataLoader);
  EXPECT_EQ(ClassifyHostRange("Optimizer.step#AdamW.step"), HostRangeRole::kOptimizerStep);
  EXPECT_EQ(ClassifyHostRange("Optimizer.zero_grad#AdamW.zero_grad"), HostRangeRole::kOptimizerZeroGrad);
  EXPECT_EQ(ClassifyHostRange("DistributedDataParallel.forward"), HostRangeRole::kDataParallelForward);
  EXPECT_EQ(ClassifyHostRange("## forward ##"), HostRangeRole::kUserSection);
  EXPECT_EQ(ClassifyHostRange("autograd::engine::evaluate_function: MmBackward0"), HostRangeRole::kAutogradEvaluate);
  EXPECT_EQ(ClassifyHostRange("aten::mm"), HostRangeRole::kOther);
  EXPECT_STREQ(HostRangeRoleName(HostRangeRole::kOptimizerStep), "optimizer_step");
  // 2021 traces write these as Operator events; they are ranges.
  EXPECT_TRUE(IsAnnotationOpName("ProfilerStep#3"));
  EXPECT_TRUE(IsAnnotationOpName("Optimizer.zero_grad#SGD.zero_grad"));
  EXPECT_TRUE(IsAnnotationOpName("## backward ##"));
  EXPECT_FALSE(IsAnnotationOpName("DistributedDataParallel.forward"));
  EXPECT_FALSE(IsAnnotationOpName("aten::conv2d"));
}

TEST(HostRoles, OpNames) {
  EXPECT_EQ(ClassifyGemmOp("aten::mm"), GemmOpForm::kAB);
  EXPECT_EQ(ClassifyGemmOp("aten::bmm"), GemmOpForm::kAB);
  EXPECT_EQ(ClassifyGemmOp("aten::addmm"), GemmOpForm::kBiasAB);
  EXPECT_EQ(ClassifyGemmOp("aten::linear"), GemmOpForm::kLinear);
  EXPECT_EQ(ClassifyGemmOp("aten::conv2d"), GemmOpForm::kNone);
  // autocast's fp32 list (aten/src/ATen/autocast_mode.cpp, "fp32" CUDA ops).
  EXPECT_TRUE(IsAutocastFp32Op("aten::layer_norm"));
  EXPECT_TRUE(IsAutocastFp32Op("aten::nll_loss"));
  EXPECT_FALSE(IsAutocastFp32Op("aten::mm"));
  EXPECT_TRUE(IsTensorCoreEligibleOp("aten::linear"));
  EXPECT_TRUE(IsTensorCoreEligibleOp("ConvolutionBackward0"));
  EXPECT_FALSE(IsTensorCoreEligibleOp("aten::layer_norm"));
}

// Autograd node names as PyTorch's profiler writes them (torch/csrc/autograd: the engine's
// "autograd::engine::evaluate_function: <node>" range, node names <Op>Backward<N>, 2021 traces
// without the version digit, AccumulateGrad).
TEST(HostRoles, AutogradNodeNames) {
  EXPECT_TRUE(IsAutogradNodeName("autograd::engine::evaluate_function: AddmmBackward0"));
  EXPECT_TRUE(IsAutogradNodeName("AddmmBackward0"));
  EXPECT_TRUE(IsAutogradNodeName("CudnnConvolutionBackward"));  // 2021 names have no digit
  EXPECT_TRUE(IsAutogradNodeName("ReluBackward1"));
  EXPECT_TRUE(IsAutogradNodeName("torch::autograd::AccumulateGrad"));
  EXPECT_FALSE(IsAutogradNodeName("aten::convolution_backward"));
  EXPECT_FALSE(IsAutogradNodeName("aten::native_layer_norm_backward"));
  EXPECT_FALSE(IsAutogradNodeName("## backward ##"));
  EXPECT_FALSE(IsAutogradNodeName("Backward"));
  EXPECT_FALSE(IsAutogradNodeName("Optimizer.step#SGD.step"));
  EXPECT_EQ(AutogradEvaluatedNode("autograd::engine::evaluate_function: MmBackward0"), "MmBackward0");
  EXPECT_EQ(AutogradEvaluatedNode("MmBackward0"), "");
  // The 2021 ResNet50 trace splits convolution backward into these two ops.
  EXPECT_EQ(ClassifyConvBackwardOp("aten::cudnn_convolution_backward_input"), ConvBackwardPart::kInput);
  EXPECT_EQ(ClassifyConvBackwardOp("aten::cudnn_convolution_backward_weight"), ConvBackwardPart::kWeight);
  EXPECT_EQ(ClassifyConvBackwardOp("aten::cudnn_convolution_backward"), ConvBackwardPart::kNone);
}

}  // namespace
}  // namespace classify_roles_test
}  // namespace ampscope
