// The kernel classifier: kernel name -> category, math precision, Tensor Core use and role.
// Data-driven: one pattern table (kernel_rules_table.cc), matched by kernel_classifier.cc and
// tested against every labelled name in shared/reference/kernel_names.tsv. Nothing outside
// trace/classify/ matches kernel names: analyzers ask for the class (or the role) instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "trace/classify/collective_roles.h"

namespace ampscope {

enum class KernelCategory : uint8_t {
  kGemm,
  kConv,
  kAttention,
  kElementwise,
  kReduction,
  kNormalization,
  kSoftmax,
  kCast,
  kOptimizer,
  kAmpScaler,
  kCommunication,
  kMemcpyLike,   // copy/memset-like kernels (e.g. CatArrayBatchedCopy, fill kernels)
  kLayoutTransform,
  kTritonFused,
  kOther,
  kCount
};
const char* KernelCategoryName(KernelCategory c);  // "gemm", "conv", ..., "memcpy_like", "triton_fused", "other"

enum class Precision : uint8_t { kFp8, kFp16, kBf16, kTf32, kFp32, kFp64, kInt8, kUnknown, kCount };
const char* PrecisionName(Precision p);  // "fp8", "fp16", "bf16", "tf32", "fp32", "fp64", "int8", "unknown"

enum class TensorCoreUse : uint8_t { kNo, kYes, kUnknown };
const char* TensorCoreUseName(TensorCoreUse t);  // "no", "yes", "unknown"

// What a kernel is for, where its name says so (analyzers use it instead of matching names).
enum class KernelRole : uint8_t {
  kNone,
  kAmpUpdateScale,      // GradScaler.update(): amp_update_scale_cuda_kernel
  kAmpUnscale,          // GradScaler.unscale_(): _amp_(foreach_)non_finite_check_and_unscale
  kOptimizerFused,      // fused=True optimizers (FusedAdam/FusedSgd math functors), apex fused_adam
  kOptimizerForeach,    // foreach (multi_tensor_apply) kernels
  kOptimizerPerParam,   // kernels only the for-loop optimizers launch (addcmul_/addcdiv_)
  kFill,                // fill_ / zero_ (FillFunctor)
  kCast,                // dtype conversion kernels (<type>_copy_kernel_cuda, direct copy with cast)
  kLayoutTransform,     // NCHW <-> NHWC transposes (cuDNN)
  kCopy,                // device copies done by a kernel (direct_copy without cast, cat)
  kNcclCollective,      // NCCL/RCCL collectives
  kCount
};
const char* KernelRoleName(KernelRole r);  // "none", "amp_update_scale", ..., "nccl_collective"

// KernelClass::rule when no table row matched.
inline constexpr uint16_t kNoKernelRule = 0xFFFF;

struct KernelClass {
  KernelCategory category = KernelCategory::kOther;
  Precision precision = Precision::kUnknown;
  TensorCoreUse tensor_core = TensorCoreUse::kNo;
  bool fp32_simt_gemm = false;  // an FP32 GEMM/conv on CUDA cores (sgemm, scudnn, *_simt_*, gemmSN...)
  bool rocm = false;            // a ROCm/HIP kernel name (Cijk_*, hip*, ...)
  bool fused_cast = false;      // a fused kernel whose name shows a dtype conversion (Triton "_to_copy",
                                // "convert_element_type"); not counted as a cast kernel
  KernelRole role = KernelRole::kNone;
  bool multi_tensor_apply = false;  // launched through multi_tensor_apply: one kernel for a list of tensors
  // The collective a communication kernel runs where its family says so (DeepEP dispatch/combine:
  // all-to-all); kUnknown elsewhere (NCCL kernels: CollectiveTypeOfKernel reads it from the name).
  CollectiveType collective = CollectiveType::kUnknown;
  uint16_t rule = 0;            // index of the matching table row (for `ampscope kernels --explain`);
                                // kNoKernelRule when none matched
};

// Classifies one kernel name. Thread-safe, no allocation on the hot path.
KernelClass ClassifyKernel(std::string_view name);

// Number of rows in the pattern table, and a one-line description of row `rule`
// (e.g. `#46 contains "s1688" -> gemm|conv, precision from type tags (else tf32), tensor core yes`).
size_t KernelRuleCount();
std::string DescribeKernelRule(uint16_t rule);

// The first type tag in `text` (c10::Half, __nv_bfloat16, cutlass::half_t, float, f16, bf16, tf32,
// ...), kUnknown if none. The classifier's precision pass, exposed for op input types.
Precision PrecisionFromTypeTags(std::string_view text);

// A rocBLAS/hipBLASLt Tensile GEMM (the name starts with "Cijk_"): evidence that a trace without
// device properties came from an AMD GPU.
bool IsTensileKernelName(std::string_view name);

}  // namespace ampscope
