// The kernel classifier: kernel name -> category, math precision, Tensor Core use.
// Data-driven: one pattern table in kernel_classifier.cc, tested against every labelled
// name in shared/reference/kernel_names.tsv.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

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

}  // namespace ampscope
