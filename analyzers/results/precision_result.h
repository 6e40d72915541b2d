// The typed result of AnalyzePrecision: kernel-level precision, TF32, casts and the op-level
// (TensorBoard-plugin style) precision of Tensor-Core-eligible ops. The report writes it as
// `precision` with the field names of docs/classifier.md (reports/json_report.cc).
// Times ending in _us are rounded to ns; percentages are 0-100 rounded to 3 decimals; an empty
// optional is a share whose whole is 0 (null in the report).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analyzers/results/results.h"
#include "trace/classify/kernel_classifier.h"

namespace ampscope {

// Texts the report carries next to the numbers (what they mean).
inline constexpr const char* kOpLevelDefinition =
    "eligible_kernel_time_pct = kernel time launched by bottom-most Tensor-Core-eligible ops / kernel time "
    "launched by all ops (TensorBoard plugin tc_eligible_ops_kernel_ratio); lowp_share_pct = fp16/bf16/fp8 "
    "share of the eligible ops' kernel time whose dtype is known";
inline constexpr const char* kFusedCastNote =
    "Triton/Inductor kernels whose names show a fused dtype conversion "
    "(_to_copy, convert_element_type); not counted in count/time_us";

struct Tf32Result {
  bool used = false;                             // any TF32 kernel time
  std::optional<bool> gpu_supports;              // cc >= 8 (unknown GPU: empty)
  std::optional<int32_t> compute_capability_major;
  std::optional<double> tf32_kernel_time_pct;
  std::optional<double> tf32_pct_of_gemm;        // TF32 Tensor Core GEMM+conv / GEMM+conv time
  bool fp32_gemm_on_ampere = false;              // FP32 SIMT GEMMs on a GPU that has TF32
  const char* allow_tf32_matmul = "unknown";     // "on" | "off" | "mixed" | "not_applicable" | "unknown"
  const char* allow_tf32_cudnn = "unknown";
  std::vector<KernelShare> top;
};

struct CastResult {
  uint64_t count = 0;
  std::optional<double> count_per_step;  // empty without steps
  double time_us = 0;
  std::optional<double> time_pct;
  std::vector<KernelShare> top;
  uint64_t fused_count = 0;  // Triton/Inductor kernels with a fused dtype conversion
  double fused_time_us = 0;
};

// A kernel launched by an eligible op group.
struct OpKernel {
  std::string name;
  uint64_t count = 0;
  double time_us = 0;
  Precision precision = Precision::kUnknown;
  TensorCoreUse tensor_core = TensorCoreUse::kUnknown;
};

// Bottom-most Tensor-Core-eligible ops with one name and dtype.
struct OpPrecision {
  std::string name;
  Precision dtype = Precision::kUnknown;
  const char* dtype_source = "none";  // "input_type" | "parent_input_type" | "kernels" | "none"
  Precision kernel_precision = Precision::kUnknown;
  uint64_t calls = 0;
  double kernel_time_us = 0;
  std::optional<double> pct_of_eligible;
  std::optional<double> tensor_core_pct;
  std::vector<OpKernel> kernels;
};

struct OpLevelPrecision {
  bool available = false;
  std::string reason;                  // when !available
  bool has_input_types = false;        // record_shapes=True
  double op_kernel_time_us = 0;
  double eligible_kernel_time_us = 0;
  std::optional<double> eligible_kernel_time_pct;
  std::optional<double> eligible_pct_of_all_kernel_time;
  double unattributed_kernel_time_us = 0;
  std::optional<double> lowp_share_pct;
  std::optional<double> fp32_share_pct;
  std::optional<double> unknown_dtype_pct;
  std::vector<std::pair<Precision, double>> eligible_time_by_dtype_us;  // non-zero only
  std::vector<OpPrecision> ops;           // top by kernel time
  std::vector<OpPrecision> fp32_ops_top;  // full-precision groups (kernels: top 3)
};

// Tensor-Core-eligible work, defined once: the AMP finding, the Tensor Core checklist item and
// their texts all read it. The kernels of matmul class (GEMM, convolution, attention) plus the
// other kernels that bottom-most Tensor-Core-eligible ops launch (when the trace has cpu_ops), in
// the analysed window. Its share is of ALL kernel time in the window (op_level's
// eligible_kernel_time_pct is the TensorBoard plugin's share of op-attributed kernel time, which
// leaves out kernels no op launched); what it runs in now is its kernels' own precision.
struct EligibleWork {
  double time_us = 0;
  std::optional<double> pct_of_kernel_time;  // time / all kernel time in the window
  double tensor_core_time_us = 0;            // of it, in Tensor Core kernels
  std::vector<std::pair<Precision, double>> time_by_precision_us;  // non-zero only, by Precision order
  const char* basis = "";                    // which kernels were counted
};

struct PrecisionResult {
  bool computed = false;  // false: not analysed (the report writes {})
  double kernel_time_us = 0;
  uint64_t kernel_count = 0;
  std::vector<std::pair<KernelCategory, double>> kernel_time_by_category_pct;  // non-zero only
  std::vector<std::pair<Precision, double>> kernel_time_by_precision_pct;
  double gemm_conv_time_us = 0;
  double fp32_simt_gemm_time_us = 0;
  std::optional<double> fp32_simt_gemm_pct_of_gemm;
  std::vector<KernelShare> fp32_simt_top;
  std::vector<KernelShare> top_fp16, top_bf16, top_tf32, top_fp32;  // top_by_precision
  Tf32Result tf32;
  CastResult casts;
  OpLevelPrecision op_level;
  EligibleWork eligible;
};

}  // namespace ampscope
